/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the register-window backends' tests share (the PRU backends' tests
 * and the boards' that use them): a window as /dev/mem gives one, over a
 * memfd; a struct mmio in front of the real window that counts the backend's
 * reads and writes and can run a hook on each read (the PRU writing while the
 * backend reads); the firmware's side of a block; and the monotonic clock in
 * microseconds.
 */
#ifndef FULMAR_TEST_MMIO_SPY_H
#define FULMAR_TEST_MMIO_SPY_H

#include <stddef.h>
#include <stdint.h>

#include "fulmar/mmio.h"

/*
 * A memfd of len bytes mapped through the real mmio backend (win, the
 * board's or backend's handle) and mapped again for the other side (ram: the
 * PRU's, the PL's). 0, or -errno.
 */
struct emul_memwin {
	int fd;
	size_t len;
	struct mmio *win;
	volatile uint32_t *ram;
};

int emul_memwin_open(struct emul_memwin *m, size_t len);
void emul_memwin_close(struct emul_memwin *m);

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

/* s in front of real (not owned: closing s leaves real open), as long as real. */
void spy_init(struct spy *s, struct mmio *real);

/* Word w of a block on the far side of a window, as its firmware reads and writes it. */
static inline uint32_t blk_get(volatile uint32_t *blk, unsigned int w)
{
	return __atomic_load_n(&blk[w], __ATOMIC_ACQUIRE);
}

static inline void blk_put(volatile uint32_t *blk, unsigned int w, uint32_t v)
{
	__atomic_store_n(&blk[w], v, __ATOMIC_RELEASE);
}

uint64_t mono_us(void);
/* Sleeps until the monotonic clock reads t_us. */
void sleep_until_us(uint64_t t_us);

#endif
