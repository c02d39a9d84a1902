/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the estimator's files share among themselves (src/estim/estim*.c; not
 * for the rest of fulmar, which sees estim.h only). Which file holds what:
 *   estim.c           configuration, start, the filter step on the delayed
 *                     horizon (estim_predict) and the constant-position mode
 *   estim_strapdown.c the nominal state's strapdown step, the error
 *                     injection after a fusion, the output predictor
 *   estim_cov.c       the covariance: transition, process noise, bounds, resets
 *   estim_fuse.c      sequential scalar fusion and the gated vector fusion
 *   estim_gps.c       GPS: intake, origin and WGS84, fusion, its resets
 *   estim_baro.c      barometer: intake and fusion
 *   estim_mag.c       compass: intake, fusion, the declination
 *   estim_airspeed.c  airspeed and sideslip: intake, fusion, the wind's start
 *   estim_align.c     alignment at rest and while moving
 *   estim_intake.c    the IMU's samples and time stamps, source pauses, and
 *                     the slow sensors' averaging and queues
 *   estim_health.c    health, EKF flags, status and the published state
 * Everything here runs on the thread that owns the struct estim, like the
 * public calls.
 */
#ifndef FULMAR_ESTIM_INTERNAL_H
#define FULMAR_ESTIM_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "estim/estim.h"

/*
 * What the parts share has external linkage when each is compiled on its
 * own, and internal linkage in estim_all.c, which compiles them as one
 * translation unit (the library's build) so that the filter step inlines
 * across them as it did when they were one file.
 */
#ifndef ESTIM_INTERNAL
#define ESTIM_INTERNAL
#endif

#define G0 9.80665f
#define DEG2RAD ((float)M_PI / 180.0f)
#define UT_TO_GAUSS 0.01f
#define RHO0 1.225f
/* The heading's variance from an alignment on the compass with the declination known. */
#define ALIGN_YAW_VAR (0.1f * 0.1f)

static inline float estim_clampf(float v, float lo, float hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

static inline uint64_t estim_ms_to_us(float ms)
{
	return (uint64_t)(estim_clampf(ms, 0.0f, 300.0f) * 1000.0f);
}

/* t is set, not after now, and less than s seconds before it. */
static inline bool estim_recent(uint64_t now, uint64_t t, float s)
{
	return t != 0 && now >= t && (float)(now - t) * 1e-6f < s;
}

/* estim.c */
/* The delayed horizon: the largest sensor delay, us. */
ESTIM_INTERNAL uint64_t estim_horizon_us(const struct estim *e);
/* How long without a fix before the GPS counts as lost, s. */
ESTIM_INTERNAL float estim_gps_timeout_s(const struct estim *e);

/* estim_strapdown.c */
/* Add the error state d to the nominal state (after a fusion). */
ESTIM_INTERNAL void estim_nav_inject(struct estim_nav *x, const float d[ESTIM_NSTATES]);
/* Strapdown step of q, v, p with bias-corrected deltas. R gets the attitude
 * at the step's start, dv_ned_out the specific-force part of the velocity
 * change in NED (both for the covariance). */
ESTIM_INTERNAL void estim_strapdown(float q[4], float vel[3], float pos[3], const float dang[3], const float dvel[3], float dt,
		     float R[3][3], float dv_ned_out[3]);
/* A step's deltas less the biases and the gyro's scale error of x. */
ESTIM_INTERNAL void estim_corrected_deltas(const struct estim_nav *x, const struct estim_imu_step *s, float dang[3],
			    float dvel[3]);
/* Advance an output predictor state o by one IMU step. */
ESTIM_INTERNAL void estim_out_step(const struct estim *e, struct estim_out *o, const struct estim_imu_step *s);
/* Rebuild the output buffer from the filter state (after a reset). */
ESTIM_INTERNAL void estim_out_replay(struct estim *e);
/* Pull the output states a fraction of the way to the filter's. */
ESTIM_INTERNAL void estim_out_correct(struct estim *e, const struct estim_out *at_delayed, float dt);

/* estim_cov.c (estim_cov_transition is in estim_cov.h) */
/* Variances into [0, max]; P must be exactly symmetric. */
ESTIM_INTERNAL void estim_cov_fix(struct estim *e);
/* Zero the rows and columns of states [i0, i0+n) and set their variance. */
ESTIM_INTERNAL void estim_cov_reset(struct estim *e, int i0, int n, float var);
/* P = F P F' + Q for one filter step. */
ESTIM_INTERNAL void estim_cov_predict(struct estim *e, float R[3][3], const float dv_ned[3], const float dang[3], float dt);

/* estim_fuse.c */
/* One scalar measurement (row h, innovation, noise variance r), ungated.
 * Returns 0, or -EDOM (counted as a numeric fault, nothing changed). */
ESTIM_INTERNAL int estim_fuse_scalar(struct estim *e, const float h[ESTIM_NSTATES], float innov, float r);
/* A measurement model's row: fills h and returns the innovation (measured
 * less predicted) from the present state. */
typedef float (*estim_row_fn)(const struct estim *e, int row, const void *meas, float h[ESTIM_NSTATES]);
/* Gate n rows together (all or none fused), record the innovations, fuse
 * row by row. Returns 0, -ERANGE (rejected by the gate) or -EDOM. */
ESTIM_INTERNAL int estim_fuse_vector(struct estim *e, enum estim_sensor sensor, int n, estim_row_fn fn, const void *meas,
		      const float r[3], float gate, uint64_t t_meas_us);

/* The fusions on the delayed horizon, one sample each (estim_gps.c,
 * estim_baro.c, estim_mag.c, estim_airspeed.c). */
ESTIM_INTERNAL void estim_fuse_gps(struct estim *e, const struct estim_gps_obs *g);
ESTIM_INTERNAL void estim_fuse_baro(struct estim *e, const struct estim_obs *o);
ESTIM_INTERNAL void estim_fuse_mag(struct estim *e, const struct estim_obs *o);
ESTIM_INTERNAL void estim_fuse_airspeed(struct estim *e, const struct estim_obs *o);

/* estim_airspeed.c */
/* Start the wind states from the velocity and airspeed tas along the body x axis. */
ESTIM_INTERNAL void estim_wind_start(struct estim *e, float tas);

/* estim_align.c */
/* One IMU step before the filter runs: aligns (and starts it) when it can. */
ESTIM_INTERNAL void estim_align_step(struct estim *e, const float dang[3], const float dvel[3], float dt, uint64_t t_us);

/* estim_intake.c */
/* Queue a pending sample (the oldest dropped when full). Returns 0. */
ESTIM_INTERNAL int estim_obs_push(struct estim *e, struct estim_obs *buf, unsigned int *head, unsigned int *count,
		   const struct estim_obs *o);
/* Measurement time: arrival less the delay (clamped to 0..300 ms). */
ESTIM_INTERNAL uint64_t estim_meas_time(uint64_t t_us, float delay_ms);
ESTIM_INTERNAL uint64_t estim_sample_time(const struct estim *e, uint64_t t_us);
/* Average a slow sensor's samples down to max_hz; true with the average in
 * out when one falls due. */
ESTIM_INTERNAL bool estim_decim_add(struct estim *e, struct estim_decim *d, float max_hz, const struct estim_obs *in,
		     struct estim_obs *out);

#endif
