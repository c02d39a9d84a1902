// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from a GPIO line's edge events (Navio: GPIO4), each stamped by the
 * kernel with CLOCK_MONOTONIC in its interrupt handler: no DMA sampling, no
 * /dev/mem. A falling edge after a rising edge after a falling edge is one
 * pair: low from the first to the second, high from the second to the third,
 * stamped with the third. Levels are logical (the line's active_low inverts
 * them, which is how a board with an inverter says so); the line must be
 * requested with GPIO_EDGE_BOTH.
 *
 * Faults, each of which restarts pairing at the next falling edge:
 *   - a jump in the kernel's sequence number: its queue overflowed and that
 *     many edges were lost (counted in overruns);
 *   - two edges the same way with no sequence number to say why (libgpiod
 *     1.x): most likely the v1 queue, which holds 16 events and drops the
 *     newest without a word, lost an edge (overruns);
 *   - two edges the same way with contiguous sequence numbers: nothing was
 *     dropped, so the pin glitched faster than the kernel could read its
 *     level (bad);
 *   - a level that lasts 0 us, or a timestamp before the previous one (bad).
 * The first edge after open is only a start: a rising edge is skipped (the
 * low before it began unseen), a falling edge starts the first low.
 *
 * Events are read into a small buffer here, never more than twice the pairs
 * the caller has room for: a falling edge makes at most one pair, and pairs
 * need rising edges in between, so 2n events make at most n pairs and no event
 * read from the kernel is ever left over.
 */
#include "linux/hal_linux.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#define RCIN_GPIO_BATCH 32

struct rcin_gpio {
	struct rcin in;             /* first: the HAL hands out &in */
	struct gpio_line *line;
	bool have_fall;             /* fall_us: the low in progress began then */
	bool have_rise;             /* rise_us: ... and ended then (the high began) */
	uint64_t fall_us;
	uint64_t rise_us;
	bool have_last;
	uint64_t last_us;           /* of the last edge, to catch time going back */
	uint32_t last_seqno;        /* 0: none seen */
	struct gpio_event ev[RCIN_GPIO_BATCH];
};

static struct rcin_gpio *rcin_gpio_of(struct rcin *in)
{
	return (struct rcin_gpio *)(void *)in;
}

static uint32_t rcin_gpio_width(uint64_t from, uint64_t to)
{
	uint64_t d = to - from;
	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* Pairing starts again at the next falling edge. */
static void rcin_gpio_restart(struct rcin_gpio *g)
{
	g->have_fall = false;
	g->have_rise = false;
}

/* One edge; returns 1 and fills *p when it ends a pair. */
static int rcin_gpio_edge(struct rcin_gpio *g, const struct gpio_event *e, struct rcin_pulse *p)
{
	/* Microseconds of the absolute time, so that widths add up exactly. */
	uint64_t t = e->t_ns / 1000u;
	bool known = e->seqno != 0 && g->last_seqno != 0;

	if (known && e->seqno != g->last_seqno + 1) {
		if (e->seqno > g->last_seqno)
			g->in.stats.overruns += e->seqno - g->last_seqno - 1;
		else
			g->in.stats.bad++;
		rcin_gpio_restart(g);
	}
	if (e->seqno != 0)
		g->last_seqno = e->seqno;
	if (g->have_last && t < g->last_us) {
		g->in.stats.bad++;
		rcin_gpio_restart(g);
	}
	g->have_last = true;
	g->last_us = t;

	/* An edge the same way as the one before: one in between is missing. */
	bool repeat = e->rising ? g->have_rise : (g->have_fall && !g->have_rise);
	if (repeat) {
		if (known)
			g->in.stats.bad++;
		else
			g->in.stats.overruns++;
		rcin_gpio_restart(g);
	}

	if (e->rising) {
		if (!g->have_fall)
			return 0;
		if (t == g->fall_us) {
			g->in.stats.bad++;
			rcin_gpio_restart(g);
			return 0;
		}
		g->rise_us = t;
		g->have_rise = true;
		return 0;
	}

	int made = 0;
	if (g->have_rise) {
		if (t == g->rise_us) {
			g->in.stats.bad++;
		} else {
			p->low_us = rcin_gpio_width(g->fall_us, g->rise_us);
			p->high_us = rcin_gpio_width(g->rise_us, t);
			p->t_us = t;
			made = 1;
		}
	}
	g->have_fall = true;
	g->have_rise = false;
	g->fall_us = t;
	return made;
}

static int rcin_gpio_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	struct rcin_gpio *g = rcin_gpio_of(in);
	size_t k = 0;

	(void)now_us;  /* the kernel stamped every edge */
	while (k < max) {
		size_t room = max - k;
		size_t want = room < RCIN_GPIO_BATCH / 2 ? 2 * room : RCIN_GPIO_BATCH;
		int n = gpio_read_events(g->line, g->ev, want);
		if (n < 0)
			return k > 0 ? (int)k : n;
		for (int i = 0; i < n; i++)
			k += (size_t)rcin_gpio_edge(g, &g->ev[i], &out[k]);
		if ((size_t)n < want)
			break;
	}
	return (int)k;
}

static void rcin_gpio_close(struct rcin *in)
{
	free(rcin_gpio_of(in));
}

static const struct rcin_ops rcin_gpio_ops = {
	.read = rcin_gpio_read,
	.close = rcin_gpio_close,
};

int rcin_gpio_open(struct gpio_line *line, struct rcin **out)
{
	/* Asks for nothing: only whether the line has edge events at all. */
	int rc = gpio_read_events(line, NULL, 0);
	if (rc < 0)
		return rc;

	struct rcin_gpio *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->in.ops = &rcin_gpio_ops;
	g->line = line;
	*out = &g->in;
	return 0;
}
