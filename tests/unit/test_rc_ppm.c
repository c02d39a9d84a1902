// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rc/ppm.h"
#include "rc_wave.h"

#define FRAME_US 22500
#define PULSE_US 400

static struct rc_wave w;
static struct rc_pair pairs[20000];
static struct rc_frame frames[1000];

static size_t feed(struct rc_ppm *d, size_t np)
{
	size_t nf = 0;
	for (size_t i = 0; i < np; i++) {
		struct rc_frame f;
		if (rc_ppm_pulse(d, pairs[i].low_us, pairs[i].high_us, pairs[i].t_us, &f)) {
			assert_true(rc_wave_frame_is_safe(&f));
			assert_int_equal(f.protocol, RC_PROTOCOL_PPM);
			assert_false(f.failsafe);
			assert_true(nf < 1000);
			frames[nf++] = f;
		}
	}
	return nf;
}

static void assert_channels_within(const struct rc_frame *f, const uint16_t *ch, unsigned int n, int tol_us)
{
	assert_int_equal(f->channel_count, n);
	for (unsigned int i = 0; i < n; i++)
		assert_in_range(f->channels_us[i], ch[i] - tol_us, ch[i] + tol_us);
}

/* frames PPM frames of the same channels, then a pulse so the last sync ends. */
static size_t wave_frames(const uint16_t *ch, unsigned int n, int count, bool pulse_high,
			  uint32_t jitter_us, uint32_t seed)
{
	rc_wave_init(&w);
	for (int k = 0; k < count; k++)
		rc_wave_ppm_frame(&w, ch, n, PULSE_US, FRAME_US + (n > 8 ? 20000 : 0), pulse_high);
	rc_wave_level(&w, pulse_high, PULSE_US * 1000);
	rc_wave_level(&w, !pulse_high, 1000 * 1000);
	return rc_wave_pairs(&w, 5000000, jitter_us, &seed, pairs, 20000);
}

static const uint16_t eight[8] = { 1500, 1000, 2000, 1234, 1111, 1999, 1650, 1350 };

static void test_ppm_round_trips_eight_channels_within_a_microsecond(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	size_t nf = feed(&d, wave_frames(eight, 8, 10, false, 0, 1));
	/* The wave begins mid-frame for the decoder: the first sync starts it, and the
	 * first whole frame waits for a second one with the same channel count. */
	assert_int_equal(nf, 8);
	for (size_t k = 0; k < nf; k++) {
		assert_channels_within(&frames[k], eight, 8, 1);
		/* Stamped at the end of its last channel. */
		uint64_t end = 5000000 + (k + 2) * FRAME_US + 11844;  /* the channels' sum */
		assert_in_range(frames[k].timestamp_us, end - 1, end + 1);
	}
	assert_int_equal(d.stats.frames, 8);
	assert_int_equal(d.stats.rejected[RC_REJECT_CHANNELS], 1);
}

static void test_ppm_round_trips_with_edge_jitter(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	size_t nf = feed(&d, wave_frames(eight, 8, 50, true, 4, 2));
	assert_int_equal(nf, 48);
	for (size_t k = 0; k < nf; k++)
		assert_channels_within(&frames[k], eight, 8, 8);  /* two edges of +-4 us */
}

static void test_ppm_decodes_either_pulse_polarity(void **state)
{
	for (int pol = 0; pol < 2; pol++) {
		struct rc_ppm d;
		rc_ppm_init(&d);
		size_t nf = feed(&d, wave_frames(eight, 8, 5, pol, 0, 3));
		assert_int_equal(nf, 3);
		assert_channels_within(&frames[2], eight, 8, 1);
	}
}

static void test_ppm_decodes_five_to_eighteen_channels(void **state)
{
	uint16_t ch[RC_MAX_CHANNELS];
	for (unsigned int i = 0; i < RC_MAX_CHANNELS; i++)
		ch[i] = (uint16_t)(1000 + 50 * i);
	for (unsigned int n = 5; n <= RC_MAX_CHANNELS; n++) {
		struct rc_ppm d;
		rc_ppm_init(&d);
		size_t nf = feed(&d, wave_frames(ch, n, 4, false, 0, 4));
		assert_int_equal(nf, 2);
		assert_channels_within(&frames[1], ch, n, 1);
	}
}

static void test_ppm_rejects_fewer_than_five_channels(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	assert_int_equal(feed(&d, wave_frames(eight, 4, 6, false, 0, 5)), 0);
	assert_int_equal(d.stats.rejected[RC_REJECT_LENGTH], 5);
}

static void test_ppm_rejects_more_than_eighteen_pulses_before_a_sync(void **state)
{
	uint16_t ch[19];
	for (int i = 0; i < 19; i++)
		ch[i] = 1500;
	struct rc_ppm d;
	rc_ppm_init(&d);
	assert_int_equal(feed(&d, wave_frames(ch, 19, 4, false, 0, 6)), 0);
	assert_int_equal(d.stats.rejected[RC_REJECT_LENGTH], 3);
}

static void test_ppm_clamps_channels_to_the_safe_range(void **state)
{
	const uint16_t wide[6] = { 750, 2250, 799, 2201, 800, 2200 };
	struct rc_ppm d;
	rc_ppm_init(&d);
	size_t nf = feed(&d, wave_frames(wide, 6, 3, false, 0, 7));
	assert_int_equal(nf, 1);
	const uint16_t want[6] = { 800, 2200, 800, 2200, 800, 2200 };
	assert_channels_within(&frames[0], want, 6, 0);
}

static void test_ppm_rejects_a_pulse_that_is_neither_a_channel_nor_a_sync(void **state)
{
	for (int bad = 0; bad < 2; bad++) {
		uint16_t ch[8];
		memcpy(ch, eight, sizeof(ch));
		ch[4] = bad ? 2500 : 650;
		struct rc_ppm d;
		rc_ppm_init(&d);
		/* Frames 1-3 good, frame 4 bad, frames 5-8 good. */
		rc_wave_init(&w);
		for (int k = 0; k < 8; k++)
			rc_wave_ppm_frame(&w, k == 3 ? ch : eight, 8, PULSE_US, FRAME_US, false);
		rc_wave_level(&w, false, PULSE_US * 1000);
		rc_wave_level(&w, true, 1000000);
		uint32_t seed = 8;
		size_t nf = feed(&d, rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000));
		/* Frame 1 is before the first sync, 2 sets the channel count. */
		assert_int_equal(nf, 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels_within(&frames[k], eight, 8, 1);
		assert_int_equal(d.stats.rejected[RC_REJECT_RANGE], 1);
	}
}

static void test_ppm_rejects_a_frame_with_a_missing_pulse(void **state)
{
	/*
	 * The pulse of channel 3 lost: channels 2 and 3 merge into one interval of
	 * 3000 us, which reads as a sync and splits the frame into two short ones.
	 * And channel 5 lost in the next frame: 1111 + 1999 us merge into 3110.
	 * The pulse of channel 7 lost in the frame after: 1650 + 1350 = 3000.
	 * With shorter channels the merged interval would be a plausible channel
	 * and the frame one channel short: see the next test.
	 */
	struct rc_ppm d;
	rc_ppm_init(&d);
	rc_wave_init(&w);
	size_t drop[3] = { 0 };
	for (int k = 0; k < 10; k++) {
		size_t first = w.n;
		rc_wave_ppm_frame(&w, eight, 8, PULSE_US, FRAME_US, false);
		if (k >= 3 && k <= 5)
			drop[k - 3] = first + 2 * (size_t)(k == 3 ? 2 : k == 4 ? 5 : 7);
	}
	rc_wave_level(&w, false, PULSE_US * 1000);
	rc_wave_level(&w, true, 1000000);
	/* Flip from the last so that earlier indices stay put. */
	for (int i = 2; i >= 0; i--)
		rc_wave_flip(&w, drop[i]);
	uint32_t seed = 9;
	size_t nf = feed(&d, rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000));
	for (size_t k = 0; k < nf; k++)
		assert_channels_within(&frames[k], eight, 8, 1);
	/* Frame 3 output (1 is before the first sync, 2 sets the channel count);
	 * 4, 5, 6 damaged; 7-10 output. */
	assert_int_equal(nf, 5);
	assert_true(rc_stats_rejected(&d.stats) >= 3);
}

static void test_ppm_rejects_one_frame_when_two_short_channels_merge(void **state)
{
	const uint16_t shorter[8] = { 1000, 1100, 1000, 1100, 1500, 1500, 1500, 1500 };
	struct rc_ppm d;
	rc_ppm_init(&d);
	rc_wave_init(&w);
	size_t drop = 0;
	for (int k = 0; k < 6; k++) {
		if (k == 3)
			drop = w.n + 2 * 1;  /* the pulse of channel 2 */
		rc_wave_ppm_frame(&w, shorter, 8, PULSE_US, FRAME_US, false);
	}
	rc_wave_level(&w, false, PULSE_US * 1000);
	rc_wave_level(&w, true, 1000000);
	rc_wave_flip(&w, drop);
	uint32_t seed = 10;
	size_t nf = feed(&d, rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000));
	/* Frame 4 has 7 channels, one of them 2100 us: rejected, not shifted. */
	assert_int_equal(nf, 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels_within(&frames[k], shorter, 8, 1);
	assert_int_equal(d.stats.rejected[RC_REJECT_CHANNELS], 2);  /* the first frame, and frame 4 */
}

static void test_ppm_follows_a_change_of_channel_count_after_one_frame(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	rc_wave_init(&w);
	for (int k = 0; k < 8; k++)
		rc_wave_ppm_frame(&w, eight, k < 4 ? 8 : 6, PULSE_US, FRAME_US, false);
	rc_wave_level(&w, false, PULSE_US * 1000);
	rc_wave_level(&w, true, 1000000);
	uint32_t seed = 11;
	size_t nf = feed(&d, rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000));
	assert_int_equal(nf, 2 + 3);
	assert_int_equal(frames[1].channel_count, 8);
	assert_int_equal(frames[2].channel_count, 6);
	assert_channels_within(&frames[4], eight, 6, 1);
}

static void test_ppm_waits_for_a_sync_after_a_zero_width(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	size_t np = wave_frames(eight, 8, 6, false, 0, 12);
	pairs[3 * 9 + 4].high_us = 0;  /* inside the fourth frame */
	size_t nf = feed(&d, np);
	assert_int_equal(nf, 3);
	assert_int_equal(d.stats.rejected[RC_REJECT_FRAMING], 1);
}

static void test_ppm_drops_a_frame_whose_sync_lasts_too_long(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	rc_wave_init(&w);
	for (int k = 0; k < 4; k++)
		rc_wave_ppm_frame(&w, eight, 8, PULSE_US, FRAME_US, false);
	/* The fourth frame's sync lasts a second: the receiver stopped after it. */
	w.dur_ns[w.n - 1] += 1000000000ull;
	rc_wave_ppm_frame(&w, eight, 8, PULSE_US, FRAME_US, false);
	rc_wave_level(&w, false, PULSE_US * 1000);
	rc_wave_level(&w, true, 1000000);
	uint32_t seed = 13;
	size_t nf = feed(&d, rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000));
	/* Frames 3 and 5 (the one after the long sync follows a sync all the same). */
	assert_int_equal(nf, 2);
	assert_int_equal(d.stats.stale_frames, 1);
	assert_int_equal(rc_stats_rejected(&d.stats), 1);
}

static void test_ppm_ignores_pulses_before_the_first_sync(void **state)
{
	struct rc_ppm d;
	rc_ppm_init(&d);
	struct rc_frame f;
	for (int i = 0; i < 100; i++)
		assert_int_equal(rc_ppm_pulse(&d, 400, 1100, 1000 + 1500 * (uint64_t)i, &f), 0);
	assert_int_equal(rc_stats_rejected(&d.stats), 0);
}

static void test_ppm_garbage_never_gives_an_unsafe_frame(void **state)
{
	uint32_t seed = 4242;
	struct rc_ppm d;
	rc_ppm_init(&d);
	uint64_t t = 0;
	size_t out = 0;
	for (int i = 0; i < 500000; i++) {
		uint32_t r = rc_wave_rand(&seed);
		uint32_t low = r % 600, high = (r >> 10) % 3000;
		if ((r >> 28) == 0)
			high = 0;
		t += low + high;
		struct rc_frame f;
		if (rc_ppm_pulse(&d, low, high, t, &f)) {
			assert_true(rc_wave_frame_is_safe(&f));
			out++;
		}
	}
	/* Random widths do make frames now and then: that is what the lock of
	 * rc_input is for. They are still safe. */
	assert_true(out < 500000 / 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ppm_round_trips_eight_channels_within_a_microsecond),
		cmocka_unit_test(test_ppm_round_trips_with_edge_jitter),
		cmocka_unit_test(test_ppm_decodes_either_pulse_polarity),
		cmocka_unit_test(test_ppm_decodes_five_to_eighteen_channels),
		cmocka_unit_test(test_ppm_rejects_fewer_than_five_channels),
		cmocka_unit_test(test_ppm_rejects_more_than_eighteen_pulses_before_a_sync),
		cmocka_unit_test(test_ppm_clamps_channels_to_the_safe_range),
		cmocka_unit_test(test_ppm_rejects_a_pulse_that_is_neither_a_channel_nor_a_sync),
		cmocka_unit_test(test_ppm_rejects_a_frame_with_a_missing_pulse),
		cmocka_unit_test(test_ppm_rejects_one_frame_when_two_short_channels_merge),
		cmocka_unit_test(test_ppm_follows_a_change_of_channel_count_after_one_frame),
		cmocka_unit_test(test_ppm_waits_for_a_sync_after_a_zero_width),
		cmocka_unit_test(test_ppm_drops_a_frame_whose_sync_lasts_too_long),
		cmocka_unit_test(test_ppm_ignores_pulses_before_the_first_sync),
		cmocka_unit_test(test_ppm_garbage_never_gives_an_unsafe_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
