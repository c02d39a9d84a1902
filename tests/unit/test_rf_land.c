// SPDX-License-Identifier: GPL-3.0-or-later
/* The landing's use of a downward rangefinder (src/nav/rf_land.c): ArduPlane's
 * in-range count, the stuck lidar, the correction and its low-pass, the
 * runaway that disengages it and the reading that goes quiet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "nav/rf_land.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

/* Readings every 50 ms from t0_us, the range sinking from r0 by dr each. */
static enum rf_land_event feed(struct rf_land *r, uint64_t *t_us, int n, float r0, float dr,
			       float max_m, float cz, float hat_m, bool landing, bool *engaged)
{
	enum rf_land_event last = RF_LAND_NONE;
	for (int i = 0; i < n; i++) {
		*t_us += 50000;
		struct rf_reading rd = { .t_us = *t_us, .good = true, .range_m = r0 + dr * (float)i,
					 .max_m = max_m };
		enum rf_land_event e = rf_land_update(r, &rd, cz, hat_m, landing);
		if (e == RF_LAND_ENGAGED && engaged)
			*engaged = true;
		if (e != RF_LAND_NONE)
			last = e;
	}
	return last;
}

static void test_a_stuck_lidar_is_never_in_range(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 1000000;
	bool engaged = false;
	feed(&r, &t, 200, 7.0f, 0.0f, 12.0f, 1.0f, 10.0f, true, &engaged);
	assert_false(r.in_range);
	assert_false(engaged);
	assert_near(rf_land_correction(&r, t, NULL), 0.0, 0.0);
}

static void test_a_descent_counts_in_and_engages_on_the_landing_only(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 1000000;
	bool engaged = false;
	/* sinking 0.1 m a reading from 11 m: 5 % of 12 m is 0.6 m, so the
	 * count starts at the 7th reading and is full 10 later */
	feed(&r, &t, 16, 11.0f, -0.1f, 12.0f, 1.0f, 9.0f, false, &engaged);
	assert_false(r.in_range);
	feed(&r, &t, 2, 9.4f, -0.1f, 12.0f, 1.0f, 9.0f, false, &engaged);
	assert_true(r.in_range);
	assert_false(engaged);
	/* not on the landing: no correction in use */
	assert_near(rf_land_correction(&r, t, NULL), 0.0, 0.0);
	feed(&r, &t, 1, 9.2f, 0.0f, 12.0f, 1.0f, 12.2f, true, &engaged);
	assert_true(engaged);
	assert_true(r.in_use);
	/* the correction: the estimate's 12.2 m over the point less the 9.2 m
	 * measured; its last refresh was within 5 s, so low-passed from the
	 * one before (9.0 - 9.3) */
	float c = rf_land_correction(&r, t, NULL);
	assert_true(c > -0.3f && c < 3.0f);
	/* held steady, it converges on 3 m within a second */
	feed(&r, &t, 20, 9.2f, 0.0f, 12.0f, 1.0f, 12.2f, true, NULL);
	assert_near(rf_land_correction(&r, t, NULL), 3.0, 1e-3);
}

static void test_the_height_is_the_range_times_cos_roll_cos_pitch(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	float cz = cosf(0.5f) * cosf(0.1f);
	feed(&r, &t, 30, 11.0f, -0.2f, 12.0f, cz, 4.0f, true, NULL);
	assert_true(r.in_range);
	assert_near(r.height_m, (11.0f - 0.2f * 29.0f) * cz, 1e-4);
	/* a beam that does not point at the ground ends the count */
	t += 50000;
	struct rf_reading rd = { .t_us = t, .good = true, .range_m = 5.0f, .max_m = 12.0f };
	rf_land_update(&r, &rd, -0.1f, 4.0f, true);
	assert_false(r.in_range);
	assert_int_equal(r.in_range_count, 0);
}

static void test_a_jump_of_a_fifth_of_the_range_starts_the_count_again(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	feed(&r, &t, 12, 11.0f, -0.1f, 12.0f, 1.0f, 9.0f, false, NULL);
	assert_true(r.in_range_count > 0);
	feed(&r, &t, 1, 3.0f, 0.0f, 12.0f, 1.0f, 9.0f, false, NULL);   /* 6.9 -> 3.0 m: > 2.4 m */
	assert_int_equal(r.in_range_count, 0);
	assert_false(r.in_range);
}

static void test_a_quiet_rangefinder_is_dropped_after_5_s_with_a_word(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	bool engaged = false;
	feed(&r, &t, 40, 11.0f, -0.2f, 12.0f, 1.0f, 2.0f, true, &engaged);
	assert_true(engaged);
	float c = rf_land_correction(&r, t, NULL);
	assert_true(fabsf(c) > 0.1f);
	/* bad readings: out of the count, but the correction is kept ... */
	t += 50000;
	struct rf_reading bad = { .t_us = t, .good = false, .range_m = 0.0f, .max_m = 12.0f };
	rf_land_update(&r, &bad, 1.0f, 2.0f, true);
	assert_false(r.in_range);
	enum rf_land_event ev;
	assert_near(rf_land_correction(&r, t + 4900000, &ev), c, 1e-6);
	assert_int_equal(ev, RF_LAND_NONE);
	/* ... for 5 s */
	assert_near(rf_land_correction(&r, t + 5100000, &ev), 0.0, 0.0);
	assert_int_equal(ev, RF_LAND_LOST);
	assert_near(rf_land_correction(&r, t + 5200000, &ev), 0.0, 0.0);
	assert_int_equal(ev, RF_LAND_NONE);
}

/* A 120 m lidar whose first reading was on the ground (0.3 m): one dropout
 * at 6 m must not keep it out (5 % of 120 m is 6 m from that reading). */
static void test_after_a_dropout_ten_good_readings_bring_it_back(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	feed(&r, &t, 5, 0.3f, 0.0f, 120.0f, 1.0f, 0.0f, false, NULL);
	feed(&r, &t, 30, 30.0f, -0.5f, 120.0f, 1.0f, 30.0f, true, NULL);
	assert_true(r.in_use);
	t += 50000;
	struct rf_reading bad = { .t_us = t, .good = false, .range_m = 0.0f, .max_m = 120.0f };
	rf_land_update(&r, &bad, 1.0f, 6.0f, true);
	assert_false(r.in_range);
	feed(&r, &t, 11, 5.9f, -0.05f, 120.0f, 1.0f, 6.0f, true, NULL);
	assert_true(r.in_range);
	assert_true(r.correction_t_us == t);   /* the correction is fresh again */
}

static void test_a_correction_that_runs_away_30_m_disengages(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	bool engaged = false;
	feed(&r, &t, 30, 100.0f, -1.0f, 120.0f, 1.0f, 70.0f, true, &engaged);
	assert_true(engaged);
	/* the estimate says 70 m; the lidar now reads 35 m less and less */
	enum rf_land_event e = feed(&r, &t, 25, 70.0f, -1.0f, 120.0f, 1.0f, 70.0f, true, NULL);
	assert_int_equal(e, RF_LAND_DISENGAGED);
	assert_false(r.in_use);
	assert_near(rf_land_correction(&r, t, NULL), 0.0, 0.0);
}

static void test_old_and_repeated_readings_are_taken_once(void **state)
{
	(void)state;
	struct rf_land r;
	rf_land_init(&r);
	uint64_t t = 0;
	feed(&r, &t, 30, 11.0f, -0.2f, 12.0f, 1.0f, 4.0f, true, NULL);
	int n = r.in_range_count;
	struct rf_reading same = { .t_us = t, .good = false, .range_m = 1.0f, .max_m = 12.0f };
	assert_int_equal(rf_land_update(&r, &same, 1.0f, 4.0f, true), RF_LAND_NONE);
	assert_true(r.in_range);
	assert_int_equal(r.in_range_count, n);
	struct rf_reading none = { 0 };
	assert_int_equal(rf_land_update(&r, &none, 1.0f, 4.0f, true), RF_LAND_NONE);
	assert_true(r.in_range);
	/* garbage: not a number, negative */
	struct rf_reading nan_rd = { .t_us = t + 1, .good = true, .range_m = NAN, .max_m = 12.0f };
	rf_land_update(&r, &nan_rd, 1.0f, 4.0f, true);
	assert_false(r.in_range);
	assert_true(isfinite(rf_land_correction(&r, t + 1, NULL)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_stuck_lidar_is_never_in_range),
		cmocka_unit_test(test_a_descent_counts_in_and_engages_on_the_landing_only),
		cmocka_unit_test(test_the_height_is_the_range_times_cos_roll_cos_pitch),
		cmocka_unit_test(test_a_jump_of_a_fifth_of_the_range_starts_the_count_again),
		cmocka_unit_test(test_a_quiet_rangefinder_is_dropped_after_5_s_with_a_word),
		cmocka_unit_test(test_after_a_dropout_ten_good_readings_bring_it_back),
		cmocka_unit_test(test_a_correction_that_runs_away_30_m_disengages),
		cmocka_unit_test(test_old_and_repeated_readings_are_taken_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
