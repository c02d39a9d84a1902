/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Files that must survive a power cut whole or not at all: parameters,
 * missions, signing keys. Called from the io thread or at start-up, never
 * from the timer or main thread (they block on the disk).
 */
#ifndef FULMAR_STORAGE_H
#define FULMAR_STORAGE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Replaces path with data: writes path.tmp, fsyncs it, renames it over path and
 * fsyncs the directory. A crash at any point leaves the old or the new file.
 * Returns 0 or -errno (the old file is then untouched).
 */
int storage_write_atomic(const char *path, const void *data, size_t len, mode_t mode);
/*
 * Reads the whole file into buf. Returns the length, -ENOENT when it does not
 * exist, -EFBIG when it is longer than cap, or another -errno.
 */
long storage_read(const char *path, void *buf, size_t cap);

#endif
