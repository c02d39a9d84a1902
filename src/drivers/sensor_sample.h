/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the chip drivers hand out: one measurement in SI units, in the body
 * frame (the board's rotation already applied), stamped with the
 * CLOCK_MONOTONIC time in microseconds that the caller passed in as now_us.
 * Plain data: copied into rings and topics by whoever reads the driver.
 */
#ifndef FULMAR_DRIVERS_SENSOR_SAMPLE_H
#define FULMAR_DRIVERS_SENSOR_SAMPLE_H

#include <stdint.h>

struct imu_sample {
	uint64_t t_us;
	float accel_m_s2[3];
	float gyro_rad_s[3];
	float temp_c;             /* die temperature */
};

struct mag_sample {
	uint64_t t_us;
	float field_ut[3];        /* microtesla (1 gauss = 100 uT) */
};

struct baro_sample {
	uint64_t t_us;
	float pressure_pa;
	float temp_c;
};

struct airspeed_sample {
	uint64_t t_us;
	float diff_pressure_pa;   /* port 1 minus port 2, signed as the sensor reports it */
	float temp_c;
};

struct battery_sample {
	uint64_t t_us;
	float voltage_v;
	float current_a;               /* NAN when the monitor has no current sense */
	float consumed_mah;            /* NAN when unknown */
};

/* What a rangefinder's reading says (struct range_sample.reading). */
enum range_reading {
	RANGE_READING_OK = 1,          /* distance_m is a measurement */
	RANGE_READING_NO_RETURN,       /* nothing the sensor trusts came back (beyond its reach, a
	                                * return too weak): no distance, distance_m is 0 */
};

/* One reading of a rangefinder, along its beam (tilt is the reader's business). */
struct range_sample {
	uint64_t t_us;
	float distance_m;              /* along the beam; 0 unless reading is RANGE_READING_OK */
	float min_m, max_m;            /* the source's own limits (HIL's DISTANCE_SENSOR); 0: none,
	                                * RNGFND1_MIN_CM and RNGFND1_MAX_CM apply */
	int8_t quality_pct;            /* signal quality 0..100 %; -1 unknown */
	uint8_t reading;               /* enum range_reading */
	uint16_t raw;                  /* the device's own number (cm for all three drivers), for
	                                * telling a stuck sensor from a still one */
};

/* What a sample is, where samples of every kind travel together (the sensor hub). */
enum sensor_kind {
	SENSOR_IMU = 1,
	SENSOR_BARO,
	SENSOR_MAG,
	SENSOR_AIRSPEED,
	SENSOR_GPS,
	SENSOR_BATTERY,
	SENSOR_RC,
	SENSOR_RANGE,
	SENSOR_KIND_COUNT,
};

#endif
