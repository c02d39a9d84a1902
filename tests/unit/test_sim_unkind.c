// SPDX-License-Identifier: GPL-3.0-or-later
/* tools/sim's world that is not kind: a field above or below home's ground
 * and sloped, the rangefinder, the barometer's drift, the compass's
 * interference from the motor current and the pitot's failures. */
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

#include "world.h"

#define DEG (M_PI / 180.0)
#define assert_near(a, b, tol)                                                                  \
	do {                                                                                    \
		double a_ = (a), b_ = (b);                                                      \
		if (!(fabs(a_ - b_) <= (tol)))                                                  \
			fail_msg("%s = %g, not %g within %g", #a, a_, b_, (double)(tol));       \
	} while (0)

static struct sim_timeline tl;
static struct sim_world w, w2;
static struct sim_step_out out;

static void config(struct sim_world_config *c, const char *timeline)
{
	char err[160];
	sim_timeline_init(&tl);
	if (sim_timeline_parse(&tl, timeline, strlen(timeline), "t", err, sizeof(err)) != 0)
		fail_msg("%s", err);
	sim_timeline_sort(&tl);
	sim_world_config_default(c);
}

static void run_to(struct sim_world *x, double t_s)
{
	while (sim_world_time_us(x) < (uint64_t)llround(t_s * 1e6))
		sim_world_step(x, &out);
}

static void test_sim_unkind_the_field_is_its_height_inside_banked_to_home_outside(void **state)
{
	struct sim_terrain t;
	sim_terrain_default(&t);
	t.field_alt_m = 3.0;
	t.field_n_m = 200.0;
	t.radius_m = 50.0;
	t.bank_m = 40.0;
	assert_near(sim_terrain_height_m(&t, 200.0, 0.0), 3.0, 1e-12);
	assert_near(sim_terrain_height_m(&t, 240.0, 10.0), 3.0, 1e-12);
	assert_near(sim_terrain_height_m(&t, 270.0, 0.0), 1.5, 1e-9);       /* half-way down the bank */
	assert_near(sim_terrain_height_m(&t, 0.0, 0.0), 0.0, 0.0);          /* home */
	assert_near(sim_terrain_height_m(NULL, 200.0, 0.0), 0.0, 0.0);     /* no field: flat */
	/* Sloped 2 degrees rising towards the east, about its centre. */
	t.slope_deg = 2.0;
	t.slope_towards_deg = 90.0;
	assert_near(sim_terrain_height_m(&t, 200.0, 20.0), 3.0 + 20.0 * tan(2.0 * DEG), 1e-9);
	assert_near(sim_terrain_height_m(&t, 200.0, -20.0), 3.0 - 20.0 * tan(2.0 * DEG), 1e-9);
	double gn, ge;
	sim_terrain_gradient(&t, 210.0, 5.0, &gn, &ge);
	assert_near(gn, 0.0, 1e-9);
	assert_near(ge, tan(2.0 * DEG), 1e-9);
}

/* The airframe dropped onto flat ground and onto the field: where it comes
 * to rest, and how hard it hit. */
static double rest_height(const struct sim_terrain *t, double n, double e, double drop_m)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	sim_state_init(&p, &s);
	s.pos_ned_m.x = n;
	s.pos_ned_m.y = e;
	s.pos_ned_m.z -= drop_m + sim_terrain_height_m(t, n, e);
	struct sim_env env = { v3_make(0, 0, 0), SIM_RHO0_KG_M3 };
	struct sim_controls off = { 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < 4000; i++)
		sim_model_step_terrain(&p, &s, &off, &env, t, 0.001);
	assert_true(s.on_ground);
	assert_false(s.crashed);
	return -s.pos_ned_m.z;
}

static void test_sim_unkind_a_field_3_m_up_or_down_moves_the_ground_contact_3_m(void **state)
{
	struct sim_terrain t;
	sim_terrain_default(&t);
	t.field_n_m = 300.0;
	double flat = rest_height(NULL, 300.0, 0.0, 0.3);
	t.field_alt_m = 3.0;
	assert_near(rest_height(&t, 300.0, 0.0, 0.3), flat + 3.0, 0.005);
	t.field_alt_m = -3.0;
	assert_near(rest_height(&t, 300.0, 0.0, 0.3), flat - 3.0, 0.005);
	/* Outside the field and its bank the ground is home's. */
	assert_near(rest_height(&t, 500.0, 0.0, 0.3), flat, 0.005);
}

/* The pitch the airframe rests at, dropped at (n, 0) onto t. */
static double rest_pitch_deg(const struct sim_terrain *t, double n)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	sim_state_init(&p, &s);
	s.pos_ned_m.x = n;
	s.pos_ned_m.z -= 0.3 + sim_terrain_height_m(t, n, 0.0);
	struct sim_env env = { v3_make(0, 0, 0), SIM_RHO0_KG_M3 };
	struct sim_controls off = { 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < 5000; i++)
		sim_model_step_terrain(&p, &s, &off, &env, t, 0.001);
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	assert_near(roll / DEG, 0.0, 0.1);
	assert_true(s.on_ground);
	assert_true(v3_norm(s.vel_ned_m_s) < 0.01);      /* friction holds it there */
	return pitch / DEG;
}

static void test_sim_unkind_on_a_sloped_field_it_rests_along_the_slope(void **state)
{
	struct sim_terrain t;
	sim_terrain_default(&t);
	t.field_n_m = 300.0;
	t.field_alt_m = 3.0;
	t.slope_deg = 4.0;
	t.slope_towards_deg = 0.0;        /* rising to the north, along the nose */
	/* nose up the slope, by the slope */
	assert_near(rest_pitch_deg(&t, 300.0) - rest_pitch_deg(NULL, 300.0), 4.0, 0.2);
	t.slope_towards_deg = 180.0;
	assert_near(rest_pitch_deg(&t, 300.0) - rest_pitch_deg(NULL, 300.0), -4.0, 0.2);
}

static void test_sim_unkind_a_field_over_home_is_refused(void **state)
{
	struct sim_world_config c;
	config(&c, "");
	c.terrain_on = true;
	c.terrain.field_alt_m = 3.0;             /* around home: where it arms */
	assert_int_equal(sim_world_init(&w, &c, &tl), -EINVAL);
	c.terrain.field_n_m = 120.0;             /* its bank ends 30 m short of home */
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	assert_near(sim_world_ground_m(&w), 0.0, 0.0);
	c.terrain.slope_deg = 20.0;              /* past a field's few degrees */
	assert_int_equal(sim_world_init(&w, &c, &tl), -EINVAL);
}

static void test_sim_unkind_the_beam_lengthens_with_the_attitude(void **state)
{
	double inc;
	struct v3 pos = v3_make(0.0, 0.0, -30.0);
	assert_near(sim_rangefinder_beam_m(NULL, pos, quat_from_euler(0, 0, 0), &inc), 30.0, 1e-9);
	assert_near(inc, 0.0, 1e-6);
	assert_near(sim_rangefinder_beam_m(NULL, pos, quat_from_euler(20 * DEG, 0, 1.0), &inc),
		    30.0 / cos(20 * DEG), 1e-9);
	assert_near(sim_rangefinder_beam_m(NULL, pos, quat_from_euler(10 * DEG, -15 * DEG, 0), &inc),
		    30.0 / (cos(10 * DEG) * cos(15 * DEG)), 1e-9);
	assert_near(inc, acos(cos(10 * DEG) * cos(15 * DEG)) / DEG, 1e-6);
	/* Pointing up: no ground ahead. */
	assert_true(sim_rangefinder_beam_m(NULL, pos, quat_from_euler(0, 100 * DEG, 0), &inc) < 0.0);
	/* Over a field 3 m up (that begins under the aircraft) the beam is 3 m shorter. */
	struct sim_terrain t;
	sim_terrain_default(&t);
	t.field_alt_m = 3.0;
	assert_near(sim_rangefinder_beam_m(&t, pos, quat_from_euler(0, 0, 0), &inc), 27.0, 1e-6);
	t.slope_deg = 5.0;                       /* rising to the north; pitched 5 up, the beam is normal to it */
	assert_near(sim_rangefinder_beam_m(&t, pos, quat_from_euler(0, 5 * DEG, 0), &inc), 27.0 * cos(5 * DEG),
		    1e-3);
	assert_near(inc, 0.0, 0.01);
}

/* n readings at a fixed pose: their mean and standard deviation (valid ones),
 * the fractions of no-returns and of readings more than 3 cm short. */
static void readings(const struct sim_rangefinder_config *c, double agl, double roll_deg, int n, double *mean,
		     double *sd, double *none, double *short_frac)
{
	struct sim_rangefinder r;
	sim_rangefinder_init(&r, c, 7);
	struct sim_rangefinder_reading rr;
	double s = 0.0, s2 = 0.0;
	int k = 0, nret = 0, nshort = 0;
	double truth = agl / cos(roll_deg * DEG);
	for (int i = 0; i < n; i++) {
		assert_true(sim_rangefinder_step(&r, NULL, v3_make(0, 0, -agl), quat_from_euler(roll_deg * DEG, 0, 0),
						 (uint64_t)i * 50000u, &rr));
		assert_near(rr.true_m, truth, 1e-9);
		if (!rr.valid) {
			nret++;
			assert_near(rr.distance_m, c->max_m + 0.01, 1e-9);
			assert_int_equal(rr.signal_quality, 1);
			continue;
		}
		assert_true(rr.signal_quality >= 10 && rr.signal_quality <= 100);
		s += rr.distance_m;
		s2 += rr.distance_m * rr.distance_m;
		nshort += rr.distance_m < truth - 0.03;
		k++;
	}
	*mean = k ? s / k : 0.0;
	*sd = k > 1 ? sqrt((s2 - s * s / k) / (k - 1)) : 0.0;
	*none = (double)nret / n;
	*short_frac = (double)nshort / n;
}

static void test_sim_unkind_the_rangefinder_reads_the_truth_within_its_noise(void **state)
{
	struct sim_rangefinder_config c;
	double mean, sd, none, shrt;
	assert_int_equal(sim_rangefinder_config_by_name("sf11", &c), 0);
	assert_near(c.min_m, 0.2, 0.0);
	assert_near(c.max_m, 120.0, 0.0);
	readings(&c, 30.0, 0.0, 4000, &mean, &sd, &none, &shrt);
	assert_near(mean, 30.0, 0.005);
	assert_near(sd, 0.05, 0.005);
	assert_near(none, 0.01, 0.006);
	/* Banked 25 degrees: the beam's length, not the height. */
	readings(&c, 30.0, 25.0, 2000, &mean, &sd, &none, &shrt);
	assert_near(mean, 30.0 / cos(25 * DEG), 0.006);
	/* Low over the grass: a fifth of the readings off its tops. */
	readings(&c, 1.5, 0.0, 4000, &mean, &sd, &none, &shrt);
	assert_near(mean, 1.5 - 0.2 * 0.05, 0.003);     /* a fifth short by 0-10 cm */
	/* Past its range, or banked past 45 degrees: nothing back. */
	readings(&c, 130.0, 0.0, 200, &mean, &sd, &none, &shrt);
	assert_near(none, 1.0, 0.0);
	readings(&c, 10.0, 50.0, 200, &mean, &sd, &none, &shrt);
	assert_near(none, 1.0, 0.0);
	/* The TFmini: 12 m at most, 1 % to 6 m */
	assert_int_equal(sim_rangefinder_config_by_name("tfmini", &c), 0);
	readings(&c, 10.0, 0.0, 4000, &mean, &sd, &none, &shrt);
	assert_near(mean, 10.0, 0.005);
	assert_near(sd, 0.05, 0.006);
	readings(&c, 12.5, 0.0, 200, &mean, &sd, &none, &shrt);
	assert_near(none, 1.0, 0.0);
	assert_int_equal(sim_rangefinder_config_by_name("sonar", &c), -ENOENT);
}

static void air_start(struct sim_world_config *c, double alt_m, double speed_m_s)
{
	c->air_start = true;
	c->air_start_alt_m = alt_m;
	c->air_start_speed_m_s = speed_m_s;
}

static void test_sim_unkind_the_worlds_rangefinder_at_20_hz_and_its_faults(void **state)
{
	struct sim_world_config c;
	config(&c, "2 dropout rangefinder 1\n4 freeze rangefinder 1\n6 bias rangefinder 0.5\n");
	air_start(&c, 40.0, 15.0);
	sim_rangefinder_config_for(SIM_RANGEFINDER_SF11, &c.rangefinder);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	int n = 0, in_dropout = 0;
	double frozen = -2.0;
	bool froze_held = true;
	double err_biased = 0.0;
	int n_biased = 0;
	while (sim_world_time_us(&w) < 7000000u) {
		sim_world_step(&w, &out);
		double t = (double)out.t_us * 1e-6;
		if (out.t_us == 2500000u) {
			/* the truth says nothing was sent */
			char r[2048];
			int k = sim_truth_csv_row(&w, NULL, r, sizeof(r));
			assert_true(k > 10 && k < (int)sizeof(r));
			assert_string_equal(r + k - 9, ",-1.000,\n");
		}
		if (!(out.fresh & SIM_OUT_RANGE))
			continue;
		if (t < 1.0) {
			n++;
			double truth = w.rangefinder_pub.true_m;
			if (w.rangefinder_pub.valid)
				assert_near(w.rangefinder_pub.distance_m, truth, 0.3);
			/* the beam's length from the aircraft's height and attitude */
			double roll, pitch, yaw;
			quat_to_euler(w.st.att, &roll, &pitch, &yaw);
			assert_near(truth, sim_world_agl_m(&w) / (cos(roll) * cos(pitch)), 1e-6);
		}
		if (t > 2.0 && t < 3.0)
			in_dropout++;
		if (t > 4.0 && t < 5.0) {
			if (frozen < -1.0)
				frozen = w.rangefinder_pub.distance_m;
			froze_held = froze_held && w.rangefinder_pub.distance_m == frozen;
		}
		if (t > 6.0 && w.rangefinder_pub.valid) {
			err_biased += w.rangefinder_pub.distance_m - w.rangefinder_pub.true_m;
			n_biased++;
		}
	}
	assert_int_equal(n, 20);                 /* 20 Hz */
	assert_int_equal(in_dropout, 0);
	assert_true(froze_held);
	assert_true(n_biased > 15);
	assert_near(err_biased / n_biased, 0.5, 0.05);
	char row[2048];
	assert_true(sim_truth_csv_header(&w, row, sizeof(row)) < (int)sizeof(row));
	assert_non_null(strstr(row, ",impact_m_s,ground_m,agl_m,rangefinder_true_m,rangefinder_m,events\n"));
}

static void test_sim_unkind_the_barometer_drifts_at_the_options_rate(void **state)
{
	/* The weather alone (no warm-up): 3 hPa an hour, falling, as a front comes. */
	struct sim_world_config c;
	config(&c, "");
	c.baro_drift_on = true;
	c.baro_weather_hpa_h = -3.0;
	c.baro_warm_k = 0.0;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	config(&c, "");
	assert_int_equal(sim_world_init(&w2, &c, &tl), 0);
	run_to(&w, 600.0);
	run_to(&w2, 600.0);
	/* The same world, the same draws: only the drift between them. */
	assert_near(w.pub.baro.pressure_pa - w2.pub.baro.pressure_pa, -300.0 / 3600.0 * 600.0, 0.05);
	assert_near(w.baro_err_pa, -50.0, 0.05);
	assert_near(w.pub.baro.temp_c, w2.pub.baro.temp_c, 1e-9);
	/* With the warm-up: 1.5 Pa/K over 12 K with 300 s. */
	config(&c, "");
	c.baro_drift_on = true;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	run_to(&w, 600.0);
	double warm = 12.0 * (1.0 - exp(-600.0 / 300.0));
	assert_near(w.pub.baro.pressure_pa - w2.pub.baro.pressure_pa, 1.5 * warm, 0.05);
	assert_near(w.pub.baro.temp_c - w2.pub.baro.temp_c, warm, 0.01);
	char row[2048];
	sim_truth_csv_header(&w, row, sizeof(row));
	assert_non_null(strstr(row, ",baro_err_pa,baro_err_m,events\n"));
	/* A time-line event sets the weather's rate from its time. */
	config(&c, "100 baro_drift 6\n");
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	run_to(&w, 400.0);
	assert_near(w.baro_err_pa, 600.0 / 3600.0 * 300.0, 0.05);
}

static void test_sim_unkind_compass_interference_grows_with_the_current(void **state)
{
	struct sim_world_config c;
	config(&c, "");
	c.mag_current_mgauss_a = v3_make(5.0, -2.0, 20.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	config(&c, "");
	assert_int_equal(sim_world_init(&w2, &c, &tl), 0);
	float ctl[SIM_ACTUATORS] = { 0 };
	run_to(&w, 1.0);
	run_to(&w2, 1.0);
	struct v3 d = v3_sub(w.pub.mag.field_gauss, w2.pub.mag.field_gauss);
	assert_near(v3_norm(d), 1e-3 * 20.5 * fabs(w.st.batt_current_a), 1e-6);   /* idle: next to nothing */
	ctl[SIM_CTL_THROTTLE] = 0.8f;
	assert_int_equal(sim_world_set_actuators(&w, ctl, 128, sim_world_time_us(&w)), 0);
	assert_int_equal(sim_world_set_actuators(&w2, ctl, 128, sim_world_time_us(&w2)), 0);
	run_to(&w, 1.5);
	run_to(&w2, 1.5);
	double amps = w.st.batt_current_a;
	assert_true(amps > 10.0);
	d = v3_sub(w.pub.mag.field_gauss, w2.pub.mag.field_gauss);
	/* The reading at the last compass sample, within a 10 ms sample's current change. */
	assert_near(d.z / (20e-3 * amps), 1.0, 0.02);
	assert_near(d.x / d.z, 5.0 / 20.0, 1e-6);
	assert_near(d.y / d.z, -2.0 / 20.0, 1e-6);
	char row[2048];
	sim_truth_csv_header(&w, row, sizeof(row));
	assert_non_null(strstr(row, ",mag_int_x_mgauss,mag_int_y_mgauss,mag_int_z_mgauss,events\n"));
}

/* The reading's mean and the spread of its error over [t0, t1), and the
 * true dynamic pressure's mean. */
static void pitot_stats(struct sim_world *x, double t0, double t1, double *mean, double *sd, double *q_mean,
			double *p_static_change)
{
	double s = 0, s2 = 0, q = 0, p0 = 0;
	int n = 0;
	while (sim_world_time_us(x) < (uint64_t)llround(t1 * 1e6)) {
		sim_world_step(x, &out);
		double t = (double)out.t_us * 1e-6;
		if (t < t0 || !(out.fresh & SIM_OUT_AIRSPEED))
			continue;
		if (n == 0)
			p0 = x->atm.pressure_pa;
		double dp = x->pub.airspeed.diff_pressure_pa;
		double va = x->st.airspeed_m_s * cos(x->st.alpha_rad) * cos(x->st.beta_rad);
		double qt = 0.5 * x->atm.density_kg_m3 * va * va;
		s += dp;
		s2 += (dp - qt) * (dp - qt);
		q += qt;
		n++;
	}
	*mean = s / n;
	*sd = sqrt(s2 / n);
	*q_mean = q / n;
	*p_static_change = x->atm.pressure_pa - p0;
}

static void test_sim_unkind_a_blocked_pitot_holds_then_creeps(void **state)
{
	struct sim_world_config c;
	double mean, sd, q, dps;
	/* Blocked without a leak: the trapped pressure against the static
	 * port's, so that in the glide's descent the reading falls by the
	 * static pressure's rise, whatever the airspeed does. */
	config(&c, "1 pitot block 0 0\n");
	air_start(&c, 200.0, 15.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	run_to(&w, 1.0);
	double dp0 = w.pub.airspeed.diff_pressure_pa, ps0 = w.atm.pressure_pa;
	pitot_stats(&w, 1.0, 11.0, &mean, &sd, &q, &dps);
	assert_near(w.pub.airspeed.diff_pressure_pa, dp0 - (w.atm.pressure_pa - ps0), 6.0);
	assert_true(w.atm.pressure_pa - ps0 > 30.0);     /* it did descend */
	/* With a 10 s leak: after 60 s the trapped pressure has gone, but
	 * for the static pressure's rise over the leak's time constant: a
	 * descending aircraft's blocked pitot reads below zero. */
	config(&c, "1 pitot block 0 10\n");
	air_start(&c, 300.0, 15.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	pitot_stats(&w, 61.0, 66.0, &mean, &sd, &q, &dps);
	assert_true(dps > 20.0);
	assert_near(mean, -10.0 * dps / 5.0, 12.0);
	assert_true(q > 80.0);                           /* while it flies at 12 m/s or more */
	/* A blocked port for 5 s, and its end said. */
	config(&c, "1 pitot block 5\n");
	air_start(&c, 200.0, 15.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	bool ended = false;
	while (sim_world_time_us(&w) < 7000000u) {
		sim_world_step(&w, &out);
		for (unsigned int i = 0; i < out.n_notes; i++)
			ended = ended || strstr(out.notes[i], "pitot block end") != NULL;
	}
	assert_true(ended);
}

/* The spread of the pitot's reading over [t0, t1). */
static double pitot_spread(struct sim_world *x, double t0, double t1)
{
	double s = 0, s2 = 0;
	int n = 0;
	while (sim_world_time_us(x) < (uint64_t)llround(t1 * 1e6)) {
		sim_world_step(x, &out);
		if ((double)out.t_us * 1e-6 < t0 || !(out.fresh & SIM_OUT_AIRSPEED))
			continue;
		double dp = x->pub.airspeed.diff_pressure_pa;
		s += dp;
		s2 += dp * dp;
		n++;
	}
	return sqrt((s2 - s * s / n) / (n - 1));
}

static void test_sim_unkind_a_blocked_pitot_stops_moving_in_a_gusty_wind(void **state)
{
	/* The cub held on its wheels in a turbulent 8 m/s: the pitot sees the
	 * gusts; blocked, its reading stops moving (its noise only), the
	 * static pressure being the same. */
	struct sim_world_config c;
	config(&c, "5 pitot block 0 0\n");
	sim_airframe_cub(&c.airframe);
	c.wind.speed_m_s = 8.0;
	c.wind.turb_w20_m_s = 15.4;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	double open = pitot_spread(&w, 0.5, 5.0);
	double blocked = pitot_spread(&w, 5.0, 15.0);
	assert_true(open > 5.0 * c.sensors.airspeed_noise_pa);
	assert_near(blocked, c.sensors.airspeed_noise_pa, 0.3);
}

static void test_sim_unkind_water_and_a_tube_off(void **state)
{
	struct sim_world_config c;
	double mean, sd, q, dps, mean_ok, sd_ok, q_ok;
	config(&c, "");
	air_start(&c, 200.0, 15.0);
	assert_int_equal(sim_world_init(&w2, &c, &tl), 0);
	pitot_stats(&w2, 1.0, 21.0, &mean_ok, &sd_ok, &q_ok, &dps);
	assert_near(mean_ok, q_ok, 0.5);
	config(&c, "1 pitot water 0\n");
	air_start(&c, 200.0, 15.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	pitot_stats(&w, 1.0, 21.0, &mean, &sd, &q, &dps);
	/* lower (0.7 of it between slugs, 0.1 in them), and far noisier */
	assert_true(mean < 0.75 * q && mean > 0.45 * q);
	assert_true(sd_ok < 2.0);
	assert_true(sd > 15.0);
	config(&c, "1 pitot off 0\n");
	air_start(&c, 200.0, 15.0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	pitot_stats(&w, 1.0, 21.0, &mean, &sd, &q, &dps);
	assert_near(mean, 0.0, 0.5);
	assert_true(sd > 0.8 * q);
	char row[2048];
	sim_truth_csv_header(&w, row, sizeof(row));
	assert_non_null(strstr(row, ",pitot_dp_pa,pitot_ias_m_s,events\n"));
}

static void test_sim_unkind_none_of_it_without_its_option(void **state)
{
	struct sim_world_config c;
	config(&c, "");
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	assert_int_equal(w.truth_cols, 0u);
	char row[2048];
	sim_truth_csv_header(&w, row, sizeof(row));
	assert_non_null(strstr(row, ",impact_m_s,events\n"));
	for (int i = 0; i < 3000; i++) {
		sim_world_step(&w, &out);
		assert_false(out.fresh & SIM_OUT_RANGE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_unkind_the_field_is_its_height_inside_banked_to_home_outside),
		cmocka_unit_test(test_sim_unkind_a_field_3_m_up_or_down_moves_the_ground_contact_3_m),
		cmocka_unit_test(test_sim_unkind_on_a_sloped_field_it_rests_along_the_slope),
		cmocka_unit_test(test_sim_unkind_a_field_over_home_is_refused),
		cmocka_unit_test(test_sim_unkind_the_beam_lengthens_with_the_attitude),
		cmocka_unit_test(test_sim_unkind_the_rangefinder_reads_the_truth_within_its_noise),
		cmocka_unit_test(test_sim_unkind_the_worlds_rangefinder_at_20_hz_and_its_faults),
		cmocka_unit_test(test_sim_unkind_the_barometer_drifts_at_the_options_rate),
		cmocka_unit_test(test_sim_unkind_compass_interference_grows_with_the_current),
		cmocka_unit_test(test_sim_unkind_a_blocked_pitot_holds_then_creeps),
		cmocka_unit_test(test_sim_unkind_a_blocked_pitot_stops_moving_in_a_gusty_wind),
		cmocka_unit_test(test_sim_unkind_water_and_a_tube_off),
		cmocka_unit_test(test_sim_unkind_none_of_it_without_its_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
