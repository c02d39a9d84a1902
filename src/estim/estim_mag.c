// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The compass: its intake (summed for the alignment before the filter
 * runs), its fusion on the delayed horizon against the attitude and the
 * earth and body fields, and the declination: the constraint that holds the
 * earth field's direction to it, and a declination made known in flight.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

/* m_body = R' m_earth + b: d/dtheta = R' [m_earth x] */
static float row_mag(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *m = meas;
	float R[3][3];
	em_quat_to_dcm(e->x.q, R);
	const float *me = e->x.mag_earth;
	memset(h, 0, sizeof(float) * N);
	/* row of R' is column `row` of R */
	float r0 = R[0][row], r1 = R[1][row], r2 = R[2][row];
	/* r' [me x] = (r x me)' ... as a row: r' * skew(me) = -(me x r)' = (r x me)' */
	h[ESTIM_S_ATT + 0] = r1 * me[2] - r2 * me[1];
	h[ESTIM_S_ATT + 1] = r2 * me[0] - r0 * me[2];
	h[ESTIM_S_ATT + 2] = r0 * me[1] - r1 * me[0];
	h[ESTIM_S_MAG_EARTH + 0] = r0;
	h[ESTIM_S_MAG_EARTH + 1] = r1;
	h[ESTIM_S_MAG_EARTH + 2] = r2;
	h[ESTIM_S_MAG_BODY + row] = 1.0f;
	float pred = r0 * me[0] + r1 * me[1] + r2 * me[2] + e->x.mag_body[row];
	return m[row] - pred;
}

/* The earth field's declination, atan2(me_e, me_n): anchors the field's
 * direction (and so the heading) to the configured declination. */
static float row_decl(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *me = e->x.mag_earth;
	float n2 = me[0] * me[0] + me[1] * me[1];
	memset(h, 0, sizeof(float) * N);
	if (n2 < 1e-4f)
		return 0.0f;
	h[ESTIM_S_MAG_EARTH + 0] = -me[1] / n2;
	h[ESTIM_S_MAG_EARTH + 1] = me[0] / n2;
	return em_wrap_pi(e->cfg.mag_declination_deg * DEG2RAD - atan2f(me[1], me[0]));
}

int estim_set_declination(struct estim *e, float decl_deg, float sigma_deg)
{
	if (!isfinite(decl_deg) || fabsf(decl_deg) > 180.0f || !(sigma_deg >= 0.1f && sigma_deg <= 30.0f))
		return -EINVAL;
	e->cfg.mag_declination_deg = decl_deg;
	const float *me = e->x.mag_earth;
	float n2 = me[0] * me[0] + me[1] * me[1];
	if (!e->running || !e->mag_active || n2 < 1e-4f)
		return 0;   /* the alignment, or the first compass sample's, takes it */
	/* The heading relative to the field (yaw error minus the field's
	 * declination error, h the declination's row) is what the compass told:
	 * its variance survives the turn, at most what an alignment on the
	 * compass gives it (at rest the hard iron is not yet told from the earth
	 * field, so P alone leaves it near 10 deg); the declination's own is the
	 * table's. */
	float h[N];
	row_decl(e, 0, NULL, h);
	float var_rel = e->P[2][2];
	for (int i = ESTIM_S_MAG_EARTH; i < ESTIM_S_MAG_EARTH + 2; i++) {
		var_rel -= 2.0f * h[i] * e->P[2][i];
		for (int j = ESTIM_S_MAG_EARTH; j < ESTIM_S_MAG_EARTH + 2; j++)
			var_rel += h[i] * e->P[i][j] * h[j];
	}
	float s = sigma_deg * DEG2RAD;
	float var = estim_clampf(var_rel, 0.0f, ALIGN_YAW_VAR) + s * s;
	float dpsi = em_wrap_pi(decl_deg * DEG2RAD - atan2f(me[1], me[0]));
	float dz[3] = { 0.0f, 0.0f, dpsi }, dq[4];
	em_quat_from_rotvec(dz, dq);
	em_quat_mul(dq, e->x.q, e->x.q);
	em_quat_normalize(e->x.q);
	float c = cosf(dpsi), sn = sinf(dpsi), n = e->x.mag_earth[0], ea = e->x.mag_earth[1];
	e->x.mag_earth[0] = c * n - sn * ea;
	e->x.mag_earth[1] = sn * n + c * ea;
	float tilt0 = e->P[0][0], tilt1 = e->P[1][1];
	estim_cov_reset(e, ESTIM_S_ATT, 3, var);
	e->P[0][0] = tilt0;
	e->P[1][1] = tilt1;
	/* the field's horizontal direction now as uncertain as the table */
	estim_cov_reset(e, ESTIM_S_MAG_EARTH, 2, n2 * s * s);
	e->count.yaw_resets++;
	estim_out_replay(e);
	return 0;
}

void estim_fuse_mag(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	if (!e->mag_active)
		return;
	float r2 = c->mag_noise_gauss * c->mag_noise_gauss;
	float r[3] = { r2, r2, r2 };
	int rc = estim_fuse_vector(e, ESTIM_MAG, 3, row_mag, o->v, r, c->mag_gate, o->t_us);
	if (isfinite(c->mag_declination_deg)) {
		float h[N];
		float y = row_decl(e, 0, NULL, h);
		estim_fuse_scalar(e, h, y, c->decl_noise_rad * c->decl_noise_rad);
	}
	if (rc == -ERANGE) {
		if (e->mag_fail_since_us == 0)
			e->mag_fail_since_us = o->t_us;
	} else if (rc == 0) {
		e->mag_fail_since_us = 0;
	}
}

int estim_push_mag(struct estim *e, const struct mag_sample *s)
{
	uint64_t t_us = estim_sample_time(e, s->t_us);
	float m[3], n2 = 0.0f;
	for (int i = 0; i < 3; i++) {
		m[i] = s->field_ut[i] * UT_TO_GAUSS;
		n2 += m[i] * m[i];
	}
	/* the earth's field is 0.25-0.65 gauss; allow for hard iron */
	if (!isfinite(n2) || n2 < 0.05f * 0.05f || n2 > 2.0f * 2.0f) {
		e->count.mag_invalid++;
		e->innov[ESTIM_MAG].invalid++;
		return -EINVAL;
	}
	if (!e->cfg.use_mag)
		return -EAGAIN;
	if (!e->running) {
		for (int i = 0; i < 3; i++) {
			e->align_mag[i] += m[i];
			e->mov_mag[i] += m[i];
		}
		e->align_mag_n++;
		e->mov_mag_n++;
		return -EAGAIN;
	}
	struct estim_obs o = { .t_us = estim_meas_time(t_us, e->cfg.mag_delay_ms), .v = { m[0], m[1], m[2] } }, avg;
	if (!estim_decim_add(e, &e->mag_dec, ESTIM_MAG_MAX_HZ, &o, &avg))
		return 0;
	return estim_obs_push(e, e->mag_buf, &e->mag_head, &e->mag_count, &avg);
}
