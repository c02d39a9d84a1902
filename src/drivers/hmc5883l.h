/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Honeywell HMC5883L magnetometer on I2C (external GPS/compass modules).
 *
 * A state machine over a caller-owned struct hmc5883l, no sleeps, no clock:
 * calls take now_us. Set-up: the identification registers must read "H43";
 * then 8-sample averaging at 75 Hz, the chosen gain, continuous measurement,
 * each register read back. The first sample after set-up is dropped (the
 * datasheet: it may still carry the previous gain).
 *
 * Output: microtesla (counts / gain LSB-per-gauss * 100), rotated into the
 * body frame. The chip's data registers run X, Z, Y; the driver reorders.
 *
 * Errors are data: failed transfers are counted and returned, the last
 * good sample kept with its time. An axis reading -4096 (ADC overflow or
 * underflow: the field is beyond the gain's range) drops that sample and
 * is counted; pick a larger gain range if it happens in flight. No new data
 * for 200 ms (the chip lost its mode, e.g. after a power dip) runs the
 * set-up again.
 *
 * Not done: the positive-bias self-test and the per-axis gain calibration
 * derived from it.
 *
 * Thread: the one that owns the I2C handle. No allocation.
 */
#ifndef FULMAR_DRIVERS_HMC5883L_H
#define FULMAR_DRIVERS_HMC5883L_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/rotation.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

#define HMC5883L_I2C_ADDR 0x1e

/* Configuration register B gain settings: range in gauss (LSB per gauss). */
enum hmc5883l_gain {
	HMC5883L_GAIN_0_88GA = 1, /* 1370 */
	HMC5883L_GAIN_1_3GA,      /* 1090, the chip's default */
	HMC5883L_GAIN_1_9GA,      /* 820 */
	HMC5883L_GAIN_2_5GA,      /* 660 */
	HMC5883L_GAIN_4_0GA,      /* 440 */
	HMC5883L_GAIN_4_7GA,      /* 390 */
	HMC5883L_GAIN_5_6GA,      /* 330 */
	HMC5883L_GAIN_8_1GA,      /* 230 */
};

struct hmc5883l_config {
	struct i2c_bus *bus;
	uint8_t addr;             /* 0: HMC5883L_I2C_ADDR */
	enum rotation rotation;   /* chip axes to body axes; must be set */
	enum hmc5883l_gain gain;  /* 0: HMC5883L_GAIN_1_3GA */
};

struct hmc5883l_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t overflows;       /* samples dropped for an axis at -4096 */
	uint32_t stale_events;
	uint32_t config_errors;   /* registers that did not read back as written */
	uint32_t setups;
	uint32_t probe_failures;  /* identification that was not "H43" */
};

struct hmc5883l {
	struct hmc5883l_config cfg;
	struct rotation_matrix rot;
	int state;
	int fail_err;
	uint64_t next_us;
	uint64_t last_data_us;
	uint8_t attempts;
	bool ever_ran;
	bool skip_next;
	float ut_per_lsb;
	bool have_last;
	struct mag_sample last;
	struct hmc5883l_stats stats;
};

/* No bus traffic. -EINVAL for a NULL bus, an unset rotation or an unknown gain. */
int hmc5883l_init(struct hmc5883l *m, const struct hmc5883l_config *cfg);

/*
 * Advances set-up or reads a sample. Returns 1 with *out written when a new
 * sample arrived (stamped now_us), 0 when nothing is new, -errno from the
 * bus, and -ENODEV (from then on, without bus traffic) when at start-up the
 * chip never identified itself, or never took its configuration.
 */
int hmc5883l_poll(struct hmc5883l *m, uint64_t now_us, struct mag_sample *out);

uint64_t hmc5883l_next_poll_us(const struct hmc5883l *m);
bool hmc5883l_is_running(const struct hmc5883l *m);
bool hmc5883l_last_sample(const struct hmc5883l *m, struct mag_sample *out);
const struct hmc5883l_stats *hmc5883l_stats(const struct hmc5883l *m);

#endif
