// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rc/input.h"
#include "rc_wave.h"

#define T0_US 10000000

static struct rc_wave w;
static struct rc_pair pairs[150000];
static struct rc_frame frames[4000];
static uint64_t frame_pair_t[4000];  /* when each frame was output */

static const uint16_t ppm_ch[8] = { 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800 };
static const uint16_t sbus_ch[16] = { 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080,
				      1090, 1100, 1110, 1120, 1130, 1140, 1150, 1160 };
static const uint16_t dsm_ch[12] = { 1900, 1800, 1700, 1600, 1500, 1400, 1300, 1200, 1100, 1000, 1950, 1050 };

static void add_ppm(int count, bool pulse_high)
{
	for (int k = 0; k < count; k++)
		rc_wave_ppm_frame(&w, ppm_ch, 8, 400, 22500, pulse_high);
}

static void add_sbus(int count, uint8_t flags)
{
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, sbus_ch, flags);
	for (int k = 0; k < count; k++) {
		rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, bytes, 25);
		rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 14000 - 3000);
	}
}

static void add_dsm(int count, unsigned int n, unsigned int res)
{
	for (int k = 0; k < count; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, dsm_ch, n, res, (unsigned int)k & 1);
		rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, bytes, 16);
		rc_wave_uart_idle(&w, &rc_wave_dsm_uart, 11000 - 1389);
	}
}

/* A few short levels so that the last long level is ended by an edge. */
static void add_end(void)
{
	rc_wave_level(&w, true, 50000);
	rc_wave_level(&w, false, 50000);
	rc_wave_level(&w, true, 50000);
}

static size_t feed(struct rc_input *in, uint32_t jitter_us, uint32_t seed)
{
	size_t np = rc_wave_pairs(&w, T0_US, jitter_us, &seed, pairs, 150000);
	assert_true(np < 150000);
	size_t nf = 0;
	for (size_t i = 0; i < np; i++) {
		struct rc_frame f;
		if (rc_input_pulse(in, pairs[i].low_us, pairs[i].high_us, pairs[i].t_us, &f)) {
			assert_true(rc_wave_frame_is_safe(&f));
			assert_true(f.timestamp_us <= pairs[i].t_us);
			assert_true(nf < 4000);
			frame_pair_t[nf] = pairs[i].t_us;
			frames[nf++] = f;
		}
	}
	return nf;
}

static void assert_frame_is(const struct rc_frame *f, enum rc_protocol p, int tol_us)
{
	assert_int_equal(f->protocol, p);
	const uint16_t *want = p == RC_PROTOCOL_PPM ? ppm_ch : p == RC_PROTOCOL_SBUS ? sbus_ch : dsm_ch;
	unsigned int n = p == RC_PROTOCOL_PPM ? 8 : p == RC_PROTOCOL_SBUS ? 16 : f->channel_count;
	assert_true(f->channel_count >= n && n > 0);
	for (unsigned int i = 0; i < n; i++) {
		if (f->channels_us[i] < want[i] - tol_us || f->channels_us[i] > want[i] + tol_us) {
			print_message("protocol %d count %d t %llu:", p, f->channel_count, (unsigned long long)f->timestamp_us);
			for (unsigned int j = 0; j < f->channel_count; j++)
				print_message(" %u", f->channels_us[j]);
			print_message("\n");
		}
		assert_in_range(f->channels_us[i], want[i] - tol_us, want[i] + tol_us);
	}
}

static void test_input_locks_on_ppm_after_three_good_frames(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	add_ppm(50, false);
	add_end();
	size_t nf = feed(&in, 0, 1);
	/* Frame 1 is before the first sync, 2 sets the channel count, 3-5 lock. */
	assert_int_equal(nf, 50 - 4);
	for (size_t k = 0; k < nf; k++)
		assert_frame_is(&frames[k], RC_PROTOCOL_PPM, 1);
	assert_int_equal(rc_input_protocol(&in, frame_pair_t[nf - 1]), RC_PROTOCOL_PPM);
	assert_int_equal(in.locks, 1);
	assert_int_equal(rc_input_stats(&in, RC_PROTOCOL_PPM)->frames, 50 - 2);
}

static void test_input_locks_on_sbus_after_three_good_frames(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	add_sbus(50, 0);
	add_end();
	size_t nf = feed(&in, 2, 2);
	assert_int_equal(nf, 50 - 2);
	for (size_t k = 0; k < nf; k++)
		assert_frame_is(&frames[k], RC_PROTOCOL_SBUS, 1);
	assert_int_equal(in.locks, 1);
	assert_int_equal(rc_stats_rejected(&in.sbus.stats), 0);
}

static void test_input_locks_on_dsm_10_and_11_bit(void **state)
{
	for (unsigned int res = 10; res <= 11; res++) {
		struct rc_input in;
		rc_input_init(&in);
		rc_wave_init(&w);
		unsigned int n = res == 10 ? 7 : 12;
		add_dsm(50, n, res);
		add_end();
		size_t nf = feed(&in, 1, 3);
		/* Frame 1 has no gap before it, 2-6 detect, then three more to lock. */
		assert_true(nf >= 50 - 9);
		for (size_t k = 0; k < nf; k++) {
			assert_frame_is(&frames[k], RC_PROTOCOL_DSM, res == 10 ? 2 : 1);
			assert_int_equal(frames[k].channel_count, n);
		}
		assert_int_equal(rc_dsm_resolution(&in.dsm), res);
	}
}

static void test_input_switches_protocol_when_the_locked_one_goes_quiet(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	add_ppm(40, true);
	uint64_t ppm_end_us = T0_US + rc_wave_duration_ns(&w) / 1000;
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 3000);
	add_sbus(60, 0);
	uint64_t sbus_end_us = T0_US + rc_wave_duration_ns(&w) / 1000;
	add_dsm(80, 7, 11);
	add_end();
	/* +-1 us on every edge: the 8.7 us bits of DSM allow little more (see serial.h). */
	size_t nf = feed(&in, 1, 4);

	size_t ppm = 0, sbus = 0, dsm = 0;
	enum rc_protocol prev = RC_PROTOCOL_PPM;
	for (size_t k = 0; k < nf; k++) {
		enum rc_protocol p = frames[k].protocol;
		assert_frame_is(&frames[k], p, 2);  /* two edges of +-1 us */
		/* Never back to an earlier one, never mixed. */
		assert_true(p >= prev);
		prev = p;
		if (p == RC_PROTOCOL_PPM) {
			ppm++;
			/* The last PPM sync ends at SBUS's first start bit, 3 ms later. */
			assert_true(frames[k].timestamp_us <= ppm_end_us);
			assert_true(frame_pair_t[k] <= ppm_end_us + 3100);
		} else if (p == RC_PROTOCOL_SBUS) {
			sbus++;
			/* Only once PPM has been quiet for the lock timeout. */
			assert_true(frame_pair_t[k] > ppm_end_us + RC_INPUT_LOCK_TIMEOUT_US - 25000);
			assert_true(frame_pair_t[k] <= sbus_end_us + 1000);
		} else {
			dsm++;
			assert_true(frame_pair_t[k] > sbus_end_us + RC_INPUT_LOCK_TIMEOUT_US - 15000);
		}
	}
	assert_int_equal(ppm, 40 - 4);
	/* The 200 ms timeout costs 14 frames of 14 ms; DSM loses 18 of 11 ms. */
	assert_in_range(sbus, 60 - 16, 60 - 13);
	assert_in_range(dsm, 80 - 20, 80 - 17);
	assert_int_equal(in.locks, 3);
}

static void test_input_keeps_the_lock_through_a_short_dropout(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	add_ppm(20, false);
	rc_wave_level(&w, false, 400000);
	rc_wave_level(&w, true, 150000000);  /* 150 ms of nothing */
	add_ppm(20, false);
	add_end();
	size_t nf = feed(&in, 0, 5);
	/* The dropout is a sync too, so the first frame after it is whole and, the
	 * lock holding, output at once. */
	assert_int_equal(nf, 16 + 20);
	assert_int_equal(in.locks, 1);
}

static void test_input_drops_the_lock_after_the_timeout(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	add_ppm(20, false);
	add_end();
	size_t nf = feed(&in, 0, 6);
	assert_true(nf > 0);
	uint64_t last = frames[nf - 1].timestamp_us;
	assert_int_equal(rc_input_protocol(&in, last + RC_INPUT_LOCK_TIMEOUT_US), RC_PROTOCOL_PPM);
	assert_int_equal(rc_input_protocol(&in, last + RC_INPUT_LOCK_TIMEOUT_US + 1), RC_PROTOCOL_NONE);
}

static void test_input_outputs_sbus_failsafe_frames_and_keeps_the_lock(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 5000);
	add_sbus(10, 0);
	add_sbus(10, RC_SBUS_FLAG_FRAME_LOST);
	add_sbus(10, RC_SBUS_FLAG_FAILSAFE | RC_SBUS_FLAG_FRAME_LOST);
	add_end();
	size_t nf = feed(&in, 1, 7);
	assert_int_equal(nf, 30 - 2);
	for (size_t k = 0; k < nf; k++) {
		assert_int_equal(frames[k].failsafe, k >= 18);
		assert_int_equal(frames[k].frame_lost, k >= 8);
	}
	assert_int_equal(in.locks, 1);
}

static void test_input_locks_despite_jitter_and_missing_pulses(void **state)
{
	struct rc_input in;
	rc_input_init(&in);
	rc_wave_init(&w);
	for (int k = 0; k < 60; k++) {
		size_t first = w.n;
		add_ppm(1, false);
		if (k % 10 == 7)
			rc_wave_flip(&w, first + 2 * 4);  /* the pulse of channel 5 */
	}
	add_end();
	size_t nf = feed(&in, 5, 8);
	/* Every damaged frame is rejected, never output shifted. */
	for (size_t k = 0; k < nf; k++)
		assert_frame_is(&frames[k], RC_PROTOCOL_PPM, 10);
	assert_int_equal(nf, 60 - 4 - 6);
	/* Channels 4 and 5 merge into 2900 us, which reads as a sync: two short
	 * frames each time (and the first frame, which sets the count). */
	assert_int_equal(rc_stats_rejected(&in.ppm.stats), 1 + 2 * 6);
	assert_int_equal(in.ppm.stats.rejected[RC_REJECT_LENGTH], 2 * 6);
}

static void test_input_random_pulses_never_lock(void **state)
{
	uint32_t seed = 1234567;
	struct rc_input in;
	rc_input_init(&in);
	uint64_t t = T0_US;
	for (int i = 0; i < 2000000; i++) {
		uint32_t r = rc_wave_rand(&seed);
		uint32_t low, high;
		switch (r & 3) {
		case 0:  /* anything */
			low = (r >> 2) % 5000;
			high = (r >> 14) % 5000;
			break;
		case 1:  /* bit-sized, SBUS and DSM */
			low = 8 + (r >> 2) % 100;
			high = 8 + (r >> 14) % 100;
			break;
		case 2:  /* channel-sized */
			low = 300 + (r >> 2) % 200;
			high = 400 + (r >> 14) % 1800;
			break;
		default:  /* gaps */
			low = (r >> 2) % 20000;
			high = 5 + (r >> 20) % 50;
			break;
		}
		t += low + high;
		struct rc_frame f;
		assert_int_equal(rc_input_pulse(&in, low, high, t, &f), 0);
	}
	assert_int_equal(in.locks, 0);
}

static void test_input_names_protocols_and_reasons(void **state)
{
	assert_string_equal(rc_protocol_name(RC_PROTOCOL_NONE), "none");
	assert_string_equal(rc_protocol_name(RC_PROTOCOL_SBUS), "SBUS");
	assert_string_equal(rc_protocol_name(RC_PROTOCOL_COUNT), "?");
	assert_string_equal(rc_reject_name(RC_REJECT_PARITY), "parity");
	assert_string_equal(rc_reject_name(RC_REJECT_COUNT), "?");
	struct rc_input in;
	rc_input_init(&in);
	assert_null(rc_input_stats(&in, RC_PROTOCOL_NONE));
	assert_ptr_equal(rc_input_stats(&in, RC_PROTOCOL_DSM), &in.dsm.stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_locks_on_ppm_after_three_good_frames),
		cmocka_unit_test(test_input_locks_on_sbus_after_three_good_frames),
		cmocka_unit_test(test_input_locks_on_dsm_10_and_11_bit),
		cmocka_unit_test(test_input_switches_protocol_when_the_locked_one_goes_quiet),
		cmocka_unit_test(test_input_keeps_the_lock_through_a_short_dropout),
		cmocka_unit_test(test_input_drops_the_lock_after_the_timeout),
		cmocka_unit_test(test_input_outputs_sbus_failsafe_frames_and_keeps_the_lock),
		cmocka_unit_test(test_input_locks_despite_jitter_and_missing_pulses),
		cmocka_unit_test(test_input_random_pulses_never_lock),
		cmocka_unit_test(test_input_names_protocols_and_reasons),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
