// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "rc/dsm.h"
#include "rc/serial.h"
#include "rc_wave.h"

#define FRAME_WIRE_US 1389  /* 160 bits at 115200 baud */

static struct rc_wave w;
static struct rc_pair pairs[100000];

static const uint16_t twelve[12] = { 1500, 1100, 1900, 1300, 903, 2097, 1234, 1777, 1000, 2000, 1501, 1499 };

static void assert_channels_within(const struct rc_frame *f, const uint16_t *ch, unsigned int n, int tol_us)
{
	assert_true(rc_wave_frame_is_safe(f));
	assert_int_equal(f->protocol, RC_PROTOCOL_DSM);
	assert_false(f->failsafe);
	assert_int_equal(f->channel_count, n);
	for (unsigned int i = 0; i < n; i++)
		assert_in_range(f->channels_us[i], ch[i] - tol_us, ch[i] + tol_us);
}

/*
 * Sends count frames of n channels at resolution res every period_us, a whole
 * frame per read; returns the frames output, the last in *last.
 */
static int send_bytes(struct rc_dsm *d, const uint16_t *ch, unsigned int n, unsigned int res, int count,
		      uint64_t *t, uint32_t period_us, struct rc_frame *last)
{
	int out = 0;
	for (int k = 0; k < count; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, ch, n, res, (unsigned int)k & 1);
		*t += period_us;
		struct rc_frame f;
		if (rc_dsm_bytes(d, bytes, 16, *t, &f)) {
			assert_true(rc_wave_frame_is_safe(&f));
			assert_int_equal(f.timestamp_us, *t);
			*last = f;
			out++;
		}
	}
	return out;
}

static void test_dsm_detects_11_bit_and_round_trips_seven_channels_within_a_microsecond(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	/* The first read has no gap before it; the next RC_DSM_DETECT_FRAMES detect,
	 * and the last of those is the first output. */
	assert_int_equal(send_bytes(&d, twelve, 7, 11, 5, &t, 11000, &f), 0);
	assert_int_equal(rc_dsm_resolution(&d), 0);
	assert_int_equal(send_bytes(&d, twelve, 7, 11, 15, &t, 11000, &f), 15);
	assert_int_equal(rc_dsm_resolution(&d), 11);
	assert_channels_within(&f, twelve, 7, 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_dsm_detects_10_bit_and_round_trips_six_channels_within_two_microseconds(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	assert_int_equal(send_bytes(&d, twelve, 6, 10, 20, &t, 22000, &f), 15);
	assert_int_equal(rc_dsm_resolution(&d), 10);
	assert_channels_within(&f, twelve, 6, 2);
}

static void test_dsm_detects_every_channel_count(void **state)
{
	for (unsigned int res = 10; res <= 11; res++) {
		for (unsigned int n = RC_DSM_MIN_CHANNELS; n <= (res == 10 ? 7u : 12u); n++) {
			struct rc_dsm d;
			rc_dsm_init(&d, false);
			struct rc_frame f;
			uint64_t t = 1000000;
			/* A 4-channel 11-bit frame can also read as a 7-channel 10-bit one, when
			 * yaw is below centre and the others cross it: the decoder then waits. */
			int out = send_bytes(&d, twelve, n, res, 40, &t, 11000, &f);
			assert_true(out >= 30);
			assert_int_equal(rc_dsm_resolution(&d), res);
			assert_channels_within(&f, twelve, n, res == 10 ? 2 : 1);
		}
	}
}

static void test_dsm_collects_twelve_channels_from_two_frames(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	int out = send_bytes(&d, twelve, 12, 11, 20, &t, 11000, &f);
	/* One frame ignored, five detect; then every frame outputs all twelve. */
	assert_int_equal(out, 14);
	assert_channels_within(&f, twelve, 12, 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_dsm_ignores_xplus_channel_numbers(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	int out = 0;
	for (int k = 0; k < 20; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, twelve, 6, 11, 0);
		/* The empty seventh word carries XPlus channel 12 + k % 4. */
		for (int i = 2; i < 16; i += 2) {
			if (bytes[i] == 0xff && bytes[i + 1] == 0xff) {
				bytes[i] = (uint8_t)((12 + k % 4) << 3);
				bytes[i + 1] = 0x55;
			}
		}
		t += 11000;
		if (rc_dsm_bytes(&d, bytes, 16, t, &f)) {
			assert_channels_within(&f, twelve, 6, 1);
			out++;
		}
	}
	assert_int_equal(out, 15);
	assert_int_equal(rc_dsm_resolution(&d), 11);
}

static void test_dsm_rejects_a_frame_with_a_repeated_channel_number(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	send_bytes(&d, twelve, 7, 11, 10, &t, 11000, &f);
	uint8_t bytes[16];
	rc_wave_dsm_frame(bytes, twelve, 7, 11, 0);
	bytes[4] = bytes[2];  /* word 1 gets word 0's channel number */
	t += 11000;
	assert_int_equal(rc_dsm_bytes(&d, bytes, 16, t, &f), 0);
	assert_int_equal(d.stats.rejected[RC_REJECT_CHANNELS], 1);
	/* And a channel number beyond the detected seven. */
	rc_wave_dsm_frame(bytes, twelve, 7, 11, 0);
	bytes[2] = (uint8_t)((bytes[2] & 0x87) | (9 << 3));
	t += 11000;
	assert_int_equal(rc_dsm_bytes(&d, bytes, 16, t, &f), 0);
	assert_int_equal(d.stats.rejected[RC_REJECT_CHANNELS], 2);
	assert_int_equal(send_bytes(&d, twelve, 7, 11, 1, &t, 11000, &f), 1);
}

static void test_dsm_rejects_a_frame_one_byte_short(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	send_bytes(&d, twelve, 7, 11, 10, &t, 11000, &f);
	uint8_t bytes[16];
	rc_wave_dsm_frame(bytes, twelve, 7, 11, 0);
	t += 11000;
	assert_int_equal(rc_dsm_bytes(&d, bytes, 15, t, &f), 0);
	/* The gap before the next frame shows it short. */
	assert_int_equal(send_bytes(&d, twelve, 7, 11, 1, &t, 11000, &f), 1);
	assert_int_equal(d.stats.rejected[RC_REJECT_LENGTH], 1);
}

static void test_dsm_detects_again_after_a_silence(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	assert_int_equal(send_bytes(&d, twelve, 7, 11, 10, &t, 11000, &f), 5);
	assert_int_equal(rc_dsm_resolution(&d), 11);
	/* A receiver bound anew in 10-bit mode, after 300 ms. */
	t += 300000;
	int out = send_bytes(&d, twelve, 6, 10, 10, &t, 22000, &f);
	assert_int_equal(out, 6);
	assert_int_equal(rc_dsm_resolution(&d), 10);
	assert_channels_within(&f, twelve, 6, 2);
}

static void test_dsm_rejects_the_other_resolution_until_a_silence(void **state)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	struct rc_frame f;
	uint64_t t = 1000000;
	send_bytes(&d, twelve, 7, 11, 10, &t, 11000, &f);
	/* 10-bit frames straight after: each one repeats 11-bit channel numbers. */
	uint16_t other[7] = { 1200, 1200, 1200, 1200, 1200, 1200, 1200 };
	int out = 0;
	for (int k = 0; k < 40; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, other, 7, 10, 0);
		t += 22000;
		if (rc_dsm_bytes(&d, bytes, 16, t, &f)) {
			/* Only after the 200 ms without a good frame, and then right. */
			assert_true(k >= 9);
			assert_channels_within(&f, other, 7, 2);
			out++;
		}
	}
	assert_true(out > 20);
	assert_int_equal(rc_dsm_resolution(&d), 10);
}

static void test_dsm_bytes_decode_frames_split_across_reads(void **state)
{
	uint32_t seed = 5;
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	int out = 0;
	for (int k = 0; k < 60; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, twelve, 12, 11, (unsigned int)k & 1);
		uint64_t start = 1000000 + (uint64_t)k * 11000;
		size_t at = 0;
		while (at < 16) {
			size_t n = 1 + rc_wave_rand(&seed) % 6;
			if (n > 16 - at)
				n = 16 - at;
			struct rc_frame f;
			if (rc_dsm_bytes(&d, bytes + at, n, start + (at + n) * 87, &f)) {
				assert_channels_within(&f, twelve, 12, 1);
				out++;
			}
			at += n;
		}
	}
	assert_int_equal(out, 60 - 6);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

/* DSM frames on a pin; frame bad (0-based) sent with a bad stop bit. */
static size_t wave_dsm(const uint16_t *ch, unsigned int n, unsigned int res, int count, int bad,
		       uint32_t jitter_us)
{
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_dsm_uart, 5000);
	for (int k = 0; k < count; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, ch, n, res, (unsigned int)k & 1);
		if (k == bad) {
			/* Byte 6 of the frame: a frame counts as rejected once it has begun. */
			struct rc_wave_uart u = rc_wave_dsm_uart;
			u.bad_stop = true;
			rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, bytes, 6);
			rc_wave_uart_bytes(&w, &u, bytes + 6, 1);
			rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, bytes + 7, 9);
		} else {
			rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, bytes, 16);
		}
		rc_wave_uart_idle(&w, &rc_wave_dsm_uart, 11000 - FRAME_WIRE_US);
	}
	uint8_t zero = 0;
	rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, &zero, 1);
	uint32_t seed = 3;
	return rc_wave_pairs(&w, 2000000, jitter_us, &seed, pairs, 100000);
}

static void test_dsm_pulses_round_trip_with_jitter(void **state)
{
	size_t np = wave_dsm(twelve, 12, 11, 30, -1, 1);
	struct rc_dsm d;
	rc_dsm_init(&d, true);
	int out = 0;
	for (size_t i = 0; i < np; i++) {
		struct rc_frame f;
		if (rc_dsm_pulse(&d, pairs[i].low_us, pairs[i].high_us, pairs[i].t_us, &f)) {
			assert_channels_within(&f, twelve, 12, 1);
			/* Stamped when the last stop bit ended. */
			int k = 6 + out;
			uint64_t end = 2000000 + 5000 + (uint64_t)k * 11000 + FRAME_WIRE_US;
			assert_in_range(f.timestamp_us, end - 3, end + 3);
			out++;
		}
	}
	/*
	 * The wave's leading idle level is high, so no pair carries it and the first
	 * frame does not follow a gap the decoder saw; the next five detect, and the
	 * frame after them completes the twelve channels.
	 */
	assert_int_equal(out, 30 - 6);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_dsm_pulses_reject_a_frame_with_a_bad_stop_bit(void **state)
{
	size_t np = wave_dsm(twelve, 7, 11, 20, 10, 1);
	struct rc_dsm d;
	rc_dsm_init(&d, true);
	int out = 0;
	for (size_t i = 0; i < np; i++) {
		struct rc_frame f;
		if (rc_dsm_pulse(&d, pairs[i].low_us, pairs[i].high_us, pairs[i].t_us, &f)) {
			assert_channels_within(&f, twelve, 7, 1);
			out++;
		}
	}
	assert_int_equal(out, 20 - 5 - 1);
	assert_int_equal(d.stats.rejected[RC_REJECT_FRAMING], 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 1);
}

static void test_dsm_soft_uart_reads_a_level_as_whole_bits_or_rejects_it(void **state)
{
	/*
	 * A level is rounded to whole bits on its own, so one off by half a bit would
	 * slip every bit after it, and 8N1 has no parity to notice. Levels more than
	 * 0.4 bit (3.5 us) from a whole number are rejected instead; so a level is
	 * never misread unless it is off by 0.6 bit (5.2 us) or more.
	 */
	const struct rc_uart_cfg cfg = { .baud = RC_DSM_BAUD, .stop_bits = 1 };
	for (uint32_t width = 1; width <= 80; width++) {
		struct rc_uart u;
		rc_uart_init(&u);
		uint8_t byte;
		uint32_t used;
		enum rc_uart_event ev = rc_uart_run(&u, &cfg, false, width, &byte, &used);
		double bits = width * 0.1152;
		long nearest = lround(bits);
		if (nearest == 0) {
			/* Under half a bit on an idle line: a glitch, ignored. */
			assert_int_equal(ev, RC_UART_NONE);
			assert_int_equal(u.pos, 0);
		} else if (ev == RC_UART_NONE) {
			/* A start bit and nearest - 1 zeros. */
			assert_int_equal(u.pos, nearest);
			assert_true(fabs(bits - (double)nearest) <= 0.4);
		} else {
			assert_int_equal(ev, RC_UART_FRAMING_ERROR);
			assert_true(fabs(bits - (double)nearest) > 0.4 - 1e-9 || nearest > 9);
		}
		/* Within +-3 us of whole bits (a 1.5 us error on each edge) it is read. */
		for (long n = 1; n <= 9; n++)
			if (fabs(width - n / 0.1152) <= 3.0)
				assert_int_equal(ev, RC_UART_NONE);
	}
}

static void test_dsm_random_frames_rarely_pass_detection_and_stay_safe(void **state)
{
	uint32_t seed = 1;
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	uint64_t t = 1000000;
	int out = 0;
	for (int k = 0; k < 100000; k++) {
		uint8_t bytes[16];
		for (int i = 0; i < 16; i++)
			bytes[i] = (uint8_t)rc_wave_rand(&seed);
		t += 11000;
		struct rc_frame f;
		if (rc_dsm_bytes(&d, bytes, 16, t, &f)) {
			assert_true(rc_wave_frame_is_safe(&f));
			out++;
		}
	}
	assert_true(out < 100);
}

static void test_dsm_garbage_pulses_never_give_an_unsafe_frame(void **state)
{
	uint32_t seed = 99;
	struct rc_dsm d;
	rc_dsm_init(&d, true);
	uint64_t t = 0;
	for (int i = 0; i < 300000; i++) {
		uint32_t r = rc_wave_rand(&seed);
		uint32_t low = 9 * (1 + r % 9) + (r >> 28) % 4;
		uint32_t high = (r & 0x3f00) == 0 ? 3000 + r % 9000 : 9 * (1 + (r >> 4) % 9);
		t += low + high;
		struct rc_frame f;
		if (rc_dsm_pulse(&d, low, high, t, &f))
			assert_true(rc_wave_frame_is_safe(&f));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dsm_detects_11_bit_and_round_trips_seven_channels_within_a_microsecond),
		cmocka_unit_test(test_dsm_detects_10_bit_and_round_trips_six_channels_within_two_microseconds),
		cmocka_unit_test(test_dsm_detects_every_channel_count),
		cmocka_unit_test(test_dsm_collects_twelve_channels_from_two_frames),
		cmocka_unit_test(test_dsm_ignores_xplus_channel_numbers),
		cmocka_unit_test(test_dsm_rejects_a_frame_with_a_repeated_channel_number),
		cmocka_unit_test(test_dsm_rejects_a_frame_one_byte_short),
		cmocka_unit_test(test_dsm_detects_again_after_a_silence),
		cmocka_unit_test(test_dsm_rejects_the_other_resolution_until_a_silence),
		cmocka_unit_test(test_dsm_bytes_decode_frames_split_across_reads),
		cmocka_unit_test(test_dsm_pulses_round_trip_with_jitter),
		cmocka_unit_test(test_dsm_pulses_reject_a_frame_with_a_bad_stop_bit),
		cmocka_unit_test(test_dsm_soft_uart_reads_a_level_as_whole_bits_or_rejects_it),
		cmocka_unit_test(test_dsm_random_frames_rarely_pass_detection_and_stay_safe),
		cmocka_unit_test(test_dsm_garbage_pulses_never_give_an_unsafe_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
