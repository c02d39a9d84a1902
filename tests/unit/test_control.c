// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "control/servo.h"

static void test_control_placeholder(void **state)
{
	(void)state;
	struct servo_params p;
	servo_params_default(&p);
	assert_true(p.mixing_gain > 0.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_control_placeholder) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
