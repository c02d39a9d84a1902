/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * L1 lateral guidance (Park, Deyst and How, 2004) as ArduPilot's
 * AP_L1_Control applies it: track a leg A -> B or a loiter circle, giving a
 * lateral acceleration demand and the bank angle that makes it. Pure; the
 * state is caller storage; call on the main thread at the navigation rate.
 *
 * Sign convention: positive lateral acceleration and bank turn right.
 */
#ifndef FULMAR_NAV_L1_H
#define FULMAR_NAV_L1_H

#include "nav/nav_geo.h"

/* Field names follow ArduPilot's parameters (NAVL1_PERIOD -> navl1_period). */
struct l1_params {
	float navl1_period;    /* s, 1..60: period of the guidance loop; shorter is tighter */
	float navl1_damping;   /* 0.6..1.0 */
};

void l1_params_default(struct l1_params *p);

struct l1 {
	/* outputs of the last update */
	float lat_acc_m_s2;      /* demanded lateral acceleration, right positive */
	float nav_bearing_rad;   /* direction of the L1 reference point, from north */
	float target_bearing_rad;/* bearing to B, or to the loiter centre */
	float wp_dist_m;         /* distance to B, or to the loiter centre */
	float xtrack_m;          /* right of the leg, or outside the loiter circle: positive */
	float l1_dist_m;         /* the L1 length used */
	float nu_rad;            /* the angle from ground velocity to the L1 point */
	int loiter_captured;     /* 1 once tracking the circle (loiter only) */
	/* memory */
	float last_nu_rad;
};

void l1_init(struct l1 *l);

/* Track the leg a -> b from pos with ground velocity vel_ne_m_s (north, east).
 * Far behind a (more than L1 away and more than 135 degrees off the leg) it
 * flies to a; more than 3 s of travel past b it flies back to b. */
void l1_update_waypoint(struct l1 *l, const struct l1_params *p, struct nav_ne pos,
			const float vel_ne_m_s[2], struct nav_ne a, struct nav_ne b);

/* Loiter around centre at radius_m, direction +1 clockwise (right turns) or
 * -1 anticlockwise, seen from above. From far away it captures on an L1
 * course to the centre and switches to circle tracking where the two demands
 * cross. (The caller widens a radius the aircraft cannot fly within its bank
 * limit: see l1_loiter_radius_m.) */
void l1_update_loiter(struct l1 *l, const struct l1_params *p, struct nav_ne pos,
		      const float vel_ne_m_s[2], struct nav_ne centre, float radius_m, int direction);

/* The radius to fly for a requested one: at least the radius of a turn at
 * bank_limit_rad at the true airspeed tas_m_s (as ArduPilot widens loiters
 * where thin air makes the requested one too tight). */
float l1_loiter_radius_m(float radius_m, float tas_m_s, float bank_limit_rad);

/* The bank angle for the last demand: atan(a / (g cos pitch)), limited to
 * +-limit_rad. */
float l1_bank_rad(const struct l1 *l, float pitch_rad, float limit_rad);

/* How early to sequence a waypoint before a turn of turn_rad (0..pi):
 * min(wp_radius * eas2tas^2, L1 length), scaled down by turn/90 degrees for
 * turns shallower than 90 degrees. */
float l1_turn_distance_m(const struct l1 *l, float wp_radius_m, float eas2tas, float turn_rad);

/* The L1 length at ground speed gs: period * damping * gs / pi. */
float l1_length_m(const struct l1_params *p, float ground_speed_m_s);

#endif
