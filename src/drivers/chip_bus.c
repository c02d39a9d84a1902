// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/chip_bus.h"

#include <errno.h>

#include "fulmar/i2c.h"
#include "fulmar/spi.h"

static int chip_bus_spi(const struct chip_bus *bus, const uint8_t *tx, size_t tx_len,
			uint8_t *rx, size_t rx_len)
{
	struct spi_xfer x[2];
	size_t n = 0;

	if (tx_len > UINT32_MAX || rx_len > UINT32_MAX)
		return -EINVAL;
	if (tx_len)
		x[n++] = (struct spi_xfer){ .tx = tx, .len = (uint32_t)tx_len,
					    .speed_hz = bus->spi_speed_hz };
	if (rx_len)
		x[n++] = (struct spi_xfer){ .rx = rx, .len = (uint32_t)rx_len,
					    .speed_hz = bus->spi_speed_hz };
	return spi_transfer_batch(bus->spi, x, n);
}

int chip_bus_transfer(const struct chip_bus *bus, const uint8_t *tx, size_t tx_len,
		      uint8_t *rx, size_t rx_len)
{
	if (tx_len == 0 && rx_len == 0)
		return -EINVAL;
	switch (bus->kind) {
	case CHIP_BUS_SPI:
		return chip_bus_spi(bus, tx, tx_len, rx, rx_len);
	case CHIP_BUS_I2C:
		return i2c_write_read(bus->i2c, bus->i2c_addr, tx, tx_len, rx, rx_len);
	}
	return -EINVAL;
}
