/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Bosch BMP280 barometer on I2C (BeagleBone Blue: 0x76).
 *
 * A state machine over a caller-owned struct bmp280; no sleeps, no clock:
 * calls take now_us (CLOCK_MONOTONIC, microseconds). Set-up: the chip id
 * (0xD0) must read 0x58; a soft reset (0xE0 = 0xB6) and its 2 ms start-up;
 * the 24 calibration bytes (0x88..0x9F, dig_T1..dig_P9, little-endian);
 * then normal mode with pressure x16 and temperature x2 oversampling, 0.5 ms
 * standby and the IIR filter at coefficient 4, both registers read back.
 * In normal mode the chip measures on its own, one result every 43.7 ms at
 * most; the driver reads the six data bytes (0xF7..0xFC) in one burst every
 * BMP280_POLL_US and compensates them with the datasheet's floating-point
 * formulas (8.1, with t_fine unrounded as in the worked example of 3.12:
 * the integer ones of 3.11.3 agree to 0.02 Pa and 0.01 degC, but can
 * overflow on garbage) into a sample.
 * Calls before bmp280_next_poll_us() return 0 without bus traffic.
 *
 * Errors are data: a failed transfer is counted and returned, the last good
 * sample stays readable with its time. Refused and counted, no sample:
 *   - 0x80000 in either data field, the chip's "measurement skipped" value
 *     (also what it reads before its first measurement);
 *   - results outside the chip's operating range (300..1100 hPa,
 *     -40..+85 degC), as garbage on the bus gives them.
 * The same raw pressure and temperature stuck_limit reads in a row (real
 * readings at x16 oversampling always carry noise; the poll is slower than
 * the chip's measurements), or 0x80000 ones (a chip back in sleep mode
 * after a power dip reads nothing else), count as stuck data: -ESTALE and a
 * new set-up.
 * A repeated reading is not published, so a poll that caught the same
 * measurement twice gives no duplicate sample.
 *
 * Start-up: driver.h's drv_startup rule. Until the chip answered with its
 * id, a failed transfer (a NAK: nothing at the address) or a wrong id is
 * tried again 20 ms later; at the tenth the device is refused, -ENODEV from
 * then on without bus traffic. A wrong id is counted (stats.id_errors) and
 * kept for the message (bmp280_chip_id()): 0x60 is a BME280, 0x55 a BMP180.
 * A calibration that cannot be a chip's (dig_T1 or dig_P1 zero: the
 * formulas divide by them; all bytes 0x00 or 0xFF) is read again after a
 * new reset; after 3 tries the driver gives up (-EBADMSG).
 *
 * Thread: the one that owns the I2C handle (the timer thread). No allocation.
 */
#ifndef FULMAR_DRIVERS_BMP280_H
#define FULMAR_DRIVERS_BMP280_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;

/* SDO to GND (BeagleBone Blue); SDO to VDDIO: 0x77. */
#define BMP280_I2C_ADDR 0x76
#define BMP280_CHIP_ID 0x58
/* A poll a little slower than the chip's measurement period (43.7 ms at most). */
#define BMP280_POLL_US 50000u

struct bmp280_config {
	struct i2c_bus *bus;
	uint8_t addr;                 /* 0: BMP280_I2C_ADDR */
	uint16_t stuck_limit;         /* identical readings in a row; 0: 50 (2.5 s) */
};

/* The calibration words as the datasheet names them (3.11.2). */
struct bmp280_calib {
	uint16_t dig_t1;
	int16_t dig_t2, dig_t3;
	uint16_t dig_p1;
	int16_t dig_p2, dig_p3, dig_p4, dig_p5, dig_p6, dig_p7, dig_p8, dig_p9;
};

struct bmp280_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t id_errors;           /* chip id reads that were not 0x58 */
	uint32_t calib_errors;        /* calibrations refused */
	uint32_t config_errors;       /* registers that did not read back as written */
	uint32_t skipped;             /* readings of 0x80000, "measurement skipped" */
	uint32_t range_errors;        /* results outside 300..1100 hPa, -40..85 degC */
	uint32_t stuck_events;
	uint32_t setups;
};

struct bmp280 {
	struct bmp280_config cfg;
	struct drv_startup start;
	int state;
	int fail_err;
	uint64_t next_us;
	uint8_t chip_id;
	uint8_t attempts;
	bool ever_ran;
	struct bmp280_calib cal;
	uint32_t prev_adc_p, prev_adc_t;
	uint16_t stuck_run;
	bool have_last;
	struct baro_sample last;
	struct bmp280_stats stats;
};

/* Stores the configuration; no bus traffic. -EINVAL for a NULL bus. */
int bmp280_init(struct bmp280 *b, const struct bmp280_config *cfg);

/*
 * Advances set-up or reads a measurement. Returns 1 and writes *out when a
 * new sample is ready (stamped now_us), 0 when nothing is new (or a reading
 * was refused: see the stats), -errno from the bus, -ESTALE for stuck data.
 * From then on and with no more bus traffic: -ENODEV when at start-up no
 * BMP280 answered (nothing at the address, or another chip's id), -EBADMSG
 * when its calibration never made sense.
 */
int bmp280_poll(struct bmp280 *b, uint64_t now_us, struct baro_sample *out);

uint64_t bmp280_next_poll_us(const struct bmp280 *b);
bool bmp280_is_running(const struct bmp280 *b);
/* The chip id last read (0 before any). */
uint8_t bmp280_chip_id(const struct bmp280 *b);
bool bmp280_last_sample(const struct bmp280 *b, struct baro_sample *out);
const struct bmp280_stats *bmp280_stats(const struct bmp280 *b);

/*
 * Pure helpers (any thread), public for tests and simulators.
 * raw: the 24 bytes of 0x88..0x9F as read.
 */
void bmp280_calib_parse(const uint8_t raw[24], struct bmp280_calib *cal);
bool bmp280_calib_is_valid(const struct bmp280_calib *cal);
/*
 * The datasheet's compensation in floating point (8.1): pressure in Pa,
 * temperature in degC. False (outputs untouched) when the calibration makes
 * the pressure formula divide by zero.
 */
bool bmp280_compensate(const struct bmp280_calib *cal, int32_t adc_p, int32_t adc_t,
		       double *pressure_pa, double *temp_c);

#endif
