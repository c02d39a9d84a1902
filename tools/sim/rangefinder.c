// SPDX-License-Identifier: GPL-3.0-or-later
#include "rangefinder.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

/*
 * The two kinds, from their makers' figures:
 * - sf11: LightWare SF11/C laser altimeter (product manual): 0.2-120 m, 1 cm
 *   resolution, +-0.1 m accuracy (0.05 m taken as one sigma), 20 readings a
 *   second; on a lost signal it can report an out-of-range distance
 *   (130 m), as this model's no-return does (past max_m).
 * - tfmini: Benewake TFmini-S datasheet (SJ-GU-TFmini-S-01 A00): 0.1-12 m
 *   at 90 % reflectivity, +-6 cm to 6 m and +-1 % beyond (0.03 m and 0.5 %
 *   taken as one sigma), 1 cm resolution, 100 Hz frames, sent at 20 Hz here.
 * The rest are estimates, not measurements: a fifth of the readings below
 * 3 m come off the grass tops (up to 10 cm short), 1 % of readings have no
 * return, and a laser on grass gets no return past 45 degrees from the
 * ground's normal (a wing-tip-down bank near the ground).
 */
void sim_rangefinder_config_for(enum sim_rangefinder_kind kind, struct sim_rangefinder_config *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->rate_hz = 20.0;
	c->resolution_m = 0.01;
	c->grass_below_m = 3.0;
	c->grass_p = 0.2;
	c->grass_height_m = 0.10;
	c->dropout_p = 0.01;
	c->max_incidence_deg = 45.0;
	switch (kind) {
	case SIM_RANGEFINDER_SF11:
		c->name = "sf11";
		c->min_m = 0.2;
		c->max_m = 120.0;
		c->sigma_m = 0.05;
		break;
	case SIM_RANGEFINDER_TFMINI:
		c->name = "tfmini";
		c->min_m = 0.1;
		c->max_m = 12.0;
		c->sigma_m = 0.03;
		c->sigma_frac = 0.005;
		c->fov_deg = 2.0;
		break;
	default:
		c->kind = SIM_RANGEFINDER_NONE;
		c->name = "none";
		break;
	}
}

int sim_rangefinder_config_by_name(const char *name, struct sim_rangefinder_config *c)
{
	if (strcmp(name, "sf11") == 0)
		sim_rangefinder_config_for(SIM_RANGEFINDER_SF11, c);
	else if (strcmp(name, "tfmini") == 0)
		sim_rangefinder_config_for(SIM_RANGEFINDER_TFMINI, c);
	else
		return -ENOENT;
	return 0;
}

void sim_rangefinder_init(struct sim_rangefinder *r, const struct sim_rangefinder_config *cfg,
			  uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	sim_rng_init(&r->rng, seed, 0x726e6766ull);   /* "rangefinder": its own stream */
}

double sim_rangefinder_beam_m(const struct sim_terrain *terrain, struct v3 pos, struct quat att,
			      double *incidence_deg)
{
	struct v3 d = quat_rotate(att, v3_make(0.0, 0.0, 1.0));
	*incidence_deg = 90.0;
	if (d.z <= 1e-3)
		return -1.0;
	/* Where the beam meets z = -height(x, y): a fixed point that converges
	 * while the ground's slope along the beam is gentler than the beam, as
	 * a field's is; flat ground is exact at the first step. */
	double t = 0.0;
	for (int i = 0; i < 20; i++) {
		double h = sim_terrain_height_m(terrain, pos.x + t * d.x, pos.y + t * d.y);
		double t2 = (-h - pos.z) / d.z;
		bool done = fabs(t2 - t) < 1e-4;
		t = t2;
		if (done)
			break;
	}
	if (t < 0.0)
		return -1.0;
	double gn, ge;
	sim_terrain_gradient(terrain, pos.x + t * d.x, pos.y + t * d.y, &gn, &ge);
	/* The ground's normal, up: (-gn, -ge, -1) normalised, in NED. */
	double nl = sqrt(gn * gn + ge * ge + 1.0);
	double c = (gn * d.x + ge * d.y + d.z) / nl;
	*incidence_deg = acos(c > 1.0 ? 1.0 : c) / DEG;
	return t;
}

bool sim_rangefinder_step(struct sim_rangefinder *r, const struct sim_terrain *terrain, struct v3 pos,
			  struct quat att, uint64_t t_us, struct sim_rangefinder_reading *out)
{
	const struct sim_rangefinder_config *c = &r->cfg;
	if (c->kind == SIM_RANGEFINDER_NONE || c->rate_hz <= 0.0)
		return false;
	if (!r->started) {
		/* Its schedule starts at its first call, as the other sensors' do. */
		r->started = true;
		r->next_us = t_us;
	}
	if (t_us < r->next_us)
		return false;
	uint64_t per = (uint64_t)llround(1e6 / c->rate_hz);
	r->next_us = r->next_us + per <= t_us ? t_us + per : r->next_us + per;
	double inc;
	double range = sim_rangefinder_beam_m(terrain, pos, att, &inc);
	/* Every reading draws the same four numbers, return or not, so that a
	 * flight's later readings do not depend on its earlier ranges. */
	double u_drop = sim_rng_uniform(&r->rng), u_grass = sim_rng_uniform(&r->rng);
	double u_grass_h = sim_rng_uniform(&r->rng), g = sim_rng_gauss(&r->rng);
	out->t_us = t_us;
	out->true_m = range;
	bool ret = range >= 0.0 && inc <= c->max_incidence_deg && u_drop >= c->dropout_p;
	double m = range;
	if (ret && range < c->grass_below_m && u_grass < c->grass_p)
		m -= u_grass_h * c->grass_height_m;
	double sigma = fmax(c->sigma_m, c->sigma_frac * range);
	m += sigma * g;
	if (c->resolution_m > 0.0)
		m = round(m / c->resolution_m) * c->resolution_m;
	if (!ret || m > c->max_m || m < c->min_m) {
		/* Out of range or nothing back: past the maximum, as an SF11/C's
		 * out-of-range output and DISTANCE_SENSOR's convention have it. */
		out->valid = false;
		out->distance_m = c->max_m + 0.01;
		out->signal_quality = 1;
		return true;
	}
	out->valid = true;
	out->distance_m = m;
	/* The return weakens with the range and the angle: 100 close, straight
	 * down; never below 10 while there is one. */
	double q = 100.0 * (1.0 - 0.5 * range / c->max_m) * cos(inc * DEG);
	out->signal_quality = (uint8_t)(q < 10.0 ? 10 : (q > 100.0 ? 100 : lround(q)));
	return true;
}
