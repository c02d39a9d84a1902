// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Error-state EKF on a delayed horizon. The filter's state x lives at
 * t_delayed = now - horizon (the largest sensor delay), so every measurement is
 * fused at the time it was taken; the output predictor carries a copy forward
 * to the present with the buffered IMU steps and is pulled towards the
 * filter with a time constant (cfg.output_tau_s), so fusions never make the
 * published state jump. docs/estimator.md has the equations in short.
 *
 * Attitude error convention: q_true = exp(dtheta) * q, dtheta in NED.
 *
 * This file: the configuration's defaults, the start, and the filter step
 * (estim_predict): each IMU step goes into the ring and the output
 * predictor; each that falls past the horizon is predicted on the delayed
 * horizon and takes the fusions then due. estim_internal.h lists the other
 * files and what each holds.
 */
#include "estim/estim.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"

#define N ESTIM_NSTATES

void estim_config_default(struct estim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->filter_rate_hz = 200.0f;
	c->imu_rate_hz = 0.0f;   /* learnt from the time stamps */
	c->gps_delay_ms = 150.0f;
	c->baro_delay_ms = 0.0f;
	c->mag_delay_ms = 0.0f;
	c->airspeed_delay_ms = 0.0f;
	/* EKF2's per-step sigmas at its 100 Hz step expressed as densities
	 * (sigma * sqrt(0.01 s)), so the filter rate does not change the tuning. */
	c->gyro_nsd = 0.0015f;
	c->accel_nsd = 0.035f;
	c->gyro_bias_nsd = 1e-3f;
	/* A MEMS gyro's scale factor is a few percent off out of the box (a common
	 * 6-axis part: 3 %) and moves with temperature; ArduPilot's EKF2 estimates it too. */
	c->gyro_scale_nsd = 5e-4f;
	c->accel_bias_nsd = 3e-3f;
	c->mag_earth_nsd = 1e-3f;
	c->mag_body_nsd = 1e-4f;
	c->wind_nsd = 0.1f;
	c->pos_nsd_dr = 4.0f;
	c->baro_bias_nsd = 0.02f;
	c->gps_pos_noise_m = 0.5f;
	c->gps_vel_noise_m_s = 0.3f;
	c->gps_hgt_noise_m = 1.5f;
	c->baro_noise_m = 1.0f;
	c->mag_noise_gauss = 0.05f;
	c->tas_noise_m_s = 1.4f;
	c->beta_noise_rad = 0.3f;
	c->decl_noise_rad = 0.03f;
	c->gps_pos_gate = 5.0f;
	c->gps_vel_gate = 5.0f;
	c->hgt_gate = 5.0f;
	c->mag_gate = 3.0f;
	c->tas_gate = 5.0f;
	c->beta_gate = 5.0f;
	c->gps_min_sats = 6;
	c->gps_max_h_acc_m = 10.0f;
	c->gps_max_dist_m = 50000.0f;
	c->gps_glitch_reset_s = 5.0f;
	c->gps_timeout_s = 1.0f;
	c->mag_declination_deg = NAN;  /* unknown: learnt in flight */
	c->min_airspeed_m_s = 7.0f;
	c->use_mag = true;
	c->use_airspeed = true;
	c->use_beta = true;
	c->use_gps_hgt = true;
	c->hgt_disagree_reset_s = 5.0f;
	c->output_tau_s = 0.25f;
	c->arsp_options = ESTIM_ARSP_DISABLE | ESTIM_ARSP_REENABLE | ESTIM_ARSP_CONSISTENCY;
	c->arsp_wind_max_m_s = 0.0f;
	c->arsp_wind_warn_m_s = 0.0f;
	c->arsp_wind_gate = 5.0f;
}

uint64_t estim_horizon_us(const struct estim *e)
{
	float m = e->cfg.gps_delay_ms;
	if (e->cfg.baro_delay_ms > m)
		m = e->cfg.baro_delay_ms;
	if (e->cfg.mag_delay_ms > m)
		m = e->cfg.mag_delay_ms;
	if (e->cfg.airspeed_delay_ms > m)
		m = e->cfg.airspeed_delay_ms;
	return estim_ms_to_us(m);
}

void estim_init(struct estim *e, const struct estim_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->cfg.filter_rate_hz = estim_clampf(cfg->filter_rate_hz, 50.0f, 400.0f);
	if (cfg->imu_rate_hz >= ESTIM_IMU_MIN_HZ && cfg->imu_rate_hz <= ESTIM_IMU_MAX_HZ)
		e->imu_dt_s = 1.0f / cfg->imu_rate_hz;
	else
		e->cfg.imu_rate_hz = 0.0f;
	/* the IMU ring must hold the horizon: 300 ms at 400 Hz is 120 steps */
	estim_accum_init(&e->accum);
	e->x.q[0] = 1.0f;
	e->out.q[0] = 1.0f;
	e->air_density = RHO0;
	e->baro_temp_k = 288.15f;
	e->arsp.prob = 1.0f;
}

/* GPS lost after this long without a fix: the configured timeout, or 2.5 of
 * the receiver's intervals, whichever is longer (a 1 Hz receiver is not lost
 * between its fixes). */
float estim_gps_timeout_s(const struct estim *e)
{
	float t = 2.5f * e->gps_dt_s;
	return t > e->cfg.gps_timeout_s ? t : e->cfg.gps_timeout_s;
}

/* ---- constant-position mode ------------------------------------------- */

static float row_fake_pos(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *p = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + row] = 1.0f;
	return p[row] - e->x.pos[row];
}

/* Constant-position mode: before the origin, hold the position (on the
 * ground) so tilt and velocity stay observable. */
static void fuse_fake_pos(struct estim *e)
{
	unsigned int div = (unsigned int)(e->cfg.filter_rate_hz / 10.0f);
	if (++e->fake_pos_div < (div ? div : 1))
		return;
	e->fake_pos_div = 0;
	float r[3] = { 0.25f, 0.25f, 0.0f };
	float h[N];
	for (int k = 0; k < 2; k++) {
		float y = row_fake_pos(e, k, e->hold_pos, h);
		estim_fuse_scalar(e, h, y, r[k]);
	}
}

/* ---- the filter step -------------------------------------------------- */

static bool obs_pop_due(struct estim_obs *buf, unsigned int *head, unsigned int *count, uint64_t t,
			struct estim_obs *out)
{
	if (*count == 0 || buf[*head].t_us > t)
		return false;
	*out = buf[*head];
	*head = (*head + 1) % ESTIM_OBS_BUF;
	(*count)--;
	return true;
}

static bool state_finite(const struct estim *e)
{
	const float *x = (const float *)&e->x;
	for (size_t i = 0; i < sizeof(e->x) / sizeof(float); i++)
		if (!isfinite(x[i]))
			return false;
	for (int i = 0; i < N; i++)
		if (!isfinite(e->P[i][i]))
			return false;
	return true;
}

/* A clipped accelerometer measured at most its full scale of what the
 * aircraft felt: over a run of clipped steps the velocity can be wrong by up
 * to the full scale times the clipped time, on every axis. The variance is
 * raised to that (a diagonal added: P stays positive semi-definite). */
static void clip_uncertainty(struct estim *e, float clip_s)
{
	if (clip_s <= 0.0f) {
		e->clip_run_s = 0.0f;
		return;
	}
	e->clip_run_s += clip_s;
	float sigma = ESTIM_ACCEL_CLIP_M_S2 * e->clip_run_s;
	for (int i = ESTIM_S_VEL; i < ESTIM_S_VEL + 3; i++)
		if (e->P[i][i] < sigma * sigma)
			e->P[i][i] = sigma * sigma;
}

/* A stuck IMU coasted through (estim_intake.c): over the run of coasted steps
 * the attitude may be off by the rate the aircraft may have turned at, and the
 * velocity by the acceleration it may have had, times the time; the variances
 * are raised to those (a diagonal added), so that the first samples after it
 * and the GPS correct what the coast could not know. */
static void coast_uncertainty(struct estim *e, float coast_s)
{
	if (coast_s <= 0.0f) {
		e->coast_run_s = 0.0f;
		return;
	}
	e->coast_run_s += coast_s;
	float sa = ESTIM_COAST_RATE_RAD_S * e->coast_run_s, sv = ESTIM_COAST_ACCEL_M_S2 * e->coast_run_s;
	for (int i = 0; i < 3; i++) {
		if (e->P[ESTIM_S_ATT + i][ESTIM_S_ATT + i] < sa * sa)
			e->P[ESTIM_S_ATT + i][ESTIM_S_ATT + i] = sa * sa;
		if (e->P[ESTIM_S_VEL + i][ESTIM_S_VEL + i] < sv * sv)
			e->P[ESTIM_S_VEL + i][ESTIM_S_VEL + i] = sv * sv;
	}
}

static void delayed_step(struct estim *e, const struct estim_imu_step *s, const struct estim_out *o_at)
{
	float dang[3], dvel[3], R[3][3], dvn[3];
	estim_corrected_deltas(&e->x, s, dang, dvel);
	estim_strapdown(e->x.q, e->x.vel, e->x.pos, dang, dvel, s->dt_s, R, dvn);
	estim_cov_predict(e, R, dvn, dang, s->dt_s);
	clip_uncertainty(e, s->clip_s);
	coast_uncertainty(e, s->coast_s);
	e->t_delayed_us = s->t_us;
	e->replayed = false;
	e->count.steps++;

	struct estim_obs o;
	while (e->gps_count > 0 && e->gps_buf[e->gps_head].t_us <= s->t_us) {
		struct estim_gps_obs g = e->gps_buf[e->gps_head];
		e->gps_head = (e->gps_head + 1) % ESTIM_GPS_BUF;
		e->gps_count--;
		estim_fuse_gps(e, &g);
	}
	while (obs_pop_due(e->baro_buf, &e->baro_head, &e->baro_count, s->t_us, &o))
		estim_fuse_baro(e, &o);
	while (obs_pop_due(e->mag_buf, &e->mag_head, &e->mag_count, s->t_us, &o))
		estim_fuse_mag(e, &o);
	while (obs_pop_due(e->tas_buf, &e->tas_head, &e->tas_count, s->t_us, &o))
		estim_fuse_airspeed(e, &o);
	if (!e->origin_set && !(e->tas_last_m_s > e->cfg.min_airspeed_m_s))
		fuse_fake_pos(e);

	if (!state_finite(e)) {
		/* Should not happen with checked inputs; if it does, start over
		 * rather than publish garbage. */
		struct estim_counters cnt = e->count;
		struct estim_config cfg = e->cfg;
		uint64_t now = e->t_now_us;
		estim_init(e, &cfg);
		e->count = cnt;
		e->count.numeric_faults++;
		e->t_now_us = e->numeric_us = now;
		return;
	}
	if (!e->replayed)
		estim_out_correct(e, o_at, s->dt_s);
}

int estim_predict(struct estim *e, const float dang_rad[3], const float dvel_m_s[3], float dt_s, uint64_t t_us)
{
	for (int i = 0; i < 3; i++)
		if (!isfinite(dang_rad[i]) || !isfinite(dvel_m_s[i]))
			return -EINVAL;
	if (!(dt_s > 0.0f && dt_s < 0.1f))
		return -EINVAL;
	e->t_now_us = t_us;
	for (int i = 0; i < 3; i++)
		e->rate_rad_s[i] = e->running ? (dang_rad[i] / dt_s - e->x.gyro_bias[i]) *
							(1.0f - e->x.gyro_scale[i]) :
						 dang_rad[i] / dt_s;
	if (!e->running) {
		estim_align_step(e, dang_rad, dvel_m_s, dt_s, t_us);
		return 1;
	}

	/* newest step into the ring; the output predictor advances with it */
	if (e->imu_count == ESTIM_IMU_BUF) {
		/* cannot happen with the clamped horizon and rate; keep going */
		e->imu_head = (e->imu_head + 1) % ESTIM_IMU_BUF;
		e->imu_count--;
	}
	unsigned int idx = (e->imu_head + e->imu_count) % ESTIM_IMU_BUF;
	struct estim_imu_step *s = &e->imu_buf[idx];
	s->t_us = t_us;
	s->dt_s = dt_s;
	s->clip_s = e->clip_pending_s;
	e->clip_pending_s = 0.0f;
	s->coast_s = e->coast_pending_s;
	e->coast_pending_s = 0.0f;
	memcpy(s->dang, dang_rad, sizeof(s->dang));
	memcpy(s->dvel, dvel_m_s, sizeof(s->dvel));
	estim_out_step(e, &e->out, s);
	e->out_buf[idx] = e->out;
	e->imu_count++;

	uint64_t hz = estim_horizon_us(e);
	while (e->running && e->imu_count > 0 && e->imu_buf[e->imu_head].t_us + hz <= t_us) {
		struct estim_imu_step st = e->imu_buf[e->imu_head];
		struct estim_out o = e->out_buf[e->imu_head];
		e->imu_head = (e->imu_head + 1) % ESTIM_IMU_BUF;
		e->imu_count--;
		delayed_step(e, &st, &o);
	}
	return 1;
}
