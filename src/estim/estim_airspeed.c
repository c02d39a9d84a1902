// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Airspeed and sideslip: the pitot's intake (true airspeed from the
 * differential pressure and the air density), the wind states' start, and
 * the fusion on the delayed horizon of the true airspeed and of a zero
 * sideslip.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

static float row_tas(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *tas = meas;
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	float n = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	memset(h, 0, sizeof(float) * N);
	if (n < 1.0f)
		n = 1.0f;
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = u[i] / n;
	h[ESTIM_S_WIND] = -u[0] / n;
	h[ESTIM_S_WIND + 1] = -u[1] / n;
	return *tas - n;
}

/* beta = vb_y / vb_x with vb = R' (v - w); d vb/dtheta = R' [u x] */
static float row_beta(const struct estim *e, int row, const void *meas, float h[N])
{
	float R[3][3], vb[3];
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	em_quat_to_dcm(e->x.q, R);
	em_mat_t_vec(R, u, vb);
	memset(h, 0, sizeof(float) * N);
	if (vb[0] < 1.0f)
		return 0.0f;
	float g[3] = { -vb[1] / (vb[0] * vb[0]), 1.0f / vb[0], 0.0f };
	float gr[3];  /* g R' as a row: gr = R g */
	em_mat_vec(R, g, gr);
	/* (gr)' [u x] = (gr x u)' ... r' skew(u) = (u x r)' with sign: r' [u x] x = r . (u x x) = x . (r x u) */
	h[ESTIM_S_ATT + 0] = gr[1] * u[2] - gr[2] * u[1];
	h[ESTIM_S_ATT + 1] = gr[2] * u[0] - gr[0] * u[2];
	h[ESTIM_S_ATT + 2] = gr[0] * u[1] - gr[1] * u[0];
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = gr[i];
	h[ESTIM_S_WIND] = -gr[0];
	h[ESTIM_S_WIND + 1] = -gr[1];
	return 0.0f - vb[1] / vb[0];
}

/* Wind from the velocity and airspeed along the body x axis. */
void estim_wind_start(struct estim *e, float tas)
{
	float R[3][3];
	em_quat_to_dcm(e->x.q, R);
	e->x.wind[0] = e->x.vel[0] - tas * R[0][0];
	e->x.wind[1] = e->x.vel[1] - tas * R[1][0];
	e->wind_active = true;
	estim_cov_reset(e, ESTIM_S_WIND, 2, 4.0f);
}

void estim_fuse_airspeed(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	float tas = o->v[0];
	e->tas_last_m_s = tas;
	bool gps = estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_VEL].last_fused_us, estim_gps_timeout_s(e)) ||
		   estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_POS].last_fused_us, estim_gps_timeout_s(e));
	if (tas < c->min_airspeed_m_s || !e->yaw_aligned)
		return;
	if (!e->wind_active) {
		if (!gps)
			return;
		estim_wind_start(e, tas);
	}
	if (c->use_airspeed) {
		float r[3] = { c->tas_noise_m_s * c->tas_noise_m_s, 0.0f, 0.0f };
		estim_fuse_vector(e, ESTIM_TAS, 1, row_tas, &tas, r, c->tas_gate, o->t_us);
	}
	/* Sideslip ties heading to the wind: only once the wind is known in
	 * both axes (a turn has made it observable), or a wrong initial
	 * heading would be locked to a wind made from it. */
	if (c->use_beta && e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] < 1.0f) {
		float r[3] = { c->beta_noise_rad * c->beta_noise_rad, 0.0f, 0.0f };
		estim_fuse_vector(e, ESTIM_BETA, 1, row_beta, NULL, r, c->beta_gate, o->t_us);
	}
}

int estim_push_airspeed(struct estim *e, const struct airspeed_sample *s)
{
	uint64_t t_us = estim_sample_time(e, s->t_us);
	if (!isfinite(s->diff_pressure_pa) || fabsf(s->diff_pressure_pa) > 10000.0f) {
		e->count.airspeed_invalid++;
		e->innov[ESTIM_TAS].invalid++;
		return -EINVAL;
	}
	float dp = s->diff_pressure_pa > 0.0f ? s->diff_pressure_pa : 0.0f;
	float eas = sqrtf(2.0f * dp / RHO0);
	float rho = e->air_density;
	if (isfinite(s->temp_c) && s->temp_c > -60.0f && s->temp_c < 90.0f)
		rho = e->air_density * e->baro_temp_k / (s->temp_c + 273.15f);
	float tas = eas * sqrtf(RHO0 / rho);
	e->tas_meas_m_s = tas;
	e->tas_meas_us = t_us;
	if (!e->running) {
		e->tas_last_m_s = tas;
		return -EAGAIN;
	}
	struct estim_obs o = { .t_us = estim_meas_time(t_us, e->cfg.airspeed_delay_ms), .v = { tas, 0.0f, 0.0f } },
			 avg;
	if (!estim_decim_add(e, &e->tas_dec, ESTIM_TAS_MAX_HZ, &o, &avg))
		return 0;
	return estim_obs_push(e, e->tas_buf, &e->tas_head, &e->tas_count, &avg);
}
