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
	param_init();
	vehicle_init(&v);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_streams_say_only_what_is_known, setup),
		cmocka_unit_test_setup(test_streams_follow_srn_and_set_message_interval, setup),
		cmocka_unit_test_setup(test_streams_carry_receiver_outputs_gps_and_battery_when_there, setup),
		cmocka_unit_test_setup(test_request_message_and_capabilities, setup),
		cmocka_unit_test_setup(test_fence_status_streams_while_the_fence_is_enabled, setup),
		cmocka_unit_test_setup(test_set_home_by_command, setup),
		cmocka_unit_test_setup(test_vfr_hud_throttle_and_battery_remaining, setup),
		cmocka_unit_test_setup(test_get_home_position, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
