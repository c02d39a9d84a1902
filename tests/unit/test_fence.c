// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The geofence and rally points: point in polygon, circles, the altitude
 * ceiling and floor, the margin, the validation of uploaded lists, the rally
 * point RTL picks, and what plane_step does on a breach (FENCE_ACTION, once
 * per breach, not before the plane is up, not on the floor while landing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "vehicle/fence.h"
#include "vehicle/plane.h"

#define HOME_LAT (-35.3632610)
#define HOME_LON 149.1652300

static const struct nav_wp home = { HOME_LAT, HOME_LON, 0 };

/* The place n, e metres from home. */
static struct nav_wp at(float n, float e, float alt)
{
	struct nav_wp w = { 0, 0, alt };
	nav_geo_ll_from_ne(HOME_LAT, HOME_LON, (struct nav_ne){ n, e }, &w.lat_deg, &w.lon_deg);
	return w;
}

static struct mission_item item(uint16_t cmd, float p1, float n, float e, float alt)
{
	struct nav_wp w = at(n, e, alt);
	return (struct mission_item){ .command = cmd, .frame = 3, .param1 = p1,
				      .x = (int32_t)lround(w.lat_deg * 1e7),
				      .y = (int32_t)lround(w.lon_deg * 1e7), .z = alt };
}

static struct mission fence, rally;

static void add(struct mission *m, struct mission_item it)
{
	m->items[m->count++] = it;
}

/* A square inclusion polygon of half-side h about (n, e). */
static void square(struct mission *m, uint16_t cmd, float n, float e, float h)
{
	add(m, item(cmd, 4, n - h, e - h, 0));
	add(m, item(cmd, 4, n + h, e - h, 0));
	add(m, item(cmd, 4, n + h, e + h, 0));
	add(m, item(cmd, 4, n - h, e + h, 0));
}

static void test_point_in_polygon_even_odd(void **state)
{
	/* A concave "U": the notch between its arms is outside. */
	const struct nav_ne u[] = { { 0, 0 }, { 0, 30 }, { 30, 30 }, { 30, 20 }, { 10, 20 },
				    { 10, 10 }, { 30, 10 }, { 30, 0 } };
	assert_true(fence_point_in_polygon(u, 8, (struct nav_ne){ 5, 15 }));
	assert_true(fence_point_in_polygon(u, 8, (struct nav_ne){ 20, 5 }));
	assert_false(fence_point_in_polygon(u, 8, (struct nav_ne){ 20, 15 }));
	assert_false(fence_point_in_polygon(u, 8, (struct nav_ne){ -1, 15 }));
	assert_false(fence_point_in_polygon(u, 8, (struct nav_ne){ 15, 31 }));
	assert_float_equal(fence_polygon_distance_m(u, 8, (struct nav_ne){ 20, 15 }), 5.0, 1e-4);
	assert_float_equal(fence_polygon_distance_m(u, 8, (struct nav_ne){ -3, -4 }), 5.0, 1e-4);
}

static void test_inclusion_and_exclusion_polygons(void **state)
{
	struct fence_params fp;
	fence_params_default(&fp);
	fp.fence_type = FENCE_TYPE_POLYGON;
	memset(&fence, 0, sizeof(fence));
	square(&fence, FENCE_CMD_POLYGON_INCLUSION, 0, 0, 200);
	square(&fence, FENCE_CMD_POLYGON_EXCLUSION, 100, 100, 20);
	uint16_t bad;
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_OK);
	uint8_t m;
	struct nav_wp p = at(0, 0, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	assert_int_equal(m, 0);
	p = at(210, 0, 50);                 /* out of the inclusion */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), FENCE_TYPE_POLYGON);
	p = at(100, 100, 50);               /* in the exclusion */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), FENCE_TYPE_POLYGON);
	p = at(199, 0, 50);                 /* inside, within FENCE_MARGIN 2 m */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_POLYGON);
	p = at(100, 121, 50);               /* outside the exclusion, within its margin */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_POLYGON);
	fp.fence_type = FENCE_TYPE_ALT_MAX; /* the polygon bit off: not judged */
	p = at(210, 0, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
}

static void test_circles_and_the_home_radius(void **state)
{
	struct fence_params fp;
	fence_params_default(&fp);
	fp.fence_type = FENCE_TYPE_POLYGON | FENCE_TYPE_CIRCLE;
	fp.fence_radius = 500;
	fp.fence_margin = 10;
	memset(&fence, 0, sizeof(fence));
	add(&fence, item(FENCE_CMD_CIRCLE_INCLUSION, 300, 100, 0, 0));
	add(&fence, item(FENCE_CMD_CIRCLE_EXCLUSION, 50, 200, 0, 0));
	uint16_t bad;
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_OK);
	uint8_t m;
	struct nav_wp p = at(0, 0, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	p = at(-205, 0, 50);                /* 305 m from the inclusion circle's centre */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), FENCE_TYPE_POLYGON);
	p = at(-195, 0, 50);                /* 295 m: within the 10 m margin */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_POLYGON);
	p = at(220, 0, 50);                 /* in the exclusion circle */
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), FENCE_TYPE_POLYGON);
	/* FENCE_RADIUS about home alone. */
	memset(&fence, 0, sizeof(fence));
	p = at(0, 505, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), FENCE_TYPE_CIRCLE);
	p = at(0, 495, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_CIRCLE);
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), 0);
}

static void test_altitude_ceiling_and_floor(void **state)
{
	struct fence_params fp;
	fence_params_default(&fp);
	fp.fence_type = FENCE_TYPE_ALT_MAX | FENCE_TYPE_ALT_MIN;
	fp.fence_alt_max = 120;
	fp.fence_alt_min = 20;
	uint8_t m;
	struct nav_wp p = at(0, 0, 60);
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), 0);
	assert_int_equal(m, 0);
	p.alt_rel_m = 121;
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), FENCE_TYPE_ALT_MAX);
	p.alt_rel_m = 119;
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_ALT_MAX);
	p.alt_rel_m = 19;
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), FENCE_TYPE_ALT_MIN);
	p.alt_rel_m = 21;
	assert_int_equal(fence_breaches(&fp, NULL, &home, &p, &m), 0);
	assert_int_equal(m, FENCE_TYPE_ALT_MIN);
	assert_int_equal(fence_breach_type(FENCE_TYPE_ALT_MIN), 1);
	assert_int_equal(fence_breach_type(FENCE_TYPE_ALT_MAX), 2);
	assert_int_equal(fence_breach_type(FENCE_TYPE_POLYGON | FENCE_TYPE_ALT_MAX), 3);
	assert_int_equal(fence_breach_type(0), 0);
}

static void test_bad_items_and_lists_are_refused(void **state)
{
	struct mission_item it = item(FENCE_CMD_POLYGON_INCLUSION, 2, 0, 0, 0);
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_INVALID_PARAM1);
	it.param1 = 3.5f;
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_INVALID_PARAM1);
	it.param1 = NAN;
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_INVALID_PARAM1);
	it.param1 = 3;
	it.frame = 1;                       /* LOCAL_NED */
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_UNSUPPORTED_FRAME);
	it.frame = 6;
	it.x = 910000000;
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_INVALID_X);
	it = item(FENCE_CMD_CIRCLE_EXCLUSION, 0, 0, 0, 0);
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_INVALID_PARAM1);
	it = item(16, 0, 0, 0, 0);          /* a waypoint in the fence */
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_UNSUPPORTED);
	assert_int_equal(rally_check_item(&it), FENCE_RESULT_UNSUPPORTED);
	it = item(RALLY_CMD_POINT, 0, 0, 0, 80);
	assert_int_equal(rally_check_item(&it), FENCE_RESULT_OK);
	assert_int_equal(fence_check_item(&it), FENCE_RESULT_UNSUPPORTED);

	uint16_t bad = 99;
	/* A polygon short of the vertices it announces. */
	memset(&fence, 0, sizeof(fence));
	add(&fence, item(FENCE_CMD_POLYGON_INCLUSION, 4, 0, 0, 0));
	add(&fence, item(FENCE_CMD_POLYGON_INCLUSION, 4, 10, 0, 0));
	add(&fence, item(FENCE_CMD_POLYGON_INCLUSION, 4, 10, 10, 0));
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_INVALID);
	/* ... of two kinds, or with counts that disagree. */
	add(&fence, item(FENCE_CMD_POLYGON_EXCLUSION, 4, 0, 10, 0));
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_INVALID);
	assert_int_equal(bad, 3);
	fence.items[3] = item(FENCE_CMD_POLYGON_INCLUSION, 3, 0, 10, 0);
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_INVALID);
	fence.items[3].param1 = 4;
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_OK);
	/* Two return points. */
	add(&fence, item(FENCE_CMD_RETURN_POINT, 0, 0, 0, 50));
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_OK);
	add(&fence, item(FENCE_CMD_RETURN_POINT, 0, 0, 0, 50));
	assert_int_equal(fence_validate(&fence, &bad), FENCE_RESULT_INVALID);
	assert_int_equal(bad, 5);
	/* A list judged without validation does not read past its end. */
	memset(&fence, 0, sizeof(fence));
	add(&fence, item(FENCE_CMD_POLYGON_INCLUSION, 90, 0, 0, 0));
	struct fence_params fp;
	fence_params_default(&fp);
	struct nav_wp p = at(0, 0, 50);
	assert_int_equal(fence_breaches(&fp, &fence, &home, &p, NULL), 0);
}

static void test_rally_point_selection_as_arduplane(void **state)
{
	struct fence_params fp;
	fence_params_default(&fp);
	memset(&rally, 0, sizeof(rally));
	struct nav_wp out, pos = at(1000, 0, 80);
	uint16_t idx;
	assert_false(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	add(&rally, item(RALLY_CMD_POINT, 0, 2000, 0, 70));
	add(&rally, item(RALLY_CMD_POINT, 0, 700, 0, 60));
	rally.items[1].frame = 0;           /* above sea level */
	rally.items[1].z = 584 + 60;
	assert_true(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	assert_int_equal(idx, 1);
	assert_float_equal(out.alt_rel_m, 60, 1e-3);
	/* RALLY_INCL_HOME 0 (ArduPlane's default): the nearest rally point even past home. */
	pos = at(-100, 0, 80);
	assert_true(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	assert_int_equal(idx, 1);
	fp.rally_incl_home = 1;
	assert_false(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	pos = at(600, 0, 80);
	assert_true(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	/* RALLY_LIMIT_KM: every rally point past it and home nearer: home. */
	fp.rally_incl_home = 0;
	fp.rally_limit_km = 0.5f;
	pos = at(-300, 0, 80);
	assert_false(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
	fp.rally_limit_km = 0;
	assert_true(rally_select(&fp, &rally, &home, 584, &pos, &out, &idx));
}

/* plane_step with a fence. */
static struct vehicle v;
static struct plane pl;
static struct plane_params pp;
static struct vehicle_input in;
static struct plane_output out;
static struct mission mis;
static int events, texts_fence;
static uint8_t last_code;
static char last_text[96];

static void plane_setup(void)
{
	vehicle_init(&v, VEHICLE_PLANE);
	plane_params_default(&pp);
	plane_init(&pl, &v);
	memset(&in, 0, sizeof(in));
	memset(&mis, 0, sizeof(mis));
	memset(&fence, 0, sizeof(fence));
	memset(&rally, 0, sizeof(rally));
	in.dt_s = 0.0025f;
	in.vs = (struct vehicle_state){
		.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID |
			 VEHICLE_AIRSPEED_VALID,
		.q = { 1, 0, 0, 0 }, .lat_deg = HOME_LAT, .lon_deg = HOME_LON, .alt_rel_m = 50,
		.alt_msl_m = 634, .vel_ned_m_s = { 16, 0, 0 }, .airspeed_m_s = 16,
	};
	in.estimator_converged = true;
	in.gps_fix = true;
	in.home_set = true;
	in.home = home;
	in.home_alt_msl_m = 584;
	in.batt_voltage_v = NAN;
	in.batt_used_mah = NAN;
	in.mission = &mis;
	in.fence = &fence;
	in.rally = &rally;
	v.home_set = true;
	vehicle_update(&v, in.vs.valid, 0);
	pp.fence.fence_enable = 1;
	pp.fence.fence_type = FENCE_TYPE_POLYGON | FENCE_TYPE_ALT_MAX;
	pp.fence.fence_alt_max = 120;
	square(&fence, FENCE_CMD_POLYGON_INCLUSION, 0, 0, 300);
	char why[96];
	assert_int_equal(vehicle_set_mode(&v, PLANE_LOITER, why, sizeof(why)), 0);
	assert_int_equal(vehicle_arm(&v, true, true, 0, why, sizeof(why)), 0);
	events = texts_fence = 0;
}

static void step(double seconds)
{
	for (double t = 0; t < seconds; t += (double)in.dt_s) {
		in.now_us += 2500;
		vehicle_update(&v, in.vs.valid, mis.count);
		plane_step(&pl, &pp, &in, &out);
		if (out.fence_event) {
			events++;
			last_code = out.fence_code;
		}
		if (out.text && strstr(out.text, "Fence")) {
			texts_fence++;
			strncpy(last_text, out.text, sizeof(last_text) - 1);
		}
	}
}

static void put(float n, float e, float alt)
{
	struct nav_wp w = at(n, e, alt);
	in.vs.lat_deg = w.lat_deg;
	in.vs.lon_deg = w.lon_deg;
	in.vs.alt_rel_m = alt;
}

static void test_plane_breach_rtl_once_then_cleared(void **state)
{
	plane_setup();
	step(0.1);
	assert_int_equal(events, 0);
	put(320, 0, 50);
	step(0.5);
	assert_int_equal(v.mode, PLANE_RTL);
	assert_int_equal(events, 1);
	assert_int_equal(last_code, FENCE_TYPE_POLYGON);
	assert_string_equal(last_text, "Fence breached: polygon: RTL");
	assert_int_equal(pl.fence.breach_count, 1);
	assert_int_equal(pl.fence.breach_type, 3);
	/* The pilot takes LOITER outside: not taken back while the breach lasts. */
	char why[96];
	vehicle_set_mode(&v, PLANE_LOITER, why, sizeof(why));
	step(0.5);
	assert_int_equal(v.mode, PLANE_LOITER);
	assert_int_equal(events, 1);
	/* Back in: cleared (ERR code 0), and a new breach acts again. */
	put(0, 0, 50);
	step(0.1);
	assert_int_equal(events, 2);
	assert_int_equal(last_code, 0);
	assert_int_equal(pl.fence.breaches, 0);
	put(0, 0, 130);
	step(0.1);
	assert_int_equal(v.mode, PLANE_RTL);
	assert_int_equal(last_code, FENCE_TYPE_ALT_MAX);
	assert_int_equal(pl.fence.breach_count, 2);
	assert_int_equal(pl.fence.breach_type, 2);
}

static void test_plane_report_only_and_guided_actions(void **state)
{
	plane_setup();
	pp.fence.fence_action = FENCE_ACTION_REPORT;
	put(320, 0, 50);
	step(0.1);
	assert_int_equal(v.mode, PLANE_LOITER);
	assert_string_equal(last_text, "Fence breached: polygon");

	plane_setup();
	pp.fence.fence_action = FENCE_ACTION_GUIDED;
	add(&fence, item(FENCE_CMD_RETURN_POINT, 0, -100, 50, 70));
	put(320, 0, 50);
	step(0.1);
	assert_int_equal(v.mode, PLANE_GUIDED);
	struct nav_wp rp = at(-100, 50, 70);
	assert_float_equal(v.guided.lat_deg, rp.lat_deg, 1e-7);
	assert_float_equal(v.guided.lon_deg, rp.lon_deg, 1e-7);
	assert_float_equal(v.guided.alt_rel_m, 70, 1e-3);
}

static void test_plane_fence_waits_for_height_and_arming(void **state)
{
	plane_setup();
	put(320, 0, 5);                     /* outside, but not yet 10 m up */
	step(0.2);
	assert_int_equal(events, 0);
	put(320, 0, 12);
	step(0.1);
	assert_int_equal(events, 1);
	/* Disabled: nothing judged. */
	plane_setup();
	pp.fence.fence_enable = 0;
	put(320, 0, 50);
	step(0.2);
	assert_int_equal(events, 0);
	assert_int_equal(v.mode, PLANE_LOITER);
	/* Disarmed: neither. */
	plane_setup();
	char why[96];
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	put(320, 0, 50);
	step(0.2);
	assert_int_equal(events, 0);
}

static void test_plane_rtl_flies_to_the_nearest_rally_point(void **state)
{
	plane_setup();
	pp.fence.fence_enable = 0;
	add(&rally, item(RALLY_CMD_POINT, 0, 400, 400, 65));
	add(&rally, item(RALLY_CMD_POINT, 0, -900, 0, 65));
	put(500, 300, 50);
	char why[96];
	vehicle_set_mode(&v, PLANE_RTL, why, sizeof(why));
	step(0.1);
	assert_int_equal(pl.rally_index, 0);
	assert_int_equal(pl.nav.task, NAV_TASK_LOITER);
	assert_float_equal(pl.nav.centre.n_m, 400, 0.5);
	assert_float_equal(pl.nav.centre.e_m, 400, 0.5);
	assert_float_equal(pl.nav.loiter_alt_m, 65, 1e-3);
	/* Without rally points: home at ALT_HOLD_RTL. */
	memset(&rally, 0, sizeof(rally));
	vehicle_set_mode(&v, PLANE_LOITER, why, sizeof(why));
	step(0.1);
	vehicle_set_mode(&v, PLANE_RTL, why, sizeof(why));
	step(0.1);
	assert_int_equal(pl.rally_index, -1);
	assert_float_equal(pl.nav.centre.n_m, 0, 0.5);
	assert_float_equal(pl.nav.loiter_alt_m, pp.mexec.rtl_alt_m, 1e-3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_point_in_polygon_even_odd),
		cmocka_unit_test(test_inclusion_and_exclusion_polygons),
		cmocka_unit_test(test_circles_and_the_home_radius),
		cmocka_unit_test(test_altitude_ceiling_and_floor),
		cmocka_unit_test(test_bad_items_and_lists_are_refused),
		cmocka_unit_test(test_rally_point_selection_as_arduplane),
		cmocka_unit_test(test_plane_breach_rtl_once_then_cleared),
		cmocka_unit_test(test_plane_report_only_and_guided_actions),
		cmocka_unit_test(test_plane_fence_waits_for_height_and_arming),
		cmocka_unit_test(test_plane_rtl_flies_to_the_nearest_rally_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
