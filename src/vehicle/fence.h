/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The geofence and rally points, as ArduPlane keeps them: the fence is a list
 * of mission items (mission_type 1) holding inclusion and exclusion polygons
 * (MAV_CMD_NAV_FENCE_POLYGON_VERTEX_*: one item per vertex, param1 the
 * polygon's vertex count), inclusion and exclusion circles
 * (MAV_CMD_NAV_FENCE_CIRCLE_*: param1 the radius in metres) and a return
 * point (MAV_CMD_NAV_FENCE_RETURN_POINT); rally points are a list of
 * MAV_CMD_NAV_RALLY_POINT (mission_type 2).
 *
 * Breaches are judged on a flat-earth projection about home (nav_geo's), by
 * fence type (FENCE_TYPE's bits): the altitude ceiling and floor above home,
 * the FENCE_RADIUS circle about home, and the fence list's polygons and
 * circles, which are all FENCE_TYPE's "polygon" bit as in ArduPilot. A point
 * must be inside every inclusion polygon and circle and outside every
 * exclusion one. The margin (FENCE_MARGIN) marks a point still inside but
 * closer to a boundary than it: a warning, not a breach.
 *
 * Pure functions; the caller (plane_step) holds the breach state.
 */
#ifndef FULMAR_VEHICLE_FENCE_H
#define FULMAR_VEHICLE_FENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "mission/mission.h"
#include "nav/nav_geo.h"

/* FENCE_TYPE bits (ArduPilot's AC_FENCE_TYPE_*) */
enum {
	FENCE_TYPE_ALT_MAX = 1,
	FENCE_TYPE_CIRCLE = 2,
	FENCE_TYPE_POLYGON = 4,
	FENCE_TYPE_ALT_MIN = 8,
};

/* FENCE_ACTION (ArduPlane's values; the others are refused by the parameter's range) */
enum {
	FENCE_ACTION_REPORT = 0,
	FENCE_ACTION_RTL = 1,
	FENCE_ACTION_GUIDED = 6,
	FENCE_ACTION_GUIDED_THR_PASS = 7,
	FENCE_ACTION_AUTOLAND_OR_RTL = 8,
};

/* MAV_CMD of the fence and rally lists */
enum {
	FENCE_CMD_RETURN_POINT = 5000,
	FENCE_CMD_POLYGON_INCLUSION = 5001,
	FENCE_CMD_POLYGON_EXCLUSION = 5002,
	FENCE_CMD_CIRCLE_INCLUSION = 5003,
	FENCE_CMD_CIRCLE_EXCLUSION = 5004,
	RALLY_CMD_POINT = 5100,
};

/* MAV_MISSION_RESULT values the validators return */
enum {
	FENCE_RESULT_OK = 0,
	FENCE_RESULT_UNSUPPORTED_FRAME = 2,
	FENCE_RESULT_UNSUPPORTED = 3,
	FENCE_RESULT_INVALID = 5,
	FENCE_RESULT_INVALID_PARAM1 = 6,
	FENCE_RESULT_INVALID_X = 10,
	FENCE_RESULT_INVALID_Y = 11,
};

#define FENCE_MAX_ITEMS 100     /* vertices, circles and the return point */
#define RALLY_MAX_ITEMS 20
#define FENCE_MIN_VERTICES 3

/* Field names are ArduPlane's parameter names in lower case. */
struct fence_params {
	float fence_enable;       /* 0/1 */
	float fence_type;         /* FENCE_TYPE_* bits */
	float fence_action;       /* FENCE_ACTION_* */
	float fence_alt_max;      /* m above home */
	float fence_alt_min;      /* m above home */
	float fence_radius;       /* m from home */
	float fence_margin;       /* m */
	float rally_limit_km;     /* 0: no limit */
	float rally_incl_home;    /* 1: home is a rally point too */
};

void fence_params_default(struct fence_params *fp);

/* MAVLink's FENCE_BREACH of a set of FENCE_TYPE bits: 0 none, 1 floor, 2 ceiling, 3 boundary. */
uint8_t fence_breach_type(uint8_t types);

/*
 * One uploaded item on its own: FENCE_RESULT_OK or the MAV_MISSION_RESULT that
 * refuses it (a command of another list, a frame that is not global, a place
 * that is not on earth, a polygon of fewer than 3 vertices, a circle without
 * a radius).
 */
int fence_check_item(const struct mission_item *it);
int rally_check_item(const struct mission_item *it);
/*
 * The whole fence list: each polygon's vertices consecutive, of one kind and
 * as many as each says (param1), at most one return point. FENCE_RESULT_OK, or
 * FENCE_RESULT_INVALID with the first bad item in *bad. Self-intersecting
 * polygons are not looked for: they are judged by the even-odd rule.
 */
int fence_validate(const struct mission *fence, uint16_t *bad);

/* Whether p is inside the polygon of n (>= 1) vertices (even-odd rule). */
bool fence_point_in_polygon(const struct nav_ne *v, unsigned int n, struct nav_ne p);
/* The distance from p to the nearest edge of the polygon. */
float fence_polygon_distance_m(const struct nav_ne *v, unsigned int n, struct nav_ne p);

/*
 * The FENCE_TYPE bits breached at pos (altitude above home) with home at
 * home, and in *margin those within FENCE_MARGIN of a boundary but not
 * breached. fence may be NULL (no list) and is taken as validated; what is
 * not, it skips.
 */
uint8_t fence_breaches(const struct fence_params *fp, const struct mission *fence,
		       const struct nav_wp *home, const struct nav_wp *pos, uint8_t *margin);

/* The fence list's return point (altitude above home), if it has one. */
bool fence_return_point(const struct mission *fence, float home_alt_msl_m, struct nav_wp *out);

/*
 * Where RTL goes, as ArduPlane's rally library picks: the rally point nearest
 * to pos; home instead when RALLY_INCL_HOME and home is nearer, or when
 * RALLY_LIMIT_KM is set, every rally point is farther than it and home is
 * nearer. Returns true and the rally point (altitude above home) in *out, or
 * false for home.
 */
bool rally_select(const struct fence_params *fp, const struct mission *rally,
		  const struct nav_wp *home, float home_alt_msl_m, const struct nav_wp *pos,
		  struct nav_wp *out, uint16_t *index);

#endif
