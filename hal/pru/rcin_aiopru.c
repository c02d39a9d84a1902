// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the AioPRU firmware on PRU1 (BBBMINI, BeagleBone Blue; see
 * hal_pru.h): the PRU-ICSS's eCAP module times the RC pin, and the firmware
 * copies each capture into a ring in PRU1's data RAM:
 *
 *   word 0          u16 ring_head (bits 0..15), u16 ring_tail (bits 16..31)
 *   words 1 + 2i    entry i: u32 high ticks,
 *   words 2 + 2i             u32 ticks of the low level after that high
 *
 * in 5 ns ticks, little-endian on both sides. From RcAioPRU.p:
 *   - the eCAP runs in difference mode, capture event 1 on a falling edge and
 *     event 2 on a rising edge, its counter reset at each: at a rising edge
 *     CAP1 holds how long the pin was high and CAP2 how long it was low after
 *     (AM335x TRM, eCAP chapter, difference-mode capture). The firmware then
 *     copies both into the entry at its index, stores that index in the tail
 *     (a 16-bit store), and only then moves its index on, wrapping at 300.
 *     So an entry is a high level and the low after it, it appears at the
 *     rising edge that ends the low, and the tail names the newest entry,
 *     whole.
 *   - the counter has 32 bits: a level over 2^32 ticks (21.47 s, a pin idle
 *     before a receiver starts) is reported modulo that. The first entry
 *     after the firmware starts counts its high from the start.
 *   - its start-up stores head = tail = 0 before any entry is written; it
 *     never reads head, and overwrites what was not read.
 *
 * The new entries are [head, tail], the one tail names included: it was
 * written before the tail named it. (ArduPilot's reader stops before it, so
 * it takes each entry one rising edge late, up to a PPM channel, 2 ms.) The
 * one entry under the tail that may not have been written is at the
 * firmware's start-up: tail 0, entry 0 to come. So open, and a resync after
 * a fault, start after the entry the tail names, which is skipped with
 * whatever the ring held; the entry written next is the first one read.
 *
 * Head is kept here, never written, as in rcin_pru.c: the firmware does not
 * read it, and it shares its 32-bit word with the tail, which a 32-bit write
 * (the only width struct mmio has) could set back under the PRU.
 *
 * Levels: each entry becomes its high level, then its low level, for
 * rcin_levels.h, which pairs a low with the high after it: the pair (low of
 * entry i - 1, high of entry i), stamped at the falling edge that ends that
 * high, which is rc_input_pulse's (low_us, high_us, t_us). Ticks become
 * microseconds rounded to the nearest, the rest (within half a microsecond)
 * carried to the next level, so that levels add up to the time between their
 * edges as the stamps need; a level that comes to 0 us (a glitch under a
 * microsecond) is counted bad. A high level shows only with the low after it
 * (lag 1 for rcin_levels): a read that found nothing new bounds when the low
 * of the next entry ended, not its high.
 *
 * Ordering: the window is device memory (mmio_linux maps /dev/mem O_SYNC and
 * UIO maps uncached), so these reads reach the RAM in program order: the tail,
 * then the entries it names, then the tail again. An entry the PRU was
 * writing as we copied it has its tail stored a few PRU cycles later, before
 * our next read gets across the interconnect: the tail read again shows it.
 *
 * Overruns: the PRU overtaking us while we copy is seen by reading the tail
 * again afterwards (counted, the batch dropped, resync). A whole lap between
 * two reads, or during the copy, is not seen, as in rcin_pru.c; the ring
 * looks consistent, and the decoders reject the one pair made across it as
 * noise. The lap is 300 rising edges (hal_pru.h): a rcin thread at 1 kHz
 * keeps up.
 */
#include "pru/hal_pru.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rcin_levels.h"

#define RING_ENTRIES RCIN_AIOPRU_RING_ENTRIES
#define RING_WORD 0
#define ENTRY_HIGH_OFF(i) (4 + 8 * (size_t)(i))
#define ENTRY_LOW_OFF(i) (8 + 8 * (size_t)(i))
#define ALL_ONES 0xFFFFFFFFu
#define TICKS_PER_US 200

struct rcin_aiopru {
	struct rcin in;             /* first: the HAL hands out &in */
	struct mmio *win;
	size_t off;
	uint16_t head;              /* next entry to read; ours alone */
	bool corrupt;               /* the last tail read was impossible */
	int32_t tick_rest;          /* ticks the microseconds so far left over: -100..99 */
	struct rcin_levels lv;
	struct rcin_level lev[2 * RING_ENTRIES];
	/* An entry makes at most one pair. */
	struct rcin_pulse pend[RING_ENTRIES];
};

/* in is the first member of a struct rcin_aiopru from calloc (see analog_iio.c). */
static struct rcin_aiopru *rcin_aiopru_of(struct rcin *in)
{
	return (struct rcin_aiopru *)(void *)in;
}

static uint32_t ring_read(struct rcin_aiopru *p, size_t off)
{
	return mmio_read32(p->win, p->off + off);
}

static uint16_t ring_tail(struct rcin_aiopru *p)
{
	return (uint16_t)(ring_read(p, RING_WORD) >> 16);
}

static unsigned int ring_count(unsigned int from, unsigned int to)
{
	return (to + RING_ENTRIES - from) % RING_ENTRIES;
}

/* After open or a fault: the next entry read is the one after tail. */
static void rcin_aiopru_resync(struct rcin_aiopru *p, uint16_t tail)
{
	p->head = (uint16_t)((tail + 1) % RING_ENTRIES);
	p->tick_rest = 0;
	rcin_levels_reset(&p->lv);
}

static struct rcin_level level_of(uint8_t level, uint32_t ticks, int32_t *rest)
{
	/* At least -100, so the division rounds to the nearest; at most 21474837 us. */
	int64_t t = (int64_t)ticks + *rest;
	int64_t us = (t + TICKS_PER_US / 2) / TICKS_PER_US;

	*rest = (int32_t)(t - us * TICKS_PER_US);
	return (struct rcin_level){ .dur_us = (uint32_t)us, .level = level };
}

/* Takes what the ring holds, as far as the queue of pairs has room. */
static void rcin_aiopru_capture(struct rcin_aiopru *p, uint64_t now_us)
{
	size_t room = rcin_levels_room(&p->lv);

	if (room == 0)
		return;
	uint16_t tail = ring_tail(p);
	if (tail >= RING_ENTRIES) {
		/* Once per run of bad reads: it is one fault, however long it lasts. */
		if (!p->corrupt)
			p->in.stats.bad++;
		p->corrupt = true;
		return;
	}
	if (p->corrupt) {
		/* What the ring held while the tail made no sense cannot be trusted. */
		p->corrupt = false;
		rcin_aiopru_resync(p, tail);
		return;
	}

	unsigned int avail = ring_count(p->head, (tail + 1u) % RING_ENTRIES);
	unsigned int n = avail < room ? avail : (unsigned int)room;
	int32_t rest = p->tick_rest;
	for (unsigned int k = 0; k < n; k++) {
		unsigned int i = (p->head + k) % RING_ENTRIES;
		p->lev[2 * k] = level_of(1, ring_read(p, ENTRY_HIGH_OFF(i)), &rest);
		p->lev[2 * k + 1] = level_of(0, ring_read(p, ENTRY_LOW_OFF(i)), &rest);
	}

	if (n > 0) {
		/*
		 * The PRU went on writing after tail while we copied: past the
		 * free entries it wrote over what we copied, and some of that may
		 * be newer than the rest. Drop the batch, start after the new tail.
		 */
		uint16_t tail2 = ring_tail(p);
		if (tail2 >= RING_ENTRIES) {
			p->in.stats.bad++;
			p->corrupt = true;
			return;
		}
		if (avail + ring_count(tail, tail2) > RING_ENTRIES) {
			p->in.stats.overruns++;
			rcin_aiopru_resync(p, tail2);
			return;
		}
	}
	p->head = (uint16_t)((p->head + n) % RING_ENTRIES);
	p->tick_rest = rest;
	rcin_levels_take(&p->lv, p->lev, 2 * (size_t)n, now_us, n == avail);
}

static int rcin_aiopru_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	struct rcin_aiopru *p = rcin_aiopru_of(in);

	rcin_aiopru_capture(p, now_us);
	return (int)rcin_levels_out(&p->lv, out, max);
}

static void rcin_aiopru_close(struct rcin *in)
{
	free(rcin_aiopru_of(in));
}

static const struct rcin_ops rcin_aiopru_ops = {
	.read = rcin_aiopru_read,
	.close = rcin_aiopru_close,
};

int rcin_aiopru_open(struct mmio *win, size_t off, struct rcin **out)
{
	size_t len = mmio_len(win);

	if (off % 4 != 0 || off > len || len - off < RCIN_AIOPRU_BYTES)
		return -EINVAL;
	uint32_t w = mmio_read32(win, off + RING_WORD);
	if (w == ALL_ONES)
		return -ENXIO;
	uint16_t tail = (uint16_t)(w >> 16);
	if (tail >= RING_ENTRIES)
		return -EPROTO;

	struct rcin_aiopru *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->in.ops = &rcin_aiopru_ops;
	p->win = win;
	p->off = off;
	rcin_levels_init(&p->lv, &p->in.stats, p->pend, sizeof(p->pend) / sizeof(p->pend[0]));
	p->lv.lag = 1;
	/* What the ring holds already has no time to it. */
	rcin_aiopru_resync(p, tail);
	*out = &p->in;
	return 0;
}
