/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The vehicle-state topic: what the estimator knows of the aircraft, published
 * (seqlocked, see src/util/topic.h) by the main thread's estimator and read by
 * navigation, control, the vehicle's checks, telemetry and the log. Every
 * quantity has a validity flag: a reader acts only on what is valid.
 */
#ifndef FULMAR_VEHICLE_STATE_H
#define FULMAR_VEHICLE_STATE_H

#include <stdint.h>

enum vehicle_state_valid {
	VEHICLE_ATTITUDE_VALID = 1u << 0,   /* attitude and body rates */
	VEHICLE_ALTITUDE_VALID = 1u << 1,   /* height and vertical speed */
	VEHICLE_POSITION_VALID = 1u << 2,   /* horizontal position and velocity */
	VEHICLE_AIRSPEED_VALID = 1u << 3,
	VEHICLE_WIND_VALID = 1u << 4,
	VEHICLE_AIRSPEED_SYNTHETIC = 1u << 5, /* the airspeed sensor is declared unhealthy: the
	                                       * airspeed is ground velocity less the wind alone */
};

struct vehicle_state {
	uint64_t t_us;                 /* time of the estimate */
	uint32_t valid;                /* enum vehicle_state_valid bits */
	float q[4];                    /* attitude quaternion, body to NED, w x y z */
	float roll_rad, pitch_rad, yaw_rad;
	float rate_rad_s[3];           /* body rates p q r */
	double lat_deg, lon_deg;       /* WGS84 */
	float alt_msl_m;
	float alt_rel_m;               /* above home */
	float vel_ned_m_s[3];
	float airspeed_m_s;            /* the estimate: ground velocity less the wind */
	float airspeed_meas_m_s;       /* the airspeed sensor's latest reading (a gust's
					  change within a sample), NAN when no sensor is
					  in use or it has gone quiet */
	float wind_ne_m_s[2];
	float pos_sigma_m;             /* horizontal 1-sigma uncertainty */
};

#endif
