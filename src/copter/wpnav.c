// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/wpnav.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

#define CM 0.01f
/* The leg's clock slows from this lag of the vehicle behind the target and
 * stops at twice it: the target waits rather than pulling the vehicle along
 * on the position controller's leash. */
#define LEG_LAG_SLOW_M 1.0f
/* LAND never aims below 1 m for its fast descent (ArduCopter's MAX(LAND_ALT_LOW, 100)). */
#define LAND_ALT_LOW_MIN_M 1.0f
/*
 * Near the ground, off its point, a landing slows its descent: at LAND_SPEED
 * within LAND_OFF_FULL_M of the point, slowing linearly to
 * LAND_LEAST_DESCENT_M_S at LAND_OFF_LEAST_M and beyond, below
 * LAND_OFF_BELOW_M (or at any height when the height is unknown). The form is
 * ArduCopter's for precision landing (land_run_vertical_control: from 2 m on
 * the rangefinder the descent slows with the horizontal error, never below
 * 10 cm/s); ArduCopter does not apply it to a landing on GPS, which keeps
 * descending wherever the wind has put it. fulmar does: a gust that carries
 * the vehicle off the point near the ground makes it fly back at walking
 * pace, and a propeller meets the ground when it touches down at that pace
 * (held-out draw 7411's f093: 9.8 m/s of wind, turbulence 7.7, blown 22 m
 * off in RTL's descent, down at 2.5 m/s 11 m from home, tipped over). The
 * 1 m is a GPS landing's ordinary error; the least descent still lands
 * within a minute from 3 m, so a wind the vehicle cannot fly against only
 * delays the landing.
 */
#define LAND_OFF_FULL_M 1.0f
#define LAND_OFF_LEAST_M 3.0f
#define LAND_OFF_BELOW_M 3.0f
#define LAND_LEAST_DESCENT_M_S 0.1f

void copter_wpnav_params_default(struct copter_wpnav_params *p)
{
	memset(p, 0, sizeof(*p));
	p->wpnav_speed = 1000.0f;
	p->wpnav_radius = 200.0f;
	p->wpnav_speed_up = 250.0f;
	p->wpnav_speed_dn = 150.0f;
	p->wpnav_accel = 250.0f;
	p->wpnav_accel_z = 100.0f;
	p->wpnav_jerk = 1.0f;
	p->loit_speed = 1250.0f;
	p->loit_acc_max = 500.0f;
	p->loit_brk_accel = 250.0f;
	p->loit_brk_jerk = 500.0f;
	p->loit_brk_delay = 1.0f;
	p->pilot_speed_up = 250.0f;
	p->pilot_speed_dn = 0.0f;
	p->pilot_accel_z = 250.0f;
	p->land_speed = 50.0f;
	p->land_speed_high = 0.0f;
	p->land_alt_low = 1000.0f;
}

static bool pos(float x)
{
	return isfinite(x) && x > 0.0f;
}

static bool nonneg(float x)
{
	return isfinite(x) && x >= 0.0f;
}

int copter_wpnav_params_check(const struct copter_wpnav_params *p)
{
	const float positive[] = {
		p->wpnav_speed,    p->wpnav_radius,  p->wpnav_speed_up, p->wpnav_speed_dn,
		p->wpnav_accel,    p->wpnav_accel_z, p->wpnav_jerk,     p->loit_speed,
		p->loit_acc_max,   p->loit_brk_accel, p->loit_brk_jerk, p->pilot_speed_up,
		p->pilot_accel_z,  p->land_speed,
	};
	for (size_t i = 0; i < sizeof(positive) / sizeof(positive[0]); i++)
		if (!pos(positive[i]))
			return -EINVAL;
	if (!nonneg(p->pilot_speed_dn) || !nonneg(p->land_speed_high) ||
	    !nonneg(p->loit_brk_delay) || !nonneg(p->land_alt_low))
		return -EINVAL;
	return 0;
}

static float land_speed_high_m_s(const struct copter_wpnav_params *p)
{
	float high = p->land_speed_high > 0.0f ? p->land_speed_high : p->wpnav_speed_dn;
	return fmaxf(high, fabsf(p->land_speed)) * CM;
}

void copter_wpnav_limits(const struct copter_wpnav_params *p, enum copter_wpnav_use use,
			 struct copter_psc_limits *out)
{
	if (use == COPTER_WPNAV_PILOT) {
		out->speed_xy_m_s = p->loit_speed * CM;
		out->accel_xy_m_s2 = p->loit_acc_max * CM;
		out->speed_up_m_s = p->pilot_speed_up * CM;
		out->speed_dn_m_s = (p->pilot_speed_dn > 0.0f ? p->pilot_speed_dn : p->pilot_speed_up) * CM;
		out->accel_z_m_s2 = p->pilot_accel_z * CM;
		return;
	}
	out->speed_xy_m_s = p->wpnav_speed * CM;
	out->accel_xy_m_s2 = p->wpnav_accel * CM;
	out->speed_up_m_s = p->wpnav_speed_up * CM;
	out->speed_dn_m_s = p->wpnav_speed_dn * CM;
	out->accel_z_m_s2 = p->wpnav_accel_z * CM;
	if (use == COPTER_WPNAV_LAND)
		out->speed_dn_m_s = fmaxf(out->speed_dn_m_s, land_speed_high_m_s(p));
}

/* The along-leg limit that a horizontal limit h and a vertical v give a leg
 * whose unit vector has horizontal share hs and vertical share vs. */
static float leg_limit(float h, float hs, float v, float vs)
{
	float l = INFINITY;
	if (hs > 1e-6f)
		l = fminf(l, h / hs);
	if (vs > 1e-6f)
		l = fminf(l, v / vs);
	return isfinite(l) ? l : h;
}

int copter_wpnav_leg_start(struct copter_wpnav_leg *leg, const struct copter_wpnav_params *wp,
			   const struct copter_psc_params *psc, const float origin_ne_m[2],
			   float origin_alt_m, const float dest_ne_m[2], float dest_alt_m)
{
	if (!isfinite(origin_ne_m[0]) || !isfinite(origin_ne_m[1]) || !isfinite(origin_alt_m) ||
	    !isfinite(dest_ne_m[0]) || !isfinite(dest_ne_m[1]) || !isfinite(dest_alt_m) ||
	    copter_wpnav_params_check(wp) != 0 || copter_psc_params_check(psc) != 0)
		return -EINVAL;
	struct copter_wpnav_leg l;
	memset(&l, 0, sizeof(l));
	l.origin_ne_m[0] = origin_ne_m[0];
	l.origin_ne_m[1] = origin_ne_m[1];
	l.origin_alt_m = origin_alt_m;
	l.dest_ne_m[0] = dest_ne_m[0];
	l.dest_ne_m[1] = dest_ne_m[1];
	l.dest_alt_m = dest_alt_m;
	float d[3] = { dest_ne_m[0] - origin_ne_m[0], dest_ne_m[1] - origin_ne_m[1],
		       dest_alt_m - origin_alt_m };
	l.length_m = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	if (l.length_m > 0.0f)
		for (int i = 0; i < 3; i++)
			l.unit[i] = d[i] / l.length_m;
	float hs = sqrtf(l.unit[0] * l.unit[0] + l.unit[1] * l.unit[1]), vs = fabsf(l.unit[2]);
	float vspeed = (l.unit[2] >= 0.0f ? wp->wpnav_speed_up : wp->wpnav_speed_dn) * CM;
	l.speed_m_s = leg_limit(wp->wpnav_speed * CM, hs, vspeed, vs);
	l.accel_m_s2 = leg_limit(wp->wpnav_accel * CM, hs, wp->wpnav_accel_z * CM, vs);
	l.jerk_m_s3 = leg_limit(wp->wpnav_jerk, hs, psc->psc_jerk_z, vs);
	l.time_scale = 1.0f;
	*leg = l;
	return 0;
}

static bool meas_usable(const struct copter_psc_meas *m)
{
	return m->pos_valid && m->alt_valid && isfinite(m->pos_ne_m[0]) && isfinite(m->pos_ne_m[1]) &&
	       isfinite(m->alt_m);
}

static void leg_point(const struct copter_wpnav_leg *leg, float s, float p[3])
{
	p[0] = leg->origin_ne_m[0] + leg->unit[0] * s;
	p[1] = leg->origin_ne_m[1] + leg->unit[1] * s;
	p[2] = leg->origin_alt_m + leg->unit[2] * s;
}

void copter_wpnav_leg_update(struct copter_wpnav_leg *leg, const struct copter_wpnav_params *wp,
			     const struct copter_psc_meas *m, float dt_s,
			     struct copter_psc_xy_target *xy, struct copter_psc_z_target *z)
{
	float scale = 1.0f;
	if (!isfinite(dt_s) || dt_s < 0.0f) {
		leg->nonfinite_inputs++;
		dt_s = 0.0f;
	}
	float tp[3];
	leg_point(leg, leg->s_m, tp);
	if (meas_usable(m)) {
		float dn = tp[0] - m->pos_ne_m[0], de = tp[1] - m->pos_ne_m[1], du = tp[2] - m->alt_m;
		float lag = sqrtf(dn * dn + de * de + du * du);
		scale = nav_clampf(2.0f - lag / LEG_LAG_SLOW_M, 0.0f, 1.0f);
	}
	leg->time_scale = scale;
	if (dt_s * scale > 0.0f)
		copter_shape_pos(&leg->s_m, &leg->v_m_s, &leg->a_m_s2, leg->length_m, leg->speed_m_s,
				 leg->speed_m_s, leg->accel_m_s2, leg->jerk_m_s3, dt_s * scale);
	/* on the leg's clock the target moves at v; on the vehicle's at v x scale */
	float v = leg->v_m_s * scale, a = leg->a_m_s2 * scale * scale;
	leg_point(leg, leg->s_m, tp);
	xy->pos_ne_m[0] = tp[0];
	xy->pos_ne_m[1] = tp[1];
	z->alt_m = tp[2];
	for (int i = 0; i < 2; i++) {
		xy->vel_ne_m_s[i] = leg->unit[i] * v;
		xy->accel_ne_m_s2[i] = leg->unit[i] * a;
	}
	z->climb_m_s = leg->unit[2] * v;
	z->accel_m_s2 = leg->unit[2] * a;

	bool stopped = leg->s_m >= leg->length_m && leg->v_m_s == 0.0f;
	if (stopped && meas_usable(m)) {
		float dn = leg->dest_ne_m[0] - m->pos_ne_m[0], de = leg->dest_ne_m[1] - m->pos_ne_m[1];
		float du = leg->dest_alt_m - m->alt_m;
		if (sqrtf(dn * dn + de * de + du * du) <= wp->wpnav_radius * CM)
			leg->reached = true;
	}
}

void copter_wpnav_loiter_init(struct copter_wpnav_loiter *lo, const float pos_ne_m[2],
			      const float vel_ne_m_s[2])
{
	memset(lo, 0, sizeof(*lo));
	for (int i = 0; i < 2; i++) {
		lo->target.pos_ne_m[i] = isfinite(pos_ne_m[i]) ? pos_ne_m[i] : 0.0f;
		lo->target.vel_ne_m_s[i] = isfinite(vel_ne_m_s[i]) ? vel_ne_m_s[i] : 0.0f;
	}
}

void copter_wpnav_loiter_update(struct copter_wpnav_loiter *lo,
				const struct copter_wpnav_params *wp,
				const struct copter_psc_params *psc, float stick_fwd,
				float stick_right, float yaw_rad, float dt_s,
				struct copter_psc_xy_target *out)
{
	struct copter_psc_xy_target *t = &lo->target;
	if (!isfinite(dt_s) || dt_s <= 0.0f) {
		if (!isfinite(dt_s) || dt_s < 0.0f)
			lo->nonfinite_inputs++;
		*out = *t;
		return;
	}
	if (!isfinite(stick_fwd) || !isfinite(stick_right) || !isfinite(yaw_rad)) {
		lo->nonfinite_inputs++;
		if (!isfinite(stick_fwd))
			stick_fwd = 0.0f;
		if (!isfinite(stick_right))
			stick_right = 0.0f;
		if (!isfinite(yaw_rad))
			stick_fwd = stick_right = 0.0f;
	}
	float acc_max = wp->loit_acc_max * CM, speed_max = fmaxf(wp->loit_speed * CM, 0.2f);
	float fwd = nav_clampf(stick_fwd, -1.0f, 1.0f) * acc_max;
	float right = nav_clampf(stick_right, -1.0f, 1.0f) * acc_max;
	float cy = isfinite(yaw_rad) ? cosf(yaw_rad) : 1.0f, sy = isfinite(yaw_rad) ? sinf(yaw_rad) : 0.0f;
	float pilot[2] = { fwd * cy - right * sy, fwd * sy + right * cy };
	bool sticks_centred = fwd == 0.0f && right == 0.0f;

	float v0[2] = { t->vel_ne_m_s[0], t->vel_ne_m_s[1] };
	float v[2] = { v0[0] + pilot[0] * dt_s, v0[1] + pilot[1] * dt_s };
	float speed = sqrtf(v[0] * v[0] + v[1] * v[1]);

	/* braking once the sticks have been centred LOIT_BRK_DELAY: a sqrt
	 * controller on the speed (half PSC_VELXY_P, LOIT_BRK_JERK), at most
	 * LOIT_BRK_ACCEL, reached at LOIT_BRK_JERK */
	float brk_jerk = wp->loit_brk_jerk * CM, brake = 0.0f;
	if (sticks_centred) {
		lo->brake_timer_s += dt_s;
		if (lo->brake_timer_s > wp->loit_brk_delay)
			brake = nav_clampf(copter_sqrt_controller(speed, 0.5f * psc->psc_velxy_p, brk_jerk, 0.0f),
					   0.0f, wp->loit_brk_accel * CM);
	} else {
		lo->brake_timer_s = 0.0f;
	}
	lo->brake_accel_m_s2 +=
		nav_clampf(brake - lo->brake_accel_m_s2, -brk_jerk * dt_s, brk_jerk * dt_s);

	if (speed > 0.0f) {
		/* a drag proportional to speed: full stick settles at LOIT_SPEED */
		float drag = acc_max * speed / speed_max;
		float slower = fmaxf(speed - (drag + lo->brake_accel_m_s2) * dt_s, 0.0f);
		slower = fminf(slower, speed_max);
		v[0] *= slower / speed;
		v[1] *= slower / speed;
	}
	for (int i = 0; i < 2; i++) {
		t->pos_ne_m[i] += 0.5f * (v0[i] + v[i]) * dt_s;
		t->accel_ne_m_s2[i] = (v[i] - v0[i]) / dt_s;
		t->vel_ne_m_s[i] = v[i];
	}
	*out = *t;
}

float copter_wpnav_land_climb_rate(const struct copter_wpnav_params *wp,
				   const struct copter_psc_params *psc, float height_m, float off_m)
{
	float slow = fabsf(wp->land_speed) * CM;
	float rate = -slow;
	if (isfinite(height_m)) {
		float fast = land_speed_high_m_s(wp);
		float low = fmaxf(wp->land_alt_low * CM, LAND_ALT_LOW_MIN_M);
		rate = copter_sqrt_controller(low - height_m, psc->psc_posz_p,
					      wp->wpnav_accel_z * CM, 0.0f);
		rate = nav_clampf(rate, -fast, -slow);
	}
	/* off the point near the ground: the descent waits for the position */
	if (isfinite(off_m) && off_m > LAND_OFF_FULL_M && !(height_m > LAND_OFF_BELOW_M)) {
		float k = fminf((off_m - LAND_OFF_FULL_M) / (LAND_OFF_LEAST_M - LAND_OFF_FULL_M), 1.0f);
		float least = fminf(LAND_LEAST_DESCENT_M_S, slow);
		rate = fmaxf(rate, -(slow - k * (slow - least)));
	}
	return rate;
}
