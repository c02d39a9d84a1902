/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated MS4525DO on an emulated I2C bus: a measurement every
 * update_us, 4-byte packets with the status bits (00 fresh, 10 already
 * read), a settable fault status, and junk in the undefined low bits.
 */
#ifndef FULMAR_TESTS_EMUL_MS4525_H
#define FULMAR_TESTS_EMUL_MS4525_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_ms4525 {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint16_t pressure;            /* 14-bit counts */
	uint16_t temp;                /* 11-bit counts */
	bool fault;
	uint32_t update_us;
	uint64_t now_us;
	uint64_t measured_us;         /* time of the last measurement */
	bool fetched;                 /* the last measurement was read */
	uint32_t reads;
};

void emul_ms4525_init(struct emul_ms4525 *e);
void emul_ms4525_set_time(struct emul_ms4525 *e, uint64_t now_us);

#endif
