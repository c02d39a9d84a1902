// SPDX-License-Identifier: GPL-3.0-or-later
/* Registers and values: Honeywell HMC5883L datasheet (register list, tables 3 to 13). */
#include "drivers/hmc5883l.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/i2c.h"

#define REG_CONFIG_A 0x00
#define REG_CONFIG_B 0x01
#define REG_MODE 0x02
#define REG_DATA_X_MSB 0x03
#define REG_STATUS 0x09
#define REG_ID_A 0x0a

/* 8 samples averaged (MA = 11), 75 Hz (DO = 110), normal measurement (MS = 00). */
#define CONFIG_A_VALUE 0x78
#define MODE_CONTINUOUS 0x00
#define STATUS_RDY 0x01
#define OVERFLOW_VALUE (-4096)

/* Every 7 ms: a little under half the 13.3 ms of 75 Hz. */
#define POLL_US 7000u
#define RETRY_US 10000u
/* Datasheet: 6 ms to the first measurement after entering continuous mode. */
#define START_WAIT_US 7000u
#define STALE_US 200000u
#define SETUP_TRIES 5

static const uint16_t lsb_per_gauss[] = {
	[HMC5883L_GAIN_0_88GA] = 1370, [HMC5883L_GAIN_1_3GA] = 1090,
	[HMC5883L_GAIN_1_9GA] = 820, [HMC5883L_GAIN_2_5GA] = 660,
	[HMC5883L_GAIN_4_0GA] = 440, [HMC5883L_GAIN_4_7GA] = 390,
	[HMC5883L_GAIN_5_6GA] = 330, [HMC5883L_GAIN_8_1GA] = 230,
};

enum hmc5883l_state {
	HMC_STATE_PROBE = 1,
	HMC_STATE_CONFIGURE,
	HMC_STATE_VERIFY,
	HMC_STATE_RUNNING,
	HMC_STATE_FAILED,
};

int hmc5883l_init(struct hmc5883l *m, const struct hmc5883l_config *cfg)
{
	if (!cfg->bus || !rotation_is_valid(cfg->rotation))
		return -EINVAL;
	if ((unsigned int)cfg->gain > HMC5883L_GAIN_8_1GA)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (!m->cfg.addr)
		m->cfg.addr = HMC5883L_I2C_ADDR;
	if (!m->cfg.gain)
		m->cfg.gain = HMC5883L_GAIN_1_3GA;
	m->rot = rotation_matrix_of(cfg->rotation);
	m->ut_per_lsb = 100.0f / (float)lsb_per_gauss[m->cfg.gain];
	m->state = HMC_STATE_PROBE;
	return 0;
}

static int hmc_read(struct hmc5883l *m, uint8_t reg, uint8_t *buf, size_t n)
{
	int err = i2c_write_read(m->cfg.bus, m->cfg.addr, &reg, 1, buf, n);

	if (err)
		m->stats.bus_errors++;
	return err;
}

static uint8_t hmc_config_b(const struct hmc5883l *m)
{
	return (uint8_t)((m->cfg.gain - HMC5883L_GAIN_0_88GA) << 5);
}

static int hmc_give_up_or_retry(struct hmc5883l *m, uint64_t now_us, int err, int retry_state)
{
	/* A chip that has run is never given up on. */
	if (++m->attempts >= SETUP_TRIES && !m->ever_ran) {
		m->state = HMC_STATE_FAILED;
		m->fail_err = -ENODEV;
		return -ENODEV;
	}
	m->state = retry_state;
	m->next_us = now_us + RETRY_US;
	return err == -ENODEV ? 0 : err;
}

static int hmc_step_probe(struct hmc5883l *m, uint64_t now_us)
{
	uint8_t id[3];
	int err = hmc_read(m, REG_ID_A, id, 3);

	if (!err && memcmp(id, "H43", 3) != 0) {
		m->stats.probe_failures++;
		err = -ENODEV;
	}
	if (err)
		return hmc_give_up_or_retry(m, now_us, err, HMC_STATE_PROBE);
	m->attempts = 0;
	m->state = HMC_STATE_CONFIGURE;
	m->next_us = now_us;
	m->stats.setups++;
	return 0;
}

static int hmc_step_configure(struct hmc5883l *m, uint64_t now_us)
{
	/* One write from CONFIG_A on: the register pointer moves on by itself. */
	const uint8_t tx[4] = { REG_CONFIG_A, CONFIG_A_VALUE, hmc_config_b(m), MODE_CONTINUOUS };
	int err = i2c_write(m->cfg.bus, m->cfg.addr, tx, sizeof(tx));

	if (err) {
		m->stats.bus_errors++;
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->state = HMC_STATE_VERIFY;
	m->next_us = now_us + START_WAIT_US;
	return 0;
}

static int hmc_step_verify(struct hmc5883l *m, uint64_t now_us)
{
	uint8_t r[3];
	int err = hmc_read(m, REG_CONFIG_A, r, 3);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	if (r[0] != CONFIG_A_VALUE || r[1] != hmc_config_b(m) || (r[2] & 3) != MODE_CONTINUOUS) {
		m->stats.config_errors++;
		return hmc_give_up_or_retry(m, now_us, -ENODEV, HMC_STATE_CONFIGURE);
	}
	m->attempts = 0;
	m->ever_ran = true;
	m->skip_next = true;
	m->last_data_us = now_us;
	m->state = HMC_STATE_RUNNING;
	m->next_us = now_us + POLL_US;
	return 0;
}

static int16_t be16(const uint8_t *p)
{
	return (int16_t)(uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static int hmc_run(struct hmc5883l *m, uint64_t now_us, struct mag_sample *out)
{
	uint8_t status, d[6];
	int err = hmc_read(m, REG_STATUS, &status, 1);

	m->next_us = now_us + POLL_US;
	if (err)
		return err;
	if (!(status & STATUS_RDY)) {
		if (now_us - m->last_data_us > STALE_US) {
			m->stats.stale_events++;
			m->state = HMC_STATE_PROBE;
			m->next_us = now_us;
		}
		return 0;
	}
	/* All six bytes in one read: a partial read would lock the data registers. */
	err = hmc_read(m, REG_DATA_X_MSB, d, sizeof(d));
	if (err)
		return err;
	m->last_data_us = now_us;
	if (m->skip_next) {
		m->skip_next = false;
		return 0;
	}
	const int16_t x = be16(&d[0]), z = be16(&d[2]), y = be16(&d[4]);
	if (x == OVERFLOW_VALUE || y == OVERFLOW_VALUE || z == OVERFLOW_VALUE) {
		m->stats.overflows++;
		return 0;
	}
	const float f[3] = { (float)x * m->ut_per_lsb, (float)y * m->ut_per_lsb,
			     (float)z * m->ut_per_lsb };
	rotation_apply(&m->rot, f, m->last.field_ut);
	m->last.t_us = now_us;
	m->have_last = true;
	m->stats.samples++;
	*out = m->last;
	return 1;
}

int hmc5883l_poll(struct hmc5883l *m, uint64_t now_us, struct mag_sample *out)
{
	if (m->state == HMC_STATE_FAILED)
		return m->fail_err;
	if (now_us < m->next_us)
		return 0;
	switch (m->state) {
	case HMC_STATE_PROBE:
		return hmc_step_probe(m, now_us);
	case HMC_STATE_CONFIGURE:
		return hmc_step_configure(m, now_us);
	case HMC_STATE_VERIFY:
		return hmc_step_verify(m, now_us);
	case HMC_STATE_RUNNING:
		return hmc_run(m, now_us, out);
	}
	return 0;
}

uint64_t hmc5883l_next_poll_us(const struct hmc5883l *m)
{
	return m->next_us;
}

bool hmc5883l_is_running(const struct hmc5883l *m)
{
	return m->state == HMC_STATE_RUNNING;
}

bool hmc5883l_last_sample(const struct hmc5883l *m, struct mag_sample *out)
{
	if (!m->have_last)
		return false;
	*out = m->last;
	return true;
}

const struct hmc5883l_stats *hmc5883l_stats(const struct hmc5883l *m)
{
	return &m->stats;
}

/* ---- as a board device (driver.h): a compass on I2C, read at 100 Hz ---- */

static int hmc5883l_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	int r = d->desc->drv.rotation;
	struct hmc5883l_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr,
				    .rotation = r ? (enum rotation)r : ROTATION_NONE };
	if (hmc5883l_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s: HMC5883L settings refused", d->desc->name);
		return -EINVAL;
	}
	return 0;
}

static int poll_any(void *chip, uint64_t now_us, void *out) { return hmc5883l_poll(chip, now_us, out); }
static uint64_t next_any(const void *chip) { return hmc5883l_next_poll_us(chip); }
static bool running_any(const void *chip) { return hmc5883l_is_running(chip); }

static const struct drv_polled polled = {
	.kind = SENSOR_MAG, .poll = poll_any, .next_us = next_any, .is_running = running_any,
	.rate_hz = 100, .detail = " (identification)",
};

const struct driver hmc5883l_driver = {
	.name = "HMC5883L", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "HMC5883L", .pass = 1,
	.priv_size = sizeof(struct hmc5883l), .probe = hmc5883l_dev_probe, DRV_POLLED(&polled),
	.bits = DRV_SENSOR_MAG, .bits2 = DRV_SENSOR_MAG2, .stale_us = DRV_SLOW_STALE_US,
	.running_at_start = true,
};
