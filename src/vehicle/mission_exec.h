/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Mission execution (AUTO): walks the mission's items and sets navigation's
 * task for each NAV item, runs the DO items between them, and says which item
 * was reached. Pure; owned by the main thread. Call mexec_update after every
 * nav_update with that update's output.
 *
 * Items flown: NAV_TAKEOFF, NAV_WAYPOINT, NAV_LOITER_UNLIM, NAV_LOITER_TURNS,
 * NAV_LOITER_TIME, NAV_LOITER_TO_ALT, NAV_RETURN_TO_LAUNCH, NAV_LAND; DO_JUMP
 * (repeat counts as ArduPilot counts them: a count of 2 flies the section
 * three times; -1 forever), DO_CHANGE_SPEED, DO_SET_HOME, DO_LAND_START (a
 * marker RTL can jump to). Altitude frames: GLOBAL (above mean sea level) and
 * the relative ones (above home; terrain frames are taken as relative). An
 * item at latitude and longitude 0 means "here". Past the last item the
 * mission is done, and the vehicle goes to RTL as ArduPlane does.
 */
#ifndef FULMAR_VEHICLE_MISSION_EXEC_H
#define FULMAR_VEHICLE_MISSION_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "fulmar/vehicle_state.h"
#include "mission/mission.h"
#include "nav/nav.h"

enum mav_cmd {
	MAV_CMD_NAV_WAYPOINT = 16,
	MAV_CMD_NAV_LOITER_UNLIM = 17,
	MAV_CMD_NAV_LOITER_TURNS = 18,
	MAV_CMD_NAV_LOITER_TIME = 19,
	MAV_CMD_NAV_RETURN_TO_LAUNCH = 20,
	MAV_CMD_NAV_LAND = 21,
	MAV_CMD_NAV_TAKEOFF = 22,
	MAV_CMD_NAV_LOITER_TO_ALT = 31,
	MAV_CMD_DO_JUMP = 177,
	MAV_CMD_DO_CHANGE_SPEED = 178,
	MAV_CMD_DO_SET_HOME = 179,
	MAV_CMD_DO_LAND_START = 189,
};

struct mexec_params {
	float wp_loiter_rad_m;     /* WP_LOITER_RAD: loiter radius when an item gives none */
	float rtl_alt_m;           /* ALT_HOLD_RTL / 100: RTL height above home */
	float land_disarm_s;       /* LAND_DISARMDELAY: after touchdown */
	float arspd_fbw_min;       /* ARSPD_FBW_MIN, m/s: far below it after the flare, not flying */
};

void mexec_params_default(struct mexec_params *p);

enum mexec_phase {
	MEXEC_IDLE = 1,            /* not started */
	MEXEC_FLYING,              /* an item is being flown */
	MEXEC_LANDED,              /* touched down on a NAV_LAND */
	MEXEC_DONE,                /* past the last item: the vehicle should RTL */
	MEXEC_FAILED,              /* the mission cannot be flown (say why: mexec.why) */
};

struct mexec {
	struct mexec_params p;
	enum mexec_phase phase;
	uint16_t current;          /* the NAV item flown (MISSION_CURRENT) */
	int16_t then_seq;          /* where to go on once it is reached (mexec_goto_via); -1: the next */
	struct nav_wp prev;        /* where the current leg starts */
	struct nav_wp home;
	float home_alt_msl_m;
	int16_t jumps_left[MISSION_MAX_ITEMS];  /* per DO_JUMP item; INT16_MIN: not counted yet */
	/* loiter progress */
	bool on_circle;
	float turned_rad, last_bearing_rad;
	uint64_t circle_t0_us;
	/* landing */
	uint64_t still_since_us;
	uint64_t grounded_since_us;
	/* events for the ground station */
	uint16_t reached_seq;
	bool reached_pending;
	bool home_changed;
	float speed_m_s;           /* DO_CHANGE_SPEED (0: the default) */
	const char *why;           /* for MEXEC_FAILED */
};

/*
 * Starts (or restarts) AUTO at the mission's current item (item 0, home, is
 * skipped). home: where home is, with its altitude above mean sea level.
 */
void mexec_start(struct mexec *e, const struct mission *m, struct nav *nav,
		 const struct mexec_params *p, const struct nav_wp *home, float home_alt_msl_m,
		 const struct vehicle_state *vs, uint64_t now_us);
/* Goes on at item seq (MISSION_SET_CURRENT, RTL to DO_LAND_START). */
void mexec_goto(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t seq,
		const struct vehicle_state *vs, uint64_t now_us);
/* Flies NAV item via, then goes on at item then (a landing flown from its planned approach). */
void mexec_goto_via(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t via,
		    uint16_t then, const struct vehicle_state *vs, uint64_t now_us);
/*
 * Where a landing sequence at ls (DO_LAND_START) is flown from when it is
 * jumped to (a failsafe's, RTL_AUTOLAND): when the sequence's first NAV item
 * is the LAND itself, the NAV item before ls when it is a waypoint with a
 * place: the approach the mission was planned with (a LAND's glide starts where the leg starts: from
 * over the land point it is a dive). -1 when the sequence has approach
 * waypoints of its own, or the mission nothing before it.
 */
int mexec_land_approach(const struct mission *m, int ls);
/* After nav_update: item completion, sequencing and DO items. */
void mexec_update(struct mexec *e, const struct mission *m, struct nav *nav,
		  const struct nav_output *out, const struct vehicle_state *vs, uint64_t now_us);
/* The item just reached, once per item (MISSION_ITEM_REACHED). */
bool mexec_take_reached(struct mexec *e, uint16_t *seq);
/* The index of the first DO_LAND_START, or -1. */
int mexec_find_land_start(const struct mission *m);

#endif
