// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the Zynq PL pulse-capture FIFO, through the real backend
 * (hal/zynq/rcin_zynq.c) and the public rcin calls. The test plays the PL: a
 * struct mmio of its own whose keyhole register pops one entry of a queue the
 * test fills per read ({bit 31 the level that ended, bits 30..0 its ticks at
 * 100 per us}) and reads all ones when it is empty, as the PL's does.
 * The end-to-end tests play receivers' waveforms (tests/unit/rc_wave.c) into
 * the FIFO and decode what comes out with the real RC front end (src/rc).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rc/input.h"
#include "rc_wave.h"
#include "rcin_e2e.h"
#include "zynq/hal_zynq.h"

#define WIN_LEN 0x1000
#define FIFO_OFF 0x40          /* anywhere in the window: the board says where */
#define QUEUE_MAX 8192
#define EMPTY 0xFFFFFFFFu

struct pl_fifo {
	struct mmio m;             /* first: the backend sees this */
	uint32_t q[QUEUE_MAX];
	size_t head, tail;         /* pops from head, the test pushes at tail */
	bool stuck;                /* reads a constant entry forever, never empty */
	uint64_t pops;             /* reads of the keyhole */
	uint64_t other_reads;
	uint64_t writes;
};

static uint32_t pl_read32(struct mmio *m, size_t off)
{
	/* m is the first member of a struct pl_fifo (see analog_iio.c). */
	struct pl_fifo *f = (struct pl_fifo *)(void *)m;

	if (off != FIFO_OFF) {
		f->other_reads++;
		return 0;
	}
	f->pops++;
	if (f->stuck)
		return 0x80000000u | 12345u;
	if (f->head == f->tail)
		return EMPTY;
	return f->q[f->head++ % QUEUE_MAX];
}

static void pl_write32(struct mmio *m, size_t off, uint32_t value)
{
	(void)off;
	(void)value;
	((struct pl_fifo *)(void *)m)->writes++;
}

static void pl_close(struct mmio *m)
{
	(void)m;
}

static const struct mmio_ops pl_ops = {
	.read32 = pl_read32,
	.write32 = pl_write32,
	.close = pl_close,
};

static struct pl_fifo pl;

static void pl_reset(void)
{
	memset(&pl, 0, sizeof(pl));
	pl.m.ops = &pl_ops;
	pl.m.len = WIN_LEN;
}

static size_t pl_queued(void)
{
	return pl.tail - pl.head;
}

static void pl_push(bool high, uint32_t ticks)
{
	assert_true(pl_queued() < QUEUE_MAX);
	pl.q[pl.tail++ % QUEUE_MAX] = (high ? 0x80000000u : 0) | ticks;
}

/* A low level then a high level, in microseconds. */
static void pl_pair(uint32_t low_us, uint32_t high_us)
{
	pl_push(false, low_us * 100u);
	pl_push(true, high_us * 100u);
}

static struct rcin *open_rcin(void)
{
	struct rcin *in = NULL;

	assert_int_equal(rcin_zynq_open(&pl.m, FIFO_OFF, &in), 0);
	assert_non_null(in);
	return in;
}

static void test_rcin_zynq_open_refuses_a_register_outside_the_window(void **state)
{
	struct rcin *in = NULL;

	(void)state;
	pl_reset();
	assert_int_equal(rcin_zynq_open(&pl.m, WIN_LEN, &in), -EINVAL);
	assert_int_equal(rcin_zynq_open(&pl.m, 2, &in), -EINVAL);
	assert_null(in);
}

static void test_rcin_zynq_open_empties_the_fifo_of_what_has_no_time(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	pl_reset();
	for (int i = 0; i < 1000; i++)
		pl_pair(600, 400);
	struct rcin *in = open_rcin();

	assert_int_equal(pl_queued(), 0);
	assert_int_equal(rcin_read(in, p, 8, 5000000), 0);
	rcin_close(in);
	assert_int_equal(pl.writes, 0);
	assert_int_equal(pl.other_reads, 0);
}

static void test_rcin_zynq_open_refuses_a_register_that_never_reads_empty(void **state)
{
	struct rcin *in = NULL;

	(void)state;
	pl_reset();
	pl.stuck = true;
	assert_int_equal(rcin_zynq_open(&pl.m, FIFO_OFF, &in), -EPROTO);
	assert_null(in);
	assert_int_equal(pl.pops, RCIN_ZYNQ_DRAIN_MAX);
}

static void test_rcin_zynq_takes_bit31_as_the_level_that_ended(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	pl_pair(600, 400);
	pl_pair(1500, 8000);
	assert_int_equal(rcin_read(in, p, 8, 10000000), 2);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[0].high_us, 400);
	assert_int_equal(p[1].low_us, 1500);
	assert_int_equal(p[1].high_us, 8000);
	/* Nothing known before: the last level ended at now at the latest. */
	assert_int_equal(p[1].t_us, 10000000);
	assert_int_equal(p[0].t_us, 10000000 - 9500);
	rcin_close(in);
}

static void test_rcin_zynq_carries_ticks_so_that_levels_add_up(void **state)
{
	struct rcin_pulse p[64];
	uint64_t sum = 0;

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	/* 150.5 us levels: each alone would truncate to 150. */
	for (int i = 0; i < 1000; i++)
		pl_push(i % 2 == 1, 15050);
	int n;
	uint64_t now = 1000000000;
	while ((n = rcin_read(in, p, 64, now)) > 0) {
		for (int i = 0; i < n; i++) {
			assert_true(p[i].low_us == 150 || p[i].low_us == 151);
			assert_true(p[i].high_us == 150 || p[i].high_us == 151);
			sum += p[i].low_us + p[i].high_us;
		}
		now += 1000;
	}
	assert_int_equal(sum, 1000 * 15050 / 100);
	rcin_close(in);
}

static void test_rcin_zynq_stamps_continue_the_last_batch_within_what_is_known(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	pl_pair(600, 400);
	assert_int_equal(rcin_read(in, p, 8, 10000000), 1);
	assert_int_equal(p[0].t_us, 10000000);

	/* Continues exactly: the durations between batches are kept. */
	pl_pair(600, 400);
	assert_int_equal(rcin_read(in, p, 8, 10001700), 1);
	assert_int_equal(p[0].t_us, 10001000);

	/* Never after now: here the last batch was stamped too late. */
	pl_pair(5000, 400);
	assert_int_equal(rcin_read(in, p, 8, 10004000), 1);
	assert_int_equal(p[0].t_us, 10004000);

	/*
	 * Not before the read that found the FIFO empty: the low must have
	 * ended after it. Here the PL dropped a pair (1000 us) before this
	 * one, which truly ends at 10006000; continuing the last batch would
	 * put it at 10005000.
	 */
	assert_int_equal(rcin_read(in, p, 8, 10004800), 0);
	pl_pair(600, 400);
	assert_int_equal(rcin_read(in, p, 8, 10006000), 1);
	assert_int_equal(p[0].t_us, 10004800 - 600 + 1000);
	rcin_close(in);
}

static void test_rcin_zynq_stamps_what_it_pops_and_hands_out_at_most_max(void **state)
{
	struct rcin_pulse p[10];

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	for (uint32_t i = 0; i < 10; i++)
		pl_pair(500 + i, 1000 + i);
	/* Pops are destructive: all ten are taken, stamped, and queued. */
	assert_int_equal(rcin_read(in, p, 3, 20000000), 3);
	assert_int_equal(pl_queued(), 0);
	assert_int_equal(rcin_read(in, p + 3, 10, 20000900), 7);
	assert_int_equal(rcin_read(in, p, 10, 20000900), 0);
	/* Stamped as one capture at 20000000, whoever took them when. */
	assert_int_equal(p[9].t_us, 20000000);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(p[i].low_us, 500 + i);
		assert_int_equal(p[i].high_us, 1000 + i);
		if (i > 0)
			assert_int_equal(p[i].t_us - p[i - 1].t_us, p[i].low_us + p[i].high_us);
	}
	assert_int_equal(rcin_stats(in)->pulses, 10);
	rcin_close(in);
}

static void test_rcin_zynq_bounds_the_pops_of_one_read(void **state)
{
	static struct rcin_pulse p[4000];

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	for (int i = 0; i < 2000; i++)
		pl_pair(300, 300);
	uint64_t before = pl.pops;
	assert_int_equal(rcin_read(in, p, 4000, 30000000), RCIN_ZYNQ_POPS_MAX / 2);
	assert_int_equal(pl.pops - before, RCIN_ZYNQ_POPS_MAX);
	int total = RCIN_ZYNQ_POPS_MAX / 2, n;
	while ((n = rcin_read(in, p, 4000, 30000000)) > 0)
		total += n;
	assert_int_equal(total, 2000);
	rcin_close(in);
}

static void test_rcin_zynq_counts_zero_lengths_as_bad_and_repeats_as_overruns(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();

	pl_pair(600, 400);
	pl_push(false, 0);          /* zero-length low: breaks the pair it is in */
	pl_push(true, 40000);
	pl_pair(700, 300);
	pl_push(false, 60000);
	pl_push(false, 60000);      /* the high in between was dropped */
	pl_push(true, 40000);       /* pairs with the second low */
	pl_push(true, 40000);       /* a low was dropped */
	pl_pair(800, 200);
	assert_int_equal(rcin_read(in, p, 8, 40000000), 4);
	assert_int_equal(p[0].low_us, 600);
	assert_int_equal(p[1].low_us, 700);
	assert_int_equal(p[2].low_us, 600);
	assert_int_equal(p[2].high_us, 400);
	assert_int_equal(p[3].low_us, 800);
	assert_int_equal(rcin_stats(in)->bad, 1);
	assert_int_equal(rcin_stats(in)->overruns, 2);
	rcin_close(in);
}


/* --- end to end: a receiver's waveform through the FIFO into the decoders - */


/* The PL times the wave from t0_us on; the test reads every poll_us. */
static size_t play_fifo(struct rcin *in, uint64_t t0_us, uint32_t poll_us)
{
	struct rc_input dec;
	struct rcin_pulse p[64];
	uint64_t t_ns = t0_us * 1000u, last_t = 0;
	size_t i = 0, nf = 0;

	rc_input_init(&dec);
	for (uint64_t now = t0_us + poll_us;; now += poll_us) {
		while (i < wave.n && (t_ns + wave.dur_ns[i]) / 1000u <= now) {
			/* 100 MHz: whole 10 ns ticks of the PL's own clock. */
			uint64_t ticks = (t_ns + wave.dur_ns[i]) / 10u - t_ns / 10u;
			pl_push(wave.high[i], (uint32_t)ticks);
			t_ns += wave.dur_ns[i];
			i++;
		}
		int n = rcin_read(in, p, 64, now);
		assert_true(n >= 0);
		decode(&dec, p, n, now, &last_t, &nf);
		if (i == wave.n && n == 0)
			break;
	}
	return nf;
}

static void test_rcin_zynq_ppm_waveform_decodes_through_the_fifo(void **state)
{
	(void)state;
	for (int pulse_high = 0; pulse_high <= 1; pulse_high++) {
		pl_reset();
		struct rcin *in = open_rcin();
		wave_ppm(pulse_high);
		size_t nf = play_fifo(in, 100000000, 1000);
		assert_true(nf >= 30 - 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels(&frames[k], RC_PROTOCOL_PPM, ppm_ch, 8);
		assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
		rcin_close(in);
	}
}

static void test_rcin_zynq_sbus_waveform_decodes_through_the_fifo(void **state)
{
	(void)state;
	pl_reset();
	struct rcin *in = open_rcin();
	wave_sbus();
	size_t nf = play_fifo(in, 200000000, 1000);
	assert_true(nf >= 30 - 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcin_zynq_open_refuses_a_register_outside_the_window),
		cmocka_unit_test(test_rcin_zynq_open_empties_the_fifo_of_what_has_no_time),
		cmocka_unit_test(test_rcin_zynq_open_refuses_a_register_that_never_reads_empty),
		cmocka_unit_test(test_rcin_zynq_takes_bit31_as_the_level_that_ended),
		cmocka_unit_test(test_rcin_zynq_carries_ticks_so_that_levels_add_up),
		cmocka_unit_test(test_rcin_zynq_stamps_continue_the_last_batch_within_what_is_known),
		cmocka_unit_test(test_rcin_zynq_stamps_what_it_pops_and_hands_out_at_most_max),
		cmocka_unit_test(test_rcin_zynq_bounds_the_pops_of_one_read),
		cmocka_unit_test(test_rcin_zynq_counts_zero_lengths_as_bad_and_repeats_as_overruns),
		cmocka_unit_test(test_rcin_zynq_ppm_waveform_decodes_through_the_fifo),
		cmocka_unit_test(test_rcin_zynq_sbus_waveform_decodes_through_the_fifo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
