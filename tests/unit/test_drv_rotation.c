// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "drivers/rotation.h"

static int det3(const struct rotation_matrix *r)
{
	const int8_t (*m)[3] = r->m;

	return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
	       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
	       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

static void test_rotation_names_are_the_24_distinct_proper_rotations(void **state)
{
	(void)state;
	for (int a = ROTATION_NONE; a < ROTATION_COUNT; a++) {
		struct rotation_matrix ma = rotation_matrix_of((enum rotation)a);
		assert_int_equal(det3(&ma), 1);
		for (int b = a + 1; b < ROTATION_COUNT; b++) {
			struct rotation_matrix mb = rotation_matrix_of((enum rotation)b);
			assert_true(memcmp(&ma, &mb, sizeof(ma)) != 0);
		}
	}
	assert_int_equal(ROTATION_COUNT - ROTATION_NONE, 24);
}

static void test_rotation_yaw_90_turns_x_onto_y(void **state)
{
	(void)state;
	struct rotation_matrix m = rotation_matrix_of(ROTATION_YAW_90);
	float v[3] = { 1, 2, 3 };

	rotation_apply(&m, v, v);
	assert_float_equal(v[0], -2, 0);
	assert_float_equal(v[1], 1, 0);
	assert_float_equal(v[2], 3, 0);
}

static void test_rotation_roll_180_yaw_90_swaps_x_and_y_and_negates_z(void **state)
{
	(void)state;
	struct rotation_matrix m = rotation_matrix_of(ROTATION_ROLL_180_YAW_90);
	const float in[3] = { 1, 2, 3 };
	float out[3];

	rotation_apply(&m, in, out);
	assert_float_equal(out[0], 2, 0);
	assert_float_equal(out[1], 1, 0);
	assert_float_equal(out[2], -3, 0);
}

static void test_rotation_pitch_90_turns_x_onto_minus_z(void **state)
{
	(void)state;
	struct rotation_matrix m = rotation_matrix_of(ROTATION_PITCH_90);
	const float in[3] = { 1, 0, 0 };
	float out[3];

	rotation_apply(&m, in, out);
	assert_float_equal(out[0], 0, 0);
	assert_float_equal(out[2], -1, 0);
}

static void test_rotation_compose_is_closed_and_matches_applying_twice(void **state)
{
	(void)state;
	const float v[3] = { 1, 2, 3 };

	for (int a = ROTATION_NONE; a < ROTATION_COUNT; a++)
		for (int b = ROTATION_NONE; b < ROTATION_COUNT; b++) {
			struct rotation_matrix ma = rotation_matrix_of((enum rotation)a);
			struct rotation_matrix mb = rotation_matrix_of((enum rotation)b);
			enum rotation c = rotation_compose((enum rotation)a, (enum rotation)b);
			struct rotation_matrix mc = rotation_matrix_of(c);
			float twice[3], once[3];

			rotation_apply(&ma, v, twice);
			rotation_apply(&mb, twice, twice);
			rotation_apply(&mc, v, once);
			assert_memory_equal(twice, once, sizeof(once));
		}
	/* ROLL_180_YAW_90 twice is no rotation at all. */
	assert_int_equal(rotation_compose(ROTATION_ROLL_180_YAW_90, ROTATION_ROLL_180_YAW_90),
			 ROTATION_NONE);
}

static void test_rotation_zero_and_count_are_not_valid(void **state)
{
	(void)state;
	assert_false(rotation_is_valid((enum rotation)0));
	assert_false(rotation_is_valid(ROTATION_COUNT));
	assert_true(rotation_is_valid(ROTATION_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotation_names_are_the_24_distinct_proper_rotations),
		cmocka_unit_test(test_rotation_yaw_90_turns_x_onto_y),
		cmocka_unit_test(test_rotation_roll_180_yaw_90_swaps_x_and_y_and_negates_z),
		cmocka_unit_test(test_rotation_pitch_90_turns_x_onto_minus_z),
		cmocka_unit_test(test_rotation_compose_is_closed_and_matches_applying_twice),
		cmocka_unit_test(test_rotation_zero_and_count_are_not_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
