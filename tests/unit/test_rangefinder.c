// SPDX-License-Identifier: GPL-3.0-or-later
/* The rangefinder's state: ArduPilot's statuses, health, the stuck rule. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vehicle/rangefinder.h"

static const struct rangefinder_params params = {
	.type = 7, .min_m = 0.2f, .max_m = 7.0f, .gndclear_m = 0.1f, .orient = 25,
};

static struct range_sample ok(uint64_t t_us, uint16_t cm)
{
	return (struct range_sample){ .t_us = t_us, .distance_m = cm * 0.01f, .quality_pct = -1,
				      .reading = RANGE_READING_OK, .raw = cm };
}

static void test_rangefinder_not_connected_without_a_type(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	struct rangefinder_params p = params;
	p.type = 0;
	struct range_sample s = ok(1000, 300);
	rangefinder_update(&r, &p, &s, 10.0f, 1000);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_NOT_CONNECTED);
	assert_false(rangefinder_get(&r)->healthy);
	assert_string_equal(rangefinder_status_name(RANGEFINDER_NOT_CONNECTED), "NotConnected");
}

static void test_rangefinder_no_data_until_a_reading_and_after_200_ms_without(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	rangefinder_update(&r, &params, NULL, 10.0f, 1000000);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_NO_DATA);
	struct range_sample s = ok(1000000, 350);
	rangefinder_update(&r, &params, &s, 10.0f, 1000000);
	const struct rangefinder_reading *o = rangefinder_get(&r);
	assert_int_equal(o->status, RANGEFINDER_GOOD);
	assert_true(o->healthy);
	assert_float_equal(o->distance_m, 3.5f, 1e-5f);
	assert_float_equal(o->height_m, 3.4f, 1e-5f);   /* less GNDCLEAR */
	rangefinder_update(&r, &params, NULL, 10.0f, 1200000);
	assert_int_equal(o->status, RANGEFINDER_GOOD);
	rangefinder_update(&r, &params, NULL, 10.0f, 1200001);
	assert_int_equal(o->status, RANGEFINDER_NO_DATA);
	assert_false(o->healthy);
	assert_string_equal(rangefinder_status_name(o->status), "NoData");
}

static void test_rangefinder_out_of_range_low_and_high(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	struct range_sample s = ok(100, 19);
	rangefinder_update(&r, &params, &s, NAN, 100);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_OUT_OF_RANGE_LOW);
	s = ok(200, 20);
	rangefinder_update(&r, &params, &s, NAN, 200);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_GOOD);   /* [MIN, MAX] */
	s = ok(300, 700);
	rangefinder_update(&r, &params, &s, NAN, 300);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_GOOD);
	s = ok(400, 701);
	rangefinder_update(&r, &params, &s, NAN, 400);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_OUT_OF_RANGE_HIGH);
	assert_false(rangefinder_get(&r)->healthy);
	/* nothing came back: beyond its reach, as ArduPilot takes it */
	s = (struct range_sample){ .t_us = 500, .reading = RANGE_READING_NO_RETURN, .quality_pct = -1 };
	rangefinder_update(&r, &params, &s, NAN, 500);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_OUT_OF_RANGE_HIGH);
	assert_true(rangefinder_get(&r)->distance_m == 0.0f);
}

/* HIL's DISTANCE_SENSOR brings the simulated sensor's own limits. */
static void test_rangefinder_source_limits_narrow_the_parameters(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	struct range_sample s = ok(100, 500);
	s.min_m = 0.3f;
	s.max_m = 4.0f;
	rangefinder_update(&r, &params, &s, NAN, 100);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_OUT_OF_RANGE_HIGH);
	s = ok(200, 25);
	s.min_m = 0.3f;
	s.max_m = 40.0f;   /* wider than MAX_CM: the parameter stands */
	rangefinder_update(&r, &params, &s, NAN, 200);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_OUT_OF_RANGE_LOW);
}

/* Descending at 1.2 m/s with a reading frozen at 4.00 m: stuck once the
 * height has moved 1 m and a second has passed; trusted again at a new value. */
static void test_rangefinder_frozen_reading_while_descending_is_stuck(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	float alt = 20.0f;
	uint64_t t = 1000000;
	for (int i = 0; i < 20; i++, t += 50000, alt -= 0.06f) {
		struct range_sample s = ok(t, 400);
		rangefinder_update(&r, &params, &s, alt, t);
		assert_false(rangefinder_get(&r)->stuck);   /* never within the first second */
	}
	struct range_sample s = ok(t, 400);
	rangefinder_update(&r, &params, &s, alt, t);
	assert_true(rangefinder_get(&r)->stuck);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_GOOD);   /* in range ... */
	assert_false(rangefinder_get(&r)->healthy);                       /* ... not trusted */
	s = ok(t + 50000, 350);
	rangefinder_update(&r, &params, &s, alt - 0.05f, t + 50000);
	assert_false(rangefinder_get(&r)->stuck);
	assert_true(rangefinder_get(&r)->healthy);
}

static void test_rangefinder_same_reading_while_still_is_not_stuck(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	uint64_t t = 1000000;
	/* on the ground or in a hover: the altitude wanders by centimetres */
	for (int i = 0; i < 200; i++, t += 50000) {
		struct range_sample s = ok(t, 12);
		rangefinder_update(&r, &params, &s, 100.0f + 0.2f * sinf((float)i * 0.3f), t);
	}
	assert_false(rangefinder_get(&r)->stuck);
	/* and without an altitude estimate nothing is judged stuck */
	for (int i = 0; i < 100; i++, t += 50000) {
		struct range_sample s = ok(t, 300);
		rangefinder_update(&r, &params, &s, NAN, t);
	}
	assert_false(rangefinder_get(&r)->stuck);
	assert_true(rangefinder_get(&r)->healthy);
}

/* A climb that crosses the 1 m only slowly: stuck only once both hold. */
static void test_rangefinder_stuck_needs_both_time_and_height(void **state)
{
	(void)state;
	struct rangefinder r;
	rangefinder_init(&r);
	uint64_t t = 1000000;
	struct range_sample s = ok(t, 500);
	rangefinder_update(&r, &params, &s, 0.0f, t);
	/* 1.5 m up in 0.5 s: not yet a second */
	s = ok(t + 500000, 500);
	rangefinder_update(&r, &params, &s, 1.5f, t + 500000);
	assert_false(rangefinder_get(&r)->stuck);
	s = ok(t + 1000000, 500);
	rangefinder_update(&r, &params, &s, 1.5f, t + 1000000);
	assert_true(rangefinder_get(&r)->stuck);
	/* a gap without readings: no data, whatever the stuck flag */
	rangefinder_update(&r, &params, NULL, 1.5f, t + 1300000);
	assert_int_equal(rangefinder_get(&r)->status, RANGEFINDER_NO_DATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rangefinder_not_connected_without_a_type),
		cmocka_unit_test(test_rangefinder_no_data_until_a_reading_and_after_200_ms_without),
		cmocka_unit_test(test_rangefinder_out_of_range_low_and_high),
		cmocka_unit_test(test_rangefinder_source_limits_narrow_the_parameters),
		cmocka_unit_test(test_rangefinder_frozen_reading_while_descending_is_stuck),
		cmocka_unit_test(test_rangefinder_same_reading_while_still_is_not_stuck),
		cmocka_unit_test(test_rangefinder_stuck_needs_both_time_and_height),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
