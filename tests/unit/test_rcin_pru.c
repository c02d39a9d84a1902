// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the BeagleBone PRU's edge ring, through the real backend
 * (hal/pru/rcin_pru.c), the real mmio backend (hal/linux/mmio_linux.c) and the
 * public rcin calls. The PRU shared RAM is a memfd: the backend maps it the
 * way a board maps /dev/mem ("/proc/self/fd/N" at physical 0), and the test
 * plays the rcinpru0 firmware on a mapping of its own, as the PRU would: an
 * entry {pin_value = the level that ended, delta_t = its length in us}, then
 * a 16-bit store of the new tail; head is never read. The threaded tests run
 * that firmware on a second thread, in real time, while the test reads.
 * The end-to-end tests play receivers' waveforms (tests/unit/rc_wave.c) into
 * the ring and decode what comes out with the real RC front end (src/rc).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "linux/hal_linux.h"
#include "mmio_spy.h"
#include "pru/hal_pru.h"
#include "rc/input.h"
#include "rc_wave.h"
#include "rcin_e2e.h"

#define WIN_LEN 0x3000         /* the PRU-ICSS's 12 KB of shared RAM */
#define RING_OFF 0x2000        /* where rcinpru0 keeps its ring in it */
#define ENTRIES RCIN_PRU_RING_ENTRIES
#define HEAD_MARK 0xBEEF       /* in head's half of word 0: nobody may write it */

struct pru_ram {
	int fd;
	struct mmio *win;           /* the backend's, through mmio_linux */
	struct spy *spy;            /* the same, seen through a spy (below) */
	volatile uint32_t *pru;     /* the PRU's side */
	struct fw_thread *live;     /* a firmware thread, stopped by teardown */
};

/* --- the firmware's side ------------------------------------------------- */

static volatile uint16_t *fw_tail_ptr(struct pru_ram *r)
{
	return (volatile uint16_t *)&r->pru[RING_OFF / 4] + 1;
}

/* What rcinpru0 does at start: tail = 20 (head is left as it is). */
static void fw_start(struct pru_ram *r, uint16_t tail)
{
	((volatile uint16_t *)&r->pru[RING_OFF / 4])[0] = HEAD_MARK;
	__atomic_store_n(fw_tail_ptr(r), tail, __ATOMIC_RELEASE);
}

/* add_to_ring_buffer(): the entry, then the tail it reads back + 1. */
static void fw_entry(struct pru_ram *r, uint16_t pin_value, uint16_t delta_us)
{
	uint16_t tail = __atomic_load_n(fw_tail_ptr(r), __ATOMIC_RELAXED);
	volatile uint32_t *e = &r->pru[(RING_OFF + 4 + 4 * (size_t)tail) / 4];

	__atomic_store_n(e, (uint32_t)pin_value | (uint32_t)delta_us << 16, __ATOMIC_RELAXED);
	__atomic_store_n(fw_tail_ptr(r), (uint16_t)((tail + 1) % ENTRIES), __ATOMIC_RELEASE);
}

/* The pin low for low_us, then high for high_us. */
static void fw_pair(struct pru_ram *r, uint16_t low_us, uint16_t high_us)
{
	fw_entry(r, 0, low_us);
	fw_entry(r, 1, high_us);
}

static uint16_t head_half(struct pru_ram *r)
{
	return ((volatile uint16_t *)&r->pru[RING_OFF / 4])[0];
}

/* --- fixture ------------------------------------------------------------- */

static int setup(void **state)
{
	struct pru_ram *r = calloc(1, sizeof(*r));
	char path[64];

	assert_non_null(r);
	r->fd = memfd_create("fulmar-pru-shared-ram", MFD_CLOEXEC);
	assert_true(r->fd >= 0);
	assert_int_equal(ftruncate(r->fd, WIN_LEN), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->fd);
	const struct mmio_config cfg = { .mem_path = path, .phys_base = 0, .len = WIN_LEN };
	assert_int_equal(mmio_linux_open(&cfg, "/sys", &r->win), 0);
	r->pru = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	assert_true(r->pru != MAP_FAILED);
	r->spy = calloc(1, sizeof(*r->spy));
	assert_non_null(r->spy);
	spy_init(r->spy, r->win);
	r->spy->m.len = WIN_LEN;
	fw_start(r, 20);
	*state = r;
	return 0;
}

static void fw_thread_stop(struct pru_ram *r);

static int teardown(void **state)
{
	struct pru_ram *r = *state;

	/* A failed test leaves its firmware thread running: stop it before unmapping. */
	fw_thread_stop(r);

	/* Whatever a test did, the backend never wrote the window. */
	assert_int_equal(r->spy->writes, 0);
	assert_int_equal(head_half(r), HEAD_MARK);
	free(r->spy);
	munmap((void *)r->pru, WIN_LEN);
	mmio_close(r->win);
	close(r->fd);
	free(r);
	return 0;
}

static struct rcin *open_rcin(struct pru_ram *r)
{
	struct rcin *in = NULL;

	assert_int_equal(rcin_pru_open(&r->spy->m, RING_OFF, &in), 0);
	assert_non_null(in);
	return in;
}

/* --- single-threaded: the firmware writes, then the test reads ------------ */

static void test_rcin_pru_open_refuses_a_ring_outside_the_window(void **state)
{
	struct pru_ram *r = *state;
	struct rcin *in = NULL;

	assert_int_equal(rcin_pru_open(r->win, WIN_LEN - RCIN_PRU_BYTES + 4, &in), -EINVAL);
	assert_int_equal(rcin_pru_open(r->win, RING_OFF + 2, &in), -EINVAL);
	assert_int_equal(rcin_pru_open(r->win, WIN_LEN + 4096, &in), -EINVAL);
	assert_null(in);
}

static void test_rcin_pru_open_refuses_all_ones_and_an_impossible_tail(void **state)
{
	struct pru_ram *r = *state;
	struct rcin *in = NULL;

	memset((void *)r->pru, 0xFF, WIN_LEN);
	assert_int_equal(rcin_pru_open(r->win, RING_OFF, &in), -ENXIO);
	fw_start(r, ENTRIES);
	assert_int_equal(rcin_pru_open(r->win, RING_OFF, &in), -EPROTO);
	fw_start(r, 0xFFFF);
	assert_int_equal(rcin_pru_open(r->win, RING_OFF, &in), -EPROTO);
	assert_null(in);
	fw_start(r, ENTRIES - 1);
	assert_int_equal(rcin_pru_open(r->win, RING_OFF, &in), 0);
	rcin_close(in);
}

static void test_rcin_pru_skips_what_the_ring_held_before_open(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	for (int i = 0; i < 5; i++)
		fw_pair(r, 600, 400);
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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

	fw_start(r, ENTRIES - 10);
	struct rcin *in = open_rcin(r);

	for (uint16_t i = 0; i < 50; i++)
		fw_pair(r, (uint16_t)(300 + i), (uint16_t)(1000 + i));
	assert_int_equal(__atomic_load_n(fw_tail_ptr(r), __ATOMIC_RELAXED), 90);
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

	fw_pair(r, 600, 400);
	fw_pair(r, 650, 350);
	assert_int_equal(rcin_read(in, p, 1, 80000000), 1);   /* one still queued */
	fw_start(r, 4242);
	assert_int_equal(rcin_read(in, p, 8, 80001000), 1);   /* the queued one */
	assert_int_equal(p[0].low_us, 650);
	assert_int_equal(rcin_read(in, p, 8, 80002000), 0);
	assert_int_equal(rcin_stats(in)->bad, 1);
	/* Back in range: what the ring holds now is not trusted, only what follows. */
	fw_start(r, 123);
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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

/* The hook: after the backend's 10th entry read, the PRU writes 250 entries. */
struct lap {
	struct pru_ram *r;
	unsigned int entry_reads;
};

static void lap_during_read(struct spy *s, size_t off)
{
	struct lap *l = s->ctx;

	if (off >= RING_OFF + 4 && off < RING_OFF + RCIN_PRU_BYTES && ++l->entry_reads == 10)
		for (int i = 0; i < 125; i++)
			fw_pair(l->r, 1234, 4321);
}

static void test_rcin_pru_counts_an_overrun_when_the_pru_laps_it_mid_read(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = open_rcin(r);

	struct lap lap = { .r = r };

	for (int i = 0; i < 50; i++)
		fw_pair(r, 600, 400);
	r->spy->ctx = &lap;
	r->spy->on_read = lap_during_read;
	/* 100 unread and 250 more written while they were copied: 50 overwritten. */
	assert_int_equal(rcin_read(in, p, 64, 99000000), 0);
	r->spy->on_read = NULL;
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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

static void test_rcin_pru_treats_a_quiet_pin_as_no_error(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = open_rcin(r);

	for (uint64_t t = 0; t < 10000; t++)
		assert_int_equal(rcin_read(in, p, 8, 1000000 + t * 1000), 0);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_pru_check_running_reads_runstate(void **state)
{
	struct pru_ram *r = *state;
	/* A stand-in for the PRU control registers at the end of the window. */
	const size_t ctrl = WIN_LEN - 0x100;

	r->pru[ctrl / 4] = (1u << 15) | (1u << 1);
	assert_int_equal(pru_check_running(r->win, ctrl), 0);
	r->pru[ctrl / 4] = 1u << 1;     /* enabled, but halted */
	assert_int_equal(pru_check_running(r->win, ctrl), -EHOSTDOWN);
	r->pru[ctrl / 4] = 0xFFFFFFFFu;
	assert_int_equal(pru_check_running(r->win, ctrl), -ENXIO);
	assert_int_equal(pru_check_running(r->win, WIN_LEN), -EINVAL);
	assert_int_equal(pru_check_running(r->win, 2), -EINVAL);
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

static void test_rcin_pru_ppm_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;

	for (int pulse_high = 0; pulse_high <= 1; pulse_high++) {
		struct rcin *in = open_rcin(r);
		rc_wave_init(&wave);
		rc_wave_level(&wave, !pulse_high, 30000000);
		for (int k = 0; k < 30; k++)
			rc_wave_ppm_frame(&wave, ppm_ch, 8, 400, 22500, pulse_high);
		wave_end();
		size_t nf = play_ring(r, in, 100000000, 1000);
		/* Lock takes the first few frames (rc/input.h). */
		assert_true(nf >= 30 - 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels(&frames[k], RC_PROTOCOL_PPM, ppm_ch, 8);
		assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
		rcin_close(in);
	}
}

static void test_rcin_pru_sbus_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;
	uint8_t bytes[25];

	/*
	 * SBUS from pulses tells the pin's levels apart, as PPM-sum does not:
	 * this is the test of reading pin_value as the level that ENDED.
	 */
	struct rcin *in = open_rcin(r);
	rc_wave_init(&wave);
	rc_wave_uart_idle(&wave, &rc_wave_sbus_uart, 5000);
	rc_wave_sbus_frame(bytes, sbus_ch, 0);
	for (int k = 0; k < 30; k++) {
		rc_wave_uart_bytes(&wave, &rc_wave_sbus_uart, bytes, 25);
		rc_wave_uart_idle(&wave, &rc_wave_sbus_uart, 14000 - 3000);
	}
	wave_end();
	size_t nf = play_ring(r, in, 200000000, 1000);
	assert_true(nf >= 30 - 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

/* --- two threads: the firmware runs in real time while the test reads ---- */

struct fw_thread {
	struct pru_ram *r;
	uint64_t t0_us;             /* the first level starts here */
	size_t pairs;               /* how many to play */
	bool burst;                 /* bursts of BURST_PAIRS */
	pthread_t th;
	atomic_bool done;
	atomic_bool stop;
	/*
	 * Pairs the reader has taken, for the PPM stream: its sync gaps stretch
	 * rather than the PRU lapping a reader that a busy host runs late, so
	 * the test's verdict does not depend on the host. Lapping is tested
	 * deterministically above, and by the bursts below.
	 */
	atomic_size_t taken;
};

#define BURST_PAIRS 500
#define BURST_GAP_US 5000

/* PPM-sum of 8 channels in 20 ms frames: pair k of a frame is (300, ch - 300). */
static void ppm_pair(size_t k, uint16_t *low, uint16_t *high)
{
	size_t frame = k / 9, i = k % 9;

	*low = 300;
	if (i < 8) {
		*high = (uint16_t)(1000 + (frame * 37 + i * 111) % 1000 - 300);
	} else {
		uint32_t used = 0;
		for (size_t j = 0; j < 8; j++)
			used += 1000 + (frame * 37 + j * 111) % 1000;
		*high = (uint16_t)(20000 - used - 300);
	}
}

/*
 * The bursts: levels of 10..41 us (SBUS's bit is 10 us, the fastest RC signal
 * there is), each pair saying which it is, so a pair made of two shows.
 */
static void burst_pair(size_t k, uint16_t *low, uint16_t *high)
{
	*low = (uint16_t)(10 + k % 32);
	*high = (uint16_t)(10 + (k * 7 + 3) % 32);
}

static void spin_until_us(uint64_t t_us)
{
	while (mono_us() < t_us)
		;
}

static void *fw_run(void *arg)
{
	struct fw_thread *f = arg;
	uint64_t t = f->t0_us;

	for (size_t k = 0; k < f->pairs && !atomic_load(&f->stop); k++) {
		uint16_t low, high;
		if (f->burst) {
			if (k % BURST_PAIRS == 0) {
				t += BURST_GAP_US;
				sleep_until_us(t);
			}
			burst_pair(k, &low, &high);
			t += low;
			spin_until_us(t);
			fw_entry(f->r, 0, low);
			t += high;
			spin_until_us(t);
			fw_entry(f->r, 1, high);
			continue;
		}
		ppm_pair(k, &low, &high);
		t += low;
		sleep_until_us(t);
		fw_entry(f->r, 0, low);
		t += high;
		sleep_until_us(t);
		/*
		 * A reader that has fallen half a ring behind: the transmitter's
		 * sync gap grows (up to 60 ms more) until it catches up, and the
		 * PRU, measuring the level, records its true length.
		 */
		if (k % 9 == 8) {
			/* at most what the entry's 16 bits hold (a gap of 7.7 ms
			 * plus 60 ms would not: a loaded host that kept this thread
			 * waiting that long wrapped it to a short one) */
			uint64_t end = t + 65535u - high;
			while (k + 1 - atomic_load(&f->taken) >= ENTRIES / 2 - 20 &&
			       !atomic_load(&f->stop) && mono_us() < end)
				sleep_until_us(mono_us() + 200);
			uint64_t now = mono_us();
			if (now > t) {
				uint64_t gap = high + (now - t);
				high = (uint16_t)(gap < 65535u ? gap : 65535u);
				t = now;
			}
		}
		fw_entry(f->r, 1, high);
	}
	atomic_store(&f->done, true);
	return NULL;
}

static void fw_thread_start(struct pru_ram *r, struct fw_thread *f)
{
	f->r = r;
	assert_int_equal(pthread_create(&f->th, NULL, fw_run, f), 0);
	r->live = f;
}

static void fw_thread_stop(struct pru_ram *r)
{
	if (!r->live)
		return;
	atomic_store(&r->live->stop, true);
	pthread_join(r->live->th, NULL);
	r->live = NULL;
}

static void test_rcin_pru_follows_a_live_ppm_stream_around_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	/* Not on this stack: a failed assertion leaves the thread for teardown to stop. */
	static struct fw_thread f;
	size_t k = 0, close_stamps = 0, nf = 0, stale = 0;
	uint64_t nominal = 0, last_t = 0, slack = 0;
	struct rc_input dec;

	memset(&f, 0, sizeof f);
	f.pairs = 9 * 30;
	rc_input_init(&dec);
	struct rcin *in = open_rcin(r);
	f.t0_us = mono_us() + 2000;
	nominal = f.t0_us;
	fw_thread_start(r, &f);
	/* The rcin thread at 1 kHz, on absolute deadlines. */
	for (uint64_t tick = mono_us(); k < f.pairs; tick += 1000) {
		sleep_until_us(tick);
		bool done = atomic_load(&f.done);
		uint64_t now = mono_us();
		int n = rcin_read(in, p, 64, now);
		/*
		 * An edge that came between now and the ring's tail being read
		 * is stamped at now, that much early, and the stamps after it
		 * keep the offset.
		 */
		if (mono_us() - now > slack)
			slack = mono_us() - now;
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, k++) {
			uint16_t low, high;
			ppm_pair(k, &low, &high);
			assert_int_equal(p[i].low_us, low);
			if (k % 9 == 8) {      /* a sync gap: longer where the reader fell behind */
				assert_true(p[i].high_us >= high);
				high = p[i].high_us;
				/* so long that the decoder drops the frame it ends as
				 * stale; the first sync ends none (seen long under
				 * qemu-arm at load 11, the reader late from the start) */
				stale += k > 8 && (uint32_t)low + high > RC_STALE_US;
			} else {
				assert_int_equal(p[i].high_us, high);
			}
			nominal += (uint64_t)low + high;
			/* Not before the edge (but for that), not after the read, not backwards. */
			assert_true(p[i].t_us + slack >= nominal);
			assert_true(p[i].t_us <= now);
			assert_true(p[i].t_us >= last_t);
			last_t = p[i].t_us;
			if (p[i].t_us - nominal <= 2000)
				close_stamps++;
			/* The frame a sync ends: the 8 channels of that frame. */
			struct rc_frame fr;
			if (rc_input_pulse(&dec, p[i].low_us, p[i].high_us, p[i].t_us, &fr)) {
				uint16_t ch[8];
				for (size_t j = 0; j < 8; j++) {
					ppm_pair(k - 8 + j, &low, &high);
					ch[j] = (uint16_t)(low + high);
				}
				assert_int_equal(k % 9, 8);
				assert_channels(&fr, RC_PROTOCOL_PPM, ch, 8);
				nf++;
			}
		}
		atomic_store(&f.taken, k);
		if (done && n == 0 && k < f.pairs)
			fail_msg("the ring lost pairs: %zu of %zu", k, f.pairs);
	}
	fw_thread_stop(r);
	assert_int_equal(k, f.pairs);
	/* 270 pairs are 540 levels: the ring went round. */
	assert_true(2 * f.pairs > ENTRIES);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	/* How close the stamps came depends on how busy the host is: a figure, not a verdict. */
	print_message("live stream: %zu of %zu stamps within 2 ms of the edge, %zu frames, "
		      "%zu stale\n", close_stamps, f.pairs, nf, stale);
	/*
	 * Every frame is accounted for, whatever the host's load did to the
	 * gaps: the 30 syncs end 29 frames (the first sync only starts one).
	 * The first is refused, as a channel count not yet seen twice; each
	 * other is decoded or dropped as stale. How many decoded ones came out
	 * depends on locking, which a stall of more than RC_INPUT_LOCK_TIMEOUT_US
	 * undoes: a figure, above, and not none.
	 */
	const struct rc_stats *ppm = rc_input_stats(&dec, RC_PROTOCOL_PPM);
	assert_int_equal(ppm->rejected[RC_REJECT_CHANNELS], 1);
	assert_int_equal(rc_stats_rejected(ppm), 1);
	assert_int_equal(ppm->stale_frames, stale);
	assert_int_equal(ppm->frames + ppm->stale_frames + 1, 30 - 1);
	assert_true(nf > 0 && nf <= ppm->frames);
	rcin_close(in);
}

static void test_rcin_pru_survives_bursts_that_overflow_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[160];
	static struct fw_thread f;   /* not on this stack, as above */
	size_t got = 0, mixed = 0, captures = 0;
	uint64_t last_t = 0;

	memset(&f, 0, sizeof f);
	f.pairs = 12 * BURST_PAIRS;
	f.burst = true;
	struct rcin *in = open_rcin(r);
	f.t0_us = mono_us();
	fw_thread_start(r, &f);
	/* Read at 100 Hz, too slowly for SBUS: some 400 levels come in 10 ms. */
	for (uint64_t tick = mono_us();; tick += 10000) {
		sleep_until_us(tick);
		bool done = atomic_load(&f.done);
		uint64_t now = mono_us();
		int n = rcin_read(in, p, 160, now);
		assert_true(n >= 0 && n <= 150);
		for (int i = 0; i < n; i++) {
			uint16_t low = (uint16_t)p[i].low_us, high;
			assert_true(low >= 10 && low < 42);
			assert_true(p[i].high_us >= 10 && p[i].high_us < 42);
			burst_pair((size_t)(low - 10), &low, &high);
			/* A low and a high either side of a lap the ring cannot show. */
			if (p[i].high_us != high)
				mixed++;
			assert_true(p[i].t_us <= now);
			assert_true(p[i].t_us >= last_t);
			last_t = p[i].t_us;
		}
		captures += n > 0;
		got += (size_t)n;
		if (done && n == 0)
			break;
	}
	fw_thread_stop(r);
	print_message("bursts: %zu of %zu pairs read in %zu reads, %zu joined across a lap, "
		      "%llu overruns seen\n", got, f.pairs, captures, mixed,
		      (unsigned long long)rcin_stats(in)->overruns);
	/* The ring overflowed, and what came through is almost all whole pairs. */
	assert_true(got > 0 && got < f.pairs);
	assert_true(mixed * 10 <= got);
	assert_int_equal(rcin_stats(in)->bad, 0);
	rcin_close(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_rcin_pru_open_refuses_a_ring_outside_the_window),
		T(test_rcin_pru_open_refuses_all_ones_and_an_impossible_tail),
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
		T(test_rcin_pru_treats_a_quiet_pin_as_no_error),
		T(test_rcin_pru_check_running_reads_runstate),
		T(test_rcin_pru_ppm_waveform_decodes_through_the_ring),
		T(test_rcin_pru_sbus_waveform_decodes_through_the_ring),
		T(test_rcin_pru_follows_a_live_ppm_stream_around_the_ring),
		T(test_rcin_pru_survives_bursts_that_overflow_the_ring),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
