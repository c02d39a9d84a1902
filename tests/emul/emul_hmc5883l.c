// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_hmc5883l.h"

#include <stddef.h>
#include <string.h>

enum { H_CRA = 0, H_CRB = 1, H_MODE = 2, H_DATA = 3, H_STATUS = 9, H_ID = 10 };

/* Data output rates by DO bits, in microseconds. */
static const uint32_t emul_hmc_period_us[8] = {
	1333333, 666667, 333333, 133333, 66667, 33333, 13333, 0,
};

void emul_hmc5883l_power_cycle(struct emul_hmc5883l *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[H_CRA] = 0x10;
	e->regs[H_CRB] = 0x20;
	e->regs[H_MODE] = 0x01;   /* single measurement, then idle */
	memcpy(&e->regs[H_ID], "H43", 3);
	e->ptr = 0;
	e->read_mask = 0;
}

static void put_be16(uint8_t *p, int16_t v)
{
	p[0] = (uint8_t)((uint16_t)v >> 8);
	p[1] = (uint8_t)v;
}

void emul_hmc5883l_set_time(struct emul_hmc5883l *e, uint64_t now_us)
{
	uint32_t period = emul_hmc_period_us[(e->regs[H_CRA] >> 2) & 7];

	e->now_us = now_us;
	if ((e->regs[H_MODE] & 3) != 0 || !period)
		return;
	while (e->next_sample_us <= now_us) {
		e->next_sample_us += period;
		e->samples++;
		if (e->read_mask) {
			e->partial_reads++;   /* locked: this sample is lost */
			continue;
		}
		put_be16(&e->regs[H_DATA], e->field[0]);
		put_be16(&e->regs[H_DATA + 2], e->field[2]);
		put_be16(&e->regs[H_DATA + 4], e->overflow_y ? -4096 : e->field[1]);
		e->regs[H_STATUS] |= 0x01;
	}
}

static uint8_t emul_hmc_read(struct emul_hmc5883l *e, uint8_t reg)
{
	if (reg >= 13)
		return 0;
	if (reg >= H_DATA && reg < H_DATA + 6) {
		e->read_mask |= (uint8_t)(1u << (reg - H_DATA));
		if (e->read_mask == 0x3f) {
			e->read_mask = 0;
			e->regs[H_STATUS] &= (uint8_t)~0x01;
		}
	}
	return e->regs[reg];
}

static int emul_hmc_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			 uint8_t *rx, size_t rx_len)
{
	struct emul_hmc5883l *e = (void *)dev;

	emul_hmc5883l_set_time(e, e->now_us);
	if (tx_len) {
		e->ptr = tx[0];
		for (size_t i = 1; i < tx_len; i++, e->ptr++) {
			if (e->ptr <= H_MODE) {
				e->regs[e->ptr] = tx[i];
				if (e->ptr == H_MODE && (tx[i] & 3) == 0)
					e->next_sample_us = e->now_us + 6000;
			}
		}
	}
	for (size_t i = 0; i < rx_len; i++)
		rx[i] = emul_hmc_read(e, e->ptr++);
	return 0;
}

void emul_hmc5883l_init(struct emul_hmc5883l *e)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x1e;
	e->i2c.xfer = emul_hmc_xfer;
	emul_hmc5883l_power_cycle(e);
}
