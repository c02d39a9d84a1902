// SPDX-License-Identifier: GPL-3.0-or-later
#include "perf.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "atmos.h"

#define DEG (M_PI / 180.0)

int sim_perf_stall_speed(const struct sim_airframe *p, double rho, double *vs_m_s)
{
	struct sim_trim t;
	double lo = 3.0, hi = 40.0;
	if (sim_trim_glide(p, rho, hi, &t) != 0)
		return -EDOM;
	if (sim_trim_glide(p, rho, lo, &t) == 0) {
		*vs_m_s = lo;
		return 0;
	}
	while (hi - lo > 0.01) {
		double mid = 0.5 * (lo + hi);
		if (sim_trim_glide(p, rho, mid, &t) == 0)
			hi = mid;
		else
			lo = mid;
	}
	*vs_m_s = hi;
	return 0;
}

int sim_perf_best_glide(const struct sim_airframe *p, double rho, double *ratio, double *speed_m_s)
{
	double vs;
	int err = sim_perf_stall_speed(p, rho, &vs);
	if (err)
		return err;
	double best = 0.0, best_v = 0.0;
	for (double v = ceil(vs * 10.0) / 10.0; v <= 40.0; v += 0.1) {
		struct sim_trim t;
		if (sim_trim_glide(p, rho, v, &t) != 0 || t.gamma_rad >= 0.0)
			continue;
		double r = 1.0 / tan(-t.gamma_rad);
		if (r > best) {
			best = r;
			best_v = v;
		}
	}
	if (best <= 0.0)
		return -EDOM;
	*ratio = best;
	*speed_m_s = best_v;
	return 0;
}

/* A state in steady level flight as sim_trim_level solved it, high above the ground. */
static void trimmed_state(const struct sim_airframe *p, double speed_m_s, const struct sim_trim *t,
			  struct sim_state *s)
{
	sim_state_init(p, s);
	s->pos_ned_m = v3_make(0.0, 0.0, -300.0);
	s->att = quat_from_euler(0.0, t->alpha_rad, 0.0);
	struct v3 vb = v3_make(speed_m_s * cos(t->alpha_rad) * cos(t->beta_rad), speed_m_s * sin(t->beta_rad),
			       speed_m_s * sin(t->alpha_rad) * cos(t->beta_rad));
	s->vel_ned_m_s = quat_rotate(s->att, vb);
	s->rate_body_rad_s = v3_make(0, 0, 0);
}

int sim_perf_roll_rate(const struct sim_airframe *p, double rho, double speed_m_s, double aileron,
		       double *rate_deg_s)
{
	struct sim_trim t;
	int err = sim_trim_level(p, rho, speed_m_s, &t);
	if (err)
		return err;
	struct sim_state s;
	trimmed_state(p, speed_m_s, &t, &s);
	struct sim_controls u = { aileron, t.elevator, t.rudder, t.throttle };
	struct sim_env env = { v3_make(0, 0, 0), rho };
	double best = 0.0;
	for (int i = 0; i < 1000; i++) {
		sim_model_step(p, &s, &u, &env, 0.001);
		if (fabs(s.rate_body_rad_s.x) > fabs(best))
			best = s.rate_body_rad_s.x;
	}
	*rate_deg_s = best / DEG;
	return 0;
}

double sim_perf_heading_deg(const struct sim_state *s)
{
	double r, pt, y;
	quat_to_euler(s->att, &r, &pt, &y);
	return remainder(y / DEG, 360.0);
}

void sim_perf_at_rest(const struct sim_airframe *p, double rho, struct sim_state *s)
{
	sim_state_init(p, s);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_controls off = { 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < 2000; i++)
		sim_model_step(p, s, &off, &env, 0.001);
	s->t_s = 0.0;
	s->batt_used_ah = 0.0;
	s->impact_speed_max_m_s = 0.0;
}

int sim_perf_takeoff(const struct sim_airframe *p, double rho, double rotate_m_s,
		     double rotate_elevator, struct sim_perf_takeoff *out)
{
	if (p->n_wheels == 0)
		return -ENOTSUP;
	struct sim_state s;
	sim_perf_at_rest(p, rho, &s);
	double r0, pitch0, y0;
	quat_to_euler(s.att, &r0, &pitch0, &y0);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_controls u = { 0.0, 0.0, 0.0, 1.0 };
	struct v3 start = s.pos_ned_m;
	double hdg0 = sim_perf_heading_deg(&s), dev = 0.0;
	double off_since = -1.0, off_dist = 0.0, off_speed = 0.0;
	for (int i = 1; i <= 60000; i++) {
		if (s.airspeed_m_s >= rotate_m_s)
			u.elevator = rotate_elevator;
		sim_model_step(p, &s, &u, &env, 0.001);
		double t = i * 0.001;
		if (s.on_ground) {
			off_since = -1.0;
			double d = remainder(sim_perf_heading_deg(&s) - hdg0, 360.0);
			if (fabs(d) > fabs(dev))
				dev = d;
			continue;
		}
		if (off_since < 0.0) {
			off_since = t;
			off_dist = hypot(s.pos_ned_m.x - start.x, s.pos_ned_m.y - start.y);
			off_speed = s.airspeed_m_s;
		}
		if (t - off_since >= 0.5) {
			*out = (struct sim_perf_takeoff){ off_dist, off_since, off_speed, dev, pitch0 / DEG };
			return 0;
		}
	}
	return -ETIMEDOUT;
}

/* A multirotor high up and still, every motor at output u and the speed it
 * holds there, the pack sagging under what they draw (a few fixed-point
 * rounds, as sim_trim_level's): the forces on it. */
static void hover_forces(const struct sim_airframe *p, double rho, double u, struct sim_state *s,
			 struct sim_forces *f)
{
	sim_state_init(p, s);
	s->pos_ned_m = v3_make(0.0, 0.0, -100.0);
	double out[SIM_ROTORS_MAX];
	for (int i = 0; i < SIM_ROTORS_MAX; i++)
		out[i] = u;
	sim_rotors_set(p, s, out);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	double ocv = sim_batt_ocv_v(p, 0.0);
	for (int k = 0; k < 6; k++) {
		double om = sim_rotor_steady_rad_s(p, rho, u * s->batt_voltage_v, NULL);
		for (int i = 0; i < p->n_rotors; i++)
			s->motor_rad_s[i] = om;
		sim_forces_eval(p, s, &(struct sim_controls){ 0.0, 0.0, 0.0, 0.0 }, &env, f);
		s->batt_voltage_v = ocv - f->batt_current_a * p->batt_r_ohm;
	}
	sim_forces_eval(p, s, &(struct sim_controls){ 0.0, 0.0, 0.0, 0.0 }, &env, f);
	s->batt_current_a = f->batt_current_a;
	s->thrust_n = f->thrust_n;
	s->prop_rad_s = f->prop_rad_s;
}

int sim_perf_hover(const struct sim_airframe *p, double rho, struct sim_perf_hover *out)
{
	if (p->n_rotors == 0)
		return -ENOTSUP;
	struct sim_state s;
	struct sim_forces f;
	double weight = p->mass_kg * SIM_G0_M_S2;
	hover_forces(p, rho, 1.0, &s, &f);
	double thrust_max = -f.force_body_n.z, current_max = f.batt_current_a;
	if (thrust_max < weight)
		return -ERANGE;
	double lo = 0.0, hi = 1.0;
	while (hi - lo > 1e-7) {
		double mid = 0.5 * (lo + hi);
		hover_forces(p, rho, mid, &s, &f);
		if (-f.force_body_n.z > weight)
			hi = mid;
		else
			lo = mid;
	}
	double u = 0.5 * (lo + hi);
	hover_forces(p, rho, u, &s, &f);
	*out = (struct sim_perf_hover){ u, s.motor_rad_s[0], f.batt_current_a, s.batt_voltage_v, thrust_max,
					thrust_max / weight, current_max };
	return 0;
}

void sim_perf_hover_state(const struct sim_airframe *p, const struct sim_perf_hover *h, double height_m,
			  struct sim_state *s)
{
	sim_state_init(p, s);
	s->pos_ned_m = v3_make(0.0, 0.0, -height_m);
	double out[SIM_ROTORS_MAX];
	for (int i = 0; i < SIM_ROTORS_MAX; i++)
		out[i] = h->throttle;
	sim_rotors_set(p, s, out);
	for (int i = 0; i < p->n_rotors; i++)
		s->motor_rad_s[i] = h->motor_rad_s;
	s->batt_voltage_v = h->batt_voltage_v;
	s->batt_current_a = h->batt_current_a;
	s->prop_rad_s = h->motor_rad_s;
}
