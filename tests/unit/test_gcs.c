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

/* What the GCS layer sent. */
static struct gcs g;

static int setup(void **state)
{
	param_init(PARAM_PLANE);
	struct gcs_tx tx = { harness_capture, NULL };
	gcs_init(&g, 1, 1, &tx, NULL);
	n_sent = 0;
	return 0;
}

static unsigned int count(uint32_t msgid)
{
	unsigned int c = 0;
	for (unsigned int i = 0; i < n_sent; i++)
		c += sent[i].msgid == msgid;
	return c;
}

static void test_gcs_heartbeat_once_a_second(void **state)
{
	g.id = (struct gcs_identity){ 1, 3, 0x81, 10, 4 };
	gcs_tick(&g, 5000000);
	gcs_tick(&g, 5500000);
	gcs_tick(&g, 6000000);
	assert_int_equal(count(MAVLINK_MSG_ID_HEARTBEAT), 2);
	struct mavlink_heartbeat hb;
	mavlink_heartbeat_unpack(harness_last(MAVLINK_MSG_ID_HEARTBEAT)->payload, 9, &hb);
	assert_int_equal(hb.type, 1);
	assert_int_equal(hb.autopilot, 3);
	assert_int_equal(hb.custom_mode, 10);
	assert_int_equal(hb.mavlink_version, 3);
}

static void test_gcs_param_list_sends_every_parameter_once_in_order(void **state)
{
	struct mavlink_param_request_list req = { .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_param_request_list_pack(&req, p);
	gcs_handle(&g, 2, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_LIST, p), 0);
	for (int t = 0; t < 1000; t++)
		gcs_tick(&g, 1 + (uint64_t)t * 20000);
	unsigned int next = 0;
	for (unsigned int i = 0; i < n_sent; i++) {
		if (sent[i].msgid != MAVLINK_MSG_ID_PARAM_VALUE)
			continue;
		struct mavlink_param_value v;
		mavlink_param_value_unpack(sent[i].payload, 25, &v);
		assert_int_equal(sent[i].link, 2);
		assert_int_equal(v.param_index, next);
		assert_int_equal(v.param_count, param_count);
		assert_memory_equal(v.param_id, param_defs[next].name, strlen(param_defs[next].name));
		next++;
	}
	assert_int_equal(next, param_count);
}

static void test_gcs_param_read_by_name_and_by_index(void **state)
{
	struct mavlink_param_request_read r = { .target_system = 1, .target_component = 1,
						.param_index = -1 };
	memcpy(r.param_id, "SYSID_MYGCS", 11);
	uint8_t p[255];
	mavlink_param_request_read_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_READ, p), 0);
	struct mavlink_param_value v;
	mavlink_param_value_unpack(harness_last(MAVLINK_MSG_ID_PARAM_VALUE)->payload, 25, &v);
	assert_true(v.param_value == 255.0f);
	assert_int_equal(v.param_type, PARAM_INT16);

	r.param_index = 0;
	mavlink_param_request_read_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_READ, p), 0);
	mavlink_param_value_unpack(harness_last(MAVLINK_MSG_ID_PARAM_VALUE)->payload, 25, &v);
	assert_int_equal(v.param_index, 0);

	/* Unknown name, index past the end, another system: nothing sent, counted. */
	unsigned int before = n_sent;
	r.param_index = -1;
	memcpy(r.param_id, "NOPE_NOT_HERE\0\0\0", 16);
	mavlink_param_request_read_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_READ, p), 0);
	r.param_index = 30000;
	mavlink_param_request_read_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_READ, p), 0);
	r.target_system = 9;
	mavlink_param_request_read_pack(&r, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_REQUEST_READ, p), 0);
	assert_int_equal(n_sent, before);
	assert_int_equal(g.stats.param_unknown, 2);
	assert_int_equal(g.stats.not_for_us, 1);
}

static void test_gcs_param_set_answers_with_the_value_in_force(void **state)
{
	struct mavlink_param_set s = { .target_system = 1, .target_component = 1,
				       .param_value = 4, .param_type = PARAM_INT16 };
	/* A full 16-character name has no NUL. */
	memcpy(s.param_id, "SR0_EXTRA1", 10);
	uint8_t p[255];
	mavlink_param_set_pack(&s, p);
	gcs_handle(&g, 1, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_SET, p), 0);
	assert_true(param_get_by_name("SR0_EXTRA1") == 4.0f);
	const struct sent *out = harness_last(MAVLINK_MSG_ID_PARAM_VALUE);
	assert_int_equal(out->link, GCS_LINK_ALL);
	struct mavlink_param_value v;
	mavlink_param_value_unpack(out->payload, 25, &v);
	assert_true(v.param_value == 4.0f);

	/* Out of range: refused with a STATUSTEXT, and the old value echoed. */
	s.param_value = 99;
	mavlink_param_set_pack(&s, p);
	gcs_handle(&g, 1, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_SET, p), 0);
	assert_true(param_get_by_name("SR0_EXTRA1") == 4.0f);
	mavlink_param_value_unpack(harness_last(MAVLINK_MSG_ID_PARAM_VALUE)->payload, 25, &v);
	assert_true(v.param_value == 4.0f);
	struct mavlink_statustext t;
	mavlink_statustext_unpack(harness_last(MAVLINK_MSG_ID_STATUSTEXT)->payload, 54, &t);
	assert_int_equal(t.severity, GCS_SEV_WARNING);
	assert_memory_equal(t.text, "SR0_EXTRA1: 99 outside 0..50", 28);
	assert_int_equal(g.stats.param_refused, 1);
}

static void test_gcs_escape_makes_wire_bytes_printable(void **state)
{
	char out[65];
	const char wire[16] = "\xff\xfe\x01\x1b[2J\\ok";
	assert_int_equal(gcs_escape(wire, sizeof(wire), out, sizeof(out)), 23);
	assert_string_equal(out, "\\xff\\xfe\\x01\\x1b[2J\\\\ok");
	/* Cut at a whole escape, always terminated. */
	assert_int_equal(gcs_escape(wire, sizeof(wire), out, 7), 4);
	assert_string_equal(out, "\\xff");
	/* A name of 16 bytes without a NUL is read to its end, not past it. */
	const char full[16] = "ABCDEFGHIJKLMNOP";
	assert_int_equal(gcs_escape(full, sizeof(full), out, sizeof(out)), 16);
	assert_string_equal(out, "ABCDEFGHIJKLMNOP");
}

static void test_gcs_statustext_is_printable_ascii_only(void **state)
{
	/* A PARAM_SET for a name holding an ESC sequence: the console is not cleared. */
	struct mavlink_param_set s = { .target_system = 1, .target_component = 1 };
	memcpy(s.param_id, "\xff\xfe\x01\x1b[2J\x1b[H", 10);
	uint8_t p[255];
	mavlink_param_set_pack(&s, p);
	gcs_handle(&g, 0, harness_frame(255, 190, MAVLINK_MSG_ID_PARAM_SET, p), 0);
	struct mavlink_statustext t;
	mavlink_statustext_unpack(harness_last(MAVLINK_MSG_ID_STATUSTEXT)->payload, 54, &t);
	char text[51] = { 0 };
	memcpy(text, t.text, 50);
	assert_string_equal(text, "PARAM_SET: no parameter \\xff\\xfe\\x01\\x1b[2J\\x1b[H");
	/* Whatever else reaches it: never a byte outside 0x20..0x7e. */
	gcs_text(&g, GCS_SEV_INFO, "bell\a tab\t %s", "\x80\xc3\xa9");
	mavlink_statustext_unpack(harness_last(MAVLINK_MSG_ID_STATUSTEXT)->payload, 54, &t);
	memcpy(text, t.text, 50);
	assert_string_equal(text, "bell? tab? ???");
}

static void test_gcs_autopilot_version_when_a_ground_station_connects(void **state)
{
	struct mavlink_heartbeat hb = { .type = 6, .autopilot = 8, .mavlink_version = 3 };
	uint8_t p[255];
	mavlink_heartbeat_pack(&hb, p);
	gcs_handle(&g, 2, harness_frame(255, 190, MAVLINK_MSG_ID_HEARTBEAT, p), 1000000);
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_AUTOPILOT_VERSION), 1);
	/* Once per connection, not with every heartbeat ... */
	for (uint64_t t = 2000000; t <= 6000000; t += 1000000)
		gcs_handle(&g, 2, harness_frame(255, 190, MAVLINK_MSG_ID_HEARTBEAT, p), t);
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_AUTOPILOT_VERSION), 1);
	/* ... and again when it comes back after a silence. */
	gcs_handle(&g, 2, harness_frame(255, 190, MAVLINK_MSG_ID_HEARTBEAT, p), 20000000);
	assert_int_equal(harness_count(2, MAVLINK_MSG_ID_AUTOPILOT_VERSION), 2);
	/* Another vehicle's heartbeat is no ground station. */
	hb.type = 1;
	mavlink_heartbeat_pack(&hb, p);
	gcs_handle(&g, 3, harness_frame(2, 1, MAVLINK_MSG_ID_HEARTBEAT, p), 20000000);
	assert_int_equal(harness_count(3, MAVLINK_MSG_ID_AUTOPILOT_VERSION), 0);
}

static void test_gcs_battery_remaining_from_capacity(void **state)
{
	assert_int_equal(gcs_battery_remaining(3300, 0), 100);
	assert_int_equal(gcs_battery_remaining(3300, 1650), 50);
	assert_int_equal(gcs_battery_remaining(3300, 3000), 9);
	assert_int_equal(gcs_battery_remaining(3300, 4000), 0);
	assert_int_equal(gcs_battery_remaining(3300, -10), 100);
	assert_int_equal(gcs_battery_remaining(0, 100), -1);
	assert_int_equal(gcs_battery_remaining(3300, NAN), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_gcs_heartbeat_once_a_second, setup),
		cmocka_unit_test_setup(test_gcs_param_list_sends_every_parameter_once_in_order, setup),
		cmocka_unit_test_setup(test_gcs_param_read_by_name_and_by_index, setup),
		cmocka_unit_test_setup(test_gcs_param_set_answers_with_the_value_in_force, setup),
		cmocka_unit_test_setup(test_gcs_escape_makes_wire_bytes_printable, setup),
		cmocka_unit_test_setup(test_gcs_statustext_is_printable_ascii_only, setup),
		cmocka_unit_test_setup(test_gcs_autopilot_version_when_a_ground_station_connects, setup),
		cmocka_unit_test_setup(test_gcs_battery_remaining_from_capacity, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
