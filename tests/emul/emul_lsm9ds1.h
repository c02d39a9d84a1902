/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated ST LSM9DS1 behind struct spi_ops, as its two dies are wired
 * on SPI: the accelerometer + gyroscope die (struct emul_lsm9ds1_ag) and the
 * magnetometer die (struct emul_lsm9ds1_m), each its own spi_dev (its own
 * chip select). Register maps with the data sheet's reset values; the A/G
 * die's soft reset (CTRL_REG8.SW_RESET), address auto-increment only while
 * CTRL_REG8.IF_ADD_INC is set, samples at the output data rate of
 * CTRL_REG1_G with STATUS_REG's XLDA, GDA and TDA set by a sample and
 * cleared by reading the data; the M die's soft reset
 * (CTRL_REG2_M.SOFT_RST), auto-increment only with the address byte's MS
 * bit (bit 6), continuous conversion at CTRL_REG1_M's rate with ZYXDA.
 *
 * Faults a test can ask for: another WHO_AM_I, garbage (every byte read
 * 0xFF, as a floating MISO line gives), absent (every byte read 0x00, as a
 * line pulled low gives: SPI has no NAK), frozen data (samples repeat
 * exactly), and failed transfers (fail_next, fail_err).
 *
 * Written independently of src/drivers/lsm9ds1.c (its own register
 * constants). Single-threaded; the test owns the structs and moves their
 * clocks.
 */
#ifndef FULMAR_TESTS_EMUL_LSM9DS1_H
#define FULMAR_TESTS_EMUL_LSM9DS1_H

#include <stdbool.h>
#include <stdint.h>

#include "fulmar/spi.h"

struct emul_lsm9ds1_ag {
	struct spi_dev dev;           /* first: the driver sees this */
	uint8_t regs[128];
	uint8_t who_am_i;             /* what WHO_AM_I reads; 0x68 after init */
	int16_t accel[3], gyro[3];    /* raw LSB the samples carry, die axes */
	int16_t temp;
	bool dither;                  /* gyro X's last bit toggles each sample, as noise would */
	bool frozen;                  /* samples repeat exactly */
	bool garbage;
	bool absent;
	unsigned int fail_next;       /* the next n transfers fail with fail_err (default -EIO) */
	int fail_err;
	uint64_t now_us;
	uint64_t next_sample_us;
	uint32_t samples;
	uint32_t resets;
	uint32_t batches;
};

struct emul_lsm9ds1_m {
	struct spi_dev dev;           /* first: the driver sees this */
	uint8_t regs[64];
	uint8_t who_am_i;             /* 0x3D after init */
	int16_t field[3];             /* raw LSB the samples carry, die axes */
	bool dither;
	bool frozen;
	bool garbage;
	bool absent;
	unsigned int fail_next;
	int fail_err;
	uint64_t now_us;
	uint64_t next_sample_us;
	uint32_t samples;
	uint32_t resets;
	uint32_t bursts_without_ms;   /* multi-byte reads whose address byte lacked bit 6 */
};

void emul_lsm9ds1_ag_init(struct emul_lsm9ds1_ag *e);
void emul_lsm9ds1_ag_advance(struct emul_lsm9ds1_ag *e, uint64_t now_us);
/* Loses power for a moment: every register back to its reset value. */
void emul_lsm9ds1_ag_power_cycle(struct emul_lsm9ds1_ag *e);

void emul_lsm9ds1_m_init(struct emul_lsm9ds1_m *e);
void emul_lsm9ds1_m_advance(struct emul_lsm9ds1_m *e, uint64_t now_us);
void emul_lsm9ds1_m_power_cycle(struct emul_lsm9ds1_m *e);

#endif
