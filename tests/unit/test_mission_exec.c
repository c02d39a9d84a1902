// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Mission execution against the real navigation code: which task each item
 * sets, the order items are flown in (DO_JUMP counts), loiter completion,
 * altitude frames, touchdown, and the missions that cannot be flown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "vehicle/mission_exec.h"

#define HOME_LAT (-35.3632610)
#define HOME_LON 149.1652300
#define HOME_ALT 584.0f

static struct mission m;
static struct mexec e;
static struct nav nav;
static struct mexec_params mp;

static void add(uint16_t cmd, uint8_t frame, float p1, float p2, float p3, double dn_m, double de_m,
		float z)
{
	struct mission_item *it = &m.items[m.count++];
	*it = (struct mission_item){ .command = cmd, .frame = frame, .autocontinue = 1,
				     .param1 = p1, .param2 = p2, .param3 = p3, .z = z };
	if (dn_m != 0 || de_m != 0) {
		double lat, lon;
		nav_geo_ll_from_ne(HOME_LAT, HOME_LON, (struct nav_ne){ (float)dn_m, (float)de_m },
				   &lat, &lon);
		it->x = (int32_t)lround(lat * 1e7);
		it->y = (int32_t)lround(lon * 1e7);
	}
}

static struct vehicle_state at(double dn_m, double de_m, float alt_rel)
{
	struct vehicle_state vs = { .valid = VEHICLE_ATTITUDE_VALID | VEHICLE_POSITION_VALID |
					     VEHICLE_ALTITUDE_VALID,
				    .alt_rel_m = alt_rel, .alt_msl_m = HOME_ALT + alt_rel,
				    .airspeed_m_s = 16 };
	nav_geo_ll_from_ne(HOME_LAT, HOME_LON, (struct nav_ne){ (float)dn_m, (float)de_m },
			   &vs.lat_deg, &vs.lon_deg);
	return vs;
}

static void start(void)
{
	struct nav_wp home = { HOME_LAT, HOME_LON, 0 };
	struct vehicle_state vs = at(0, 0, 0);
	mexec_params_default(&mp);
	nav_init(&nav, HOME_LAT, HOME_LON);
	m.current = 0;
	mexec_start(&e, &m, &nav, &mp, &home, HOME_ALT, &vs, 0);
}

/* The demo's shape: takeoff, a three-point circuit flown three times, approach, land. */
static void demo_mission(void)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);              /* 0 home */
	add(MAV_CMD_NAV_TAKEOFF, 3, 12, 0, 0, 0, 0, 50);                    /* 1 */
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, 200, 0, 80);                  /* 2 */
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, 200, 300, 80);                /* 3 */
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, -100, 300, 80);               /* 4 */
	add(MAV_CMD_DO_JUMP, 0, 2, 2, 0, 0, 0, 0);                          /* 5 */
	add(MAV_CMD_DO_LAND_START, 0, 0, 0, 0, 0, 0, 0);                    /* 6 */
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, -200, 0, 30);                 /* 7 */
	add(MAV_CMD_NAV_LAND, 3, 0, 0, 0, 0, 0, 0);                         /* 8 */
}

static void test_mexec_flies_the_demo_circuit_three_times_then_lands(void **state)
{
	demo_mission();
	start();
	assert_int_equal(e.phase, MEXEC_FLYING);
	assert_int_equal(e.current, 1);
	assert_int_equal(nav.task, NAV_TASK_TAKEOFF);
	assert_float_equal(nav.tkoff_alt_m, 50, 1e-6);

	static const uint16_t expect[] = { 1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 7 };
	struct vehicle_state vs = at(0, 0, 50);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		assert_int_equal(e.current, expect[i]);
		struct nav_output out = { 0 };
		if (expect[i] == 1)
			out.takeoff_complete = true;
		else
			out.wp_reached = true;
		mexec_update(&e, &m, &nav, &out, &vs, 1000u * i);
		uint16_t seq;
		assert_true(mexec_take_reached(&e, &seq));
		assert_int_equal(seq, expect[i]);
		assert_false(mexec_take_reached(&e, &seq));
	}
	/* The legs start where the last one ended: 2 -> 3 is flown from 2. */
	assert_int_equal(e.current, 8);
	assert_int_equal(nav.task, NAV_TASK_LAND);
	assert_float_equal(nav.land_wp.alt_rel_m, 0, 1e-6);
	assert_float_equal(nav.approach_wp.alt_rel_m, 30, 1e-6);
	assert_int_equal(mexec_find_land_start(&m), 6);
}

/* ArduPlane's verify_takeoff: the takeoff is complete once above its height
 * over home, launched or not; a mission started in the air goes on at once. */
static void test_mexec_takeoff_is_complete_above_its_height_as_in_an_air_start(void **state)
{
	demo_mission();
	start();
	assert_int_equal(e.current, 1);
	struct nav_output out = { 0 };
	struct vehicle_state vs = at(0, 0, 20);
	mexec_update(&e, &m, &nav, &out, &vs, 1000);
	assert_int_equal(e.current, 1);            /* below 50 m, not launched: still taking off */
	uint16_t seq;
	assert_false(mexec_take_reached(&e, &seq));
	vs = at(0, 0, 100);                         /* 100 m up: an air start */
	mexec_update(&e, &m, &nav, &out, &vs, 2000);
	assert_true(mexec_take_reached(&e, &seq));
	assert_int_equal(seq, 1);
	assert_int_equal(e.current, 2);
	assert_int_equal(nav.task, NAV_TASK_LEG);
	/* AUTO with a current item past the takeoff starts there */
	m.current = 3;
	struct nav_wp home = { HOME_LAT, HOME_LON, 0 };
	mexec_start(&e, &m, &nav, &mp, &home, HOME_ALT, &vs, 3000);
	assert_int_equal(e.current, 3);
}

static void test_mexec_legs_have_their_turn_and_heights(void **state)
{
	demo_mission();
	start();
	struct vehicle_state vs = at(0, 0, 50);
	struct nav_output out = { .takeoff_complete = true };
	mexec_update(&e, &m, &nav, &out, &vs, 0);
	assert_int_equal(nav.task, NAV_TASK_LEG);
	assert_true(nav.has_next);                      /* 3 is next: the turn at 2 */
	assert_float_equal(nav.b.n_m, 200, 0.5);
	assert_float_equal(nav.alt_b_m, 80, 1e-6);
	assert_float_equal(nav.alt_a_m, 50, 1e-6);     /* from where the takeoff ended */
	out = (struct nav_output){ .wp_reached = true };
	mexec_update(&e, &m, &nav, &out, &vs, 0);
	assert_float_equal(nav.a.n_m, 200, 0.5);        /* from waypoint 2 itself */
	assert_float_equal(nav.b.e_m, 300, 0.5);
}

static void test_mexec_loiter_turns_counts_whole_circles(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	add(MAV_CMD_NAV_LOITER_TURNS, 3, 2, 0, -50, 300, 0, 60);
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, 0, 0, 60);
	start();
	assert_int_equal(nav.task, NAV_TASK_LOITER);
	assert_int_equal(nav.direction, -1);
	assert_float_equal(nav.radius_m, 50, 1e-6);
	struct nav_params np;
	nav_params_default(&np);
	/* Far away: not on the circle, turning does not count. */
	struct vehicle_state vs = at(0, 0, 60);
	struct nav_output out;
	nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
	mexec_update(&e, &m, &nav, &out, &vs, 0);
	assert_false(e.on_circle);
	/* Round the circle anticlockwise in 10 degree steps: done after two turns, not before. */
	unsigned int step;
	for (step = 0; step < 200 && e.current == 1; step++) {
		double a = -(double)step * 10.0 * M_PI / 180.0;
		vs = at(300 + 50 * cos(a), 50 * sin(a), 60);
		nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
		mexec_update(&e, &m, &nav, &out, &vs, step * 100000u);
	}
	assert_int_equal(e.current, 2);
	assert_true(step >= 72 && step <= 74);
}

static void test_mexec_loiter_time_and_altitude(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	add(MAV_CMD_NAV_LOITER_TIME, 3, 30, 0, 0, 0, 0, 60);
	add(MAV_CMD_NAV_LOITER_TO_ALT, 0, 0, 80, 0, 0, 0, HOME_ALT + 120);  /* absolute: 120 up */
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, 100, 0, 120);
	start();
	assert_float_equal(nav.radius_m, 60, 1e-6);     /* WP_LOITER_RAD */
	struct nav_params np;
	nav_params_default(&np);
	struct vehicle_state vs = at(60, 0, 60);         /* on the circle */
	struct nav_output out;
	for (uint64_t t = 0; t <= 29000000u; t += 1000000u) {
		nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
		mexec_update(&e, &m, &nav, &out, &vs, t);
		assert_int_equal(e.current, 1);
	}
	nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
	mexec_update(&e, &m, &nav, &out, &vs, 30000000u);
	assert_int_equal(e.current, 2);
	assert_float_equal(nav.loiter_alt_m, 120, 1e-4);
	assert_float_equal(nav.radius_m, 80, 1e-6);
	vs = at(80, 0, 100);
	nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
	mexec_update(&e, &m, &nav, &out, &vs, 31000000u);
	assert_int_equal(e.current, 2);
	vs = at(80, 0, 118);
	nav_update(&nav, &np, &vs, NULL, 0.02f, &out);
	mexec_update(&e, &m, &nav, &out, &vs, 32000000u);
	assert_int_equal(e.current, 3);
}

static void test_mexec_do_items_between_nav_items(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	add(MAV_CMD_DO_CHANGE_SPEED, 0, 0, 19, -1, 0, 0, 0);
	add(MAV_CMD_DO_SET_HOME, 0, 0, 0, 0, 50, 50, HOME_ALT + 10);
	add(MAV_CMD_NAV_WAYPOINT, 3, 0, 0, 0, 100, 0, 40);
	start();
	assert_int_equal(e.current, 3);
	assert_float_equal(nav.eas_dem_m_s, 19, 1e-6);
	assert_true(e.home_changed);
	assert_float_equal(e.home_alt_msl_m, HOME_ALT + 10, 1e-4);
	assert_true(e.home.lat_deg > HOME_LAT);
	struct vehicle_state vs = at(100, 0, 40);
	struct nav_output out = { .wp_reached = true };
	mexec_update(&e, &m, &nav, &out, &vs, 0);
	assert_int_equal(e.phase, MEXEC_DONE);           /* past the end: the vehicle RTLs */
}

static void test_mexec_refuses_what_cannot_be_flown(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	start();
	assert_int_equal(e.phase, MEXEC_FAILED);
	assert_non_null(e.why);
	/* A DO_JUMP forever onto itself: no NAV item can ever come. */
	add(MAV_CMD_DO_JUMP, 0, 1, -1, 0, 0, 0, 0);
	start();
	assert_int_equal(e.phase, MEXEC_FAILED);
	assert_non_null(strstr(e.why, "DO_JUMP"));
}

static void test_mexec_touchdown_is_a_stop_after_the_flare(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	add(MAV_CMD_NAV_LAND, 3, 0, 0, 0, 0, 0, 0);
	start();
	assert_int_equal(nav.task, NAV_TASK_LAND);
	struct vehicle_state vs = at(0, 0, 0);
	vs.vel_ned_m_s[0] = 5;
	struct nav_output out = { .flaring = true };
	mexec_update(&e, &m, &nav, &out, &vs, 0);
	vs.vel_ned_m_s[0] = 0.3f;
	mexec_update(&e, &m, &nav, &out, &vs, 100000);
	mexec_update(&e, &m, &nav, &out, &vs, 900000);
	assert_int_equal(e.phase, MEXEC_FLYING);
	mexec_update(&e, &m, &nav, &out, &vs, 1100000);
	assert_int_equal(e.phase, MEXEC_LANDED);
	uint16_t seq;
	assert_true(mexec_take_reached(&e, &seq));
	assert_int_equal(seq, 1);
}

/* Without brakes in a wind it may never stop: blown backwards at 3 m/s with
 * 6 m/s through the air, too slow to fly, on the ground, it has landed after
 * 3 s. */
static void test_mexec_touchdown_is_too_slow_to_fly_after_the_flare(void **state)
{
	memset(&m, 0, sizeof(m));
	add(MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, 0, 0, HOME_ALT);
	add(MAV_CMD_NAV_LAND, 3, 0, 0, 0, 0, 0, 0);
	start();
	struct vehicle_state vs = at(0, 0, 0);
	vs.valid |= VEHICLE_AIRSPEED_VALID;
	vs.vel_ned_m_s[1] = 3.0f;
	vs.airspeed_m_s = 6.0f;
	struct nav_output out = { .flaring = true };
	mexec_update(&e, &m, &nav, &out, &vs, 1000000);
	mexec_update(&e, &m, &nav, &out, &vs, 3900000);
	assert_int_equal(e.phase, MEXEC_FLYING);
	mexec_update(&e, &m, &nav, &out, &vs, 4000000);
	assert_int_equal(e.phase, MEXEC_LANDED);
	/* Flying speed through the air (a gust, the float): not yet. */
	start();
	vs.airspeed_m_s = 9.0f;
	mexec_update(&e, &m, &nav, &out, &vs, 1000000);
	mexec_update(&e, &m, &nav, &out, &vs, 6000000);
	assert_int_equal(e.phase, MEXEC_FLYING);
	/* Nor above the land point (a float in a headwind). */
	start();
	vs.airspeed_m_s = 6.0f;
	vs.alt_rel_m = 4.0f;
	mexec_update(&e, &m, &nav, &out, &vs, 1000000);
	mexec_update(&e, &m, &nav, &out, &vs, 6000000);
	assert_int_equal(e.phase, MEXEC_FLYING);
	/* The estimator drops a pitot that reads that slow: the ground speed alone. */
	start();
	vs.alt_rel_m = 0.0f;
	vs.airspeed_m_s = 9.0f;
	vs.valid &= ~VEHICLE_AIRSPEED_VALID;
	mexec_update(&e, &m, &nav, &out, &vs, 1000000);
	mexec_update(&e, &m, &nav, &out, &vs, 4000000);
	assert_int_equal(e.phase, MEXEC_LANDED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mexec_flies_the_demo_circuit_three_times_then_lands),
		cmocka_unit_test(test_mexec_takeoff_is_complete_above_its_height_as_in_an_air_start),
		cmocka_unit_test(test_mexec_legs_have_their_turn_and_heights),
		cmocka_unit_test(test_mexec_loiter_turns_counts_whole_circles),
		cmocka_unit_test(test_mexec_loiter_time_and_altitude),
		cmocka_unit_test(test_mexec_do_items_between_nav_items),
		cmocka_unit_test(test_mexec_refuses_what_cannot_be_flown),
		cmocka_unit_test(test_mexec_touchdown_is_a_stop_after_the_flare),
		cmocka_unit_test(test_mexec_touchdown_is_too_slow_to_fly_after_the_flare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
