// SPDX-License-Identifier: GPL-3.0-or-later
#include "fake_node.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

int fake_node_create(struct fake_node *n, const char *prefix)
{
	struct stat st;
	snprintf(n->path, sizeof(n->path), "/tmp/fulmar-%s-XXXXXX", prefix);
	int fd = mkstemp(n->path);
	if (fd < 0)
		return -1;
	int rc = fstat(fd, &st);
	close(fd);
	if (rc < 0)
		return -1;
	n->dev = st.st_dev;
	n->ino = st.st_ino;
	return 0;
}

void fake_node_remove(struct fake_node *n)
{
	unlink(n->path);
}

bool fake_node_is(const struct fake_node *n, int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == n->dev && st.st_ino == n->ino;
}

int fake_node_kernel_ioctl(int fd, unsigned long req, void *arg)
{
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

int fake_node_kernel_answer(const char *path, unsigned long req)
{
	unsigned long arg = 0;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	int rc = fake_node_kernel_ioctl(fd, req, &arg);
	int e = errno;
	close(fd);
	assert_int_equal(rc, -1);
	assert_true(e == ENOTTY || e == ENOSYS);
	return -e;
}
