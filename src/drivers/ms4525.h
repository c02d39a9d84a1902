/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * TE (MEAS) MS4525DO differential pressure sensor on I2C (pitot airspeed).
 *
 * The sensor measures continuously; each poll, once interval_us has passed,
 * reads its 4-byte packet (Read_DF4): two status bits, 14 bits of pressure,
 * 11 bits of temperature. Status 00 is a fresh measurement; 10 means the
 * measurement was already read (stale: counted, no sample); 11 is the
 * sensor's own diagnostic fault; 01 is reserved (command mode).
 *
 * Pressure: the datasheet's transfer function for the output type
 * (A: 10 % to 90 % of 16383 counts over the range, B: 5 % to 95 %),
 *   p_psi = (counts - low * 16383) * (p_max - p_min) / (span * 16383) + p_min,
 * converted to Pa (1 psi = 6894.757 Pa); the default range is that of the
 * 1 psi differential part, -1 to +1 psi. Temperature:
 *   t = counts * 200 / 2047 - 50 degC.
 * The sign of the pressure is the sensor's (port 1 minus port 2): which port
 * the pitot tube is on is the board's business.
 *
 * No sleeps, no clock: calls take now_us. Errors are data: failed transfers
 * are counted and returned, the last good sample kept with its time.
 * Thread: the one that owns the I2C handle. No allocation.
 */
#ifndef FULMAR_DRIVERS_MS4525_H
#define FULMAR_DRIVERS_MS4525_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

/* Interface type I; J is 0x36, K 0x46. */
#define MS4525_I2C_ADDR 0x28

enum ms4525_output_type {
	MS4525_OUTPUT_A = 1,      /* 10 % to 90 % */
	MS4525_OUTPUT_B,          /* 5 % to 95 % */
};

struct ms4525_config {
	struct i2c_bus *bus;
	uint8_t addr;                     /* 0: MS4525_I2C_ADDR */
	enum ms4525_output_type output;   /* 0: MS4525_OUTPUT_A */
	float p_min_psi;                  /* both 0: -1 .. +1 psi */
	float p_max_psi;
	uint32_t interval_us;             /* between reads; 0: 10000 (100 Hz) */
};

struct ms4525_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t stale;                   /* status 10: nothing new since the last read */
	uint32_t faults;                  /* status 11 (or the reserved 01) */
};

struct ms4525 {
	struct ms4525_config cfg;
	uint64_t next_us;
	struct drv_startup start;
	bool have_last;
	struct airspeed_sample last;
	struct ms4525_stats stats;
};

/* No bus traffic. -EINVAL for a NULL bus, an unknown output type or p_max <= p_min. */
int ms4525_init(struct ms4525 *s, const struct ms4525_config *cfg);

/*
 * Reads the sensor when interval_us has passed. Returns 1 with *out written
 * for a fresh measurement (stamped now_us), 0 for nothing new (too early, or
 * stale), -EIO when the sensor reports a fault, -errno from the bus, and
 * -ENODEV (from then on, without bus traffic) when at start-up it never
 * answered in 10 tries.
 */
int ms4525_poll(struct ms4525 *s, uint64_t now_us, struct airspeed_sample *out);

bool ms4525_last_sample(const struct ms4525 *s, struct airspeed_sample *out);
const struct ms4525_stats *ms4525_stats(const struct ms4525 *s);
uint64_t ms4525_next_poll_us(const struct ms4525 *s);

/* Pure helpers, any thread: counts to SI units under this configuration. */
float ms4525_pressure_pa(const struct ms4525_config *cfg, uint16_t counts14);
float ms4525_temp_c(uint16_t counts11);

#endif
