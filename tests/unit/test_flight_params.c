// SPDX-License-Identifier: GPL-3.0-or-later
/* The parameter table and the flight code's structs agree: every bound name
 * exists, its default is the struct's default, and a set reaches the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <string.h>

#include "daemon/flight_params.h"
#include "param/param.h"

static void test_flight_params_defaults_are_the_structs(void **state)
{
	param_init(PARAM_PLANE);
	struct plane_params def, loaded;
	plane_params_default(&def);
	memset(&loaded, 0, sizeof(loaded));
	plane_params_default(&loaded);
	/* Poison every bound field, so a load that skips one shows. */
	for (unsigned int i = 0; i < flight_param_count; i++)
		for (unsigned int k = 0; k < flight_param_binds[i].n; k++) {
			float poison = -12345.0f;
			memcpy((char *)&loaded + flight_param_binds[i].off[k], &poison, sizeof(poison));
		}
	assert_int_equal(flight_params_load(&loaded), 0);
	for (unsigned int i = 0; i < flight_param_count; i++)
		for (unsigned int k = 0; k < flight_param_binds[i].n; k++) {
			float a, b;
			size_t off = flight_param_binds[i].off[k];
			memcpy(&a, (char *)&def + off, sizeof(a));
			memcpy(&b, (char *)&loaded + off, sizeof(b));
			if (a != b)
				fail_msg("%s: parameter default %g, struct default %g",
					 flight_param_binds[i].name, (double)b, (double)a);
		}
}

static void test_flight_params_are_sorted_and_reach_their_fields(void **state)
{
	for (unsigned int i = 1; i < flight_param_count; i++)
		assert_true(strcmp(flight_param_binds[i - 1].name, flight_param_binds[i].name) < 0);
	param_init(PARAM_PLANE);
	assert_int_equal(param_set(param_find("ARSPD_FBW_MIN"), 13), 0);
	assert_int_equal(param_set(param_find("ALT_HOLD_RTL"), 8000), 0);
	assert_int_equal(param_set(param_find("SERVO3_MIN"), 1000), 0);
	struct plane_params pp;
	plane_params_default(&pp);
	flight_params_load(&pp);
	assert_true(pp.nav.tecs.arspd_fbw_min == 13.0f && pp.ctl.arspd_fbw_min == 13.0f);
	assert_true(pp.mexec.rtl_alt_m == 80.0f);
	assert_true(pp.servo.ch[2].servo_min == 1000.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flight_params_defaults_are_the_structs),
		cmocka_unit_test(test_flight_params_are_sorted_and_reach_their_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
