// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vehicle/vehicle.h"

static struct vehicle v;
static char why[64];

static void test_vehicle_stays_initialising_without_an_attitude(void **state)
{
	vehicle_init(&v, VEHICLE_PLANE);
	assert_int_equal(v.mode, PLANE_INITIALISING);
	vehicle_update(&v, 0, 0);
	assert_int_equal(vehicle_set_mode(&v, PLANE_MANUAL, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "MANUAL refused: still initialising (no attitude estimate)");
	assert_int_equal(vehicle_arm(&v, true, true, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "Arm: still initialising (no attitude estimate)");
	assert_false(v.armed);
}

static void test_vehicle_modes_need_what_they_fly_by(void **state)
{
	vehicle_init(&v, VEHICLE_PLANE);
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID, 0);
	assert_int_equal(v.mode, PLANE_MANUAL);
	assert_int_equal(vehicle_set_mode(&v, PLANE_FBWA, why, sizeof(why)), 0);
	assert_int_equal(vehicle_set_mode(&v, PLANE_FBWB, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "FBWB refused: no altitude estimate");
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, 1);
	assert_int_equal(vehicle_set_mode(&v, PLANE_AUTO, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "AUTO refused: home not set");
	v.home_set = true;
	assert_int_equal(vehicle_set_mode(&v, PLANE_AUTO, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "AUTO refused: no mission");
	vehicle_update(&v, v.valid, 5);
	assert_int_equal(vehicle_set_mode(&v, PLANE_AUTO, why, sizeof(why)), 0);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(vehicle_set_mode(&v, 9, why, sizeof(why)), -EINVAL);
	assert_int_equal(vehicle_set_mode(&v, PLANE_INITIALISING, why, sizeof(why)), -EINVAL);
	assert_string_equal(vehicle_mode_name(VEHICLE_PLANE, PLANE_FBWA), "FBWA");
	assert_null(vehicle_mode_name(VEHICLE_PLANE, 9));
}

/* ArduCopter's numbers and names; it starts in STABILIZE; LAND flies on the
 * heights alone; AUTO, RTL, LAND and BRAKE do not arm. */
static void test_vehicle_copter_modes_are_arducopters(void **state)
{
	vehicle_init(&v, VEHICLE_COPTER);
	assert_int_equal(v.mode, COPTER_STABILIZE);
	assert_true(v.initialising);
	assert_int_equal(vehicle_arm(&v, true, true, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "Arm: still initialising (no attitude estimate)");
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID, 0);
	assert_false(v.initialising);
	assert_int_equal(v.mode, COPTER_STABILIZE);
	assert_int_equal(vehicle_set_mode(&v, COPTER_ALT_HOLD, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "ALT_HOLD refused: no altitude estimate");
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID, 0);
	assert_int_equal(vehicle_set_mode(&v, COPTER_LAND, why, sizeof(why)), 0);
	assert_int_equal(vehicle_arm(&v, true, false, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "Arm: mode not armable");
	assert_int_equal(vehicle_set_mode(&v, COPTER_LOITER, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "LOITER refused: no position estimate");
	assert_int_equal(vehicle_set_mode(&v, 8, why, sizeof(why)), -EINVAL);  /* none: ArduCopter retired 8 */
	assert_int_equal(vehicle_set_mode(&v, COPTER_ALT_HOLD, why, sizeof(why)), 0);
	assert_int_equal(vehicle_arm(&v, true, false, 0, why, sizeof(why)), 0);
	assert_string_equal(vehicle_mode_name(VEHICLE_COPTER, COPTER_POSHOLD), "POSHOLD");
	assert_string_equal(vehicle_mode_name(VEHICLE_COPTER, COPTER_AUTO), "AUTO");
	assert_null(vehicle_mode_name(VEHICLE_COPTER, 8));
	assert_int_equal(vehicle_role_mode(VEHICLE_COPTER, VEHICLE_ROLE_GUIDED), COPTER_GUIDED);
	assert_int_equal(vehicle_role_mode(VEHICLE_PLANE, VEHICLE_ROLE_GUIDED), PLANE_GUIDED);
	assert_int_equal(vehicle_role_mode(VEHICLE_COPTER, VEHICLE_ROLE_AUTO), COPTER_AUTO);
	assert_int_equal(vehicle_role_mode(VEHICLE_PLANE, VEHICLE_ROLE_AUTO), PLANE_AUTO);
	assert_int_equal(vehicle_role_mode(VEHICLE_COPTER, VEHICLE_ROLE_RTL), COPTER_RTL);
	assert_int_equal(vehicle_role_mode(VEHICLE_PLANE, VEHICLE_ROLE_RTL), PLANE_RTL);
}

static void test_vehicle_arming_checks_and_force(void **state)
{
	vehicle_init(&v, VEHICLE_PLANE);
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID, 0);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "PreArm: no altitude estimate");
	assert_int_equal(vehicle_arm(&v, true, false, 0, why, sizeof(why)), 0);  /* checks off */
	assert_true(v.armed);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);  /* again: same */
	assert_int_equal(vehicle_arm(&v, false, false, 1, why, sizeof(why)), 0);
	assert_false(v.armed);
	assert_int_equal(vehicle_arm(&v, true, true, 1, why, sizeof(why)), 0);   /* forced */
	assert_true(v.armed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vehicle_stays_initialising_without_an_attitude),
		cmocka_unit_test(test_vehicle_modes_need_what_they_fly_by),
		cmocka_unit_test(test_vehicle_arming_checks_and_force),
		cmocka_unit_test(test_vehicle_copter_modes_are_arducopters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
