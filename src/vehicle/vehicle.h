/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The vehicle as a state machine: its kind (plane or multicopter, chosen at
 * start-up: docs/design.md), its flight mode (ArduPlane's or ArduCopter's
 * numbers, so every ground station names them right), whether it is armed,
 * and the checks that guard both. Pure: the caller passes what the estimator
 * knows and the time. Owned by the main thread.
 */
#ifndef FULMAR_VEHICLE_H
#define FULMAR_VEHICLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/vehicle_state.h"
#include "mission/mission.h"
#include "nav/nav_geo.h"
#include "rc/rc.h"
#include "vehicle/rangefinder.h"

/* What flies. Everything below the vehicle's own step (estimator, mission
 * store, parameters, failsafe plumbing, arming, MAVLink, logs) is shared. */
enum vehicle_kind {
	VEHICLE_PLANE = 0,
	VEHICLE_COPTER = 1,
};

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

/* ArduCopter's custom_mode numbers (those fulmar flies). */
enum copter_mode {
	COPTER_STABILIZE = 0,
	COPTER_ALT_HOLD = 2,
	COPTER_AUTO = 3,
	COPTER_GUIDED = 4,
	COPTER_LOITER = 5,
	COPTER_RTL = 6,
	COPTER_LAND = 9,
	COPTER_POSHOLD = 16,
	COPTER_BRAKE = 17,
};

/* Where GUIDED flies to (DO_REPOSITION, SET_POSITION_TARGET_GLOBAL_INT): it loiters there. */
struct vehicle_target {
	double lat_deg, lon_deg;
	float alt_rel_m;               /* above home */
	uint32_t generation;           /* bumped by each new target; 0: none yet */
};

struct vehicle {
	enum vehicle_kind kind;
	uint32_t mode;                 /* the kind's custom_mode number */
	bool initialising;             /* no attitude yet: nothing flies, nothing arms */
	bool armed;
	uint32_t valid;                /* what the estimator knew at the last update */
	uint16_t mission_count;
	const char *prearm_problem;    /* the first failing pre-arm check, NULL: none (plane_step) */
	bool home_set;                 /* AUTO and RTL need a home (the owner sets it) */
	bool landed;                   /* copter: its land detector's (a takeoff starts from it) */
	struct vehicle_target guided;
	struct vehicle_target takeoff; /* copter: GUIDED's NAV_TAKEOFF; alt_rel_m only */
};

/* What the main loop knows this step: the one input of every vehicle kind's step. */
struct vehicle_input {
	uint64_t now_us;
	float dt_s;
	struct vehicle_state vs;
	bool estimator_converged;
	/* The IMU stuck now (src/estim: coasted through, then no attitude): the
	 * flight ends, as with one IMU nothing takes over (plane: IMU failsafe). */
	bool imu_stuck;
	float accel_body_m_s2[3];           /* latest specific force (launch detection) */
	float accel_bias_body_m_s2[3];      /* the estimator's accelerometer bias, body axes;
						 * the copter takes it off the specific force */
	struct rc_frame rc;                 /* the latest frame ... */
	bool rc_seen;                       /* ... if any ever came */
	uint64_t gcs_heartbeat_us;          /* last ground-station heartbeat; 0: never */
	bool gps_fix;                       /* 3D fix */
	/* The estimator's EKF_STATUS_REPORT variances (ArduPilot's convention:
	 * the square roots of the innovation test ratios, 1 and above rejected)
	 * for the copter's EKF check, refreshed at its 10 Hz; 0 with none. */
	float ekf_vel_var, ekf_pos_var, ekf_mag_var;
	/* The compass, for ArduPilot's pre-arm compass checks, in milligauss: its
	 * latest field with the estimated hard iron taken off (body axes), that
	 * turned to NED by the estimated attitude, and the world magnetic model's
	 * field where the aircraft is (NED). Checked only when said to be there. */
	bool mag_seen;                      /* mag_body_mgauss and mag_ned_mgauss hold a sample */
	bool mag_expected_known;            /* mag_expected_ned_mgauss holds the model's field */
	float mag_body_mgauss[3], mag_ned_mgauss[3], mag_expected_ned_mgauss[3];
	float batt_voltage_v, batt_used_mah;  /* NAN: unknown */
	const struct mission *mission;
	const struct mission *fence, *rally;  /* the fence and rally lists; NULL: none */
	bool home_set;
	struct nav_wp home;
	float home_alt_msl_m;
	/* The loop is overloaded (daemon/scheduler.h): fly this step on the last
	 * navigation's demands; navigation then runs over the time it missed. */
	bool nav_deferred;
	/* The rangefinder (RNGFND1_*, vehicle/rangefinder.h): its status, health
	 * and the raw distance along its beam, NOT corrected for the attitude
	 * nor for RNGFND1_POS_*: that is the landing's to do (RNGFND_LANDING),
	 * knowing the attitude. NotConnected without one. Nothing reads it yet. */
	struct rangefinder_reading rangefinder;
};

/* A plane starts in INITIALISING (ArduPlane's mode 16), a copter in
 * STABILIZE, as ArduCopter's, initialising until there is an attitude. */
void vehicle_init(struct vehicle *v, enum vehicle_kind kind);
/* The kind's mode's name ("FBWA", "ALT_HOLD"), or NULL when fulmar has no such mode. */
const char *vehicle_mode_name(enum vehicle_kind kind, uint32_t mode);
/* The modes a ground station's commands name without a number. */
enum vehicle_role {
	VEHICLE_ROLE_GUIDED,           /* DO_REPOSITION, SET_POSITION_TARGET_*, NAV_TAKEOFF */
	VEHICLE_ROLE_AUTO,             /* MISSION_START */
	VEHICLE_ROLE_RTL,              /* NAV_RETURN_TO_LAUNCH */
};
/* The kind's mode number for a role (PLANE_GUIDED, COPTER_AUTO, ...). */
uint32_t vehicle_role_mode(enum vehicle_kind kind, enum vehicle_role role);
/* HEARTBEAT's MAV_TYPE: FIXED_WING for a plane; for a copter its
 * FRAME_CLASS's, as ArduCopter says it (quad 2, hexa and Y6 13, octa 14). */
uint8_t vehicle_mav_type(enum vehicle_kind kind, int frame_class);
/* What the estimator knows now (vehicle_state.valid) and how long the mission is. */
void vehicle_update(struct vehicle *v, uint32_t valid, uint16_t mission_count);

/*
 * Mode change. Returns 0, or -EINVAL (no such mode) / -EPERM (not possible now)
 * with the reason for the pilot in why.
 */
int vehicle_set_mode(struct vehicle *v, uint32_t mode, char *why, size_t why_len);
/*
 * Arm or disarm. Arming runs the pre-arm checks (ARMING_CHECK: 0 none) unless
 * forced; even forced, a vehicle that is still initialising is not armed, nor
 * a copter in a mode that does not arm (ArduCopter's: AUTO, RTL, LAND, BRAKE).
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
/*
 * ArduCopter's user takeoff (MAV_CMD_NAV_TAKEOFF): a copter armed and landed
 * in GUIDED climbs to alt_rel_m above home where it is and holds there.
 * Returns 0, -EINVAL (a plane, or not a height) or -EPERM (not armed, not
 * GUIDED, flying already) with the reason in why.
 */
int vehicle_set_takeoff(struct vehicle *v, float alt_rel_m, char *why, size_t why_len);

#endif
