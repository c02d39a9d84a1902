// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the AioPRU firmware's eCAP ring, through the real backend
 * (hal/pru/rcin_aiopru.c on pru_ring.c), the real mmio backend
 * (hal/linux/mmio_linux.c) and the public rcin calls. PRU1's data RAM is a
 * memfd: the backend maps it the way a board maps /dev/mem ("/proc/self/fd/N"
 * at physical 0), and the test plays RcAioPRU.p on a mapping of its own, as
 * PRU1 would: at each rising edge an entry {high ticks, ticks of the low after
 * it} at its index, then a 16-bit store of that index in the tail, then the
 * index moves on (wrapping at 300); head is never read. The end-to-end tests
 * play receivers' waveforms (tests/unit/rc_wave.c) through an emulated eCAP
 * (difference mode, a 32-bit counter of 5 ns ticks, event 1 on a falling edge,
 * event 2 on a rising one) and decode what comes out with the real RC front
 * end (src/rc). The tests whose bodies both PRU rings share, the threaded ones
 * (the firmware on a second thread, in real time) among them, are in
 * pru_ring_harness.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <stdbool.h>

#include "pru/hal_pru.h"
#include "pru_ring_harness.h"
#include "rc/input.h"
#include "rc_wave.h"
#include "rcin_e2e.h"

#define WIN_LEN 0x2000         /* PRU1's 8 KB of data RAM */
#define RING_OFF 0x1000        /* where RcAioPRU.p keeps its ring in it */
#define ENTRIES RCIN_AIOPRU_RING_ENTRIES
#define TICKS_PER_US 200u

/* --- the firmware's side ------------------------------------------------- */

/*
 * RcAioPRU.p's start-up: head = tail = 0, its index 0. (It stores 0 in head;
 * the test stores a mark there instead, which the firmware never reads, to
 * see that nobody writes it.) The pin is idle high before a stream.
 */
static void fw_start(struct pru_ram *r)
{
	pru_ram_start_at(r, 0);
	r->index = 0;
	r->high_us = 5000;
}

/* A firmware that has been running: its newest entry is at tail. */
static void fw_running_at(struct pru_ram *r, uint16_t tail)
{
	fw_start(r);
	pru_ram_set_tail(r, tail);
	r->index = (uint16_t)((tail + 1) % ENTRIES);
}

/* RCIN_ECAP: CAP1 and CAP2 into the entry at the index, the index into the tail, then on. */
static void fw_entry_ticks(struct pru_ram *r, uint32_t high, uint32_t low)
{
	volatile uint32_t *e = pru_ram_entry(r, r->index);

	__atomic_store_n(&e[0], high, __ATOMIC_RELAXED);
	__atomic_store_n(&e[1], low, __ATOMIC_RELAXED);
	pru_ram_set_tail(r, r->index);
	r->index = (uint16_t)((r->index + 1) % ENTRIES);
}

/* The pin high for high_us, then low for low_us up to this rising edge. */
static void fw_entry(struct pru_ram *r, uint32_t high_us, uint32_t low_us)
{
	fw_entry_ticks(r, high_us * TICKS_PER_US, low_us * TICKS_PER_US);
}

/* A level as it ends: a high waits for the rising edge that ends the low after it. */
static void fw_level(struct pru_ram *r, bool high, uint32_t dur_us)
{
	if (high)
		r->high_us = dur_us;
	else
		fw_entry(r, r->high_us, dur_us);
}

/* --- single-threaded: the firmware writes, then the test reads ------------ */

static void test_rcin_aiopru_reads_an_entry_as_a_high_then_the_low_after_it(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	/* Just started: tail 0, and entry 0 not written yet. */
	struct rcin *in = pru_ram_open(r);
	fw_entry(r, 9000, 700);     /* entry 0: its high counted from the start */
	fw_entry(r, 400, 1600);     /* high 400 us, then low 1600 us */
	fw_entry(r, 350, 600);
	fw_entry(r, 20000, 500);
	assert_int_equal(rcin_read(in, p, 8, 50000000), 2);
	/* A low with the high after it: (1600, 350), (600, 20000). */
	assert_int_equal(p[0].low_us, 1600);
	assert_int_equal(p[0].high_us, 350);
	assert_int_equal(p[1].low_us, 600);
	assert_int_equal(p[1].high_us, 20000);
	/* Stamped at the falling edge; the last rising edge at now at the latest. */
	assert_int_equal(p[1].t_us, 50000000 - 500);
	assert_int_equal(p[0].t_us, 50000000 - 500 - 20000 - 600);
	const struct rcin_stats *st = rcin_stats(in);
	assert_int_equal(st->pulses, 2);
	assert_int_equal(st->bad + st->overruns, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_reads_the_newest_entry_as_soon_as_the_tail_names_it(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	fw_running_at(r, 41);
	struct rcin *in = pru_ram_open(r);
	fw_entry(r, 1200, 800);
	assert_int_equal(rcin_read(in, p, 8, 1000000), 0);
	/* The tail names this entry: its high makes a pair with the low before, now. */
	fw_entry(r, 1100, 900);
	assert_int_equal(rcin_read(in, p, 8, 1002000), 1);
	assert_int_equal(p[0].low_us, 800);
	assert_int_equal(p[0].high_us, 1100);
	assert_int_equal(rcin_read(in, p, 8, 1003000), 0);
	fw_entry(r, 1300, 700);
	assert_int_equal(rcin_read(in, p, 8, 1004000), 1);
	assert_int_equal(p[0].low_us, 900);
	assert_int_equal(p[0].high_us, 1300);
	rcin_close(in);
}

static void test_rcin_aiopru_skips_what_the_ring_held_before_open(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	for (int i = 0; i < 5; i++)
		fw_entry(r, 400, 600);
	struct rcin *in = pru_ram_open(r);

	assert_int_equal(rcin_read(in, p, 8, 1000000), 0);
	/* The low that ended the newest entry before open is not paired either. */
	fw_entry(r, 300, 700);
	assert_int_equal(rcin_read(in, p, 8, 1001000), 0);
	fw_entry(r, 350, 650);
	assert_int_equal(rcin_read(in, p, 8, 1002000), 1);
	assert_int_equal(p[0].low_us, 700);
	assert_int_equal(p[0].high_us, 350);
	rcin_close(in);
}

static void test_rcin_aiopru_rounds_ticks_carrying_the_rest_to_the_next_level(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 1000, 1000);    /* entry 0, skipped */
	/*
	 * Levels of 1.5 us: rounded alone each would be 2 us, and a pair 4 us
	 * for 3; with the rest carried they come out 2, 1, 2, 1, ... so every
	 * pair, and every stamp's step, is the true 3 us.
	 */
	for (int i = 0; i < 4; i++)
		fw_entry_ticks(r, 300, 300);
	assert_int_equal(rcin_read(in, p, 8, 2000000), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(p[i].low_us, 1);
		assert_int_equal(p[i].high_us, 2);
		if (i > 0)
			assert_int_equal(p[i].t_us - p[i - 1].t_us, 3);
	}
	/* A level of the whole 32-bit count, 21.47 s, does not overflow. */
	fw_entry_ticks(r, UINT32_MAX, 300);
	assert_int_equal(rcin_read(in, p, 8, 30000000), 1);
	assert_int_equal(p[0].low_us, 1);
	assert_in_range(p[0].high_us, 21474836, 21474837);
	assert_int_equal(rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_stamps_continue_from_one_read_to_the_next(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 400, 600);      /* entry 0, skipped */
	fw_entry(r, 400, 600);
	fw_entry(r, 400, 600);
	assert_int_equal(rcin_read(in, p, 8, 10000000), 1);
	assert_int_equal(p[0].t_us, 10000000 - 600);
	fw_entry(r, 1500, 500);
	assert_int_equal(rcin_read(in, p, 8, 10003000), 1);
	assert_int_equal(p[0].t_us, 10000000 + 1500);
	/* Not after now: the stamp before was late (the pin was idle). */
	fw_entry(r, 3000, 500);
	assert_int_equal(rcin_read(in, p, 8, 10004000), 1);
	assert_int_equal(p[0].t_us, 10004000 - 500);
	/*
	 * An idle read: the entry that comes next ended after it, its high
	 * maybe not (the pin may have been low at the read already).
	 */
	assert_int_equal(rcin_read(in, p, 8, 10009000), 0);
	fw_entry(r, 400, 400);
	assert_int_equal(rcin_read(in, p, 8, 10010000), 1);
	assert_int_equal(p[0].t_us, 10009000 - 800 + 400);
	rcin_close(in);
}

static void test_rcin_aiopru_does_not_stamp_late_a_high_that_ended_before_an_idle_read(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 400, 600);      /* entry 0, skipped */
	/* Read at the rising edge itself: the stamps are exact from here. */
	fw_entry(r, 1000, 1000);
	assert_int_equal(rcin_read(in, p, 8, 20000000), 0);
	/* High 20000000..20001000, low to 20002000: read between the two. */
	assert_int_equal(rcin_read(in, p, 8, 20001500), 0);
	fw_entry(r, 1000, 1000);
	assert_int_equal(rcin_read(in, p, 8, 20002500), 1);
	/*
	 * The true falling edge, not the idle read's time: the ring showed that
	 * high only with the low after it, so the read before bounds the low.
	 */
	assert_int_equal(p[0].t_us, 20001000);
	rcin_close(in);
}

static void test_rcin_aiopru_reads_across_the_end_of_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];

	fw_running_at(r, ENTRIES - 10);
	struct rcin *in = pru_ram_open(r);

	for (uint32_t i = 0; i < 50; i++)
		fw_entry(r, 1000 + i, 300 + i);
	assert_int_equal(pru_ram_tail(r), 40);
	assert_int_equal(rcin_read(in, p, 64, 60000000), 49);
	for (int i = 0; i < 49; i++) {
		assert_int_equal(p[i].low_us, 300 + i);
		assert_int_equal(p[i].high_us, 1000 + i + 1);
	}
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_hands_out_at_most_max_stamped_as_captured(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[ENTRIES];

	fw_running_at(r, 123);
	struct rcin *in = pru_ram_open(r);

	/* A full ring: 299 entries, 298 pairs and a low waiting for its high. */
	for (uint32_t i = 0; i < ENTRIES - 1; i++)
		fw_entry(r, 900 + i, i == ENTRIES - 2 ? 5000 : 200 + i);
	size_t got = 0;
	for (size_t max = 1; got < ENTRIES - 2; max = max % 6 + 1) {
		int n = rcin_read(in, p + got, max, 70000000 + got);
		assert_true(n > 0 && (size_t)n <= max);
		got += (size_t)n;
	}
	assert_int_equal(got, ENTRIES - 2);
	assert_int_equal(rcin_read(in, p, 1, 70001000), 0);
	/* One capture, at 70000000, that ended with that low. */
	assert_int_equal(p[ENTRIES - 3].t_us, 70000000 - 5000);
	for (int i = 0; i < ENTRIES - 2; i++) {
		assert_int_equal(p[i].low_us, 200 + i);
		assert_int_equal(p[i].high_us, 900 + i + 1);
		if (i > 0)
			assert_int_equal(p[i].t_us - p[i - 1].t_us, p[i].low_us + p[i].high_us);
	}
	/* The waiting low makes the first pair with the next high. */
	fw_entry(r, 700, 300);
	assert_int_equal(rcin_read(in, p, 1, 70002000), 1);
	assert_int_equal(p[0].low_us, 5000);
	assert_int_equal(p[0].high_us, 700);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_counts_a_corrupt_tail_once_and_resyncs(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 400, 600);      /* entry 0, skipped */
	fw_entry(r, 400, 600);
	fw_entry(r, 400, 650);
	fw_entry(r, 350, 700);
	assert_int_equal(rcin_read(in, p, 1, 80000000), 1);   /* one still queued */
	pru_ram_set_tail(r, 4242);
	assert_int_equal(rcin_read(in, p, 8, 80001000), 1);   /* the queued one */
	assert_int_equal(p[0].low_us, 650);
	assert_int_equal(rcin_read(in, p, 8, 80002000), 0);
	assert_int_equal(rcin_stats(in)->bad, 1);
	/* Back in range: what the ring holds now is not trusted, only what follows. */
	fw_running_at(r, 123);
	fw_entry(r, 111, 222);
	assert_int_equal(rcin_read(in, p, 8, 80003000), 0);
	fw_entry(r, 700, 300);
	fw_entry(r, 800, 200);
	fw_entry(r, 900, 100);
	assert_int_equal(rcin_read(in, p, 8, 80004000), 2);
	assert_int_equal(p[0].low_us, 300);
	assert_int_equal(p[0].high_us, 800);
	assert_int_equal(p[1].low_us, 200);
	assert_int_equal(p[1].high_us, 900);
	assert_int_equal(rcin_stats(in)->bad, 1);
	assert_int_equal(rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_counts_zero_widths_as_bad(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	fw_entry(r, 400, 600);      /* entry 0, skipped */
	fw_entry(r, 1000, 600);
	fw_entry(r, 400, 500);
	fw_entry_ticks(r, 0, 300 * TICKS_PER_US);      /* no high at all */
	fw_entry_ticks(r, 300 * TICKS_PER_US, 50);     /* a glitch of 0.25 us */
	fw_entry(r, 900, 100);
	fw_entry(r, 200, 100);
	assert_int_equal(rcin_read(in, p, 8, 90000000), 3);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[0].high_us, 400);
	/* A zero breaks the pair it is in; pairing resumes at the next low. */
	assert_int_equal(p[1].low_us, 300);
	assert_int_equal(p[1].high_us, 300);
	assert_int_equal(p[2].low_us, 100);
	assert_int_equal(p[2].high_us, 200);
	assert_int_equal(rcin_stats(in)->bad, 2);
	assert_int_equal(rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

/* The PRU writes 280 entries. */
static void lap_280(struct pru_ram *r)
{
	for (int i = 0; i < 280; i++)
		fw_entry(r, 1234, 4321);
}

static void test_rcin_aiopru_counts_an_overrun_when_the_pru_laps_it_mid_read(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = pru_ram_open(r);

	for (int i = 0; i < 50; i++)
		fw_entry(r, 400, 600);
	pru_ram_lap_after_read(r, 10, lap_280);
	/* 49 unread and 280 more written while they were copied: 29 overwritten. */
	assert_int_equal(rcin_read(in, p, 64, 99000000), 0);
	r->spy.on_read = NULL;
	assert_int_equal(rcin_stats(in)->overruns, 1);
	/* Again from the entry after the new tail. */
	fw_entry(r, 300, 700);
	fw_entry(r, 350, 650);
	assert_int_equal(rcin_read(in, p, 64, 99001000), 1);
	assert_int_equal(p[0].low_us, 700);
	assert_int_equal(p[0].high_us, 350);
	rcin_close(in);
}

static void test_rcin_aiopru_sees_no_overrun_when_the_pru_stays_in_the_free_entries(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = pru_ram_open(r);

	/* 19 unread and 280 more while they are copied: 299, one short of the lap. */
	fw_entry(r, 400, 600);      /* entry 0, skipped */
	for (int i = 0; i < 19; i++)
		fw_entry(r, 400, 600);
	pru_ram_lap_after_read(r, 10, lap_280);
	assert_int_equal(rcin_read(in, p, 64, 99000000), 18);
	r->spy.on_read = NULL;
	assert_int_equal(rcin_stats(in)->overruns, 0);
	/* The 280 are whole, read at the next call. */
	assert_int_equal(rcin_read(in, p, 64, 99001000), 64);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[0].high_us, 1234);
	assert_int_equal(p[1].low_us, 4321);
	rcin_close(in);
}

static void test_rcin_aiopru_cannot_see_a_whole_lap_between_reads(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = pru_ram_open(r);

	/*
	 * 320 entries between two reads: the firmware never looks at head, so
	 * the ring shows the last 20 and looks consistent. This is the limit
	 * that sets the rcin thread's rate (hal_pru.h).
	 */
	fw_entry(r, 400, 600);      /* entry 0, skipped */
	for (uint32_t i = 0; i < 320; i++)
		fw_entry(r, 1000, 100 + i);
	assert_int_equal(rcin_read(in, p, 64, 99500000), 19);
	assert_int_equal(p[0].low_us, 100 + 300);
	assert_int_equal(p[18].low_us, 100 + 318);
	assert_int_equal(rcin_stats(in)->overruns + rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_aiopru_joins_the_levels_either_side_of_an_unseen_lap(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	/*
	 * A low waits for its high; then 301 entries (a whole lap and one) come
	 * before the next read. The ring looks as if one came, and the low
	 * pairs with a high from 300 entries later: one bogus pair, which the
	 * decoders reject as they reject noise.
	 */
	fw_entry(r, 400, 600);      /* entry 0, skipped */
	fw_entry(r, 400, 600);
	assert_int_equal(rcin_read(in, p, 8, 99600000), 0);
	for (int i = 0; i < ENTRIES + 1; i++)
		fw_entry(r, 1000, 1000);
	assert_int_equal(rcin_read(in, p, 8, 99800000), 1);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[0].high_us, 1000);
	assert_int_equal(rcin_stats(in)->overruns + rcin_stats(in)->bad, 0);
	rcin_close(in);
}

/* --- end to end: a receiver's waveform through the eCAP into the decoders - */

/* The eCAP's counter: 5 ns ticks since the firmware started, 32 bits. */
static uint64_t ticks_at(uint64_t t_ns)
{
	return t_ns / 5u;
}

/*
 * The firmware starts at t0_us and the wave plays from then on. The eCAP
 * captures the time since its last event at each falling edge (CAP1) and,
 * when a falling edge came first, at each rising edge (CAP2); at the rising
 * edge the firmware writes the entry. The test reads the ring every poll_us
 * and gives every pair to the decoders.
 */
static size_t play_ring(struct pru_ram *r, struct rcin *in, uint64_t t0_us, uint32_t poll_us)
{
	struct rc_input dec;
	struct rcin_pulse p[64];
	uint64_t t_ns = t0_us * 1000u, last_event_ns = t_ns, last_pair_t = 0;
	uint32_t cap1 = 0;
	bool fell = false;
	size_t i = 0, nf = 0;

	rc_input_init(&dec);
	for (uint64_t now = t0_us + poll_us;; now += poll_us) {
		while (i < wave.n && (t_ns + wave.dur_ns[i]) / 1000u <= now) {
			t_ns += wave.dur_ns[i];
			uint32_t since = (uint32_t)(ticks_at(t_ns) - ticks_at(last_event_ns));
			if (wave.high[i]) {
				cap1 = since;
				last_event_ns = t_ns;
				fell = true;
			} else if (fell) {
				fw_entry_ticks(r, cap1, since);
				last_event_ns = t_ns;
				fell = false;
			}
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

static const uint16_t dsm_ch[12] = { 1500, 1100, 1900, 1300, 903, 2097,
				     1234, 1777, 1000, 2000, 1501, 1499 };

static void test_rcin_aiopru_dsm_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;
	uint8_t bytes[16];

	/* A 12-channel DSMX satellite: 11-bit, two frames of 7 words, every 11 ms. */
	struct rcin *in = pru_ram_open(r);
	rc_wave_init(&wave);
	rc_wave_uart_idle(&wave, &rc_wave_dsm_uart, 5000);
	for (int k = 0; k < 30; k++) {
		rc_wave_dsm_frame(bytes, dsm_ch, 12, 11, (unsigned int)k & 1);
		rc_wave_uart_bytes(&wave, &rc_wave_dsm_uart, bytes, 16);
		/* 160 bits at 115200 baud are 1389 us of the 11 ms. */
		rc_wave_uart_idle(&wave, &rc_wave_dsm_uart, 11000 - 1389);
	}
	wave_end();
	size_t nf = play_ring(r, in, 300000000, 1000);
	/*
	 * Detection, the second frame of the twelve channels and the lock take
	 * the first few (rc/dsm.h, rc/input.h).
	 */
	assert_true(nf >= 30 - 8);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_DSM, dsm_ch, 12);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static const struct pru_ring_fw aiopru = {
	.open = rcin_aiopru_open,
	.win_len = WIN_LEN,
	.ring_off = RING_OFF,
	.ring_bytes = RCIN_AIOPRU_BYTES,
	.entries_per_pair = 1,
	.pairs_per_read_max = ENTRIES - 1,
	/* 25 Hz: a burst of 500 pairs takes some 25 ms, and 300 entries come in 15 */
	.burst_poll_us = 40000,
	.start = fw_start,
	.run_at = fw_running_at,
	.level = fw_level,
	.play = play_ring,
};

static int setup(void **state)
{
	return pru_ram_setup(state, &aiopru);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, pru_ram_teardown)
		T(test_pru_ring_open_refuses_a_ring_outside_the_window),
		T(test_pru_ring_open_refuses_all_ones_and_an_impossible_tail),
		T(test_rcin_aiopru_reads_an_entry_as_a_high_then_the_low_after_it),
		T(test_rcin_aiopru_reads_the_newest_entry_as_soon_as_the_tail_names_it),
		T(test_rcin_aiopru_skips_what_the_ring_held_before_open),
		T(test_rcin_aiopru_rounds_ticks_carrying_the_rest_to_the_next_level),
		T(test_rcin_aiopru_stamps_continue_from_one_read_to_the_next),
		T(test_rcin_aiopru_does_not_stamp_late_a_high_that_ended_before_an_idle_read),
		T(test_rcin_aiopru_reads_across_the_end_of_the_ring),
		T(test_rcin_aiopru_hands_out_at_most_max_stamped_as_captured),
		T(test_rcin_aiopru_counts_a_corrupt_tail_once_and_resyncs),
		T(test_rcin_aiopru_counts_zero_widths_as_bad),
		T(test_rcin_aiopru_counts_an_overrun_when_the_pru_laps_it_mid_read),
		T(test_rcin_aiopru_sees_no_overrun_when_the_pru_stays_in_the_free_entries),
		T(test_rcin_aiopru_cannot_see_a_whole_lap_between_reads),
		T(test_rcin_aiopru_joins_the_levels_either_side_of_an_unseen_lap),
		T(test_pru_ring_treats_a_quiet_pin_as_no_error),
		T(test_pru_ring_ppm_waveform_decodes_through_the_ring),
		T(test_pru_ring_sbus_waveform_decodes_through_the_ring),
		T(test_rcin_aiopru_dsm_waveform_decodes_through_the_ring),
		T(test_pru_ring_follows_a_live_ppm_stream_around_the_ring),
		T(test_pru_ring_survives_bursts_that_overflow_the_ring),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
