// SPDX-License-Identifier: GPL-3.0-or-later
/* POSHOLD's axes (copter/poshold.h): the brake's curve and rate, a point
 * mass braked from 5 m/s to a stop and handed to the loiter controller, a
 * stick taking one axis back while the other brakes, the wind's lean learnt
 * while holding and flown under the sticks, non-finite inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "copter/poshold.h"

#define DT 0.0025f              /* 400 Hz */
#define G 9.80665
#define CD_TO_RAD (3.14159265358979 / 18000.0)

static const struct copter_poshold_params params = { 8.0f, 3000.0f };

static struct copter_poshold_in input(float vn, float ve)
{
	struct copter_poshold_in in;
	memset(&in, 0, sizeof(in));
	in.vel_ne_m_s[0] = vn;
	in.vel_ne_m_s[1] = ve;
	in.angle_max_cd = 3000.0f;
	in.dt_s = DT;
	return in;
}

/* The stick centred at 5 m/s north, facing north: the pitch axis brakes nose
 * up at PHLD_BRAKE_RATE; at a steady 5 m/s the lean stops at the curve's. */
static void test_poshold_brake_grows_at_its_rate_to_its_curve(void **state)
{
	(void)state;
	struct copter_poshold ph;
	copter_poshold_init(&ph);
	struct copter_poshold_in in = input(5.0f, 0.0f);
	float ctl[2] = { 0, 0 }, lean[2];
	copter_poshold_update(&ph, &params, &in);
	assert_int_equal(ph.axis[1], COPTER_POSHOLD_BRAKE);
	assert_int_equal(ph.axis[0], COPTER_POSHOLD_BRAKE);
	for (int i = 0; i < 400; i++)    /* one second */
		copter_poshold_update(&ph, &params, &in);
	copter_poshold_angles(&ph, ctl, lean);
	assert_true(fabsf(lean[1] - 800.0f) < 5.0f);   /* 8 deg/s for 1 s, nose up */
	assert_true(fabsf(lean[0]) < 1.0f);
	for (int i = 0; i < 400 * 3; i++)
		copter_poshold_update(&ph, &params, &in);
	copter_poshold_angles(&ph, ctl, lean);
	/* (15 * 8 + 95) / 100 * 500 * (1 + 500 / 560): 2035 cd */
	assert_true(fabsf(lean[1] - 2034.8f) < 1.0f);
	assert_int_equal(ph.axis[1], COPTER_POSHOLD_BRAKE);
	/* 6 s braking without stopping: handed over all the same */
	for (int i = 0; i < 400 * 2 + 200; i++)
		copter_poshold_update(&ph, &params, &in);
	assert_int_equal(ph.axis[1], COPTER_POSHOLD_BRAKE_TO_LOITER);
	/* faster: capped at PHLD_BRAKE_ANGLE */
	copter_poshold_init(&ph);
	in = input(-20.0f, 0.0f);
	for (int i = 0; i < 400 * 5; i++)
		copter_poshold_update(&ph, &params, &in);
	copter_poshold_angles(&ph, ctl, lean);
	assert_true(fabsf(lean[1] + 3000.0f) < 1.0f);
}

/* A point mass leaning g tan(lean): braked from 5 m/s east while facing
 * east, it stops, both axes hand over to the loiter controller at once, and
 * 1.5 s later fly its lean alone. */
static void test_poshold_brakes_a_point_mass_and_hands_it_to_the_loiter(void **state)
{
	(void)state;
	struct copter_poshold ph;
	copter_poshold_init(&ph);
	double vn = 0.0, ve = 5.0, travelled = 0.0;
	int starts = 0, start_step = -1;
	float ctl[2] = { 150.0f, -250.0f }, lean[2] = { 0, 0 };
	for (int i = 0; i < 400 * 12; i++) {
		struct copter_poshold_in in = input((float)vn, (float)ve);
		in.yaw_rad = (float)(M_PI / 2.0);
		in.ctl_cd[0] = ctl[0];
		in.ctl_cd[1] = ctl[1];
		if (copter_poshold_update(&ph, &params, &in)) {
			starts++;
			start_step = i;
		}
		copter_poshold_angles(&ph, ctl, lean);
		if (start_step < 0) {
			/* facing east: forward is east, a nose-up lean slows it */
			double a_fwd = -G * tan((double)lean[1] * CD_TO_RAD);
			double a_right = G * tan((double)lean[0] * CD_TO_RAD);
			ve += a_fwd * (double)DT;
			vn -= a_right * (double)DT;
			travelled += ve * (double)DT;
		}
	}
	print_message("POSHOLD brake: from 5 m/s in %.2f s and %.2f m\n",
		      (double)start_step * (double)DT, travelled);
	assert_int_equal(starts, 1);
	assert_true(start_step > 0 && start_step * (double)DT < 5.0);
	assert_true(fabs(ve) < 0.1 && travelled > 2.0 && travelled < 12.0);
	assert_int_equal(ph.axis[0], COPTER_POSHOLD_LOITER);
	assert_int_equal(ph.axis[1], COPTER_POSHOLD_LOITER);
	assert_true(copter_poshold_loitering(&ph));
	assert_true(lean[0] == ctl[0] && lean[1] == ctl[1]);
}

/* Holding, the roll stick out: roll goes to the pilot in 0.5 s from the lean
 * flown, pitch leaves the controller and brakes from its lean. */
static void test_poshold_stick_takes_its_axis_back_and_the_other_brakes(void **state)
{
	(void)state;
	struct copter_poshold ph;
	copter_poshold_init(&ph);
	struct copter_poshold_in in = input(0.0f, 0.0f);
	in.ctl_cd[0] = 200.0f;
	in.ctl_cd[1] = -300.0f;
	for (int i = 0; i < 400 * 2; i++)
		copter_poshold_update(&ph, &params, &in);
	assert_true(copter_poshold_loitering(&ph));
	in.stick_cd[0] = 1500.0f;
	assert_false(copter_poshold_update(&ph, &params, &in));
	assert_int_equal(ph.axis[0], COPTER_POSHOLD_TO_PILOT);
	assert_int_equal(ph.axis[1], COPTER_POSHOLD_BRAKE);
	assert_false(copter_poshold_loitering(&ph));
	float lean[2];
	copter_poshold_angles(&ph, in.ctl_cd, lean);
	assert_true(fabsf(lean[0] - 200.0f) < 1.0f && fabsf(lean[1] + 300.0f) < 1.0f);
	for (int i = 0; i < 100; i++)     /* a quarter second: half way */
		copter_poshold_update(&ph, &params, &in);
	copter_poshold_angles(&ph, in.ctl_cd, lean);
	assert_true(fabsf(lean[0] - 850.0f) < 10.0f);
	/* standing still, the pitch brake runs down to no lean at its rate */
	assert_true(fabsf(lean[1] + 100.0f) < 5.0f);
	for (int i = 0; i < 200; i++)
		copter_poshold_update(&ph, &params, &in);
	copter_poshold_angles(&ph, in.ctl_cd, lean);
	assert_int_equal(ph.axis[0], COPTER_POSHOLD_PILOT);
	assert_true(fabsf(lean[0] - 1500.0f) < 1.0f);
}

/* The loiter controller leaning 1 m/s/s north to hold against the wind,
 * facing north: learnt with a 1 s time constant, flown under the stick. */
static void test_poshold_learns_the_wind_and_flies_it_under_the_sticks(void **state)
{
	(void)state;
	struct copter_poshold ph;
	copter_poshold_init(&ph);
	struct copter_poshold_in in = input(0.0f, 0.0f);
	in.ctl_accel_ne_m_s2[0] = 1.0f;
	for (int i = 0; i < 400 * 8; i++)
		copter_poshold_update(&ph, &params, &in);
	double want = -atan(1.0 / G) / CD_TO_RAD;       /* nose down, -582 cd */
	assert_true(fabs((double)ph.wind_cd[1] - want) < 10.0);
	assert_true(fabsf(ph.wind_cd[0]) < 1.0f);
	in.stick_cd[1] = -1000.0f;
	for (int i = 0; i < 400; i++)
		copter_poshold_update(&ph, &params, &in);
	float lean[2];
	copter_poshold_angles(&ph, in.ctl_cd, lean);
	assert_true(fabs((double)lean[1] - (want - 1000.0)) < 10.0);
	/* turned to face east, the same wind is on the roll axis: lean left */
	in.yaw_rad = (float)(M_PI / 2.0);
	copter_poshold_update(&ph, &params, &in);
	assert_true(fabs((double)ph.wind_cd[0] + 582.0) < 10.0);
	/* capped at two thirds of ANGLE_MAX */
	copter_poshold_init(&ph);
	in = input(0.0f, 0.0f);
	in.ctl_accel_ne_m_s2[0] = 9.0f;
	for (int i = 0; i < 400 * 8; i++)
		copter_poshold_update(&ph, &params, &in);
	assert_true(fabsf(ph.wind_cd[1] + 2000.0f) < 1.0f);
}

static void test_poshold_non_finite_inputs_give_finite_leans(void **state)
{
	(void)state;
	struct copter_poshold ph;
	copter_poshold_init(&ph);
	struct copter_poshold_in in = input(NAN, INFINITY);
	in.stick_cd[0] = NAN;
	in.yaw_rad = NAN;
	in.ctl_accel_ne_m_s2[1] = NAN;
	in.dt_s = NAN;
	float ctl[2] = { NAN, 100.0f }, lean[2];
	for (int i = 0; i < 400 * 3; i++) {
		copter_poshold_update(&ph, &params, &in);
		copter_poshold_angles(&ph, ctl, lean);
		assert_true(isfinite(lean[0]) && isfinite(lean[1]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poshold_brake_grows_at_its_rate_to_its_curve),
		cmocka_unit_test(test_poshold_brakes_a_point_mass_and_hands_it_to_the_loiter),
		cmocka_unit_test(test_poshold_stick_takes_its_axis_back_and_the_other_brakes),
		cmocka_unit_test(test_poshold_learns_the_wind_and_flies_it_under_the_sticks),
		cmocka_unit_test(test_poshold_non_finite_inputs_give_finite_leans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
