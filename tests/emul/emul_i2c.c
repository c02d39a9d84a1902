// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_i2c.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

static int emul_i2c_write_read(struct i2c_bus *bus, uint8_t addr, const uint8_t *tx,
			       size_t tx_len, uint8_t *rx, size_t rx_len)
{
	struct emul_i2c_bus *b = (void *)bus;

	b->transfers++;
	/* What i2c-dev refuses (hal/linux/i2c_linux.c) is refused here too. */
	if (addr > 0x7f || (tx_len == 0 && rx_len == 0))
		return -EINVAL;
	if (b->fail_next) {
		b->fail_next--;
		return b->fail_err ? b->fail_err : -EIO;
	}
	for (size_t i = 0; i < b->ndevs; i++)
		if (b->devs[i]->addr == addr)
			return b->devs[i]->xfer(b->devs[i], tx, tx_len, rx, rx_len);
	b->naks++;
	return -ENXIO;
}

static void emul_i2c_close(struct i2c_bus *bus)
{
	(void)bus;
}

static const struct i2c_ops emul_i2c_ops = {
	.write_read = emul_i2c_write_read,
	.close = emul_i2c_close,
};

void emul_i2c_init(struct emul_i2c_bus *b)
{
	memset(b, 0, sizeof(*b));
	b->bus.ops = &emul_i2c_ops;
}

void emul_i2c_attach(struct emul_i2c_bus *b, struct emul_i2c_dev *dev)
{
	assert(b->ndevs < EMUL_I2C_MAX_DEVS);
	b->devs[b->ndevs++] = dev;
}
