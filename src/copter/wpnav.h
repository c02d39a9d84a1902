/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter's navigation targets for the position controller (psc.h):
 *  - a waypoint leg: a straight 3-D line from origin to destination flown
 *    from rest to rest, the target's progress along it jerk-limited
 *    (copter_shape_pos) at WPNAV_SPEED / WPNAV_ACCEL / WPNAV_JERK
 *    horizontally and WPNAV_SPEED_UP or _DN / WPNAV_ACCEL_Z / PSC_JERK_Z
 *    vertically, whichever binds first for the leg's slope (ArduCopter 4.1+
 *    flies a leg as one S-curve with these limits); the altitude changes
 *    along the leg; "reached" once the target has stopped on the
 *    destination and the vehicle is within WPNAV_RADIUS of it (3-D);
 *  - a loiter target for LOITER and POSHOLD: the point held, moved by the
 *    pilot's sticks (ArduCopter's AC_Loiter: stick acceleration, a drag that
 *    makes full stick settle at LOIT_SPEED, and once the sticks centre,
 *    braking at up to LOIT_BRK_ACCEL after LOIT_BRK_DELAY with
 *    LOIT_BRK_JERK);
 *  - LAND's descent rate: WPNAV_SPEED_DN (or LAND_SPEED_HIGH) above
 *    LAND_ALT_LOW, slowing on a sqrt curve to LAND_SPEED below it.
 *
 * Units as in psc.h: parameter fields in ArduCopter's (cm, cm/s, cm/s/s,
 * s, and m/s/s/s for WPNAV_JERK), everything else SI; north-east metres from
 * the caller's origin, altitude up. Pure; state in caller storage; main
 * thread.
 */
#ifndef FULMAR_COPTER_WPNAV_H
#define FULMAR_COPTER_WPNAV_H

#include <stdbool.h>
#include <stdint.h>

#include "copter/psc.h"

/* Field names are ArduCopter's parameter names in lower case. */
struct copter_wpnav_params {
	float wpnav_speed;        /* cm/s, horizontal on a leg */
	float wpnav_radius;       /* cm, "reached" */
	float wpnav_speed_up;     /* cm/s */
	float wpnav_speed_dn;     /* cm/s */
	float wpnav_accel;        /* cm/s/s, horizontal */
	float wpnav_accel_z;      /* cm/s/s */
	float wpnav_jerk;         /* m/s/s/s, horizontal on a leg */
	float loit_speed;         /* cm/s */
	float loit_acc_max;       /* cm/s/s: the stick's acceleration and the correction's */
	float loit_brk_accel;     /* cm/s/s */
	float loit_brk_jerk;      /* cm/s/s/s */
	float loit_brk_delay;     /* s */
	float pilot_speed_up;     /* cm/s, ALT_HOLD and LOITER climb */
	float pilot_speed_dn;     /* cm/s; 0 = PILOT_SPEED_UP */
	float pilot_accel_z;      /* cm/s/s */
	float land_speed;         /* cm/s, the final descent */
	float land_speed_high;    /* cm/s above LAND_ALT_LOW; 0 = WPNAV_SPEED_DN */
	float land_alt_low;       /* cm */
};

/*
 * ArduCopter's defaults (Copter 4.1-4.5; renamed in 4.7): WPNAV_SPEED 1000,
 * _RADIUS 200, _SPEED_UP 250, _SPEED_DN 150, _ACCEL 250, _ACCEL_Z 100, _JERK
 * 1 (AC_WPNav.cpp/.h); LOIT_SPEED 1250, _ACC_MAX 500, _BRK_ACCEL 250,
 * _BRK_JERK 500, _BRK_DELAY 1 (AC_Loiter.cpp); PILOT_SPEED_UP 250,
 * PILOT_SPEED_DN 0, PILOT_ACCEL_Z 250, LAND_SPEED 50, LAND_SPEED_HIGH 0,
 * LAND_ALT_LOW 1000 (ArduCopter/Parameters.cpp and config.h).
 */
void copter_wpnav_params_default(struct copter_wpnav_params *p);

/* 0 when every field is finite and the speeds, accelerations, jerk and
 * radius are > 0 (PILOT_SPEED_DN, LAND_SPEED_HIGH, LOIT_BRK_DELAY and
 * LAND_ALT_LOW >= 0), else -EINVAL. */
int copter_wpnav_params_check(const struct copter_wpnav_params *p);

enum copter_wpnav_use {
	COPTER_WPNAV_AUTO = 1,    /* legs: WPNAV_SPEED/_ACCEL, _SPEED_UP/_DN, _ACCEL_Z */
	COPTER_WPNAV_PILOT,       /* ALT_HOLD, LOITER, POSHOLD: LOIT_SPEED/_ACC_MAX,
				   * PILOT_SPEED_UP/_DN, PILOT_ACCEL_Z */
	COPTER_WPNAV_LAND,        /* AUTO's, the descent as fast as LAND's fastest */
};

/* The position controller's limits for a flight mode's use, in m/s, m/s/s. */
void copter_wpnav_limits(const struct copter_wpnav_params *p, enum copter_wpnav_use use,
			 struct copter_psc_limits *out);

struct copter_wpnav_leg {
	float origin_ne_m[2], origin_alt_m;
	float dest_ne_m[2], dest_alt_m;
	float length_m;           /* 3-D */
	float unit[3];            /* north, east, up; 0 for a zero-length leg */
	float speed_m_s, accel_m_s2, jerk_m_s3;   /* along the leg */
	float s_m, v_m_s, a_m_s2; /* the target's progress along the leg, in leg time */
	float time_scale;         /* the leg clock's rate last step, 0..1 */
	bool reached;
	uint32_t nonfinite_inputs;
};

/*
 * A leg from origin to destination, the target at rest on the origin.
 * Returns 0, or -EINVAL (*leg untouched) for a non-finite point or
 * parameters that fail copter_wpnav_params_check / copter_psc_params_check.
 */
int copter_wpnav_leg_start(struct copter_wpnav_leg *leg, const struct copter_wpnav_params *wp,
			   const struct copter_psc_params *psc, const float origin_ne_m[2],
			   float origin_alt_m, const float dest_ne_m[2], float dest_alt_m);

/*
 * One step: the target's progress over dt_s, its clock slowed while the
 * vehicle lags it (from 1 m behind, stopped at 2 m: a vehicle held back by
 * wind or its lean limit is not left behind), the targets for
 * copter_psc_xy_set / copter_psc_z_set, and leg->reached. A non-finite
 * measurement (or one marked invalid) leaves the clock running unslowed;
 * a non-finite or negative dt_s is counted and the target held.
 */
void copter_wpnav_leg_update(struct copter_wpnav_leg *leg, const struct copter_wpnav_params *wp,
			     const struct copter_psc_meas *m, float dt_s,
			     struct copter_psc_xy_target *xy, struct copter_psc_z_target *z);

struct copter_wpnav_loiter {
	struct copter_psc_xy_target target;
	float brake_accel_m_s2;   /* the braking deceleration now */
	float brake_timer_s;      /* since the sticks centred */
	uint32_t nonfinite_inputs;
};

/* The loiter target at pos, moving at vel (the vehicle's on entry: it
 * brakes to a stop rather than jumping to rest). Non-finite values as 0. */
void copter_wpnav_loiter_init(struct copter_wpnav_loiter *lo, const float pos_ne_m[2],
			      const float vel_ne_m_s[2]);

/*
 * One step. stick_fwd and stick_right (-1..1, clamped; not finite: 0,
 * counted) ask up to LOIT_ACC_MAX forward and right in the heading frame of
 * yaw_rad (ArduCopter turns the stick into a lean angle, LOIT_ANG_MAX, and
 * that into an acceleration; here the stick scales LOIT_ACC_MAX directly).
 * Writes the target for copter_psc_xy_set (use COPTER_WPNAV_PILOT's limits
 * with it).
 */
void copter_wpnav_loiter_update(struct copter_wpnav_loiter *lo,
				const struct copter_wpnav_params *wp,
				const struct copter_psc_params *psc, float stick_fwd,
				float stick_right, float yaw_rad, float dt_s,
				struct copter_psc_xy_target *out);

/*
 * LAND's climb rate (negative, m/s) at height_m above the ground: a sqrt
 * controller (PSC_POSZ_P, WPNAV_ACCEL_Z) towards LAND_ALT_LOW (at least 1 m),
 * held between -LAND_SPEED_HIGH (or -WPNAV_SPEED_DN) and -LAND_SPEED, never
 * slower than LAND_SPEED (ArduCopter's land_run_vertical_control). A
 * non-finite height (no rangefinder, no terrain) descends at LAND_SPEED.
 * off_m is the horizontal distance from the point held (non-finite: no
 * position): within 3 m of the ground, more than 1 m off it, the descent
 * slows towards 0.1 m/s at 3 m off (wpnav.c says why).
 * Feed it to copter_psc_z_input_climb with force_descend.
 */
float copter_wpnav_land_climb_rate(const struct copter_wpnav_params *wp,
				   const struct copter_psc_params *psc, float height_m, float off_m);

#endif
