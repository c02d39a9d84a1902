// SPDX-License-Identifier: GPL-3.0-or-later
/* Atmosphere and wind for the simulator. Pure: state in caller structs, time
 * steps as arguments. */
#ifndef FULMAR_SIM_ATMOS_H
#define FULMAR_SIM_ATMOS_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "sim_math.h"

#define SIM_G0_M_S2 9.80665       /* standard gravity */
#define SIM_RHO0_KG_M3 1.225      /* ISA sea-level density */

struct sim_atmos {
	double temp_k;
	double pressure_pa;
	double density_kg_m3;
};

/* International Standard Atmosphere (ISO 2533 / ICAO Doc 7488), troposphere and
 * lower stratosphere (to 20 km geopotential), for an altitude above mean sea
 * level. temp_offset_k shifts the whole temperature profile (an ISA+15 day). */
void sim_atmos_isa(double alt_msl_m, double temp_offset_k, struct sim_atmos *out);

struct sim_wind_config {
	double speed_m_s;          /* steady wind speed */
	double from_deg;           /* direction the wind blows FROM, true, as in a METAR */
	/* Discrete "1 - cos" gusts (MIL-F-8785C 3.7.2.4 shape) at random times. */
	double gust_max_m_s;       /* peak gust amplitude; 0 = no gusts */
	double gust_mean_interval_s;
	double gust_length_s;      /* duration of one gust */
	/* Dryden turbulence, MIL-F-8785C low-altitude model: sigma_w = 0.1 * W20.
	 * W20 is the wind speed at 20 ft: about 7.7 m/s light, 15.4 moderate,
	 * 23.1 severe. 0 = no turbulence. */
	double turb_w20_m_s;
	uint64_t seed;
};

struct sim_wind {
	struct sim_wind_config cfg;
	struct sim_rng rng_turb;
	struct sim_rng rng_gust;
	/* Dryden filter states: u first order; v and w two states each. */
	double tu;
	double tv1, tv2;
	double tw1, tw2;
	struct v3 turb_m_s;        /* last turbulence in NED */
	uint64_t turb_due_us;      /* time stepped that the turbulence has not yet ticked over */
	/* gust in progress */
	double gust_t_s;           /* time into the current gust; < 0 = none */
	double gust_next_s;        /* time to the next gust */
	struct v3 gust_peak_ned_m_s;
};

void sim_wind_init(struct sim_wind *w, const struct sim_wind_config *cfg);
/* The turbulence's own clock: its filters tick every SIM_TURB_TICK_US of the
 * time stepped, whatever the steps, so one seed is the same air at every
 * physics rate (a 400 Hz step ticks it 2 or 3 times, a 2 kHz step every
 * other step) and flights at different sensor rates meet the same gusts. */
#define SIM_TURB_TICK_US 1000u
/* Advance the wind by dt_s and return the wind (air velocity over ground) in
 * NED at the aircraft. alt_agl_m feeds the Dryden scale lengths (clamped to
 * 10 ft .. 1000 ft); airspeed_m_s is the frozen-field speed (clamped >= 1). */
struct v3 sim_wind_step(struct sim_wind *w, double dt_s, double alt_agl_m, double airspeed_m_s);
/* The steady part alone. */
struct v3 sim_wind_steady_ned(const struct sim_wind_config *cfg);

#endif
