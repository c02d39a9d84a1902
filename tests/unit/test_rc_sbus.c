// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rc/sbus.h"
#include "rc_wave.h"

#define PERIOD_US 14000
#define FRAME_WIRE_US (25 * 120)

static struct rc_wave w;
static struct rc_pair pairs[100000];
static struct rc_frame frames[1000];

static void some_channels(uint16_t ch[16], uint32_t *seed)
{
	for (int i = 0; i < 16; i++)
		ch[i] = (uint16_t)(880 + rc_wave_rand(seed) % 1271);  /* the SBUS scale's whole range */
	ch[0] = 1500;
	ch[1] = 1000;
	ch[2] = 2000;
}

static void assert_channels_within(const struct rc_frame *f, const uint16_t ch[16], int tol_us)
{
	assert_true(rc_wave_frame_is_safe(f));
	assert_int_equal(f->protocol, RC_PROTOCOL_SBUS);
	assert_int_equal(f->channel_count, 18);
	for (int i = 0; i < 16; i++)
		assert_in_range(f->channels_us[i], ch[i] - tol_us, ch[i] + tol_us);
}

/* Idle, then the frame's bytes, idle to the end of its period. */
static void wave_frame(const struct rc_wave_uart *u, const uint8_t *bytes, size_t n)
{
	rc_wave_uart_bytes(&w, u, bytes, n);
	rc_wave_uart_idle(&w, u, (uint32_t)(PERIOD_US - n * 120));
}

/* A start bit after the last idle level, so that a pair ends it. */
static void wave_end(void)
{
	uint8_t zero = 0;
	rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, &zero, 1);
}

static size_t feed_pulses(struct rc_sbus *d, size_t np)
{
	size_t nf = 0;
	for (size_t i = 0; i < np; i++) {
		struct rc_frame f;
		if (rc_sbus_pulse(d, pairs[i].low_us, pairs[i].high_us, pairs[i].t_us, &f)) {
			assert_true(nf < 1000);
			frames[nf++] = f;
		}
	}
	return nf;
}

static void test_sbus_pulses_round_trip_sixteen_channels_within_a_microsecond(void **state)
{
	uint32_t seed = 12345;
	uint16_t ch[10][16];
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	for (int k = 0; k < 10; k++) {
		uint8_t bytes[25];
		some_channels(ch[k], &seed);
		rc_wave_sbus_frame(bytes, ch[k], (uint8_t)(k & 3));
		wave_frame(&rc_wave_sbus_uart, bytes, 25);
	}
	wave_end();
	size_t np = rc_wave_pairs(&w, 1000000, 2, &seed, pairs, 100000);

	struct rc_sbus d;
	rc_sbus_init(&d, true);
	size_t nf = feed_pulses(&d, np);
	assert_int_equal(nf, 10);
	for (int k = 0; k < 10; k++) {
		assert_channels_within(&frames[k], ch[k], 1);
		assert_int_equal(frames[k].channels_us[16], (k & 1) ? 2000 : 1000);
		assert_int_equal(frames[k].channels_us[17], (k & 2) ? 2000 : 1000);
		assert_false(frames[k].failsafe);
		assert_false(frames[k].frame_lost);
		/* Stamped when its last stop bit ended, give or take the jitter. */
		uint64_t end = 1000000 + 5000 + (uint64_t)k * PERIOD_US + FRAME_WIRE_US;
		assert_in_range(frames[k].timestamp_us, end - 3, end + 3);
	}
	assert_int_equal(d.stats.frames, 10);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_sbus_bytes_round_trip_sixteen_channels_within_a_microsecond(void **state)
{
	uint32_t seed = 99;
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	for (int k = 0; k < 20; k++) {
		uint16_t ch[16];
		uint8_t bytes[25];
		some_channels(ch, &seed);
		rc_wave_sbus_frame(bytes, ch, 0);
		t += PERIOD_US;
		memset(&f, 0, sizeof(f));
		assert_int_equal(rc_sbus_bytes(&d, bytes, 25, t, &f), k == 0 ? 0 : 1);
		if (k > 0) {
			assert_channels_within(&f, ch, 1);
			assert_int_equal(f.timestamp_us, t);
		}
	}
	/* The first read had no gap before it: it might have begun mid-frame. */
	assert_int_equal(d.stats.frames, 19);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_sbus_failsafe_bit_sets_failsafe_and_frame_lost(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 7;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, RC_SBUS_FLAG_FAILSAFE | RC_SBUS_FLAG_FRAME_LOST);

	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	rc_sbus_bytes(&d, bytes, 25, 1000000, &f);
	assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1014000, &f), 1);
	assert_true(f.failsafe);
	assert_true(f.frame_lost);
	assert_channels_within(&f, ch, 1);
	assert_int_equal(d.stats.failsafe_frames, 1);

	/* Some receivers set only the failsafe bit: it is a lost frame all the same. */
	rc_wave_sbus_frame(bytes, ch, RC_SBUS_FLAG_FAILSAFE);
	assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1028000, &f), 1);
	assert_true(f.failsafe);
	assert_true(f.frame_lost);
	assert_int_equal(d.stats.lost_frames, 2);
}

static void test_sbus_frame_lost_bit_alone_is_a_dropped_frame_not_a_failsafe(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 8;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, RC_SBUS_FLAG_FRAME_LOST);

	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	wave_frame(&rc_wave_sbus_uart, bytes, 25);
	wave_end();
	size_t np = rc_wave_pairs(&w, 0, 0, &seed, pairs, 100000);
	struct rc_sbus d;
	rc_sbus_init(&d, true);
	assert_int_equal(feed_pulses(&d, np), 1);
	assert_true(frames[0].frame_lost);
	assert_false(frames[0].failsafe);
	assert_channels_within(&frames[0], ch, 1);
	assert_int_equal(d.stats.lost_frames, 1);
	assert_int_equal(d.stats.failsafe_frames, 0);
}

/* Ten frames on the pin, frame 4 damaged by edit(); returns the frames decoded. */
static size_t pulses_with_damaged_frame(struct rc_sbus *d, const struct rc_wave_uart *bad_uart,
					size_t bad_len, int flip_level)
{
	uint32_t seed = 31;
	uint16_t ch[16];
	uint8_t bytes[25];
	some_channels(ch, &seed);
	rc_wave_sbus_frame(bytes, ch, 0);
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	for (int k = 0; k < 10; k++) {
		if (k == 4) {
			size_t before = w.n;
			uint8_t longer[26];
			memcpy(longer, bytes, 25);
			longer[25] = 0x55;
			/* Byte 7 damaged: a frame counts as rejected once it has begun. */
			rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, longer, 7);
			rc_wave_uart_bytes(&w, bad_uart, longer + 7, 1);
			wave_frame(&rc_wave_sbus_uart, longer + 8, bad_len - 8);
			if (flip_level >= 0)
				rc_wave_flip(&w, before + (size_t)flip_level);
		} else {
			wave_frame(&rc_wave_sbus_uart, bytes, 25);
		}
	}
	wave_end();
	size_t np = rc_wave_pairs(&w, 0, 1, &seed, pairs, 100000);
	rc_sbus_init(d, true);
	size_t nf = feed_pulses(d, np);
	for (size_t i = 0; i < nf; i++)
		assert_channels_within(&frames[i], ch, 1);
	return nf;
}

static void test_sbus_rejects_a_frame_with_a_bad_parity_bit(void **state)
{
	struct rc_wave_uart bad = rc_wave_sbus_uart;
	bad.bad_parity = true;
	struct rc_sbus d;
	assert_int_equal(pulses_with_damaged_frame(&d, &bad, 25, -1), 9);
	assert_int_equal(d.stats.rejected[RC_REJECT_PARITY], 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 1);
}

static void test_sbus_rejects_a_frame_with_a_bad_stop_bit(void **state)
{
	struct rc_wave_uart bad = rc_wave_sbus_uart;
	bad.bad_stop = true;
	struct rc_sbus d;
	assert_int_equal(pulses_with_damaged_frame(&d, &bad, 25, -1), 9);
	assert_int_equal(d.stats.rejected[RC_REJECT_FRAMING], 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 1);
}

static void test_sbus_rejects_frames_one_byte_short_or_long(void **state)
{
	struct rc_sbus d;
	assert_int_equal(pulses_with_damaged_frame(&d, &rc_wave_sbus_uart, 24, -1), 9);
	assert_int_equal(d.stats.rejected[RC_REJECT_LENGTH], 1);
	assert_int_equal(pulses_with_damaged_frame(&d, &rc_wave_sbus_uart, 26, -1), 9);
	assert_int_equal(d.stats.rejected[RC_REJECT_LENGTH], 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 1);
}

static void test_sbus_rejects_a_frame_with_a_missing_edge_pair(void **state)
{
	/*
	 * One level of the frame inverted: the two edges around it lost. A level that
	 * holds stop bits then has a space in a stop bit; one of an odd number of
	 * data and parity bits fails the parity. An even number of data bits inside a
	 * byte passes the parity, and SBUS has no checksum: that damage goes through,
	 * as on any SBUS receiver. The levels picked here (1, 3, 5 and 3 bits, past
	 * the first byte, whose damage is no frame begun) are of the first two kinds.
	 */
	const int levels[] = { 5, 7, 23, 57 };
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		struct rc_sbus d;
		assert_int_equal(pulses_with_damaged_frame(&d, &rc_wave_sbus_uart, 25, levels[i]), 9);
		assert_int_equal(rc_stats_rejected(&d.stats), 1);
	}
}

static void test_sbus_rejects_a_frame_without_its_header(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 5;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, 0);
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	rc_sbus_bytes(&d, bytes, 25, 1000000, &f);
	bytes[0] = 0x0e;
	assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1014000, &f), 0);
	assert_int_equal(d.stats.rejected[RC_REJECT_HEADER], 1);
	bytes[0] = 0x0f;
	assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1028000, &f), 1);
}

static void test_sbus_bytes_wait_for_a_gap_before_the_first_frame(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 6;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, 0);
	/* Started mid-frame: the tail happens to hold a 0x0F and 24 more bytes follow. */
	uint8_t tail[25];
	memset(tail, 0x0f, sizeof(tail));
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	assert_int_equal(rc_sbus_bytes(&d, tail, 25, 1000000, &f), 0);
	assert_int_equal(d.stats.frames, 0);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
	assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1014000, &f), 1);
	assert_channels_within(&f, ch, 1);
}

static void test_sbus_bytes_decode_frames_split_across_reads(void **state)
{
	uint32_t seed = 77;
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	uint64_t t = 1000000;
	int decoded = 0;
	for (int k = 0; k < 50; k++) {
		uint16_t ch[16];
		uint8_t bytes[25];
		some_channels(ch, &seed);
		rc_wave_sbus_frame(bytes, ch, 0);
		/* Read in pieces as they arrive: each piece stamped at its last byte. */
		uint64_t start = t + (uint64_t)k * PERIOD_US;
		size_t at = 0;
		while (at < 25) {
			size_t n = 1 + rc_wave_rand(&seed) % 9;
			if (n > 25 - at)
				n = 25 - at;
			struct rc_frame f;
			int got = rc_sbus_bytes(&d, bytes + at, n, start + (at + n) * 120, &f);
			at += n;
			if (got) {
				assert_int_equal(at, 25);
				assert_channels_within(&f, ch, 1);
				decoded++;
			}
		}
	}
	assert_int_equal(decoded, 49);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_sbus_bytes_decode_two_frames_read_together(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 78;
	some_channels(ch, &seed);
	uint8_t two[50];
	rc_wave_sbus_frame(two, ch, 0);
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	rc_sbus_bytes(&d, two, 25, 1000000, &f);
	/* A late read: the gap between them does not show. */
	ch[5] = 1234;
	rc_wave_sbus_frame(two, ch, 0);
	rc_wave_sbus_frame(two + 25, ch, RC_SBUS_FLAG_CH17);
	assert_int_equal(rc_sbus_bytes(&d, two, 50, 1030000, &f), 2);
	assert_channels_within(&f, ch, 1);
	assert_int_equal(f.channels_us[16], 2000);
}

static void test_sbus_accepts_any_end_byte(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 79;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, 0);
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	struct rc_frame f;
	rc_sbus_bytes(&d, bytes, 25, 1000000, &f);
	const uint8_t ends[] = { 0x04, 0x14, 0x24, 0x34, 0x03, 0xe3, 0xff };
	for (size_t i = 0; i < sizeof(ends); i++) {
		bytes[24] = ends[i];
		assert_int_equal(rc_sbus_bytes(&d, bytes, 25, 1014000 + i * 7000, &f), 1);
	}
}

static void test_sbus_pulses_decode_fast_seven_millisecond_frames(void **state)
{
	uint32_t seed = 80;
	uint16_t ch[16];
	uint8_t bytes[25];
	some_channels(ch, &seed);
	rc_wave_sbus_frame(bytes, ch, 0);
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	for (int k = 0; k < 20; k++) {
		rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, bytes, 25);
		rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 7000 - FRAME_WIRE_US);
	}
	wave_end();
	size_t np = rc_wave_pairs(&w, 0, 2, &seed, pairs, 100000);
	struct rc_sbus d;
	rc_sbus_init(&d, true);
	assert_int_equal(feed_pulses(&d, np), 20);
}

static void test_sbus_pulses_drop_a_frame_whose_gap_shows_it_too_late(void **state)
{
	uint16_t ch[16];
	uint32_t seed = 81;
	some_channels(ch, &seed);
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, 0);
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	wave_frame(&rc_wave_sbus_uart, bytes, 25);
	rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, bytes, 25);
	/* The receiver stops; an edge a second later ends the idle level. */
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 1000000);
	wave_end();
	size_t np = rc_wave_pairs(&w, 0, 0, &seed, pairs, 100000);
	struct rc_sbus d;
	rc_sbus_init(&d, true);
	assert_int_equal(feed_pulses(&d, np), 1);
	assert_int_equal(d.stats.stale_frames, 1);
}

static void test_sbus_garbage_never_gives_an_unsafe_frame(void **state)
{
	uint32_t seed = 2024;
	struct rc_sbus dp, db;
	rc_sbus_init(&dp, true);
	rc_sbus_init(&db, false);
	uint64_t t = 0;
	for (int i = 0; i < 200000; i++) {
		struct rc_frame f;
		uint32_t r = rc_wave_rand(&seed);
		/* Mostly bit-sized levels, some gaps, some zeros. */
		uint32_t low = (r & 7) == 0 ? r % 5000 : 10 * (1 + r % 12) + (r >> 28) % 5;
		r = rc_wave_rand(&seed);
		uint32_t high = (r & 15) == 0 ? r % 300 : 10 * (1 + r % 10) + (r >> 28) % 5;
		t += low + high;
		if (rc_sbus_pulse(&dp, low, high, t, &f))
			assert_true(rc_wave_frame_is_safe(&f));
		uint8_t b[8];
		for (int k = 0; k < 8; k++)
			b[k] = (uint8_t)rc_wave_rand(&seed);
		if ((r & 3) == 0)
			b[0] = 0x0f;
		if (rc_sbus_bytes(&db, b, 1 + r % 8, t, &f))
			assert_true(rc_wave_frame_is_safe(&f));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbus_pulses_round_trip_sixteen_channels_within_a_microsecond),
		cmocka_unit_test(test_sbus_bytes_round_trip_sixteen_channels_within_a_microsecond),
		cmocka_unit_test(test_sbus_failsafe_bit_sets_failsafe_and_frame_lost),
		cmocka_unit_test(test_sbus_frame_lost_bit_alone_is_a_dropped_frame_not_a_failsafe),
		cmocka_unit_test(test_sbus_rejects_a_frame_with_a_bad_parity_bit),
		cmocka_unit_test(test_sbus_rejects_a_frame_with_a_bad_stop_bit),
		cmocka_unit_test(test_sbus_rejects_frames_one_byte_short_or_long),
		cmocka_unit_test(test_sbus_rejects_a_frame_with_a_missing_edge_pair),
		cmocka_unit_test(test_sbus_rejects_a_frame_without_its_header),
		cmocka_unit_test(test_sbus_bytes_wait_for_a_gap_before_the_first_frame),
		cmocka_unit_test(test_sbus_bytes_decode_frames_split_across_reads),
		cmocka_unit_test(test_sbus_bytes_decode_two_frames_read_together),
		cmocka_unit_test(test_sbus_accepts_any_end_byte),
		cmocka_unit_test(test_sbus_pulses_decode_fast_seven_millisecond_frames),
		cmocka_unit_test(test_sbus_pulses_drop_a_frame_whose_gap_shows_it_too_late),
		cmocka_unit_test(test_sbus_garbage_never_gives_an_unsafe_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
