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

#define DEG (M_PI / 180.0)
#define STALL_M_S 9.0

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
	int legs;
};

/* Two laps of a 300 x 200 m rectangle at 80 m, airspeed demand 15 m/s. The
 * straight part of a leg is where the aircraft is at least 100 m past the
 * leg's start (the turn onto it and the capture are over) and has not begun
 * the next turn (sequencing happens about an L1 length before the corner). */
static void circuit(const struct flight_config *cfg, struct circuit_result *r)
{
	static const double corner[4][2] = { { 0, 0 }, { 300, 0 }, { 300, 200 }, { 0, 200 } };
	struct flight f;
	flight_init(&f, cfg);
	flight_trimmed(&f, 15.0, 80.0, 0.0, -150.0, 0.0);
	nav_set_airspeed(&f.nav, 15.0f);
	struct nav_wp wp[4];
	for (int i = 0; i < 4; i++)
		wp[i] = flight_wp(&f, corner[i][0], corner[i][1], 80.0f);
	int leg = 0;   /* leg k: corner k%4 -> corner (k+1)%4 */
	nav_set_leg(&f.nav, &wp[0], &wp[1], &wp[2]);
	struct stat xt = { 0 }, alt = { 0 };
	memset(r, 0, sizeof(*r));
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
	       "height RMS %.2f m; airspeed error max %.2f m/s, min %.2f m/s; bank max %.1f deg\n",
	       what, r->legs, r->xtrack_rms, r->xtrack_max, r->alt_rms, r->aspd_err_max, r->aspd_min,
	       r->bank_max_deg);
}

static void test_circuit_300_by_200_in_5_m_s_crosswind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 5.0, .wind_from_deg = 90.0, .control_hz = 50 };
	struct circuit_result r;
	circuit(&cfg, &r);
	print_circuit("5 m/s wind", &r);
	assert_int_equal(r.legs, 8);
	assert_true(r.xtrack_rms < 3.0);
	assert_true(r.alt_rms < 2.0);
	assert_true(r.aspd_err_max < 1.5);
	assert_true(r.aspd_min > 1.2 * STALL_M_S);
	assert_true(r.bank_max_deg < 45.0 + 2.0);
}

static void test_circuit_300_by_200_in_10_m_s_turbulent_wind(void **state)
{
	(void)state;
	struct flight_config cfg = { .wind_m_s = 10.0, .wind_from_deg = 60.0, .turb_w20_m_s = 7.7,
				     .control_hz = 50, .seed = 7 };
	struct circuit_result r;
	circuit(&cfg, &r);
	print_circuit("10 m/s wind + turbulence", &r);
	assert_int_equal(r.legs, 8);
	assert_true(r.xtrack_rms < 6.0);
	assert_true(r.alt_rms < 4.0);
	assert_true(r.aspd_min > STALL_M_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fbwa_holds_bank_30_and_pitch_5),
		cmocka_unit_test(test_fbwa_centred_sticks_hold_wings_level),
		cmocka_unit_test(test_fbwa_turbulence_bounded),
		cmocka_unit_test(test_loiter_60m_circle_in_5_m_s_wind),
		cmocka_unit_test(test_loiter_60m_circle_in_10_m_s_turbulent_wind),
		cmocka_unit_test(test_circuit_300_by_200_in_5_m_s_crosswind),
		cmocka_unit_test(test_circuit_300_by_200_in_10_m_s_turbulent_wind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
