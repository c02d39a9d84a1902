/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated AK8963 on an emulated I2C bus: WIA, soft reset, the mode
 * register with its rule that every mode change goes through power-down
 * (and 100 us there), fuse-ROM registers readable only in fuse-ROM mode,
 * continuous measurement at 8 or 100 Hz with DRDY, DOR (a sample replaced
 * before it was read) and HOFL, and ST2 reads releasing the data.
 * Single-threaded; the test owns it and moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_AK8963_H
#define FULMAR_TESTS_EMUL_AK8963_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_ak8963 {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint8_t regs[32];
	uint8_t ptr;
	uint8_t asa[3];
	uint8_t wia;
	int16_t field[3];             /* raw counts the next samples carry */
	bool overflow;                /* samples flagged HOFL */
	uint64_t now_us;
	uint64_t mode_since_us;       /* when the current mode was entered */
	uint64_t next_sample_us;

	uint32_t bad_mode_changes;    /* not through power-down, or too soon after it */
	uint32_t resets;
	uint32_t fuse_reads;          /* ASA read while in fuse-ROM mode */
	uint32_t samples;
};

void emul_ak8963_init(struct emul_ak8963 *e, const uint8_t asa[3]);
void emul_ak8963_set_time(struct emul_ak8963 *e, uint64_t now_us);
/* Power dip: back to reset values (power-down), data lost. */
void emul_ak8963_power_cycle(struct emul_ak8963 *e);

#endif
