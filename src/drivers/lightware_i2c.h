/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * LightWare SF10 and SF11 laser rangefinders on I2C, in their legacy I2C
 * protocol: every 2-byte read returns the latest distance in centimetres,
 * big-endian; the sensor measures on its own. Some firmwares answer a
 * reading with its top bit set (65436, i.e. -100) when nothing came back:
 * that is a reading without a distance (RANGE_READING_NO_RETURN). A value
 * beyond what any SF10 or SF11 reaches (LIGHTWARE_I2C_MAX_CM) is not a
 * distance either: counted as refused, no sample.
 *
 * Sources: ArduPilot's libraries/AP_RangeFinder/AP_RangeFinder_LightWareI2C.cpp
 * (the legacy read, the out-of-range value) and its wiki page on the SF10/SF11
 * (RNGFND1_ADDR 102, i.e. 0x66, the sensors' default address).
 *
 * No sleeps, no clock: calls take now_us. Thread: the one that owns the I2C
 * handle. No allocation.
 */
#ifndef FULMAR_DRIVERS_LIGHTWARE_I2C_H
#define FULMAR_DRIVERS_LIGHTWARE_I2C_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

#define LIGHTWARE_I2C_ADDR 0x66
#define LIGHTWARE_I2C_MAX_CM 13000u      /* SF11/C reaches 120 m */

struct lightware_i2c_config {
	struct i2c_bus *bus;
	uint8_t addr;                     /* 0: LIGHTWARE_I2C_ADDR */
	uint32_t interval_us;             /* between reads; 0: 50000 (20 Hz) */
};

struct lightware_i2c_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t no_return;               /* readings with the top bit set */
	uint32_t refused;                 /* readings beyond LIGHTWARE_I2C_MAX_CM */
};

struct lightware_i2c {
	struct lightware_i2c_config cfg;
	uint64_t next_us;
	struct drv_startup start;
	struct lightware_i2c_stats stats;
};

/* No bus traffic. -EINVAL for a NULL bus. */
int lightware_i2c_init(struct lightware_i2c *s, const struct lightware_i2c_config *cfg);

/*
 * Reads the sensor when interval_us has passed. Returns 1 with *out written
 * (stamped now_us), 0 when it is too early, -EIO for a reading that is no
 * distance (counted), -errno from the bus, and -ENODEV (from then on, without
 * bus traffic) when at start-up it never answered in 10 tries.
 */
int lightware_i2c_poll(struct lightware_i2c *s, uint64_t now_us, struct range_sample *out);
uint64_t lightware_i2c_next_poll_us(const struct lightware_i2c *s);
const struct lightware_i2c_stats *lightware_i2c_stats(const struct lightware_i2c *s);

#endif
