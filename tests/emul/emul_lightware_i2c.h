/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated LightWare SF10/SF11 in its legacy I2C protocol: every read
 * returns the distance register, 2 bytes big-endian (cm, or whatever word
 * the test sets: 65436 for "no return", junk). Writes are refused, as the
 * driver never writes. Single-threaded; the test owns it.
 */
#ifndef FULMAR_TESTS_EMUL_LIGHTWARE_I2C_H
#define FULMAR_TESTS_EMUL_LIGHTWARE_I2C_H

#include <stdint.h>

#include "emul_i2c.h"

struct emul_lightware_i2c {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint16_t word;                /* what a read returns */
	uint32_t reads;
};

void emul_lightware_i2c_init(struct emul_lightware_i2c *e);

#endif
