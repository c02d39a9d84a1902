// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from GPIO edge events, through the real backend (hal/linux/
 * rcin_gpio.c) and the public rcin calls, against a struct gpio_line of the
 * test's own whose read_events hands out a script of kernel-style events:
 * nanosecond CLOCK_MONOTONIC stamps, the kernel's sequence numbers (or 0 where
 * libgpiod 1.x cannot tell), gaps where the kernel's queue overflowed.
 * The end-to-end tests turn receivers' waveforms (tests/unit/rc_wave.c) into
 * edge events and decode what comes out with the real RC front end (src/rc).
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

#include "linux/hal_linux.h"
#include "rc/input.h"
#include "rc_wave.h"
#include "rcin_e2e.h"

#define SCRIPT_MAX 16384

struct script_line {
	struct gpio_line line;        /* first: the backend sees this */
	struct gpio_event ev[SCRIPT_MAX];
	size_t n;                     /* events in the script */
	size_t next;                  /* the next one to hand out */
	size_t avail;                 /* handed out only up to here ("queued so far") */
	int fail_next;                /* the next read_events call returns this */
	size_t max_asked;             /* the most events one call asked for */
	unsigned int calls;
};

static int script_read_events(struct gpio_line *line, struct gpio_event *ev, size_t max)
{
	/* line is the first member of a struct script_line (see analog_iio.c). */
	struct script_line *s = (struct script_line *)(void *)line;
	size_t k = 0;

	s->calls++;
	if (max > s->max_asked)
		s->max_asked = max;
	if (s->fail_next) {
		int rc = s->fail_next;
		s->fail_next = 0;
		return rc;
	}
	while (k < max && s->next < s->avail)
		ev[k++] = s->ev[s->next++];
	return (int)k;
}

static int script_get(struct gpio_line *line)
{
	(void)line;
	return 0;
}

static int script_set(struct gpio_line *line, int value)
{
	(void)line;
	(void)value;
	return -EPERM;
}

static void script_close(struct gpio_line *line)
{
	(void)line;
}

static const struct gpio_ops script_ops = {
	.set = script_set,
	.get = script_get,
	.read_events = script_read_events,
	.close = script_close,
};

static const struct gpio_ops no_events_ops = {
	.set = script_set,
	.get = script_get,
	.close = script_close,
};

static struct script_line sl;

static void script_reset(void)
{
	memset(&sl, 0, sizeof(sl));
	sl.line.ops = &script_ops;
}

/* Appends an edge at t_us (+ sub-microsecond ns), with seqno as given. */
static void edge(bool rising, uint64_t t_ns, uint32_t seqno)
{
	assert_true(sl.n < SCRIPT_MAX);
	sl.ev[sl.n].rising = rising;
	sl.ev[sl.n].t_ns = t_ns;
	sl.ev[sl.n].seqno = seqno;
	sl.n++;
	sl.avail = sl.n;
}

/* Edges of the pairs (low_us[i], high_us[i]) starting with a fall at t0_ns. */
static uint64_t pairs(uint64_t t0_ns, const uint32_t *low, const uint32_t *high, size_t n,
		      uint32_t *seqno)
{
	uint64_t t = t0_ns;

	edge(false, t, seqno ? (*seqno)++ : 0);
	for (size_t i = 0; i < n; i++) {
		t += (uint64_t)low[i] * 1000u;
		edge(true, t, seqno ? (*seqno)++ : 0);
		t += (uint64_t)high[i] * 1000u;
		edge(false, t, seqno ? (*seqno)++ : 0);
	}
	return t;
}

static struct rcin *open_rcin(void)
{
	struct rcin *in = NULL;

	assert_int_equal(rcin_gpio_open(&sl.line, &in), 0);
	assert_non_null(in);
	return in;
}

static void test_rcin_gpio_open_refuses_a_line_without_edge_events(void **state)
{
	struct gpio_line plain = { .ops = &no_events_ops };
	struct rcin untouched;
	struct rcin *in = &untouched;

	(void)state;
	assert_int_equal(rcin_gpio_open(&plain, &in), -ENOTSUP);
	assert_ptr_equal(in, &untouched);
}

static void test_rcin_gpio_makes_low_high_pairs_stamped_at_the_falling_edge(void **state)
{
	static const uint32_t low[] = {600, 1100, 300};
	static const uint32_t high[] = {400, 900, 20000};
	struct rcin_pulse p[8];
	uint32_t seq = 1;

	(void)state;
	script_reset();
	/* Kernel stamps carry sub-microsecond parts: widths come from whole microseconds. */
	uint64_t end = pairs(5000000123u, low, high, 3, &seq);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 8, 0), 3);
	uint64_t t = 5000000u;
	for (int i = 0; i < 3; i++) {
		t += low[i] + high[i];
		assert_int_equal(p[i].low_us, low[i]);
		assert_int_equal(p[i].high_us, high[i]);
		assert_int_equal(p[i].t_us, t);
	}
	assert_int_equal(p[2].t_us, end / 1000u);
	const struct rcin_stats *st = rcin_stats(in);
	assert_int_equal(st->pulses, 3);
	assert_int_equal(st->overruns, 0);
	assert_int_equal(st->bad, 0);
	rcin_close(in);
}

static void test_rcin_gpio_skips_a_first_rising_edge_and_starts_at_a_fall(void **state)
{
	struct rcin_pulse p[4];

	(void)state;
	script_reset();
	edge(true, 1000000, 7);   /* the low before it began unseen */
	edge(false, 1000500000, 8);
	edge(true, 1001000000, 9);
	edge(false, 1001500000, 10);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 4, 0), 1);
	assert_int_equal(p[0].low_us, 500);
	assert_int_equal(p[0].high_us, 500);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_gpio_counts_a_seqno_gap_as_overruns_and_restarts(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	script_reset();
	edge(false, 1000000000, 1);
	edge(true, 1000500000, 2);
	edge(false, 1001000000, 3);
	/* 4, 5, 6 lost: the kernel's queue overflowed. */
	edge(true, 1002000000, 7);     /* restart: no low seen before it */
	edge(false, 1002400000, 8);    /* starts the next low */
	edge(true, 1003000000, 9);
	edge(false, 1003100000, 10);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 8, 0), 2);
	assert_int_equal(p[0].low_us, 500);
	assert_int_equal(p[0].high_us, 500);
	assert_int_equal(p[1].low_us, 600);
	assert_int_equal(p[1].high_us, 100);
	assert_int_equal(p[1].t_us, 1003100);
	assert_int_equal(rcin_stats(in)->overruns, 3);
	assert_int_equal(rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_gpio_counts_a_missing_edge_without_seqno_as_an_overrun(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	script_reset();
	edge(false, 1000000000, 0);
	edge(true, 1000500000, 0);
	edge(false, 1001000000, 0);
	edge(false, 1002000000, 0);    /* the rise in between is missing */
	edge(true, 1002300000, 0);
	edge(false, 1002700000, 0);
	edge(true, 1003000000, 0);
	edge(true, 1003500000, 0);     /* the fall in between is missing */
	edge(false, 1004000000, 0);
	edge(true, 1004100000, 0);
	edge(false, 1004300000, 0);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 8, 0), 3);
	assert_int_equal(p[0].low_us, 500);
	assert_int_equal(p[1].low_us, 300);
	assert_int_equal(p[1].high_us, 400);
	assert_int_equal(p[2].low_us, 100);
	assert_int_equal(p[2].high_us, 200);
	assert_int_equal(rcin_stats(in)->overruns, 2);
	assert_int_equal(rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_gpio_counts_a_repeat_with_contiguous_seqno_as_bad(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	script_reset();
	edge(false, 1000000000, 1);
	edge(true, 1000500000, 2);
	edge(true, 1000500400, 3);     /* a glitch the kernel saw as two rises */
	edge(false, 1001000000, 4);
	edge(true, 1001200000, 5);
	edge(false, 1001300000, 6);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 8, 0), 1);
	assert_int_equal(p[0].low_us, 200);
	assert_int_equal(p[0].high_us, 100);
	assert_int_equal(rcin_stats(in)->bad, 1);
	assert_int_equal(rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

static void test_rcin_gpio_counts_zero_widths_and_time_going_back_as_bad(void **state)
{
	struct rcin_pulse p[8];

	(void)state;
	script_reset();
	edge(false, 1000000000, 1);
	edge(true, 1000000400, 2);     /* 0.4 us: 0 whole microseconds */
	edge(false, 1000500000, 3);
	edge(true, 1000800000, 4);
	edge(false, 1000800900, 5);    /* high of 0 us */
	edge(true, 1000900000, 6);
	edge(false, 1000950000, 7);    /* a good pair: low 100, high 50 */
	edge(true, 900000000, 8);      /* before the last edge */
	edge(false, 1001100000, 9);
	edge(true, 1001200000, 10);
	edge(false, 1001300000, 11);
	struct rcin *in = open_rcin();

	assert_int_equal(rcin_read(in, p, 8, 0), 2);
	assert_int_equal(p[0].low_us, 100);
	assert_int_equal(p[0].high_us, 50);
	assert_int_equal(p[1].low_us, 100);
	assert_int_equal(p[1].high_us, 100);
	assert_int_equal(rcin_stats(in)->bad, 3);
	rcin_close(in);
}

static void test_rcin_gpio_never_reads_more_events_than_it_has_room_for(void **state)
{
	uint32_t low[500], high[500];
	struct rcin_pulse p[7];
	uint32_t seq = 1;

	(void)state;
	script_reset();
	for (int i = 0; i < 500; i++) {
		low[i] = 300 + (uint32_t)i;
		high[i] = 700 + (uint32_t)(i % 300);
	}
	pairs(2000000000u, low, high, 500, &seq);
	struct rcin *in = open_rcin();

	int got = 0;
	for (size_t max = 1; got < 500; max = max % 7 + 1) {
		int n = rcin_read(in, p, max, 0);
		assert_true(n >= 0 && (size_t)n <= max);
		for (int i = 0; i < n; i++) {
			assert_int_equal(p[i].low_us, low[got + i]);
			assert_int_equal(p[i].high_us, high[got + i]);
		}
		got += n;
		assert_true(sl.max_asked <= 2 * 7);
		if (n == 0)
			break;
	}
	assert_int_equal(got, 500);
	assert_int_equal(rcin_read(in, p, 7, 0), 0);
	assert_int_equal(rcin_stats(in)->pulses, 500);
	assert_int_equal(rcin_stats(in)->overruns + rcin_stats(in)->bad, 0);
	rcin_close(in);
}

static void test_rcin_gpio_keeps_a_pair_open_across_reads(void **state)
{
	struct rcin_pulse p[4];

	(void)state;
	script_reset();
	edge(false, 1000000000, 1);
	edge(true, 1000700000, 2);
	edge(false, 1001000000, 3);
	edge(true, 1001800000, 4);
	edge(false, 1002000000, 5);
	struct rcin *in = open_rcin();

	sl.avail = 2;   /* the kernel has only the first two edges yet */
	assert_int_equal(rcin_read(in, p, 4, 0), 0);
	sl.avail = 4;
	assert_int_equal(rcin_read(in, p, 4, 0), 1);
	assert_int_equal(p[0].low_us, 700);
	assert_int_equal(p[0].high_us, 300);
	sl.avail = 5;
	assert_int_equal(rcin_read(in, p, 4, 0), 1);
	assert_int_equal(p[0].low_us, 800);
	assert_int_equal(p[0].high_us, 200);
	assert_int_equal(p[0].t_us, 1002000);
	rcin_close(in);
}

static void test_rcin_gpio_passes_a_read_error_on_and_goes_on_after_it(void **state)
{
	struct rcin_pulse p[4];

	(void)state;
	script_reset();
	edge(false, 1000000000, 1);
	edge(true, 1000700000, 2);
	edge(false, 1001000000, 3);
	struct rcin *in = open_rcin();

	sl.fail_next = -EIO;
	assert_int_equal(rcin_read(in, p, 4, 0), -EIO);
	assert_int_equal(rcin_read(in, p, 4, 0), 1);
	assert_int_equal(p[0].low_us, 700);
	assert_int_equal(rcin_stats(in)->pulses, 1);
	rcin_close(in);
}


/* --- end to end: a receiver's waveform through edge events into the decoders - */


/* The kernel stamps an edge at the start of every level but the first. */
static size_t play_edges(struct rcin *in, uint64_t t0_us, uint32_t poll_us)
{
	struct rc_input dec;
	struct rcin_pulse p[64];
	uint64_t t_ns = t0_us * 1000u + 123, last_t = 0;
	uint32_t seq = 1;
	size_t nf = 0;

	script_reset();
	for (size_t i = 0; i < wave.n; i++) {
		if (i > 0)
			edge(wave.high[i], t_ns, seq++);
		t_ns += wave.dur_ns[i];
	}
	sl.avail = 0;
	rc_input_init(&dec);
	for (uint64_t now = t0_us + poll_us;; now += poll_us) {
		while (sl.avail < sl.n && sl.ev[sl.avail].t_ns / 1000u <= now)
			sl.avail++;
		int n = rcin_read(in, p, 64, now);
		assert_true(n >= 0);
		decode(&dec, p, n, now, &last_t, &nf);
		if (sl.avail == sl.n && n == 0)
			break;
	}
	return nf;
}

static void test_rcin_gpio_ppm_waveform_decodes_through_edge_events(void **state)
{
	(void)state;
	for (int pulse_high = 0; pulse_high <= 1; pulse_high++) {
		wave_ppm(pulse_high);
		script_reset();
		struct rcin *in = open_rcin();
		size_t nf = play_edges(in, 100000000, 1000);
		assert_true(nf >= 30 - 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels(&frames[k], RC_PROTOCOL_PPM, ppm_ch, 8);
		assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
		rcin_close(in);
	}
}

static void test_rcin_gpio_sbus_waveform_decodes_through_edge_events(void **state)
{
	(void)state;
	wave_sbus();
	script_reset();
	struct rcin *in = open_rcin();
	size_t nf = play_edges(in, 200000000, 1000);
	assert_true(nf >= 30 - 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcin_gpio_open_refuses_a_line_without_edge_events),
		cmocka_unit_test(test_rcin_gpio_makes_low_high_pairs_stamped_at_the_falling_edge),
		cmocka_unit_test(test_rcin_gpio_skips_a_first_rising_edge_and_starts_at_a_fall),
		cmocka_unit_test(test_rcin_gpio_counts_a_seqno_gap_as_overruns_and_restarts),
		cmocka_unit_test(test_rcin_gpio_counts_a_missing_edge_without_seqno_as_an_overrun),
		cmocka_unit_test(test_rcin_gpio_counts_a_repeat_with_contiguous_seqno_as_bad),
		cmocka_unit_test(test_rcin_gpio_counts_zero_widths_and_time_going_back_as_bad),
		cmocka_unit_test(test_rcin_gpio_never_reads_more_events_than_it_has_room_for),
		cmocka_unit_test(test_rcin_gpio_keeps_a_pair_open_across_reads),
		cmocka_unit_test(test_rcin_gpio_passes_a_read_error_on_and_goes_on_after_it),
		cmocka_unit_test(test_rcin_gpio_ppm_waveform_decodes_through_edge_events),
		cmocka_unit_test(test_rcin_gpio_sbus_waveform_decodes_through_edge_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
