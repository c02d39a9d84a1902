/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated HMC5883L on an emulated I2C bus: configuration and mode
 * registers with their reset values, identification "H43", continuous
 * measurement at the configured rate, RDY, data registers locked from the
 * first data byte read until all six are read, -4096 on overflow, and the
 * data order X, Z, Y. Single-threaded; the test owns it and moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_HMC5883L_H
#define FULMAR_TESTS_EMUL_HMC5883L_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_hmc5883l {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint8_t regs[13];
	uint8_t ptr;
	int16_t field[3];             /* raw counts X, Y, Z the next samples carry */
	bool overflow_y;              /* Y reads -4096 */
	uint64_t now_us;
	uint64_t next_sample_us;
	uint8_t read_mask;            /* data bytes read since the last sample */

	uint32_t samples;
	uint32_t partial_reads;       /* samples lost because the data was locked */
};

void emul_hmc5883l_init(struct emul_hmc5883l *e);
void emul_hmc5883l_set_time(struct emul_hmc5883l *e, uint64_t now_us);
void emul_hmc5883l_power_cycle(struct emul_hmc5883l *e);

#endif
