// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mavlink/gcs_health.h"

#define NOW 100000000u   /* 100 s */

/* A plane in FBWA with every sensor speaking, armed, all well. */
static struct gcs_health_in all_well(void)
{
	return (struct gcs_health_in){
		.now_us = NOW, .imu_us = NOW - 1000, .baro_us = NOW - 20000, .mag_us = NOW - 50000,
		.airspeed_us = NOW - 20000, .gps_us = NOW - 200000, .battery_us = NOW - 100000,
		.rc_us = NOW - 20000, .gps_fix_type = 3, .attitude_valid = true,
		.servo_outputs = true, .log_wanted = true, .log_ok = true, .prearm_ok = true,
		.armed = true, .mode = PLANE_FBWA,
	};
}

static struct gcs_health bits(const struct gcs_health_in *in)
{
	struct gcs_health o;
	gcs_health_bits(in, &o);
	return o;
}

static void test_health_all_well_says_every_sensor_present_enabled_and_healthy(void **state)
{
	struct gcs_health_in in = all_well();
	struct gcs_health o = bits(&in);
	const uint32_t sensors = GCS_SENSOR_GYRO | GCS_SENSOR_ACCEL | GCS_SENSOR_MAG |
				 GCS_SENSOR_BARO | GCS_SENSOR_AIRSPEED | GCS_SENSOR_GPS |
				 GCS_SENSOR_RC_RECEIVER | GCS_SENSOR_AHRS | GCS_SENSOR_LOGGING |
				 GCS_SENSOR_BATTERY | GCS_SENSOR_PREARM_CHECK | GCS_SENSOR_MOTOR_OUTPUTS;
	assert_int_equal(o.present & sensors, sensors);
	assert_int_equal(o.enabled & sensors, sensors);
	assert_int_equal(o.health & sensors, sensors);
	/* Every present bit is healthy (MAVProxy and QGroundControl flag the rest). */
	assert_int_equal(o.present & ~o.health, 0);
	/* No fence: not present, not enabled, and healthy (a clear bit reads as a breach). */
	assert_int_equal(o.present & GCS_SENSOR_GEOFENCE, 0);
	assert_int_equal(o.enabled & GCS_SENSOR_GEOFENCE, 0);
	assert_int_equal(o.health & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
}

static void test_health_a_sensor_that_stops_is_unhealthy_but_still_present(void **state)
{
	/* In the order of the sample times below. */
	const struct {
		uint32_t bit;
		uint64_t max_us;
	} cases[] = {
		{ GCS_SENSOR_BARO, GCS_HEALTH_FAST_US },
		{ GCS_SENSOR_MAG, GCS_HEALTH_FAST_US },
		{ GCS_SENSOR_AIRSPEED, GCS_HEALTH_FAST_US },
		{ GCS_SENSOR_GPS, GCS_HEALTH_GPS_US },
		{ GCS_SENSOR_BATTERY, GCS_HEALTH_BATTERY_US },
		{ GCS_SENSOR_GYRO | GCS_SENSOR_ACCEL, GCS_HEALTH_FAST_US },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gcs_health_in in = all_well();
		uint64_t *t[] = { &in.baro_us, &in.mag_us, &in.airspeed_us, &in.gps_us,
				  &in.battery_us, &in.imu_us };
		/* Just within its time: healthy; just past it: not, and still present. */
		*t[i] = NOW - cases[i].max_us;
		assert_int_equal(bits(&in).health & cases[i].bit, cases[i].bit);
		*t[i] = NOW - cases[i].max_us - 1;
		struct gcs_health o = bits(&in);
		assert_int_equal(o.health & cases[i].bit, 0);
		assert_int_equal(o.present & cases[i].bit, cases[i].bit);
		assert_int_equal(o.enabled & cases[i].bit, cases[i].bit);
		/* Nothing else changed. */
		struct gcs_health_in well = all_well();
		assert_int_equal(o.health | cases[i].bit, bits(&well).health);
	}
}

static void test_health_sensors_never_heard_are_not_present(void **state)
{
	struct gcs_health_in in = { .now_us = NOW, .mode = PLANE_INITIALISING };
	struct gcs_health o = bits(&in);
	/* A board always has an IMU and a barometer: present, and failing when silent. */
	const uint32_t always = GCS_SENSOR_GYRO | GCS_SENSOR_ACCEL | GCS_SENSOR_BARO |
				GCS_SENSOR_AHRS | GCS_SENSOR_PREARM_CHECK;
	assert_int_equal(o.present & always, always);
	assert_int_equal(o.health & always, 0);
	const uint32_t heard = GCS_SENSOR_MAG | GCS_SENSOR_AIRSPEED | GCS_SENSOR_GPS |
			       GCS_SENSOR_RC_RECEIVER | GCS_SENSOR_BATTERY | GCS_SENSOR_MOTOR_OUTPUTS |
			       GCS_SENSOR_LOGGING;
	assert_int_equal(o.present & heard, 0);
	assert_int_equal(o.enabled & heard, 0);
}

static void test_health_gps_needs_a_3d_fix_and_rc_its_frames(void **state)
{
	struct gcs_health_in in = all_well();
	in.gps_fix_type = 2;
	assert_int_equal(bits(&in).health & GCS_SENSOR_GPS, 0);
	assert_int_equal(bits(&in).present & GCS_SENSOR_GPS, GCS_SENSOR_GPS);
	in = all_well();
	in.rc_bad = true;
	assert_int_equal(bits(&in).health & GCS_SENSOR_RC_RECEIVER, 0);
	assert_int_equal(bits(&in).present & GCS_SENSOR_RC_RECEIVER, GCS_SENSOR_RC_RECEIVER);
}

static void test_health_subsystems(void **state)
{
	struct gcs_health_in in = all_well();
	in.attitude_valid = false;
	assert_int_equal(bits(&in).health & GCS_SENSOR_AHRS, 0);
	in = all_well();
	in.battery_failsafe = true;
	assert_int_equal(bits(&in).health & GCS_SENSOR_BATTERY, 0);
	in = all_well();
	in.log_ok = false;
	assert_int_equal(bits(&in).health & GCS_SENSOR_LOGGING, 0);
	in.log_wanted = false;   /* no log asked for: none to fail */
	assert_int_equal(bits(&in).present & GCS_SENSOR_LOGGING, 0);
	assert_int_equal(bits(&in).health & GCS_SENSOR_LOGGING, GCS_SENSOR_LOGGING);
	/* Pre-arm: failing checks show on the ground, not once armed. */
	in = all_well();
	in.prearm_ok = false;
	assert_int_equal(bits(&in).health & GCS_SENSOR_PREARM_CHECK, GCS_SENSOR_PREARM_CHECK);
	in.armed = false;
	assert_int_equal(bits(&in).health & GCS_SENSOR_PREARM_CHECK, 0);
	/* Motor outputs enabled while armed. */
	assert_int_equal(bits(&in).enabled & GCS_SENSOR_MOTOR_OUTPUTS, 0);
}

static void test_health_controllers_enabled_as_the_mode_flies(void **state)
{
	const uint32_t rate = GCS_SENSOR_RATE_CONTROL, att = GCS_SENSOR_ATTITUDE_STAB,
		       z = GCS_SENSOR_Z_ALTITUDE,
		       nav = GCS_SENSOR_YAW_POSITION | GCS_SENSOR_XY_POSITION;
	const uint32_t ctl = rate | att | z | nav;
	const struct {
		enum plane_mode m;
		uint32_t enabled;
	} cases[] = {
		{ PLANE_MANUAL, 0 }, { PLANE_ACRO, rate }, { PLANE_STABILIZE, rate | att },
		{ PLANE_FBWA, rate | att }, { PLANE_FBWB, rate | att | z },
		{ PLANE_CRUISE, rate | att | z }, { PLANE_AUTO, ctl }, { PLANE_RTL, ctl },
		{ PLANE_LOITER, ctl }, { PLANE_CIRCLE, ctl }, { PLANE_GUIDED, ctl },
		{ PLANE_TAKEOFF, ctl }, { PLANE_INITIALISING, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gcs_health_in in = all_well();
		in.mode = cases[i].m;
		struct gcs_health o = bits(&in);
		assert_int_equal(o.enabled & ctl, cases[i].enabled);
		assert_int_equal(o.present & ctl, ctl);
		assert_int_equal(o.health & ctl, ctl);
	}
}

static void test_health_takes_in_the_boards_own_account(void **state)
{
	struct gcs_health_in in = all_well();
	/* The board drives a compass that has never spoken, and says its baro failed. */
	in.mag_us = 0;
	in.board_present = in.board_enabled = GCS_SENSOR_MAG | GCS_SENSOR_BARO | GCS_SENSOR_GYRO;
	in.board_health = GCS_SENSOR_GYRO;
	struct gcs_health o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_MAG, GCS_SENSOR_MAG);
	assert_int_equal(o.enabled & GCS_SENSOR_MAG, GCS_SENSOR_MAG);
	assert_int_equal(o.health & (GCS_SENSOR_MAG | GCS_SENSOR_BARO), 0);
	assert_int_equal(o.health & GCS_SENSOR_GYRO, GCS_SENSOR_GYRO);
	/* Healthy to the driver but silent to the flight: not healthy. */
	in.board_health = GCS_SENSOR_GYRO | GCS_SENSOR_BARO;
	in.baro_us = NOW - GCS_HEALTH_FAST_US - 1;
	assert_int_equal(bits(&in).health & GCS_SENSOR_BARO, 0);
	in.baro_us = NOW;
	assert_int_equal(bits(&in).health & GCS_SENSOR_BARO, GCS_SENSOR_BARO);
}

static void test_health_geofence_as_arduplane(void **state)
{
	struct gcs_health_in in = all_well();
	in.fence_present = true;            /* a fence stored, FENCE_ENABLE 0 */
	struct gcs_health o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
	assert_int_equal(o.enabled & GCS_SENSOR_GEOFENCE, 0);
	assert_int_equal(o.health & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
	in.fence_enabled = true;
	o = bits(&in);
	assert_int_equal(o.enabled & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
	assert_int_equal(o.health & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
	in.fence_breached = true;
	o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_GEOFENCE, GCS_SENSOR_GEOFENCE);
	assert_int_equal(o.health & GCS_SENSOR_GEOFENCE, 0);
}

/* MAV_SYS_STATUS_SENSOR_LASER_POSITION: present with RNGFND1_TYPE, healthy
 * while it has data; on a board, also as its driver says. */
static void test_health_rangefinder_as_arduplane(void **state)
{
	struct gcs_health_in in = all_well();
	struct gcs_health o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_LASER_POSITION, 0);
	assert_int_equal(GCS_SENSOR_LASER_POSITION, 0x100);
	in.rangefinder = true;
	o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_LASER_POSITION, GCS_SENSOR_LASER_POSITION);
	assert_int_equal(o.enabled & GCS_SENSOR_LASER_POSITION, GCS_SENSOR_LASER_POSITION);
	assert_int_equal(o.health & GCS_SENSOR_LASER_POSITION, 0);
	in.rangefinder_data = true;
	assert_int_equal(bits(&in).health & GCS_SENSOR_LASER_POSITION, GCS_SENSOR_LASER_POSITION);
	in.board_present = in.board_enabled = GCS_SENSOR_LASER_POSITION;
	in.board_health = 0;   /* its driver has seen no reading for 500 ms */
	assert_int_equal(bits(&in).health & GCS_SENSOR_LASER_POSITION, 0);
}

static void test_health_an_airspeed_sensor_declared_unhealthy_is_present_not_enabled_not_healthy(void **state)
{
	struct gcs_health_in in = all_well();
	in.airspeed_disabled = true;
	struct gcs_health o = bits(&in);
	assert_int_equal(o.present & GCS_SENSOR_AIRSPEED, GCS_SENSOR_AIRSPEED);
	assert_int_equal(o.enabled & GCS_SENSOR_AIRSPEED, 0);
	assert_int_equal(o.health & GCS_SENSOR_AIRSPEED, 0);
	/* the others as they were */
	assert_int_equal(o.health & GCS_SENSOR_BARO, GCS_SENSOR_BARO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_all_well_says_every_sensor_present_enabled_and_healthy),
		cmocka_unit_test(test_health_a_sensor_that_stops_is_unhealthy_but_still_present),
		cmocka_unit_test(test_health_sensors_never_heard_are_not_present),
		cmocka_unit_test(test_health_gps_needs_a_3d_fix_and_rc_its_frames),
		cmocka_unit_test(test_health_subsystems),
		cmocka_unit_test(test_health_controllers_enabled_as_the_mode_flies),
		cmocka_unit_test(test_health_takes_in_the_boards_own_account),
		cmocka_unit_test(test_health_geofence_as_arduplane),
		cmocka_unit_test(test_health_rangefinder_as_arduplane),
		cmocka_unit_test(test_health_an_airspeed_sensor_declared_unhealthy_is_present_not_enabled_not_healthy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
