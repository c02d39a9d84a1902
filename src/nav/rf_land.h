/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The landing on a downward rangefinder (ArduPlane's RNGFND_LANDING): how far
 * the estimate's height above the land point is from the height the
 * rangefinder measures, as a correction the approach and the flare subtract.
 * Pure; main thread.
 *
 * ArduPlane's rules, which this follows (its sensors.cpp and altitude.cpp,
 * read for their behaviour):
 *   - a reading counts only when the rangefinder says it is good and the beam
 *     points at the ground; its height is the range times the body-to-NED
 *     matrix's c.z (cos roll cos pitch for a beam along the body's down axis);
 *   - "in range" takes 10 good readings that differ from the first one seen
 *     by more than 5 % of the rangefinder's maximum (a lidar stuck at one
 *     value never gets there); a jump of more than 20 % of the maximum
 *     between two readings starts the count again; a bad reading ends it;
 *     fulmar's change: once in range, a lidar has shown that it moves, and
 *     after a bad reading 10 good ones bring it back (ArduPlane's first-reading
 *     rule again would keep a 120 m lidar, whose 5 % is 6 m, out for good below
 *     6 m after one dropout if its first reading was on the ground: the
 *     landing lost it at 6 m in fulmar-sim; a lidar that sticks later is
 *     src/vehicle/rangefinder.c's to catch);
 *   - in range, correction = height above the land point by the estimate
 *     less the rangefinder's height, low-passed (ArduPlane: 0.8 old + 0.2 new
 *     at its 50 Hz, a time constant of 0.08 s, which is what this uses at any
 *     rate); set outright when the last one is over 5 s old;
 *   - a correction that moves more than 30 m from its first value is a bad
 *     lidar: everything is forgotten ("Rangefinder disengaged");
 *   - the correction is used only on the landing (and with RNGFND_LANDING),
 *     and not once it is over 5 s old: the landing then flies on the
 *     estimate's height again ("Rangefinder lost": fulmar's words; ArduPlane
 *     falls back silently).
 */
#ifndef FULMAR_NAV_RF_LAND_H
#define FULMAR_NAV_RF_LAND_H

#include <stdbool.h>
#include <stdint.h>

#define RF_LAND_IN_RANGE_COUNT 10
#define RF_LAND_MOVE_FRAC 0.05f        /* of the maximum: not stuck at its first value */
#define RF_LAND_JUMP_FRAC 0.2f         /* of the maximum: a jump restarts the count */
#define RF_LAND_TAU_S 0.08f
#define RF_LAND_STALE_US 5000000u
#define RF_LAND_DISENGAGE_M 30.0f

/* One reading, as the vehicle hands it to navigation. */
struct rf_reading {
	uint64_t t_us;       /* when it was taken; 0: no rangefinder */
	bool good;           /* the rangefinder's status is Good (in its range, healthy) */
	float range_m;       /* along the beam, GNDCLEAR already taken off */
	float max_m;         /* RNGFND1_MAX_CM in metres */
};

enum rf_land_event {
	RF_LAND_NONE = 0,
	RF_LAND_ENGAGED,     /* in range on the landing: the approach now flies on it */
	RF_LAND_DISENGAGED,  /* the correction ran away: a bad lidar, forgotten */
	RF_LAND_LOST,        /* no good reading for 5 s on the landing: back on the estimate */
};

struct rf_land {
	uint64_t last_t_us;          /* the reading last taken */
	bool have_initial;
	float initial_range_m, last_range_m;
	int in_range_count;
	bool in_range;               /* counted in: its correction is kept */
	bool proven;                 /* it has been in range: it moves */
	bool in_use;                 /* engaged on this landing */
	float height_m;              /* the last good reading's height (attitude corrected) */
	bool have_correction;
	float correction_m, initial_correction_m;
	uint64_t correction_t_us;    /* when the correction was last refreshed */
};

void rf_land_init(struct rf_land *r);

/*
 * Take a reading (a no-op unless r->t_us is newer than the last one taken).
 * cz: the body-to-NED matrix's c.z (1 level); hat_m: the estimate's height
 * above the land point (or above home when not landing); landing: on the
 * landing with RNGFND_LANDING set (may engage). Returns what happened.
 */
enum rf_land_event rf_land_update(struct rf_land *r, const struct rf_reading *rd, float cz,
				  float hat_m, bool landing);

/*
 * The correction to subtract from the estimate's height above the land point
 * at now_us: 0 unless engaged and refreshed within RF_LAND_STALE_US. *event
 * (may be NULL) gets RF_LAND_LOST the first time an engaged correction goes
 * stale; the engagement then ends.
 */
float rf_land_correction(struct rf_land *r, uint64_t now_us, enum rf_land_event *event);

/* The landing is over (or abandoned): the next one engages afresh. */
void rf_land_end(struct rf_land *r);

#endif
