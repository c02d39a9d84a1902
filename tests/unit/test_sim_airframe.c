// SPDX-License-Identifier: GPL-3.0-or-later
/* The airframes of fulmar-sim against the figures docs/simulator.md gives for
 * them ("Airframes"): each figure measured from the model as fulmar-sim
 * --figures measures it (tools/sim/perf.h), within a tolerance. And the
 * cub's ground handling: it rests on its three wheels nose up, rolls
 * straight with the rudder neutral, turns with it, ground-loops under a hard
 * input at speed; and the air start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "atmos.h"
#include "faults.h"
#include "model.h"
#include "perf.h"
#include "world.h"

#define DEG (M_PI / 180.0)
#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* Where the documented figures hold: the default home (CMAC, 584 m) in the ISA. */
static double home_density(void)
{
	struct sim_atmos a;
	sim_atmos_isa(584.0, 0.0, &a);
	return a.density_kg_m3;
}

/* One airframe's row of the tables in docs/simulator.md. A trim throttle of
 * -1: the motor cannot hold that speed level. */
struct documented {
	const char *name;
	double stall_m_s;
	double trim_throttle[3], trim_pitch_deg[3], trim_elevator[3];  /* 15, 20, 25 m/s */
	double glide_ratio, glide_speed_m_s;
	double roll_deg_s;
	double takeoff_m, liftoff_m_s;                                   /* 0: hand-launched */
};

static const struct documented docs[] = {
	{ "skywalker", 9.96, { 0.598, 0.793, -1 }, { 1.70, -0.56, 0 }, { -0.064, -0.115, 0 },
	  10.41, 11.3, 114.9, 0, 0 },
	{ "cub", 9.16, { 0.494, 0.647, 0.815 }, { 0.96, -1.60, -2.79 }, { -0.024, -0.082, -0.109 },
	  9.56, 11.3, 92.4, 3.9, 9.1 },
};

static void check_documented(const struct documented *d)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(d->name, &p), 0);
	double rho = home_density(), vs, ld, v_ld, roll;
	assert_int_equal(sim_perf_stall_speed(&p, rho, &vs), 0);
	print_message("%s: stall %.2f m/s\n", d->name, vs);
	assert_near(vs, d->stall_m_s, 0.1);
	for (int i = 0; i < 3; i++) {
		struct sim_trim t;
		int err = sim_trim_level(&p, rho, 15.0 + 5.0 * i, &t);
		if (d->trim_throttle[i] < 0.0) {
			assert_true(err < 0);
			continue;
		}
		assert_int_equal(err, 0);
		print_message("%s: trim at %d m/s: throttle %.3f pitch %.2f deg elevator %.3f\n", d->name,
			      15 + 5 * i, t.throttle, t.alpha_rad / DEG, t.elevator);
		assert_near(t.throttle, d->trim_throttle[i], 0.01);
		assert_near(t.alpha_rad / DEG, d->trim_pitch_deg[i], 0.1);
		assert_near(t.elevator, d->trim_elevator[i], 0.005);
	}
	assert_int_equal(sim_perf_best_glide(&p, rho, &ld, &v_ld), 0);
	print_message("%s: best glide %.2f at %.1f m/s\n", d->name, ld, v_ld);
	assert_near(ld, d->glide_ratio, 0.1);
	assert_near(v_ld, d->glide_speed_m_s, 0.3);
	assert_int_equal(sim_perf_roll_rate(&p, rho, 15.0, 1.0, &roll), 0);
	print_message("%s: roll rate %.1f deg/s\n", d->name, roll);
	assert_near(roll, d->roll_deg_s, 2.0);
	struct sim_perf_takeoff to;
	int err = sim_perf_takeoff(&p, rho, 1.2 * vs, 0.4, &to);
	if (d->takeoff_m == 0.0) {
		assert_int_equal(err, -ENOTSUP);
		return;
	}
	assert_int_equal(err, 0);
	print_message("%s: take-off %.1f m, %.2f s, lift-off %.1f m/s\n", d->name, to.ground_roll_m,
		      to.time_s, to.liftoff_speed_m_s);
	assert_near(to.ground_roll_m, d->takeoff_m, 0.5);
	assert_near(to.liftoff_speed_m_s, d->liftoff_m_s, 0.3);
}

static void test_sim_skywalker_has_its_documented_figures(void **state)
{
	(void)state;
	check_documented(&docs[0]);
}

static void test_sim_cub_has_its_documented_figures(void **state)
{
	(void)state;
	check_documented(&docs[1]);
}

/* The brief's targets for a Cub-class plane, whatever the tables say. */
static void test_sim_cub_is_in_its_class(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	double rho = home_density(), vs, roll;
	assert_true(p.mass_kg >= 6.0 && p.mass_kg <= 7.0);
	assert_true(p.span_m >= 2.5 && p.span_m <= 3.0);
	assert_int_equal(sim_perf_stall_speed(&p, rho, &vs), 0);
	assert_true(vs >= 8.5 && vs <= 9.5);
	struct sim_trim t;
	assert_int_equal(sim_trim_level(&p, rho, 15.0, &t), 0);
	assert_true(t.throttle < 0.6);
	assert_int_equal(sim_perf_roll_rate(&p, rho, 15.0, 1.0, &roll), 0);
	assert_true(roll > 60.0 && roll < 150.0);
	/* 2-2.5 kW from the pack at full throttle, at rest. */
	struct sim_state s;
	sim_perf_at_rest(&p, rho, &s);
	struct sim_forces f;
	struct sim_controls full = { 0, 0, 0, 1.0 };
	struct sim_env env = { v3_make(0, 0, 0), rho };
	sim_forces_eval(&p, &s, &full, &env, &f);
	double watts = f.batt_current_a * s.batt_voltage_v;
	print_message("cub static: %.0f W, %.1f N\n", watts, f.thrust_n);
	assert_true(watts > 1800.0 && watts < 2500.0);
}

static double depth_of(const struct sim_state *s, struct v3 body)
{
	return s->pos_ned_m.z + quat_rotate(s->att, body).z;
}

static void test_sim_cub_rests_on_three_wheels_tail_down(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	struct sim_state s;
	sim_perf_at_rest(&p, home_density(), &s);
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	print_message("cub at rest: pitch %.2f deg, roll %.2f deg, struts %.1f %.1f %.1f cm\n", pitch / DEG,
		      roll / DEG, 100 * depth_of(&s, p.wheel[0].pos_body_m),
		      100 * depth_of(&s, p.wheel[1].pos_body_m), 100 * depth_of(&s, p.wheel[2].pos_body_m));
	assert_true(pitch / DEG >= 10.0 && pitch / DEG <= 12.0);
	assert_near(roll, 0.0, 0.1 * DEG);
	assert_near(v3_norm(s.vel_ned_m_s), 0.0, 1e-3);
	assert_true(s.on_ground);
	for (int i = 0; i < p.n_wheels; i++)
		assert_true(depth_of(&s, p.wheel[i].pos_body_m) > 0.002);
	/* The tail wheel carries some of the weight, the mains the most. */
	double tail = p.wheel[2].k_n_m * depth_of(&s, p.wheel[2].pos_body_m);
	double mains = p.wheel[0].k_n_m * depth_of(&s, p.wheel[0].pos_body_m) +
		       p.wheel[1].k_n_m * depth_of(&s, p.wheel[1].pos_body_m);
	double w = p.mass_kg * SIM_G0_M_S2;
	assert_near(tail + mains, w, 0.02 * w);
	assert_true(tail > 0.05 * w && tail < 0.25 * w);
	/* Nothing else touches: the propeller and the tail post clear the ground. */
	for (int i = 0; i < p.n_contacts; i++)
		assert_true(depth_of(&s, p.contact_body_m[i]) < -0.02);
}

/* A run on the runway: full throttle (or thr) from rest, rudder as given
 * after the airspeed reaches from_m_s; returns the heading change at the end,
 * or when it first leaves the ground. */
struct run {
	double heading_change_deg, skid_max_deg, speed_m_s;
	bool left_ground, crashed;
};

static void ground_run_of(const char *airframe, double thr, double from_m_s, double rudder,
			  double thr_after, double secs, struct run *r)
{
	struct sim_airframe p;
	assert_int_equal(sim_airframe_by_name(airframe, &p), 0);
	double rho = home_density();
	struct sim_state s;
	sim_perf_at_rest(&p, rho, &s);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_controls u = { 0, 0, 0, thr };
	double h0 = sim_perf_heading_deg(&s);
	memset(r, 0, sizeof(*r));
	bool input = false;
	for (int i = 0; i < (int)(secs * 1000); i++) {
		if (!input && s.airspeed_m_s >= from_m_s) {
			input = true;
			u.rudder = rudder;
			u.throttle = thr_after;
		}
		sim_model_step(&p, &s, &u, &env, 0.001);
		r->heading_change_deg = remainder(sim_perf_heading_deg(&s) - h0, 360.0);
		double gs = hypot(s.vel_ned_m_s.x, s.vel_ned_m_s.y);
		if (gs > 1.0) {
			double track = atan2(s.vel_ned_m_s.y, s.vel_ned_m_s.x) / DEG;
			double skid = fabs(remainder(track - sim_perf_heading_deg(&s), 360.0));
			if (skid > r->skid_max_deg)
				r->skid_max_deg = skid;
		}
		r->speed_m_s = s.airspeed_m_s;
		r->crashed = r->crashed || s.crashed;
		if (!s.on_ground) {
			r->left_ground = true;
			return;
		}
	}
}

static void ground_run(double thr, double from_m_s, double rudder, double thr_after, double secs,
		       struct run *r)
{
	ground_run_of("cub", thr, from_m_s, rudder, thr_after, secs, r);
}

static void test_sim_cub_rolls_straight_with_the_rudder_neutral(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	double vs;
	assert_int_equal(sim_perf_stall_speed(&p, home_density(), &vs), 0);
	struct run r;
	ground_run(1.0, 0.0, 0.0, 1.0, 20.0, &r);
	print_message("neutral rudder: left the ground at %.1f m/s, heading changed %.2f deg\n", r.speed_m_s,
		      r.heading_change_deg);
	assert_true(r.left_ground);
	assert_true(r.speed_m_s >= 0.9 * vs);
	assert_true(fabs(r.heading_change_deg) < 3.0);
	assert_false(r.crashed);
	/* So does the take-off run of the figures, to lift-off. */
	struct sim_perf_takeoff to;
	assert_int_equal(sim_perf_takeoff(&p, home_density(), 1.2 * vs, 0.4, &to), 0);
	assert_true(fabs(to.heading_change_max_deg) < 3.0);
}

static void test_sim_cub_turns_with_the_rudder_on_the_ground(void **state)
{
	(void)state;
	struct run right, left;
	/* Taxiing at about 2 m/s with a little throttle (after some 2.3 s), then
	 * full rudder to the fourth second. */
	ground_run(0.3, 2.0, 1.0, 0.3, 4.0, &right);
	ground_run(0.3, 2.0, -1.0, 0.3, 4.0, &left);
	print_message("taxi turns: right %.1f deg, left %.1f deg\n", right.heading_change_deg,
		      left.heading_change_deg);
	assert_false(right.left_ground);
	assert_false(left.left_ground);
	/* Right rudder turns right (the heading grows), left rudder left. */
	assert_true(right.heading_change_deg > 45.0);
	assert_true(left.heading_change_deg < -45.0);
	assert_true(fabs(right.heading_change_deg + left.heading_change_deg) < 5.0);
}

static void test_sim_cub_ground_loops_under_a_hard_input_at_speed(void **state)
{
	(void)state;
	struct run r;
	/* Full throttle to 7 m/s, then the throttle closed and full rudder: it
	 * swings round past 90 degrees, skidding sideways (the tyres saturate). */
	ground_run(1.0, 7.0, 1.0, 0.0, 4.0, &r);
	print_message("ground loop: heading %.1f deg, skid up to %.1f deg\n", r.heading_change_deg,
		      r.skid_max_deg);
	assert_false(r.left_ground);
	assert_true(fabs(r.heading_change_deg) > 90.0);
	assert_true(r.skid_max_deg > 20.0);
	/* The same input at walking pace turns it without a skid. */
	struct run slow;
	ground_run(0.3, 1.5, 1.0, 0.3, 2.0, &slow);
	print_message("slow turn: skid up to %.1f deg\n", slow.skid_max_deg);
	assert_true(slow.skid_max_deg < r.skid_max_deg / 2);
}

/* The contact points still stand for the rest of the aircraft: full down
 * elevator on the take-off run puts the propeller into the runway (a
 * nose-over), and a steep arrival is a crash, as on the other airframe. */
static void test_sim_cub_noses_over_and_crashes(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	double rho = home_density();
	struct sim_state s;
	sim_perf_at_rest(&p, rho, &s);
	struct sim_env env = { v3_make(0, 0, 0), rho };
	struct sim_controls u = { 0, -1.0, 0, 1.0 };
	double prop_depth = -1.0, pitch_min = 0.0;
	for (int i = 0; i < 3000; i++) {
		sim_model_step(&p, &s, &u, &env, 0.001);
		prop_depth = fmax(prop_depth, depth_of(&s, p.contact_body_m[0]));
		double roll, pitch, yaw;
		quat_to_euler(s.att, &roll, &pitch, &yaw);
		pitch_min = fmin(pitch_min, pitch);
	}
	print_message("full down elevator: propeller %.1f cm into the ground, pitch down to %.1f deg\n",
		      100 * prop_depth, pitch_min / DEG);
	assert_true(prop_depth > 0.0);
	assert_true(pitch_min < -15.0 * DEG);
	/* Nose first at 8 m/s down. */
	sim_state_init(&p, &s);
	s.att = quat_from_euler(0.0, -40.0 * DEG, 0.0);
	s.pos_ned_m = v3_make(0.0, 0.0, -1.0);
	s.vel_ned_m_s = v3_make(6.0, 0.0, 8.0);
	struct sim_controls off = { 0, 0, 0, 0 };
	for (int i = 0; i < 1000 && !s.crashed; i++)
		sim_model_step(&p, &s, &off, &env, 0.001);
	assert_true(s.crashed);
	assert_true(s.impact_speed_max_m_s > p.crash_speed_m_s);
	/* A firm but fair three-point arrival (1.5 m/s down) is no crash. */
	sim_perf_at_rest(&p, rho, &s);
	s.pos_ned_m.z -= 0.3;
	s.vel_ned_m_s = v3_make(9.0, 0.0, 1.5);
	for (int i = 0; i < 3000; i++)
		sim_model_step(&p, &s, &off, &env, 0.001);
	assert_false(s.crashed);
}

/* Parked across a 5 m/s wind (no brakes), the cub stays where it is: the
 * wind turns it slowly into itself at most, and pushes it nowhere. */
static void test_sim_cub_parked_across_the_wind_stays_put(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	double rho = home_density();
	struct sim_state s;
	sim_perf_at_rest(&p, rho, &s);
	struct sim_env wind = { v3_make(0.0, -5.0, 0.0), rho };   /* from the east */
	struct sim_controls off = { 0, 0, 0, 0 };
	double h0 = sim_perf_heading_deg(&s);
	for (int i = 0; i < 20000; i++)
		sim_model_step(&p, &s, &off, &wind, 0.001);
	double moved = hypot(s.pos_ned_m.x, s.pos_ned_m.y);
	double turned = remainder(sim_perf_heading_deg(&s) - h0, 360.0);
	print_message("20 s across 5 m/s of wind: moved %.2f m, turned %.1f deg\n", moved, turned);
	assert_true(moved < 0.5);
	assert_true(turned >= 0.0 && turned < 15.0);
	/* The cross-flow model is the plain one at small sideslip. */
	struct sim_airframe plain = p;
	plain.crossflow = false;
	struct sim_state f;
	sim_state_init(&p, &f);
	f.pos_ned_m.z = -100.0;
	f.att = quat_from_euler(0.0, 0.05, 0.0);
	f.vel_ned_m_s = quat_rotate(f.att, v3_make(15.0, 15.0 * sin(1.0 * DEG), 15.0 * 0.05));
	struct sim_controls u = { 0.1, -0.05, 0.1, 0.5 };
	struct sim_env still = { v3_make(0, 0, 0), rho };
	struct sim_forces a, b;
	sim_forces_eval(&p, &f, &u, &still, &a);
	sim_forces_eval(&plain, &f, &u, &still, &b);
	assert_true(v3_norm(v3_sub(a.force_body_n, b.force_body_n)) < 0.002 * v3_norm(b.force_body_n));
	assert_true(v3_norm(v3_sub(a.moment_body_nm, b.moment_body_nm)) < 0.01 * v3_norm(b.moment_body_nm));
}

/* The heading change of the cub-caster standing still, then given rudder
 * and throttle for secs (no wind). */
static double caster_turn(double rudder, double thr, double secs)
{
	struct run r;
	ground_run_of("cub-caster", thr, 0.0, rudder, thr, secs, &r);
	assert_false(r.left_ground);
	return r.heading_change_deg;
}

/* The cub-caster's tail wheel castors: at a standstill with the motor off,
 * full rudder turns it no more than the castor's friction lets the wheels
 * creep; with a little power the slipstream over the rudder swings the nose
 * (the way a castering tail-dragger is steered at walking pace), and the
 * neutral rudder's turn is the p-factor's and the torque's, small. */
static void test_sim_cub_caster_is_steered_by_the_slipstream_alone(void **state)
{
	(void)state;
	double off = caster_turn(1.0, 0.0, 2.0);
	double power = caster_turn(1.0, 0.3, 2.0);
	double left = caster_turn(-1.0, 0.3, 2.0);
	double straight = caster_turn(0.0, 0.3, 2.0);
	print_message("cub-caster, 2 s: full rudder motor off %.1f deg, at 0.3 throttle %.1f / %.1f deg, "
		      "neutral %.1f deg\n", off, power, left, straight);
	assert_true(fabs(off) < 1.0);
	assert_true(power > 20.0);
	assert_true(left < -20.0);
	assert_true(fabs(straight) < 5.0);
}

/* On an aircraft with wheels a wing tip, the propeller or the top of the
 * wing or fin on the ground is a crash however slowly it comes, and says
 * which point it was; the tail post is not. */
static void test_sim_wheeled_crash_names_the_point_that_touched(void **state)
{
	(void)state;
	struct sim_airframe p;
	sim_airframe_cub(&p);
	struct sim_state s;
	sim_perf_at_rest(&p, home_density(), &s);
	assert_int_equal(s.crash_contact, -1);
	/* rolled 35 degrees right, resting: the right wing tip is in the grass */
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	s.att = quat_from_euler(35.0 * DEG, pitch, yaw);
	struct sim_env env = { v3_make(0, 0, 0), home_density() };
	struct sim_controls u = { 0, 0, 0, 0 };
	for (int i = 0; i < 200 && !s.crashed; i++)
		sim_model_step(&p, &s, &u, &env, 0.001);
	assert_true(s.crashed);
	assert_int_equal(s.crash_contact, 3);
	assert_string_equal(p.contact_name[s.crash_contact], "the right wing tip");
	assert_true(s.impact_speed_max_m_s < p.crash_speed_m_s);
	/* the skywalker lands on its belly and may touch a tip: no crash */
	sim_airframe_default(&p);
	assert_int_equal(p.contact_crash_mask, 0u);
}

static void test_sim_cub_refuses_a_hand_launch(void **state)
{
	(void)state;
	struct sim_timeline tl;
	sim_timeline_init(&tl);
	char err[128];
	assert_int_equal(sim_timeline_add_line(&tl, "5 throw", "test", 1, err, sizeof(err)), 0);
	sim_timeline_sort(&tl);
	struct sim_world_config c;
	sim_world_config_default(&c);
	static struct sim_world w;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_HELD);
	sim_airframe_cub(&c.airframe);
	assert_int_equal(sim_world_init(&w, &c, &tl), -EINVAL);
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_GROUND);
	double roll, pitch, yaw;
	quat_to_euler(w.st.att, &roll, &pitch, &yaw);
	assert_true(pitch / DEG > 10.0 && pitch / DEG < 12.0);
	/* An air start and a throw do not go together either. */
	sim_airframe_default(&c.airframe);
	c.air_start = true;
	c.air_start_alt_m = 100.0;
	c.air_start_speed_m_s = 20.0;
	assert_int_equal(sim_world_init(&w, &c, &tl), -EINVAL);
	c.air_start_speed_m_s = NAN;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
	c.air_start_speed_m_s = 0.0;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
	assert_int_equal(sim_airframe_by_name("concorde", &c.airframe), -ENOENT);
	assert_int_equal(sim_airframe_by_name(NULL, &c.airframe), -ENOENT);
}

/* Started in the air and held at the level trim by its controls, each
 * airframe flies on level at the speed and heading it started with. */
static void air_start_holds(const char *name, double alt_m, double speed_m_s, double heading_deg)
{
	struct sim_world_config c;
	sim_world_config_default(&c);
	assert_int_equal(sim_airframe_by_name(name, &c.airframe), 0);
	c.air_start = true;
	c.air_start_alt_m = alt_m;
	c.air_start_speed_m_s = speed_m_s;
	c.heading_deg = heading_deg;
	static struct sim_world w;
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_AIR);
	assert_near(-w.st.pos_ned_m.z, alt_m, 1e-9);
	struct sim_atmos a;
	sim_atmos_isa(c.home.alt_m + alt_m, 0.0, &a);
	struct sim_trim t;
	assert_int_equal(sim_trim_level(&c.airframe, a.density_kg_m3, speed_m_s, &t), 0);
	float ctl[SIM_ACTUATORS] = { 0 };
	ctl[SIM_CTL_AILERON] = (float)(t.aileron / c.surface_throw);
	ctl[SIM_CTL_ELEVATOR] = (float)(t.elevator / c.surface_throw);
	ctl[SIM_CTL_RUDDER] = (float)(t.rudder / c.surface_throw);
	ctl[SIM_CTL_THROTTLE] = (float)t.throttle;
	assert_int_equal(sim_world_set_actuators(&w, ctl, 128, 0), 0);
	struct sim_step_out out;
	for (int i = 0; i < 2000; i++)
		sim_world_step(&w, &out);
	double roll, pitch, yaw;
	quat_to_euler(w.st.att, &roll, &pitch, &yaw);
	print_message("%s air start %.0f m %.0f m/s: after 2 s %.1f m, %.2f m/s, roll %.1f pitch %.1f "
		      "yaw %.1f deg\n", name, alt_m, speed_m_s, -w.st.pos_ned_m.z, w.st.airspeed_m_s,
		      roll / DEG, pitch / DEG, yaw / DEG);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_AIR);
	assert_near(-w.st.pos_ned_m.z, alt_m, 1.0);
	assert_near(w.st.airspeed_m_s, speed_m_s, 0.3);
	assert_near(remainder(yaw / DEG - heading_deg, 360.0), 0.0, 2.0);
	assert_near(roll / DEG, 0.0, 2.0);
}

/* --battery-endless (tools/soak): the charge stays full, the sag under load stays. */
static void test_sim_endless_battery_never_runs_down(void **state)
{
	(void)state;
	double used[2];
	for (int endless = 0; endless < 2; endless++) {
		struct sim_world_config c;
		sim_world_config_default(&c);
		assert_int_equal(sim_airframe_by_name("skywalker", &c.airframe), 0);
		c.air_start = true;
		c.air_start_alt_m = 100.0;
		c.air_start_speed_m_s = 15.0;
		c.batt_endless = endless;
		static struct sim_world w;
		assert_int_equal(sim_world_init(&w, &c, NULL), 0);
		float ctl[SIM_ACTUATORS] = { 0 };
		ctl[SIM_CTL_THROTTLE] = 0.8f;
		assert_int_equal(sim_world_set_actuators(&w, ctl, 128, 0), 0);
		struct sim_step_out out;
		for (int i = 0; i < 2000; i++)
			sim_world_step(&w, &out);
		used[endless] = w.st.batt_used_ah;
		assert_true(w.st.batt_current_a > 1.0);
		assert_near(w.st.batt_voltage_v, sim_batt_ocv_v(&c.airframe, used[endless]) -
						 w.st.batt_current_a * c.airframe.batt_r_ohm, 1e-9);
	}
	print_message("2 s at 80 %% throttle: %.2f mAh used, %.2f mAh with --battery-endless\n",
		      used[0] * 1000.0, used[1] * 1000.0);
	assert_true(used[0] > 1e-3);
	assert_true(used[1] == 0.0);
}

static void test_sim_air_start_flies_on_level(void **state)
{
	(void)state;
	air_start_holds("skywalker", 100.0, 15.0, 90.0);
	air_start_holds("cub", 100.0, 20.0, 0.0);
	air_start_holds("cub", 50.0, 15.0, -135.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_skywalker_has_its_documented_figures),
		cmocka_unit_test(test_sim_cub_has_its_documented_figures),
		cmocka_unit_test(test_sim_cub_is_in_its_class),
		cmocka_unit_test(test_sim_cub_rests_on_three_wheels_tail_down),
		cmocka_unit_test(test_sim_cub_rolls_straight_with_the_rudder_neutral),
		cmocka_unit_test(test_sim_cub_turns_with_the_rudder_on_the_ground),
		cmocka_unit_test(test_sim_cub_ground_loops_under_a_hard_input_at_speed),
		cmocka_unit_test(test_sim_cub_noses_over_and_crashes),
		cmocka_unit_test(test_sim_cub_parked_across_the_wind_stays_put),
		cmocka_unit_test(test_sim_cub_caster_is_steered_by_the_slipstream_alone),
		cmocka_unit_test(test_sim_wheeled_crash_names_the_point_that_touched),
		cmocka_unit_test(test_sim_cub_refuses_a_hand_launch),
		cmocka_unit_test(test_sim_air_start_flies_on_level),
		cmocka_unit_test(test_sim_endless_battery_never_runs_down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
