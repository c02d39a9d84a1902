// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Registers, bits and sensitivities: ST LSM9DS1 data sheet DocID025715
 * (Rev 3): register map (table 21 and 22), CTRL_REG1_G (ODR_G, FS_G),
 * CTRL_REG4, CTRL_REG5_XL, CTRL_REG6_XL (ODR_XL, FS_XL, whose +-16 g code is
 * 01, not 11), CTRL_REG8 (BOOT, BDU, H_LACTIVE, PP_OD, SIM, IF_ADD_INC,
 * BLE, SW_RESET), CTRL_REG9 (I2C_DISABLE), STATUS_REG (XLDA, GDA, TDA),
 * CTRL_REG1_M..CTRL_REG5_M (TEMP_COMP, OM, DO; FS; SOFT_RST; I2C_DISABLE,
 * MD; OMZ; BDU), STATUS_REG_M (ZYXDA), table 3 (sensitivities: 0.732 mg/LSB
 * at +-16 g, 70 mdps/LSB at 2000 dps, 0.14 mgauss/LSB at +-4 gauss), the
 * temperature sensor (16 LSB/degC, 0 at 25 degC), and the SPI address byte
 * (the magnetometer's MS bit, bit 6: auto-increment). Each value checked
 * against ST's own register header and conversion functions
 * (STMicroelectronics/lsm9ds1-pid, lsm9ds1_reg.h and lsm9ds1_reg.c: the
 * bit fields of every register named here, LSM9DS1_IMU_ID 0x68,
 * LSM9DS1_MAG_ID 0x3D, lsm9ds1_from_fs16g_to_mg 0.732, _fs2000dps_to_mdps
 * 70.0, _fs4gauss_to_mG 0.14, _lsb_to_celsius lsb / 16 + 25), and the
 * magnetometer's MS bit against lonesometraveler/lsm9ds1's SPI interface
 * (MS_BIT 0x40, "page 34" of the data sheet).
 */
#include "drivers/lsm9ds1.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/spi.h"

#define SPI_READ 0x80
#define SPI_M_INC 0x40                  /* the M die: auto-increment in a burst */

/* The A/G die. */
#define AG_WHO_AM_I 0x0f
#define AG_CTRL_REG1_G 0x10
#define AG_OUT_TEMP_L 0x15
#define AG_CTRL_REG4 0x1e
#define AG_CTRL_REG5_XL 0x1f
#define AG_CTRL_REG6_XL 0x20
#define AG_CTRL_REG8 0x22
#define AG_CTRL_REG9 0x23
#define AG_OUT_X_L_XL 0x28

#define AG_CTRL_REG1_G_VALUE 0xd8       /* ODR_G 110: 952 Hz; FS_G 11: 2000 dps; BW_G 00 */
#define AG_CTRL_REG4_VALUE 0x38         /* gyro X, Y, Z on (the reset value) */
#define AG_CTRL_REG5_XL_VALUE 0x38      /* accel X, Y, Z on, no decimation (the reset value) */
#define AG_CTRL_REG6_XL_VALUE 0xc8      /* ODR_XL 110: 952 Hz; FS_XL 01: +-16 g; AA filter by ODR */
#define AG_CTRL_REG8_RESET 0x05         /* IF_ADD_INC | SW_RESET */
#define AG_CTRL_REG8_VALUE 0x44         /* BDU | IF_ADD_INC */
#define AG_CTRL_REG9_VALUE 0x04         /* I2C_DISABLE: SPI only */
#define AG_STATUS_GDA 0x02

/* The M die. */
#define M_WHO_AM_I 0x0f
#define M_CTRL_REG1 0x20
#define M_CTRL_REG2 0x21
#define M_CTRL_REG3 0x22
#define M_CTRL_REG4 0x23
#define M_CTRL_REG5 0x24
#define M_STATUS 0x27

#define M_CTRL_REG1_VALUE 0xfc          /* TEMP_COMP; OM 11: ultra-high performance; DO 111: 80 Hz */
#define M_CTRL_REG2_VALUE 0x00          /* FS 00: +-4 gauss */
#define M_CTRL_REG2_SOFT_RST 0x04
#define M_CTRL_REG3_VALUE 0x80          /* I2C_DISABLE; MD 00: continuous conversion */
#define M_CTRL_REG4_VALUE 0x0c          /* OMZ 11: ultra-high performance; little-endian */
#define M_CTRL_REG5_VALUE 0x40          /* BDU */
#define M_STATUS_ZYXDA 0x08

/* The data sheet gives no time for a soft reset: a wait with a wide margin. */
#define RESET_WAIT_US 10000u
/* Before the first read: a few output periods for the filters to fill. */
#define SETTLE_WAIT_US 20000u
#define RETRY_US 5000u
#define SETUP_TRIES 5
#define AG_STALE_US 50000u
#define AG_DEFAULT_STUCK_LIMIT 250u
#define M_POLL_US 5000u
#define M_STALE_US 200000u
#define M_DEFAULT_STUCK_LIMIT 100u

#define GRAVITY_M_S2 9.80665f
#define PI_F 3.14159265358979f
#define ACCEL_M_S2_PER_LSB (0.732e-3f * GRAVITY_M_S2)
#define GYRO_RAD_S_PER_LSB (70e-3f * PI_F / 180.0f)
#define TEMP_LSB_PER_C 16.0f
#define TEMP_ZERO_C 25.0f
/* 0.14 mgauss/LSB, 100 uT per gauss. */
#define MAG_UT_PER_LSB (0.14e-3f * 100.0f)

enum lsm9ds1_state {
	LSM_STATE_PROBE = 1,
	LSM_STATE_CONFIGURE,
	LSM_STATE_VERIFY,
	LSM_STATE_RUNNING,
	LSM_STATE_FAILED,
};

/* ---- register access, the same for both dies ---- */

/* Reads n registers from addr on (addr carries the read and increment bits); out gets n bytes. */
static int die_read(struct spi_dev *spi, uint32_t speed_hz, uint8_t addr, uint8_t *out, size_t n)
{
	uint8_t tx[16] = { addr }, rx[16];

	if (n + 1 > sizeof(tx))
		return -EINVAL;
	const struct spi_xfer x = { .tx = tx, .rx = rx, .len = (uint32_t)(n + 1), .speed_hz = speed_hz };
	int err = spi_transfer_batch(spi, &x, 1);
	if (!err)
		memcpy(out, &rx[1], n);
	return err;
}

/* n (register, value) pairs, each its own transaction, in one kernel call. */
static int die_write(struct spi_dev *spi, uint32_t speed_hz, const uint8_t (*pairs)[2], size_t n)
{
	struct spi_xfer x[SPI_MAX_XFERS];

	if (n == 0 || n > SPI_MAX_XFERS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		x[i] = (struct spi_xfer){ .tx = pairs[i], .len = 2, .speed_hz = speed_hz,
					  .cs_change = i + 1 < n };
	return spi_transfer_batch(spi, x, n);
}

static int16_t le16(const uint8_t *p)
{
	return (int16_t)(uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

/*
 * A failed identification at start-up: the shared start-up rule. Returns
 * what the caller returns; sets *failed when the device is now refused.
 */
static int startup_failed(struct drv_startup *s, int err, uint64_t now_us, uint64_t *next_us,
			  bool *failed)
{
	*next_us = now_us + RETRY_US;
	int rc = drv_startup_failed(s, err, now_us, next_us);
	*failed = s->absent;
	if (*failed)
		return -ENODEV;
	/* A wrong identification is no transfer error: nothing for the caller to count. */
	return err == -ENODEV ? 0 : rc;
}

/* ---- the accelerometer + gyroscope die ---- */

int lsm9ds1_init(struct lsm9ds1 *g, const struct lsm9ds1_config *cfg)
{
	if (!cfg->spi || !rotation_is_valid(cfg->rotation))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	if (!g->cfg.stuck_limit)
		g->cfg.stuck_limit = AG_DEFAULT_STUCK_LIMIT;
	g->rot = rotation_matrix_of(cfg->rotation);
	g->state = LSM_STATE_PROBE;
	g->stats.setups = 1;
	return 0;
}

static int ag_read(struct lsm9ds1 *g, uint8_t reg, uint8_t *out, size_t n)
{
	int err = die_read(g->cfg.spi, g->cfg.speed_hz, (uint8_t)(reg | SPI_READ), out, n);

	if (err)
		g->stats.bus_errors++;
	return err;
}

static int ag_write(struct lsm9ds1 *g, const uint8_t (*pairs)[2], size_t n)
{
	int err = die_write(g->cfg.spi, g->cfg.speed_hz, pairs, n);

	if (err)
		g->stats.bus_errors++;
	return err;
}

static int ag_fail(struct lsm9ds1 *g, int err)
{
	g->state = LSM_STATE_FAILED;
	g->fail_err = err;
	return err;
}

static void ag_restart(struct lsm9ds1 *g, uint64_t at_us)
{
	g->state = LSM_STATE_PROBE;
	g->next_us = at_us;
	g->stuck_run = 0;
	g->stats.setups++;
}

static int ag_step_probe(struct lsm9ds1 *g, uint64_t now_us)
{
	uint8_t id;
	bool failed;
	int err = ag_read(g, AG_WHO_AM_I, &id, 1);

	if (!err) {
		g->who_am_i = id;
		if (id != LSM9DS1_WHO_AM_I_AG) {
			g->stats.probe_failures++;
			err = -ENODEV;
		}
	}
	if (err) {
		int rc = startup_failed(&g->start, err, now_us, &g->next_us, &failed);
		return failed ? ag_fail(g, -ENODEV) : rc;
	}
	g->start.answered = true;
	const uint8_t reset[1][2] = { { AG_CTRL_REG8, AG_CTRL_REG8_RESET } };
	err = ag_write(g, reset, 1);
	if (err) {
		g->next_us = now_us + RETRY_US;
		return err;
	}
	g->state = LSM_STATE_CONFIGURE;
	g->next_us = now_us + RESET_WAIT_US;
	return 0;
}

static int ag_step_configure(struct lsm9ds1 *g, uint64_t now_us)
{
	/* The output data rate last: it starts the gyro and accelerometer. */
	const uint8_t w[6][2] = {
		{ AG_CTRL_REG8, AG_CTRL_REG8_VALUE },
		{ AG_CTRL_REG9, AG_CTRL_REG9_VALUE },
		{ AG_CTRL_REG4, AG_CTRL_REG4_VALUE },
		{ AG_CTRL_REG5_XL, AG_CTRL_REG5_XL_VALUE },
		{ AG_CTRL_REG6_XL, AG_CTRL_REG6_XL_VALUE },
		{ AG_CTRL_REG1_G, AG_CTRL_REG1_G_VALUE },
	};
	int err = ag_write(g, w, 6);

	if (err) {
		g->next_us = now_us + RETRY_US;
		return err;
	}
	g->state = LSM_STATE_VERIFY;
	g->next_us = now_us + SETTLE_WAIT_US;
	return 0;
}

static int ag_step_verify(struct lsm9ds1 *g, uint64_t now_us)
{
	uint8_t r1, r[6];   /* CTRL_REG1_G; CTRL_REG4 .. CTRL_REG9 */
	int err = ag_read(g, AG_CTRL_REG1_G, &r1, 1);

	if (!err)
		err = ag_read(g, AG_CTRL_REG4, r, sizeof(r));
	if (err) {
		g->next_us = now_us + RETRY_US;
		return err;
	}
	if (r1 != AG_CTRL_REG1_G_VALUE || r[0] != AG_CTRL_REG4_VALUE ||
	    r[1] != AG_CTRL_REG5_XL_VALUE || r[2] != AG_CTRL_REG6_XL_VALUE ||
	    r[4] != AG_CTRL_REG8_VALUE || r[5] != AG_CTRL_REG9_VALUE) {
		g->stats.config_errors++;
		if (++g->attempts >= SETUP_TRIES && !g->ever_ran)
			return ag_fail(g, -ENODEV);
		ag_restart(g, now_us + RETRY_US);
		return 0;
	}
	g->attempts = 0;
	g->ever_ran = true;
	g->last_data_us = now_us;
	g->state = LSM_STATE_RUNNING;
	g->next_us = now_us;
	return 0;
}

static int ag_run(struct lsm9ds1 *g, uint64_t now_us, struct imu_sample *out)
{
	/* Temperature, STATUS_REG, gyro; then the accelerometer: one kernel call. */
	uint8_t tx1[10] = { AG_OUT_TEMP_L | SPI_READ }, rx1[10];
	uint8_t tx2[7] = { AG_OUT_X_L_XL | SPI_READ }, rx2[7];
	const struct spi_xfer x[2] = {
		{ .tx = tx1, .rx = rx1, .len = sizeof(tx1), .speed_hz = g->cfg.speed_hz,
		  .cs_change = true },
		{ .tx = tx2, .rx = rx2, .len = sizeof(tx2), .speed_hz = g->cfg.speed_hz },
	};
	int err = spi_transfer_batch(g->cfg.spi, x, 2);

	g->next_us = now_us;
	if (err) {
		g->stats.bus_errors++;
		return err;
	}
	if (!(rx1[3] & AG_STATUS_GDA)) {
		if (now_us - g->last_data_us > AG_STALE_US) {
			/* Back at its reset values (power-down) after a dip or a reset. */
			g->stats.stale_events++;
			ag_restart(g, now_us);
		}
		return 0;
	}
	g->last_data_us = now_us;
	const int16_t raw[6] = {
		le16(&rx2[1]), le16(&rx2[3]), le16(&rx2[5]),   /* accel X, Y, Z */
		le16(&rx1[4]), le16(&rx1[6]), le16(&rx1[8]),   /* gyro X, Y, Z */
	};
	bool same = g->have_last && memcmp(raw, g->prev_raw, sizeof(raw)) == 0;
	memcpy(g->prev_raw, raw, sizeof(raw));
	if (same) {
		if (++g->stuck_run >= g->cfg.stuck_limit) {
			g->stats.stuck_events++;
			ag_restart(g, now_us);
			return -ESTALE;
		}
	} else {
		g->stuck_run = 0;
	}
	float a[3], w[3];
	for (int i = 0; i < 3; i++) {
		a[i] = (float)raw[i] * ACCEL_M_S2_PER_LSB;
		w[i] = (float)raw[3 + i] * GYRO_RAD_S_PER_LSB;
	}
	rotation_apply(&g->rot, a, g->last.accel_m_s2);
	rotation_apply(&g->rot, w, g->last.gyro_rad_s);
	g->last.temp_c = (float)le16(&rx1[1]) / TEMP_LSB_PER_C + TEMP_ZERO_C;
	g->last.t_us = now_us;
	g->have_last = true;
	g->stats.samples++;
	*out = g->last;
	return 1;
}

int lsm9ds1_poll(struct lsm9ds1 *g, uint64_t now_us, struct imu_sample *out)
{
	if (g->state == LSM_STATE_FAILED)
		return g->fail_err;
	if (now_us < g->next_us)
		return 0;
	switch (g->state) {
	case LSM_STATE_PROBE:
		return ag_step_probe(g, now_us);
	case LSM_STATE_CONFIGURE:
		return ag_step_configure(g, now_us);
	case LSM_STATE_VERIFY:
		return ag_step_verify(g, now_us);
	case LSM_STATE_RUNNING:
		return ag_run(g, now_us, out);
	}
	return 0;
}

uint64_t lsm9ds1_next_poll_us(const struct lsm9ds1 *g)
{
	return g->next_us;
}

bool lsm9ds1_is_running(const struct lsm9ds1 *g)
{
	return g->state == LSM_STATE_RUNNING;
}

bool lsm9ds1_last_sample(const struct lsm9ds1 *g, struct imu_sample *out)
{
	if (!g->have_last)
		return false;
	*out = g->last;
	return true;
}

const struct lsm9ds1_stats *lsm9ds1_stats(const struct lsm9ds1 *g)
{
	return &g->stats;
}

/* ---- the magnetometer die ---- */

int lsm9ds1_m_init(struct lsm9ds1_m *m, const struct lsm9ds1_m_config *cfg)
{
	if (!cfg->spi || !rotation_is_valid(cfg->rotation))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (!m->cfg.stuck_limit)
		m->cfg.stuck_limit = M_DEFAULT_STUCK_LIMIT;
	m->rot = rotation_matrix_of(cfg->rotation);
	m->state = LSM_STATE_PROBE;
	m->stats.setups = 1;
	return 0;
}

/* Bursts on the M die need the MS bit, or every byte is the first register again. */
static int m_read(struct lsm9ds1_m *m, uint8_t reg, uint8_t *out, size_t n)
{
	uint8_t addr = (uint8_t)(reg | SPI_READ | (n > 1 ? SPI_M_INC : 0));
	int err = die_read(m->cfg.spi, m->cfg.speed_hz, addr, out, n);

	if (err)
		m->stats.bus_errors++;
	return err;
}

static int m_write(struct lsm9ds1_m *m, const uint8_t (*pairs)[2], size_t n)
{
	int err = die_write(m->cfg.spi, m->cfg.speed_hz, pairs, n);

	if (err)
		m->stats.bus_errors++;
	return err;
}

static int m_fail(struct lsm9ds1_m *m, int err)
{
	m->state = LSM_STATE_FAILED;
	m->fail_err = err;
	return err;
}

static void m_restart(struct lsm9ds1_m *m, uint64_t at_us)
{
	m->state = LSM_STATE_PROBE;
	m->next_us = at_us;
	m->stuck_run = 0;
	m->stats.setups++;
}

static int m_step_probe(struct lsm9ds1_m *m, uint64_t now_us)
{
	uint8_t id;
	bool failed;
	int err = m_read(m, M_WHO_AM_I, &id, 1);

	if (!err) {
		m->who_am_i = id;
		if (id != LSM9DS1_WHO_AM_I_M) {
			m->stats.probe_failures++;
			err = -ENODEV;
		}
	}
	if (err) {
		int rc = startup_failed(&m->start, err, now_us, &m->next_us, &failed);
		return failed ? m_fail(m, -ENODEV) : rc;
	}
	m->start.answered = true;
	const uint8_t reset[1][2] = { { M_CTRL_REG2, M_CTRL_REG2_SOFT_RST } };
	err = m_write(m, reset, 1);
	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->state = LSM_STATE_CONFIGURE;
	m->next_us = now_us + RESET_WAIT_US;
	return 0;
}

static int m_step_configure(struct lsm9ds1_m *m, uint64_t now_us)
{
	/* Continuous conversion last, once the rest is set. */
	const uint8_t w[5][2] = {
		{ M_CTRL_REG1, M_CTRL_REG1_VALUE },
		{ M_CTRL_REG2, M_CTRL_REG2_VALUE },
		{ M_CTRL_REG4, M_CTRL_REG4_VALUE },
		{ M_CTRL_REG5, M_CTRL_REG5_VALUE },
		{ M_CTRL_REG3, M_CTRL_REG3_VALUE },
	};
	int err = m_write(m, w, 5);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->state = LSM_STATE_VERIFY;
	m->next_us = now_us + SETTLE_WAIT_US;
	return 0;
}

static int m_step_verify(struct lsm9ds1_m *m, uint64_t now_us)
{
	static const uint8_t want[5] = {
		M_CTRL_REG1_VALUE, M_CTRL_REG2_VALUE, M_CTRL_REG3_VALUE, M_CTRL_REG4_VALUE,
		M_CTRL_REG5_VALUE,
	};
	uint8_t r[5];
	int err = m_read(m, M_CTRL_REG1, r, sizeof(r));

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	if (memcmp(r, want, sizeof(want)) != 0) {
		m->stats.config_errors++;
		if (++m->attempts >= SETUP_TRIES && !m->ever_ran)
			return m_fail(m, -ENODEV);
		m_restart(m, now_us + RETRY_US);
		return 0;
	}
	m->attempts = 0;
	m->ever_ran = true;
	m->last_data_us = now_us;
	m->state = LSM_STATE_RUNNING;
	m->next_us = now_us;
	return 0;
}

static int m_run(struct lsm9ds1_m *m, uint64_t now_us, struct mag_sample *out)
{
	uint8_t d[7];   /* STATUS_REG_M, OUT_X_L_M .. OUT_Z_H_M */
	int err = m_read(m, M_STATUS, d, sizeof(d));

	m->next_us = now_us + M_POLL_US;
	if (err)
		return err;
	if (!(d[0] & M_STATUS_ZYXDA)) {
		if (now_us - m->last_data_us > M_STALE_US) {
			m->stats.stale_events++;
			m_restart(m, now_us);
		}
		return 0;
	}
	m->last_data_us = now_us;
	const int16_t raw[3] = { le16(&d[1]), le16(&d[3]), le16(&d[5]) };
	bool same = m->have_last && memcmp(raw, m->prev_raw, sizeof(raw)) == 0;
	memcpy(m->prev_raw, raw, sizeof(raw));
	if (same) {
		if (++m->stuck_run >= m->cfg.stuck_limit) {
			m->stats.stuck_events++;
			m_restart(m, now_us);
			return -ESTALE;
		}
	} else {
		m->stuck_run = 0;
	}
	const float f[3] = { (float)raw[0] * MAG_UT_PER_LSB, (float)raw[1] * MAG_UT_PER_LSB,
			     (float)raw[2] * MAG_UT_PER_LSB };
	rotation_apply(&m->rot, f, m->last.field_ut);
	m->last.t_us = now_us;
	m->have_last = true;
	m->stats.samples++;
	*out = m->last;
	return 1;
}

int lsm9ds1_m_poll(struct lsm9ds1_m *m, uint64_t now_us, struct mag_sample *out)
{
	if (m->state == LSM_STATE_FAILED)
		return m->fail_err;
	if (now_us < m->next_us)
		return 0;
	switch (m->state) {
	case LSM_STATE_PROBE:
		return m_step_probe(m, now_us);
	case LSM_STATE_CONFIGURE:
		return m_step_configure(m, now_us);
	case LSM_STATE_VERIFY:
		return m_step_verify(m, now_us);
	case LSM_STATE_RUNNING:
		return m_run(m, now_us, out);
	}
	return 0;
}

uint64_t lsm9ds1_m_next_poll_us(const struct lsm9ds1_m *m)
{
	return m->next_us;
}

bool lsm9ds1_m_is_running(const struct lsm9ds1_m *m)
{
	return m->state == LSM_STATE_RUNNING;
}

bool lsm9ds1_m_last_sample(const struct lsm9ds1_m *m, struct mag_sample *out)
{
	if (!m->have_last)
		return false;
	*out = m->last;
	return true;
}

const struct lsm9ds1_m_stats *lsm9ds1_m_stats(const struct lsm9ds1_m *m)
{
	return &m->stats;
}

/*
 * ---- as board devices (driver.h) ----
 * The A/G die is an IMU as mpu_dev.c's are: the board's first IMU is read
 * at every wake of the timer thread and every sample goes to the
 * estimator's ring; a second one is read at 200 Hz and watched, not fused.
 * The M die is a compass polled when due.
 */

#define SECOND_IMU_HZ 200

struct lsm9ds1_dev {
	struct lsm9ds1 g;
	struct imu_sample s;
};

static enum rotation dev_rotation(const struct drv_inst *d)
{
	int r = d->desc->drv.rotation;
	return r ? (enum rotation)r : ROTATION_NONE;
}

static int ag_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct lsm9ds1_dev *p = d->priv;
	struct lsm9ds1_config cfg = { .spi = d->handle, .rotation = dev_rotation(d) };
	if (lsm9ds1_init(&p->g, &cfg)) {
		snprintf(err, err_len, "%s (%s): IMU settings refused (rotation %d)", d->desc->name,
			 d->desc->what, d->desc->drv.rotation);
		return -EINVAL;
	}
	return 0;
}

static int ag_dev_setup(struct drv_inst *d, uint64_t now_us)
{
	struct lsm9ds1_dev *p = d->priv;
	int n = lsm9ds1_poll(&p->g, now_us, &p->s);
	if (n < 0)
		return n;
	return lsm9ds1_is_running(&p->g) ? 1 : 0;
}

static uint64_t ag_dev_next(const struct drv_inst *d)
{
	return lsm9ds1_next_poll_us(&((const struct lsm9ds1_dev *)d->priv)->g);
}

static void ag_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	const struct lsm9ds1 *g = &((const struct lsm9ds1_dev *)d->priv)->g;
	snprintf(buf, len, " to WHO_AM_I (read 0x%02x, an LSM9DS1's A/G die is 0x%02x)",
		 g->who_am_i, LSM9DS1_WHO_AM_I_AG);
}

/* Timer thread: the first IMU, every wake, every sample to the estimator. */
static void ag_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct lsm9ds1_dev *p = d->priv;
	int n = lsm9ds1_poll(&p->g, now_us, &p->s);
	if (n < 0) {
		drv_error(d->slot);
	} else if (n > 0) {
		if (drv_publish(d, SENSOR_IMU, &p->s) == 0)
			drv_ok(d->slot, now_us, 1);
		else
			drv_error(d->slot);
	}
	drv_running(d->slot, lsm9ds1_is_running(&p->g));
}

/* A second IMU: read and watched. */
static void ag_watch_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct lsm9ds1_dev *p = d->priv;
	int n = lsm9ds1_poll(&p->g, now_us, &p->s);
	if (n < 0)
		drv_error(d->slot);
	else if (n > 0)
		drv_ok(d->slot, now_us, 1);
	drv_running(d->slot, lsm9ds1_is_running(&p->g));
}

static size_t ag_dev_tasks(struct drv_inst *d, struct sched_task out[2])
{
	if (d->role_index == 0)
		return drv_task(d, out, 0, NULL, SCHED_TIMER, 0, ag_task);
	return drv_task(d, out, 0, NULL, SCHED_TIMER, SECOND_IMU_HZ, ag_watch_task);
}

const struct driver lsm9ds1_driver = {
	.name = "LSM9DS1", .buses = DRV_BUS(BOARD_DEV_SPI), .role = "IMU", .max = 2, .pass = 0,
	.priv_size = sizeof(struct lsm9ds1_dev),
	.probe = ag_dev_probe, .setup = ag_dev_setup, .next_us = ag_dev_next,
	.setup_detail = ag_dev_detail,
	.bits = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL, .bits2 = DRV_SENSOR_GYRO2 | DRV_SENSOR_ACCEL2,
	.stale_us = DRV_IMU_STALE_US, .running_at_start = true, .tasks = ag_dev_tasks,
};

static int m_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct lsm9ds1_m_config cfg = { .spi = d->handle, .rotation = dev_rotation(d) };
	if (lsm9ds1_m_init(d->priv, &cfg)) {
		snprintf(err, err_len, "%s (%s): compass settings refused (rotation %d)",
			 d->desc->name, d->desc->what, d->desc->drv.rotation);
		return -EINVAL;
	}
	return 0;
}

static void m_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	const struct lsm9ds1_m *m = d->priv;
	snprintf(buf, len, " to WHO_AM_I_M (read 0x%02x, an LSM9DS1's M die is 0x%02x)",
		 m->who_am_i, LSM9DS1_WHO_AM_I_M);
}

static int m_poll_any(void *chip, uint64_t now_us, void *out) { return lsm9ds1_m_poll(chip, now_us, out); }
static uint64_t m_next_any(const void *chip) { return lsm9ds1_m_next_poll_us(chip); }
static bool m_running_any(const void *chip) { return lsm9ds1_m_is_running(chip); }

static const struct drv_polled m_polled = {
	.kind = SENSOR_MAG, .poll = m_poll_any, .next_us = m_next_any, .is_running = m_running_any,
	.rate_hz = 200,
};

const struct driver lsm9ds1_m_driver = {
	.name = "LSM9DS1 magnetometer", .buses = DRV_BUS(BOARD_DEV_SPI),
	.role = "LSM9DS1 magnetometer", .pass = 1, .priv_size = sizeof(struct lsm9ds1_m),
	/* DRV_POLLED(&m_polled), with a detail that says what answered instead. */
	.probe = m_dev_probe, .polled = &m_polled, .setup = drv_polled_setup,
	.next_us = drv_polled_next, .setup_detail = m_dev_detail, .tasks = drv_polled_tasks,
	.bits = DRV_SENSOR_MAG, .bits2 = DRV_SENSOR_MAG2, .stale_us = DRV_SLOW_STALE_US,
	.running_at_start = true,
};
