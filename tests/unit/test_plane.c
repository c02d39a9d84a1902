// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The plane's modes, failsafes and arming checks, step by step with the real
 * navigation and control code: what the pilot's switch does, what happens
 * when RC, the ground station, the battery or the position goes away.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "vehicle/plane.h"

#define HOME_LAT (-35.3632610)
#define HOME_LON 149.1652300

static struct vehicle v;
static struct plane pl;
static struct plane_params pp;
static struct vehicle_input in;
static struct plane_output out;
static struct mission mis;

static void rc_set(uint16_t roll, uint16_t pitch, uint16_t thr, uint16_t yaw, uint16_t mode)
{
	in.rc = (struct rc_frame){ .timestamp_us = in.now_us, .channel_count = 8,
				   .protocol = RC_PROTOCOL_HIL };
	const uint16_t ch[8] = { roll, pitch, thr, yaw, 1500, 1500, 1500, mode };
	memcpy(in.rc.channels_us, ch, sizeof(ch));
	in.rc_seen = true;
}

static void setup(void)
{
	vehicle_init(&v, VEHICLE_PLANE);
	plane_params_default(&pp);
	plane_init(&pl, &v);
	memset(&in, 0, sizeof(in));
	memset(&mis, 0, sizeof(mis));
	in.dt_s = 0.0025f;
	in.vs = (struct vehicle_state){
		.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID |
			 VEHICLE_AIRSPEED_VALID,
		.q = { 1, 0, 0, 0 }, .lat_deg = HOME_LAT, .lon_deg = HOME_LON, .alt_rel_m = 80,
		.alt_msl_m = 664, .vel_ned_m_s = { 16, 0, 0 }, .airspeed_m_s = 16,
	};
	in.estimator_converged = true;
	in.gps_fix = true;
	in.home_set = true;
	in.home = (struct nav_wp){ HOME_LAT, HOME_LON, 0 };
	in.home_alt_msl_m = 584;
	in.batt_voltage_v = NAN;
	in.batt_used_mah = NAN;
	in.mission = &mis;
	rc_set(1500, 1500, 1100, 1500, 1000);     /* switch position 1: MANUAL */
	v.home_set = true;
	vehicle_update(&v, in.vs.valid, 0);
}

/* Runs the plane for seconds of steps, RC frames fresh (or not) as rc_on says. */
static void run(double seconds, bool rc_on)
{
	for (double t = 0; t < seconds; t += (double)in.dt_s) {
		in.now_us += 2500;
		if (rc_on)
			in.rc.timestamp_us = in.now_us;
		vehicle_update(&v, in.vs.valid, mis.count);
		plane_step(&pl, &pp, &in, &out);
	}
}

static void test_plane_switch_bands_are_arduplanes(void **state)
{
	assert_int_equal(plane_switch_position(1000), 0);
	assert_int_equal(plane_switch_position(1230), 0);
	assert_int_equal(plane_switch_position(1231), 1);
	assert_int_equal(plane_switch_position(1490), 2);
	assert_int_equal(plane_switch_position(1620), 3);
	assert_int_equal(plane_switch_position(1749), 4);
	assert_int_equal(plane_switch_position(1750), 5);
}

static void test_plane_manual_passes_the_sticks_through(void **state)
{
	setup();
	char why[96];
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	rc_set(1800, 1300, 1500, 1650, 1000);
	run(0.1, true);
	assert_int_equal(v.mode, PLANE_MANUAL);
	assert_int_equal(out.pwm_us[0], 1800);
	assert_int_equal(out.pwm_us[1], 1300);
	assert_int_equal(out.pwm_us[2], 1500);
	assert_int_equal(out.pwm_us[3], 1650);
	/* Disarmed: the motor stops, the surfaces still follow. */
	vehicle_arm(&v, false, false, 1, why, sizeof(why));
	run(0.1, true);
	assert_int_equal(out.pwm_us[2], 1100);
	assert_int_equal(out.pwm_us[0], 1800);
}

/* Initialising in the air: no attitude to fly by, so every surface holds its
 * SERVOn_TRIM (a trimmed plane glides wings level) and the motor its minimum,
 * whatever the sticks say (the pilot holding the rudder to arm). */
static void test_plane_holds_the_trims_and_the_motor_off_while_initialising(void **state)
{
	setup();
	pp.servo.ch[0].servo_trim = 1460;
	pp.servo.ch[1].servo_trim = 1560;
	pp.servo.ch[3].servo_trim = 1520;
	pp.servo.ch[2].servo_min = 1000;
	pp.servo.ch[2].servo_trim = 1000;
	vehicle_init(&v, VEHICLE_PLANE);
	plane_init(&pl, &v);
	v.home_set = true;                                /* the mission's, kept in the air */
	in.vs.valid = 0;                                  /* the estimator has not aligned */
	rc_set(1900, 1100, 1000, 2000, 1550);             /* sticks out, rudder right, AUTO */
	run(1.0, true);
	assert_int_equal(v.mode, PLANE_INITIALISING);
	assert_int_equal(out.pwm_us[0], 1460);
	assert_int_equal(out.pwm_us[1], 1560);
	assert_int_equal(out.pwm_us[2], 1000);
	assert_int_equal(out.pwm_us[3], 1520);
	char why[96];
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	/* aligned: the mode switch's AUTO is taken, and it flies the glide disarmed, motor off */
	in.vs.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID |
		      VEHICLE_AIRSPEED_VALID;
	mis.count = 3;
	mis.items[1] = (struct mission_item){ .command = 22, .frame = 3, .z = 40 };
	mis.items[2] = (struct mission_item){ .command = 16, .frame = 3, .z = 40,
					      .x = (int32_t)lround((HOME_LAT + 0.005) * 1e7),
					      .y = (int32_t)lround(HOME_LON * 1e7) };
	run(0.5, true);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_false(v.armed);
	assert_int_equal(out.pwm_us[2], 1000);
	assert_int_equal(pl.mexec.current, 2);          /* 80 m up: past the 40 m takeoff */
}

static void test_plane_fbwa_turns_sticks_into_attitude(void **state)
{
	setup();
	rc_set(1900, 1500, 1500, 1500, 1300);     /* position 2: FBWA, full right stick */
	run(0.05, true);
	assert_int_equal(v.mode, PLANE_FBWA);
	float lim = pp.nav.lim_roll_cd * 0.01f * (float)M_PI / 180.0f;
	assert_float_equal(out.roll_dem_rad, lim, 1e-4);
	assert_true(out.pwm_us[0] > 1500);         /* wings level now: aileron right */
	rc_set(1500, 1500, 1500, 1500, 1300);
	run(0.05, true);
	assert_float_equal(out.roll_dem_rad, 0, 1e-6);
	assert_float_equal(out.pitch_dem_rad, 0, 1e-6);
}

static void test_plane_refuses_a_mode_it_cannot_fly_and_says_why(void **state)
{
	setup();
	in.vs.valid &= ~VEHICLE_POSITION_VALID;
	rc_set(1500, 1500, 1500, 1500, 1400);     /* position 3: LOITER */
	vehicle_update(&v, in.vs.valid, 0);
	plane_step(&pl, &pp, &in, &out);
	assert_int_equal(v.mode, PLANE_MANUAL);
	assert_non_null(out.text);
	assert_non_null(strstr(out.text, "no position"));
	/* Once it can fly, the switch's mode is taken, without the pilot moving it again. */
	run(0.1, true);
	assert_int_equal(v.mode, PLANE_MANUAL);
	in.vs.valid |= VEHICLE_POSITION_VALID;
	run(0.01, true);
	assert_int_equal(v.mode, PLANE_LOITER);
}

static void test_plane_rc_loss_circles_then_returns(void **state)
{
	setup();
	rc_set(1500, 1500, 1500, 1500, 1300);     /* FBWA */
	run(0.1, true);
	assert_int_equal(v.mode, PLANE_FBWA);
	run(1.4, false);                            /* frames stop: not yet */
	assert_int_equal(v.mode, PLANE_FBWA);
	run(0.4, false);
	assert_int_equal(v.mode, PLANE_CIRCLE);
	assert_int_equal(pl.fs, PLANE_FS_SHORT);
	run(2.5, false);                            /* 4.3 s without RC: still circling */
	assert_int_equal(v.mode, PLANE_CIRCLE);
	run(0.8, false);
	assert_int_equal(v.mode, PLANE_RTL);
	assert_int_equal(pl.fs, PLANE_FS_LONG);
	assert_int_equal(pl.nav.task, NAV_TASK_LOITER);   /* at home */
	assert_float_equal(pl.nav.loiter_alt_m, pp.mexec.rtl_alt_m, 1e-3);
	/* The transmitter comes back: the pilot's switch rules again. */
	run(0.1, true);
	assert_int_equal(pl.fs, PLANE_FS_NONE);
	assert_int_equal(v.mode, PLANE_FBWA);
}

static void test_plane_throttle_below_fs_value_is_rc_loss(void **state)
{
	setup();
	rc_set(1500, 1500, 1500, 1500, 1300);
	run(0.1, true);
	rc_set(1500, 1500, 900, 1500, 1300);      /* receiver's failsafe throttle */
	run(2.0, true);
	assert_int_equal(v.mode, PLANE_CIRCLE);
	pp.thr_failsafe = 0;
	setup();
	pp.thr_failsafe = 0;
	rc_set(1500, 1500, 900, 1500, 1300);
	run(2.0, true);
	assert_int_equal(v.mode, PLANE_FBWA);
}

static void test_plane_auto_keeps_flying_through_a_short_rc_loss(void **state)
{
	setup();
	mis.count = 3;
	mis.items[1] = (struct mission_item){ .command = MAV_CMD_NAV_WAYPOINT, .frame = 3,
					      .x = -353600000, .y = 1491652300, .z = 80 };
	mis.items[2] = (struct mission_item){ .command = MAV_CMD_NAV_LOITER_UNLIM, .frame = 3,
					      .x = -353600000, .y = 1491700000, .z = 80 };
	rc_set(1500, 1500, 1500, 1500, 1600);     /* position 4: AUTO */
	run(0.1, true);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.nav.task, NAV_TASK_LEG);
	run(4.0, false);
	assert_int_equal(v.mode, PLANE_AUTO);      /* FS_LONG_ACTN 0: AUTO goes on */
	run(2.0, false);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.fs, PLANE_FS_LONG);
}

static void test_plane_gcs_loss_returns_home(void **state)
{
	setup();
	pp.fs_gcs_enabl = 1;
	rc_set(1500, 1500, 1500, 1500, 1400);     /* LOITER */
	in.gcs_heartbeat_us = 1;
	run(4.9, true);
	assert_int_equal(v.mode, PLANE_LOITER);
	run(0.2, true);
	assert_int_equal(v.mode, PLANE_RTL);
	assert_true(pl.gcs_fs);
}

static void test_plane_low_battery_lands_at_the_land_sequence(void **state)
{
	setup();
	char why[96];
	mis.count = 4;
	mis.items[1] = (struct mission_item){ .command = MAV_CMD_NAV_LOITER_UNLIM, .frame = 3,
					      .x = -353600000, .y = 1491652300, .z = 80 };
	mis.items[2] = (struct mission_item){ .command = MAV_CMD_DO_LAND_START };
	mis.items[3] = (struct mission_item){ .command = MAV_CMD_NAV_LAND, .frame = 3,
					      .x = -353632610, .y = 1491652300, .z = 0 };
	pp.fs_batt_voltage = 10.5f;
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	in.batt_voltage_v = 10.2f;
	run(9.5, true);
	assert_int_equal(v.mode, PLANE_LOITER);    /* a sag is not yet a failsafe */
	run(1.0, true);
	assert_true(pl.batt_fs);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.mexec.current, 3);
	assert_int_equal(pl.nav.task, NAV_TASK_LAND);
}

/* Two waypoints (the second the approach's start), DO_LAND_START and the LAND alone. */
static void mission_with_an_approach(void)
{
	mis.count = 5;
	mis.items[1] = (struct mission_item){ .command = MAV_CMD_NAV_WAYPOINT, .frame = 3,
					      .x = -353600000, .y = 1491652300, .z = 80 };
	mis.items[2] = (struct mission_item){ .command = MAV_CMD_NAV_WAYPOINT, .frame = 3,
					      .x = -353700000, .y = 1491652300, .z = 40 };
	mis.items[3] = (struct mission_item){ .command = MAV_CMD_DO_LAND_START };
	mis.items[4] = (struct mission_item){ .command = MAV_CMD_NAV_LAND, .frame = 3,
					      .x = -353632610, .y = 1491652300, .z = 0 };
}

/* A landing sequence that is the LAND alone is flown from the mission's waypoint before
 * it (its planned approach), not from wherever the failsafe found the plane. */
static void test_plane_failsafe_landing_flies_the_planned_approach(void **state)
{
	setup();
	char why[96];
	mission_with_an_approach();
	assert_int_equal(mexec_land_approach(&mis, 3), 2);
	pp.fs_batt_voltage = 10.5f;
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	in.batt_voltage_v = 10.2f;
	run(10.5, true);
	assert_true(pl.batt_fs);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.mexec.current, 2);
	assert_int_equal(pl.mexec.then_seq, 3);
	assert_int_equal(pl.nav.task, NAV_TASK_LEG);
	/* a sequence with its own approach waypoint is flown as it is */
	mis.items[3] = (struct mission_item){ .command = MAV_CMD_NAV_WAYPOINT, .frame = 3,
					      .x = -353700000, .y = 1491662300, .z = 30 };
	mis.items[2] = (struct mission_item){ .command = MAV_CMD_DO_LAND_START };
	assert_int_equal(mexec_land_approach(&mis, 2), -1);
	/* and one after a loiter goes straight to its LAND */
	mis.count = 4;
	mis.items[1].command = MAV_CMD_NAV_LOITER_UNLIM;
	mis.items[3] = mis.items[4];
	assert_int_equal(mexec_land_approach(&mis, 2), -1);
}

static const char *run_saying(double seconds);

/* A stuck IMU in flight: no attitude meanwhile (MANUAL), and once it moves again the
 * flight ends by the landing sequence. Once: it does not clear. */
static void test_plane_stuck_imu_ends_the_flight(void **state)
{
	setup();
	char why[96];
	mission_with_an_approach();
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	run(2.0, true);
	assert_int_equal(v.mode, PLANE_LOITER);
	uint32_t valid = in.vs.valid;
	in.imu_stuck = true;
	in.vs.valid = 0;
	run(1.0, true);
	assert_true(pl.imu_fs);
	assert_int_equal(v.mode, PLANE_MANUAL);
	in.imu_stuck = false;
	in.vs.valid = valid;
	assert_string_equal(run_saying(0.1), "IMU failsafe: landing");
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.mexec.current, 2);
	assert_int_equal(pl.mexec.then_seq, 3);
	/* once */
	in.imu_stuck = true;
	run(0.5, true);
	in.imu_stuck = false;
	assert_null(run_saying(0.5));
	assert_int_equal(v.mode, PLANE_AUTO);
}

/* Runs the plane for seconds, remembering the last thing it said. */
static const char *run_saying(double seconds)
{
	const char *said = NULL;
	for (double t = 0; t < seconds; t += (double)in.dt_s) {
		run(in.dt_s, true);
		if (out.text)
			said = out.text;
	}
	return said;
}

static void test_plane_disarms_when_not_flying_after_flying(void **state)
{
	/* LOITER, armed, flying; then still on the ground (a failed launch, a crash). */
	setup();
	char why[96];
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	run(1.0, true);
	in.vs.vel_ned_m_s[0] = 0.5f;
	in.vs.airspeed_m_s = 0.3f;
	in.vs.alt_rel_m = -1.5f;
	assert_null(run_saying(1.4));
	assert_true(v.armed);
	const char *said = run_saying(0.2);
	assert_false(v.armed);
	assert_non_null(said);
	assert_string_equal(said, "Crash: Disarming");
	assert_int_equal(out.pwm_us[2], (int)pp.servo.ch[2].servo_min);  /* the motor at its minimum */
}

static void test_plane_flying_slowly_into_a_gale_is_flying(void **state)
{
	/* Under 1.5 m/s over the ground but the wind on the pitot, high up: flying
	 * (ArduPlane's test). Never having flown, or CRASH_DETECT 0: never a crash. */
	setup();
	char why[96];
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	run(1.0, true);
	in.vs.vel_ned_m_s[0] = 1.0f;
	in.vs.airspeed_m_s = 15.0f;
	run(5.0, true);
	assert_true(v.armed);

	setup();
	rc_set(1500, 1500, 1500, 1500, 1400);
	in.vs.vel_ned_m_s[0] = 0.0f;
	in.vs.airspeed_m_s = 0.0f;
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	run(5.0, true);
	assert_true(v.armed);      /* never flown since arming: on the ground, waiting */

	setup();
	pp.crash_detect = 0;
	rc_set(1500, 1500, 1500, 1500, 1400);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	run(1.0, true);
	in.vs.vel_ned_m_s[0] = 0.0f;
	in.vs.airspeed_m_s = 0.0f;
	run(5.0, true);
	assert_true(v.armed);
}

static void test_plane_without_position_circles(void **state)
{
	setup();
	rc_set(1500, 1500, 1500, 1500, 1400);     /* LOITER */
	run(0.1, true);
	assert_int_equal(v.mode, PLANE_LOITER);
	in.vs.valid &= ~VEHICLE_POSITION_VALID;
	run(0.01, true);
	assert_int_equal(v.mode, PLANE_CIRCLE);
	run(0.5, true);
	float lim = pp.nav.lim_roll_cd * 0.01f * (float)M_PI / 180.0f / 3.0f;
	assert_float_equal(out.roll_dem_rad, lim, 1e-4);
}

static void test_plane_names_the_failing_arming_check(void **state)
{
	setup();
	char why[96];
	in.gps_fix = false;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "GPS"));
	in.gps_fix = true;
	in.estimator_converged = false;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "estimator"));
	in.estimator_converged = true;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
}

static void test_plane_checks_the_compass_field_as_arduplane_does(void **state)
{
	setup();
	char why[96];
	/* the CMAC field's earth field, NED mGauss, and a compass reading it */
	const float earth[3] = { 230.0f, 52.0f, -531.0f };
	in.mag_seen = true;
	in.mag_expected_known = true;
	for (int i = 0; i < 3; i++)
		in.mag_body_mgauss[i] = in.mag_ned_mgauss[i] = in.mag_expected_ned_mgauss[i] = earth[i];
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	/* too weak or too strong a field: its length against 185..875 mGauss,
	 * before anything else */
	const float len_bad[][3] = { { 100, 50, 50 }, { 600, 300, -600 }, { NAN, 0, 0 } };
	for (size_t k = 0; k < 3; k++) {
		memcpy(in.mag_body_mgauss, len_bad[k], sizeof(in.mag_body_mgauss));
		in.estimator_converged = false;
		run(0.01, true);
		assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "PreArm: Check mag field: "));
		assert_non_null(strstr(why, ", max 875, min 185"));
		in.estimator_converged = true;
	}
	memcpy(in.mag_body_mgauss, earth, sizeof(in.mag_body_mgauss));
	/* north or east off the model by more than ARMING_MAGTHRESH (100) */
	in.mag_ned_mgauss[1] = earth[1] + 130.0f;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "PreArm: Check mag field (xy diff:130>100)");
	/* down: twice the threshold */
	in.mag_ned_mgauss[1] = earth[1] + 90.0f;
	in.mag_ned_mgauss[2] = earth[2] - 190.0f;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	in.mag_ned_mgauss[2] = earth[2] - 210.0f;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "PreArm: Check mag field (z diff:210>200)");
	/* the comparison waits for a converged estimate and a place; ARMING_MAGTHRESH
	 * 0 turns it off, ARMING_CHECK without the compass bit (4) all of it */
	in.estimator_converged = false;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "PreArm: estimator not converged");
	in.estimator_converged = true;
	in.mag_expected_known = false;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	in.mag_expected_known = true;
	pp.arming_magthresh = 0;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 1, why, sizeof(why)), 0);
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	pp.arming_magthresh = 100;
	in.mag_body_mgauss[0] = 2000.0f;
	pp.arming_check = 8;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 8, why, sizeof(why)), 0);
	vehicle_arm(&v, false, false, 0, why, sizeof(why));
	pp.arming_check = 4;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 4, why, sizeof(why)), -EPERM);
	/* no compass sample yet: nothing to check */
	in.mag_seen = false;
	run(0.01, true);
	assert_int_equal(vehicle_arm(&v, true, false, 4, why, sizeof(why)), 0);
}

static void test_plane_arms_by_rudder_after_three_seconds(void **state)
{
	setup();
	rc_set(1500, 1500, 1100, 1950, 1000);      /* throttle low, full right rudder */
	run(2.9, true);
	assert_false(v.armed);
	run(0.2, true);
	assert_true(v.armed);
	/* Not while the pre-arm checks fail: the refusal names the check. */
	setup();
	in.home_set = false;
	rc_set(1500, 1500, 1100, 1950, 1000);
	bool said = false;
	for (int i = 0; i < 1300; i++) {
		run(0.0025, true);
		if (out.text && strstr(out.text, "home"))
			said = true;
	}
	assert_false(v.armed);
	assert_true(said);
}

static void test_plane_guided_flies_to_the_target(void **state)
{
	setup();
	char why[96];
	run(0.01, true);                                   /* the switch read: MANUAL */
	assert_int_equal(vehicle_set_mode(&v, PLANE_GUIDED, why, sizeof(why)), 0);
	run(0.01, true);
	assert_int_equal(pl.nav.task, NAV_TASK_LOITER);    /* no target yet: here */
	assert_float_equal(pl.nav.centre.n_m, 0, 1);
	assert_int_equal(vehicle_set_guided(&v, -35.3600000, 149.1652300, 90, why, sizeof(why)), 0);
	run(0.01, true);
	assert_float_equal(pl.nav.centre.n_m, 362, 2);     /* 0.00326 deg north */
	assert_float_equal(pl.nav.loiter_alt_m, 90, 1e-3);
	assert_int_equal(vehicle_set_guided(&v, NAN, 0, 90, why, sizeof(why)), -EINVAL);
}

/* n steps of in.dt_s, RC fresh. */
static void steps(int n)
{
	for (int i = 0; i < n; i++) {
		in.now_us += 2500;
		in.rc.timestamp_us = in.now_us;
		vehicle_update(&v, in.vs.valid, mis.count);
		plane_step(&pl, &pp, &in, &out);
	}
}

/* Overloaded (vehicle_input.nav_deferred): the step flies on navigation's last demands,
 * and navigation then runs over the time it missed; a new mode navigates at once. */
static void test_plane_deferred_navigation_flies_on_its_last_demands(void **state)
{
	setup();
	rc_set(1500, 1500, 1500, 1500, 1400);     /* LOITER */
	run(1.0, true);
	assert_int_equal(v.mode, PLANE_LOITER);
	struct nav_output last = out.nav;
	in.nav_deferred = true;
	in.vs.roll_rad = 0.3f;                   /* what navigation would answer, it does not see */
	steps(4);
	assert_true(out.nav_active);
	assert_memory_equal(&out.nav, &last, sizeof(last));
	assert_float_equal(pl.nav_wait_s, 0.01f, 1e-5f);
	in.nav_deferred = false;
	steps(1);
	assert_float_equal(pl.nav_wait_s, 0.0f, 0.0f);
	assert_true(memcmp(&out.nav, &last, sizeof(last)) != 0);

	/* Deferred still, but the mode is new: its navigation runs in its first step. */
	mis.count = 3;
	mis.items[1] = (struct mission_item){ .command = MAV_CMD_NAV_WAYPOINT, .frame = 3,
					      .x = -353600000, .y = 1491652300, .z = 80 };
	mis.items[2] = (struct mission_item){ .command = MAV_CMD_NAV_LOITER_UNLIM, .frame = 3,
					      .x = -353600000, .y = 1491700000, .z = 80 };
	in.nav_deferred = true;
	rc_set(1500, 1500, 1500, 1500, 1600);     /* AUTO */
	steps(1);
	assert_int_equal(v.mode, PLANE_AUTO);
	assert_int_equal(pl.nav.task, NAV_TASK_LEG);
	assert_float_equal(pl.nav_wait_s, 0.0f, 0.0f);
	steps(1);
	assert_float_equal(pl.nav_wait_s, 0.0025f, 1e-6f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plane_switch_bands_are_arduplanes),
		cmocka_unit_test(test_plane_manual_passes_the_sticks_through),
		cmocka_unit_test(test_plane_holds_the_trims_and_the_motor_off_while_initialising),
		cmocka_unit_test(test_plane_fbwa_turns_sticks_into_attitude),
		cmocka_unit_test(test_plane_refuses_a_mode_it_cannot_fly_and_says_why),
		cmocka_unit_test(test_plane_rc_loss_circles_then_returns),
		cmocka_unit_test(test_plane_throttle_below_fs_value_is_rc_loss),
		cmocka_unit_test(test_plane_auto_keeps_flying_through_a_short_rc_loss),
		cmocka_unit_test(test_plane_gcs_loss_returns_home),
		cmocka_unit_test(test_plane_low_battery_lands_at_the_land_sequence),
		cmocka_unit_test(test_plane_failsafe_landing_flies_the_planned_approach),
		cmocka_unit_test(test_plane_stuck_imu_ends_the_flight),
		cmocka_unit_test(test_plane_without_position_circles),
		cmocka_unit_test(test_plane_disarms_when_not_flying_after_flying),
		cmocka_unit_test(test_plane_flying_slowly_into_a_gale_is_flying),
		cmocka_unit_test(test_plane_names_the_failing_arming_check),
		cmocka_unit_test(test_plane_checks_the_compass_field_as_arduplane_does),
		cmocka_unit_test(test_plane_arms_by_rudder_after_three_seconds),
		cmocka_unit_test(test_plane_guided_flies_to_the_target),
		cmocka_unit_test(test_plane_deferred_navigation_flies_on_its_last_demands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
