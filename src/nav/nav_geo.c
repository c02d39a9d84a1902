// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/nav_geo.h"

#include <math.h>

#include "nav/nav_math.h"

#define DEG2RAD_D (3.14159265358979323846 / 180.0)

/* WGS84 radii of curvature at a latitude: meridian (north) and prime
 * vertical (east, times cos(lat) for the parallel). */
static void radii(double lat_rad, double *m, double *n)
{
	const double e2 = 6.69437999014e-3;
	double s = sin(lat_rad);
	double w = 1.0 - e2 * s * s;
	*n = NAV_EARTH_RADIUS_M / sqrt(w);
	*m = NAV_EARTH_RADIUS_M * (1.0 - e2) / (w * sqrt(w));
}

struct nav_ne nav_geo_ne_from_ll(double ref_lat_deg, double ref_lon_deg, double lat_deg,
				 double lon_deg)
{
	double dlon = lon_deg - ref_lon_deg;
	/* the short way round the antimeridian */
	if (dlon > 180.0)
		dlon -= 360.0;
	else if (dlon < -180.0)
		dlon += 360.0;
	double mid_lat = 0.5 * (lat_deg + ref_lat_deg) * DEG2RAD_D;
	double m, n;
	radii(mid_lat, &m, &n);
	return (struct nav_ne){
		(float)((lat_deg - ref_lat_deg) * DEG2RAD_D * m),
		(float)(dlon * DEG2RAD_D * n * cos(mid_lat)),
	};
}

void nav_geo_ll_from_ne(double ref_lat_deg, double ref_lon_deg, struct nav_ne ne, double *lat_deg,
			double *lon_deg)
{
	double m, n;
	radii(ref_lat_deg * DEG2RAD_D, &m, &n);
	double lat = ref_lat_deg + (double)ne.n_m / (m * DEG2RAD_D);
	/* once more at the mid latitude, as the forward conversion uses */
	double mid_lat = 0.5 * (lat + ref_lat_deg) * DEG2RAD_D;
	radii(mid_lat, &m, &n);
	lat = ref_lat_deg + (double)ne.n_m / (m * DEG2RAD_D);
	mid_lat = 0.5 * (lat + ref_lat_deg) * DEG2RAD_D;
	*lat_deg = lat;
	*lon_deg = ref_lon_deg + (double)ne.e_m / (n * DEG2RAD_D * cos(mid_lat));
}

float nav_geo_distance_m(struct nav_ne a, struct nav_ne b)
{
	return hypotf(b.n_m - a.n_m, b.e_m - a.e_m);
}

float nav_geo_bearing_rad(struct nav_ne a, struct nav_ne b)
{
	float dn = b.n_m - a.n_m, de = b.e_m - a.e_m;
	if (dn == 0.0f && de == 0.0f)
		return 0.0f;
	return nav_wrap_2pi(atan2f(de, dn));
}

float nav_geo_xtrack_m(struct nav_ne a, struct nav_ne b, struct nav_ne p)
{
	float len = nav_geo_distance_m(a, b);
	if (len < 1e-3f)
		return 0.0f;
	float un = (b.n_m - a.n_m) / len, ue = (b.e_m - a.e_m) / len;
	/* (a->p) x u: positive when p lies to the right of the track */
	return (p.e_m - a.e_m) * un - (p.n_m - a.n_m) * ue;
}

float nav_geo_along_m(struct nav_ne a, struct nav_ne b, struct nav_ne p)
{
	float len = nav_geo_distance_m(a, b);
	if (len < 1e-3f)
		return 0.0f;
	return ((p.n_m - a.n_m) * (b.n_m - a.n_m) + (p.e_m - a.e_m) * (b.e_m - a.e_m)) / len;
}

float nav_geo_distance_ll_m(double lat_a, double lon_a, double lat_b, double lon_b)
{
	struct nav_ne z = { 0.0f, 0.0f };
	return nav_geo_distance_m(z, nav_geo_ne_from_ll(lat_a, lon_a, lat_b, lon_b));
}

float nav_geo_bearing_ll_rad(double lat_a, double lon_a, double lat_b, double lon_b)
{
	struct nav_ne z = { 0.0f, 0.0f };
	return nav_geo_bearing_rad(z, nav_geo_ne_from_ll(lat_a, lon_a, lat_b, lon_b));
}

float nav_geo_xtrack_ll_m(const struct nav_wp *a, const struct nav_wp *b, double lat_deg,
			  double lon_deg)
{
	struct nav_ne z = { 0.0f, 0.0f };
	return nav_geo_xtrack_m(z, nav_geo_ne_from_ll(a->lat_deg, a->lon_deg, b->lat_deg, b->lon_deg),
				nav_geo_ne_from_ll(a->lat_deg, a->lon_deg, lat_deg, lon_deg));
}

bool nav_geo_wp_reached(struct nav_ne a, struct nav_ne b, const struct nav_ne *c, struct nav_ne p,
			float accept_m)
{
	if (nav_geo_distance_m(p, b) <= accept_m)
		return true;
	float len1 = nav_geo_distance_m(a, b);
	if (len1 < 1e-3f)
		return true;
	/* normal of the finish line: the leg's direction, or the mean of both legs' */
	float nn = (b.n_m - a.n_m) / len1, ne = (b.e_m - a.e_m) / len1;
	if (c) {
		float len2 = nav_geo_distance_m(b, *c);
		if (len2 >= 1e-3f) {
			float sn = nn + (c->n_m - b.n_m) / len2, se = ne + (c->e_m - b.e_m) / len2;
			float sl = hypotf(sn, se);
			/* a full reversal has no bisector: keep the perpendicular */
			if (sl > 1e-3f) {
				nn = sn / sl;
				ne = se / sl;
			}
		}
	}
	return (p.n_m - b.n_m) * nn + (p.e_m - b.e_m) * ne >= 0.0f;
}
