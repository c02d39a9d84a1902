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
 * pru_ring.c reads the ring (head kept there, never written; ordering and
 * overruns), as it reads rcin_pru.c's. An entry the PRU was writing as we
 * copied it has its tail stored a few PRU cycles later, before our next read
 * gets across the interconnect: the tail read again after the copy shows it.
 * The lap that cannot be seen is 300 rising edges (hal_pru.h): a rcin thread
 * at 1 kHz keeps up.
 */
#include "pru/hal_pru.h"

#include "pru_ring.h"

#define ENTRY_HIGH_OFF 0
#define ENTRY_LOW_OFF 4
#define TICKS_PER_US 200

static struct rcin_level level_of(uint8_t level, uint32_t ticks, int32_t *rest)
{
	/* At least -100, so the division rounds to the nearest; at most 21474837 us. */
	int64_t t = (int64_t)ticks + *rest;
	int64_t us = (t + TICKS_PER_US / 2) / TICKS_PER_US;

	*rest = (int32_t)(t - us * TICKS_PER_US);
	return (struct rcin_level){ .dur_us = (uint32_t)us, .level = level };
}

/* Two 32-bit reads, high then low; carry: the ticks the microseconds so far left over, -100..99. */
static void rcin_aiopru_decode(struct mmio *win, size_t off, struct rcin_level *lev, int32_t *carry)
{
	lev[0] = level_of(1, mmio_read32(win, off + ENTRY_HIGH_OFF), carry);
	lev[1] = level_of(0, mmio_read32(win, off + ENTRY_LOW_OFF), carry);
}

static const struct pru_ring_fmt rcin_aiopru_fmt = {
	.entry_bytes = 8,
	.entry_levels = 2,
	.tail_newest = 1,
	.lag = 1,
	.decode = rcin_aiopru_decode,
};

int rcin_aiopru_open(struct mmio *win, size_t off, struct rcin **out)
{
	return pru_ring_open(win, off, &rcin_aiopru_fmt, out);
}
