// SPDX-License-Identifier: GPL-3.0-or-later
#include "daemon/pm_qos.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int pm_qos_hold(const char *path, int32_t latency_us)
{
	if (latency_us < 0)
		return -EINVAL;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The interface takes the value as a binary s32 (or as a hex string). */
	ssize_t n = write(fd, &latency_us, sizeof(latency_us));
	if (n != (ssize_t)sizeof(latency_us)) {
		int err = n < 0 ? -errno : -EIO;
		close(fd);
		return err;
	}
	return fd;
}

void pm_qos_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
