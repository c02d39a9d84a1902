// SPDX-License-Identifier: GPL-3.0-or-later
/* The world magnetic model: fulmard's interpolated table (src/nav/wmm.c)
 * against the full model's values at scattered places (wmm_points.h, made by
 * tools/wmm/wmm_gen.py), and fulmar-sim's own full evaluation
 * (tools/sim/wmm_field.c) against NOAA's published test values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>

#include "nav/wmm.h"
#include "wmm_field.h"
#include "wmm_points.h"

#define NPTS (sizeof(wmm_points) / sizeof(wmm_points[0]))
#define CAUTION_H_NT 6000.0

static double angle_diff(double a, double b)
{
	double d = fmod(a - b + 540.0, 360.0) - 180.0;
	return fabs(d);
}

static void test_wmm_lookup_is_within_its_documented_accuracy_of_the_full_model(void **state)
{
	(void)state;
	unsigned int n = 0, within = 0;
	for (size_t k = 0; k < NPTS; k++) {
		const double *p = wmm_points[k];
		float d, i, f;
		assert_int_equal(wmm_lookup(p[0], p[1], &d, &i, &f), 0);
		if (p[5] < CAUTION_H_NT)
			continue;
		n++;
		double ed = angle_diff(d, p[2]);
		/* docs/estimator.md: at most 3.5 deg, 95 % within 0.3 deg; inclination
		 * within 0.5 deg, intensity within 1 % */
		assert_true(ed <= 3.5);
		within += ed <= 0.3;
		assert_true(fabs((double)i - p[3]) <= 0.5);
		assert_true(fabs((double)f - p[4]) <= 0.01 * p[4]);
	}
	assert_true(n > 150);
	assert_true(within >= 0.95 * n);
}

static void test_wmm_lookup_gives_the_field_at_places_people_fly(void **state)
{
	(void)state;
	/* the first rows of wmm_points.h: the CMAC field, Anchorage, Johannesburg,
	 * the South Island, Ushuaia, Tromso, Fairbanks: within 0.5 deg and 1 % */
	for (size_t k = 0; k < 7; k++) {
		const double *p = wmm_points[k];
		float d, i, f;
		assert_int_equal(wmm_lookup(p[0], p[1], &d, &i, &f), 0);
		assert_true(angle_diff(d, p[2]) < 0.5);
		assert_true(fabs((double)i - p[3]) < 0.5);
		assert_true(fabs((double)f - p[4]) < 0.01 * p[4]);
	}
	float d;
	assert_int_equal(wmm_lookup(-35.363261, 149.165230, &d, NULL, NULL), 0);
	assert_true(d > 11.0f && d < 14.0f);   /* east, as charts of Canberra show */
}

static void test_wmm_lookup_is_continuous_across_the_date_line_and_wraps_longitude(void **state)
{
	(void)state;
	for (double lat = -85.0; lat <= 85.0; lat += 2.5) {
		float a[3], b[3], c[3];
		assert_int_equal(wmm_lookup(lat, 179.999, &a[0], &a[1], &a[2]), 0);
		assert_int_equal(wmm_lookup(lat, -179.999, &b[0], &b[1], &b[2]), 0);
		assert_int_equal(wmm_lookup(lat, 180.001 + 360.0, &c[0], &c[1], &c[2]), 0);
		assert_true(angle_diff(a[0], b[0]) < 0.05);
		assert_true(fabs(a[1] - b[1]) < 0.05);
		assert_true(fabs(a[2] - b[2]) < 1e-4);
		assert_true(angle_diff(b[0], c[0]) < 0.05);
		float e, w;
		assert_int_equal(wmm_lookup(lat, 180.0, &e, NULL, NULL), 0);
		assert_int_equal(wmm_lookup(lat, -180.0, &w, NULL, NULL), 0);
		assert_true(angle_diff(e, w) < 1e-3);
	}
}

static void test_wmm_lookup_interpolates_declination_the_short_way_near_the_poles(void **state)
{
	(void)state;
	/* at every cell's centre, near the poles too, the declination lies among
	 * its corners' taken as angles (corners either side of +-180 would
	 * average to about 0 if mixed as numbers) */
	unsigned int straddling = 0;
	for (int i = 0; i < WMM_TABLE_LATS - 1; i++) {
		for (int j = 0; j < WMM_TABLE_LONS - 1; j++) {
			double c[4] = { wmm_table[i][j][0] * 0.01, wmm_table[i][j + 1][0] * 0.01,
					 wmm_table[i + 1][j][0] * 0.01, wmm_table[i + 1][j + 1][0] * 0.01 };
			double spread = 0.0, lo = 0.0, hi = 0.0;
			for (int k = 1; k < 4; k++) {
				double d = fmod(c[k] - c[0] + 540.0, 360.0) - 180.0;
				lo = fmin(lo, d);
				hi = fmax(hi, d);
				spread = fmax(spread, fabs(c[k] - c[0]));
			}
			if (hi - lo > 180.0)
				continue;   /* around a pole itself: no short way */
			straddling += spread > 180.0;
			float d;
			double lat = -90.0 + (i + 0.5) * WMM_TABLE_STEP_DEG, lon = -180.0 + (j + 0.5) * WMM_TABLE_STEP_DEG;
			assert_int_equal(wmm_lookup(lat, lon, &d, NULL, NULL), 0);
			double off = fmod((double)d - c[0] + 540.0, 360.0) - 180.0;
			assert_true(off >= lo - 1e-3 && off <= hi + 1e-3);
		}
	}
	assert_true(straddling > 0);   /* the case is met */
	float d, i, f;
	assert_int_equal(wmm_lookup(90.0, 0.0, &d, &i, &f), 0);
	assert_true(i > 80.0f && f > 0.5f);
	assert_int_equal(wmm_lookup(-90.0, 0.0, &d, &i, &f), 0);
	assert_true(i < -60.0f && f > 0.4f);
}

static void test_wmm_lookup_rejects_bad_positions_and_leaves_outputs_alone(void **state)
{
	(void)state;
	const double bad[][2] = { { NAN, 0 }, { 0, NAN }, { INFINITY, 0 }, { 0, -INFINITY },
				  { 90.0001, 0 }, { -91, 0 } };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		float d = 7.0f, i = 8.0f, f = 9.0f;
		assert_int_equal(wmm_lookup(bad[k][0], bad[k][1], &d, &i, &f), -EINVAL);
		assert_true(d == 7.0f && i == 8.0f && f == 9.0f);
	}
}

/* NOAA NCEI's "Test Values for WMM2025" (as tools/wmm/test_values.txt holds
 * them): decimal year, height km, lat, lon, D, I (deg), X, Y, Z, F (nT). */
static const double noaa[][10] = {
	{ 2025.0, 28, 89, -121, -99.77, 88.47, -255.388723, -1482.460628, 56194.288771, 56214.419888 },
	{ 2025.0, 65, 43, 93, 0.50, 64.10, 24299.852822, 210.517066, 50037.923998, 55626.621348 },
	{ 2025.0, 51, -33, 109, -5.49, -67.50, 21737.778822, -2090.274098, -52710.00392, 57054.752538 },
	{ 2025.5, 6, -36, -137, 20.28, -52.11, 23781.930678, 8786.698927, -32577.518648, 41280.516301 },
	{ 2025.5, 8, -66, 17, -33.14, -59.55, 15201.438652, -9925.501123, -30881.123197, 35822.382382 },
	{ 2026.0, 74, -57, 3, -22.51, -58.65, 13268.119649, -5498.179626, -23576.062921, 27606.226129 },
	{ 2026.0, 62, -14, 99, -1.43, -44.70, 33437.82863, -835.919473, -33100.922253, 47058.03012 },
	{ 2026.5, 14, 0, 80, -3.10, -17.15, 39431.415992, -2133.456168, -12188.838466, 41327.424134 },
	{ 2027.0, 37, -66, -5, -17.22, -59.04, 16390.771268, -5079.626554, -28608.243575, 33360.029814 },
	{ 2027.5, 73, -72, 95, -102.64, -76.49, -2912.418045, -12984.118939, -55399.217725, 56974.931751 },
};

static void test_sim_wmm_field_matches_noaas_published_test_values(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(noaa) / sizeof(noaa[0]); k++) {
		const double *t = noaa[k];
		struct sim_wmm w;
		assert_int_equal(sim_wmm_field(t[2], t[3], t[1] * 1000.0, t[0], &w), 0);
		assert_true(angle_diff(w.decl_deg, t[4]) <= 0.0051);
		assert_true(fabs(w.incl_deg - t[5]) <= 0.0051);
		assert_true(fabs(w.x_nt - t[6]) < 0.1);
		assert_true(fabs(w.y_nt - t[7]) < 0.1);
		assert_true(fabs(w.z_nt - t[8]) < 0.1);
		assert_true(fabs(w.f_nt - t[9]) < 0.1);
	}
	/* the twelve classic rows: declination at 80N 0E, 0N 120E, 80S 240E */
	static const double d[][5] = {
		{ 2025.0, 0, 80, 0, 1.28 }, { 2025.0, 0, 0, 120, -0.16 }, { 2025.0, 0, -80, 240, 68.78 },
		{ 2025.0, 100, 80, 0, 0.85 }, { 2025.0, 100, 0, 120, -0.15 }, { 2025.0, 100, -80, 240, 68.21 },
		{ 2027.5, 0, 80, 0, 2.59 }, { 2027.5, 0, 0, 120, -0.24 }, { 2027.5, 0, -80, 240, 68.49 },
		{ 2027.5, 100, 80, 0, 2.16 }, { 2027.5, 100, 0, 120, -0.23 }, { 2027.5, 100, -80, 240, 67.93 },
	};
	for (size_t k = 0; k < sizeof(d) / sizeof(d[0]); k++) {
		struct sim_wmm w;
		assert_int_equal(sim_wmm_field(d[k][2], d[k][3], d[k][1] * 1000.0, d[k][0], &w), 0);
		assert_true(angle_diff(w.decl_deg, d[k][4]) <= 0.0051);
	}
}

static void test_sim_wmm_field_agrees_with_the_generators_evaluation(void **state)
{
	(void)state;
	/* two evaluations written apart (C here, Python in tools/wmm) agree on
	 * every reference point to their printed precision */
	for (size_t k = 0; k < NPTS; k++) {
		const double *p = wmm_points[k];
		struct sim_wmm w;
		assert_int_equal(sim_wmm_field(p[0], p[1], 0.0, (double)wmm_table_epoch_year, &w), 0);
		assert_true(angle_diff(w.decl_deg, p[2]) < 2e-4);
		assert_true(fabs(w.incl_deg - p[3]) < 2e-4);
		assert_true(fabs(w.f_nt * 1e-5 - p[4]) < 2e-6);
	}
}

static void test_sim_wmm_field_rejects_what_the_model_does_not_cover(void **state)
{
	(void)state;
	struct sim_wmm w = { .decl_deg = 5.0 };
	assert_int_equal(sim_wmm_field(NAN, 0, 0, 2026.0, &w), -EINVAL);
	assert_int_equal(sim_wmm_field(0, INFINITY, 0, 2026.0, &w), -EINVAL);
	assert_int_equal(sim_wmm_field(91, 0, 0, 2026.0, &w), -EINVAL);
	assert_int_equal(sim_wmm_field(0, 0, 0, 2024.9, &w), -EINVAL);
	assert_int_equal(sim_wmm_field(0, 0, 0, 2030.1, &w), -EINVAL);
	assert_int_equal(sim_wmm_field(0, 0, -5000, 2026.0, &w), -EINVAL);
	assert_true(w.decl_deg == 5.0);
	assert_int_equal(sim_wmm_field(90, 0, 0, 2026.0, &w), 0);
	assert_true(isfinite(w.decl_deg) && w.incl_deg > 80.0);
}

static void test_sim_wmm_decimal_year_counts_days_as_the_model_does(void **state)
{
	(void)state;
	assert_true(sim_wmm_decimal_year(2025, 1, 1) == 2025.0);
	assert_true(fabs(sim_wmm_decimal_year(2025, 7, 2) - (2025.0 + 182.0 / 365.0)) < 1e-12);
	assert_true(fabs(sim_wmm_decimal_year(2028, 3, 1) - (2028.0 + 60.0 / 366.0)) < 1e-12);
	assert_true(sim_wmm_decimal_year(2027, 2, 29) < 0.0);
	assert_true(sim_wmm_decimal_year(2027, 13, 1) < 0.0);
	assert_true(sim_wmm_decimal_year(2027, 4, 31) < 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wmm_lookup_is_within_its_documented_accuracy_of_the_full_model),
		cmocka_unit_test(test_wmm_lookup_gives_the_field_at_places_people_fly),
		cmocka_unit_test(test_wmm_lookup_is_continuous_across_the_date_line_and_wraps_longitude),
		cmocka_unit_test(test_wmm_lookup_interpolates_declination_the_short_way_near_the_poles),
		cmocka_unit_test(test_wmm_lookup_rejects_bad_positions_and_leaves_outputs_alone),
		cmocka_unit_test(test_sim_wmm_field_matches_noaas_published_test_values),
		cmocka_unit_test(test_sim_wmm_field_agrees_with_the_generators_evaluation),
		cmocka_unit_test(test_sim_wmm_field_rejects_what_the_model_does_not_cover),
		cmocka_unit_test(test_sim_wmm_decimal_year_counts_days_as_the_model_does),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
