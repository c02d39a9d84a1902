/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Closed-loop flight tests: the simulator's 6-DOF model stepped at 1 kHz in
 * wind and turbulence, its TRUE state handed to fulmar's navigation and
 * control as a struct vehicle_state, their servo pulses turned back into the
 * model's normalised controls with the default channel map (1 aileron,
 * 2 elevator, 3 throttle, 4 rudder; (pwm - 1500) / 500, throttle
 * ((pwm - 1500) / 500 + 1) / 2).
 */
#ifndef FULMAR_TEST_FLIGHT_HARNESS_H
#define FULMAR_TEST_FLIGHT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "atmos.h"
#include "control/attitude.h"
#include "control/servo.h"
#include "geo.h"
#include "model.h"
#include "nav/nav.h"

#define FLIGHT_SIM_HZ 1000

struct flight_config {
	double wind_m_s, wind_from_deg;
	double turb_w20_m_s;       /* Dryden; 0 = none */
	double gust_m_s;           /* peak gusts; 0 = none */
	int control_hz;            /* 50..400; must divide 1000 */
	uint64_t seed;
};

struct flight {
	/* the world */
	struct sim_airframe af;
	struct sim_state s;
	struct sim_wind wind;
	struct sim_lla home;
	struct v3 wind_ned;
	int div;
	/* fulmar */
	struct vehicle_state vs;
	float accel_body[3];
	struct nav nav;
	struct nav_params np;
	struct nav_output nav_out;
	struct ctl ctl;
	struct ctl_params cp;
	struct ctl_surfaces surf;
	struct servo servo;
	struct servo_params sp;
	uint16_t pwm[SERVO_CHANNELS];
	struct sim_controls u;
	/* no airspeed sensor: the state's airspeed is marked invalid */
	bool no_airspeed;
	/* attitude-only flying (FBWA): nav not run; the test sets the demands */
	bool attitude_only;
	float roll_dem_rad, pitch_dem_rad, throttle_dem;
	/* the estimate's height this far above the truth (a baro or GPS error) */
	float alt_bias_m;
	/* a downward rangefinder (nav_set_range) reading the true height along
	 * the body's down axis at 20 Hz, good within 0.2..rf_max_m (0: none) */
	float rf_max_m;
	double rf_next_s;
	double dt_ctl;
};

/* Defaults everywhere; servo ranges 1000..2000 us so the full travel maps
 * onto the simulator's -1..1 (an installation's calibration, not a gain). */
void flight_init(struct flight *f, const struct flight_config *cfg);
/* Put the aircraft in trimmed level flight at airspeed_m_s, height_m, heading_deg,
 * north_m / east_m from home. */
void flight_trimmed(struct flight *f, double airspeed_m_s, double height_m, double heading_deg,
		    double north_m, double east_m);
/* The true state as the estimator would publish it. */
void flight_truth(const struct flight *f, struct vehicle_state *vs, float accel_body[3]);
/* The simulator's controls from the pulses. */
void flight_controls_from_pwm(const uint16_t pwm[SERVO_CHANNELS], struct sim_controls *u);
/* One control period: truth -> nav (unless attitude_only) -> control -> servos
 * -> the model stepped at 1 kHz to the next control time. */
void flight_step(struct flight *f);

/* A waypoint at north/east metres from home, alt above home. */
struct nav_wp flight_wp(const struct flight *f, double north_m, double east_m, float alt_m);
/* The aircraft's position NE from home, metres. */
struct nav_ne flight_pos(const struct flight *f);
double flight_height(const struct flight *f);

#endif
