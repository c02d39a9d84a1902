// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Commands, timings and formulas: MS5611-01BA03 datasheet (commands,
 * "Pressure and temperature calculation", "Second order temperature
 * compensation") and application note AN520 (PROM CRC4).
 */
#include "drivers/ms5611.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"

#define CMD_RESET 0x1e
#define CMD_ADC_READ 0x00
#define CMD_PROM_READ 0xa0          /* + 2 * word */
#define CMD_CONVERT_D1 0x40         /* + 2 * (osr index) */
#define CMD_CONVERT_D2 0x50

/* PROM reload after reset: 2.8 ms. */
#define RESET_WAIT_US 3000u
#define RETRY_US 5000u
#define PROM_TRIES 3
/* Failed transfers in a row at start-up before the chip counts as absent. */
#define SETUP_TRIES 10
#define DEFAULT_STUCK_LIMIT 50u

/* Maximum conversion times per OSR (datasheet, ADC conversion time). */
static const uint32_t conv_time_us[] = {
	[MS5611_OSR_256] = 600,
	[MS5611_OSR_512] = 1170,
	[MS5611_OSR_1024] = 2280,
	[MS5611_OSR_2048] = 4540,
	[MS5611_OSR_4096] = 9040,
};

enum ms5611_state {
	MS5611_STATE_RESET = 1,
	MS5611_STATE_PROM,
	MS5611_STATE_RUNNING,
	MS5611_STATE_FAILED,
};

int ms5611_init(struct ms5611 *b, const struct ms5611_config *cfg)
{
	const struct chip_bus *bus = &cfg->bus;

	if (!((bus->kind == CHIP_BUS_SPI && bus->spi) || (bus->kind == CHIP_BUS_I2C && bus->i2c)))
		return -EINVAL;
	if ((unsigned int)cfg->osr > MS5611_OSR_4096)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	if (!b->cfg.osr)
		b->cfg.osr = MS5611_OSR_1024;
	if (!b->cfg.pressure_per_temp)
		b->cfg.pressure_per_temp = 4;
	if (!b->cfg.stuck_limit)
		b->cfg.stuck_limit = DEFAULT_STUCK_LIMIT;
	b->conv_us = conv_time_us[b->cfg.osr];
	b->state = MS5611_STATE_RESET;
	b->stats.setups = 1;
	return 0;
}

uint8_t ms5611_prom_crc4(const uint16_t prom[8])
{
	uint16_t rem = 0;

	/* The 16 PROM bytes, high byte first; the CRC's own byte (low byte of word 7) counts as 0. */
	for (int i = 0; i < 16; i++) {
		uint16_t word = i / 2 == 7 ? (uint16_t)(prom[7] & 0xff00) : prom[i / 2];
		rem ^= (i & 1) ? (word & 0xff) : (word >> 8);
		for (int bit = 0; bit < 8; bit++)
			rem = (rem & 0x8000) ? (uint16_t)((rem << 1) ^ 0x3000) : (uint16_t)(rem << 1);
	}
	return (uint8_t)((rem >> 12) & 0xf);
}

bool ms5611_prom_is_valid(const uint16_t prom[8])
{
	bool all_zero = true, all_ones = true;

	for (int i = 0; i < 8; i++) {
		all_zero = all_zero && prom[i] == 0;
		all_ones = all_ones && prom[i] == 0xffff;
	}
	if (all_zero || all_ones)
		return false;
	return ms5611_prom_crc4(prom) == (prom[7] & 0xf);
}

void ms5611_compensate(const uint16_t prom[8], uint32_t d1, uint32_t d2,
		       int32_t *pressure_pa, int32_t *temp_centi_c)
{
	const int64_t c1 = prom[1], c2 = prom[2], c3 = prom[3];
	const int64_t c4 = prom[4], c5 = prom[5], c6 = prom[6];
	int64_t dt = (int64_t)d2 - c5 * 256;
	int64_t temp = 2000 + dt * c6 / 8388608;
	int64_t off = c2 * 65536 + c4 * dt / 128;
	int64_t sens = c1 * 32768 + c3 * dt / 256;

	/* Second order, below 20 degC (and more below -15 degC). */
	if (temp < 2000) {
		int64_t t2 = dt * dt / 2147483648;
		int64_t d = (temp - 2000) * (temp - 2000);
		int64_t off2 = 5 * d / 2;
		int64_t sens2 = 5 * d / 4;
		if (temp < -1500) {
			int64_t dl = (temp + 1500) * (temp + 1500);
			off2 += 7 * dl;
			sens2 += 11 * dl / 2;
		}
		temp -= t2;
		off -= off2;
		sens -= sens2;
	}
	*pressure_pa = (int32_t)(((int64_t)d1 * sens / 2097152 - off) / 32768);
	*temp_centi_c = (int32_t)temp;
}

static int ms5611_cmd(struct ms5611 *b, uint8_t cmd, uint8_t *rx, size_t rx_len)
{
	int err = chip_bus_transfer(&b->cfg.bus, &cmd, 1, rx, rx_len);

	if (err)
		b->stats.bus_errors++;
	return err;
}

static void ms5611_restart(struct ms5611 *b, uint64_t now_us)
{
	b->state = MS5611_STATE_RESET;
	b->next_us = now_us;
	b->converting = 0;
	b->have_d2 = false;
	b->stuck_run = 0;
	b->stats.setups++;
}

static int ms5611_read_prom(struct ms5611 *b, uint64_t now_us)
{
	for (int i = 0; i < 8; i++) {
		uint8_t rx[2];
		int err = ms5611_cmd(b, (uint8_t)(CMD_PROM_READ + 2 * i), rx, 2);
		if (err) {
			b->next_us = now_us + RETRY_US;
			return err;
		}
		b->prom[i] = (uint16_t)(rx[0] << 8 | rx[1]);
	}
	if (!ms5611_prom_is_valid(b->prom)) {
		/* Before the first run: counted since start-up. */
		if (++b->stats.crc_errors >= PROM_TRIES && !b->ever_ran) {
			b->state = MS5611_STATE_FAILED;
			b->fail_err = -EBADMSG;
			return -EBADMSG;
		}
		/* A reset reloads the PROM into its registers: read it again after one. */
		b->state = MS5611_STATE_RESET;
		b->next_us = now_us;
		return 0;
	}
	b->attempts = 0;
	b->ever_ran = true;
	b->state = MS5611_STATE_RUNNING;
	b->next_us = now_us;
	return 0;
}

static uint8_t ms5611_osr_offset(const struct ms5611 *b)
{
	return (uint8_t)(2 * (b->cfg.osr - MS5611_OSR_256));
}

static int ms5611_start(struct ms5611 *b, uint64_t now_us, uint8_t base)
{
	uint8_t cmd = (uint8_t)(base + ms5611_osr_offset(b));
	int err = ms5611_cmd(b, cmd, NULL, 0);

	if (err) {
		b->converting = 0;
		b->next_us = now_us + RETRY_US;
		return err;
	}
	b->converting = base;
	b->next_us = now_us + b->conv_us;
	return 0;
}

static int ms5611_run(struct ms5611 *b, uint64_t now_us, struct baro_sample *out)
{
	uint8_t next = CMD_CONVERT_D2;
	int ready = 0;

	if (b->converting) {
		uint8_t rx[3];
		int err = ms5611_cmd(b, CMD_ADC_READ, rx, 3);
		if (err) {
			/* The conversion's result is lost with the transfer: start it over. */
			b->converting = 0;
			b->next_us = now_us + RETRY_US;
			return err;
		}
		uint32_t adc = (uint32_t)rx[0] << 16 | (uint32_t)rx[1] << 8 | rx[2];
		if (adc == 0 || adc == 0xffffff) {
			b->stats.adc_errors++;
			next = b->converting;
		} else if (b->converting == CMD_CONVERT_D2) {
			b->d2 = adc;
			b->have_d2 = true;
			b->d1_since_d2 = 0;
			next = CMD_CONVERT_D1;
		} else {
			if (adc == b->prev_d1) {
				if (++b->stuck_run >= b->cfg.stuck_limit) {
					b->stats.stuck_events++;
					ms5611_restart(b, now_us);
					return -ESTALE;
				}
			} else {
				b->stuck_run = 0;
			}
			b->prev_d1 = adc;
			if (b->have_d2) {
				int32_t p_pa, t_centi;
				ms5611_compensate(b->prom, adc, b->d2, &p_pa, &t_centi);
				b->last = (struct baro_sample){
					.t_us = now_us,
					.pressure_pa = (float)p_pa,
					.temp_c = (float)t_centi / 100.0f,
				};
				b->have_last = true;
				b->stats.samples++;
				*out = b->last;
				ready = 1;
			}
			next = ++b->d1_since_d2 >= b->cfg.pressure_per_temp ? CMD_CONVERT_D2
									     : CMD_CONVERT_D1;
		}
	}
	int err = ms5611_start(b, now_us, next);
	return err ? err : ready;
}

int ms5611_poll(struct ms5611 *b, uint64_t now_us, struct baro_sample *out)
{
	int err;

	if (b->state == MS5611_STATE_FAILED)
		return b->fail_err;
	if (now_us < b->next_us)
		return 0;
	switch (b->state) {
	case MS5611_STATE_RESET:
		err = ms5611_cmd(b, CMD_RESET, NULL, 0);
		if (err && !b->ever_ran && ++b->attempts >= SETUP_TRIES) {
			b->state = MS5611_STATE_FAILED;
			b->fail_err = -ENODEV;
			return -ENODEV;
		}
		if (!err)
			b->state = MS5611_STATE_PROM;
		b->next_us = now_us + (err ? RETRY_US : RESET_WAIT_US);
		return err;
	case MS5611_STATE_PROM:
		return ms5611_read_prom(b, now_us);
	case MS5611_STATE_RUNNING:
		return ms5611_run(b, now_us, out);
	}
	return 0;
}

uint64_t ms5611_next_poll_us(const struct ms5611 *b)
{
	return b->next_us;
}

bool ms5611_is_running(const struct ms5611 *b)
{
	return b->state == MS5611_STATE_RUNNING;
}

bool ms5611_last_sample(const struct ms5611 *b, struct baro_sample *out)
{
	if (!b->have_last)
		return false;
	*out = b->last;
	return true;
}

const struct ms5611_stats *ms5611_stats(const struct ms5611 *b)
{
	return &b->stats;
}

/* ---- as a board device (driver.h): a barometer on SPI or I2C, polled when due ---- */

static int ms5611_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct ms5611_config cfg = { 0 };
	if (d->desc->kind == BOARD_DEV_SPI) {
		cfg.bus.kind = CHIP_BUS_SPI;
		cfg.bus.spi = d->handle;
	} else {
		cfg.bus.kind = CHIP_BUS_I2C;
		cfg.bus.i2c = d->handle;
		cfg.bus.i2c_addr = d->desc->u.i2c.addr ? d->desc->u.i2c.addr : MS5611_I2C_ADDR;
	}
	if (ms5611_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: barometer settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return ms5611_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return ms5611_next_poll_us(chip); }
static bool running_any(const void *chip) { return ms5611_is_running(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_BARO, .poll = poll_any, .next_us = next_any, .is_running = running_any,
	.detail = " (reset and PROM read)",
};

const struct driver ms5611_driver = {
	.name = "MS5611", .buses = DRV_BUS(BOARD_DEV_SPI) | DRV_BUS(BOARD_DEV_I2C),
	.role = "barometer", .pass = 1, .priv_size = sizeof(struct ms5611),
	.probe = ms5611_dev_probe, DRV_POLLED(&polled),
	.bits = DRV_SENSOR_ABS_PRESSURE, .stale_us = DRV_SLOW_STALE_US, .running_at_start = true,
};
