/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated I2C bus behind struct i2c_ops with emulated chips attached at
 * their addresses. A transfer to an address nobody answers is NAKed
 * (-ENXIO, as i2c.h promises); the whole bus can be made to fail the next n
 * transfers. Single-threaded; the test owns it.
 */
#ifndef FULMAR_TESTS_EMUL_I2C_H
#define FULMAR_TESTS_EMUL_I2C_H

#include <stddef.h>
#include <stdint.h>

#include "fulmar/i2c.h"

#define EMUL_I2C_MAX_DEVS 8

struct emul_i2c_dev {
	uint8_t addr;
	/* One transaction: tx written, repeated start, rx read. Returns 0 or -errno. */
	int (*xfer)(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
		    uint8_t *rx, size_t rx_len);
};

struct emul_i2c_bus {
	struct i2c_bus bus;           /* first: the driver sees this */
	struct emul_i2c_dev *devs[EMUL_I2C_MAX_DEVS];
	size_t ndevs;
	unsigned int fail_next;       /* the next n transfers fail with fail_err (default -EIO) */
	int fail_err;
	uint32_t transfers;
	uint32_t naks;                /* transfers to an address with no chip */
};

void emul_i2c_init(struct emul_i2c_bus *b);
void emul_i2c_attach(struct emul_i2c_bus *b, struct emul_i2c_dev *dev);

#endif
