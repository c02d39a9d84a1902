// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register numbers and bits: MPU-6000/MPU-6050 Register Map rev 4.2 and
 * MPU-9250 Register Map rev 1.4 (the two agree on everything used here except
 * where noted).
 */
#include "drivers/mpu.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "drivers/ak8963.h"
#include "fulmar/i2c.h"
#include "fulmar/spi.h"

#define REG_SMPLRT_DIV 0x19
#define REG_CONFIG 0x1a
#define REG_GYRO_CONFIG 0x1b
#define REG_ACCEL_CONFIG 0x1c
#define REG_ACCEL_CONFIG2 0x1d          /* MPU9250 only: the accelerometer's own filter */
#define REG_FIFO_EN 0x23
#define REG_I2C_MST_CTRL 0x24
#define REG_I2C_SLV0_ADDR 0x25
#define REG_I2C_SLV0_REG 0x26
#define REG_I2C_SLV0_CTRL 0x27
#define REG_I2C_SLV4_ADDR 0x31           /* then _REG, _DO, _CTRL, _DI, I2C_MST_STATUS */
#define REG_I2C_SLV4_DI 0x35
#define REG_INT_PIN_CFG 0x37
#define REG_INT_ENABLE 0x38
#define REG_INT_STATUS 0x3a
#define REG_TEMP_OUT_H 0x41
#define REG_SIGNAL_PATH_RESET 0x68
#define REG_USER_CTRL 0x6a
#define REG_PWR_MGMT_1 0x6b
#define REG_PWR_MGMT_2 0x6c
#define REG_FIFO_COUNTH 0x72
#define REG_FIFO_R_W 0x74
#define REG_WHO_AM_I 0x75

#define READ_BIT 0x80

#define GYRO_FS_2000DPS 0x18
#define ACCEL_FS_16G 0x18
#define FIFO_EN_TEMP 0x80
#define FIFO_EN_GYRO_XYZ 0x70
#define FIFO_EN_ACCEL 0x08
#define FIFO_EN_SLV0 0x01
#define I2C_MST_400KHZ 0x0d
#define I2C_SLV_EN 0x80
#define I2C_SLV_READ 0x80
#define I2C_MST_SLV4_DONE 0x40
#define I2C_MST_SLV4_NACK 0x10
#define USER_CTRL_I2C_MST_EN 0x20
#define INT_FIFO_OFLOW 0x10
#define INT_PIN_BYPASS_EN 0x02          /* the auxiliary bus joined to the host's I2C */
#define SIGNAL_PATH_RESET_ALL 0x07
#define USER_CTRL_FIFO_EN 0x40
#define USER_CTRL_I2C_IF_DIS 0x10
#define USER_CTRL_FIFO_RST 0x04
#define PWR_DEVICE_RESET 0x80
#define PWR_SLEEP 0x40
#define PWR_CLKSEL_PLL 0x01             /* PLL on the X gyro (MPU9250: best available) */

#define WHO_AM_I_MPU6000 0x68
#define WHO_AM_I_MPU9250 0x71
#define WHO_AM_I_MPU9255 0x73

#define DEFAULT_SPEED_HZ 1000000u
#define DEFAULT_STUCK_LIMIT 250u

/*
 * Register map 4.28 (PWR_MGMT_1): over SPI, 100 ms after DEVICE_RESET and
 * 100 ms after SIGNAL_PATH_RESET.
 */
#define RESET_WAIT_US 100000u
#define WAKE_WAIT_US 5000u
/* After a failed set-up transfer. */
#define RETRY_US 5000u
/* Gyro start-up from sleep is up to 35 ms (MPU-9250 product spec table 1). */
#define SETTLE_WAIT_US 50000u
#define PROBE_RETRY_US 20000u
#define PROBE_TRIES 5
#define SETUP_TRIES 5
/* A count that stays a fraction of a frame for this many polls means the FIFO slipped. */
#define PARTIAL_POLLS_MAX 3

/* Checks of a slave-4 transaction before the magnetometer counts as absent. */
#define AUX_CHECKS 5

/* Frames whose temperature is further than this from TEMP_OUT are misaligned. */
#define TEMP_CHECK_C 2.0f

#define GRAVITY_M_S2 9.80665f
#define PI_F 3.14159265358979f

enum mpu_state {
	MPU_STATE_PROBE = 1,
	MPU_STATE_RESET,
	MPU_STATE_PATH_RESET,
	MPU_STATE_WAKE,
	MPU_STATE_CONFIGURE,
	MPU_STATE_VERIFY,
	MPU_STATE_AUX_START,
	MPU_STATE_AUX_SEND,
	MPU_STATE_AUX_CHECK,
	MPU_STATE_AUX_FINISH,
	MPU_STATE_FIFO_START,
	MPU_STATE_RUNNING,
	MPU_STATE_FAILED,
};

int mpu_init(struct mpu *m, const struct mpu_config *cfg)
{
	if (!cfg->spi == !cfg->i2c || !rotation_is_valid(cfg->rotation))
		return -EINVAL;
	/* With the bypass on, the auxiliary master has no bus to drive. */
	if (cfg->i2c && cfg->aux_ak8963)
		return -EINVAL;
	if (cfg->aux_ak8963 && !rotation_is_valid(cfg->mag_rotation))
		return -EINVAL;
	if ((unsigned int)cfg->dlpf > MPU_DLPF_5HZ)
		return -EINVAL;
	uint16_t rate = cfg->rate_hz ? cfg->rate_hz : 1000;
	if (rate > 1000 || 1000 % rate != 0 || 1000 / rate > 256)
		return -EINVAL;

	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	m->cfg.rate_hz = rate;
	if (!m->cfg.dlpf)
		m->cfg.dlpf = MPU_DLPF_188HZ;
	if (!m->cfg.setup_speed_hz)
		m->cfg.setup_speed_hz = DEFAULT_SPEED_HZ;
	if (!m->cfg.read_speed_hz)
		m->cfg.read_speed_hz = DEFAULT_SPEED_HZ;
	if (!m->cfg.stuck_limit)
		m->cfg.stuck_limit = DEFAULT_STUCK_LIMIT;
	m->rot = rotation_matrix_of(cfg->rotation);
	if (cfg->aux_ak8963)
		m->mag_rot = rotation_matrix_of(cfg->mag_rotation);
	m->period_us = 1000000u / rate;
	m->state = MPU_STATE_PROBE;
	return 0;
}

/*
 * Register access: batches of SPI transactions (segments up to one with
 * cs_change), all in one kernel call. On I2C each transaction becomes one
 * I2C transaction: its first byte is the register (READ_BIT set: a read),
 * the rest is written after it, or read into the bytes that follow it in
 * rx, in the same segment or, for the FIFO, in the next.
 */
static int mpu_i2c_txn(struct mpu *m, const struct spi_xfer *x, size_t n)
{
	assert(x[0].tx && x[0].len >= 1);
	uint8_t reg = (uint8_t)(x[0].tx[0] & (uint8_t)~READ_BIT);
	if (!(x[0].tx[0] & READ_BIT)) {
		assert(n == 1);
		return i2c_write(m->cfg.i2c, m->cfg.i2c_addr, x[0].tx, x[0].len);
	}
	if (n == 1) {
		assert(x[0].rx && x[0].len >= 2);
		x[0].rx[0] = 0;
		return i2c_write_read(m->cfg.i2c, m->cfg.i2c_addr, &reg, 1, x[0].rx + 1, x[0].len - 1);
	}
	assert(n == 2 && x[0].len == 1 && x[1].rx && !x[1].tx);
	return i2c_write_read(m->cfg.i2c, m->cfg.i2c_addr, &reg, 1, x[1].rx, x[1].len);
}

static int mpu_xfer(struct mpu *m, const struct spi_xfer *x, size_t n)
{
	if (m->cfg.spi)
		return spi_transfer_batch(m->cfg.spi, x, n);
	for (size_t i = 0; i < n;) {
		size_t end = i;
		while (end + 1 < n && !x[end].cs_change)
			end++;
		int err = mpu_i2c_txn(m, &x[i], end + 1 - i);
		if (err)
			return err;
		i = end + 1;
	}
	return 0;
}

/* pairs: n (register, value) byte pairs. */
static int mpu_write_regs(struct mpu *m, const uint8_t *pairs, size_t n)
{
	struct spi_xfer x[16];

	/* 16 is also the most segments spidev takes in one call (hal/linux/spi_linux.c). */
	assert(n > 0 && n <= 16);
	for (size_t i = 0; i < n; i++)
		x[i] = (struct spi_xfer){
			.tx = &pairs[2 * i], .len = 2, .speed_hz = m->cfg.setup_speed_hz,
			/*
			 * Each write is its own transaction. Not on the last: spidev
			 * reads cs_change there as "keep selected after the message".
			 */
			.cs_change = i + 1 < n,
		};
	int err = mpu_xfer(m, x, n);
	if (err)
		m->stats.bus_errors++;
	return err;
}

static int mpu_write_reg(struct mpu *m, uint8_t reg, uint8_t val)
{
	const uint8_t pair[2] = { reg, val };

	return mpu_write_regs(m, pair, 1);
}

/* Reads n registers from reg on: tx and rx are 1 + n bytes, rx[0] is junk. */
static int mpu_read_regs(struct mpu *m, uint8_t reg, uint8_t *rx, size_t n, uint32_t speed_hz)
{
	uint8_t tx[16] = { (uint8_t)(reg | READ_BIT) };

	assert(n + 1 <= sizeof(tx));
	const struct spi_xfer x = { .tx = tx, .rx = rx, .len = (uint32_t)(n + 1), .speed_hz = speed_hz };
	int err = mpu_xfer(m, &x, 1);
	if (err)
		m->stats.bus_errors++;
	return err;
}

static void mpu_restart_setup(struct mpu *m, uint64_t at_us)
{
	m->state = MPU_STATE_RESET;
	m->next_us = at_us;
	m->stuck_run = 0;
	m->partial_polls = 0;
	m->mag_active = false;
	m->mag_failed = false;
	m->stats.setups++;
}

static int mpu_fail(struct mpu *m, int err)
{
	m->state = MPU_STATE_FAILED;
	m->fail_err = err;
	return err;
}

static int mpu_step_probe(struct mpu *m, uint64_t now_us)
{
	uint8_t rx[2];
	int err = mpu_read_regs(m, REG_WHO_AM_I, rx, 1, m->cfg.setup_speed_hz);

	if (!err) {
		m->who_am_i = rx[1];
		switch (rx[1]) {
		case WHO_AM_I_MPU6000:
			m->chip = MPU_CHIP_MPU6000;
			m->fifo_size = 1024;
			break;
		case WHO_AM_I_MPU9250:
		case WHO_AM_I_MPU9255:
			m->chip = MPU_CHIP_MPU9250;
			m->fifo_size = 512;
			break;
		default:
			m->stats.probe_failures++;
			err = -ENODEV;
			break;
		}
	}
	if (err) {
		/* Just after power-up the chip may not answer yet (start-up time up to 100 ms). */
		if (++m->attempts >= PROBE_TRIES)
			return mpu_fail(m, -ENODEV);
		m->next_us = now_us + PROBE_RETRY_US;
		return err == -ENODEV ? 0 : err;
	}
	m->attempts = 0;
	mpu_restart_setup(m, now_us);
	return 0;
}

/*
 * The registers set-up writes, in order, and checks afterwards; with the
 * magnetometer running, its slave-0 channel and the FIFO's share of it too.
 */
static void mpu_plan_config(struct mpu *m)
{
	uint8_t fifo_en = FIFO_EN_ACCEL | FIFO_EN_GYRO_XYZ;
	uint8_t user_ctrl = (m->cfg.spi ? USER_CTRL_I2C_IF_DIS : 0) | USER_CTRL_FIFO_EN;
	size_t n = 0;

	m->frame_len = m->cfg.fifo_without_temp ? 12 : 14;
	if (!m->cfg.fifo_without_temp)
		fifo_en |= FIFO_EN_TEMP;
	if (m->mag_active) {
		fifo_en |= FIFO_EN_SLV0;
		user_ctrl |= USER_CTRL_I2C_MST_EN;
		m->frame_len += AK8963_DATA_LEN;
	}
#define PLAN(r, v) do { \
		m->check_reg[n] = (r); m->check_val[n] = (uint8_t)(v); n++; \
	} while (0)
	PLAN(REG_PWR_MGMT_1, PWR_CLKSEL_PLL);
	PLAN(REG_PWR_MGMT_2, 0);
	PLAN(REG_SMPLRT_DIV, 1000 / m->cfg.rate_hz - 1);
	/* MPU9250: CONFIG.FIFO_MODE (bit 6) = 0 lets an overflowing FIFO drop its oldest data. */
	PLAN(REG_CONFIG, m->cfg.dlpf);
	/* MPU9250: FCHOICE_B (bits 1:0) = 0 keeps the DLPF in the path. */
	PLAN(REG_GYRO_CONFIG, GYRO_FS_2000DPS);
	PLAN(REG_ACCEL_CONFIG, ACCEL_FS_16G);
	if (m->chip == MPU_CHIP_MPU9250)
		PLAN(REG_ACCEL_CONFIG2, m->cfg.dlpf);  /* A_DLPFCFG 1..6: 218..5 Hz, close to the gyro's */
	/* On I2C the bypass lets the host reach the AK8963 inside an MPU9250 (mpu.h). */
	PLAN(REG_INT_PIN_CFG, m->cfg.i2c ? INT_PIN_BYPASS_EN : 0);
	PLAN(REG_INT_ENABLE, INT_FIFO_OFLOW);
	if (m->cfg.aux_ak8963)
		PLAN(REG_I2C_MST_CTRL, I2C_MST_400KHZ);
	if (m->mag_active) {
		PLAN(REG_I2C_SLV0_ADDR, I2C_SLV_READ | AK8963_I2C_ADDR);
		PLAN(REG_I2C_SLV0_REG, AK8963_REG_ST1);
		PLAN(REG_I2C_SLV0_CTRL, I2C_SLV_EN | AK8963_DATA_LEN);
	}
	PLAN(REG_FIFO_EN, fifo_en);
	PLAN(REG_USER_CTRL, user_ctrl);
	PLAN(REG_WHO_AM_I, m->who_am_i);
#undef PLAN
	static_assert(MPU_CHECK_REGS_MAX >= 16, "every planned register is checked");
	m->check_count = (uint8_t)n;
}

/* Written by their own steps, after the others were checked. */
static bool mpu_written_late(uint8_t reg)
{
	return reg == REG_FIFO_EN || reg == REG_USER_CTRL || reg == REG_I2C_SLV0_ADDR ||
	       reg == REG_I2C_SLV0_REG || reg == REG_I2C_SLV0_CTRL;
}

static int mpu_step_configure(struct mpu *m, uint64_t now_us)
{
	uint8_t w[MPU_CHECK_REGS_MAX][2];
	size_t n = 0;

	mpu_plan_config(m);
	/*
	 * Everything but WHO_AM_I (read-only) and the FIFO (started once the
	 * check passed). PWR_MGMT_1 goes again first: the first write after a
	 * reset is sometimes lost, and waking twice does no harm.
	 */
	for (size_t i = 0; i < m->check_count; i++) {
		uint8_t r = m->check_reg[i];
		if (r == REG_WHO_AM_I || mpu_written_late(r))
			continue;
		w[n][0] = r;
		w[n][1] = m->check_val[i];
		n++;
	}
	int err = mpu_write_regs(m, &w[0][0], n);
	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->state = MPU_STATE_VERIFY;
	m->next_us = now_us + SETTLE_WAIT_US;
	return 0;
}

/*
 * Stops the FIFO, resets it and starts it again. Its channels are switched
 * off first so that no frame is half written when the reset lands.
 */
static int mpu_fifo_restart(struct mpu *m)
{
	uint8_t fifo_en = 0, user_ctrl = 0;

	for (size_t i = 0; i < m->check_count; i++) {
		if (m->check_reg[i] == REG_FIFO_EN)
			fifo_en = m->check_val[i];
		if (m->check_reg[i] == REG_USER_CTRL)
			user_ctrl = m->check_val[i];
	}
	uint8_t stopped = (uint8_t)(user_ctrl & ~USER_CTRL_FIFO_EN);
	const uint8_t w[5][2] = {
		{ REG_FIFO_EN, 0 },
		{ REG_USER_CTRL, stopped },
		{ REG_USER_CTRL, stopped | USER_CTRL_FIFO_RST },
		{ REG_FIFO_EN, fifo_en },
		{ REG_USER_CTRL, user_ctrl },
	};
	m->partial_polls = 0;
	return mpu_write_regs(m, &w[0][0], 5);
}

static int mpu_step_verify(struct mpu *m, uint64_t now_us)
{
	struct spi_xfer x[MPU_CHECK_REGS_MAX];
	uint8_t tx[MPU_CHECK_REGS_MAX][2], rx[MPU_CHECK_REGS_MAX][2];
	size_t n = 0;

	for (size_t i = 0; i < m->check_count; i++) {
		uint8_t r = m->check_reg[i];
		if (mpu_written_late(r))
			continue;
		tx[n][0] = r | READ_BIT;
		tx[n][1] = 0;
		x[n] = (struct spi_xfer){ .tx = tx[n], .rx = rx[n], .len = 2,
					  .speed_hz = m->cfg.setup_speed_hz };
		n++;
	}
	for (size_t i = 0; i + 1 < n; i++)
		x[i].cs_change = true;
	int err = mpu_xfer(m, x, n);
	if (err) {
		m->stats.bus_errors++;
		m->next_us = now_us + RETRY_US;
		return err;
	}
	bool ok = true;
	for (size_t i = 0, j = 0; i < m->check_count; i++) {
		uint8_t r = m->check_reg[i];
		if (mpu_written_late(r))
			continue;
		if (rx[j][1] != m->check_val[i])
			ok = false;
		j++;
	}
	if (!ok) {
		m->stats.config_errors++;
		if (++m->attempts >= SETUP_TRIES && !m->ever_ran)
			return mpu_fail(m, -ENODEV);
		mpu_restart_setup(m, now_us);
		return 0;
	}
	m->state = m->cfg.aux_ak8963 ? MPU_STATE_AUX_START : MPU_STATE_FIFO_START;
	m->next_us = now_us;
	return 0;
}

/*
 * The AK8963's set-up, one slave-4 transaction at a time: each is started in
 * one call and its result read in a later one, after the I2C master had a
 * sample period or two to run it (it runs once per sample).
 */
struct mpu_aux_op {
	uint8_t reg;
	uint8_t val;
	bool read;
	uint32_t wait_us;         /* before the next transaction */
};

static const struct mpu_aux_op mpu_ak8963_setup[] = {
	{ AK8963_REG_CNTL2, AK8963_CNTL2_SRST, false, 10000 },
	{ AK8963_REG_WIA, 0, true, 0 },
	/* Mode changes from power-down only, 100 us after it (AK8963 datasheet 6.4). */
	{ AK8963_REG_CNTL1, AK8963_CNTL1_FUSE_ROM, false, 1000 },
	{ AK8963_REG_ASAX, 0, true, 0 },
	{ AK8963_REG_ASAX + 1, 0, true, 0 },
	{ AK8963_REG_ASAX + 2, 0, true, 0 },
	{ AK8963_REG_CNTL1, AK8963_CNTL1_POWER_DOWN, false, 1000 },
	{ AK8963_REG_CNTL1, AK8963_CNTL1_CONT_100HZ_16BIT, false, 0 },
};

#define MPU_AUX_OPS (sizeof(mpu_ak8963_setup) / sizeof(mpu_ak8963_setup[0]))

/* Without its magnetometer the IMU goes on: plan the FIFO without it and start. */
static int mpu_aux_give_up(struct mpu *m, uint64_t now_us)
{
	m->stats.mag_errors++;
	m->mag_failed = true;
	m->mag_active = false;
	mpu_plan_config(m);
	m->state = MPU_STATE_FIFO_START;
	m->next_us = now_us;
	return 0;
}

static int mpu_step_aux_start(struct mpu *m, uint64_t now_us)
{
	int err = mpu_write_reg(m, REG_USER_CTRL, USER_CTRL_I2C_IF_DIS | USER_CTRL_I2C_MST_EN);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->aux_op = 0;
	m->state = MPU_STATE_AUX_SEND;
	m->next_us = now_us;
	return 0;
}

static int mpu_step_aux_send(struct mpu *m, uint64_t now_us)
{
	const struct mpu_aux_op *op = &mpu_ak8963_setup[m->aux_op];
	const uint8_t w[4][2] = {
		{ REG_I2C_SLV4_ADDR, (uint8_t)(AK8963_I2C_ADDR | (op->read ? I2C_SLV_READ : 0)) },
		{ REG_I2C_SLV4_ADDR + 1, op->reg },
		{ REG_I2C_SLV4_ADDR + 2, op->val },
		{ REG_I2C_SLV4_ADDR + 3, I2C_SLV_EN },
	};
	int err = mpu_write_regs(m, &w[0][0], 4);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->aux_checks = 0;
	m->state = MPU_STATE_AUX_CHECK;
	m->next_us = now_us + 2 * m->period_us;
	return 0;
}

static int mpu_step_aux_check(struct mpu *m, uint64_t now_us)
{
	const struct mpu_aux_op *op = &mpu_ak8963_setup[m->aux_op];
	uint8_t rx[3];   /* junk, I2C_SLV4_DI, I2C_MST_STATUS */
	int err = mpu_read_regs(m, REG_I2C_SLV4_DI, rx, 2, m->cfg.setup_speed_hz);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	if (rx[2] & I2C_MST_SLV4_NACK)
		return mpu_aux_give_up(m, now_us);
	if (!(rx[2] & I2C_MST_SLV4_DONE)) {
		if (++m->aux_checks >= AUX_CHECKS)
			return mpu_aux_give_up(m, now_us);
		m->next_us = now_us + m->period_us;
		return 0;
	}
	if (op->reg == AK8963_REG_WIA && rx[1] != AK8963_WIA)
		return mpu_aux_give_up(m, now_us);
	if (op->read && op->reg >= AK8963_REG_ASAX && op->reg < AK8963_REG_ASAX + 3)
		m->asa[op->reg - AK8963_REG_ASAX] = rx[1];
	m->state = ++m->aux_op < MPU_AUX_OPS ? MPU_STATE_AUX_SEND : MPU_STATE_AUX_FINISH;
	m->next_us = now_us + op->wait_us;
	return 0;
}

/* Slave 0 reads ST1 .. ST2 at every sample; the FIFO takes them along. */
static int mpu_step_aux_finish(struct mpu *m, uint64_t now_us)
{
	const uint8_t w[3][2] = {
		{ REG_I2C_SLV0_ADDR, I2C_SLV_READ | AK8963_I2C_ADDR },
		{ REG_I2C_SLV0_REG, AK8963_REG_ST1 },
		{ REG_I2C_SLV0_CTRL, I2C_SLV_EN | AK8963_DATA_LEN },
	};
	int err = mpu_write_regs(m, &w[0][0], 3);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	ak8963_scale_from_asa(m->asa, m->mag_scale_ut);
	m->mag_active = true;
	mpu_plan_config(m);
	m->state = MPU_STATE_FIFO_START;
	m->next_us = now_us;
	return 0;
}

static int mpu_step_fifo_start(struct mpu *m, uint64_t now_us)
{
	int err = mpu_fifo_restart(m);

	if (err) {
		m->next_us = now_us + RETRY_US;
		return err;
	}
	m->attempts = 0;
	m->ever_ran = true;
	m->state = MPU_STATE_RUNNING;
	/* The first frame lands one period from now. */
	m->next_us = now_us + m->period_us;
	return 0;
}

static int mpu_setup_step(struct mpu *m, uint64_t now_us)
{
	int err;

	switch (m->state) {
	case MPU_STATE_PROBE:
		return mpu_step_probe(m, now_us);
	case MPU_STATE_RESET:
		err = mpu_write_reg(m, REG_PWR_MGMT_1, PWR_DEVICE_RESET);
		if (!err)
			m->state = MPU_STATE_PATH_RESET;
		m->next_us = now_us + (err ? RETRY_US : RESET_WAIT_US);
		return err;
	case MPU_STATE_PATH_RESET:
		/* Over SPI a device reset needs a signal path reset too (register map 4.28). */
		err = mpu_write_reg(m, REG_SIGNAL_PATH_RESET, SIGNAL_PATH_RESET_ALL);
		if (!err)
			m->state = MPU_STATE_WAKE;
		m->next_us = now_us + (err ? RETRY_US : RESET_WAIT_US);
		return err;
	case MPU_STATE_WAKE: {
		/*
		 * On SPI disable the I2C interface first: an SPI chip must never
		 * answer I2C traffic. On I2C it is the chip's only way in.
		 */
		const uint8_t w[2][2] = {
			{ REG_USER_CTRL, m->cfg.spi ? USER_CTRL_I2C_IF_DIS : 0 },
			{ REG_PWR_MGMT_1, PWR_CLKSEL_PLL },
		};
		err = mpu_write_regs(m, &w[0][0], 2);
		if (!err)
			m->state = MPU_STATE_CONFIGURE;
		m->next_us = now_us + (err ? RETRY_US : WAKE_WAIT_US);
		return err;
	}
	case MPU_STATE_CONFIGURE:
		return mpu_step_configure(m, now_us);
	case MPU_STATE_VERIFY:
		return mpu_step_verify(m, now_us);
	case MPU_STATE_AUX_START:
		return mpu_step_aux_start(m, now_us);
	case MPU_STATE_AUX_SEND:
		return mpu_step_aux_send(m, now_us);
	case MPU_STATE_AUX_CHECK:
		return mpu_step_aux_check(m, now_us);
	case MPU_STATE_AUX_FINISH:
		return mpu_step_aux_finish(m, now_us);
	case MPU_STATE_FIFO_START:
		return mpu_step_fifo_start(m, now_us);
	}
	return 0;
}

static int16_t be16(const uint8_t *p)
{
	return (int16_t)(uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static float mpu_temp_c(const struct mpu *m, int16_t raw)
{
	/* MPU-6000 register map 4.18; MPU-9250 product spec 3.4.2 (333.87 LSB/degC, 0 at 21 degC). */
	if (m->chip == MPU_CHIP_MPU6000)
		return (float)raw / 340.0f + 36.53f;
	return (float)raw / 333.87f + 21.0f;
}

static void mpu_convert(const struct mpu *m, const int16_t raw[6], float temp_c, uint64_t t_us,
			struct imu_sample *s)
{
	const float accel_scale = GRAVITY_M_S2 / 2048.0f;
	const float gyro_scale = PI_F / 180.0f / 16.4f;
	float a[3], g[3];

	for (int i = 0; i < 3; i++) {
		a[i] = (float)raw[i] * accel_scale;
		g[i] = (float)raw[3 + i] * gyro_scale;
	}
	rotation_apply(&m->rot, a, s->accel_m_s2);
	rotation_apply(&m->rot, g, s->gyro_rad_s);
	s->temp_c = temp_c;
	s->t_us = t_us;
}

/*
 * The status batch: four transactions, one kernel call. Offsets of the
 * values in its receive buffer (each transaction's first byte is junk).
 */
enum {
	ST_INT = 1,               /* INT_STATUS */
	ST_TEMP = 3,              /* TEMP_OUT_H, _L */
	ST_COUNT = 6,             /* FIFO_COUNTH, _L */
	ST_CHECK = 9,             /* the register checked this time */
	ST_LEN = 10,
};

static int mpu_read_status(struct mpu *m, uint8_t rx[ST_LEN], uint8_t check_reg)
{
	const uint8_t tx[ST_LEN] = {
		REG_INT_STATUS | READ_BIT, 0,
		REG_TEMP_OUT_H | READ_BIT, 0, 0,
		REG_FIFO_COUNTH | READ_BIT, 0, 0,
		(uint8_t)(check_reg | READ_BIT), 0,
	};
	const struct spi_xfer x[4] = {
		{ .tx = &tx[0], .rx = &rx[0], .len = 2, .speed_hz = m->cfg.read_speed_hz, .cs_change = true },
		{ .tx = &tx[2], .rx = &rx[2], .len = 3, .speed_hz = m->cfg.read_speed_hz, .cs_change = true },
		{ .tx = &tx[5], .rx = &rx[5], .len = 3, .speed_hz = m->cfg.read_speed_hz, .cs_change = true },
		{ .tx = &tx[8], .rx = &rx[8], .len = 2, .speed_hz = m->cfg.setup_speed_hz },
	};
	return mpu_xfer(m, x, 4);
}

static int mpu_read_fifo(struct mpu *m, size_t len)
{
	const uint8_t reg = REG_FIFO_R_W | READ_BIT;
	const struct spi_xfer x[2] = {
		{ .tx = &reg, .len = 1, .speed_hz = m->cfg.read_speed_hz },
		{ .rx = m->buf, .len = (uint32_t)len, .speed_hz = m->cfg.read_speed_hz },
	};
	return mpu_xfer(m, x, 2);
}

static int mpu_fifo_reset_after(struct mpu *m, uint32_t *counter)
{
	(*counter)++;
	return mpu_fifo_restart(m);
}

/* True when this frame is the same as the one before, all six axes. */
static bool mpu_frame_repeats(struct mpu *m, const int16_t raw[6])
{
	bool same = m->have_last && memcmp(raw, m->prev_raw, sizeof(m->prev_raw)) == 0;

	memcpy(m->prev_raw, raw, sizeof(m->prev_raw));
	return same;
}

/* The AK8963's ST1 .. ST2 as slave 0 read them at this frame's sample. */
static void mpu_take_mag(struct mpu *m, const uint8_t *d, uint64_t t_us)
{
	float field[3];
	bool overrun;

	switch (ak8963_decode(d, m->mag_scale_ut, &m->mag_rot, field, &overrun)) {
	case AK8963_DATA_NEW:
		memcpy(m->mag.field_ut, field, sizeof(field));
		m->mag.t_us = t_us;
		m->mag_seq++;
		m->stats.mag_samples++;
		break;
	case AK8963_DATA_OVERFLOW:
		m->stats.mag_overflows++;
		break;
	case AK8963_DATA_NOT_16BIT:
		/* Not recovered while flying; the next full set-up sets it up again. */
		m->stats.mag_errors++;
		break;
	case AK8963_DATA_NONE:
		break;
	}
}

static int mpu_run(struct mpu *m, uint64_t now_us, struct imu_sample *out, size_t max)
{
	uint8_t st[ST_LEN];
	int err = mpu_read_status(m, st, m->check_reg[m->check_idx]);

	if (err) {
		m->stats.bus_errors++;
		return err;
	}

	uint8_t want = m->check_val[m->check_idx];
	if (st[ST_CHECK] != want) {
		/* A brown-out or a reset put the chip back to its defaults: start over. */
		m->stats.config_errors++;
		mpu_restart_setup(m, now_us);
		return 0;
	}
	m->check_idx = (uint8_t)((m->check_idx + 1) % m->check_count);

	uint16_t count = (uint16_t)((uint16_t)st[ST_COUNT] << 8 | st[ST_COUNT + 1]);
	if ((st[ST_INT] & INT_FIFO_OFLOW) || count >= m->fifo_size) {
		/* Oldest data was dropped, maybe mid-frame: nothing in there can be trusted. */
		err = mpu_fifo_reset_after(m, &m->stats.fifo_overflows);
		return err;
	}

	size_t frames = count / m->frame_len;
	if (count % m->frame_len) {
		if (++m->partial_polls >= PARTIAL_POLLS_MAX)
			return mpu_fifo_reset_after(m, &m->stats.fifo_misaligned);
	} else {
		m->partial_polls = 0;
	}
	if (frames > max)
		frames = max;
	if (frames == 0)
		return 0;

	err = mpu_read_fifo(m, frames * m->frame_len);
	if (err) {
		m->stats.bus_errors++;
		return err;
	}

	float reg_temp_c = mpu_temp_c(m, be16(&st[ST_TEMP]));
	bool with_temp = !m->cfg.fifo_without_temp;
	size_t ext = with_temp ? 14 : 12;
	size_t n = 0;
	for (size_t i = 0; i < frames; i++) {
		const uint8_t *f = &m->buf[i * m->frame_len];
		const uint8_t *gyro = f + (with_temp ? 8 : 6);
		int16_t raw[6] = {
			be16(f), be16(f + 2), be16(f + 4), be16(gyro), be16(gyro + 2), be16(gyro + 4),
		};
		float temp_c = reg_temp_c;

		if (with_temp) {
			temp_c = mpu_temp_c(m, be16(f + 6));
			float d = temp_c - reg_temp_c;
			if (d > TEMP_CHECK_C || d < -TEMP_CHECK_C) {
				/* Keep what came before the slip; drop the rest with the FIFO. */
				mpu_fifo_reset_after(m, &m->stats.fifo_misaligned);
				break;
			}
		}
		if (mpu_frame_repeats(m, raw)) {
			if (++m->stuck_run >= m->cfg.stuck_limit) {
				m->stats.stuck_events++;
				mpu_restart_setup(m, now_us);
				return -ESTALE;
			}
		} else {
			m->stuck_run = 0;
		}

		uint64_t back = (uint64_t)(frames - 1 - i) * m->period_us;
		uint64_t t_us = now_us > back ? now_us - back : 0;
		if (m->have_last && t_us <= m->last_t_us)
			t_us = m->last_t_us + 1;
		if (m->mag_active)
			mpu_take_mag(m, f + ext, t_us);
		mpu_convert(m, raw, temp_c, t_us, &out[n]);
		m->last = out[n];
		m->last_t_us = t_us;
		m->have_last = true;
		n++;
	}
	m->stats.samples += n;
	return (int)n;
}

int mpu_poll(struct mpu *m, uint64_t now_us, struct imu_sample *out, size_t max)
{
	if (m->state == MPU_STATE_FAILED)
		return m->fail_err;
	if (now_us < m->next_us)
		return 0;
	if (m->state == MPU_STATE_RUNNING)
		return mpu_run(m, now_us, out, max);
	return mpu_setup_step(m, now_us);
}

uint64_t mpu_next_poll_us(const struct mpu *m)
{
	return m->next_us;
}

bool mpu_is_running(const struct mpu *m)
{
	return m->state == MPU_STATE_RUNNING;
}

enum mpu_chip mpu_chip(const struct mpu *m)
{
	return m->chip;
}

uint32_t mpu_sample_period_us(const struct mpu *m)
{
	return m->period_us;
}

bool mpu_last_sample(const struct mpu *m, struct imu_sample *out)
{
	if (!m->have_last)
		return false;
	*out = m->last;
	return true;
}

uint32_t mpu_mag_sample(const struct mpu *m, struct mag_sample *out)
{
	if (m->mag_seq)
		*out = m->mag;
	return m->mag_seq;
}

bool mpu_mag_is_running(const struct mpu *m)
{
	return m->mag_active && m->state == MPU_STATE_RUNNING;
}

const struct mpu_stats *mpu_stats(const struct mpu *m)
{
	return &m->stats;
}
