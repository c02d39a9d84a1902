// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Fusion: the sequential scalar update of the error state and the
 * covariance, and the gated vector measurement built on it. The measurement
 * models (estim_row_fn) are with their sensors: estim_gps.c, estim_baro.c,
 * estim_mag.c, estim_airspeed.c, and the constant position in estim.c.
 */
#include <errno.h>
#include <math.h>

#include "estim/estim_internal.h"

#define N ESTIM_NSTATES

/* Innovation variance of a measurement row h with noise variance r. */
static float innov_var(const struct estim *e, const float h[N], float r)
{
	int nz[N], nn = 0;
	for (int i = 0; i < N; i++)
		if (h[i] != 0.0f)
			nz[nn++] = i;
	float s = r;
	for (int a = 0; a < nn; a++)
		for (int b = 0; b < nn; b++)
			s += h[nz[a]] * e->P[nz[a]][nz[b]] * h[nz[b]];
	return s;
}

/* Sequential scalar update: x += K innov, P -= K h P. Skips (and counts) an
 * update that would drive a variance negative. Returns 0 or -EDOM. */
int estim_fuse_scalar(struct estim *e, const float h[N], float innov, float r)
{
	int nz[N], nn = 0;
	for (int i = 0; i < N; i++)
		if (h[i] != 0.0f)
			nz[nn++] = i;
	float pht[N];
	float s = r;
	for (int i = 0; i < N; i++) {
		float a = 0.0f;
		for (int k = 0; k < nn; k++)
			a += e->P[i][nz[k]] * h[nz[k]];
		pht[i] = a;
	}
	for (int k = 0; k < nn; k++)
		s += h[nz[k]] * pht[nz[k]];
	if (!(s > r * 0.5f) || !isfinite(innov)) {
		e->count.numeric_faults++;
		e->numeric_us = e->t_now_us;
		return -EDOM;
	}
	float inv = 1.0f / s;
	for (int i = 0; i < N; i++)
		if (e->P[i][i] - pht[i] * pht[i] * inv < 0.0f) {
			e->count.numeric_faults++;
			e->numeric_us = e->t_now_us;
			return -EDOM;
		}
	float d[N];
	for (int i = 0; i < N; i++)
		d[i] = pht[i] * inv * innov;
	/* The upper triangle along its rows, then copied to the lower: P stays
	 * exactly symmetric (estim_cov_fix relies on it). */
	for (int i = 0; i < N; i++) {
		float ki = pht[i] * inv;
		for (int j = i; j < N; j++)
			e->P[i][j] -= ki * pht[j];
	}
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			e->P[j][i] = e->P[i][j];
	if (!e->wind_active)
		d[ESTIM_S_WIND] = d[ESTIM_S_WIND + 1] = 0.0f;
	if (!e->mag_active)
		for (int i = 0; i < 6; i++)
			d[ESTIM_S_MAG_EARTH + i] = 0.0f;
	estim_nav_inject(&e->x, d);
	estim_cov_fix(e);
	return 0;
}

/* Gate a vector measurement of n rows (all or none fused), record the
 * innovations, and fuse row by row with fn recomputing h and the
 * innovation from the updated state. */
int estim_fuse_vector(struct estim *e, enum estim_sensor sensor, int n, estim_row_fn fn, const void *meas,
		      const float r[3], float gate, uint64_t t_meas_us)
{
	struct estim_innov *in = &e->innov[sensor];
	float h[N];
	float ratio = 0.0f;
	for (int k = 0; k < n; k++) {
		float y = fn(e, k, meas, h);
		float s = innov_var(e, h, r[k]);
		in->innov[k] = y;
		in->var[k] = s;
		float t = y * y / (gate * gate * s);
		if (!(t <= ratio))
			ratio = isfinite(t) ? t : 1e9f;
	}
	in->test_ratio = ratio;
	if (!(ratio <= 1.0f)) {
		in->rejected++;
		return -ERANGE;
	}
	for (int k = 0; k < n; k++) {
		float y = fn(e, k, meas, h);
		if (estim_fuse_scalar(e, h, y, r[k]) != 0)
			return -EDOM;
	}
	in->fused++;
	in->last_fused_us = t_meas_us;
	return 0;
}
