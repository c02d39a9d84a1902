// SPDX-License-Identifier: GPL-3.0-or-later
#include "sensors.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

/*
 * Defaults and their sources:
 * - IMU: InvenSense MPU-6000 product specification rev 3.4: gyro rate noise
 *   0.005 deg/s/sqrt(Hz), accelerometer noise 400 ug/sqrt(Hz), sensitivity
 *   tolerance +-3 % (1 % sigma used); turn-on biases as left after a start-up
 *   calibration (0.3 deg/s, 20 mg), random walks of a consumer MEMS part;
 *   full scale as ArduPilot sets it, +-16 g and +-2000 deg/s: a hard landing
 *   or a crash clips the accelerometer there, as it does a real one.
 * - Barometer: TE MS5611-01BA03 datasheet, resolution 0.012 mbar RMS at OSR 4096
 *   (1.2 Pa; 1.5 Pa used), a 50 ms lag for its conversion and filtering.
 * - Magnetometer: Honeywell HMC5883L datasheet noise floor 2 mGauss; earth field
 *   at the CMAC field from the World Magnetic Model (about 12.5 deg E
 *   declination, -66 deg inclination, 0.575 Gauss), rounded; fulmar-sim
 *   replaces it with the full model's at its home on its date
 *   (sim_world_config.mag_year, wmm_field.h).
 * - GPS: u-blox NEO-M8N datasheet, 2.5 m CEP horizontal (about 1.5 m sigma per
 *   axis), velocity 0.05 m/s (0.1 m/s used), 5 Hz; latency 150 ms.
 * - Airspeed: TE MS4525DO, about 1.5 Pa of noise at this bandwidth.
 */
void sim_sensors_config_default(struct sim_sensors_config *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->imu_rate_hz = 1000.0;
	c->gyro_noise_rad_s_rthz = 0.005 * DEG;
	c->gyro_bias_sigma_rad_s = 0.3 * DEG;
	c->gyro_bias_walk_rad_s_rts = 0.001 * DEG;
	c->gyro_scale_sigma = 0.01;
	c->accel_noise_m_s2_rthz = 400e-6 * SIM_G0_M_S2;
	c->accel_bias_sigma_m_s2 = 0.02 * SIM_G0_M_S2;
	c->accel_bias_walk_m_s2_rts = 0.0005;
	c->accel_scale_sigma = 0.01;
	c->accel_range_m_s2 = 16.0 * SIM_G0_M_S2;
	c->gyro_range_rad_s = 2000.0 * DEG;
	c->vibration_m_s2 = 0.5;
	c->baro_rate_hz = 50.0;
	c->baro_noise_pa = 1.5;
	c->baro_lag_s = 0.05;
	c->baro_temp_offset_k = 5.0;
	c->baro_temp_noise_k = 0.05;
	c->mag_rate_hz = 100.0;
	c->mag_declination_deg = 12.5;
	c->mag_inclination_deg = -66.0;
	c->mag_field_gauss = 0.575;
	c->mag_noise_gauss = 0.002;
	c->mag_hard_iron_gauss = v3_make(0.05, -0.03, 0.02);
	c->gps_rate_hz = 5.0;
	c->gps_latency_s = 0.15;
	c->gps_h_sigma_m = 1.5;
	c->gps_v_sigma_m = 2.5;
	c->gps_noise_tau_s = 30.0;
	c->gps_vel_sigma_m_s = 0.1;
	c->gps_sats_mean = 12;
	c->airspeed_rate_hz = 50.0;
	c->airspeed_noise_pa = 1.5;
	c->airspeed_offset_pa = 0.0;
	c->batt_rate_hz = 10.0;
	c->batt_v_noise_v = 0.02;
	c->batt_i_noise_a = 0.1;
}

static struct v3 gauss3(struct sim_rng *r, double sigma)
{
	double x = sim_rng_gauss(r), y = sim_rng_gauss(r), z = sim_rng_gauss(r);
	return v3_make(x * sigma, y * sigma, z * sigma);
}

static struct v3 mul3(struct v3 a, struct v3 b)
{
	return v3_make(a.x * b.x, a.y * b.y, a.z * b.z);
}

void sim_sensors_init(struct sim_sensors *s, const struct sim_sensors_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	sim_rng_init(&s->rng_imu, cfg->seed, 0x696d75ull);
	sim_rng_init(&s->rng_baro, cfg->seed, 0x6261726full);
	sim_rng_init(&s->rng_mag, cfg->seed, 0x6d6167ull);
	sim_rng_init(&s->rng_gps, cfg->seed, 0x677073ull);
	sim_rng_init(&s->rng_as, cfg->seed, 0x61737064ull);
	sim_rng_init(&s->rng_batt, cfg->seed, 0x62617474ull);
	/* Turn-on errors: drawn once per power-up. */
	s->gyro_bias = gauss3(&s->rng_imu, cfg->gyro_bias_sigma_rad_s);
	s->accel_bias = gauss3(&s->rng_imu, cfg->accel_bias_sigma_m_s2);
	s->gyro_scale = v3_add(v3_make(1, 1, 1), gauss3(&s->rng_imu, cfg->gyro_scale_sigma));
	s->accel_scale = v3_add(v3_make(1, 1, 1), gauss3(&s->rng_imu, cfg->accel_scale_sigma));
	s->gps_err_m = v3_make(sim_rng_gauss(&s->rng_gps) * cfg->gps_h_sigma_m,
			       sim_rng_gauss(&s->rng_gps) * cfg->gps_h_sigma_m,
			       sim_rng_gauss(&s->rng_gps) * cfg->gps_v_sigma_m);
	s->sats = cfg->gps_sats_mean;
}

static uint64_t period_us(double rate_hz)
{
	return rate_hz > 0.0 ? (uint64_t)llround(1e6 / rate_hz) : 0;
}

/* True when a sensor of this period is due; advances its schedule. */
static bool due(uint64_t *next_us, uint64_t per_us, uint64_t t_us)
{
	if (per_us == 0 || t_us < *next_us)
		return false;
	*next_us += per_us;
	if (*next_us <= t_us)
		*next_us = t_us + per_us;
	return true;
}

struct v3 sim_mag_earth_ned(double decl_deg, double incl_deg, double field_gauss)
{
	double d = decl_deg * DEG, i = incl_deg * DEG;
	return v3_make(field_gauss * cos(i) * cos(d), field_gauss * cos(i) * sin(d), field_gauss * sin(i));
}

/* Each axis held within a sensor's full scale. */
static struct v3 clip3(struct v3 v, double range)
{
	v.x = fmax(-range, fmin(range, v.x));
	v.y = fmax(-range, fmin(range, v.y));
	v.z = fmax(-range, fmin(range, v.z));
	return v;
}

static void imu_sample(struct sim_sensors *s, const struct sim_state *st, uint64_t t_us,
		       struct sim_imu_sample *o)
{
	const struct sim_sensors_config *c = &s->cfg;
	double dt = s->last_imu_us ? (double)(t_us - s->last_imu_us) * 1e-6 : 1.0 / c->imu_rate_hz;
	s->last_imu_us = t_us;
	double sq = sqrt(dt);
	s->gyro_bias = v3_add(s->gyro_bias, gauss3(&s->rng_imu, c->gyro_bias_walk_rad_s_rts * sq));
	s->accel_bias = v3_add(s->accel_bias, gauss3(&s->rng_imu, c->accel_bias_walk_m_s2_rts * sq));
	double rt = sqrt(c->imu_rate_hz);
	/* Propeller vibration: a once-per-revolution shake, mostly vertical. */
	s->vib_phase_rad = fmod(s->vib_phase_rad + st->prop_rad_s * dt, 2.0 * M_PI);
	double vib = c->vibration_m_s2 * (st->prop_rad_s / 1000.0) * (st->prop_rad_s / 1000.0);
	struct v3 shake = v3_make(0.3 * vib * sin(s->vib_phase_rad + 1.0), 0.3 * vib * cos(s->vib_phase_rad),
				  vib * sin(s->vib_phase_rad));
	o->t_us = t_us;
	o->gyro_rad_s = v3_add(v3_add(mul3(s->gyro_scale, st->rate_body_rad_s), s->gyro_bias),
			       gauss3(&s->rng_imu, c->gyro_noise_rad_s_rthz * rt));
	o->accel_m_s2 = v3_add(v3_add(mul3(s->accel_scale, v3_add(st->accel_body_m_s2, shake)), s->accel_bias),
				gauss3(&s->rng_imu, c->accel_noise_m_s2_rthz * rt));
	o->gyro_rad_s = clip3(o->gyro_rad_s, c->gyro_range_rad_s);
	o->accel_m_s2 = clip3(o->accel_m_s2, c->accel_range_m_s2);
}

static void gps_measure(struct sim_sensors *s, const struct sim_state *st, const struct sim_lla *home,
			uint64_t t_us)
{
	const struct sim_sensors_config *c = &s->cfg;
	double dt = 1.0 / c->gps_rate_hz;
	double a = c->gps_noise_tau_s > 0.0 ? exp(-dt / c->gps_noise_tau_s) : 0.0;
	double b = sqrt(1.0 - a * a);
	s->gps_err_m.x = a * s->gps_err_m.x + b * c->gps_h_sigma_m * sim_rng_gauss(&s->rng_gps);
	s->gps_err_m.y = a * s->gps_err_m.y + b * c->gps_h_sigma_m * sim_rng_gauss(&s->rng_gps);
	s->gps_err_m.z = a * s->gps_err_m.z + b * c->gps_v_sigma_m * sim_rng_gauss(&s->rng_gps);
	/* Satellites in view wander slowly around the mean. */
	s->sats += 0.05 * (c->gps_sats_mean - s->sats) + 0.3 * sim_rng_gauss(&s->rng_gps);

	struct sim_gps_sample g;
	memset(&g, 0, sizeof(g));
	struct sim_lla p = sim_ned_to_lla(home, v3_add(st->pos_ned_m, s->gps_err_m));
	g.t_fix_us = t_us;
	g.lat_deg = p.lat_deg;
	g.lon_deg = p.lon_deg;
	g.alt_m = p.alt_m;
	g.vel_ned_m_s = v3_add(st->vel_ned_m_s, gauss3(&s->rng_gps, c->gps_vel_sigma_m_s));
	int sats = (int)lround(s->sats);
	g.sats = sats < 4 ? 4 : (sats > 24 ? 24 : sats);
	g.fix_type = 3;
	/* HDOP-like scaling: fewer satellites, worse reported accuracy. */
	g.eph_m = c->gps_h_sigma_m * 12.0 / g.sats;
	g.epv_m = c->gps_v_sigma_m * 12.0 / g.sats;

	unsigned int idx = (s->gps_head + s->gps_count) % SIM_GPS_QUEUE;
	if (s->gps_count == SIM_GPS_QUEUE) {
		/* Latency longer than the queue holds: drop the oldest. */
		s->gps_head = (s->gps_head + 1) % SIM_GPS_QUEUE;
		s->gps_count--;
	}
	s->gps_queue[idx] = g;
	s->gps_count++;
}

unsigned int sim_sensors_step(struct sim_sensors *s, const struct sim_state *st,
			      const struct sim_lla *home, const struct sim_atmos *atm, uint64_t t_us,
			      struct sim_sensor_out *out)
{
	const struct sim_sensors_config *c = &s->cfg;
	unsigned int mask = 0;
	if (!s->started) {
		s->started = true;
		s->next_imu_us = t_us;
	}

	if (due(&s->next_imu_us, period_us(c->imu_rate_hz), t_us)) {
		struct sim_imu_sample x;
		imu_sample(s, st, t_us, &x);
		s->imu_sum_gyro = v3_add(s->imu_sum_gyro, x.gyro_rad_s);
		s->imu_sum_accel = v3_add(s->imu_sum_accel, x.accel_m_s2);
		s->imu_n++;
	}
	/* A report: the mean of the samples since the last one (with one a
	 * report, the sample itself). */
	uint64_t out_per = period_us(c->imu_out_hz);
	if (out_per && t_us % out_per != 0)
		return mask;
	if (s->imu_n) {
		double k = 1.0 / s->imu_n;
		out->imu.t_us = t_us;
		out->imu.gyro_rad_s = v3_scale(s->imu_sum_gyro, k);
		out->imu.accel_m_s2 = v3_scale(s->imu_sum_accel, k);
		s->imu_sum_gyro = s->imu_sum_accel = v3_make(0, 0, 0);
		s->imu_n = 0;
		mask |= SIM_SENS_IMU;
	}

	/* The slower sensors' schedules start at the first report, so that they
	 * keep their rates on its grid. */
	if (!s->slow_started) {
		s->slow_started = true;
		s->next_baro_us = s->next_mag_us = t_us;
		s->next_gps_us = s->next_as_us = s->next_batt_us = t_us;
		s->baro_lagged_pa = atm->pressure_pa;
	}

	uint64_t baro_per = period_us(c->baro_rate_hz);
	if (due(&s->next_baro_us, baro_per, t_us)) {
		double dt = (double)baro_per * 1e-6;
		double k = c->baro_lag_s > 0.0 ? 1.0 - exp(-dt / c->baro_lag_s) : 1.0;
		s->baro_lagged_pa += k * (atm->pressure_pa - s->baro_lagged_pa);
		out->baro.t_us = t_us;
		out->baro.pressure_pa = s->baro_lagged_pa + c->baro_noise_pa * sim_rng_gauss(&s->rng_baro);
		out->baro.temp_c = atm->temp_k - 273.15 + c->baro_temp_offset_k +
				   c->baro_temp_noise_k * sim_rng_gauss(&s->rng_baro);
		mask |= SIM_SENS_BARO;
	}

	if (due(&s->next_mag_us, period_us(c->mag_rate_hz), t_us)) {
		struct v3 e = sim_mag_earth_ned(c->mag_declination_deg, c->mag_inclination_deg, c->mag_field_gauss);
		out->mag.t_us = t_us;
		out->mag.field_gauss = v3_add(v3_add(quat_rotate_inv(st->att, e), c->mag_hard_iron_gauss),
					      gauss3(&s->rng_mag, c->mag_noise_gauss));
		mask |= SIM_SENS_MAG;
	}

	if (due(&s->next_gps_us, period_us(c->gps_rate_hz), t_us))
		gps_measure(s, st, home, t_us);
	uint64_t lat_us = (uint64_t)llround(c->gps_latency_s * 1e6);
	while (s->gps_count > 0 && s->gps_queue[s->gps_head].t_fix_us + lat_us <= t_us) {
		out->gps = s->gps_queue[s->gps_head];
		out->gps.t_us = t_us;
		s->gps_head = (s->gps_head + 1) % SIM_GPS_QUEUE;
		s->gps_count--;
		mask |= SIM_SENS_GPS;
	}

	if (due(&s->next_as_us, period_us(c->airspeed_rate_hz), t_us)) {
		/* The pitot sees the dynamic pressure of the flow along the body x axis. */
		double ax = st->airspeed_m_s * cos(st->alpha_rad) * cos(st->beta_rad);
		double dp = 0.5 * atm->density_kg_m3 * ax * ax + c->airspeed_offset_pa +
			    c->airspeed_noise_pa * sim_rng_gauss(&s->rng_as);
		out->airspeed.t_us = t_us;
		out->airspeed.diff_pressure_pa = dp;
		out->airspeed.ias_m_s = dp > 0.0 ? sqrt(2.0 * dp / SIM_RHO0_KG_M3) : 0.0;
		out->airspeed.temp_c = atm->temp_k - 273.15;
		mask |= SIM_SENS_AIRSPEED;
	}

	if (due(&s->next_batt_us, period_us(c->batt_rate_hz), t_us)) {
		out->batt.t_us = t_us;
		out->batt.voltage_v = st->batt_voltage_v + c->batt_v_noise_v * sim_rng_gauss(&s->rng_batt);
		out->batt.current_a = st->batt_current_a + c->batt_i_noise_a * sim_rng_gauss(&s->rng_batt);
		out->batt.used_mah = st->batt_used_ah * 1000.0;
		mask |= SIM_SENS_BATT;
	}
	return mask;
}
