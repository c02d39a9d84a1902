/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MEAS MS5611 barometer on SPI or I2C (struct chip_bus: the chip's commands
 * are the same bytes on both).
 *
 * A state machine over a caller-owned struct ms5611; no sleeps, no clock:
 * calls take now_us (CLOCK_MONOTONIC, microseconds). Set-up is a reset
 * (2.8 ms reload, waited across calls), the PROM read (eight 2-byte reads
 * in one call, at start-up and recovery only) and its CRC4 check (AN520). Then conversions run back to back: one temperature (D2) and
 * pressure_per_temp pressures (D1), each read once its conversion time has
 * passed; every D1 is compensated with the latest D2 (first- and
 * second-order compensation of the datasheet) into a pressure sample.
 * Calls before ms5611_next_poll_us() return 0 without bus traffic, so the
 * timer thread can simply call ms5611_poll() every millisecond.
 *
 * Errors are data: a failed transfer is counted and returned, an ADC read of
 * 0 (conversion not finished, or interrupted) is counted and that conversion
 * repeated, and the last good sample stays readable with its time. A PROM
 * that fails its CRC is read again after a new reset; after 3 tries the
 * driver gives up (-EBADMSG). The same D1 word stuck_limit times in a row
 * (real pressure readings always carry noise) counts as stuck data: -ESTALE
 * and a new set-up.
 *
 * Thread: the one that owns the bus (the timer thread). No allocation.
 */
#ifndef FULMAR_DRIVERS_MS5611_H
#define FULMAR_DRIVERS_MS5611_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/chip_bus.h"
#include "drivers/sensor_sample.h"

/* I2C address with CSB low (CSB high: 0x76). */
#define MS5611_I2C_ADDR 0x77

enum ms5611_osr {
	MS5611_OSR_256 = 1,       /* 0.60 ms max conversion, 0.065 mbar rms */
	MS5611_OSR_512,           /* 1.17 ms */
	MS5611_OSR_1024,          /* 2.28 ms, 0.027 mbar: little self-heating */
	MS5611_OSR_2048,          /* 4.54 ms */
	MS5611_OSR_4096,          /* 9.04 ms, 0.012 mbar */
};

struct ms5611_config {
	struct chip_bus bus;
	enum ms5611_osr osr;          /* 0: MS5611_OSR_1024 */
	uint8_t pressure_per_temp;    /* D1 conversions per D2; 0: 4 */
	uint16_t stuck_limit;         /* identical D1 readings in a row; 0: 50 */
};

struct ms5611_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t adc_errors;          /* reads of 0: a conversion that did not finish */
	uint32_t crc_errors;
	uint32_t stuck_events;
	uint32_t setups;
};

struct ms5611 {
	struct ms5611_config cfg;
	int state;
	int fail_err;
	uint64_t next_us;
	uint32_t conv_us;
	uint16_t prom[8];
	uint8_t attempts;
	bool ever_ran;
	uint8_t converting;           /* the command of the conversion in flight */
	uint8_t d1_since_d2;
	bool have_d2;
	uint32_t d2;
	uint32_t prev_d1;
	uint16_t stuck_run;
	bool have_last;
	struct baro_sample last;
	struct ms5611_stats stats;
};

/* Stores the configuration; no bus traffic. -EINVAL for an unset bus or an unknown osr. */
int ms5611_init(struct ms5611 *b, const struct ms5611_config *cfg);

/*
 * Advances set-up or the conversion cycle. Returns 1 and writes *out when a
 * new pressure sample is ready (stamped now_us), 0 when there is nothing new,
 * -errno from the bus, -ESTALE for stuck data. From then on and with no
 * more bus traffic: -EBADMSG when the PROM never passed its CRC, -ENODEV
 * when at start-up the chip never answered (a NAK on I2C: wrong address).
 */
int ms5611_poll(struct ms5611 *b, uint64_t now_us, struct baro_sample *out);

uint64_t ms5611_next_poll_us(const struct ms5611 *b);
bool ms5611_is_running(const struct ms5611 *b);
/* The last sample handed out, with its time; false before the first. */
bool ms5611_last_sample(const struct ms5611 *b, struct baro_sample *out);
const struct ms5611_stats *ms5611_stats(const struct ms5611 *b);

/*
 * Pure helpers (any thread), public for tests and simulators.
 * prom[0..7] are the PROM words as read: prom[1..6] = C1..C6, the low nibble
 * of prom[7] the CRC.
 */
/* The AN520 CRC4 over the PROM with its CRC nibble taken as 0. */
uint8_t ms5611_prom_crc4(const uint16_t prom[8]);
/* CRC matches, and the PROM is not all zeros or all ones (no chip answering). */
bool ms5611_prom_is_valid(const uint16_t prom[8]);
/* Datasheet compensation: pressure in Pa, temperature in 0.01 degC. */
void ms5611_compensate(const uint16_t prom[8], uint32_t d1, uint32_t d2,
		       int32_t *pressure_pa, int32_t *temp_centi_c);

#endif
