/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * I2C bus access. One handle is one bus (e.g. /dev/i2c-1) shared by the chip
 * drivers that sit on it; the handle belongs to one thread. Transfers that
 * need a repeated start (register reads) go as one combined transaction.
 * All functions return 0 on success and -errno on failure; a device that does
 * not answer gives -ENXIO or -EIO, never a hang.
 */
#ifndef FULMAR_I2C_H
#define FULMAR_I2C_H

#include <stddef.h>
#include <stdint.h>

struct i2c_bus;

struct i2c_config {
	const char *path;       /* "/dev/i2c-1" */
};

int i2c_write(struct i2c_bus *bus, uint8_t addr, const uint8_t *buf, size_t len);
int i2c_read(struct i2c_bus *bus, uint8_t addr, uint8_t *buf, size_t len);
/* Write tx, repeated start, read rx: the register-read idiom (tx = register number). */
int i2c_write_read(struct i2c_bus *bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
		   uint8_t *rx, size_t rx_len);
/* NULL is a no-op. */
void i2c_close(struct i2c_bus *bus);

/* For backends only. */
struct i2c_ops {
	int (*write_read)(struct i2c_bus *bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
			  uint8_t *rx, size_t rx_len);  /* tx_len or rx_len may be 0 */
	void (*close)(struct i2c_bus *bus);
};

struct i2c_bus {
	const struct i2c_ops *ops;
};

#endif
