// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The notify protocol spoken directly, for builds without libsystemd: one
 * datagram to the AF_UNIX socket named in $NOTIFY_SOCKET ('@' = abstract),
 * and the watchdog period from $WATCHDOG_USEC when $WATCHDOG_PID is us
 * (systemd's sd_notify(3) documents both).
 */
#include "daemon/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !path[0])
		return 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	if (len >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@'))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ssize_t n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	int rc = n < 0 ? -errno : 0;
	close(fd);
	return rc;
}

uint64_t notify_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	if (!usec)
		return 0;
	if (pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	char *end;
	unsigned long long v = strtoull(usec, &end, 10);
	return *end ? 0 : v;
}
