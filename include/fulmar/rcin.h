/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * RC input pin capture: the pin's levels as (low, high) pulse pairs, which the
 * RC decoders (src/rc) turn into channels. Backends: GPIO edge events (Navio),
 * the BeagleBone PRU's edge ring, the Zynq PL pulse-capture FIFO. Owned and
 * polled by the rcin thread. Functions return a count or 0, or -errno.
 */
#ifndef FULMAR_RCIN_H
#define FULMAR_RCIN_H

#include <stddef.h>
#include <stdint.h>

struct rcin;

struct rcin_pulse {
	uint32_t low_us;          /* the pin was low this long ... */
	uint32_t high_us;         /* ... then high this long */
	uint64_t t_us;            /* when the high level ended (CLOCK_MONOTONIC, us) */
};

struct rcin_stats {
	uint64_t pulses;          /* pairs handed out */
	uint64_t overruns;        /* edges the hardware or kernel lost (a queue overflowed) */
	uint64_t bad;             /* entries that made no sense (corrupt ring index, zero width) */
};

/*
 * Up to max pulse pairs captured since the last call, oldest first; never
 * blocks. now_us: the caller's clock read just before the call, for backends
 * whose hardware counts durations only (PRU, Zynq): they stamp pairs by adding
 * durations up to it, exact relative to each other and within the bounds the
 * backend knows in absolute time.
 */
int rcin_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us);
const struct rcin_stats *rcin_stats(const struct rcin *in);
/* NULL is a no-op. */
void rcin_close(struct rcin *in);

/* For backends only: embed struct rcin first. */
struct rcin_ops {
	int (*read)(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us);
	void (*close)(struct rcin *in);
};

struct rcin {
	const struct rcin_ops *ops;
	struct rcin_stats stats;
};

#endif
