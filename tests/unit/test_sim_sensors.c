// SPDX-License-Identifier: GPL-3.0-or-later
/* tools/sim sensor models: noise statistics, GPS latency, the magnetometer's
 * field, and determinism of the whole simulated stream. */
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
#include "model.h"
#include "sensors.h"

#define DEG (M_PI / 180.0)
#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* Only white noise: no biases, scale errors, vibration or hard iron. */
static void noise_only(struct sim_sensors_config *c)
{
	c->gyro_bias_sigma_rad_s = c->gyro_bias_walk_rad_s_rts = c->gyro_scale_sigma = 0;
	c->accel_bias_sigma_m_s2 = c->accel_bias_walk_m_s2_rts = c->accel_scale_sigma = 0;
	c->vibration_m_s2 = 0;
	c->mag_hard_iron_gauss = v3_make(0, 0, 0);
	c->baro_lag_s = 0;
}

static void test_sim_imu_and_baro_noise_match_their_configuration(void **state)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_lla home = sim_home_default();
	struct sim_atmos atm;
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	st.accel_body_m_s2 = v3_make(0, 0, -SIM_G0_M_S2);
	sim_atmos_isa(home.alt_m, 0, &atm);
	sim_sensors_config_default(&c);
	noise_only(&c);
	c.seed = 99;
	sim_sensors_init(&s, &c);
	double gs = 0, gs2 = 0, as2 = 0, am = 0, bs2 = 0, bm = 0;
	int ni = 0, nb = 0;
	for (uint64_t t = 0; t < 20000000; t += 1000) {  /* 20 s at 1 kHz */
		unsigned int m = sim_sensors_step(&s, &st, &home, &atm, t, &o);
		if (m & SIM_SENS_IMU) {
			gs += o.imu.gyro_rad_s.x;
			gs2 += o.imu.gyro_rad_s.x * o.imu.gyro_rad_s.x;
			double az = o.imu.accel_m_s2.z + SIM_G0_M_S2;
			am += az;
			as2 += az * az;
			ni++;
		}
		if (m & SIM_SENS_BARO) {
			double d = o.baro.pressure_pa - atm.pressure_pa;
			bm += d;
			bs2 += d * d;
			nb++;
		}
	}
	assert_int_equal(ni, 20000);
	assert_int_equal(nb, 1000);
	double g_sd = sqrt(gs2 / ni), a_sd = sqrt(as2 / ni), b_sd = sqrt(bs2 / nb);
	double g_exp = c.gyro_noise_rad_s_rthz * sqrt(c.imu_rate_hz);
	double a_exp = c.accel_noise_m_s2_rthz * sqrt(c.imu_rate_hz);
	print_message("gyro sigma %.5f deg/s (configured %.5f), accel %.4f m/s^2 (%.4f), baro %.3f Pa (%.3f)\n",
		      g_sd / DEG, g_exp / DEG, a_sd, a_exp, b_sd, c.baro_noise_pa);
	assert_near(g_sd, g_exp, 0.03 * g_exp);
	assert_near(a_sd, a_exp, 0.03 * a_exp);
	assert_near(b_sd, c.baro_noise_pa, 0.1 * c.baro_noise_pa);
	assert_near(gs / ni, 0, 4 * g_exp / sqrt(ni));
	assert_near(am / ni, 0, 4 * a_exp / sqrt(ni));
	assert_near(bm / nb, 0, 4 * c.baro_noise_pa / sqrt(nb));
}

static void test_sim_imu_bias_and_scale_are_drawn_per_seed(void **state)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_lla home = sim_home_default();
	struct sim_atmos atm;
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	st.rate_body_rad_s = v3_make(1.0, 0, 0);
	sim_atmos_isa(home.alt_m, 0, &atm);
	sim_sensors_config_default(&c);
	c.gyro_noise_rad_s_rthz = 0;
	c.gyro_bias_walk_rad_s_rts = 0;
	sim_sensors_init(&s, &c);
	sim_sensors_step(&s, &st, &home, &atm, 0, &o);
	/* With noise off the reading is scale * truth + bias exactly. */
	assert_near(o.imu.gyro_rad_s.x, s.gyro_scale.x * 1.0 + s.gyro_bias.x, 1e-15);
	assert_near(o.imu.gyro_rad_s.y, s.gyro_bias.y, 1e-15);
	assert_true(fabs(s.gyro_bias.x) < 5 * c.gyro_bias_sigma_rad_s);
	assert_true(s.gyro_bias.x != 0 && fabs(s.gyro_scale.x - 1) < 5 * c.gyro_scale_sigma);
	/* Bias drift is a random walk: after 100 s its spread is walk * sqrt(100). */
	c.gyro_bias_walk_rad_s_rts = 0.01;
	c.imu_rate_hz = 10;   /* keeps it short */
	double s2 = 0;
	for (int k = 0; k < 200; k++) {
		c.seed = 1000 + k;
		sim_sensors_init(&s, &c);
		double b0 = s.gyro_bias.z;
		for (uint64_t t = 0; t <= 100000000; t += 100000)
			sim_sensors_step(&s, &st, &home, &atm, t, &o);
		s2 += (s.gyro_bias.z - b0) * (s.gyro_bias.z - b0);
	}
	print_message("gyro bias walk over 100 s: %.4f rad/s (expected %.4f)\n", sqrt(s2 / 200), 0.1);
	assert_near(sqrt(s2 / 200), 0.1, 0.015);
}

static void test_sim_gps_reports_each_fix_after_its_latency(void **state)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_lla home = sim_home_default();
	struct sim_atmos atm;
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	sim_atmos_isa(home.alt_m, 0, &atm);
	sim_sensors_config_default(&c);
	c.gps_h_sigma_m = c.gps_v_sigma_m = c.gps_vel_sigma_m_s = 0;
	c.gps_rate_hz = 10;
	c.gps_latency_s = 0.18;
	sim_sensors_init(&s, &c);
	int fixes = 0;
	/* Fly north at 20 m/s in 1 ms steps; every fix must show where the plane
	 * was 180 ms before it was reported. */
	for (uint64_t t = 0; t < 5000000; t += 1000) {
		st.pos_ned_m = v3_make(20.0 * (double)t * 1e-6, 0, -50);
		st.vel_ned_m_s = v3_make(20, 0, 0);
		if (sim_sensors_step(&s, &st, &home, &atm, t, &o) & SIM_SENS_GPS) {
			assert_true(o.gps.t_us - o.gps.t_fix_us == 180000);
			assert_true(o.gps.t_us == o.gps.t_fix_us + 180000);
			struct sim_lla l = { o.gps.lat_deg, o.gps.lon_deg, o.gps.alt_m };
			struct v3 ned = sim_lla_to_ned(&home, &l);
			double lag_m = 20.0 * (double)t * 1e-6 - ned.x;
			assert_near(lag_m, 20.0 * 0.18, 1e-4);
			assert_near(ned.z, -50, 1e-4);
			assert_int_equal(o.gps.fix_type, 3);
			assert_true(o.gps.sats >= 4 && o.gps.sats <= 24);
			fixes++;
		}
	}
	print_message("%d fixes in 5 s at 10 Hz, each 180 ms late (3.6 m behind at 20 m/s)\n", fixes);
	assert_true(fixes >= 48 && fixes <= 49);
}

static void test_sim_gps_position_noise_matches_its_sigma(void **state)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_lla home = sim_home_default();
	struct sim_atmos atm;
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	sim_atmos_isa(home.alt_m, 0, &atm);
	sim_sensors_config_default(&c);
	c.gps_noise_tau_s = 0.5;
	c.gps_rate_hz = 10;
	c.imu_rate_hz = c.baro_rate_hz = c.mag_rate_hz = c.airspeed_rate_hz = c.batt_rate_hz = 0;
	sim_sensors_init(&s, &c);
	double n2 = 0, d2 = 0, v2 = 0;
	int n = 0;
	for (uint64_t t = 0; t < 2000000000; t += 100000) {   /* 2000 s, 10 Hz */
		if (sim_sensors_step(&s, &st, &home, &atm, t, &o) & SIM_SENS_GPS) {
			struct sim_lla l = { o.gps.lat_deg, o.gps.lon_deg, o.gps.alt_m };
			struct v3 e = v3_sub(sim_lla_to_ned(&home, &l), st.pos_ned_m);
			n2 += e.x * e.x;
			d2 += e.z * e.z;
			v2 += o.gps.vel_ned_m_s.y * o.gps.vel_ned_m_s.y;
			n++;
		}
	}
	double sn = sqrt(n2 / n), sd = sqrt(d2 / n), sv = sqrt(v2 / n);
	print_message("GPS sigma north %.3f m (%.3f), down %.3f m (%.3f), velocity %.3f m/s (%.3f)\n", sn,
		      c.gps_h_sigma_m, sd, c.gps_v_sigma_m, sv, c.gps_vel_sigma_m_s);
	assert_near(sn, c.gps_h_sigma_m, 0.1 * c.gps_h_sigma_m);
	assert_near(sd, c.gps_v_sigma_m, 0.1 * c.gps_v_sigma_m);
	assert_near(sv, c.gps_vel_sigma_m_s, 0.05 * c.gps_vel_sigma_m_s);
}

static void test_sim_magnetometer_reads_the_earth_field_plus_hard_iron(void **state)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_lla home = sim_home_default();
	struct sim_atmos atm;
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	sim_atmos_isa(home.alt_m, 0, &atm);
	sim_sensors_config_default(&c);
	c.mag_noise_gauss = 0;
	sim_sensors_init(&s, &c);
	/* Nose pointing at magnetic north: the horizontal field is all along x. */
	st.att = quat_from_euler(0, 0, c.mag_declination_deg * DEG);
	assert_true(sim_sensors_step(&s, &st, &home, &atm, 0, &o) & SIM_SENS_MAG);
	struct v3 f = v3_sub(o.mag.field_gauss, c.mag_hard_iron_gauss);
	assert_near(f.x, c.mag_field_gauss * cos(c.mag_inclination_deg * DEG), 1e-12);
	assert_near(f.y, 0, 1e-12);
	assert_near(f.z, c.mag_field_gauss * sin(c.mag_inclination_deg * DEG), 1e-12);
	/* Southern hemisphere: the field points up (negative down component). */
	assert_true(f.z < 0);
}

/* A short flight with wind, turbulence and all the sensors, hashed. */
static uint64_t fly_and_hash(uint64_t seed)
{
	struct sim_airframe p;
	struct sim_state st;
	struct sim_trim trim;
	struct sim_sensors_config c;
	struct sim_sensors s;
	struct sim_sensor_out o;
	struct sim_wind w;
	struct sim_lla home = sim_home_default();
	sim_airframe_default(&p);
	sim_state_init(&p, &st);
	assert_int_equal(sim_trim_level(&p, SIM_RHO0_KG_M3, 15.0, &trim), 0);
	st.pos_ned_m = v3_make(0, 0, -60);
	st.vel_ned_m_s = v3_make(15, 0, 0);
	st.att = quat_from_euler(0, trim.alpha_rad, 0);
	struct sim_controls u = { trim.aileron, trim.elevator, trim.rudder, trim.throttle };
	struct sim_wind_config wc = { .speed_m_s = 4, .from_deg = 200, .gust_max_m_s = 3,
				      .gust_mean_interval_s = 1, .gust_length_s = 1, .turb_w20_m_s = 7.7,
				      .seed = seed };
	sim_wind_init(&w, &wc);
	sim_sensors_config_default(&c);
	c.seed = seed;
	sim_sensors_init(&s, &c);
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a over every sample's bytes */
	for (uint64_t t = 0; t < 3000000; t += 1000) {
		struct sim_atmos atm;
		sim_atmos_isa(home.alt_m - st.pos_ned_m.z, 0, &atm);
		struct sim_env env = { sim_wind_step(&w, 0.001, -st.pos_ned_m.z, st.airspeed_m_s),
				       atm.density_kg_m3 };
		sim_model_step(&p, &st, &u, &env, 0.001);
		memset(&o, 0, sizeof(o));
		unsigned int m = sim_sensors_step(&s, &st, &home, &atm, t, &o);
		const unsigned char *b = (const unsigned char *)&o;
		for (size_t i = 0; i < sizeof(o); i++)
			h = (h ^ b[i]) * 0x100000001b3ull;
		h = (h ^ m) * 0x100000001b3ull;
	}
	/* The final truth, field by field (no padding bytes). */
	const double truth[] = { st.pos_ned_m.x, st.pos_ned_m.y, st.pos_ned_m.z, st.vel_ned_m_s.x,
				 st.att.w, st.att.x, st.rate_body_rad_s.z, st.batt_used_ah };
	const unsigned char *b = (const unsigned char *)truth;
	for (size_t i = 0; i < sizeof(truth); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void test_sim_same_seed_gives_byte_identical_streams(void **state)
{
	uint64_t a = fly_and_hash(5), b = fly_and_hash(5), c = fly_and_hash(6);
	print_message("stream hashes: seed 5 %016llx %016llx, seed 6 %016llx\n", (unsigned long long)a,
		      (unsigned long long)b, (unsigned long long)c);
	assert_true(a == b);
	assert_true(a != c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_imu_and_baro_noise_match_their_configuration),
		cmocka_unit_test(test_sim_imu_bias_and_scale_are_drawn_per_seed),
		cmocka_unit_test(test_sim_gps_reports_each_fix_after_its_latency),
		cmocka_unit_test(test_sim_gps_position_noise_matches_its_sigma),
		cmocka_unit_test(test_sim_magnetometer_reads_the_earth_field_plus_hard_iron),
		cmocka_unit_test(test_sim_same_seed_gives_byte_identical_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
