// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "gcs_harness.h"
#include "mavlink/gcs.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

static struct gcs g;
static struct vehicle v;

static int setup(void **state)
{
	param_init(PARAM_PLANE);
	vehicle_init(&v, VEHICLE_PLANE);
	struct gcs_tx tx = { harness_capture, NULL };
	gcs_init(&g, 1, 1, &tx, NULL);
	g.vehicle = &v;
	n_sent = 0;
	return 0;
}

static void deliver(uint32_t msgid, const uint8_t *payload)
{
	gcs_handle(&g, 0, harness_frame(255, 190, msgid, payload), 1000);
}

/* Sends COMMAND_LONG and returns the result of its COMMAND_ACK. */
static int command7(uint16_t cmd, float p1, float p2, float p7)
{
	struct mavlink_command_long c = { .command = cmd, .param1 = p1, .param2 = p2, .param7 = p7,
					  .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_command_long_pack(&c, p);
	unsigned int mark = n_sent;
	deliver(MAVLINK_MSG_ID_COMMAND_LONG, p);
	for (unsigned int i = mark; i < n_sent; i++)
		if (sent[i].msgid == MAVLINK_MSG_ID_COMMAND_ACK) {
			struct mavlink_command_ack a;
			mavlink_command_ack_unpack(sent[i].payload, 10, &a);
			assert_int_equal(a.command, cmd);
			assert_int_equal(a.target_system, 255);
			return a.result;
		}
	fail_msg("no COMMAND_ACK for %u", cmd);
	return -1;
}

static int command(uint16_t cmd, float p1, float p2)
{
	return command7(cmd, p1, p2, 0.0f);
}

static const char *last_text(void)
{
	static char t[51];
	for (unsigned int i = n_sent; i-- > 0;)
		if (sent[i].msgid == MAVLINK_MSG_ID_STATUSTEXT) {
			struct mavlink_statustext s;
			mavlink_statustext_unpack(sent[i].payload, 54, &s);
			memcpy(t, s.text, 50);
			t[50] = '\0';
			return t;
		}
	return "";
}

static void test_command_arm_refused_with_reason_while_not_ready(void **state)
{
	assert_int_equal(command(400, 1, 0), 4);  /* MAV_RESULT_FAILED */
	assert_string_equal(last_text(), "Arm: still initialising (no attitude estimate)");
	assert_false(v.armed);
}

static void test_command_arm_disarm_and_retries_are_idempotent(void **state)
{
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID, 0);
	assert_int_equal(command(400, 1, 0), 0);
	assert_int_equal(command(400, 1, 0), 0);  /* the GCS retried */
	assert_true(v.armed);
	assert_int_equal(command(246, 1, 0), 2);  /* no reboot while armed */
	assert_int_equal(command(400, 0, 0), 0);
	assert_false(v.armed);
	assert_int_equal(command(246, 1, 0), 0);
	assert_int_equal(g.exit_request, GCS_EXIT_REBOOT);
}

static void test_command_modes_by_command_and_by_set_mode(void **state)
{
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID, 0);
	assert_int_equal(command(176, 1, 5), 0);          /* DO_SET_MODE FBWA */
	assert_int_equal(v.mode, PLANE_FBWA);
	assert_int_equal(command(176, 1, 10), 2);         /* AUTO: no position */
	assert_string_equal(last_text(), "AUTO refused: no altitude estimate");
	assert_int_equal(command(176, 1, 9), 3);          /* no such mode */
	assert_int_equal(command(300, 0, 0), 2);          /* MISSION_START */
	struct mavlink_set_mode sm = { .custom_mode = 0, .target_system = 1, .base_mode = 1 };
	uint8_t p[255];
	mavlink_set_mode_pack(&sm, p);
	deliver(MAVLINK_MSG_ID_SET_MODE, p);
	assert_int_equal(v.mode, PLANE_MANUAL);
	assert_int_equal(sent[n_sent - 1].msgid, MAVLINK_MSG_ID_COMMAND_ACK);
}

/* MISSION_START in the air: aligned, with a position and the mission's home
 * kept, it enters AUTO (the mission executor then passes a takeoff it is
 * above: test_mission_exec), disarmed or armed. */
static void test_command_mission_start_enters_auto_in_the_air(void **state)
{
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, 9);
	v.home_set = true;
	assert_int_equal(command(300, 0, 0), 0);
	assert_int_equal(v.mode, PLANE_AUTO);
}

/* A copter's MISSION_START and RETURN_TO_LAUNCH are its own AUTO and RTL;
 * NAV_TAKEOFF is ArduCopter's user takeoff, a plane's is unsupported. */
static void test_command_copter_modes_and_takeoff(void **state)
{
	assert_int_equal(command7(22, 0, 0, 10.0f), 3);   /* a plane: unsupported */
	param_init(PARAM_COPTER);
	vehicle_init(&v, VEHICLE_COPTER);
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, 9);
	v.home_set = true;
	assert_int_equal(command(300, 0, 0), 0);
	assert_int_equal(v.mode, COPTER_AUTO);
	assert_int_equal(command(20, 0, 0), 0);
	assert_int_equal(v.mode, COPTER_RTL);
	assert_int_equal(command(176, 1, COPTER_GUIDED), 0);
	assert_int_equal(command7(22, 0, 0, 10.0f), 4);   /* not armed: failed */
	assert_string_equal(last_text(), "Takeoff: not armed");
	assert_int_equal(command(400, 1, 0), 0);
	v.landed = true;
	assert_int_equal(command7(22, 0, 0, -3.0f), 2);   /* not a height: denied */
	assert_int_equal(command7(22, 0, 0, 10.0f), 0);
	assert_int_equal(v.takeoff.generation, 1);
	assert_true(v.takeoff.alt_rel_m == 10.0f);
	v.landed = false;
	assert_int_equal(command7(22, 0, 0, 10.0f), 4);
	assert_string_equal(last_text(), "Takeoff: flying already");
}

/* COMMAND_INT DO_REPOSITION: lat/lon in x/y, param7's height in frame's sense. */
static int reposition_in(uint8_t frame, float flags, int32_t lat_e7, int32_t lon_e7, float alt)
{
	struct mavlink_command_int c = { .command = 192, .param1 = -1, .param2 = flags,
					 .param4 = NAN, .x = lat_e7, .y = lon_e7, .z = alt,
					 .frame = frame, .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_command_int_pack(&c, p);
	unsigned int mark = n_sent;
	deliver(MAVLINK_MSG_ID_COMMAND_INT, p);
	for (unsigned int i = mark; i < n_sent; i++)
		if (sent[i].msgid == MAVLINK_MSG_ID_COMMAND_ACK) {
			struct mavlink_command_ack a;
			mavlink_command_ack_unpack(sent[i].payload, 10, &a);
			return a.result;
		}
	fail_msg("no COMMAND_ACK for DO_REPOSITION");
	return -1;
}

/* ... above home (MAV_FRAME_GLOBAL_RELATIVE_ALT_INT) */
static int reposition(float flags, int32_t lat_e7, int32_t lon_e7, float alt)
{
	return reposition_in(6, flags, lat_e7, lon_e7, alt);
}

static void test_command_guided_fly_to(void **state)
{
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, 0);
	/* Not in GUIDED and not asked to switch: refused, as ArduPlane does. */
	assert_int_equal(reposition(0, -353600000, 1491650000, 80), 2);
	assert_int_equal(v.guided.generation, 0);
	/* With the mode-change bit: GUIDED, and the target. */
	assert_int_equal(reposition(1, -353600000, 1491650000, 80), 0);
	assert_int_equal(v.mode, PLANE_GUIDED);
	assert_int_equal(v.guided.generation, 1);
	assert_true(v.guided.lat_deg == -35.36 && v.guided.alt_rel_m == 80.0f);
	assert_int_equal(reposition(0, 900000001, 0, 80), 2);   /* not on earth */
	assert_int_equal(v.guided.generation, 1);
	/* SET_POSITION_TARGET_GLOBAL_INT, relative frame, position only. */
	struct mavlink_set_position_target_global_int t = {
		.target_system = 1, .target_component = 1, .coordinate_frame = 6,
		.type_mask = 0xFF8, .lat_int = -353610000, .lon_int = 1491660000, .alt = 60 };
	uint8_t p[255];
	mavlink_set_position_target_global_int_pack(&t, p);
	deliver(MAVLINK_MSG_ID_SET_POSITION_TARGET_GLOBAL_INT, p);
	assert_int_equal(v.guided.generation, 2);
	assert_true(v.guided.alt_rel_m == 60.0f);
	/* Velocity-only targets are not what a plane's GUIDED flies: ignored. */
	t.type_mask = 0xFC7;
	mavlink_set_position_target_global_int_pack(&t, p);
	deliver(MAVLINK_MSG_ID_SET_POSITION_TARGET_GLOBAL_INT, p);
	assert_int_equal(v.guided.generation, 2);
}

/* QGroundControl's "go to location": MAV_FRAME_GLOBAL, param7 above sea level. */
static void test_command_reposition_takes_the_height_in_its_frame(void **state)
{
	vehicle_update(&v, VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, 0);
	g.in.state.alt_msl_m = 604.0f;   /* 20 m above a home at 584 m */
	g.in.state.alt_rel_m = 20.0f;
	assert_int_equal(reposition_in(0, 1, -353600000, 1491650000, 614.0f), 0);
	assert_true(fabsf(v.guided.alt_rel_m - 30.0f) < 1e-3f);
	assert_int_equal(reposition_in(5, 1, -353600000, 1491650000, 594.0f), 0);
	assert_true(fabsf(v.guided.alt_rel_m - 10.0f) < 1e-3f);
	assert_int_equal(reposition_in(3, 1, -353600000, 1491650000, 40.0f), 0);
	assert_true(v.guided.alt_rel_m == 40.0f);
	/* NaN: where it is */
	assert_int_equal(reposition_in(0, 1, -353600000, 1491650000, NAN), 0);
	assert_true(v.guided.alt_rel_m == 20.0f);
	/* a local frame is not a place on the map: refused, said */
	assert_int_equal(v.guided.generation, 4);
	assert_int_equal(reposition_in(1, 1, -353600000, 1491650000, 40.0f), 2);
	assert_string_equal(last_text(), "Reposition: frame 1 not supported");
	assert_int_equal(v.guided.generation, 4);
}

static void test_command_unknown_is_unsupported_and_counted(void **state)
{
	assert_int_equal(command(31000, 0, 0), 3);
	assert_int_equal(command(241, 1, 0), 4);  /* calibration without sensors */
	assert_int_equal(g.stats.commands, 2);
	assert_int_equal(g.stats.commands_refused, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_command_arm_refused_with_reason_while_not_ready, setup),
		cmocka_unit_test_setup(test_command_arm_disarm_and_retries_are_idempotent, setup),
		cmocka_unit_test_setup(test_command_modes_by_command_and_by_set_mode, setup),
		cmocka_unit_test_setup(test_command_mission_start_enters_auto_in_the_air, setup),
		cmocka_unit_test_setup(test_command_copter_modes_and_takeoff, setup),
		cmocka_unit_test_setup(test_command_guided_fly_to, setup),
		cmocka_unit_test_setup(test_command_reposition_takes_the_height_in_its_frame, setup),
		cmocka_unit_test_setup(test_command_unknown_is_unsupported_and_counted, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
