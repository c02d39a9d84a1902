// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The nominal state's motion: the strapdown step of attitude, velocity and
 * position with the bias-corrected deltas, the error state's injection after
 * a fusion, and the output predictor that carries the filter's state from
 * the delayed horizon to the present (estim.c).
 */
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

void estim_nav_inject(struct estim_nav *x, const float d[N])
{
	float dq[4];
	em_quat_from_rotvec(&d[ESTIM_S_ATT], dq);
	em_quat_mul(dq, x->q, x->q);
	em_quat_normalize(x->q);
	for (int i = 0; i < 3; i++) {
		x->vel[i] += d[ESTIM_S_VEL + i];
		x->pos[i] += d[ESTIM_S_POS + i];
		x->gyro_bias[i] += d[ESTIM_S_GYRO_BIAS + i];
		x->accel_bias[i] += d[ESTIM_S_ACC_BIAS + i];
		x->mag_earth[i] += d[ESTIM_S_MAG_EARTH + i];
		x->mag_body[i] += d[ESTIM_S_MAG_BODY + i];
		x->gyro_scale[i] += d[ESTIM_S_GYRO_SCALE + i];
	}
	x->wind[0] += d[ESTIM_S_WIND];
	x->wind[1] += d[ESTIM_S_WIND + 1];
	x->baro_bias += d[ESTIM_S_BARO_BIAS];
	/* biases stay physical: a MEMS part beyond these has failed */
	for (int i = 0; i < 3; i++) {
		x->gyro_bias[i] = estim_clampf(x->gyro_bias[i], -0.2f, 0.2f);
		x->accel_bias[i] = estim_clampf(x->accel_bias[i], -2.0f, 2.0f);
		x->gyro_scale[i] = estim_clampf(x->gyro_scale[i], -0.1f, 0.1f);
	}
}

/* Strapdown step of q, v, p with bias-corrected deltas. dv_ned_out gets the
 * specific-force part of the velocity change in NED (for the covariance). */
void estim_strapdown(float q[4], float vel[3], float pos[3], const float dang[3], const float dvel[3], float dt,
		     float R[3][3], float dv_ned_out[3])
{
	float dvn[3], dq[4];
	em_quat_to_dcm(q, R);
	em_mat_vec(R, dvel, dvn);
	em_quat_from_rotvec(dang, dq);
	em_quat_mul(q, dq, q);
	em_quat_normalize(q);
	for (int i = 0; i < 3; i++) {
		float dv = dvn[i] + (i == 2 ? G0 * dt : 0.0f);
		pos[i] += (vel[i] + 0.5f * dv) * dt;
		vel[i] += dv;
		dv_ned_out[i] = dvn[i];
	}
}

void estim_corrected_deltas(const struct estim_nav *x, const struct estim_imu_step *s, float dang[3],
			    float dvel[3])
{
	for (int i = 0; i < 3; i++) {
		dang[i] = (s->dang[i] - x->gyro_bias[i] * s->dt_s) * (1.0f - x->gyro_scale[i]);
		dvel[i] = s->dvel[i] - x->accel_bias[i] * s->dt_s;
	}
}

/* ---- output predictor ------------------------------------------------- */

void estim_out_step(const struct estim *e, struct estim_out *o, const struct estim_imu_step *s)
{
	float dang[3], dvel[3], R[3][3], dvn[3];
	estim_corrected_deltas(&e->x, s, dang, dvel);
	estim_strapdown(o->q, o->vel, o->pos, dang, dvel, s->dt_s, R, dvn);
}

/* Rebuild the output buffer from the filter state (after a reset). */
void estim_out_replay(struct estim *e)
{
	struct estim_out o;
	memcpy(o.q, e->x.q, sizeof(o.q));
	memcpy(o.vel, e->x.vel, sizeof(o.vel));
	memcpy(o.pos, e->x.pos, sizeof(o.pos));
	for (unsigned int k = 0; k < e->imu_count; k++) {
		unsigned int i = (e->imu_head + k) % ESTIM_IMU_BUF;
		estim_out_step(e, &o, &e->imu_buf[i]);
		e->out_buf[i] = o;
	}
	e->out = o;
	e->replayed = true;
}

/* Pull every buffered output state (and the present one) a fraction of the way
 * to the filter: the next comparison then sees the remaining error, which gives
 * a first-order convergence without a jump. */
void estim_out_correct(struct estim *e, const struct estim_out *at_delayed, float dt)
{
	float k = estim_clampf(dt / e->cfg.output_tau_s, 0.0f, 1.0f);
	float qi[4] = { at_delayed->q[0], -at_delayed->q[1], -at_delayed->q[2], -at_delayed->q[3] };
	float dq[4], rv[3], dv[3], dp[3];
	em_quat_mul(e->x.q, qi, dq);
	em_rotvec_from_quat(dq, rv);
	for (int i = 0; i < 3; i++) {
		rv[i] *= k;
		dv[i] = k * (e->x.vel[i] - at_delayed->vel[i]);
		dp[i] = k * (e->x.pos[i] - at_delayed->pos[i]);
	}
	em_quat_from_rotvec(rv, dq);
	for (unsigned int n = 0; n <= e->imu_count; n++) {
		struct estim_out *o = n < e->imu_count ? &e->out_buf[(e->imu_head + n) % ESTIM_IMU_BUF] : &e->out;
		em_quat_mul(dq, o->q, o->q);
		em_quat_normalize(o->q);
		for (int i = 0; i < 3; i++) {
			o->vel[i] += dv[i];
			o->pos[i] += dp[i];
		}
	}
}
