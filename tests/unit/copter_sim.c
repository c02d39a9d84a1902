// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter_sim.h"

#include <math.h>
#include <string.h>

#define G 9.80665f
#define RHO 1.225f
#define SIM_CDA_M2 0.06f

void copter_sim_params_default(struct copter_sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mass_kg = 1.5f;
	p->hover_throttle = 0.4f;
	p->drag_n_per_m2s2 = 0.5f * RHO * SIM_CDA_M2;
	p->att_tau_s = 0.1f;
	p->thrust_tau_s = 0.03f;
	p->gust_tau_s = 1.0f;
	p->seed = 1;
}

void copter_sim_wind_force(const struct copter_sim_params *p, float speed_m_s, float heading_rad,
			   float out_ne_n[2])
{
	float f = p->drag_n_per_m2s2 * speed_m_s * speed_m_s;
	out_ne_n[0] = f * cosf(heading_rad);
	out_ne_n[1] = f * sinf(heading_rad);
}

static float thrust_max(const struct copter_sim *s)
{
	return s->p.mass_kg * G / s->p.hover_throttle;
}

/* xorshift32, and a Gaussian by Box-Muller: the same gusts every run */
static float uniform(struct copter_sim *s)
{
	uint32_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rng = x;
	return ((float)(x >> 8) + 0.5f) / 16777216.0f;
}

static float gauss(struct copter_sim *s)
{
	float u1 = uniform(s), u2 = uniform(s);
	return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
}

static void mix(struct copter_sim *s, float throttle, bool armed, float dt)
{
	struct copter_motors_in in = {
		.armed = armed,
		.desired = armed ? COPTER_SPOOL_WANT_THROTTLE_UNLIMITED : COPTER_SPOOL_WANT_SHUT_DOWN,
		.throttle = throttle,
		.thr_mix = 0.5f,
		.batt_v = 0.0f,
	};
	copter_motors_update(&s->motors, &s->mp, &in, dt, &s->mo);
}

void copter_sim_init(struct copter_sim *s, const struct copter_sim_params *p, float alt_m,
		     float yaw_rad)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->alt_m = alt_m;
	s->yaw_rad = yaw_rad;
	s->rng = p->seed ? p->seed : 1;
	copter_motors_params_default(&s->mp);
	s->mp.mot_thst_hover = p->hover_throttle;
	copter_motors_init(&s->motors, &s->mp);
	s->on_ground = alt_m <= 0.0f;
	if (s->on_ground) {
		s->alt_m = 0.0f;
		for (int i = 0; i < 400; i++)
			mix(s, 0.0f, true, 0.0025f);
		return;
	}
	for (int i = 0; i < 2000 && s->motors.spool != COPTER_SPOOL_THROTTLE_UNLIMITED; i++)
		mix(s, p->hover_throttle, true, 0.0025f);
	s->thrust_n = p->hover_throttle * thrust_max(s);
}

void copter_sim_step(struct copter_sim *s, float roll_cmd_rad, float pitch_cmd_rad, float throttle,
		     bool armed, float dt)
{
	const struct copter_sim_params *p = &s->p;
	mix(s, throttle, armed, dt);
	float t = 0.0f;
	for (int i = 0; i < s->mo.count; i++)
		t += s->mo.thrust[i];
	t /= (float)s->mo.count;
	s->thrust_n += (t * thrust_max(s) - s->thrust_n) * dt / (p->thrust_tau_s + dt);
	if (!s->att_stuck) {
		s->roll_rad += (roll_cmd_rad - s->roll_rad) * dt / (p->att_tau_s + dt);
		s->pitch_rad += (pitch_cmd_rad - s->pitch_rad) * dt / (p->att_tau_s + dt);
	}
	if (p->gust_sigma_n > 0.0f) {
		float k = dt / p->gust_tau_s;
		for (int i = 0; i < 2; i++)
			s->gust_n[i] += -k * s->gust_n[i] + p->gust_sigma_n * sqrtf(2.0f * k) * gauss(s);
	}

	/* thrust along -body z: body z in NED is R e3 */
	float cr = cosf(s->roll_rad), sr = sinf(s->roll_rad);
	float cp = cosf(s->pitch_rad), sp = sinf(s->pitch_rad);
	float cy = cosf(s->yaw_rad), sy = sinf(s->yaw_rad);
	float bz[3] = { cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr };
	float f[3];
	float *v = s->vel_ned_m_s;
	float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	for (int i = 0; i < 3; i++)
		f[i] = -s->thrust_n * bz[i] - p->drag_n_per_m2s2 * speed * v[i];
	f[0] += p->wind_force_ne_n[0] + s->gust_n[0];
	f[1] += p->wind_force_ne_n[1] + s->gust_n[1];
	float a[3] = { f[0] / p->mass_kg, f[1] / p->mass_kg, f[2] / p->mass_kg + G };

	/* the ground: it holds the vehicle up and stops it sliding */
	if (s->alt_m <= 0.0f && a[2] >= 0.0f && v[2] >= 0.0f) {
		s->on_ground = true;
		s->alt_m = 0.0f;
		memset(s->vel_ned_m_s, 0, sizeof(s->vel_ned_m_s));
		memset(s->accel_ned_m_s2, 0, sizeof(s->accel_ned_m_s2));
		return;
	}
	s->on_ground = false;
	for (int i = 0; i < 3; i++) {
		v[i] += a[i] * dt;
		s->accel_ned_m_s2[i] = a[i];
	}
	s->pos_ne_m[0] += v[0] * dt;
	s->pos_ne_m[1] += v[1] * dt;
	s->alt_m -= v[2] * dt;
	if (s->alt_m < 0.0f) {
		/* touchdown: the impact takes the vertical speed */
		s->alt_m = 0.0f;
		v[2] = 0.0f;
	}
}

void copter_sim_meas(const struct copter_sim *s, struct copter_psc_meas *m)
{
	memset(m, 0, sizeof(*m));
	m->pos_ne_m[0] = s->pos_ne_m[0];
	m->pos_ne_m[1] = s->pos_ne_m[1];
	m->vel_ne_m_s[0] = s->vel_ned_m_s[0];
	m->vel_ne_m_s[1] = s->vel_ned_m_s[1];
	m->alt_m = s->alt_m;
	m->climb_m_s = -s->vel_ned_m_s[2];
	for (int i = 0; i < 3; i++)
		m->accel_ned_m_s2[i] = s->accel_ned_m_s2[i];
	m->roll_rad = s->roll_rad;
	m->pitch_rad = s->pitch_rad;
	m->yaw_rad = s->yaw_rad;
	m->pos_valid = m->alt_valid = m->att_valid = true;
}

void copter_sim_fly(struct copter_sim *s, struct copter_psc *c, const struct copter_psc_params *pp,
		    float dt, struct copter_psc_out *out)
{
	struct copter_psc_meas m;
	copter_sim_meas(s, &m);
	struct copter_psc_in in = {
		.throttle_hover = s->p.hover_throttle,
		.limit = s->mo.limit,
	};
	copter_psc_update(c, pp, &m, &in, dt, out);
	copter_sim_step(s, out->roll_rad, out->pitch_rad, out->throttle, true, dt);
}
