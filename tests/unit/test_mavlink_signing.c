// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mavlink/frame.h"
#include "mavlink/mavlink_msgs.h"
#include "mavlink/signing.h"

static struct mavlink_signing tx, rx;
static struct mavlink_parser parser;
static struct mavlink_frame frame;
static const uint8_t key[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

#define T0 (UINT64_C(400000000000))  /* some 2026 timestamp in 10 us units */

static int setup(void **state)
{
	mavlink_signing_init(&tx);
	mavlink_signing_init(&rx);
	mavlink_signing_set_key(&tx, key, T0);
	mavlink_signing_set_key(&rx, key, T0);
	mavlink_parser_init(&parser);
	return 0;
}

/* A signed (or not) frame of msgid from sysid, parsed back into frame. */
static void make(struct mavlink_signing *s, uint32_t msgid, uint8_t sysid, uint8_t link,
		 uint64_t now, uint8_t *buf, size_t *len)
{
	uint8_t payload[255] = { 0x42, 0x43 };
	struct mavlink_header h = { 2, 0, sysid, 1, msgid };
	size_t n = mavlink_encode(&h, payload, buf);
	*len = s ? mavlink_sign(s, buf, n, link, now) : n;
}

static void parse(const uint8_t *buf, size_t len)
{
	bool got;
	mavlink_parse(&parser, buf, len, &frame, &got);
	assert_true(got);
}

static void test_signing_a_signed_frame_parses_and_verifies(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t len;
	make(&tx, MAVLINK_MSG_ID_HEARTBEAT, 255, 0, T0 + 10, buf, &len);
	parse(buf, len);
	assert_true(frame.is_signed);
	assert_int_equal(frame.raw_len, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0 + 10), MAVLINK_ACCEPT);
	assert_int_equal(rx.stats.accepted, 1);
}

static void test_signing_a_tampered_or_wrongly_keyed_frame_is_refused(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t len;
	make(&tx, MAVLINK_MSG_ID_HEARTBEAT, 255, 0, T0 + 10, buf, &len);
	buf[len - 1] ^= 1;  /* the signature itself */
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_REJECT_SIGNATURE);

	struct mavlink_signing other;
	uint8_t key2[32] = { 9 };
	mavlink_signing_init(&other);
	mavlink_signing_set_key(&other, key2, T0);
	make(&other, MAVLINK_MSG_ID_HEARTBEAT, 255, 0, T0 + 20, buf, &len);
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_REJECT_SIGNATURE);
	assert_int_equal(rx.stats.bad_signature, 2);
}

static void test_signing_a_replayed_frame_is_refused(void **state)
{
	uint8_t a[MAVLINK_MAX_FRAME_LEN], b[MAVLINK_MAX_FRAME_LEN];
	size_t la, lb;
	make(&tx, MAVLINK_MSG_ID_HEARTBEAT, 255, 0, T0 + 10, a, &la);
	make(&tx, MAVLINK_MSG_ID_HEARTBEAT, 255, 0, T0 + 10, b, &lb);  /* same clock: +1 */
	parse(a, la);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
	parse(b, lb);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
	parse(a, la);  /* the first again */
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_REJECT_REPLAY);
	/* The same timestamp on another link is another stream. */
	make(&tx, MAVLINK_MSG_ID_HEARTBEAT, 255, 1, T0 + 10, a, &la);
	parse(a, la);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
	assert_int_equal(rx.stats.replayed, 1);
}

static void test_signing_a_new_stream_more_than_a_minute_old_is_refused(void **state)
{
	struct mavlink_signing old;
	mavlink_signing_init(&old);
	mavlink_signing_set_key(&old, key, T0 - 7000000);  /* 70 s behind */
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t len;
	make(&old, MAVLINK_MSG_ID_HEARTBEAT, 9, 0, T0 - 7000000, buf, &len);
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_REJECT_REPLAY);
	make(&old, MAVLINK_MSG_ID_HEARTBEAT, 9, 0, T0 - 5000000, buf, &len);  /* 50 s: fine */
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
}

static void test_signing_unsigned_frames_are_refused_but_radio_status(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t len;
	make(NULL, MAVLINK_MSG_ID_COMMAND_LONG, 255, 0, 0, buf, &len);
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_REJECT_UNSIGNED);
	make(NULL, MAVLINK_MSG_ID_RADIO_STATUS, 51, 0, 0, buf, &len);
	parse(buf, len);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
	assert_int_equal(rx.stats.unsigned_refused, 1);
}

static void test_signing_off_signs_nothing_and_accepts_everything(void **state)
{
	static const uint8_t zero[32];
	mavlink_signing_set_key(&tx, zero, T0);
	mavlink_signing_set_key(&rx, zero, T0);
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t len;
	make(&tx, MAVLINK_MSG_ID_COMMAND_LONG, 255, 0, T0, buf, &len);
	parse(buf, len);
	assert_false(frame.is_signed);
	assert_int_equal(mavlink_signing_check(&rx, &frame, T0), MAVLINK_ACCEPT);
}

static void test_signing_timestamp_counts_10us_from_2015(void **state)
{
	assert_int_equal(mavlink_signing_timestamp(UINT64_C(1420070400) * 1000000), 0);
	assert_int_equal(mavlink_signing_timestamp(UINT64_C(1420070401) * 1000000), 100000);
	assert_int_equal(mavlink_signing_timestamp(0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_signing_a_signed_frame_parses_and_verifies, setup),
		cmocka_unit_test_setup(test_signing_a_tampered_or_wrongly_keyed_frame_is_refused, setup),
		cmocka_unit_test_setup(test_signing_a_replayed_frame_is_refused, setup),
		cmocka_unit_test_setup(test_signing_a_new_stream_more_than_a_minute_old_is_refused, setup),
		cmocka_unit_test_setup(test_signing_unsigned_frames_are_refused_but_radio_status, setup),
		cmocka_unit_test_setup(test_signing_off_signs_nothing_and_accepts_everything, setup),
		cmocka_unit_test_setup(test_signing_timestamp_counts_10us_from_2015, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
