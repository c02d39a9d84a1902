// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/nav.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

/* The aimed flare sinks at most this many times its law of height's sink. */
#define NAV_FLARE_SINK_CAP 1.5f
/* The flare is flown with the motor off for its last this many times
 * LAND_FLARE_SEC (at least 1 s): the planned flare, from LAND_FLARE_SEC above
 * the ground at the glide's sink down a parabola to the touchdown's, lasts
 * about twice LAND_FLARE_SEC. */
#define NAV_FLARE_POWER_SEC 2.0f
/* The gusts' variance is taken over about this long. */
#define NAV_GUST_TAU_S 10.0f
/* The approach is flown this many standard deviations of the gusts faster
 * than its airspeed demand, at most NAV_GUST_MARGIN_MAX_M_S: the pilot's rule
 * of half the gust factor (the peaks over the mean, two to three standard
 * deviations). The flare flies with the motor off, and a gust from behind at
 * 2 m takes its speed faster than any throttle gives it back: in light
 * turbulence (W20 7.7 m/s) the skywalker lost 6.4 m/s in 2.5 s of a shear at
 * 3 m and hit at 5.3 m/s. 1.5 standard deviations left no touchdown over
 * 3.5 m/s in issue 16's 200 flights but floated 5 m long on average in that
 * turbulence; 1 is the balance (docs/campaign.md, 2026-12-06). */
#define NAV_GUST_MARGIN_SIGMA 1.0f
#define NAV_GUST_MARGIN_MAX_M_S 4.0f
/* A flare begun lower than this (over the point, or on the ground) has the
 * LAND_PITCH_CD floor at once. */
#define NAV_FLARE_FRAC_MIN_H_M 0.1f
/* How far past the land point (and ahead of the launch) the tracked line runs. */
#define NAV_LINE_EXTENSION_M 1000.0f
/* The takeoff climb's throttle comes off past this many times TRIM_ARSPD_CM. */
#define TKOFF_EAS_MAX_OVER_TRIM 1.15f
/* The rollout: the flare is on the ground once it is too slow to fly (the
 * airspeed under this fraction of ARSPD_FBW_MIN: ArduPlane's test of
 * flying), or once it has stopped sinking (NAV_ROLLOUT_SINK_M_S) within
 * NAV_ROLLOUT_HGT_M of the land point for NAV_ROLLOUT_SETTLE_S (without an
 * airspeed, that alone: in a headwind the ground speed is slow in the air).
 * At the touchdown the estimate's height was within 0.15 m of the land
 * point's (NAV_FLARE_LEAD_S). The rollout stops flying the aircraft, so it
 * must not be taken in the air: with 1 m and 0.5 s, the skywalker in 10 m/s
 * and turbulence 7.7 (windy's world, seed 3) was taken for landed 0.7 m up,
 * level in a gust; a gust then lifted it to 2 m, unflown, and it came down
 * 28.6 m long. A flare that does not sink for 2 s is either on the ground
 * or far over its path, which TECS, still flying, has brought down before
 * then (windy's seeds 1-10 land as they did before the rollout). */
#define NAV_ROLLOUT_SLOW_FRAC 0.75f
#define NAV_ROLLOUT_HGT_M 0.5f
#define NAV_ROLLOUT_SINK_M_S 0.2f
#define NAV_ROLLOUT_SETTLE_S 2.0f
/* The takeoff roll: nose up this far from where it began is flying. */
#define TKOFF_PITCH_UP_RAD (5.0f * NAV_DEG2RAD)

float nav_gust_margin_m_s(const struct nav *n)
{
	return fminf(NAV_GUST_MARGIN_SIGMA * sqrtf(fmaxf(n->gust_var_m2_s2, 0.0f)), NAV_GUST_MARGIN_MAX_M_S);
}

void nav_params_default(struct nav_params *p)
{
	l1_params_default(&p->l1);
	tecs_params_default(&p->tecs);
	launch_params_default(&p->launch);
	steer_params_default(&p->steer);
	p->tkoff_tdrag_elev = 0.0f;
	p->tkoff_tdrag_spd1 = 0.0f;
	p->tkoff_rotate_spd = 0.0f;
	p->tkoff_thr_slew = 0.0f;
	p->wp_radius = 90.0f;
	p->lim_roll_cd = 4500.0f;
	p->trim_arspd_cm = 1200.0f;
	p->level_roll_limit = 5.0f;
	p->land_flare_alt = 3.0f;
	p->land_flare_sec = 2.0f;
	p->rngfnd_landing = 0.0f;
	p->land_slope_rcalc = 2.0f;
	/* this airframe (Skywalker class, stall about 9 m/s, 2.3 kg): cruise at
	 * 15 m/s on 60 % throttle, the slowest demand 20 % above the stall, and
	 * a climb rate it can make at full throttle */
	p->trim_arspd_cm = 1500.0f;
	p->tecs.arspd_fbw_min = 11.0f;
	p->tecs.trim_throttle = 60.0f;
	p->tecs.tecs_clmb_max = 3.0f;
	/* the flare: ArduPlane's LAND_FLARE_ALT 3 m, LAND_FLARE_SEC 2 s and
	 * LAND_PITCH_CD 0, but a touchdown sink of 0.5 m/s, not 0.25: at 14 m/s
	 * over the ground a 0.25 m/s flare's end is a slope of 1 in 56, where a
	 * tenth of a metre of height (the gear, the baro) is 6 m along the
	 * ground; at 0.5 m/s half that (docs/flight-control.md) */
	p->tecs.tecs_land_sink = 0.5f;
}

void nav_init(struct nav *n, double home_lat_deg, double home_lon_deg)
{
	memset(n, 0, sizeof(*n));
	n->home_lat_deg = home_lat_deg;
	n->home_lon_deg = home_lon_deg;
	n->task = NAV_TASK_IDLE;
	l1_init(&n->l1);
	tecs_init(&n->tecs);
	launch_init(&n->launch);
	rf_land_init(&n->rf);
}

void nav_set_range(struct nav *n, const struct rf_reading *rd)
{
	n->rf_in = *rd;
}

void nav_set_idle(struct nav *n)
{
	n->task = NAV_TASK_IDLE;
	n->idle_alt_set = false;
}

void nav_set_airspeed(struct nav *n, float eas_m_s)
{
	n->eas_dem_m_s = eas_m_s > 0.0f ? eas_m_s : 0.0f;
}

static struct nav_ne ne_of(const struct nav *n, const struct nav_wp *w)
{
	return nav_geo_ne_from_ll(n->home_lat_deg, n->home_lon_deg, w->lat_deg, w->lon_deg);
}

static struct nav_wp wp_of(const struct nav *n, struct nav_ne ne, float alt_rel_m)
{
	struct nav_wp w = { .alt_rel_m = alt_rel_m };
	nav_geo_ll_from_ne(n->home_lat_deg, n->home_lon_deg, ne, &w.lat_deg, &w.lon_deg);
	return w;
}

bool nav_target(const struct nav *n, struct nav_wp *out)
{
	switch (n->task) {
	case NAV_TASK_LEG:
		*out = wp_of(n, n->b, n->alt_b_m);
		return true;
	case NAV_TASK_LOITER:
		*out = wp_of(n, n->centre, n->loiter_alt_m);
		return true;
	case NAV_TASK_LAND:
		*out = n->land_wp;
		return true;
	case NAV_TASK_TAKEOFF:
		if (!n->tkoff_leg_set)
			return false;
		*out = wp_of(n, n->b, n->tkoff_alt_m);
		return true;
	case NAV_TASK_IDLE:
		break;
	}
	return false;
}

void nav_set_leg(struct nav *n, const struct nav_wp *a, const struct nav_wp *b,
		 const struct nav_wp *next)
{
	n->task = NAV_TASK_LEG;
	n->a = ne_of(n, a);
	n->b = ne_of(n, b);
	n->alt_a_m = a->alt_rel_m;
	n->alt_b_m = b->alt_rel_m;
	n->has_next = next != NULL;
	if (next)
		n->c = ne_of(n, next);
}

void nav_set_loiter(struct nav *n, const struct nav_wp *centre, float radius_m, int direction)
{
	n->task = NAV_TASK_LOITER;
	n->centre = ne_of(n, centre);
	n->radius_m = radius_m;
	n->loiter_alt_m = centre->alt_rel_m;
	n->direction = direction < 0 ? -1 : 1;
}

void nav_set_land(struct nav *n, const struct nav_wp *approach_wp, const struct nav_wp *land_wp)
{
	n->task = NAV_TASK_LAND;
	n->approach_wp = *approach_wp;
	n->land_wp = *land_wp;
	n->land_planned = false;
	steer_init(&n->steer);
	n->flaring = false;
	n->rollout = false;
	n->rollout_settle_s = 0.0f;
	n->sink_lp_m_s = NAN;
	rf_land_end(&n->rf);
	n->rf_replanned_m = 0.0f;
}

void nav_set_takeoff(struct nav *n, float pitch_deg, float alt_rel_m)
{
	n->task = NAV_TASK_TAKEOFF;
	n->tkoff_pitch_rad = pitch_deg * NAV_DEG2RAD;
	n->tkoff_alt_m = alt_rel_m;
	n->tkoff_leg_set = false;
	n->tkoff_tail_done = false;
	n->tkoff_rotated = false;
	n->tkoff_pitch0_set = false;
	launch_init(&n->launch);
	steer_init(&n->steer);
}

/* True over equivalent airspeed, ISA: sqrt(rho0 / rho). */
static float eas2tas_isa(float alt_msl_m)
{
	float r = powf(1.0f - 2.25577e-5f * nav_clampf(alt_msl_m, -500.0f, 11000.0f), 4.2559f);
	return 1.0f / sqrtf(r);
}

/* A point dist_m beyond b on the line a -> b. */
static struct nav_ne extend(struct nav_ne a, struct nav_ne b, float dist_m)
{
	float len = nav_geo_distance_m(a, b);
	if (len < 1e-3f)
		return b;
	return (struct nav_ne){ b.n_m + (b.n_m - a.n_m) / len * dist_m,
				b.e_m + (b.e_m - a.e_m) / len * dist_m };
}

/*
 * The takeoff roll's phases by speed: below TKOFF_TDRAG_SPD1 the elevator is
 * held at TKOFF_TDRAG_ELEV (a tail-dragger's tail wheel pressed down to
 * steer by), then the nose is held level until TKOFF_ROTATE_SPD. ArduPlane
 * times both by the airspeed. In a wind the airspeed passes TDRAG_SPD1
 * standing still: the nose would be pushed level, the tail wheel lifted off
 * the runway, before the aircraft rolls fast enough for the rudder to steer
 * (in a 10 m/s crosswind the cub then weathervaned 50-78 degrees and left
 * the runway on a wing-low skid). So the tail comes up only once both the
 * airspeed and the ground speed (the speed the tail wheel steers by) pass
 * TDRAG_SPD1; the rotation, which is about flying, goes by the airspeed
 * alone, and may come first (a strong headwind: the tail stays down and the
 * climb's pitch, close to the three-point attitude, takes over), as may the
 * nose rising 5 degrees above the attitude the roll began in. Without an
 * airspeed, the ground speed. Each phase ends once: a gust's dip in speed
 * does not bring it back. Returns true once rotated (the climb's pitch
 * applies), false with out's pitch or elevator set.
 */
static bool ground_roll_phase(struct nav *n, const struct nav_params *p, const struct vehicle_state *vs,
			      bool eas_ok, float gs, struct nav_output *out)
{
	if (n->tkoff_rotated)
		return true;
	float aspd = eas_ok ? vs->airspeed_m_s : gs;
	if (!n->tkoff_pitch0_set) {
		n->tkoff_pitch0_rad = vs->pitch_rad;
		n->tkoff_pitch0_set = true;
	}
	/* Nose 5 degrees above where the roll began (a tail-dragger's
	 * three-point attitude): the tail is off the runway, the aircraft is
	 * flying off it (into a wind near its stall speed, even standing); the
	 * full up elevator of the tail hold would stall it. */
	if (aspd >= p->tkoff_rotate_spd ||
	    vs->pitch_rad > n->tkoff_pitch0_rad + TKOFF_PITCH_UP_RAD) {
		n->tkoff_rotated = true;
		return true;
	}
	if (!n->tkoff_tail_done) {
		if (p->tkoff_tdrag_elev != 0.0f && fminf(aspd, gs) < p->tkoff_tdrag_spd1) {
			out->elevator_hold = true;
			out->elevator = nav_clampf(p->tkoff_tdrag_elev * 0.01f, -1.0f, 1.0f);
			/* the pitch the wheels give: the pitch loop, overridden,
			 * does not wind its integrator against them (which, at a
			 * rotation straight from the tail hold, pushed the nose
			 * 10 degrees down) */
			out->nav_pitch_rad = isfinite(vs->pitch_rad) ? vs->pitch_rad : 0.0f;
			return false;
		}
		n->tkoff_tail_done = true;
	}
	out->nav_pitch_rad = 0.0f;
	return false;
}

/*
 * On the ground below GROUND_STEER_ALT: the rudder that holds the line a -> b
 * (its bearing, turned toward the line by up to 20 degrees when off it: back
 * on it within some 30 m of roll).
 */
static void ground_steer(struct nav *n, const struct nav_params *p, const struct vehicle_state *vs,
			 struct nav_ne pos, struct nav_ne a, struct nav_ne b, float gs, float dt_s,
			 bool on_wheels, struct nav_output *out)
{
	if ((!on_wheels && !steer_on_ground(&p->steer, vs->alt_rel_m)) || nav_geo_distance_m(a, b) < 1.0f)
		return;
	float bearing = nav_geo_bearing_rad(a, b);
	float along = nav_geo_along_m(a, b, pos);
	struct nav_ne on = { a.n_m + (b.n_m - a.n_m) / nav_geo_distance_m(a, b) * along,
			     a.e_m + (b.e_m - a.e_m) / nav_geo_distance_m(a, b) * along };
	/* right of the line: positive */
	float xt = -sinf(bearing) * (pos.n_m - on.n_m) + cosf(bearing) * (pos.e_m - on.e_m);
	float want = bearing - nav_clampf(atanf(xt / 10.0f), -20.0f * NAV_DEG2RAD, 20.0f * NAV_DEG2RAD);
	out->ground_steering = true;
	float aspd = (vs->valid & VEHICLE_AIRSPEED_VALID) ? vs->airspeed_m_s : NAN;
	out->steer_rudder = steer_rudder(&n->steer, &p->steer, nav_wrap_pi(want - vs->yaw_rad),
					 vs->rate_rad_s[2], gs, aspd, p->tecs.arspd_fbw_min,
					 n->throttle_applied, dt_s);
}

/* The ground speed a landing plans on: the air speed demand (TAS) plus the
 * wind along the approach, at least 3 m/s. */
static float land_plan_gs(const struct vehicle_state *vs, struct nav_ne start, struct nav_ne land,
			  float tas_dem_m_s)
{
	float len = nav_geo_distance_m(start, land);
	float gs = tas_dem_m_s;
	if ((vs->valid & VEHICLE_WIND_VALID) && len > 1e-3f)
		gs += (vs->wind_ne_m_s[0] * (land.n_m - start.n_m) +
		       vs->wind_ne_m_s[1] * (land.e_m - start.e_m)) / len;
	return gs < 3.0f ? 3.0f : gs;
}

void nav_update(struct nav *n, const struct nav_params *p, const struct vehicle_state *vs,
		const float *accel_body_m_s2, float dt_s, struct nav_output *out)
{
	memset(out, 0, sizeof(*out));
	struct nav_ne pos = nav_geo_ne_from_ll(n->home_lat_deg, n->home_lon_deg, vs->lat_deg,
					       vs->lon_deg);
	float vel[2] = { vs->vel_ned_m_s[0], vs->vel_ned_m_s[1] };
	float gs = hypotf(vel[0], vel[1]);
	float hgt = vs->alt_rel_m, climb = -vs->vel_ned_m_s[2];
	bool eas_ok = (vs->valid & VEHICLE_AIRSPEED_VALID) != 0;
	float eas2tas = eas2tas_isa(vs->alt_msl_m);
	float roll_lim = p->lim_roll_cd * 0.01f * NAV_DEG2RAD;
	float level_lim = p->level_roll_limit * NAV_DEG2RAD;
	float eas_dem = n->eas_dem_m_s > 0.0f ? n->eas_dem_m_s : p->trim_arspd_cm * 0.01f;
	float hgt_dem = hgt;
	enum tecs_stage stage = TECS_STAGE_NORMAL;
	bool level = false, flare_power = false, flare_past = false;
	float flare_frac = 0.0f;

	if (n->task != NAV_TASK_IDLE)
		n->idle_alt_set = false;
	if (eas_ok && vs->airspeed_meas_m_s > 0.0f && dt_s > 0.0f) {
		float d = vs->airspeed_meas_m_s - vs->airspeed_m_s;
		float a = dt_s / (NAV_GUST_TAU_S + dt_s);
		n->gust_mean_m_s += a * (d - n->gust_mean_m_s);
		float e = d - n->gust_mean_m_s;
		n->gust_var_m2_s2 += a * (e * e - n->gust_var_m2_s2);
	}

	/* The rangefinder's reading, taken once (a new one only); on the
	 * landing against the height above the land point */
	bool rf_landing = n->task == NAV_TASK_LAND && p->rngfnd_landing > 0.0f;
	float hat = hgt - (n->task == NAV_TASK_LAND ? n->land_wp.alt_rel_m : 0.0f);
	float cz = 1.0f - 2.0f * (vs->q[1] * vs->q[1] + vs->q[2] * vs->q[2]);
	if (!(vs->valid & VEHICLE_ATTITUDE_VALID))
		cz = NAN;
	out->rf_event = rf_land_update(&n->rf, &n->rf_in, cz, hat, rf_landing);
	out->rf_height_m = n->rf.in_range ? n->rf.height_m : NAN;

	switch (n->task) {
	case NAV_TASK_LEG: {
		l1_update_waypoint(&n->l1, &p->l1, pos, vel, n->a, n->b);
		float len = nav_geo_distance_m(n->a, n->b);
		float f = len > 1e-3f ? nav_clampf(nav_geo_along_m(n->a, n->b, pos) / len, 0.0f, 1.0f) : 1.0f;
		hgt_dem = n->alt_a_m + f * (n->alt_b_m - n->alt_a_m);
		float turn = 0.5f * NAV_PI_F;
		if (n->has_next)
			turn = fabsf(nav_wrap_pi(nav_geo_bearing_rad(n->b, n->c) -
						 nav_geo_bearing_rad(n->a, n->b)));
		float accept = l1_turn_distance_m(&n->l1, p->wp_radius, eas2tas, turn);
		out->wp_reached = nav_geo_wp_reached(n->a, n->b, n->has_next ? &n->c : NULL, pos, accept);
		break;
	}
	case NAV_TASK_LOITER:
		l1_update_loiter(&n->l1, &p->l1, pos, vel, n->centre,
				 l1_loiter_radius_m(n->radius_m, eas_dem * eas2tas, roll_lim), n->direction);
		hgt_dem = n->loiter_alt_m;
		break;
	case NAV_TASK_LAND: {
		struct nav_ne start = ne_of(n, &n->approach_wp), land = ne_of(n, &n->land_wp);
		/* ArduPlane's approach airspeed, TECS_LAND_ARSPD (when set), plus
		 * the gust margin */
		if (p->tecs.tecs_land_arspd >= 0.0f)
			eas_dem = p->tecs.tecs_land_arspd;
		eas_dem += nav_gust_margin_m_s(n);
		/* The rangefinder's correction (0 without one): the landing is
		 * flown on hc, the height above home the rangefinder implies; the
		 * demand goes back to the estimate's frame for TECS below. */
		enum rf_land_event lost = RF_LAND_NONE;
		float corr = p->rngfnd_landing > 0.0f ? rf_land_correction(&n->rf, vs->t_us, &lost) : 0.0f;
		if (lost != RF_LAND_NONE && !n->rollout)   /* on the wheels it reads the ground */
			out->rf_event = lost;
		float hc = hgt - corr;
		float gs_plan = land_plan_gs(vs, start, land, eas_dem * eas2tas);
		if (!n->land_planned) {
			if (land_path_plan(&n->land, start, n->approach_wp.alt_rel_m, land,
					   n->land_wp.alt_rel_m, gs_plan, p->land_flare_alt,
					   p->land_flare_sec, p->tecs.tecs_land_sink) != 0) {
				/* no room for a glide path: dive straight at the point */
				land_path_plan(&n->land, start, n->land_wp.alt_rel_m + 1.0f + p->land_flare_alt,
					       land, n->land_wp.alt_rel_m, gs_plan, p->land_flare_alt,
					       p->land_flare_sec, p->tecs.tecs_land_sink);
			}
			n->land_planned = true;
			n->rf_replanned_m = 0.0f;
		}
		/* ArduPlane's set_initial_slope and LAND_SLOPE_RCALC: when the
		 * rangefinder engages, or its correction has moved that far since
		 * the path was planned, the glide path starts again from here at
		 * the height it measures (no step in the demand, no dive or climb
		 * back to the old line). Not in the flare, and not when there is
		 * no room for a path from here (the old one, shifted, is flown). */
		if (!n->flaring && (out->rf_event == RF_LAND_ENGAGED ||
				    (p->land_slope_rcalc > 0.0f &&
				     fabsf(corr - n->rf_replanned_m) > p->land_slope_rcalc))) {
			struct land_path np;
			if (land_path_plan(&np, pos, hc, land, n->land_wp.alt_rel_m, gs_plan,
					   p->land_flare_alt, p->land_flare_sec,
					   p->tecs.tecs_land_sink) == 0)
				n->land = np;
			n->rf_replanned_m = corr;
		}
		l1_update_waypoint(&n->l1, &p->l1, pos, vel, start, extend(start, land, NAV_LINE_EXTENSION_M));
		n->l1.wp_dist_m = nav_geo_distance_m(pos, land);
		n->l1.target_bearing_rad = nav_geo_bearing_rad(pos, land);
		float d = land_path_dist_m(&n->land, pos);
		hgt_dem = land_path_height_m(&n->land, d);
		if (isnan(n->sink_lp_m_s))
			n->sink_lp_m_s = -climb;
		n->sink_lp_m_s += (-climb - n->sink_lp_m_s) * dt_s / (LAND_SINK_TAU_S + dt_s);
		if (!n->flaring &&
		    land_should_flare(&n->land, d, hc, n->sink_lp_m_s, p->land_flare_alt,
				      p->land_flare_sec)) {
			n->flaring = true;
			n->flare_hgt_dem_m = fminf(hc, hgt_dem);
			n->flare_h_m = hc - n->land.land_alt_m;
			n->flare_sink_m_s = n->sink_lp_m_s;
			n->flare_gs_m_s = gs;
			n->flare_d_m = d;
			land_flare_aim(&n->land, d, n->flare_hgt_dem_m - n->land.land_alt_m);
		}
		if (n->flaring) {
			/* The flare steers for the land point: its height at the
			 * distance flown (land_flare_aim), never a climb, and sinking
			 * no faster than NAV_FLARE_SINK_CAP times what the flare's law
			 * of height asks here (a flare begun high lands long rather
			 * than hard). Not aimed (begun at the point): that law alone. */
			float h = n->flare_hgt_dem_m - n->land.land_alt_m;
			float sink = land_flare_sink_m_s(&n->land, h, gs);
			float next = h - sink * dt_s;
			if (n->land.aimed)
				next = fminf(h, fmaxf(land_flare_aim_height_m(&n->land, d + gs * NAV_FLARE_LEAD_S),
						      h - NAV_FLARE_SINK_CAP * sink * dt_s));
			n->flare_hgt_dem_m = n->land.land_alt_m + next;
			hgt_dem = n->flare_hgt_dem_m;
		}
		/* An aimed flare that begins early (in a gust's sink, or low on
		 * the glide path) has further to go than the motor-off glide of
		 * a planned flare reaches: it keeps the approach's throttle (the
		 * energy loop) until the point is NAV_FLARE_POWER_SEC times
		 * LAND_FLARE_SEC away at the present ground speed, about as long
		 * as the planned flare takes, and glides from there. */
		flare_power = n->flaring && n->land.aimed &&
			      d > fmaxf(gs, 1.0f) * NAV_FLARE_POWER_SEC * fmaxf(p->land_flare_sec, 1.0f);
		flare_past = n->flaring && d < 0.0f;
		if (n->flaring)
			flare_frac = n->flare_h_m > NAV_FLARE_FRAC_MIN_H_M ?
				     1.0f - (hc - n->land.land_alt_m) / n->flare_h_m : 1.0f;
		stage = n->flaring ? TECS_STAGE_LAND_FLARE : TECS_STAGE_LAND_APPROACH;
		level = n->flaring;
		if (n->flaring && !n->rollout) {
			float slow = NAV_ROLLOUT_SLOW_FRAC * p->tecs.arspd_fbw_min;
			bool settled = hc - n->land.land_alt_m < NAV_ROLLOUT_HGT_M &&
				       climb > -NAV_ROLLOUT_SINK_M_S;
			n->rollout_settle_s = settled ? n->rollout_settle_s + dt_s : 0.0f;
			n->rollout = (eas_ok && vs->airspeed_m_s < slow) ||
				     n->rollout_settle_s >= NAV_ROLLOUT_SETTLE_S;
		}
		if (n->flaring)
			ground_steer(n, p, vs, pos, start, land, gs, dt_s, n->rollout, out);
		out->flaring = n->flaring;
		out->rollout = n->rollout;
		out->rf_correction_m = corr;
		hgt_dem += corr;
		break;
	}
	case NAV_TASK_TAKEOFF: {
		float accel_x = accel_body_m_s2 ? accel_body_m_s2[0] : 0.0f;
		out->launched = launch_update(&n->launch, &p->launch, vs->t_us, accel_x, gs,
					      vs->pitch_rad, vs->roll_rad);
		if (out->launched && !n->tkoff_leg_set) {
			/* hold the course of the throw (the nose's, if barely moving) */
			float course = gs > 2.0f ? atan2f(vel[1], vel[0]) : vs->yaw_rad;
			n->a = pos;
			n->b = (struct nav_ne){ pos.n_m + NAV_LINE_EXTENSION_M * cosf(course),
						pos.e_m + NAV_LINE_EXTENSION_M * sinf(course) };
			n->tkoff_leg_set = true;
		}
		if (n->tkoff_leg_set) {
			l1_update_waypoint(&n->l1, &p->l1, pos, vel, n->a, n->b);
			ground_steer(n, p, vs, pos, n->a, n->b, gs, dt_s, false, out);
		} else {
			l1_init(&n->l1);
		}
		out->throttle_slew = p->tkoff_thr_slew;
		hgt_dem = n->tkoff_alt_m;
		stage = TECS_STAGE_TAKEOFF;
		/* climb at the takeoff pitch while faster than the slowest safe
		 * speed; the nose comes down only to keep that */
		eas_dem = p->tecs.arspd_fbw_min;
		level = true;
		out->throttle_suppressed = !out->launched;
		out->takeoff_complete = out->launched && hgt >= n->tkoff_alt_m;
		break;
	}
	case NAV_TASK_IDLE:
	default:
		if (!n->idle_alt_set) {
			n->idle_alt_m = hgt;
			n->idle_alt_set = true;
		}
		hgt_dem = n->idle_alt_m;
		l1_init(&n->l1);
		break;
	}

	struct tecs_input ti = {
		.hgt_m = hgt,
		.climb_m_s = climb,
		.eas_m_s = vs->airspeed_m_s,
		/* ArduPlane's TECS_SYNAIRSPEED: with the sensor declared unhealthy,
		 * TECS flies as without one unless told to trust the synthetic */
		.eas_ok = eas_ok && (!(vs->valid & VEHICLE_AIRSPEED_SYNTHETIC) ||
				     p->tecs.tecs_synairspeed != 0.0f),
		.vel_dot_m_s2 = accel_body_m_s2 ? accel_body_m_s2[0] - NAV_G_M_S2 * sinf(vs->pitch_rad) : NAN,
		.pitch_rad = vs->pitch_rad,
		.roll_rad = vs->roll_rad,
		.eas2tas = eas2tas,
		.hgt_dem_m = hgt_dem,
		.eas_dem_m_s = eas_dem,
		.stage = stage,
		.ptch_takeoff_rad = n->tkoff_pitch_rad,
		/* climb not much faster than the cruise speed (the hand-over's):
		 * 15 % over it, so that an aircraft that climbs near its cruise
		 * speed at full throttle (the skywalker, 15-16 m/s) keeps it */
		.tkoff_eas_max_m_s = TKOFF_EAS_MAX_OVER_TRIM * p->trim_arspd_cm * 0.01f,
		.flare_power = flare_power,
		.flare_past = flare_past,
		.flare_frac = flare_frac,
	};
	tecs_update(&n->tecs, &p->tecs, &ti, dt_s);

	out->nav_roll_rad = l1_bank_rad(&n->l1, vs->pitch_rad, level ? level_lim : roll_lim);
	/* no position: nothing to steer by; wings level (the vehicle's failsafe
	 * decides what happens next) */
	if (!(vs->valid & VEHICLE_POSITION_VALID))
		out->nav_roll_rad = 0.0f;
	out->nav_pitch_rad = n->tecs.pitch_dem_rad;
	out->throttle = n->tecs.throttle_dem;
	if (n->task == NAV_TASK_TAKEOFF) {
		if (out->throttle_suppressed) {
			/* in the hand: nose at the takeoff pitch, motor off */
			out->throttle = 0.0f;
			out->nav_pitch_rad = n->tkoff_pitch_rad;
			out->nav_roll_rad = 0.0f;
			tecs_init(&n->tecs);
		} else if (!ground_roll_phase(n, p, vs, eas_ok, gs, out)) {
			/* on the runway: the tail held down, then the nose level;
			 * the wings level (the ailerons into the wind), the rudder
			 * and tail wheel keep the line. TECS takes over at the
			 * rotation from the attitude then, towards the takeoff
			 * pitch: on the wheels its pitch integrator would wind
			 * down the whole roll (slower than ARSPD_FBW_MIN; the
			 * cub's nose went to -11 degrees just after lifting off
			 * in a 10 m/s crosswind). */
			out->nav_roll_rad = 0.0f;
			tecs_hold_pitch(&n->tecs, vs->pitch_rad, n->tkoff_pitch_rad);
		} else if (!eas_ok) {
			/* no airspeed: pitch up with the ground speed, 5 degrees to the
			 * takeoff pitch at cruise speed */
			float cruise = p->trim_arspd_cm * 0.01f;
			out->nav_pitch_rad = nav_clampf(gs / cruise * n->tkoff_pitch_rad,
							5.0f * NAV_DEG2RAD,
							fmaxf(n->tkoff_pitch_rad, 5.0f * NAV_DEG2RAD));
		}
	}
	if (n->task == NAV_TASK_LAND && n->rollout) {
		/* On the wheels: the attitude loops stop flying it. Wings level
		 * (the ailerons into a crosswind), the motor off, the heading held
		 * by ground_steer, and the elevator held, not driven by a pitch
		 * error against the ground (a tail-dragger sits 11-17 degrees nose
		 * up: the pitch loop put full down elevator on it and nosed it
		 * over): TKOFF_TDRAG_ELEV once slower than TKOFF_TDRAG_SPD1, as on
		 * the takeoff roll (full up on a tail-dragger, the tail wheel
		 * pressed down; a little down on a tricycle that wants its nose
		 * wheel held), neutral before that and with the defaults. The
		 * pitch demand, which only the log and the ground station see
		 * now, is the attitude, never under LAND_PITCH_CD. */
		float spd = eas_ok ? vs->airspeed_m_s : gs;
		out->nav_roll_rad = 0.0f;
		out->throttle = 0.0f;
		out->nav_pitch_rad = fmaxf(isfinite(vs->pitch_rad) ? vs->pitch_rad : 0.0f,
					   p->tecs.land_pitch_cd * 0.01f * NAV_DEG2RAD);
		out->elevator_hold = true;
		out->elevator = p->tkoff_tdrag_elev != 0.0f && spd < p->tkoff_tdrag_spd1 ?
					nav_clampf(p->tkoff_tdrag_elev * 0.01f, -1.0f, 1.0f) : 0.0f;
	}
	out->nav_bearing_rad = n->l1.nav_bearing_rad;
	out->target_bearing_rad = n->l1.target_bearing_rad;
	out->wp_dist_m = n->l1.wp_dist_m;
	out->xtrack_m = n->l1.xtrack_m;
	out->alt_error_m = hgt_dem - hgt;
	out->aspd_error_m_s = eas_ok ? eas_dem - vs->airspeed_m_s : 0.0f;
	n->last_t_us = vs->t_us;
}
