/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated MPU6000 / MPU9250 behind struct spi_ops: a register map with
 * the reset, sleep, sample-rate, FIFO (with overflow) and interrupt-status
 * behaviour of the datasheets, served sample by sample as the test moves its
 * clock. It also watches the driver: writes that land while a reset is still
 * in progress, configuration registers touched faster than 1 MHz, and every
 * register write in order.
 *
 * The auxiliary I2C master is there too: attach a chip (e.g. the emulated
 * AK8963) as aux and slave 4 runs single transactions, slave 0 reads at
 * every sample into EXT_SENS_DATA (and the FIFO), as the chip does once per
 * sample.
 *
 * The same chip answers on an emulated I2C bus too (emul_mpu_attach_i2c):
 * a write is the register and its data, a read the register then a repeated
 * start. With INT_PIN_CFG.BYPASS_EN set and the I2C master off, the aux
 * chip answers on that bus at its own address, as the MPU9250's bypass
 * joins the two buses; otherwise that address NAKs.
 *
 * Written independently of src/drivers/mpu.c (its own register constants) so
 * that the two can disagree. Single-threaded; the test owns the struct.
 */
#ifndef FULMAR_TESTS_EMUL_MPU_H
#define FULMAR_TESTS_EMUL_MPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emul_i2c.h"
#include "fulmar/spi.h"

#define EMUL_MPU_WRITE_LOG 512

struct emul_mpu_write {
	uint8_t reg;
	uint8_t val;
	uint64_t t_us;
};

struct emul_mpu {
	struct spi_dev dev;           /* first: the driver sees this */
	uint8_t who_am_i;
	size_t fifo_size;
	uint8_t regs[128];
	uint64_t now_us;
	uint64_t busy_until_us;       /* a reset in progress: register writes are lost */
	uint64_t next_sample_us;
	uint32_t speed_hz;            /* the device's default clock (set_speed) */

	uint8_t fifo[4096];
	size_t fifo_head;
	size_t fifo_len;
	uint8_t fifo_last;            /* what an empty FIFO reads as */

	int16_t accel[3];             /* raw values served, chip axes */
	int16_t gyro[3];
	int16_t temp;
	bool dither;                  /* toggles the gyro x LSB each sample, as noise would */
	uint32_t sample_index;

	/* Fault injection. */
	unsigned int fail_batches;    /* the next n transfers fail with fail_err */
	int fail_err;
	bool frozen;                  /* samples repeat exactly: a stuck sensor */

	struct emul_i2c_dev *aux;     /* the chip on the auxiliary I2C bus, or NULL */
	struct emul_i2c_dev i2c;      /* the chip on a host I2C bus (emul_mpu_attach_i2c) */
	struct emul_i2c_dev bypass;   /* aux's address on that bus */
	uint32_t aux_transactions;
	uint32_t aux_naks;

	/* What the driver did. */
	uint32_t batches;
	uint32_t lost_writes;         /* writes during a reset */
	uint32_t slow_reg_too_fast;   /* configuration registers at more than 1 MHz */
	uint32_t device_resets;
	uint32_t fifo_resets;
	uint32_t overflows;
	size_t nwrites;
	struct emul_mpu_write writes[EMUL_MPU_WRITE_LOG];
};

/* who_am_i 0x68 makes an MPU6000 (1024-byte FIFO), anything else an MPU9250 (512). */
void emul_mpu_init(struct emul_mpu *e, uint8_t who_am_i);
/* Moves the emulated time on, producing the samples due until now_us. */
void emul_mpu_advance(struct emul_mpu *e, uint64_t now_us);
/* Values the next samples carry (raw LSB). */
void emul_mpu_set_raw(struct emul_mpu *e, const int16_t accel[3], const int16_t gyro[3],
		      int16_t temp);
/* Loses power for a moment: every register back to its reset value, FIFO empty. */
void emul_mpu_power_cycle(struct emul_mpu *e);
/* Drops n bytes from the head of the FIFO, as a glitch would: frames no longer line up. */
void emul_mpu_slip_fifo(struct emul_mpu *e, size_t n);
/* The value last written to reg, or -1 when the driver never wrote it. */
int emul_mpu_last_write(const struct emul_mpu *e, uint8_t reg);
size_t emul_mpu_fifo_count(const struct emul_mpu *e);
/*
 * Puts the chip on bus at addr (0x68 or 0x69), with aux (set before) behind
 * its bypass at aux's address. Transfers count as batches, and
 * fail_batches fails them as it fails SPI batches.
 */
void emul_mpu_attach_i2c(struct emul_mpu *e, struct emul_i2c_bus *bus, uint8_t addr);

#endif
