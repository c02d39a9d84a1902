/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lock-step busy-polling, judged as it goes. Each side of a lock-step link
 * (fulmard and fulmar-sim over UDP) reads the other's next message without
 * blocking for a short bound before it sleeps in poll: the peer answers within
 * microseconds when it has a CPU of its own, and a process that blocked waits
 * for the kernel to wake it (on a virtual machine, a halted virtual CPU's
 * wake-up: tens of microseconds), twice in every frame.
 *
 * Spinning pays only while the peer runs at the same time on another CPU; on
 * a loaded host it takes the CPU the peer waits for. So it is judged over
 * windows of SPIN_WINDOW frames: a window in which more than SPIN_MISSES
 * messages came only after the spin turns it off for SPIN_OFF frames, twice
 * that after another bad window, up to SPIN_OFF_MAX, and then it is tried
 * again.
 */
#ifndef FULMAR_UTIL_SPIN_H
#define FULMAR_UTIL_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#define SPIN_WINDOW 64u
#define SPIN_MISSES 6u
#define SPIN_OFF 1024u
#define SPIN_OFF_MAX 16384u

struct spin_judge {
	uint64_t bound_ns;         /* as configured; 0: never spin */
	uint64_t spin_ns;          /* the bound now: bound_ns, or 0 while turned off */
	uint32_t window, misses;   /* frames, and frames the spin missed, in this window */
	uint32_t off_left;         /* frames still to go without spinning */
	uint32_t off_next;         /* how long the next bad window turns it off */
	uint64_t offs;             /* bad windows so far */
};

void spin_judge_init(struct spin_judge *j, uint64_t bound_ns);
/* After each frame: whether the spinning caught the peer's message. */
void spin_judge_frame(struct spin_judge *j, bool caught);

#endif
