/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What test_notify and test_watchdog share in playing systemd's side of the
 * notify protocol: a monotonic clock in milliseconds and the next datagram
 * on the notify socket.
 */
#ifndef FULMAR_TESTS_NOTIFY_PEER_H
#define FULMAR_TESTS_NOTIFY_PEER_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

static inline long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The next notify message within timeout_ms into buf, NUL-terminated: 1, or 0 on timeout. */
static inline int next_msg(int fd, char *buf, size_t len, long long timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (timeout_ms < 0)
		timeout_ms = 0;
	if (poll(&p, 1, (int)timeout_ms) <= 0)
		return 0;
	ssize_t n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

#endif
