// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the Zynq PL pulse-capture FIFO: the PL times each level of the
 * RC pin with a 100 MHz counter and queues {bit 31: the level that ended,
 * bits 30..0: its length in ticks}; the ARM pops one entry per read of a
 * single keyhole register, and reads 0xFFFFFFFF when the FIFO is empty
 * (ArduPilot's RCInput_ZYNQ; docs/boards.md, "Where the wiring facts come
 * from"). Low and high entries then alternate, low first in each pair.
 *
 * Ticks become microseconds with the remainder carried from one level to the
 * next, so that a run of levels adds up to its true length (truncating each
 * level on its own loses half a microsecond per level on average, a steady
 * one microsecond off every PPM channel).
 *
 * A pop is destructive: what is popped is stamped at once and its pairs
 * queued here until the caller takes them. The loop stops when the FIFO
 * reads empty, when the queue could not hold another pair, and after
 * RCIN_ZYNQ_POPS_MAX pops in any case, so a register that never reads empty
 * cannot hold the rcin thread.
 *
 * The FIFO's depth and what the PL does when it is full are not known here;
 * entries it drops show as a repeated level (counted in overruns) when an odd
 * number of them is lost.
 */
#include "zynq/hal_zynq.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rcin_levels.h"

#define FIFO_EMPTY 0xFFFFFFFFu
#define TICKS_PER_US 100u

struct rcin_zynq {
	struct rcin in;             /* first: the HAL hands out &in */
	struct mmio *win;
	size_t off;
	uint32_t tick_rem;          /* ticks below a microsecond, carried */
	struct rcin_levels lv;
	struct rcin_level lev[RCIN_ZYNQ_POPS_MAX];
	struct rcin_pulse pend[RCIN_ZYNQ_POPS_MAX / 2];
};

static struct rcin_zynq *rcin_zynq_of(struct rcin *in)
{
	return (struct rcin_zynq *)(void *)in;
}

/* Pops what the FIFO holds, as far as the queue of pairs has room. */
static void rcin_zynq_capture(struct rcin_zynq *z, uint64_t now_us)
{
	size_t room = rcin_levels_room(&z->lv);
	size_t n = 0, highs = 0;
	bool drained = false;

	if (room == 0)
		return;
	while (n < RCIN_ZYNQ_POPS_MAX && highs < room) {
		uint32_t v = mmio_read32(z->win, z->off);
		if (v == FIFO_EMPTY) {
			drained = true;
			break;
		}
		/* At most 2^31 - 1 + 99: no overflow. */
		uint32_t ticks = z->tick_rem + (v & 0x7FFFFFFFu);
		z->lev[n].dur_us = ticks / TICKS_PER_US;
		z->tick_rem = ticks % TICKS_PER_US;
		z->lev[n].level = (uint8_t)(v >> 31);
		highs += v >> 31;
		n++;
	}
	rcin_levels_take(&z->lv, z->lev, n, now_us, drained);
}

static int rcin_zynq_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	struct rcin_zynq *z = rcin_zynq_of(in);

	rcin_zynq_capture(z, now_us);
	return (int)rcin_levels_out(&z->lv, out, max);
}

static void rcin_zynq_close(struct rcin *in)
{
	free(rcin_zynq_of(in));
}

static const struct rcin_ops rcin_zynq_ops = {
	.read = rcin_zynq_read,
	.close = rcin_zynq_close,
};

int rcin_zynq_open(struct mmio *win, size_t off, struct rcin **out)
{
	size_t len = mmio_len(win);
	uint32_t pops = 0;

	if (off % 4 != 0 || off > len || len - off < 4)
		return -EINVAL;
	while (mmio_read32(win, off) != FIFO_EMPTY)
		if (++pops >= RCIN_ZYNQ_DRAIN_MAX)
			return -EPROTO;

	struct rcin_zynq *z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->in.ops = &rcin_zynq_ops;
	z->win = win;
	z->off = off;
	rcin_levels_init(&z->lv, &z->in.stats, z->pend, sizeof(z->pend) / sizeof(z->pend[0]));
	/* Emptied just now: whatever comes next ended after this. */
	*out = &z->in;
	return 0;
}
