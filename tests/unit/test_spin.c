// SPDX-License-Identifier: GPL-3.0-or-later
/* The lock-step spin's judge (util/spin.h): off after a bad window, longer each time, back after a good one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/spin.h"

static void frames(struct spin_judge *j, unsigned int n, unsigned int misses)
{
	for (unsigned int i = 0; i < n; i++)
		spin_judge_frame(j, i >= misses);
}

static void test_spin_judge_turns_off_after_a_bad_window_for_longer_each_time(void **state)
{
	struct spin_judge j;
	spin_judge_init(&j, 200000);
	assert_int_equal(j.spin_ns, 200000);
	frames(&j, SPIN_WINDOW, SPIN_MISSES);         /* as many misses as allowed: stays on */
	assert_int_equal(j.spin_ns, 200000);
	frames(&j, SPIN_WINDOW, SPIN_MISSES + 1);     /* one more: off */
	assert_int_equal(j.spin_ns, 0);
	assert_int_equal(j.offs, 1);
	frames(&j, SPIN_OFF - 1, 0);
	assert_int_equal(j.spin_ns, 0);
	frames(&j, 1, 0);                             /* SPIN_OFF frames later: tried again */
	assert_int_equal(j.spin_ns, 200000);
	frames(&j, SPIN_WINDOW, SPIN_WINDOW);         /* bad again: off twice as long */
	frames(&j, 2 * SPIN_OFF - 1, 0);
	assert_int_equal(j.spin_ns, 0);
	frames(&j, 1, 0);
	assert_int_equal(j.spin_ns, 200000);
	assert_int_equal(j.offs, 2);
	/* A good window brings the next turn-off back to SPIN_OFF. */
	frames(&j, SPIN_WINDOW, 0);
	frames(&j, SPIN_WINDOW, SPIN_WINDOW);
	frames(&j, SPIN_OFF, 0);
	assert_int_equal(j.spin_ns, 200000);
}

static void test_spin_judge_grows_to_its_longest_and_no_further(void **state)
{
	struct spin_judge j;
	spin_judge_init(&j, 1000);
	for (int i = 0; i < 10; i++) {
		frames(&j, SPIN_WINDOW, SPIN_WINDOW);
		frames(&j, j.off_left, 0);
	}
	assert_int_equal(j.off_next, SPIN_OFF_MAX);
	assert_int_equal(j.offs, 10);
}

static void test_spin_judge_with_no_bound_never_spins(void **state)
{
	struct spin_judge j;
	spin_judge_init(&j, 0);
	frames(&j, 10 * SPIN_WINDOW, 10 * SPIN_WINDOW);
	assert_int_equal(j.spin_ns, 0);
	assert_int_equal(j.offs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_judge_turns_off_after_a_bad_window_for_longer_each_time),
		cmocka_unit_test(test_spin_judge_grows_to_its_longest_and_no_further),
		cmocka_unit_test(test_spin_judge_with_no_bound_never_spins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
