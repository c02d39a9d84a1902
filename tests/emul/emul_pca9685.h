/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated PCA9685 on an emulated I2C bus: the register file with
 * auto-increment only when MODE1.AI is set, PRE_SCALE writable only asleep,
 * EXTCLK sticky, the restart flag, the oscillator's 500 us start, full-on
 * and full-off bits, and the pulse each output would produce with the
 * clock the test wired to it. Single-threaded; the test moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_PCA9685_H
#define FULMAR_TESTS_EMUL_PCA9685_H

#include <stdbool.h>
#include <stdint.h>

#include "emul_i2c.h"

struct emul_pca9685 {
	struct emul_i2c_dev i2c;      /* first; attach to an emul_i2c_bus */
	uint8_t regs[256];
	uint32_t internal_hz;         /* what the internal oscillator really runs at */
	uint32_t ext_hz;              /* what is wired to EXTCLK (0: nothing) */
	uint64_t now_us;
	uint64_t awake_since_us;      /* SLEEP cleared at */

	uint32_t prescale_ignored;    /* PRE_SCALE writes while awake */
	uint32_t early_restarts;      /* RESTART within 500 us of waking */
	uint32_t ext_switch_awake;    /* EXTCLK set while not asleep */
	uint32_t writes;
};

void emul_pca9685_init(struct emul_pca9685 *e, uint32_t internal_hz, uint32_t ext_hz);
void emul_pca9685_set_time(struct emul_pca9685 *e, uint64_t now_us);
void emul_pca9685_power_cycle(struct emul_pca9685 *e);
/* The PWM period the chip makes now, in microseconds (0 while asleep). */
double emul_pca9685_period_us(const struct emul_pca9685 *e);
/* How long output n (0..15) is high each period, in microseconds; -1 for full-on. */
double emul_pca9685_high_us(const struct emul_pca9685 *e, unsigned int n);

#endif
