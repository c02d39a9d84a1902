// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "gcs_harness.h"
#include "mavlink/gcs.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

static struct gcs g;
static struct vehicle v;
static struct mission ms;

static int setup(void **state)
{
	param_init(PARAM_PLANE);
	vehicle_init(&v, VEHICLE_PLANE);
	mission_clear(&ms);
	struct gcs_tx tx = { harness_capture, NULL };
	gcs_init(&g, 1, 1, &tx, &ms);
	g.vehicle = &v;
	n_sent = 0;
	return 0;
}

/* Runs the services at 50 Hz for seconds s from t0. */
static void run(uint64_t t0_us, double s)
{
	for (uint64_t t = 0; t < (uint64_t)(s * 1e6); t += 20000)
		gcs_tick(&g, t0_us + t);
}

static int command(uint16_t cmd, float p1, float p2)
{
	struct mavlink_command_long c = { .command = cmd, .param1 = p1, .param2 = p2,
					  .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_command_long_pack(&c, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_COMMAND_LONG, p), 1000);
	struct mavlink_command_ack a;
	mavlink_command_ack_unpack(harness_last(MAVLINK_MSG_ID_COMMAND_ACK)->payload, 10, &a);
	return a.result;
}

static void test_streams_say_only_what_is_known(void **state)
{
	run(1000000, 10);
	/* SR0_EXT_STAT = 1 Hz: ten SYS_STATUS on link 0; links 1 and 2 the same by their SRn. */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_SYS_STATUS), 10);
	assert_int_equal(harness_count(1, MAVLINK_MSG_ID_SYS_STATUS), 10);
	/* Nothing estimated: no attitude, no position, an uninitialised EKF. */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_GLOBAL_POSITION_INT), 0);
	struct mavlink_ekf_status_report e;
	mavlink_ekf_status_report_unpack(harness_last(MAVLINK_MSG_ID_EKF_STATUS_REPORT)->payload, 26, &e);
	assert_int_equal(e.flags, 1024);
	struct mavlink_sys_status ss;
	mavlink_sys_status_unpack(harness_last(MAVLINK_MSG_ID_SYS_STATUS)->payload, 43, &ss);
	assert_int_equal(ss.onboard_control_sensors_health, 0);
	assert_int_equal(ss.voltage_battery, UINT16_MAX);
	assert_int_equal(ss.battery_remaining, -1);
	/* No receiver, outputs, GPS or battery monitor: none of their messages. */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_RC_CHANNELS), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_SERVO_OUTPUT_RAW), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_GPS_RAW_INT), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_BATTERY_STATUS), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_NAV_CONTROLLER_OUTPUT), 0);
}

static void test_streams_carry_receiver_outputs_gps_and_battery_when_there(void **state)
{
	g.in.rc.count = 8;
	for (int i = 0; i < 8; i++)
		g.in.rc.us[i] = (uint16_t)(1100 + 100 * i);
	g.in.rc.rssi = 255;
	g.in.servo.count = 4;
	g.in.servo.us[2] = 1234;
	g.in.gps.present = true;
	g.in.gps.fix_type = 3;
	g.in.gps.lat_e7 = 525200000;
	g.in.gps.lon_e7 = 134050000;
	g.in.gps.satellites = 11;
	g.in.battery.present = true;
	g.in.battery.voltage_v = 12.34f;
	g.in.battery.current_a = 5.5f;
	g.in.battery.remaining_pct = 80;
	run(1000000, 3);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_RC_CHANNELS), 3);
	struct mavlink_rc_channels rc;
	mavlink_rc_channels_unpack(harness_last(MAVLINK_MSG_ID_RC_CHANNELS)->payload, 42, &rc);
	assert_int_equal(rc.chancount, 8);
	assert_int_equal(rc.chan8_raw, 1800);
	struct mavlink_servo_output_raw so;
	mavlink_servo_output_raw_unpack(harness_last(MAVLINK_MSG_ID_SERVO_OUTPUT_RAW)->payload, 37, &so);
	assert_int_equal(so.servo3_raw, 1234);
	struct mavlink_gps_raw_int gps;
	mavlink_gps_raw_int_unpack(harness_last(MAVLINK_MSG_ID_GPS_RAW_INT)->payload, 52, &gps);
	assert_int_equal(gps.fix_type, 3);
	assert_int_equal(gps.satellites_visible, 11);
	struct mavlink_sys_status ss;
	mavlink_sys_status_unpack(harness_last(MAVLINK_MSG_ID_SYS_STATUS)->payload, 43, &ss);
	assert_int_equal(ss.voltage_battery, 12340);
	assert_int_equal(ss.battery_remaining, 80);
	struct mavlink_battery_status b;
	mavlink_battery_status_unpack(harness_last(MAVLINK_MSG_ID_BATTERY_STATUS)->payload, 54, &b);
	assert_int_equal(b.voltages[0], 12340);
	assert_int_equal(b.voltages[1], UINT16_MAX);
}

static void test_streams_follow_srn_and_set_message_interval(void **state)
{
	g.in.state.valid = VEHICLE_ATTITUDE_VALID;
	g.in.state.roll_rad = 0.25f;
	param_set(param_find("SR0_EXTRA1"), 10);
	run(1000000, 2);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 20);
	assert_int_equal(harness_count(1, MAVLINK_MSG_ID_ATTITUDE), 2);  /* SR1_EXTRA1 is still 1 */
	struct mavlink_attitude a;
	mavlink_attitude_unpack(harness_last(MAVLINK_MSG_ID_ATTITUDE)->payload, 28, &a);
	assert_true(a.roll == 0.25f);

	/* 50 ms on link 0 by command, then off. */
	assert_int_equal(command(511, MAVLINK_MSG_ID_ATTITUDE, 50000), 0);
	n_sent = 0;
	run(4000000, 1);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 20);
	assert_int_equal(command(511, MAVLINK_MSG_ID_ATTITUDE, -1), 0);
	n_sent = 0;
	run(6000000, 1);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 0);
	assert_int_equal(command(511, 9999, 1000), 2);  /* not a stream: DENIED */
}

static void test_request_message_and_capabilities(void **state)
{
	assert_int_equal(command(512, MAVLINK_MSG_ID_AUTOPILOT_VERSION, 0), 0);
	struct mavlink_autopilot_version av;
	mavlink_autopilot_version_unpack(harness_last(MAVLINK_MSG_ID_AUTOPILOT_VERSION)->payload, 78, &av);
	assert_true(av.capabilities & 8192);  /* MAVLINK2 */
	assert_true(av.capabilities & 4);     /* MISSION_INT */
	assert_int_equal(command(512, MAVLINK_MSG_ID_GLOBAL_POSITION_INT, 0), 1);  /* nothing yet */
	assert_int_equal(command(512, 12345, 0), 3);
	assert_int_equal(command(512, MAVLINK_MSG_ID_HOME_POSITION, 0), 1);  /* no home yet */
	ms.count = 1;
	ms.items[0].x = 520000000;
	assert_int_equal(command(512, MAVLINK_MSG_ID_HOME_POSITION, 0), 0);
	assert_int_equal(command(520, 1, 0), 0);
}

static void test_set_home_by_command(void **state)
{
	assert_int_equal(command(179, 1, 0), 1);  /* "current position": none yet */
	struct mavlink_command_long c = { .command = 179, .param5 = 52.52f, .param6 = 13.405f,
					  .param7 = 34, .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_command_long_pack(&c, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_COMMAND_LONG, p), 1000);
	assert_int_equal(ms.count, 1);
	assert_true(ms.items[0].x > 525199990 && ms.items[0].x < 525200010);
	struct mavlink_home_position hp;
	mavlink_home_position_unpack(harness_last(MAVLINK_MSG_ID_HOME_POSITION)->payload, 60, &hp);
	assert_int_equal(hp.altitude, 34000);
	c.param5 = 123;  /* not a latitude */
	mavlink_command_long_pack(&c, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_COMMAND_LONG, p), 1000);
	struct mavlink_command_ack a;
	mavlink_command_ack_unpack(harness_last(MAVLINK_MSG_ID_COMMAND_ACK)->payload, 10, &a);
	assert_int_equal(a.result, 2);
}

static void test_vfr_hud_throttle_and_battery_remaining(void **state)
{
	g.in.state.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID;
	g.in.throttle = 0.626f;
	g.in.battery.present = true;
	g.in.battery.voltage_v = 11.1f;
	g.in.battery.current_a = NAN;          /* no current sense */
	g.in.battery.consumed_mah = 825.0f;
	g.in.battery.remaining_pct = -1;       /* the monitor does not say: BATT_CAPACITY does */
	param_set(param_find("BATT_CAPACITY"), 3300);
	g.in.sensors_present = 0x1200002f;
	g.in.sensors_enabled = 0x1000002f;
	g.in.sensors_health = 0x10100027;
	run(1000000, 1);
	struct mavlink_vfr_hud h;
	mavlink_vfr_hud_unpack(harness_last(MAVLINK_MSG_ID_VFR_HUD)->payload, 20, &h);
	assert_int_equal(h.throttle, 63);
	struct mavlink_sys_status ss;
	mavlink_sys_status_unpack(harness_last(MAVLINK_MSG_ID_SYS_STATUS)->payload, 43, &ss);
	assert_int_equal(ss.battery_remaining, 75);
	assert_int_equal(ss.current_battery, -1);
	assert_int_equal(ss.onboard_control_sensors_present, 0x1200002f);
	assert_int_equal(ss.onboard_control_sensors_enabled, 0x1000002f);
	assert_int_equal(ss.onboard_control_sensors_health, 0x10100027);
	struct mavlink_battery_status b;
	mavlink_battery_status_unpack(harness_last(MAVLINK_MSG_ID_BATTERY_STATUS)->payload, 54, &b);
	assert_int_equal(b.battery_remaining, 75);
	assert_int_equal(b.current_consumed, 825);
	assert_int_equal(b.current_battery, -1);
	/* Without a capacity, remaining is unknown: -1, never a made-up figure. */
	param_set(param_find("BATT_CAPACITY"), 0);
	g.in.throttle = 1.2f;                  /* held to the field's range */
	run(2000000, 1);
	mavlink_sys_status_unpack(harness_last(MAVLINK_MSG_ID_SYS_STATUS)->payload, 43, &ss);
	assert_int_equal(ss.battery_remaining, -1);
	mavlink_vfr_hud_unpack(harness_last(MAVLINK_MSG_ID_VFR_HUD)->payload, 20, &h);
	assert_int_equal(h.throttle, 100);
	param_set(param_find("BATT_CAPACITY"), 3300);
}

static void test_get_home_position(void **state)
{
	assert_int_equal(command(410, 0, 0), 4);  /* no home yet: FAILED */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_HOME_POSITION), 0);
	ms.count = 1;
	ms.items[0].x = 525200000;
	ms.items[0].y = 134050000;
	ms.items[0].z = 34;
	assert_int_equal(command(410, 0, 0), 0);
	struct mavlink_home_position hp;
	const struct sent *out = harness_last(MAVLINK_MSG_ID_HOME_POSITION);
	assert_int_equal(out->link, 0);
	mavlink_home_position_unpack(out->payload, 60, &hp);
	assert_int_equal(hp.latitude, 525200000);
	assert_int_equal(hp.longitude, 134050000);
	assert_int_equal(hp.altitude, 34000);
	/* Answered without a vehicle too: it is about the link's view of home. */
	g.vehicle = NULL;
	assert_int_equal(command(410, 0, 0), 0);
}

static void request_stream(int link, uint8_t id, uint16_t hz, uint8_t start)
{
	struct mavlink_request_data_stream r = { .target_system = 1, .target_component = 1,
						 .req_stream_id = id, .req_message_rate = hz,
						 .start_stop = start };
	uint8_t p[255];
	mavlink_request_data_stream_pack(&r, p);
	gcs_handle(&g, link, harness_frame(255, 190, MAVLINK_MSG_ID_REQUEST_DATA_STREAM, p), 1000);
}

static float sr(const char *name)
{
	return param_get(param_find(name));
}

/* Everything known, so that every stream has something to say. */
static void know_everything(void)
{
	g.in.state.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID |
			   VEHICLE_POSITION_VALID | VEHICLE_WIND_VALID;
	g.in.state.t_us = 5000000;
	g.in.state.alt_msl_m = 134;
	g.in.state.alt_rel_m = 100;
	g.in.state.wind_ne_m_s[0] = 0.0f;
	g.in.state.wind_ne_m_s[1] = -5.0f;  /* the air moving west: a wind from the east */
	g.in.estimator.present = true;
	g.in.estimator.local_valid = true;
	g.in.estimator.gyro_bias_rad_s[0] = 0.01f;
	g.in.estimator.tilt_sigma_rad = 0.02f;
	g.in.estimator.yaw_sigma_rad = 0.05f;
	g.in.estimator.delayed_valid = true;
	g.in.estimator.delayed_rpy_rad[0] = 0.1f;
	g.in.estimator.delayed_pos_valid = true;
	g.in.estimator.delayed_lat_e7 = 525200000;
	g.in.estimator.delayed_alt_msl_m = 133.5f;
	g.in.vibe.valid = true;
	g.in.vibe.level_m_s2[2] = 3.5f;
	g.in.vibe.clipped = 7;
	g.in.target.valid = true;
	g.in.target.lat_e7 = 525300000;
	g.in.target.lon_e7 = 134100000;
	g.in.target.alt_msl_m = 154;
	g.in.mem_avail_bytes = 1500000000ull;
	g.in.imu.t_us = 4990000;
	g.in.imu.accel_m_s2[2] = -9.80665f;
	g.in.imu.gyro_rad_s[0] = 0.5f;
	g.in.imu.mag_ut[0] = 20.0f;
	g.in.imu.temp_c = 0.0f;
	g.in.baro.t_us = 4990000;
	g.in.baro.pressure_pa = 100000;
	g.in.gps.present = true;
	g.in.rc.count = 8;
	g.in.servo.count = 8;
	g.in.battery.present = true;
	g.in.nav.active = true;
	ms.count = 1;
	ms.items[0].x = 525200000;
}

static void test_request_data_stream_sets_arduplane_groups(void **state)
{
	know_everything();
	/* Each group alone: its SRn_ parameter on that link's n. */
	static const struct { uint8_t id; const char *param; uint32_t msgid; } groups[] = {
		{ 1, "SR0_RAW_SENS", MAVLINK_MSG_ID_RAW_IMU },
		{ 2, "SR0_EXT_STAT", MAVLINK_MSG_ID_SYS_STATUS },
		{ 3, "SR0_RC_CHAN", MAVLINK_MSG_ID_RC_CHANNELS },
		{ 4, "SR0_RAW_CTRL", 0 },
		{ 6, "SR0_POSITION", MAVLINK_MSG_ID_GLOBAL_POSITION_INT },
		{ 10, "SR0_EXTRA1", MAVLINK_MSG_ID_ATTITUDE },
		{ 11, "SR0_EXTRA2", MAVLINK_MSG_ID_VFR_HUD },
		{ 12, "SR0_EXTRA3", MAVLINK_MSG_ID_WIND },
	};
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		request_stream(0, groups[i].id, 4, 1);
		assert_true(sr(groups[i].param) == 4.0f);
		if (i + 1 < sizeof(groups) / sizeof(groups[0]))
			assert_true(sr(groups[i + 1].param) == 1.0f);  /* the next not yet */
		n_sent = 0;
		run(10000000 * (i + 1), 2);
		if (groups[i].msgid)
			assert_int_equal(harness_count(0, groups[i].msgid), 8);
	}
	/* The rest of ArduPlane's groups: where the new messages belong. */
	n_sent = 0;
	run(100000000, 2);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_SCALED_PRESSURE), 8);   /* RAW_SENS */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_POWER_STATUS), 8);      /* EXT_STAT */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_MEMINFO), 8);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT), 8);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_AHRS2), 8);             /* EXTRA1 */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_AHRS), 8);              /* EXTRA3 */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_VIBRATION), 8);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_LOCAL_POSITION_NED), 8); /* POSITION */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_SERVO_OUTPUT_RAW), 8);  /* RC_CHAN */
	assert_int_equal(harness_count(1, MAVLINK_MSG_ID_ATTITUDE), 2);          /* link 1: its own SR1 */

	/* ALL: every group but PARAMS; links past 2 share SR2. */
	request_stream(5, 0, 10, 1);
	assert_true(sr("SR2_EXTRA1") == 10.0f && sr("SR2_RAW_SENS") == 10.0f &&
		    sr("SR2_RAW_CTRL") == 10.0f);
	assert_true(sr("SR2_PARAMS") == 10.0f);  /* its default, untouched */
	assert_true(sr("SR1_EXTRA1") == 1.0f);
	/* Stop: start_stop 0 whatever the rate; a rate past 50 Hz is held to it. */
	request_stream(0, 10, 7, 0);
	assert_true(sr("SR0_EXTRA1") == 0.0f);
	request_stream(0, 11, 200, 1);
	assert_true(sr("SR0_EXTRA2") == 50.0f);
	/* A group fulmar does not have, or a start_stop that is neither: refused, counted. */
	uint64_t refused = g.stats.stream_refused;
	request_stream(0, 5, 4, 1);
	request_stream(0, 10, 4, 2);
	assert_int_equal(g.stats.stream_refused, refused + 2);
	assert_true(sr("SR0_EXTRA1") == 0.0f);
	/* For another system: not ours. */
	struct mavlink_request_data_stream r = { .target_system = 9, .req_stream_id = 10,
						 .req_message_rate = 9, .start_stop = 1 };
	uint8_t p[255];
	mavlink_request_data_stream_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_REQUEST_DATA_STREAM, p), 1000);
	assert_true(sr("SR0_EXTRA1") == 0.0f);
}

static void test_request_data_stream_replaces_message_intervals(void **state)
{
	know_everything();
	assert_int_equal(command(511, MAVLINK_MSG_ID_ATTITUDE, 100000), 0);  /* 10 Hz */
	n_sent = 0;
	run(1000000, 1);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 10);
	request_stream(0, 10, 2, 1);
	n_sent = 0;
	run(3000000, 1);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 2);
}

/* Ticks at 50 Hz on average (the daemon's drift-free services) with the loop's jitter. */
static void run_jittered(uint64_t t0_us, double s, unsigned int jitter_us)
{
	uint32_t r = 12345;
	for (uint64_t t = 0; t < (uint64_t)(s * 1e6); t += 20000) {
		r = r * 1103515245u + 12345u;
		gcs_tick(&g, t0_us + t + (r >> 8) % jitter_us);
	}
}

static void test_rates_up_to_50_hz_are_kept_with_jitter(void **state)
{
	know_everything();
	param_set(param_find("SR0_EXTRA1"), 50);
	param_set(param_find("SR0_EXTRA2"), 20);
	param_set(param_find("SR0_POSITION"), 4);
	param_set(param_find("SR0_EXT_STAT"), 3);
	n_sent = 0;
	/* 2.5 ms of jitter: the main loop's period at 400 Hz. */
	run_jittered(1000000, 10, 2500);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_ATTITUDE), 500);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_VFR_HUD), 200);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_GLOBAL_POSITION_INT), 40);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_SYS_STATUS), 30);
}

static void test_new_messages_say_the_state(void **state)
{
	/* Nothing known: none of them (POWER_STATUS says its zeros: not measured). */
	run(1000000, 2);
	static const uint32_t unknown[] = { MAVLINK_MSG_ID_WIND, MAVLINK_MSG_ID_AHRS,
		MAVLINK_MSG_ID_AHRS2, MAVLINK_MSG_ID_VIBRATION, MAVLINK_MSG_ID_MEMINFO,
		MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT, MAVLINK_MSG_ID_RAW_IMU };
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		assert_int_equal(harness_count(0, unknown[i]), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_POWER_STATUS), 2);

	know_everything();
	n_sent = 0;
	run(3000000, 1);
	struct mavlink_wind w;
	mavlink_wind_unpack(harness_last(MAVLINK_MSG_ID_WIND)->payload, 12, &w);
	assert_true(fabsf(w.direction - 90.0f) < 0.01f);
	assert_true(fabsf(w.speed - 5.0f) < 1e-4f);
	g.in.state.wind_ne_m_s[0] = 3.0f;   /* towards the north: from the south */
	g.in.state.wind_ne_m_s[1] = 0.0f;
	assert_int_equal(gcs_send_message(&g, 0, MAVLINK_MSG_ID_WIND), 0);
	mavlink_wind_unpack(harness_last(MAVLINK_MSG_ID_WIND)->payload, 12, &w);
	assert_true(fabsf(w.direction - 180.0f) < 0.01f);

	struct mavlink_ahrs a;
	mavlink_ahrs_unpack(harness_last(MAVLINK_MSG_ID_AHRS)->payload, 28, &a);
	assert_true(a.omegaIx == -0.01f && a.error_rp == 0.02f && a.error_yaw == 0.05f);
	struct mavlink_ahrs2 a2;
	mavlink_ahrs2_unpack(harness_last(MAVLINK_MSG_ID_AHRS2)->payload, 24, &a2);
	assert_true(a2.roll == 0.1f && a2.altitude == 133.5f);
	assert_int_equal(a2.lat, 525200000);
	struct mavlink_vibration vb;
	mavlink_vibration_unpack(harness_last(MAVLINK_MSG_ID_VIBRATION)->payload, 32, &vb);
	assert_true(vb.vibration_z == 3.5f);
	assert_int_equal(vb.clipping_0, 7);
	struct mavlink_meminfo m;
	mavlink_meminfo_unpack(harness_last(MAVLINK_MSG_ID_MEMINFO)->payload, 8, &m);
	assert_int_equal(m.freemem, 65535);
	assert_int_equal(m.freemem32, 1500000000u);
	struct mavlink_position_target_global_int t;
	mavlink_position_target_global_int_unpack(
		harness_last(MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT)->payload, 51, &t);
	assert_int_equal(t.lat_int, 525300000);
	assert_true(t.alt == 154.0f);
	assert_int_equal(t.coordinate_frame, 0);
	assert_int_equal(t.type_mask, 0xFDF8);
	struct mavlink_raw_imu ri;
	mavlink_raw_imu_unpack(harness_last(MAVLINK_MSG_ID_RAW_IMU)->payload, 29, &ri);
	assert_int_equal(ri.zacc, -1000);
	assert_int_equal(ri.xgyro, 500);
	assert_int_equal(ri.xmag, 200);
	assert_int_equal(ri.temperature, 1);  /* 0 degC; 0 would say "no temperature" */
	assert_int_equal(ri.time_usec, 4990000);
}

static void test_request_message_answers_every_stream(void **state)
{
	know_everything();
	static const uint32_t all[] = { 0, 1, 2, 24, 26, 27, 29, 30, 32, 33, 36, 42, 62, 65, 74,
		87, 125, 147, 148, 152, 163, 168, 178, 193, 230, 241, 242 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		n_sent = 0;
		assert_int_equal(command(512, (float)all[i], 0), 0);
		assert_int_equal(harness_count(0, all[i]), 1);
	}
	/* ... and every stream takes an interval. */
	for (size_t i = 1; i < sizeof(all) / sizeof(all[0]); i++)
		assert_int_equal(command(511, (float)all[i], 200000), 0);
}

static void test_a_slow_link_sheds_streams_by_priority(void **state)
{
	know_everything();
	/* Link 2, a 9600-baud radio: 960 B/s, asked for everything at 10 Hz. */
	gcs_set_link_bandwidth(&g, 2, 960);
	request_stream(2, 0, 10, 1);
	n_sent = 0;
	/* (SR2 is links 2 to 7's: 4 s of them fills the harness's record.) */
	run(1000000, 4);
	/* The first in priority still at their rate; the last shed whole. */
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_ATTITUDE), 40);
	/* (Costed at its longest frame until first sent: one may go at the start.) */
	assert_in_range(harness_count(2, MAVLINK_MSG_ID_GLOBAL_POSITION_INT), 39, 40);
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_RAW_IMU), 0);
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_SCALED_IMU), 0);
	assert_true(g.link[2].shed_msgs > 0);
	assert_true(g.link[2].shed_mask & (1u << 24));
	/* What went fits the stream share of the link. */
	unsigned int bytes = 0;
	for (unsigned int i = 0; i < n_sent; i++)
		if (sent[i].link == 2) {
			const struct mavlink_msg_info *info = mavlink_msg_info(sent[i].msgid);
			int n = info->max_len;
			while (n > 1 && sent[i].payload[n - 1] == 0)
				n--;
			bytes += 12 + (unsigned int)n;
		}
	assert_true(bytes <= 960 * 4 * 0.8 + 400);
	/* Link 0, unlimited, sends all; the heartbeat goes everywhere, never shed. */
	assert_int_equal(g.link[0].shed_mask, 0);
	assert_int_equal(harness_count(GCS_LINK_ALL, MAVLINK_MSG_ID_HEARTBEAT), 4);
	/* Said once, as a STATUSTEXT. */
	assert_int_equal(harness_count(GCS_LINK_ALL, MAVLINK_MSG_ID_STATUSTEXT), 1);
	/* Slower asked: everything fits again, and that is said. */
	request_stream(2, 0, 1, 1);
	n_sent = 0;
	run(20000000, 2);
	assert_int_equal(g.link[2].shed_mask, 0);
	assert_int_equal(harness_count(GCS_LINK_ALL, MAVLINK_MSG_ID_STATUSTEXT), 1);
}

static void test_a_slow_link_paces_a_parameter_list(void **state)
{
	gcs_set_link_bandwidth(&g, 2, 960);
	request_stream(2, 0, 0, 0);
	struct mavlink_param_request_list r = { .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_param_request_list_pack(&r, p);
	gcs_handle(&g, 2, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_LIST, p), 1000);
	n_sent = 0;
	run(1000000, 2);
	/* 0.95 of 960 B/s in frames of 37 bytes: 24 a second (the first tick has no credit). */
	unsigned int n = harness_count(2, MAVLINK_MSG_ID_PARAM_VALUE);
	assert_true(n >= 44 && n <= 50);
}

static void test_fence_status_streams_while_the_fence_is_enabled(void **state)
{
	run(1000000, 5);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_FENCE_STATUS), 0);
	g.in.fence.enabled = true;
	g.in.fence.breaches = 4;
	g.in.fence.breach_count = 2;
	g.in.fence.breach_type = 3;
	g.in.fence.breach_time_ms = 123456;
	run(7000000, 5);
	/* EXT_STAT, like SYS_STATUS: 1 Hz by SR0_EXT_STAT. */
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_FENCE_STATUS), 5);
	struct mavlink_fence_status fs;
	mavlink_fence_status_unpack(harness_last(MAVLINK_MSG_ID_FENCE_STATUS)->payload,
				    MAVLINK_MSG_FENCE_STATUS_MAX_LEN, &fs);
	assert_int_equal(fs.breach_status, 1);
	assert_int_equal(fs.breach_count, 2);
	assert_int_equal(fs.breach_type, 3);
	assert_int_equal(fs.breach_time, 123456);
	/* Fence and rally lists kept: the capabilities say so. */
	static struct mission fence, rally;
	g.fence = &fence;
	g.rally = &rally;
	assert_int_equal(command(512, MAVLINK_MSG_ID_AUTOPILOT_VERSION, 0), 0);
	struct mavlink_autopilot_version av;
	mavlink_autopilot_version_unpack(harness_last(MAVLINK_MSG_ID_AUTOPILOT_VERSION)->payload, 78, &av);
	assert_true(av.capabilities & 16384);  /* MISSION_FENCE */
	assert_true(av.capabilities & 32768);  /* MISSION_RALLY */
}

/* RANGEFINDER and DISTANCE_SENSOR in EXTRA3, as ArduPlane, only with a
 * rangefinder; DISTANCE_SENSOR only while it has data; SYS_STATUS's 0x100. */
static void test_rangefinder_streams_only_with_a_rangefinder(void **state)
{
	run(1000000, 3);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_RANGEFINDER), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_DISTANCE_SENSOR), 0);
	struct mavlink_sys_status ss;
	mavlink_sys_status_unpack(harness_last(MAVLINK_MSG_ID_SYS_STATUS)->payload, 43, &ss);
	assert_int_equal(ss.onboard_control_sensors_present & 0x100, 0);
	g.in.rangefinder.present = true;
	g.in.rangefinder.orientation = 25;
	g.in.rangefinder.min_m = 0.2f;
	g.in.rangefinder.max_m = 7.0f;
	g.in.rangefinder.quality_pct = -1;
	n_sent = 0;
	run(5000000, 3);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_RANGEFINDER), 3);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_DISTANCE_SENSOR), 0);   /* no data yet */
	g.in.rangefinder.has_data = true;
	g.in.rangefinder.healthy = true;
	g.in.rangefinder.distance_m = 3.456f;
	n_sent = 0;
	run(10000000, 3);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_DISTANCE_SENSOR), 3);
	struct mavlink_rangefinder rf;
	mavlink_rangefinder_unpack(harness_last(MAVLINK_MSG_ID_RANGEFINDER)->payload, 8, &rf);
	assert_float_equal(rf.distance, 3.456f, 1e-6f);
	struct mavlink_distance_sensor ds;
	mavlink_distance_sensor_unpack(harness_last(MAVLINK_MSG_ID_DISTANCE_SENSOR)->payload, 39,
				       &ds);
	assert_int_equal(ds.current_distance, 346);
	assert_int_equal(ds.min_distance, 20);
	assert_int_equal(ds.max_distance, 700);
	assert_int_equal(ds.orientation, 25);
	assert_int_equal(ds.type, 0);
	assert_int_equal(ds.signal_quality, 0);
	/* a forward-looking one is no RANGEFINDER (ArduPilot's is the downward one's) */
	g.in.rangefinder.orientation = 0;
	n_sent = 0;
	run(15000000, 2);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_RANGEFINDER), 0);
	assert_int_equal(harness_count(0, MAVLINK_MSG_ID_DISTANCE_SENSOR), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_streams_say_only_what_is_known, setup),
		cmocka_unit_test_setup(test_streams_follow_srn_and_set_message_interval, setup),
		cmocka_unit_test_setup(test_streams_carry_receiver_outputs_gps_and_battery_when_there, setup),
		cmocka_unit_test_setup(test_request_message_and_capabilities, setup),
		cmocka_unit_test_setup(test_set_home_by_command, setup),
		cmocka_unit_test_setup(test_vfr_hud_throttle_and_battery_remaining, setup),
		cmocka_unit_test_setup(test_get_home_position, setup),
		cmocka_unit_test_setup(test_request_data_stream_sets_arduplane_groups, setup),
		cmocka_unit_test_setup(test_request_data_stream_replaces_message_intervals, setup),
		cmocka_unit_test_setup(test_rates_up_to_50_hz_are_kept_with_jitter, setup),
		cmocka_unit_test_setup(test_new_messages_say_the_state, setup),
		cmocka_unit_test_setup(test_request_message_answers_every_stream, setup),
		cmocka_unit_test_setup(test_a_slow_link_sheds_streams_by_priority, setup),
		cmocka_unit_test_setup(test_a_slow_link_paces_a_parameter_list, setup),
		cmocka_unit_test_setup(test_fence_status_streams_while_the_fence_is_enabled, setup),
		cmocka_unit_test_setup(test_rangefinder_streams_only_with_a_rangefinder, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
