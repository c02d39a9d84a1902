// SPDX-License-Identifier: GPL-3.0-or-later
/* WGS84 geodetic coordinates and the local tangent plane (NED) around a home. */
#ifndef FULMAR_SIM_GEO_H
#define FULMAR_SIM_GEO_H

#include "sim_math.h"

struct sim_lla {
	double lat_deg;
	double lon_deg;
	double alt_m;      /* height above the WGS84 ellipsoid (used as MSL here) */
};

/* Default home: the Canberra Model Aircraft Club (CMAC) flying field, Canberra,
 * Australia, -35.363261 S 149.165230 E, 584 m: a real model airfield, the
 * location many open autopilot simulators start at. */
#define SIM_HOME_DEFAULT_LAT_DEG (-35.363261)
#define SIM_HOME_DEFAULT_LON_DEG 149.165230
#define SIM_HOME_DEFAULT_ALT_M 584.0

struct sim_lla sim_home_default(void);
/* NED offset from home (home = ground level, z down) to WGS84, exact through ECEF. */
struct sim_lla sim_ned_to_lla(const struct sim_lla *home, struct v3 ned_m);
/* Inverse of sim_ned_to_lla. */
struct v3 sim_lla_to_ned(const struct sim_lla *home, const struct sim_lla *p);

#endif
