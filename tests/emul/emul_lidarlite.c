// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_lidarlite.h"

#include <errno.h>
#include <string.h>

#define STATUS 0x01
#define BUSY 0x01
#define INVALID 0x08
#define HEALTH 0x20
#define PROCESS_ERROR 0x40

static void finish(struct emul_lidarlite *e)
{
	uint8_t st = HEALTH;
	if (e->no_return)
		st |= INVALID;
	if (e->fault)
		st = PROCESS_ERROR;   /* and the health bit down */
	e->reg[STATUS] = st;
	e->reg[0x0f] = (uint8_t)(e->distance_cm >> 8);
	e->reg[0x10] = (uint8_t)e->distance_cm;
	e->measuring = false;
}

void emul_lidarlite_set_time(struct emul_lidarlite *e, uint64_t now_us)
{
	e->now_us = now_us;
	if (e->measuring && !e->stuck_busy && now_us - e->started_us >= e->meas_us)
		finish(e);
}

static int xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len, uint8_t *rx,
		size_t rx_len)
{
	struct emul_lidarlite *e = (void *)dev;
	if (tx_len && rx_len) {
		e->repeated_starts++;
		return -EIO;
	}
	if (tx_len == 1) {
		e->ptr = tx[0];
		return 0;
	}
	if (tx_len == 2) {
		uint8_t r = tx[0] & 0x7f;
		e->reg[r] = tx[1];
		if (r == 0x00 && tx[1] == 0x04) {
			e->acquisitions++;
			e->measuring = true;
			e->started_us = e->now_us;
			e->reg[STATUS] = (uint8_t)(e->reg[STATUS] | BUSY);
		}
		return 0;
	}
	if (tx_len)
		return -EIO;
	uint8_t r = e->ptr & 0x7f;
	for (size_t i = 0; i < rx_len; i++) {
		rx[i] = e->reg[r];
		if (e->ptr & 0x80)
			r = (uint8_t)((r + 1) & 0x7f);
	}
	return 0;
}

void emul_lidarlite_init(struct emul_lidarlite *e)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x62;
	e->i2c.xfer = xfer;
	e->reg[STATUS] = HEALTH;
	e->distance_cm = 1000;
	e->meas_us = 3000;
}
