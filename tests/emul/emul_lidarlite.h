/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated Garmin LIDAR-Lite v3 on I2C, by its register map: a write of
 * one byte sets the register address (bit 7: auto-increment), of two bytes
 * writes a register; a read returns registers from the address. Writing 0x04
 * to 0x00 starts a measurement, busy (STATUS bit 0) for meas_us, after which
 * FULL_DELAY (0x0f, 0x10) holds distance_cm and STATUS the health bit, the
 * invalid-signal bit when no_return is set, the process-error bit when fault
 * is. Like the module, it takes no repeated start: a transfer that both
 * writes and reads is refused. Single-threaded; the test moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_LIDARLITE_H
#define FULMAR_TESTS_EMUL_LIDARLITE_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_lidarlite {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint8_t reg[0x100];
	uint8_t ptr;                  /* register address, bit 7 auto-increment */
	uint16_t distance_cm;
	bool no_return;
	bool fault;
	bool stuck_busy;              /* never finishes a measurement */
	uint32_t meas_us;
	uint64_t now_us;
	uint64_t started_us;
	bool measuring;
	uint32_t acquisitions;
	uint32_t repeated_starts;     /* refused transfers */
};

void emul_lidarlite_init(struct emul_lidarlite *e);
void emul_lidarlite_set_time(struct emul_lidarlite *e, uint64_t now_us);

#endif
