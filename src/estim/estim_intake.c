// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What comes in: the IMU's raw samples (checks, the interval each stands
 * for, gaps, a stuck sensor, clipping, the accumulator and the grid the
 * filter steps fall on), the pauses of a source (time that did not pass for
 * the aircraft), and the slow sensors' averaging and pending queues, which
 * estim_baro.c, estim_mag.c and estim_airspeed.c feed.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

static void shift_one(uint64_t *t_us, uint64_t d_us)
{
	if (*t_us)
		*t_us += d_us;
}

/* Time that did not pass for the aircraft, d_us of the stamps' jump over a
 * source's pause (estim_source_paused): every time the filter holds moves on
 * by it, as if the pause had not been, so nothing seems older for it (a
 * simulator's 1.5 s stall is no GPS loss: none of its time passed) and the
 * stamps after it follow on. */
static void shift_time(struct estim *e, uint64_t d_us)
{
	for (unsigned int k = 0; k < e->imu_count; k++)
		e->imu_buf[(e->imu_head + k) % ESTIM_IMU_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->baro_count; k++)
		e->baro_buf[(e->baro_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->mag_count; k++)
		e->mag_buf[(e->mag_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->tas_count; k++)
		e->tas_buf[(e->tas_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->gps_count; k++)
		e->gps_buf[(e->gps_head + k) % ESTIM_GPS_BUF].t_us += d_us;
	struct estim_decim *dec[] = { &e->baro_dec, &e->mag_dec, &e->tas_dec };
	for (size_t i = 0; i < sizeof(dec) / sizeof(dec[0]); i++) {
		shift_one(&dec[i]->next_us, d_us);
		shift_one(&dec[i]->t0_us, d_us);
	}
	for (int i = 0; i < ESTIM_SENSOR_COUNT; i++)
		shift_one(&e->innov[i].last_fused_us, d_us);
	uint64_t *times[] = {
		&e->imu_bad_us, &e->imu_frozen_us, &e->next_step_us, &e->t_delayed_us, &e->t_now_us,
		&e->gps_fail_since_us, &e->baro_fail_since_us, &e->mag_fail_since_us, &e->hgt_reset_us,
		&e->last_baro_valid_us, &e->baro_same_since_us, &e->gps_last_valid_us,
		&e->gps_prev_obs_us, &e->gps_prev_valid_us, &e->numeric_us, &e->tas_meas_us,
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		shift_one(times[i], d_us);
}

void estim_source_paused(struct estim *e, uint64_t d_us)
{
	e->pause_us += d_us;
}

/* The interval a sample stands for: the time since the one before, less what
 * its source said was a pause (taken out of the filter's time, shift_time).
 * The IMU's own interval is learnt from those times through a slow low-pass,
 * so one jittery stamp cannot move it far. A gap of more than five intervals
 * is lost samples or a stalled source: the sample is held for one interval
 * and the gap counted (time passed for the aircraft: what it did meanwhile,
 * the next fusions correct); eight gaps in a row are no gaps but a slower
 * source. */
static float imu_interval(struct estim *e, uint64_t t_us)
{
	if (!e->imu_last_us)
		return 0.0f;  /* the first sample starts the clock */
	const float lo = 1.0f / ESTIM_IMU_MAX_HZ, hi = 1.0f / ESTIM_IMU_MIN_HZ;
	uint64_t span_us = t_us - e->imu_last_us;
	if (e->pause_us) {
		/* The jump over a pause: all of the interval but one sample's. */
		uint64_t one_us = e->imu_dt_s > 0.0f ? (uint64_t)(e->imu_dt_s * 1e6f) : 0;
		uint64_t paused = span_us > one_us ? span_us - one_us : 0;
		if (paused > e->pause_us)
			paused = e->pause_us;
		if (paused) {
			shift_time(e, paused);
			e->pause_us -= paused;
			span_us -= paused;
			/* Halfway across the jump: at least 50 ms past the last stamp before
			 * it (HIL re-anchors past 100 ms of lateness), and as far before the
			 * first after it. */
			e->shifted_us = paused;
			e->shift_edge_us = e->imu_last_us + paused / 2;
		}
	}
	float raw = (float)span_us * 1e-6f;
	bool first = e->imu_dt_s == 0.0f;
	if (first)
		e->imu_dt_s = estim_clampf(raw, lo, hi);
	if (raw > 5.0f * e->imu_dt_s) {
		e->count.imu_gaps++;
		if (++e->imu_gap_run >= 8) {
			e->imu_gap_run = 0;
			e->imu_dt_s = estim_clampf(raw, lo, hi);
			return raw;
		}
		return e->imu_dt_s;
	}
	e->imu_gap_run = 0;
	if (!first)
		e->imu_dt_s = estim_clampf(e->imu_dt_s + 0.05f * (raw - e->imu_dt_s), lo, hi);
	return raw;
}

/*
 * In place of a stuck IMU's sample, what holds the attitude and the velocity:
 * the estimated gyro bias (no rate once corrected) and the specific force of
 * unaccelerated flight at the present attitude, plus the accelerometer's bias.
 * The filter's time then goes on and the GPS, baro, compass and airspeed
 * are fused as before: after a stuck second the estimate is where the
 * aircraft is, not where it was when the IMU stopped (which, held still, left
 * the first fix after it a "glitch" of the distance flown). A stuck IMU's
 * last reading is no better: a roll rate held for seconds rolls the estimate
 * over. What the coast does not know grows the attitude's and the
 * velocity's variance (estim.c, coast_uncertainty), and no attitude is
 * given while the IMU is stuck (estim_health.c): the controllers would
 * steer against a held one.
 */
static void coast_sample(const struct estim *e, float raw[6])
{
	float R[3][3];
	em_quat_to_dcm(e->out.q, R);
	for (int i = 0; i < 3; i++) {
		raw[i] = e->x.gyro_bias[i];
		raw[3 + i] = -G0 * R[2][i] + e->x.accel_bias[i];
	}
}

int estim_push_imu(struct estim *e, const struct imu_sample *s)
{
	bool ok = true;
	for (int i = 0; i < 3; i++) {
		if (!isfinite(s->gyro_rad_s[i]) || fabsf(s->gyro_rad_s[i]) > 35.0f)
			ok = false;
		if (!isfinite(s->accel_m_s2[i]) || fabsf(s->accel_m_s2[i]) > 160.0f)
			ok = false;
	}
	if (e->imu_last_us && s->t_us <= e->imu_last_us)
		ok = false;  /* time going backwards or repeated */
	if (!ok) {
		e->count.imu_invalid++;
		e->imu_bad_us = s->t_us ? s->t_us : 1;
		return -EINVAL;
	}
	float dt = imu_interval(e, s->t_us);
	e->imu_last_us = s->t_us;
	float raw[6] = { s->gyro_rad_s[0], s->gyro_rad_s[1], s->gyro_rad_s[2],
			 s->accel_m_s2[0], s->accel_m_s2[1], s->accel_m_s2[2] };
	bool stuck = false;
	if (memcmp(raw, e->imu_last_raw, sizeof(raw)) == 0) {
		/* Six noisy channels never repeat exactly: the sensor is stuck. */
		stuck = ++e->imu_same_count >= 20;
	} else {
		e->imu_same_count = 0;
	}
	memcpy(e->imu_last_raw, raw, sizeof(raw));
	if (stuck) {
		e->count.imu_frozen++;
		e->imu_frozen_us = s->t_us;
		coast_sample(e, raw);
		e->coast_pending_s += dt;
	}
	if (fabsf(raw[3]) >= ESTIM_ACCEL_CLIP_M_S2 || fabsf(raw[4]) >= ESTIM_ACCEL_CLIP_M_S2 ||
	    fabsf(raw[5]) >= ESTIM_ACCEL_CLIP_M_S2) {
		e->count.accel_clipped++;
		e->clip_pending_s += dt;
	}
	estim_accum_add(&e->accum, &raw[0], &raw[3], dt);
	/* Steps fall due on a fixed grid, so 400 Hz from 1 kHz samples is
	 * alternately 2 and 3 samples long and 400 Hz on average. The grid is
	 * the main loop's (src/daemon/sensors.c paces it on multiples of its
	 * period, by the same rule: the first sample at or past a multiple),
	 * so that each loop sees one step over the time since the last loop.
	 * On a grid of its own (from the first sample) the state moved in
	 * some loops by the time of two steps and in others not at all, and
	 * what the flight code derives per loop (TECS's height demand rate)
	 * alternated between 5/3 of its value and 0: docs/flight-control.md. */
	uint64_t period_us = (uint64_t)(1e6f / e->cfg.filter_rate_hz);
	if (e->next_step_us == 0)
		e->next_step_us = (s->t_us / period_us + 1) * period_us;
	if (s->t_us < e->next_step_us)
		return 0;
	e->next_step_us = (s->t_us / period_us + 1) * period_us;
	float dang[3], dvel[3];
	float T = estim_accum_take(&e->accum, dang, dvel);
	return estim_predict(e, dang, dvel, T, s->t_us) < 0 ? -EINVAL : 1;
}

/* ---- the slow sensors' queues ----------------------------------------- */

int estim_obs_push(struct estim *e, struct estim_obs *buf, unsigned int *head, unsigned int *count,
		   const struct estim_obs *o)
{
	if (o->t_us < e->t_delayed_us)
		e->count.obs_late++;
	if (*count == ESTIM_OBS_BUF) {
		*head = (*head + 1) % ESTIM_OBS_BUF;
		(*count)--;
		e->count.obs_dropped++;
	}
	buf[(*head + *count) % ESTIM_OBS_BUF] = *o;
	(*count)++;
	return 0;
}

/* A slow sensor's sample stamped before the last pause's jump but pushed after
 * the IMU sample that crossed it (the caller reads the IMU first, then the
 * latest of each other sensor): in the time before the shift, moved on by it
 * as everything the filter held then was. Unmoved, a GPS fix would seem the
 * jump's length older than the one before it: lost, for one fix. */
uint64_t estim_sample_time(const struct estim *e, uint64_t t_us)
{
	return e->shifted_us && t_us < e->shift_edge_us ? t_us + e->shifted_us : t_us;
}

uint64_t estim_meas_time(uint64_t t_us, float delay_ms)
{
	uint64_t d = estim_ms_to_us(delay_ms);
	return t_us > d ? t_us - d : 0;
}

/* A slow sensor's samples averaged down to at most max_hz, and to no more
 * than its pending buffer holds over the delayed horizon (four to spare), so
 * a source marking every sample fresh at the IMU's rate neither overflows
 * the buffer nor is starved. Each average falls due on a grid of that period
 * (a quarter period early counts, for jitter) and carries its samples' mean
 * time. A source at or under the rate has every sample taken as it is.
 * Returns true with the average in out when one falls due. */
bool estim_decim_add(struct estim *e, struct estim_decim *d, float max_hz, const struct estim_obs *in,
		     struct estim_obs *out)
{
	uint64_t period = (uint64_t)(1e6f / max_hz), hold = estim_horizon_us(e) / (ESTIM_OBS_BUF - 4);
	if (hold > period)
		period = hold;
	if (d->n == 0)
		d->t0_us = in->t_us;
	d->dt_sum_us += in->t_us > d->t0_us ? in->t_us - d->t0_us : 0;
	for (int i = 0; i < 3; i++)
		d->sum[i] += in->v[i];
	d->n++;
	if (in->t_us + period / 4 < d->next_us)
		return false;
	out->t_us = d->t0_us + d->dt_sum_us / d->n;
	for (int i = 0; i < 3; i++)
		out->v[i] = d->sum[i] / (float)d->n;
	e->count.obs_averaged += d->n - 1;
	d->next_us = (d->next_us ? d->next_us : in->t_us) + period;
	if (d->next_us <= in->t_us)
		d->next_us = in->t_us + period;
	d->n = 0;
	d->dt_sum_us = 0;
	memset(d->sum, 0, sizeof(d->sum));
	return true;
}
