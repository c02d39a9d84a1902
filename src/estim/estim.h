/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The state estimator: a 27-state error-state extended Kalman filter for a
 * fixed-wing aircraft, on a delayed time horizon with an output predictor
 * (the structure of PX4's EKF2 and ArduPilot's EKF3). docs/estimator.md gives
 * the state vector, the noise defaults, the gates and the timing.
 *
 * Pure: no I/O, no clocks, no globals, no allocation, no threads. The caller
 * owns struct estim (about 25 kB) and passes every sample with its time stamp
 * (CLOCK_MONOTONIC microseconds). All calls come from one thread (the main
 * thread in fulmard); nothing here blocks.
 *
 * Feeding it: every raw IMU sample (estim_push_imu; a filter step runs each
 * time one filter period has accumulated), and every baro, magnetometer,
 * airspeed and GPS sample as it arrives. Reading it: estim_get_state for the
 * vehicle-state topic, estim_get_status for telemetry and the log,
 * estim_is_converged for the arming checks.
 */
#ifndef FULMAR_ESTIM_H
#define FULMAR_ESTIM_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/gps_fix.h"
#include "drivers/sensor_sample.h"
#include "estim/estim_accum.h"
#include "estim/vibe.h"
#include "fulmar/vehicle_state.h"

/* Error-state indices (the nominal attitude is a quaternion; its error is a
 * rotation vector in NED). */
enum estim_state_index {
	ESTIM_S_ATT = 0,        /* 3: attitude error, rad, NED frame */
	ESTIM_S_VEL = 3,        /* 3: velocity NED, m/s */
	ESTIM_S_POS = 6,        /* 3: position NED from the origin, m */
	ESTIM_S_GYRO_BIAS = 9,  /* 3: rad/s, body */
	ESTIM_S_ACC_BIAS = 12,  /* 3: m/s^2, body */
	ESTIM_S_MAG_EARTH = 15, /* 3: earth field NED, gauss */
	ESTIM_S_MAG_BODY = 18,  /* 3: body (hard-iron) field, gauss */
	ESTIM_S_WIND = 21,      /* 2: wind NE, m/s (air velocity over ground) */
	ESTIM_S_BARO_BIAS = 23, /* 1: baro height minus true height, m */
	ESTIM_S_GYRO_SCALE = 24, /* 3: gyro scale-factor error, body (true = measured x (1 - s)) */
	ESTIM_NSTATES = 27,
};

#define ESTIM_IMU_BUF 128 /* filter steps held for the delayed horizon */
#define ESTIM_OBS_BUF 32  /* pending baro / mag / airspeed samples per sensor */
#define ESTIM_GPS_BUF 8
/* The IMU rates the filter is built for (estim_push_imu learns the rate from
 * the time stamps; a first interval outside these is clamped into them). */
#define ESTIM_IMU_MIN_HZ 50.0f
#define ESTIM_IMU_MAX_HZ 2000.0f
/* What a stuck IMU's coast (estim_intake.c) does not know: the rates and
 * accelerations the aircraft may have had meanwhile, as the uncertainty they
 * grow the attitude and the velocity by (a plane's turns and pull-ups). */
#define ESTIM_COAST_RATE_RAD_S 0.35f
/* One pressure this long: the barometer is stuck (estim_baro.c). */
#define ESTIM_BARO_STUCK_US 2000000u
#define ESTIM_COAST_ACCEL_M_S2 3.0f
/* An accelerometer axis at or past this reads its full scale (ArduPilot's
 * clip limit for the +-16 g its IMUs are set to): what it did not measure,
 * up to as much again, is taken as velocity uncertainty, so that after a
 * hard landing or a crash the GPS is believed over the integration. */
#define ESTIM_ACCEL_CLIP_M_S2 VIBE_CLIP_M_S2   /* one limit: VIBRATION counts the same clips */
/* The fastest each slow sensor is taken at: a source marking every sample
 * fresh at the IMU's rate (as simulators commonly do) is averaged down to
 * this (ArduPilot's EKF takes at most 20 Hz of each; these are the rates the
 * filter was tuned at: fulmar-sim's barometer, compass and pitot). */
#define ESTIM_BARO_MAX_HZ 50.0f
#define ESTIM_MAG_MAX_HZ 100.0f
#define ESTIM_TAS_MAX_HZ 50.0f
/* The sensor's reading is reported (vehicle_state.airspeed_meas_m_s) this long after it. */
#define ESTIM_TAS_MEAS_AGE_S 0.5f

struct estim_config {
	float filter_rate_hz;   /* prediction rate, 50..400; default 200 (at most the IMU's rate in effect) */
	float imu_rate_hz;      /* the IMU's rate if known (a first guess, 50..2000);
	                         * default 0: learnt from the samples' time stamps */
	/* sensor delays (measurement time = arrival - delay), ms, 0..300 */
	float gps_delay_ms;     /* default 150 (the simulator; ArduPilot uses 220);
	                         * GPS at 1-10 Hz */
	float baro_delay_ms, mag_delay_ms, airspeed_delay_ms;
	/* process noise, spectral densities */
	float gyro_nsd;         /* rad/s/sqrt(Hz) */
	float accel_nsd;        /* m/s^2/sqrt(Hz) */
	float gyro_bias_nsd;    /* rad/s^2/sqrt(Hz) */
	float gyro_scale_nsd;   /* 1/s/sqrt(Hz): the scale factor's random walk */
	float accel_bias_nsd;   /* m/s^3/sqrt(Hz) */
	float mag_earth_nsd, mag_body_nsd; /* gauss/s/sqrt(Hz) */
	float wind_nsd;         /* m/s^2/sqrt(Hz) */
	float pos_nsd_dr;       /* m/sqrt(s): air-mass motion while dead reckoning */
	float baro_bias_nsd;    /* m/s/sqrt(Hz) */
	/* measurement noise (1 sigma) */
	float gps_pos_noise_m;  /* floor; the fix's h_acc is used when larger */
	float gps_vel_noise_m_s;/* floor; s_acc when larger */
	float gps_hgt_noise_m;  /* floor; 1.5 v_acc when larger */
	float baro_noise_m;
	float mag_noise_gauss;
	float tas_noise_m_s;
	float beta_noise_rad;
	float decl_noise_rad;   /* the earth field's declination held to the configured one */
	/* innovation gates, in standard deviations */
	float gps_pos_gate, gps_vel_gate, hgt_gate, mag_gate, tas_gate, beta_gate;
	/* GPS acceptance */
	int gps_min_sats;
	float gps_max_h_acc_m;  /* fixes reporting worse are not used */
	float gps_max_dist_m;   /* from the origin: farther is absurd */
	float gps_glitch_reset_s; /* position innovations failing this long: reset to GPS */
	float gps_timeout_s;    /* no fix this long: GPS lost (at least 2.5 of the GPS's
	                         * intervals, so a 1 Hz receiver is not lost between fixes) */
	/* other */
	float mag_declination_deg; /* true = magnetic + declination; NAN (default): unknown,
	                            * the earth field's direction is learnt in flight */
	float min_airspeed_m_s; /* airspeed and sideslip fusion above this */
	bool use_mag, use_airspeed, use_beta, use_gps_hgt;
	float hgt_disagree_reset_s; /* baro failing its gate this long: rebase it */
	float output_tau_s;     /* output predictor correction time constant */
	/* The airspeed sensor's health check (estim_airspeed.c), ArduPilot's
	 * parameters: ARSPD_OPTIONS (enum estim_arsp_option bits), ARSPD_WIND_MAX
	 * (m/s: |airspeed - ground speed| over it is implausible; 0: not
	 * checked), ARSPD_WIND_WARN (m/s: warn over it; 0: ARSPD_WIND_MAX's),
	 * ARSPD_WIND_GATE (sigmas: the airspeed against the reference wind's
	 * synthetic airspeed, with bit 3). Default 11, 0, 0, 5 as ArduPlane's. */
	uint32_t arsp_options;
	float arsp_wind_max_m_s, arsp_wind_warn_m_s, arsp_wind_gate;
};

/* ARSPD_OPTIONS bits (ArduPilot's; bit 2, voltage correction, has no meaning here). */
enum estim_arsp_option {
	ESTIM_ARSP_DISABLE = 1u << 0,     /* an unhealthy sensor is no longer used */
	ESTIM_ARSP_REENABLE = 1u << 1,    /* and is used again when healthy again */
	ESTIM_ARSP_CONSISTENCY = 1u << 3, /* the check against the wind's synthetic airspeed */
};

/* What the airspeed check found (estim_get_status). */
struct estim_arsp_health {
	float prob;             /* the health probability, 0..1 (1 at the start) */
	float test_ratio;       /* |airspeed - synthetic| / its sigma, at the last check */
	float speed_diff_m_s;   /* |airspeed - ground speed| at the last check */
	float synthetic_m_s;    /* the reference wind's airspeed |v - w_ref| at the last check */
	float wind_ref_ne_m_s[2]; /* the reference wind (see docs/estimator.md) */
	bool disabled;          /* declared unhealthy: not fused; the airspeed is |v - w| */
	uint32_t disables, enables, warnings; /* how often it was disabled, re-enabled, warned of */
	uint32_t gps_fallbacks; /* of the enables, those because the GPS was lost */
	uint64_t last_check_us, last_sample_us, last_warn_us; /* delayed-horizon times */
	uint64_t withheld_us;   /* the last sample not fused for failing the check's test */
	uint64_t agree_since_us; /* withheld: since when the samples agree closely (0: not) */
	float observed_s;       /* how long the filter's wind has been observed (variance under 1) */
	bool ref_set;
	bool sample_bad;        /* the last sample failed the check's test */
	bool withholding;       /* the last sample was not fused for the check's doubt */
};

struct estim_innov {
	float innov[3];         /* measured - predicted */
	float var[3];           /* innovation variance */
	float test_ratio;       /* max over components of innov^2/(gate^2 var); > 1 rejected */
	uint32_t fused, rejected, invalid; /* samples */
	uint64_t last_fused_us; /* measurement time of the last fused sample */
};

enum estim_sensor {
	ESTIM_GPS_POS = 0,
	ESTIM_GPS_VEL,
	ESTIM_GPS_HGT,
	ESTIM_BARO,
	ESTIM_MAG,
	ESTIM_TAS,
	ESTIM_BETA,
	ESTIM_SENSOR_COUNT,
};

enum estim_health {
	ESTIM_H_ALIGNED = 1u << 0,        /* tilt initialised, filter running */
	ESTIM_H_YAW_ALIGNED = 1u << 1,    /* heading from the compass or the GPS course */
	ESTIM_H_CONVERGED = 1u << 2,      /* what the arming checks want */
	ESTIM_H_ORIGIN_SET = 1u << 3,
	ESTIM_H_GPS_USED = 1u << 4,       /* GPS position fused within gps_timeout_s */
	ESTIM_H_GPS_GLITCH = 1u << 5,     /* GPS position failing the gate now */
	ESTIM_H_DEAD_RECKONING = 1u << 6, /* origin set, GPS position not in use */
	ESTIM_H_MAG_USED = 1u << 7,
	ESTIM_H_MAG_REJECTING = 1u << 8,  /* interference: compass failing its gate */
	ESTIM_H_BARO_USED = 1u << 9,
	ESTIM_H_BARO_FAULT = 1u << 10,    /* no valid baro for 1 s (or a stuck one), or failing its gate */
	ESTIM_H_HGT_DISAGREE = 1u << 11,  /* baro rebased to the filter height within 10 s */
	ESTIM_H_AIRSPEED_USED = 1u << 12,
	ESTIM_H_BETA_USED = 1u << 13,
	ESTIM_H_IMU_BAD = 1u << 14,       /* non-finite or absurd samples within 1 s */
	ESTIM_H_IMU_FROZEN = 1u << 15,    /* identical samples: a stuck sensor (coasted through: no attitude) */
	ESTIM_H_NUMERIC = 1u << 16,       /* a covariance fault caught within 10 s */
	ESTIM_H_CONST_POS = 1u << 17,     /* no origin yet: position held */
	ESTIM_H_MOVING_ALIGN = 1u << 18,  /* aligned while moving (in the air): tilt from
	                                   * the specific force less the turn's acceleration */
	ESTIM_H_AIRSPEED_UNHEALTHY = 1u << 19, /* the airspeed sensor declared unhealthy (not fused) */
};

/* The EKF_STATUS_REPORT flags word (ArduPilot's EKF_STATUS_FLAGS). */
enum estim_ekf_flags {
	ESTIM_EKF_ATTITUDE = 1,
	ESTIM_EKF_VELOCITY_HORIZ = 2,
	ESTIM_EKF_VELOCITY_VERT = 4,
	ESTIM_EKF_POS_HORIZ_REL = 8,
	ESTIM_EKF_POS_HORIZ_ABS = 16,
	ESTIM_EKF_POS_VERT_ABS = 32,
	ESTIM_EKF_POS_VERT_AGL = 64,
	ESTIM_EKF_CONST_POS_MODE = 128,
	ESTIM_EKF_PRED_POS_HORIZ_REL = 256,
	ESTIM_EKF_PRED_POS_HORIZ_ABS = 512,
	ESTIM_EKF_UNINITIALIZED = 1024,
	ESTIM_EKF_GPS_GLITCHING = 32768,
};

struct estim_counters {
	uint32_t steps;         /* filter predictions on the delayed horizon */
	uint32_t imu_invalid;   /* raw samples rejected (non-finite, absurd, bad time) */
	uint32_t imu_gaps;      /* intervals over 5 of the IMU's: lost samples or a stall;
	                         * such a sample is held for one interval only */
	uint32_t imu_frozen;    /* raw samples taken as stuck (coasted through) */
	uint32_t baro_frozen;   /* baro samples refused as stuck (one pressure for 2 s) */
	uint32_t accel_clipped; /* raw samples with an axis at the accelerometer's full scale */
	uint32_t gps_invalid, baro_invalid, mag_invalid, airspeed_invalid;
	uint32_t obs_dropped;   /* pending-sample buffers full */
	uint32_t obs_averaged;  /* baro, compass, airspeed samples averaged into the one before
	                         * (arriving faster than ESTIM_*_MAX_HZ) */
	uint32_t obs_late;      /* samples older than the delayed horizon */
	uint32_t numeric_faults;
	uint32_t pos_resets, vel_resets, yaw_resets, baro_resets;
};

struct estim_status {
	uint32_t health;        /* enum estim_health */
	uint16_t ekf_flags;     /* enum estim_ekf_flags */
	struct estim_innov innov[ESTIM_SENSOR_COUNT];
	struct estim_counters count;
	float var_diag[ESTIM_NSTATES]; /* covariance diagonal */
	float tilt_sigma_rad, yaw_sigma_rad;
	float pos_sigma_m, hgt_sigma_m, vel_sigma_m_s;
	float gyro_bias_rad_s[3], accel_bias_m_s2[3];
	float mag_earth_gauss[3], mag_body_gauss[3];
	float wind_ne_m_s[2];
	float baro_bias_m;
	uint64_t delayed_t_us;  /* time of the filter's (delayed) state */
	struct estim_arsp_health arsp;
};

/* The nominal state at one time. */
struct estim_nav {
	float q[4];             /* body to NED, w x y z */
	float vel[3], pos[3];
	float gyro_bias[3], accel_bias[3];
	float mag_earth[3], mag_body[3];
	float wind[2];
	float baro_bias;
	float gyro_scale[3];
};

struct estim_imu_step {         /* one filter period */
	uint64_t t_us;          /* end of the interval */
	float dang[3], dvel[3]; /* from the accumulator */
	float dt_s;
	float clip_s;           /* of it, time the accelerometer spent clipped */
	float coast_s;          /* ... and the IMU stuck, coasted through */
};

struct estim_out {              /* output predictor state at one time */
	float q[4];
	float vel[3], pos[3];
};

struct estim_obs {              /* a pending baro, compass or airspeed sample */
	uint64_t t_us;          /* measurement time */
	float v[3];
};

struct estim_decim {            /* a slow sensor's samples averaged to its rate */
	uint64_t next_us;       /* when the next average falls due (0: at once) */
	uint64_t t0_us;         /* the first sample's measurement time in this average */
	uint64_t dt_sum_us;     /* the sum of the samples' times after t0_us */
	float sum[3];
	uint32_t n;
};

struct estim_gps_obs {
	uint64_t t_us;
	float pos[3];           /* NED from the origin */
	float vel[3];
	float h_acc, v_acc, s_acc;
	bool vel_d_valid;
};

/* The EKF_STATUS_REPORT message's fields, ArduPilot's convention. */
struct estim_ekf_report {
	uint16_t flags;         /* enum estim_ekf_flags */
	float velocity_variance, pos_horiz_variance, pos_vert_variance;
	float compass_variance, terrain_alt_variance, airspeed_variance;
};

/* Caller storage; members are private to the estimator (src/estim/estim*.c). */
struct estim {
	struct estim_config cfg;
	/* raw IMU intake */
	struct estim_accum accum;
	uint64_t imu_last_us;
	float imu_dt_s;         /* the IMU's interval, learnt from its stamps (0: not yet) */
	uint64_t pause_us;      /* source pauses said (estim_source_paused), not yet met in the stamps */
	uint64_t shifted_us;    /* the last pause's jump, taken out of the filter's time (shift_time) */
	uint64_t shift_edge_us; /* stamps before this are from before that jump (estim_sample_time) */
	uint32_t imu_gap_run;   /* gaps in a row: eight mean the rate itself changed */
	float imu_last_raw[6];
	uint32_t imu_same_count;
	uint64_t imu_bad_us, imu_frozen_us;
	uint64_t next_step_us;  /* when the next filter step falls due */
	float clip_pending_s;   /* clipped time in the step being accumulated */
	float clip_run_s;       /* clipped time in the run of clipped steps on the delayed horizon */
	float coast_pending_s;  /* stuck time in the step being accumulated */
	float coast_run_s;      /* ... in the run of coasted steps on the delayed horizon */
	float rate_rad_s[3];    /* last bias-corrected body rate */
	/* delayed-horizon buffers (rings, head = oldest) */
	struct estim_imu_step imu_buf[ESTIM_IMU_BUF];
	struct estim_out out_buf[ESTIM_IMU_BUF];
	unsigned int imu_head, imu_count;
	struct estim_obs baro_buf[ESTIM_OBS_BUF], mag_buf[ESTIM_OBS_BUF], tas_buf[ESTIM_OBS_BUF];
	unsigned int baro_head, baro_count, mag_head, mag_count, tas_head, tas_count;
	struct estim_decim baro_dec, mag_dec, tas_dec;
	struct estim_gps_obs gps_buf[ESTIM_GPS_BUF];
	unsigned int gps_head, gps_count;
	/* filter */
	struct estim_nav x;     /* at the delayed time */
	float P[ESTIM_NSTATES][ESTIM_NSTATES];
	uint64_t t_delayed_us;
	bool running;           /* aligned and predicting */
	/* output predictor: current time */
	struct estim_out out;
	uint64_t t_now_us;
	bool replayed;          /* output buffer rebuilt during this step */
	/* alignment */
	float align_acc[3], align_gyro[3], align_mag[3];
	uint32_t align_mag_n;
	float align_time_s;
	bool yaw_aligned, ever_aligned;
	/* alignment while moving: the sums held in the present body frame */
	float mov_grav[3], mov_mag[3];  /* specific force less the turn's acceleration (m/s), field */
	uint32_t mov_mag_n;
	float mov_time_s;
	float mov_speed0;       /* the speed at the window's start, m/s */
	bool moving_aligned;    /* the last alignment was made while moving */
	float gps_vel_pre[3];   /* the last valid fix's velocity before alignment */
	uint32_t fake_pos_div;  /* constant-position fusion decimation */
	/* origin (WGS84) and reference heights */
	bool origin_set;
	double origin_lat_deg, origin_lon_deg;
	double origin_alt_m;    /* altitude MSL of NED z = 0 */
	double m_per_deg_lat, m_per_deg_lon;
	bool baro_ref_set;
	float baro_ref_m;       /* baro height of NED z = 0 */
	float air_density;      /* from the last baro, kg/m^3 */
	float baro_temp_k;
	float baro_last_pa;     /* the last pressure, and since when it has come */
	uint64_t baro_same_since_us;
	/* modes and timers */
	bool wind_active;
	bool mag_active;
	uint64_t gps_fail_since_us, baro_fail_since_us, mag_fail_since_us;
	uint64_t hgt_reset_us, last_baro_valid_us;
	float tas_last_m_s;
	float tas_meas_m_s;     /* the airspeed sensor's latest reading (TAS), as it came */
	uint64_t tas_meas_us;   /* its sample time (0: none yet) */
	struct estim_arsp_health arsp;
	float hold_pos[3];      /* constant-position mode */
	uint64_t gps_last_valid_us;
	uint64_t gps_prev_obs_us; /* measurement time of the previous fix used or rejected */
	uint64_t gps_prev_valid_us; /* arrival of the previous valid fix */
	float gps_dt_s;         /* the GPS's interval between fixes, learnt (0: not yet) */
	/* reporting */
	struct estim_innov innov[ESTIM_SENSOR_COUNT];
	struct estim_counters count;
	uint64_t numeric_us;
};

void estim_config_default(struct estim_config *cfg);
/* Start (or restart) the filter: not aligned, no origin. cfg is copied;
 * rates and delays are clamped to what the buffers hold. */
void estim_init(struct estim *e, const struct estim_config *cfg);

/* One raw IMU sample (body FRD, SI units), at any rate from 50 to 2000 Hz:
 * it is integrated over the interval since the one before, from the time
 * stamps. An interval over five of the IMU's own (learnt from the stamps) is
 * a gap, counted, over which the sample is held for one interval only.
 * Rejects and counts non-finite or absurd samples, time going backwards and
 * stuck (repeated) samples. When a filter period has accumulated, runs one
 * prediction (and whatever fusions fall due on the delayed horizon); an IMU
 * slower than the filter makes a step of every sample. Returns 1 when a
 * filter step ran, 0 when only accumulated, -EINVAL when the sample was
 * rejected. */
int estim_push_imu(struct estim *e, const struct imu_sample *s);

/* The samples' source paused for d_us that did not pass for the aircraft
 * (a real-time HIL simulator's stall, over which its time stood still and
 * the stamps' clock was re-anchored): the next IMU interval longer than one
 * sample is that much shorter, and every time the filter holds moves on by
 * it, so nothing seems older for it (no GPS loss, no sensor timeout).
 * Unlike a gap, where time passed unseen. Call it before the sample after
 * the pause; pauses said add up until met. */
void estim_source_paused(struct estim *e, uint64_t d_us);

/* One filter step from caller-made deltas (dang rad, dvel m/s in the body
 * frame at the interval's start, dt_s seconds ending at t_us). estim_push_imu
 * calls this; a caller with its own accumulator may call it instead.
 * Returns 1, or -EINVAL for non-finite deltas or dt_s outside (0, 0.1). */
int estim_predict(struct estim *e, const float dang_rad[3], const float dvel_m_s[3], float dt_s, uint64_t t_us);

/* Sensor samples as they arrive (t_us = arrival; the configured delay is
 * subtracted). Baro, compass and airspeed faster than ESTIM_*_MAX_HZ (or
 * than the delay buffer holds) are averaged down to it, each average at its
 * samples' mean time. Return 0 when queued (or averaged in), -EINVAL when
 * rejected as absurd (counted), -EAGAIN when the filter is not running yet
 * (used for alignment). */
int estim_push_baro(struct estim *e, const struct baro_sample *s);
int estim_push_mag(struct estim *e, const struct mag_sample *s);
int estim_push_airspeed(struct estim *e, const struct airspeed_sample *s);
int estim_push_gps(struct estim *e, const struct gps_fix *f);

/* The declination (true = magnetic + declination, degrees east; the World
 * Magnetic Model's where the aircraft is) known from now on, with sigma_deg
 * of uncertainty (0.1..30), replacing mag_declination_deg (NAN: it was
 * unknown, the earth field's direction being learnt). Before alignment the
 * alignment takes it. Aligned on the compass: the heading and the earth field
 * turn together about down onto it (the compass sees no change), the
 * heading's variance becomes the heading's own relative to the field plus
 * sigma_deg^2, and the declination constraint holds the field to it from the
 * next compass sample. Returns 0, or -EINVAL (nothing changed) for a
 * non-finite or out-of-range argument. */
int estim_set_declination(struct estim *e, float decl_deg, float sigma_deg);

/* The current-time estimate for the vehicle-state topic. */
void estim_get_state(const struct estim *e, struct vehicle_state *out);
/* Innovations, test ratios, variances, counters, health and EKF flags. */
void estim_get_status(const struct estim *e, struct estim_status *out);
uint16_t estim_ekf_flags(const struct estim *e);
/* EKF_STATUS_REPORT: the flags and the square roots of the last innovation
 * test ratios (velocity, horizontal position, height, compass, airspeed). */
void estim_get_ekf_report(const struct estim *e, struct estim_ekf_report *out);
/* The filter's accelerometer bias, body axes, m/s/s: what it takes off each
 * sample before integrating (zero before the filter has learnt any). */
void estim_get_accel_bias(const struct estim *e, float accel_bias_m_s2[3]);
uint32_t estim_health(const struct estim *e);
/* The airspeed sensor's health check (without the rest of the status). */
void estim_get_arsp(const struct estim *e, struct estim_arsp_health *out);
/*
 * The filter's own solution at its delayed horizon (the fused state, before
 * the output predictor brings it forward to now): the body-to-NED quaternion
 * (w x y z), the position from the origin and its time. False while the
 * filter is not running.
 */
bool estim_get_delayed(const struct estim *e, float q[4], float pos_ned_m[3], uint64_t *t_us);
/* Attitude, heading and (if GPS is in use) position have converged and
 * nothing is faulted: the arming check. */
bool estim_is_converged(const struct estim *e);

/* Local NED (from the origin) to WGS84 and back; -ENODATA before the origin is set. */
int estim_ned_to_wgs84(const struct estim *e, const float ned_m[3], double *lat_deg, double *lon_deg,
		       float *alt_msl_m);
int estim_wgs84_to_ned(const struct estim *e, double lat_deg, double lon_deg, float alt_msl_m, float ned_m[3]);

#endif
