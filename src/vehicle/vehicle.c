// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/vehicle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NEED_ATT VEHICLE_ATTITUDE_VALID
#define NEED_ALT (VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID)
#define NEED_POS (VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID)

/* What each mode needs from the estimator (and home, and the mission) before
 * it can fly, and whether the vehicle may arm in it. */
struct mode_def {
	uint32_t number;
	const char *name;
	uint32_t needs;
	bool needs_home, needs_mission, arms;
};

static const struct mode_def plane_modes[] = {
	{ PLANE_MANUAL, "MANUAL", 0, false, false, true },
	{ PLANE_CIRCLE, "CIRCLE", NEED_ALT, false, false, true },
	{ PLANE_STABILIZE, "STABILIZE", NEED_ATT, false, false, true },
	{ PLANE_FBWA, "FBWA", NEED_ATT, false, false, true },
	{ PLANE_FBWB, "FBWB", NEED_ALT, false, false, true },
	{ PLANE_CRUISE, "CRUISE", NEED_POS, false, false, true },
	{ PLANE_AUTO, "AUTO", NEED_POS, true, true, true },
	{ PLANE_RTL, "RTL", NEED_POS, true, false, true },
	{ PLANE_LOITER, "LOITER", NEED_POS, false, false, true },
	{ PLANE_TAKEOFF, "TAKEOFF", NEED_POS, false, false, true },
	{ PLANE_GUIDED, "GUIDED", NEED_POS, false, false, true },
	{ PLANE_INITIALISING, "INITIALISING", 0, false, false, true },
};

/* ArduCopter's: LAND lands where it is, on the heights alone when there is no
 * position; AUTO, RTL, LAND and BRAKE do not arm (its allows_arming). */
static const struct mode_def copter_modes[] = {
	{ COPTER_STABILIZE, "STABILIZE", NEED_ATT, false, false, true },
	{ COPTER_ALT_HOLD, "ALT_HOLD", NEED_ALT, false, false, true },
	{ COPTER_AUTO, "AUTO", NEED_POS, true, true, false },
	{ COPTER_GUIDED, "GUIDED", NEED_POS, false, false, true },
	{ COPTER_LOITER, "LOITER", NEED_POS, false, false, true },
	{ COPTER_RTL, "RTL", NEED_POS, true, false, false },
	{ COPTER_LAND, "LAND", NEED_ALT, false, false, false },
	{ COPTER_POSHOLD, "POSHOLD", NEED_POS, false, false, true },
	{ COPTER_BRAKE, "BRAKE", NEED_POS, false, false, false },
};

static const struct mode_def *find(enum vehicle_kind kind, uint32_t number)
{
	const struct mode_def *t = kind == VEHICLE_COPTER ? copter_modes : plane_modes;
	size_t n = kind == VEHICLE_COPTER ? sizeof(copter_modes) / sizeof(copter_modes[0]) :
					    sizeof(plane_modes) / sizeof(plane_modes[0]);
	for (size_t i = 0; i < n; i++)
		if (t[i].number == number)
			return &t[i];
	return NULL;
}

void vehicle_init(struct vehicle *v, enum vehicle_kind kind)
{
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->mode = kind == VEHICLE_COPTER ? COPTER_STABILIZE : PLANE_INITIALISING;
	v->initialising = true;
}

const char *vehicle_mode_name(enum vehicle_kind kind, uint32_t mode)
{
	const struct mode_def *m = find(kind, mode);
	return m ? m->name : NULL;
}

uint32_t vehicle_role_mode(enum vehicle_kind kind, enum vehicle_role role)
{
	bool copter = kind == VEHICLE_COPTER;
	switch (role) {
	case VEHICLE_ROLE_AUTO:
		return copter ? COPTER_AUTO : PLANE_AUTO;
	case VEHICLE_ROLE_RTL:
		return copter ? COPTER_RTL : PLANE_RTL;
	case VEHICLE_ROLE_GUIDED:
		break;
	}
	return copter ? COPTER_GUIDED : PLANE_GUIDED;
}

uint8_t vehicle_mav_type(enum vehicle_kind kind, int frame_class)
{
	if (kind != VEHICLE_COPTER)
		return 1;    /* MAV_TYPE_FIXED_WING */
	switch (frame_class) {
	case 2:          /* hexa */
	case 5:          /* Y6 */
		return 13;   /* MAV_TYPE_HEXAROTOR */
	case 3:          /* octa */
	case 4:          /* octaquad */
		return 14;   /* MAV_TYPE_OCTOROTOR */
	default:         /* quad, and a class not set */
		return 2;    /* MAV_TYPE_QUADROTOR */
	}
}

void vehicle_update(struct vehicle *v, uint32_t valid, uint16_t mission_count)
{
	v->valid = valid;
	v->mission_count = mission_count;
	/* Initialised once there is an attitude to fly by; a plane's first mode is MANUAL. */
	if (v->initialising && (valid & VEHICLE_ATTITUDE_VALID)) {
		v->initialising = false;
		if (v->kind == VEHICLE_PLANE)
			v->mode = PLANE_MANUAL;
	}
}

static const char *missing(uint32_t lacking)
{
	if (lacking & VEHICLE_ATTITUDE_VALID)
		return "no attitude estimate";
	if (lacking & VEHICLE_ALTITUDE_VALID)
		return "no altitude estimate";
	return "no position estimate";
}

int vehicle_set_mode(struct vehicle *v, uint32_t mode, char *why, size_t why_len)
{
	const struct mode_def *m = find(v->kind, mode);
	if (!m || (v->kind == VEHICLE_PLANE && mode == PLANE_INITIALISING)) {
		snprintf(why, why_len, "no flight mode %u", mode);
		return -EINVAL;
	}
	if (v->initialising) {
		snprintf(why, why_len, "%s refused: still initialising (%s)", m->name,
			 missing(~v->valid & VEHICLE_ATTITUDE_VALID));
		return -EPERM;
	}
	uint32_t lacking = m->needs & ~v->valid;
	if (lacking) {
		snprintf(why, why_len, "%s refused: %s", m->name, missing(lacking));
		return -EPERM;
	}
	if (m->needs_home && !v->home_set) {
		snprintf(why, why_len, "%s refused: home not set", m->name);
		return -EPERM;
	}
	if (m->needs_mission && v->mission_count < 2) {
		snprintf(why, why_len, "%s refused: no mission", m->name);
		return -EPERM;
	}
	v->mode = mode;
	return 0;
}

int vehicle_arm(struct vehicle *v, bool arm, bool force, uint32_t arming_check, char *why,
		size_t why_len)
{
	if (!arm) {
		v->armed = false;
		return 0;
	}
	if (v->armed)
		return 0;
	if (v->initialising) {
		snprintf(why, why_len, "Arm: still initialising (%s)",
			 missing(~v->valid & VEHICLE_ATTITUDE_VALID));
		return -EPERM;
	}
	const struct mode_def *m = find(v->kind, v->mode);
	if (m && !m->arms) {
		snprintf(why, why_len, "Arm: mode not armable");
		return -EPERM;
	}
	if (!force && arming_check) {
		uint32_t lacking = (VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID |
				    (m ? m->needs : 0)) & ~v->valid;
		if (lacking) {
			snprintf(why, why_len, "PreArm: %s", missing(lacking));
			return -EPERM;
		}
		if (v->prearm_problem) {
			snprintf(why, why_len, "PreArm: %s", v->prearm_problem);
			return -EPERM;
		}
	}
	v->armed = true;
	return 0;
}

int vehicle_set_guided(struct vehicle *v, double lat_deg, double lon_deg, float alt_rel_m,
		       char *why, size_t why_len)
{
	if (!(fabs(lat_deg) <= 90.0 && fabs(lon_deg) <= 180.0) || (lat_deg == 0.0 && lon_deg == 0.0) ||
	    !isfinite(alt_rel_m) || alt_rel_m < -1000.0f || alt_rel_m > 10000.0f) {
		snprintf(why, why_len, "Guided: not a position to fly to");
		return -EINVAL;
	}
	v->guided.lat_deg = lat_deg;
	v->guided.lon_deg = lon_deg;
	v->guided.alt_rel_m = alt_rel_m;
	v->guided.generation++;
	return 0;
}

int vehicle_set_takeoff(struct vehicle *v, float alt_rel_m, char *why, size_t why_len)
{
	const char *no = NULL;
	int rc = -EPERM;
	if (v->kind != VEHICLE_COPTER) {
		no = "Takeoff: the plane takes off in AUTO or TAKEOFF";
		rc = -EINVAL;
	} else if (!(alt_rel_m > 0.0f && alt_rel_m <= 10000.0f)) {
		no = "Takeoff: not a height";
		rc = -EINVAL;
	} else if (!v->armed) {
		no = "Takeoff: not armed";
	} else if (v->mode != COPTER_GUIDED) {
		no = "Takeoff: not in GUIDED";
	} else if (!v->landed) {
		no = "Takeoff: flying already";
	}
	if (no) {
		snprintf(why, why_len, "%s", no);
		return rc;
	}
	v->takeoff.alt_rel_m = alt_rel_m;
	v->takeoff.generation++;
	return 0;
}
