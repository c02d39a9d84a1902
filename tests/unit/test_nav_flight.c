// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Closed-loop flights: fulmar's navigation and control flying the simulator's
 * 6-DOF model on its true state (tests/unit/flight_harness.c). Each test prints
 * what it measured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flight_harness.h"
#include "nav/nav_math.h"
#include "perf.h"

#define DEG (M_PI / 180.0)

struct stat {
	double sum2;
	long n;
	double max_abs;
};

static void stat_add(struct stat *s, double x)
{
	s->sum2 += x * x;
	s->n++;
	if (fabs(x) > s->max_abs)
		s->max_abs = fabs(x);
}

static double stat_rms(const struct stat *s)
{
	return s->n ? sqrt(s->sum2 / (double)s->n) : 0.0;
}

static double deg(float rad)
{
	return (double)rad / DEG;
}

/*
 * The stall of the airframe that flies, measured from its model as fulmar-sim
 * --figures measures it (tools/sim/perf.h), not a copy of the figure. At
 * sea-level density: the airspeed the harness hands fulmar, and these tests
 * hold against the stall, is the equivalent airspeed (flight_harness.c),
 * which stalls at the same figure at any height (9.68 m/s for the skywalker,
 * whose 9.96 m/s is the true airspeed at the field's 584 m).
 */
static double stall_eas_m_s(const struct sim_airframe *af)
{
	double vs = 0.0;
	assert_int_equal(sim_perf_stall_speed(af, SIM_RHO0_KG_M3, &vs), 0);
	return vs;
}

/* ---- FBWA: attitude holds ---- */

static void fbwa_hold(const struct flight_config *cfg, double roll_deg, double pitch_deg,
		      double *roll_err_max, double *pitch_err_max)
{
	struct flight f;
	flight_init(&f, cfg);
	flight_trimmed(&f, 15.0, 100.0, 0.0, 0.0, 0.0);
	f.attitude_only = true;
	f.roll_dem_rad = (float)(roll_deg * DEG);
	f.pitch_dem_rad = (float)(pitch_deg * DEG);
	f.throttle_dem = 0.7f;
	*roll_err_max = 0.0;
	*pitch_err_max = 0.0;
	int n = (int)(15.0 / f.dt_ctl);
	for (int i = 0; i < n; i++) {
		flight_step(&f);
		if (i * f.dt_ctl < 4.0)
			continue;   /* settling */
		double er = fabs(deg(f.vs.roll_rad) - roll_deg);
		double ep = fabs(deg(f.vs.pitch_rad) - pitch_deg);
		if (er > *roll_err_max)
			*roll_err_max = er;
		if (ep > *pitch_err_max)
			*pitch_err_max = ep;
		assert_false(f.s.crashed);
	}
}

static void test_fbwa_holds_bank_30_and_pitch_5(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	double er, ep;
	fbwa_hold(&cfg, 30.0, 5.0, &er, &ep);
	printf("# FBWA bank 30 pitch 5, 5 m/s wind: max roll error %.2f deg, max pitch error %.2f deg\n",
	       er, ep);
	assert_true(er < 2.0);
	assert_true(ep < 2.0);
	fbwa_hold(&cfg, -30.0, 5.0, &er, &ep);
	printf("# FBWA bank -30 pitch 5: max roll error %.2f deg, max pitch error %.2f deg\n", er, ep);
	assert_true(er < 2.0);
	assert_true(ep < 2.0);
}

static void test_fbwa_centred_sticks_hold_wings_level(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	double er, ep;
	fbwa_hold(&cfg, 0.0, 0.0, &er, &ep);
	printf("# FBWA centred sticks: max roll error %.2f deg, max pitch error %.2f deg\n", er, ep);
	assert_true(er < 2.0);
	assert_true(ep < 2.0);
}

static void test_fbwa_holds_at_400_hz_too(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 400 };
	double er, ep;
	fbwa_hold(&cfg, 30.0, 5.0, &er, &ep);
	printf("# FBWA bank 30 pitch 5 at 400 Hz: max roll error %.2f deg, max pitch error %.2f deg\n",
	       er, ep);
	assert_true(er < 2.0);
	assert_true(ep < 2.0);
}

static void test_fbwa_turbulence_bounded(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 90.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 3 };
	double er, ep;
	fbwa_hold(&cfg, 30.0, 5.0, &er, &ep);
	printf("# FBWA bank 30 pitch 5, 10 m/s + light turbulence: max roll error %.2f, pitch %.2f deg\n",
	       er, ep);
	assert_true(er < 10.0);
	assert_true(ep < 10.0);
}


/* A roll from 30 degrees right to 30 left at 15 m/s; peak and final sideslip. */
static void roll_reversal(float slip, float integ, float damp, float mix, double *beta_peak_deg,
			  double *beta_end_deg)
{
	struct flight_config cfg = { .control_hz = 50 };
	struct flight f;
	flight_init(&f, &cfg);
	flight_trimmed(&f, 15.0, 100.0, 0.0, 0.0, 0.0);
	f.attitude_only = true;
	f.cp.yaw2srv_slip = slip;
	f.cp.yaw2srv_int = integ;
	f.cp.yaw2srv_damp = damp;
	f.cp.kff_rddrmix = mix;
	f.roll_dem_rad = (float)(30.0 * DEG);
	f.pitch_dem_rad = (float)(5.0 * DEG);
	f.throttle_dem = 0.7f;
	*beta_peak_deg = 0.0;
	for (int i = 0; i < (int)(15.0 / f.dt_ctl); i++) {
		if (i == (int)(4.0 / f.dt_ctl))
			f.roll_dem_rad = (float)(-30.0 * DEG);
		flight_step(&f);
		assert_false(f.s.crashed);
		if (fabs(f.s.beta_rad) / DEG > *beta_peak_deg)
			*beta_peak_deg = fabs(f.s.beta_rad) / DEG;
	}
	*beta_end_deg = f.s.beta_rad / DEG;
}

static void test_turn_coordination_rudder_mix_and_yaw_controller(void **state)
{
	(void)state;
	double none_peak, none_end, mix_peak, mix_end, yaw_peak, yaw_end;
	roll_reversal(0.0f, 0.0f, 0.0f, 0.0f, &none_peak, &none_end);
	roll_reversal(0.0f, 0.0f, 0.0f, 0.5f, &mix_peak, &mix_end);
	roll_reversal(1.0f, 1.0f, 0.5f, 0.5f, &yaw_peak, &yaw_end);
	printf("# roll reversal 30 -> -30 deg, sideslip peak / steady: no rudder %.1f / %.2f deg, "
	       "KFF_RDDRMIX 0.5 %.1f / %.2f deg, + YAW2SRV_SLIP 1 INT 1 DAMP 0.5 %.1f / %.2f deg\n",
	       none_peak, none_end, mix_peak, mix_end, yaw_peak, yaw_end);
	/* the aileron-rudder mix takes out most of the adverse yaw; the
	 * lateral-acceleration integrator the steady slip of the turn */
	assert_true(mix_peak < 0.5 * none_peak);
	assert_true(yaw_peak <= mix_peak);
	assert_true(fabs(yaw_end) < 0.5 * fabs(mix_end));
}

/* ---- loiter ---- */

static void loiter(const struct flight_config *cfg, int direction, double *rms, double *max_err)
{
	struct flight f;
	flight_init(&f, cfg);
	/* 250 m south-west of the centre, heading away from it */
	flight_trimmed(&f, 15.0, 80.0, 225.0, -180.0, -180.0);
	struct nav_wp c = flight_wp(&f, 0.0, 0.0, 80.0f);
	nav_set_loiter(&f.nav, &c, 60.0f, direction);
	struct stat st = { 0 };
	int n = (int)(150.0 / f.dt_ctl);
	for (int i = 0; i < n; i++) {
		flight_step(&f);
		assert_false(f.s.crashed);
		/* two minutes to come round, capture and settle: then two laps */
		if (i * f.dt_ctl < 90.0)
			continue;
		struct nav_ne p = flight_pos(&f);
		stat_add(&st, hypot(p.n_m, p.e_m) - 60.0);
	}
	*rms = stat_rms(&st);
	*max_err = st.max_abs;
}

static void test_loiter_60m_circle_in_5_m_s_wind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	double rms, mx;
	loiter(&cfg, 1, &rms, &mx);
	printf("# loiter 60 m clockwise, 5 m/s wind: radius error RMS %.2f m, max %.2f m\n", rms, mx);
	assert_true(rms < 5.0);
	loiter(&cfg, -1, &rms, &mx);
	printf("# loiter 60 m anticlockwise, 5 m/s wind: radius error RMS %.2f m, max %.2f m\n", rms, mx);
	assert_true(rms < 5.0);
}

static void test_loiter_60m_circle_in_10_m_s_turbulent_wind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 200.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 5 };
	double rms, mx;
	loiter(&cfg, 1, &rms, &mx);
	printf("# loiter 60 m, 10 m/s wind + turbulence: radius error RMS %.2f m, max %.2f m\n", rms, mx);
	/* downwind at 25 m/s over the ground a 60 m circle needs 47 degrees of
	 * bank, past the 45 degree limit: it is blown wide there, by design */
	assert_true(rms < 12.0);
}

/* ---- a rectangular circuit ---- */

struct circuit_result {
	double xtrack_rms, xtrack_max, alt_rms, aspd_err_max, aspd_min, bank_max_deg;
	double stall_m_s;          /* the airframe's (stall_eas_m_s) */
	int legs;
};

/* Two laps of a 300 x 200 m rectangle at 80 m, airspeed demand 15 m/s. The
 * straight part of a leg is where the aircraft is at least 100 m past the
 * leg's start (the turn onto it and the capture are over) and has not begun
 * the next turn (sequencing happens about an L1 length before the corner). */
static void circuit(const struct flight_config *cfg, bool no_airspeed, struct circuit_result *r)
{
	static const double corner[4][2] = { { 0, 0 }, { 300, 0 }, { 300, 200 }, { 0, 200 } };
	struct flight f;
	flight_init(&f, cfg);
	f.no_airspeed = no_airspeed;
	flight_trimmed(&f, 15.0, 80.0, 0.0, -150.0, 0.0);
	nav_set_airspeed(&f.nav, 15.0f);
	struct nav_wp wp[4];
	for (int i = 0; i < 4; i++)
		wp[i] = flight_wp(&f, corner[i][0], corner[i][1], 80.0f);
	int leg = 0;   /* leg k: corner k%4 -> corner (k+1)%4 */
	nav_set_leg(&f.nav, &wp[0], &wp[1], &wp[2]);
	struct stat xt = { 0 }, alt = { 0 };
	memset(r, 0, sizeof(*r));
	r->stall_m_s = stall_eas_m_s(&f.af);
	r->aspd_min = 1e9;
	int n = (int)(200.0 / f.dt_ctl);
	for (int i = 0; i < n && leg < 8; i++) {
		flight_step(&f);
		assert_false(f.s.crashed);
		if (f.nav_out.wp_reached) {
			leg++;
			nav_set_leg(&f.nav, &wp[leg % 4], &wp[(leg + 1) % 4], &wp[(leg + 2) % 4]);
			continue;
		}
		struct nav_ne a = { (float)corner[leg % 4][0], (float)corner[leg % 4][1] };
		struct nav_ne b = { (float)corner[(leg + 1) % 4][0], (float)corner[(leg + 1) % 4][1] };
		struct nav_ne p = flight_pos(&f);
		float along = nav_geo_along_m(a, b, p);
		if (along >= 100.0f && nav_geo_distance_m(p, b) > f.nav.l1.l1_dist_m)
			stat_add(&xt, nav_geo_xtrack_m(a, b, p));
		if (i * f.dt_ctl < 20.0)
			continue;    /* joining the circuit */
		stat_add(&alt, flight_height(&f) - 80.0);
		/* the true airspeed, sensor or not */
		double ae = fabs((double)f.vs.airspeed_m_s - 15.0);
		if (ae > r->aspd_err_max)
			r->aspd_err_max = ae;
		if ((double)f.vs.airspeed_m_s < r->aspd_min)
			r->aspd_min = f.vs.airspeed_m_s;
		if (fabs(deg(f.vs.roll_rad)) > r->bank_max_deg)
			r->bank_max_deg = fabs(deg(f.vs.roll_rad));
	}
	r->legs = leg;
	r->xtrack_rms = stat_rms(&xt);
	r->xtrack_max = xt.max_abs;
	r->alt_rms = stat_rms(&alt);
}

static void print_circuit(const char *what, const struct circuit_result *r)
{
	printf("# circuit, %s: %d legs; straight-leg cross-track RMS %.2f m (max %.2f); "
	       "height RMS %.2f m; airspeed error max %.2f m/s, min %.2f m/s (%.2f x the stall, "
	       "%.2f m/s); bank max %.1f deg\n",
	       what, r->legs, r->xtrack_rms, r->xtrack_max, r->alt_rms, r->aspd_err_max, r->aspd_min,
	       r->aspd_min / r->stall_m_s, r->stall_m_s, r->bank_max_deg);
}

static void test_circuit_300_by_200_in_5_m_s_crosswind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct circuit_result r;
	circuit(&cfg, false, &r);
	print_circuit("5 m/s wind", &r);
	assert_int_equal(r.legs, 8);
	assert_true(r.xtrack_rms < 3.0);
	assert_true(r.alt_rms < 2.0);
	assert_true(r.aspd_err_max < 1.5);
	assert_true(r.aspd_min > 1.2 * r.stall_m_s);
	assert_true(r.bank_max_deg < 45.0 + 2.0);
}

static void test_circuit_300_by_200_in_10_m_s_turbulent_wind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 60.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 7 };
	struct circuit_result r;
	circuit(&cfg, false, &r);
	print_circuit("10 m/s wind + turbulence", &r);
	assert_int_equal(r.legs, 8);
	assert_true(r.xtrack_rms < 6.0);
	assert_true(r.alt_rms < 4.0);
	assert_true(r.aspd_min > r.stall_m_s);
}

static void test_circuit_without_an_airspeed_sensor(void **state)
{
	(void)state;
	/* TECS flies height by pitch and throttle from the pitch; the controllers
	 * scale by the throttle */
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct circuit_result r;
	circuit(&cfg, true, &r);
	print_circuit("5 m/s wind, no airspeed sensor", &r);
	assert_int_equal(r.legs, 8);
	assert_true(r.xtrack_rms < 3.0);
	assert_true(r.alt_rms < 3.0);
	assert_true(r.aspd_min > 1.2 * r.stall_m_s);
	assert_true(r.bank_max_deg < 45.0 + 2.0);
}

/* ---- hand launch ---- */

struct launch_result {
	double t_launch_s;         /* detector fired, from the start of the throw */
	double t_climb_s;          /* release to the takeoff altitude */
	double pitch_min_deg, pitch_mean_deg, bank_max_deg, aspd_min;
	double stall_m_s;          /* the airframe's (stall_eas_m_s) */
	bool suppressed_before_throw;
	bool complete;
};

/*
 * A thrower holds the aircraft still for 1 s, then throws it: 20 m/s^2 for
 * 0.55 s to 11 m/s at 10 degrees nose up, 1.8 m above the ground; then the
 * simulator takes over (sim_state_hand_launch). TKOFF_THR_MINACC 15 m/s^2 and
 * TKOFF_THR_MINSPD 4 m/s, as recommended for a hand launch.
 */
static void hand_launch(const struct flight_config *cfg, struct launch_result *r)
{
	const double throw_acc = 20.0, release_v = 11.0, pitch0 = 10.0, tkoff_pitch = 15.0;
	struct flight f;
	flight_init(&f, cfg);
	f.np.launch.tkoff_thr_minacc = 15.0f;
	f.np.launch.tkoff_thr_minspd = 4.0f;
	nav_set_takeoff(&f.nav, (float)tkoff_pitch, 50.0f);
	memset(r, 0, sizeof(*r));
	r->t_launch_s = -1.0;
	r->suppressed_before_throw = true;

	double t = 0.0, v = 0.0;
	const double t_throw = 1.0;
	while (v < release_v) {
		bool throwing = t >= t_throw;
		if (throwing)
			v += throw_acc * f.dt_ctl;
		sim_state_hand_launch(&f.af, &f.s, v, pitch0, 0.0, 1.8);
		f.s.t_s = t;
		flight_truth(&f, &f.vs, f.accel_body);
		/* what the IMU feels in the hand: the throw plus gravity */
		f.accel_body[0] = (float)((throwing ? throw_acc : 0.0) + 9.80665 * sin(pitch0 * DEG));
		f.accel_body[2] = (float)(-9.80665 * cos(pitch0 * DEG));
		f.vs.airspeed_m_s = (float)v;
		nav_update(&f.nav, &f.np, &f.vs, f.accel_body, (float)f.dt_ctl, &f.nav_out);
		if (!throwing && (!f.nav_out.throttle_suppressed || f.nav_out.throttle > 0.0f))
			r->suppressed_before_throw = false;
		if (f.nav_out.launched && r->t_launch_s < 0.0)
			r->t_launch_s = t - t_throw;
		t += f.dt_ctl;
	}
	/* released */
	sim_state_hand_launch(&f.af, &f.s, release_v, pitch0, 0.0, 1.8);
	f.s.t_s = t;
	double t_release = t, pitch_sum = 0.0;
	long n_pitch = 0;
	r->pitch_min_deg = 90.0;
	r->aspd_min = 1e9;
	r->stall_m_s = stall_eas_m_s(&f.af);
	for (int i = 0; i < (int)(40.0 / f.dt_ctl); i++) {
		flight_step(&f);
		assert_false(f.s.crashed);
		assert_false(f.s.on_ground);
		if (f.nav_out.takeoff_complete) {
			r->complete = true;
			r->t_climb_s = f.s.t_s - t_release;
			break;
		}
		if ((double)f.vs.airspeed_m_s < r->aspd_min)
			r->aspd_min = f.vs.airspeed_m_s;
		if (fabs(deg(f.vs.roll_rad)) > r->bank_max_deg)
			r->bank_max_deg = fabs(deg(f.vs.roll_rad));
		if (f.s.t_s - t_release < 3.0)
			continue;   /* rotating to the climb attitude */
		double pd = deg(f.vs.pitch_rad);
		if (pd < r->pitch_min_deg)
			r->pitch_min_deg = pd;
		pitch_sum += pd;
		n_pitch++;
	}
	r->pitch_mean_deg = n_pitch ? pitch_sum / (double)n_pitch : 0.0;
}

static void check_launch(const char *what, const struct launch_result *r)
{
	printf("# hand launch, %s: launch detected %.2f s into the throw; 50 m %.1f s after release; "
	       "climb pitch min %.1f mean %.1f deg (takeoff pitch 15); bank max %.1f deg; "
	       "airspeed min %.2f m/s (%.2f x the stall, %.2f m/s)\n",
	       what, r->t_launch_s, r->t_climb_s, r->pitch_min_deg, r->pitch_mean_deg, r->bank_max_deg,
	       r->aspd_min, r->aspd_min / r->stall_m_s, r->stall_m_s);
	assert_true(r->suppressed_before_throw);
	/* TKOFF_THR_DELAY 0.2 s after the acceleration crossed 15 m/s^2 */
	assert_true(r->t_launch_s >= 0.2 && r->t_launch_s < 0.3);
	assert_true(r->complete);
	assert_true(r->t_climb_s < 30.0);
	assert_true(r->pitch_min_deg > 15.0 - 2.0);
	assert_true(r->bank_max_deg < 5.0 + 2.0);
	assert_true(r->aspd_min > r->stall_m_s);
}

static void test_hand_launch_climbs_out_to_50m_in_5_m_s_crosswind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct launch_result r;
	hand_launch(&cfg, &r);
	check_launch("5 m/s crosswind", &r);
}

static void test_hand_launch_climbs_out_in_10_m_s_turbulent_wind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 60.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 11 };
	struct launch_result r;
	hand_launch(&cfg, &r);
	printf("# hand launch, 10 m/s + turbulence: launch %.2f s; 50 m %.1f s after release; "
	       "pitch min %.1f mean %.1f; bank max %.1f; airspeed min %.2f (%.2f x the stall, %.2f)\n",
	       r.t_launch_s, r.t_climb_s, r.pitch_min_deg, r.pitch_mean_deg, r.bank_max_deg, r.aspd_min,
	       r.aspd_min / r.stall_m_s, r.stall_m_s);
	assert_true(r.complete);
	assert_true(r.aspd_min > r.stall_m_s);
}

/* ---- approach and landing ---- */

struct land_result {
	double along_m, cross_m;   /* touchdown from the land point */
	double sink_m_s;           /* vertical speed at the first contact */
	double bank_flare_max_deg;  /* from 1 s into the flare (rolling level) to touchdown */
	bool flared, touched, crashed;
	bool rf_engaged;           /* the rangefinder still in use at the end */
};

/* Land at home heading north after a 350 m approach from 30 m at airspeed va;
 * the estimate's height alt_bias_m above the truth, and a downward
 * rangefinder of range rf_max_m (0: none) with RNGFND_LANDING 1. */
static void land_rf(const struct flight_config *cfg, double va, float alt_bias_m, float rf_max_m,
		    struct land_result *r)
{
	struct flight f;
	flight_init(&f, cfg);
	f.alt_bias_m = alt_bias_m;
	f.rf_max_m = rf_max_m;
	f.np.rngfnd_landing = rf_max_m > 0.0f ? 1.0f : 0.0f;
	flight_trimmed(&f, va, 30.0, 0.0, -450.0, 0.0);
	nav_set_airspeed(&f.nav, (float)va);
	struct nav_wp approach = flight_wp(&f, -350.0, 0.0, 30.0f);
	struct nav_wp point = flight_wp(&f, 0.0, 0.0, 0.0f);
	nav_set_land(&f.nav, &approach, &point);
	memset(r, 0, sizeof(*r));
	double t_flare = -1.0;
	for (int i = 0; i < (int)(90.0 / f.dt_ctl); i++) {
		flight_step(&f);
		if (f.nav_out.flaring && t_flare < 0.0)
			t_flare = f.s.t_s;
		r->flared = t_flare >= 0.0;
		if (r->flared && f.s.t_s - t_flare > 1.0 && !r->touched) {
			if (fabs(deg(f.vs.roll_rad)) > r->bank_flare_max_deg)
				r->bank_flare_max_deg = fabs(deg(f.vs.roll_rad));
		}
		if (f.s.on_ground && !r->touched) {
			r->touched = true;
			r->along_m = f.s.pos_ned_m.x;
			r->cross_m = f.s.pos_ned_m.y;
			r->sink_m_s = f.s.impact_speed_max_m_s;
		}
		if (r->touched && v3_norm(f.s.vel_ned_m_s) < 0.5)
			break;
	}
	r->crashed = f.s.crashed;
	r->rf_engaged = f.nav.rf.in_use;
}

static void land(const struct flight_config *cfg, double va, struct land_result *r)
{
	land_rf(cfg, va, 0.0f, 0.0f, r);
}

static void print_land(const char *what, const struct land_result *r)
{
	printf("# landing, %s: touchdown %.1f m along, %.1f m across from the point; impact %.2f m/s; "
	       "bank in the flare max %.1f deg%s\n",
	       what, r->along_m, r->cross_m, r->sink_m_s, r->bank_flare_max_deg,
	       r->crashed ? " CRASHED" : "");
}

static void test_land_on_the_point_in_5_m_s_crosswind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct land_result r;
	land(&cfg, 13.0, &r);
	print_land("5 m/s crosswind, approach at 13 m/s", &r);
	assert_true(r.flared);
	assert_true(r.touched);
	assert_false(r.crashed);
	assert_true(fabs(r.along_m) < 10.0);
	assert_true(fabs(r.cross_m) < 3.0);
	assert_true(r.bank_flare_max_deg < 5.0 + 1.0);   /* LEVEL_ROLL_LIMIT */
}

static void test_land_near_the_point_in_10_m_s_turbulent_wind(void **state)
{
	(void)state;
	/* into the wind, 20 degrees off the runway, approach speed plus half the
	 * wind as a pilot would */
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 20.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 13 };
	struct land_result r;
	land(&cfg, 16.0, &r);
	print_land("10 m/s wind 20 degrees off the nose + turbulence, approach at 16 m/s", &r);
	assert_true(r.touched);
	assert_false(r.crashed);
	assert_true(hypot(r.along_m, r.cross_m) < 20.0);
}

/* The estimate 3 m high (a baro that drifted, a GPS height) flies the
 * approach 3 m low and touches down short; a rangefinder (a TFmini's 12 m,
 * RNGFND_LANDING 1) puts it back on the point. And 3 m low, long. */
static void test_land_on_a_rangefinder_when_the_height_is_3_m_off(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct land_result hi, hi_rf, lo, lo_rf, calm;
	land_rf(&cfg, 13.0, 3.0f, 0.0f, &hi);
	land_rf(&cfg, 13.0, 3.0f, 12.0f, &hi_rf);
	land_rf(&cfg, 13.0, -3.0f, 0.0f, &lo);
	land_rf(&cfg, 13.0, -3.0f, 12.0f, &lo_rf);
	land_rf(&cfg, 13.0, 0.0f, 12.0f, &calm);
	print_land("height 3 m high, no rangefinder", &hi);
	print_land("height 3 m high, rangefinder", &hi_rf);
	print_land("height 3 m low, no rangefinder", &lo);
	print_land("height 3 m low, rangefinder", &lo_rf);
	print_land("height right, rangefinder", &calm);
	assert_true(hi_rf.touched && lo_rf.touched && calm.touched);
	assert_false(hi_rf.crashed || lo_rf.crashed || calm.crashed);
	assert_true(hi_rf.rf_engaged && lo_rf.rf_engaged && calm.rf_engaged);
	/* without it the error moves the touchdown tens of metres */
	assert_true(hi.along_m < -20.0 || !hi.touched || hi.crashed);
	assert_true(lo.along_m > 20.0);
	/* with it, as close as with the right height */
	assert_true(fabs(hi_rf.along_m) < 10.0);
	assert_true(fabs(lo_rf.along_m) < 10.0);
	assert_true(fabs(calm.along_m) < 10.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fbwa_holds_bank_30_and_pitch_5),
		cmocka_unit_test(test_fbwa_centred_sticks_hold_wings_level),
		cmocka_unit_test(test_fbwa_holds_at_400_hz_too),
		cmocka_unit_test(test_fbwa_turbulence_bounded),
		cmocka_unit_test(test_turn_coordination_rudder_mix_and_yaw_controller),
		cmocka_unit_test(test_loiter_60m_circle_in_5_m_s_wind),
		cmocka_unit_test(test_loiter_60m_circle_in_10_m_s_turbulent_wind),
		cmocka_unit_test(test_circuit_300_by_200_in_5_m_s_crosswind),
		cmocka_unit_test(test_circuit_300_by_200_in_10_m_s_turbulent_wind),
		cmocka_unit_test(test_circuit_without_an_airspeed_sensor),
		cmocka_unit_test(test_hand_launch_climbs_out_to_50m_in_5_m_s_crosswind),
		cmocka_unit_test(test_hand_launch_climbs_out_in_10_m_s_turbulent_wind),
		cmocka_unit_test(test_land_on_the_point_in_5_m_s_crosswind),
		cmocka_unit_test(test_land_near_the_point_in_10_m_s_turbulent_wind),
		cmocka_unit_test(test_land_on_a_rangefinder_when_the_height_is_3_m_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
