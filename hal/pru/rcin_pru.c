// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the BeagleBone PRU: the rcinpru0 firmware on PRU0 busy-polls
 * the RC pin (P8_15, R31 bit 15) and, at each change, appends one entry to a
 * ring in PRU shared RAM:
 *
 *   word 0        u16 ring_head (bits 0..15), u16 ring_tail (bits 16..31)
 *   word 1 + i    entry i: u16 pin_value (bits 0..15), u16 delta_t (16..31)
 *
 * (little-endian on both the PRU and the ARM). From the firmware's source
 * (Tools/Linux_HAL_Essentials/pru/rcinpru/rcinpru0.c):
 *   - an entry holds the level that has just ENDED and how long it lasted:
 *     pin_value 1 is a high level. The 2015 ARM code took pin_value 1 for the
 *     low time, i.e. it read the pin inverted; we take the firmware's meaning,
 *     so low_us really is the time the pin was low. PPM-sum, which adds the
 *     two, cannot tell; SBUS and DSM from pulses can.
 *   - delta_t is microseconds (the IEP counter at 200 MHz / 200) truncated to
 *     16 bits: a level over 65.535 ms (a pin idle before a receiver starts) is
 *     reported modulo 65536 us. The firmware divides the free-running 32-bit
 *     counter before subtracting, so once every 2^32 / 200 MHz = 21.47 s one
 *     level comes out 20972 us too long (2^32 mod (200 * 65536) us, in the
 *     16-bit field). Nothing on this side can tell those from real levels.
 *   - the firmware writes the entry, then the tail. It starts with tail = 20
 *     and never reads head: when the ARM falls 300 entries behind, it
 *     overwrites unread entries and the ring looks emptier than it is.
 *
 * Ordering: the window is device memory (mmio_linux maps /dev/mem O_SYNC and
 * UIO maps uncached), so these reads reach the RAM in program order: the tail
 * first, then the entries it publishes, each entry one 32-bit read. The PRU
 * writes the tail with a 16-bit store and never tears it.
 *
 * Head is kept here, not written back. The firmware never reads it, and it
 * shares its 32-bit word with the tail; a 32-bit write of head (the only width
 * struct mmio has) could put back a tail the PRU had just advanced, and the
 * PRU, which increments the tail it reads back, would then overwrite an
 * unread entry and lose an edge. (The 2015 ARM code wrote head with a 16-bit
 * store, which is safe; a firmware that read head would need struct mmio to
 * grow 16-bit writes.)
 *
 * Overruns: the PRU overtaking us while we copy the ring is seen by reading
 * the tail again afterwards (counted, the batch dropped, resync). A whole lap
 * between two reads cannot be seen: the ring then looks consistent, and the
 * low before the lap pairs with a high after it into one bogus pair, which
 * the decoders reject as they reject noise. Only a rcin thread fast enough
 * for the signal avoids it (hal_pru.h); a lap during the copy itself (a
 * reader pre-empted for 300 levels, 2.6 ms of the fastest RC signal) is not
 * seen either.
 *
 * Everything is read into a queue of stamped pairs (rcin_levels.h) at once,
 * however few pairs the caller takes, so the ring is emptied on every read.
 */
#include "pru/hal_pru.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rcin_levels.h"

#define RING_WORD 0
#define ENTRY_OFF(i) (4 + 4 * (size_t)(i))
#define ALL_ONES 0xFFFFFFFFu

struct rcin_pru {
	struct rcin in;             /* first: the HAL hands out &in */
	struct mmio *win;
	size_t off;
	uint16_t head;              /* next entry to read; ours alone */
	bool corrupt;               /* the last tail read was impossible */
	struct rcin_levels lv;
	struct rcin_level lev[RCIN_PRU_RING_ENTRIES];
	/* A full ring makes at most this many pairs. */
	struct rcin_pulse pend[RCIN_PRU_RING_ENTRIES / 2];
};

/* in is the first member of a struct rcin_pru from calloc (see analog_iio.c). */
static struct rcin_pru *rcin_pru_of(struct rcin *in)
{
	return (struct rcin_pru *)(void *)in;
}

static uint32_t ring_read(struct rcin_pru *p, size_t off)
{
	return mmio_read32(p->win, p->off + off);
}

static unsigned int ring_count(unsigned int from, unsigned int to)
{
	return (to + RCIN_PRU_RING_ENTRIES - from) % RCIN_PRU_RING_ENTRIES;
}

/* After a fault: forget the ring's content and our pairing state. */
static void rcin_pru_resync(struct rcin_pru *p, uint16_t tail)
{
	p->head = tail;
	rcin_levels_reset(&p->lv);
}

/* Takes what the ring holds, as far as the queue of pairs has room. */
static void rcin_pru_capture(struct rcin_pru *p, uint64_t now_us)
{
	size_t room = rcin_levels_room(&p->lv);

	if (room == 0)
		return;
	uint16_t tail = (uint16_t)(ring_read(p, RING_WORD) >> 16);
	if (tail >= RCIN_PRU_RING_ENTRIES) {
		/* Once per run of bad reads: it is one fault, however long it lasts. */
		if (!p->corrupt)
			p->in.stats.bad++;
		p->corrupt = true;
		return;
	}
	if (p->corrupt) {
		/* What the ring held while the tail made no sense cannot be trusted. */
		p->corrupt = false;
		rcin_pru_resync(p, tail);
		return;
	}

	unsigned int avail = ring_count(p->head, tail);
	unsigned int n = 0;
	size_t highs = 0;
	while (n < avail && highs < room) {
		uint32_t e = ring_read(p, ENTRY_OFF((p->head + n) % RCIN_PRU_RING_ENTRIES));
		uint16_t pin = (uint16_t)(e & 0xFFFFu);
		p->lev[n].level = pin > 1 ? 2 : (uint8_t)pin;
		p->lev[n].dur_us = e >> 16;
		if (pin == 1)
			highs++;
		n++;
	}

	if (n > 0) {
		/*
		 * The PRU went on writing from tail while we copied: if it wrote
		 * past what was free, some of what we copied may be newer than
		 * the rest. Drop the batch and start again from the new tail.
		 */
		uint16_t tail2 = (uint16_t)(ring_read(p, RING_WORD) >> 16);
		if (tail2 >= RCIN_PRU_RING_ENTRIES) {
			p->in.stats.bad++;
			p->corrupt = true;
			return;
		}
		if (avail + ring_count(tail, tail2) > RCIN_PRU_RING_ENTRIES) {
			p->in.stats.overruns++;
			rcin_pru_resync(p, tail2);
			return;
		}
	}
	p->head = (uint16_t)((p->head + n) % RCIN_PRU_RING_ENTRIES);
	rcin_levels_take(&p->lv, p->lev, n, now_us, n == avail);
}

static int rcin_pru_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	struct rcin_pru *p = rcin_pru_of(in);

	rcin_pru_capture(p, now_us);
	return (int)rcin_levels_out(&p->lv, out, max);
}

static void rcin_pru_close(struct rcin *in)
{
	free(rcin_pru_of(in));
}

static const struct rcin_ops rcin_pru_ops = {
	.read = rcin_pru_read,
	.close = rcin_pru_close,
};

int rcin_pru_open(struct mmio *win, size_t off, struct rcin **out)
{
	size_t len = mmio_len(win);

	if (off % 4 != 0 || off > len || len - off < RCIN_PRU_BYTES)
		return -EINVAL;
	uint32_t w = mmio_read32(win, off + RING_WORD);
	if (w == ALL_ONES)
		return -ENXIO;
	uint16_t tail = (uint16_t)(w >> 16);
	if (tail >= RCIN_PRU_RING_ENTRIES)
		return -EPROTO;

	struct rcin_pru *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->in.ops = &rcin_pru_ops;
	p->win = win;
	p->off = off;
	rcin_levels_init(&p->lv, &p->in.stats, p->pend, sizeof(p->pend) / sizeof(p->pend[0]));
	/* What the ring holds already has no time to it: start from the tail. */
	p->head = tail;
	*out = &p->in;
	return 0;
}

int pru_check_running(struct mmio *win, size_t ctrl_off)
{
	size_t len = mmio_len(win);

	if (ctrl_off % 4 != 0 || ctrl_off > len || len - ctrl_off < 4)
		return -EINVAL;
	uint32_t control = mmio_read32(win, ctrl_off);
	if (control == ALL_ONES)
		return -ENXIO;
	/* AM335x TRM, PRU-ICSS PRU_CTRL CONTROL register: bit 15 RUNSTATE. */
	return (control & (1u << 15)) ? 0 : -EHOSTDOWN;
}
