/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Attitude control for a fixed-wing aircraft, shaped as ArduPilot's
 * AP_RollController / AP_PitchController / AP_YawController of 2014-2016:
 * angle error / TCONST -> demanded rate (limited by RMAX) -> servo from
 * a rate feed-forward (P), rate-error damping (D) and an integrator (I,
 * limited by IMAX), all scaled by the airspeed (SCALING_SPEED / airspeed).
 * The pitch loop feeds forward the pitch rate a level banked turn needs; the yaw
 * damper washes out yaw rate beyond the coordinated-turn rate, integrates
 * lateral acceleration, and the rudder gets a share of the aileron
 * (KFF_RDDRMIX). One change from ArduPilot: the roll and pitch rate loops
 * close on the Euler angles' rates, not the body rates, so the integrators
 * also remove the steady angle error of a climbing or banked turn.
 *
 * Surfaces are normalised: +1 = full roll right / nose up / nose right, the
 * ArduPilot full scale of 45 degrees (4500 centidegrees) of servo. Pure; state
 * in caller storage; main thread.
 */
#ifndef FULMAR_CONTROL_ATTITUDE_H
#define FULMAR_CONTROL_ATTITUDE_H

#include <stdbool.h>

#include "fulmar/vehicle_state.h"

/* Field names are ArduPilot's parameter names in lower case. */
struct ctl_params {
	/* roll: TCONST s; P deg of servo per deg/s of demanded rate; I 1/s;
	 * D deg of servo per deg/s of rate error; IMAX centidegrees of servo;
	 * RMAX deg/s (0 = no limit) */
	float rll2srv_tconst, rll2srv_p, rll2srv_i, rll2srv_d, rll2srv_imax, rll2srv_rmax;
	/* pitch: as roll; RMAX_UP/RMAX_DN deg/s; RLL the share of the turn's
	 * pitch rate fed forward */
	float ptch2srv_tconst, ptch2srv_p, ptch2srv_i, ptch2srv_d, ptch2srv_imax;
	float ptch2srv_rmax_up, ptch2srv_rmax_dn, ptch2srv_rll;
	/* yaw: SLIP lateral-acceleration gain, INT integrator gain, DAMP yaw-rate
	 * damping, RLL share of the coordinated-turn rate, IMAX centidegrees */
	float yaw2srv_slip, yaw2srv_int, yaw2srv_damp, yaw2srv_rll, yaw2srv_imax;
	float kff_rddrmix;        /* rudder per aileron */
	float scaling_speed;      /* m/s: the airspeed at which the gains are as set */
	float arspd_fbw_min;      /* m/s: the airspeed floor in the turn terms */
	float trim_throttle;      /* percent: scaler without an airspeed sensor */
};

void ctl_params_default(struct ctl_params *p);

/* One axis's memory. */
struct ctl_axis {
	float integ_deg;          /* integrator, degrees of servo */
	float last_out_deg;       /* last output before the final limit */
	float desired_rate_deg_s;
};

struct ctl {
	struct ctl_axis roll, pitch, yaw;
	float yaw_hp_in, yaw_hp_out;
};

/* What navigation (or the pilot's sticks in FBWA) asks for. */
struct ctl_demand {
	float roll_rad, pitch_rad;
	float throttle;           /* 0..1, the current output: speed scaler without airspeed */
	float accel_y_m_s2;       /* lateral specific force for the yaw integrator; NAN = none */
	bool integrators_off;     /* on the ground, or in manual: hold the integrators at 0 */
};

struct ctl_surfaces {
	float aileron, elevator, rudder;   /* -1 .. 1 */
};

void ctl_init(struct ctl *c);

/* SCALING_SPEED / airspeed in 0.5..2 with an airspeed; without one, from the
 * throttle against TRIM_THROTTLE, in 0.6..1.67. */
float ctl_speed_scaler(const struct ctl_params *p, const struct vehicle_state *vs, float throttle);

/* The axes alone (degrees of servo out, +-45). The roll and pitch rates are
 * the Euler angles' rates (ctl_update derives them from the body rates). */
float ctl_roll_step(struct ctl_axis *a, const struct ctl_params *p, float roll_dem_rad,
		    float roll_rad, float rate_rad_s, float scaler, float eas2tas, float dt_s,
		    bool integ_off);
float ctl_pitch_step(struct ctl_axis *a, const struct ctl_params *p, float pitch_dem_rad,
		     float pitch_rad, float rate_rad_s, float roll_rad, float airspeed_m_s,
		     float scaler, float eas2tas, float dt_s, bool integ_off);
float ctl_yaw_step(struct ctl *c, const struct ctl_params *p, float yaw_rate_rad_s,
		   float roll_rad, float airspeed_m_s, float accel_y_m_s2, float scaler,
		   float dt_s, bool integ_off);

/* All three axes for one step of dt_s. */
void ctl_update(struct ctl *c, const struct ctl_params *p, const struct vehicle_state *vs,
		const struct ctl_demand *d, float dt_s, struct ctl_surfaces *out);

#endif
