// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What the estimator tells: its health word, the EKF_STATUS_REPORT flags
 * and report, the convergence the arming checks want, the status for
 * telemetry and the log, the delayed solution, and the current-time
 * vehicle state.
 */
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

static float sqrt_pos(float v)
{
	return v > 0.0f ? sqrtf(v) : 0.0f;
}

uint32_t estim_health(const struct estim *e)
{
	uint64_t t = e->t_delayed_us, now = e->t_now_us;
	uint32_t h = 0;
	if (e->running)
		h |= ESTIM_H_ALIGNED;
	if (e->running && e->yaw_aligned)
		h |= ESTIM_H_YAW_ALIGNED;
	if (e->origin_set)
		h |= ESTIM_H_ORIGIN_SET;
	bool gps = estim_recent(t, e->innov[ESTIM_GPS_POS].last_fused_us, estim_gps_timeout_s(e));
	if (gps)
		h |= ESTIM_H_GPS_USED;
	if (e->gps_fail_since_us)
		h |= ESTIM_H_GPS_GLITCH;
	if (e->origin_set && !gps)
		h |= ESTIM_H_DEAD_RECKONING;
	if (e->running && !e->origin_set)
		h |= ESTIM_H_CONST_POS;
	if (e->running && e->moving_aligned)
		h |= ESTIM_H_MOVING_ALIGN;
	if (estim_recent(t, e->innov[ESTIM_MAG].last_fused_us, 1.0f))
		h |= ESTIM_H_MAG_USED;
	if (e->mag_fail_since_us)
		h |= ESTIM_H_MAG_REJECTING;
	if (estim_recent(t, e->innov[ESTIM_BARO].last_fused_us, 1.0f))
		h |= ESTIM_H_BARO_USED;
	if (e->running && (e->baro_fail_since_us || !estim_recent(now, e->last_baro_valid_us, 1.0f)))
		h |= ESTIM_H_BARO_FAULT;
	if (estim_recent(t, e->hgt_reset_us, 10.0f))
		h |= ESTIM_H_HGT_DISAGREE;
	if (estim_recent(t, e->innov[ESTIM_TAS].last_fused_us, 1.0f))
		h |= ESTIM_H_AIRSPEED_USED;
	if (estim_recent(t, e->innov[ESTIM_BETA].last_fused_us, 1.0f))
		h |= ESTIM_H_BETA_USED;
	if (e->arsp.disabled)
		h |= ESTIM_H_AIRSPEED_UNHEALTHY;
	if (estim_recent(now, e->imu_bad_us, 1.0f) || (e->imu_bad_us && e->imu_bad_us > e->t_now_us))
		h |= ESTIM_H_IMU_BAD;
	if (e->imu_frozen_us && e->imu_frozen_us >= e->t_now_us)
		h |= ESTIM_H_IMU_FROZEN;
	if (estim_recent(now, e->numeric_us, 10.0f))
		h |= ESTIM_H_NUMERIC;
	if (estim_is_converged(e))
		h |= ESTIM_H_CONVERGED;
	return h;
}

static float tilt_sigma(const struct estim *e)
{
	return sqrt_pos(fmaxf(e->P[0][0], e->P[1][1]));
}

bool estim_is_converged(const struct estim *e)
{
	if (!e->running || !e->yaw_aligned)
		return false;
	if (e->imu_frozen_us && e->imu_frozen_us >= e->t_now_us)
		return false;
	if (tilt_sigma(e) > 2.0f * DEG2RAD || sqrt_pos(e->P[2][2]) > 10.0f * DEG2RAD)
		return false;
	for (int i = 0; i < 3; i++)
		if (sqrt_pos(e->P[ESTIM_S_GYRO_BIAS + i][ESTIM_S_GYRO_BIAS + i]) > 0.5f * DEG2RAD)
			return false;
	if (e->origin_set) {
		if (!estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_POS].last_fused_us, estim_gps_timeout_s(e)))
			return false;
		if (e->gps_fail_since_us)
			return false;
		if (sqrt_pos(e->P[6][6] + e->P[7][7]) > 5.0f || sqrt_pos(e->P[3][3] + e->P[4][4]) > 1.0f)
			return false;
	}
	return true;
}

uint16_t estim_ekf_flags(const struct estim *e)
{
	uint32_t h = estim_health(e);
	uint16_t f = 0;
	if (!e->ever_aligned)
		return ESTIM_EKF_UNINITIALIZED;
	bool att = e->running && !(h & ESTIM_H_IMU_FROZEN) && tilt_sigma(e) < 5.0f * DEG2RAD;
	if (!att)
		return f;
	f |= ESTIM_EKF_ATTITUDE;
	bool gps = h & ESTIM_H_GPS_USED;
	bool dr = (h & ESTIM_H_DEAD_RECKONING) && (h & ESTIM_H_AIRSPEED_USED) && e->wind_active;
	float pos_sigma = sqrt_pos(e->P[6][6] + e->P[7][7]);
	if (gps || dr)
		f |= ESTIM_EKF_VELOCITY_HORIZ | ESTIM_EKF_POS_HORIZ_REL;
	if (e->origin_set && (gps || (dr && pos_sigma < 50.0f)))
		f |= ESTIM_EKF_POS_HORIZ_ABS;
	if ((h & ESTIM_H_BARO_USED) || estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_HGT].last_fused_us, 2.0f))
		f |= ESTIM_EKF_VELOCITY_VERT | ESTIM_EKF_POS_VERT_ABS | ESTIM_EKF_POS_VERT_AGL;
	if (h & ESTIM_H_CONST_POS)
		f |= ESTIM_EKF_CONST_POS_MODE;
	bool gps_ok = estim_recent(e->t_now_us, e->gps_last_valid_us, estim_gps_timeout_s(e) + 0.5f);
	if ((f & ESTIM_EKF_POS_HORIZ_REL) || gps_ok)
		f |= ESTIM_EKF_PRED_POS_HORIZ_REL;
	if ((f & ESTIM_EKF_POS_HORIZ_ABS) || gps_ok)
		f |= ESTIM_EKF_PRED_POS_HORIZ_ABS;
	if (h & ESTIM_H_GPS_GLITCH)
		f |= ESTIM_EKF_GPS_GLITCHING;
	return f;
}

bool estim_get_delayed(const struct estim *e, float q[4], float pos_ned_m[3], uint64_t *t_us)
{
	if (!e->running)
		return false;
	memcpy(q, e->x.q, 4 * sizeof(float));
	memcpy(pos_ned_m, e->x.pos, 3 * sizeof(float));
	*t_us = e->t_delayed_us;
	return true;
}

void estim_get_status(const struct estim *e, struct estim_status *out)
{
	memset(out, 0, sizeof(*out));
	out->health = estim_health(e);
	out->ekf_flags = estim_ekf_flags(e);
	memcpy(out->innov, e->innov, sizeof(out->innov));
	out->count = e->count;
	for (int i = 0; i < N; i++)
		out->var_diag[i] = e->P[i][i];
	out->tilt_sigma_rad = tilt_sigma(e);
	out->yaw_sigma_rad = sqrt_pos(e->P[2][2]);
	out->pos_sigma_m = sqrt_pos(e->P[6][6] + e->P[7][7]);
	out->hgt_sigma_m = sqrt_pos(e->P[8][8]);
	out->vel_sigma_m_s = sqrt_pos(e->P[3][3] + e->P[4][4] + e->P[5][5]);
	memcpy(out->gyro_bias_rad_s, e->x.gyro_bias, sizeof(out->gyro_bias_rad_s));
	memcpy(out->accel_bias_m_s2, e->x.accel_bias, sizeof(out->accel_bias_m_s2));
	memcpy(out->mag_earth_gauss, e->x.mag_earth, sizeof(out->mag_earth_gauss));
	memcpy(out->mag_body_gauss, e->x.mag_body, sizeof(out->mag_body_gauss));
	memcpy(out->wind_ne_m_s, e->x.wind, sizeof(out->wind_ne_m_s));
	out->baro_bias_m = e->x.baro_bias;
	out->delayed_t_us = e->t_delayed_us;
	out->arsp = e->arsp;
}

void estim_get_state(const struct estim *e, struct vehicle_state *out)
{
	memset(out, 0, sizeof(*out));
	uint16_t f = estim_ekf_flags(e);
	uint32_t h = estim_health(e);
	out->t_us = e->t_now_us;
	memcpy(out->q, e->out.q, sizeof(out->q));
	em_quat_to_euler(e->out.q, &out->roll_rad, &out->pitch_rad, &out->yaw_rad);
	memcpy(out->rate_rad_s, e->rate_rad_s, sizeof(out->rate_rad_s));
	memcpy(out->vel_ned_m_s, e->out.vel, sizeof(out->vel_ned_m_s));
	if (e->origin_set) {
		estim_ned_to_wgs84(e, e->out.pos, &out->lat_deg, &out->lon_deg, &out->alt_msl_m);
	} else {
		out->lat_deg = out->lon_deg = NAN;
		out->alt_msl_m = NAN;
	}
	out->alt_rel_m = -e->out.pos[2];
	float u[3] = { e->out.vel[0] - e->x.wind[0], e->out.vel[1] - e->x.wind[1], e->out.vel[2] };
	out->airspeed_m_s = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	/* the sensor's own reading, within ESTIM_TAS_MEAS_AGE_S either side of
	 * now; not one the health check doubts or has disabled */
	uint64_t age = e->t_now_us > e->tas_meas_us ? e->t_now_us - e->tas_meas_us : e->tas_meas_us - e->t_now_us;
	out->airspeed_meas_m_s = e->cfg.use_airspeed && !e->arsp.disabled &&
				 !estim_recent(e->t_delayed_us, e->arsp.withheld_us, 1.0f) && e->tas_meas_us != 0 &&
				 (float)age * 1e-6f < ESTIM_TAS_MEAS_AGE_S ? e->tas_meas_m_s : NAN;
	memcpy(out->wind_ne_m_s, e->x.wind, sizeof(out->wind_ne_m_s));
	out->pos_sigma_m = sqrt_pos(e->P[6][6] + e->P[7][7]);
	if (f & ESTIM_EKF_ATTITUDE)
		out->valid |= VEHICLE_ATTITUDE_VALID;
	if (f & ESTIM_EKF_POS_VERT_ABS)
		out->valid |= VEHICLE_ALTITUDE_VALID;
	if ((f & ESTIM_EKF_POS_HORIZ_ABS) && (f & ESTIM_EKF_VELOCITY_HORIZ))
		out->valid |= VEHICLE_POSITION_VALID;
	/* A sensor declared unhealthy, or withheld while the check doubts it,
	 * leaves the synthetic airspeed |v - w|, valid while the wind is kept
	 * and the velocity is the GPS's. */
	bool synthetic = (h & ESTIM_H_AIRSPEED_UNHEALTHY) ||
			 estim_recent(e->t_delayed_us, e->arsp.withheld_us, 1.0f);
	if ((h & ESTIM_H_AIRSPEED_USED) || (synthetic && (h & ESTIM_H_GPS_USED) && e->wind_active))
		out->valid |= VEHICLE_AIRSPEED_VALID;
	if ((out->valid & VEHICLE_AIRSPEED_VALID) && e->arsp.disabled)
		out->valid |= VEHICLE_AIRSPEED_SYNTHETIC;
	if (e->wind_active && e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] < 4.0f)
		out->valid |= VEHICLE_WIND_VALID;
}

void estim_get_arsp(const struct estim *e, struct estim_arsp_health *out)
{
	*out = e->arsp;
}

void estim_get_accel_bias(const struct estim *e, float accel_bias_m_s2[3])
{
	memcpy(accel_bias_m_s2, e->x.accel_bias, 3 * sizeof(float));
}

void estim_get_ekf_report(const struct estim *e, struct estim_ekf_report *out)
{
	memset(out, 0, sizeof(*out));
	out->flags = estim_ekf_flags(e);
	/* ArduPilot reports the square roots of the innovation test ratios:
	 * below 0.5 good, 0.5-0.8 marginal, 1 and above rejected */
	const struct estim_innov *in = e->innov;
	out->velocity_variance = sqrt_pos(in[ESTIM_GPS_VEL].test_ratio);
	out->pos_horiz_variance = sqrt_pos(in[ESTIM_GPS_POS].test_ratio);
	out->pos_vert_variance = sqrt_pos(fmaxf(in[ESTIM_BARO].test_ratio, in[ESTIM_GPS_HGT].test_ratio));
	out->compass_variance = sqrt_pos(in[ESTIM_MAG].test_ratio);
	out->terrain_alt_variance = 0.0f;
	out->airspeed_variance = sqrt_pos(in[ESTIM_TAS].test_ratio);
}
