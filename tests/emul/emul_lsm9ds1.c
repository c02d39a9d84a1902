// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_lsm9ds1.h"

#include <errno.h>
#include <string.h>

enum {
	AG_WHO_AM_I = 0x0f,
	AG_CTRL_REG1_G = 0x10,
	AG_OUT_TEMP_L = 0x15,
	AG_STATUS_REG = 0x17,
	AG_OUT_X_L_G = 0x18,
	AG_OUT_Z_H_G = 0x1d,
	AG_CTRL_REG4 = 0x1e,
	AG_CTRL_REG5_XL = 0x1f,
	AG_CTRL_REG8 = 0x22,
	AG_STATUS_REG2 = 0x27,        /* STATUS_REG again, ahead of the accelerometer's data */
	AG_OUT_X_L_XL = 0x28,
	AG_OUT_Z_H_XL = 0x2d,

	M_WHO_AM_I = 0x0f,
	M_CTRL_REG1 = 0x20,
	M_CTRL_REG2 = 0x21,
	M_CTRL_REG3 = 0x22,
	M_STATUS_REG = 0x27,
	M_OUT_X_L = 0x28,
	M_OUT_Z_H = 0x2d,
};

/* ODR_G codes 1..6 (gyro and accelerometer together): sample periods. */
static const uint32_t emul_ag_period_us[8] = { 0, 67114, 16807, 8403, 4202, 2101, 1050, 0 };
/* DO codes 0..7 of the magnetometer: 0.625 .. 80 Hz. */
static const uint32_t emul_m_period_us[8] = { 1600000, 800000, 400000, 200000, 100000, 50000,
					      25000, 12500 };

static void put_le16(uint8_t *p, int16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)((uint16_t)v >> 8);
}

/* ---- the A/G die ---- */

static void emul_ag_defaults(struct emul_lsm9ds1_ag *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[AG_CTRL_REG4] = 0x38;
	e->regs[AG_CTRL_REG5_XL] = 0x38;
	e->regs[AG_CTRL_REG8] = 0x04;   /* IF_ADD_INC */
}

static uint32_t emul_ag_period(const struct emul_lsm9ds1_ag *e)
{
	return emul_ag_period_us[e->regs[AG_CTRL_REG1_G] >> 5];
}

static void emul_ag_sample(struct emul_lsm9ds1_ag *e)
{
	int16_t gx = e->gyro[0];

	if (e->dither && !e->frozen && (e->samples & 1))
		gx = (int16_t)(gx ^ 1);
	e->samples++;
	put_le16(&e->regs[AG_OUT_TEMP_L], e->temp);
	put_le16(&e->regs[AG_OUT_X_L_G], gx);
	put_le16(&e->regs[AG_OUT_X_L_G + 2], e->gyro[1]);
	put_le16(&e->regs[AG_OUT_X_L_G + 4], e->gyro[2]);
	for (int i = 0; i < 3; i++)
		put_le16(&e->regs[AG_OUT_X_L_XL + 2 * i], e->accel[i]);
	e->regs[AG_STATUS_REG] |= 0x07;   /* TDA, GDA, XLDA */
}

void emul_lsm9ds1_ag_advance(struct emul_lsm9ds1_ag *e, uint64_t now_us)
{
	uint32_t period = emul_ag_period(e);

	if (!period) {
		e->next_sample_us = now_us;
		e->now_us = now_us;
		return;
	}
	while (e->next_sample_us <= now_us) {
		emul_ag_sample(e);
		e->next_sample_us += period;
	}
	e->now_us = now_us;
}

void emul_lsm9ds1_ag_power_cycle(struct emul_lsm9ds1_ag *e)
{
	emul_ag_defaults(e);
}

static void emul_ag_write(struct emul_lsm9ds1_ag *e, uint8_t reg, uint8_t val)
{
	switch (reg) {
	case AG_CTRL_REG8:
		if (val & 0x01) {
			e->resets++;
			emul_ag_defaults(e);
			return;
		}
		break;
	case AG_CTRL_REG1_G: {
		bool was_on = emul_ag_period(e) != 0;
		e->regs[reg] = val;
		if (!was_on && emul_ag_period(e))
			e->next_sample_us = e->now_us + emul_ag_period(e);
		return;
	}
	default:
		/* Read-only: identification, data and status. */
		if (reg == AG_WHO_AM_I || (reg >= AG_OUT_TEMP_L && reg <= AG_OUT_Z_H_G) ||
		    (reg >= 0x26 && reg <= AG_OUT_Z_H_XL) || reg == 0x2f || reg > 0x37)
			return;
		break;
	}
	e->regs[reg] = val;
}

static uint8_t emul_ag_read(struct emul_lsm9ds1_ag *e, uint8_t reg)
{
	if (reg == AG_WHO_AM_I)
		return e->who_am_i;
	if (reg == AG_STATUS_REG || reg == AG_STATUS_REG2)
		return e->regs[AG_STATUS_REG];
	if (reg >= AG_OUT_X_L_G && reg <= AG_OUT_Z_H_G)
		e->regs[AG_STATUS_REG] &= (uint8_t)~0x02;
	else if (reg >= AG_OUT_X_L_XL && reg <= AG_OUT_Z_H_XL)
		e->regs[AG_STATUS_REG] &= (uint8_t)~0x01;
	else if (reg == AG_OUT_TEMP_L || reg == AG_OUT_TEMP_L + 1)
		e->regs[AG_STATUS_REG] &= (uint8_t)~0x04;
	return e->regs[reg & 0x7f];
}

static int emul_ag_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct emul_lsm9ds1_ag *e = (void *)dev;
	bool started = false, read = false;
	uint8_t reg = 0;

	e->batches++;
	if (n == 0)
		return -EINVAL;
	if (e->fail_next) {
		e->fail_next--;
		return e->fail_err ? e->fail_err : -EIO;
	}
	emul_lsm9ds1_ag_advance(e, e->now_us);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < x[i].len; k++) {
			uint8_t in = x[i].tx ? x[i].tx[k] : 0, out = 0;
			if (!started) {
				started = true;
				read = in & 0x80;
				reg = in & 0x7f;
			} else {
				if (read)
					out = emul_ag_read(e, reg);
				else if (!e->absent && !e->garbage)
					emul_ag_write(e, reg, in);
				if (e->regs[AG_CTRL_REG8] & 0x04)
					reg = (uint8_t)((reg + 1) & 0x7f);
			}
			if (e->absent)
				out = 0x00;
			else if (e->garbage)
				out = 0xff;
			if (x[i].rx)
				x[i].rx[k] = out;
		}
		if (x[i].cs_change)
			started = false;
	}
	return 0;
}

static void emul_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops emul_ag_ops = {
	.transfer_batch = emul_ag_batch,
	.close = emul_close,
};

void emul_lsm9ds1_ag_init(struct emul_lsm9ds1_ag *e)
{
	memset(e, 0, sizeof(*e));
	e->dev.ops = &emul_ag_ops;
	e->who_am_i = 0x68;
	e->accel[2] = 1366;           /* 1 g on z at 0.732 mg/LSB */
	e->temp = 80;                 /* 30 degC at 16 LSB/degC from 25 */
	e->dither = true;
	emul_ag_defaults(e);
}

/* ---- the M die ---- */

static void emul_m_defaults(struct emul_lsm9ds1_m *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[M_CTRL_REG1] = 0x10;   /* 10 Hz */
	e->regs[M_CTRL_REG3] = 0x03;   /* power-down */
}

static bool emul_m_continuous(const struct emul_lsm9ds1_m *e)
{
	return (e->regs[M_CTRL_REG3] & 0x03) == 0;
}

static uint32_t emul_m_period(const struct emul_lsm9ds1_m *e)
{
	return emul_m_period_us[(e->regs[M_CTRL_REG1] >> 2) & 7];
}

static void emul_m_sample(struct emul_lsm9ds1_m *e)
{
	int16_t fx = e->field[0];

	if (e->dither && !e->frozen && (e->samples & 1))
		fx = (int16_t)(fx ^ 1);
	e->samples++;
	put_le16(&e->regs[M_OUT_X_L], fx);
	put_le16(&e->regs[M_OUT_X_L + 2], e->field[1]);
	put_le16(&e->regs[M_OUT_X_L + 4], e->field[2]);
	e->regs[M_STATUS_REG] |= 0x0f;
}

void emul_lsm9ds1_m_advance(struct emul_lsm9ds1_m *e, uint64_t now_us)
{
	if (!emul_m_continuous(e)) {
		e->next_sample_us = now_us + emul_m_period(e);
		e->now_us = now_us;
		return;
	}
	while (e->next_sample_us <= now_us) {
		emul_m_sample(e);
		e->next_sample_us += emul_m_period(e);
	}
	e->now_us = now_us;
}

void emul_lsm9ds1_m_power_cycle(struct emul_lsm9ds1_m *e)
{
	emul_m_defaults(e);
}

static void emul_m_write(struct emul_lsm9ds1_m *e, uint8_t reg, uint8_t val)
{
	if (reg == M_CTRL_REG2 && (val & 0x04)) {
		e->resets++;
		emul_m_defaults(e);
		return;
	}
	if (reg < M_CTRL_REG1 || reg > 0x24)
		return;   /* read-only, or not emulated */
	if (reg == M_CTRL_REG3 && !emul_m_continuous(e) && (val & 0x03) == 0)
		e->next_sample_us = e->now_us + emul_m_period(e);
	e->regs[reg] = val;
}

static uint8_t emul_m_read(struct emul_lsm9ds1_m *e, uint8_t reg)
{
	if (reg == M_WHO_AM_I)
		return e->who_am_i;
	if (reg >= M_OUT_X_L && reg <= M_OUT_Z_H)
		e->regs[M_STATUS_REG] = 0;
	return e->regs[reg & 0x3f];
}

static int emul_m_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct emul_lsm9ds1_m *e = (void *)dev;
	bool started = false, read = false, inc = false;
	uint8_t reg = 0;
	uint32_t data_bytes = 0;

	if (n == 0)
		return -EINVAL;
	if (e->fail_next) {
		e->fail_next--;
		return e->fail_err ? e->fail_err : -EIO;
	}
	emul_lsm9ds1_m_advance(e, e->now_us);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < x[i].len; k++) {
			uint8_t in = x[i].tx ? x[i].tx[k] : 0, out = 0;
			if (!started) {
				started = true;
				read = in & 0x80;
				inc = in & 0x40;
				reg = in & 0x3f;
				data_bytes = 0;
			} else {
				if (read)
					out = emul_m_read(e, reg);
				else if (!e->absent && !e->garbage)
					emul_m_write(e, reg, in);
				if (++data_bytes == 2 && read && !inc)
					e->bursts_without_ms++;
				if (inc)
					reg = (uint8_t)((reg + 1) & 0x3f);
			}
			if (e->absent)
				out = 0x00;
			else if (e->garbage)
				out = 0xff;
			if (x[i].rx)
				x[i].rx[k] = out;
		}
		if (x[i].cs_change)
			started = false;
	}
	return 0;
}

static const struct spi_ops emul_m_ops = {
	.transfer_batch = emul_m_batch,
	.close = emul_close,
};

void emul_lsm9ds1_m_init(struct emul_lsm9ds1_m *e)
{
	memset(e, 0, sizeof(*e));
	e->dev.ops = &emul_m_ops;
	e->who_am_i = 0x3d;
	e->field[0] = 1500;           /* 21 uT at 0.014 uT/LSB */
	e->dither = true;
	emul_m_defaults(e);
}
