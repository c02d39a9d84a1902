// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/lightware_i2c.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/i2c.h"


int lightware_i2c_init(struct lightware_i2c *s, const struct lightware_i2c_config *cfg)
{
	if (!cfg->bus)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!s->cfg.addr)
		s->cfg.addr = LIGHTWARE_I2C_ADDR;
	if (!s->cfg.interval_us)
		s->cfg.interval_us = 50000;
	return 0;
}

int lightware_i2c_poll(struct lightware_i2c *s, uint64_t now_us, struct range_sample *out)
{
	uint8_t d[2];

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
	uint16_t cm = (uint16_t)(d[0] << 8 | d[1]);
	struct range_sample r = { .t_us = now_us, .quality_pct = -1, .raw = cm };
	if (cm & 0x8000u) {
		s->stats.no_return++;
		r.reading = RANGE_READING_NO_RETURN;
	} else if (cm > LIGHTWARE_I2C_MAX_CM) {
		s->stats.refused++;
		return -EIO;
	} else {
		r.reading = RANGE_READING_OK;
		r.distance_m = (float)cm * 0.01f;
	}
	s->stats.samples++;
	*out = r;
	return 1;
}

uint64_t lightware_i2c_next_poll_us(const struct lightware_i2c *s)
{
	return s->next_us;
}

const struct lightware_i2c_stats *lightware_i2c_stats(const struct lightware_i2c *s)
{
	return &s->stats;
}

/* ---- as a board device (driver.h): a rangefinder on I2C, read at 20 Hz ---- */

static int lightware_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct lightware_i2c_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr };
	if (lightware_i2c_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: rangefinder settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return lightware_i2c_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return lightware_i2c_next_poll_us(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_RANGE, .poll = poll_any, .next_us = next_any, .rate_hz = 100,
	.eio_answers = true, .detail = " (a 2-byte distance read)",
};

const struct driver lightware_i2c_driver = {
	.name = "LightWare SF10/SF11", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "rangefinder",
	.pass = 1, .priv_size = sizeof(struct lightware_i2c), .probe = lightware_dev_probe,
	DRV_POLLED(&polled), .bits = DRV_SENSOR_LASER_POSITION, .stale_us = DRV_SLOW_STALE_US,
	.running_at_start = true,
};
