// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nav/nav.h"

static void test_nav_placeholder(void **state)
{
	(void)state;
	struct nav_params p;
	nav_params_default(&p);
	assert_true(p.wp_radius > 0.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_nav_placeholder) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
