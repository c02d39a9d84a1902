/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * IMU delta accumulator: raw gyro and accelerometer samples (about 1 kHz) in,
 * a delta angle and a delta velocity over the filter period out, with coning
 * (delta angle) and rotation/sculling (delta velocity) corrections so that a
 * vibrating or rotating body does not leave a rectification error.
 *
 * The delta velocity is expressed in the body frame at the START of the
 * accumulation interval; the delta angle is the rotation vector from the start
 * attitude to the end attitude. Pure: caller storage, time as arguments.
 * Single-threaded: used from the thread that runs the estimator (main).
 */
#ifndef FULMAR_ESTIM_ACCUM_H
#define FULMAR_ESTIM_ACCUM_H

#include <stdint.h>

struct estim_accum {
	float alpha[3];        /* summed delta angle, rad */
	float beta[3];         /* coning correction, rad */
	float nu[3];           /* summed delta velocity, m/s */
	float scul[3];         /* rotation + sculling correction, m/s */
	float last_dang[3];    /* previous sample's delta angle */
	float last_dvel[3];
	float dt_s;            /* accumulated time */
	uint64_t t_start_us;   /* time of the interval's first sample's start */
	uint32_t count;        /* samples in the interval */
};

void estim_accum_init(struct estim_accum *a);

/* Add one sample held over dt_s seconds (the time since the previous sample).
 * Non-finite values or dt_s <= 0 are the caller's to filter (estim_push_imu does). */
void estim_accum_add(struct estim_accum *a, const float gyro_rad_s[3], const float accel_m_s2[3], float dt_s);

/* Take the accumulated deltas and start a new interval. Returns the interval's
 * length in seconds (0 when nothing was accumulated: outputs then untouched). */
float estim_accum_take(struct estim_accum *a, float dang_rad[3], float dvel_m_s[3]);

#endif
