// SPDX-License-Identifier: GPL-3.0-or-later
/* The parameter table and struct copter_params agree: every bound name is a
 * copter parameter, every PARAM_COPTER row is bound, the table's defaults
 * are the struct's, and a set reaches its fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <string.h>

#include "daemon/copter_params.h"
#include "param/param.h"
#include "param/param_table.h"

static void test_copter_params_defaults_are_the_structs(void **state)
{
	(void)state;
	param_init(PARAM_COPTER);
	struct copter_params def, loaded;
	copter_params_default(&def);
	copter_params_default(&loaded);
	/* Poison every bound field, so a load that skips one shows. */
	for (unsigned int i = 0; i < copter_param_count; i++)
		for (unsigned int k = 0; k < copter_param_binds[i].n; k++) {
			float poison = -12345.0f;
			memcpy((char *)&loaded + copter_param_binds[i].off[k], &poison, sizeof(poison));
		}
	assert_int_equal(copter_params_load(&loaded), 0);
	for (unsigned int i = 0; i < copter_param_count; i++)
		for (unsigned int k = 0; k < copter_param_binds[i].n; k++) {
			float a, b;
			size_t off = copter_param_binds[i].off[k];
			memcpy(&a, (char *)&def + off, sizeof(a));
			memcpy(&b, (char *)&loaded + off, sizeof(b));
			if (a != b)
				fail_msg("%s: parameter default %g, struct default %g",
					 copter_param_binds[i].name, (double)b, (double)a);
		}
}

static void test_copter_params_bind_every_copter_row(void **state)
{
	(void)state;
	for (unsigned int i = 1; i < copter_param_count; i++)
		assert_true(strcmp(copter_param_binds[i - 1].name, copter_param_binds[i].name) < 0);
	for (unsigned int i = 0; i < param_table_count; i++) {
		if (param_table[i].only != PARAM_COPTER)
			continue;
		bool bound = false;
		for (unsigned int k = 0; k < copter_param_count && !bound; k++)
			bound = strcmp(copter_param_binds[k].name, param_table[i].name) == 0;
		if (!bound)
			fail_msg("%s: a copter parameter bound to nothing", param_table[i].name);
	}
	/* the plane's own rows are not the copter's */
	param_init(PARAM_COPTER);
	assert_int_equal(param_find("TECS_LAND_SINK"), -1);
	assert_int_equal(param_get_by_name("FLTMODE_CH"), 5.0f);
	assert_int_equal(param_get_by_name("SERVO1_FUNCTION"), 33.0f);
	assert_int_equal(param_get_by_name("ARMING_RUDDER"), 2.0f);
	param_init(PARAM_PLANE);
	assert_true(param_find("WPNAV_SPEED") < 0);
	assert_int_equal(param_get_by_name("FLTMODE_CH"), 8.0f);
	assert_int_equal(param_get_by_name("SERVO1_FUNCTION"), 4.0f);
}

static void test_copter_params_reach_their_fields(void **state)
{
	(void)state;
	param_init(PARAM_COPTER);
	assert_int_equal(param_set(param_find("ANGLE_MAX"), 4500), 0);
	assert_int_equal(param_set(param_find("WPNAV_SPEED"), 500), 0);
	assert_int_equal(param_set(param_find("ATC_RAT_RLL_P"), 0.2f), 0);
	assert_int_equal(param_set(param_find("SERVO3_TRIM"), 1200), 0);
	assert_int_equal(param_set(param_find("RTL_ALT"), 3000), 0);
	struct copter_params cp;
	copter_params_default(&cp);
	assert_int_equal(copter_params_load(&cp), 0);
	assert_true(cp.atc.angle_max == 4500.0f && cp.psc.angle_max == 4500.0f);
	assert_true(cp.wpnav.wpnav_speed == 500.0f);
	assert_true(cp.atc.atc_rat_rll.p == 0.2f);
	assert_true(cp.servo.ch[2].servo_trim == 1200.0f);
	assert_true(cp.rtl_alt == 3000.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copter_params_defaults_are_the_structs),
		cmocka_unit_test(test_copter_params_bind_every_copter_row),
		cmocka_unit_test(test_copter_params_reach_their_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
