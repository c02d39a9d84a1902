/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter's land and crash detectors, with ArduCopter's semantics
 * (ArduCopter/land_detector.cpp and crash_check.cpp of Copter 4.4-4.5; the
 * thresholds are its compile-time constants, FS_CRASH_CHECK its parameter):
 *
 * Landed: while armed and not yet landed, every one of
 *   - the mixer at its lower throttle limit (limit.throttle_lower) and the
 *     attitude controller's throttle mix at its minimum;
 *   - no lean asked beyond 15 degrees, no thrust-vector error beyond 30;
 *   - the earth-frame acceleration (gravity removed, low-passed at 1 Hz)
 *     under 1 m/s/s;
 *   - the climb rate within 1 m/s of zero;
 * held for LAND_DETECTOR_TRIGGER_SEC (1 s) sets landed; for 0.2 s
 * (LAND_DETECTOR_MAYBE_TRIGGER_SEC) "maybe landed", on which a mode stops
 * correcting position so the vehicle does not tip on the ground. Any one
 * failing restarts the count. Disarmed is landed; a landed vehicle is
 * flying again once its mixer, spooled up, gives more than half the hover
 * throttle (get_non_takeoff_throttle).
 *
 * Crashed: while armed, not landed, FS_CRASH_CHECK on and the mode one that
 * holds an attitude (not ACRO or FLIP), every one of
 *   - the filtered acceleration under 3 m/s/s (not falling, not flying);
 *   - leaning more than 15 degrees;
 *   - the thrust vector more than 30 degrees from the target's;
 *   - slower than 10 m/s (when the speed is known);
 * for 2 s sets crashed: the caller disarms. Latched until disarmed.
 *
 * Pure; state in caller storage; main thread, at the flight loop's rate.
 */
#ifndef FULMAR_COPTER_LAND_DETECT_H
#define FULMAR_COPTER_LAND_DETECT_H

#include <stdbool.h>
#include <stdint.h>

#define COPTER_LAND_TRIGGER_S 1.0f          /* LAND_DETECTOR_TRIGGER_SEC */
#define COPTER_LAND_MAYBE_TRIGGER_S 0.2f    /* LAND_DETECTOR_MAYBE_TRIGGER_SEC */
#define COPTER_LAND_ACCEL_LPF_HZ 1.0f       /* LAND_DETECTOR_ACCEL_LPF_CUTOFF */
#define COPTER_LAND_ACCEL_MAX_M_S2 1.0f     /* LAND_DETECTOR_ACCEL_MAX */
#define COPTER_LAND_CLIMB_MAX_M_S 1.0f      /* LAND_DETECTOR_VEL_Z_MAX */
#define COPTER_LAND_LARGE_ANGLE_DEG 15.0f   /* LAND_CHECK_LARGE_ANGLE_CD / 100 */
#define COPTER_LAND_ANGLE_ERROR_DEG 30.0f   /* LAND_CHECK_ANGLE_ERROR_DEG */
#define COPTER_LAND_ACCEL_MOVING_M_S2 3.0f  /* LAND_CHECK_ACCEL_MOVING */
#define COPTER_CRASH_TRIGGER_S 2.0f         /* CRASH_CHECK_TRIGGER_SEC */
#define COPTER_CRASH_ANGLE_ERROR_DEG 30.0f  /* CRASH_CHECK_ANGLE_DEVIATION_DEG */
#define COPTER_CRASH_LEAN_MIN_DEG 15.0f     /* CRASH_CHECK_ANGLE_MIN_DEG */
#define COPTER_CRASH_SPEED_MAX_M_S 10.0f    /* CRASH_CHECK_SPEED_MAX */
#define COPTER_CRASH_ACCEL_MAX_M_S2 3.0f    /* CRASH_CHECK_ACCEL_MAX */

struct copter_land_params {
	float fs_crash_check;     /* FS_CRASH_CHECK: 0 off, 1 (default) disarm on a crash */
};

void copter_land_params_default(struct copter_land_params *p);

struct copter_land_in {
	bool armed;
	bool spool_unlimited;     /* the mixer at THROTTLE_UNLIMITED */
	bool throttle_lower;      /* the mixer's limit flag */
	bool throttle_mix_min;    /* the attitude controller's throttle mix at its minimum */
	float throttle;           /* the mixer's throttle, 0..1 */
	float throttle_hover;     /* MOT_THST_HOVER */
	float climb_m_s;          /* up */
	float speed_m_s;          /* 3-D ground speed; NAN when unknown */
	float accel_ned_m_s2[3];  /* kinematic (gravity removed), NED */
	float roll_rad, pitch_rad;                /* the attitude */
	float target_roll_rad, target_pitch_rad;  /* the attitude controller's target */
	bool crash_check_mode;    /* the mode holds an attitude (not ACRO, FLIP) */
};

struct copter_land {
	float accel_ned_filt_m_s2[3];   /* 1 Hz low-pass */
	float land_s;             /* how long the landed criteria have held */
	float crash_s;            /* ... and the crash criteria */
	bool landed, landed_maybe;
	bool crashed;             /* disarm; latched until disarmed */
	uint32_t nonfinite_inputs;
};

/* Landed, nothing counted, the filter at zero. */
void copter_land_init(struct copter_land *ld);

/*
 * One step of dt_s. A non-finite input (the speed may be NAN), or dt_s not
 * finite and positive, is counted and the step skipped: the state and
 * flags stay as they were (garbage neither lands nor crashes the vehicle).
 */
void copter_land_update(struct copter_land *ld, const struct copter_land_params *p,
			const struct copter_land_in *in, float dt_s);

/*
 * ArduCopter's update_throttle_mix for the modes whose throttle the
 * autopilot flies: true when the attitude controller should take its
 * minimum throttle mix (throttle before attitude: what lets the landed
 * criteria see throttle_lower), that is disarmed or landed, or a descent
 * asked (climb_target_m_s < 0) with no lean beyond 15 degrees asked (unless
 * landing), no thrust-vector error beyond 30 and the filtered acceleration
 * under 3 m/s/s. Uses the filter of the last copter_land_update.
 */
bool copter_land_want_thr_mix_min(const struct copter_land *ld, const struct copter_land_in *in,
				  float climb_target_m_s, bool landing);

/* The angle between the thrust vectors (body z) of two attitudes of the same
 * heading, rad: ArduCopter's attitude error angle. */
float copter_thrust_angle_rad(float roll_a, float pitch_a, float roll_b, float pitch_b);

#endif
