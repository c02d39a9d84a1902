// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/rf_land.h"

#include <math.h>
#include <string.h>

void rf_land_init(struct rf_land *r)
{
	memset(r, 0, sizeof(*r));
}

void rf_land_end(struct rf_land *r)
{
	r->in_use = false;
}

enum rf_land_event rf_land_update(struct rf_land *r, const struct rf_reading *rd, float cz,
				  float hat_m, bool landing)
{
	if (!rd || rd->t_us == 0 || rd->t_us <= r->last_t_us)
		return RF_LAND_NONE;
	float dt_s = r->last_t_us ? (float)(rd->t_us - r->last_t_us) * 1e-6f : 0.0f;
	r->last_t_us = rd->t_us;
	/* a beam that does not point at the ground measures no height */
	bool ok = rd->good && isfinite(rd->range_m) && rd->range_m >= 0.0f && isfinite(cz) &&
		  cz > 0.0f && isfinite(hat_m) && rd->max_m > 0.0f;
	if (!ok) {
		r->in_range_count = 0;
		r->in_range = false;
		return RF_LAND_NONE;
	}
	enum rf_land_event ev = RF_LAND_NONE;
	float range = rd->range_m;
	if (!r->have_initial) {
		r->have_initial = true;
		r->initial_range_m = range;
		r->last_range_m = range;
	}
	r->height_m = range * cz;
	if (r->in_range_count < RF_LAND_IN_RANGE_COUNT) {
		/* once it has shown it moves, 10 good readings bring it back */
		if (range != r->last_range_m &&
		    (r->proven || fabsf(r->initial_range_m - range) > RF_LAND_MOVE_FRAC * rd->max_m))
			r->in_range_count++;
		if (fabsf(r->last_range_m - range) > RF_LAND_JUMP_FRAC * rd->max_m)
			r->in_range_count = 0;
	} else {
		r->in_range = true;
		r->proven = true;
		if (landing && !r->in_use) {
			r->in_use = true;
			ev = RF_LAND_ENGAGED;
		}
	}
	r->last_range_m = range;
	if (!r->in_range)
		return ev;

	float corr = hat_m - r->height_m;
	bool stale = !r->have_correction || rd->t_us - r->correction_t_us > RF_LAND_STALE_US;
	r->correction_t_us = rd->t_us;
	if (stale) {
		r->correction_m = corr;
		r->initial_correction_m = corr;
		r->have_correction = true;
		return ev;
	}
	r->correction_m += (corr - r->correction_m) * dt_s / (RF_LAND_TAU_S + dt_s);
	if (fabsf(r->correction_m - r->initial_correction_m) > RF_LAND_DISENGAGE_M) {
		bool was = r->in_use;
		uint64_t t = r->last_t_us;
		rf_land_init(r);
		r->last_t_us = t;
		return was ? RF_LAND_DISENGAGED : RF_LAND_NONE;
	}
	return ev;
}

float rf_land_correction(struct rf_land *r, uint64_t now_us, enum rf_land_event *event)
{
	if (event)
		*event = RF_LAND_NONE;
	if (!r->in_use || !r->have_correction)
		return 0.0f;
	if (now_us > r->correction_t_us && now_us - r->correction_t_us > RF_LAND_STALE_US) {
		r->in_use = false;
		if (event)
			*event = RF_LAND_LOST;
		return 0.0f;
	}
	return r->correction_m;
}
