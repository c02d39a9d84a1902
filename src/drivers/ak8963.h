/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * AKM AK8963 magnetometer (the one inside the MPU9250), read directly over
 * I2C (the MPU9250's auxiliary bus passed through, or a separate chip).
 *
 * A state machine over a caller-owned struct ak8963, no sleeps, no clock:
 * calls take now_us. Set-up: WIA must read 0x48; soft reset; fuse-ROM mode
 * to read the sensitivity adjustment (ASA); power-down; 16-bit continuous
 * measurement at 100 Hz. Mode changes go through power-down with the 100 us
 * the datasheet asks for (waited across calls).
 *
 * Output: magnetic field in microtesla (0.15 uT/LSB in 16-bit mode, times
 * the chip's ASA factor (ASA - 128) / 256 + 1 per axis), rotated into the
 * body frame. Inside an MPU9250 the AK8963's axes are not the accel/gyro's:
 * its x is their y, its y their x, its z their -z, i.e.
 * ROTATION_ROLL_180_YAW_90 relative to the IMU; a board composes that with
 * the IMU's own rotation (rotation_compose()).
 *
 * Errors are data: failed transfers are counted and returned, the last
 * good sample kept with its time. A sample flagged as overflowed (ST2.HOFL:
 * beyond +-4912 uT) is counted and dropped; skipped samples (ST1.DOR) are
 * counted. No new data for 100 ms, or ST2 no longer showing 16-bit mode
 * (the chip was reset), starts the set-up again.
 *
 * Thread: the one that owns the I2C handle. No allocation.
 */
#ifndef FULMAR_DRIVERS_AK8963_H
#define FULMAR_DRIVERS_AK8963_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/rotation.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

#define AK8963_I2C_ADDR 0x0c

struct ak8963_config {
	struct i2c_bus *bus;
	uint8_t addr;             /* 0: AK8963_I2C_ADDR */
	enum rotation rotation;   /* chip axes to body axes; must be set */
};

struct ak8963_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t overflows;       /* samples dropped for ST2.HOFL */
	uint32_t overruns;        /* ST1.DOR: a sample was skipped before this one */
	uint32_t stale_events;    /* no data for too long: set up again */
	uint32_t setups;
	uint32_t probe_failures;  /* WIA reads that were not 0x48 */
};

struct ak8963 {
	struct ak8963_config cfg;
	struct rotation_matrix rot;
	int state;
	int fail_err;
	uint64_t next_us;
	uint64_t last_data_us;
	uint8_t attempts;
	float scale_ut[3];        /* per axis: 0.15 uT times the ASA factor */
	uint8_t asa[3];
	bool have_last;
	struct mag_sample last;
	struct ak8963_stats stats;
};

/* No bus traffic. -EINVAL for a NULL bus or an unset rotation. */
int ak8963_init(struct ak8963 *m, const struct ak8963_config *cfg);

/*
 * Advances set-up or reads a sample. Returns 1 with *out written when a new
 * sample arrived (stamped now_us), 0 when nothing is new, -errno from the
 * bus, and -ENODEV (from then on, without bus traffic) when at start-up the
 * chip never answered as an AK8963.
 */
int ak8963_poll(struct ak8963 *m, uint64_t now_us, struct mag_sample *out);

uint64_t ak8963_next_poll_us(const struct ak8963 *m);
bool ak8963_is_running(const struct ak8963 *m);
bool ak8963_last_sample(const struct ak8963 *m, struct mag_sample *out);
const struct ak8963_stats *ak8963_stats(const struct ak8963 *m);
/* The fuse-ROM sensitivity adjustment read at set-up (ASAX, ASAY, ASAZ). */
void ak8963_asa(const struct ak8963 *m, uint8_t asa[3]);

/*
 * Pure helpers, shared with the MPU9250's auxiliary-bus path (mpu.h).
 * Register numbers and values of the chip, for drivers that reach it
 * through another bus master:
 */
#define AK8963_REG_WIA 0x00
#define AK8963_REG_ST1 0x02
#define AK8963_REG_CNTL1 0x0a
#define AK8963_REG_CNTL2 0x0b
#define AK8963_REG_ASAX 0x10
#define AK8963_WIA 0x48
#define AK8963_CNTL1_POWER_DOWN 0x00
#define AK8963_CNTL1_FUSE_ROM 0x0f
#define AK8963_CNTL1_CONT_100HZ_16BIT 0x16
#define AK8963_CNTL2_SRST 0x01
/* ST1 .. ST2: what one data read returns. */
#define AK8963_DATA_LEN 8

/* Per-axis microtesla per LSB in 16-bit mode from the ASA bytes. */
void ak8963_scale_from_asa(const uint8_t asa[3], float scale_ut[3]);

enum ak8963_data {
	AK8963_DATA_NEW = 1,      /* field_ut written */
	AK8963_DATA_NONE,         /* ST1.DRDY clear: nothing new */
	AK8963_DATA_OVERFLOW,     /* ST2.HOFL: the sample is not valid */
	AK8963_DATA_NOT_16BIT,    /* ST2.BITM clear: the chip lost its configuration */
};

/*
 * Decodes one ST1 .. ST2 read: the field in microtesla, rotated by rot.
 * *overrun tells whether ST1.DOR was set (a sample was skipped before it).
 */
enum ak8963_data ak8963_decode(const uint8_t d[AK8963_DATA_LEN], const float scale_ut[3],
			       const struct rotation_matrix *rot, float field_ut[3], bool *overrun);

#endif
