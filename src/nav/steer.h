/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Ground steering: the rudder (and the tail wheel or nose wheel it moves)
 * holds a heading on the runway, for the takeoff roll and the landing
 * rollout below GROUND_STEER_ALT (ArduPlane's parameter; 0 turns ground
 * steering off, the default, as a hand-launched aircraft has no wheels).
 *
 * The law is ours, with ArduPlane's STEER2SRV_ names for its knobs:
 *   yaw rate demand   r_d = heading error / STEER2SRV_TCONST, at most 1 rad/s
 *   rudder            u = k (P (r_d - r) + I integral of (r_d - r) dt)
 * where k = 5 m/s / max(ground speed, 5 m/s): 1 at walking pace, falling as
 * the speed grows, since a wheel turned by one angle yaws the aircraft in
 * proportion to its speed (and the rudder's own force grows with it too).
 * Below STEER2SRV_MINSPD the integral holds still: a standing aircraft
 * cannot turn, and winding it up there would swing the nose at the start. The integral
 * (the rudder a crosswind or a pulling propeller needs) is limited to
 * STEER2SRV_IMAX centidegrees of the 4500 that stand for full rudder.
 *
 * The rudder is limited by what it can do at this speed, for an aircraft
 * steered by the rudder alone (a castering tail wheel; the law cannot know
 * which it has). Its authority comes from the air over it: the airspeed's,
 * and the propeller's slipstream, whose dynamic pressure goes with the
 * thrust, about the throttle squared. So at most
 *   STEER_LIM_STILL + (1 - STEER_LIM_STILL) max((v / ARSPD_FBW_MIN)^2, thr^2)
 * of full travel, v the airspeed (the ground speed without one), thr the
 * motor's throttle. Standing still with the motor idle that is 0.4: 12
 * degrees of a steered tail wheel's 30, a turn of 10 deg/s at 2 m/s on
 * fulmar-sim's cub, enough for a wheel. A castering wheel's aircraft is not
 * given full rudder that does nothing while the throttle slews up and then,
 * with the slipstream, swings it into a ground loop (issue 37: another
 * simulator's tail-dragger, full rudder 0.6 s into the roll at under 1 m/s,
 * then the heading away at 30-150 deg/s). The integral is limited to the
 * same, and holds while the output is at its limit.
 * Pure; main thread.
 */
#ifndef FULMAR_NAV_STEER_H
#define FULMAR_NAV_STEER_H

#include <stdbool.h>

#define STEER_GAIN_SPEED_M_S 5.0f
#define STEER_RATE_MAX_RAD_S 1.0f
#define STEER_LIM_STILL 0.4f

struct steer_params {
	float ground_steer_alt;  /* m above home: steer on the ground below it; 0 = never */
	float tconst;            /* s, heading error to yaw-rate demand */
	float p;                 /* rudder per rad/s of yaw-rate error (at 5 m/s and below) */
	float i;                 /* rudder per rad of integrated yaw-rate error */
	float imax;              /* centidegrees of 4500, the integral's limit */
	float minspd;            /* m/s, below it the integral holds */
};

void steer_params_default(struct steer_params *p);

struct steer {
	float integ;             /* the integral term, rudder units */
};

void steer_init(struct steer *s);

/*
 * One step: the rudder (-1..1, +1 yaws the nose right) that turns the heading
 * toward heading_err_rad (demanded minus actual, wrapped to +-pi, positive to
 * the right) at yaw rate r (rad/s, positive right), ground speed gs,
 * airspeed aspd (NAN: none) and throttle thr (0..1; NAN: taken as 0), for
 * an aircraft whose slowest flying speed is fbw_min (ARSPD_FBW_MIN).
 * Non-finite inputs but aspd and thr give 0 and leave the state alone.
 */
float steer_rudder(struct steer *s, const struct steer_params *p, float heading_err_rad,
		   float yaw_rate_rad_s, float gs_m_s, float aspd_m_s, float fbw_min_m_s, float thr,
		   float dt_s);

/* The rudder's limit at airspeed (or ground speed) v and throttle thr: the header's law. */
float steer_limit(float v_m_s, float fbw_min_m_s, float thr);

/* Whether ground steering is on at this height above home. */
bool steer_on_ground(const struct steer_params *p, float hgt_m);

#endif
