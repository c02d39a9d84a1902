// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_ak8963.h"

#include <stddef.h>
#include <string.h>

enum {
	A_WIA = 0x00, A_INFO = 0x01, A_ST1 = 0x02, A_HXL = 0x03, A_ST2 = 0x09,
	A_CNTL1 = 0x0a, A_CNTL2 = 0x0b, A_ASAX = 0x10,
};

static void emul_ak8963_reset_regs(struct emul_ak8963 *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[A_WIA] = e->wia;
	e->ptr = 0;
}

void emul_ak8963_power_cycle(struct emul_ak8963 *e)
{
	emul_ak8963_reset_regs(e);
	e->mode_since_us = e->now_us;
}

static uint32_t emul_ak8963_period_us(const struct emul_ak8963 *e)
{
	switch (e->regs[A_CNTL1] & 0x0f) {
	case 0x02:
		return 125000;  /* continuous mode 1, 8 Hz */
	case 0x06:
		return 10000;   /* continuous mode 2, 100 Hz */
	}
	return 0;
}

void emul_ak8963_set_time(struct emul_ak8963 *e, uint64_t now_us)
{
	uint32_t period = emul_ak8963_period_us(e);

	e->now_us = now_us;
	if (!period)
		return;
	while (e->next_sample_us <= now_us) {
		if (e->regs[A_ST1] & 0x01)
			e->regs[A_ST1] |= 0x02;   /* the unread one is overwritten */
		for (int i = 0; i < 3; i++) {
			e->regs[A_HXL + 2 * i] = (uint8_t)e->field[i];
			e->regs[A_HXL + 2 * i + 1] = (uint8_t)((uint16_t)e->field[i] >> 8);
		}
		e->regs[A_ST1] |= 0x01;
		e->regs[A_ST2] = (uint8_t)((e->regs[A_CNTL1] & 0x10) | (e->overflow ? 0x08 : 0));
		e->samples++;
		e->next_sample_us += period;
	}
}

static void emul_ak8963_write(struct emul_ak8963 *e, uint8_t reg, uint8_t val)
{
	switch (reg) {
	case A_CNTL1: {
		uint8_t old = e->regs[A_CNTL1] & 0x0f, mode = val & 0x0f;
		/* Datasheet 6.4: any mode to another via power-down, and 100 us in power-down first. */
		if (mode != 0 && (old != 0 || e->now_us - e->mode_since_us < 100))
			e->bad_mode_changes++;
		e->regs[A_CNTL1] = val & 0x1f;
		e->mode_since_us = e->now_us;
		e->regs[A_ST1] = 0;
		if (emul_ak8963_period_us(e))
			e->next_sample_us = e->now_us + emul_ak8963_period_us(e);
		return;
	}
	case A_CNTL2:
		if (val & 0x01) {
			e->resets++;
			emul_ak8963_reset_regs(e);
			e->mode_since_us = e->now_us;
		}
		return;
	}
}

static uint8_t emul_ak8963_read(struct emul_ak8963 *e, uint8_t reg)
{
	if (reg >= A_ASAX && reg <= A_ASAX + 2) {
		if ((e->regs[A_CNTL1] & 0x0f) != 0x0f)
			return 0;  /* fuse ROM only in fuse-ROM mode */
		e->fuse_reads++;
		return e->asa[reg - A_ASAX];
	}
	uint8_t v = e->regs[reg];
	if (reg == A_ST2)
		e->regs[A_ST1] = 0;  /* reading ST2 ends the read: DRDY and DOR clear */
	return v;
}

static int emul_ak8963_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			    uint8_t *rx, size_t rx_len)
{
	struct emul_ak8963 *e = (void *)dev;

	emul_ak8963_set_time(e, e->now_us);
	if (tx_len) {
		e->ptr = tx[0] & 0x1f;
		for (size_t i = 1; i < tx_len; i++)
			emul_ak8963_write(e, (uint8_t)((e->ptr + i - 1) & 0x1f), tx[i]);
	}
	for (size_t i = 0; i < rx_len; i++)
		rx[i] = emul_ak8963_read(e, (uint8_t)((e->ptr + i) & 0x1f));
	return 0;
}

void emul_ak8963_init(struct emul_ak8963 *e, const uint8_t asa[3])
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x0c;
	e->i2c.xfer = emul_ak8963_xfer;
	e->wia = 0x48;
	memcpy(e->asa, asa, 3);
	emul_ak8963_reset_regs(e);
}
