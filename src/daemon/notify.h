/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Telling systemd how we are (Type=notify): READY=1 once the threads run,
 * WATCHDOG=1 while they keep running, STOPPING=1 on the way out. Outside
 * systemd every call is a successful no-op. Leader thread only.
 */
#ifndef FULMAR_DAEMON_NOTIFY_H
#define FULMAR_DAEMON_NOTIFY_H

#include <stdint.h>

/* Sends a state string ("READY=1"). Returns 0 (also when not under systemd) or -errno. */
int notify_send(const char *state);
/* The watchdog period systemd asks for in microseconds, or 0 when there is none. */
uint64_t notify_watchdog_usec(void);

#endif
