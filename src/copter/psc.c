// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/psc.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "nav/nav_geo.h"
#include "nav/nav_math.h"

#define CM 0.01f
#define PER_MILLE 0.001f
/* The velocity shaper's sqrt-controller gain, as a multiple of jerk / accel:
 * high enough that the shaped velocity reaches its command at the jerk
 * limit's pace, low enough that it settles without chattering at 400 Hz. */
#define SHAPE_VEL_GAIN 4.0f
/* The position shaper's end: once this close and slow it sits on the goal.
 * Without it the brake/cruise choice alternates every step at rest, the
 * acceleration dithering by jerk x dt. */
#define SHAPE_CAPTURE_M 1e-3f
#define SHAPE_CAPTURE_M_S 1e-2f
/* The tilt compensation: full (1 / cos tilt) up to 60 degrees of tilt,
 * then fading to nothing at 90 (ArduCopter's boost also stops for a vehicle
 * on its side: more throttle would only push it sideways or down). */
#define BOOST_COS_FLOOR 0.5f
#define ANGLE_MAX_CD_MAX 8000.0f
#define PSC_ANGLE_MAX_DEG_MAX 80.0f

void copter_psc_params_default(struct copter_psc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->psc_posxy_p = 1.0f;
	p->psc_velxy_p = 2.0f;
	p->psc_velxy_i = 1.0f;
	p->psc_velxy_d = 0.5f;
	p->psc_velxy_imax = 1000.0f;
	p->psc_velxy_flte = 5.0f;
	p->psc_velxy_fltd = 5.0f;
	p->psc_posz_p = 1.0f;
	p->psc_velz_p = 5.0f;
	p->psc_accz_p = 0.5f;
	p->psc_accz_i = 1.0f;
	p->psc_accz_d = 0.0f;
	p->psc_accz_imax = 800.0f;
	p->psc_accz_flte = 20.0f;
	p->psc_angle_max = 0.0f;
	p->psc_jerk_xy = 5.0f;
	p->psc_jerk_z = 5.0f;
	p->angle_max = 3000.0f;
}

static bool nonneg(float x)
{
	return isfinite(x) && x >= 0.0f;
}

int copter_psc_params_check(const struct copter_psc_params *p)
{
	const float gains[] = {
		p->psc_posxy_p, p->psc_velxy_p, p->psc_velxy_i, p->psc_velxy_d, p->psc_velxy_imax,
		p->psc_velxy_flte, p->psc_velxy_fltd, p->psc_posz_p, p->psc_velz_p, p->psc_accz_p,
		p->psc_accz_i, p->psc_accz_d, p->psc_accz_imax, p->psc_accz_flte,
	};
	for (size_t i = 0; i < sizeof(gains) / sizeof(gains[0]); i++)
		if (!nonneg(gains[i]))
			return -EINVAL;
	if (!nonneg(p->psc_angle_max) || p->psc_angle_max > PSC_ANGLE_MAX_DEG_MAX)
		return -EINVAL;
	if (!isfinite(p->angle_max) || p->angle_max <= 0.0f || p->angle_max > ANGLE_MAX_CD_MAX)
		return -EINVAL;
	if (!isfinite(p->psc_jerk_xy) || p->psc_jerk_xy <= 0.0f || !isfinite(p->psc_jerk_z) ||
	    p->psc_jerk_z <= 0.0f)
		return -EINVAL;
	return 0;
}

float copter_stop_speed(float dist, float accel, float jerk)
{
	if (!(dist > 0.0f) || !(accel > 0.0f) || !(jerk > 0.0f))
		return 0.0f;
	/* a stop too short to reach `accel`: jerk down then up, distance
	 * v^1.5 / sqrt(jerk); otherwise v^2 / 2a + v a / 2j */
	float d_full = accel * accel * accel / (jerk * jerk);
	if (dist <= d_full)
		return cbrtf(jerk * dist * dist);
	float b = accel * accel / jerk;
	return 0.5f * (-b + sqrtf(b * b + 8.0f * accel * dist));
}

static float lowpass_alpha(float hz, float dt)
{
	if (!(hz > 0.0f))
		return 1.0f;
	float rc = 1.0f / (2.0f * NAV_PI_F * hz);
	return dt / (dt + rc);
}

static bool finite2(const float v[2])
{
	return isfinite(v[0]) && isfinite(v[1]);
}

static float len2(float x, float y)
{
	return sqrtf(x * x + y * y);
}

/* ---- the kinematic shaper (1-D; the 2-D one works along and across) ---- */

/* The next acceleration taking the velocity to v_err more (v_err = command -
 * velocity) at most `accel`, changing by at most jerk x dt. */
static float shape_vel_acc(float v_err, float acc, float accel, float jerk, float dt)
{
	float dem = copter_sqrt_controller(v_err, SHAPE_VEL_GAIN * jerk / accel, jerk, 0.0f);
	dem = nav_clampf(dem, -fabsf(v_err) / dt, fabsf(v_err) / dt);
	dem = nav_clampf(dem, -accel, accel);
	return acc + nav_clampf(dem - acc, -jerk * dt, jerk * dt);
}

/* How far the braking manoeuvre from (vel > 0, acc) goes: acceleration
 * down to -a_p at the jerk, held, back up to 0 as the velocity reaches 0. */
static float brake_distance(float vel, float acc, float accel, float jerk)
{
	if (vel <= 0.0f)
		return 0.0f;
	if (acc < 0.0f && 0.5f * acc * acc > jerk * vel) {
		/* already braking harder than needed: ramping it off stops short */
		float t = (-acc - sqrtf(acc * acc - 2.0f * jerk * vel)) / jerk;
		return vel * t + 0.5f * acc * t * t + jerk * t * t * t / 6.0f;
	}
	float q = vel + acc * acc / (2.0f * jerk);
	float ap, t2;
	if (q >= accel * accel / jerk) {
		ap = accel;
		t2 = (q - accel * accel / jerk) / accel;
	} else {
		ap = sqrtf(jerk * vel + 0.5f * acc * acc);
		t2 = 0.0f;
	}
	float t1 = (acc + ap) / jerk;
	float d1 = vel * t1 + 0.5f * acc * t1 * t1 - jerk * t1 * t1 * t1 / 6.0f;
	float v1 = vel + acc * t1 - 0.5f * jerk * t1 * t1;
	float d2 = v1 * t2 - 0.5f * ap * t2 * t2;
	float v2 = v1 - ap * t2;
	float t3 = ap / jerk;
	return d1 + d2 + v2 * t3 - 0.5f * ap * t3 * t3 + jerk * t3 * t3 * t3 / 6.0f;
}

/* The next acceleration of that manoeuvre. */
static float brake_acc(float vel, float acc, float accel, float jerk, float dt)
{
	float q = vel + acc * acc / (2.0f * jerk);
	float ap = q >= accel * accel / jerk ? accel : sqrtf(fmaxf(jerk * vel + 0.5f * acc * acc, 0.0f));
	float dem = -fminf(ap, sqrtf(2.0f * jerk * fmaxf(vel, 0.0f)));
	return acc + nav_clampf(dem - acc, -jerk * dt, jerk * dt);
}

/* One step towards rest at err ahead (either sign): cruise towards the speed
 * limit, unless the step after would leave less room than braking needs. */
static float shape_pos_acc(float err, float vel, float acc, float speed_fwd, float speed_back,
			   float accel, float jerk, float dt)
{
	float s = err >= 0.0f ? 1.0f : -1.0f;
	float e = s * err, v = s * vel, a = s * acc;
	float vmax = s > 0.0f ? speed_fwd : speed_back;
	float ac = shape_vel_acc(vmax - v, a, accel, jerk, dt);
	float v1 = v + 0.5f * (a + ac) * dt;
	float e1 = e - (v * dt + (2.0f * a + ac) * dt * dt / 6.0f);
	if (v1 > 0.0f && brake_distance(v1, ac, accel, jerk) >= e1)
		ac = brake_acc(v, a, accel, jerk, dt);
	return s * ac;
}

static void integrate(float *pos, float *vel, float *acc, float acc_next, float dt)
{
	/* exact for the constant jerk between the two accelerations */
	*pos += *vel * dt + (2.0f * *acc + acc_next) * dt * dt / 6.0f;
	*vel += 0.5f * (*acc + acc_next) * dt;
	*acc = acc_next;
}

static bool shaper_args_ok(float accel, float jerk, float dt)
{
	return isfinite(accel) && accel > 0.0f && isfinite(jerk) && jerk > 0.0f && isfinite(dt) &&
	       dt > 0.0f;
}

void copter_shape_pos(float *pos, float *vel, float *acc, float goal, float speed_fwd,
		      float speed_back, float accel, float jerk, float dt_s)
{
	if (!shaper_args_ok(accel, jerk, dt_s) || !isfinite(goal) || !isfinite(speed_fwd) ||
	    !isfinite(speed_back))
		return;
	float err = goal - *pos;
	if (fabsf(err) < SHAPE_CAPTURE_M && fabsf(*vel) < SHAPE_CAPTURE_M_S &&
	    fabsf(*acc) <= jerk * dt_s) {
		*pos = goal;
		*vel = *acc = 0.0f;
		return;
	}
	float a = shape_pos_acc(err, *vel, *acc, fmaxf(speed_fwd, 0.0f), fmaxf(speed_back, 0.0f),
				accel, jerk, dt_s);
	integrate(pos, vel, acc, a, dt_s);
}

void copter_shape_vel(float *pos, float *vel, float *acc, float vel_cmd, float accel, float jerk,
		      float dt_s)
{
	if (!shaper_args_ok(accel, jerk, dt_s) || !isfinite(vel_cmd))
		return;
	float a = shape_vel_acc(vel_cmd - *vel, *acc, accel, jerk, dt_s);
	integrate(pos, vel, acc, a, dt_s);
}

/* ---- measurement ---- */

void copter_psc_meas_from_state(const struct vehicle_state *vs, double origin_lat_deg,
				double origin_lon_deg, const float accel_ned_m_s2[3],
				struct copter_psc_meas *out)
{
	memset(out, 0, sizeof(*out));
	struct nav_ne ne = nav_geo_ne_from_ll(origin_lat_deg, origin_lon_deg, vs->lat_deg,
					      vs->lon_deg);
	out->pos_ne_m[0] = ne.n_m;
	out->pos_ne_m[1] = ne.e_m;
	out->vel_ne_m_s[0] = vs->vel_ned_m_s[0];
	out->vel_ne_m_s[1] = vs->vel_ned_m_s[1];
	out->alt_m = vs->alt_rel_m;
	out->climb_m_s = -vs->vel_ned_m_s[2];
	for (int i = 0; i < 3; i++)
		out->accel_ned_m_s2[i] = accel_ned_m_s2[i];
	out->roll_rad = vs->roll_rad;
	out->pitch_rad = vs->pitch_rad;
	out->yaw_rad = vs->yaw_rad;
	out->pos_valid = (vs->valid & VEHICLE_POSITION_VALID) != 0;
	out->alt_valid = (vs->valid & VEHICLE_ALTITUDE_VALID) != 0;
	out->att_valid = (vs->valid & VEHICLE_ATTITUDE_VALID) != 0;
}

/* ---- targets ---- */

static float finite_or(float x, float dflt)
{
	return isfinite(x) ? x : dflt;
}

void copter_psc_init(struct copter_psc *c, const struct copter_psc_meas *m, float throttle_now,
		     float throttle_hover)
{
	memset(c, 0, sizeof(*c));
	if (m->pos_valid)
		for (int i = 0; i < 2; i++) {
			c->xy.pos_ne_m[i] = finite_or(m->pos_ne_m[i], 0.0f);
			c->xy.vel_ne_m_s[i] = finite_or(m->vel_ne_m_s[i], 0.0f);
		}
	if (m->alt_valid) {
		c->z.alt_m = c->meas_alt_m = finite_or(m->alt_m, 0.0f);
		c->z.climb_m_s = finite_or(m->climb_m_s, 0.0f);
	}
	float thr = nav_clampf(finite_or(throttle_now, 0.0f), 0.0f, 1.0f);
	float hover = nav_clampf(finite_or(throttle_hover, 0.0f), 0.0f, 1.0f);
	/* the integrator starts with what the throttle is above the hover, so
	 * the first output is the throttle already flying */
	c->acc_integ = thr - hover;
	c->xy_reset = c->z_reset = true;
	c->out.throttle = thr;
	c->out.vel_ne_m_s[0] = c->xy.vel_ne_m_s[0];
	c->out.vel_ne_m_s[1] = c->xy.vel_ne_m_s[1];
	c->out.climb_m_s = c->z.climb_m_s;
}

static bool limits_ok(const struct copter_psc_limits *l)
{
	return nonneg(l->speed_xy_m_s) && nonneg(l->accel_xy_m_s2) && nonneg(l->speed_up_m_s) &&
	       nonneg(l->speed_dn_m_s) && nonneg(l->accel_z_m_s2);
}

/* Non-finite or negative limits are counted and the last good ones kept. */
static bool take_limits(struct copter_psc *c, const struct copter_psc_limits *lim)
{
	if (!limits_ok(lim)) {
		c->nonfinite_inputs++;
		return false;
	}
	c->lim = *lim;
	return true;
}

void copter_psc_xy_set(struct copter_psc *c, const struct copter_psc_limits *lim,
		       const struct copter_psc_xy_target *t)
{
	take_limits(c, lim);
	if (!finite2(t->pos_ne_m) || !finite2(t->vel_ne_m_s) || !finite2(t->accel_ne_m_s2)) {
		c->nonfinite_inputs++;
		return;
	}
	c->xy = *t;
}

void copter_psc_z_set(struct copter_psc *c, const struct copter_psc_limits *lim,
		      const struct copter_psc_z_target *t)
{
	take_limits(c, lim);
	if (!isfinite(t->alt_m) || !isfinite(t->climb_m_s) || !isfinite(t->accel_m_s2)) {
		c->nonfinite_inputs++;
		return;
	}
	c->z = *t;
}

/*
 * The 2-D shaper: along the line to the goal the 1-D position shaper, across
 * it the velocity shaper to zero (what a change of goal leaves), the sum
 * held to the acceleration and jerk limits. A goal straight ahead of a
 * target at rest or moving along the line stays 1-D: exact limits, no
 * overshoot.
 */
void copter_psc_xy_input_pos(struct copter_psc *c, const struct copter_psc_params *p,
			     const struct copter_psc_limits *lim, const float pos_ne_m[2], float dt_s)
{
	take_limits(c, lim);
	if (!finite2(pos_ne_m) || !isfinite(dt_s) || dt_s <= 0.0f) {
		c->nonfinite_inputs++;
		return;
	}
	struct copter_psc_xy_target *t = &c->xy;
	float accel = c->lim.accel_xy_m_s2, jerk = p->psc_jerk_xy, speed = c->lim.speed_xy_m_s;
	if (!shaper_args_ok(accel, jerk, dt_s))
		return;
	float en = pos_ne_m[0] - t->pos_ne_m[0], ee = pos_ne_m[1] - t->pos_ne_m[1];
	float d = len2(en, ee);
	float u[2], w[2];
	if (d > 1e-6f) {
		u[0] = en / d;
		u[1] = ee / d;
	} else {
		/* on the goal: "along" is wherever the target still moves */
		float vs = len2(t->vel_ne_m_s[0], t->vel_ne_m_s[1]);
		u[0] = vs > 1e-6f ? t->vel_ne_m_s[0] / vs : 1.0f;
		u[1] = vs > 1e-6f ? t->vel_ne_m_s[1] / vs : 0.0f;
	}
	w[0] = -u[1];
	w[1] = u[0];
	float va = t->vel_ne_m_s[0] * u[0] + t->vel_ne_m_s[1] * u[1];
	float vc = t->vel_ne_m_s[0] * w[0] + t->vel_ne_m_s[1] * w[1];
	float aa = t->accel_ne_m_s2[0] * u[0] + t->accel_ne_m_s2[1] * u[1];
	float ac = t->accel_ne_m_s2[0] * w[0] + t->accel_ne_m_s2[1] * w[1];

	if (d < SHAPE_CAPTURE_M && len2(va, vc) < SHAPE_CAPTURE_M_S &&
	    len2(aa, ac) <= jerk * dt_s) {
		t->pos_ne_m[0] = pos_ne_m[0];
		t->pos_ne_m[1] = pos_ne_m[1];
		memset(t->vel_ne_m_s, 0, sizeof(t->vel_ne_m_s));
		memset(t->accel_ne_m_s2, 0, sizeof(t->accel_ne_m_s2));
		return;
	}
	float aa1 = shape_pos_acc(d, va, aa, speed, speed, accel, jerk, dt_s);
	float ac1 = shape_vel_acc(-vc, ac, accel, jerk, dt_s);
	float a1[2] = { aa1 * u[0] + ac1 * w[0], aa1 * u[1] + ac1 * w[1] };
	float am = len2(a1[0], a1[1]);
	if (am > accel) {
		a1[0] *= accel / am;
		a1[1] *= accel / am;
	}
	float da[2] = { a1[0] - t->accel_ne_m_s2[0], a1[1] - t->accel_ne_m_s2[1] };
	float dm = len2(da[0], da[1]);
	if (dm > jerk * dt_s) {
		da[0] *= jerk * dt_s / dm;
		da[1] *= jerk * dt_s / dm;
	}
	for (int i = 0; i < 2; i++)
		integrate(&t->pos_ne_m[i], &t->vel_ne_m_s[i], &t->accel_ne_m_s2[i],
			  t->accel_ne_m_s2[i] + da[i], dt_s);
}

void copter_psc_xy_input_vel(struct copter_psc *c, const struct copter_psc_params *p,
			     const struct copter_psc_limits *lim, const float vel_ne_m_s[2],
			     float dt_s)
{
	take_limits(c, lim);
	if (!finite2(vel_ne_m_s) || !isfinite(dt_s) || dt_s <= 0.0f) {
		c->nonfinite_inputs++;
		return;
	}
	struct copter_psc_xy_target *t = &c->xy;
	float accel = c->lim.accel_xy_m_s2, jerk = p->psc_jerk_xy;
	if (!shaper_args_ok(accel, jerk, dt_s))
		return;
	float cmd[2] = { vel_ne_m_s[0], vel_ne_m_s[1] };
	float cm = len2(cmd[0], cmd[1]);
	if (cm > c->lim.speed_xy_m_s) {
		cmd[0] *= c->lim.speed_xy_m_s / cm;
		cmd[1] *= c->lim.speed_xy_m_s / cm;
	}
	float ev[2] = { cmd[0] - t->vel_ne_m_s[0], cmd[1] - t->vel_ne_m_s[1] };
	float em = len2(ev[0], ev[1]);
	float a1[2] = { 0.0f, 0.0f };
	if (em > 0.0f) {
		float dem = fminf(copter_sqrt_controller(em, SHAPE_VEL_GAIN * jerk / accel, jerk, 0.0f),
				  fminf(em / dt_s, accel));
		a1[0] = dem * ev[0] / em;
		a1[1] = dem * ev[1] / em;
	}
	float da[2] = { a1[0] - t->accel_ne_m_s2[0], a1[1] - t->accel_ne_m_s2[1] };
	float dm = len2(da[0], da[1]);
	if (dm > jerk * dt_s) {
		da[0] *= jerk * dt_s / dm;
		da[1] *= jerk * dt_s / dm;
	}
	for (int i = 0; i < 2; i++)
		integrate(&t->pos_ne_m[i], &t->vel_ne_m_s[i], &t->accel_ne_m_s2[i],
			  t->accel_ne_m_s2[i] + da[i], dt_s);
}

/*
 * The vertical target does not run ahead of a vehicle the mixer cannot
 * follow (ArduCopter's update_pos_vel_accel with its limit vector): while
 * throttle_upper it climbs no further above the vehicle, while
 * throttle_lower it descends no further below, unless forced.
 */
static void z_hold_at_limits(struct copter_psc *c, const struct copter_psc_z_target *before,
			     bool force_descend)
{
	struct copter_psc_z_target *t = &c->z;
	float err = before->alt_m - c->meas_alt_m;
	if (c->motors_limit.throttle_upper && t->alt_m > before->alt_m && err > 0.0f) {
		t->alt_m = before->alt_m;
		t->climb_m_s = fminf(t->climb_m_s, fmaxf(before->climb_m_s, 0.0f));
	}
	if (!force_descend && c->motors_limit.throttle_lower && t->alt_m < before->alt_m &&
	    err < 0.0f) {
		t->alt_m = before->alt_m;
		t->climb_m_s = fmaxf(t->climb_m_s, fminf(before->climb_m_s, 0.0f));
	}
}

void copter_psc_z_input_alt(struct copter_psc *c, const struct copter_psc_params *p,
			    const struct copter_psc_limits *lim, float alt_m, float dt_s)
{
	take_limits(c, lim);
	if (!isfinite(alt_m) || !isfinite(dt_s) || dt_s <= 0.0f) {
		c->nonfinite_inputs++;
		return;
	}
	struct copter_psc_z_target before = c->z;
	copter_shape_pos(&c->z.alt_m, &c->z.climb_m_s, &c->z.accel_m_s2, alt_m, c->lim.speed_up_m_s,
			 c->lim.speed_dn_m_s, c->lim.accel_z_m_s2, p->psc_jerk_z, dt_s);
	z_hold_at_limits(c, &before, false);
}

void copter_psc_z_input_climb(struct copter_psc *c, const struct copter_psc_params *p,
			      const struct copter_psc_limits *lim, float climb_m_s,
			      bool force_descend, float dt_s)
{
	take_limits(c, lim);
	if (!isfinite(climb_m_s) || !isfinite(dt_s) || dt_s <= 0.0f) {
		c->nonfinite_inputs++;
		return;
	}
	climb_m_s = nav_clampf(climb_m_s, -c->lim.speed_dn_m_s, c->lim.speed_up_m_s);
	struct copter_psc_z_target before = c->z;
	copter_shape_vel(&c->z.alt_m, &c->z.climb_m_s, &c->z.accel_m_s2, climb_m_s,
			 c->lim.accel_z_m_s2, p->psc_jerk_z, dt_s);
	z_hold_at_limits(c, &before, force_descend);
}

/* ---- controllers ---- */

static bool meas_finite(const struct copter_psc_meas *m)
{
	return finite2(m->pos_ne_m) && finite2(m->vel_ne_m_s) && isfinite(m->alt_m) &&
	       isfinite(m->climb_m_s) && isfinite(m->accel_ned_m_s2[0]) &&
	       isfinite(m->accel_ned_m_s2[1]) && isfinite(m->accel_ned_m_s2[2]) &&
	       isfinite(m->roll_rad) && isfinite(m->pitch_rad) && isfinite(m->yaw_rad);
}

static float lean_max_rad(const struct copter_psc_params *p, const struct copter_psc_in *in)
{
	float lean = p->psc_angle_max > 0.0f ? p->psc_angle_max * NAV_DEG2RAD
					      : p->angle_max * 0.01f * NAV_DEG2RAD;
	if (isfinite(in->lean_max_rad) && in->lean_max_rad > 0.0f)
		lean = fminf(lean, in->lean_max_rad);
	return nav_clampf(lean, 0.0f, PSC_ANGLE_MAX_DEG_MAX * NAV_DEG2RAD);
}

static void update_xy(struct copter_psc *c, const struct copter_psc_params *p,
		      const struct copter_psc_meas *m, const struct copter_psc_in *in, float dt,
		      struct copter_psc_out *o)
{
	struct copter_psc_xy_target *t = &c->xy;
	if (!m->pos_valid) {
		/* no position: level, the integrator kept for when it returns */
		o->accel_ne_m_s2[0] = o->accel_ne_m_s2[1] = 0.0f;
		o->roll_rad = o->pitch_rad = 0.0f;
		o->vel_ne_m_s[0] = t->vel_ne_m_s[0];
		o->vel_ne_m_s[1] = t->vel_ne_m_s[1];
		o->lean_limited = false;
		c->xy_reset = true;
		return;
	}
	/* position -> velocity, the target pulled back within the leash */
	float e[2] = { t->pos_ne_m[0] - m->pos_ne_m[0], t->pos_ne_m[1] - m->pos_ne_m[1] };
	float em = len2(e[0], e[1]);
	float leash = copter_sqrt_controller_inv(c->lim.speed_xy_m_s, p->psc_posxy_p,
						 c->lim.accel_xy_m_s2);
	if (em > leash && em > 0.0f) {
		e[0] *= leash / em;
		e[1] *= leash / em;
		t->pos_ne_m[0] = m->pos_ne_m[0] + e[0];
		t->pos_ne_m[1] = m->pos_ne_m[1] + e[1];
		em = leash;
	}
	float vc = em > 0.0f ? copter_sqrt_controller(em, p->psc_posxy_p, c->lim.accel_xy_m_s2, 0.0f) / em
			     : 0.0f;
	float vt[2] = { t->vel_ne_m_s[0] + e[0] * vc, t->vel_ne_m_s[1] + e[1] * vc };

	/* velocity PID (ArduCopter's AC_PID_2D): P and I on the FLTE-filtered
	 * error, D on its change filtered at FLTD */
	float ve[2] = { vt[0] - m->vel_ne_m_s[0], vt[1] - m->vel_ne_m_s[1] };
	float ae = lowpass_alpha(p->psc_velxy_flte, dt), ad = lowpass_alpha(p->psc_velxy_fltd, dt);
	for (int i = 0; i < 2; i++) {
		if (c->xy_reset) {
			c->vel_err_ne[i] = ve[i];
			c->vel_deriv_ne[i] = 0.0f;
			continue;
		}
		float last = c->vel_err_ne[i];
		c->vel_err_ne[i] += ae * (ve[i] - c->vel_err_ne[i]);
		c->vel_deriv_ne[i] += ad * ((c->vel_err_ne[i] - last) / dt - c->vel_deriv_ne[i]);
	}
	c->xy_reset = false;
	/* the integrator does not grow along a demand the lean limit cut last
	 * step: only its component across that direction may */
	float di[2] = { p->psc_velxy_i * c->vel_err_ne[0] * dt, p->psc_velxy_i * c->vel_err_ne[1] * dt };
	float along = di[0] * c->lean_limit_dir[0] + di[1] * c->lean_limit_dir[1];
	if (along > 0.0f) {
		di[0] -= along * c->lean_limit_dir[0];
		di[1] -= along * c->lean_limit_dir[1];
	}
	c->vel_integ_ne[0] += di[0];
	c->vel_integ_ne[1] += di[1];
	float imax = p->psc_velxy_imax * CM;
	float im = len2(c->vel_integ_ne[0], c->vel_integ_ne[1]);
	if (im > imax) {
		c->vel_integ_ne[0] *= imax / im;
		c->vel_integ_ne[1] *= imax / im;
	}
	float a[2];
	for (int i = 0; i < 2; i++)
		a[i] = p->psc_velxy_p * c->vel_err_ne[i] + c->vel_integ_ne[i] +
		       p->psc_velxy_d * c->vel_deriv_ne[i] + t->accel_ne_m_s2[i];

	/* the lean limit, as the acceleration it gives */
	float amax = NAV_G_M_S2 * tanf(lean_max_rad(p, in));
	float am = len2(a[0], a[1]);
	o->lean_limited = am > amax;
	if (o->lean_limited) {
		a[0] *= amax / am;
		a[1] *= amax / am;
		c->lean_limit_dir[0] = a[0] / amax;
		c->lean_limit_dir[1] = a[1] / amax;
	} else {
		c->lean_limit_dir[0] = c->lean_limit_dir[1] = 0.0f;
	}

	/* NE acceleration -> lean: forward needs nose down, right needs roll
	 * right; the roll's share is taken in the pitched frame */
	float cy = cosf(m->yaw_rad), sy = sinf(m->yaw_rad);
	float fwd = a[0] * cy + a[1] * sy;
	float right = -a[0] * sy + a[1] * cy;
	o->pitch_rad = atanf(-fwd / NAV_G_M_S2);
	o->roll_rad = atanf(right * cosf(o->pitch_rad) / NAV_G_M_S2);
	o->accel_ne_m_s2[0] = a[0];
	o->accel_ne_m_s2[1] = a[1];
	o->vel_ne_m_s[0] = vt[0];
	o->vel_ne_m_s[1] = vt[1];
}

static void update_z(struct copter_psc *c, const struct copter_psc_params *p,
		     const struct copter_psc_meas *m, const struct copter_psc_in *in, float dt,
		     struct copter_psc_out *o)
{
	struct copter_psc_z_target *t = &c->z;
	float hover = nav_clampf(in->throttle_hover, 0.0f, 1.0f);
	float e = t->alt_m - m->alt_m;
	float up = copter_sqrt_controller_inv(c->lim.speed_up_m_s, p->psc_posz_p, c->lim.accel_z_m_s2);
	float dn = copter_sqrt_controller_inv(c->lim.speed_dn_m_s, p->psc_posz_p, c->lim.accel_z_m_s2);
	if (e > up) {
		e = up;
		t->alt_m = m->alt_m + up;
	} else if (e < -dn) {
		e = -dn;
		t->alt_m = m->alt_m - dn;
	}
	float vcorr = nav_clampf(copter_sqrt_controller(e, p->psc_posz_p, c->lim.accel_z_m_s2, 0.0f),
				 -c->lim.speed_dn_m_s, c->lim.speed_up_m_s);
	float vt = t->climb_m_s + vcorr;
	float at = p->psc_velz_p * (vt - m->climb_m_s) + t->accel_m_s2;

	/* acceleration PID -> throttle; gains per mille of throttle per cm/s/s */
	float err_cm = (at - (-m->accel_ned_m_s2[2])) / CM;
	float last = c->acc_err_cm;
	if (c->z_reset)
		c->acc_err_cm = last = err_cm;
	else
		c->acc_err_cm += lowpass_alpha(p->psc_accz_flte, dt) * (err_cm - c->acc_err_cm);
	c->z_reset = false;
	/* the integrator stops growing in the direction the mixer could not
	 * follow: no more thrust while throttle_upper, no less while
	 * throttle_lower (ArduCopter stops it growing in size at either flag;
	 * this keeps it free to leave a limit, e.g. raise thrust from the floor) */
	float di = p->psc_accz_i * c->acc_err_cm * dt * PER_MILLE;
	if ((di > 0.0f && c->motors_limit.throttle_upper) ||
	    (di < 0.0f && c->motors_limit.throttle_lower))
		di = 0.0f;
	float imax = p->psc_accz_imax * PER_MILLE;
	c->acc_integ = nav_clampf(c->acc_integ + di, -imax, imax);
	float thr = hover + (p->psc_accz_p * c->acc_err_cm + p->psc_accz_d * (c->acc_err_cm - last) / dt) *
				    PER_MILLE +
		    c->acc_integ;

	/* the lean takes cos(tilt) of the thrust off the vertical */
	float ct = cosf(m->roll_rad) * cosf(m->pitch_rad);
	float boost = ct >= BOOST_COS_FLOOR ? 1.0f / ct
					    : fmaxf(ct, 0.0f) / (BOOST_COS_FLOOR * BOOST_COS_FLOOR);
	o->throttle = nav_clampf(thr * boost, 0.0f, 1.0f);
	o->accel_up_m_s2 = at;
	o->climb_m_s = vt;
	c->meas_alt_m = m->alt_m;
}

void copter_psc_update(struct copter_psc *c, const struct copter_psc_params *p,
		       const struct copter_psc_meas *m, const struct copter_psc_in *in, float dt_s,
		       struct copter_psc_out *out)
{
	if (!isfinite(dt_s) || dt_s <= 0.0f || !meas_finite(m) || !isfinite(in->throttle_hover)) {
		c->nonfinite_inputs++;
		*out = c->out;
		return;
	}
	c->motors_limit = in->limit;
	struct copter_psc_out o = c->out;
	if (m->att_valid)
		update_xy(c, p, m, in, dt_s, &o);
	else
		c->xy_reset = true;
	if (m->alt_valid && m->att_valid)
		update_z(c, p, m, in, dt_s, &o);
	else
		c->z_reset = true;
	c->out = o;
	*out = o;
}
