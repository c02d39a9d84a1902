/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Waypoint geometry on a local north-east plane (metres) and from WGS84
 * latitude/longitude. Pure functions; any thread.
 *
 * Positions on the plane are struct nav_ne (north, east) in metres from an
 * origin the caller picks (home, or the leg's start). lat/lon are converted
 * with an equirectangular projection about a reference point, using the WGS84
 * meridian and prime-vertical radii at the mean latitude: within a few
 * centimetres of the exact local tangent plane over the few kilometres a
 * mission spans.
 */
#ifndef FULMAR_NAV_GEO_H
#define FULMAR_NAV_GEO_H

#include <stdbool.h>

struct nav_ne {
	float n_m, e_m;
};

/* A point of a flight plan: WGS84 position and altitude above home. */
struct nav_wp {
	double lat_deg, lon_deg;
	float alt_rel_m;
};

#define NAV_EARTH_RADIUS_M 6378137.0   /* WGS84 semi-major axis */

/* North-east offset of (lat, lon) from (ref_lat, ref_lon), metres. */
struct nav_ne nav_geo_ne_from_ll(double ref_lat_deg, double ref_lon_deg, double lat_deg,
				 double lon_deg);
/* Inverse: the lat/lon at offset ne from the reference. */
void nav_geo_ll_from_ne(double ref_lat_deg, double ref_lon_deg, struct nav_ne ne, double *lat_deg,
			double *lon_deg);

/* Distance a -> b, metres. */
float nav_geo_distance_m(struct nav_ne a, struct nav_ne b);
/* Bearing a -> b, radians clockwise from north, in [0, 2 pi); 0 when a == b. */
float nav_geo_bearing_rad(struct nav_ne a, struct nav_ne b);
/* Cross-track distance of p from the line a -> b, metres, positive right of the
 * track (seen travelling a -> b). 0 when a == b. */
float nav_geo_xtrack_m(struct nav_ne a, struct nav_ne b, struct nav_ne p);
/* Along-track distance of p from a towards b, metres (negative behind a). */
float nav_geo_along_m(struct nav_ne a, struct nav_ne b, struct nav_ne p);

/* The same from lat/lon (distance and bearing from a to b, cross-track of p). */
float nav_geo_distance_ll_m(double lat_a, double lon_a, double lat_b, double lon_b);
float nav_geo_bearing_ll_rad(double lat_a, double lon_a, double lat_b, double lon_b);
float nav_geo_xtrack_ll_m(const struct nav_wp *a, const struct nav_wp *b, double lat_deg,
			  double lon_deg);

/*
 * Waypoint acceptance for a leg a -> b, optionally followed by b -> c
 * (c NULL: no next leg). Reached when p is within accept_m of b, or has
 * crossed the finish line at b: the line through b perpendicular to a -> b
 * when there is no next leg, else the bisector of the turn at b (the line
 * through b that halves the angle between the two legs), so a plane blown
 * wide of a turn still sequences at the turn.
 */
bool nav_geo_wp_reached(struct nav_ne a, struct nav_ne b, const struct nav_ne *c, struct nav_ne p,
			float accept_m);

#endif
