/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A GNSS position/velocity solution, as the u-blox (UBX NAV-PVT) and NMEA
 * decoders produce it. Plain data; copied into the GPS topic by the thread
 * that reads the receiver (the uart thread).
 */
#ifndef FULMAR_DRIVERS_GPS_FIX_H
#define FULMAR_DRIVERS_GPS_FIX_H

#include <stdbool.h>
#include <stdint.h>

enum gps_fix_type {
	GPS_FIX_NONE = 1,         /* no usable position (also: receiver says the fix is not OK) */
	GPS_FIX_2D,
	GPS_FIX_3D,
};

struct gps_utc {
	uint16_t year;
	uint8_t month, day, hour, min, sec;
	int32_t nano;             /* fraction of the second, ns (may be negative in NAV-PVT) */
	bool date_valid;
	bool time_valid;
};

struct gps_fix {
	uint64_t t_us;            /* caller's clock when the message completed */
	enum gps_fix_type fix;
	uint8_t num_sv;
	double lat_deg;
	double lon_deg;
	float alt_msl_m;
	float alt_ellipsoid_m;    /* NAN when the source does not give it */
	float vel_ned_m_s[3];
	bool vel_down_valid;      /* NMEA has no vertical velocity: vel_ned_m_s[2] is 0 */
	float ground_speed_m_s;
	float course_deg;         /* over ground, 0..360 */
	float h_acc_m;            /* NAN when unknown (NMEA) */
	float v_acc_m;
	float s_acc_m_s;
	float dop;                /* PDOP (UBX) or HDOP (NMEA) */
	uint32_t itow_ms;         /* GPS time of week (UBX only) */
	struct gps_utc utc;
};

#endif
