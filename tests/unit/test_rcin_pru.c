// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the BeagleBone PRU's edge ring, through the real backend
 * (hal/pru/rcin_pru.c on pru_ring.c), the real mmio backend
 * (hal/linux/mmio_linux.c) and the public rcin calls. The PRU shared RAM is a
 * memfd: the backend maps it the way a board maps /dev/mem ("/proc/self/fd/N"
 * at physical 0), and the test plays the rcinpru0 firmware on a mapping of its
 * own, as the PRU would: an entry {pin_value = the level that ended, delta_t =
 * its length in us}, then a 16-bit store of the new tail; head is never read.
 * The tests whose bodies both PRU rings share (the threaded ones, which run
 * this firmware on a second thread in real time, and the end-to-end ones,
 * which play receivers' waveforms from tests/unit/rc_wave.c into the ring and
 * decode what comes out with src/rc) are in pru_ring_harness.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>

#include "pru/hal_pru.h"
#include "pru_ring_harness.h"
#include "rc/input.h"
#include "rcin_e2e.h"

#define WIN_LEN 0x3000         /* the PRU-ICSS's 12 KB of shared RAM */
#define RING_OFF 0x2000        /* where rcinpru0 keeps its ring in it */
#define ENTRIES RCIN_PRU_RING_ENTRIES

/* --- the firmware's side ------------------------------------------------- */

/* What rcinpru0 does at start: tail = 20 (head is left as it is). */
static void fw_start(struct pru_ram *r)
{
	pru_ram_start_at(r, 20);
}

/* add_to_ring_buffer(): the entry, then the tail it reads back + 1. */
static void fw_entry(struct pru_ram *r, uint16_t pin_value, uint16_t delta_us)
{
	uint16_t tail = pru_ram_tail(r);

	__atomic_store_n(pru_ram_entry(r, tail), (uint32_t)pin_value | (uint32_t)delta_us << 16,
			 __ATOMIC_RELAXED);
	pru_ram_set_tail(r, (uint16_t)((tail + 1) % ENTRIES));
}

/* The pin low for low_us, then high for high_us. */
static void fw_pair(struct pru_ram *r, uint16_t low_us, uint16_t high_us)
{
	fw_entry(r, 0, low_us);
	fw_entry(r, 1, high_us);
}

static void fw_level(struct pru_ram *r, bool high, uint32_t dur_us)
{
	fw_entry(r, high, (uint16_t)dur_us);
}

/* --- single-threaded: the firmware writes, then the test reads ------------ */

static void test_rcin_pru_skips_what_the_ring_held_before_open(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	for (int i = 0; i < 5; i++)
		fw_pair(r, 600, 400);
	struct rcin *in = pru_ram_open(r);

	assert_int_equal(rcin_read(in, p, 8, 1000000), 0);
	fw_pair(r, 700, 300);
	assert_int_equal(rcin_read(in, p, 8, 1001000), 1);
	assert_int_equal(p[0].low_us, 700);
	rcin_close(in);
}

static void test_rcin_pru_reads_pin_value_as_the_level_that_ended(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 1, 400);        /* a high level first: its low began unseen */
	fw_entry(r, 0, 1600);       /* pin_value 0: the pin WAS low 1600 us */
	fw_entry(r, 1, 350);        /* ... then high 350 us */
	fw_entry(r, 0, 600);
	fw_entry(r, 1, 20000);
	assert_int_equal(rcin_read(in, p, 8, 50000000), 2);
	assert_int_equal(p[0].low_us, 1600);
	assert_int_equal(p[0].high_us, 350);
	assert_int_equal(p[1].low_us, 600);
	assert_int_equal(p[1].high_us, 20000);
	/* Durations only: the last level ended at now at the latest. */
	assert_int_equal(p[1].t_us, 50000000);
	assert_int_equal(p[0].t_us, 50000000 - 20600);
	const struct rcin_stats *st = rcin_stats(in);
	assert_int_equal(st->pulses, 2);
	assert_int_equal(st->bad + st->overruns, 0);
	rcin_close(in);
}

static void test_rcin_pru_stamps_continue_from_one_read_to_the_next(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_pair(r, 600, 400);
	assert_int_equal(rcin_read(in, p, 8, 10000000), 1);
	assert_int_equal(p[0].t_us, 10000000);
	fw_pair(r, 500, 1500);
	assert_int_equal(rcin_read(in, p, 8, 10003000), 1);
	assert_int_equal(p[0].t_us, 10002000);
	/* Not after now: the stamp before was late (the pin was idle). */
	fw_pair(r, 3000, 500);
	assert_int_equal(rcin_read(in, p, 8, 10004000), 1);
	assert_int_equal(p[0].t_us, 10004000);
	/* An idle read: the next low ended after it. */
	assert_int_equal(rcin_read(in, p, 8, 10009000), 0);
	fw_pair(r, 400, 400);
	assert_int_equal(rcin_read(in, p, 8, 10010000), 1);
	assert_int_equal(p[0].t_us, 10009000 - 400 + 800);
	rcin_close(in);
}

static void test_rcin_pru_reads_across_the_end_of_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];

	pru_ram_start_at(r, ENTRIES - 10);
	struct rcin *in = pru_ram_open(r);

	for (uint16_t i = 0; i < 50; i++)
		fw_pair(r, (uint16_t)(300 + i), (uint16_t)(1000 + i));
	assert_int_equal(pru_ram_tail(r), 90);
	assert_int_equal(rcin_read(in, p, 64, 60000000), 50);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(p[i].low_us, 300 + i);
		assert_int_equal(p[i].high_us, 1000 + i);
	}
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_pru_hands_out_at_most_max_stamped_as_captured(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[149];
	struct rcin *in = pru_ram_open(r);

	/* A full ring: 299 levels, 149 pairs and a low. */
	for (uint16_t i = 0; i < 149; i++)
		fw_pair(r, (uint16_t)(200 + i), (uint16_t)(900 + i));
	fw_entry(r, 0, 5000);
	size_t got = 0;
	for (size_t max = 1; got < 149; max = max % 6 + 1) {
		int n = rcin_read(in, p + got, max, 70000000 + got);
		assert_true(n > 0 && (size_t)n <= max);
		got += (size_t)n;
	}
	assert_int_equal(rcin_read(in, p, 1, 70001000), 0);
	/* One capture, at 70000000, that ended with the low still going. */
	assert_int_equal(p[148].t_us, 70000000 - 5000);
	for (int i = 0; i < 149; i++) {
		assert_int_equal(p[i].low_us, 200 + i);
		assert_int_equal(p[i].high_us, 900 + i);
		if (i > 0)
			assert_int_equal(p[i].t_us - p[i - 1].t_us, p[i].low_us + p[i].high_us);
	}
	/* The low in progress makes the first pair with the next high. */
	fw_entry(r, 1, 700);
	assert_int_equal(rcin_read(in, p, 1, 70002000), 1);
	assert_int_equal(p[0].low_us, 5000);
	assert_int_equal(p[0].high_us, 700);
	rcin_close(in);
}

static void test_rcin_pru_counts_a_corrupt_tail_once_and_resyncs(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_pair(r, 600, 400);
	fw_pair(r, 650, 350);
	assert_int_equal(rcin_read(in, p, 1, 80000000), 1);   /* one still queued */
	pru_ram_start_at(r, 4242);
	assert_int_equal(rcin_read(in, p, 8, 80001000), 1);   /* the queued one */
	assert_int_equal(p[0].low_us, 650);
	assert_int_equal(rcin_read(in, p, 8, 80002000), 0);
	assert_int_equal(rcin_stats(in)->bad, 1);
	/* Back in range: what the ring holds now is not trusted, only what follows. */
	pru_ram_start_at(r, 123);
	fw_pair(r, 111, 222);
	assert_int_equal(rcin_read(in, p, 8, 80003000), 0);
	fw_pair(r, 700, 300);
	fw_pair(r, 800, 200);
	assert_int_equal(rcin_read(in, p, 8, 80004000), 2);
	assert_int_equal(p[0].low_us, 700);
	assert_int_equal(p[1].low_us, 800);
	assert_int_equal(rcin_stats(in)->bad, 1);
	assert_int_equal(rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_pru_counts_zero_widths_and_corrupt_levels_as_bad(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_pair(r, 600, 400);
	fw_entry(r, 0, 500);
	fw_entry(r, 1, 0);          /* a glitch under a microsecond */
	fw_entry(r, 0, 300);
	fw_entry(r, 1, 300);
	fw_entry(r, 7, 300);        /* no such level */
	fw_entry(r, 1, 300);
	fw_pair(r, 900, 100);
	assert_int_equal(rcin_read(in, p, 8, 90000000), 3);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[1].low_us, 300);
	assert_int_equal(p[1].high_us, 300);
	assert_int_equal(p[2].low_us, 900);
	assert_int_equal(rcin_stats(in)->bad, 2);
	assert_int_equal(rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_pru_counts_a_repeated_level_as_a_lost_edge(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_pair(r, 600, 400);
	fw_entry(r, 0, 500);
	fw_entry(r, 0, 550);        /* the high in between is missing */
	fw_entry(r, 1, 450);
	assert_int_equal(rcin_read(in, p, 8, 95000000), 2);
	assert_int_equal(p[1].low_us, 550);
	assert_int_equal(p[1].high_us, 450);
	assert_int_equal(rcin_stats(in)->overruns, 1);
	rcin_close(in);
}

/* The PRU writes 250 entries. */
static void lap_250(struct pru_ram *r)
{
	for (int i = 0; i < 125; i++)
		fw_pair(r, 1234, 4321);
}

static void test_rcin_pru_counts_an_overrun_when_the_pru_laps_it_mid_read(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = pru_ram_open(r);

	for (int i = 0; i < 50; i++)
		fw_pair(r, 600, 400);
	pru_ram_lap_after_read(r, 10, lap_250);
	/* 100 unread and 250 more written while they were copied: 50 overwritten. */
	assert_int_equal(rcin_read(in, p, 64, 99000000), 0);
	r->spy.on_read = NULL;
	assert_int_equal(rcin_stats(in)->overruns, 1);
	fw_pair(r, 700, 300);
	assert_int_equal(rcin_read(in, p, 64, 99001000), 1);
	assert_int_equal(p[0].low_us, 700);
	rcin_close(in);
}

static void test_rcin_pru_cannot_see_a_whole_lap_between_reads(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = pru_ram_open(r);

	/*
	 * 320 pairs (640 levels) between two reads: the firmware never looks
	 * at head, so the ring shows the last 40 levels and looks consistent.
	 * This is the limit that sets the rcin thread's rate (hal_pru.h).
	 */
	for (uint16_t i = 0; i < 320; i++)
		fw_pair(r, (uint16_t)(100 + i), 1000);
	assert_int_equal(rcin_read(in, p, 64, 99500000), 20);
	assert_int_equal(p[0].low_us, 100 + 300);
	assert_int_equal(p[19].low_us, 100 + 319);
	assert_int_equal(rcin_stats(in)->overruns + rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_pru_joins_the_levels_either_side_of_an_unseen_lap(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	/*
	 * A low waits for its high; then 150 pairs (300 levels, a whole lap)
	 * come before the next read. The ring looks as if one level came, and
	 * the low pairs with a high from a pulse 150 later: one bogus pair,
	 * which the decoders reject as they reject noise.
	 */
	fw_entry(r, 0, 600);
	assert_int_equal(rcin_read(in, p, 8, 99600000), 0);
	fw_entry(r, 1, 400);
	for (int i = 0; i < 150; i++)
		fw_pair(r, 1000, 1000);
	assert_int_equal(rcin_read(in, p, 8, 99800000), 1);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[0].high_us, 1000);
	assert_int_equal(rcin_stats(in)->overruns + rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_pru_check_running_reads_runstate(void **state)
{
	struct pru_ram *r = *state;
	/* A stand-in for the PRU control registers at the end of the window. */
	const size_t ctrl = WIN_LEN - 0x100;

	r->mem.ram[ctrl / 4] = (1u << 15) | (1u << 1);
	assert_int_equal(pru_check_running(r->mem.win, ctrl), 0);
	r->mem.ram[ctrl / 4] = 1u << 1;     /* enabled, but halted */
	assert_int_equal(pru_check_running(r->mem.win, ctrl), -EHOSTDOWN);
	r->mem.ram[ctrl / 4] = 0xFFFFFFFFu;
	assert_int_equal(pru_check_running(r->mem.win, ctrl), -ENXIO);
	assert_int_equal(pru_check_running(r->mem.win, WIN_LEN), -EINVAL);
	assert_int_equal(pru_check_running(r->mem.win, 2), -EINVAL);
}

/* --- end to end: a receiver's waveform through the ring into the decoders - */

/*
 * The firmware plays the wave from t0_us on, an entry per level as each ends
 * (its clock in whole microseconds, as rcinpru0's IEP count / 200); the test
 * reads the ring every poll_us and gives every pair to the decoders.
 */
static size_t play_ring(struct pru_ram *r, struct rcin *in, uint64_t t0_us, uint32_t poll_us)
{
	struct rc_input dec;
	struct rcin_pulse p[64];
	uint64_t t_ns = t0_us * 1000u, last_edge_us = t0_us, last_pair_t = 0;
	size_t i = 0, nf = 0;

	rc_input_init(&dec);
	for (uint64_t now = t0_us + poll_us;; now += poll_us) {
		while (i < wave.n && (t_ns + wave.dur_ns[i]) / 1000u <= now) {
			t_ns += wave.dur_ns[i];
			uint64_t edge_us = t_ns / 1000u;
			fw_entry(r, wave.high[i], (uint16_t)(edge_us - last_edge_us));
			last_edge_us = edge_us;
			i++;
		}
		int n = rcin_read(in, p, 64, now);
		assert_true(n >= 0);
		decode(&dec, p, n, now, &last_pair_t, &nf);
		if (i == wave.n && n == 0)
			break;
	}
	return nf;
}

static const struct pru_ring_fw rcinpru0 = {
	.open = rcin_pru_open,
	.win_len = WIN_LEN,
	.ring_off = RING_OFF,
	.ring_bytes = RCIN_PRU_BYTES,
	.entries_per_pair = 2,
	.pairs_per_read_max = ENTRIES / 2,
	.burst_poll_us = 10000,     /* 100 Hz: some 400 levels come in 10 ms */
	.start = fw_start,
	.run_at = pru_ram_start_at,
	.level = fw_level,
	.play = play_ring,
};

static int setup(void **state)
{
	return pru_ram_setup(state, &rcinpru0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, pru_ram_teardown)
		T(test_pru_ring_open_refuses_a_ring_outside_the_window),
		T(test_pru_ring_open_refuses_all_ones_and_an_impossible_tail),
		T(test_rcin_pru_skips_what_the_ring_held_before_open),
		T(test_rcin_pru_reads_pin_value_as_the_level_that_ended),
		T(test_rcin_pru_stamps_continue_from_one_read_to_the_next),
		T(test_rcin_pru_reads_across_the_end_of_the_ring),
		T(test_rcin_pru_hands_out_at_most_max_stamped_as_captured),
		T(test_rcin_pru_counts_a_corrupt_tail_once_and_resyncs),
		T(test_rcin_pru_counts_zero_widths_and_corrupt_levels_as_bad),
		T(test_rcin_pru_counts_a_repeated_level_as_a_lost_edge),
		T(test_rcin_pru_counts_an_overrun_when_the_pru_laps_it_mid_read),
		T(test_rcin_pru_cannot_see_a_whole_lap_between_reads),
		T(test_rcin_pru_joins_the_levels_either_side_of_an_unseen_lap),
		T(test_pru_ring_treats_a_quiet_pin_as_no_error),
		T(test_rcin_pru_check_running_reads_runstate),
		T(test_pru_ring_ppm_waveform_decodes_through_the_ring),
		T(test_pru_ring_sbus_waveform_decodes_through_the_ring),
		T(test_pru_ring_follows_a_live_ppm_stream_around_the_ring),
		T(test_pru_ring_survives_bursts_that_overflow_the_ring),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
