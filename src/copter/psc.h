/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter's position controller (ArduCopter's AC_PosControl of
 * Copter 4.1 to 4.5, whose PSC_* names and defaults these are): a target
 * (position, velocity, acceleration) moved each step by the caller, either
 * directly (a kinematically consistent path, such as wpnav's leg) or through
 * the kinematic input shaper below (PSC_JERK_XY / PSC_JERK_Z), and the
 * controllers that fly the vehicle along it:
 *
 *   horizontal  position error -> sqrt controller (PSC_POSXY_P, limited by
 *               the correction acceleration) -> + target velocity -> 2-D
 *               velocity PID (PSC_VELXY_P/I/D, IMAX, FLTE, FLTD) -> + target
 *               acceleration (feed-forward) -> NE acceleration, limited to
 *               g tan(lean max) -> roll and pitch in the heading frame.
 *   vertical    altitude error -> sqrt controller (PSC_POSZ_P, limited by
 *               the climb and descent speeds) -> + target climb rate ->
 *               P (PSC_VELZ_P) -> + target vertical acceleration ->
 *               acceleration PID (PSC_ACCZ_P/I/D, IMAX, FLTE) -> throttle
 *               around MOT_THST_HOVER, divided by the cosine of the present
 *               tilt (the thrust the lean takes from the vertical).
 *
 * Units: the parameter fields are ArduCopter's (cm, cm/s, cm/s/s,
 * centidegrees, per mille of throttle) so a parameter file carries over;
 * everything else is SI with the unit in the name. Positions are north and
 * east metres from an origin the caller picks (nav_geo_ne_from_ll of the
 * estimate against home), altitude and climb rate are up-positive (the
 * estimate's alt_rel_m and -vel_ned_m_s[2]).
 *
 * Pure: no clock, file or device; dt and every input are arguments; state in
 * caller storage. The main thread (the flight loop) is its only writer.
 *
 * The throttle it returns already carries the tilt compensation: the
 * attitude controller passes it to the mixer without boosting it again.
 *
 * Not here (ArduCopter has them): PSC_VELZ_I/D (0 by default since 4.1),
 * the ACCZ target and D filters, FF and SMAX terms, vibration compensation,
 * the throttle-headroom lean limit (pass it as lean_max_rad), the hover
 * throttle's learning, terrain offsets.
 */
#ifndef FULMAR_COPTER_PSC_H
#define FULMAR_COPTER_PSC_H

#include <stdbool.h>
#include <stdint.h>

#include "copter/motors.h"
#include "fulmar/vehicle_state.h"
#include "copter/shape.h"

/* Field names are ArduCopter's parameter names in lower case. */
struct copter_psc_params {
	float psc_posxy_p;        /* 1/s: horizontal position error -> velocity */
	float psc_velxy_p;        /* 1/s: velocity error -> acceleration */
	float psc_velxy_i;        /* 1/s^2 */
	float psc_velxy_d;        /* s^0: change of velocity error -> acceleration */
	float psc_velxy_imax;     /* cm/s/s */
	float psc_velxy_flte;     /* Hz, on the error for P and I; 0 = none */
	float psc_velxy_fltd;     /* Hz, on the D term; 0 = none */
	float psc_posz_p;         /* 1/s */
	float psc_velz_p;         /* 1/s */
	float psc_accz_p;         /* per mille of throttle per cm/s/s */
	float psc_accz_i;         /* per mille of throttle per cm/s/s per s */
	float psc_accz_d;         /* per mille of throttle per cm/s/s/s */
	float psc_accz_imax;      /* per mille of throttle */
	float psc_accz_flte;      /* Hz, on the acceleration error; 0 = none */
	float psc_angle_max;      /* deg: the lean limit; 0 = ANGLE_MAX */
	float psc_jerk_xy;        /* m/s/s/s: the input shaper's horizontal jerk */
	float psc_jerk_z;         /* m/s/s/s: ... and vertical */
	float angle_max;          /* cdeg: the lean limit in every mode */
};

/*
 * ArduCopter's defaults (Copter 4.1-4.5, AC_PosControl.cpp/.h for Copter and
 * TradHeli; ArduCopter/config.h for ANGLE_MAX): POSXY_P 1, VELXY_P 2, I 1,
 * D 0.5, IMAX 1000, FLTE 5, FLTD 5; POSZ_P 1, VELZ_P 5; ACCZ_P 0.5, I 1,
 * D 0, IMAX 800, FLTE 20 (PSC_ACCZ_FILT before 4.1); ANGLE_MAX 0 (use
 * ANGLE_MAX 3000); JERK_XY 5, JERK_Z 5.
 */
void copter_psc_params_default(struct copter_psc_params *p);

/* 0 when every field is finite and in range (gains, IMAX, filters and jerks
 * >= 0, the jerks > 0, 0 < ANGLE_MAX <= 8000, 0 <= PSC_ANGLE_MAX <= 80),
 * else -EINVAL. copter_psc_update does not check: the caller checks once
 * when the parameters change. */
int copter_psc_params_check(const struct copter_psc_params *p);

/*
 * What the flight mode allows the target to do: the shaper moves it within
 * these, the controllers correct towards it within them (the correction's
 * acceleration and the leash: the position error at which the correction
 * reaches the speed). Speeds and accelerations positive.
 */
struct copter_psc_limits {
	float speed_xy_m_s, accel_xy_m_s2;
	float speed_up_m_s, speed_dn_m_s, accel_z_m_s2;
};

/* The estimate in the controller's frame. */
struct copter_psc_meas {
	float pos_ne_m[2];
	float vel_ne_m_s[2];
	float alt_m;              /* up */
	float climb_m_s;          /* up */
	float accel_ned_m_s2[3];  /* kinematic (gravity removed), NED */
	float roll_rad, pitch_rad, yaw_rad;
	bool pos_valid;           /* horizontal position and velocity */
	bool alt_valid;           /* altitude, climb rate and acceleration */
	bool att_valid;
};

/*
 * The measurement from the vehicle-state topic: NE from its lat/lon against
 * (origin_lat_deg, origin_lon_deg) with nav_geo_ne_from_ll, the validity
 * from its flags; accel_ned_m_s2 is the kinematic acceleration the topic does
 * not carry (the IMU's specific force in NED, plus gravity on down).
 */
void copter_psc_meas_from_state(const struct vehicle_state *vs, double origin_lat_deg,
				double origin_lon_deg, const float accel_ned_m_s2[3],
				struct copter_psc_meas *out);

/* Per-step inputs besides the estimate. */
struct copter_psc_in {
	float throttle_hover;     /* MOT_THST_HOVER (or its learned value), 0..1 */
	struct copter_motors_limit limit;  /* the mixer's flags of the last step */
	float lean_max_rad;       /* a further lean limit (0 = none), e.g. to keep
				   * the throttle for altitude */
};

struct copter_psc_out {
	float roll_rad, pitch_rad;     /* lean targets in the heading frame */
	float throttle;                /* 0..1, tilt compensation included */
	float accel_ne_m_s2[2];        /* the horizontal demand after the lean limit */
	float accel_up_m_s2;           /* the vertical acceleration demanded */
	float vel_ne_m_s[2];           /* the velocity target (path + correction) */
	float climb_m_s;               /* ... and climb rate */
	bool lean_limited;             /* the lean limit cut the horizontal demand */
};

/* One shaped or set target: position, velocity, acceleration. */
struct copter_psc_xy_target {
	float pos_ne_m[2], vel_ne_m_s[2], accel_ne_m_s2[2];
};

struct copter_psc_z_target {
	float alt_m, climb_m_s, accel_m_s2;
};

struct copter_psc {
	struct copter_psc_xy_target xy;   /* the horizontal target */
	struct copter_psc_z_target z;     /* the vertical target */
	struct copter_psc_limits lim;     /* last given to an input function */
	struct copter_motors_limit motors_limit;   /* last given to update */
	/* horizontal velocity PID */
	float vel_err_ne[2];       /* m/s, FLTE filtered */
	float vel_deriv_ne[2];     /* m/s/s, FLTD filtered */
	float vel_integ_ne[2];     /* m/s/s */
	float lean_limit_dir[2];   /* unit vector of the last cut demand; 0 none */
	bool xy_reset;             /* filters restart from the next error */
	/* vertical acceleration PID */
	float acc_err_cm;          /* cm/s/s, FLTE filtered */
	float acc_integ;           /* throttle */
	bool z_reset;
	float meas_alt_m;          /* the altitude at the last update */
	struct copter_psc_out out;  /* the last output: held on bad inputs */
	uint32_t nonfinite_inputs;  /* measurements, targets or dt not finite */
};

/*
 * Starts both controllers where the vehicle is: targets at the measured
 * position, velocity and altitude (a non-finite or invalid one as 0), no
 * acceleration, the throttle integrator holding throttle_now - throttle_hover
 * (so the first throttle is the one flying now), filters reset, limits zero
 * until an input function gives some. Call on entering a mode that uses it.
 */
void copter_psc_init(struct copter_psc *c, const struct copter_psc_meas *m, float throttle_now,
		     float throttle_hover);

/*
 * The target, each step before copter_psc_update, one horizontal and one
 * vertical call:
 *  - _set: a path that is already kinematically consistent (wpnav's leg,
 *    the loiter target); the limits given still bound the corrections.
 *  - _input_pos: the shaper moves the target to rest at the position.
 *  - _input_vel: the shaper moves the target's velocity to vel (the pilot's
 *    climb rate in ALT_HOLD, LAND's descent), the position following it.
 * The shaper keeps the target's acceleration and jerk within the limits and
 * PSC_JERK_XY / PSC_JERK_Z, and its speed within the limit and its stop
 * without overshoot on any straight move (a vertical one, a horizontal one
 * from rest or along the line to the goal; see copter_shape_pos). A
 * horizontal goal moved sideways of a moving target adds a crosswise
 * velocity brought to zero at the same limits, so the speed can briefly add
 * up past the limit on such a dogleg. The vertical target does
 * not run ahead of a vehicle the mixer cannot follow: no higher while
 * throttle_upper, no lower while throttle_lower unless force_descend (a
 * landing, so the throttle reaches its floor). A non-finite argument is
 * counted and the target left as it was.
 */
void copter_psc_xy_set(struct copter_psc *c, const struct copter_psc_limits *lim,
		       const struct copter_psc_xy_target *t);
void copter_psc_xy_input_pos(struct copter_psc *c, const struct copter_psc_params *p,
			     const struct copter_psc_limits *lim, const float pos_ne_m[2], float dt_s);
void copter_psc_xy_input_vel(struct copter_psc *c, const struct copter_psc_params *p,
			     const struct copter_psc_limits *lim, const float vel_ne_m_s[2],
			     float dt_s);
void copter_psc_z_set(struct copter_psc *c, const struct copter_psc_limits *lim,
		      const struct copter_psc_z_target *t);
void copter_psc_z_input_alt(struct copter_psc *c, const struct copter_psc_params *p,
			    const struct copter_psc_limits *lim, float alt_m, float dt_s);
void copter_psc_z_input_climb(struct copter_psc *c, const struct copter_psc_params *p,
			      const struct copter_psc_limits *lim, float climb_m_s,
			      bool force_descend, float dt_s);

/*
 * One step of both controllers over dt_s. Every field of *out is written.
 * A measurement that is not finite, or dt_s not finite and positive, is
 * counted and the last output held (no state changes). A horizontal
 * measurement marked invalid gives a level demand (no lean) with the
 * horizontal integrator frozen; an invalid attitude holds the last lean and
 * throttle, an invalid altitude the last throttle. NaN never reaches *out.
 * The limits are those of the last input function: until one has run they
 * are zero, and zero limits hold the target on the vehicle (no correction).
 */
void copter_psc_update(struct copter_psc *c, const struct copter_psc_params *p,
		       const struct copter_psc_meas *m, const struct copter_psc_in *in, float dt_s,
		       struct copter_psc_out *out);

/*
 * The kinematic shaper on one axis, the state (pos, vel, acc) moved over
 * dt_s with |acc| <= accel and |jerk| <= jerk:
 *  - copter_shape_pos: to rest at goal, no faster than speed_fwd towards +
 *    and speed_back towards -, near time-optimally and without overshoot:
 *    each step it cruises towards the speed limit unless the next step
 *    would leave less room than the jerk-limited stop (acceleration down to
 *    -accel, held, back to 0 as the speed reaches 0) needs; within 1 mm and
 *    1 cm/s it sits on the goal.
 *  - copter_shape_vel: the velocity to vel_cmd (a sqrt controller on the
 *    velocity error whose second-order limit is the jerk).
 * Non-finite arguments, accel or jerk <= 0 or dt_s <= 0: no change.
 */
void copter_shape_pos(float *pos, float *vel, float *acc, float goal, float speed_fwd,
		      float speed_back, float accel, float jerk, float dt_s);
void copter_shape_vel(float *pos, float *vel, float *acc, float vel_cmd, float accel, float jerk,
		      float dt_s);

/*
 * The shaper's braking speed: the largest speed from which a stop at the
 * acceleration `accel` and jerk `jerk` (starting from zero acceleration)
 * takes no more than `dist` (>= 0). sqrt(2 accel dist) without the jerk.
 */
float copter_stop_speed(float dist, float accel, float jerk);

#endif
