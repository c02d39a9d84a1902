// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/lidarlite.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/i2c.h"

#define STATUS_POLL_US 1000u

int lidarlite_init(struct lidarlite *s, const struct lidarlite_config *cfg)
{
	if (!cfg->bus)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!s->cfg.addr)
		s->cfg.addr = LIDARLITE_I2C_ADDR;
	if (!s->cfg.interval_us)
		s->cfg.interval_us = 20000;
	s->step = LIDARLITE_ACQUIRE;
	return 0;
}

/* A failed transfer: counted; at start-up, 10 without an answer are the end. */
static int bus_error(struct lidarlite *s, uint64_t now_us, int err)
{
	s->stats.bus_errors++;
	s->step = LIDARLITE_ACQUIRE;
	return drv_startup_failed(&s->start, err, now_us, &s->next_us);
}

/* Register reg's len bytes: the address, a stop, then the read (no repeated start). */
static int read_reg(struct lidarlite *s, uint8_t reg, uint8_t *buf, size_t len)
{
	int err = i2c_write(s->cfg.bus, s->cfg.addr, &reg, 1);
	return err ? err : i2c_read(s->cfg.bus, s->cfg.addr, buf, len);
}

static int read_distance(struct lidarlite *s, uint64_t now_us, struct range_sample *out)
{
	uint8_t d[2];
	int err = read_reg(s, LIDARLITE_REG_FULL_DELAY_HIGH | LIDARLITE_AUTO_INCREMENT, d, sizeof(d));
	if (err)
		return bus_error(s, now_us, err);
	s->step = LIDARLITE_ACQUIRE;
	uint16_t cm = (uint16_t)(d[0] << 8 | d[1]);
	if (cm > LIDARLITE_MAX_CM) {
		s->stats.refused++;
		return -EIO;
	}
	s->stats.samples++;
	*out = (struct range_sample){ .t_us = now_us, .distance_m = (float)cm * 0.01f,
				      .quality_pct = -1, .reading = RANGE_READING_OK, .raw = cm };
	return 1;
}

int lidarlite_poll(struct lidarlite *s, uint64_t now_us, struct range_sample *out)
{
	if (s->start.absent)
		return -ENODEV;
	if (now_us < s->next_us)
		return 0;
	int err;
	switch (s->step) {
	case LIDARLITE_ACQUIRE: {
		if (now_us < s->cycle_us) {
			s->next_us = s->cycle_us;
			return 0;
		}
		const uint8_t cmd[2] = { LIDARLITE_REG_ACQ_COMMAND, LIDARLITE_ACQ_BIAS_CORRECTED };
		err = i2c_write(s->cfg.bus, s->cfg.addr, cmd, sizeof(cmd));
		if (err)
			return bus_error(s, now_us, err);
		s->start.answered = true;
		s->acquired_us = now_us;
		s->cycle_us = now_us + s->cfg.interval_us;
		s->step = LIDARLITE_STATUS;
		s->next_us = now_us + STATUS_POLL_US;
		return 0;
	}
	case LIDARLITE_STATUS: {
		uint8_t st;
		err = read_reg(s, LIDARLITE_REG_STATUS, &st, 1);
		if (err)
			return bus_error(s, now_us, err);
		if (st & LIDARLITE_STATUS_BUSY) {
			if (now_us - s->acquired_us >= LIDARLITE_BUSY_LIMIT_US) {
				s->stats.busy_timeouts++;
				s->step = LIDARLITE_ACQUIRE;
				return -ETIMEDOUT;
			}
			s->next_us = now_us + STATUS_POLL_US;
			return 0;
		}
		if (!(st & LIDARLITE_STATUS_HEALTH) || (st & LIDARLITE_STATUS_PROCESS_ERROR)) {
			s->stats.faults++;
			s->step = LIDARLITE_ACQUIRE;
			return -EIO;
		}
		if (st & LIDARLITE_STATUS_INVALID_SIGNAL) {
			s->stats.no_return++;
			s->stats.samples++;
			s->step = LIDARLITE_ACQUIRE;
			*out = (struct range_sample){ .t_us = now_us, .quality_pct = -1,
						      .reading = RANGE_READING_NO_RETURN };
			return 1;
		}
		s->status = st;
		s->step = LIDARLITE_DISTANCE;
		return read_distance(s, now_us, out);   /* not busy: the distance is there now */
	}
	case LIDARLITE_DISTANCE:
		return read_distance(s, now_us, out);
	}
	return -EINVAL;
}

uint64_t lidarlite_next_poll_us(const struct lidarlite *s)
{
	return s->step == LIDARLITE_ACQUIRE && s->cycle_us > s->next_us ? s->cycle_us : s->next_us;
}

const struct lidarlite_stats *lidarlite_stats(const struct lidarlite *s)
{
	return &s->stats;
}

/* ---- as a board device (driver.h): polled on the timer thread when due ---- */

static int lidarlite_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct lidarlite_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr };
	if (lidarlite_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: rangefinder settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return lidarlite_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return lidarlite_next_poll_us(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_RANGE, .poll = poll_any, .next_us = next_any, .rate_hz = 0,
	.eio_answers = true, .detail = " (acquisition command)",
};

const struct driver lidarlite_driver = {
	.name = "LIDAR-Lite v3", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "rangefinder",
	.pass = 1, .priv_size = sizeof(struct lidarlite), .probe = lidarlite_dev_probe,
	DRV_POLLED(&polled), .bits = DRV_SENSOR_LASER_POSITION, .stale_us = DRV_SLOW_STALE_US,
	.running_at_start = true,
};
