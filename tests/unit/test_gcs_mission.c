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
#include "vehicle/fence.h"

static struct gcs g;
static struct mission live;
static uint64_t now = 1000000;

static int setup(void **state)
{
	param_init(PARAM_PLANE);
	mission_clear(&live);
	struct gcs_tx tx = { harness_capture, NULL };
	gcs_init(&g, 1, 1, &tx, &live);
	n_sent = 0;
	return 0;
}

static void deliver(uint32_t msgid, const uint8_t *payload)
{
	gcs_handle(&g, 0, harness_frame(255, 190, msgid, payload), now);
}

static uint8_t last_ack(void)
{
	const struct sent *s = harness_last(MAVLINK_MSG_ID_MISSION_ACK);
	assert_non_null(s);
	struct mavlink_mission_ack a;
	mavlink_mission_ack_unpack(s->payload, 4, &a);
	return a.type;
}

/* The seq of the last MISSION_REQUEST_INT, or -1 if none since mark. */
static int requested_since(unsigned int mark)
{
	for (unsigned int i = n_sent; i-- > mark;)
		if (sent[i].msgid == MAVLINK_MSG_ID_MISSION_REQUEST_INT) {
			struct mavlink_mission_request_int r;
			mavlink_mission_request_int_unpack(sent[i].payload, 5, &r);
			return r.seq;
		}
	return -1;
}

static void send_count(uint16_t count, uint8_t type)
{
	struct mavlink_mission_count c = { .count = count, .target_system = 1, .target_component = 1,
					   .mission_type = type };
	uint8_t p[255];
	mavlink_mission_count_pack(&c, p);
	deliver(MAVLINK_MSG_ID_MISSION_COUNT, p);
}

static void send_item(uint16_t seq)
{
	struct mavlink_mission_item_int it = {
		.seq = seq, .command = 16, .frame = 6, .autocontinue = 1, .target_system = 1,
		.target_component = 1, .x = 522000000 + seq, .y = 130000000 - seq, .z = 80 + seq,
		.param1 = (float)seq,
	};
	uint8_t p[255];
	mavlink_mission_item_int_pack(&it, p);
	deliver(MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
}

/* Answers every request as a ground station would; returns items sent. */
static int answer_all(int drop_seq)
{
	int sent_items = 0;
	for (int guard = 0; guard < 200; guard++) {
		/* The last word of the mission protocol (telemetry goes on around it). */
		const struct sent *r = NULL;
		for (unsigned int i = n_sent; i-- > 0 && !r;)
			if (sent[i].msgid == MAVLINK_MSG_ID_MISSION_REQUEST_INT ||
			    sent[i].msgid == MAVLINK_MSG_ID_MISSION_ACK)
				r = &sent[i];
		if (!r || r->msgid != MAVLINK_MSG_ID_MISSION_REQUEST_INT)
			return sent_items;
		struct mavlink_mission_request_int req;
		mavlink_mission_request_int_unpack(r->payload, 5, &req);
		if (req.seq == drop_seq) {
			drop_seq = -1;  /* lost once; the time-out asks again */
			now += 1600000;
			gcs_tick(&g, now);
			continue;
		}
		send_item(req.seq);
		sent_items++;
	}
	fail_msg("upload did not end");
	return sent_items;
}

static void test_mission_upload_of_20_items_then_download(void **state)
{
	send_count(20, 0);
	assert_int_equal(requested_since(0), 0);
	assert_int_equal(answer_all(-1), 20);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(live.count, 20);
	assert_int_equal(live.items[7].x, 522000007);
	assert_int_equal(g.mission_generation, 1);

	/* Download, the MISSION_ITEM_INT way and the legacy way. */
	struct mavlink_mission_request_list rl = { .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_mission_request_list_pack(&rl, p);
	deliver(MAVLINK_MSG_ID_MISSION_REQUEST_LIST, p);
	struct mavlink_mission_count c;
	mavlink_mission_count_unpack(harness_last(MAVLINK_MSG_ID_MISSION_COUNT)->payload, 9, &c);
	assert_int_equal(c.count, 20);
	for (uint16_t s = 0; s < 20; s++) {
		struct mavlink_mission_request_int r = { .seq = s, .target_system = 1, .target_component = 1 };
		mavlink_mission_request_int_pack(&r, p);
		deliver(MAVLINK_MSG_ID_MISSION_REQUEST_INT, p);
		struct mavlink_mission_item_int it;
		mavlink_mission_item_int_unpack(harness_last(MAVLINK_MSG_ID_MISSION_ITEM_INT)->payload, 38, &it);
		assert_int_equal(it.seq, s);
		assert_int_equal(it.x, 522000000 + s);
		assert_int_equal(it.y, 130000000 - s);
		assert_true(it.z == 80.0f + s);
	}
	struct mavlink_mission_request r = { .seq = 4, .target_system = 1, .target_component = 1 };
	mavlink_mission_request_pack(&r, p);
	deliver(MAVLINK_MSG_ID_MISSION_REQUEST, p);
	struct mavlink_mission_item it;
	mavlink_mission_item_unpack(harness_last(MAVLINK_MSG_ID_MISSION_ITEM)->payload, 38, &it);
	assert_true(it.x > 52.19999f && it.x < 52.20001f);
	/* Beyond the end. */
	r.seq = 20;
	mavlink_mission_request_pack(&r, p);
	deliver(MAVLINK_MSG_ID_MISSION_REQUEST, p);
	assert_int_equal(last_ack(), 13);  /* MAV_MISSION_INVALID_SEQUENCE */
}

static void test_mission_upload_survives_a_lost_item(void **state)
{
	send_count(10, 0);
	assert_int_equal(answer_all(5), 10);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(live.count, 10);
	assert_int_equal(g.stats.mission_retries, 1);
	/* A late duplicate after the end changes nothing. */
	send_item(9);
	assert_int_equal(live.count, 10);
}

static void test_mission_upload_gives_up_and_keeps_the_old_mission(void **state)
{
	send_count(3, 0);
	answer_all(-1);
	assert_int_equal(live.count, 3);
	send_count(8, 0);
	send_item(0);
	for (int i = 0; i < 10; i++) {
		now += 1600000;
		gcs_tick(&g, now);
	}
	assert_int_equal(last_ack(), 15);  /* MAV_MISSION_OPERATION_CANCELLED */
	assert_int_equal(live.count, 3);
	assert_int_equal(g.stats.mission_retries, 5);
}

static void test_mission_refusals_carry_their_reason(void **state)
{
	send_count(MISSION_MAX_ITEMS + 1, 0);
	assert_int_equal(last_ack(), 4);   /* NO_SPACE */
	send_count(5, 1);                  /* a fence */
	assert_int_equal(last_ack(), 3);   /* UNSUPPORTED */
	send_item(0);                      /* nobody asked */
	assert_int_equal(last_ack(), 14);  /* DENIED */
	assert_int_equal(live.count, 0);
}

static void test_mission_partial_write_clear_and_set_current(void **state)
{
	send_count(6, 0);
	answer_all(-1);
	struct mavlink_mission_write_partial_list pl = { .start_index = 2, .end_index = 3,
							  .target_system = 1, .target_component = 1 };
	uint8_t p[255];
	mavlink_mission_write_partial_list_pack(&pl, p);
	unsigned int mark = n_sent;
	deliver(MAVLINK_MSG_ID_MISSION_WRITE_PARTIAL_LIST, p);
	assert_int_equal(requested_since(mark), 2);
	struct mavlink_mission_item_int it = { .seq = 2, .command = 21, .target_system = 1,
					       .target_component = 1 };
	mavlink_mission_item_int_pack(&it, p);
	deliver(MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
	it.seq = 3;
	mavlink_mission_item_int_pack(&it, p);
	deliver(MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(live.count, 6);
	assert_int_equal(live.items[1].command, 16);
	assert_int_equal(live.items[2].command, 21);
	assert_int_equal(live.items[3].command, 21);
	assert_int_equal(live.items[4].command, 16);

	struct mavlink_mission_set_current sc = { .seq = 4, .target_system = 1, .target_component = 1 };
	mavlink_mission_set_current_pack(&sc, p);
	deliver(MAVLINK_MSG_ID_MISSION_SET_CURRENT, p);
	assert_int_equal(live.current, 4);
	struct mavlink_mission_current mc;
	mavlink_mission_current_unpack(harness_last(MAVLINK_MSG_ID_MISSION_CURRENT)->payload, 18, &mc);
	assert_int_equal(mc.seq, 4);

	struct mavlink_mission_clear_all ca = { .target_system = 1, .target_component = 1 };
	mavlink_mission_clear_all_pack(&ca, p);
	deliver(MAVLINK_MSG_ID_MISSION_CLEAR_ALL, p);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(live.count, 0);
}


/* Fence and rally lists (mission types 1 and 2). */
static struct mission fence_list, rally_list;

static int setup_lists(void **state)
{
	setup(state);
	mission_clear(&fence_list);
	mission_clear(&rally_list);
	g.fence = &fence_list;
	g.rally = &rally_list;
	return 0;
}

static struct mavlink_mission_item_int list_item(uint8_t type, uint16_t cmd, float p1, int32_t x,
						  int32_t y, float z)
{
	return (struct mavlink_mission_item_int){
		.command = cmd, .frame = 3, .target_system = 1, .target_component = 1,
		.mission_type = type, .param1 = p1, .x = x, .y = y, .z = z,
	};
}

/* Uploads items[0..n) of type, answering each request; returns the MISSION_ACK's result. */
static int upload(uint8_t type, const struct mavlink_mission_item_int *items, uint16_t n)
{
	send_count(n, type);
	for (int guard = 0; guard < 1000; guard++) {
		const struct sent *r = NULL;
		for (unsigned int i = n_sent; i-- > 0 && !r;)
			if (sent[i].msgid == MAVLINK_MSG_ID_MISSION_REQUEST_INT ||
			    sent[i].msgid == MAVLINK_MSG_ID_MISSION_ACK)
				r = &sent[i];
		assert_non_null(r);
		if (r->msgid == MAVLINK_MSG_ID_MISSION_ACK) {
			struct mavlink_mission_ack a;
			mavlink_mission_ack_unpack(r->payload, 4, &a);
			assert_int_equal(a.mission_type, type);
			return a.type;
		}
		struct mavlink_mission_request_int req;
		mavlink_mission_request_int_unpack(r->payload, 5, &req);
		assert_int_equal(req.mission_type, type);
		assert_true(req.seq < n);
		struct mavlink_mission_item_int it = items[req.seq];
		it.seq = req.seq;
		uint8_t p[255];
		mavlink_mission_item_int_pack(&it, p);
		deliver(MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
	}
	fail_msg("upload did not end");
	return -1;
}

/* Downloads a list of type and checks it equal to items[0..n). */
static void download_equal(uint8_t type, const struct mavlink_mission_item_int *items, uint16_t n)
{
	uint8_t p[255];
	struct mavlink_mission_request_list rl = { .target_system = 1, .target_component = 1,
						   .mission_type = type };
	mavlink_mission_request_list_pack(&rl, p);
	deliver(MAVLINK_MSG_ID_MISSION_REQUEST_LIST, p);
	struct mavlink_mission_count c;
	mavlink_mission_count_unpack(harness_last(MAVLINK_MSG_ID_MISSION_COUNT)->payload, 9, &c);
	assert_int_equal(c.count, n);
	assert_int_equal(c.mission_type, type);
	for (uint16_t i = 0; i < n; i++) {
		struct mavlink_mission_request_int r = { .seq = i, .target_system = 1,
							 .target_component = 1, .mission_type = type };
		mavlink_mission_request_int_pack(&r, p);
		deliver(MAVLINK_MSG_ID_MISSION_REQUEST_INT, p);
		struct mavlink_mission_item_int it;
		mavlink_mission_item_int_unpack(harness_last(MAVLINK_MSG_ID_MISSION_ITEM_INT)->payload,
						MAVLINK_MSG_MISSION_ITEM_INT_MAX_LEN, &it);
		assert_int_equal(it.seq, i);
		assert_int_equal(it.mission_type, type);
		assert_int_equal(it.command, items[i].command);
		assert_int_equal(it.frame, items[i].frame);
		assert_int_equal(it.x, items[i].x);
		assert_int_equal(it.y, items[i].y);
		assert_true(it.param1 == items[i].param1);
		assert_true(it.z == items[i].z);
		assert_int_equal(it.current, 0);
	}
}

static const int32_t LAT = -353632610, LON = 1491652300;

static void test_fence_upload_download_and_clear(void **state)
{
	const struct mavlink_mission_item_int f[] = {
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT - 30000, LON - 30000, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT + 30000, LON - 30000, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT + 30000, LON + 30000, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT - 30000, LON + 30000, 0),
		list_item(1, FENCE_CMD_CIRCLE_EXCLUSION, 40, LAT + 10000, LON, 0),
		list_item(1, FENCE_CMD_POLYGON_EXCLUSION, 3, LAT, LON + 10000, 0),
		list_item(1, FENCE_CMD_POLYGON_EXCLUSION, 3, LAT + 2000, LON + 10000, 0),
		list_item(1, FENCE_CMD_POLYGON_EXCLUSION, 3, LAT, LON + 12000, 0),
		list_item(1, FENCE_CMD_RETURN_POINT, 0, LAT - 1000, LON, 60),
	};
	assert_int_equal(upload(1, f, 9), 0);
	assert_int_equal(fence_list.count, 9);
	assert_int_equal(g.fence_generation, 1);
	assert_int_equal(live.count, 0);        /* the flight plan untouched */
	download_equal(1, f, 9);
	/* The flight plan's download is its own. */
	download_equal(0, f, 0);
	/* Clear, by MISSION_CLEAR_ALL of the fence type. */
	struct mavlink_mission_clear_all ca = { .target_system = 1, .target_component = 1,
						.mission_type = 1 };
	uint8_t p[255];
	mavlink_mission_clear_all_pack(&ca, p);
	deliver(MAVLINK_MSG_ID_MISSION_CLEAR_ALL, p);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(fence_list.count, 0);
	assert_int_equal(g.fence_generation, 2);
	/* And by a count of 0. */
	assert_int_equal(upload(1, f, 4), 0);
	send_count(0, 1);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(fence_list.count, 0);
}

static void test_rally_upload_download_and_clear_all(void **state)
{
	int idx = param_find("RALLY_TOTAL");
	assert_true(idx >= 0);
	const struct mavlink_mission_item_int r[] = {
		list_item(2, RALLY_CMD_POINT, 0, LAT + 20000, LON, 80),
		list_item(2, RALLY_CMD_POINT, 0, LAT - 20000, LON + 5000, 70),
		list_item(2, RALLY_CMD_POINT, 0, LAT, LON - 20000, 90),
	};
	assert_int_equal(upload(2, r, 3), 0);
	assert_int_equal(rally_list.count, 3);
	assert_int_equal(g.rally_generation, 1);
	assert_true(param_get(idx) == 3.0f);
	download_equal(2, r, 3);
	/* MAV_MISSION_TYPE_ALL clears the three lists. */
	send_count(5, 0);
	answer_all(-1);
	assert_int_equal(live.count, 5);
	struct mavlink_mission_clear_all ca = { .target_system = 1, .target_component = 1,
						.mission_type = 255 };
	uint8_t p[255];
	mavlink_mission_clear_all_pack(&ca, p);
	deliver(MAVLINK_MSG_ID_MISSION_CLEAR_ALL, p);
	assert_int_equal(last_ack(), 0);
	assert_int_equal(rally_list.count, 0);
	assert_int_equal(live.count, 0);
	assert_true(param_get(idx) == 0.0f);
}

static void test_fence_and_rally_refusals_keep_the_old_list(void **state)
{
	const struct mavlink_mission_item_int ok[] = {
		list_item(1, FENCE_CMD_CIRCLE_INCLUSION, 500, LAT, LON, 0),
	};
	assert_int_equal(upload(1, ok, 1), 0);
	/* A polygon of two vertices: its param1. */
	struct mavlink_mission_item_int two[] = {
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 2, LAT, LON, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 2, LAT + 100, LON, 0),
	};
	assert_int_equal(upload(1, two, 2), 6);       /* MAV_MISSION_INVALID_PARAM1 */
	/* A polygon announcing 4 vertices with 3 given, then a circle. */
	struct mavlink_mission_item_int short_poly[] = {
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT, LON, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT + 100, LON, 0),
		list_item(1, FENCE_CMD_POLYGON_INCLUSION, 4, LAT + 100, LON + 100, 0),
		list_item(1, FENCE_CMD_CIRCLE_INCLUSION, 50, LAT, LON, 0),
	};
	assert_int_equal(upload(1, short_poly, 4), 5);  /* MAV_MISSION_INVALID */
	/* A waypoint in the fence; a local frame; a latitude off the earth. */
	struct mavlink_mission_item_int wp[] = { list_item(1, 16, 0, LAT, LON, 0) };
	assert_int_equal(upload(1, wp, 1), 3);        /* MAV_MISSION_UNSUPPORTED */
	wp[0] = list_item(1, FENCE_CMD_RETURN_POINT, 0, LAT, LON, 50);
	wp[0].frame = 1;
	assert_int_equal(upload(1, wp, 1), 2);        /* MAV_MISSION_UNSUPPORTED_FRAME */
	wp[0].frame = 6;
	wp[0].x = 950000000;
	assert_int_equal(upload(1, wp, 1), 10);       /* MAV_MISSION_INVALID_PARAM5_X */
	/* A fence item in the rally list, too many rally points. */
	struct mavlink_mission_item_int rp[] = { list_item(2, FENCE_CMD_RETURN_POINT, 0, LAT, LON, 50) };
	assert_int_equal(upload(2, rp, 1), 3);
	send_count(RALLY_MAX_ITEMS + 1, 2);
	assert_int_equal(last_ack(), 4);              /* NO_SPACE */
	send_count(FENCE_MAX_ITEMS + 1, 1);
	assert_int_equal(last_ack(), 4);
	/* Every refusal kept the one good fence; each was counted. */
	assert_int_equal(fence_list.count, 1);
	assert_int_equal(fence_list.items[0].command, FENCE_CMD_CIRCLE_INCLUSION);
	assert_int_equal(g.fence_generation, 1);
	assert_int_equal(g.stats.fence_rejected, 6);
	/* An item of another type in the middle of an upload: denied. */
	send_count(2, 1);
	struct mavlink_mission_item_int other = list_item(2, RALLY_CMD_POINT, 0, LAT, LON, 50);
	uint8_t p[255];
	mavlink_mission_item_int_pack(&other, p);
	deliver(MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
	assert_int_equal(last_ack(), 14);             /* DENIED */
}

/* Malformed input: random fence items (commands, params, frames, places) never crash the
 * services, and whatever is accepted is a list that validates. */
static void test_fence_upload_of_random_items(void **state)
{
	uint32_t seed = 12345;
	static const uint16_t cmds[] = { 5000, 5001, 5002, 5003, 5004, 5100, 16, 0, 65535 };
	struct mavlink_mission_item_int items[12];
	int accepted = 0;
	for (int round = 0; round < 500; round++) {
		uint16_t n = 1 + (uint16_t)(round % 12);
		for (uint16_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			uint16_t cmd = cmds[(seed >> 16) % 9];
			float p1 = (float)((int)((seed >> 8) % 8) - 1);
			if ((seed & 7) == 0)
				p1 = NAN;
			items[i] = list_item(1, cmd, p1, LAT + (int32_t)(seed % 100000),
					     LON + (int32_t)((seed >> 3) % 100000), 10);
			items[i].frame = (uint8_t)((seed >> 20) % 12);
			if ((seed & 0xf0) == 0)
				items[i].x = (int32_t)seed;
		}
		int r = upload(1, items, n);
		if (r == 0) {
			accepted++;
			uint16_t bad;
			assert_int_equal(fence_validate(&fence_list, &bad), FENCE_RESULT_OK);
		}
	}
	assert_true(accepted > 0);
	assert_true(g.stats.fence_rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mission_upload_of_20_items_then_download, setup),
		cmocka_unit_test_setup(test_mission_upload_survives_a_lost_item, setup),
		cmocka_unit_test_setup(test_mission_upload_gives_up_and_keeps_the_old_mission, setup),
		cmocka_unit_test_setup(test_mission_refusals_carry_their_reason, setup),
		cmocka_unit_test_setup(test_mission_partial_write_clear_and_set_current, setup),
		cmocka_unit_test_setup(test_fence_upload_download_and_clear, setup_lists),
		cmocka_unit_test_setup(test_rally_upload_download_and_clear_all, setup_lists),
		cmocka_unit_test_setup(test_fence_and_rally_refusals_keep_the_old_list, setup_lists),
		cmocka_unit_test_setup(test_fence_upload_of_random_items, setup_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
