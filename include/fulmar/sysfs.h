/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A kernel driver's attribute files in one sysfs directory (the Navio2's
 * RCIO module under /sys/kernel/rcio, a PWM chip under /sys/class/pwm), for
 * the parts whose kernel driver speaks to the chip and hands user space
 * plain text files. A handle belongs to one thread. Each read is an
 * open/read/close of a sysfs file: for the io or main thread at
 * housekeeping rates, not the timer thread.
 */
#ifndef FULMAR_SYSFS_H
#define FULMAR_SYSFS_H

#include <stddef.h>

struct sysfs_dir;

struct sysfs_config {
	const char *path;       /* the directory: "/sys/kernel/rcio" */
};

/*
 * The text of the attribute name (a path relative to the directory:
 * "rcin/ch0") into buf, NUL-terminated (at most cap - 1 bytes; a longer
 * file is -EOVERFLOW). Returns its length, or -errno: -ENOENT when the file
 * is not there.
 */
int sysfs_read(struct sysfs_dir *dir, const char *name, char *buf, size_t cap);
/* The directory's path as opened (for messages and for backends that take a path). */
const char *sysfs_path(const struct sysfs_dir *dir);
/* NULL is a no-op. */
void sysfs_close(struct sysfs_dir *dir);

/* For backends only: embed struct sysfs_dir first. */
struct sysfs_ops {
	int (*read)(struct sysfs_dir *dir, const char *name, char *buf, size_t cap);
	void (*close)(struct sysfs_dir *dir);
};

struct sysfs_dir {
	const struct sysfs_ops *ops;
	const char *path;
};

#endif
