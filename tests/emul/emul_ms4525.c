// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_ms4525.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

void emul_ms4525_set_time(struct emul_ms4525 *e, uint64_t now_us)
{
	e->now_us = now_us;
	if (now_us - e->measured_us >= e->update_us) {
		e->measured_us = now_us - (now_us - e->measured_us) % e->update_us;
		e->fetched = false;
	}
}

static int emul_ms4525_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			    uint8_t *rx, size_t rx_len)
{
	struct emul_ms4525 *e = (void *)dev;
	uint8_t status = e->fault ? 3 : (e->fetched ? 2 : 0);

	(void)tx;
	if (tx_len)
		return -EIO;   /* the driver only ever fetches */
	e->reads++;
	const uint8_t pkt[4] = {
		(uint8_t)(status << 6 | ((e->pressure >> 8) & 0x3f)),
		(uint8_t)e->pressure,
		(uint8_t)(e->temp >> 3),
		(uint8_t)((e->temp & 7) << 5 | 0x15),   /* undefined bits set on purpose */
	};
	memcpy(rx, pkt, rx_len < 4 ? rx_len : 4);
	e->fetched = true;
	return 0;
}

void emul_ms4525_init(struct emul_ms4525 *e)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x28;
	e->i2c.xfer = emul_ms4525_xfer;
	e->pressure = 8192;
	e->temp = 750;
	e->update_us = 1000;
}
