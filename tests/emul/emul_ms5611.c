// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_ms5611.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define EMUL_RESET_US 2800u

/* Typical conversion times by OSR 256..4096 (the driver must wait the maxima). */
static const uint32_t emul_conv_us[5] = { 540, 1060, 2080, 4130, 8220 };

/* AN520's CRC4, kept here on its own so the driver's can be checked against it. */
static uint8_t emul_crc4(const uint16_t prom[8])
{
	uint8_t bytes[16];
	uint16_t r = 0;

	for (int w = 0; w < 8; w++) {
		bytes[2 * w] = (uint8_t)(prom[w] >> 8);
		bytes[2 * w + 1] = w == 7 ? 0 : (uint8_t)prom[w];
	}
	for (int i = 0; i < 16; i++) {
		r ^= bytes[i];
		for (int k = 8; k > 0; k--)
			r = (uint16_t)((r & 0x8000) ? (r << 1) ^ 0x3000 : r << 1);
	}
	return (uint8_t)(r >> 12);
}

void emul_ms5611_fix_crc(struct emul_ms5611 *e)
{
	e->prom[7] = (uint16_t)((e->prom[7] & 0xfff0) | emul_crc4(e->prom));
}

void emul_ms5611_set_time(struct emul_ms5611 *e, uint64_t now_us)
{
	e->now_us = now_us;
	if (e->converting && now_us >= e->done_at_us) {
		uint32_t v = e->converting < 0x50 ? e->d1 : e->d2;
		if (e->converting < 0x50 && e->noise)
			v += e->conversions % 7;
		e->result = v;
		e->have_result = true;
		e->converting = 0;
	}
}

/* One command and what it answers, the same on SPI and I2C. */
static int emul_ms5611_command(struct emul_ms5611 *e, uint8_t cmd, uint8_t *rx, size_t rx_len)
{
	emul_ms5611_set_time(e, e->now_us);
	memset(rx, 0, rx_len);
	if (e->now_us < e->busy_until_us) {
		e->early_commands++;
		return 0;
	}
	if (cmd == 0x1e) {
		e->resets++;
		e->busy_until_us = e->now_us + EMUL_RESET_US;
		e->converting = 0;
		e->have_result = false;
		return 0;
	}
	if (cmd >= 0xa0 && cmd <= 0xae && !(cmd & 1)) {
		uint16_t w = e->prom[(cmd - 0xa0) / 2];
		if (rx_len > 0)
			rx[0] = (uint8_t)(w >> 8);
		if (rx_len > 1)
			rx[1] = (uint8_t)w;
		return 0;
	}
	if (cmd == 0x00) {
		if (e->converting) {
			/* Too early: reads 0 and the conversion is spoiled. */
			e->early_reads++;
			e->converting = 0;
			return 0;
		}
		if (e->have_result && e->zero_reads) {
			e->zero_reads--;
			e->have_result = false;
			return 0;
		}
		if (e->have_result) {
			for (size_t i = 0; i < rx_len && i < 3; i++)
				rx[i] = (uint8_t)(e->result >> (8 * (2 - i)));
			e->have_result = false;  /* a second read gives 0 */
		}
		return 0;
	}
	if ((cmd & 0xe0) == 0x40 && (cmd & 0x0f) <= 8 && !(cmd & 1)) {
		if (e->converting)
			e->spoiled++;
		e->converting = cmd & 0xf0;
		e->done_at_us = e->now_us + emul_conv_us[(cmd & 0x0f) / 2];
		e->have_result = false;
		e->conversions++;
		e->last_convert = cmd;
		if ((cmd & 0xf0) == 0x40)
			e->d1_count++;
		else
			e->d2_count++;
		return 0;
	}
	return -EIO;
}

static int emul_ms5611_fail(struct emul_ms5611 *e)
{
	if (!e->fail_next)
		return 0;
	e->fail_next--;
	return e->fail_err ? e->fail_err : -EIO;
}

static int emul_ms5611_spi_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct emul_ms5611 *e = (void *)dev;
	uint8_t rx[8] = { 0 };
	int err = emul_ms5611_fail(e);

	if (err)
		return err;
	/* The driver's transactions are a command byte, then the response clocked out. */
	if (n == 0 || !x[0].tx || x[0].len != 1 || n > 2 || (n == 2 && x[1].len > sizeof(rx)))
		return -EINVAL;
	size_t rx_len = n == 2 ? x[1].len : 0;
	err = emul_ms5611_command(e, x[0].tx[0], rx, rx_len);
	if (n == 2 && x[1].rx)
		memcpy(x[1].rx, rx, rx_len);
	return err;
}

static void emul_ms5611_spi_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops emul_ms5611_spi_ops = {
	.transfer_batch = emul_ms5611_spi_batch,
	.close = emul_ms5611_spi_close,
};

static int emul_ms5611_i2c_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len,
				uint8_t *rx, size_t rx_len)
{
	struct emul_ms5611 *e = (void *)((char *)dev - offsetof(struct emul_ms5611, i2c));
	uint8_t buf[8];
	int err = emul_ms5611_fail(e);

	if (err)
		return err;
	if (tx_len != 1 || rx_len > sizeof(buf))
		return -EIO;
	err = emul_ms5611_command(e, tx[0], buf, rx_len);
	if (rx_len)
		memcpy(rx, buf, rx_len);
	return err;
}

void emul_ms5611_init(struct emul_ms5611 *e, const uint16_t c[6], uint8_t i2c_addr)
{
	memset(e, 0, sizeof(*e));
	e->spi.ops = &emul_ms5611_spi_ops;
	e->i2c.addr = i2c_addr;
	e->i2c.xfer = emul_ms5611_i2c_xfer;
	e->prom[0] = 0x0042;
	memcpy(&e->prom[1], c, 6 * sizeof(c[0]));
	e->prom[7] = 0x4500;
	emul_ms5611_fix_crc(e);
	e->d1 = 9085466;
	e->d2 = 8569150;
	e->noise = true;
}
