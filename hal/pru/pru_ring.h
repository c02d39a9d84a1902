/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the two PRU RC input backends share (rcin_pru.c for rcinpru0,
 * rcin_aiopru.c for the AioPRU firmware): a ring the firmware writes in PRU
 * RAM,
 *
 *   word 0      u16 ring_head (bits 0..15), u16 ring_tail (bits 16..31)
 *   then        PRU_RING_ENTRIES entries of entry_bytes each
 *
 * little-endian on both sides; the firmware stores an entry, then the tail
 * with a 16-bit store, and never reads head. The reader here is the
 * backend's struct rcin; a backend says how its entries are laid out and how
 * one becomes levels of the pin (rcin_levels.h), the rest is the same.
 */
#ifndef FULMAR_HAL_PRU_RING_H
#define FULMAR_HAL_PRU_RING_H

#include <stddef.h>
#include <stdint.h>

#include "fulmar/mmio.h"
#include "fulmar/rcin.h"
#include "rcin_levels.h"

#define PRU_RING_ENTRIES 300

struct pru_ring_fmt {
	size_t entry_bytes;
	size_t entry_levels;        /* levels each entry makes: 1 or 2 */
	/* 0: the tail is the entry the firmware writes next; 1: the one it wrote last */
	unsigned int tail_newest;
	size_t lag;                 /* rcin_levels' lag */
	/*
	 * Reads the entry at byte offset off of win (in as many 32-bit reads as
	 * it takes, in order) into entry_levels levels. carry is the decoder's,
	 * from one entry to the next; 0 after open and after a fault.
	 */
	void (*decode)(struct mmio *win, size_t off, struct rcin_level *lev, int32_t *carry);
};

/*
 * RC input from the ring at byte offset off of win, laid out as fmt says.
 * Returns -EINVAL when the ring does not fit the window, -ENXIO when the
 * window reads all ones, -EPROTO when the tail is impossible, -ENOMEM.
 */
int pru_ring_open(struct mmio *win, size_t off, const struct pru_ring_fmt *fmt, struct rcin **out);

#endif
