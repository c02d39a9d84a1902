// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/atc.h"
#include "copter/shape.h"

#include <math.h>
#include <string.h>

#include "estim/estim_math.h"
#include "nav/nav_math.h"

/*
 * Facts taken from ArduCopter (AC_AttitudeControl.{h,cpp},
 * AC_AttitudeControl_Multi.{h,cpp}, AC_PID.cpp, AP_Math/control.cpp,
 * ArduCopter/config.h), read for their numbers and rules only; the code is
 * ours:
 * - the square-root controller of the angle loops uses half the
 *   ATC_ACCEL_*_MAX, clamped to 40..720 deg/s/s for roll and pitch and
 *   10..120 deg/s/s for yaw;
 * - beyond 30 degrees between target and estimated thrust axes the
 *   heading correction and the feed-forward fade out, and beyond 60 the
 *   yaw loop only holds the present yaw rate;
 * - the rate loops' outputs are limited to +-1;
 * - the integrators relax to 0 with a 0.16 s time constant (5% in half a
 *   second) where ArduCopter calls reset_rate_controller_I_terms_smoothly,
 *   i.e. on the ground;
 * - the throttle mix slews up at 2 per s and down at 0.5 per s, never
 *   below 0.1.
 */
#define ANG_ACCEL_RP_MIN_RAD_S2 (40.0f * NAV_DEG2RAD)
#define ANG_ACCEL_RP_MAX_RAD_S2 (720.0f * NAV_DEG2RAD)
#define ANG_ACCEL_Y_MIN_RAD_S2 (10.0f * NAV_DEG2RAD)
#define ANG_ACCEL_Y_MAX_RAD_S2 (120.0f * NAV_DEG2RAD)
#define THRUST_ERROR_FADE_RAD (30.0f * NAV_DEG2RAD)
#define RATE_OUT_MAX 1.0f
#define RELAX_TC_S 0.16f
#define THR_MIX_UP_PER_S 2.0f
#define THR_MIX_DOWN_PER_S 0.5f
#define THR_MIX_FLOOR 0.1f
/* ArduCopter allows ATC_THR_MIX_MAX up to 5 and _MAN up to 4; the mixer's
 * thr_mix (motors.h) is 0..1, so more than 1 would only be clipped there */
#define THR_MIX_CEIL 1.0f
#define THR_MIX_MIN_CEIL 0.5f
#define THR_MIX_MAX_FLOOR 0.5f
#define INPUT_TC_MIN_S 0.01f
#define ANGLE_MAX_LO_CD 1000.0f
#define ANGLE_MAX_HI_CD 8000.0f
#define ANGLE_MAX_DEFAULT_CD 3000.0f
/* below this cosine of the pitch the Euler rates are undefined (gimbal lock) */
#define COS_PITCH_MIN 1e-3f
/* the smallest sine or cosine used when translating acceleration limits */
#define EULER_ACCEL_TRIG_MIN 0.1f
#define CD2RAD (0.01f * NAV_DEG2RAD)

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void set_rate_pid_defaults(struct ctl_pid_params *g, float kp, float ki, float kd,
				  float flte_hz, float fltd_hz)
{
	g->p = kp;
	g->i = ki;
	g->d = kd;
	g->imax = 0.5f;
	g->ff = 0.0f;
	g->fltt_hz = 20.0f;
	g->flte_hz = flte_hz;
	g->fltd_hz = fltd_hz;
}

void copter_atc_params_default(struct copter_atc_params *p)
{
	memset(p, 0, sizeof(*p));
	set_rate_pid_defaults(&p->atc_rat_rll, 0.135f, 0.135f, 0.0036f, 0.0f, 20.0f);
	set_rate_pid_defaults(&p->atc_rat_pit, 0.135f, 0.135f, 0.0036f, 0.0f, 20.0f);
	set_rate_pid_defaults(&p->atc_rat_yaw, 0.18f, 0.018f, 0.0f, 2.5f, 0.0f);
	p->atc_ang_rll_p = 4.5f;
	p->atc_ang_pit_p = 4.5f;
	p->atc_ang_yaw_p = 4.5f;
	p->atc_accel_r_max = 110000.0f;
	p->atc_accel_p_max = 110000.0f;
	p->atc_accel_y_max = 27000.0f;
	p->atc_rate_r_max = 0.0f;
	p->atc_rate_p_max = 0.0f;
	p->atc_rate_y_max = 0.0f;
	p->atc_input_tc = 0.15f;
	p->atc_slew_yaw = 6000.0f;
	p->atc_thr_mix_min = 0.1f;
	p->atc_thr_mix_man = 0.1f;
	p->atc_thr_mix_max = 0.5f;
	p->atc_angle_boost = 1.0f;
	p->angle_max = ANGLE_MAX_DEFAULT_CD;
}

/* ---- parameters as the loops use them (nonsense never reaches them) ---- */

static float positive_or_zero(float v)
{
	return v > 0.0f && isfinite(v) ? v : 0.0f;
}

static void accel_max_rad_s2(const struct copter_atc_params *p, float out[3])
{
	out[0] = positive_or_zero(p->atc_accel_r_max) * CD2RAD;
	out[1] = positive_or_zero(p->atc_accel_p_max) * CD2RAD;
	out[2] = positive_or_zero(p->atc_accel_y_max) * CD2RAD;
}

static void rate_max_rad_s(const struct copter_atc_params *p, float out[3])
{
	out[0] = positive_or_zero(p->atc_rate_r_max) * NAV_DEG2RAD;
	out[1] = positive_or_zero(p->atc_rate_p_max) * NAV_DEG2RAD;
	out[2] = positive_or_zero(p->atc_rate_y_max) * NAV_DEG2RAD;
}

static float input_tc_s(const struct copter_atc_params *p)
{
	return isfinite(p->atc_input_tc) ? clampf(p->atc_input_tc, 0.0f, 1.0f) : 0.15f;
}

static float angle_max_cd(const struct copter_atc_params *p)
{
	return isfinite(p->angle_max) ? clampf(p->angle_max, ANGLE_MAX_LO_CD, ANGLE_MAX_HI_CD)
				      : ANGLE_MAX_DEFAULT_CD;
}

static const struct ctl_pid_params *rate_params(const struct copter_atc_params *p, int axis)
{
	return axis == COPTER_ATC_ROLL ? &p->atc_rat_rll
	       : axis == COPTER_ATC_PITCH ? &p->atc_rat_pit : &p->atc_rat_yaw;
}

/* ---- small vector and quaternion helpers over estim/estim_math.h ---- */

static void quat_conj(const float q[4], float out[4])
{
	out[0] = q[0];
	out[1] = -q[1];
	out[2] = -q[2];
	out[3] = -q[3];
}

/* R(q) v: a vector of q's frame in the frame q maps into. */
static void quat_rotate(const float q[4], const float v[3], float out[3])
{
	float R[3][3];
	em_quat_to_dcm(q, R);
	em_mat_vec(R, v, out);
}

static void quat_rotate_inv(const float q[4], const float v[3], float out[3])
{
	float R[3][3];
	em_quat_to_dcm(q, R);
	em_mat_t_vec(R, v, out);
}

static bool vec_finite(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

/* The estimate's attitude, normalised, if it can be flown on. */
static bool estimate_attitude(const struct vehicle_state *vs, float q[4])
{
	if (!(vs->valid & VEHICLE_ATTITUDE_VALID) || !vec_finite(vs->q, 4))
		return false;
	float n2 = vs->q[0] * vs->q[0] + vs->q[1] * vs->q[1] + vs->q[2] * vs->q[2] +
		   vs->q[3] * vs->q[3];
	if (!(n2 > 0.25f && n2 < 4.0f))
		return false;
	memcpy(q, vs->q, 4 * sizeof(float));
	em_quat_normalize(q);
	return true;
}

/* ---- shaping ---- */

float copter_atc_shape_rate(float rate_now, float rate_want, float accel_max, float dt_s)
{
	if (!(accel_max > 0.0f))
		return rate_want;
	float step = accel_max * (dt_s > 0.0f ? dt_s : 0.0f);
	return clampf(rate_want, rate_now - step, rate_now + step);
}

float copter_atc_shape_angle(float error_rad, float input_tc_s, float accel_max, float rate_now,
			     float rate_ff, float rate_max, float dt_s)
{
	float p = 1.0f / fmaxf(input_tc_s, INPUT_TC_MIN_S);
	float want = rate_ff + copter_sqrt_controller(error_rad, p, accel_max, dt_s);
	if (rate_max > 0.0f)
		want = clampf(want, -rate_max, rate_max);
	return copter_atc_shape_rate(rate_now, want, accel_max, dt_s);
}

/* ---- Euler rates and body rates (ZYX) ---- */

static void euler_rate_to_body(const float euler[3], const float er[3], float body[3])
{
	float sr = sinf(euler[0]), cr = cosf(euler[0]);
	float sp = sinf(euler[1]), cp = cosf(euler[1]);
	body[0] = er[0] - sp * er[2];
	body[1] = cr * er[1] + sr * cp * er[2];
	body[2] = -sr * er[1] + cr * cp * er[2];
}

/* False (er unchanged) at +-90 degrees of pitch, where no Euler rates exist. */
static bool body_to_euler_rate(const float euler[3], const float body[3], float er[3])
{
	float sr = sinf(euler[0]), cr = cosf(euler[0]);
	float sp = sinf(euler[1]), cp = cosf(euler[1]);
	if (fabsf(cp) < COS_PITCH_MIN)
		return false;
	er[0] = body[0] + (sr * body[1] + cr * body[2]) * sp / cp;
	er[1] = cr * body[1] - sr * body[2];
	er[2] = (sr * body[1] + cr * body[2]) / cp;
	return true;
}

/*
 * The acceleration each Euler rate may have so that no body axis exceeds
 * its limit (0 = none): an Euler rate's acceleration reaches the body axes
 * through the columns of euler_rate_to_body, so its limit is the least of
 * body limit / |coefficient|, each coefficient taken as at least 0.1 so a
 * nearly decoupled axis does not get an unbounded limit.
 */
static void euler_accel_limits(const float euler[3], const float body_lim[3], float out[3])
{
	float sr = sinf(euler[0]), cr = cosf(euler[0]);
	float sp = sinf(euler[1]), cp = cosf(euler[1]);
	float coef[3][3] = {
		/* body x, y, z per Euler rate roll, pitch, yaw */
		{ 1.0f, 0.0f, 0.0f },
		{ 0.0f, cr, -sr },
		{ -sp, sr * cp, cr * cp },
	};
	for (int e = 0; e < 3; e++) {
		float lim = INFINITY;
		for (int b = 0; b < 3; b++) {
			if (coef[e][b] == 0.0f || !(body_lim[b] > 0.0f))
				continue;
			lim = fminf(lim, body_lim[b] / fmaxf(fabsf(coef[e][b]), EULER_ACCEL_TRIG_MIN));
		}
		out[e] = isfinite(lim) ? lim : 0.0f;
	}
}

/* ATC_RATE_*_MAX on a body rate: roll and pitch together inside their
 * ellipse (so a diagonal is not faster than either axis allows), yaw alone. */
static void body_rate_limit(float w[3], const float max[3])
{
	if (max[0] > 0.0f && max[1] > 0.0f) {
		float n = hypotf(w[0] / max[0], w[1] / max[1]);
		if (n > 1.0f) {
			w[0] /= n;
			w[1] /= n;
		}
	} else {
		if (max[0] > 0.0f)
			w[0] = clampf(w[0], -max[0], max[0]);
		if (max[1] > 0.0f)
			w[1] = clampf(w[1], -max[1], max[1]);
	}
	if (max[2] > 0.0f)
		w[2] = clampf(w[2], -max[2], max[2]);
}

/* ---- the attitude controller ---- */

/*
 * The rotation from the estimate to the target as a thrust-vector tilt
 * (err x, y, body axes) followed by a turn about the new thrust axis
 * (err z). *thrust_err is the angle between the two thrust axes.
 */
static void attitude_error(const float qt[4], const float qb[4], float err[3], float *thrust_err)
{
	static const float up[3] = { 0.0f, 0.0f, -1.0f };
	float t_ned[3], b_ned[3];
	quat_rotate(qt, up, t_ned);
	quat_rotate(qb, up, b_ned);
	float cross[3] = {
		b_ned[1] * t_ned[2] - b_ned[2] * t_ned[1],
		b_ned[2] * t_ned[0] - b_ned[0] * t_ned[2],
		b_ned[0] * t_ned[1] - b_ned[1] * t_ned[0],
	};
	float dot = b_ned[0] * t_ned[0] + b_ned[1] * t_ned[1] + b_ned[2] * t_ned[2];
	float angle = acosf(clampf(dot, -1.0f, 1.0f));
	float len = sqrtf(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);

	float tilt[3] = { 0.0f, 0.0f, 0.0f };
	if (len > 1e-6f) {
		float axis_ned[3] = { cross[0] / len, cross[1] / len, cross[2] / len };
		float axis[3];
		quat_rotate_inv(qb, axis_ned, axis);
		for (int i = 0; i < 3; i++)
			tilt[i] = axis[i] * angle;
	} else if (angle > 0.5f * NAV_PI_F) {
		/* upside down against the target: any horizontal axis will do */
		tilt[0] = angle;
	}

	float q_tilt[4], q_tilt_inv[4], qb_inv[4], tmp[4], q_head[4], head[3];
	em_quat_from_rotvec(tilt, q_tilt);
	quat_conj(q_tilt, q_tilt_inv);
	quat_conj(qb, qb_inv);
	em_quat_mul(q_tilt_inv, qb_inv, tmp);
	em_quat_mul(tmp, qt, q_head);
	em_rotvec_from_quat(q_head, head);

	err[0] = tilt[0];
	err[1] = tilt[1];
	err[2] = head[2];
	*thrust_err = angle;
}

/*
 * ArduCopter's attitude_controller_run_quat: the body rate that follows the
 * target (feed-forward) and closes the error, then the target advanced by
 * its own angular velocity over dt.
 */
static void attitude_run(struct copter_atc *a, const struct copter_atc_params *p,
			 const struct vehicle_state *vs, float dt)
{
	float qb[4];
	float ff[3];
	float rate_max[3];
	rate_max_rad_s(p, rate_max);

	if (estimate_attitude(vs, qb)) {
		float err[3];
		attitude_error(a->target_q, qb, err, &a->thrust_error_rad);
		memcpy(a->att_error_rad, err, sizeof(err));

		float acc[3];
		accel_max_rad_s2(p, acc);
		const float ang_p[3] = { p->atc_ang_rll_p, p->atc_ang_pit_p, p->atc_ang_yaw_p };
		const float lo[3] = { ANG_ACCEL_RP_MIN_RAD_S2, ANG_ACCEL_RP_MIN_RAD_S2,
				      ANG_ACCEL_Y_MIN_RAD_S2 };
		const float hi[3] = { ANG_ACCEL_RP_MAX_RAD_S2, ANG_ACCEL_RP_MAX_RAD_S2,
				      ANG_ACCEL_Y_MAX_RAD_S2 };
		float w[3];
		for (int i = 0; i < 3; i++) {
			float kp = positive_or_zero(ang_p[i]);
			float lim = acc[i] > 0.0f ? clampf(0.5f * acc[i], lo[i], hi[i]) : 0.0f;
			w[i] = copter_sqrt_controller(err[i], kp, lim, dt);
		}
		body_rate_limit(w, rate_max);

		float qb_inv[4], q_bt[4];
		quat_conj(qb, qb_inv);
		em_quat_mul(qb_inv, a->target_q, q_bt);
		quat_rotate(q_bt, a->ang_vel_target_rad_s, ff);

		/* a thrust axis far from its target is corrected first: the
		 * heading and the feed-forward wait until it is within 30 deg */
		float gyro_z = isfinite(vs->rate_rad_s[2]) ? vs->rate_rad_s[2] : 0.0f;
		float te = a->thrust_error_rad;
		if (te > 2.0f * THRUST_ERROR_FADE_RAD) {
			w[2] = gyro_z;
		} else if (te > THRUST_ERROR_FADE_RAD) {
			float s = 1.0f - (te - THRUST_ERROR_FADE_RAD) / THRUST_ERROR_FADE_RAD;
			w[0] += ff[0] * s;
			w[1] += ff[1] * s;
			w[2] = gyro_z * (1.0f - s) + (w[2] + ff[2]) * s;
		} else {
			for (int i = 0; i < 3; i++)
				w[i] += ff[i];
		}
		memcpy(a->rate_target_rad_s, w, sizeof(w));
	} else {
		/* nothing to close an error on: follow the target's own rate */
		a->bad_estimates++;
		memset(a->att_error_rad, 0, sizeof(a->att_error_rad));
		a->thrust_error_rad = 0.0f;
		memcpy(a->rate_target_rad_s, a->ang_vel_target_rad_s, sizeof(float) * 3);
	}
	/* unlike ArduCopter, which limits the correction and the feed-forward
	 * each but not their sum, ATC_RATE_*_MAX bounds what the rate loops
	 * are asked for: a configured maximum rate is a maximum */
	body_rate_limit(a->rate_target_rad_s, rate_max);

	float step[3], dq[4], qn[4];
	for (int i = 0; i < 3; i++)
		step[i] = a->ang_vel_target_rad_s[i] * dt;
	em_quat_from_rotvec(step, dq);
	em_quat_mul(a->target_q, dq, qn);
	em_quat_normalize(qn);
	memcpy(a->target_q, qn, sizeof(qn));
}

/* ---- inputs ---- */

static float held(struct copter_atc *a, float v, float *last)
{
	if (isfinite(v)) {
		*last = v;
		return v;
	}
	a->nonfinite_inputs++;
	return *last;
}

static float step_dt(struct copter_atc *a, float dt_s)
{
	if (!isfinite(dt_s)) {
		a->nonfinite_inputs++;
		return 0.0f;
	}
	return dt_s > 0.0f ? dt_s : 0.0f;
}

void copter_atc_init(struct copter_atc *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < COPTER_ATC_AXIS_COUNT; i++)
		ctl_pid_init(&a->rate_pid[i]);
	a->target_q[0] = 1.0f;
	a->thr_mix = THR_MIX_FLOOR;
}

void copter_atc_relax(struct copter_atc *a, const struct vehicle_state *vs)
{
	float qb[4];
	if (estimate_attitude(vs, qb)) {
		memcpy(a->target_q, qb, sizeof(qb));
		a->target_set = true;
	}
	float euler[3];
	em_quat_to_euler(a->target_q, &euler[0], &euler[1], &euler[2]);
	for (int i = 0; i < 3; i++) {
		float w = vs->rate_rad_s[i];
		a->ang_vel_target_rad_s[i] = isfinite(w) ? w : 0.0f;
		a->rate_target_rad_s[i] = a->ang_vel_target_rad_s[i];
		a->att_error_rad[i] = 0.0f;
	}
	if (!body_to_euler_rate(euler, a->ang_vel_target_rad_s, a->euler_rate_target_rad_s))
		memset(a->euler_rate_target_rad_s, 0, sizeof(a->euler_rate_target_rad_s));
	a->thrust_error_rad = 0.0f;
	for (int i = 0; i < COPTER_ATC_AXIS_COUNT; i++) {
		ctl_pid_reset_filters(&a->rate_pid[i]);
		ctl_pid_reset_integrator(&a->rate_pid[i]);
	}
}

void copter_atc_reset_yaw_target(struct copter_atc *a, const struct vehicle_state *vs)
{
	float qb[4];
	if (!estimate_attitude(vs, qb))
		return;
	if (!a->target_set) {
		copter_atc_relax(a, vs);
		return;
	}
	float er, ep, ey, tr, tp, ty;
	em_quat_to_euler(qb, &er, &ep, &ey);
	em_quat_to_euler(a->target_q, &tr, &tp, &ty);
	/* a turn about earth's vertical, applied on the earth side */
	float half = 0.5f * nav_wrap_pi(ey - ty);
	float turn[4] = { cosf(half), 0.0f, 0.0f, sinf(half) };
	float q[4];
	em_quat_mul(turn, a->target_q, q);
	em_quat_normalize(q);
	memcpy(a->target_q, q, sizeof(q));
	a->target_set = true;
	a->euler_rate_target_rad_s[2] = 0.0f;
	float euler[3];
	em_quat_to_euler(a->target_q, &euler[0], &euler[1], &euler[2]);
	euler_rate_to_body(euler, a->euler_rate_target_rad_s, a->ang_vel_target_rad_s);
}

/* The first usable estimate places the target: a controller that starts
 * level while the vehicle sits on a slope would lean it at once. */
static void start_target(struct copter_atc *a, const struct vehicle_state *vs)
{
	float qb[4];
	if (!a->target_set && estimate_attitude(vs, qb))
		copter_atc_relax(a, vs);
}

/* ANGLE_MAX on the lean: roll and pitch scaled together when their
 * combined magnitude is beyond it (as ArduCopter limits the pilot's). */
static void limit_lean(const struct copter_atc_params *p, float *roll_cd, float *pitch_cd)
{
	float max = angle_max_cd(p);
	float total = hypotf(*roll_cd, *pitch_cd);
	if (total > max) {
		*roll_cd *= max / total;
		*pitch_cd *= max / total;
	}
}

/* Roll and pitch shaped towards their angles; the Euler rates then go to
 * body rates, are limited there and come back, so the target and its
 * feed-forward agree. */
static void shape_lean_and_finish(struct copter_atc *a, const struct copter_atc_params *p,
				  const float euler_t[3], float roll_rad, float pitch_rad,
				  const float euler_acc[3], float dt)
{
	float tc = input_tc_s(p);
	float *er = a->euler_rate_target_rad_s;
	er[0] = copter_atc_shape_angle(nav_wrap_pi(roll_rad - euler_t[0]), tc, euler_acc[0], er[0],
				       0.0f, 0.0f, dt);
	er[1] = copter_atc_shape_angle(nav_wrap_pi(pitch_rad - euler_t[1]), tc, euler_acc[1], er[1],
				       0.0f, 0.0f, dt);

	float rate_max[3];
	rate_max_rad_s(p, rate_max);
	euler_rate_to_body(euler_t, er, a->ang_vel_target_rad_s);
	body_rate_limit(a->ang_vel_target_rad_s, rate_max);
	body_to_euler_rate(euler_t, a->ang_vel_target_rad_s, er);
}

static void target_euler_and_accel(const struct copter_atc *a, const struct copter_atc_params *p,
				   float euler_t[3], float euler_acc[3])
{
	em_quat_to_euler(a->target_q, &euler_t[0], &euler_t[1], &euler_t[2]);
	float body_acc[3];
	accel_max_rad_s2(p, body_acc);
	euler_accel_limits(euler_t, body_acc, euler_acc);
}

void copter_atc_input_euler_angle_roll_pitch_euler_rate_yaw(struct copter_atc *a,
							     const struct copter_atc_params *p,
							     const struct vehicle_state *vs,
							     float roll_cd, float pitch_cd,
							     float yaw_rate_cds, float dt_s)
{
	float dt = step_dt(a, dt_s);
	roll_cd = held(a, roll_cd, &a->roll_cd);
	pitch_cd = held(a, pitch_cd, &a->pitch_cd);
	yaw_rate_cds = held(a, yaw_rate_cds, &a->yaw_rate_cds);
	limit_lean(p, &roll_cd, &pitch_cd);
	start_target(a, vs);

	float euler_t[3], euler_acc[3];
	target_euler_and_accel(a, p, euler_t, euler_acc);
	float *er = a->euler_rate_target_rad_s;
	er[2] = copter_atc_shape_rate(er[2], yaw_rate_cds * CD2RAD, euler_acc[2], dt);
	shape_lean_and_finish(a, p, euler_t, roll_cd * CD2RAD, pitch_cd * CD2RAD, euler_acc, dt);
	attitude_run(a, p, vs, dt);
}

void copter_atc_input_euler_angle_roll_pitch_yaw(struct copter_atc *a,
						 const struct copter_atc_params *p,
						 const struct vehicle_state *vs, float roll_cd,
						 float pitch_cd, float yaw_cd, bool slew_yaw,
						 float dt_s)
{
	float dt = step_dt(a, dt_s);
	roll_cd = held(a, roll_cd, &a->roll_cd);
	pitch_cd = held(a, pitch_cd, &a->pitch_cd);
	yaw_cd = held(a, yaw_cd, &a->yaw_cd);
	limit_lean(p, &roll_cd, &pitch_cd);
	start_target(a, vs);

	float euler_t[3], euler_acc[3];
	target_euler_and_accel(a, p, euler_t, euler_acc);
	float *er = a->euler_rate_target_rad_s;
	/* fmodf first: a heading of many turns must not spin the wrap */
	float yaw_rad = fmodf(yaw_cd, 36000.0f) * CD2RAD;
	er[2] = copter_atc_shape_angle(nav_wrap_pi(yaw_rad - euler_t[2]), input_tc_s(p),
				       euler_acc[2], er[2], 0.0f, 0.0f, dt);
	if (slew_yaw) {
		float slew = positive_or_zero(p->atc_slew_yaw) * CD2RAD;
		float ymax = positive_or_zero(p->atc_rate_y_max) * NAV_DEG2RAD;
		if (ymax > 0.0f)
			slew = fminf(slew, ymax);
		er[2] = clampf(er[2], -slew, slew);
	}
	shape_lean_and_finish(a, p, euler_t, roll_cd * CD2RAD, pitch_cd * CD2RAD, euler_acc, dt);
	attitude_run(a, p, vs, dt);
}

void copter_atc_set_throttle_out(struct copter_atc *a, const struct copter_atc_params *p,
				 const struct vehicle_state *vs, float throttle, bool angle_boost)
{
	float thr = clampf(held(a, throttle, &a->throttle_in), 0.0f, 1.0f);
	float qb[4];
	if (angle_boost && p->atc_angle_boost > 0.5f && estimate_attitude(vs, qb)) {
		/* the body z axis against the vertical */
		float cos_tilt = 1.0f - 2.0f * (qb[1] * qb[1] + qb[2] * qb[2]);
		float inverted = clampf(10.0f * cos_tilt, 0.0f, 1.0f);
		float boost = 1.0f / clampf(cos_tilt, 0.1f, 1.0f);
		thr = clampf(thr * inverted * boost, 0.0f, 1.0f);
	}
	a->throttle = thr;
}

/* ---- the rate loops ---- */

static float thr_mix_target(const struct copter_atc_params *p, const struct copter_atc_rate_in *in)
{
	float lo = isfinite(p->atc_thr_mix_min) ? clampf(p->atc_thr_mix_min, THR_MIX_FLOOR,
							  THR_MIX_MIN_CEIL) : 0.1f;
	float man = isfinite(p->atc_thr_mix_man) ? clampf(p->atc_thr_mix_man, THR_MIX_FLOOR,
							   THR_MIX_CEIL) : 0.1f;
	float hi = isfinite(p->atc_thr_mix_max) ? clampf(p->atc_thr_mix_max, THR_MIX_MAX_FLOOR,
							  THR_MIX_CEIL) : 0.5f;
	switch (in->thr_mix) {
	case COPTER_ATC_THR_MIX_MAN:
		return man;
	case COPTER_ATC_THR_MIX_MAX: {
		float r = isfinite(in->thr_mix_ratio) ? clampf(in->thr_mix_ratio, 0.0f, 1.0f) : 0.0f;
		return lo + r * (hi - lo);
	}
	case COPTER_ATC_THR_MIX_MIN:
	default:
		return lo;
	}
}

static void slew_thr_mix(struct copter_atc *a, float target, float dt)
{
	if (a->thr_mix < target)
		a->thr_mix = fminf(a->thr_mix + THR_MIX_UP_PER_S * dt, target);
	else if (a->thr_mix > target)
		a->thr_mix = fmaxf(a->thr_mix - THR_MIX_DOWN_PER_S * dt, target);
	if (!isfinite(a->thr_mix))
		a->thr_mix = THR_MIX_FLOOR;
	a->thr_mix = clampf(a->thr_mix, THR_MIX_FLOOR, THR_MIX_CEIL);
}

void copter_atc_rate_controller_run(struct copter_atc *a, const struct copter_atc_params *p,
				    const struct vehicle_state *vs,
				    const struct copter_atc_rate_in *in, float dt_s,
				    struct copter_atc_out *out)
{
	memset(out, 0, sizeof(*out));
	float dt = step_dt(a, dt_s);
	slew_thr_mix(a, thr_mix_target(p, in), dt);
	out->thr_mix = a->thr_mix;
	out->throttle = clampf(isfinite(a->throttle) ? a->throttle : 0.0f, 0.0f, 1.0f);

	if (!in->armed) {
		copter_atc_relax(a, vs);
		return;
	}

	float *dem[COPTER_ATC_AXIS_COUNT] = { &out->roll, &out->pitch, &out->yaw };
	for (int i = 0; i < COPTER_ATC_AXIS_COUNT; i++) {
		struct ctl_pid *c = &a->rate_pid[i];
		bool limit = i == COPTER_ATC_YAW ? in->limit.yaw : in->limit.roll_pitch;
		if (in->landed) {
			limit = true;
			ctl_pid_relax_integrator(c, 0.0f, dt, RELAX_TC_S);
		}
		float gyro = vs->rate_rad_s[i];
		float target = a->rate_target_rad_s[i];
		if (!isfinite(gyro)) {
			a->bad_estimates++;
			continue;
		}
		if (!isfinite(target)) {
			/* cannot come from finite inputs; never let it stick */
			a->rate_target_rad_s[i] = 0.0f;
			target = 0.0f;
		}
		float u = ctl_pid_update(c, rate_params(p, i), target, gyro, dt, limit);
		out->terms[i] = c->last;
		if (!isfinite(u)) {
			/* gains that overflow: start the loop again rather than
			 * carry the overflow into the next step */
			ctl_pid_init(c);
			u = 0.0f;
		}
		*dem[i] = clampf(u, -RATE_OUT_MAX, RATE_OUT_MAX);
	}
}
