// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcs_harness.h"
#include "mavlink/gcs.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

static struct gcs g;
static struct mission live;
static uint64_t now = 1000000;

static int setup(void **state)
{
	param_init();
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mission_upload_of_20_items_then_download, setup),
		cmocka_unit_test_setup(test_mission_upload_survives_a_lost_item, setup),
		cmocka_unit_test_setup(test_mission_upload_gives_up_and_keeps_the_old_mission, setup),
		cmocka_unit_test_setup(test_mission_refusals_carry_their_reason, setup),
		cmocka_unit_test_setup(test_mission_partial_write_clear_and_set_current, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
