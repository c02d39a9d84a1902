// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The PRU RC rings' reader (pru_ring.h).
 *
 * Ordering: the window is device memory (mmio_linux maps /dev/mem O_SYNC and
 * UIO maps uncached), so these reads reach the RAM in program order: the tail,
 * then the entries it publishes, each in whole 32-bit reads, then the tail
 * again. The PRU writes the tail with a 16-bit store and never tears it.
 *
 * Head is kept here, not written back. The firmware never reads it, and it
 * shares its 32-bit word with the tail; a 32-bit write of head (the only width
 * struct mmio has) could put back a tail the PRU had just advanced, and
 * rcinpru0, which increments the tail it reads back, would then overwrite an
 * unread entry and lose an edge. (The 2015 ARM code for rcinpru0 wrote head
 * with a 16-bit store, which is safe; a firmware that read head would need
 * struct mmio to grow 16-bit writes.)
 *
 * Overruns: the PRU overtaking us while we copy the ring is seen by reading
 * the tail again afterwards (counted, the batch dropped, resync). A whole lap
 * between two reads cannot be seen: the ring then looks consistent, and the
 * low before the lap pairs with a high after it into one bogus pair, which
 * the decoders reject as they reject noise. Only a rcin thread fast enough
 * for the signal avoids it (hal_pru.h); a lap during the copy itself (a
 * reader pre-empted for a whole ring: 300 of rcinpru0's levels are 2.6 ms of
 * the fastest RC signal) is not seen either.
 *
 * Everything is read into a queue of stamped pairs (rcin_levels.h) at once,
 * however few pairs the caller takes, so the ring is emptied on every read.
 */
#include "pru_ring.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pru/hal_pru.h"

static_assert(RCIN_PRU_RING_ENTRIES == PRU_RING_ENTRIES, "rcinpru0's ring size");
static_assert(RCIN_AIOPRU_RING_ENTRIES == PRU_RING_ENTRIES, "the AioPRU's ring size");

#define RING_WORD 0
#define ALL_ONES 0xFFFFFFFFu

struct pru_ring {
	struct rcin in;             /* first: the HAL hands out &in */
	struct mmio *win;
	size_t off;
	const struct pru_ring_fmt *fmt;
	uint16_t head;              /* next entry to read; ours alone */
	bool corrupt;               /* the last tail read was impossible */
	int32_t carry;              /* the decoder's, as of head */
	struct rcin_levels lv;
	struct rcin_level lev[2 * PRU_RING_ENTRIES];
	/* A full ring makes at most one pair per two levels. */
	struct rcin_pulse pend[PRU_RING_ENTRIES];
};

/* in is the first member of a struct pru_ring from calloc (see analog_iio.c). */
static struct pru_ring *pru_ring_of(struct rcin *in)
{
	return (struct pru_ring *)(void *)in;
}

static uint16_t ring_tail(struct pru_ring *p)
{
	return (uint16_t)(mmio_read32(p->win, p->off + RING_WORD) >> 16);
}

static unsigned int ring_count(unsigned int from, unsigned int to)
{
	return (to + PRU_RING_ENTRIES - from) % PRU_RING_ENTRIES;
}

/* After open or a fault: forget the ring's content and our pairing state. */
static void pru_ring_resync(struct pru_ring *p, uint16_t tail)
{
	p->head = (uint16_t)((tail + p->fmt->tail_newest) % PRU_RING_ENTRIES);
	p->carry = 0;
	rcin_levels_reset(&p->lv);
}

/* Takes what the ring holds, as far as the queue of pairs has room. */
static void pru_ring_capture(struct pru_ring *p, uint64_t now_us)
{
	const struct pru_ring_fmt *fmt = p->fmt;
	size_t room = rcin_levels_room(&p->lv);

	if (room == 0)
		return;
	uint16_t tail = ring_tail(p);
	if (tail >= PRU_RING_ENTRIES) {
		/* Once per run of bad reads: it is one fault, however long it lasts. */
		if (!p->corrupt)
			p->in.stats.bad++;
		p->corrupt = true;
		return;
	}
	if (p->corrupt) {
		/* What the ring held while the tail made no sense cannot be trusted. */
		p->corrupt = false;
		pru_ring_resync(p, tail);
		return;
	}

	unsigned int avail = ring_count(p->head, (tail + fmt->tail_newest) % PRU_RING_ENTRIES);
	unsigned int n = 0;
	size_t nlev = 0, highs = 0;
	int32_t carry = p->carry;
	while (n < avail && highs < room) {
		struct rcin_level *lev = &p->lev[nlev];
		size_t i = (p->head + n) % PRU_RING_ENTRIES;

		fmt->decode(p->win, p->off + 4 + fmt->entry_bytes * i, lev, &carry);
		for (size_t k = 0; k < fmt->entry_levels; k++)
			highs += lev[k].level == 1;
		nlev += fmt->entry_levels;
		n++;
	}

	if (n > 0) {
		/*
		 * The PRU went on writing while we copied: past the free entries
		 * it wrote over what we copied, and some of that may be newer
		 * than the rest. Drop the batch and start again from the new tail.
		 */
		uint16_t tail2 = ring_tail(p);
		if (tail2 >= PRU_RING_ENTRIES) {
			p->in.stats.bad++;
			p->corrupt = true;
			return;
		}
		if (avail + ring_count(tail, tail2) > PRU_RING_ENTRIES) {
			p->in.stats.overruns++;
			pru_ring_resync(p, tail2);
			return;
		}
	}
	p->head = (uint16_t)((p->head + n) % PRU_RING_ENTRIES);
	p->carry = carry;
	rcin_levels_take(&p->lv, p->lev, nlev, now_us, n == avail);
}

static int pru_ring_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	struct pru_ring *p = pru_ring_of(in);

	pru_ring_capture(p, now_us);
	return (int)rcin_levels_out(&p->lv, out, max);
}

static void pru_ring_close(struct rcin *in)
{
	free(pru_ring_of(in));
}

static const struct rcin_ops pru_ring_ops = {
	.read = pru_ring_read,
	.close = pru_ring_close,
};

int pru_ring_open(struct mmio *win, size_t off, const struct pru_ring_fmt *fmt, struct rcin **out)
{
	size_t len = mmio_len(win);

	assert(fmt->entry_levels >= 1 && fmt->entry_levels <= 2 && fmt->tail_newest <= 1);
	if (off % 4 != 0 || off > len || len - off < 4 + fmt->entry_bytes * PRU_RING_ENTRIES)
		return -EINVAL;
	uint32_t w = mmio_read32(win, off + RING_WORD);
	if (w == ALL_ONES)
		return -ENXIO;
	uint16_t tail = (uint16_t)(w >> 16);
	if (tail >= PRU_RING_ENTRIES)
		return -EPROTO;

	struct pru_ring *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->in.ops = &pru_ring_ops;
	p->win = win;
	p->off = off;
	p->fmt = fmt;
	/* An entry of two levels makes at most one pair; two of one level, one. */
	rcin_levels_init(&p->lv, &p->in.stats, p->pend, PRU_RING_ENTRIES * fmt->entry_levels / 2);
	p->lv.lag = fmt->lag;
	/* What the ring holds already has no time to it. */
	pru_ring_resync(p, tail);
	*out = &p->in;
	return 0;
}
