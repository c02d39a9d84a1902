// SPDX-License-Identifier: GPL-3.0-or-later
/* Registers, modes and timings: AK8963 datasheet (register map, 6.4 operation modes, 8.3). */
#include "drivers/ak8963.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/i2c.h"

#define ST1_DRDY 0x01
#define ST1_DOR 0x02
#define ST2_HOFL 0x08
#define ST2_BITM 0x10

#define UT_PER_LSB_16BIT 0.15f

/* Power-down to another mode needs 100 us; one millisecond is the poll grain anyway. */
#define MODE_WAIT_US 1000u
#define RESET_WAIT_US 10000u
#define RETRY_US 10000u
/* Twice the data rate, so no sample waits long for its read. */
#define POLL_US 5000u
/* Ten missed samples in a row: the chip is no longer measuring. */
#define STALE_US 100000u
#define PROBE_TRIES 5

enum ak8963_state {
	AK_STATE_PROBE = 1,
	AK_STATE_RESET,
	AK_STATE_FUSE_MODE,
	AK_STATE_READ_ASA,
	AK_STATE_START,
	AK_STATE_RUNNING,
	AK_STATE_FAILED,
};

int ak8963_init(struct ak8963 *m, const struct ak8963_config *cfg)
{
	if (!cfg->bus || !rotation_is_valid(cfg->rotation))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (!m->cfg.addr)
		m->cfg.addr = AK8963_I2C_ADDR;
	m->rot = rotation_matrix_of(cfg->rotation);
	m->state = AK_STATE_PROBE;
	return 0;
}

static int ak_read(struct ak8963 *m, uint8_t reg, uint8_t *buf, size_t n)
{
	int err = i2c_write_read(m->cfg.bus, m->cfg.addr, &reg, 1, buf, n);

	if (err)
		m->stats.bus_errors++;
	return err;
}

static int ak_write(struct ak8963 *m, uint8_t reg, uint8_t val)
{
	const uint8_t tx[2] = { reg, val };
	int err = i2c_write(m->cfg.bus, m->cfg.addr, tx, 2);

	if (err)
		m->stats.bus_errors++;
	return err;
}

/* Moves to next after wait_us, or retries the same step after RETRY_US on error. */
static int ak_advance(struct ak8963 *m, uint64_t now_us, int err, int next, uint32_t wait_us)
{
	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->state = next;
	m->next_us = now_us + wait_us;
	return 0;
}

static void ak_restart(struct ak8963 *m, uint64_t now_us)
{
	m->state = AK_STATE_RESET;
	m->next_us = now_us;
	m->stats.setups++;
}

static int ak_step_probe(struct ak8963 *m, uint64_t now_us)
{
	uint8_t wia;
	int err = ak_read(m, AK8963_REG_WIA, &wia, 1);

	if (!err && wia != AK8963_WIA) {
		m->stats.probe_failures++;
		err = -ENODEV;
	}
	if (err) {
		if (++m->attempts >= PROBE_TRIES) {
			m->state = AK_STATE_FAILED;
			m->fail_err = -ENODEV;
			return -ENODEV;
		}
		m->next_us = now_us + RETRY_US;
		return err == -ENODEV ? 0 : err;
	}
	m->attempts = 0;
	ak_restart(m, now_us);
	return 0;
}

static int ak_step_read_asa(struct ak8963 *m, uint64_t now_us)
{
	uint8_t asa[3];
	int err = ak_read(m, AK8963_REG_ASAX, asa, 3);

	if (!err) {
		memcpy(m->asa, asa, 3);
		ak8963_scale_from_asa(asa, m->scale_ut);
		/* Leave fuse-ROM mode through power-down. */
		err = ak_write(m, AK8963_REG_CNTL1, AK8963_CNTL1_POWER_DOWN);
	}
	return ak_advance(m, now_us, err, AK_STATE_START, MODE_WAIT_US);
}

void ak8963_scale_from_asa(const uint8_t asa[3], float scale_ut[3])
{
	/* Datasheet 8.3.11: Hadj = H * ((ASA - 128) * 0.5 / 128 + 1). */
	for (int i = 0; i < 3; i++)
		scale_ut[i] = UT_PER_LSB_16BIT * (((float)asa[i] - 128.0f) / 256.0f + 1.0f);
}

static int16_t le16(const uint8_t *p)
{
	return (int16_t)(uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

enum ak8963_data ak8963_decode(const uint8_t d[AK8963_DATA_LEN], const float scale_ut[3],
			       const struct rotation_matrix *rot, float field_ut[3], bool *overrun)
{
	*overrun = d[0] & ST1_DOR;
	if (!(d[0] & ST1_DRDY))
		return AK8963_DATA_NONE;
	if (!(d[7] & ST2_BITM))
		return AK8963_DATA_NOT_16BIT;
	if (d[7] & ST2_HOFL)
		return AK8963_DATA_OVERFLOW;
	float f[3];
	for (int i = 0; i < 3; i++)
		f[i] = (float)le16(&d[1 + 2 * i]) * scale_ut[i];
	rotation_apply(rot, f, field_ut);
	return AK8963_DATA_NEW;
}

static int ak_run(struct ak8963 *m, uint64_t now_us, struct mag_sample *out)
{
	uint8_t d[AK8963_DATA_LEN];
	bool overrun;
	int err = ak_read(m, AK8963_REG_ST1, d, sizeof(d));

	m->next_us = now_us + POLL_US;
	if (err)
		return err;
	enum ak8963_data r = ak8963_decode(d, m->scale_ut, &m->rot, m->last.field_ut, &overrun);
	if (r == AK8963_DATA_NONE) {
		if (now_us - m->last_data_us > STALE_US) {
			m->stats.stale_events++;
			ak_restart(m, now_us);
		}
		return 0;
	}
	m->last_data_us = now_us;
	if (overrun)
		m->stats.overruns++;
	if (r == AK8963_DATA_NOT_16BIT) {
		/* 14-bit output: the chip lost its configuration. */
		ak_restart(m, now_us);
		return 0;
	}
	if (r == AK8963_DATA_OVERFLOW) {
		m->stats.overflows++;
		return 0;
	}
	m->last.t_us = now_us;
	m->have_last = true;
	m->stats.samples++;
	*out = m->last;
	return 1;
}

int ak8963_poll(struct ak8963 *m, uint64_t now_us, struct mag_sample *out)
{
	int err;

	if (m->state == AK_STATE_FAILED)
		return m->fail_err;
	if (now_us < m->next_us)
		return 0;
	switch (m->state) {
	case AK_STATE_PROBE:
		return ak_step_probe(m, now_us);
	case AK_STATE_RESET:
		err = ak_write(m, AK8963_REG_CNTL2, AK8963_CNTL2_SRST);
		return ak_advance(m, now_us, err, AK_STATE_FUSE_MODE, RESET_WAIT_US);
	case AK_STATE_FUSE_MODE:
		/* After the reset the chip is in power-down: fuse-ROM access may follow directly. */
		err = ak_write(m, AK8963_REG_CNTL1, AK8963_CNTL1_FUSE_ROM);
		return ak_advance(m, now_us, err, AK_STATE_READ_ASA, MODE_WAIT_US);
	case AK_STATE_READ_ASA:
		return ak_step_read_asa(m, now_us);
	case AK_STATE_START:
		err = ak_write(m, AK8963_REG_CNTL1, AK8963_CNTL1_CONT_100HZ_16BIT);
		if (!err)
			m->last_data_us = now_us;
		return ak_advance(m, now_us, err, AK_STATE_RUNNING, POLL_US);
	case AK_STATE_RUNNING:
		return ak_run(m, now_us, out);
	}
	return 0;
}

uint64_t ak8963_next_poll_us(const struct ak8963 *m)
{
	return m->next_us;
}

bool ak8963_is_running(const struct ak8963 *m)
{
	return m->state == AK_STATE_RUNNING;
}

bool ak8963_last_sample(const struct ak8963 *m, struct mag_sample *out)
{
	if (!m->have_last)
		return false;
	*out = m->last;
	return true;
}

const struct ak8963_stats *ak8963_stats(const struct ak8963 *m)
{
	return &m->stats;
}

void ak8963_asa(const struct ak8963 *m, uint8_t asa[3])
{
	memcpy(asa, m->asa, 3);
}

/* ---- as a board device (driver.h): a compass on I2C, read at 100 Hz ---- */

static int ak8963_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	int r = d->desc->drv.rotation;
	struct ak8963_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr,
				    .rotation = r ? (enum rotation)r : ROTATION_NONE };
	if (ak8963_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: AK8963 settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return ak8963_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return ak8963_next_poll_us(chip); }
static bool running_any(const void *chip) { return ak8963_is_running(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_MAG, .poll = poll_any, .next_us = next_any, .is_running = running_any,
	.rate_hz = 100, .detail = " (WIA)",
};

const struct driver ak8963_driver = {
	.name = "AK8963", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "AK8963", .pass = 1,
	.priv_size = sizeof(struct ak8963), .probe = ak8963_dev_probe, DRV_POLLED(&polled),
	.bits = DRV_SENSOR_MAG, .bits2 = DRV_SENSOR_MAG2, .stale_us = DRV_SLOW_STALE_US,
	.running_at_start = true,
};
