// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * GPS: the fixes' intake (checks, the receiver's interval, the origin set by
 * the first fix, local NED and WGS84), and their fusion on the delayed
 * horizon: position, velocity and height, the first fix taken as it is, the
 * heading from the ground course without a compass, and the resets after a
 * loss or a persisting jump.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

static float row_gps_vel(const struct estim *e, int row, const void *meas, float h[N])
{
	const struct estim_gps_obs *g = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_VEL + row] = 1.0f;
	return g->vel[row] - e->x.vel[row];
}

static float row_gps_pos(const struct estim *e, int row, const void *meas, float h[N])
{
	const struct estim_gps_obs *g = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + row] = 1.0f;
	return g->pos[row] - e->x.pos[row];
}

static float row_gps_hgt(const struct estim *e, int row, const void *meas, float h[N])
{
	const struct estim_gps_obs *g = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + 2] = -1.0f;
	return -g->pos[2] - -e->x.pos[2];
}

/* ---- resets ----------------------------------------------------------- */

static void reset_pos_ne(struct estim *e, const float pos[3], float var)
{
	e->x.pos[0] = pos[0];
	e->x.pos[1] = pos[1];
	estim_cov_reset(e, ESTIM_S_POS, 2, var);
	e->count.pos_resets++;
}

static void reset_vel(struct estim *e, const float vel[3], int n, float var)
{
	for (int i = 0; i < n; i++)
		e->x.vel[i] = vel[i];
	estim_cov_reset(e, ESTIM_S_VEL, n, var);
	e->count.vel_resets++;
}

/* Yaw to a new value about NED down, keeping roll and pitch. */
static void reset_yaw(struct estim *e, float yaw, float var)
{
	float r, p, y;
	em_quat_to_euler(e->x.q, &r, &p, &y);
	float dz[3] = { 0.0f, 0.0f, em_wrap_pi(yaw - y) };
	float dq[4];
	em_quat_from_rotvec(dz, dq);
	em_quat_mul(dq, e->x.q, e->x.q);
	em_quat_normalize(e->x.q);
	float tilt0 = e->P[0][0], tilt1 = e->P[1][1];
	estim_cov_reset(e, ESTIM_S_ATT, 3, var);
	e->P[0][0] = tilt0;
	e->P[1][1] = tilt1;
	e->count.yaw_resets++;
}

/* ---- fusion on the delayed horizon ------------------------------------ */

void estim_fuse_gps(struct estim *e, const struct estim_gps_obs *g)
{
	const struct estim_config *c = &e->cfg;
	float vn = fmaxf(c->gps_vel_noise_m_s, isfinite(g->s_acc) ? g->s_acc : 0.0f);
	float pn = fmaxf(c->gps_pos_noise_m, isfinite(g->h_acc) ? g->h_acc : 0.0f);
	float hn = fmaxf(c->gps_hgt_noise_m, isfinite(g->v_acc) ? 1.5f * g->v_acc : 0.0f);
	/* lost: no fix at all (valid or not) for the timeout, as opposed to fixes rejected by the gate */
	bool lost = e->gps_prev_obs_us == 0 || (float)(g->t_us - e->gps_prev_obs_us) * 1e-6f > estim_gps_timeout_s(e);
	e->gps_prev_obs_us = g->t_us;
	float speed = sqrtf(g->vel[0] * g->vel[0] + g->vel[1] * g->vel[1]);

	/* No compass: take the heading from the ground course once moving. */
	if (!e->yaw_aligned && speed > 5.0f) {
		reset_yaw(e, atan2f(g->vel[1], g->vel[0]), 0.25f);
		e->yaw_aligned = true;
		reset_vel(e, g->vel, 3, vn * vn);
		if (e->wind_active)
			estim_wind_start(e, e->tas_last_m_s);
		estim_out_replay(e);
	}

	if (e->innov[ESTIM_GPS_POS].fused == 0) {
		/* first use: take position and velocity */
		reset_pos_ne(e, g->pos, pn * pn);
		reset_vel(e, g->vel, g->vel_d_valid ? 3 : 2, vn * vn);
		e->innov[ESTIM_GPS_POS].fused++;
		e->innov[ESTIM_GPS_POS].last_fused_us = g->t_us;
		e->innov[ESTIM_GPS_VEL].last_fused_us = g->t_us;
		estim_out_replay(e);
		return;
	}

	float rv[3] = { vn * vn, vn * vn, 2.25f * vn * vn };
	if (estim_fuse_vector(e, ESTIM_GPS_VEL, g->vel_d_valid ? 3 : 2, row_gps_vel, g, rv, c->gps_vel_gate, g->t_us) ==
		    -ERANGE &&
	    lost) {
		reset_vel(e, g->vel, g->vel_d_valid ? 3 : 2, vn * vn);
		estim_out_replay(e);
	}

	float rp[3] = { pn * pn, pn * pn, 0.0f };
	int rc = estim_fuse_vector(e, ESTIM_GPS_POS, 2, row_gps_pos, g, rp, c->gps_pos_gate, g->t_us);
	if (rc == -ERANGE) {
		if (e->gps_fail_since_us == 0)
			e->gps_fail_since_us = g->t_us;
		/* Returning from a loss, or a jump that persists: trust the GPS. */
		if (lost || (float)(g->t_us - e->gps_fail_since_us) * 1e-6f > c->gps_glitch_reset_s) {
			reset_pos_ne(e, g->pos, pn * pn);
			e->innov[ESTIM_GPS_POS].last_fused_us = g->t_us;
			e->gps_fail_since_us = 0;
			estim_out_replay(e);
		}
	} else if (rc == 0) {
		e->gps_fail_since_us = 0;
	}

	/* The GPS's height when it is the height source, or in the baro's place
	 * while the baro is faulted (none valid for a second: missing or stuck);
	 * when the baro comes back and disagrees for good, its bias is rebased to
	 * this height (estim_baro.c). */
	if (c->use_gps_hgt || !estim_recent(e->t_now_us, e->last_baro_valid_us, 1.0f)) {
		float rh[3] = { hn * hn, 0.0f, 0.0f };
		estim_fuse_vector(e, ESTIM_GPS_HGT, 1, row_gps_hgt, g, rh, c->hgt_gate, g->t_us);
	}
}

/* ---- intake ----------------------------------------------------------- */

static const double WGS84_A = 6378137.0;
static const double WGS84_E2 = 6.69437999014e-3;

static void origin_set(struct estim *e, double lat, double lon, double alt)
{
	double s = sin(lat * M_PI / 180.0);
	double d = 1.0 - WGS84_E2 * s * s;
	double rn = WGS84_A * (1.0 - WGS84_E2) / (d * sqrt(d));   /* meridian */
	double re = WGS84_A / sqrt(d);                            /* prime vertical */
	e->origin_lat_deg = lat;
	e->origin_lon_deg = lon;
	e->origin_alt_m = alt;
	e->m_per_deg_lat = rn * M_PI / 180.0;
	e->m_per_deg_lon = re * cos(lat * M_PI / 180.0) * M_PI / 180.0;
	e->origin_set = true;
}

int estim_wgs84_to_ned(const struct estim *e, double lat_deg, double lon_deg, float alt_msl_m, float ned_m[3])
{
	if (!e->origin_set)
		return -ENODATA;
	double dlon = remainder(lon_deg - e->origin_lon_deg, 360.0);
	ned_m[0] = (float)((lat_deg - e->origin_lat_deg) * e->m_per_deg_lat);
	ned_m[1] = (float)(dlon * e->m_per_deg_lon);
	ned_m[2] = (float)(e->origin_alt_m - (double)alt_msl_m);
	return 0;
}

int estim_ned_to_wgs84(const struct estim *e, const float ned_m[3], double *lat_deg, double *lon_deg,
		       float *alt_msl_m)
{
	if (!e->origin_set)
		return -ENODATA;
	*lat_deg = e->origin_lat_deg + (double)ned_m[0] / e->m_per_deg_lat;
	*lon_deg = remainder(e->origin_lon_deg + (double)ned_m[1] / e->m_per_deg_lon, 360.0);
	*alt_msl_m = (float)(e->origin_alt_m - (double)ned_m[2]);
	return 0;
}

int estim_push_gps(struct estim *e, const struct gps_fix *f)
{
	uint64_t t_us = estim_sample_time(e, f->t_us);
	const struct estim_config *c = &e->cfg;
	bool ok = f->fix == GPS_FIX_3D && f->num_sv >= c->gps_min_sats && isfinite(f->lat_deg) &&
		  isfinite(f->lon_deg) && fabs(f->lat_deg) <= 90.0 && fabs(f->lon_deg) <= 180.0 &&
		  isfinite(f->alt_msl_m) && f->alt_msl_m > -1000.0f && f->alt_msl_m < 20000.0f &&
		  !(f->h_acc_m < 0.0f) && !(f->v_acc_m < 0.0f) && !(f->s_acc_m_s < 0.0f) &&
		  !(f->h_acc_m > c->gps_max_h_acc_m) && !(f->lat_deg == 0.0 && f->lon_deg == 0.0);
	for (int i = 0; i < 3 && ok; i++)
		ok = isfinite(f->vel_ned_m_s[i]) && fabsf(f->vel_ned_m_s[i]) < 150.0f;
	struct estim_gps_obs g;
	memset(&g, 0, sizeof(g));
	if (ok && e->origin_set) {
		estim_wgs84_to_ned(e, f->lat_deg, f->lon_deg, f->alt_msl_m, g.pos);
		if (!(sqrtf(g.pos[0] * g.pos[0] + g.pos[1] * g.pos[1]) < c->gps_max_dist_m))
			ok = false;  /* the other side of the world */
	}
	if (!ok) {
		e->count.gps_invalid++;
		e->innov[ESTIM_GPS_POS].invalid++;
		return -EINVAL;
	}
	/* The receiver's interval, from valid fixes 2 s apart at most (1-10 Hz
	 * receivers; a return after an outage says nothing of the rate). */
	if (e->gps_prev_valid_us && t_us > e->gps_prev_valid_us) {
		float dt = (float)(t_us - e->gps_prev_valid_us) * 1e-6f;
		if (dt <= 2.0f)
			e->gps_dt_s = e->gps_dt_s == 0.0f ? dt : e->gps_dt_s + 0.2f * (dt - e->gps_dt_s);
	}
	e->gps_prev_valid_us = t_us;
	e->gps_last_valid_us = t_us;
	if (!e->running) {
		memcpy(e->gps_vel_pre, f->vel_ned_m_s, sizeof(e->gps_vel_pre));
		if (!f->vel_down_valid)
			e->gps_vel_pre[2] = 0.0f;
		return -EAGAIN;
	}
	if (!e->origin_set) {
		/* Keep the filter's current height: the origin is where z = 0 is. */
		origin_set(e, f->lat_deg, f->lon_deg, (double)f->alt_msl_m + (double)e->x.pos[2]);
		estim_wgs84_to_ned(e, f->lat_deg, f->lon_deg, f->alt_msl_m, g.pos);
	}
	g.t_us = estim_meas_time(t_us, c->gps_delay_ms);
	memcpy(g.vel, f->vel_ned_m_s, sizeof(g.vel));
	g.vel_d_valid = f->vel_down_valid;
	g.h_acc = f->h_acc_m;
	g.v_acc = f->v_acc_m;
	g.s_acc = f->s_acc_m_s;
	if (g.t_us < e->t_delayed_us)
		e->count.obs_late++;
	if (e->gps_count == ESTIM_GPS_BUF) {
		e->gps_head = (e->gps_head + 1) % ESTIM_GPS_BUF;
		e->gps_count--;
		e->count.obs_dropped++;
	}
	e->gps_buf[(e->gps_head + e->gps_count) % ESTIM_GPS_BUF] = g;
	e->gps_count++;
	return 0;
}
