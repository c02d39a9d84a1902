// SPDX-License-Identifier: GPL-3.0-or-later
/* Navigation pieces against closed forms: geometry, L1 on a line and a
 * circle, TECS's energy split, the landing path, the launch detector, and the
 * navigator's sequencing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <errno.h>
#include <string.h>

#include "geo.h"
#include "nav/nav.h"
#include "nav/nav_math.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))
#define D2R NAV_DEG2RAD

/* ---- geometry ---- */

static void test_nav_geo_matches_the_exact_tangent_plane_to_1e4_over_kilometres(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	const double pts[][2] = { { 1000, 0 }, { 0, 1000 }, { -2000, 1500 }, { 300, -200 } };
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		struct sim_lla p = sim_ned_to_lla(&home, v3_make(pts[i][0], pts[i][1], 0.0));
		struct nav_ne ne = nav_geo_ne_from_ll(home.lat_deg, home.lon_deg, p.lat_deg, p.lon_deg);
		struct v3 exact = sim_lla_to_ned(&home, &p);
		/* the projection works on the ellipsoid; the simulator's plane is at
		 * the field's 584 m, where arcs are 584 / 6.36e6 = 9.2e-5 longer */
		double d = hypot(exact.x, exact.y);
		assert_near(ne.n_m, exact.x, 1.2e-4 * d + 0.01);
		assert_near(ne.e_m, exact.y, 1.2e-4 * d + 0.01);
		double lat, lon;
		nav_geo_ll_from_ne(home.lat_deg, home.lon_deg, ne, &lat, &lon);
		assert_near(lat, p.lat_deg, 1e-8);
		assert_near(lon, p.lon_deg, 1e-8);
	}
}

static void test_nav_geo_bearing_distance_and_cross_track(void **state)
{
	(void)state;
	struct nav_ne a = { 0, 0 }, b = { 100, 0 }, e = { 0, 50 }, w = { 0, -50 };
	assert_near(nav_geo_distance_m(a, (struct nav_ne){ 30, 40 }), 50.0, 1e-4);
	assert_near(nav_geo_bearing_rad(a, b), 0.0, 1e-6);
	assert_near(nav_geo_bearing_rad(a, e), 0.5f * NAV_PI_F, 1e-6);
	assert_near(nav_geo_bearing_rad(a, w), 1.5f * NAV_PI_F, 1e-6);
	assert_near(nav_geo_bearing_rad(a, (struct nav_ne){ -10, 0 }), NAV_PI_F, 1e-6);
	/* flying north, east is right */
	assert_near(nav_geo_xtrack_m(a, b, (struct nav_ne){ 40, 7 }), 7.0, 1e-4);
	assert_near(nav_geo_xtrack_m(a, b, (struct nav_ne){ 40, -7 }), -7.0, 1e-4);
	assert_near(nav_geo_along_m(a, b, (struct nav_ne){ 40, -7 }), 40.0, 1e-4);
	/* flying east, south is right */
	assert_near(nav_geo_xtrack_m(a, e, (struct nav_ne){ -3, 20 }), 3.0, 1e-4);
	/* the same from lat/lon */
	struct sim_lla home = sim_home_default();
	struct sim_lla pb = sim_ned_to_lla(&home, v3_make(0, 500, 0));
	assert_near(nav_geo_distance_ll_m(home.lat_deg, home.lon_deg, pb.lat_deg, pb.lon_deg), 500.0, 0.05);
	assert_near(nav_geo_bearing_ll_rad(home.lat_deg, home.lon_deg, pb.lat_deg, pb.lon_deg),
		    0.5f * NAV_PI_F, 1e-4);
	struct nav_wp wa = { home.lat_deg, home.lon_deg, 0 }, wb = { pb.lat_deg, pb.lon_deg, 0 };
	struct sim_lla pp = sim_ned_to_lla(&home, v3_make(-12, 250, 0));
	assert_near(nav_geo_xtrack_ll_m(&wa, &wb, pp.lat_deg, pp.lon_deg), 12.0, 0.05);
}

static void test_nav_geo_waypoint_accepted_inside_radius_or_past_the_line(void **state)
{
	(void)state;
	struct nav_ne a = { 0, 0 }, b = { 300, 0 };
	/* no next leg: the finish line is perpendicular at b */
	assert_false(nav_geo_wp_reached(a, b, NULL, (struct nav_ne){ 250, 0 }, 30.0f));
	assert_true(nav_geo_wp_reached(a, b, NULL, (struct nav_ne){ 280, 0 }, 30.0f));
	assert_true(nav_geo_wp_reached(a, b, NULL, (struct nav_ne){ 301, -200 }, 30.0f));
	assert_false(nav_geo_wp_reached(a, b, NULL, (struct nav_ne){ 299, -200 }, 30.0f));
	/* a right turn of 90 degrees at b: the bisector runs through b at 45
	 * degrees (north-west to south-east) */
	struct nav_ne c = { 300, 200 };
	assert_true(nav_geo_wp_reached(a, b, &c, (struct nav_ne){ 290, 20 }, 5.0f));   /* past it */
	assert_false(nav_geo_wp_reached(a, b, &c, (struct nav_ne){ 290, -20 }, 5.0f)); /* before */
	assert_true(nav_geo_wp_reached(a, b, &c, (struct nav_ne){ 240, 70 }, 5.0f));
}

/* ---- L1 ---- */

static void test_l1_on_the_track_demands_nothing(void **state)
{
	(void)state;
	struct l1_params p;
	l1_params_default(&p);
	struct l1 l;
	l1_init(&l);
	float v[2] = { 15.0f, 0.0f };
	l1_update_waypoint(&l, &p, (struct nav_ne){ 100, 0 }, v, (struct nav_ne){ 0, 0 },
			   (struct nav_ne){ 500, 0 });
	assert_near(l.lat_acc_m_s2, 0.0, 1e-5);
	assert_near(l.xtrack_m, 0.0, 1e-5);
	assert_near(l.l1_dist_m, p.navl1_damping * p.navl1_period * 15.0f / NAV_PI_F, 1e-3);
	assert_near(l.wp_dist_m, 400.0, 1e-3);
	assert_near(l.target_bearing_rad, 0.0, 1e-6);
}

static void test_l1_offset_parallel_to_the_track_matches_closed_form(void **state)
{
	(void)state;
	struct l1_params p;
	l1_params_default(&p);
	struct l1 l;
	float V = 16.0f, L1 = l1_length_m(&p, V), K = 4.0f * p.navl1_damping * p.navl1_damping;
	float v[2] = { V, 0.0f };
	for (float e = -30.0f; e <= 30.0f; e += 7.5f) {
		l1_init(&l);
		l1_update_waypoint(&l, &p, (struct nav_ne){ 100, e }, v, (struct nav_ne){ 0, 0 },
				   (struct nav_ne){ 1000, 0 });
		/* a = K V^2 / L1 sin(-asin(e / L1)) = -K V^2 e / L1^2 */
		assert_near(l.lat_acc_m_s2, -K * V * V * e / (L1 * L1), 1e-3);
		assert_near(l.xtrack_m, e, 1e-4);
	}
	/* far off the track the capture angle stops at 45 degrees */
	l1_init(&l);
	l1_update_waypoint(&l, &p, (struct nav_ne){ 100, -3.0f * L1 }, v, (struct nav_ne){ 0, 0 },
			   (struct nav_ne){ 1000, 0 });
	assert_near(l.nu_rad, 0.25f * NAV_PI_F, 1e-4);
	assert_near(l.lat_acc_m_s2, K * V * V / L1 * sinf(0.25f * NAV_PI_F), 1e-3);
	/* flying at 30 degrees to the track on it: Nu = -30 degrees */
	l1_init(&l);
	float v30[2] = { V * cosf(30 * D2R), V * sinf(30 * D2R) };
	l1_update_waypoint(&l, &p, (struct nav_ne){ 100, 0 }, v30, (struct nav_ne){ 0, 0 },
			   (struct nav_ne){ 1000, 0 });
	assert_near(l.nu_rad, -30 * D2R, 1e-4);
	assert_near(l1_bank_rad(&l, 0.0f, 1.0f), atanf(l.lat_acc_m_s2 / NAV_G_M_S2), 1e-5);
}

static void test_l1_flies_to_a_from_far_behind_and_back_to_b_when_past(void **state)
{
	(void)state;
	struct l1_params p;
	l1_params_default(&p);
	struct l1 l;
	l1_init(&l);
	/* 500 m behind a, flying east: a is due north, 90 degrees left */
	float v[2] = { 0.0f, 15.0f };
	l1_update_waypoint(&l, &p, (struct nav_ne){ -500, 0 }, v, (struct nav_ne){ 0, 0 },
			   (struct nav_ne){ 500, 0 });
	assert_near(l.nu_rad, -0.5f * NAV_PI_F, 1e-4);
	assert_true(l.lat_acc_m_s2 < 0.0f);
	/* 100 m past b, flying on: turn back towards b (limited to 90 degrees) */
	l1_init(&l);
	float vn[2] = { 15.0f, 1.0f };
	l1_update_waypoint(&l, &p, (struct nav_ne){ 600, 10 }, vn, (struct nav_ne){ 0, 0 },
			   (struct nav_ne){ 500, 0 });
	assert_near(fabsf(l.nu_rad), 0.5f * NAV_PI_F, 1e-4);
}

static void test_l1_keeps_its_turn_when_the_target_is_dead_astern(void **state)
{
	(void)state;
	struct l1_params p;
	l1_params_default(&p);
	struct l1 l;
	l1_init(&l);
	/* far behind a and flying straight away from it: the shortest turn flips
	 * side with every small wobble of the course */
	struct nav_ne a = { 0, 0 }, b = { 1000, 0 }, pos = { -500, 0 };
	float sign0 = 0.0f;
	for (int i = 0; i < 20; i++) {
		float wob = (i % 2 ? 1.0f : -1.0f) * 2.0f * D2R;
		float v[2] = { -15.0f * cosf(wob), 15.0f * sinf(wob) };
		l1_update_waypoint(&l, &p, pos, v, a, b);
		if (i == 0)
			sign0 = l.lat_acc_m_s2 > 0.0f ? 1.0f : -1.0f;
		assert_true(l.lat_acc_m_s2 * sign0 > 0.0f);
	}
}

static void test_l1_loiter_on_the_circle_is_the_centripetal_demand(void **state)
{
	(void)state;
	struct l1_params p;
	l1_params_default(&p);
	struct l1 l;
	const float R = 60.0f, V = 15.0f;
	/* clockwise, at the north point moving east */
	l1_init(&l);
	float ve[2] = { 0.0f, V };
	l1_update_loiter(&l, &p, (struct nav_ne){ R, 0 }, ve, (struct nav_ne){ 0, 0 }, R, 1);
	assert_near(l.lat_acc_m_s2, V * V / R, 1e-3);
	assert_int_equal(l.loiter_captured, 1);
	/* anticlockwise, at the north point moving west */
	l1_init(&l);
	float vw[2] = { 0.0f, -V };
	l1_update_loiter(&l, &p, (struct nav_ne){ R, 0 }, vw, (struct nav_ne){ 0, 0 }, R, -1);
	assert_near(l.lat_acc_m_s2, -V * V / R, 1e-3);
	/* 5 m outside, tangent: PD on the error plus the centripetal term */
	l1_init(&l);
	l1_update_loiter(&l, &p, (struct nav_ne){ R + 5, 0 }, ve, (struct nav_ne){ 0, 0 }, R, 1);
	float w = 2.0f * NAV_PI_F / p.navl1_period;
	assert_near(l.lat_acc_m_s2, w * w * 5.0f + V * V / (R + 5.0f), 1e-3);
	assert_near(l.xtrack_m, 5.0, 1e-4);
	/* far out, heading for the centre: the L1 capture, nearly straight */
	l1_init(&l);
	float vs[2] = { -V, 0.0f };
	l1_update_loiter(&l, &p, (struct nav_ne){ 500, 0 }, vs, (struct nav_ne){ 0, 0 }, R, 1);
	assert_int_equal(l.loiter_captured, 0);
	assert_near(l.lat_acc_m_s2, 0.0, 1e-3);
	/* the bank limit widens a circle too tight for it */
	assert_near(l1_loiter_radius_m(60.0f, 15.0f, 45 * D2R), 60.0, 1e-4);
	assert_near(l1_loiter_radius_m(10.0f, 15.0f, 45 * D2R), 225.0f / NAV_G_M_S2, 1e-3);
}

static void test_l1_turn_distance_is_the_smaller_of_radius_and_l1(void **state)
{
	(void)state;
	struct l1 l;
	l1_init(&l);
	l.l1_dist_m = 60.0f;
	assert_near(l1_turn_distance_m(&l, 90.0f, 1.0f, 0.5f * NAV_PI_F), 60.0, 1e-4);
	assert_near(l1_turn_distance_m(&l, 40.0f, 1.0f, NAV_PI_F), 40.0, 1e-4);
	assert_near(l1_turn_distance_m(&l, 90.0f, 1.0f, 0.25f * NAV_PI_F), 30.0, 1e-4);
	assert_near(l1_turn_distance_m(&l, 40.0f, 1.1f, NAV_PI_F), 40.0f * 1.21f, 1e-3);
}

/* ---- TECS ---- */

/* Start TECS on target (the bumpless start trims its pitch integrator to the
 * level attitude), then run it with the inputs given until its demand
 * filters settle. Integrators off: what is left is the closed form. */
static void tecs_settle(struct tecs *t, const struct tecs_params *p, const struct tecs_input *in)
{
	struct tecs_input on = *in;
	on.hgt_dem_m = on.hgt_m;
	on.eas_dem_m_s = on.eas_ok ? on.eas_m_s : on.eas_dem_m_s;
	tecs_init(t);
	for (int i = 0; i < 10; i++)
		tecs_update(t, p, &on, 0.02f);
	for (int i = 0; i < 2000; i++)
		tecs_update(t, p, in, 0.02f);
}

static void tecs_base(struct tecs_params *p, struct tecs_input *in)
{
	tecs_params_default(p);
	p->tecs_integ_gain = 0.0f;
	memset(in, 0, sizeof(*in));
	in->hgt_m = 100.0f;
	in->hgt_dem_m = 100.0f;
	in->eas_m_s = 15.0f;
	in->eas_dem_m_s = 15.0f;
	in->eas_ok = true;
	in->vel_dot_m_s2 = 0.0f;
	in->eas2tas = 1.0f;
	in->stage = TECS_STAGE_NORMAL;
}

/* tecs_base in the climb-out, its integrators on as flown: the takeoff pitch
 * given, 50 m to climb, the speed guard at ARSPD_FBW_MIN. */
static void tecs_takeoff_base(struct tecs_params *p, struct tecs_input *in, float pitch_deg)
{
	tecs_base(p, in);
	p->tecs_integ_gain = 0.1f;
	in->stage = TECS_STAGE_TAKEOFF;
	in->ptch_takeoff_rad = pitch_deg * D2R;
	in->hgt_dem_m = in->hgt_m + 50.0f;
	in->eas_dem_m_s = p->arspd_fbw_min;
}

static void test_tecs_on_target_gives_trim_throttle_and_level_pitch(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	tecs_settle(&t, &p, &in);
	assert_near(t.throttle_dem, p.trim_throttle * 0.01f, 1e-4);
	/* the bumpless start put the pitch integrator at the present pitch, 0 */
	assert_near(t.pitch_dem_rad, 0.0, 1e-4);
	/* a 30 degree bank adds RLL2THR (1/cos^2 - 1) of energy rate */
	in.roll_rad = 30 * D2R;
	tecs_settle(&t, &p, &in);
	float range = (p.tecs_clmb_max + p.tecs_sink_min) * NAV_G_M_S2;
	float extra = p.tecs_rll2thr * (1.0f / (cosf(in.roll_rad) * cosf(in.roll_rad)) - 1.0f) / range;
	assert_near(t.throttle_dem, p.trim_throttle * 0.01f + extra, 1e-4);
}

static void test_tecs_splits_energy_between_throttle_and_pitch(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	const float g = NAV_G_M_S2, V = 15.0f, k_ste = 1.0f / (p.tecs_time_const * (p.tecs_clmb_max + p.tecs_sink_min) * g);
	/* 4 m low and 2.5 m/s too fast: the same energy, in the wrong form.
	 * Throttle stays at trim; pitch comes up by SEB / (V TC g). */
	float dv = sqrtf(V * V + 2.0f * g * 4.0f) - V;
	in.hgt_dem_m = 100.0f;
	in.hgt_m = 96.0f;
	in.eas_dem_m_s = V;
	struct tecs_input start = in;
	start.eas_m_s = V + dv;
	tecs_init(&t);
	/* on target first, at the fast speed and low height */
	struct tecs_input on = start;
	on.hgt_dem_m = on.hgt_m;
	on.eas_dem_m_s = on.eas_m_s;
	for (int i = 0; i < 10; i++)
		tecs_update(&t, &p, &on, 0.02f);
	for (int i = 0; i < 2000; i++)
		tecs_update(&t, &p, &start, 0.02f);
	float vf = V + dv;
	assert_near(t.throttle_dem, p.trim_throttle * 0.01f, 1e-3);
	float seb = g * 4.0f + 0.5f * (vf * vf - V * V);
	assert_near(t.pitch_dem_rad, seb / (vf * p.tecs_time_const * g), 2e-3);
	/* 4 m low at the right speed: throttle by K STE, pitch by SEB/(V TC g) */
	tecs_base(&p, &in);
	in.hgt_m = 96.0f;
	tecs_settle(&t, &p, &in);
	assert_near(t.throttle_dem, p.trim_throttle * 0.01f + g * 4.0f * k_ste, 1e-3);
	assert_near(t.pitch_dem_rad, g * 4.0f / (V * p.tecs_time_const * g), 1e-3);
	/* the same with speed first (SPDWEIGHT 2): pitch ignores the height */
	p.tecs_spdweight = 2.0f;
	tecs_settle(&t, &p, &in);
	assert_near(t.pitch_dem_rad, 0.0, 1e-4);
	assert_near(t.throttle_dem, p.trim_throttle * 0.01f + g * 4.0f * k_ste, 1e-3);
}

static void test_tecs_without_airspeed_flies_height_by_pitch_and_throttle_by_pitch(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	in.eas_ok = false;
	in.eas_m_s = 3.0f;   /* a broken sensor's value: ignored */
	in.hgt_m = 96.0f;
	tecs_settle(&t, &p, &in);
	/* height alone (SPE weight 2, normalised): pitch = dh / (V TC) */
	float pitch = 4.0f / (15.0f * p.tecs_time_const);
	assert_near(t.pitch_dem_rad, pitch, 1e-3);
	/* throttle interpolated from trim to max by pitch / LIM_PITCH_MAX */
	float pmax = p.lim_pitch_max * 0.01f * D2R;
	float nom = p.trim_throttle * 0.01f;
	assert_near(t.throttle_dem, nom + (p.thr_max * 0.01f - nom) * pitch / pmax, 1e-3);
	assert_false(t.underspeed);
}

static void test_tecs_underspeed_gives_full_throttle_and_speed_priority(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	tecs_settle(&t, &p, &in);
	assert_false(t.underspeed);
	/* slowed below 0.9 ARSPD_FBW_MIN, asking for a climb it cannot make */
	in.eas_m_s = 0.8f * p.arspd_fbw_min;
	in.hgt_dem_m = 150.0f;
	for (int i = 0; i < 2000; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.underspeed);
	assert_near(t.throttle_dem, p.thr_max * 0.01f, 1e-5);
	assert_true(t.pitch_dem_rad < 0.0f);   /* nose down for speed despite the height */
	/* back at speed, normal again */
	in.eas_m_s = 15.0f;
	for (int i = 0; i < 10; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_false(t.underspeed);
}

static void test_tecs_integrators_and_outputs_stay_within_limits(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	p.tecs_integ_gain = 0.1f;
	in.hgt_dem_m = 1000.0f;  /* an error no aircraft removes */
	tecs_init(&t);
	for (int i = 0; i < 20000; i++) {
		tecs_update(&t, &p, &in, 0.02f);
		assert_true(t.throttle_dem >= p.thr_min * 0.01f - 1e-6f);
		assert_true(t.throttle_dem <= p.thr_max * 0.01f + 1e-6f);
		assert_true(t.pitch_dem_rad <= p.lim_pitch_max * 0.01f * D2R + 1e-6f);
		assert_true(fabsf(t.integ_thr) <= 0.5f * (p.thr_max - p.thr_min) * 0.01f + 1e-6f);
		assert_true(t.integ_seb <= p.lim_pitch_max * 0.01f * D2R + 0.0783f + 1e-6f);
	}
	/* the pitch integrator never holds more than the limits */
	assert_true(t.integ_seb <= p.lim_pitch_max * 0.01f * D2R + 0.08f);
	/* and when the error reverses, the pitch follows at once */
	in.hgt_m = t.hgt_dem_adj + 5.0f;
	for (int i = 0; i < 100; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.pitch_dem_rad < 0.0f);
}

static void test_tecs_takeoff_and_flare_stages(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_takeoff_base(&p, &in, 15.0f);
	in.eas_m_s = 14.0f;
	tecs_settle(&t, &p, &in);
	assert_near(t.throttle_dem, p.thr_max * 0.01f, 1e-6);
	assert_near(t.pitch_dem_rad, 15 * D2R, 1e-5);
	/* slower than the speed demand: the nose comes down */
	in.eas_m_s = p.arspd_fbw_min - 1.0f;
	for (int i = 0; i < 100; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.pitch_dem_rad < 10 * D2R);
	in.stage = TECS_STAGE_LAND_FLARE;
	in.hgt_dem_m = 0.0f;
	in.hgt_m = 2.0f;
	in.flare_frac = 1.0f;
	for (int i = 0; i < 50; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_near(t.throttle_dem, p.thr_min * 0.01f, 1e-6);
	/* LAND_PITCH_CD is the floor of the flare's pitch (at its end) */
	assert_true(t.pitch_dem_rad >= p.land_pitch_cd * 0.01f * D2R - 1e-6f);
}

/* With the motor off the aircraft sinks faster than the flare asks: the pitch
 * integrator takes the sink-rate error and removes it in TECS_LAND_TCONST / 2
 * (at 15 m/s, 1 s: 2 x 0.5 m/s / 15 m/s = 0.067 rad in a second), where the
 * slow trim of TECS_INTEG_GAIN (on the height error alone, here 0) gave nothing. */
static void test_tecs_flare_integrator_takes_the_sink_rate_error(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	p.tecs_integ_gain = 0.1f;
	tecs_settle(&t, &p, &in);
	float i0 = t.integ_seb, p0 = t.pitch_dem_rad;
	in.stage = TECS_STAGE_LAND_FLARE;
	in.climb_m_s = -1.0f;
	for (int i = 0; i < 50; i++) {
		in.hgt_dem_m -= 0.5f * 0.02f;
		in.hgt_m = in.hgt_dem_m;
		tecs_update(&t, &p, &in, 0.02f);
	}
	assert_true(t.integ_seb - i0 > 0.060f && t.integ_seb - i0 < 0.075f);
	assert_true(t.pitch_dem_rad > p0 + 0.060f);
	/* on the demand's sink, it holds what it found */
	float i1 = t.integ_seb;
	in.climb_m_s = -0.5f;
	for (int i = 0; i < 50; i++) {
		in.hgt_dem_m -= 0.5f * 0.02f;
		in.hgt_m = in.hgt_dem_m;
		tecs_update(&t, &p, &in, 0.02f);
	}
	assert_near(t.integ_seb, i1, 1e-4);
}

/* Faster than tkoff_eas_max_m_s at the takeoff pitch, the throttle comes off
 * the more the faster: no longer full at 16 m/s against 15, off by 22 m/s;
 * at or under the cap (or with none) full. The cut is lagged: a gust's frame
 * of 3 m/s^2 along the path (a cut of some 0.3 through TECS_THR_DAMP at once)
 * moves the throttle by a few hundredths, and once it has passed the throttle
 * is back where it was. */
static void test_tecs_takeoff_throttle_comes_off_past_its_speed_cap(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_takeoff_base(&p, &in, 12.0f);
	in.tkoff_eas_max_m_s = 15.0f;
	float thr[3];
	const float eas[3] = { 14.5f, 16.0f, 22.0f };
	for (int k = 0; k < 3; k++) {
		in.eas_m_s = eas[k];
		tecs_init(&t);
		tecs_settle(&t, &p, &in);
		thr[k] = t.throttle_dem;
	}
	assert_near(thr[0], p.thr_max * 0.01f, 1e-6);
	assert_true(thr[1] < 0.9f * p.thr_max * 0.01f && thr[1] > 0.5f * p.thr_max * 0.01f);
	assert_near(thr[2], p.thr_min * 0.01f, 1e-6);
	in.eas_m_s = eas[1];
	tecs_init(&t);
	tecs_settle(&t, &p, &in);
	in.vel_dot_m_s2 = 3.0f;
	tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.throttle_dem < thr[1] && t.throttle_dem > thr[1] - 0.03f);
	in.vel_dot_m_s2 = 0.0f;
	for (int i = 0; i < 200; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_near(t.throttle_dem, thr[1], 2e-3);
	in.tkoff_eas_max_m_s = 0.0f;
	tecs_init(&t);
	tecs_settle(&t, &p, &in);
	assert_near(t.throttle_dem, p.thr_max * 0.01f, 1e-6);
}

/* The climb-out winds the pitch integrator up to the takeoff pitch (faster than
 * ARSPD_FBW_MIN, the speed guard asks for more); the cruise does not inherit
 * it. At the hand-over the integrator starts from the attitude that flies
 * level: the present pitch less the climb's path angle (12 degrees climbing
 * 4 m/s at 18 m/s: -0.84). The pitch demand comes down from the takeoff pitch
 * no faster than TECS_VERT_ACC lets it. A stage change between other stages
 * keeps what the integrator holds. */
static void test_tecs_cruise_starts_from_the_level_attitude_not_the_takeoff_integrator(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_takeoff_base(&p, &in, 12.0f);
	in.hgt_m = 95.0f;
	in.hgt_dem_m = 100.0f;
	in.eas_m_s = 18.0f;
	in.climb_m_s = 4.0f;
	in.pitch_rad = 12 * D2R;
	tecs_settle(&t, &p, &in);
	/* rotated from the runway: the integrator at the takeoff pitch */
	tecs_hold_pitch(&t, 12 * D2R, 12 * D2R);
	for (int i = 0; i < 50; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.integ_seb > 10 * D2R);
	assert_near(t.pitch_dem_rad, 12 * D2R, 1e-5);
	float step = 0.02f * p.tecs_vert_acc / t.tas_state;
	float level = 12 * D2R - asinf(4.0f / t.tas_state);
	assert_near(level, -0.84f * D2R, 0.02f * D2R);
	in.stage = TECS_STAGE_NORMAL;
	in.hgt_m = 100.0f;
	in.eas_dem_m_s = in.eas_m_s;
	tecs_update(&t, &p, &in, 0.02f);
	assert_near(t.integ_seb, level, 0.05f * D2R);
	assert_near(t.pitch_dem_rad, 12 * D2R - step, 1e-5);
	/* the same hand-over flying level: the present attitude */
	struct tecs t2;
	in.stage = TECS_STAGE_TAKEOFF;
	in.climb_m_s = 0.0f;
	in.pitch_rad = 3 * D2R;
	tecs_settle(&t2, &p, &in);
	in.stage = TECS_STAGE_NORMAL;
	tecs_update(&t2, &p, &in, 0.02f);
	assert_near(t2.integ_seb, 3 * D2R, 0.05f * D2R);
	/* NORMAL to LAND_APPROACH keeps what the cruise found */
	in.climb_m_s = 0.0f;
	tecs_settle(&t, &p, &in);
	float cruise = t.integ_seb;
	in.stage = TECS_STAGE_LAND_APPROACH;
	tecs_update(&t, &p, &in, 0.02f);
	assert_near(t.integ_seb, cruise, 0.05f * D2R);
}

/* In the climb-out the aircraft outclimbs TECS_CLMB_MAX (pitch flies the
 * speed there): the height demand keeps up with it, up to the takeoff height,
 * so the hand-over sees no surplus that is not there. In the cruise the same
 * climb leaves the rate-limited demand behind. */
static void test_tecs_takeoff_height_demand_keeps_up_with_the_aircraft(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	enum tecs_stage stages[2] = { TECS_STAGE_TAKEOFF, TECS_STAGE_NORMAL };
	float lag[2];
	tecs_takeoff_base(&p, &in, 12.0f);
	p.tecs_clmb_max = 3.0f;
	for (int k = 0; k < 2; k++) {
		in.stage = stages[k];
		in.hgt_m = 0.0f;
		in.hgt_dem_m = 0.0f;
		in.climb_m_s = 4.0f;
		tecs_init(&t);
		tecs_update(&t, &p, &in, 0.02f);
		in.hgt_dem_m = 40.0f;
		for (int i = 0; i < 400; i++) {   /* 8 s: 32 m */
			in.hgt_m += 4.0f * 0.02f;
			tecs_update(&t, &p, &in, 0.02f);
		}
		lag[k] = in.hgt_m - t.hgt_dem_adj;
	}
	assert_near(lag[0], 0.0f, 1e-3);
	assert_true(lag[1] > 5.0f);
	/* past the takeoff height the demand stays at it */
	in.stage = TECS_STAGE_TAKEOFF;
	tecs_init(&t);
	tecs_update(&t, &p, &in, 0.02f);
	in.hgt_m = 43.0f;
	tecs_update(&t, &p, &in, 0.02f);
	assert_near(t.hgt_dem_adj, 40.0f, 1e-3);
}

/* The flare's pitch floor rises with the height flown in it, as ArduPlane's
 * does, from TECS_FLARE_FLOOR_DROP_DEG under the pitch the approach flew to
 * LAND_PITCH_CD: an aircraft over its path at the flare's start pitches no
 * lower than that (no dive for the path), halfway down no lower than halfway
 * between that and LAND_PITCH_CD, on the ground not below LAND_PITCH_CD. */
static void test_tecs_flare_pitch_floor_rises_from_under_the_approach_pitch(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	p.land_pitch_cd = 300.0f;
	float floor = 3 * D2R, lim = p.lim_pitch_min * 0.01f * D2R;
	const float frac[3] = { 0.0f, 0.5f, 1.0f };
	float pitch[3], p0 = 0.0f;
	for (int k = 0; k < 3; k++) {
		in.stage = TECS_STAGE_LAND_APPROACH;
		in.hgt_m = 3.0f;
		in.hgt_dem_m = 3.0f;
		tecs_settle(&t, &p, &in);
		in.hgt_dem_m = 1.0f;   /* the approach pitches down for two metres */
		for (int i = 0; i < 50; i++)
			tecs_update(&t, &p, &in, 0.02f);
		p0 = t.pitch_dem_rad;
		in.stage = TECS_STAGE_LAND_FLARE;
		in.flare_frac = frac[k];
		in.hgt_dem_m = 0.0f;   /* 3 m over the flare's path */
		for (int i = 0; i < 200; i++)
			tecs_update(&t, &p, &in, 0.02f);
		pitch[k] = t.pitch_dem_rad;
	}
	float start = p0 - TECS_FLARE_FLOOR_DROP_DEG * D2R;
	assert_true(p0 < -1 * D2R && start > lim + 5 * D2R);
	assert_near(pitch[0], start, 1e-5);
	assert_near(pitch[1], 0.5f * (start + floor), 1e-5);
	assert_near(pitch[2], floor, 1e-6);
}

/* On the wheels the pitch is not TECS's: held, it starts from the attitude
 * given and integrates from the trim given, not from what it gathered. */
static void test_tecs_hold_pitch_starts_from_the_attitude_and_the_trim_given(void **state)
{
	(void)state;
	struct tecs_params p;
	struct tecs_input in;
	struct tecs t;
	tecs_base(&p, &in);
	p.tecs_integ_gain = 0.1f;
	in.stage = TECS_STAGE_TAKEOFF;
	in.ptch_takeoff_rad = 12 * D2R;
	in.eas_dem_m_s = p.arspd_fbw_min;
	in.eas_m_s = p.arspd_fbw_min - 2.0f;   /* slow: winds the integrator nose-down */
	tecs_settle(&t, &p, &in);
	assert_true(t.integ_seb < 11 * D2R);
	tecs_hold_pitch(&t, 11 * D2R, 12 * D2R);
	assert_near(t.integ_seb, 12 * D2R, 1e-6);
	in.eas_m_s = p.arspd_fbw_min;
	in.pitch_rad = 11 * D2R;
	tecs_update(&t, &p, &in, 0.02f);
	float step = 0.02f * p.tecs_vert_acc / (p.arspd_fbw_min - 2.0f);   /* the filter still slow */
	assert_true(fabsf(t.pitch_dem_rad - 11 * D2R) <= step + 1e-6f);
	for (int i = 0; i < 100; i++)
		tecs_update(&t, &p, &in, 0.02f);
	assert_true(t.pitch_dem_rad > 10 * D2R);
	/* nonsense in: nothing changes */
	float before = t.integ_seb;
	tecs_hold_pitch(&t, NAN, 0.0f);
	assert_near(t.integ_seb, before, 0.0);
}

/* ---- landing path ---- */

static void test_land_path_is_continuous_and_ends_on_the_point(void **state)
{
	(void)state;
	struct land_path lp;
	struct nav_ne start = { -350, 0 }, land = { 0, 0 };
	assert_int_equal(land_path_plan(&lp, start, 30.0f, land, 0.0f, 13.0f, 2.0f, 1.5f, 0.25f), 0);
	assert_near(land_path_height_m(&lp, 350.0f), 30.0, 0.05);
	assert_near(land_path_height_m(&lp, 0.0f), 0.0, 1e-5);
	/* continuous in height and slope where the flare starts */
	float df = lp.flare_d_m, e = 1e-3f;
	assert_near(land_path_height_m(&lp, df + e), land_path_height_m(&lp, df - e), 1e-3);
	float s1 = (land_path_height_m(&lp, df + 1.0f) - land_path_height_m(&lp, df)) / 1.0f;
	float s2 = (land_path_height_m(&lp, df) - land_path_height_m(&lp, df - 0.01f)) / 0.01f;
	assert_near(s1, lp.tan_gamma, 1e-3);
	assert_near(s2, lp.tan_gamma, 2e-3);
	/* the flare begins at LAND_FLARE_ALT (the glide's 1.5 s is less here) */
	assert_near(lp.flare_h_m, 2.0, 0.01);
	/* touchdown sink is TECS_LAND_SINK at the planned ground speed */
	assert_near(land_flare_sink_m_s(&lp, 0.0f, 13.0f), 0.25, 1e-4);
	/* on the parabola, sink = gs * slope */
	float h = land_path_height_m(&lp, 20.0f);
	float slope = 2.0f * lp.a * 20.0f + lp.b;
	assert_near(land_flare_sink_m_s(&lp, h, 13.0f), 13.0f * slope, 1e-3);
	/* triggers */
	assert_false(land_should_flare(&lp, 100.0f, 10.0f, 1.0f, 2.0f, 1.5f));
	assert_true(land_should_flare(&lp, df - 1.0f, 10.0f, 1.0f, 2.0f, 1.5f));
	assert_true(land_should_flare(&lp, 100.0f, 1.9f, 0.0f, 2.0f, 1.5f));
	assert_true(land_should_flare(&lp, 100.0f, 2.9f, 2.0f, 2.0f, 1.5f));  /* 1.45 s to go */
	/* the time trigger waits for the approach's second half (175 m here) */
	assert_false(land_should_flare(&lp, 200.0f, 2.9f, 2.0f, 2.0f, 1.5f));
	assert_true(land_should_flare(&lp, 170.0f, 2.9f, 2.0f, 2.0f, 1.5f));
	/* no room */
	assert_int_equal(land_path_plan(&lp, start, 0.5f, land, 0.0f, 13.0f, 2.0f, 1.5f, 0.25f), -EINVAL);
	assert_int_equal(land_path_plan(&lp, (struct nav_ne){ -10, 0 }, 30.0f, land, 0.0f, 13.0f, 2.0f,
					1.5f, 0.25f), -EINVAL);
}

/* Into a strong wind the ground speed is so low that TECS_LAND_SINK would be
 * steeper than the glide path: the plan still holds, with a gentler touchdown. */
static void test_land_path_plans_into_a_strong_headwind(void **state)
{
	(void)state;
	struct land_path lp;
	struct nav_ne start = { -500, 0 }, land = { 0, 0 };
	/* 40 m over 500 m (1 in 12.5), 15 m/s into 10 m/s: 5 m/s over the ground */
	assert_int_equal(land_path_plan(&lp, start, 40.0f, land, 0.0f, 5.0f, 3.0f, 2.0f, 0.5f), 0);
	assert_true(lp.b > 0.0f && lp.b < lp.tan_gamma);
	assert_true(lp.b <= 0.5f * 40.0f / 500.0f + 1e-6f);
	assert_true(lp.a > 0.0f);
	assert_near(land_path_height_m(&lp, 500.0f), 40.0, 0.05);
	assert_near(land_path_height_m(&lp, 0.0f), 0.0, 1e-5);
	/* the touchdown sink: gentler than asked (the path is), never zero */
	float sink = land_flare_sink_m_s(&lp, 0.0f, 5.0f);
	assert_true(sink < 0.5f && sink >= LAND_SINK_MIN_M_S);
}

/* The flare as flown aims at the land point from wherever it began: on the
 * ground there with the touchdown's slope, shallower when begun early, and
 * the planned flare when begun where the plan has it. */
static void test_land_flare_aims_at_the_point_from_where_it_began(void **state)
{
	(void)state;
	struct land_path lp;
	struct nav_ne start = { -350, 0 }, land = { 0, 0 };
	assert_int_equal(land_path_plan(&lp, start, 30.0f, land, 0.0f, 13.0f, 2.0f, 1.5f, 0.25f), 0);
	assert_false(lp.aimed);
	/* begun where the plan has it: the planned parabola */
	assert_true(land_flare_aim(&lp, lp.flare_d_m, lp.flare_h_m));
	for (float d = 0.0f; d <= lp.flare_d_m; d += 5.0f)
		assert_near(land_flare_aim_height_m(&lp, d), land_path_height_m(&lp, d), 1e-3);
	/* begun early and low (60 m out at 1.5 m): shallower, still on the point */
	assert_true(land_flare_aim(&lp, 60.0f, 1.5f));
	assert_near(land_flare_aim_height_m(&lp, 60.0f), 1.5, 1e-4);
	assert_near(land_flare_aim_height_m(&lp, 70.0f), 1.5, 1e-4);
	assert_near(land_flare_aim_height_m(&lp, 0.0f), 0.0, 1e-6);
	float e = 0.01f;
	assert_near((land_flare_aim_height_m(&lp, e) - land_flare_aim_height_m(&lp, 0.0f)) / e, lp.b,
		    1e-3);
	assert_true(land_flare_aim_height_m(&lp, 30.0f) < 1.5f &&
		    land_flare_aim_height_m(&lp, 30.0f) > 0.0f);
	/* past the point: on down at the touchdown's slope */
	assert_near(land_flare_aim_height_m(&lp, -10.0f), -10.0f * lp.b, 1e-5);
	/* begun at the point, or at no height: not aimed */
	assert_false(land_flare_aim(&lp, 0.5f, 1.0f));
	assert_false(lp.aimed);
	assert_false(land_flare_aim(&lp, 30.0f, 0.0f));
}

/* ---- launch detector ---- */

static void test_launch_waits_for_the_throw_then_the_delay_then_the_speed(void **state)
{
	(void)state;
	struct launch_params p = { .tkoff_thr_minacc = 15.0f, .tkoff_thr_delay = 2.0f,
				   .tkoff_thr_minspd = 4.0f };
	struct launch l;
	launch_init(&l);
	uint64_t t = 1000000;
	/* on the bench: nothing */
	for (int i = 0; i < 100; i++, t += 10000)
		assert_false(launch_update(&l, &p, t, 2.0f, 0.0f, 0.0f, 0.0f));
	/* the throw at t0 */
	uint64_t t0 = t;
	float v = 0.0f;
	bool fired = false;
	uint64_t t_fire = 0;
	for (int i = 0; i < 100; i++, t += 10000) {
		v += 20.0f * 0.01f;
		if (launch_update(&l, &p, t, 20.0f, v, 10 * D2R, 0.0f) && !fired) {
			fired = true;
			t_fire = t;
		}
	}
	assert_true(fired);
	assert_int_equal(t_fire - t0, 200000);   /* TKOFF_THR_DELAY 0.2 s (speed was 4 m/s by then) */
	/* latched */
	assert_true(launch_update(&l, &p, t, 0.0f, 0.0f, 0.0f, 0.0f));
}

static void test_launch_ignores_throws_in_the_wrong_attitude_or_too_slow(void **state)
{
	(void)state;
	struct launch_params p = { .tkoff_thr_minacc = 15.0f, .tkoff_thr_delay = 2.0f,
				   .tkoff_thr_minspd = 4.0f };
	struct launch l;
	launch_init(&l);
	/* banked 40 degrees, or nose down 40: not a launch */
	assert_false(launch_update(&l, &p, 0, 30.0f, 10.0f, 0.0f, 40 * D2R));
	assert_false(launch_update(&l, &p, 10000, 30.0f, 10.0f, -40 * D2R, 0.0f));
	assert_false(launch_update(&l, &p, 400000, 0.0f, 10.0f, 0.0f, 0.0f));
	assert_false(l.armed);
	/* a knock that never gets up to speed disarms after the window */
	assert_false(launch_update(&l, &p, 1000000, 16.0f, 1.0f, 0.0f, 0.0f));
	assert_true(l.armed);
	assert_false(launch_update(&l, &p, 1000000 + 200000 + LAUNCH_WINDOW_US + 1, 0.0f, 1.0f, 0.0f, 0.0f));
	assert_false(l.armed);
	/* no acceleration check: the speed alone, at once */
	p.tkoff_thr_minacc = 0.0f;
	launch_init(&l);
	assert_false(launch_update(&l, &p, 0, 0.0f, 3.9f, 0.0f, 0.0f));
	assert_true(launch_update(&l, &p, 20000, 0.0f, 4.0f, 0.0f, 0.0f));
	/* neither: immediately */
	p.tkoff_thr_minspd = 0.0f;
	launch_init(&l);
	assert_true(launch_update(&l, &p, 0, 0.0f, 0.0f, 0.0f, 0.0f));
}

/* ---- the navigator ---- */

static struct vehicle_state vs_at(const struct sim_lla *home, double n, double e, float h,
				  float vn, float ve)
{
	struct vehicle_state vs;
	memset(&vs, 0, sizeof(vs));
	struct sim_lla p = sim_ned_to_lla(home, v3_make(n, e, -h));
	vs.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID | VEHICLE_POSITION_VALID |
		   VEHICLE_AIRSPEED_VALID;
	vs.lat_deg = p.lat_deg;
	vs.lon_deg = p.lon_deg;
	vs.alt_rel_m = h;
	vs.alt_msl_m = (float)home->alt_m + h;
	vs.vel_ned_m_s[0] = vn;
	vs.vel_ned_m_s[1] = ve;
	vs.airspeed_m_s = hypotf(vn, ve);
	return vs;
}

static struct nav_wp wp_at(const struct sim_lla *home, double n, double e, float alt)
{
	struct sim_lla p = sim_ned_to_lla(home, v3_make(n, e, 0));
	return (struct nav_wp){ p.lat_deg, p.lon_deg, alt };
}

static void test_nav_leg_reports_and_sequences(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	nav_params_default(&p);
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	struct nav_wp a = wp_at(&home, 0, 0, 50), b = wp_at(&home, 300, 0, 100), c = wp_at(&home, 300, 200, 100);
	nav_set_leg(&n, &a, &b, &c);
	struct nav_output out;
	struct vehicle_state vs = vs_at(&home, 150, 10, 70, 15, 0);
	nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	assert_false(out.wp_reached);
	assert_near(out.xtrack_m, 10.0, 0.05);
	assert_near(out.wp_dist_m, hypot(150, 10), 0.05);
	assert_near(out.target_bearing_rad, nav_wrap_2pi(atan2f(-10, 150)), 1e-3);
	assert_near(out.alt_error_m, 75.0f - 70.0f, 0.05);   /* halfway from 50 to 100 m */
	assert_near(out.aspd_error_m_s, p.trim_arspd_cm * 0.01f - 15.0f, 1e-3);
	assert_true(out.nav_roll_rad < 0.0f);                /* right of the track: turn left */
	assert_true(fabsf(out.nav_roll_rad) <= p.lim_roll_cd * 0.01f * D2R);
	/* an L1 length before the corner, the turn begins */
	vs = vs_at(&home, 300.0 - (double)n.l1.l1_dist_m + 1.0, 0, 100, 15, 0);
	nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	assert_true(out.wp_reached);
}

/* The landing approach is flown faster by one standard deviation of the gusts
 * (the airspeed sensor's reading less the estimate's, whose wind is slow),
 * at most 4 m/s more; a leg keeps TRIM_ARSPD_CM. Without the sensor's reading
 * the margin measured is kept. */
static void test_nav_landing_approach_adds_a_margin_for_the_gusts(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	nav_params_default(&p);
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	float trim = p.trim_arspd_cm * 0.01f;
	struct nav_wp a = wp_at(&home, 0, 0, 50), b = wp_at(&home, 600, 0, 50), c = wp_at(&home, 600, 200, 50);
	nav_set_leg(&n, &a, &b, &c);
	struct nav_output out;
	struct vehicle_state vs = vs_at(&home, 100, 0, 50, 15, 0);
	vs.airspeed_meas_m_s = NAN;
	nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	assert_near(nav_gust_margin_m_s(&n), 0.0, 1e-6);
	/* 30 s of gusts: the sensor 1 m/s either side of the estimate, 0.5 m/s over */
	for (int i = 0; i < 1500; i++) {
		vs.airspeed_meas_m_s = vs.airspeed_m_s + 0.5f + ((i / 10) % 2 ? 1.0f : -1.0f);
		nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	}
	assert_near(nav_gust_margin_m_s(&n), 1.0, 0.05);
	assert_near(out.aspd_error_m_s, trim - 15.0f, 1e-3);
	float margin = nav_gust_margin_m_s(&n);
	struct nav_wp ap = wp_at(&home, -400, 0, 30), land = wp_at(&home, 0, 0, 0);
	nav_set_land(&n, &ap, &land);
	vs = vs_at(&home, -300, 0, 22, 15, 0);
	vs.airspeed_meas_m_s = NAN;
	nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	assert_near(nav_gust_margin_m_s(&n), margin, 1e-6);
	assert_near(out.aspd_error_m_s, trim + margin - 15.0f, 1e-3);
	/* rough air: no more than 4 m/s */
	for (int i = 0; i < 1500; i++) {
		vs.airspeed_meas_m_s = vs.airspeed_m_s + ((i / 10) % 2 ? 5.0f : -5.0f);
		nav_update(&n, &p, &vs, NULL, 0.02f, &out);
	}
	assert_near(nav_gust_margin_m_s(&n), 4.0, 1e-6);
}

/* Flown exactly on its demand, the aimed flare holds its height for the first
 * NAV_FLARE_LEAD_S of ground (never a climb) and from there asks for the
 * height its path has NAV_FLARE_LEAD_S further out: it reaches the land
 * point's height that far past the point. */
static void test_nav_flare_leads_its_path(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	nav_params_default(&p);
	p.tecs.land_pitch_cd = 300.0f;
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	struct nav_wp ap = wp_at(&home, -400, 0, 30), land = wp_at(&home, 0, 0, 0);
	nav_set_land(&n, &ap, &land);
	struct nav_output out;
	const float gs = 15.0f, dt = 0.02f, lead = gs * NAV_FLARE_LEAD_S;
	double north = -300.0;
	float h = 22.0f, d0 = NAN, h0 = NAN, at_point = NAN, past = NAN;
	for (int i = 0; i < 2000 && north < 2.0 * (double)lead; i++) {
		struct vehicle_state vs = vs_at(&home, north, 0, h, gs, 0);
		vs.vel_ned_m_s[2] = 0.0f;
		vs.airspeed_meas_m_s = NAN;
		nav_update(&n, &p, &vs, NULL, dt, &out);
		if (out.flaring && isnan(d0)) {
			d0 = (float)-north;
			h0 = h + out.alt_error_m;
		}
		if (out.flaring && (float)-north > d0 - lead + 0.5f)
			assert_near(h + out.alt_error_m, h0, 1e-4);   /* level at first */
		if (isnan(at_point) && north >= 0.0)
			at_point = h + out.alt_error_m;
		if (isnan(past) && north >= (double)lead)
			past = h + out.alt_error_m;
		h += out.alt_error_m;
		north += (double)(gs * dt);
	}
	assert_false(isnan(d0));
	assert_true(d0 > 2.0f * lead);
	/* over the point: the path's height NAV_FLARE_LEAD_S out, not 0 */
	assert_near(at_point, land_flare_aim_height_m(&n.land, lead), 0.02f);
	assert_true(at_point > 0.05f);
	/* NAV_FLARE_LEAD_S past it: the land point's height */
	assert_near(past, 0.0f, 0.02f);
}

/* The flare flown down to the runway, then on it, slowing: one step each. */
struct rollout_run {
	bool rollout_in_air;        /* the rollout said while over NAV_ROLLOUT_HGT_M */
	double rollout_north;       /* where it was first said */
	struct nav_output first, slow, last;
};

static void fly_to_rollout(struct nav_params *p, bool airspeed, struct rollout_run *r)
{
	struct sim_lla home = sim_home_default();
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	struct nav_wp ap = wp_at(&home, -400, 0, 30), land = wp_at(&home, 0, 0, 0);
	nav_set_land(&n, &ap, &land);
	memset(r, 0, sizeof(*r));
	r->rollout_north = NAN;
	const float dt = 0.02f;
	double north = -300.0;
	float h = 22.0f, spd = 14.0f, sink = 0.0f;
	struct nav_output out;
	for (int i = 0; i < 6000 && spd > 0.5f; i++) {
		struct vehicle_state vs = vs_at(&home, north, 0, h, spd, 0);
		vs.vel_ned_m_s[2] = sink;
		if (!airspeed)
			vs.valid &= ~VEHICLE_AIRSPEED_VALID;
		vs.pitch_rad = h > 0.0f ? 2.0f * D2R : 11.0f * D2R;   /* on its wheels, tail down */
		vs.airspeed_meas_m_s = NAN;
		nav_update(&n, p, &vs, NULL, dt, &out);
		if (out.rollout && isnan(r->rollout_north)) {
			r->rollout_north = north;
			r->first = out;
			r->rollout_in_air = h > 1.0f;
		}
		if (out.rollout && spd < p->tkoff_tdrag_spd1 && !r->slow.rollout)
			r->slow = out;
		r->last = out;
		/* on its demand, then on the ground, where it slows at 2 m/s^2 */
		float h_next = fmaxf(h + (isfinite(out.alt_error_m) ? out.alt_error_m : 0.0f), 0.0f);
		sink = (h - h_next) / dt;
		h = h_next;
		if (h <= 0.0f)
			spd -= 2.0f * dt;
		north += (double)(spd * dt);
	}
}

/* The rollout (docs/flight-control.md, "The ground"): once down and no longer
 * sinking, or too slow to fly, the attitude loops stop: motor off, wings
 * level, the heading held by the steering law (GROUND_STEER_ALT 0 or not),
 * the elevator held (neutral while faster than TKOFF_TDRAG_SPD1, then
 * TKOFF_TDRAG_ELEV), and the pitch demand never under LAND_PITCH_CD. With
 * the defaults (TKOFF_TDRAG_ELEV 0) the elevator stays neutral. */
static void test_nav_rollout_holds_the_elevator_and_stops_flying(void **state)
{
	(void)state;
	struct nav_params p;
	nav_params_default(&p);
	p.tkoff_tdrag_elev = 100.0f;
	p.tkoff_tdrag_spd1 = 8.0f;
	p.tecs.land_pitch_cd = 1500.0f;   /* over the 11 degrees it sits at: the floor shows */
	struct rollout_run r;
	fly_to_rollout(&p, true, &r);
	assert_false(isnan(r.rollout_north));
	assert_false(r.rollout_in_air);
	print_message("rollout said %.1f m from the land point\n", r.rollout_north);
	assert_true(r.first.flaring);
	assert_near(r.first.throttle, 0.0, 0.0);
	assert_near(r.first.nav_roll_rad, 0.0, 0.0);
	assert_true(r.first.ground_steering);      /* GROUND_STEER_ALT is 0 */
	assert_true(r.first.elevator_hold);
	assert_near(r.first.elevator, 0.0, 0.0);    /* faster than TKOFF_TDRAG_SPD1 */
	assert_near(r.first.nav_pitch_rad, 15.0f * D2R, 1e-6);
	assert_true(r.slow.rollout);
	assert_near(r.slow.elevator, 1.0, 1e-6);    /* full up, the tail wheel pressed down */
	assert_true(r.last.rollout);
	/* the defaults: neutral to the end, the pitch demand the attitude */
	nav_params_default(&p);
	fly_to_rollout(&p, true, &r);
	assert_true(r.last.rollout && r.last.elevator_hold);
	assert_near(r.last.elevator, 0.0, 0.0);
	assert_near(r.last.nav_pitch_rad, 11.0f * D2R, 1e-6);
	/* without an airspeed sensor: the settling alone, still on the ground */
	fly_to_rollout(&p, false, &r);
	assert_false(isnan(r.rollout_north));
	assert_false(r.rollout_in_air);
}

static void test_nav_takeoff_holds_the_motor_until_the_throw(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	nav_params_default(&p);
	p.launch.tkoff_thr_minacc = 15.0f;
	p.launch.tkoff_thr_minspd = 4.0f;
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	nav_set_takeoff(&n, 15.0f, 50.0f);
	struct nav_output out;
	float acc[3] = { 0.0f, 0.0f, -9.8f };
	struct vehicle_state vs = vs_at(&home, 0, 0, 1.5f, 0, 0);
	for (int i = 0; i < 50; i++) {
		vs.t_us = (uint64_t)i * 20000;
		nav_update(&n, &p, &vs, acc, 0.02f, &out);
		assert_true(out.throttle_suppressed);
		assert_near(out.throttle, 0.0, 1e-6);
		assert_near(out.nav_pitch_rad, 15 * D2R, 1e-5);
	}
	acc[0] = 20.0f;
	vs = vs_at(&home, 0, 0, 1.5f, 6, 0);
	vs.t_us = 50 * 20000;
	nav_update(&n, &p, &vs, acc, 0.02f, &out);
	assert_true(out.throttle_suppressed);
	vs.t_us += 200000;
	nav_update(&n, &p, &vs, acc, 0.02f, &out);
	assert_true(out.launched);
	assert_near(out.throttle, p.tecs.thr_max * 0.01f, 1e-5);
	assert_true(fabsf(out.nav_roll_rad) <= p.level_roll_limit * D2R + 1e-6f);
	assert_false(out.takeoff_complete);
	vs = vs_at(&home, 200, 0, 50.5f, 15, 0);
	vs.t_us = 30000000;
	nav_update(&n, &p, &vs, acc, 0.02f, &out);
	assert_true(out.takeoff_complete);
}

/* ---- ground steering and the takeoff roll ---- */

/* An airspeed at which the rudder has its whole travel (over ARSPD_FBW_MIN). */
#define FLYING_M_S 12.0f
#define FBW_MIN_M_S 11.0f

static void test_steer_turns_toward_the_heading_and_holds_its_integral_when_standing(void **state)
{
	(void)state;
	struct steer_params p;
	steer_params_default(&p);
	struct steer s;
	steer_init(&s);
	/* the runway is to the right of the nose: right rudder, at most full */
	float u = steer_rudder(&s, &p, 10.0f * D2R, 0.0f, 3.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f);
	assert_true(u > 0.0f && u <= 1.0f);
	assert_true(steer_rudder(&s, &p, -10.0f * D2R, 0.0f, 3.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f) < 0.0f);
	assert_near(steer_rudder(&s, &p, 3.0f, 0.0f, 3.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f), 1.0, 1e-6);
	/* already turning at the demanded rate: (almost) nothing more */
	steer_init(&s);
	float r_d = 10.0f * D2R / p.tconst;
	assert_near(steer_rudder(&s, &p, 10.0f * D2R, r_d, 3.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f), 0.0, 1e-6);
	/* the same error asks for less rudder at speed */
	steer_init(&s);
	float slow = steer_rudder(&s, &p, 5.0f * D2R, 0.0f, 5.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.0f);
	float fast = steer_rudder(&s, &p, 5.0f * D2R, 0.0f, 15.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.0f);
	assert_near(fast, slow / 3.0f, 1e-5);
	/* standing still, the integral does not wind up; rolling, it does, to IMAX */
	steer_init(&s);
	for (int i = 0; i < 1000; i++)
		steer_rudder(&s, &p, 5.0f * D2R, 0.0f, 0.5f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f);
	assert_near(s.integ, 0.0, 1e-9);
	for (int i = 0; i < 100000; i++)
		steer_rudder(&s, &p, 5.0f * D2R, 0.0f, 4.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f);
	assert_near(s.integ, p.imax / 4500.0f, 1e-6);
	/* nonsense in, nothing out, state untouched */
	float before = s.integ;
	assert_near(steer_rudder(&s, &p, NAN, 0.0f, 4.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f), 0.0, 0.0);
	assert_near(steer_rudder(&s, &p, 0.1f, INFINITY, 4.0f, FLYING_M_S, FBW_MIN_M_S, 0.0f, 0.01f), 0.0, 0.0);
	assert_near(s.integ, before, 0.0);
	/* GROUND_STEER_ALT 0 (the default): never */
	assert_false(steer_on_ground(&p, 0.0f));
	p.ground_steer_alt = 5.0f;
	assert_true(steer_on_ground(&p, 0.2f));
	assert_false(steer_on_ground(&p, 6.0f));
}

/* The rudder within what it can do at the speed (steer.h): 0.4 of its travel
 * standing still with the motor idle, all of it from ARSPD_FBW_MIN or at full
 * power, the square of the speed's (or throttle's) share between; the integral never past that, and still while the output
 * is held at it. Without an airspeed, the ground speed. */
static void test_steer_limits_the_rudder_to_its_authority_at_the_speed(void **state)
{
	(void)state;
	struct steer_params p;
	steer_params_default(&p);
	struct steer s;
	steer_init(&s);
	assert_near(steer_limit(0.0f, FBW_MIN_M_S, 0.0f), STEER_LIM_STILL, 1e-6);
	assert_near(steer_limit(FBW_MIN_M_S / 2.0f, FBW_MIN_M_S, 0.0f), STEER_LIM_STILL + (1.0f - STEER_LIM_STILL) / 4.0f,
		    1e-6);
	assert_near(steer_limit(2.0f * FBW_MIN_M_S, FBW_MIN_M_S, 0.0f), 1.0, 1e-6);
	/* 90 degrees off at walking pace, no airspeed reading: 0.4, not full */
	float u = steer_rudder(&s, &p, 1.5f, 0.0f, 1.0f, NAN, FBW_MIN_M_S, 0.0f, 0.01f);
	assert_near(u, steer_limit(1.0f, FBW_MIN_M_S, 0.0f), 1e-6);
	assert_true(u < 0.45f);
	/* held there for a minute of rolling, the integral stays within the limit
	 * and does not grow while the output is at it */
	for (int i = 0; i < 6000; i++)
		u = steer_rudder(&s, &p, 1.5f, 0.0f, 2.0f, 2.0f, FBW_MIN_M_S, 0.0f, 0.01f);
	float lim2 = steer_limit(2.0f, FBW_MIN_M_S, 0.0f);
	assert_near(u, lim2, 1e-6);
	assert_true(fabsf(s.integ) <= lim2 + 1e-6f);
	/* the error gone: the rudder comes back at once, no wound-up integral
	 * holding it over */
	u = steer_rudder(&s, &p, 0.0f, 0.0f, 2.0f, 2.0f, FBW_MIN_M_S, 0.0f, 0.01f);
	assert_true(fabsf(u) <= fabsf(s.integ) + 1e-6f);
	assert_true(s.integ < 0.2f);
	/* the airspeed, not the ground speed, gives the authority: standing in a
	 * 12 m/s wind, the whole travel */
	steer_init(&s);
	assert_near(steer_rudder(&s, &p, 1.5f, 0.0f, 0.0f, 12.0f, FBW_MIN_M_S, 0.0f, 0.01f), 1.0, 1e-6);
	/* and so does the slipstream: standing still at full power, the whole
	 * travel; at half power, a quarter of the rest */
	assert_near(steer_limit(0.0f, FBW_MIN_M_S, 1.0f), 1.0, 1e-6);
	assert_near(steer_limit(0.0f, FBW_MIN_M_S, 0.5f), STEER_LIM_STILL + (1.0f - STEER_LIM_STILL) / 4.0f, 1e-6);
	assert_near(steer_limit(0.0f, FBW_MIN_M_S, NAN), STEER_LIM_STILL, 1e-6);
}

/* A takeoff from a runway heading north: the motor runs at once (no throw to wait for);
 * its first step, at rest, in *out. */
static void runway_takeoff(struct nav *n, struct nav_params *p, const struct sim_lla *home,
			   const float *acc, struct nav_output *out)
{
	nav_params_default(p);
	p->steer.ground_steer_alt = 5.0f;
	p->tkoff_tdrag_elev = 100.0f;
	p->tkoff_tdrag_spd1 = 8.0f;
	p->tkoff_rotate_spd = 11.0f;
	p->tkoff_thr_slew = 20.0f;
	nav_init(n, home->lat_deg, home->lon_deg);
	nav_set_takeoff(n, 12.0f, 50.0f);
	struct vehicle_state vs = vs_at(home, 0, 0, 0.0f, 0, 0);
	nav_update(n, p, &vs, acc, 0.01f, out);
}

static void test_nav_runway_takeoff_holds_the_tail_then_levels_then_rotates(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	struct nav n;
	struct nav_output out;
	float acc[3] = { 2.0f, 0.0f, -9.8f };
	runway_takeoff(&n, &p, &home, acc, &out);
	assert_true(out.launched);
	assert_near(out.throttle_slew, 20.0, 0.0);
	assert_true(out.elevator_hold);
	assert_near(out.elevator, 1.0, 1e-6);             /* full up: the tail wheel pressed down */
	struct vehicle_state vs = vs_at(&home, 20, 0, 0.0f, 9, 0);  /* past TDRAG_SPD1, short of ROTATE_SPD */
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_false(out.elevator_hold);
	assert_near(out.nav_pitch_rad, 0.0, 1e-6);
	vs = vs_at(&home, 60, 0, 0.0f, 11.5f, 0);
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(n.tkoff_rotated);                     /* the climb's pitch (TECS's, from here) */
	vs = vs_at(&home, 70, 0, 0.0f, 9.5f, 0);            /* a gust's dip does not undo it */
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_false(out.elevator_hold);
	assert_true(n.tkoff_rotated && n.tkoff_tail_done);
}

/* In a 10 m/s crosswind the airspeed is past TKOFF_TDRAG_SPD1 standing still:
 * the tail stays down (wings level) until the roll itself is that fast; the
 * nose rising 5 degrees off the runway, or the rotation airspeed, is flying. */
static void test_nav_runway_takeoff_in_a_wind_holds_the_tail_until_rolling(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	struct nav n;
	struct nav_output out;
	float acc[3] = { 2.0f, 0.0f, -9.8f };
	runway_takeoff(&n, &p, &home, acc, &out);
	struct vehicle_state vs = vs_at(&home, 2, 0, 0.0f, 2, 0);
	vs.airspeed_m_s = 10.0f;
	vs.roll_rad = 4.0f * D2R;
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(out.elevator_hold);
	assert_near(out.nav_roll_rad, 0.0, 0.0);
	vs = vs_at(&home, 20, 0, 0.0f, 8.5f, 0);
	vs.airspeed_m_s = 10.0f;
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_false(out.elevator_hold);
	assert_false(n.tkoff_rotated);
	vs.airspeed_m_s = 11.5f;
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(n.tkoff_rotated);
	/* weathervaned into the wind, lifting off standing: rotated at once */
	runway_takeoff(&n, &p, &home, acc, &out);
	vs = vs_at(&home, 0, 0, 0.0f, 0.5f, 0);
	vs.airspeed_m_s = 10.0f;
	vs.pitch_rad = 4.0f * D2R;                  /* the roll began level (runway_takeoff) */
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_false(n.tkoff_rotated);
	vs.pitch_rad = 5.5f * D2R;
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(n.tkoff_rotated);
	assert_false(out.elevator_hold);
}

static void test_nav_runway_takeoff_steers_back_to_the_runway_heading_below_ground_steer_alt(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	struct nav n;
	struct nav_output out;
	float acc[3] = { 2.0f, 0.0f, -9.8f };
	runway_takeoff(&n, &p, &home, acc, &out);   /* the runway: the nose's heading, north */
	assert_true(out.ground_steering);
	/* swung 15 degrees left of the runway: right rudder */
	struct vehicle_state vs = vs_at(&home, 10, 0, 0.0f, 6, 0);
	vs.yaw_rad = -15.0f * D2R;
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(out.ground_steering);
	assert_true(out.steer_rudder > 0.1f);
	/* 3 m right of the centre line, heading along it: a little left rudder */
	vs = vs_at(&home, 20, 3, 0.0f, 8, 0);
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(out.steer_rudder < 0.0f);
	/* in the air above GROUND_STEER_ALT: the rudder is the flight controller's again */
	vs = vs_at(&home, 200, 0, 8.0f, 14, 0);
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_false(out.ground_steering);
}

static void test_nav_defaults_are_a_hand_launch_without_ground_steering(void **state)
{
	(void)state;
	struct sim_lla home = sim_home_default();
	struct nav_params p;
	nav_params_default(&p);
	struct nav n;
	nav_init(&n, home.lat_deg, home.lon_deg);
	nav_set_takeoff(&n, 15.0f, 50.0f);
	struct nav_output out;
	float acc[3] = { 0.0f, 0.0f, -9.8f };
	struct vehicle_state vs = vs_at(&home, 0, 0, 0.0f, 2, 0);
	nav_update(&n, &p, &vs, acc, 0.01f, &out);
	assert_true(out.launched);                          /* TKOFF_THR_MINACC 0: at once */
	assert_false(out.ground_steering);
	assert_false(out.elevator_hold);
	assert_near(out.throttle_slew, 0.0, 0.0);
	assert_true(n.tkoff_rotated);                       /* no tail hold, no level phase */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nav_geo_matches_the_exact_tangent_plane_to_1e4_over_kilometres),
		cmocka_unit_test(test_nav_geo_bearing_distance_and_cross_track),
		cmocka_unit_test(test_nav_geo_waypoint_accepted_inside_radius_or_past_the_line),
		cmocka_unit_test(test_l1_on_the_track_demands_nothing),
		cmocka_unit_test(test_l1_offset_parallel_to_the_track_matches_closed_form),
		cmocka_unit_test(test_l1_flies_to_a_from_far_behind_and_back_to_b_when_past),
		cmocka_unit_test(test_l1_keeps_its_turn_when_the_target_is_dead_astern),
		cmocka_unit_test(test_l1_loiter_on_the_circle_is_the_centripetal_demand),
		cmocka_unit_test(test_l1_turn_distance_is_the_smaller_of_radius_and_l1),
		cmocka_unit_test(test_tecs_on_target_gives_trim_throttle_and_level_pitch),
		cmocka_unit_test(test_tecs_splits_energy_between_throttle_and_pitch),
		cmocka_unit_test(test_tecs_without_airspeed_flies_height_by_pitch_and_throttle_by_pitch),
		cmocka_unit_test(test_tecs_underspeed_gives_full_throttle_and_speed_priority),
		cmocka_unit_test(test_tecs_integrators_and_outputs_stay_within_limits),
		cmocka_unit_test(test_tecs_takeoff_and_flare_stages),
		cmocka_unit_test(test_tecs_flare_integrator_takes_the_sink_rate_error),
		cmocka_unit_test(test_tecs_takeoff_throttle_comes_off_past_its_speed_cap),
		cmocka_unit_test(test_tecs_cruise_starts_from_the_level_attitude_not_the_takeoff_integrator),
		cmocka_unit_test(test_tecs_takeoff_height_demand_keeps_up_with_the_aircraft),
		cmocka_unit_test(test_tecs_flare_pitch_floor_rises_from_under_the_approach_pitch),
		cmocka_unit_test(test_tecs_hold_pitch_starts_from_the_attitude_and_the_trim_given),
		cmocka_unit_test(test_land_path_is_continuous_and_ends_on_the_point),
		cmocka_unit_test(test_land_path_plans_into_a_strong_headwind),
		cmocka_unit_test(test_land_flare_aims_at_the_point_from_where_it_began),
		cmocka_unit_test(test_launch_waits_for_the_throw_then_the_delay_then_the_speed),
		cmocka_unit_test(test_launch_ignores_throws_in_the_wrong_attitude_or_too_slow),
		cmocka_unit_test(test_nav_leg_reports_and_sequences),
		cmocka_unit_test(test_nav_landing_approach_adds_a_margin_for_the_gusts),
		cmocka_unit_test(test_nav_flare_leads_its_path),
		cmocka_unit_test(test_nav_takeoff_holds_the_motor_until_the_throw),
		cmocka_unit_test(test_steer_turns_toward_the_heading_and_holds_its_integral_when_standing),
		cmocka_unit_test(test_steer_limits_the_rudder_to_its_authority_at_the_speed),
		cmocka_unit_test(test_nav_rollout_holds_the_elevator_and_stops_flying),
		cmocka_unit_test(test_nav_runway_takeoff_holds_the_tail_then_levels_then_rotates),
		cmocka_unit_test(test_nav_runway_takeoff_in_a_wind_holds_the_tail_until_rolling),
		cmocka_unit_test(test_nav_runway_takeoff_steers_back_to_the_runway_heading_below_ground_steer_alt),
		cmocka_unit_test(test_nav_defaults_are_a_hand_launch_without_ground_steering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
