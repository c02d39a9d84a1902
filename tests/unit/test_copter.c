// SPDX-License-Identifier: GPL-3.0-or-later
/* The copter's step (src/copter/copter.c) flying fulmar-sim's 1.5 kg quad X
 * (tools/sim/model.c, the 6-DOF model fulmar-sim flies) in closed loop at
 * 400 Hz, the estimate taken from the model's truth: arming from the sticks,
 * STABILIZE and ALT_HOLD, an AUTO mission with RTL, LOITER in wind, the RC
 * and battery failsafes, and the modes refusing what they need. The model
 * steps at 1.25 ms, deterministic: no clock, no randomness. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmos.h"
#include "copter/copter.h"
#include "geo.h"
#include "model.h"
#include "perf.h"

#define DT_S 0.0025f
#define SUBSTEPS 2
#define HOME_ALT_M 584.0
#define CH_ROLL 0
#define CH_PITCH 1
#define CH_THR 2
#define CH_YAW 3
#define CH_MODE 4
/* a pulse in each of ArduCopter's six mode-switch bands */
static const uint16_t switch_pwm[6] = { 1165, 1295, 1425, 1555, 1685, 1815 };

struct rig {
	struct sim_airframe af;
	struct sim_state st;
	struct sim_env env;
	struct sim_lla home;
	struct vehicle v;
	struct copter c;
	struct copter_params p;
	struct vehicle_input in;
	struct copter_output out;
	struct mission mission;
	struct mission rally;
	uint64_t now_us;
	uint16_t rc_us[8];
	bool rc_on;
	bool pos_valid;
	/* what the run saw */
	char texts[16][96];
	int n_texts;
	int reached[32];
	int n_reached;
	bool disarmed_after_landing;
	float max_alt_m;
	double rest_z_m;          /* the model's height at rest: home's (where it arms) */
	int dead_motor;           /* this motor (0..) gives nothing; -1 none */
	bool home_changed;
	struct nav_wp new_home;
	int fence_events;
	uint8_t fence_code;
	uint64_t gcs_us;          /* the ground station's last heartbeat */
	uint64_t rc_ahead_us;     /* frames stamped this far after the loop's clock */
	int defer_every;          /* navigation deferred on all but every n-th step; 0 never */
	/* the estimate's errors: a slowly wandering position (first-order
	 * Gauss-Markov, 3 s), white noise on the velocity and height; 0 none */
	double pos_sigma_m, vel_sigma_m_s, alt_sigma_m;
	double pos_err_m[3];
	uint32_t rng;
	long steps;
	/* the accelerometer's bias, body axes, and whether the estimate
	 * (vehicle_input's accel_bias_body_m_s2) has learnt it */
	double accel_bias_m_s2[3];
	bool accel_bias_known;
};

static double density(void)
{
	struct sim_atmos a;
	sim_atmos_isa(HOME_ALT_M, 0.0, &a);
	return a.density_kg_m3;
}

static void rig_init_frame(struct rig *r, const char *airframe)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(sim_airframe_by_name(airframe, &r->af), 0);
	sim_perf_at_rest(&r->af, density(), &r->st);
	r->rest_z_m = r->st.pos_ned_m.z;
	r->env.density_kg_m3 = density();
	r->home = sim_home_default();
	r->home.alt_m = HOME_ALT_M;
	vehicle_init(&r->v, VEHICLE_COPTER);
	r->v.home_set = true;
	copter_params_default(&r->p);
	/* MOT_THST_HOVER as ArduCopter would learn it: the model's hover output as thrust */
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&r->af, density(), &h), 0);
	struct copter_motors mo;
	assert_int_equal(copter_motors_init(&mo, &r->p.mot), 0);
	r->p.mot.mot_thst_hover = copter_motors_actuator_to_thrust(&mo, &r->p.mot, (float)h.throttle);
	/* the modes on the switch: STABILIZE ALT_HOLD LOITER AUTO RTL LAND */
	static const float modes[6] = { COPTER_STABILIZE, COPTER_ALT_HOLD, COPTER_LOITER,
					COPTER_AUTO, COPTER_RTL, COPTER_LAND };
	memcpy(r->p.fltmode, modes, sizeof(modes));
	copter_init(&r->c, &r->v);
	for (int i = 0; i < 8; i++)
		r->rc_us[i] = 1500;
	r->rc_us[CH_THR] = 1100;
	r->rc_us[CH_MODE] = switch_pwm[0];
	r->rc_on = true;
	r->pos_valid = true;
	r->now_us = 1000000;
	r->dead_motor = -1;
	r->rng = 2463534242u;
	mission_clear(&r->mission);
	mission_clear(&r->rally);
}

static void rig_init(struct rig *r)
{
	rig_init_frame(r, "quad");
}

/* A standard normal deviate from a fixed-seed xorshift (Box-Muller). */
static double gauss(struct rig *r)
{
	double u[2];
	for (int k = 0; k < 2; k++) {
		r->rng ^= r->rng << 13;
		r->rng ^= r->rng >> 17;
		r->rng ^= r->rng << 5;
		u[k] = ((double)r->rng + 1.0) / 4294967297.0;
	}
	return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

static void truth(struct rig *r)
{
	struct vehicle_state *vs = &r->in.vs;
	const struct sim_state *s = &r->st;
	memset(vs, 0, sizeof(*vs));
	vs->t_us = r->now_us;
	vs->valid = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID |
		    (r->pos_valid ? VEHICLE_POSITION_VALID : 0);
	vs->q[0] = (float)s->att.w;
	vs->q[1] = (float)s->att.x;
	vs->q[2] = (float)s->att.y;
	vs->q[3] = (float)s->att.z;
	double roll, pitch, yaw;
	quat_to_euler(s->att, &roll, &pitch, &yaw);
	vs->roll_rad = (float)roll;
	vs->pitch_rad = (float)pitch;
	vs->yaw_rad = (float)yaw;
	vs->rate_rad_s[0] = (float)s->rate_body_rad_s.x;
	vs->rate_rad_s[1] = (float)s->rate_body_rad_s.y;
	vs->rate_rad_s[2] = (float)s->rate_body_rad_s.z;
	struct v3 pos = s->pos_ned_m;
	double noise_v[3] = { 0, 0, 0 }, noise_h = 0;
	if (r->pos_sigma_m > 0) {
		double k = (double)DT_S / 3.0;
		for (int i = 0; i < 2; i++)
			r->pos_err_m[i] += -k * r->pos_err_m[i] + r->pos_sigma_m * sqrt(2.0 * k) * gauss(r);
		pos.x += r->pos_err_m[0];
		pos.y += r->pos_err_m[1];
		for (int i = 0; i < 3; i++)
			noise_v[i] = r->vel_sigma_m_s * gauss(r);
		noise_h = r->alt_sigma_m * gauss(r);
	}
	struct sim_lla lla = sim_ned_to_lla(&r->home, pos);
	vs->lat_deg = lla.lat_deg;
	vs->lon_deg = lla.lon_deg;
	vs->alt_rel_m = (float)(r->rest_z_m - s->pos_ned_m.z + noise_h);
	vs->alt_msl_m = (float)(HOME_ALT_M + (double)vs->alt_rel_m);
	vs->vel_ned_m_s[0] = (float)(s->vel_ned_m_s.x + noise_v[0]);
	vs->vel_ned_m_s[1] = (float)(s->vel_ned_m_s.y + noise_v[1]);
	vs->vel_ned_m_s[2] = (float)(s->vel_ned_m_s.z + noise_v[2]);
	vs->pos_sigma_m = 0.5f;
	r->in.accel_body_m_s2[0] = (float)(s->accel_body_m_s2.x + r->accel_bias_m_s2[0]);
	r->in.accel_body_m_s2[1] = (float)(s->accel_body_m_s2.y + r->accel_bias_m_s2[1]);
	r->in.accel_body_m_s2[2] = (float)(s->accel_body_m_s2.z + r->accel_bias_m_s2[2]);
	for (int i = 0; i < 3; i++)
		r->in.accel_bias_body_m_s2[i] = r->accel_bias_known ? (float)r->accel_bias_m_s2[i] : 0.0f;
}

/* One 400 Hz step: the input from the truth, the copter's step, the model
 * driven by its actuators. */
static void step(struct rig *r)
{
	r->now_us += (uint64_t)(DT_S * 1e6f + 0.5f);
	truth(r);
	struct vehicle_input *in = &r->in;
	in->now_us = r->now_us;
	in->dt_s = DT_S;
	in->estimator_converged = true;
	in->gps_fix = r->pos_valid;
	if (r->rc_on) {
		in->rc.timestamp_us = r->now_us + r->rc_ahead_us;
		in->rc.channel_count = 8;
		memcpy(in->rc.channels_us, r->rc_us, sizeof(r->rc_us));
		in->rc_seen = true;
	}
	in->batt_voltage_v = (float)r->st.batt_voltage_v;
	in->batt_used_mah = (float)(r->st.batt_used_ah * 1000.0);
	in->mission = &r->mission;
	in->rally = &r->rally;
	in->gcs_heartbeat_us = r->gcs_us;
	in->home_set = true;
	in->home = (struct nav_wp){ r->home.lat_deg, r->home.lon_deg, 0.0f };
	in->home_alt_msl_m = (float)HOME_ALT_M;
	in->nav_deferred = r->defer_every > 0 && r->steps % r->defer_every != 0;
	r->steps++;
	vehicle_update(&r->v, in->vs.valid, r->mission.count);
	copter_step(&r->c, &r->p, in, &r->out);
	if (r->out.text && r->n_texts < 16) {
		snprintf(r->texts[r->n_texts++], sizeof(r->texts[0]), "%s", r->out.text);
		print_message("%7.2f s: %s\n", (double)r->now_us * 1e-6, r->out.text);
	}
	if (r->out.reached && r->n_reached < 32)
		r->reached[r->n_reached++] = r->out.reached_seq;
	r->disarmed_after_landing |= r->out.disarmed_after_landing;
	if (r->out.fence_event) {
		r->fence_events++;
		r->fence_code = r->out.fence_code;
	}
	if (r->out.home_changed) {
		r->home_changed = true;
		r->new_home = r->out.home;
	}
	double act[SIM_ROTORS_MAX] = { 0 };
	for (int i = 0; i < r->out.motor_count; i++)
		act[i] = i == r->dead_motor ? 0.0 : (double)r->out.actuator[i];
	sim_rotors_set(&r->af, &r->st, act);
	struct sim_controls none = { 0, 0, 0, 0 };
	for (int k = 0; k < SUBSTEPS; k++)
		sim_model_step(&r->af, &r->st, &none, &r->env, DT_S / SUBSTEPS);
	r->max_alt_m = fmaxf(r->max_alt_m, (float)(r->rest_z_m - r->st.pos_ned_m.z));
}

static void fly(struct rig *r, double secs)
{
	for (long i = 0; i < lround(secs / (double)DT_S); i++)
		step(r);
}

static bool said(const struct rig *r, const char *text)
{
	for (int i = 0; i < r->n_texts; i++)
		if (strstr(r->texts[i], text))
			return true;
	return false;
}

static double alt(const struct rig *r)
{
	return r->rest_z_m - r->st.pos_ned_m.z;
}

static double dist_home(const struct rig *r)
{
	return hypot(r->st.pos_ned_m.x, r->st.pos_ned_m.y);
}

static void arm_by_sticks(struct rig *r)
{
	r->rc_us[CH_THR] = 1100;
	r->rc_us[CH_YAW] = 1900;
	fly(r, 2.2);
	r->rc_us[CH_YAW] = 1500;
	fly(r, 0.1);
	assert_true(r->v.armed);
	assert_true(said(r, "Arming motors"));
}

static void test_copter_arms_from_the_sticks_and_flies_stabilize_and_alt_hold(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 1.0);
	assert_int_equal(r.v.mode, COPTER_STABILIZE);
	assert_false(r.v.armed);
	/* yaw right held under 2 s does not arm */
	r.rc_us[CH_YAW] = 1900;
	fly(&r, 1.5);
	r.rc_us[CH_YAW] = 1500;
	fly(&r, 0.5);
	assert_false(r.v.armed);
	arm_by_sticks(&r);
	/* armed, throttle down: ground idle, still on the ground */
	fly(&r, 1.0);
	assert_int_equal(r.out.motors.spool, COPTER_SPOOL_GROUND_IDLE);
	for (int i = 0; i < 4; i++)
		assert_true(r.out.actuator[i] > 0.05f && r.out.actuator[i] < 0.15f);
	assert_true(alt(&r) < 0.05);
	/* STABILIZE: a little over mid-stick (the hover) climbs */
	r.rc_us[CH_THR] = 1560;
	fly(&r, 3.0);
	print_message("STABILIZE at 1560 us for 3 s: %.2f m\n", alt(&r));
	assert_true(alt(&r) > 1.0);
	/* the sticks' senses: half right roll leans right by half ANGLE_MAX (15
	 * deg), half forward pitch (a low pulse) noses down, right yaw turns right */
	r.rc_us[CH_THR] = 1500;
	r.rc_us[CH_ROLL] = 1700;
	fly(&r, 0.5);
	print_message("STABILIZE half right roll: %.1f deg\n", (double)r.in.vs.roll_rad * 57.29578);
	assert_true(fabsf(r.in.vs.roll_rad * 57.29578f - 15.0f) < 1.0f);
	r.rc_us[CH_ROLL] = 1300;
	fly(&r, 0.5);
	r.rc_us[CH_ROLL] = 1500;
	r.rc_us[CH_PITCH] = 1300;
	fly(&r, 0.5);
	assert_true(fabsf(r.in.vs.pitch_rad * 57.29578f + 15.0f) < 1.0f);
	r.rc_us[CH_PITCH] = 1700;
	fly(&r, 0.5);
	r.rc_us[CH_PITCH] = 1500;
	r.rc_us[CH_YAW] = 1700;
	fly(&r, 2.0);
	/* half stick: half PILOT_Y_RATE (101 deg/s), once the yaw loop (slow on
	 * this frame: it overshoots to 128 deg/s at 1 s) has caught up */
	print_message("STABILIZE half right yaw: %.1f deg/s\n", (double)r.in.vs.rate_rad_s[2] * 57.29578);
	assert_true(fabsf(r.in.vs.rate_rad_s[2] * 57.29578f - 101.25f) < 10.0f);
	r.rc_us[CH_YAW] = 1500;
	fly(&r, 1.0);
	/* ALT_HOLD: mid-stick holds the height within half a metre */
	r.rc_us[CH_MODE] = switch_pwm[1];
	r.rc_us[CH_THR] = 1500;
	fly(&r, 2.0);
	assert_int_equal(r.v.mode, COPTER_ALT_HOLD);
	double h0 = alt(&r);
	double lo = h0, hi = h0;
	for (int i = 0; i < 2000; i++) {
		step(&r);
		lo = fmin(lo, alt(&r));
		hi = fmax(hi, alt(&r));
	}
	print_message("ALT_HOLD at mid-stick for 5 s from %.2f m: %.2f..%.2f m\n", h0, lo, hi);
	assert_true(hi - lo < 0.5);
	/* full throttle climbs at PILOT_SPEED_UP (2.5 m/s) */
	r.rc_us[CH_THR] = 1900;
	fly(&r, 3.0);
	float climb = -r.in.vs.vel_ned_m_s[2];
	print_message("ALT_HOLD full throttle: climbing %.2f m/s at %.1f m\n", (double)climb, alt(&r));
	assert_true(fabsf(climb - 2.5f) < 0.3f);
	/* throttle down: descends at PILOT_SPEED_DN (0: as up), lands, and DISARM_DELAY disarms */
	r.rc_us[CH_THR] = 1100;
	fly(&r, 3.0);
	float sink = r.in.vs.vel_ned_m_s[2];
	assert_true(fabsf(sink - 2.5f) < 0.3f);
	for (int i = 0; i < 400 * 30 && !r.out.landed; i++)
		step(&r);
	assert_true(alt(&r) < 0.1);
	assert_true(r.out.landed);
	assert_true(r.v.armed);
	/* DISARM_DELAY (10 s) landed with the throttle down */
	fly(&r, 9.5);
	assert_true(r.v.armed);
	fly(&r, 1.0);
	assert_false(r.v.armed);
	assert_int_equal(r.out.motors.spool, COPTER_SPOOL_SHUT_DOWN);
	for (int i = 0; i < 4; i++)
		assert_true(r.out.actuator[i] == 0.0f);
	/* yaw left disarms on the ground */
	arm_by_sticks(&r);
	r.rc_us[CH_YAW] = 1100;
	fly(&r, 2.2);
	assert_false(r.v.armed);
	assert_true(said(&r, "Disarming motors"));
}

static void add_item(struct rig *r, uint16_t cmd, float p1, float p2, float p3, double n_m,
		     double e_m, float alt_m)
{
	struct mission_item *it = &r->mission.items[r->mission.count++];
	memset(it, 0, sizeof(*it));
	it->command = cmd;
	it->frame = 3;   /* MAV_FRAME_GLOBAL_RELATIVE_ALT */
	it->autocontinue = 1;
	it->param1 = p1;
	it->param2 = p2;
	it->param3 = p3;
	if (n_m != 0.0 || e_m != 0.0) {
		struct sim_lla l = sim_ned_to_lla(&r->home, v3_make(n_m, e_m, 0));
		it->x = (int32_t)lround(l.lat_deg * 1e7);
		it->y = (int32_t)lround(l.lon_deg * 1e7);
	}
	it->z = alt_m;
}

/* Off the line from a to b (NE), metres. */
static double xtrack(double an, double ae, double bn, double be, double pn, double pe)
{
	double dn = bn - an, de = be - ae, l = hypot(dn, de);
	return fabs(((pn - an) * de - (pe - ae) * dn) / l);
}

static void fly_square(int defer_every, double pos_sigma_m)
{
	static struct rig r;
	rig_init(&r);
	r.defer_every = defer_every;
	r.pos_sigma_m = pos_sigma_m;
	r.vel_sigma_m_s = pos_sigma_m > 0 ? 0.1 : 0.0;
	r.alt_sigma_m = pos_sigma_m > 0 ? 0.1 : 0.0;
	/* the landing's allowance: 1 m on the truth, the 2 m on a noisy estimate */
	double land_tol_m = pos_sigma_m > 0 ? 2.0 : 1.0;
	add_item(&r, 16, 0, 0, 0, 0, 0, 0);                  /* home */
	add_item(&r, 22, 0, 0, 0, 0, 0, 20);                 /* 1 takeoff to 20 m */
	add_item(&r, 178, 0, 5, 0, 0, 0, 0);                 /* 2 5 m/s */
	static const double sq[4][2] = { { 60, 0 }, { 60, 60 }, { 0, 60 }, { 0, 0 } };
	for (int i = 0; i < 4; i++)                          /* 3..6 the square */
		add_item(&r, 16, 0, 0, 0, sq[i][0], sq[i][1] == 0 && sq[i][0] == 0 ? 1e-3 : sq[i][1], 20);
	add_item(&r, 20, 0, 0, 0, 0, 0, 0);                  /* 7 RTL */
	fly(&r, 0.5);
	/* AUTO does not arm: arm in LOITER, then AUTO, then the throttle up */
	r.rc_us[CH_MODE] = switch_pwm[3];
	fly(&r, 0.2);
	assert_int_equal(r.v.mode, COPTER_AUTO);
	r.rc_us[CH_YAW] = 1900;
	fly(&r, 2.2);
	r.rc_us[CH_YAW] = 1500;
	assert_false(r.v.armed);
	assert_true(said(&r, "Arm: mode not armable"));
	r.rc_us[CH_MODE] = switch_pwm[2];
	fly(&r, 0.2);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	arm_by_sticks(&r);
	r.rc_us[CH_MODE] = switch_pwm[3];
	fly(&r, 0.5);
	assert_int_equal(r.v.mode, COPTER_AUTO);
	assert_true(alt(&r) < 0.1);   /* waits for the throttle */
	r.rc_us[CH_THR] = 1500;
	/* the flight, with the square's tracking error */
	double sum2 = 0;
	long n = 0;
	double xt_max = 0;
	double t0 = (double)r.now_us * 1e-6;
	double t_takeoff = -1;
	while (r.v.armed && (double)r.now_us * 1e-6 - t0 < 300.0) {
		step(&r);
		if (t_takeoff < 0 && alt(&r) > 19.0)
			t_takeoff = (double)r.now_us * 1e-6 - t0;
		uint16_t it = r.c.item;
		if (r.c.phase == COPTER_PHASE_LEG && it >= 4 && it <= 6) {
			const double *a = sq[it - 4], *b = sq[it - 3];
			double along = ((r.st.pos_ned_m.x - a[0]) * (b[0] - a[0]) +
					(r.st.pos_ned_m.y - a[1]) * (b[1] - a[1])) / 3600.0;
			if (along > 0.1 && along < 0.9) {
				double e = xtrack(a[0], a[1], b[0], b[1], r.st.pos_ned_m.x, r.st.pos_ned_m.y);
				sum2 += e * e;
				n++;
				xt_max = fmax(xt_max, e);
			}
		}
	}
	double t = (double)r.now_us * 1e-6 - t0;
	double rms = sqrt(sum2 / (double)(n ? n : 1));
	print_message("AUTO: 20 m at %.1f s, square tracking RMS %.3f m (max %.3f, %ld samples), "
		      "max height %.1f m, landed %.2f m from home at %.1f s\n",
		      t_takeoff, rms, xt_max, n, (double)r.max_alt_m, dist_home(&r), t);
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
	assert_int_equal(r.v.mode, COPTER_AUTO);
	assert_true(dist_home(&r) < land_tol_m);
	assert_true(alt(&r) < 0.2);
	assert_true(r.max_alt_m > 19.5f && r.max_alt_m < 21.0f);
	assert_true(n > 1000 && rms < 1.0);
	/* reached: takeoff, the four corners */
	assert_true(r.n_reached >= 5);
	static const int want[5] = { 1, 3, 4, 5, 6 };
	for (int i = 0; i < 5; i++)
		assert_int_equal(r.reached[i], want[i]);
	/* the legs at 5 m/s: 240 m of square take about 50-70 s */
	assert_true(t > 80.0 && t < 200.0);
}

static void test_copter_flies_the_auto_square_then_rtl_and_lands_at_home(void **state)
{
	(void)state;
	fly_square(0, 0.0);
}

/* An overloaded loop: navigation runs one step in three (133 Hz), the
 * attitude and rate loops every step. */
static void test_copter_flies_the_square_with_navigation_deferred(void **state)
{
	(void)state;
	fly_square(3, 0.0);
}

/* On an estimate wandering 0.5 m about the truth (loiter_in_wind's). */
static void test_copter_flies_the_square_on_a_noisy_estimate(void **state)
{
	(void)state;
	fly_square(0, 0.5);
}

/* Up in LOITER from the ground to about 10 m. */
static void loiter_takeoff(struct rig *r)
{
	r->rc_us[CH_MODE] = switch_pwm[2];
	fly(r, 0.2);
	assert_int_equal(r->v.mode, COPTER_LOITER);
	arm_by_sticks(r);
	r->rc_us[CH_THR] = 1800;
	for (int i = 0; i < 4000 && alt(r) < 10.0; i++)
		step(r);
	r->rc_us[CH_THR] = 1500;
	fly(r, 3.0);
	assert_true(alt(r) > 9.0);
}

static double loiter_in_wind(double pos_sigma_m)
{
	static struct rig r;
	rig_init(&r);
	r.pos_sigma_m = pos_sigma_m;
	r.vel_sigma_m_s = pos_sigma_m > 0 ? 0.1 : 0.0;
	r.alt_sigma_m = pos_sigma_m > 0 ? 0.1 : 0.0;
	fly(&r, 0.5);
	loiter_takeoff(&r);
	/* a 5 m/s wind from the west, and a slow gust of 2 m/s on it */
	r.env.wind_ned_m_s = v3_make(0, 5, 0);
	fly(&r, 10.0);
	double n0 = r.st.pos_ned_m.x, e0 = r.st.pos_ned_m.y;
	struct copter_psc_xy_target held = r.c.psc.xy;
	double sum2 = 0, worst = 0;
	long n = 0;
	for (int i = 0; i < 12000; i++) {
		double t = i * (double)DT_S;
		r.env.wind_ned_m_s = v3_make(1.0 * sin(0.7 * t), 5 + 2.0 * sin(0.31 * t), 0);
		step(&r);
		double e = hypot(r.st.pos_ned_m.x - (double)held.pos_ne_m[0], r.st.pos_ned_m.y - (double)held.pos_ne_m[1]);
		sum2 += e * e;
		n++;
		worst = fmax(worst, e);
	}
	double rms = sqrt(sum2 / (double)n);
	double drift = hypot(r.c.psc.xy.pos_ne_m[0] - held.pos_ne_m[0],
			     r.c.psc.xy.pos_ne_m[1] - held.pos_ne_m[1]);
	print_message("LOITER in 5 m/s wind with 2 m/s gusts for 30 s, estimate error %.1f m: "
		      "RMS %.3f m, max %.3f m, target moved %.3f m (from %.1f, %.1f)\n", pos_sigma_m,
		      rms, worst, drift, n0, e0);
	assert_true(worst < 2.0);
	assert_true(drift < 0.01);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	assert_true(fabs(alt(&r) - 10.0) < 1.5);
	return rms;
}

static void test_copter_loiter_holds_its_position_in_wind(void **state)
{
	(void)state;
	assert_true(loiter_in_wind(0.0) < 0.3);
}

/* The same with the estimate wandering 0.5 m (1 sigma, 3 s) about the truth,
 * 0.1 m/s and 0.1 m of noise on the velocity and height: the 1.5 m
 * RMS. */
static void test_copter_loiter_holds_in_wind_on_a_noisy_estimate(void **state)
{
	(void)state;
	assert_true(loiter_in_wind(0.5) < 1.5);
}

/* POSHOLD in a 5 m/s wind from the west: holding, it learns the wind's lean;
 * the roll stick flies it east and, centred, brakes it to a stop and holds
 * the place; the pitch stick flies it north with the wind's lean under it. */
static void test_copter_poshold_brakes_holds_and_flies_over_the_wind(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	char why[96];
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_POSHOLD, why, sizeof(why)), 0);
	r.env.wind_ned_m_s = v3_make(0, 5, 0);
	double alt0 = alt(&r);
	fly(&r, 5.0);
	double n0 = r.st.pos_ned_m.x, e0 = r.st.pos_ned_m.y;
	fly(&r, 10.0);
	double drift = hypot(r.st.pos_ned_m.x - n0, r.st.pos_ned_m.y - e0);
	print_message("POSHOLD in 5 m/s wind: drifted %.2f m in 10 s, wind lean %.0f cd roll\n",
		      drift, (double)r.c.poshold.wind_cd[0]);
	assert_true(drift < 1.0);
	assert_true(r.c.poshold.wind_cd[0] < -100.0f);   /* leaning west, into it */
	/* east on the roll stick, then centred */
	r.rc_us[CH_ROLL] = 1700;
	fly(&r, 4.0);
	double v = r.st.vel_ned_m_s.y, e1 = r.st.pos_ned_m.y;
	r.rc_us[CH_ROLL] = 1500;
	int i = 0;
	for (; i < 400 * 10 && !copter_poshold_loitering(&r.c.poshold); i++)
		step(&r);
	double stop = r.st.pos_ned_m.y - e1;
	fly(&r, 3.0);
	double n2 = r.st.pos_ned_m.x, e2 = r.st.pos_ned_m.y;
	fly(&r, 10.0);
	double held = hypot(r.st.pos_ned_m.x - n2, r.st.pos_ned_m.y - e2);
	print_message("POSHOLD: from %.1f m/s east stopped in %.2f s and %.1f m, then held within %.2f m\n",
		      v, (double)i / 400.0, stop, held);
	assert_true(v > 3.0);
	assert_true(i < 400 * 6 && stop > 0.0 && stop < 15.0);
	assert_true(held < 1.0);
	print_message("POSHOLD: %.2f m up, %.2f m when it began\n", alt(&r), alt0);
	assert_true(fabs(alt(&r) - alt0) < 1.0);
	/* north on the pitch stick: the wind's lean keeps it from being blown east */
	double e3 = r.st.pos_ned_m.y, n3 = r.st.pos_ned_m.x;
	r.rc_us[CH_PITCH] = 1300;
	fly(&r, 3.0);
	r.rc_us[CH_PITCH] = 1500;
	print_message("POSHOLD: 3 s of forward stick: %.1f m north, %.1f m east\n",
		      r.st.pos_ned_m.x - n3, r.st.pos_ned_m.y - e3);
	assert_true(r.st.pos_ned_m.x - n3 > 3.0);
	assert_true(fabs(r.st.pos_ned_m.y - e3) < 2.0);
}

static void test_copter_rc_loss_returns_home_and_lands(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	/* forward for a while: LOITER's stick moves the point */
	r.rc_us[CH_PITCH] = 1100;
	fly(&r, 6.0);
	r.rc_us[CH_PITCH] = 1500;
	fly(&r, 5.0);
	double away = dist_home(&r);
	print_message("LOITER: %.1f m from home, heading %.1f deg\n", away,
		      sim_perf_heading_deg(&r.st));
	assert_true(away > 20.0);
	/* the transmitter goes quiet */
	r.rc_on = false;
	fly(&r, 0.9);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	fly(&r, 0.2);
	assert_int_equal(r.v.mode, COPTER_RTL);
	assert_true(said(&r, "Radio Failsafe: RTL"));
	double top = 0;
	for (int i = 0; i < 400 * 120 && r.v.armed; i++) {
		step(&r);
		top = fmax(top, alt(&r));
	}
	print_message("RTL: up to %.2f m (RTL_ALT 15 m), landed %.2f m from home\n", top, dist_home(&r));
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
	assert_true(top > 14.5 && top < 16.0);
	assert_true(dist_home(&r) < 1.0);
}

static void test_copter_low_battery_lands_where_it_is(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.p.batt_fs_low_act = 1;
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.rc_us[CH_ROLL] = 1900;
	fly(&r, 4.0);
	r.rc_us[CH_ROLL] = 1500;
	fly(&r, 5.0);
	/* the pack under load is read as low from now: BATT_LOW_TIMER (10 s) later, LAND */
	float v = (float)r.st.batt_voltage_v;
	r.p.batt_low_volt = v + 0.5f;
	fly(&r, 9.5);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	fly(&r, 1.0);
	assert_int_equal(r.v.mode, COPTER_LAND);
	assert_true(said(&r, "Battery 1 is low"));
	assert_true(said(&r, ": LAND"));
	double n0 = r.st.pos_ned_m.x, e0 = r.st.pos_ned_m.y;
	print_message("battery failsafe at %.2f V, %.1f m east of home\n", (double)v, e0);
	assert_true(e0 > 10.0);
	for (int i = 0; i < 400 * 60 && r.v.armed; i++)
		step(&r);
	double off = hypot(r.st.pos_ned_m.x - n0, r.st.pos_ned_m.y - e0);
	print_message("LAND: down %.2f m from where it began, disarmed %d\n", off, !r.v.armed);
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
	assert_true(off < 1.5);
	assert_true(alt(&r) < 0.2);
}

/* ArduCopter's EKF check: two variances over FS_EKF_THRESH (or the velocity's at
 * twice it) for ten 10 Hz ticks, each good tick taking one back. */
static void test_copter_ekf_variances_trigger_the_failsafe_and_clear_it(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	fly(&r, 2.0);
	/* the compass alone over the threshold: no failsafe */
	r.in.ekf_mag_var = 0.9f;
	fly(&r, 2.0);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	assert_false(r.c.ekf_fs);
	/* and the velocity too: ten ticks later, LAND */
	r.in.ekf_vel_var = 0.85f;
	fly(&r, 0.85);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	fly(&r, 0.3);
	assert_int_equal(r.v.mode, COPTER_LAND);
	assert_true(said(&r, "EKF Failsafe: changed to LAND Mode"));
	/* good again: cleared once the count is back at zero, about a second */
	r.in.ekf_mag_var = r.in.ekf_vel_var = 0.1f;
	fly(&r, 0.7);
	assert_true(r.c.ekf_fs);
	fly(&r, 0.5);
	assert_false(r.c.ekf_fs);
	assert_true(said(&r, "EKF Failsafe Cleared"));
	/* the velocity alone at twice the threshold counts as two */
	r.rc_us[CH_THR] = 1500;
	char why[96];
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_LOITER, why, sizeof(why)), 0);
	r.in.ekf_vel_var = 1.7f;
	fly(&r, 1.2);
	assert_int_equal(r.v.mode, COPTER_LAND);
	/* FS_EKF_THRESH 0: no check */
	r.in.ekf_vel_var = 0.0f;
	fly(&r, 1.2);
	assert_false(r.c.ekf_fs);
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_LOITER, why, sizeof(why)), 0);
	r.p.fs_ekf_thresh = 0.0f;
	r.in.ekf_vel_var = r.in.ekf_mag_var = r.in.ekf_pos_var = 5.0f;
	fly(&r, 2.0);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	assert_false(r.c.ekf_fs);
}

static void test_copter_modes_refuse_what_they_need(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.pos_valid = false;
	fly(&r, 0.5);
	/* LOITER without a position */
	r.rc_us[CH_MODE] = switch_pwm[2];
	fly(&r, 0.1);
	assert_int_equal(r.v.mode, COPTER_STABILIZE);
	assert_true(said(&r, "LOITER refused: no position estimate"));
	/* the switch's LOITER, refused, is taken once there is a position */
	r.pos_valid = true;
	fly(&r, 0.1);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	/* AUTO without a mission */
	r.rc_us[CH_MODE] = switch_pwm[3];
	fly(&r, 0.1);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	assert_true(said(&r, "AUTO refused: no mission"));
	/* RTL and LAND do not arm */
	r.rc_us[CH_MODE] = switch_pwm[5];
	fly(&r, 0.1);
	assert_int_equal(r.v.mode, COPTER_LAND);
	r.rc_us[CH_YAW] = 1900;
	fly(&r, 2.2);
	r.rc_us[CH_YAW] = 1500;
	assert_false(r.v.armed);
	assert_true(said(&r, "Arm: mode not armable"));
	/* ALT_HOLD flies without a position; losing it in LOITER: EKF failsafe LAND */
	r.rc_us[CH_MODE] = switch_pwm[2];
	fly(&r, 0.1);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	r.rc_us[CH_THR] = 1100;
	arm_by_sticks(&r);
	r.rc_us[CH_THR] = 1800;
	fly(&r, 4.0);
	r.rc_us[CH_THR] = 1500;
	fly(&r, 1.0);
	assert_true(alt(&r) > 3.0);
	r.pos_valid = false;
	fly(&r, 1.2);
	assert_int_equal(r.v.mode, COPTER_LAND);
	assert_true(said(&r, "EKF Failsafe: changed to LAND Mode"));
	for (int i = 0; i < 400 * 40 && r.v.armed; i++)
		step(&r);
	assert_false(r.v.armed);
	assert_true(alt(&r) < 0.2);
}

static double heading_deg(const struct rig *r)
{
	return sim_perf_heading_deg(&r->st);
}

static void test_copter_auto_flies_turns_loiter_time_condition_yaw_and_lands_at_a_point(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	add_item(&r, 16, 0, 0, 0, 0, 0, 0);                  /* 0 home */
	add_item(&r, 22, 0, 0, 0, 0, 0, 10);                 /* 1 takeoff to 10 m */
	add_item(&r, 115, 90, 0, 0, 0, 0, 0);                /* 2 face east */
	add_item(&r, 16, 3, 0, 0, 30, 1e-3, 10);             /* 3 30 m north, 3 s */
	add_item(&r, 18, 2, 0, 10, 30, 1e-3, 10);            /* 4 two turns of 10 m about it */
	add_item(&r, 19, 5, 0, 0, 30, 30, 12);               /* 5 5 s at 30 m north-east, 12 m */
	add_item(&r, 179, 1, 0, 0, 0, 0, 0);                 /* 6 home here */
	add_item(&r, 21, 0, 0, 0, 1e-3, 30, 0);              /* 7 land 30 m east */
	r.rc_us[CH_MODE] = switch_pwm[2];
	fly(&r, 0.5);
	arm_by_sticks(&r);
	r.rc_us[CH_MODE] = switch_pwm[3];
	r.rc_us[CH_THR] = 1500;
	double hold_start = -1, hold_end = -1, circle_start = -1, circle_end = -1;
	double loit_start = -1, loit_end = -1;
	double rad_err_max = 0, yaw_err_max = 0;
	double t0 = (double)r.now_us * 1e-6;
	while (r.v.armed && (double)r.now_us * 1e-6 - t0 < 300.0) {
		step(&r);
		double t = (double)r.now_us * 1e-6 - t0;
		uint16_t it = r.c.item;
		enum copter_phase ph = r.c.phase;
		if (it == 3 && ph == COPTER_PHASE_HOLD && hold_start < 0)
			hold_start = t;
		if (it == 3 && ph == COPTER_PHASE_HOLD)
			yaw_err_max = fmax(yaw_err_max, fabs(heading_deg(&r) - 90.0));
		if (it == 4 && hold_end < 0)
			hold_end = t;
		if (it == 4 && ph == COPTER_PHASE_CIRCLE) {
			if (circle_start < 0)
				circle_start = t;
			double d = hypot(r.st.pos_ned_m.x - 30.0, r.st.pos_ned_m.y);
			if (t - circle_start > 3.0)
				rad_err_max = fmax(rad_err_max, fabs(d - 10.0));
		}
		if (it == 5 && circle_end < 0)
			circle_end = t;
		if (it == 5 && ph == COPTER_PHASE_HOLD && loit_start < 0)
			loit_start = t;
		if (it > 5 && loit_end < 0)
			loit_end = t;
	}
	double off = hypot(r.st.pos_ned_m.x, r.st.pos_ned_m.y - 30.0);
	print_message("waypoint hold %.2f s facing east within %.1f deg; two turns in %.1f s, radius "
		      "within %.2f m; loiter %.2f s; landed %.2f m from the land point\n",
		      hold_end - hold_start, yaw_err_max, circle_end - circle_start, rad_err_max,
		      loit_end - loit_start, off);
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
	assert_true(hold_end - hold_start >= 3.0 && hold_end - hold_start < 3.1);
	assert_true(yaw_err_max < 5.0);
	/* 2 x 360 deg at CIRCLE_RATE 20 deg/s: 36 s, and the ramp */
	assert_true(circle_end - circle_start > 36.0 && circle_end - circle_start < 40.0);
	assert_true(rad_err_max < 0.5);
	assert_true(loit_end - loit_start >= 5.0 && loit_end - loit_start < 5.1);
	assert_true(off < 1.0);
	assert_true(r.home_changed);
	struct sim_lla nh = { r.new_home.lat_deg, r.new_home.lon_deg, HOME_ALT_M };
	struct v3 nh_ned = sim_lla_to_ned(&r.home, &nh);
	assert_true(hypot(nh_ned.x - 30.0, nh_ned.y - 30.0) < 1.0);
	/* reached: takeoff, the waypoint, the turns, the loiter, the landing */
	static const int want[5] = { 1, 3, 4, 5, 7 };
	assert_int_equal(r.n_reached, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(r.reached[i], want[i]);
}

static void test_copter_guided_flies_to_its_target_and_brake_stops(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	char why[96];
	struct nav_wp wp;
	assert_false(copter_target(&r.c, &wp));   /* LOITER: no point flown to */
	struct sim_lla t = sim_ned_to_lla(&r.home, v3_make(80, -20, 0));
	assert_int_equal(vehicle_set_guided(&r.v, t.lat_deg, t.lon_deg, 15.0f, why, sizeof(why)), 0);
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_GUIDED, why, sizeof(why)), 0);
	fly(&r, 0.1);
	/* POSITION_TARGET_GLOBAL_INT's point: the fly-to's, on the way and once there */
	assert_true(copter_target(&r.c, &wp));
	assert_true(fabs(wp.lat_deg - t.lat_deg) < 1e-7 && fabs(wp.lon_deg - t.lon_deg) < 1e-7);
	assert_true(wp.alt_rel_m == 15.0f);
	fly(&r, 25.0);
	assert_true(copter_target(&r.c, &wp));
	assert_true(fabs(wp.lat_deg - t.lat_deg) < 1e-7 && fabs(wp.lon_deg - t.lon_deg) < 1e-7);
	double miss = hypot(r.st.pos_ned_m.x - 80.0, r.st.pos_ned_m.y + 20.0);
	print_message("GUIDED: %.2f m from the target, %.2f m up\n", miss, alt(&r));
	assert_true(miss < 1.0 && fabs(alt(&r) - 15.0) < 0.5);
	/* a new target back south; BRAKE halfway, at speed */
	t = sim_ned_to_lla(&r.home, v3_make(0, -20, 0));
	assert_int_equal(vehicle_set_guided(&r.v, t.lat_deg, t.lon_deg, 15.0f, why, sizeof(why)), 0);
	for (int i = 0; i < 400 * 20 && r.st.pos_ned_m.x > 40.0; i++)
		step(&r);
	double v0 = hypot(r.st.vel_ned_m_s.x, r.st.vel_ned_m_s.y);
	double n0 = r.st.pos_ned_m.x;
	assert_true(v0 > 5.0);
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_BRAKE, why, sizeof(why)), 0);
	fly(&r, 5.0);
	double v1 = hypot(r.st.vel_ned_m_s.x, r.st.vel_ned_m_s.y);
	double stop = n0 - r.st.pos_ned_m.x;
	double n1 = r.st.pos_ned_m.x, e1 = r.st.pos_ned_m.y;
	fly(&r, 5.0);
	double drift = hypot(r.st.pos_ned_m.x - n1, r.st.pos_ned_m.y - e1);
	print_message("BRAKE from %.2f m/s: stopped in %.2f m (%.2f m/s after 5 s), then drifted %.2f m\n",
		      v0, stop, v1, drift);
	assert_int_equal(r.v.mode, COPTER_BRAKE);
	assert_true(stop > 0.5 * v0 * v0 / 7.5 && stop < v0 * v0 / 7.5 + 0.5 * v0);
	assert_true(v1 < 0.2);
	assert_true(drift < 0.5);   /* back to where the target stopped */
	assert_true(fabs(alt(&r) - 15.0) < 0.5);
}

/* ArduCopter's user takeoff: GUIDED, armed, on the ground; refused otherwise. */
static void test_copter_guided_takes_off_on_command(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	char why[96];
	assert_int_equal(vehicle_set_takeoff(&r.v, 12.0f, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "Takeoff: not armed");
	assert_int_equal(vehicle_set_mode(&r.v, COPTER_GUIDED, why, sizeof(why)), 0);
	assert_int_equal(vehicle_arm(&r.v, true, false, 0, why, sizeof(why)), 0);
	fly(&r, 1.0);
	assert_true(r.v.landed && alt(&r) < 0.1);
	assert_int_equal(vehicle_set_takeoff(&r.v, NAN, why, sizeof(why)), -EINVAL);
	assert_int_equal(vehicle_set_takeoff(&r.v, 12.0f, why, sizeof(why)), 0);
	fly(&r, 15.0);
	double n = r.st.pos_ned_m.x, e = r.st.pos_ned_m.y;
	print_message("GUIDED takeoff: %.2f m up, %.2f m from where it rose\n", alt(&r), hypot(n, e));
	assert_true(r.v.armed && !r.v.landed);
	assert_true(fabs(alt(&r) - 12.0) < 0.5 && hypot(n, e) < 1.0);
	assert_int_equal(vehicle_set_takeoff(&r.v, 20.0f, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "Takeoff: flying already");
	/* it holds there */
	fly(&r, 5.0);
	assert_true(fabs(alt(&r) - 12.0) < 0.5 && hypot(r.st.pos_ned_m.x - n, r.st.pos_ned_m.y - e) < 0.5);
	struct vehicle plane;
	vehicle_init(&plane, VEHICLE_PLANE);
	assert_int_equal(vehicle_set_takeoff(&plane, 12.0f, why, sizeof(why)), -EINVAL);
}

static void test_copter_gcs_and_rc_failsafes_pick_rtl_land_or_disarm(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.p.fs_gcs_enable = 1;
	fly(&r, 0.5);
	/* RC lost on the ground, armed in STABILIZE: disarm */
	arm_by_sticks(&r);
	r.rc_on = false;
	fly(&r, 1.2);
	assert_false(r.v.armed);
	assert_true(said(&r, "Radio Failsafe - Disarming"));
	r.rc_on = true;
	fly(&r, 0.5);
	assert_true(said(&r, "Radio Failsafe Cleared"));
	/* RC lost within 5 m of home: LAND, not RTL */
	loiter_takeoff(&r);
	r.rc_on = false;
	fly(&r, 1.2);
	assert_int_equal(r.v.mode, COPTER_LAND);
	assert_true(said(&r, "Radio Failsafe: LAND"));
	for (int i = 0; i < 400 * 40 && r.v.armed; i++)
		step(&r);
	assert_false(r.v.armed);
	r.rc_on = true;
	r.rc_us[CH_MODE] = switch_pwm[0];
	fly(&r, 0.5);
	/* the ground station goes quiet far from home: RTL */
	loiter_takeoff(&r);
	r.rc_us[CH_PITCH] = 1100;
	fly(&r, 5.0);
	r.rc_us[CH_PITCH] = 1500;
	fly(&r, 4.0);
	assert_true(dist_home(&r) > 20.0);
	r.gcs_us = r.now_us;
	fly(&r, 4.9);
	assert_int_equal(r.v.mode, COPTER_LOITER);
	fly(&r, 0.2);
	assert_int_equal(r.v.mode, COPTER_RTL);
	assert_true(said(&r, "GCS Failsafe: RTL"));
	for (int i = 0; i < 400 * 90 && r.v.armed; i++)
		step(&r);
	assert_false(r.v.armed);
	assert_true(dist_home(&r) < 1.0);
}

static void test_copter_crash_check_disarms_after_a_motor_fails(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.dead_motor = 0;
	double t0 = (double)r.now_us * 1e-6;
	while (r.v.armed && (double)r.now_us * 1e-6 - t0 < 20.0)
		step(&r);
	double t = (double)r.now_us * 1e-6 - t0;
	print_message("motor 1 dead at 10 m: disarmed after %.2f s, on the ground %d\n", t,
		      r.st.on_ground);
	assert_false(r.v.armed);
	assert_true(said(&r, "Crash: Disarming"));
	assert_true(t > 2.0 && t < 10.0);
	fly(&r, 0.1);
	for (int i = 0; i < 4; i++)
		assert_true(r.out.actuator[i] == 0.0f);
}

static void test_copter_flies_a_hexa(void **state)
{
	(void)state;
	static struct rig r;
	rig_init_frame(&r, "hexa");
	r.p.mot.frame_class = COPTER_FRAME_CLASS_HEXA;
	r.p.servo.ch[4].servo_function = 37;
	r.p.servo.ch[5].servo_function = 38;
	struct sim_perf_hover h;
	assert_int_equal(sim_perf_hover(&r.af, density(), &h), 0);
	struct copter_motors mo;
	assert_int_equal(copter_motors_init(&mo, &r.p.mot), 0);
	r.p.mot.mot_thst_hover = copter_motors_actuator_to_thrust(&mo, &r.p.mot, (float)h.throttle);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	assert_int_equal(r.out.motor_count, 6);
	r.env.wind_ned_m_s = v3_make(3, 0, 0);
	fly(&r, 10.0);
	struct copter_psc_xy_target held = r.c.psc.xy;
	double worst = 0;
	for (int i = 0; i < 4000; i++) {
		step(&r);
		worst = fmax(worst, hypot(r.st.pos_ned_m.x - (double)held.pos_ne_m[0],
					  r.st.pos_ned_m.y - (double)held.pos_ne_m[1]));
	}
	print_message("hexa LOITER in 3 m/s wind: within %.3f m for 10 s\n", worst);
	assert_true(worst < 0.5);
	for (int k = 0; k < 6; k++)
		assert_int_equal(r.out.pwm_us[k], copter_motors_pwm(&r.p.mot, r.out.actuator[k]));
}

static void test_copter_fence_breach_returns_to_the_rally_point(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.p.fence.fence_enable = 1;
	r.p.fence.fence_type = FENCE_TYPE_CIRCLE;
	r.p.fence.fence_radius = 40;
	/* a rally point 35 m north, 10 m east: nearer than home once past the fence */
	struct mission_item *rp = &r.rally.items[r.rally.count++];
	memset(rp, 0, sizeof(*rp));
	rp->command = RALLY_CMD_POINT;
	rp->frame = 3;
	struct sim_lla l = sim_ned_to_lla(&r.home, v3_make(35, 10, 0));
	rp->x = (int32_t)lround(l.lat_deg * 1e7);
	rp->y = (int32_t)lround(l.lon_deg * 1e7);
	rp->z = 12;
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.rc_us[CH_PITCH] = 1100;
	for (int i = 0; i < 400 * 30 && r.v.mode == COPTER_LOITER; i++)
		step(&r);
	r.rc_us[CH_PITCH] = 1500;
	double at = dist_home(&r);
	print_message("fence: breached %.2f m from home\n", at);
	assert_int_equal(r.v.mode, COPTER_RTL);
	assert_true(said(&r, "Fence breached: circle: RTL"));
	assert_true(at > 40.0 && at < 42.0);
	assert_int_equal(r.fence_events, 1);
	assert_int_equal(r.fence_code, FENCE_TYPE_CIRCLE);
	assert_int_equal(r.c.rally_index, 0);
	/* what FENCE_STATUS says: the count, a boundary breach (3), when it began */
	assert_int_equal(r.c.fence_breach_count, 1);
	assert_int_equal(r.c.fence_breach_type, 3);
	assert_true(r.c.fence_breach_us > 0 && r.c.fence_breach_us <= r.now_us);
	for (int i = 0; i < 400 * 90 && r.v.armed; i++)
		step(&r);
	double off = hypot(r.st.pos_ned_m.x - 35.0, r.st.pos_ned_m.y - 10.0);
	print_message("fence: RTL landed %.2f m from the rally point\n", off);
	assert_false(r.v.armed);
	assert_true(off < 1.0);
	/* the breach cleared (the stop just outside the circle may breach it again once) */
	assert_true(r.fence_events >= 2 && r.fence_events % 2 == 0);
	assert_int_equal(r.fence_code, 0);
}

/* A frame stamped at its source after the loop read its clock is fresh,
 * not 584 thousand years old. */
static void test_copter_rc_stamped_ahead_of_the_loop_is_fresh(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.rc_ahead_us = 700;
	fly(&r, 0.5);
	arm_by_sticks(&r);
	r.rc_us[CH_THR] = 1600;
	fly(&r, 3.0);
	assert_true(r.v.armed);
	assert_false(said(&r, "Radio Failsafe"));
	assert_true(alt(&r) > 1.0);
}

/* LAND_REPOSITION: the sticks move the point LAND descends to (1), or not (0). */
static double land_with_roll_stick(float land_reposition)
{
	static struct rig r;
	rig_init(&r);
	r.p.land_repositions = land_reposition;
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.rc_us[CH_MODE] = switch_pwm[5];
	fly(&r, 0.5);
	assert_int_equal(r.v.mode, COPTER_LAND);
	double e0 = r.st.pos_ned_m.y;
	r.rc_us[CH_ROLL] = 1900;
	fly(&r, 3.0);
	r.rc_us[CH_ROLL] = 1500;
	for (int i = 0; i < 400 * 40 && r.v.armed; i++)
		step(&r);
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
	return r.st.pos_ned_m.y - e0;
}

static void test_copter_land_repositions_with_the_sticks(void **state)
{
	(void)state;
	double moved = land_with_roll_stick(1), held = land_with_roll_stick(0);
	print_message("LAND with 3 s of right roll: %.2f m east (LAND_REPOSITION 0: %.2f m)\n", moved,
		      held);
	assert_true(moved > 5.0);
	assert_true(fabs(held) < 0.5);
}

/*
 * A landing that touches down and is twisted by the ground (feet that touch
 * down drifting): from contact the heading held is the one it has, so the
 * yaw loop does not spin one diagonal of motors up against the ground
 * (draws 4447 and 5821 of issue 39: held against a 10-33 degree twist, the
 * quad slid in the wind and went over).
 */
static void test_copter_landing_lets_go_of_the_heading_at_touchdown(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.rc_us[CH_MODE] = switch_pwm[5];
	fly(&r, 0.5);
	assert_int_equal(r.v.mode, COPTER_LAND);
	int i = 0;
	while (i < 400 * 60 && !r.st.on_ground) {
		step(&r);
		i++;
	}
	assert_true(r.st.on_ground);
	assert_true(r.v.armed);
	/* the ground turns it 25 degrees */
	double roll, pitch, yaw;
	quat_to_euler(r.st.att, &roll, &pitch, &yaw);
	r.st.att = quat_normalize(quat_mul(quat_from_euler(0.0, 0.0, 25.0 * M_PI / 180.0), r.st.att));
	float yaw_max = 0.0f;
	for (int k = 0; k < 400 && r.v.armed; k++) {
		step(&r);
		if (k > 40)
			yaw_max = fmaxf(yaw_max, fabsf(r.out.atc.yaw));
	}
	double yaw_now;
	quat_to_euler(r.st.att, &roll, &pitch, &yaw_now);
	print_message("twisted 25 degrees on touchdown: yaw output at most %.3f, heading %.1f "
		      "degrees from before\n", (double)yaw_max, (yaw_now - yaw) * 180.0 / M_PI);
	assert_true(yaw_max < 0.05f);
	assert_true(fabs((yaw_now - yaw) * 180.0 / M_PI - 25.0) < 5.0);
	for (int k = 0; k < 400 * 10 && r.v.armed; k++)
		step(&r);
	assert_false(r.v.armed);
	assert_true(r.disarmed_after_landing);
}

/* LAND with an accelerometer biased 0.8 m/s/s forward and left: the seconds
 * from touching down to the disarm (-1: still armed 5 s after touching down). */
static double land_with_accel_bias(bool known)
{
	static struct rig r;
	rig_init(&r);
	r.accel_bias_m_s2[0] = 0.8;
	r.accel_bias_m_s2[1] = -0.8;
	r.accel_bias_known = known;
	fly(&r, 0.5);
	loiter_takeoff(&r);
	r.rc_us[CH_MODE] = switch_pwm[5];
	fly(&r, 0.5);
	assert_int_equal(r.v.mode, COPTER_LAND);
	int i = 0;
	while (i < 400 * 60 && !r.st.on_ground) {
		step(&r);
		i++;
	}
	assert_true(r.st.on_ground);
	for (int k = 0; k < 400 * 5; k++) {
		if (!r.v.armed)
			return k / 400.0;
		step(&r);
	}
	return -1.0;
}

/*
 * The land detector's acceleration is the specific force less the
 * estimator's accelerometer bias (ArduCopter's ahrs.get_accel_ef()). With the
 * bias left on, a bias over LAND_DETECTOR_ACCEL_MAX (1 m/s/s) alone keeps
 * "landed" away from a vehicle at rest (draw 6907's f027 of issue 39: 0.45
 * m/s/s of bias and 0.4-0.5 of sliding read 1.0-1.1, the motors held at
 * their floor 2.6 s on the ground until a gust tipped it).
 */
static void test_copter_land_detector_takes_the_estimators_accel_bias_off(void **state)
{
	(void)state;
	double known = land_with_accel_bias(true), unknown = land_with_accel_bias(false);
	print_message("1.13 m/s/s of accelerometer bias: disarmed %.2f s after touching down "
		      "(the bias not taken off: %.2f s, -1 still armed after 5 s)\n", known, unknown);
	assert_true(known > 0.0 && known < 3.0);
	assert_true(unknown < 0.0);
}

/* The pulses: motors 1..4 on SERVO1..4 by their functions, the rest at trim. */
static void test_copter_outputs_follow_servo_functions(void **state)
{
	(void)state;
	static struct rig r;
	rig_init(&r);
	r.p.servo.ch[0].servo_function = 0;   /* motor 1 moves to output 6 */
	r.p.servo.ch[5].servo_function = 33;
	r.p.servo.ch[0].servo_trim = 1234;
	fly(&r, 0.5);
	assert_int_equal(r.out.motor_count, 4);
	assert_int_equal(r.out.pwm_us[0], 1234);
	assert_int_equal(r.out.pwm_us[5], 1000);   /* MOT_PWM_MIN, disarmed */
	assert_int_equal(r.out.pwm_us[1], 1000);
	assert_int_equal(r.out.pwm_us[6], 1500);
	arm_by_sticks(&r);
	r.rc_us[CH_THR] = 1700;
	fly(&r, 1.0);
	for (int k = 0; k < 4; k++)
		assert_true(r.out.actuator[k] > 0.3f);
	assert_int_equal(r.out.pwm_us[5], copter_motors_pwm(&r.p.mot, r.out.actuator[0]));
	assert_int_equal(r.out.pwm_us[1], copter_motors_pwm(&r.p.mot, r.out.actuator[1]));
	assert_int_equal(r.out.pwm_us[0], 1234);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copter_arms_from_the_sticks_and_flies_stabilize_and_alt_hold),
		cmocka_unit_test(test_copter_flies_the_auto_square_then_rtl_and_lands_at_home),
		cmocka_unit_test(test_copter_flies_the_square_with_navigation_deferred),
		cmocka_unit_test(test_copter_flies_the_square_on_a_noisy_estimate),
		cmocka_unit_test(test_copter_loiter_holds_its_position_in_wind),
		cmocka_unit_test(test_copter_loiter_holds_in_wind_on_a_noisy_estimate),
		cmocka_unit_test(test_copter_poshold_brakes_holds_and_flies_over_the_wind),
		cmocka_unit_test(test_copter_rc_loss_returns_home_and_lands),
		cmocka_unit_test(test_copter_low_battery_lands_where_it_is),
		cmocka_unit_test(test_copter_ekf_variances_trigger_the_failsafe_and_clear_it),
		cmocka_unit_test(test_copter_modes_refuse_what_they_need),
		cmocka_unit_test(test_copter_outputs_follow_servo_functions),
		cmocka_unit_test(test_copter_auto_flies_turns_loiter_time_condition_yaw_and_lands_at_a_point),
		cmocka_unit_test(test_copter_guided_flies_to_its_target_and_brake_stops),
		cmocka_unit_test(test_copter_guided_takes_off_on_command),
		cmocka_unit_test(test_copter_gcs_and_rc_failsafes_pick_rtl_land_or_disarm),
		cmocka_unit_test(test_copter_crash_check_disarms_after_a_motor_fails),
		cmocka_unit_test(test_copter_flies_a_hexa),
		cmocka_unit_test(test_copter_fence_breach_returns_to_the_rally_point),
		cmocka_unit_test(test_copter_rc_stamped_ahead_of_the_loop_is_fresh),
		cmocka_unit_test(test_copter_land_repositions_with_the_sticks),
		cmocka_unit_test(test_copter_landing_lets_go_of_the_heading_at_touchdown),
		cmocka_unit_test(test_copter_land_detector_takes_the_estimators_accel_bias_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
