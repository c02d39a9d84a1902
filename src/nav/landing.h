/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Landing approach geometry: a straight glide path from the approach start to
 * the flare, then a flare path that meets the ground at the land point sinking
 * at TECS_LAND_SINK. Pure; any thread.
 *
 * Distances d are along the approach, measured back from the land point
 * (d > 0 before it). The path's height above the land point is
 *   d >= d_f:   h_f + tan(gamma) (d - d_f)                (glide slope)
 *   0 <= d < d_f: a d^2 + b d, b = sink_land / V           (flare, a parabola
 *               whose slope is tan(gamma) at d_f and b at touchdown)
 *   d < 0:      b d                                        (keep sinking gently)
 * where h_f = max(LAND_FLARE_ALT, LAND_FLARE_SEC * sink on the glide slope):
 * the flare starts where either of ArduPilot's triggers would fire on the path;
 * but a glide that sinks no more than twice TECS_LAND_SINK (into a strong
 * wind) flares from LAND_FLARE_SEC alone, and b is at most half the slope.
 */
#ifndef FULMAR_NAV_LANDING_H
#define FULMAR_NAV_LANDING_H

#include <stdbool.h>

#include "nav/nav_geo.h"

struct land_path {
	struct nav_ne start, land;    /* approach start and land point */
	float land_alt_m;             /* height of the land point (above home) */
	float length_m;               /* start to land point */
	float tan_gamma;              /* glide slope */
	float flare_h_m, flare_d_m;   /* where the flare begins */
	float a, b;                   /* the flare parabola */
	/* the flare as flown, aimed from where it began (land_flare_aim) */
	bool aimed;
	float aim_d0_m, aim_h0_m, aim_a;
};

/*
 * Plan the path from start (at start_alt_m) to land (at land_alt_m) for an
 * approach ground speed gs_m_s. Returns 0, or -EINVAL when the approach is
 * too short or not descending (start at least 1 m above and 20 m from the
 * land point).
 */
int land_path_plan(struct land_path *lp, struct nav_ne start, float start_alt_m, struct nav_ne land,
		   float land_alt_m, float gs_m_s, float land_flare_alt_m, float land_flare_sec,
		   float tecs_land_sink_m_s);

/* Distance before the land point of p, along the approach (negative past it). */
float land_path_dist_m(const struct land_path *lp, struct nav_ne p);
/* Demanded height (above home) at distance d before the land point. */
float land_path_height_m(const struct land_path *lp, float d_m);
/*
 * The flare's sink rate at height h_m above the land point for ground speed
 * gs_m_s: the sink that follows the flare parabola at that height,
 * gs sqrt(b^2 + 4 a h) (TECS_LAND_SINK at touchdown at the planned ground
 * speed, gentler when a headwind or the flare's loss of speed makes the
 * ground speed lower, so the touchdown stays on the point), at least
 * LAND_SINK_MIN_M_S. As a law of height alone it never asks an aircraft that
 * is low to climb.
 */
#define LAND_SINK_MIN_M_S 0.1f
float land_flare_sink_m_s(const struct land_path *lp, float h_m, float gs_m_s);
/* Whether to flare now: at or past the flare start, at or below LAND_FLARE_ALT
 * (or the planned flare height, if lower) above the land point, or, in the
 * approach's second half, LAND_FLARE_SEC from the ground at sink_m_s (as
 * ArduPlane: its time trigger waits for more than half of the approach, and
 * takes a low-passed sink rate, LAND_SINK_TAU_S here). */
bool land_should_flare(const struct land_path *lp, float d_m, float hgt_m, float sink_m_s,
		       float land_flare_alt_m, float land_flare_sec);
/*
 * The flare as flown steers for the land point. From where it began, d0_m
 * before the point and h0_m above it, its height is a parabola in distance
 * that meets the ground at the point with the touchdown's slope b:
 *   h = a' d^2 + b d,  a' = (h0 - b d0) / d0^2     (0 <= d <= d0)
 * h0 at and before d0, b d past the point. A flare that begins early (a
 * gust's sink fired LAND_FLARE_SEC, or an aircraft low on the glide path met
 * LAND_FLARE_ALT) is aimed shallower, one that begins above the path
 * steeper, and both at the point; the planned flare is the case d0 = d_f.
 * A flare begun within 1 m of the point, or past it, is not aimed (returns
 * false): it follows land_flare_sink_m_s alone.
 */
bool land_flare_aim(struct land_path *lp, float d0_m, float h0_m);
/* The aimed flare's height above the land point at distance d_m before it. */
float land_flare_aim_height_m(const struct land_path *lp, float d_m);
/* The sink rate's low-pass for the flare's time trigger: ArduPlane's 0.8/0.2
 * filter at its 10 Hz altitude update, a time constant of 0.45 s. */
#define LAND_SINK_TAU_S 0.45f

#endif
