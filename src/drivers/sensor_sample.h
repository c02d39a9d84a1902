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

/* What a sample is, where samples of every kind travel together (the sensor hub). */
enum sensor_kind {
	SENSOR_IMU = 1,
	SENSOR_BARO,
	SENSOR_MAG,
	SENSOR_AIRSPEED,
	SENSOR_GPS,
	SENSOR_BATTERY,
	SENSOR_RC,
	SENSOR_KIND_COUNT,
};

#endif
