// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Crash-safe file replacement: the data reaches the disk under a temporary
 * name, and only then does rename() swap it in, which POSIX makes atomic.
 * The directory is fsynced last so that the rename itself survives.
 */
#include "fulmar/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory holding path: "a/b" -> "a", "/b" -> "/", "b" -> ".". */
static int storage_dir_of(const char *path, char *dir, size_t cap)
{
	const char *slash = strrchr(path, '/');
	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (n >= cap)
		return -ENAMETOOLONG;
	if (n == 0) {
		strcpy(dir, ".");
		return 0;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

static int storage_write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int storage_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX];
	char tmp[PATH_MAX];
	int dir_fd, fd, err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	err = storage_dir_of(path, dir, sizeof(dir));
	if (err)
		return err;
	/* Opened first, so a missing directory fails before anything is written. */
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;

	/*
	 * O_NOFOLLOW: a symlink planted at the temporary name must not redirect
	 * the write. fchmod: a tmp file left by a crash keeps its old mode
	 * through O_TRUNC, and a key must not inherit a looser one.
	 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		err = -errno;
		goto err_close_dir;
	}
	if (fchmod(fd, mode) < 0) {
		err = -errno;
		goto err_close_file;
	}
	err = storage_write_all(fd, data, len);
	if (err)
		goto err_close_file;
	if (fsync(fd) < 0) {
		err = -errno;
		goto err_close_file;
	}
	/* Some file systems (NFS) report write-back errors only here. */
	if (close(fd) < 0) {
		err = -errno;
		goto err_unlink;
	}
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto err_unlink;
	}
	/*
	 * The new file is in place; a failure now leaves only its durability in
	 * doubt. EINVAL: the file system has no directory fsync to offer.
	 */
	err = fsync(dir_fd) < 0 && errno != EINVAL ? -errno : 0;
	close(dir_fd);
	return err;

err_close_file:
	close(fd);
err_unlink:
	unlink(tmp);
err_close_dir:
	close(dir_fd);
	return err;
}

long storage_read(const char *path, void *buf, size_t cap)
{
	uint8_t *p = buf;
	size_t got = 0;
	long err;

	if (cap > LONG_MAX)
		cap = LONG_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		uint8_t extra;
		/* Once buf is full, one more byte tells a file of exactly cap from a longer one. */
		ssize_t n = got < cap ? read(fd, p + got, cap - got) : read(fd, &extra, 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto err_close;
		}
		if (n == 0)
			break;
		if (got == cap) {
			err = -EFBIG;
			goto err_close;
		}
		got += (size_t)n;
	}
	close(fd);
	return (long)got;

err_close:
	close(fd);
	return err;
}
