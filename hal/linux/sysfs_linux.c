// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A sysfs directory (include/fulmar/sysfs.h): the directory is held open and
 * every read is openat/read/close of one attribute, so a file that a module
 * reload takes away and brings back is found again without reopening the
 * handle. sysfs gives a whole attribute in one read at offset 0; a file
 * that does not fit the caller's buffer is refused, not cut.
 */
#include "linux/hal_linux.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sysfs_linux {
	struct sysfs_dir dir;       /* first: the HAL hands out &dir */
	int fd;
	char *path;
};

static struct sysfs_linux *sysfs_linux_of(struct sysfs_dir *dir)
{
	return (struct sysfs_linux *)(void *)dir;
}

static int sysfs_linux_read(struct sysfs_dir *dir, const char *name, char *buf, size_t cap)
{
	struct sysfs_linux *s = sysfs_linux_of(dir);
	int fd = openat(s->fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = pread(fd, buf, cap, 0);
	while (n < 0 && errno == EINTR);
	int rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	if ((size_t)n >= cap)
		return -EOVERFLOW;
	buf[n] = '\0';
	return (int)n;
}

static void sysfs_linux_close(struct sysfs_dir *dir)
{
	struct sysfs_linux *s = sysfs_linux_of(dir);

	close(s->fd);
	free(s->path);
	free(s);
}

static const struct sysfs_ops sysfs_linux_ops = {
	.read = sysfs_linux_read,
	.close = sysfs_linux_close,
};

int sysfs_linux_open(const struct sysfs_config *cfg, struct sysfs_dir **out)
{
	struct sysfs_linux *s = calloc(1, sizeof(*s));
	int rc = -ENOMEM;

	if (!s)
		goto err_alloc;
	s->path = strdup(cfg->path);
	if (!s->path)
		goto err_path;
	s->fd = open(cfg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->fd < 0) {
		rc = errno == ENOENT ? -ENODEV : -errno;
		goto err_open;
	}
	s->dir.ops = &sysfs_linux_ops;
	s->dir.path = s->path;
	*out = &s->dir;
	return 0;

err_open:
	free(s->path);
err_path:
	free(s);
err_alloc:
	return rc;
}
