// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mavlink/frame.h"
#include "mavlink/mavlink_msgs.h"

static struct mavlink_parser parser;
static struct mavlink_frame frame;

/* Feeds data; returns the number of frames out, the last in frame. */
static int feed(const uint8_t *data, size_t len)
{
	int frames = 0;
	size_t off = 0;
	bool got;
	do {
		off += mavlink_parse(&parser, data + off, len - off, &frame, &got);
		frames += got;
	} while (got || off < len);
	return frames;
}

static size_t heartbeat_frame(uint8_t version, uint8_t seq, uint8_t *out)
{
	struct mavlink_heartbeat hb = {
		.type = 1, .autopilot = 3, .base_mode = 0x81, .custom_mode = 10,
		.system_status = 4, .mavlink_version = 3,
	};
	uint8_t payload[MAVLINK_MSG_HEARTBEAT_MAX_LEN];
	mavlink_heartbeat_pack(&hb, payload);
	struct mavlink_header h = { version, seq, 1, 1, MAVLINK_MSG_ID_HEARTBEAT };
	return mavlink_encode(&h, payload, out);
}

static int setup(void **state)
{
	mavlink_parser_init(&parser);
	return 0;
}

/* CRC_EXTRA of messages every ground station uses, as published with the dialects. */
static void test_mavlink_crc_extra_of_well_known_messages(void **state)
{
	static const struct { uint32_t id; uint8_t crc; uint8_t min, max; } known[] = {
		{ 0, 50, 9, 9 },        /* HEARTBEAT */
		{ 1, 124, 31, 43 },     /* SYS_STATUS */
		{ 22, 220, 25, 25 },    /* PARAM_VALUE */
		{ 24, 24, 30, 52 },     /* GPS_RAW_INT */
		{ 30, 39, 28, 28 },     /* ATTITUDE */
		{ 33, 104, 28, 28 },    /* GLOBAL_POSITION_INT */
		{ 73, 38, 37, 38 },     /* MISSION_ITEM_INT */
		{ 76, 152, 33, 33 },    /* COMMAND_LONG */
		{ 77, 143, 3, 10 },     /* COMMAND_ACK */
		{ 253, 83, 51, 54 },    /* STATUSTEXT */
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct mavlink_msg_info *m = mavlink_msg_info(known[i].id);
		assert_non_null(m);
		if (m->crc_extra != known[i].crc || m->min_len != known[i].min ||
		    m->max_len != known[i].max)
			fail_msg("%s: crc %u len %u..%u", m->name, m->crc_extra, m->min_len, m->max_len);
	}
	assert_null(mavlink_msg_info(9999));
}

/* The bytes of a MAVLink 2 HEARTBEAT as every implementation writes them. */
static void test_mavlink_heartbeat_frame_bytes(void **state)
{
	uint8_t out[MAVLINK_MAX_FRAME_LEN];
	size_t n = heartbeat_frame(2, 7, out);
	/* Payload in wire order: custom_mode (u32) first, then the bytes; nothing to truncate. */
	static const uint8_t head[] = { 0xFD, 9, 0, 0, 7, 1, 1, 0, 0, 0,
					10, 0, 0, 0, 1, 3, 0x81, 4, 3 };
	assert_int_equal(n, sizeof(head) + 2);
	assert_memory_equal(out, head, sizeof(head));
}

static void test_mavlink_v2_truncates_trailing_zeros_and_unpack_zero_fills(void **state)
{
	struct mavlink_command_ack ack = { .command = 400, .result = 0 };
	uint8_t payload[MAVLINK_MSG_COMMAND_ACK_MAX_LEN];
	assert_int_equal(mavlink_command_ack_pack(&ack, payload), 10);
	uint8_t out[MAVLINK_MAX_FRAME_LEN];
	struct mavlink_header h = { 2, 0, 1, 1, MAVLINK_MSG_ID_COMMAND_ACK };
	size_t n = mavlink_encode(&h, payload, out);
	assert_int_equal(out[1], 2);  /* command 400 = 0x0190: two bytes; result 0 cut */
	assert_int_equal(n, MAVLINK_V2_HEADER_LEN + 2 + 2);
	assert_int_equal(feed(out, n), 1);
	struct mavlink_command_ack back;
	memset(&back, 0xAA, sizeof(back));
	mavlink_command_ack_unpack(mavlink_payload(&frame), frame.len, &back);
	assert_int_equal(back.command, 400);
	assert_int_equal(back.result, 0);
	assert_int_equal(back.progress, 0);
	assert_int_equal(back.target_system, 0);

	/* An all-zero payload keeps one byte. */
	memset(&ack, 0, sizeof(ack));
	mavlink_command_ack_pack(&ack, payload);
	n = mavlink_encode(&h, payload, out);
	assert_int_equal(out[1], 1);
}

static void test_mavlink_v1_sends_the_base_fields_only(void **state)
{
	struct mavlink_command_ack ack = { .command = 22, .result = 4, .progress = 50 };
	uint8_t payload[MAVLINK_MSG_COMMAND_ACK_MAX_LEN], out[MAVLINK_MAX_FRAME_LEN];
	mavlink_command_ack_pack(&ack, payload);
	struct mavlink_header h = { 1, 3, 1, 1, MAVLINK_MSG_ID_COMMAND_ACK };
	size_t n = mavlink_encode(&h, payload, out);
	assert_int_equal(n, MAVLINK_V1_HEADER_LEN + 3 + 2);
	assert_int_equal(feed(out, n), 1);
	assert_int_equal(frame.version, 1);
	assert_int_equal(frame.seq, 3);
	struct mavlink_command_ack back;
	mavlink_command_ack_unpack(mavlink_payload(&frame), frame.len, &back);
	assert_int_equal(back.result, 4);
	assert_int_equal(back.progress, 0);  /* an extension: not in MAVLink 1 */
	/* Ids above 255 have no MAVLink 1 form. */
	struct mavlink_header h2 = { 1, 0, 1, 1, MAVLINK_MSG_ID_SETUP_SIGNING };
	assert_int_equal(mavlink_encode(&h2, payload, out), 0);
}

static void test_mavlink_every_message_round_trips_with_every_byte_set(void **state)
{
	/* Fill each payload with a pattern, frame it, parse it, and compare bytes. */
	for (size_t i = 0; i < MAVLINK_MSG_COUNT; i++) {
		const struct mavlink_msg_info *m = &mavlink_msg_infos[i];
		uint8_t payload[255], out[MAVLINK_MAX_FRAME_LEN];
		for (size_t k = 0; k < m->max_len; k++)
			payload[k] = (uint8_t)(k * 37 + i + 1) | 1;
		struct mavlink_header h = { 2, (uint8_t)i, 42, 200, m->id };
		size_t n = mavlink_encode(&h, payload, out);
		assert_int_equal(n, MAVLINK_V2_HEADER_LEN + m->max_len + 2);
		assert_int_equal(feed(out, n), 1);
		assert_int_equal(frame.msgid, m->id);
		assert_int_equal(frame.sysid, 42);
		assert_int_equal(frame.compid, 200);
		assert_memory_equal(mavlink_payload(&frame), payload, m->max_len);
	}
	assert_int_equal(parser.stats.frames, MAVLINK_MSG_COUNT);
	assert_int_equal(parser.stats.bad_crc + parser.stats.skipped_bytes, 0);
}

static void test_mavlink_parser_resyncs_through_garbage_and_counts_it(void **state)
{
	uint8_t stream[2048];
	size_t n = 0;
	/* Garbage that holds start bytes, a frame, a frame with a flipped bit, a frame. */
	static const uint8_t junk[] = { 0x00, 0xFD, 0x09, 0xFE, 0x55, 0xFD, 0xFF, 0x13 };
	memcpy(stream + n, junk, sizeof(junk));
	n += sizeof(junk);
	n += heartbeat_frame(2, 1, stream + n);
	size_t bad = n;
	n += heartbeat_frame(2, 2, stream + n);
	stream[bad + 12] ^= 0x04;
	n += heartbeat_frame(1, 3, stream + n);
	memcpy(stream + n, junk, sizeof(junk));
	n += sizeof(junk);
	n += heartbeat_frame(2, 4, stream + n);

	int frames = 0;
	uint8_t seqs[8];
	size_t off = 0;
	bool got;
	do {
		off += mavlink_parse(&parser, stream + off, n - off, &frame, &got);
		if (got)
			seqs[frames++] = frame.seq;
	} while (got || off < n);
	assert_int_equal(frames, 3);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[1], 3);
	assert_int_equal(seqs[2], 4);
	assert_true(parser.stats.bad_crc >= 1);
	assert_true(parser.stats.skipped_bytes > 0);
}

static void test_mavlink_parser_takes_frames_a_byte_at_a_time(void **state)
{
	uint8_t out[MAVLINK_MAX_FRAME_LEN];
	size_t n = heartbeat_frame(2, 9, out);
	int frames = 0;
	for (size_t i = 0; i < n; i++)
		frames += feed(out + i, 1);
	assert_int_equal(frames, 1);
	assert_int_equal(frame.seq, 9);
}

static void test_mavlink_parser_counts_bad_length_unknown_id_and_flags(void **state)
{
	uint8_t out[MAVLINK_MAX_FRAME_LEN];
	/* HEARTBEAT claiming 200 bytes. */
	size_t n = heartbeat_frame(2, 0, out);
	out[1] = 200;
	feed(out, n);
	assert_int_equal(parser.stats.bad_len, 1);
	/* A v1 HEARTBEAT must have exactly 9 bytes. */
	n = heartbeat_frame(1, 0, out);
	out[1] = 8;
	feed(out, n);
	assert_int_equal(parser.stats.bad_len, 2);
	/* Unknown incompatibility flag. */
	n = heartbeat_frame(2, 0, out);
	out[2] = 0x02;
	feed(out, n);
	assert_int_equal(parser.stats.bad_flags, 1);
	/* A message id we do not know: stepped over whole, the next frame still parses. */
	n = heartbeat_frame(2, 0, out);
	out[7] = 0x39;
	out[8] = 0x30;  /* 12345 */
	uint8_t two[2 * MAVLINK_MAX_FRAME_LEN];
	memcpy(two, out, n);
	size_t n2 = heartbeat_frame(2, 5, two + n);
	assert_int_equal(feed(two, n + n2), 1);
	assert_int_equal(frame.seq, 5);
	assert_int_equal(parser.stats.unknown_id, 1);
	assert_int_equal(parser.stats.frames, 1);
}

static void test_mavlink_parser_survives_random_bytes(void **state)
{
	unsigned int seed = 7;
	uint8_t buf[4096];
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rand_r(&seed) % sizeof(buf));
		for (size_t i = 0; i < n; i++)
			buf[i] = (rand_r(&seed) % 4) ? (uint8_t)rand_r(&seed) : MAVLINK_STX_V2;
		feed(buf, n);
		assert_true(parser.n <= MAVLINK_MAX_FRAME_LEN);
	}
	/* And a good frame still comes through after all that. */
	uint8_t out[MAVLINK_MAX_FRAME_LEN * 2];
	memset(out, 0, MAVLINK_MAX_FRAME_LEN);  /* flushes a half frame held from the noise */
	size_t n = heartbeat_frame(2, 77, out + MAVLINK_MAX_FRAME_LEN);
	int got = feed(out, MAVLINK_MAX_FRAME_LEN + n);
	assert_true(got >= 1);
	assert_int_equal(frame.seq, 77);
}

static unsigned int lost(struct mavlink_seq_track *t, uint8_t sys, uint8_t comp, uint8_t seq)
{
	struct mavlink_frame f = { .sysid = sys, .compid = comp, .seq = seq };
	return mavlink_seq_lost(t, &f);
}

static void test_mavlink_seq_counts_losses_per_sender(void **state)
{
	struct mavlink_seq_track t = { 0 };
	/* A ground station's two components (MAVProxy's 255/230 and 255/190), each
	 * numbering its own frames, interleaved: nothing lost. */
	unsigned int sum = 0;
	for (unsigned int i = 0; i < 600; i++)
		sum += lost(&t, 255, i % 3 ? 230 : 190, (uint8_t)(i % 3 ? i - i / 3 : i / 3));
	assert_int_equal(sum, 0);
	/* Three frames of one lost; its numbers wrap. */
	struct mavlink_seq_track u = { 0 };
	assert_int_equal(lost(&u, 1, 1, 254), 0);
	assert_int_equal(lost(&u, 1, 1, 255), 0);
	assert_int_equal(lost(&u, 1, 1, 3), 3);
	/* A step back or far ahead is a restart (or reordering), not 200 frames lost. */
	assert_int_equal(lost(&u, 1, 1, 2), 0);
	assert_int_equal(lost(&u, 1, 1, 3), 0);
	assert_int_equal(lost(&u, 1, 1, 203), 0);
	assert_int_equal(lost(&u, 1, 1, 204), 0);
}

static void test_mavlink_seq_makes_room_for_new_senders(void **state)
{
	struct mavlink_seq_track t = { 0 };
	for (unsigned int s = 0; s < MAVLINK_SEQ_SOURCES; s++)
		assert_int_equal(lost(&t, (uint8_t)(s + 1), 1, 10), 0);
	/* Sender 1 keeps talking; a new one takes the place of the longest silent (2). */
	assert_int_equal(lost(&t, 1, 1, 11), 0);
	assert_int_equal(lost(&t, 100, 1, 50), 0);
	assert_int_equal(lost(&t, 1, 1, 13), 1);      /* 1 still followed */
	assert_int_equal(lost(&t, 100, 1, 52), 1);    /* and the newcomer */
	assert_int_equal(lost(&t, 2, 1, 20), 0);      /* 2 starts afresh */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mavlink_crc_extra_of_well_known_messages, setup),
		cmocka_unit_test_setup(test_mavlink_heartbeat_frame_bytes, setup),
		cmocka_unit_test_setup(test_mavlink_v2_truncates_trailing_zeros_and_unpack_zero_fills, setup),
		cmocka_unit_test_setup(test_mavlink_v1_sends_the_base_fields_only, setup),
		cmocka_unit_test_setup(test_mavlink_every_message_round_trips_with_every_byte_set, setup),
		cmocka_unit_test_setup(test_mavlink_parser_resyncs_through_garbage_and_counts_it, setup),
		cmocka_unit_test_setup(test_mavlink_parser_takes_frames_a_byte_at_a_time, setup),
		cmocka_unit_test_setup(test_mavlink_parser_counts_bad_length_unknown_id_and_flags, setup),
		cmocka_unit_test_setup(test_mavlink_parser_survives_random_bytes, setup),
		cmocka_unit_test(test_mavlink_seq_counts_losses_per_sender),
		cmocka_unit_test(test_mavlink_seq_makes_room_for_new_senders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
