// SPDX-License-Identifier: GPL-3.0-or-later
/* Sensor models: IMU, barometer, magnetometer, GPS, airspeed, battery monitor.
 * Pure and seeded: the same configuration, seed and truth give the same samples.
 * Each sensor draws from its own random stream. Call sim_sensors_step at least
 * as often as the fastest sensor's rate; a sensor that falls more than one period
 * behind skips samples rather than bursting. */
#ifndef FULMAR_SIM_SENSORS_H
#define FULMAR_SIM_SENSORS_H

#include <stdint.h>

#include "atmos.h"
#include "geo.h"
#include "model.h"
#include "rng.h"

#define SIM_GPS_QUEUE 64

struct sim_sensors_config {
	uint64_t seed;
	/* IMU. Noise as a density: per-sample sigma = density * sqrt(rate_hz).
	 * imu_rate_hz is how often it samples (a sample a call); imu_out_hz how
	 * often it reports (0: every sample). At a lower output rate each report
	 * is the mean of the samples since the last one, as an IMU's decimation
	 * filter gives, and the other sensors are read only when it reports, as
	 * an autopilot's sensor task reads them; imu_rate_hz must then be a
	 * whole multiple of it, and t_us in steps of 1/imu_rate_hz. */
	double imu_rate_hz, imu_out_hz;
	double gyro_noise_rad_s_rthz, gyro_bias_sigma_rad_s, gyro_bias_walk_rad_s_rts, gyro_scale_sigma;
	double accel_noise_m_s2_rthz, accel_bias_sigma_m_s2, accel_bias_walk_m_s2_rts, accel_scale_sigma;
	double vibration_m_s2;             /* at 1000 rad/s of propeller, scales with speed^2 */
	double accel_range_m_s2, gyro_range_rad_s;  /* full scale: a reading clips there */
	/* barometer */
	double baro_rate_hz, baro_noise_pa, baro_lag_s, baro_temp_offset_k, baro_temp_noise_k;
	/* magnetometer: earth field at home, body-fixed hard iron */
	double mag_rate_hz, mag_declination_deg, mag_inclination_deg, mag_field_gauss, mag_noise_gauss;
	struct v3 mag_hard_iron_gauss;
	/* GPS: position error is first-order Gauss-Markov (tau 0 = white) */
	double gps_rate_hz, gps_latency_s;
	double gps_h_sigma_m, gps_v_sigma_m, gps_noise_tau_s, gps_vel_sigma_m_s;
	int gps_sats_mean;
	/* pitot-static differential pressure */
	double airspeed_rate_hz, airspeed_noise_pa, airspeed_offset_pa;
	/* battery monitor */
	double batt_rate_hz, batt_v_noise_v, batt_i_noise_a;
};

enum sim_sensor_bits {
	SIM_SENS_IMU = 1u << 0,
	SIM_SENS_BARO = 1u << 1,
	SIM_SENS_MAG = 1u << 2,
	SIM_SENS_GPS = 1u << 3,
	SIM_SENS_AIRSPEED = 1u << 4,
	SIM_SENS_BATT = 1u << 5,
};

struct sim_imu_sample {
	uint64_t t_us;
	struct v3 gyro_rad_s;
	struct v3 accel_m_s2;
};

struct sim_baro_sample {
	uint64_t t_us;
	double pressure_pa;
	double temp_c;
};

struct sim_mag_sample {
	uint64_t t_us;
	struct v3 field_gauss;             /* body axes */
};

struct sim_gps_sample {
	uint64_t t_us;                     /* when the receiver reports it */
	uint64_t t_fix_us;                 /* when it was measured: t_us - latency */
	double lat_deg, lon_deg, alt_m;
	struct v3 vel_ned_m_s;
	int fix_type;                      /* 3 = 3D fix */
	int sats;
	double eph_m, epv_m;
};

struct sim_airspeed_sample {
	uint64_t t_us;
	double diff_pressure_pa;
	double ias_m_s;                    /* from the noisy pressure, sea-level density */
	double temp_c;
};

struct sim_batt_sample {
	uint64_t t_us;
	double voltage_v, current_a, used_mah;
};

struct sim_sensor_out {
	struct sim_imu_sample imu;
	struct sim_baro_sample baro;
	struct sim_mag_sample mag;
	struct sim_gps_sample gps;
	struct sim_airspeed_sample airspeed;
	struct sim_batt_sample batt;
};

struct sim_sensors {
	struct sim_sensors_config cfg;
	struct sim_rng rng_imu, rng_baro, rng_mag, rng_gps, rng_as, rng_batt;
	uint64_t next_imu_us, next_baro_us, next_mag_us, next_gps_us, next_as_us, next_batt_us;
	uint64_t last_imu_us;
	bool started, slow_started;
	/* the samples since the last report */
	struct v3 imu_sum_gyro, imu_sum_accel;
	unsigned int imu_n;
	struct v3 gyro_bias, accel_bias, gyro_scale, accel_scale;
	double vib_phase_rad;
	double baro_lagged_pa;
	struct v3 gps_err_m;
	double sats;
	/* measured fixes waiting out their latency */
	struct sim_gps_sample gps_queue[SIM_GPS_QUEUE];
	unsigned int gps_head, gps_count;
};

/* Defaults: an MPU6000-class IMU at 1 kHz, MS5611 baro, HMC5883L-class
 * magnetometer with the earth field at the default home, a u-blox M8-class GPS
 * at 5 Hz with 150 ms latency, an MS4525DO-class pitot sensor. */
void sim_sensors_config_default(struct sim_sensors_config *c);
void sim_sensors_init(struct sim_sensors *s, const struct sim_sensors_config *cfg);

/* Sample the sensors that are due at t_us from the truth in st (atmosphere at
 * the aircraft in atm, home for GPS). Returns a mask of enum sim_sensor_bits;
 * only those members of out are written. With an imu_out_hz, SIM_SENS_IMU and
 * the other sensors come only at multiples of its period. */
unsigned int sim_sensors_step(struct sim_sensors *s, const struct sim_state *st,
			      const struct sim_lla *home, const struct sim_atmos *atm, uint64_t t_us,
			      struct sim_sensor_out *out);

/* Earth magnetic field in NED for a declination, inclination and intensity. */
struct v3 sim_mag_earth_ned(double declination_deg, double inclination_deg, double field_gauss);

#endif
