// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/rangefinder.h"

#include <math.h>
#include <string.h>

void rangefinder_init(struct rangefinder *r)
{
	memset(r, 0, sizeof(*r));
	r->same_alt_m = NAN;
	r->out.status = RANGEFINDER_NOT_CONNECTED;
}

const char *rangefinder_status_name(enum rangefinder_status s)
{
	switch (s) {
	case RANGEFINDER_NOT_CONNECTED: return "NotConnected";
	case RANGEFINDER_NO_DATA: return "NoData";
	case RANGEFINDER_OUT_OF_RANGE_LOW: return "OutOfRangeLow";
	case RANGEFINDER_OUT_OF_RANGE_HIGH: return "OutOfRangeHigh";
	case RANGEFINDER_GOOD: return "Good";
	}
	return "?";
}

/* The stuck rule (rangefinder.h) on one new reading. */
static void watch_stuck(struct rangefinder *r, const struct range_sample *s, float alt_m)
{
	if (s->reading != RANGE_READING_OK) {
		r->stuck = false;
		r->same_since_us = 0;
		return;
	}
	if (!r->same_since_us || s->raw != r->same_raw || !isfinite(alt_m) ||
	    !isfinite(r->same_alt_m) || s->t_us < r->same_since_us) {
		r->same_raw = s->raw;
		r->same_since_us = s->t_us;
		r->same_alt_m = alt_m;
		r->alt_min_m = r->alt_max_m = alt_m;
		r->stuck = false;
		return;
	}
	r->alt_min_m = fminf(r->alt_min_m, alt_m);
	r->alt_max_m = fmaxf(r->alt_max_m, alt_m);
	if (s->t_us - r->same_since_us >= RANGEFINDER_STUCK_US &&
	    r->alt_max_m - r->alt_min_m >= RANGEFINDER_STUCK_ALT_M)
		r->stuck = true;
}

void rangefinder_update(struct rangefinder *r, const struct rangefinder_params *p,
			const struct range_sample *s, float alt_m, uint64_t now_us)
{
	struct rangefinder_reading *o = &r->out;
	if (s) {
		r->have = true;
		r->last = *s;
		watch_stuck(r, s, alt_m);
	}
	o->stuck = r->stuck;
	o->t_us = r->have ? r->last.t_us : 0;
	o->distance_m = r->have && r->last.reading == RANGE_READING_OK ? r->last.distance_m : 0.0f;
	o->height_m = o->distance_m - p->gndclear_m;
	if (p->type == 0) {
		o->status = RANGEFINDER_NOT_CONNECTED;
	} else if (!r->have || (now_us > r->last.t_us &&
				now_us - r->last.t_us > RANGEFINDER_DATA_TIMEOUT_US)) {
		o->status = RANGEFINDER_NO_DATA;
	} else if (r->last.reading != RANGE_READING_OK) {
		o->status = RANGEFINDER_OUT_OF_RANGE_HIGH;
	} else {
		/* the limits inclusive, to the reading's 0.1 mm (20 cm * 0.01f is under 0.2f) */
		float lo = p->min_m - 1e-4f, hi = p->max_m + 1e-4f;
		if (r->last.min_m - 1e-4f > lo)
			lo = r->last.min_m - 1e-4f;
		if (r->last.max_m > 0.0f && r->last.max_m + 1e-4f < hi)
			hi = r->last.max_m + 1e-4f;
		o->status = o->distance_m > hi ? RANGEFINDER_OUT_OF_RANGE_HIGH :
			    o->distance_m < lo ? RANGEFINDER_OUT_OF_RANGE_LOW : RANGEFINDER_GOOD;
	}
	o->healthy = o->status == RANGEFINDER_GOOD && !o->stuck;
}

const struct rangefinder_reading *rangefinder_get(const struct rangefinder *r)
{
	return &r->out;
}
