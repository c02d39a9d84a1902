// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Alignment: before the filter runs, the IMU's steps come here. At rest (or
 * in unaccelerated flight) the tilt is taken from the mean specific force
 * and the heading from the mean compass field; moving faster than
 * MOVING_ALIGN_M_S, from the specific force less the turn's acceleration.
 * align() then starts the filter: its state, covariance and output.
 */
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

/* At rest the mean specific force is gravity's reaction, read through the
 * accelerometer's turn-on bias and scale error: within this of g. An IMU
 * within its data sheet (biases of 0.02 g, scale 1 %, 3 sigma of each: 0.9
 * m/s^2 together) must align; 0.5 m/s^2 refused some 3 % of them for good
 * (never armed: 6 of 200 campaign flights). */
#define ALIGN_G_TOL_M_S2 1.5f
/* Alignment while moving: above this speed (GPS, else airspeed), over this
 * window, with this tilt variance (tests/unit/test_estim.c measures the
 * error it stands for). */
#define MOVING_ALIGN_M_S 5.0f
#define MOVING_ALIGN_S 1.0f
#define MOVING_TILT_VAR (0.1f * 0.1f)

static void align_reset(struct estim *e)
{
	memset(e->align_acc, 0, sizeof(e->align_acc));
	memset(e->align_gyro, 0, sizeof(e->align_gyro));
	e->align_time_s = 0.0f;
	memset(e->align_mag, 0, sizeof(e->align_mag));
	e->align_mag_n = 0;
}

static void moving_reset(struct estim *e)
{
	memset(e->mov_grav, 0, sizeof(e->mov_grav));
	memset(e->mov_mag, 0, sizeof(e->mov_mag));
	e->mov_mag_n = 0;
	e->mov_time_s = 0.0f;
}

/* Start the filter from the mean specific force a (m/s^2, body; gravity's
 * reaction: tilt) and the mean compass field m (gauss, body; NULL: none),
 * both as seen in the present body frame. */
static void align(struct estim *e, uint64_t t_us, const float a[3], const float *m, bool moving)
{
	const struct estim_config *c = &e->cfg;
	float roll = atan2f(-a[1], -a[2]);
	float pitch = atan2f(a[0], sqrtf(a[1] * a[1] + a[2] * a[2]));
	float yaw = 0.0f;
	bool have_mag = m != NULL;
	if (have_mag) {
		float cr = cosf(roll), sr = sinf(roll), cp = cosf(pitch), sp = sinf(pitch);
		float mx = m[0] * cp + (m[1] * sr + m[2] * cr) * sp;
		float my = m[1] * cr - m[2] * sr;
		float decl = isfinite(c->mag_declination_deg) ? c->mag_declination_deg * DEG2RAD : 0.0f;
		yaw = em_wrap_pi(atan2f(-my, mx) + decl);
	}
	struct estim_nav *x = &e->x;
	memset(x, 0, sizeof(*x));
	em_quat_from_euler(roll, pitch, yaw, x->q);
	float R[3][3];
	em_quat_to_dcm(x->q, R);
	if (have_mag)
		em_mat_vec(R, m, x->mag_earth);
	bool flying = e->tas_last_m_s > c->min_airspeed_m_s;
	bool gps_vel = moving && estim_recent(t_us, e->gps_last_valid_us, 1.0f);
	/* Aligned in flight: start from the GPS velocity, or the airspeed along the nose. */
	if (gps_vel)
		memcpy(x->vel, e->gps_vel_pre, sizeof(x->vel));
	else if (flying && have_mag)
		for (int i = 0; i < 3; i++)
			x->vel[i] = R[i][0] * e->tas_last_m_s;
	memset(e->P, 0, sizeof(e->P));
	float tilt_var = moving ? MOVING_TILT_VAR : 0.03f * 0.03f;
	e->P[0][0] = e->P[1][1] = tilt_var;
	/* an unknown declination is 20 degrees at most where people fly */
	e->P[2][2] = !have_mag ? 1.0f : isfinite(c->mag_declination_deg) ? ALIGN_YAW_VAR : 0.35f * 0.35f;
	for (int i = 0; i < 3; i++) {
		e->P[ESTIM_S_VEL + i][ESTIM_S_VEL + i] = gps_vel ? 1.0f : flying || moving ? 25.0f : 0.25f;
		e->P[ESTIM_S_POS + i][ESTIM_S_POS + i] = 1.0f;
		e->P[ESTIM_S_GYRO_BIAS + i][ESTIM_S_GYRO_BIAS + i] = 0.01f * 0.01f;
		e->P[ESTIM_S_GYRO_SCALE + i][ESTIM_S_GYRO_SCALE + i] = 0.02f * 0.02f;
		e->P[ESTIM_S_ACC_BIAS + i][ESTIM_S_ACC_BIAS + i] = 0.2f * 0.2f;
		e->P[ESTIM_S_MAG_EARTH + i][ESTIM_S_MAG_EARTH + i] = 0.0025f;
		e->P[ESTIM_S_MAG_BODY + i][ESTIM_S_MAG_BODY + i] = 0.0025f;
	}
	e->P[ESTIM_S_WIND][ESTIM_S_WIND] = e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] = 25.0f;
	e->P[ESTIM_S_BARO_BIAS][ESTIM_S_BARO_BIAS] = 0.25f;
	e->mag_active = have_mag;
	e->yaw_aligned = have_mag;
	e->wind_active = false;
	e->running = true;
	e->ever_aligned = true;
	e->moving_aligned = moving;
	e->t_delayed_us = t_us;
	e->imu_count = 0;
	memcpy(e->hold_pos, x->pos, sizeof(e->hold_pos));
	memcpy(e->out.q, x->q, sizeof(e->out.q));
	memcpy(e->out.vel, x->vel, sizeof(e->out.vel));
	memcpy(e->out.pos, x->pos, sizeof(e->out.pos));
}

/* The speed the aircraft moves at (m/s, 0 if it is not known to move): the
 * GPS's if a fix came within 1 s, else the airspeed above the minimum. */
static float moving_speed(const struct estim *e, uint64_t t_us)
{
	if (estim_recent(t_us, e->gps_last_valid_us, 1.0f)) {
		const float *v = e->gps_vel_pre;
		return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	}
	return e->tas_last_m_s > e->cfg.min_airspeed_m_s ? e->tas_last_m_s : 0.0f;
}

/* Alignment while moving (in the air, turning, in turbulence): no steady
 * specific force to wait for. Gravity's reaction is the specific force less
 * the aircraft's acceleration, and at flying speed that is mostly the turn's:
 * w x v with v = [V 0 0], the speed along the nose (DCM's centripetal
 * correction; the airspeed, else the GPS's speed), plus the mean
 * acceleration along the nose from the speed's change over the window;
 * gusts, sideslip and angle of attack are left in the tilt's variance. The sums are carried in the present body
 * frame (each step turns them by its rotation), so the rotation over the
 * window does not smear them and the result is the present attitude. */
static void moving_step(struct estim *e, const float dang[3], const float dvel[3], float dt, float speed,
			uint64_t t_us)
{
	float dq[4], R[3][3], t[3];
	em_quat_from_rotvec(dang, dq);
	em_quat_to_dcm(dq, R);
	em_mat_t_vec(R, e->mov_grav, t);
	memcpy(e->mov_grav, t, sizeof(t));
	em_mat_t_vec(R, e->mov_mag, t);
	memcpy(e->mov_mag, t, sizeof(t));
	/* w x [V 0 0] = [0, wz V, -wy V], over the step */
	if (e->mov_time_s == 0.0f)
		e->mov_speed0 = speed;
	e->mov_grav[0] += dvel[0];
	e->mov_grav[1] += dvel[1] - dang[2] * speed;
	e->mov_grav[2] += dvel[2] + dang[1] * speed;
	e->mov_time_s += dt;
	bool mag_ok = e->cfg.use_mag && e->mov_mag_n >= 5;
	if (!((e->mov_time_s >= MOVING_ALIGN_S && (mag_ok || !e->cfg.use_mag)) || e->mov_time_s >= 3.0f))
		return;
	float a[3], m[3];
	for (int i = 0; i < 3; i++) {
		a[i] = e->mov_grav[i] / e->mov_time_s;
		m[i] = mag_ok ? e->mov_mag[i] / (float)e->mov_mag_n : 0.0f;
	}
	/* and the mean acceleration along the nose: slowing down (a glide
	 * pitching up) reads as nose-down tilt otherwise */
	a[0] -= (speed - e->mov_speed0) / e->mov_time_s;
	float an = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	if (fabsf(an - G0) > 2.0f) {
		/* a manoeuvre the correction does not hold: start the window again */
		moving_reset(e);
		return;
	}
	align(e, t_us, a, mag_ok ? m : NULL, true);
}

void estim_align_step(struct estim *e, const float dang[3], const float dvel[3], float dt, uint64_t t_us)
{
	float speed = moving_speed(e, t_us);
	if (speed > MOVING_ALIGN_M_S) {
		align_reset(e);
		/* The nose's velocity through the air: in a steady wind the
		 * body's acceleration is w x v_air + d(v_air)/dt, which the
		 * airspeed gives exactly where the ground speed (the wind's
		 * part turning with the body) does not. */
		bool air = e->tas_last_m_s > e->cfg.min_airspeed_m_s;
		moving_step(e, dang, dvel, dt, air ? e->tas_last_m_s : speed, t_us);
		return;
	}
	moving_reset(e);
	float w = sqrtf(dang[0] * dang[0] + dang[1] * dang[1] + dang[2] * dang[2]) / dt;
	float a = sqrtf(dvel[0] * dvel[0] + dvel[1] * dvel[1] + dvel[2] * dvel[2]) / dt;
	/* Tilt from gravity needs rest or unaccelerated flight: no manoeuvre
	 * during the averaging, and gravity's magnitude in the mean. */
	if (w > 0.3f || fabsf(a - G0) > 4.0f) {
		align_reset(e);
		return;
	}
	for (int i = 0; i < 3; i++) {
		e->align_acc[i] += dvel[i];
		e->align_gyro[i] += dang[i];
	}
	e->align_time_s += dt;
	bool mag_ok = !e->cfg.use_mag || e->align_mag_n >= 5;
	if (!((e->align_time_s >= 1.0f && mag_ok) || e->align_time_s >= 3.0f))
		return;
	float T = e->align_time_s, am[3], wm[3], m[3];
	for (int i = 0; i < 3; i++) {
		am[i] = e->align_acc[i] / T;
		wm[i] = e->align_gyro[i] / T;
	}
	float an = sqrtf(am[0] * am[0] + am[1] * am[1] + am[2] * am[2]);
	float wn = sqrtf(wm[0] * wm[0] + wm[1] * wm[1] + wm[2] * wm[2]);
	if (fabsf(an - G0) > ALIGN_G_TOL_M_S2 || wn > 0.05f) {
		align_reset(e);
		return;
	}
	bool have_mag = e->cfg.use_mag && e->align_mag_n >= 5;
	for (int i = 0; i < 3; i++)
		m[i] = have_mag ? e->align_mag[i] / (float)e->align_mag_n : 0.0f;
	align(e, t_us, am, have_mag ? m : NULL, false);
}
