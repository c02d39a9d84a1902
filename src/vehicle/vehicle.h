/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The plane as a state machine: its flight mode (ArduPlane's numbers, so every
 * ground station names them right), whether it is armed, and the checks that
 * guard both. Pure: the caller passes what the estimator knows and the time.
 * Owned by the main thread.
 */
#ifndef FULMAR_VEHICLE_H
#define FULMAR_VEHICLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/vehicle_state.h"

/* ArduPlane's custom_mode numbers. */
enum plane_mode {
	PLANE_MANUAL = 0,
	PLANE_CIRCLE = 1,
	PLANE_STABILIZE = 2,
	PLANE_TRAINING = 3,
	PLANE_ACRO = 4,
	PLANE_FBWA = 5,
	PLANE_FBWB = 6,
	PLANE_CRUISE = 7,
	PLANE_AUTOTUNE = 8,
	PLANE_AUTO = 10,
	PLANE_RTL = 11,
	PLANE_LOITER = 12,
	PLANE_TAKEOFF = 13,
	PLANE_GUIDED = 15,
	PLANE_INITIALISING = 16,
};

/* Where GUIDED flies to (DO_REPOSITION, SET_POSITION_TARGET_GLOBAL_INT): it loiters there. */
struct vehicle_target {
	double lat_deg, lon_deg;
	float alt_rel_m;               /* above home */
	uint32_t generation;           /* bumped by each new target; 0: none yet */
};

struct vehicle {
	enum plane_mode mode;
	bool armed;
	uint32_t valid;                /* what the estimator knew at the last update */
	uint16_t mission_count;
	const char *prearm_problem;    /* the first failing pre-arm check, NULL: none (plane_step) */
	bool home_set;                 /* AUTO and RTL need a home (the owner sets it) */
	struct vehicle_target guided;
};

void vehicle_init(struct vehicle *v);
/* The mode's name ("FBWA"), or NULL when fulmar has no such mode. */
const char *vehicle_mode_name(uint32_t mode);
/* What the estimator knows now (vehicle_state.valid) and how long the mission is. */
void vehicle_update(struct vehicle *v, uint32_t valid, uint16_t mission_count);

/*
 * Mode change. Returns 0, or -EINVAL (no such mode) / -EPERM (not possible now)
 * with the reason for the pilot in why.
 */
int vehicle_set_mode(struct vehicle *v, uint32_t mode, char *why, size_t why_len);
/*
 * Arm or disarm. Arming runs the pre-arm checks (ARMING_CHECK: 0 none) unless
 * forced; even forced, a plane that is still initialising is not armed.
 * Returns 0 or -EPERM with the reason in why.
 */
int vehicle_arm(struct vehicle *v, bool arm, bool force, uint32_t arming_check, char *why,
		size_t why_len);
/*
 * A GUIDED target. Returns 0, or -EINVAL (not a position on earth, or a height
 * that is not a number) with the reason in why.
 */
int vehicle_set_guided(struct vehicle *v, double lat_deg, double lon_deg, float alt_rel_m,
		       char *why, size_t why_len);

#endif
