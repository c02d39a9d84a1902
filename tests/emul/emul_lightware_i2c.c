// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_lightware_i2c.h"

#include <errno.h>
#include <string.h>

static int xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len, uint8_t *rx,
		size_t rx_len)
{
	struct emul_lightware_i2c *e = (void *)dev;
	(void)tx;
	if (tx_len)
		return -EIO;
	e->reads++;
	const uint8_t w[2] = { (uint8_t)(e->word >> 8), (uint8_t)e->word };
	for (size_t i = 0; i < rx_len; i++)
		rx[i] = i < 2 ? w[i] : 0;
	return 0;
}

void emul_lightware_i2c_init(struct emul_lightware_i2c *e)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x66;
	e->i2c.xfer = xfer;
	e->word = 500;
}
