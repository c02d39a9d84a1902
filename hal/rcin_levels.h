/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the duration-only RC capture backends share (the BeagleBone PRU's edge
 * rings, hal/pru/rcin_pru.c and hal/pru/rcin_aiopru.c, and the Zynq PL
 * pulse-capture FIFO, hal/zynq/rcin_zynq.c): all report the pin as a list of
 * levels, "the pin was at this level for this long", with no time of day.
 * This turns such a list into (low, high, t_us) pulse pairs and stamps them.
 * Static inline, as hal/linux/gpio_internal.h, so that it needs no library of
 * its own.
 *
 * Pairing: a low level followed by a high level is a pair. A level that
 * repeats the one before means an entry was lost in between (the firmware and
 * the PL record levels from their own state, so they never repeat one): it is
 * counted in overruns and the pair around it dropped. A zero-length level or a
 * corrupt entry is counted in bad and breaks the pair it is in; pairing resumes
 * at the next low level.
 *
 * Stamping: the capture hardware gives durations only. The time of the edge
 * before the first new level ("start") is chosen within what is known:
 *   - the last new level ended at or before now_us: start <= now_us - sum;
 *   - when the previous read left the capture empty at its now_us ("floor"),
 *     every new level ended after that read: start + first >= floor. A
 *     capture that shows a level only once the next has ended too (the
 *     AioPRU ring: a high level comes with the low after it) sets lag to 1:
 *     the first new level may have ended before the floor, the second not,
 *     so the bound is on the first two: start + first + second >= floor;
 *   - otherwise, and preferably, it continues the previous batch exactly
 *     (start = the end of the last level already taken), so that the durations
 *     between batches are kept, not just within one.
 * The edges then follow by adding durations. Pairs are stamped when their
 * levels are taken from the hardware and wait in a queue here for the caller
 * (who may take fewer per call than the hardware held), so the stamps of one
 * capture never depend on how they are handed out.
 * With exact durations, stamps are never later than now_us and never earlier
 * than the true edges - but for an edge that comes between the caller's
 * reading of its clock and the backend's reading of the hardware, which is
 * stamped that much early (so now_us is best read just before rcin_read).
 * They all carry the same lateness: set by the
 * first read after open (or a fault), the time from the last edge it took to
 * its now_us - at most a poll period while a signal runs - and shrunk
 * whenever a later read takes an edge closer to its now_us; with a steady
 * signal it settles to microseconds. A quiet pin changes nothing: its long
 * level's duration keeps the chain. Lost levels make the chain short; the
 * floor then pulls it forward again. When the durations do not fit the time
 * between two reads at all (a corrupt duration), the batch is stamped to end
 * at now_us.
 * Stamps never go backwards: where the lateness shrinks by more than the time
 * between two pairs (a read that came late, then one that came early: on a
 * busy host, or at a slow poll rate), or after a corrupt duration, a pair that
 * would be stamped before the one handed out before it takes that one's
 * stamp. That keeps every stamp between its true edge and now_us.
 *
 * Everything here runs on the rcin thread, which owns the struct.
 */
#ifndef FULMAR_HAL_RCIN_LEVELS_H
#define FULMAR_HAL_RCIN_LEVELS_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/rcin.h"

/* One level of the pin as the capture hardware reported it. */
struct rcin_level {
	uint32_t dur_us;
	uint8_t level;            /* 0 low, 1 high; anything else: a corrupt entry */
};

struct rcin_levels {
	struct rcin_stats *stats; /* the backend's: bad entries and lost edges are counted here */
	size_t lag;               /* levels the capture may hold back after they end (see
				     "Stamping"); 0 from init, set by the backend */
	int level;                /* of the last level taken; -1: none (after open or a fault) */
	uint32_t low_us;          /* the last low level, waiting for its high */
	bool have_edge;           /* edge_us: when the last level taken ended */
	uint64_t edge_us;
	bool have_floor;          /* floor_us: the capture was empty then */
	uint64_t floor_us;
	uint64_t pushed_us;       /* the stamp of the last pair queued: the next is no earlier */
	struct rcin_pulse *pend;  /* stamped pairs not handed out yet: a ring of pend_cap */
	size_t pend_cap;
	size_t pend_first;
	size_t pend_n;
};

/* Forgets the levels before: after a fault, pairing and stamping start anew. */
static inline void rcin_levels_reset(struct rcin_levels *lv)
{
	lv->level = -1;
	lv->low_us = 0;
	lv->have_edge = false;
	lv->have_floor = false;
}

/* pend: storage for cap pairs, the backend's. */
static inline void rcin_levels_init(struct rcin_levels *lv, struct rcin_stats *stats,
				    struct rcin_pulse *pend, size_t cap)
{
	lv->stats = stats;
	lv->pend = pend;
	lv->pend_cap = cap;
	lv->pend_first = 0;
	lv->pend_n = 0;
	lv->pushed_us = 0;
	lv->lag = 0;
	rcin_levels_reset(lv);
}

/* How many more pairs the queue holds: take at most this many high levels. */
static inline size_t rcin_levels_room(const struct rcin_levels *lv)
{
	return lv->pend_cap - lv->pend_n;
}

static inline void rcin_levels_push(struct rcin_levels *lv, uint32_t low_us, uint32_t high_us,
				    uint64_t t_us)
{
	assert(lv->pend_n < lv->pend_cap);
	struct rcin_pulse *p = &lv->pend[(lv->pend_first + lv->pend_n) % lv->pend_cap];

	if (t_us < lv->pushed_us)
		t_us = lv->pushed_us;
	p->low_us = low_us;
	p->high_us = high_us;
	p->t_us = t_us;
	lv->pushed_us = t_us;
	lv->pend_n++;
}

/* Up to max queued pairs, oldest first; returns how many. */
static inline size_t rcin_levels_out(struct rcin_levels *lv, struct rcin_pulse *out, size_t max)
{
	size_t k = 0;

	while (k < max && lv->pend_n > 0) {
		out[k++] = lv->pend[lv->pend_first];
		lv->pend_first = (lv->pend_first + 1) % lv->pend_cap;
		lv->pend_n--;
	}
	return k;
}

static inline uint64_t rcin_levels_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * Takes n levels in the order they ended, the last at or before now_us;
 * drained: the capture had nothing more when it was read. Queues the pairs
 * they make, at most one per high level: no more high levels than
 * rcin_levels_room() may be given.
 */
static inline void rcin_levels_take(struct rcin_levels *lv, const struct rcin_level *lev,
				    size_t n, uint64_t now_us, bool drained)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (lev[i].level <= 1)
			sum += lev[i].dur_us;

	uint64_t latest = rcin_levels_sub(now_us, sum);
	uint64_t start = lv->have_edge ? lv->edge_us : latest;
	if (n > lv->lag && lv->have_floor) {
		uint64_t first = 0;
		for (size_t i = 0; i <= lv->lag; i++)
			if (lev[i].level <= 1)
				first += lev[i].dur_us;
		uint64_t earliest = rcin_levels_sub(lv->floor_us, first);
		if (start < earliest)
			start = earliest;
	}
	if (start > latest)
		start = latest;

	uint64_t t = start;
	for (size_t i = 0; i < n; i++) {
		const struct rcin_level *l = &lev[i];

		if (l->level > 1 || l->dur_us == 0) {
			lv->stats->bad++;
			lv->level = -1;
			continue;
		}
		t += l->dur_us;
		if (l->level == lv->level) {
			lv->stats->overruns++;
			lv->level = -1;
		}
		if (l->level == 0) {
			lv->low_us = l->dur_us;
		} else if (lv->level == 0) {
			rcin_levels_push(lv, lv->low_us, l->dur_us, t);
		}
		lv->level = l->level;
	}
	if (n > 0) {
		lv->edge_us = t;
		lv->have_edge = true;
	}
	lv->have_floor = drained;
	lv->floor_us = now_us;
}

#endif
