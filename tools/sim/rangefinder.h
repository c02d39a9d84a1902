// SPDX-License-Identifier: GPL-3.0-or-later
/* A downward laser rangefinder: its beam along the body's down axis to the
 * ground (terrain.h), so that a bank or a pitch lengthens it; noise, range
 * limits, returns off the grass tops when low, and dropouts. Pure and
 * seeded, on its own random stream. Figures and sources in rangefinder.c and
 * docs/simulator.md, "The rangefinder". */
#ifndef FULMAR_SIM_RANGEFINDER_H
#define FULMAR_SIM_RANGEFINDER_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "sim_math.h"
#include "terrain.h"

enum sim_rangefinder_kind {
	SIM_RANGEFINDER_NONE = 0,          /* no rangefinder (the default) */
	SIM_RANGEFINDER_SF11 = 1,          /* LightWare SF11/C-like: 0.2-120 m */
	SIM_RANGEFINDER_TFMINI,            /* Benewake TFmini-S-like: 0.1-12 m */
	SIM_RANGEFINDER_KIND_COUNT
};

struct sim_rangefinder_config {
	enum sim_rangefinder_kind kind;
	const char *name;
	double min_m, max_m;
	double rate_hz;                   /* readings out (DISTANCE_SENSOR) */
	double sigma_m, sigma_frac;       /* noise: the larger of sigma_m and sigma_frac * range */
	double resolution_m;
	/* Grass: below grass_below_m of range a reading comes off the grass
	 * tops with probability grass_p, short by up to grass_height_m. */
	double grass_below_m, grass_p, grass_height_m;
	double dropout_p;                 /* a reading without a return, at any range */
	double max_incidence_deg;         /* no return past this angle to the ground's normal */
	double fov_deg;                   /* the beam's width (0: not given) */
};

struct sim_rangefinder_reading {
	uint64_t t_us;
	double true_m;                    /* the beam's length to the ground (-1: no ground ahead) */
	double distance_m;                /* as the sensor reports it */
	bool valid;                       /* a return: false reads past max_m */
	uint8_t signal_quality;           /* DISTANCE_SENSOR: 1 invalid .. 100 best */
};

struct sim_rangefinder {
	struct sim_rangefinder_config cfg;
	struct sim_rng rng;
	uint64_t next_us;
	bool started;
};

/* The kind called name ("sf11", "tfmini"): 0, or -ENOENT. */
int sim_rangefinder_config_by_name(const char *name, struct sim_rangefinder_config *c);
void sim_rangefinder_config_for(enum sim_rangefinder_kind kind, struct sim_rangefinder_config *c);

void sim_rangefinder_init(struct sim_rangefinder *r, const struct sim_rangefinder_config *cfg,
			  uint64_t seed);

/* The beam's length from pos_ned_m along att's body down axis to the
 * ground, or -1 when it does not meet the ground ahead (pointing up). The
 * angle between the beam and the ground's normal in *incidence_deg. */
double sim_rangefinder_beam_m(const struct sim_terrain *terrain, struct v3 pos_ned_m, struct quat att,
			      double *incidence_deg);

/* A reading if one is due at t_us (true), from the aircraft at pos, att. */
bool sim_rangefinder_step(struct sim_rangefinder *r, const struct sim_terrain *terrain, struct v3 pos_ned_m,
			  struct quat att, uint64_t t_us, struct sim_rangefinder_reading *out);

#endif
