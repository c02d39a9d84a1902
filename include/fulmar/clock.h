/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The monotonic clock. Flight code never calls these: it is handed now_us by
 * the scheduler, whose time is the simulator's in lock-step HIL. These are for
 * the scheduler itself, the HAL and start-up.
 */
#ifndef FULMAR_CLOCK_H
#define FULMAR_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clock_mono_ns(void);
/* Sleeps until CLOCK_MONOTONIC reaches t_ns (absolute; EINTR resumed). Returns 0 or -errno. */
int clock_sleep_until_ns(uint64_t t_ns);

#endif
