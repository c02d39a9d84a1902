// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/vehicle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What each mode needs from the estimator (and the mission) before it can fly. */
static const struct mode_def {
	uint32_t number;
	const char *name;
	uint32_t needs;
	bool needs_mission;
} modes[] = {
	{ PLANE_MANUAL, "MANUAL", 0, false },
	{ PLANE_CIRCLE, "CIRCLE", VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID, false },
	{ PLANE_STABILIZE, "STABILIZE", VEHICLE_ATTITUDE_VALID, false },
	{ PLANE_FBWA, "FBWA", VEHICLE_ATTITUDE_VALID, false },
	{ PLANE_FBWB, "FBWB", VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID, false },
	{ PLANE_CRUISE, "CRUISE",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, false },
	{ PLANE_AUTO, "AUTO",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, true },
	{ PLANE_RTL, "RTL",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, false },
	{ PLANE_LOITER, "LOITER",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, false },
	{ PLANE_TAKEOFF, "TAKEOFF",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, false },
	{ PLANE_GUIDED, "GUIDED",
	  VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID, false },
	{ PLANE_INITIALISING, "INITIALISING", 0, false },
};

static const struct mode_def *find(uint32_t number)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].number == number)
			return &modes[i];
	return NULL;
}

void vehicle_init(struct vehicle *v)
{
	memset(v, 0, sizeof(*v));
	v->mode = PLANE_INITIALISING;
}

const char *vehicle_mode_name(uint32_t mode)
{
	const struct mode_def *m = find(mode);
	return m ? m->name : NULL;
}

void vehicle_update(struct vehicle *v, uint32_t valid, uint16_t mission_count)
{
	v->valid = valid;
	v->mission_count = mission_count;
	/* Initialised once there is an attitude to fly by; the first mode is MANUAL. */
	if (v->mode == PLANE_INITIALISING && (valid & VEHICLE_ATTITUDE_VALID))
		v->mode = PLANE_MANUAL;
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
	const struct mode_def *m = find(mode);
	if (!m || mode == PLANE_INITIALISING) {
		snprintf(why, why_len, "no flight mode %u", mode);
		return -EINVAL;
	}
	if (v->mode == PLANE_INITIALISING) {
		snprintf(why, why_len, "%s refused: still initialising (%s)", m->name,
			 missing(~v->valid & VEHICLE_ATTITUDE_VALID));
		return -EPERM;
	}
	uint32_t lacking = m->needs & ~v->valid;
	if (lacking) {
		snprintf(why, why_len, "%s refused: %s", m->name, missing(lacking));
		return -EPERM;
	}
	if ((mode == PLANE_AUTO || mode == PLANE_RTL) && !v->home_set) {
		snprintf(why, why_len, "%s refused: home not set", m->name);
		return -EPERM;
	}
	if (m->needs_mission && v->mission_count < 2) {
		snprintf(why, why_len, "%s refused: no mission", m->name);
		return -EPERM;
	}
	v->mode = (enum plane_mode)mode;
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
	if (v->mode == PLANE_INITIALISING) {
		snprintf(why, why_len, "Arm: still initialising (%s)",
			 missing(~v->valid & VEHICLE_ATTITUDE_VALID));
		return -EPERM;
	}
	if (!force && arming_check) {
		const struct mode_def *m = find(v->mode);
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
