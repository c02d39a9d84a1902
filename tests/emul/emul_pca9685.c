// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_pca9685.h"

#include <stddef.h>
#include <string.h>

enum { P_MODE1 = 0x00, P_MODE2 = 0x01, P_LED0 = 0x06, P_ALL = 0xfa, P_PRESCALE = 0xfe };

void emul_pca9685_power_cycle(struct emul_pca9685 *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[P_MODE1] = 0x11;          /* SLEEP, ALLCALL */
	e->regs[P_MODE2] = 0x04;
	e->regs[P_PRESCALE] = 0x1e;       /* 200 Hz at 25 MHz */
	for (int n = 0; n < 16; n++)
		e->regs[P_LED0 + 4 * n + 3] = 0x10;   /* full-off */
}

void emul_pca9685_set_time(struct emul_pca9685 *e, uint64_t now_us)
{
	e->now_us = now_us;
}

static void emul_pca9685_write(struct emul_pca9685 *e, uint8_t reg, uint8_t val)
{
	bool asleep = e->regs[P_MODE1] & 0x10;

	e->writes++;
	if (reg == P_MODE1) {
		uint8_t v = val & 0x7f;
		if ((val & 0x40) && !(e->regs[P_MODE1] & 0x40) && !asleep)
			e->ext_switch_awake++;
		v |= e->regs[P_MODE1] & 0x40;          /* EXTCLK is sticky */
		if (val & 0x80) {
			if (!asleep && e->now_us - e->awake_since_us < 500)
				e->early_restarts++;
			v &= 0x7f;                     /* writing 1 clears RESTART */
		} else {
			v |= e->regs[P_MODE1] & 0x80;
		}
		if (asleep && !(v & 0x10))
			e->awake_since_us = e->now_us;
		if (!asleep && (v & 0x10))
			v |= 0x80;                     /* PWM was running: restart possible */
		e->regs[P_MODE1] = v;
		return;
	}
	if (reg == P_PRESCALE) {
		if (!asleep) {
			e->prescale_ignored++;
			return;
		}
		e->regs[reg] = val < 3 ? 3 : val;
		return;
	}
	if (reg >= P_ALL && reg < P_ALL + 4) {
		for (int n = 0; n < 16; n++)
			e->regs[P_LED0 + 4 * n + (reg - P_ALL)] = val;
		return;
	}
	e->regs[reg] = val;
}

static int emul_pca9685_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			     uint8_t *rx, size_t rx_len)
{
	struct emul_pca9685 *e = (void *)dev;
	uint8_t ptr = tx_len ? tx[0] : 0;

	for (size_t i = 1; i < tx_len; i++) {
		emul_pca9685_write(e, ptr, tx[i]);
		if (e->regs[P_MODE1] & 0x20)
			ptr++;
	}
	for (size_t i = 0; i < rx_len; i++) {
		rx[i] = e->regs[ptr];
		if (e->regs[P_MODE1] & 0x20)
			ptr++;
	}
	return 0;
}

double emul_pca9685_period_us(const struct emul_pca9685 *e)
{
	if (e->regs[P_MODE1] & 0x10)
		return 0;
	uint32_t clk = (e->regs[P_MODE1] & 0x40) ? e->ext_hz : e->internal_hz;
	return 4096.0 * (e->regs[P_PRESCALE] + 1) * 1e6 / clk;
}

double emul_pca9685_high_us(const struct emul_pca9685 *e, unsigned int n)
{
	const uint8_t *r = &e->regs[P_LED0 + 4 * n];
	unsigned int on = (unsigned int)(r[1] & 0x0f) << 8 | r[0];
	unsigned int off = (unsigned int)(r[3] & 0x0f) << 8 | r[2];

	if (r[3] & 0x10)
		return 0;      /* full-off wins over full-on */
	if (r[1] & 0x10)
		return -1;
	unsigned int ticks = off >= on ? off - on : 4096 - on + off;
	return emul_pca9685_period_us(e) * ticks / 4096.0;
}

void emul_pca9685_init(struct emul_pca9685 *e, uint32_t internal_hz, uint32_t ext_hz)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = 0x40;
	e->i2c.xfer = emul_pca9685_xfer;
	e->internal_hz = internal_hz;
	e->ext_hz = ext_hz;
	emul_pca9685_power_cycle(e);
}
