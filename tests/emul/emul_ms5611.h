/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated MS5611: PROM (with its CRC), reset reload time, D1/D2
 * conversions that take their datasheet time per OSR, and an ADC that reads
 * 0 when asked too early or twice (datasheet, "ADC read"). Reachable through
 * struct spi_ops (spi) and as a chip on an emulated I2C bus (i2c), the same
 * model behind both. Single-threaded; the test owns it and moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_MS5611_H
#define FULMAR_TESTS_EMUL_MS5611_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"
#include "fulmar/spi.h"

struct emul_ms5611 {
	struct spi_dev spi;           /* first: the SPI front */
	struct emul_i2c_dev i2c;      /* the I2C front: attach it to an emul_i2c_bus */
	uint16_t prom[8];
	uint32_t d1;                  /* what pressure conversions give */
	uint32_t d2;                  /* what temperature conversions give */
	bool noise;                   /* d1 moves by a few counts per conversion, as real data does */
	uint64_t now_us;

	uint64_t busy_until_us;       /* reset: PROM reloading */
	uint8_t converting;           /* conversion command in progress, 0 if none */
	uint64_t done_at_us;
	bool have_result;
	uint32_t result;
	uint32_t conversions;

	unsigned int fail_next;       /* the next n transfers fail with fail_err (default -EIO) */
	unsigned int zero_reads;      /* the next n finished conversions read as 0 */
	int fail_err;

	uint32_t resets;
	uint32_t early_commands;      /* commands during the reset reload */
	uint32_t early_reads;         /* ADC reads before the conversion finished */
	uint32_t spoiled;             /* conversions started while one was running */
	uint32_t d1_count;
	uint32_t d2_count;
	uint8_t last_convert;         /* last conversion command, with its OSR bits */
};

/* c: C1..C6. The PROM gets a made-up word 0 and a correct CRC in word 7. */
void emul_ms5611_init(struct emul_ms5611 *e, const uint16_t c[6], uint8_t i2c_addr);
void emul_ms5611_set_time(struct emul_ms5611 *e, uint64_t now_us);
/* Recomputes the CRC nibble after a test changed prom[]. */
void emul_ms5611_fix_crc(struct emul_ms5611 *e);

#endif
