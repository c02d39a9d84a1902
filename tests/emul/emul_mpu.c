// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_mpu.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

enum {
	R_SMPLRT_DIV = 25,
	R_CONFIG = 26,
	R_FIFO_EN = 35,
	R_I2C_SLV0_ADDR = 37,
	R_I2C_SLV0_REG = 38,
	R_I2C_SLV0_CTRL = 39,
	R_I2C_SLV4_ADDR = 49,
	R_I2C_SLV4_REG = 50,
	R_I2C_SLV4_DO = 51,
	R_I2C_SLV4_CTRL = 52,
	R_I2C_SLV4_DI = 53,
	R_I2C_MST_STATUS = 54,
	R_INT_PIN_CFG = 55,
	R_INT_ENABLE = 56,
	R_INT_STATUS = 58,
	R_ACCEL_XOUT_H = 59,
	R_TEMP_OUT_H = 65,
	R_GYRO_XOUT_H = 67,
	R_EXT_SENS_DATA_00 = 73,
	R_EXT_SENS_LAST = 96,
	R_USER_CTRL = 106,
	R_PWR_MGMT_1 = 107,
	R_FIFO_COUNTH = 114,
	R_FIFO_COUNTL = 115,
	R_FIFO_R_W = 116,
	R_WHO_AM_I = 117,
};

/* A reset takes effect at once but the chip is deaf for a while after it. */
#define EMUL_RESET_BUSY_US 50000u
#define EMUL_SLOW_REG_MAX_HZ 1000000u

static void emul_mpu_defaults(struct emul_mpu *e)
{
	memset(e->regs, 0, sizeof(e->regs));
	e->regs[R_PWR_MGMT_1] = 0x40;  /* asleep */
	e->regs[R_WHO_AM_I] = e->who_am_i;
	e->fifo_head = 0;
	e->fifo_len = 0;
}

static int emul_mpu_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n);

static int emul_mpu_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	((struct emul_mpu *)(void *)dev)->speed_hz = speed_hz;
	return 0;
}

static void emul_mpu_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops emul_mpu_ops = {
	.transfer_batch = emul_mpu_batch,
	.set_speed = emul_mpu_set_speed,
	.close = emul_mpu_close,
};

void emul_mpu_init(struct emul_mpu *e, uint8_t who_am_i)
{
	memset(e, 0, sizeof(*e));
	e->dev.ops = &emul_mpu_ops;
	e->who_am_i = who_am_i;
	e->fifo_size = who_am_i == 0x68 ? 1024 : 512;
	e->speed_hz = 1000000;
	e->accel[2] = 2048;            /* 1 g on z at +-16 g */
	e->temp = 1000;
	e->dither = true;
	emul_mpu_defaults(e);
}

void emul_mpu_set_raw(struct emul_mpu *e, const int16_t accel[3], const int16_t gyro[3],
		      int16_t temp)
{
	memcpy(e->accel, accel, sizeof(e->accel));
	memcpy(e->gyro, gyro, sizeof(e->gyro));
	e->temp = temp;
}

static void emul_mpu_fifo_push(struct emul_mpu *e, uint8_t b)
{
	e->fifo[(e->fifo_head + e->fifo_len) % sizeof(e->fifo)] = b;
	e->fifo_len++;
}

static uint8_t emul_mpu_fifo_pop(struct emul_mpu *e)
{
	if (e->fifo_len == 0)
		return e->fifo_last;
	e->fifo_last = e->fifo[e->fifo_head];
	e->fifo_head = (e->fifo_head + 1) % sizeof(e->fifo);
	e->fifo_len--;
	return e->fifo_last;
}

static void put_be16(uint8_t *p, int16_t v)
{
	p[0] = (uint8_t)((uint16_t)v >> 8);
	p[1] = (uint8_t)v;
}

/* One transaction on the auxiliary bus; false for a NAK. */
static bool emul_mpu_aux_xfer(struct emul_mpu *e, uint8_t addr, const uint8_t *tx, size_t tx_len,
			      uint8_t *rx, size_t rx_len)
{
	e->aux_transactions++;
	if (!e->aux || e->aux->addr != (addr & 0x7f) ||
	    e->aux->xfer(e->aux, tx, tx_len, rx, rx_len) != 0) {
		e->aux_naks++;
		return false;
	}
	return true;
}

/* The I2C master's work at one sample: slave 4 once if enabled, then slave 0. */
static void emul_mpu_aux_master(struct emul_mpu *e)
{
	uint8_t *r = e->regs;

	if (!(r[R_USER_CTRL] & 0x20))
		return;
	if (r[R_I2C_SLV4_CTRL] & 0x80) {
		uint8_t addr = r[R_I2C_SLV4_ADDR];
		bool ok;
		if (addr & 0x80) {
			ok = emul_mpu_aux_xfer(e, addr, &r[R_I2C_SLV4_REG], 1, &r[R_I2C_SLV4_DI], 1);
		} else {
			const uint8_t w[2] = { r[R_I2C_SLV4_REG], r[R_I2C_SLV4_DO] };
			ok = emul_mpu_aux_xfer(e, addr, w, 2, NULL, 0);
		}
		r[R_I2C_MST_STATUS] |= (uint8_t)(0x40 | (ok ? 0 : 0x10));
		r[R_I2C_SLV4_CTRL] &= 0x7f;   /* a single transaction */
	}
	uint8_t ctrl = r[R_I2C_SLV0_CTRL];
	if ((ctrl & 0x80) && (r[R_I2C_SLV0_ADDR] & 0x80)) {
		size_t len = ctrl & 0x0f;
		if (!emul_mpu_aux_xfer(e, r[R_I2C_SLV0_ADDR], &r[R_I2C_SLV0_REG], 1,
				       &r[R_EXT_SENS_DATA_00], len))
			r[R_I2C_MST_STATUS] |= 0x01;
	}
}

static void emul_mpu_sample(struct emul_mpu *e)
{
	int16_t gx = e->gyro[0];

	if (e->dither && !e->frozen && (e->sample_index & 1))
		gx = (int16_t)(gx ^ 1);
	e->sample_index++;
	for (int i = 0; i < 3; i++)
		put_be16(&e->regs[R_ACCEL_XOUT_H + 2 * i], e->accel[i]);
	put_be16(&e->regs[R_TEMP_OUT_H], e->temp);
	put_be16(&e->regs[R_GYRO_XOUT_H], gx);
	put_be16(&e->regs[R_GYRO_XOUT_H + 2], e->gyro[1]);
	put_be16(&e->regs[R_GYRO_XOUT_H + 4], e->gyro[2]);
	emul_mpu_aux_master(e);

	if (!(e->regs[R_USER_CTRL] & 0x40))
		return;
	/* Data enters the FIFO in register order (register map, FIFO_R_W). */
	uint8_t en = e->regs[R_FIFO_EN];
	uint8_t frame[14 + 15];
	size_t len = 0;
	if (en & 0x08) {
		memcpy(&frame[len], &e->regs[R_ACCEL_XOUT_H], 6);
		len += 6;
	}
	if (en & 0x80) {
		memcpy(&frame[len], &e->regs[R_TEMP_OUT_H], 2);
		len += 2;
	}
	for (int i = 0; i < 3; i++)
		if (en & (0x40 >> i)) {
			memcpy(&frame[len], &e->regs[R_GYRO_XOUT_H + 2 * i], 2);
			len += 2;
		}
	if (en & 0x01) {
		size_t ext = e->regs[R_I2C_SLV0_CTRL] & 0x0f;
		memcpy(&frame[len], &e->regs[R_EXT_SENS_DATA_00], ext);
		len += ext;
	}
	if (e->fifo_len + len > e->fifo_size) {
		/* Full: the oldest data goes and the overflow flag is raised. */
		e->overflows++;
		e->regs[R_INT_STATUS] |= 0x10;
		for (size_t i = 0; i < len; i++)
			emul_mpu_fifo_pop(e);
	}
	for (size_t i = 0; i < len; i++)
		emul_mpu_fifo_push(e, frame[i]);
}

static uint32_t emul_mpu_period_us(const struct emul_mpu *e)
{
	uint8_t dlpf = e->regs[R_CONFIG] & 7;
	uint32_t base_hz = (dlpf == 0 || dlpf == 7) ? 8000 : 1000;

	return 1000000u / (base_hz / (1u + e->regs[R_SMPLRT_DIV]));
}

void emul_mpu_advance(struct emul_mpu *e, uint64_t now_us)
{
	bool running = !(e->regs[R_PWR_MGMT_1] & 0x40);

	if (!running || e->now_us < e->busy_until_us) {
		e->next_sample_us = now_us + emul_mpu_period_us(e);
		e->now_us = now_us;
		return;
	}
	while (e->next_sample_us <= now_us) {
		emul_mpu_sample(e);
		e->next_sample_us += emul_mpu_period_us(e);
	}
	e->now_us = now_us;
}

void emul_mpu_power_cycle(struct emul_mpu *e)
{
	emul_mpu_defaults(e);
}

void emul_mpu_slip_fifo(struct emul_mpu *e, size_t n)
{
	while (n-- && e->fifo_len)
		emul_mpu_fifo_pop(e);
}

int emul_mpu_last_write(const struct emul_mpu *e, uint8_t reg)
{
	for (size_t i = e->nwrites; i > 0; i--)
		if (e->writes[i - 1].reg == reg)
			return e->writes[i - 1].val;
	return -1;
}

size_t emul_mpu_fifo_count(const struct emul_mpu *e)
{
	return e->fifo_len;
}

static bool emul_mpu_fast_reg(uint8_t reg)
{
	/* Sensor and interrupt registers, and the FIFO, may be read at 20 MHz. */
	return (reg >= R_INT_STATUS && reg <= R_EXT_SENS_LAST) ||
	       (reg >= R_FIFO_COUNTH && reg <= R_FIFO_R_W);
}

static void emul_mpu_write_reg(struct emul_mpu *e, uint8_t reg, uint8_t val)
{
	if (e->nwrites < EMUL_MPU_WRITE_LOG)
		e->writes[e->nwrites++] = (struct emul_mpu_write){ reg, val, e->now_us };
	if (e->now_us < e->busy_until_us) {
		e->lost_writes++;
		return;
	}
	switch (reg) {
	case R_PWR_MGMT_1:
		if (val & 0x80) {
			e->device_resets++;
			emul_mpu_defaults(e);
			e->busy_until_us = e->now_us + EMUL_RESET_BUSY_US;
			return;
		}
		break;
	case 104:  /* SIGNAL_PATH_RESET */
		e->busy_until_us = e->now_us + EMUL_RESET_BUSY_US;
		return;
	case R_USER_CTRL:
		if (val & 0x04) {
			e->fifo_resets++;
			e->fifo_head = 0;
			e->fifo_len = 0;
		}
		val &= (uint8_t)~0x07;  /* the reset bits clear themselves */
		break;
	case R_WHO_AM_I:
	case R_INT_STATUS:
	case R_I2C_SLV4_DI:
	case R_I2C_MST_STATUS:
	case R_FIFO_COUNTH:
	case R_FIFO_COUNTL:
		return;  /* read-only */
	case R_FIFO_R_W:
		emul_mpu_fifo_push(e, val);
		return;
	}
	e->regs[reg] = val;
	if (reg == R_CONFIG || reg == R_SMPLRT_DIV || reg == R_PWR_MGMT_1)
		e->next_sample_us = e->now_us + emul_mpu_period_us(e);
}

static uint8_t emul_mpu_read_reg(struct emul_mpu *e, uint8_t reg)
{
	switch (reg) {
	case R_FIFO_COUNTH:
		return (uint8_t)(e->fifo_len >> 8);
	case R_FIFO_COUNTL:
		return (uint8_t)e->fifo_len;
	case R_FIFO_R_W:
		return emul_mpu_fifo_pop(e);
	case R_INT_STATUS:
	case R_I2C_MST_STATUS: {
		uint8_t v = e->regs[reg];
		e->regs[reg] = 0;  /* cleared by reading (INT_PIN_CFG.INT_ANYRD_2CLEAR = 0) */
		return v;
	}
	}
	return e->regs[reg & 0x7f];
}

/* One chip-select transaction: an address byte, then data in or out. */
struct emul_mpu_txn {
	bool started;
	bool read;
	uint8_t reg;
};

static void emul_mpu_byte(struct emul_mpu *e, struct emul_mpu_txn *t, uint32_t speed_hz,
			  uint8_t in, uint8_t *out)
{
	if (!t->started) {
		t->started = true;
		t->read = in & 0x80;
		t->reg = in & 0x7f;
		*out = 0;
		return;
	}
	if (speed_hz > EMUL_SLOW_REG_MAX_HZ && !(t->read && emul_mpu_fast_reg(t->reg)))
		e->slow_reg_too_fast++;
	if (t->read)
		*out = emul_mpu_read_reg(e, t->reg);
	else
		emul_mpu_write_reg(e, t->reg, in);
	/* Bursts move on, except through FIFO_R_W, which streams the FIFO. */
	if (t->reg != R_FIFO_R_W)
		t->reg = (uint8_t)((t->reg + 1) & 0x7f);
}

static int emul_mpu_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	/* Through void *: the state is more aligned than the handle on 32-bit ARM (-Wcast-align). */
	struct emul_mpu *e = (void *)dev;
	struct emul_mpu_txn t = { 0 };

	e->batches++;
	if (n == 0)
		return -EINVAL;
	if (e->fail_batches) {
		e->fail_batches--;
		return e->fail_err ? e->fail_err : -EIO;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t speed = x[i].speed_hz ? x[i].speed_hz : e->speed_hz;
		for (uint32_t k = 0; k < x[i].len; k++) {
			uint8_t out = 0;
			emul_mpu_byte(e, &t, speed, x[i].tx ? x[i].tx[k] : 0, &out);
			if (x[i].rx)
				x[i].rx[k] = out;
		}
		if (x[i].cs_change)
			t = (struct emul_mpu_txn){ 0 };
	}
	return 0;
}

/* The I2C face: the register, then the data written or read (register map, I2C interface). */
static int emul_mpu_i2c_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
			     uint8_t *rx, size_t rx_len)
{
	struct emul_mpu *e = (void *)((char *)dev - offsetof(struct emul_mpu, i2c));
	struct emul_mpu_txn t = { 0 };
	uint8_t out;

	e->batches++;
	if (e->fail_batches) {
		e->fail_batches--;
		return e->fail_err ? e->fail_err : -EIO;
	}
	if (tx_len == 0)
		return -EIO;      /* a read without a register first reads nothing here */
	emul_mpu_byte(e, &t, 0, (uint8_t)(tx[0] & 0x7f), &out);
	for (size_t i = 1; i < tx_len; i++)
		emul_mpu_byte(e, &t, 0, tx[i], &out);
	if (rx_len) {
		/* The repeated start turns the same register pointer into a read. */
		t.read = true;
		for (size_t i = 0; i < rx_len; i++)
			emul_mpu_byte(e, &t, 0, 0, &rx[i]);
	}
	return 0;
}

static int emul_mpu_bypass_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
				uint8_t *rx, size_t rx_len)
{
	struct emul_mpu *e = (void *)((char *)dev - offsetof(struct emul_mpu, bypass));

	if (!e->aux || !(e->regs[R_INT_PIN_CFG] & 0x02) || (e->regs[R_USER_CTRL] & 0x20))
		return -ENXIO;
	return e->aux->xfer(e->aux, tx, tx_len, rx, rx_len);
}

void emul_mpu_attach_i2c(struct emul_mpu *e, struct emul_i2c_bus *bus, uint8_t addr)
{
	e->i2c = (struct emul_i2c_dev){ .addr = addr, .xfer = emul_mpu_i2c_xfer };
	emul_i2c_attach(bus, &e->i2c);
	if (e->aux) {
		e->bypass = (struct emul_i2c_dev){ .addr = e->aux->addr, .xfer = emul_mpu_bypass_xfer };
		emul_i2c_attach(bus, &e->bypass);
	}
}
