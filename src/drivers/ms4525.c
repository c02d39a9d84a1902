// SPDX-License-Identifier: GPL-3.0-or-later
/* Packet layout and transfer functions: MS4525DO datasheet (1.5 to 1.6.2, transfer function). */
#include "drivers/ms4525.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/i2c.h"

#define PA_PER_PSI 6894.757293168f
#define FULL_SCALE 16383.0f
#define STATUS_NORMAL 0
#define STATUS_STALE 2

int ms4525_init(struct ms4525 *s, const struct ms4525_config *cfg)
{
	if (!cfg->bus || (unsigned int)cfg->output > MS4525_OUTPUT_B)
		return -EINVAL;
	bool default_range = cfg->p_min_psi == 0.0f && cfg->p_max_psi == 0.0f;
	if (!default_range && !(cfg->p_max_psi > cfg->p_min_psi))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!s->cfg.addr)
		s->cfg.addr = MS4525_I2C_ADDR;
	if (!s->cfg.output)
		s->cfg.output = MS4525_OUTPUT_A;
	if (default_range) {
		s->cfg.p_min_psi = -1.0f;
		s->cfg.p_max_psi = 1.0f;
	}
	if (!s->cfg.interval_us)
		s->cfg.interval_us = 10000;
	return 0;
}

float ms4525_pressure_pa(const struct ms4525_config *cfg, uint16_t counts14)
{
	float low = cfg->output == MS4525_OUTPUT_B ? 0.05f : 0.10f;
	float span = 1.0f - 2.0f * low;
	float psi = ((float)counts14 - low * FULL_SCALE) * (cfg->p_max_psi - cfg->p_min_psi) /
		    (span * FULL_SCALE) + cfg->p_min_psi;

	return psi * PA_PER_PSI;
}

float ms4525_temp_c(uint16_t counts11)
{
	return (float)counts11 * 200.0f / 2047.0f - 50.0f;
}

int ms4525_poll(struct ms4525 *s, uint64_t now_us, struct airspeed_sample *out)
{
	uint8_t d[4];

	if (s->start.absent)
		return -ENODEV;
	if (now_us < s->next_us)
		return 0;
	s->next_us = now_us + s->cfg.interval_us;
	int err = i2c_read(s->cfg.bus, s->cfg.addr, d, sizeof(d));
	if (err) {
		s->stats.bus_errors++;
		return drv_startup_failed(&s->start, err, now_us, &s->next_us);
	}
	s->start.answered = true;

	uint8_t status = d[0] >> 6;
	if (status == STATUS_STALE) {
		s->stats.stale++;
		return 0;
	}
	if (status != STATUS_NORMAL) {
		s->stats.faults++;
		return -EIO;
	}
	uint16_t p = (uint16_t)((d[0] & 0x3f) << 8 | d[1]);
	/* The last 5 bits of the fourth byte are undefined (1.6.1). */
	uint16_t t = (uint16_t)(d[2] << 3 | d[3] >> 5);
	s->last = (struct airspeed_sample){
		.t_us = now_us,
		.diff_pressure_pa = ms4525_pressure_pa(&s->cfg, p),
		.temp_c = ms4525_temp_c(t),
	};
	s->have_last = true;
	s->stats.samples++;
	*out = s->last;
	return 1;
}

bool ms4525_last_sample(const struct ms4525 *s, struct airspeed_sample *out)
{
	if (!s->have_last)
		return false;
	*out = s->last;
	return true;
}

const struct ms4525_stats *ms4525_stats(const struct ms4525 *s)
{
	return &s->stats;
}

uint64_t ms4525_next_poll_us(const struct ms4525 *s)
{
	return s->next_us;
}

/* ---- as a board device (driver.h): a pitot on I2C, read at 100 Hz ---- */

static int ms4525_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct ms4525_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr };
	if (ms4525_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: pitot settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return ms4525_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return ms4525_next_poll_us(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_AIRSPEED, .poll = poll_any, .next_us = next_any, .rate_hz = 100,
	.eio_answers = true,
};

const struct driver ms4525_driver = {
	.name = "MS4525DO", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "pitot", .pass = 1,
	.priv_size = sizeof(struct ms4525), .probe = ms4525_dev_probe, DRV_POLLED(&polled),
	.bits = DRV_SENSOR_DIFF_PRESSURE, .stale_us = DRV_SLOW_STALE_US, .running_at_start = true,
};
