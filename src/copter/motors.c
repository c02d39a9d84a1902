// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/motors.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define CCW 1.0f
#define CW (-1.0f)
#define DEG2RAD 0.017453292519943295f
#define PWM_MIN_DEFAULT_US 1000.0f
#define PWM_MAX_DEFAULT_US 2000.0f
#define SPOOL_TIME_MIN_S 0.05f
#define BATT_FILT_HZ 0.5f
#define TWO_PI 6.283185307179586f
#define RANGE_EPS 1e-6f

/*
 * Motor positions (degrees clockwise from the nose) and propeller directions
 * of ArduCopter's frames, motor 1 first, with the order in which its motor
 * test spins them. Sources, for the facts only:
 * - ArduPilot's frame definitions, libraries/AP_Motors/AP_MotorsMatrix.cpp
 *   (setup_quad_matrix and setup_hexa_matrix, read at two versions years
 *   apart, identical for these four frames): the angles, CW/CCW and test
 *   orders below; AP_MOTORS_MATRIX_YAW_FACTOR_CCW = +1, CW = -1.
 * - ArduPilot's documentation, "Connect ESCs and Motors"
 *   (ardupilot.org/copter/docs/connect-escs-and-motors.html), whose
 *   motororder-quad-x/-quad-plus/-hexa-x/-hexa-plus diagrams draw the same
 *   frames, and whose text gives the test order: clockwise from the front
 *   motor in +, from the first motor right of the nose in X.
 */
struct frame_motor {
	float angle_deg;
	float spin;               /* CCW or CW */
	int test_order;
};

static const struct frame_row {
	int frame_class, frame_type, count;
	struct frame_motor motor[COPTER_MOTORS_MAX];
} frames[] = {
	/* quad +: 1 right, 2 left, 3 front, 4 back */
	{ COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_PLUS, 4,
	  { { 90, CCW, 2 }, { -90, CCW, 4 }, { 0, CW, 1 }, { 180, CW, 3 } } },
	/* quad X: 1 front right, 2 rear left, 3 front left, 4 rear right */
	{ COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X, 4,
	  { { 45, CCW, 1 }, { -135, CCW, 3 }, { -45, CW, 4 }, { 135, CW, 2 } } },
	/* hexa +: 1 front, 2 back, 3 rear left, 4 front right, 5 front left, 6 rear right */
	{ COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_PLUS, 6,
	  { { 0, CW, 1 }, { 180, CCW, 4 }, { -120, CW, 5 }, { 60, CCW, 2 }, { -60, CCW, 6 },
	    { 120, CW, 3 } } },
	/* hexa X: 1 right, 2 left, 3 front left, 4 rear right, 5 front right, 6 rear left */
	{ COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_X, 6,
	  { { 90, CW, 2 }, { -90, CCW, 5 }, { -30, CW, 6 }, { 150, CCW, 3 }, { 30, CCW, 1 },
	    { -150, CW, 4 } } },
};

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* cosf(90 deg) is -4e-8 in float; a factor that small is a zero. */
static float snap(float v)
{
	return fabsf(v) < 1e-6f ? 0.0f : v;
}

/* Scales each factor column so its largest magnitude is 0.5, as ArduCopter
 * does, so every axis has the same authority whatever the frame. */
static void normalise(struct copter_frame *f)
{
	float r = 0.0f, p = 0.0f, y = 0.0f;
	for (int i = 0; i < f->count; i++) {
		r = fmaxf(r, fabsf(f->motor[i].roll));
		p = fmaxf(p, fabsf(f->motor[i].pitch));
		y = fmaxf(y, fabsf(f->motor[i].yaw));
	}
	for (int i = 0; i < f->count; i++) {
		f->motor[i].roll *= r > 0.0f ? 0.5f / r : 1.0f;
		f->motor[i].pitch *= p > 0.0f ? 0.5f / p : 1.0f;
		f->motor[i].yaw *= y > 0.0f ? 0.5f / y : 1.0f;
	}
}

int copter_frame_get(int frame_class, int frame_type, struct copter_frame *out)
{
	for (size_t r = 0; r < sizeof(frames) / sizeof(frames[0]); r++) {
		const struct frame_row *row = &frames[r];
		if (row->frame_class != frame_class || row->frame_type != frame_type)
			continue;
		struct copter_frame f;
		memset(&f, 0, sizeof(f));
		f.count = row->count;
		for (int i = 0; i < row->count; i++) {
			float a = row->motor[i].angle_deg * DEG2RAD;
			/* a motor right of the centreline (sin > 0) slows to roll right */
			f.motor[i].roll = snap(-sinf(a));
			f.motor[i].pitch = snap(cosf(a));
			f.motor[i].yaw = row->motor[i].spin;
			f.motor[i].test_order = row->motor[i].test_order;
		}
		normalise(&f);
		*out = f;
		return 0;
	}
	return -EINVAL;
}

void copter_motors_params_default(struct copter_motors_params *p)
{
	memset(p, 0, sizeof(*p));
	p->frame_class = COPTER_FRAME_CLASS_QUAD;
	p->frame_type = COPTER_FRAME_TYPE_X;
	p->mot_pwm_min = PWM_MIN_DEFAULT_US;
	p->mot_pwm_max = PWM_MAX_DEFAULT_US;
	p->mot_safe_disarm = 0.0f;
	p->mot_spin_arm = 0.10f;
	p->mot_spin_min = 0.15f;
	p->mot_spin_max = 0.95f;
	p->mot_thst_expo = 0.65f;
	p->mot_thst_hover = 0.35f;
	p->mot_bat_volt_max = 0.0f;
	p->mot_bat_volt_min = 0.0f;
	p->mot_yaw_headroom = 200.0f;
	p->mot_spool_time = 0.5f;
}

/* A whole number small enough to convert, or -1 (no such frame). */
static int param_int(float v)
{
	if (!(fabsf(v) < 1000.0f) || v != floorf(v))
		return -1;
	return (int)v;
}

static bool spin_params_ok(const struct copter_motors_params *p)
{
	/* every comparison is false for NaN, so NaN fails here */
	return p->mot_spin_arm >= 0.0f && p->mot_spin_arm <= p->mot_spin_min &&
	       p->mot_spin_min < p->mot_spin_max && p->mot_spin_max <= 1.0f &&
	       p->mot_thst_expo >= -1.0f && p->mot_thst_expo <= 1.0f;
}

int copter_motors_init(struct copter_motors *m, const struct copter_motors_params *p)
{
	struct copter_frame f;
	if (!spin_params_ok(p))
		return -EINVAL;
	int rc = copter_frame_get(param_int(p->frame_class), param_int(p->frame_type), &f);
	if (rc)
		return rc;
	memset(m, 0, sizeof(*m));
	m->frame = f;
	m->spool = COPTER_SPOOL_SHUT_DOWN;
	m->volt_ratio = 1.0f;
	m->lift_max = 1.0f;
	return 0;
}

static float expo_of(const struct copter_motors_params *p)
{
	return isfinite(p->mot_thst_expo) ? clampf(p->mot_thst_expo, -1.0f, 1.0f) : 0.0f;
}

/*
 * Solves (1 - e) y + e y^2 = L for y >= 0 in the form that stays exact as e
 * goes to 0 (no division by e): y = 2 L / ((1 - e) + sqrt((1 - e)^2 + 4 e L)).
 */
static float expo_inverse(float e, float lift)
{
	if (!(lift > 0.0f))
		return 0.0f;
	float root = sqrtf(fmaxf((1.0f - e) * (1.0f - e) + 4.0f * e * lift, 0.0f));
	return 2.0f * lift / ((1.0f - e) + root);
}

float copter_motors_thrust_to_actuator(const struct copter_motors *m,
				       const struct copter_motors_params *p, float thrust)
{
	thrust = isfinite(thrust) ? clampf(thrust, 0.0f, 1.0f) : 0.0f;
	float v = m->volt_ratio > 0.0f ? m->volt_ratio : 1.0f;
	/* the share of full-voltage thrust wanted, then the throttle that gives
	 * it at full voltage, then stretched by the voltage lost */
	float y = expo_inverse(expo_of(p), m->lift_max * thrust);
	float x = clampf(y / v, 0.0f, 1.0f);
	return p->mot_spin_min + (p->mot_spin_max - p->mot_spin_min) * x;
}

float copter_motors_actuator_to_thrust(const struct copter_motors *m,
				       const struct copter_motors_params *p, float actuator)
{
	float span = p->mot_spin_max - p->mot_spin_min;
	if (!(span > 0.0f) || !isfinite(actuator) || !(m->lift_max > 0.0f))
		return 0.0f;
	float v = m->volt_ratio > 0.0f ? m->volt_ratio : 1.0f;
	float e = expo_of(p);
	float y = clampf((actuator - p->mot_spin_min) / span, 0.0f, 1.0f) * v;
	return clampf(((1.0f - e) * y + e * y * y) / m->lift_max, 0.0f, 1.0f);
}

static void pwm_range(const struct copter_motors_params *p, float *lo, float *hi)
{
	if (p->mot_pwm_min > 0.0f && p->mot_pwm_max > p->mot_pwm_min && p->mot_pwm_max <= 65535.0f) {
		*lo = p->mot_pwm_min;
		*hi = p->mot_pwm_max;
	} else {
		*lo = PWM_MIN_DEFAULT_US;
		*hi = PWM_MAX_DEFAULT_US;
	}
}

uint16_t copter_motors_pwm(const struct copter_motors_params *p, float actuator)
{
	float lo, hi;
	pwm_range(p, &lo, &hi);
	float a = actuator >= 0.0f ? fminf(actuator, 1.0f) : 0.0f;  /* NaN -> 0 */
	return (uint16_t)lrintf(lo + (hi - lo) * a);
}

int copter_motor_of_servo_function(int servo_function)
{
	if (servo_function >= COPTER_SERVO_FUNC_MOTOR1 &&
	    servo_function < COPTER_SERVO_FUNC_MOTOR1 + COPTER_MOTORS_MAX)
		return servo_function - COPTER_SERVO_FUNC_MOTOR1;
	return -ENOENT;
}

/* A demand that is not a number becomes `fallback`, and is counted. */
static float finite_or(struct copter_motors *m, float v, float fallback)
{
	if (isfinite(v))
		return v;
	m->nonfinite_inputs++;
	return fallback;
}

/*
 * ArduCopter's voltage compensation: the voltage (clamped to MIN..MAX, MIN
 * at least 0.6 MAX) over MAX, low-passed at 0.5 Hz from 1, gives lift_max.
 * Off (ratio 1) when MAX is not set, MIN >= MAX, or the reading is below a
 * quarter of MIN: a monitor reading near 0 V is a missing monitor, not an
 * empty battery.
 */
static void update_voltage(struct copter_motors *m, const struct copter_motors_params *p,
			   float batt_v, float dt_s)
{
	float vmax = p->mot_bat_volt_max, vmin = p->mot_bat_volt_min;
	if (!isfinite(batt_v)) {
		m->nonfinite_inputs++;
	} else if (!(vmax > 0.0f) || !isfinite(vmax) || vmin >= vmax || batt_v < 0.25f * vmin) {
		m->volt_ratio = 1.0f;
	} else {
		vmin = fmaxf(vmin, 0.6f * vmax);
		float ratio = clampf(batt_v, vmin, vmax) / vmax;
		float alpha = dt_s / (dt_s + 1.0f / (TWO_PI * BATT_FILT_HZ));
		m->volt_ratio += (ratio - m->volt_ratio) * alpha;
	}
	float e = expo_of(p), v = m->volt_ratio;
	m->lift_max = (1.0f - e) * v + e * v * v;
}

static void set_all_limits(struct copter_motors_limit *l, bool on)
{
	l->roll_pitch = l->yaw = l->throttle_lower = l->throttle_upper = on;
}

/* The spool state machine of ArduCopter's AP_MotorsMulticopter::output_logic,
 * stepped by time instead of by loop count. */
static void update_spool(struct copter_motors *m, const struct copter_motors_params *p,
			 enum copter_spool_desired want, float throttle, float dt_s)
{
	float spool_time = p->mot_spool_time >= SPOOL_TIME_MIN_S ? p->mot_spool_time
								 : SPOOL_TIME_MIN_S;
	float step = dt_s / spool_time;

	switch (m->spool) {
	case COPTER_SPOOL_SHUT_DOWN:
		m->spin_up_ratio = 0.0f;
		m->thrust_ceiling = 0.0f;
		if (want != COPTER_SPOOL_WANT_SHUT_DOWN)
			m->spool = COPTER_SPOOL_GROUND_IDLE;
		break;
	case COPTER_SPOOL_GROUND_IDLE:
		m->thrust_ceiling = 0.0f;
		if (want == COPTER_SPOOL_WANT_SHUT_DOWN) {
			m->spin_up_ratio -= step;
			if (m->spin_up_ratio <= 0.0f) {
				m->spin_up_ratio = 0.0f;
				m->spool = COPTER_SPOOL_SHUT_DOWN;
			}
		} else if (want == COPTER_SPOOL_WANT_THROTTLE_UNLIMITED) {
			m->spin_up_ratio += step;
			if (m->spin_up_ratio >= 1.0f) {
				m->spin_up_ratio = 1.0f;
				m->spool = COPTER_SPOOL_SPOOLING_UP;
			}
		} else {
			float target = p->mot_spin_min > 0.0f ? p->mot_spin_arm / p->mot_spin_min : 0.0f;
			if (!isfinite(target))
				target = 0.0f;
			m->spin_up_ratio += clampf(target - m->spin_up_ratio, -step, step);
		}
		break;
	case COPTER_SPOOL_SPOOLING_UP:
		if (want != COPTER_SPOOL_WANT_THROTTLE_UNLIMITED) {
			m->spool = COPTER_SPOOL_SPOOLING_DOWN;
			break;
		}
		m->spin_up_ratio = 1.0f;
		m->thrust_ceiling += step;
		/* done once the ceiling no longer holds the throttle back */
		if (m->thrust_ceiling >= fminf(throttle, 1.0f)) {
			m->thrust_ceiling = 1.0f;
			m->spool = COPTER_SPOOL_THROTTLE_UNLIMITED;
		}
		break;
	case COPTER_SPOOL_THROTTLE_UNLIMITED:
		if (want != COPTER_SPOOL_WANT_THROTTLE_UNLIMITED) {
			m->spool = COPTER_SPOOL_SPOOLING_DOWN;
			break;
		}
		m->spin_up_ratio = 1.0f;
		m->thrust_ceiling = 1.0f;
		break;
	case COPTER_SPOOL_SPOOLING_DOWN:
		if (want == COPTER_SPOOL_WANT_THROTTLE_UNLIMITED) {
			m->spool = COPTER_SPOOL_SPOOLING_UP;
			break;
		}
		m->spin_up_ratio = 1.0f;
		m->thrust_ceiling -= step;
		if (m->thrust_ceiling <= 0.0f) {
			m->thrust_ceiling = 0.0f;
			m->spool = COPTER_SPOOL_GROUND_IDLE;
		}
		break;
	}
}

struct demand {
	float roll, pitch, yaw, throttle, thr_mix;
};

/*
 * ArduCopter's AP_MotorsMatrix::output_armed_stabilizing, less the lost-motor
 * thrust boost. One deliberate difference: throttle_lower is also set when
 * the throttle had to be raised above the demand to fit roll and pitch
 * (ArduCopter leaves that as a to-do), so an altitude controller does not
 * wind up asking for less thrust it cannot get.
 */
static void mix(const struct copter_motors *m, const struct copter_motors_params *p,
		const struct demand *d, struct copter_motors_out *out)
{
	const struct copter_frame *f = &m->frame;
	struct copter_motors_limit *lim = &out->limit;
	float gain = m->lift_max > 0.0f ? 1.0f / m->lift_max : 1.0f;
	float roll = d->roll * gain, pitch = d->pitch * gain, yaw = d->yaw * gain;
	float thr = d->throttle * gain;
	float thr_max = m->thrust_ceiling * gain;
	float hover = isfinite(p->mot_thst_hover) ? clampf(p->mot_thst_hover, 0.0f, 1.0f) : 0.0f;
	/* how far attitude may lift the average thrust above a low demand
	 * (ArduCopter's AC_AttitudeControl::get_throttle_avg_max) */
	float avg_max = fmaxf(d->throttle, d->throttle * (1.0f - d->thr_mix) + hover * d->thr_mix) * gain;

	set_all_limits(lim, false);
	if (thr <= 0.0f) {
		thr = 0.0f;
		lim->throttle_lower = true;
	}
	if (thr >= thr_max) {
		thr = thr_max;
		lim->throttle_upper = true;
	}
	avg_max = clampf(avg_max, thr, thr_max);

	/* yaw gives way first: only what fits beside roll and pitch around the
	 * best throttle for control, but at least MOT_YAW_HEADROOM */
	float best = fminf(0.5f, avg_max);
	float rp[COPTER_MOTORS_MAX];
	float yaw_allowed = 1.0f;
	for (int i = 0; i < f->count; i++) {
		const struct copter_motor *mo = &f->motor[i];
		rp[i] = roll * mo->roll + pitch * mo->pitch;
		if (mo->yaw == 0.0f)
			continue;
		float room = yaw * mo->yaw > 0.0f ? 1.0f - (best + rp[i]) : best + rp[i];
		yaw_allowed = fminf(yaw_allowed, fmaxf(room, 0.0f) / fabsf(mo->yaw));
	}
	float headroom = p->mot_yaw_headroom > 0.0f ? p->mot_yaw_headroom * 0.001f : 0.0f;
	yaw_allowed = fmaxf(yaw_allowed, fminf(headroom, 1.0f));
	if (fabsf(yaw) > yaw_allowed) {
		yaw = clampf(yaw, -yaw_allowed, yaw_allowed);
		lim->yaw = true;
	}

	float rpy[COPTER_MOTORS_MAX];
	float lo = 1.0f, hi = -1.0f;
	for (int i = 0; i < f->count; i++) {
		rpy[i] = rp[i] + yaw * f->motor[i].yaw;
		lo = fminf(lo, rpy[i]);
		hi = fmaxf(hi, rpy[i]);
	}

	/* attitude scaled only when it cannot fit the range at all (a rounding
	 * hair over is not saturation: it would flag limits at random), or
	 * would need more average thrust than avg_max allows */
	float scale = 1.0f;
	if (hi - lo > 1.0f + RANGE_EPS)
		scale = 1.0f / (hi - lo);
	if (avg_max + lo < 0.0f)
		scale = fminf(scale, -avg_max / lo);
	hi *= scale;
	lo *= scale;

	/* then the throttle moves to fit: the lowest motor at 0 plus what of
	 * the demand still fits under 1 */
	best = -lo;
	float adj = thr - best;
	if (scale < 1.0f) {
		lim->roll_pitch = true;
		lim->yaw = true;
		if (adj > 0.0f)
			lim->throttle_upper = true;
		else if (adj < 0.0f)
			lim->throttle_lower = true;
		adj = 0.0f;
	} else if (adj < 0.0f) {
		adj = 0.0f;
		lim->throttle_lower = true;
	} else if (adj > 1.0f - (best + hi)) {
		adj = 1.0f - (best + hi);
		lim->throttle_upper = true;
	}

	for (int i = 0; i < f->count; i++)
		out->thrust[i] = clampf(best + adj + scale * rpy[i], 0.0f, 1.0f);
}

void copter_motors_update(struct copter_motors *m, const struct copter_motors_params *p,
			  const struct copter_motors_in *in, float dt_s, struct copter_motors_out *out)
{
	memset(out, 0, sizeof(*out));
	out->count = m->frame.count;

	if (!isfinite(dt_s)) {
		m->nonfinite_inputs++;
		dt_s = 0.0f;
	} else if (dt_s < 0.0f) {
		dt_s = 0.0f;
	}

	struct demand d = {
		.roll = clampf(finite_or(m, in->roll, 0.0f), -1.0f, 1.0f),
		.pitch = clampf(finite_or(m, in->pitch, 0.0f), -1.0f, 1.0f),
		.yaw = clampf(finite_or(m, in->yaw, 0.0f), -1.0f, 1.0f),
		.throttle = clampf(finite_or(m, in->throttle, m->throttle_last), 0.0f, 1.0f),
		.thr_mix = clampf(finite_or(m, in->thr_mix, 0.0f), 0.0f, 1.0f),
	};
	m->throttle_last = d.throttle;

	update_voltage(m, p, in->batt_v, dt_s);

	enum copter_spool_desired want = in->desired;
	if (want != COPTER_SPOOL_WANT_GROUND_IDLE && want != COPTER_SPOOL_WANT_THROTTLE_UNLIMITED)
		want = COPTER_SPOOL_WANT_SHUT_DOWN;
	if (!in->armed) {
		want = COPTER_SPOOL_WANT_SHUT_DOWN;
		m->spool = COPTER_SPOOL_SHUT_DOWN;
		/* a stale throttle must not be what a NaN falls back to next flight */
		m->throttle_last = 0.0f;
	}
	update_spool(m, p, want, d.throttle, dt_s);
	out->spool = m->spool;

	switch (m->spool) {
	case COPTER_SPOOL_SHUT_DOWN: {
		set_all_limits(&out->limit, true);
		uint16_t pwm = !in->armed && p->mot_safe_disarm > 0.5f ? 0 : copter_motors_pwm(p, 0.0f);
		for (int i = 0; i < out->count; i++) {
			out->actuator[i] = 0.0f;
			out->pwm_us[i] = pwm;
		}
		return;
	}
	case COPTER_SPOOL_GROUND_IDLE: {
		set_all_limits(&out->limit, true);
		float a = clampf(m->spin_up_ratio, 0.0f, 1.0f) * p->mot_spin_min;
		for (int i = 0; i < out->count; i++)
			out->actuator[i] = a;
		break;
	}
	case COPTER_SPOOL_SPOOLING_UP:
	case COPTER_SPOOL_THROTTLE_UNLIMITED:
	case COPTER_SPOOL_SPOOLING_DOWN:
		mix(m, p, &d, out);
		for (int i = 0; i < out->count; i++)
			out->actuator[i] = copter_motors_thrust_to_actuator(m, p, out->thrust[i]);
		break;
	}

	for (int i = 0; i < out->count; i++) {
		/* parameters changed to nonsense since init must not spin a motor */
		float a = out->actuator[i];
		out->actuator[i] = a >= 0.0f ? fminf(a, 1.0f) : 0.0f;
		out->pwm_us[i] = copter_motors_pwm(p, out->actuator[i]);
	}
}
