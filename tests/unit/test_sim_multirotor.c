// SPDX-License-Identifier: GPL-3.0-or-later
/* fulmar-sim's multirotors (the quad and the hexa, tools/sim/model.c): their
 * figures against docs/simulator.md's table, the hover, which way each motor
 * turns the body (ArduCopter's motor order and spin directions), the motors'
 * lag, the ground (at rest, in the wind, a hard sideways touchdown), and the
 * controls and truth through the world as the HIL link drives them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmos.h"
#include "model.h"
#include "perf.h"
#include "world.h"

#define DEG (M_PI / 180.0)
#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static double home_density(void)
{
	struct sim_atmos a;
	sim_atmos_isa(584.0, 0.0, &a);
	return a.density_kg_m3;
}

/* docs/simulator.md, "Multirotors": measured by fulmar-sim --figures. */
struct documented {
	const char *name;
	double mass_kg, arm_m;
	int n_rotors;
	double hover_throttle, hover_current_a, thrust_weight, current_max_a;
};

static const struct documented docs[] = {
	{ "quad", 1.5, 0.225, 4, 0.431, 10.9, 3.24, 77.5 },
	{ "hexa", 2.0, 0.275, 6, 0.401, 13.7, 3.59, 114.4 },
};

static void check_documented(const struct documented *d)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(d->name, &p), 0);
	assert_int_equal(p.n_rotors, d->n_rotors);
	assert_near(p.mass_kg, d->mass_kg, 1e-9);
	for (int i = 0; i < p.n_rotors; i++)
		assert_near(hypot(p.rotor[i].pos_body_m.x, p.rotor[i].pos_body_m.y), d->arm_m, 1e-9);
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&p, home_density(), &h), 0);
	print_message("%s: hover %.4f, %.0f rpm, %.2f A; full %.1f N, thrust/weight %.3f, %.1f A\n", d->name,
		      h.throttle, h.motor_rad_s * 60 / (2 * M_PI), h.batt_current_a, h.thrust_max_n,
		      h.thrust_weight_max, h.batt_current_max_a);
	assert_near(h.throttle, d->hover_throttle, 0.001);
	assert_near(h.batt_current_a, d->hover_current_a, 0.1);
	assert_near(h.thrust_weight_max, d->thrust_weight, 0.01);
	assert_near(h.batt_current_max_a, d->current_max_a, 0.5);
	/* the brief's band for a believable multirotor */
	assert_true(h.throttle >= 0.35 && h.throttle <= 0.45);
	assert_true(h.thrust_weight_max >= 2.0 && h.thrust_weight_max <= 4.0);
	/* k_T and k_Q at sea level, as the table gives them: a 10-inch propeller */
	double dd = p.prop_diam_m, d4 = dd * dd * dd * dd;
	assert_near(SIM_RHO0_KG_M3 * d4 * p.ct0 / (4 * M_PI * M_PI), 1.524e-5, 0.001e-5);
	assert_near(SIM_RHO0_KG_M3 * d4 * dd * p.cq0 / (4 * M_PI * M_PI), 2.506e-7, 0.001e-7);
	assert_true(p.motor_tau_s >= 0.02 && p.motor_tau_s <= 0.05);
}

static void test_sim_multirotors_have_their_documented_figures(void **state)
{
	(void)state;
	check_documented(&docs[0]);
	check_documented(&docs[1]);
	/* A plane has no hover. */
	struct sim_airframe p;
	sim_airframe_default(&p);
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&p, home_density(), &h), -ENOTSUP);
}

/* A state hovering 50 m up at output u on every motor (at the speed and
 * pack voltage of the measured hover). */
static void hover_at(const struct sim_airframe *p, double u, struct sim_state *s)
{
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(p, home_density(), &h), 0);
	sim_perf_hover_state(p, &h, 50.0, s);
	double out[SIM_ROTORS_MAX];
	for (int i = 0; i < SIM_ROTORS_MAX; i++)
		out[i] = u;
	sim_rotors_set(p, s, out);
}

static void fly_for(const struct sim_airframe *p, struct sim_state *s, double secs, struct v3 wind)
{
	struct sim_env env = { wind, home_density() };
	struct sim_controls none = { 0, 0, 0, 0 };
	for (int i = 0; i < (int)lround(secs * 1000); i++)
		sim_model_step(p, s, &none, &env, 0.001);
}

/* Every motor at the documented hover throttle (to its three decimals)
 * holds the height within a small drift over 10 s: the pack sags as it
 * drains (its voltage falls about 0.15 %), which alone sinks it a couple of
 * decimetres; a hundredth more or less climbs or sinks metres. */
static void hovers(const struct documented *d)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(d->name, &p), 0);
	double dz[3];
	for (int k = 0; k < 3; k++) {
		struct sim_state s;
		hover_at(&p, d->hover_throttle + 0.01 * (k - 1), &s);
		fly_for(&p, &s, 10.0, v3_make(0, 0, 0));
		dz[k] = -s.pos_ned_m.z - 50.0;
		double roll, pitch, yaw;
		quat_to_euler(s.att, &roll, &pitch, &yaw);
		if (k != 1)
			continue;
		print_message("%s at %.3f for 10 s: %+.3f m, %+.3f m/s, drift %.2e m, roll %.2e pitch %.2e yaw %.2e deg\n",
			      d->name, d->hover_throttle, dz[1], -s.vel_ned_m_s.z,
			      hypot(s.pos_ned_m.x, s.pos_ned_m.y), roll / DEG, pitch / DEG, yaw / DEG);
		assert_true(fabs(dz[1]) < 0.5);
		assert_true(fabs(s.vel_ned_m_s.z) < 0.1);
		assert_true(hypot(s.pos_ned_m.x, s.pos_ned_m.y) < 0.01);
		assert_true(fabs(roll) < 0.01 * DEG && fabs(pitch) < 0.01 * DEG && fabs(yaw) < 0.01 * DEG);
		assert_false(s.on_ground);
	}
	print_message("%s: a hundredth less %+.2f m, more %+.2f m\n", d->name, dz[0], dz[2]);
	assert_true(dz[0] < -3.0);
	assert_true(dz[2] > 3.0);
}

static void test_sim_multirotor_hovers_at_its_documented_throttle(void **state)
{
	(void)state;
	hovers(&docs[0]);
	hovers(&docs[1]);
}

/* From the hover, motor m's output 0.05 up for 0.1 s: the body's rates.
 * The thrust acts at the hub along -z: moment r x F = (-y T, x T, 0), so a
 * motor right of the centre rolls the body left, one ahead of it pitches
 * the nose up; its reaction torque yaws the body against the propeller's
 * spin: CCW seen from above yaws it clockwise, nose right. */
static struct v3 motor_kick(const char *name, int m)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(name, &p), 0);
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&p, home_density(), &h), 0);
	struct sim_state s;
	sim_perf_hover_state(&p, &h, 50.0, &s);
	double out[SIM_ROTORS_MAX];
	for (int i = 0; i < SIM_ROTORS_MAX; i++)
		out[i] = h.throttle;
	out[m - 1] += 0.05;
	sim_rotors_set(&p, &s, out);
	fly_for(&p, &s, 0.1, v3_make(0, 0, 0));
	return s.rate_body_rad_s;
}

/* Signs of roll, pitch and yaw rate after a kick (0: none), by ArduCopter's
 * layouts (ardupilot.org, "Connect ESCs and Motors"; AP_MotorsMatrix.cpp),
 * not by the airframe's table. */
struct kick_sign {
	int roll, pitch, yaw;
};

static void check_kicks(const char *name, const struct kick_sign *want, int n)
{
	for (int m = 1; m <= n; m++) {
		struct v3 w = motor_kick(name, m);
		print_message("%s motor %d: p %+.3f q %+.3f r %+.3f rad/s\n", name, m, w.x, w.y, w.z);
		const struct kick_sign *k = &want[m - 1];
		double big = fmax(fabs(w.x), fabs(w.y));
		/* roll and pitch: the sign, or nothing to speak of */
		assert_true(k->roll ? w.x * k->roll > 0.1 : fabs(w.x) < 0.01 * big);
		assert_true(k->pitch ? w.y * k->pitch > 0.1 : fabs(w.y) < 0.01 * big);
		assert_true(w.z * k->yaw > 0.01);
	}
}

static void test_sim_quad_motor_kicks_turn_the_body_arducopters_way(void **state)
{
	(void)state;
	/* quad X: 1 front right CCW, 2 rear left CCW, 3 front left CW, 4 rear right CW */
	static const struct kick_sign quad[4] = {
		{ -1, +1, +1 }, { +1, -1, +1 }, { +1, +1, -1 }, { -1, -1, -1 },
	};
	check_kicks("quad", quad, 4);
	/* Motor 1, more closely: roll left and pitch up alike (it sits at 45
	 * degrees on a symmetric frame), the yaw an order of magnitude less. */
	struct v3 w = motor_kick("quad", 1);
	assert_near(-w.x, w.y, 0.05 * w.y);
	assert_true(w.z > 0.01 && w.z < 0.2 * w.y);
}

static void test_sim_hexa_motor_kicks_turn_the_body_arducopters_way(void **state)
{
	(void)state;
	/* hexa X: 1 right CW, 2 left CCW, 3 front left CW, 4 rear right CCW,
	 * 5 front right CCW, 6 rear left CW */
	static const struct kick_sign hexa[6] = {
		{ -1, 0, -1 }, { +1, 0, +1 }, { +1, +1, -1 }, { -1, -1, +1 }, { -1, +1, +1 }, { +1, -1, -1 },
	};
	check_kicks("hexa", hexa, 6);
}

/* The reaction torque, alone: one rotor spinning in still air, nothing
 * moving. A CCW rotor yaws the body clockwise seen from above (+z, nose
 * right) by k_Q omega^2; a CW one the other way. And all together, the CCW
 * pair up and the CW pair down by as much: a yaw to the right, nothing else. */
static void test_sim_rotor_torque_yaws_the_body_against_the_spin(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_quad(&p);
	double rho = home_density(), om = 500.0;
	double kq = rho * pow(p.prop_diam_m, 5) * p.cq0 / (4 * M_PI * M_PI);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_controls none = { 0, 0, 0, 0 };
	for (int m = 0; m < 4; m++) {
		struct sim_state s;
		sim_state_init(&p, &s);
		s.pos_ned_m.z = -50.0;
		s.motor_rad_s[m] = om;
		struct sim_forces f;
		sim_forces_eval(&p, &s, &none, &env, &f);
		double want = (m < 2 ? 1.0 : -1.0) * kq * om * om;   /* motors 1 and 2 turn CCW */
		print_message("quad motor %d alone at %.0f rad/s: yaw moment %+.4f N m\n", m + 1, om,
			      f.moment_body_nm.z);
		assert_near(f.moment_body_nm.z, want, 1e-9);
	}
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&p, rho, &h), 0);
	struct sim_state s;
	sim_perf_hover_state(&p, &h, 50.0, &s);
	double out[SIM_ROTORS_MAX] = { h.throttle + 0.03, h.throttle + 0.03, h.throttle - 0.03, h.throttle - 0.03 };
	sim_rotors_set(&p, &s, out);
	fly_for(&p, &s, 0.5, v3_make(0, 0, 0));
	struct v3 w = s.rate_body_rad_s;
	print_message("quad yawing right: p %+.2e q %+.2e r %+.3f rad/s, %+.3f m\n", w.x, w.y, w.z,
		      -s.pos_ned_m.z - 50.0);
	assert_true(w.z > 0.2);
	assert_true(fabs(w.x) < 1e-3 * w.z && fabs(w.y) < 1e-3 * w.z);
	assert_true(fabs(s.pos_ned_m.z + 50.0) < 0.1);
}

/* A step of the output: the motor's speed covers 1 - 1/e of the way to its
 * new speed in one time constant. */
static void test_sim_multirotor_motor_lags_by_its_time_constant(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_quad(&p);
	double rho = home_density();
	struct sim_state s;
	hover_at(&p, 0.431, &s);
	double v = s.batt_voltage_v;
	double from = s.motor_rad_s[0];
	double to = sim_rotor_steady_rad_s(&p, rho, 0.631 * v, NULL);
	double out[SIM_ROTORS_MAX] = { 0.631, 0.431, 0.431, 0.431 };
	sim_rotors_set(&p, &s, out);
	fly_for(&p, &s, p.motor_tau_s, v3_make(0, 0, 0));
	double frac = (s.motor_rad_s[0] - from) / (to - from);
	print_message("quad motor 1 from %.0f towards %.0f rad/s: %.3f of the way in %.3f s; motor 2 at %.2f\n",
		      from, to, frac, p.motor_tau_s, s.motor_rad_s[1]);
	/* the pack sags a little under the new load, so not quite 0.632, and
	 * the other motors slow a little for it */
	assert_near(frac, 1.0 - exp(-1.0), 0.02);
	assert_true(s.motor_rad_s[1] < from && s.motor_rad_s[1] > 0.995 * from);
}

/* At rest on its feet, motors stopped: nothing moves for 30 s, not even a
 * bounce; and across a 10 m/s wind it stays where it is too. */
static void rests(const char *name, double wind_m_s)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(name, &p), 0);
	struct sim_state s;
	sim_perf_at_rest(&p, home_density(), &s);
	struct v3 p0 = s.pos_ned_m;
	double zmin = p0.z, zmax = p0.z;
	struct sim_env env = { v3_make(0, wind_m_s, 0), home_density() };
	struct sim_controls none = { 0, 0, 0, 0 };
	bool always_down = true;
	for (int i = 0; i < 30000; i++) {
		sim_model_step(&p, &s, &none, &env, 0.001);
		zmin = fmin(zmin, s.pos_ned_m.z);
		zmax = fmax(zmax, s.pos_ned_m.z);
		always_down = always_down && s.on_ground;
	}
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	struct v3 dp = v3_sub(s.pos_ned_m, p0);
	print_message("%s at rest 30 s in %.0f m/s: moved %.2e m, heights within %.2e m, roll %.3f deg, "
		      "%.1f cm above the ground\n", name, wind_m_s, v3_norm(dp), zmax - zmin, roll / DEG,
		      -100.0 * s.pos_ned_m.z);
	assert_true(always_down);
	assert_false(s.crashed);
	if (wind_m_s == 0.0) {
		assert_true(s.impact_speed_max_m_s < 1e-6);
		assert_true(v3_norm(dp) < 1e-6);
		assert_true(zmax - zmin < 1e-6);
		assert_true(fabs(roll) < 1e-4 * DEG && fabs(pitch) < 1e-4 * DEG);
	} else {
		assert_true(v3_norm(dp) < 0.01);
		assert_true(fabs(roll) < 2.0 * DEG);
	}
}

static void test_sim_multirotor_at_rest_stays_put(void **state)
{
	(void)state;
	rests("quad", 0.0);
	rests("hexa", 0.0);
	rests("quad", 10.0);
	rests("hexa", 10.0);
}

/* The tilt into a steady wind at which it holds its place: horizontal
 * drag and thrust balance with the height held (output raised to keep the
 * vertical balance). */
static double station_tilt_deg(const char *name, double wind_m_s)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(name, &p), 0);
	double rho = home_density();
	struct sim_env env = { v3_make(-wind_m_s, 0, 0), rho };   /* from the north */
	struct sim_controls none = { 0, 0, 0, 0 };
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&p, rho, &h), 0);
	for (double th = 0.0; th < 45.0; th += 0.1) {
		struct sim_state s;
		sim_perf_hover_state(&p, &h, 100.0, &s);
		s.att = quat_from_euler(0.0, -th * DEG, 0.0);
		struct sim_forces f;
		double lo = 0.0, hi = 1.0;
		for (int k = 0; k < 40; k++) {
			double u = 0.5 * (lo + hi);
			for (int i = 0; i < p.n_rotors; i++)
				s.motor_rad_s[i] = sim_rotor_steady_rad_s(&p, rho, u * s.batt_voltage_v, NULL);
			sim_forces_eval(&p, &s, &none, &env, &f);
			if (quat_rotate(s.att, f.force_body_n).z + p.mass_kg * SIM_G0_M_S2 < 0.0)
				hi = u;
			else
				lo = u;
		}
		if (quat_rotate(s.att, f.force_body_n).x >= 0.0)
			return th;
	}
	return 90.0;
}

static void test_sim_multirotor_holds_station_in_10_m_s_of_wind(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		double t5 = station_tilt_deg(docs[k].name, 5.0), t10 = station_tilt_deg(docs[k].name, 10.0);
		print_message("%s holds its place at %.1f deg into 5 m/s, %.1f deg into 10 m/s\n", docs[k].name,
			      t5, t10);
		/* within ArduCopter's default ANGLE_MAX of 30 degrees, with room */
		assert_true(t10 > 10.0 && t10 < 26.0);
		/* the drag is linear-ish: twice the wind, less than four times the tilt's tangent */
		assert_true(tan(t10 * DEG) < 3.5 * tan(t5 * DEG));
	}
}

/* Dropped from 0.3 m above its feet at 1 m/s down (it touches at about
 * 2.6 m/s) with a sideways drift, motors stopped (docs' table): the feet's
 * friction rolls it over its downwind feet; at 1.5 m/s of drift it rocks
 * back onto its feet, at 2 m/s it goes over onto a propeller, a crash,
 * though it hit at about half the crash speed. */
static bool goes_over(const char *name, double drift_m_s)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(name, &p), 0);
	struct sim_state s;
	sim_state_init(&p, &s);
	s.pos_ned_m.z -= 0.3;
	s.vel_ned_m_s = v3_make(0.0, drift_m_s, 1.0);
	fly_for(&p, &s, 5.0, v3_make(0, 0, 0));
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	print_message("%s dropped drifting %.1f m/s: %s, roll %.1f deg, impact %.2f m/s\n", name, drift_m_s,
		      s.crashed ? p.contact_name[s.crash_contact] : "on its feet", roll / DEG,
		      s.impact_speed_max_m_s);
	assert_true(s.impact_speed_max_m_s < 0.6 * p.crash_speed_m_s);
	if (!s.crashed) {
		assert_true(fabs(roll) < 0.5 * DEG && s.on_ground);
		return false;
	}
	assert_true(strncmp(p.contact_name[s.crash_contact], "propeller", 9) == 0);
	return true;
}

static void test_sim_multirotor_goes_over_from_2_m_s_of_drift(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		assert_false(goes_over(docs[k].name, 0.0));
		assert_false(goes_over(docs[k].name, 1.5));
		assert_true(goes_over(docs[k].name, 2.0));
	}
}

/* Through the world, as the HIL link drives it: a small controller of our
 * own closes the attitude and climb loops on the truth, as an autopilot
 * would on its estimate, and mixes as ArduCopter's quad X does. */
static struct sim_world w;

static void quad_fly(double roll_deg, double climb_m_s, double hover, uint8_t mode)
{
	const struct sim_state *s = &w.st;
	double roll, pitch, yaw;
	quat_to_euler(s->att, &roll, &pitch, &yaw);
	double r = 0.18 * (roll_deg * DEG - roll) - 0.025 * s->rate_body_rad_s.x;
	double p = 0.18 * (0.0 - pitch) - 0.025 * s->rate_body_rad_s.y;
	double y = -0.05 * s->rate_body_rad_s.z;
	double base = hover / sqrt(fmax(cos(roll) * cos(pitch), 0.5)) + 0.1 * (s->vel_ned_m_s.z + climb_m_s);
	/* ArduCopter's factors: roll cos(angle + 90), pitch cos(angle), yaw +1 CCW */
	static const double fr[4] = { -0.7071, 0.7071, 0.7071, -0.7071 };
	static const double fp[4] = { 0.7071, -0.7071, 0.7071, -0.7071 };
	static const double fy[4] = { 1, 1, -1, -1 };
	float c[SIM_ACTUATORS] = { 0 };
	for (int i = 0; i < 4; i++) {
		double u = base + fr[i] * r + fp[i] * p + fy[i] * y;
		c[i] = (float)(u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u));
	}
	assert_int_equal(sim_world_set_actuators(&w, c, mode, sim_world_time_us(&w)), 0);
}

/* The truth's column called name in the row, as text. */
static void truth_column(const char *name, char *value, size_t len)
{
	static char head[1024], row[1536];
	sim_truth_csv_header(&w, head, sizeof(head));
	sim_truth_csv_row(&w, "", row, sizeof(row));
	int col = -1, k = 0;
	for (char *h = head, *save = NULL, *tok; (tok = strtok_r(h, ",\n", &save)); h = NULL, k++)
		if (strcmp(tok, name) == 0)
			col = k;
	assert_true(col >= 0);
	char *save = NULL, *tok = strtok_r(row, ",", &save);
	for (k = 0; k < col; k++)
		tok = strtok_r(NULL, ",", &save);
	assert_non_null(tok);
	snprintf(value, len, "%s", tok);
}

/* Up 1 m, a sideways run at drift_m_s (rolled 20 degrees until it has it),
 * level, down at 1 m/s with what drift is left, disarmed on touching. */
static void sideways_landing(double drift_m_s, double *touch_drift_m_s)
{
	struct sim_world_config c;
	sim_world_config_default(&c);
	sim_airframe_quad(&c.airframe);
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&c.airframe, home_density(), &h), 0);
	struct sim_step_out out;
	int phase = 0;
	*touch_drift_m_s = -1.0;
	for (int i = 0; i < 20000; i++) {
		const struct sim_state *s = &w.st;
		if (phase == 0 && -s->pos_ned_m.z > 1.0)
			phase = 1;
		if (phase == 1 && s->vel_ned_m_s.y >= drift_m_s)
			phase = 2;
		if (phase == 2 && s->on_ground) {
			phase = 3;
			*touch_drift_m_s = s->vel_ned_m_s.y;
		}
		if (phase < 3)
			quad_fly(phase == 1 ? 20.0 : 0.0, phase == 0 ? 1.0 : (phase == 1 ? 0.0 : -1.0), h.throttle,
				 128);
		else
			quad_fly(0.0, 0.0, 0.0, 0);   /* disarmed: every motor 0 */
		sim_world_step(&w, &out);
	}
}

static void test_sim_quad_hard_sideways_landing_is_a_crash_in_the_truth(void **state)
{
	(void)state;
	char crashed[16], phase[16], motor1[16];
	double drift;
	sideways_landing(0.5, &drift);
	truth_column("crashed", crashed, sizeof(crashed));
	truth_column("phase", phase, sizeof(phase));
	truth_column("motor1", motor1, sizeof(motor1));
	double roll, pitch, yaw;
	quat_to_euler(w.st.att, &roll, &pitch, &yaw);
	print_message("quad down at 1 m/s drifting %.2f m/s: crashed %s, %s, roll %.1f deg, motor1 %s\n", drift,
		      crashed, phase, roll / DEG, motor1);
	assert_true(drift > 0.3 && drift < 1.0);
	assert_string_equal(crashed, "0");
	assert_string_equal(phase, "ground");
	assert_string_equal(motor1, "0.0000");
	assert_true(fabs(roll) < 1.0 * DEG);

	sideways_landing(4.0, &drift);
	truth_column("crashed", crashed, sizeof(crashed));
	quat_to_euler(w.st.att, &roll, &pitch, &yaw);
	int c = w.st.crash_contact;
	print_message("quad down at 1 m/s drifting %.2f m/s: crashed %s (%s), impact %.2f m/s, roll %.1f deg\n",
		      drift, crashed, c >= 0 ? w.cfg.airframe.contact_name[c] : "-", w.st.impact_speed_max_m_s,
		      roll / DEG);
	assert_true(drift > 2.5);
	assert_string_equal(crashed, "1");
	/* it went over onto a propeller, not through the ground: a gentle descent */
	assert_true(c >= 0 && strncmp(w.cfg.airframe.contact_name[c], "propeller", 9) == 0);
	assert_true(w.st.impact_speed_max_m_s < w.cfg.airframe.crash_speed_m_s);
}

/* The battery sags under the motors' current as the plane's does. */
static void test_sim_multirotor_battery_sags_under_full_throttle(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_quad(&p);
	struct sim_state s;
	hover_at(&p, 1.0, &s);
	/* five time constants: at full speed, before it climbs fast enough to lose thrust */
	fly_for(&p, &s, 0.15, v3_make(0, 0, 0));
	double ocv = sim_batt_ocv_v(&p, s.batt_used_ah);
	print_message("quad at full throttle: %.1f A, %.2f V against %.2f V open circuit, %.1f N\n",
		      s.batt_current_a, s.batt_voltage_v, ocv, s.thrust_n);
	assert_true(s.batt_current_a > 60.0);
	assert_near(s.batt_voltage_v, ocv - s.batt_current_a * p.batt_r_ohm, 1e-9);
	assert_true(s.batt_voltage_v < ocv - 1.0);
	assert_true(s.thrust_n > 3.0 * p.mass_kg * SIM_G0_M_S2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_multirotors_have_their_documented_figures),
		cmocka_unit_test(test_sim_multirotor_hovers_at_its_documented_throttle),
		cmocka_unit_test(test_sim_quad_motor_kicks_turn_the_body_arducopters_way),
		cmocka_unit_test(test_sim_hexa_motor_kicks_turn_the_body_arducopters_way),
		cmocka_unit_test(test_sim_rotor_torque_yaws_the_body_against_the_spin),
		cmocka_unit_test(test_sim_multirotor_motor_lags_by_its_time_constant),
		cmocka_unit_test(test_sim_multirotor_at_rest_stays_put),
		cmocka_unit_test(test_sim_multirotor_holds_station_in_10_m_s_of_wind),
		cmocka_unit_test(test_sim_multirotor_goes_over_from_2_m_s_of_drift),
		cmocka_unit_test(test_sim_quad_hard_sideways_landing_is_a_crash_in_the_truth),
		cmocka_unit_test(test_sim_multirotor_battery_sags_under_full_throttle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
