/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated Bosch BMP280 on an emulated I2C bus: chip id, soft reset
 * (registers back to their reset values, 2 ms start-up during which the
 * chip answers nothing useful), the calibration words at 0x88..0x9F,
 * ctrl_meas and config (config writes ignored in normal mode, as the data
 * sheet warns), normal mode measuring every measurement time + t_sb, and the
 * 20-bit data registers (0x80000 until the first measurement). Writes are
 * register/data pairs, reads auto-increment (data sheet 5.2).
 *
 * Faults a test can ask for: another chip id, garbage data (every data byte
 * 0xFF), a stuck reading (noise off: the same raw values every time), and
 * no answer at all (do not attach it, or set absent: every transfer NAKed).
 *
 * Written independently of src/drivers/bmp280.c (its own register
 * constants). Single-threaded; the test owns it and moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_BMP280_H
#define FULMAR_TESTS_EMUL_BMP280_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_bmp280 {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint8_t regs[256];
	uint8_t chip_id;              /* what 0xD0 reads; 0x58 after init */
	uint8_t calib[24];            /* 0x88..0x9F */
	uint32_t adc_p, adc_t;        /* raw 20-bit values the measurements give */
	bool noise;                   /* adc_p moves by a few counts per measurement */
	bool garbage;                 /* data registers read 0xFF */
	bool absent;                  /* every transfer NAKed */
	uint64_t now_us;
	uint64_t busy_until_us;       /* the start-up after a reset */
	uint64_t next_meas_us;
	uint32_t measurements;

	uint32_t resets;
	uint32_t early_accesses;      /* transfers during the start-up */
	uint32_t ignored_config_writes;
};

/* A BMP280 with the data sheet's example calibration (3.12) and its example readings. */
void emul_bmp280_init(struct emul_bmp280 *e, uint8_t addr);
void emul_bmp280_set_time(struct emul_bmp280 *e, uint64_t now_us);
/* Sets the calibration words (dig_T1..dig_P9) in the chip's little-endian layout. */
void emul_bmp280_set_calib(struct emul_bmp280 *e, const int32_t dig[12]);
/* Loses power for a moment: registers to their reset values, sleep mode. */
void emul_bmp280_power_cycle(struct emul_bmp280 *e);

#endif
