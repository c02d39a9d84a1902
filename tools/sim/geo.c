// SPDX-License-Identifier: GPL-3.0-or-later
#include "geo.h"

#include <math.h>

/* WGS84 (NIMA TR8350.2) */
#define WGS84_A 6378137.0
#define WGS84_F (1.0 / 298.257223563)
#define DEG (M_PI / 180.0)

struct sim_lla sim_home_default(void)
{
	return (struct sim_lla){ SIM_HOME_DEFAULT_LAT_DEG, SIM_HOME_DEFAULT_LON_DEG,
				 SIM_HOME_DEFAULT_ALT_M };
}

static struct v3 lla_to_ecef(const struct sim_lla *p)
{
	double e2 = WGS84_F * (2.0 - WGS84_F);
	double lat = p->lat_deg * DEG, lon = p->lon_deg * DEG;
	double n = WGS84_A / sqrt(1.0 - e2 * sin(lat) * sin(lat));
	return v3_make((n + p->alt_m) * cos(lat) * cos(lon), (n + p->alt_m) * cos(lat) * sin(lon),
		       (n * (1.0 - e2) + p->alt_m) * sin(lat));
}

static struct sim_lla ecef_to_lla(struct v3 e)
{
	double e2 = WGS84_F * (2.0 - WGS84_F);
	double lon = atan2(e.y, e.x);
	double r = sqrt(e.x * e.x + e.y * e.y);
	/* Fixed-point iteration on latitude; converges to well below a millimetre
	 * in a few rounds near the surface. */
	double lat = atan2(e.z, r * (1.0 - e2));
	double h = 0.0;
	for (int i = 0; i < 6; i++) {
		double n = WGS84_A / sqrt(1.0 - e2 * sin(lat) * sin(lat));
		h = r / cos(lat) - n;
		lat = atan2(e.z, r * (1.0 - e2 * n / (n + h)));
	}
	return (struct sim_lla){ lat / DEG, lon / DEG, h };
}

struct sim_lla sim_ned_to_lla(const struct sim_lla *home, struct v3 ned)
{
	double lat = home->lat_deg * DEG, lon = home->lon_deg * DEG;
	double sl = sin(lat), cl = cos(lat), so = sin(lon), co = cos(lon);
	struct v3 o = lla_to_ecef(home);
	/* Columns of the NED-to-ECEF rotation: north, east, down. */
	struct v3 dx = v3_make(-sl * co * ned.x - so * ned.y - cl * co * ned.z,
			       -sl * so * ned.x + co * ned.y - cl * so * ned.z,
			       cl * ned.x - sl * ned.z);
	return ecef_to_lla(v3_add(o, dx));
}

struct v3 sim_lla_to_ned(const struct sim_lla *home, const struct sim_lla *p)
{
	double lat = home->lat_deg * DEG, lon = home->lon_deg * DEG;
	double sl = sin(lat), cl = cos(lat), so = sin(lon), co = cos(lon);
	struct v3 d = v3_sub(lla_to_ecef(p), lla_to_ecef(home));
	return v3_make(-sl * co * d.x - sl * so * d.y + cl * d.z, -so * d.x + co * d.y,
		       -cl * co * d.x - cl * so * d.y - sl * d.z);
}
