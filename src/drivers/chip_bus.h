/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One chip on one bus, SPI or I2C, for drivers whose commands look the same on
 * both (MS5611: a command byte, then a response). A transfer writes tx and then
 * reads rx as one bus transaction: on SPI with chip select held (the bytes
 * clocked in while tx goes out are discarded), on I2C as write, repeated start,
 * read. Either length may be 0, not both.
 *
 * The struct is plain data, filled by the board; it does not own the bus.
 * Calls happen on the thread that owns the bus handle (spi.h, i2c.h).
 */
#ifndef FULMAR_DRIVERS_CHIP_BUS_H
#define FULMAR_DRIVERS_CHIP_BUS_H

#include <stddef.h>
#include <stdint.h>

struct spi_dev;
struct i2c_bus;

enum chip_bus_kind {
	CHIP_BUS_SPI = 1,
	CHIP_BUS_I2C,
};

struct chip_bus {
	enum chip_bus_kind kind;
	struct spi_dev *spi;      /* CHIP_BUS_SPI */
	uint32_t spi_speed_hz;    /* CHIP_BUS_SPI; 0: the device's current speed */
	struct i2c_bus *i2c;      /* CHIP_BUS_I2C */
	uint8_t i2c_addr;         /* CHIP_BUS_I2C: 7-bit address */
};

/* Returns 0 or -errno from the bus (-EINVAL for an unset kind or two empty lengths). */
int chip_bus_transfer(const struct chip_bus *bus, const uint8_t *tx, size_t tx_len,
		      uint8_t *rx, size_t rx_len);

#endif
