/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Memory-mapped register windows: PRU shared RAM, Zynq PL PWM and pulse-capture
 * FIFO. 32-bit accesses only, at 4-byte aligned offsets inside the window
 * (an offset outside it is a programmer error and asserts). A window belongs
 * to one thread.
 */
#ifndef FULMAR_MMIO_H
#define FULMAR_MMIO_H

#include <stddef.h>
#include <stdint.h>

struct mmio;

/*
 * Where a window comes from: a UIO device found by its name (preferred; it
 * needs no /dev/mem), or a physical base in a memory device.
 */
struct mmio_config {
	const char *uio_name;   /* name in /sys/class/uio/uioN/name; NULL: use mem_path */
	unsigned int uio_map;   /* which of the UIO device's maps */
	const char *mem_path;   /* "/dev/mem" */
	uint64_t phys_base;     /* page aligned */
	size_t len;             /* bytes, a multiple of 4 */
};

uint32_t mmio_read32(struct mmio *m, size_t off);
void mmio_write32(struct mmio *m, size_t off, uint32_t value);
size_t mmio_len(const struct mmio *m);
/* NULL is a no-op. */
void mmio_close(struct mmio *m);

/* For backends only. */
struct mmio_ops {
	uint32_t (*read32)(struct mmio *m, size_t off);
	void (*write32)(struct mmio *m, size_t off, uint32_t value);
	void (*close)(struct mmio *m);
};

struct mmio {
	const struct mmio_ops *ops;
	size_t len;
};

#endif
