// SPDX-License-Identifier: GPL-3.0-or-later
/* An airframe's figures measured from the flight model (model.h): stall
 * speed, best glide, roll rate, take-off run; a multirotor's hover. Pure, as the model is: what
 * docs/simulator.md tables is what these functions measure (fulmar-sim
 * --figures prints them; tests/unit/test_sim_airframe.c checks them). All in
 * still air at the density given. */
#ifndef FULMAR_SIM_PERF_H
#define FULMAR_SIM_PERF_H

#include <stdbool.h>

#include "model.h"

/* Power-off stall speed: the lowest airspeed with a steady glide on the
 * front side of the lift curve (bisection to 1 cm/s). 0, or -EDOM when no
 * glide between 3 and 40 m/s trims. */
int sim_perf_stall_speed(const struct sim_airframe *p, double rho, double *vs_m_s);

/* Best power-off glide ratio and its airspeed (scanned in 0.1 m/s steps from
 * the stall speed up to 40 m/s). */
int sim_perf_best_glide(const struct sim_airframe *p, double rho, double *ratio,
			double *speed_m_s);

/* Roll rate at a full aileron command (aileron, elevator... as in struct
 * sim_controls: 1 is the airframe's full travel) from level trim at
 * speed_m_s: the fastest body roll rate within one second, deg/s. */
int sim_perf_roll_rate(const struct sim_airframe *p, double rho, double speed_m_s, double aileron,
		       double *rate_deg_s);

/* A take-off run on wheels from rest, motor off and settled: full throttle,
 * rudder and aileron neutral; the elevator neutral until rotate_m_s of
 * airspeed, then rotate_elevator. Lift-off is the first moment from which no
 * wheel or contact point touches for half a second. */
struct sim_perf_takeoff {
	double ground_roll_m;          /* from the start to lift-off, over the ground */
	double time_s;                 /* from opening the throttle */
	double liftoff_speed_m_s;      /* airspeed */
	double heading_change_max_deg; /* the largest heading change on the ground */
	double pitch_rest_deg;         /* the attitude at rest before the run */
};
/* 0, -ENOTSUP without wheels, -ETIMEDOUT when it has not lifted off after 60 s. */
int sim_perf_takeoff(const struct sim_airframe *p, double rho, double rotate_m_s,
		     double rotate_elevator, struct sim_perf_takeoff *out);

/* A multirotor's hover, out of ground effect in still air on a full pack:
 * the output, the same for every motor, whose thrust holds the weight with
 * the pack sagging under the current it draws (bisection to 1e-7); and the
 * most it has: every motor at full output on a full pack. Measured through
 * sim_forces_eval, as the model flies. */
struct sim_perf_hover {
	double throttle;                   /* each motor's output 0..1 */
	double motor_rad_s;
	double batt_current_a, batt_voltage_v;
	double thrust_max_n;               /* all motors at full output, static */
	double thrust_weight_max;          /* thrust_max_n over the weight */
	double batt_current_max_a;
};
/* 0, -ENOTSUP without rotors, -ERANGE when full output cannot hold the weight. */
int sim_perf_hover(const struct sim_airframe *p, double rho, struct sim_perf_hover *out);
/* A state hovering height_m above home as h found it: level, still, the
 * motors at the hover's output and speed, the pack sagged as there. */
void sim_perf_hover_state(const struct sim_airframe *p, const struct sim_perf_hover *h, double height_m,
			  struct sim_state *s);

/* Settles a state at rest on the ground (as sim_state_init, then 2 s with
 * the motor off in still air), for the take-off and ground handling. */
void sim_perf_at_rest(const struct sim_airframe *p, double rho, struct sim_state *s);

/* Heading (yaw) of a state, degrees, -180..180. */
double sim_perf_heading_deg(const struct sim_state *s);

#endif
