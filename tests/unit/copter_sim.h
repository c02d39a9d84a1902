/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A multicopter for the closed-loop tests of src/copter: a point mass whose
 * thrust points along the tilted body z. The attitude follows the commanded
 * roll and pitch through a first-order lag (standing in for the attitude
 * controller, which is not under test here); the throttle goes through the
 * real mixer (copter_motors, quad X, no attitude demands) whose limit flags
 * the controllers get back, and the thrust follows the mixer through a
 * motor lag. Quadratic drag on the velocity, a constant wind force, optional
 * gusts (a first-order Gauss-Markov force), and a flat ground at altitude 0
 * that stops the vehicle. The estimate it gives is the truth.
 */
#ifndef FULMAR_TESTS_COPTER_SIM_H
#define FULMAR_TESTS_COPTER_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "copter/motors.h"
#include "copter/psc.h"

struct copter_sim_params {
	float mass_kg;            /* 1.5 */
	float hover_throttle;     /* 0.4: full thrust is mass g / 0.4 */
	float drag_n_per_m2s2;    /* quadratic drag, N per (m/s)^2 */
	float att_tau_s;          /* attitude lag, 0.1 s */
	float thrust_tau_s;       /* motor lag, 0.03 s */
	float wind_force_ne_n[2]; /* constant */
	float gust_sigma_n;       /* gusts' standard deviation per axis (NE), 0 none */
	float gust_tau_s;         /* their correlation time */
	uint32_t seed;
};

/* 1.5 kg, hover 0.4, drag of 0.5 rho CdA with CdA 0.06 m^2 (0.0368 N/(m/s)^2:
 * 2.5 m/s/s at 10 m/s), lags 0.1 and 0.03 s, no wind. */
void copter_sim_params_default(struct copter_sim_params *p);

/* The force a wind of speed_m_s blowing towards heading_rad exerts on the
 * vehicle at rest under p's drag. */
void copter_sim_wind_force(const struct copter_sim_params *p, float speed_m_s, float heading_rad,
			   float out_ne_n[2]);

struct copter_sim {
	struct copter_sim_params p;
	float pos_ne_m[2], alt_m;
	float vel_ned_m_s[3];
	float accel_ned_m_s2[3];  /* kinematic, last step */
	float roll_rad, pitch_rad, yaw_rad;
	float thrust_n;
	float gust_n[2];
	bool on_ground;
	bool att_stuck;           /* the attitude ignores commands (a flip, a failure) */
	uint32_t rng;
	struct copter_motors motors;
	struct copter_motors_params mp;
	struct copter_motors_out mo;
};

/* At rest at (0, 0, alt_m), level, heading yaw_rad; the mixer armed and,
 * when alt_m > 0, spooled up and carrying the hover thrust (a vehicle in
 * flight), else at ground idle on the ground. */
void copter_sim_init(struct copter_sim *s, const struct copter_sim_params *p, float alt_m,
		     float yaw_rad);

/* One step of dt_s with the controller's lean and throttle; `armed` false
 * shuts the motors down. */
void copter_sim_step(struct copter_sim *s, float roll_cmd_rad, float pitch_cmd_rad, float throttle,
		     bool armed, float dt_s);

/* The estimate (the truth), all valid. */
void copter_sim_meas(const struct copter_sim *s, struct copter_psc_meas *m);

/*
 * One closed-loop step: the estimate to the position controller (whose
 * targets the caller has set for this step), its lean and throttle to the
 * vehicle. The controller gets the mixer's flags of the last step and the
 * vehicle's hover throttle as MOT_THST_HOVER.
 */
void copter_sim_fly(struct copter_sim *s, struct copter_psc *c, const struct copter_psc_params *pp,
		    float dt_s, struct copter_psc_out *out);

/* The mixer's flags and state after the last step. */
static inline struct copter_motors_limit copter_sim_limit(const struct copter_sim *s)
{
	return s->mo.limit;
}

#endif
