// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the AioPRU firmware's eCAP ring, through the real backend
 * (hal/pru/rcin_aiopru.c), the real mmio backend (hal/linux/mmio_linux.c) and
 * the public rcin calls. PRU1's data RAM is a memfd: the backend maps it the
 * way a board maps /dev/mem ("/proc/self/fd/N" at physical 0), and the test
 * plays RcAioPRU.p on a mapping of its own, as PRU1 would: at each rising edge
 * an entry {high ticks, ticks of the low after it} at its index, then a 16-bit
 * store of that index in the tail, then the index moves on (wrapping at 300);
 * head is never read. The end-to-end tests play receivers' waveforms
 * (tests/unit/rc_wave.c) through an emulated eCAP (difference mode, a 32-bit
 * counter of 5 ns ticks, event 1 on a falling edge, event 2 on a rising one)
 * and decode what comes out with the real RC front end (src/rc). The threaded
 * tests run the firmware on a second thread, in real time, while the test reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
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

#define WIN_LEN 0x2000         /* PRU1's 8 KB of data RAM */
#define RING_OFF 0x1000        /* where RcAioPRU.p keeps its ring in it */
#define ENTRIES RCIN_AIOPRU_RING_ENTRIES
#define TICKS_PER_US 200u
#define HEAD_MARK 0xBEEF       /* in head's half of word 0: nobody may write it */

struct pru_ram {
	int fd;
	struct mmio *win;           /* the backend's, through mmio_linux */
	struct spy *spy;            /* the same, seen through a spy (below) */
	volatile uint32_t *pru;     /* the PRU's side */
	uint16_t index;             /* the firmware's: the entry it writes next */
	struct fw_thread *live;     /* a firmware thread, stopped by teardown */
};

/* --- the firmware's side ------------------------------------------------- */

static volatile uint16_t *fw_tail_ptr(struct pru_ram *r)
{
	return (volatile uint16_t *)&r->pru[RING_OFF / 4] + 1;
}

static void fw_set_tail(struct pru_ram *r, uint16_t tail)
{
	__atomic_store_n(fw_tail_ptr(r), tail, __ATOMIC_RELEASE);
}

/*
 * RcAioPRU.p's start-up: head = tail = 0, its index 0. (It stores 0 in head;
 * the test stores a mark there instead, which the firmware never reads, to
 * see that nobody writes it.)
 */
static void fw_start(struct pru_ram *r)
{
	((volatile uint16_t *)&r->pru[RING_OFF / 4])[0] = HEAD_MARK;
	fw_set_tail(r, 0);
	r->index = 0;
}

/* A firmware that has been running: its newest entry is at tail. */
static void fw_running_at(struct pru_ram *r, uint16_t tail)
{
	fw_start(r);
	fw_set_tail(r, tail);
	r->index = (uint16_t)((tail + 1) % ENTRIES);
}

/* RCIN_ECAP: CAP1 and CAP2 into the entry at the index, the index into the tail, then on. */
static void fw_entry_ticks(struct pru_ram *r, uint32_t high, uint32_t low)
{
	volatile uint32_t *e = &r->pru[(RING_OFF + 4 + 8 * (size_t)r->index) / 4];

	__atomic_store_n(&e[0], high, __ATOMIC_RELAXED);
	__atomic_store_n(&e[1], low, __ATOMIC_RELAXED);
	fw_set_tail(r, r->index);
	r->index = (uint16_t)((r->index + 1) % ENTRIES);
}

/* The pin high for high_us, then low for low_us up to this rising edge. */
static void fw_entry(struct pru_ram *r, uint32_t high_us, uint32_t low_us)
{
	fw_entry_ticks(r, high_us * TICKS_PER_US, low_us * TICKS_PER_US);
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
	r->fd = memfd_create("fulmar-pru1-data-ram", MFD_CLOEXEC);
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
	fw_start(r);
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

	assert_int_equal(rcin_aiopru_open(&r->spy->m, RING_OFF, &in), 0);
	assert_non_null(in);
	return in;
}

/* --- single-threaded: the firmware writes, then the test reads ------------ */

static void test_rcin_aiopru_open_refuses_a_ring_outside_the_window(void **state)
{
	struct pru_ram *r = *state;
	struct rcin *in = NULL;

	assert_int_equal(rcin_aiopru_open(r->win, WIN_LEN - RCIN_AIOPRU_BYTES + 4, &in), -EINVAL);
	assert_int_equal(rcin_aiopru_open(r->win, RING_OFF + 2, &in), -EINVAL);
	assert_int_equal(rcin_aiopru_open(r->win, WIN_LEN + 4096, &in), -EINVAL);
	assert_null(in);
	/* 2404 bytes: the last place it fits. */
	assert_int_equal(rcin_aiopru_open(r->win, WIN_LEN - RCIN_AIOPRU_BYTES, &in), 0);
	rcin_close(in);
}

static void test_rcin_aiopru_open_refuses_all_ones_and_an_impossible_tail(void **state)
{
	struct pru_ram *r = *state;
	struct rcin *in = NULL;

	memset((void *)r->pru, 0xFF, WIN_LEN);
	assert_int_equal(rcin_aiopru_open(r->win, RING_OFF, &in), -ENXIO);
	fw_running_at(r, 0);
	fw_set_tail(r, ENTRIES);
	assert_int_equal(rcin_aiopru_open(r->win, RING_OFF, &in), -EPROTO);
	fw_set_tail(r, 0xFFFF);
	assert_int_equal(rcin_aiopru_open(r->win, RING_OFF, &in), -EPROTO);
	assert_null(in);
	fw_set_tail(r, ENTRIES - 1);
	assert_int_equal(rcin_aiopru_open(r->win, RING_OFF, &in), 0);
	rcin_close(in);
}

static void test_rcin_aiopru_reads_an_entry_as_a_high_then_the_low_after_it(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];

	/* Just started: tail 0, and entry 0 not written yet. */
	struct rcin *in = open_rcin(r);
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
	struct rcin *in = open_rcin(r);
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

	for (uint32_t i = 0; i < 50; i++)
		fw_entry(r, 1000 + i, 300 + i);
	assert_int_equal(__atomic_load_n(fw_tail_ptr(r), __ATOMIC_RELAXED), 40);
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

	fw_entry(r, 400, 600);      /* entry 0, skipped */
	fw_entry(r, 400, 600);
	fw_entry(r, 400, 650);
	fw_entry(r, 350, 700);
	assert_int_equal(rcin_read(in, p, 1, 80000000), 1);   /* one still queued */
	fw_set_tail(r, 4242);
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
	struct rcin *in = open_rcin(r);

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

/* The hook: after the backend's 10th entry read, the PRU writes 280 entries. */
struct lap {
	struct pru_ram *r;
	unsigned int entry_reads;
};

static void lap_during_read(struct spy *s, size_t off)
{
	struct lap *l = s->ctx;

	if (off >= RING_OFF + 4 && off < RING_OFF + RCIN_AIOPRU_BYTES && ++l->entry_reads == 10)
		for (int i = 0; i < 280; i++)
			fw_entry(l->r, 1234, 4321);
}

static void test_rcin_aiopru_counts_an_overrun_when_the_pru_laps_it_mid_read(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	struct rcin *in = open_rcin(r);

	struct lap lap = { .r = r };

	for (int i = 0; i < 50; i++)
		fw_entry(r, 400, 600);
	r->spy->ctx = &lap;
	r->spy->on_read = lap_during_read;
	/* 49 unread and 280 more written while they were copied: 29 overwritten. */
	assert_int_equal(rcin_read(in, p, 64, 99000000), 0);
	r->spy->on_read = NULL;
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
	struct rcin *in = open_rcin(r);

	struct lap lap = { .r = r };

	/* 19 unread and 280 more while they are copied: 299, one short of the lap. */
	fw_entry(r, 400, 600);      /* entry 0, skipped */
	for (int i = 0; i < 19; i++)
		fw_entry(r, 400, 600);
	r->spy->ctx = &lap;
	r->spy->on_read = lap_during_read;
	assert_int_equal(rcin_read(in, p, 64, 99000000), 18);
	r->spy->on_read = NULL;
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
	struct rcin *in = open_rcin(r);

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
	struct rcin *in = open_rcin(r);

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

static void test_rcin_aiopru_treats_a_quiet_pin_as_no_error(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = open_rcin(r);

	for (uint64_t t = 0; t < 10000; t++)
		assert_int_equal(rcin_read(in, p, 8, 1000000 + t * 1000), 0);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
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

static void test_rcin_aiopru_ppm_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;

	for (int pulse_high = 0; pulse_high <= 1; pulse_high++) {
		fw_start(r);
		struct rcin *in = open_rcin(r);
		/* 30 s idle first: more than the counter holds, reported modulo 2^32 ticks. */
		wave_ppm(pulse_high);
		size_t nf = play_ring(r, in, 100000000, 1000);
		/* Lock takes the first few frames (rc/input.h). */
		assert_true(nf >= 30 - 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels(&frames[k], RC_PROTOCOL_PPM, ppm_ch, 8);
		assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
		rcin_close(in);
	}
}

static void test_rcin_aiopru_sbus_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;

	/*
	 * SBUS from pulses tells the pin's levels apart, as PPM-sum does not:
	 * this is the test of an entry being a high then the low after it.
	 */
	struct rcin *in = open_rcin(r);
	wave_sbus();
	size_t nf = play_ring(r, in, 200000000, 1000);
	assert_true(nf >= 30 - 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static const uint16_t dsm_ch[12] = { 1500, 1100, 1900, 1300, 903, 2097,
				     1234, 1777, 1000, 2000, 1501, 1499 };

static void test_rcin_aiopru_dsm_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;
	uint8_t bytes[16];

	/* A 12-channel DSMX satellite: 11-bit, two frames of 7 words, every 11 ms. */
	struct rcin *in = open_rcin(r);
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

/* --- two threads: the firmware runs in real time while the test reads ---- */

struct fw_thread {
	struct pru_ram *r;
	uint64_t t0_us;             /* the first low level starts here */
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
#define PPM_BEHIND_MAX (ENTRIES - 40)
#define PPM_STRETCH_MAX_US 60000

/* PPM-sum of 8 channels in 20 ms frames: pair k of a frame is (300, ch - 300). */
static void ppm_pair(size_t k, uint32_t *low, uint32_t *high)
{
	size_t frame = k / 9, i = k % 9;

	*low = 300;
	if (i < 8) {
		*high = (uint32_t)(1000 + (frame * 37 + i * 111) % 1000 - 300);
	} else {
		uint32_t used = 0;
		for (size_t j = 0; j < 8; j++)
			used += 1000 + (frame * 37 + j * 111) % 1000;
		*high = 20000 - used - 300;
	}
}

/*
 * The bursts: levels of 10..41 us (SBUS's bit is 10 us, the fastest RC signal
 * there is), each pair saying which it is, so a pair made of two shows.
 */
static void burst_pair(size_t k, uint32_t *low, uint32_t *high)
{
	*low = (uint32_t)(10 + k % 32);
	*high = (uint32_t)(10 + (k * 7 + 3) % 32);
}

static void spin_until_us(uint64_t t_us)
{
	while (mono_us() < t_us)
		;
}

/*
 * Plays pairs (low, high) on the pin: an entry at the rising edge that ends
 * each low, holding the high before it; the last pair's high shows with one
 * more low.
 */
static void *fw_run(void *arg)
{
	struct fw_thread *f = arg;
	uint64_t t = f->t0_us;
	uint32_t high_before = 5000;   /* the pin idle high before the stream */

	for (size_t k = 0; k <= f->pairs && !atomic_load(&f->stop); k++) {
		uint32_t low, high;
		if (k == f->pairs) {
			t += 300;
			sleep_until_us(t);
			fw_entry(f->r, high_before, 300);
			break;
		}
		if (f->burst) {
			if (k % BURST_PAIRS == 0) {
				t += BURST_GAP_US;
				sleep_until_us(t);
			}
			burst_pair(k, &low, &high);
			t += low;
			spin_until_us(t);
			fw_entry(f->r, high_before, low);
			t += high;
			high_before = high;
			continue;
		}
		ppm_pair(k, &low, &high);
		t += low;
		sleep_until_us(t);
		fw_entry(f->r, high_before, low);
		t += high;
		/*
		 * A reader that has fallen most of a ring behind: the
		 * transmitter's sync gap grows (up to 60 ms more) until it catches
		 * up, and the eCAP, timing the level, records its true length.
		 */
		if (k % 9 == 8) {
			sleep_until_us(t);
			uint64_t end = t + PPM_STRETCH_MAX_US;
			while (k + 1 - atomic_load(&f->taken) >= PPM_BEHIND_MAX &&
			       !atomic_load(&f->stop) && mono_us() < end)
				sleep_until_us(mono_us() + 200);
			uint64_t now = mono_us();
			if (now > t) {
				high += (uint32_t)(now - t);
				t = now;
			}
		}
		high_before = high;
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

static void test_rcin_aiopru_follows_a_live_ppm_stream_around_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	/* Not on this stack: a failed assertion leaves the thread for teardown to stop. */
	static struct fw_thread f;
	size_t k = 0, close_stamps = 0, nf = 0, stale = 0;
	uint64_t nominal = 0, last_t = 0, slack = 0;
	struct rc_input dec;

	memset(&f, 0, sizeof f);
	f.pairs = 9 * 40;
	rc_input_init(&dec);
	/* A firmware that has run a while: the stream wraps the ring early on. */
	fw_running_at(r, 250);
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
			uint32_t low, high;
			ppm_pair(k, &low, &high);
			assert_int_equal(p[i].low_us, low);
			if (k % 9 == 8) {      /* a sync gap: longer where the reader fell behind */
				assert_true(p[i].high_us >= high);
				high = p[i].high_us;
				/* so long that the decoder drops the frame it ends as
				 * stale; the first sync ends none */
				stale += k > 8 && low + high > RC_STALE_US;
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
	/* 360 entries: the ring went round. */
	assert_true(f.pairs > ENTRIES);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	/* How close the stamps came depends on how busy the host is: a figure, not a verdict. */
	print_message("live stream: %zu of %zu stamps within 2 ms of the edge, %zu frames, "
		      "%zu stale\n", close_stamps, f.pairs, nf, stale);
	/*
	 * Every frame is accounted for, whatever the host's load did to the
	 * gaps: the 40 syncs end 39 frames (the first sync only starts one).
	 * The first is refused, as a channel count not yet seen twice; each
	 * other is decoded or dropped as stale. How many decoded ones came out
	 * depends on locking, which a stall of more than RC_INPUT_LOCK_TIMEOUT_US
	 * undoes: a figure, above, and not none.
	 */
	const struct rc_stats *ppm = rc_input_stats(&dec, RC_PROTOCOL_PPM);
	assert_int_equal(ppm->rejected[RC_REJECT_CHANNELS], 1);
	assert_int_equal(rc_stats_rejected(ppm), 1);
	assert_int_equal(ppm->stale_frames, stale);
	assert_int_equal(ppm->frames + ppm->stale_frames + 1, 40 - 1);
	assert_true(nf > 0 && nf <= ppm->frames);
	rcin_close(in);
}

static void test_rcin_aiopru_survives_bursts_that_overflow_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[ENTRIES];
	static struct fw_thread f;   /* not on this stack, as above */
	size_t got = 0, mixed = 0, captures = 0;
	uint64_t last_t = 0;

	memset(&f, 0, sizeof f);
	f.pairs = 12 * BURST_PAIRS;
	f.burst = true;
	fw_running_at(r, 7);
	struct rcin *in = open_rcin(r);
	f.t0_us = mono_us();
	fw_thread_start(r, &f);
	/*
	 * Read at 25 Hz, too slowly for SBUS: a burst of 500 pairs takes some
	 * 25 ms, and 300 entries come in 15.
	 */
	for (uint64_t tick = mono_us();; tick += 40000) {
		sleep_until_us(tick);
		bool done = atomic_load(&f.done);
		uint64_t now = mono_us();
		int n = rcin_read(in, p, ENTRIES, now);
		assert_true(n >= 0 && n < ENTRIES);
		for (int i = 0; i < n; i++) {
			uint32_t low = p[i].low_us, high;
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
		T(test_rcin_aiopru_open_refuses_a_ring_outside_the_window),
		T(test_rcin_aiopru_open_refuses_all_ones_and_an_impossible_tail),
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
		T(test_rcin_aiopru_treats_a_quiet_pin_as_no_error),
		T(test_rcin_aiopru_ppm_waveform_decodes_through_the_ring),
		T(test_rcin_aiopru_sbus_waveform_decodes_through_the_ring),
		T(test_rcin_aiopru_dsm_waveform_decodes_through_the_ring),
		T(test_rcin_aiopru_follows_a_live_ppm_stream_around_the_ring),
		T(test_rcin_aiopru_survives_bursts_that_overflow_the_ring),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
