// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/landing.h"

#include <errno.h>
#include <math.h>

int land_path_plan(struct land_path *lp, struct nav_ne start, float start_alt_m, struct nav_ne land,
		   float land_alt_m, float gs_m_s, float land_flare_alt_m, float land_flare_sec,
		   float tecs_land_sink_m_s)
{
	float len = nav_geo_distance_m(start, land);
	float dh = start_alt_m - land_alt_m;
	if (len < 20.0f || dh < 1.0f || !(gs_m_s > 1.0f))
		return -EINVAL;
	/* The touchdown's slope: TECS_LAND_SINK at the ground speed, but never
	 * more than half the mean slope. Into a strong wind the ground speed is
	 * so low that the glide path itself sinks gentler than TECS_LAND_SINK
	 * (15 m/s into 10 m/s on a 1 in 12 path: 0.4 m/s); a flare that asked
	 * for more sink than that would be no flare, and the plan would fail. */
	float b = fminf(tecs_land_sink_m_s / gs_m_s, 0.5f * dh / len);
	/* the glide slope passes through (d_f, h_f), which depend on the slope:
	 * a fixed point iteration converges in a few steps for any sane approach */
	float tg = dh / len, hf = land_flare_alt_m, df = 0.0f;
	for (int i = 0; i < 8; i++) {
		float sink = tg * gs_m_s;
		hf = fmaxf(land_flare_alt_m, land_flare_sec * sink);
		/* A glide that sinks no more than twice the touchdown's (into a
		 * strong wind) needs little flare: from LAND_FLARE_SEC above the
		 * ground, not from LAND_FLARE_ALT, which at that slow a pace
		 * would take a power-off flare 10 s and more. */
		if (sink <= 2.0f * tecs_land_sink_m_s)
			hf = fmaxf(land_flare_sec * sink, 0.3f);
		if (hf > 0.5f * dh)
			hf = 0.5f * dh;
		df = 2.0f * hf / (tg + b);
		if (df > 0.5f * len)
			df = 0.5f * len;
		tg = (dh - hf) / (len - df);
	}
	if (tg <= b)
		return -EINVAL;
	lp->start = start;
	lp->land = land;
	lp->land_alt_m = land_alt_m;
	lp->length_m = len;
	lp->tan_gamma = tg;
	lp->flare_h_m = hf;
	lp->flare_d_m = df;
	lp->b = b;
	/* slope tg at d_f; height a df^2 + b df = hf would need df = 2 hf / (tg + b),
	 * met unless clamped above: take the slope condition */
	lp->a = (tg - b) / (2.0f * df);
	lp->flare_h_m = lp->a * df * df + b * df;
	lp->aimed = false;
	return 0;
}

float land_path_dist_m(const struct land_path *lp, struct nav_ne p)
{
	return lp->length_m - nav_geo_along_m(lp->start, lp->land, p);
}

float land_path_height_m(const struct land_path *lp, float d)
{
	float h;
	if (d >= lp->flare_d_m)
		h = lp->flare_h_m + lp->tan_gamma * (d - lp->flare_d_m);
	else if (d >= 0.0f)
		h = lp->a * d * d + lp->b * d;
	else
		h = lp->b * d;
	return lp->land_alt_m + h;
}

float land_flare_sink_m_s(const struct land_path *lp, float h_m, float gs_m_s)
{
	if (h_m < 0.0f)
		h_m = 0.0f;
	float s = gs_m_s * sqrtf(lp->b * lp->b + 4.0f * lp->a * h_m);
	return s > LAND_SINK_MIN_M_S ? s : LAND_SINK_MIN_M_S;
}

bool land_should_flare(const struct land_path *lp, float d_m, float hgt_m, float sink_m_s,
		       float land_flare_alt_m, float land_flare_sec)
{
	float h = hgt_m - lp->land_alt_m;
	if (d_m <= lp->flare_d_m || h <= fminf(land_flare_alt_m, lp->flare_h_m))
		return true;
	/* Not in the first half: a gust's sink far out would start the
	 * flare, throttle off, with most of the approach still to fly. */
	return d_m < 0.5f * lp->length_m && sink_m_s > 0.1f && h / sink_m_s <= land_flare_sec;
}

bool land_flare_aim(struct land_path *lp, float d0_m, float h0_m)
{
	lp->aimed = d0_m > 1.0f && h0_m > 0.0f;
	if (!lp->aimed)
		return false;
	lp->aim_d0_m = d0_m;
	lp->aim_h0_m = h0_m;
	lp->aim_a = (h0_m - lp->b * d0_m) / (d0_m * d0_m);
	return true;
}

float land_flare_aim_height_m(const struct land_path *lp, float d_m)
{
	if (d_m >= lp->aim_d0_m)
		return lp->aim_h0_m;
	if (d_m <= 0.0f)
		return lp->b * d_m;
	return lp->aim_a * d_m * d_m + lp->b * d_m;
}
