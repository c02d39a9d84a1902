// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/l1.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

/* Below this ground speed the velocity direction means nothing. */
#define L1_MIN_GS_M_S 0.1f
#define L1_MIN_DIST_M 1.0f

void l1_params_default(struct l1_params *p)
{
	/* the 2013-2016 ArduPlane default; 17 s later */
	p->navl1_period = 17.0f;
	p->navl1_damping = 0.75f;
}

void l1_init(struct l1 *l)
{
	memset(l, 0, sizeof(*l));
}

float l1_length_m(const struct l1_params *p, float ground_speed_m_s)
{
	float d = p->navl1_damping * p->navl1_period * ground_speed_m_s / NAV_PI_F;
	return d > L1_MIN_DIST_M ? d : L1_MIN_DIST_M;
}

static float k_l1(const struct l1_params *p)
{
	return 4.0f * p->navl1_damping * p->navl1_damping;
}

/*
 * The bearing at which the aircraft travels. When it is (nearly) still the
 * velocity has no direction: take north, which only matters for the first
 * step of a launch.
 */
static float course_rad(const float v[2], float *gs)
{
	*gs = hypotf(v[0], v[1]);
	if (*gs < L1_MIN_GS_M_S) {
		*gs = L1_MIN_GS_M_S;
		return 0.0f;
	}
	return atan2f(v[1], v[0]);
}

/*
 * When the reference point is nearly behind, the sign of Nu can flip from step
 * to step and the aircraft dithers between a left and a right turn: keep the
 * turn already begun.
 */
static float keep_decision(struct l1 *l, float nu, float course, float target_bearing)
{
	if (fabsf(nu) > 0.9f * NAV_PI_F && fabsf(l->last_nu_rad) > 0.9f * NAV_PI_F &&
	    fabsf(nav_wrap_pi(target_bearing - course)) > 120.0f * NAV_DEG2RAD &&
	    nu * l->last_nu_rad < 0.0f)
		nu = l->last_nu_rad;
	return nu;
}

void l1_update_waypoint(struct l1 *l, const struct l1_params *p, struct nav_ne pos,
			const float vel_ne_m_s[2], struct nav_ne a, struct nav_ne b)
{
	float gs;
	float course = course_rad(vel_ne_m_s, &gs);
	float L1 = l1_length_m(p, gs);

	l->l1_dist_m = L1;
	l->wp_dist_m = nav_geo_distance_m(pos, b);
	l->target_bearing_rad = nav_geo_bearing_rad(pos, b);

	/* a degenerate leg: track from here to b */
	if (nav_geo_distance_m(a, b) < 1e-3f)
		a = pos;
	float len = nav_geo_distance_m(a, b);
	float un = len > 1e-3f ? (b.n_m - a.n_m) / len : cosf(course);
	float ue = len > 1e-3f ? (b.e_m - a.e_m) / len : sinf(course);
	float track = atan2f(ue, un);

	float an = pos.n_m - a.n_m, ae = pos.e_m - a.e_m;
	float dist_a = hypotf(an, ae);
	float along_a = an * un + ae * ue;
	float xtrack = ae * un - an * ue;             /* right of the leg positive */
	float along_b = (pos.n_m - b.n_m) * un + (pos.e_m - b.e_m) * ue;
	l->xtrack_m = xtrack;

	float nu;
	if (dist_a > L1 && along_a < -0.70710678f * dist_a) {
		/* far behind a: fly to a */
		float to_a = atan2f(-ae, -an);
		nu = nav_wrap_pi(to_a - course);
		nu = keep_decision(l, nu, course, to_a);
	} else if (along_b > 3.0f * gs) {
		/* well past b: come back to it */
		float to_b = atan2f(b.e_m - pos.e_m, b.n_m - pos.n_m);
		nu = nav_wrap_pi(to_b - course);
		nu = keep_decision(l, nu, course, to_b);
	} else {
		/* Nu2: track direction seen from the velocity; Nu1: capture angle
		 * towards the leg, limited to 45 degrees */
		float nu2 = nav_wrap_pi(track - course);
		float s = nav_clampf(xtrack / L1, -0.70710678f, 0.70710678f);
		float nu1 = -asinf(s);
		nu = nav_wrap_pi(nu1 + nu2);
		nu = keep_decision(l, nu, course, track + nu1);
	}
	l->last_nu_rad = nu;
	nu = nav_clampf(nu, -0.5f * NAV_PI_F, 0.5f * NAV_PI_F);
	l->nu_rad = nu;
	l->nav_bearing_rad = nav_wrap_2pi(course + nu);
	l->lat_acc_m_s2 = k_l1(p) * gs * gs / L1 * sinf(nu);
}

void l1_update_loiter(struct l1 *l, const struct l1_params *p, struct nav_ne pos,
		      const float vel_ne_m_s[2], struct nav_ne centre, float radius_m, int direction)
{
	float gs;
	float course = course_rad(vel_ne_m_s, &gs);
	float L1 = l1_length_m(p, gs);
	float omega = 2.0f * NAV_PI_F / p->navl1_period;
	float kx = omega * omega;
	float kv = 2.0f * p->navl1_damping * omega;
	float dir = direction < 0 ? -1.0f : 1.0f;
	float radius = radius_m > 1.0f ? radius_m : 1.0f;
	float vn = vel_ne_m_s[0], ve = vel_ne_m_s[1];

	l->l1_dist_m = L1;
	float rn = pos.n_m - centre.n_m, re = pos.e_m - centre.e_m;
	float r = hypotf(rn, re);
	l->wp_dist_m = r;
	l->target_bearing_rad = nav_geo_bearing_rad(pos, centre);

	/* unit vector centre -> aircraft; at the centre take the velocity's
	 * normal so the radial error still grows outwards */
	float un, ue;
	if (r > 0.1f) {
		un = rn / r;
		ue = re / r;
	} else {
		un = cosf(course);
		ue = sinf(course);
	}

	/* capture: an L1 course at the centre */
	float inward = atan2f(-ue, -un);
	float nu_cap = nav_wrap_pi(inward - course);
	nu_cap = keep_decision(l, nu_cap, course, inward);
	l->last_nu_rad = nu_cap;
	nu_cap = nav_clampf(nu_cap, -0.5f * NAV_PI_F, 0.5f * NAV_PI_F);
	float acc_cap = k_l1(p) * gs * gs / L1 * sinf(nu_cap);

	/* circle: PD on the radial error plus the centripetal feed-forward */
	float err = r - radius;
	float v_radial = un * vn + ue * ve;            /* outwards positive */
	float v_tangent = dir * (un * ve - ue * vn);   /* along the loiter direction */
	float pd = err * kx + v_radial * kv;
	if (v_radial > 0.0f && v_tangent < 0.0f)
		pd = pd > 0.0f ? pd : 0.0f;            /* going the wrong way: never turn outwards */
	float r_eff = radius + err;
	if (r_eff < 0.5f * radius)
		r_eff = 0.5f * radius;
	float ctr = v_tangent * v_tangent / (r_eff > 0.1f ? r_eff : 0.1f);
	float acc_circ = dir * (pd + ctr);

	l->xtrack_m = err;
	if (err > 0.0f && dir * acc_cap < dir * acc_circ) {
		l->lat_acc_m_s2 = acc_cap;
		l->nu_rad = nu_cap;
		l->nav_bearing_rad = nav_wrap_2pi(course + nu_cap);
		l->loiter_captured = 0;
	} else {
		l->lat_acc_m_s2 = acc_circ;
		l->nu_rad = 0.0f;
		/* the tangent at the aircraft's bearing from the centre */
		l->nav_bearing_rad = nav_wrap_2pi(atan2f(ue, un) + dir * 0.5f * NAV_PI_F);
		l->loiter_captured = 1;
	}
}

float l1_loiter_radius_m(float radius_m, float tas_m_s, float bank_limit_rad)
{
	float t = tanf(nav_clampf(bank_limit_rad, 5.0f * NAV_DEG2RAD, 85.0f * NAV_DEG2RAD));
	float r_min = tas_m_s * tas_m_s / (NAV_G_M_S2 * t);
	return radius_m > r_min ? radius_m : r_min;
}

float l1_bank_rad(const struct l1 *l, float pitch_rad, float limit_rad)
{
	float c = cosf(pitch_rad);
	if (c < 0.1f)
		c = 0.1f;
	float bank = atanf(l->lat_acc_m_s2 / (NAV_G_M_S2 * c));
	return nav_clampf(bank, -limit_rad, limit_rad);
}

float l1_turn_distance_m(const struct l1 *l, float wp_radius_m, float eas2tas, float turn_rad)
{
	float d = wp_radius_m * eas2tas * eas2tas;
	if (l->l1_dist_m < d)
		d = l->l1_dist_m;
	turn_rad = fabsf(turn_rad);
	if (turn_rad < 0.5f * NAV_PI_F)
		d *= turn_rad / (0.5f * NAV_PI_F);
	return d;
}
