// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Registers, values and formulas: Bosch BMP280 data sheet BST-BMP280-DS001
 * (rev 1.23): the memory map (4.2, table 18: reset values, data registers
 * 0x80 0x00 0x00), chip id 0x58 (4.3.1), reset word 0xB6 (4.3.2),
 * ctrl_meas osrs_t 7:5, osrs_p 4:2, mode 1:0 (4.3.4, tables 20 and 21:
 * osrs 000 skips the measurement and sets its output to 0x80000), config
 * t_sb 7:5, filter 4:2 (4.3.5; normal mode may ignore writes to it), the
 * 20-bit data layout (4.3.6, 4.3.7), writes as register/data pairs and
 * auto-incremented reads (5), the calibration words (3.11.2: dig_T1 and
 * dig_P1 unsigned, the rest signed), the compensation in floating point
 * (8.1) and its worked example (3.12), the use cases (table 7: x16/x2 in
 * normal mode with 0.5 ms standby gives 26.3 Hz, "indoor navigation"; we
 * take IIR 4 rather than 16 for less lag in flight), the measurement time
 * (3.8.1: 43.2 ms at most at x16/x2), the start-up time (table 2: 2 ms) and
 * the operating range (300..1100 hPa, -40..+85 degC). Checked against the
 * data sheet's pages as published (rev 1.23: pages 12, 14, 22, 24, 25, 27,
 * 44) and Bosch's BMP280 API headers (BMP280_FILTER_COEFF_4 = 010 in bits
 * 4:2, standby 000 = 0.5 ms). The measurement time, start-up time and
 * operating range come from the data sheet's tables 1, 2 and 13 as
 * recalled, not re-read for this file (the measurement time is consistent
 * with table 7's 26.3 Hz).
 */
#include "drivers/bmp280.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/i2c.h"

#define REG_CALIB 0x88
#define REG_ID 0xd0
#define REG_RESET 0xe0
#define REG_CTRL_MEAS 0xf4
#define REG_CONFIG 0xf5
#define REG_PRESS_MSB 0xf7

#define RESET_VALUE 0xb6
/* osrs_t x2 (010), osrs_p x16 (101), normal mode (11). */
#define CTRL_MEAS_VALUE 0x57
/* t_sb 0.5 ms (000), IIR filter coefficient 4 (010), no 3-wire SPI: 26 Hz, data sheet table 7. */
#define CONFIG_VALUE 0x08
#define SKIPPED 0x80000u

/* 2 ms start-up after the reset, with margin. */
#define RESET_WAIT_US 3000u
#define RETRY_US 10000u
/* 1.25 + 2.3 * 2 + 2.3 * 16 + 0.575 ms: the longest measurement at these settings. */
#define MEAS_MAX_US 43225u
#define CALIB_TRIES 3
#define CONFIG_TRIES 5
#define DEFAULT_STUCK_LIMIT 50u

#define PRESSURE_MIN_PA 30000.0
#define PRESSURE_MAX_PA 110000.0
#define TEMP_MIN_C (-40.0)
#define TEMP_MAX_C 85.0

enum bmp280_state {
	BMP280_STATE_PROBE = 1,
	BMP280_STATE_CALIB,
	BMP280_STATE_VERIFY,
	BMP280_STATE_RUNNING,
	BMP280_STATE_FAILED,
};

int bmp280_init(struct bmp280 *b, const struct bmp280_config *cfg)
{
	if (!cfg->bus)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	if (!b->cfg.addr)
		b->cfg.addr = BMP280_I2C_ADDR;
	if (!b->cfg.stuck_limit)
		b->cfg.stuck_limit = DEFAULT_STUCK_LIMIT;
	b->state = BMP280_STATE_PROBE;
	b->stats.setups = 1;
	return 0;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

void bmp280_calib_parse(const uint8_t raw[24], struct bmp280_calib *cal)
{
	cal->dig_t1 = le16(&raw[0]);
	cal->dig_t2 = (int16_t)le16(&raw[2]);
	cal->dig_t3 = (int16_t)le16(&raw[4]);
	cal->dig_p1 = le16(&raw[6]);
	cal->dig_p2 = (int16_t)le16(&raw[8]);
	cal->dig_p3 = (int16_t)le16(&raw[10]);
	cal->dig_p4 = (int16_t)le16(&raw[12]);
	cal->dig_p5 = (int16_t)le16(&raw[14]);
	cal->dig_p6 = (int16_t)le16(&raw[16]);
	cal->dig_p7 = (int16_t)le16(&raw[18]);
	cal->dig_p8 = (int16_t)le16(&raw[20]);
	cal->dig_p9 = (int16_t)le16(&raw[22]);
}

bool bmp280_calib_is_valid(const struct bmp280_calib *cal)
{
	/* All 0xFF reads as dig_T1 = dig_P1 = 0xFFFF with every signed word -1. */
	bool all_ones = cal->dig_t1 == 0xffff && cal->dig_p1 == 0xffff && cal->dig_t2 == -1 &&
			cal->dig_t3 == -1 && cal->dig_p2 == -1 && cal->dig_p9 == -1;
	return cal->dig_t1 != 0 && cal->dig_p1 != 0 && !all_ones;
}

bool bmp280_compensate(const struct bmp280_calib *cal, int32_t adc_p, int32_t adc_t,
		       double *pressure_pa, double *temp_c)
{
	const double t1 = cal->dig_t1, t2 = cal->dig_t2, t3 = cal->dig_t3;
	const double at = adc_t, ap = adc_p;
	double v1 = (at / 16384.0 - t1 / 1024.0) * t2;
	double d = at / 131072.0 - t1 / 8192.0;
	double v2 = d * d * t3;
	/*
	 * 8.1's code truncates t_fine into a 32-bit integer; its worked example
	 * (3.12) carries it unrounded, as here: 0.009 Pa apart at 100 kPa.
	 */
	double t_fine = v1 + v2;
	double t = (v1 + v2) / 5120.0;

	v1 = t_fine / 2.0 - 64000.0;
	v2 = v1 * v1 * (double)cal->dig_p6 / 32768.0;
	v2 = v2 + v1 * (double)cal->dig_p5 * 2.0;
	v2 = v2 / 4.0 + (double)cal->dig_p4 * 65536.0;
	v1 = ((double)cal->dig_p3 * v1 * v1 / 524288.0 + (double)cal->dig_p2 * v1) / 524288.0;
	v1 = (1.0 + v1 / 32768.0) * (double)cal->dig_p1;
	if (v1 == 0.0)
		return false;
	double p = 1048576.0 - ap;
	p = (p - v2 / 4096.0) * 6250.0 / v1;
	v1 = (double)cal->dig_p9 * p * p / 2147483648.0;
	v2 = p * (double)cal->dig_p8 / 32768.0;
	p = p + (v1 + v2 + (double)cal->dig_p7) / 16.0;
	*pressure_pa = p;
	*temp_c = t;
	return true;
}

static int bmp280_read(struct bmp280 *b, uint8_t reg, uint8_t *buf, size_t n)
{
	int err = i2c_write_read(b->cfg.bus, b->cfg.addr, &reg, 1, buf, n);

	if (err)
		b->stats.bus_errors++;
	return err;
}

static int bmp280_write(struct bmp280 *b, const uint8_t *pairs, size_t len)
{
	int err = i2c_write(b->cfg.bus, b->cfg.addr, pairs, len);

	if (err)
		b->stats.bus_errors++;
	return err;
}

static int bmp280_fail(struct bmp280 *b, int err)
{
	b->state = BMP280_STATE_FAILED;
	b->fail_err = err;
	return err;
}

static void bmp280_restart(struct bmp280 *b, uint64_t now_us)
{
	b->state = BMP280_STATE_PROBE;
	b->next_us = now_us;
	b->stuck_run = 0;
	b->prev_adc_p = 0;
	b->prev_adc_t = 0;
	b->stats.setups++;
}

/* A failed start-up step: the shared start-up rule until the chip answered. */
static int bmp280_setup_failed(struct bmp280 *b, int err, uint64_t now_us)
{
	b->next_us = now_us + RETRY_US;
	int rc = drv_startup_failed(&b->start, err, now_us, &b->next_us);
	if (b->start.absent)
		return bmp280_fail(b, -ENODEV);
	/* A wrong id is no transfer error: nothing for the caller to count. */
	return err == -ENODEV ? 0 : rc;
}

static int bmp280_step_probe(struct bmp280 *b, uint64_t now_us)
{
	uint8_t id;
	int err = bmp280_read(b, REG_ID, &id, 1);

	if (err)
		return bmp280_setup_failed(b, err, now_us);
	b->chip_id = id;
	if (id != BMP280_CHIP_ID) {
		b->stats.id_errors++;
		return bmp280_setup_failed(b, -ENODEV, now_us);
	}
	b->start.answered = true;
	const uint8_t reset[2] = { REG_RESET, RESET_VALUE };
	err = bmp280_write(b, reset, sizeof(reset));
	if (err) {
		b->next_us = now_us + RETRY_US;
		return err;
	}
	b->state = BMP280_STATE_CALIB;
	b->next_us = now_us + RESET_WAIT_US;
	return 0;
}

static int bmp280_step_calib(struct bmp280 *b, uint64_t now_us)
{
	uint8_t raw[24];
	int err = bmp280_read(b, REG_CALIB, raw, sizeof(raw));

	if (err) {
		b->next_us = now_us + RETRY_US;
		return err;
	}
	bmp280_calib_parse(raw, &b->cal);
	if (!bmp280_calib_is_valid(&b->cal)) {
		if (++b->stats.calib_errors >= CALIB_TRIES && !b->ever_ran)
			return bmp280_fail(b, -EBADMSG);
		/* The reset copies the calibration from its NVM again (status.im_update). */
		b->state = BMP280_STATE_PROBE;
		b->next_us = now_us + RETRY_US;
		return 0;
	}
	/* config first: in normal mode the chip may ignore writes to it (4.3.5). */
	const uint8_t w[4] = { REG_CONFIG, CONFIG_VALUE, REG_CTRL_MEAS, CTRL_MEAS_VALUE };
	err = bmp280_write(b, w, sizeof(w));
	if (err) {
		b->next_us = now_us + RETRY_US;
		return err;
	}
	b->state = BMP280_STATE_VERIFY;
	b->next_us = now_us + 1000;
	return 0;
}

static int bmp280_step_verify(struct bmp280 *b, uint64_t now_us)
{
	uint8_t r[2];
	int err = bmp280_read(b, REG_CTRL_MEAS, r, sizeof(r));

	if (err) {
		b->next_us = now_us + RETRY_US;
		return err;
	}
	if (r[0] != CTRL_MEAS_VALUE || r[1] != CONFIG_VALUE) {
		b->stats.config_errors++;
		if (++b->attempts >= CONFIG_TRIES && !b->ever_ran)
			return bmp280_fail(b, -ENODEV);
		bmp280_restart(b, now_us + RETRY_US);
		return 0;
	}
	b->attempts = 0;
	b->ever_ran = true;
	b->state = BMP280_STATE_RUNNING;
	/* The first measurement lands a measurement time after normal mode began. */
	b->next_us = now_us + MEAS_MAX_US;
	return 0;
}

static uint32_t raw20(const uint8_t *p)
{
	return (uint32_t)p[0] << 12 | (uint32_t)p[1] << 4 | (uint32_t)(p[2] >> 4);
}

static int bmp280_run(struct bmp280 *b, uint64_t now_us, struct baro_sample *out)
{
	uint8_t d[6];
	int err = bmp280_read(b, REG_PRESS_MSB, d, sizeof(d));

	b->next_us = now_us + BMP280_POLL_US;
	if (err)
		return err;
	uint32_t adc_p = raw20(&d[0]), adc_t = raw20(&d[3]);
	bool skipped = adc_p == SKIPPED || adc_t == SKIPPED;
	if (skipped)
		b->stats.skipped++;
	/*
	 * The same reading again, or none at all: the chip may have stopped
	 * measuring (a power dip puts it back to sleep mode). A run of them is stuck data.
	 */
	if (skipped || (adc_p == b->prev_adc_p && adc_t == b->prev_adc_t)) {
		if (++b->stuck_run >= b->cfg.stuck_limit) {
			b->stats.stuck_events++;
			bmp280_restart(b, now_us);
			return -ESTALE;
		}
		return 0;
	}
	b->stuck_run = 0;
	b->prev_adc_p = adc_p;
	b->prev_adc_t = adc_t;

	double p_pa, t_c;
	if (!bmp280_compensate(&b->cal, (int32_t)adc_p, (int32_t)adc_t, &p_pa, &t_c) ||
	    !(p_pa >= PRESSURE_MIN_PA && p_pa <= PRESSURE_MAX_PA) ||
	    !(t_c >= TEMP_MIN_C && t_c <= TEMP_MAX_C)) {
		b->stats.range_errors++;
		return 0;
	}
	b->last = (struct baro_sample){
		.t_us = now_us,
		.pressure_pa = (float)p_pa,
		.temp_c = (float)t_c,
	};
	b->have_last = true;
	b->stats.samples++;
	*out = b->last;
	return 1;
}

int bmp280_poll(struct bmp280 *b, uint64_t now_us, struct baro_sample *out)
{
	if (b->state == BMP280_STATE_FAILED)
		return b->fail_err;
	if (now_us < b->next_us)
		return 0;
	switch (b->state) {
	case BMP280_STATE_PROBE:
		return bmp280_step_probe(b, now_us);
	case BMP280_STATE_CALIB:
		return bmp280_step_calib(b, now_us);
	case BMP280_STATE_VERIFY:
		return bmp280_step_verify(b, now_us);
	case BMP280_STATE_RUNNING:
		return bmp280_run(b, now_us, out);
	}
	return 0;
}

uint64_t bmp280_next_poll_us(const struct bmp280 *b)
{
	return b->next_us;
}

bool bmp280_is_running(const struct bmp280 *b)
{
	return b->state == BMP280_STATE_RUNNING;
}

uint8_t bmp280_chip_id(const struct bmp280 *b)
{
	return b->chip_id;
}

bool bmp280_last_sample(const struct bmp280 *b, struct baro_sample *out)
{
	if (!b->have_last)
		return false;
	*out = b->last;
	return true;
}

const struct bmp280_stats *bmp280_stats(const struct bmp280 *b)
{
	return &b->stats;
}

/* ---- as a board device (driver.h): a barometer on I2C, polled when due ---- */

static int bmp280_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct bmp280_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr };
	if (bmp280_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: barometer settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return bmp280_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return bmp280_next_poll_us(chip); }
static bool running_any(const void *chip) { return bmp280_is_running(chip); }

/* Says which chip answered instead, when one did. */
static void bmp280_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	const struct bmp280 *b = d->priv;
	if (b->stats.id_errors)
		snprintf(buf, len, " (chip id 0x%02x, a BMP280's is 0x%02x)", b->chip_id,
			 BMP280_CHIP_ID);
	else
		snprintf(buf, len, " (chip id read)");
}

static const struct drv_polled polled = {
	.kind = SENSOR_BARO, .poll = poll_any, .next_us = next_any, .is_running = running_any,
	.detail = " (chip id read)",
};

const struct driver bmp280_driver = {
	.name = "BMP280", .buses = DRV_BUS(BOARD_DEV_I2C),
	.role = "barometer", .pass = 1, .priv_size = sizeof(struct bmp280),
	/* DRV_POLLED(&polled), with a detail that names the chip that answered instead. */
	.probe = bmp280_dev_probe, .polled = &polled, .setup = drv_polled_setup,
	.next_us = drv_polled_next, .setup_detail = bmp280_dev_detail, .tasks = drv_polled_tasks,
	.bits = DRV_SENSOR_ABS_PRESSURE, .stale_us = DRV_SLOW_STALE_US, .running_at_start = true,
};
