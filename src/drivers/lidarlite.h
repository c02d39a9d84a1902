/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Garmin LIDAR-Lite v3 laser rangefinder on I2C, by its register map
 * (Garmin's LIDAR-Lite v3 Operation Manual and Technical Specifications,
 * "Control register list" and "I2C interface"):
 *   0x00 ACQ_COMMAND  write 0x04: measure, with receiver bias correction
 *   0x01 STATUS       bit 0 busy, bit 3 invalid signal (no peak found: no
 *                     distance), bit 5 health (reference and receiver bias
 *                     operational), bit 6 process error
 *   0x0f, 0x10        FULL_DELAY high and low: the distance in cm; read both
 *                     at once from 0x8f (bit 7 of the address: auto-increment)
 * The module takes no repeated start: a register's address is written in
 * one transfer and read in the next (i2c_write, then i2c_read).
 *
 * Each cycle: the acquisition command, then the status until it is no longer
 * busy (a measurement takes a few ms), then the distance; the next
 * acquisition interval_us after the last. A status without the health bit or
 * with the process-error bit is the module's fault (-EIO, counted); a busy
 * that lasts LIDARLITE_BUSY_LIMIT_US abandons the cycle (counted). Default
 * address 0x62.
 *
 * No sleeps, no clock: calls take now_us. Thread: the one that owns the I2C
 * handle. No allocation.
 */
#ifndef FULMAR_DRIVERS_LIDARLITE_H
#define FULMAR_DRIVERS_LIDARLITE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

#define LIDARLITE_I2C_ADDR 0x62
#define LIDARLITE_REG_ACQ_COMMAND 0x00
#define LIDARLITE_REG_STATUS 0x01
#define LIDARLITE_REG_FULL_DELAY_HIGH 0x0f
#define LIDARLITE_AUTO_INCREMENT 0x80
#define LIDARLITE_ACQ_BIAS_CORRECTED 0x04
#define LIDARLITE_STATUS_BUSY 0x01
#define LIDARLITE_STATUS_INVALID_SIGNAL 0x08
#define LIDARLITE_STATUS_HEALTH 0x20
#define LIDARLITE_STATUS_PROCESS_ERROR 0x40
#define LIDARLITE_MAX_CM 4500u            /* the v3 reaches 40 m */
#define LIDARLITE_BUSY_LIMIT_US 100000u

struct lidarlite_config {
	struct i2c_bus *bus;
	uint8_t addr;                     /* 0: LIDARLITE_I2C_ADDR */
	uint32_t interval_us;             /* between acquisitions; 0: 20000 (50 Hz) */
};

struct lidarlite_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t no_return;               /* status said invalid signal */
	uint32_t faults;                  /* health bit clear, process error */
	uint32_t busy_timeouts;
	uint32_t refused;                 /* a distance beyond LIDARLITE_MAX_CM */
};

enum lidarlite_step {
	LIDARLITE_ACQUIRE = 1,
	LIDARLITE_STATUS,
	LIDARLITE_DISTANCE,
};

struct lidarlite {
	struct lidarlite_config cfg;
	enum lidarlite_step step;
	uint64_t next_us;
	uint64_t acquired_us;             /* when the running cycle's command went */
	uint64_t cycle_us;                /* when the next cycle may start */
	uint8_t status;                   /* of the running cycle */
	struct drv_startup start;
	struct lidarlite_stats stats;
};

/* No bus traffic. -EINVAL for a NULL bus. */
int lidarlite_init(struct lidarlite *s, const struct lidarlite_config *cfg);

/*
 * One step of the cycle when due. Returns 1 with *out written (stamped
 * now_us) when a distance (or an invalid signal: RANGE_READING_NO_RETURN)
 * came, 0 for a step without one, -EIO for the module's own fault or an
 * implausible distance (counted), -ETIMEDOUT when busy too long, -errno from
 * the bus, and -ENODEV (from then on, without bus traffic) when at start-up
 * it never answered in 10 tries.
 */
int lidarlite_poll(struct lidarlite *s, uint64_t now_us, struct range_sample *out);
uint64_t lidarlite_next_poll_us(const struct lidarlite *s);
const struct lidarlite_stats *lidarlite_stats(const struct lidarlite *s);

#endif
