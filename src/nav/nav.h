/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Navigation for a fixed-wing aircraft: what a mission executor drives. It
 * holds one current task (a leg, a loiter, a landing, a takeoff) and, each
 * main-loop step, turns the vehicle state into the demanded bank, pitch and
 * throttle for src/control, plus the figures NAV_CONTROLLER_OUTPUT carries.
 *
 * Pure: no I/O, clocks, globals or allocation. All calls on the main thread.
 *
 *   nav_init(&nav, home_lat, home_lon);
 *   nav_set_takeoff(&nav, 15, 50);          // hand launch, climb to 50 m
 *   ... each step: nav_update(&nav, &params, &vs, accel, dt, &out);
 *   out.takeoff_complete -> nav_set_leg(&nav, &a, &b, &c);
 *   out.wp_reached -> the next leg ... nav_set_land(&nav, &approach, &land);
 */
#ifndef FULMAR_NAV_NAV_H
#define FULMAR_NAV_NAV_H

#include <stdbool.h>
#include <stdint.h>

#include "fulmar/vehicle_state.h"
#include "nav/l1.h"
#include "nav/landing.h"
#include "nav/launch.h"
#include "nav/nav_geo.h"
#include "nav/rf_land.h"
#include "nav/steer.h"
#include "nav/tecs.h"

/* The aimed flare asks for the height its path has this long (at the present
 * ground speed) further out than the aircraft is. Flying the path itself the
 * aircraft touched down short: in its last second, the motor off and the pitch
 * rising late, it sank 0.1-0.2 m under the demand, and on the ground the
 * estimate's height was 0.07-0.14 m over the land point's. The path ends at
 * TECS_LAND_SINK's slope, 1 in 60 at 15 m/s, so that was 6-12 m: both airframes
 * 2-11 m short in calm air and a crosswind, the demo's world 4.7 m short on
 * average. With the lead -3.3..+4.2 m and 2.1 m long (docs/campaign.md,
 * 2026-12-06). */
#define NAV_FLARE_LEAD_S 0.5f

/* Field names are ArduPlane's parameter names in lower case. */
struct nav_params {
	struct l1_params l1;
	struct tecs_params tecs;
	struct launch_params launch;
	struct steer_params steer;
	/* a takeoff from the ground (all 0, the defaults: a hand launch) */
	float tkoff_tdrag_elev;   /* %, elevator held while slower than TKOFF_TDRAG_SPD1 (+ up) */
	float tkoff_tdrag_spd1;   /* m/s: the tail-hold ends, pitch held level */
	float tkoff_rotate_spd;   /* m/s: the nose comes up to the takeoff pitch */
	float tkoff_thr_slew;     /* %/s of throttle in the takeoff; 0: THR_SLEWRATE, -1: none */
	float wp_radius;          /* m, sequencing distance before a turn */
	float lim_roll_cd;        /* centidegrees, bank limit */
	float trim_arspd_cm;      /* cm/s, cruise airspeed demand */
	float level_roll_limit;   /* degrees, bank limit in takeoff and flare */
	float land_flare_alt;     /* m above the land point */
	float land_flare_sec;     /* s to touchdown at the current sink */
	/* the landing on a rangefinder (rf_land.h) */
	float rngfnd_landing;     /* RNGFND_LANDING: 1 uses a downward rangefinder on the landing */
	float land_slope_rcalc;   /* m: LAND_SLOPE_RCALC, a correction that moves this much
				     re-plans the glide path from where the aircraft is (0: never) */
};

/* ArduPlane's published defaults, with the changes this airframe needs
 * (listed in docs/flight-control.md). */
void nav_params_default(struct nav_params *p);

enum nav_task {
	NAV_TASK_IDLE = 1,   /* nothing to fly: level, cruise speed, hold height */
	NAV_TASK_LEG,
	NAV_TASK_LOITER,
	NAV_TASK_LAND,
	NAV_TASK_TAKEOFF,
};

struct nav {
	double home_lat_deg, home_lon_deg;   /* origin of the local plane */
	enum nav_task task;
	float eas_dem_m_s;                   /* 0: TRIM_ARSPD_CM */
	/* leg */
	struct nav_ne a, b, c;
	bool has_next;
	float alt_a_m, alt_b_m;
	/* loiter */
	struct nav_ne centre;
	float radius_m, loiter_alt_m;
	int direction;
	/* landing */
	struct nav_wp land_wp, approach_wp;
	struct land_path land;
	bool land_planned, flaring;
	bool rollout;                        /* on the ground after the flare (latched) */
	float rollout_settle_s;              /* how long it has been low and not sinking */
	float flare_hgt_dem_m;
	float sink_lp_m_s;                   /* low-passed sink (LAND_SINK_TAU_S) */
	/* the airspeed sensor's reading less the estimate's (whose wind is a
	 * slow state): the gusts. Its mean and variance, low-passed over
	 * NAV_GUST_TAU_S. */
	float gust_mean_m_s, gust_var_m2_s2;
	/* where the flare began: height above the land point, the sink that
	 * judged it, ground speed, distance before the land point */
	float flare_h_m, flare_sink_m_s, flare_gs_m_s, flare_d_m;
	/* takeoff */
	float tkoff_pitch_rad, tkoff_alt_m;
	bool tkoff_leg_set;
	bool tkoff_tail_done, tkoff_rotated;  /* latched: speed dips do not undo them */
	bool tkoff_pitch0_set;
	float tkoff_pitch0_rad;              /* pitch as the ground roll began */
	/* the rangefinder: its latest reading (nav_set_range), the landing's use of it */
	struct rf_reading rf_in;
	struct rf_land rf;
	float rf_replanned_m;                /* the correction the path was last planned with */
	struct steer steer;
	float throttle_applied;              /* 0..1, the motor's of the last step (the caller's, after its slew) */
	/* the hold height of the idle task */
	float idle_alt_m;
	bool idle_alt_set;
	struct l1 l1;
	struct tecs tecs;
	struct launch launch;
	uint64_t last_t_us;
};

/* What the main loop hands to control, and NAV_CONTROLLER_OUTPUT. */
struct nav_output {
	float nav_roll_rad, nav_pitch_rad;   /* demanded attitude */
	float throttle;                      /* 0..1 (before the servo slew limit) */
	float nav_bearing_rad;               /* where L1 steers, from north */
	float target_bearing_rad;            /* to the waypoint / loiter centre */
	float wp_dist_m;
	float xtrack_m;                      /* right of the track / outside the circle */
	float alt_error_m;                   /* demanded minus estimated height */
	float aspd_error_m_s;                /* demanded minus estimated airspeed */
	bool wp_reached;                     /* leg: time to sequence the next */
	bool throttle_suppressed;            /* takeoff: waiting for the launch */
	bool launched;
	bool takeoff_complete;               /* takeoff altitude reached */
	bool flaring;
	bool rollout;                        /* touched down: the ground, not the air, holds it */
	/* on the ground (below GROUND_STEER_ALT, takeoff roll and rollout) */
	bool ground_steering;                /* the rudder is steer_rudder */
	float steer_rudder;                  /* -1..1 */
	bool elevator_hold;                  /* the elevator is elevator (tail hold, rollout) */
	float elevator;                      /* -1..1, + nose up */
	float throttle_slew;                 /* %/s for the servo's slew; 0: THR_SLEWRATE, < 0: none */
	/* the landing on the rangefinder: what happened this step, the height
	 * it measures (attitude corrected) and the correction in use */
	enum rf_land_event rf_event;
	float rf_height_m, rf_correction_m;
};

/* home_lat/lon: the origin of the local plane every task is flown on. */
void nav_init(struct nav *n, double home_lat_deg, double home_lon_deg);

/* Nothing to fly: wings level, hold the height of the moment at the cruise
 * speed (also the state after nav_init). */
void nav_set_idle(struct nav *n);

/* Where the task flies to (the leg's end, the loiter centre, the land point,
 * a launched takeoff's line), height above home; false for none (idle, or a
 * takeoff not yet thrown). */
bool nav_target(const struct nav *n, struct nav_wp *out);

/* The downward rangefinder's latest reading (t_us 0: none); a landing uses it
 * with RNGFND_LANDING (rf_land.h). */
void nav_set_range(struct nav *n, const struct rf_reading *rd);
/* Airspeed demand (EAS); 0 returns to TRIM_ARSPD_CM. */
void nav_set_airspeed(struct nav *n, float eas_m_s);

/* Fly the leg a -> b, height from a's to b's along it (a mission executor
 * passes the previous and current waypoints; next, if not NULL, is the
 * waypoint after b, for the turn-aware acceptance). */
void nav_set_leg(struct nav *n, const struct nav_wp *a, const struct nav_wp *b,
		 const struct nav_wp *next);

/* Loiter at centre (its alt_rel_m is the height), radius_m, direction +1
 * clockwise or -1 anticlockwise. */
void nav_set_loiter(struct nav *n, const struct nav_wp *centre, float radius_m, int direction);

/* Land at land_wp after a straight approach from approach_wp (the previous
 * waypoint, at the approach height). The glide path is planned at the first
 * update from the ground speed then. */
void nav_set_land(struct nav *n, const struct nav_wp *approach_wp, const struct nav_wp *land_wp);

/* Takeoff: throttle off until the launch detector fires, then full throttle
 * (slewed at TKOFF_THR_SLEW), wings within LEVEL_ROLL_LIMIT on the launch
 * heading, pitch_deg nose up (lower only while slower than ARSPD_FBW_MIN),
 * until alt_rel_m. From the ground: the elevator at TKOFF_TDRAG_ELEV while
 * slower than TKOFF_TDRAG_SPD1, then the nose level until TKOFF_ROTATE_SPD,
 * steering on the runway heading below GROUND_STEER_ALT. */
void nav_set_takeoff(struct nav *n, float pitch_deg, float alt_rel_m);

/* What the landing approach adds to its airspeed for the gusts measured (m/s). */
float nav_gust_margin_m_s(const struct nav *n);

/* One step of dt_s. accel_body_m_s2 (may be NULL) is the IMU's specific
 * force, body axes: TECS uses its x for the speed derivative and the launch
 * detector for the throw. Without VEHICLE_AIRSPEED_VALID TECS runs its
 * no-airspeed mode; without VEHICLE_POSITION_VALID the bank demand is 0. */
void nav_update(struct nav *n, const struct nav_params *p, const struct vehicle_state *vs,
		const float *accel_body_m_s2, float dt_s, struct nav_output *out);

#endif
