/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SYS_STATUS's three sensor masks (MAV_SYS_STATUS_SENSOR bits: present,
 * enabled, healthy) from the real state of each sensor and subsystem, filled
 * as ArduPlane fills them, so that a ground station's health view (and
 * MAVProxy's "fence breach", QGroundControl's "ready to fly") reads true:
 *
 * - gyro, accel, baro: present and enabled always (every board has them);
 *   healthy while their samples come (within GCS_HEALTH_FAST_US).
 * - compass, airspeed: present and enabled once a sample has come; healthy
 *   while they come.
 * - GPS: present and enabled once the receiver has spoken; healthy with a 3D
 *   fix no older than GCS_HEALTH_GPS_US.
 * - RC receiver: present and enabled once a frame has come; healthy unless
 *   the RC is bad (frames stopped or throttle under THR_FS_VALUE).
 * - AHRS: present and enabled always; healthy with an attitude estimate.
 * - controllers (rate, attitude, yaw, altitude, position): present always,
 *   enabled as the mode flies them (none in MANUAL), healthy.
 * - motor outputs: present with servo outputs, enabled while armed, healthy.
 * - logging: present and enabled when LOG_BACKEND_TYPE asks for a log;
 *   healthy while the log is open and writing.
 * - battery: present and enabled once the monitor has spoken; healthy while
 *   it speaks (within GCS_HEALTH_BATTERY_US) and no battery failsafe is on.
 * - rangefinder (LASER_POSITION): present and enabled when RNGFND1_TYPE
 *   names one; healthy while its readings come (ArduPilot's "has data",
 *   in range or not).
 * - pre-arm checks: present and enabled always; healthy while they pass (or armed).
 * - geofence: present when FENCE_ENABLE is set or a fence list is stored,
 *   enabled with FENCE_ENABLE, healthy while not breached (ArduPilot's bit
 *   means "not breached": a clear bit reads as a breach, so it is set when
 *   there is no fence at all).
 *
 * On a board, the drivers' account of the devices they drive is combined in:
 * present and enabled as the board says, healthy only when both say so.
 *
 * Pure: times are arguments. Main thread.
 */
#ifndef FULMAR_MAVLINK_GCS_HEALTH_H
#define FULMAR_MAVLINK_GCS_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "vehicle/vehicle.h"

/* MAV_SYS_STATUS_SENSOR (common.xml) */
enum {
	GCS_SENSOR_GYRO = 0x1,
	GCS_SENSOR_ACCEL = 0x2,
	GCS_SENSOR_MAG = 0x4,
	GCS_SENSOR_BARO = 0x8,
	GCS_SENSOR_AIRSPEED = 0x10,
	GCS_SENSOR_GPS = 0x20,
	GCS_SENSOR_LASER_POSITION = 0x100,   /* the rangefinder */
	GCS_SENSOR_RATE_CONTROL = 0x400,
	GCS_SENSOR_ATTITUDE_STAB = 0x800,
	GCS_SENSOR_YAW_POSITION = 0x1000,
	GCS_SENSOR_Z_ALTITUDE = 0x2000,
	GCS_SENSOR_XY_POSITION = 0x4000,
	GCS_SENSOR_MOTOR_OUTPUTS = 0x8000,
	GCS_SENSOR_RC_RECEIVER = 0x10000,
	GCS_SENSOR_GEOFENCE = 0x100000,
	GCS_SENSOR_AHRS = 0x200000,
	GCS_SENSOR_LOGGING = 0x1000000,
	GCS_SENSOR_BATTERY = 0x2000000,
	GCS_SENSOR_PREARM_CHECK = 0x10000000,
};

#define GCS_HEALTH_FAST_US 500000u       /* IMU, baro, compass, airspeed */
#define GCS_HEALTH_GPS_US 2000000u       /* a 1 Hz receiver misses one fix */
#define GCS_HEALTH_BATTERY_US 5000000u

/* The latest sample of each sensor, on the samples' clock (0: none ever). */
struct gcs_health_in {
	uint64_t now_us;               /* on the same clock */
	uint64_t imu_us, baro_us, mag_us, airspeed_us, gps_us, battery_us, rc_us;
	uint8_t gps_fix_type;          /* GPS_FIX_TYPE of the latest fix */
	bool airspeed_disabled;        /* the estimator's health check declared the pitot
	                                  unhealthy: present, not enabled, not healthy
	                                  (ArduPlane: ARSPD_USE set to 0) */
	bool rc_bad;                   /* frames stopped, or throttle under THR_FS_VALUE */
	bool attitude_valid;           /* the estimator has an attitude */
	bool servo_outputs;            /* the board drives servos */
	bool log_wanted, log_ok;       /* LOG_BACKEND_TYPE != 0; the log open and writing */
	bool battery_failsafe;
	bool rangefinder, rangefinder_data;  /* RNGFND1_TYPE set; a reading within its time-out */
	bool prearm_ok;                /* the pre-arm checks pass */
	bool armed;
	enum vehicle_kind kind;
	uint32_t mode;                  /* the kind's */
	bool fence_present, fence_enabled, fence_breached;
	/* A board's drivers' own account (board_io_sensor_bits; all 0 in HIL): a device
	 * it drives is present and enabled whether it has spoken or not, and healthy
	 * only while the driver says so too. */
	uint32_t board_present, board_enabled, board_health;
};

struct gcs_health {
	uint32_t present, enabled, health;
};

void gcs_health_bits(const struct gcs_health_in *in, struct gcs_health *out);

#endif
