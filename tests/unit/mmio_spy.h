/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the register-window backends' tests share (test_rcin_pru.c,
 * test_rcin_aiopru.c): a struct mmio in front of the real window that counts
 * the backend's reads and writes and can run a hook on each read (the PRU
 * writing while the backend reads), and the monotonic clock in microseconds.
 */
#ifndef FULMAR_TEST_MMIO_SPY_H
#define FULMAR_TEST_MMIO_SPY_H

#include <stddef.h>
#include <stdint.h>

#include "fulmar/mmio.h"

struct spy {
	struct mmio m;
	struct mmio *real;
	unsigned int writes;
	unsigned int reads;
	size_t limit;                 /* when set: writes at or past it, or unaligned, ... */
	unsigned int outside;         /* ... counted here */
	void (*on_read)(struct spy *s, size_t off);
	void *ctx;
};

/* s in front of real (not owned: closing s leaves real open). */
void spy_init(struct spy *s, struct mmio *real);

uint64_t mono_us(void);
/* Sleeps until the monotonic clock reads t_us. */
void sleep_until_us(uint64_t t_us);

#endif
