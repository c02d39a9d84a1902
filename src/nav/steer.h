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
 * Pure; main thread.
 */
#ifndef FULMAR_NAV_STEER_H
#define FULMAR_NAV_STEER_H

#include <stdbool.h>

#define STEER_GAIN_SPEED_M_S 5.0f
#define STEER_RATE_MAX_RAD_S 1.0f

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
 * the right) at yaw rate r (rad/s, positive right) and ground speed gs.
 * Non-finite inputs give 0 and leave the state alone.
 */
float steer_rudder(struct steer *s, const struct steer_params *p, float heading_err_rad,
		   float yaw_rate_rad_s, float gs_m_s, float dt_s);

/* Whether ground steering is on at this height above home. */
bool steer_on_ground(const struct steer_params *p, float hgt_m);

#endif
