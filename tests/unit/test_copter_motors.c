// SPDX-License-Identifier: GPL-3.0-or-later
/* The multicopter motor mixer against ArduCopter's frames and rules: motor
 * numbering and spin per frame, the signs of roll, pitch and yaw, demands
 * recovered from the thrusts, the disarmed zero, spool ramp timing, the
 * thrust-curve inverse, voltage compensation, the saturation order (yaw,
 * then throttle, then attitude), pulses and non-finite inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "copter/motors.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

#define DT 0.0025f              /* 400 Hz */

enum axis { ROLL, PITCH, YAW };

static const int frames[][2] = {
	{ COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_PLUS },
	{ COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X },
	{ COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_PLUS },
	{ COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_X },
};
#define NFRAMES ((int)(sizeof(frames) / sizeof(frames[0])))

static void setup(struct copter_motors *m, struct copter_motors_params *p, int cls, int type)
{
	copter_motors_params_default(p);
	p->frame_class = (float)cls;
	p->frame_type = (float)type;
	assert_int_equal(copter_motors_init(m, p), 0);
}

static struct copter_motors_in demand(float roll, float pitch, float yaw, float throttle)
{
	struct copter_motors_in in = {
		.armed = true,
		.desired = COPTER_SPOOL_WANT_THROTTLE_UNLIMITED,
		.roll = roll, .pitch = pitch, .yaw = yaw, .throttle = throttle,
		.thr_mix = 0.5f,
		.batt_v = 16.8f,
	};
	return in;
}

/* Armed and spooled up to THROTTLE_UNLIMITED, then one step of `in`. */
static void fly(struct copter_motors *m, const struct copter_motors_params *p,
		const struct copter_motors_in *in, struct copter_motors_out *out)
{
	struct copter_motors_in up = demand(0.0f, 0.0f, 0.0f, 0.5f);
	up.batt_v = in->batt_v;
	for (int i = 0; i < 800 && m->spool != COPTER_SPOOL_THROTTLE_UNLIMITED; i++)
		copter_motors_update(m, p, &up, DT, out);
	assert_int_equal(m->spool, COPTER_SPOOL_THROTTLE_UNLIMITED);
	copter_motors_update(m, p, in, DT, out);
}

/* The demand on one axis the thrusts carry: their projection on the
 * factor column (the columns are orthogonal on these frames). */
static float recovered(const struct copter_frame *f, const float *thrust, enum axis ax)
{
	float num = 0.0f, den = 0.0f;
	for (int i = 0; i < f->count; i++) {
		float c = ax == ROLL ? f->motor[i].roll : ax == PITCH ? f->motor[i].pitch : f->motor[i].yaw;
		num += thrust[i] * c;
		den += c * c;
	}
	return num / den;
}

static float mean(const float *v, int n)
{
	float s = 0.0f;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s / (float)n;
}

/* side: +1 right, -1 left; fore: +1 front, -1 back; spin +1 CCW, -1 CW */
struct expect {
	int side, fore, spin, order;
};

static void check_frame(int cls, int type, const struct expect *e, int count)
{
	struct copter_frame f;
	assert_int_equal(copter_frame_get(cls, type, &f), 0);
	assert_int_equal(f.count, count);
	float sum_r = 0.0f, sum_p = 0.0f, sum_y = 0.0f, max_r = 0.0f, max_p = 0.0f;
	for (int i = 0; i < count; i++) {
		const struct copter_motor *mo = &f.motor[i];
		/* a right motor slows to roll right: its roll factor is negative */
		if (e[i].side == 0)
			assert_near(mo->roll, 0.0, 1e-6);
		else
			assert_true(e[i].side > 0 ? mo->roll < -0.1f : mo->roll > 0.1f);
		if (e[i].fore == 0)
			assert_near(mo->pitch, 0.0, 1e-6);
		else
			assert_true(e[i].fore > 0 ? mo->pitch > 0.1f : mo->pitch < -0.1f);
		assert_near(mo->yaw, 0.5f * (float)e[i].spin, 1e-6);
		assert_int_equal(mo->test_order, e[i].order);
		sum_r += mo->roll;
		sum_p += mo->pitch;
		sum_y += mo->yaw;
		max_r = fmaxf(max_r, fabsf(mo->roll));
		max_p = fmaxf(max_p, fabsf(mo->pitch));
	}
	assert_near(sum_r, 0.0, 1e-6);
	assert_near(sum_p, 0.0, 1e-6);
	assert_near(sum_y, 0.0, 1e-6);
	assert_near(max_r, 0.5, 1e-6);
	assert_near(max_p, 0.5, 1e-6);
}

static void test_copter_frames_number_and_spin_motors_as_ardupilot_does(void **state)
{
	(void)state;
	/* quad X: 1 front right CCW, 2 rear left CCW, 3 front left CW, 4 rear right CW */
	const struct expect quad_x[] = {
		{ 1, 1, 1, 1 }, { -1, -1, 1, 3 }, { -1, 1, -1, 4 }, { 1, -1, -1, 2 },
	};
	/* quad +: 1 right CCW, 2 left CCW, 3 front CW, 4 back CW */
	const struct expect quad_plus[] = {
		{ 1, 0, 1, 2 }, { -1, 0, 1, 4 }, { 0, 1, -1, 1 }, { 0, -1, -1, 3 },
	};
	/* hexa X: 1 right CW, 2 left CCW, 3 front left CW, 4 rear right CCW,
	 * 5 front right CCW, 6 rear left CW */
	const struct expect hexa_x[] = {
		{ 1, 0, -1, 2 }, { -1, 0, 1, 5 }, { -1, 1, -1, 6 },
		{ 1, -1, 1, 3 }, { 1, 1, 1, 1 }, { -1, -1, -1, 4 },
	};
	/* hexa +: 1 front CW, 2 back CCW, 3 rear left CW, 4 front right CCW,
	 * 5 front left CCW, 6 rear right CW */
	const struct expect hexa_plus[] = {
		{ 0, 1, -1, 1 }, { 0, -1, 1, 4 }, { -1, -1, -1, 5 },
		{ 1, 1, 1, 2 }, { -1, 1, 1, 6 }, { 1, -1, -1, 3 },
	};
	check_frame(COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X, quad_x, 4);
	check_frame(COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_PLUS, quad_plus, 4);
	check_frame(COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_X, hexa_x, 6);
	check_frame(COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_PLUS, hexa_plus, 6);

	/* quad X at 45 degrees: every factor is exactly +-0.5 */
	struct copter_frame f;
	assert_int_equal(copter_frame_get(1, 1, &f), 0);
	for (int i = 0; i < 4; i++) {
		assert_near(fabsf(f.motor[i].roll), 0.5, 1e-6);
		assert_near(fabsf(f.motor[i].pitch), 0.5, 1e-6);
	}
}

static void test_copter_unknown_frame_is_an_error_and_changes_nothing(void **state)
{
	(void)state;
	struct copter_frame f;
	memset(&f, 0x5a, sizeof(f));
	struct copter_frame before = f;
	assert_int_equal(copter_frame_get(3, 1, &f), -EINVAL);     /* octa: not here */
	assert_int_equal(copter_frame_get(1, 2, &f), -EINVAL);     /* V */
	assert_int_equal(copter_frame_get(0, 0, &f), -EINVAL);
	assert_int_equal(copter_frame_get(-1, 1, &f), -EINVAL);
	assert_memory_equal(&f, &before, sizeof(f));

	struct copter_motors_params p;
	struct copter_motors m;
	memset(&m, 0x5a, sizeof(m));
	struct copter_motors mbefore = m;
	const float bad_class[] = { 0.0f, 3.0f, 1.5f, NAN, INFINITY, -1.0f, 1e30f };
	for (size_t i = 0; i < sizeof(bad_class) / sizeof(bad_class[0]); i++) {
		copter_motors_params_default(&p);
		p.frame_class = bad_class[i];
		assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	}
	copter_motors_params_default(&p);
	p.frame_type = 4.0f;
	assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	copter_motors_params_default(&p);
	p.mot_spin_min = NAN;
	assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	copter_motors_params_default(&p);
	p.mot_spin_max = 0.1f;                 /* below SPIN_MIN */
	assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	copter_motors_params_default(&p);
	p.mot_spin_arm = 0.2f;                 /* above SPIN_MIN */
	assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	copter_motors_params_default(&p);
	p.mot_thst_expo = 1.5f;
	assert_int_equal(copter_motors_init(&m, &p), -EINVAL);
	assert_memory_equal(&m, &mbefore, sizeof(m));

	copter_motors_params_default(&p);
	assert_int_equal(copter_motors_init(&m, &p), 0);
	assert_int_equal(m.frame.count, 4);
	assert_int_equal(m.spool, COPTER_SPOOL_SHUT_DOWN);
}

static void test_copter_positive_roll_pitch_yaw_speed_up_left_front_and_ccw_motors(void **state)
{
	(void)state;
	for (int k = 0; k < NFRAMES; k++) {
		const enum axis axes[] = { ROLL, PITCH, YAW };
		for (int a = 0; a < 3; a++) {
			struct copter_motors m;
			struct copter_motors_params p;
			struct copter_motors_out out;
			setup(&m, &p, frames[k][0], frames[k][1]);
			struct copter_motors_in in = demand(axes[a] == ROLL ? 0.2f : 0.0f,
							    axes[a] == PITCH ? 0.2f : 0.0f,
							    axes[a] == YAW ? 0.2f : 0.0f, 0.5f);
			fly(&m, &p, &in, &out);
			float base = copter_motors_thrust_to_actuator(&m, &p, 0.5f);
			for (int i = 0; i < out.count; i++) {
				const struct copter_motor *mo = &m.frame.motor[i];
				float c = axes[a] == ROLL ? mo->roll : axes[a] == PITCH ? mo->pitch : mo->yaw;
				if (c > 1e-3f)
					assert_true(out.actuator[i] > base + 1e-3f);
				else if (c < -1e-3f)
					assert_true(out.actuator[i] < base - 1e-3f);
				else
					assert_near(out.actuator[i], base, 1e-5);
			}
		}
	}

	/* by motor number on the quad X */
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(0.2f, 0.0f, 0.0f, 0.5f);
	fly(&m, &p, &in, &out);
	assert_true(out.actuator[1] > out.actuator[0] && out.actuator[2] > out.actuator[3]);
	in = demand(0.0f, 0.2f, 0.0f, 0.5f);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_true(out.actuator[0] > out.actuator[1] && out.actuator[2] > out.actuator[3]);
	in = demand(0.0f, 0.0f, 0.2f, 0.5f);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_true(out.actuator[0] > out.actuator[2] && out.actuator[1] > out.actuator[3]);
}

static void test_copter_thrusts_reproduce_the_demands_without_saturation(void **state)
{
	(void)state;
	for (int k = 0; k < NFRAMES; k++) {
		struct copter_motors m;
		struct copter_motors_params p;
		struct copter_motors_out out;
		setup(&m, &p, frames[k][0], frames[k][1]);
		struct copter_motors_in in = demand(0.3f, -0.2f, 0.15f, 0.5f);
		fly(&m, &p, &in, &out);
		assert_near(recovered(&m.frame, out.thrust, ROLL), 0.3, 1e-5);
		assert_near(recovered(&m.frame, out.thrust, PITCH), -0.2, 1e-5);
		assert_near(recovered(&m.frame, out.thrust, YAW), 0.15, 1e-5);
		assert_near(mean(out.thrust, out.count), 0.5, 1e-5);
		assert_false(out.limit.roll_pitch || out.limit.yaw || out.limit.throttle_lower ||
			     out.limit.throttle_upper);
		/* each thrust is the throttle plus the factors times the demands */
		for (int i = 0; i < out.count; i++) {
			const struct copter_motor *mo = &m.frame.motor[i];
			assert_near(out.thrust[i],
				    0.5f + 0.3f * mo->roll - 0.2f * mo->pitch + 0.15f * mo->yaw, 1e-6);
		}
	}
}

static void test_copter_disarmed_outputs_are_exactly_zero(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(1.0f, -1.0f, 1.0f, 1.0f);
	in.armed = false;
	for (int i = 0; i < 400; i++) {
		copter_motors_update(&m, &p, &in, DT, &out);
		assert_int_equal(out.spool, COPTER_SPOOL_SHUT_DOWN);
		assert_int_equal(out.count, 6);
		for (int j = 0; j < 6; j++) {
			assert_true(out.actuator[j] == 0.0f);
			assert_true(out.thrust[j] == 0.0f);
			assert_int_equal(out.pwm_us[j], 1000);
		}
		assert_true(out.limit.roll_pitch && out.limit.yaw && out.limit.throttle_lower &&
			    out.limit.throttle_upper);
	}

	/* disarming in flight stops every motor in that same step */
	in = demand(0.1f, 0.1f, 0.1f, 0.6f);
	fly(&m, &p, &in, &out);
	assert_true(out.actuator[0] > 0.3f);
	in.armed = false;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_SHUT_DOWN);
	for (int j = 0; j < 6; j++) {
		assert_true(out.actuator[j] == 0.0f);
		assert_int_equal(out.pwm_us[j], 1000);
	}

	/* MOT_SAFE_DISARM: no pulse at all while disarmed; armed but shut
	 * down (desired SHUT_DOWN) still sends MOT_PWM_MIN */
	p.mot_safe_disarm = 1.0f;
	copter_motors_update(&m, &p, &in, DT, &out);
	for (int j = 0; j < 6; j++) {
		assert_true(out.actuator[j] == 0.0f);
		assert_int_equal(out.pwm_us[j], 0);
	}
	in.armed = true;
	in.desired = COPTER_SPOOL_WANT_SHUT_DOWN;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_SHUT_DOWN);
	assert_true(out.actuator[0] == 0.0f);
	assert_int_equal(out.pwm_us[0], 1000);
}

/* Steps until the state is `until` (or `max` steps); returns the steps taken. */
static int run_until(struct copter_motors *m, const struct copter_motors_params *p,
		     const struct copter_motors_in *in, enum copter_spool until, int max,
		     struct copter_motors_out *out)
{
	for (int i = 1; i <= max; i++) {
		copter_motors_update(m, p, in, DT, out);
		if (out->spool == until)
			return i;
	}
	return -1;
}

static void test_copter_spool_ramps_take_mot_spool_time(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(0.0f, 0.0f, 0.0f, 0.5f);

	/* armed, ground idle: 0 -> MOT_SPIN_ARM at MOT_SPIN_MIN per 0.5 s,
	 * i.e. 0.10 reached after 1/3 s */
	in.desired = COPTER_SPOOL_WANT_GROUND_IDLE;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_GROUND_IDLE);
	assert_true(out.actuator[0] == 0.0f);
	assert_int_equal(out.pwm_us[0], 1000);
	for (int i = 0; i < 80; i++)                   /* 0.2 s */
		copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(out.actuator[0], 0.2 * 0.15 / 0.5, 1e-4);
	assert_true(out.limit.roll_pitch && out.limit.throttle_lower);
	for (int i = 0; i < 56; i++)                   /* to 0.34 s */
		copter_motors_update(&m, &p, &in, DT, &out);
	for (int j = 0; j < 4; j++)
		assert_near(out.actuator[j], 0.10, 1e-6);
	assert_int_equal(out.pwm_us[0], 1100);
	for (int i = 0; i < 400; i++)
		copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_GROUND_IDLE);
	assert_near(out.actuator[0], 0.10, 1e-6);

	/* take off: idle 0.10 -> 0.15 in 1/6 s, then the throttle ceiling
	 * rises to the demanded 0.5 in 0.25 s */
	in.desired = COPTER_SPOOL_WANT_THROTTLE_UNLIMITED;
	int n = run_until(&m, &p, &in, COPTER_SPOOL_SPOOLING_UP, 1000, &out);
	assert_true(abs(n - 67) <= 1);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_SPOOLING_UP);
	assert_true(out.limit.throttle_upper);         /* held back by the ceiling */
	assert_near(mean(out.thrust, 4), m.thrust_ceiling, 1e-6);
	n = run_until(&m, &p, &in, COPTER_SPOOL_THROTTLE_UNLIMITED, 1000, &out);
	assert_true(abs(n - 99) <= 1);                 /* 100 steps of 0.005 in all */
	assert_near(mean(out.thrust, 4), 0.5, 1e-6);
	assert_false(out.limit.throttle_upper);

	/* land: the ceiling falls from 1 to 0 in 0.5 s, then ground idle at
	 * MOT_SPIN_MIN settling back to MOT_SPIN_ARM */
	in.desired = COPTER_SPOOL_WANT_GROUND_IDLE;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_SPOOLING_DOWN);
	n = run_until(&m, &p, &in, COPTER_SPOOL_GROUND_IDLE, 1000, &out);
	assert_true(abs(n - 200) <= 1);
	assert_near(out.actuator[0], 0.15, 1e-6);

	/* shut down from idle: 0.15 -> 0 in 0.5 s */
	in.desired = COPTER_SPOOL_WANT_SHUT_DOWN;
	n = run_until(&m, &p, &in, COPTER_SPOOL_SHUT_DOWN, 1000, &out);
	assert_true(abs(n - 200) <= 1);
	assert_true(out.actuator[0] == 0.0f);

	/* MOT_SPOOL_TIME 1 s doubles the idle ramp */
	p.mot_spool_time = 1.0f;
	in.desired = COPTER_SPOOL_WANT_GROUND_IDLE;
	copter_motors_update(&m, &p, &in, DT, &out);
	for (int i = 0; i < 80; i++)
		copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(out.actuator[0], 0.2 * 0.15 / 1.0, 1e-4);
}

static void test_copter_thrust_curve_inverse_round_trips(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);

	/* the default curve at the default hover thrust:
	 * 0.35 x + 0.65 x^2 = 0.35 -> x = 0.51240, actuator 0.15 + 0.8 x */
	assert_near(copter_motors_thrust_to_actuator(&m, &p, 0.35f), 0.15 + 0.8 * 0.512398, 1e-5);
	assert_near(copter_motors_thrust_to_actuator(&m, &p, 0.0f), 0.15, 1e-7);
	assert_near(copter_motors_thrust_to_actuator(&m, &p, 1.0f), 0.95, 1e-6);

	const float expos[] = { 0.65f, 0.0f, 1.0f, 0.3f, -0.5f, 1e-5f };
	for (size_t k = 0; k < sizeof(expos) / sizeof(expos[0]); k++) {
		float e = expos[k];
		p.mot_thst_expo = e;
		float last = -1.0f;
		for (int i = 0; i <= 100; i++) {
			float t = (float)i * 0.01f;
			float a = copter_motors_thrust_to_actuator(&m, &p, t);
			assert_true(a >= p.mot_spin_min - 1e-7f && a <= p.mot_spin_max + 1e-6f);
			assert_true(a > last);
			last = a;
			/* the thrust model the actuator was solved from */
			float x = (a - p.mot_spin_min) / (p.mot_spin_max - p.mot_spin_min);
			assert_near((1.0f - e) * x + e * x * x, t, 2e-6);
			assert_near(copter_motors_actuator_to_thrust(&m, &p, a), t, 2e-6);
		}
	}
	/* out of range: clamped, never extrapolated */
	p.mot_thst_expo = 0.65f;
	assert_near(copter_motors_thrust_to_actuator(&m, &p, 1.5f), 0.95, 1e-6);
	assert_near(copter_motors_thrust_to_actuator(&m, &p, -0.5f), 0.15, 1e-7);
	assert_near(copter_motors_thrust_to_actuator(&m, &p, NAN), 0.15, 1e-7);
	assert_near(copter_motors_actuator_to_thrust(&m, &p, 0.05f), 0.0, 1e-7);
	assert_near(copter_motors_actuator_to_thrust(&m, &p, 1.0f), 1.0, 1e-7);
}

/* The physical thrust (share of the full-voltage maximum) an actuator gives
 * at a voltage ratio v under the model the mixer assumes. */
static float physical_thrust(const struct copter_motors_params *p, float a, float v)
{
	float e = p->mot_thst_expo;
	float x = (a - p->mot_spin_min) / (p->mot_spin_max - p->mot_spin_min) * v;
	return (1.0f - e) * x + e * x * x;
}

static float settled_actuator(float volt_max, float volt_min, float batt_v, float *volt_ratio)
{
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	p.mot_bat_volt_max = volt_max;
	p.mot_bat_volt_min = volt_min;
	struct copter_motors_in in = demand(0.0f, 0.0f, 0.0f, 0.4f);
	in.batt_v = batt_v;
	fly(&m, &p, &in, &out);
	for (int i = 0; i < 4000; i++)                 /* 10 s: the 0.5 Hz filter settles */
		copter_motors_update(&m, &p, &in, DT, &out);
	if (volt_ratio)
		*volt_ratio = m.volt_ratio;
	return out.actuator[0];
}

static void test_copter_low_battery_gets_more_actuator_for_the_same_thrust(void **state)
{
	(void)state;
	struct copter_motors_params p;
	copter_motors_params_default(&p);
	float v;
	float full = settled_actuator(16.8f, 13.2f, 16.8f, &v);
	assert_near(v, 1.0, 1e-5);
	float off = settled_actuator(0.0f, 0.0f, 14.0f, &v);      /* disabled */
	assert_near(v, 1.0, 1e-7);
	assert_near(off, full, 1e-5);

	float low = settled_actuator(16.8f, 13.2f, 14.0f, &v);
	assert_near(v, 14.0 / 16.8, 1e-4);
	assert_true(low > full + 0.02f);
	/* the stretched actuator on the weaker battery still makes the thrust asked */
	assert_near(physical_thrust(&p, low, v), 0.4, 1e-4);
	assert_near(physical_thrust(&p, full, 1.0f), 0.4, 1e-4);

	/* outside MIN..MAX the voltage is clamped */
	assert_near(settled_actuator(16.8f, 13.2f, 12.0f, NULL),
		    settled_actuator(16.8f, 13.2f, 13.2f, NULL), 1e-5);
	assert_near(settled_actuator(16.8f, 13.2f, 18.0f, NULL), full, 1e-5);
	/* MIN is at least 0.6 MAX */
	assert_near(settled_actuator(16.8f, 5.0f, 8.0f, NULL),
		    settled_actuator(16.8f, 10.08f, 10.08f, NULL), 1e-5);
	/* a reading under a quarter of MIN is no monitor: no compensation */
	assert_near(settled_actuator(16.8f, 13.2f, 2.0f, &v), full, 1e-5);
	assert_near(v, 1.0, 1e-7);

	/* filtered at 0.5 Hz: one 2.5 ms step moves 0.78 % of the way */
	struct copter_motors m;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	p.mot_bat_volt_max = 16.8f;
	p.mot_bat_volt_min = 13.2f;
	struct copter_motors_in in = demand(0.0f, 0.0f, 0.0f, 0.4f);
	in.armed = false;
	in.batt_v = 14.0f;
	copter_motors_update(&m, &p, &in, DT, &out);
	float alpha = DT / (DT + 1.0f / (2.0f * (float)M_PI * 0.5f));
	assert_near(m.volt_ratio, 1.0f + (14.0f / 16.8f - 1.0f) * alpha, 1e-6);
	float e = p.mot_thst_expo, r = m.volt_ratio;
	assert_near(m.lift_max, (1.0f - e) * r + e * r * r, 1e-6);
}

static void test_copter_yaw_gives_way_before_roll(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	/* roll 0.75 at throttle 0.5 leaves 0.125 of range on the busiest
	 * motors: room for yaw 0.25 of the 1.0 asked */
	struct copter_motors_in in = demand(0.75f, 0.0f, 1.0f, 0.5f);
	fly(&m, &p, &in, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.75, 1e-5);
	assert_near(recovered(&m.frame, out.thrust, YAW), 0.25, 1e-5);
	assert_near(mean(out.thrust, 4), 0.5, 1e-5);
	assert_true(out.limit.yaw);
	assert_false(out.limit.roll_pitch);
	assert_false(out.limit.throttle_upper || out.limit.throttle_lower);

	/* the other way round */
	in = demand(-0.7f, 0.0f, -1.0f, 0.5f);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), -0.7, 1e-5);
	assert_near(recovered(&m.frame, out.thrust, YAW), -0.3, 1e-5);
	assert_true(out.limit.yaw);
	assert_false(out.limit.roll_pitch);

	/* the hexa likewise keeps all of its roll and pitch */
	setup(&m, &p, COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_X);
	in = demand(0.5f, 0.5f, 1.0f, 0.5f);
	fly(&m, &p, &in, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.5, 1e-5);
	assert_near(recovered(&m.frame, out.thrust, PITCH), 0.5, 1e-5);
	assert_true(recovered(&m.frame, out.thrust, YAW) < 0.9f);
	assert_true(out.limit.yaw);
	assert_false(out.limit.roll_pitch);
}

static void test_copter_yaw_headroom_is_kept_at_the_cost_of_attitude(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	/* roll 0.9 leaves room for yaw 0.1, but MOT_YAW_HEADROOM 200 keeps
	 * 0.2: the 1.1 wide result is scaled by 1/1.1 */
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(0.9f, 0.0f, 1.0f, 0.5f);
	fly(&m, &p, &in, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.9 / 1.1, 1e-5);
	assert_near(recovered(&m.frame, out.thrust, YAW), 0.2 / 1.1, 1e-5);
	assert_true(out.limit.yaw && out.limit.roll_pitch);
	float lo = 1.0f, hi = 0.0f;
	for (int i = 0; i < 4; i++) {
		lo = fminf(lo, out.thrust[i]);
		hi = fmaxf(hi, out.thrust[i]);
	}
	assert_near(lo, 0.0, 1e-6);
	assert_near(hi, 1.0, 1e-6);

	/* without headroom yaw gives way entirely and roll is whole */
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	p.mot_yaw_headroom = 0.0f;
	fly(&m, &p, &in, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.9, 1e-5);
	assert_near(recovered(&m.frame, out.thrust, YAW), 0.1, 1e-5);
	assert_true(out.limit.yaw);
	assert_false(out.limit.roll_pitch);
}

static void test_copter_attitude_wins_over_full_throttle(void **state)
{
	(void)state;
	for (int k = 0; k < NFRAMES; k++) {
		struct copter_motors m;
		struct copter_motors_params p;
		struct copter_motors_out out;
		setup(&m, &p, frames[k][0], frames[k][1]);
		struct copter_motors_in in = demand(0.5f, -0.3f, 0.0f, 1.0f);
		fly(&m, &p, &in, &out);
		assert_near(recovered(&m.frame, out.thrust, ROLL), 0.5, 1e-5);
		assert_near(recovered(&m.frame, out.thrust, PITCH), -0.3, 1e-5);
		float hi = 0.0f;
		for (int i = 0; i < out.count; i++)
			hi = fmaxf(hi, out.thrust[i]);
		assert_near(hi, 1.0, 1e-6);                 /* the busiest motor at full */
		assert_true(mean(out.thrust, out.count) < 0.9f);   /* the climb given up */
		assert_true(out.limit.throttle_upper);
		assert_false(out.limit.roll_pitch || out.limit.throttle_lower);
	}
	/* quad X: roll 0.5 at full throttle -> left motors 1.0, right 0.5 */
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(0.5f, 0.0f, 0.0f, 1.0f);
	fly(&m, &p, &in, &out);
	assert_near(out.thrust[0], 0.5, 1e-6);
	assert_near(out.thrust[1], 1.0, 1e-6);
	assert_near(out.thrust[2], 1.0, 1e-6);
	assert_near(out.thrust[3], 0.5, 1e-6);
}

static void test_copter_attitude_wins_over_zero_throttle(void **state)
{
	(void)state;
	struct copter_motors m;
	struct copter_motors_params p;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	/* throttle 0 with the flying mix 0.5: attitude may lift the average
	 * thrust up to 0.5 x MOT_THST_HOVER = 0.175; roll 0.3 needs 0.15 */
	struct copter_motors_in in = demand(0.3f, 0.0f, 0.0f, 0.0f);
	fly(&m, &p, &in, &out);
	assert_near(out.thrust[0], 0.0, 1e-6);
	assert_near(out.thrust[1], 0.3, 1e-6);
	assert_near(out.thrust[2], 0.3, 1e-6);
	assert_near(out.thrust[3], 0.0, 1e-6);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.3, 1e-5);
	assert_true(out.limit.throttle_lower);
	assert_false(out.limit.roll_pitch);
	assert_near(out.actuator[0], p.mot_spin_min, 1e-6);   /* never below spin-min in flight */

	/* a roll wider than the mix allows is scaled, not climbed for */
	in = demand(0.6f, 0.0f, 0.0f, 0.0f);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.35, 1e-5);
	assert_near(mean(out.thrust, 4), 0.175, 1e-5);
	assert_true(out.limit.roll_pitch && out.limit.throttle_lower);

	/* throttle low but not zero: raised just enough, roll whole */
	in = demand(0.4f, 0.0f, 0.0f, 0.1f);
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(recovered(&m.frame, out.thrust, ROLL), 0.4, 1e-5);
	assert_near(mean(out.thrust, 4), 0.2, 1e-5);
	assert_true(out.limit.throttle_lower);
	assert_false(out.limit.roll_pitch);
}

static void test_copter_pwm_follows_mot_pwm_min_max(void **state)
{
	(void)state;
	struct copter_motors_params p;
	copter_motors_params_default(&p);
	assert_int_equal(copter_motors_pwm(&p, 0.0f), 1000);
	assert_int_equal(copter_motors_pwm(&p, 0.5f), 1500);
	assert_int_equal(copter_motors_pwm(&p, 1.0f), 2000);
	assert_int_equal(copter_motors_pwm(&p, 0.1234f), 1123);
	assert_int_equal(copter_motors_pwm(&p, 1.5f), 2000);
	assert_int_equal(copter_motors_pwm(&p, -0.5f), 1000);
	assert_int_equal(copter_motors_pwm(&p, NAN), 1000);
	p.mot_pwm_min = 1100.0f;
	p.mot_pwm_max = 1900.0f;
	assert_int_equal(copter_motors_pwm(&p, 0.0f), 1100);
	assert_int_equal(copter_motors_pwm(&p, 0.5f), 1500);
	assert_int_equal(copter_motors_pwm(&p, 1.0f), 1900);
	/* unset or unusable: ArduCopter's 1000..2000 */
	p.mot_pwm_min = 0.0f;
	p.mot_pwm_max = 0.0f;
	assert_int_equal(copter_motors_pwm(&p, 1.0f), 2000);
	p.mot_pwm_min = 1500.0f;
	p.mot_pwm_max = 1200.0f;
	assert_int_equal(copter_motors_pwm(&p, 0.0f), 1000);
	p.mot_pwm_min = NAN;
	p.mot_pwm_max = 1900.0f;
	assert_int_equal(copter_motors_pwm(&p, 1.0f), 2000);

	/* in flight every pulse is its actuator on that range */
	struct copter_motors m;
	struct copter_motors_out out;
	setup(&m, &p, COPTER_FRAME_CLASS_HEXA, COPTER_FRAME_TYPE_PLUS);
	p.mot_pwm_min = 1100.0f;
	p.mot_pwm_max = 1940.0f;
	struct copter_motors_in in = demand(0.2f, 0.1f, -0.1f, 0.45f);
	fly(&m, &p, &in, &out);
	for (int i = 0; i < 6; i++)
		assert_int_equal(out.pwm_us[i], (int)lrintf(1100.0f + 840.0f * out.actuator[i]));

	/* SERVOn_FUNCTION 33..38 are motors 1..6 */
	assert_int_equal(copter_motor_of_servo_function(33), 0);
	assert_int_equal(copter_motor_of_servo_function(36), 3);
	assert_int_equal(copter_motor_of_servo_function(38), 5);
	assert_int_equal(copter_motor_of_servo_function(32), -ENOENT);
	assert_int_equal(copter_motor_of_servo_function(39), -ENOENT);   /* motor 7: no frame here */
	assert_int_equal(copter_motor_of_servo_function(0), -ENOENT);
	assert_int_equal(copter_motor_of_servo_function(70), -ENOENT);  /* the plane's throttle */
}

static void assert_outputs_sane(const struct copter_motors_out *out)
{
	for (int i = 0; i < out->count; i++) {
		assert_true(isfinite(out->actuator[i]) && isfinite(out->thrust[i]));
		assert_true(out->actuator[i] >= 0.0f && out->actuator[i] <= 1.0f);
	}
}

static void test_copter_nonfinite_inputs_never_reach_a_motor(void **state)
{
	(void)state;
	struct copter_motors m, ref;
	struct copter_motors_params p;
	struct copter_motors_out out, want;
	setup(&m, &p, COPTER_FRAME_CLASS_QUAD, COPTER_FRAME_TYPE_X);
	struct copter_motors_in in = demand(0.0f, 0.0f, 0.0f, 0.5f);
	fly(&m, &p, &in, &out);
	ref = m;
	uint32_t n0 = m.nonfinite_inputs;

	/* attitude and mix: no demand */
	in = demand(NAN, INFINITY, -INFINITY, 0.5f);
	in.thr_mix = NAN;
	copter_motors_update(&m, &p, &in, DT, &out);
	struct copter_motors_in zero = demand(0.0f, 0.0f, 0.0f, 0.5f);
	zero.thr_mix = 0.0f;
	copter_motors_update(&ref, &p, &zero, DT, &want);
	assert_memory_equal(out.actuator, want.actuator, sizeof(out.actuator));
	assert_int_equal(m.nonfinite_inputs, n0 + 4);
	assert_outputs_sane(&out);

	/* throttle: the last finite one, so a glitch is no fall */
	in = demand(0.1f, 0.0f, 0.0f, 0.62f);
	copter_motors_update(&m, &p, &in, DT, &out);
	in.throttle = NAN;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(mean(out.thrust, 4), 0.62, 1e-6);
	in.throttle = -INFINITY;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_near(mean(out.thrust, 4), 0.62, 1e-6);
	assert_int_equal(m.nonfinite_inputs, n0 + 6);
	assert_outputs_sane(&out);

	/* battery voltage and dt: the filter and the ramps hold */
	p.mot_bat_volt_max = 16.8f;
	p.mot_bat_volt_min = 13.2f;
	in = demand(0.0f, 0.0f, 0.0f, 0.5f);
	in.batt_v = 15.0f;
	for (int i = 0; i < 100; i++)
		copter_motors_update(&m, &p, &in, DT, &out);
	float ratio = m.volt_ratio;
	assert_true(ratio < 1.0f);
	in.batt_v = NAN;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_true(m.volt_ratio == ratio);
	in.batt_v = 15.0f;
	in.desired = COPTER_SPOOL_WANT_GROUND_IDLE;
	copter_motors_update(&m, &p, &in, NAN, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_SPOOLING_DOWN);
	copter_motors_update(&m, &p, &in, INFINITY, &out);
	assert_true(m.thrust_ceiling == 1.0f);         /* no time passed */
	assert_int_equal(m.nonfinite_inputs, n0 + 9);
	assert_outputs_sane(&out);

	/* disarmed, everything NaN: still exactly zero */
	in = demand(NAN, NAN, NAN, NAN);
	in.thr_mix = NAN;
	in.batt_v = NAN;
	in.armed = false;
	copter_motors_update(&m, &p, &in, NAN, &out);
	for (int i = 0; i < 4; i++)
		assert_true(out.actuator[i] == 0.0f);
	/* and re-armed, a NaN throttle is 0, not the last flight's */
	in.armed = true;
	in.desired = COPTER_SPOOL_WANT_THROTTLE_UNLIMITED;
	in.roll = in.pitch = in.yaw = 0.0f;
	for (int i = 0; i < 400; i++)
		copter_motors_update(&m, &p, &in, DT, &out);
	assert_int_equal(out.spool, COPTER_SPOOL_THROTTLE_UNLIMITED);
	assert_near(mean(out.thrust, 4), 0.0, 1e-6);

	/* parameters gone bad after init do not reach a motor either */
	in = demand(0.2f, 0.0f, 0.0f, 0.5f);
	p.mot_spin_min = NAN;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_outputs_sane(&out);
	p.mot_spin_min = 0.15f;
	p.mot_spin_max = INFINITY;
	copter_motors_update(&m, &p, &in, DT, &out);
	assert_outputs_sane(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copter_frames_number_and_spin_motors_as_ardupilot_does),
		cmocka_unit_test(test_copter_unknown_frame_is_an_error_and_changes_nothing),
		cmocka_unit_test(test_copter_positive_roll_pitch_yaw_speed_up_left_front_and_ccw_motors),
		cmocka_unit_test(test_copter_thrusts_reproduce_the_demands_without_saturation),
		cmocka_unit_test(test_copter_disarmed_outputs_are_exactly_zero),
		cmocka_unit_test(test_copter_spool_ramps_take_mot_spool_time),
		cmocka_unit_test(test_copter_thrust_curve_inverse_round_trips),
		cmocka_unit_test(test_copter_low_battery_gets_more_actuator_for_the_same_thrust),
		cmocka_unit_test(test_copter_yaw_gives_way_before_roll),
		cmocka_unit_test(test_copter_yaw_headroom_is_kept_at_the_cost_of_attitude),
		cmocka_unit_test(test_copter_attitude_wins_over_full_throttle),
		cmocka_unit_test(test_copter_attitude_wins_over_zero_throttle),
		cmocka_unit_test(test_copter_pwm_follows_mot_pwm_min_max),
		cmocka_unit_test(test_copter_nonfinite_inputs_never_reach_a_motor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
