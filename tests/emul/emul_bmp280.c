// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_bmp280.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

enum {
	R_CALIB = 0x88,
	R_ID = 0xd0,
	R_RESET = 0xe0,
	R_STATUS = 0xf3,
	R_CTRL_MEAS = 0xf4,
	R_CONFIG = 0xf5,
	R_DATA = 0xf7,
};

#define EMUL_STARTUP_US 2000u

/* t_sb codes 0..7 in microseconds (data sheet table 11). */
static const uint32_t emul_t_sb_us[8] = { 500, 62500, 125000, 250000, 500000, 1000000,
					  2000000, 4000000 };

/* The data sheet's example (3.12): dig_T1..dig_P9. */
static const int32_t emul_example_calib[12] = {
	27504, 26435, -1000, 36477, -10685, 3024, 2855, 140, -7, 15500, -14600, 6000,
};

static void emul_bmp280_put20(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 12);
	p[1] = (uint8_t)(v >> 4);
	p[2] = (uint8_t)((v & 0xf) << 4);
}

static void emul_bmp280_defaults(struct emul_bmp280 *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	memcpy(&e->regs[R_CALIB], e->calib, sizeof(e->calib));
	e->regs[R_ID] = e->chip_id;
	emul_bmp280_put20(&e->regs[R_DATA], 0x80000);
	emul_bmp280_put20(&e->regs[R_DATA + 3], 0x80000);
}

void emul_bmp280_set_calib(struct emul_bmp280 *e, const int32_t dig[12])
{
	for (int i = 0; i < 12; i++) {
		uint16_t w = (uint16_t)dig[i];
		e->calib[2 * i] = (uint8_t)w;
		e->calib[2 * i + 1] = (uint8_t)(w >> 8);
	}
	memcpy(&e->regs[R_CALIB], e->calib, sizeof(e->calib));
}

/* Oversampling code to its factor: 0 skipped, 1..5 x1..x16, 6, 7 x16. */
static uint32_t emul_os(uint8_t code)
{
	static const uint32_t f[8] = { 0, 1, 2, 4, 8, 16, 16, 16 };
	return f[code & 7];
}

/* Measurement time, typical (3.8.1): 1 + 2 * T_os + 2 * P_os + 0.5 ms (P skipped: no 0.5). */
static uint32_t emul_period_us(const struct emul_bmp280 *e)
{
	uint8_t m = e->regs[R_CTRL_MEAS];
	uint32_t t_os = emul_os((uint8_t)(m >> 5)), p_os = emul_os((uint8_t)(m >> 2));
	uint32_t us = 1000 + 2000 * t_os + 2000 * p_os + (p_os ? 500 : 0);
	return us + emul_t_sb_us[e->regs[R_CONFIG] >> 5];
}

static bool emul_bmp280_normal(const struct emul_bmp280 *e)
{
	return (e->regs[R_CTRL_MEAS] & 3) == 3;
}

static void emul_bmp280_measure(struct emul_bmp280 *e)
{
	uint8_t m = e->regs[R_CTRL_MEAS];
	uint32_t p = e->adc_p;

	if (e->noise)
		p += e->measurements % 5;
	e->measurements++;
	emul_bmp280_put20(&e->regs[R_DATA], emul_os((uint8_t)(m >> 2)) ? p : 0x80000);
	emul_bmp280_put20(&e->regs[R_DATA + 3], emul_os((uint8_t)(m >> 5)) ? e->adc_t : 0x80000);
}

void emul_bmp280_set_time(struct emul_bmp280 *e, uint64_t now_us)
{
	e->now_us = now_us;
	if (!emul_bmp280_normal(e))
		return;
	while (e->next_meas_us <= now_us) {
		emul_bmp280_measure(e);
		e->next_meas_us += emul_period_us(e);
	}
}

static void emul_bmp280_write(struct emul_bmp280 *e, uint8_t reg, uint8_t val)
{
	switch (reg) {
	case R_RESET:
		if (val == 0xb6) {
			e->resets++;
			emul_bmp280_defaults(e);
			e->busy_until_us = e->now_us + EMUL_STARTUP_US;
		}
		return;
	case R_CONFIG:
		if (emul_bmp280_normal(e)) {
			e->ignored_config_writes++;
			return;
		}
		break;
	case R_CTRL_MEAS:
		if (!emul_bmp280_normal(e) && (val & 3) == 3)
			e->next_meas_us = e->now_us + emul_period_us(e) -
					  emul_t_sb_us[e->regs[R_CONFIG] >> 5];
		break;
	case R_STATUS:
		return;
	default:
		if (reg < R_CTRL_MEAS)
			return;  /* read-only: id, calibration */
		break;
	}
	e->regs[reg] = val;
}

static uint8_t emul_bmp280_read(const struct emul_bmp280 *e, uint8_t reg)
{
	if (reg == R_ID)
		return e->chip_id;
	if (e->garbage && reg >= R_DATA && reg < R_DATA + 6)
		return 0xff;
	return e->regs[reg];
}

static int emul_bmp280_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			    uint8_t *rx, size_t rx_len)
{
	struct emul_bmp280 *e = (void *)dev;

	if (e->absent)
		return -ENXIO;
	emul_bmp280_set_time(e, e->now_us);
	if (e->now_us < e->busy_until_us) {
		e->early_accesses++;
		memset(rx, 0, rx_len);
		return 0;
	}
	if (tx_len == 0)
		return -EINVAL;
	/* Writes: register/data pairs. A lone register byte sets the read pointer. */
	for (size_t i = 0; i + 1 < tx_len; i += 2)
		emul_bmp280_write(e, tx[i], tx[i + 1]);
	uint8_t ptr = tx[tx_len - 1];
	if (tx_len % 2 == 0)
		return rx_len ? -EINVAL : 0;
	for (size_t i = 0; i < rx_len; i++)
		rx[i] = emul_bmp280_read(e, (uint8_t)(ptr + i));
	return 0;
}

void emul_bmp280_init(struct emul_bmp280 *e, uint8_t addr)
{
	memset(e, 0, sizeof(*e));
	e->i2c.addr = addr;
	e->i2c.xfer = emul_bmp280_xfer;
	e->chip_id = 0x58;
	e->adc_p = 415148;
	e->adc_t = 519888;
	e->noise = true;
	emul_bmp280_set_calib(e, emul_example_calib);
	emul_bmp280_defaults(e);
}

void emul_bmp280_power_cycle(struct emul_bmp280 *e)
{
	emul_bmp280_defaults(e);
}
