// SPDX-License-Identifier: GPL-3.0-or-later
/* tools/sim atmosphere, wind, turbulence, geodesy and random numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "atmos.h"
#include "geo.h"
#include "rng.h"

#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_sim_isa_matches_the_standard_table(void **state)
{
	struct sim_atmos a;
	sim_atmos_isa(0, 0, &a);
	assert_near(a.pressure_pa, 101325.0, 0.01);
	assert_near(a.temp_k, 288.15, 1e-9);
	assert_near(a.density_kg_m3, 1.2250, 1e-4);
	/* ICAO standard atmosphere table, geometric altitude 1000 m and 11000 m. */
	sim_atmos_isa(1000, 0, &a);
	assert_near(a.pressure_pa, 89876.0, 5.0);
	assert_near(a.density_kg_m3, 1.1117, 5e-4);
	sim_atmos_isa(11000, 0, &a);
	assert_near(a.pressure_pa, 22700.0, 30.0);
	sim_atmos_isa(20000, 0, &a);
	assert_near(a.pressure_pa, 5529.0, 20.0);
	/* A hot day: same pressure, thinner air. */
	struct sim_atmos hot;
	sim_atmos_isa(1000, 15, &hot);
	assert_near(hot.pressure_pa, 89876.0, 5.0);
	sim_atmos_isa(1000, 0, &a);
	assert_true(hot.density_kg_m3 < a.density_kg_m3);
	assert_near(hot.density_kg_m3 / a.density_kg_m3, a.temp_k / hot.temp_k, 1e-12);
}

static void test_sim_ned_offsets_round_trip_through_wgs84(void **state)
{
	struct sim_lla home = sim_home_default();
	struct v3 ned = v3_make(1000.0, -2500.0, -120.0);
	struct sim_lla p = sim_ned_to_lla(&home, ned);
	struct v3 back = sim_lla_to_ned(&home, &p);
	assert_true(v3_norm(v3_sub(back, ned)) < 1e-6);
	/* 1 km north at 35 deg S is about 0.00902 deg of latitude (meridian radius
	 * 6.356e6 m there); height rises by the drop of the curved earth only. */
	struct sim_lla n = sim_ned_to_lla(&home, v3_make(1000, 0, 0));
	assert_near(n.lat_deg - home.lat_deg, 0.009017, 0.00001);
	assert_near(n.lon_deg, home.lon_deg, 1e-9);
	assert_near(n.alt_m - home.alt_m, 1000.0 * 1000.0 / (2 * 6.36e6), 0.005);
	struct sim_lla up = sim_ned_to_lla(&home, v3_make(0, 0, -50));
	assert_near(up.alt_m, home.alt_m + 50, 1e-6);
	assert_near(up.lat_deg, home.lat_deg, 1e-10);
}

static void test_sim_steady_wind_blows_from_its_direction(void **state)
{
	struct sim_wind_config c = { .speed_m_s = 5, .from_deg = 270 };
	struct v3 w = sim_wind_steady_ned(&c);
	/* A westerly moves the air east. */
	assert_near(w.x, 0, 1e-9);
	assert_near(w.y, 5, 1e-9);
	struct sim_wind wind;
	sim_wind_init(&wind, &c);
	struct v3 s = sim_wind_step(&wind, 0.01, 50, 15);
	assert_true(v3_norm(v3_sub(s, w)) < 1e-12);
}

static void test_sim_dryden_turbulence_has_its_configured_intensity(void **state)
{
	/* MIL-F-8785C light turbulence: W20 = 15 kt; at 300 ft AGL
	 * sigma_w = 0.1 W20 and sigma_u = sigma_w / (0.177 + 0.000823 h)^0.4. */
	struct sim_wind_config c = { .speed_m_s = 0, .from_deg = 0, .turb_w20_m_s = 7.7, .seed = 42 };
	struct sim_wind w;
	sim_wind_init(&w, &c);
	const double h_m = 300 * 0.3048, dt = 0.02;
	double su = 0, sv = 0, sw = 0, mu = 0;
	const int n = 200000;  /* 4000 s at 50 Hz: many correlation times */
	for (int i = 0; i < n; i++) {
		struct v3 t = sim_wind_step(&w, dt, h_m, 16);
		su += t.x * t.x;
		sv += t.y * t.y;
		sw += t.z * t.z;
		mu += t.z;
	}
	su = sqrt(su / n);
	sv = sqrt(sv / n);
	sw = sqrt(sw / n);
	double exp_w = 0.77, exp_u = 0.77 / pow(0.177 + 0.000823 * 300, 0.4);
	print_message("turbulence sigma u %.3f v %.3f w %.3f m/s (expected %.3f %.3f %.3f)\n", su, sv, sw,
		      exp_u, exp_u, exp_w);
	assert_near(su, exp_u, 0.1 * exp_u);
	assert_near(sv, exp_u, 0.1 * exp_u);
	assert_near(sw, exp_w, 0.1 * exp_w);
	assert_near(mu / n, 0, 0.05);
}

static void test_sim_gusts_come_and_go_within_their_maximum(void **state)
{
	struct sim_wind_config c = { .speed_m_s = 3, .from_deg = 90, .gust_max_m_s = 4,
				     .gust_mean_interval_s = 5, .gust_length_s = 2, .seed = 7 };
	struct sim_wind w;
	sim_wind_init(&w, &c);
	struct v3 steady = sim_wind_steady_ned(&c);
	double peak = 0;
	int calm = 0;
	for (int i = 0; i < 6000; i++) {
		double d = v3_norm(v3_sub(sim_wind_step(&w, 0.01, 50, 15), steady));
		peak = fmax(peak, d);
		calm += d < 1e-12;
	}
	print_message("gusts over 60 s: peak %.2f m/s, calm %.0f %% of the time\n", peak, calm / 60.0);
	assert_true(peak > 1.0);
	assert_true(peak <= 4.0 * sqrt(1 + 1.0 / 9) + 1e-9);
	assert_true(calm > 1000 && calm < 5900);
}

static void test_sim_rng_streams_are_reproducible_and_normal(void **state)
{
	struct sim_rng a, b, c;
	sim_rng_init(&a, 123, 1);
	sim_rng_init(&b, 123, 1);
	sim_rng_init(&c, 123, 2);
	int same_c = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = sim_rng_u64(&a);
		assert_true(x == sim_rng_u64(&b));
		same_c += x == sim_rng_u64(&c);
	}
	assert_int_equal(same_c, 0);
	double s = 0, s2 = 0;
	const int n = 100000;
	for (int i = 0; i < n; i++) {
		double g = sim_rng_gauss(&a);
		s += g;
		s2 += g * g;
	}
	assert_near(s / n, 0, 0.01);
	assert_near(sqrt(s2 / n), 1.0, 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_isa_matches_the_standard_table),
		cmocka_unit_test(test_sim_ned_offsets_round_trip_through_wgs84),
		cmocka_unit_test(test_sim_steady_wind_blows_from_its_direction),
		cmocka_unit_test(test_sim_dryden_turbulence_has_its_configured_intensity),
		cmocka_unit_test(test_sim_gusts_come_and_go_within_their_maximum),
		cmocka_unit_test(test_sim_rng_streams_are_reproducible_and_normal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
