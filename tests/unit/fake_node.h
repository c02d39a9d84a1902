/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A stand-in device node for backend tests on a machine without the device:
 * a temporary file whose ioctls the test answers as the kernel driver would
 * (the test defines ioctl() and asks fake_node_is(fd) to pick its requests),
 * while every other descriptor reaches the real kernel.
 */
#ifndef FULMAR_TEST_FAKE_NODE_H
#define FULMAR_TEST_FAKE_NODE_H

#include <stdbool.h>
#include <sys/types.h>

struct fake_node {
	char path[64];
	dev_t dev;
	ino_t ino;
};

/* Creates the file under /tmp with prefix in its name. Returns 0 or -1. */
int fake_node_create(struct fake_node *n, const char *prefix);
void fake_node_remove(struct fake_node *n);
/* Whether fd is open on the node. */
bool fake_node_is(const struct fake_node *n, int fd);
/* The real ioctl syscall, for the requests the test passes on. */
int fake_node_kernel_ioctl(int fd, unsigned long req, void *arg);
/*
 * What the kernel itself answers to req on path, as a -errno: -ENOTTY from a
 * driver that does not know it, -ENOSYS from qemu-user (the armhf runs), which
 * passes on no request it cannot translate. Asserts that the call fails.
 */
int fake_node_kernel_answer(const char *path, unsigned long req);

#endif
