// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Error-state EKF on a delayed horizon. The filter's state x lives at
 * t_delayed = now - horizon (the largest sensor delay), so every measurement is
 * fused at the time it was taken; the output predictor carries a copy forward
 * to the present with the buffered IMU steps and is pulled towards the
 * filter with a time constant (cfg.output_tau_s), so fusions never make the
 * published state jump. docs/estimator.md has the equations in short.
 *
 * Attitude error convention: q_true = exp(dtheta) * q, dtheta in NED.
 */
#include "estim/estim.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_cov.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES
#define G0 9.80665f
#define DEG2RAD ((float)M_PI / 180.0f)
#define UT_TO_GAUSS 0.01f
#define RHO0 1.225f
/* The heading's variance from an alignment on the compass with the declination known. */
#define ALIGN_YAW_VAR (0.1f * 0.1f)
/* At rest the mean specific force is gravity's reaction, read through the
 * accelerometer's turn-on bias and scale error: within this of g. An IMU
 * within its data sheet (biases of 0.02 g, scale 1 %, 3 sigma of each: 0.9
 * m/s^2 together) must align; 0.5 m/s^2 refused some 3 % of them for good
 * (never armed: 6 of 200 campaign flights). */
#define ALIGN_G_TOL_M_S2 1.5f
/* Alignment while moving: above this speed (GPS, else airspeed), over this
 * window, with this tilt variance (tests/unit/test_estim.c measures the
 * error it stands for). */
#define MOVING_ALIGN_M_S 5.0f
#define MOVING_ALIGN_S 1.0f
#define MOVING_TILT_VAR (0.1f * 0.1f)

/* Covariance bounds per state group: variances are kept in [0, max]. */
static const float var_max[N] = {
	1.0f, 1.0f, 1.0f,                       /* attitude, rad^2 */
	1e4f, 1e4f, 1e4f,                       /* velocity */
	1e6f, 1e6f, 1e6f,                       /* position */
	1e-3f, 1e-3f, 1e-3f,                    /* gyro bias */
	1.0f, 1.0f, 1.0f,                       /* accel bias */
	0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f,     /* magnetic fields */
	1e3f, 1e3f,                             /* wind */
	1e4f,                                   /* baro bias */
	0.01f, 0.01f, 0.01f,                    /* gyro scale factors */
};

void estim_config_default(struct estim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->filter_rate_hz = 200.0f;
	c->imu_rate_hz = 0.0f;   /* learnt from the time stamps */
	c->gps_delay_ms = 150.0f;
	c->baro_delay_ms = 0.0f;
	c->mag_delay_ms = 0.0f;
	c->airspeed_delay_ms = 0.0f;
	/* EKF2's per-step sigmas at its 100 Hz step expressed as densities
	 * (sigma * sqrt(0.01 s)), so the filter rate does not change the tuning. */
	c->gyro_nsd = 0.0015f;
	c->accel_nsd = 0.035f;
	c->gyro_bias_nsd = 1e-3f;
	/* A MEMS gyro's scale factor is a few percent off out of the box (MPU6000:
	 * 3 %) and moves with temperature; ArduPilot's EKF2 estimates it too. */
	c->gyro_scale_nsd = 5e-4f;
	c->accel_bias_nsd = 3e-3f;
	c->mag_earth_nsd = 1e-3f;
	c->mag_body_nsd = 1e-4f;
	c->wind_nsd = 0.1f;
	c->pos_nsd_dr = 4.0f;
	c->baro_bias_nsd = 0.02f;
	c->gps_pos_noise_m = 0.5f;
	c->gps_vel_noise_m_s = 0.3f;
	c->gps_hgt_noise_m = 1.5f;
	c->baro_noise_m = 1.0f;
	c->mag_noise_gauss = 0.05f;
	c->tas_noise_m_s = 1.4f;
	c->beta_noise_rad = 0.3f;
	c->decl_noise_rad = 0.03f;
	c->gps_pos_gate = 5.0f;
	c->gps_vel_gate = 5.0f;
	c->hgt_gate = 5.0f;
	c->mag_gate = 3.0f;
	c->tas_gate = 5.0f;
	c->beta_gate = 5.0f;
	c->gps_min_sats = 6;
	c->gps_max_h_acc_m = 10.0f;
	c->gps_max_dist_m = 50000.0f;
	c->gps_glitch_reset_s = 5.0f;
	c->gps_timeout_s = 1.0f;
	c->mag_declination_deg = NAN;  /* unknown: learnt in flight */
	c->min_airspeed_m_s = 7.0f;
	c->use_mag = true;
	c->use_airspeed = true;
	c->use_beta = true;
	c->use_gps_hgt = true;
	c->hgt_disagree_reset_s = 5.0f;
	c->output_tau_s = 0.25f;
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

static uint64_t ms_to_us(float ms)
{
	return (uint64_t)(clampf(ms, 0.0f, 300.0f) * 1000.0f);
}

static uint64_t horizon_us(const struct estim *e)
{
	float m = e->cfg.gps_delay_ms;
	if (e->cfg.baro_delay_ms > m)
		m = e->cfg.baro_delay_ms;
	if (e->cfg.mag_delay_ms > m)
		m = e->cfg.mag_delay_ms;
	if (e->cfg.airspeed_delay_ms > m)
		m = e->cfg.airspeed_delay_ms;
	return ms_to_us(m);
}

void estim_init(struct estim *e, const struct estim_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->cfg.filter_rate_hz = clampf(cfg->filter_rate_hz, 50.0f, 400.0f);
	if (cfg->imu_rate_hz >= ESTIM_IMU_MIN_HZ && cfg->imu_rate_hz <= ESTIM_IMU_MAX_HZ)
		e->imu_dt_s = 1.0f / cfg->imu_rate_hz;
	else
		e->cfg.imu_rate_hz = 0.0f;
	/* the IMU ring must hold the horizon: 300 ms at 400 Hz is 120 steps */
	estim_accum_init(&e->accum);
	e->x.q[0] = 1.0f;
	e->out.q[0] = 1.0f;
	e->air_density = RHO0;
	e->baro_temp_k = 288.15f;
}

/* GPS lost after this long without a fix: the configured timeout, or 2.5 of
 * the receiver's intervals, whichever is longer (a 1 Hz receiver is not lost
 * between its fixes). */
static float gps_timeout_s(const struct estim *e)
{
	float t = 2.5f * e->gps_dt_s;
	return t > e->cfg.gps_timeout_s ? t : e->cfg.gps_timeout_s;
}

static bool recent(uint64_t now, uint64_t t, float s)
{
	return t != 0 && now >= t && (float)(now - t) * 1e-6f < s;
}

/* ---- covariance ------------------------------------------------------- */

/* Variances in [0, max]. A variance over its bound scales its whole row and
 * column (keeps P positive semi-definite, unlike clipping the diagonal
 * alone); a negative one zeroes them. P is exactly symmetric here and stays
 * so: every writer of P keeps it so (estim_cov_transition, fuse_scalar, the
 * resets), so this needs no averaging of the two triangles. */
static void cov_fix(struct estim *e)
{
	for (int i = 0; i < N; i++) {
		float v = e->P[i][i];
		if (v > var_max[i]) {
			float k = sqrtf(var_max[i] / v);
			for (int j = 0; j < N; j++) {
				e->P[i][j] *= k;
				e->P[j][i] *= k;
			}
		} else if (!(v > 0.0f)) {
			for (int j = 0; j < N; j++)
				e->P[i][j] = e->P[j][i] = 0.0f;
		}
	}
}

/* Zero the rows and columns of states [i0, i0+n) and set their variance. */
static void cov_reset(struct estim *e, int i0, int n, float var)
{
	for (int i = i0; i < i0 + n; i++) {
		for (int j = 0; j < N; j++)
			e->P[i][j] = e->P[j][i] = 0.0f;
		e->P[i][i] = var;
	}
}

/* P = F P F' + Q, F from the strapdown error model (estim_cov.h: only the
 * rows and columns of attitude, velocity and position change). */
static void cov_predict(struct estim *e, float R[3][3], const float dv_ned[3], const float dang[3],
			float dt)
{
	float (*P)[N] = e->P;
	estim_cov_transition(P, R, dv_ned, dang, dt);

	const struct estim_config *c = &e->cfg;
	float q[N];
	for (int i = 0; i < 3; i++) {
		q[ESTIM_S_ATT + i] = c->gyro_nsd * c->gyro_nsd * dt;
		q[ESTIM_S_VEL + i] = c->accel_nsd * c->accel_nsd * dt;
		q[ESTIM_S_POS + i] = 0.0f;
		q[ESTIM_S_GYRO_BIAS + i] = c->gyro_bias_nsd * c->gyro_bias_nsd * dt;
		q[ESTIM_S_ACC_BIAS + i] = c->accel_bias_nsd * c->accel_bias_nsd * dt;
		q[ESTIM_S_MAG_EARTH + i] = c->mag_earth_nsd * c->mag_earth_nsd * dt;
		q[ESTIM_S_MAG_BODY + i] = c->mag_body_nsd * c->mag_body_nsd * dt;
		q[ESTIM_S_GYRO_SCALE + i] = c->gyro_scale_nsd * c->gyro_scale_nsd * dt;
	}
	q[ESTIM_S_WIND] = q[ESTIM_S_WIND + 1] = c->wind_nsd * c->wind_nsd * dt;
	/* Without GPS the air mass keeps moving (turbulence, shear) in ways the
	 * wind states, unobserved, cannot follow: the dead-reckoned position
	 * takes that as a random walk. Adding it to the wind instead would let
	 * airspeed fusion move the wind rather than hold the velocity. */
	if (e->origin_set && !recent(e->t_delayed_us, e->innov[ESTIM_GPS_VEL].last_fused_us, gps_timeout_s(e)))
		q[ESTIM_S_POS] = q[ESTIM_S_POS + 1] = c->pos_nsd_dr * c->pos_nsd_dr * dt;
	q[ESTIM_S_BARO_BIAS] = c->baro_bias_nsd * c->baro_bias_nsd * dt;
	for (int i = 0; i < N; i++)
		P[i][i] += q[i];
	cov_fix(e);
	/* Inactive states keep their prior and no correlation. */
	if (!e->wind_active)
		cov_reset(e, ESTIM_S_WIND, 2, 25.0f);
	if (!e->mag_active) {
		cov_reset(e, ESTIM_S_MAG_EARTH, 3, 0.0025f);
		cov_reset(e, ESTIM_S_MAG_BODY, 3, 0.0025f);
	}
}

/* ---- nominal state ----------------------------------------------------- */

static void nav_inject(struct estim_nav *x, const float d[N])
{
	float dq[4];
	em_quat_from_rotvec(&d[ESTIM_S_ATT], dq);
	em_quat_mul(dq, x->q, x->q);
	em_quat_normalize(x->q);
	for (int i = 0; i < 3; i++) {
		x->vel[i] += d[ESTIM_S_VEL + i];
		x->pos[i] += d[ESTIM_S_POS + i];
		x->gyro_bias[i] += d[ESTIM_S_GYRO_BIAS + i];
		x->accel_bias[i] += d[ESTIM_S_ACC_BIAS + i];
		x->mag_earth[i] += d[ESTIM_S_MAG_EARTH + i];
		x->mag_body[i] += d[ESTIM_S_MAG_BODY + i];
		x->gyro_scale[i] += d[ESTIM_S_GYRO_SCALE + i];
	}
	x->wind[0] += d[ESTIM_S_WIND];
	x->wind[1] += d[ESTIM_S_WIND + 1];
	x->baro_bias += d[ESTIM_S_BARO_BIAS];
	/* biases stay physical: a MEMS part beyond these has failed */
	for (int i = 0; i < 3; i++) {
		x->gyro_bias[i] = clampf(x->gyro_bias[i], -0.2f, 0.2f);
		x->accel_bias[i] = clampf(x->accel_bias[i], -2.0f, 2.0f);
		x->gyro_scale[i] = clampf(x->gyro_scale[i], -0.1f, 0.1f);
	}
}

/* Strapdown step of q, v, p with bias-corrected deltas. dv_ned_out gets the
 * specific-force part of the velocity change in NED (for the covariance). */
static void strapdown(float q[4], float vel[3], float pos[3], const float dang[3], const float dvel[3], float dt,
		      float R[3][3], float dv_ned_out[3])
{
	float dvn[3], dq[4];
	em_quat_to_dcm(q, R);
	em_mat_vec(R, dvel, dvn);
	em_quat_from_rotvec(dang, dq);
	em_quat_mul(q, dq, q);
	em_quat_normalize(q);
	for (int i = 0; i < 3; i++) {
		float dv = dvn[i] + (i == 2 ? G0 * dt : 0.0f);
		pos[i] += (vel[i] + 0.5f * dv) * dt;
		vel[i] += dv;
		dv_ned_out[i] = dvn[i];
	}
}

static void corrected_deltas(const struct estim_nav *x, const struct estim_imu_step *s, float dang[3],
			     float dvel[3])
{
	for (int i = 0; i < 3; i++) {
		dang[i] = (s->dang[i] - x->gyro_bias[i] * s->dt_s) * (1.0f - x->gyro_scale[i]);
		dvel[i] = s->dvel[i] - x->accel_bias[i] * s->dt_s;
	}
}

/* ---- scalar fusion ---------------------------------------------------- */

/* Innovation variance of a measurement row h with noise variance r. */
static float innov_var(const struct estim *e, const float h[N], float r)
{
	int nz[N], nn = 0;
	for (int i = 0; i < N; i++)
		if (h[i] != 0.0f)
			nz[nn++] = i;
	float s = r;
	for (int a = 0; a < nn; a++)
		for (int b = 0; b < nn; b++)
			s += h[nz[a]] * e->P[nz[a]][nz[b]] * h[nz[b]];
	return s;
}

/* Sequential scalar update: x += K innov, P -= K h P. Skips (and counts) an
 * update that would drive a variance negative. Returns 0 or -EDOM. */
static int fuse_scalar(struct estim *e, const float h[N], float innov, float r)
{
	int nz[N], nn = 0;
	for (int i = 0; i < N; i++)
		if (h[i] != 0.0f)
			nz[nn++] = i;
	float pht[N];
	float s = r;
	for (int i = 0; i < N; i++) {
		float a = 0.0f;
		for (int k = 0; k < nn; k++)
			a += e->P[i][nz[k]] * h[nz[k]];
		pht[i] = a;
	}
	for (int k = 0; k < nn; k++)
		s += h[nz[k]] * pht[nz[k]];
	if (!(s > r * 0.5f) || !isfinite(innov)) {
		e->count.numeric_faults++;
		e->numeric_us = e->t_now_us;
		return -EDOM;
	}
	float inv = 1.0f / s;
	for (int i = 0; i < N; i++)
		if (e->P[i][i] - pht[i] * pht[i] * inv < 0.0f) {
			e->count.numeric_faults++;
			e->numeric_us = e->t_now_us;
			return -EDOM;
		}
	float d[N];
	for (int i = 0; i < N; i++)
		d[i] = pht[i] * inv * innov;
	/* The upper triangle along its rows, then copied to the lower: P stays
	 * exactly symmetric (cov_fix relies on it). */
	for (int i = 0; i < N; i++) {
		float ki = pht[i] * inv;
		for (int j = i; j < N; j++)
			e->P[i][j] -= ki * pht[j];
	}
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			e->P[j][i] = e->P[i][j];
	if (!e->wind_active)
		d[ESTIM_S_WIND] = d[ESTIM_S_WIND + 1] = 0.0f;
	if (!e->mag_active)
		for (int i = 0; i < 6; i++)
			d[ESTIM_S_MAG_EARTH + i] = 0.0f;
	nav_inject(&e->x, d);
	cov_fix(e);
	return 0;
}

/* Gate a vector measurement of n rows (all or none fused), record the
 * innovations, and fuse row by row with row_fn recomputing h and the
 * innovation from the updated state. */
typedef float (*row_fn)(const struct estim *e, int row, const void *meas, float h[N]);

static int fuse_vector(struct estim *e, enum estim_sensor sensor, int n, row_fn fn, const void *meas,
		       const float r[3], float gate, uint64_t t_meas_us)
{
	struct estim_innov *in = &e->innov[sensor];
	float h[N];
	float ratio = 0.0f;
	for (int k = 0; k < n; k++) {
		float y = fn(e, k, meas, h);
		float s = innov_var(e, h, r[k]);
		in->innov[k] = y;
		in->var[k] = s;
		float t = y * y / (gate * gate * s);
		if (!(t <= ratio))
			ratio = isfinite(t) ? t : 1e9f;
	}
	in->test_ratio = ratio;
	if (!(ratio <= 1.0f)) {
		in->rejected++;
		return -ERANGE;
	}
	for (int k = 0; k < n; k++) {
		float y = fn(e, k, meas, h);
		if (fuse_scalar(e, h, y, r[k]) != 0)
			return -EDOM;
	}
	in->fused++;
	in->last_fused_us = t_meas_us;
	return 0;
}

/* ---- measurement models ---------------------------------------------- */

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

static float row_baro(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *hb = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + 2] = -1.0f;
	h[ESTIM_S_BARO_BIAS] = 1.0f;
	return *hb - (-e->x.pos[2] + e->x.baro_bias);
}

/* m_body = R' m_earth + b: d/dtheta = R' [m_earth x] */
static float row_mag(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *m = meas;
	float R[3][3];
	em_quat_to_dcm(e->x.q, R);
	const float *me = e->x.mag_earth;
	memset(h, 0, sizeof(float) * N);
	/* row of R' is column `row` of R */
	float r0 = R[0][row], r1 = R[1][row], r2 = R[2][row];
	/* r' [me x] = (r x me)' ... as a row: r' * skew(me) = -(me x r)' = (r x me)' */
	h[ESTIM_S_ATT + 0] = r1 * me[2] - r2 * me[1];
	h[ESTIM_S_ATT + 1] = r2 * me[0] - r0 * me[2];
	h[ESTIM_S_ATT + 2] = r0 * me[1] - r1 * me[0];
	h[ESTIM_S_MAG_EARTH + 0] = r0;
	h[ESTIM_S_MAG_EARTH + 1] = r1;
	h[ESTIM_S_MAG_EARTH + 2] = r2;
	h[ESTIM_S_MAG_BODY + row] = 1.0f;
	float pred = r0 * me[0] + r1 * me[1] + r2 * me[2] + e->x.mag_body[row];
	return m[row] - pred;
}

/* The earth field's declination, atan2(me_e, me_n): anchors the field's
 * direction (and so the heading) to the configured declination. */
static float row_decl(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *me = e->x.mag_earth;
	float n2 = me[0] * me[0] + me[1] * me[1];
	memset(h, 0, sizeof(float) * N);
	if (n2 < 1e-4f)
		return 0.0f;
	h[ESTIM_S_MAG_EARTH + 0] = -me[1] / n2;
	h[ESTIM_S_MAG_EARTH + 1] = me[0] / n2;
	return em_wrap_pi(e->cfg.mag_declination_deg * DEG2RAD - atan2f(me[1], me[0]));
}

static float row_tas(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *tas = meas;
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	float n = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	memset(h, 0, sizeof(float) * N);
	if (n < 1.0f)
		n = 1.0f;
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = u[i] / n;
	h[ESTIM_S_WIND] = -u[0] / n;
	h[ESTIM_S_WIND + 1] = -u[1] / n;
	return *tas - n;
}

/* beta = vb_y / vb_x with vb = R' (v - w); d vb/dtheta = R' [u x] */
static float row_beta(const struct estim *e, int row, const void *meas, float h[N])
{
	float R[3][3], vb[3];
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	em_quat_to_dcm(e->x.q, R);
	em_mat_t_vec(R, u, vb);
	memset(h, 0, sizeof(float) * N);
	if (vb[0] < 1.0f)
		return 0.0f;
	float g[3] = { -vb[1] / (vb[0] * vb[0]), 1.0f / vb[0], 0.0f };
	float gr[3];  /* g R' as a row: gr = R g */
	em_mat_vec(R, g, gr);
	/* (gr)' [u x] = (gr x u)' ... r' skew(u) = (u x r)' with sign: r' [u x] x = r . (u x x) = x . (r x u) */
	h[ESTIM_S_ATT + 0] = gr[1] * u[2] - gr[2] * u[1];
	h[ESTIM_S_ATT + 1] = gr[2] * u[0] - gr[0] * u[2];
	h[ESTIM_S_ATT + 2] = gr[0] * u[1] - gr[1] * u[0];
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = gr[i];
	h[ESTIM_S_WIND] = -gr[0];
	h[ESTIM_S_WIND + 1] = -gr[1];
	return 0.0f - vb[1] / vb[0];
}

static float row_fake_pos(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *p = meas;
	memset(h, 0, sizeof(float) * N);
	h[ESTIM_S_POS + row] = 1.0f;
	return p[row] - e->x.pos[row];
}

/* ---- output predictor ------------------------------------------------- */

static void out_step(const struct estim *e, struct estim_out *o, const struct estim_imu_step *s)
{
	float dang[3], dvel[3], R[3][3], dvn[3];
	corrected_deltas(&e->x, s, dang, dvel);
	strapdown(o->q, o->vel, o->pos, dang, dvel, s->dt_s, R, dvn);
}

/* Rebuild the output buffer from the filter state (after a reset). */
static void out_replay(struct estim *e)
{
	struct estim_out o;
	memcpy(o.q, e->x.q, sizeof(o.q));
	memcpy(o.vel, e->x.vel, sizeof(o.vel));
	memcpy(o.pos, e->x.pos, sizeof(o.pos));
	for (unsigned int k = 0; k < e->imu_count; k++) {
		unsigned int i = (e->imu_head + k) % ESTIM_IMU_BUF;
		out_step(e, &o, &e->imu_buf[i]);
		e->out_buf[i] = o;
	}
	e->out = o;
	e->replayed = true;
}

/* Pull every buffered output state (and the present one) a fraction of the way
 * to the filter: the next comparison then sees the remaining error, which gives
 * a first-order convergence without a jump. */
static void out_correct(struct estim *e, const struct estim_out *at_delayed, float dt)
{
	float k = clampf(dt / e->cfg.output_tau_s, 0.0f, 1.0f);
	float qi[4] = { at_delayed->q[0], -at_delayed->q[1], -at_delayed->q[2], -at_delayed->q[3] };
	float dq[4], rv[3], dv[3], dp[3];
	em_quat_mul(e->x.q, qi, dq);
	em_rotvec_from_quat(dq, rv);
	for (int i = 0; i < 3; i++) {
		rv[i] *= k;
		dv[i] = k * (e->x.vel[i] - at_delayed->vel[i]);
		dp[i] = k * (e->x.pos[i] - at_delayed->pos[i]);
	}
	em_quat_from_rotvec(rv, dq);
	for (unsigned int n = 0; n <= e->imu_count; n++) {
		struct estim_out *o = n < e->imu_count ? &e->out_buf[(e->imu_head + n) % ESTIM_IMU_BUF] : &e->out;
		em_quat_mul(dq, o->q, o->q);
		em_quat_normalize(o->q);
		for (int i = 0; i < 3; i++) {
			o->vel[i] += dv[i];
			o->pos[i] += dp[i];
		}
	}
}

/* ---- resets ----------------------------------------------------------- */

static void reset_pos_ne(struct estim *e, const float pos[3], float var)
{
	e->x.pos[0] = pos[0];
	e->x.pos[1] = pos[1];
	cov_reset(e, ESTIM_S_POS, 2, var);
	e->count.pos_resets++;
}

static void reset_vel(struct estim *e, const float vel[3], int n, float var)
{
	for (int i = 0; i < n; i++)
		e->x.vel[i] = vel[i];
	cov_reset(e, ESTIM_S_VEL, n, var);
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
	cov_reset(e, ESTIM_S_ATT, 3, var);
	e->P[0][0] = tilt0;
	e->P[1][1] = tilt1;
	e->count.yaw_resets++;
}

int estim_set_declination(struct estim *e, float decl_deg, float sigma_deg)
{
	if (!isfinite(decl_deg) || fabsf(decl_deg) > 180.0f || !(sigma_deg >= 0.1f && sigma_deg <= 30.0f))
		return -EINVAL;
	e->cfg.mag_declination_deg = decl_deg;
	const float *me = e->x.mag_earth;
	float n2 = me[0] * me[0] + me[1] * me[1];
	if (!e->running || !e->mag_active || n2 < 1e-4f)
		return 0;   /* the alignment, or the first compass sample's, takes it */
	/* The heading relative to the field (yaw error minus the field's
	 * declination error, h the declination's row) is what the compass told:
	 * its variance survives the turn, at most what an alignment on the
	 * compass gives it (at rest the hard iron is not yet told from the earth
	 * field, so P alone leaves it near 10 deg); the declination's own is the
	 * table's. */
	float h[N];
	row_decl(e, 0, NULL, h);
	float var_rel = e->P[2][2];
	for (int i = ESTIM_S_MAG_EARTH; i < ESTIM_S_MAG_EARTH + 2; i++) {
		var_rel -= 2.0f * h[i] * e->P[2][i];
		for (int j = ESTIM_S_MAG_EARTH; j < ESTIM_S_MAG_EARTH + 2; j++)
			var_rel += h[i] * e->P[i][j] * h[j];
	}
	float s = sigma_deg * DEG2RAD;
	float var = clampf(var_rel, 0.0f, ALIGN_YAW_VAR) + s * s;
	float dpsi = em_wrap_pi(decl_deg * DEG2RAD - atan2f(me[1], me[0]));
	float dz[3] = { 0.0f, 0.0f, dpsi }, dq[4];
	em_quat_from_rotvec(dz, dq);
	em_quat_mul(dq, e->x.q, e->x.q);
	em_quat_normalize(e->x.q);
	float c = cosf(dpsi), sn = sinf(dpsi), n = e->x.mag_earth[0], ea = e->x.mag_earth[1];
	e->x.mag_earth[0] = c * n - sn * ea;
	e->x.mag_earth[1] = sn * n + c * ea;
	float tilt0 = e->P[0][0], tilt1 = e->P[1][1];
	cov_reset(e, ESTIM_S_ATT, 3, var);
	e->P[0][0] = tilt0;
	e->P[1][1] = tilt1;
	/* the field's horizontal direction now as uncertain as the table */
	cov_reset(e, ESTIM_S_MAG_EARTH, 2, n2 * s * s);
	e->count.yaw_resets++;
	out_replay(e);
	return 0;
}

/* Wind from the velocity and airspeed along the body x axis. */
static void wind_start(struct estim *e, float tas)
{
	float R[3][3];
	em_quat_to_dcm(e->x.q, R);
	e->x.wind[0] = e->x.vel[0] - tas * R[0][0];
	e->x.wind[1] = e->x.vel[1] - tas * R[1][0];
	e->wind_active = true;
	cov_reset(e, ESTIM_S_WIND, 2, 4.0f);
}

/* ---- fusion on the delayed horizon ------------------------------------ */

static void fuse_gps(struct estim *e, const struct estim_gps_obs *g)
{
	const struct estim_config *c = &e->cfg;
	float vn = fmaxf(c->gps_vel_noise_m_s, isfinite(g->s_acc) ? g->s_acc : 0.0f);
	float pn = fmaxf(c->gps_pos_noise_m, isfinite(g->h_acc) ? g->h_acc : 0.0f);
	float hn = fmaxf(c->gps_hgt_noise_m, isfinite(g->v_acc) ? 1.5f * g->v_acc : 0.0f);
	/* lost: no fix at all (valid or not) for the timeout, as opposed to fixes rejected by the gate */
	bool lost = e->gps_prev_obs_us == 0 || (float)(g->t_us - e->gps_prev_obs_us) * 1e-6f > gps_timeout_s(e);
	e->gps_prev_obs_us = g->t_us;
	float speed = sqrtf(g->vel[0] * g->vel[0] + g->vel[1] * g->vel[1]);

	/* No compass: take the heading from the ground course once moving. */
	if (!e->yaw_aligned && speed > 5.0f) {
		reset_yaw(e, atan2f(g->vel[1], g->vel[0]), 0.25f);
		e->yaw_aligned = true;
		reset_vel(e, g->vel, 3, vn * vn);
		if (e->wind_active)
			wind_start(e, e->tas_last_m_s);
		out_replay(e);
	}

	if (e->innov[ESTIM_GPS_POS].fused == 0) {
		/* first use: take position and velocity */
		reset_pos_ne(e, g->pos, pn * pn);
		reset_vel(e, g->vel, g->vel_d_valid ? 3 : 2, vn * vn);
		e->innov[ESTIM_GPS_POS].fused++;
		e->innov[ESTIM_GPS_POS].last_fused_us = g->t_us;
		e->innov[ESTIM_GPS_VEL].last_fused_us = g->t_us;
		out_replay(e);
		return;
	}

	float rv[3] = { vn * vn, vn * vn, 2.25f * vn * vn };
	if (fuse_vector(e, ESTIM_GPS_VEL, g->vel_d_valid ? 3 : 2, row_gps_vel, g, rv, c->gps_vel_gate, g->t_us) ==
		    -ERANGE &&
	    lost) {
		reset_vel(e, g->vel, g->vel_d_valid ? 3 : 2, vn * vn);
		out_replay(e);
	}

	float rp[3] = { pn * pn, pn * pn, 0.0f };
	int rc = fuse_vector(e, ESTIM_GPS_POS, 2, row_gps_pos, g, rp, c->gps_pos_gate, g->t_us);
	if (rc == -ERANGE) {
		if (e->gps_fail_since_us == 0)
			e->gps_fail_since_us = g->t_us;
		/* Returning from a loss, or a jump that persists: trust the GPS. */
		if (lost || (float)(g->t_us - e->gps_fail_since_us) * 1e-6f > c->gps_glitch_reset_s) {
			reset_pos_ne(e, g->pos, pn * pn);
			e->innov[ESTIM_GPS_POS].last_fused_us = g->t_us;
			e->gps_fail_since_us = 0;
			out_replay(e);
		}
	} else if (rc == 0) {
		e->gps_fail_since_us = 0;
	}

	if (c->use_gps_hgt) {
		float rh[3] = { hn * hn, 0.0f, 0.0f };
		fuse_vector(e, ESTIM_GPS_HGT, 1, row_gps_hgt, g, rh, c->hgt_gate, g->t_us);
	}
}

static void fuse_baro(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	float hb = o->v[0];
	if (!e->baro_ref_set) {
		e->baro_ref_m = hb + e->x.pos[2] - e->x.baro_bias;
		e->baro_ref_set = true;
	}
	float y = hb - e->baro_ref_m;
	float r[3] = { c->baro_noise_m * c->baro_noise_m, 0.0f, 0.0f };
	int rc = fuse_vector(e, ESTIM_BARO, 1, row_baro, &y, r, c->hgt_gate, o->t_us);
	if (rc == -ERANGE) {
		if (e->baro_fail_since_us == 0)
			e->baro_fail_since_us = o->t_us;
		if ((float)(o->t_us - e->baro_fail_since_us) * 1e-6f > c->hgt_disagree_reset_s) {
			/* Baro and the filter's height disagree for good. With GPS
			 * height in use the baro is the one off: rebase its bias;
			 * without, the baro is all there is: move the height. */
			if (recent(e->t_delayed_us, e->innov[ESTIM_GPS_HGT].last_fused_us, 2.0f)) {
				e->x.baro_bias = y + e->x.pos[2];
				cov_reset(e, ESTIM_S_BARO_BIAS, 1, c->baro_noise_m * c->baro_noise_m);
			} else {
				e->x.pos[2] = -(y - e->x.baro_bias);
				cov_reset(e, ESTIM_S_POS + 2, 1, c->baro_noise_m * c->baro_noise_m);
				out_replay(e);
			}
			e->count.baro_resets++;
			e->hgt_reset_us = o->t_us;
			e->baro_fail_since_us = 0;
		}
	} else if (rc == 0) {
		e->baro_fail_since_us = 0;
	}
}

static void fuse_mag(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	if (!e->mag_active)
		return;
	float r2 = c->mag_noise_gauss * c->mag_noise_gauss;
	float r[3] = { r2, r2, r2 };
	int rc = fuse_vector(e, ESTIM_MAG, 3, row_mag, o->v, r, c->mag_gate, o->t_us);
	if (isfinite(c->mag_declination_deg)) {
		float h[N];
		float y = row_decl(e, 0, NULL, h);
		fuse_scalar(e, h, y, c->decl_noise_rad * c->decl_noise_rad);
	}
	if (rc == -ERANGE) {
		if (e->mag_fail_since_us == 0)
			e->mag_fail_since_us = o->t_us;
	} else if (rc == 0) {
		e->mag_fail_since_us = 0;
	}
}

static void fuse_airspeed(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	float tas = o->v[0];
	e->tas_last_m_s = tas;
	bool gps = recent(e->t_delayed_us, e->innov[ESTIM_GPS_VEL].last_fused_us, gps_timeout_s(e)) ||
		   recent(e->t_delayed_us, e->innov[ESTIM_GPS_POS].last_fused_us, gps_timeout_s(e));
	if (tas < c->min_airspeed_m_s || !e->yaw_aligned)
		return;
	if (!e->wind_active) {
		if (!gps)
			return;
		wind_start(e, tas);
	}
	if (c->use_airspeed) {
		float r[3] = { c->tas_noise_m_s * c->tas_noise_m_s, 0.0f, 0.0f };
		fuse_vector(e, ESTIM_TAS, 1, row_tas, &tas, r, c->tas_gate, o->t_us);
	}
	/* Sideslip ties heading to the wind: only once the wind is known in
	 * both axes (a turn has made it observable), or a wrong initial
	 * heading would be locked to a wind made from it. */
	if (c->use_beta && e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] < 1.0f) {
		float r[3] = { c->beta_noise_rad * c->beta_noise_rad, 0.0f, 0.0f };
		fuse_vector(e, ESTIM_BETA, 1, row_beta, NULL, r, c->beta_gate, o->t_us);
	}
}

/* Constant-position mode: before the origin, hold the position (on the
 * ground) so tilt and velocity stay observable. */
static void fuse_fake_pos(struct estim *e)
{
	unsigned int div = (unsigned int)(e->cfg.filter_rate_hz / 10.0f);
	if (++e->fake_pos_div < (div ? div : 1))
		return;
	e->fake_pos_div = 0;
	float r[3] = { 0.25f, 0.25f, 0.0f };
	float h[N];
	for (int k = 0; k < 2; k++) {
		float y = row_fake_pos(e, k, e->hold_pos, h);
		fuse_scalar(e, h, y, r[k]);
	}
}

static bool obs_pop_due(struct estim_obs *buf, unsigned int *head, unsigned int *count, uint64_t t,
			struct estim_obs *out)
{
	if (*count == 0 || buf[*head].t_us > t)
		return false;
	*out = buf[*head];
	*head = (*head + 1) % ESTIM_OBS_BUF;
	(*count)--;
	return true;
}

static bool state_finite(const struct estim *e)
{
	const float *x = (const float *)&e->x;
	for (size_t i = 0; i < sizeof(e->x) / sizeof(float); i++)
		if (!isfinite(x[i]))
			return false;
	for (int i = 0; i < N; i++)
		if (!isfinite(e->P[i][i]))
			return false;
	return true;
}

/* A clipped accelerometer measured at most its full scale of what the
 * aircraft felt: over a run of clipped steps the velocity can be wrong by up
 * to the full scale times the clipped time, on every axis. The variance is
 * raised to that (a diagonal added: P stays positive semi-definite). */
static void clip_uncertainty(struct estim *e, float clip_s)
{
	if (clip_s <= 0.0f) {
		e->clip_run_s = 0.0f;
		return;
	}
	e->clip_run_s += clip_s;
	float sigma = ESTIM_ACCEL_CLIP_M_S2 * e->clip_run_s;
	for (int i = ESTIM_S_VEL; i < ESTIM_S_VEL + 3; i++)
		if (e->P[i][i] < sigma * sigma)
			e->P[i][i] = sigma * sigma;
}

static void delayed_step(struct estim *e, const struct estim_imu_step *s, const struct estim_out *o_at)
{
	float dang[3], dvel[3], R[3][3], dvn[3];
	corrected_deltas(&e->x, s, dang, dvel);
	strapdown(e->x.q, e->x.vel, e->x.pos, dang, dvel, s->dt_s, R, dvn);
	cov_predict(e, R, dvn, dang, s->dt_s);
	clip_uncertainty(e, s->clip_s);
	e->t_delayed_us = s->t_us;
	e->replayed = false;
	e->count.steps++;

	struct estim_obs o;
	while (e->gps_count > 0 && e->gps_buf[e->gps_head].t_us <= s->t_us) {
		struct estim_gps_obs g = e->gps_buf[e->gps_head];
		e->gps_head = (e->gps_head + 1) % ESTIM_GPS_BUF;
		e->gps_count--;
		fuse_gps(e, &g);
	}
	while (obs_pop_due(e->baro_buf, &e->baro_head, &e->baro_count, s->t_us, &o))
		fuse_baro(e, &o);
	while (obs_pop_due(e->mag_buf, &e->mag_head, &e->mag_count, s->t_us, &o))
		fuse_mag(e, &o);
	while (obs_pop_due(e->tas_buf, &e->tas_head, &e->tas_count, s->t_us, &o))
		fuse_airspeed(e, &o);
	if (!e->origin_set && !(e->tas_last_m_s > e->cfg.min_airspeed_m_s))
		fuse_fake_pos(e);

	if (!state_finite(e)) {
		/* Should not happen with checked inputs; if it does, start over
		 * rather than publish garbage. */
		struct estim_counters cnt = e->count;
		struct estim_config cfg = e->cfg;
		uint64_t now = e->t_now_us;
		estim_init(e, &cfg);
		e->count = cnt;
		e->count.numeric_faults++;
		e->t_now_us = e->numeric_us = now;
		return;
	}
	if (!e->replayed)
		out_correct(e, o_at, s->dt_s);
}

/* ---- alignment -------------------------------------------------------- */

static void align_reset(struct estim *e)
{
	memset(e->align_acc, 0, sizeof(e->align_acc));
	memset(e->align_gyro, 0, sizeof(e->align_gyro));
	e->align_time_s = 0.0f;
	memset(e->align_mag, 0, sizeof(e->align_mag));
	e->align_mag_n = 0;
}

static void moving_reset(struct estim *e)
{
	memset(e->mov_grav, 0, sizeof(e->mov_grav));
	memset(e->mov_mag, 0, sizeof(e->mov_mag));
	e->mov_mag_n = 0;
	e->mov_time_s = 0.0f;
}

/* Start the filter from the mean specific force a (m/s^2, body; gravity's
 * reaction: tilt) and the mean compass field m (gauss, body; NULL: none),
 * both as seen in the present body frame. */
static void align(struct estim *e, uint64_t t_us, const float a[3], const float *m, bool moving)
{
	const struct estim_config *c = &e->cfg;
	float roll = atan2f(-a[1], -a[2]);
	float pitch = atan2f(a[0], sqrtf(a[1] * a[1] + a[2] * a[2]));
	float yaw = 0.0f;
	bool have_mag = m != NULL;
	if (have_mag) {
		float cr = cosf(roll), sr = sinf(roll), cp = cosf(pitch), sp = sinf(pitch);
		float mx = m[0] * cp + (m[1] * sr + m[2] * cr) * sp;
		float my = m[1] * cr - m[2] * sr;
		float decl = isfinite(c->mag_declination_deg) ? c->mag_declination_deg * DEG2RAD : 0.0f;
		yaw = em_wrap_pi(atan2f(-my, mx) + decl);
	}
	struct estim_nav *x = &e->x;
	memset(x, 0, sizeof(*x));
	em_quat_from_euler(roll, pitch, yaw, x->q);
	float R[3][3];
	em_quat_to_dcm(x->q, R);
	if (have_mag)
		em_mat_vec(R, m, x->mag_earth);
	bool flying = e->tas_last_m_s > c->min_airspeed_m_s;
	bool gps_vel = moving && recent(t_us, e->gps_last_valid_us, 1.0f);
	/* Aligned in flight: start from the GPS velocity, or the airspeed along the nose. */
	if (gps_vel)
		memcpy(x->vel, e->gps_vel_pre, sizeof(x->vel));
	else if (flying && have_mag)
		for (int i = 0; i < 3; i++)
			x->vel[i] = R[i][0] * e->tas_last_m_s;
	memset(e->P, 0, sizeof(e->P));
	float tilt_var = moving ? MOVING_TILT_VAR : 0.03f * 0.03f;
	e->P[0][0] = e->P[1][1] = tilt_var;
	/* an unknown declination is 20 degrees at most where people fly */
	e->P[2][2] = !have_mag ? 1.0f : isfinite(c->mag_declination_deg) ? ALIGN_YAW_VAR : 0.35f * 0.35f;
	for (int i = 0; i < 3; i++) {
		e->P[ESTIM_S_VEL + i][ESTIM_S_VEL + i] = gps_vel ? 1.0f : flying || moving ? 25.0f : 0.25f;
		e->P[ESTIM_S_POS + i][ESTIM_S_POS + i] = 1.0f;
		e->P[ESTIM_S_GYRO_BIAS + i][ESTIM_S_GYRO_BIAS + i] = 0.01f * 0.01f;
		e->P[ESTIM_S_GYRO_SCALE + i][ESTIM_S_GYRO_SCALE + i] = 0.02f * 0.02f;
		e->P[ESTIM_S_ACC_BIAS + i][ESTIM_S_ACC_BIAS + i] = 0.2f * 0.2f;
		e->P[ESTIM_S_MAG_EARTH + i][ESTIM_S_MAG_EARTH + i] = 0.0025f;
		e->P[ESTIM_S_MAG_BODY + i][ESTIM_S_MAG_BODY + i] = 0.0025f;
	}
	e->P[ESTIM_S_WIND][ESTIM_S_WIND] = e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] = 25.0f;
	e->P[ESTIM_S_BARO_BIAS][ESTIM_S_BARO_BIAS] = 0.25f;
	e->mag_active = have_mag;
	e->yaw_aligned = have_mag;
	e->wind_active = false;
	e->running = true;
	e->ever_aligned = true;
	e->moving_aligned = moving;
	e->t_delayed_us = t_us;
	e->imu_count = 0;
	memcpy(e->hold_pos, x->pos, sizeof(e->hold_pos));
	memcpy(e->out.q, x->q, sizeof(e->out.q));
	memcpy(e->out.vel, x->vel, sizeof(e->out.vel));
	memcpy(e->out.pos, x->pos, sizeof(e->out.pos));
}

/* The speed the aircraft moves at (m/s, 0 if it is not known to move): the
 * GPS's if a fix came within 1 s, else the airspeed above the minimum. */
static float moving_speed(const struct estim *e, uint64_t t_us)
{
	if (recent(t_us, e->gps_last_valid_us, 1.0f)) {
		const float *v = e->gps_vel_pre;
		return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	}
	return e->tas_last_m_s > e->cfg.min_airspeed_m_s ? e->tas_last_m_s : 0.0f;
}

/* Alignment while moving (in the air, turning, in turbulence): no steady
 * specific force to wait for. Gravity's reaction is the specific force less
 * the aircraft's acceleration, and at flying speed that is mostly the turn's:
 * w x v with v = [V 0 0], the speed along the nose (DCM's centripetal
 * correction; the airspeed, else the GPS's speed), plus the mean
 * acceleration along the nose from the speed's change over the window;
 * gusts, sideslip and angle of attack are left in the tilt's variance. The sums are carried in the present body
 * frame (each step turns them by its rotation), so the rotation over the
 * window does not smear them and the result is the present attitude. */
static void moving_step(struct estim *e, const float dang[3], const float dvel[3], float dt, float speed,
			uint64_t t_us)
{
	float dq[4], R[3][3], t[3];
	em_quat_from_rotvec(dang, dq);
	em_quat_to_dcm(dq, R);
	em_mat_t_vec(R, e->mov_grav, t);
	memcpy(e->mov_grav, t, sizeof(t));
	em_mat_t_vec(R, e->mov_mag, t);
	memcpy(e->mov_mag, t, sizeof(t));
	/* w x [V 0 0] = [0, wz V, -wy V], over the step */
	if (e->mov_time_s == 0.0f)
		e->mov_speed0 = speed;
	e->mov_grav[0] += dvel[0];
	e->mov_grav[1] += dvel[1] - dang[2] * speed;
	e->mov_grav[2] += dvel[2] + dang[1] * speed;
	e->mov_time_s += dt;
	bool mag_ok = e->cfg.use_mag && e->mov_mag_n >= 5;
	if (!((e->mov_time_s >= MOVING_ALIGN_S && (mag_ok || !e->cfg.use_mag)) || e->mov_time_s >= 3.0f))
		return;
	float a[3], m[3];
	for (int i = 0; i < 3; i++) {
		a[i] = e->mov_grav[i] / e->mov_time_s;
		m[i] = mag_ok ? e->mov_mag[i] / (float)e->mov_mag_n : 0.0f;
	}
	/* and the mean acceleration along the nose: slowing down (a glide
	 * pitching up) reads as nose-down tilt otherwise */
	a[0] -= (speed - e->mov_speed0) / e->mov_time_s;
	float an = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	if (fabsf(an - G0) > 2.0f) {
		/* a manoeuvre the correction does not hold: start the window again */
		moving_reset(e);
		return;
	}
	align(e, t_us, a, mag_ok ? m : NULL, true);
}

static void align_step(struct estim *e, const float dang[3], const float dvel[3], float dt, uint64_t t_us)
{
	float speed = moving_speed(e, t_us);
	if (speed > MOVING_ALIGN_M_S) {
		align_reset(e);
		/* The nose's velocity through the air: in a steady wind the
		 * body's acceleration is w x v_air + d(v_air)/dt, which the
		 * airspeed gives exactly where the ground speed (the wind's
		 * part turning with the body) does not. */
		bool air = e->tas_last_m_s > e->cfg.min_airspeed_m_s;
		moving_step(e, dang, dvel, dt, air ? e->tas_last_m_s : speed, t_us);
		return;
	}
	moving_reset(e);
	float w = sqrtf(dang[0] * dang[0] + dang[1] * dang[1] + dang[2] * dang[2]) / dt;
	float a = sqrtf(dvel[0] * dvel[0] + dvel[1] * dvel[1] + dvel[2] * dvel[2]) / dt;
	/* Tilt from gravity needs rest or unaccelerated flight: no manoeuvre
	 * during the averaging, and gravity's magnitude in the mean. */
	if (w > 0.3f || fabsf(a - G0) > 4.0f) {
		align_reset(e);
		return;
	}
	for (int i = 0; i < 3; i++) {
		e->align_acc[i] += dvel[i];
		e->align_gyro[i] += dang[i];
	}
	e->align_time_s += dt;
	bool mag_ok = !e->cfg.use_mag || e->align_mag_n >= 5;
	if (!((e->align_time_s >= 1.0f && mag_ok) || e->align_time_s >= 3.0f))
		return;
	float T = e->align_time_s, am[3], wm[3], m[3];
	for (int i = 0; i < 3; i++) {
		am[i] = e->align_acc[i] / T;
		wm[i] = e->align_gyro[i] / T;
	}
	float an = sqrtf(am[0] * am[0] + am[1] * am[1] + am[2] * am[2]);
	float wn = sqrtf(wm[0] * wm[0] + wm[1] * wm[1] + wm[2] * wm[2]);
	if (fabsf(an - G0) > ALIGN_G_TOL_M_S2 || wn > 0.05f) {
		align_reset(e);
		return;
	}
	bool have_mag = e->cfg.use_mag && e->align_mag_n >= 5;
	for (int i = 0; i < 3; i++)
		m[i] = have_mag ? e->align_mag[i] / (float)e->align_mag_n : 0.0f;
	align(e, t_us, am, have_mag ? m : NULL, false);
}

/* ---- IMU intake and the filter step ----------------------------------- */

int estim_predict(struct estim *e, const float dang_rad[3], const float dvel_m_s[3], float dt_s, uint64_t t_us)
{
	for (int i = 0; i < 3; i++)
		if (!isfinite(dang_rad[i]) || !isfinite(dvel_m_s[i]))
			return -EINVAL;
	if (!(dt_s > 0.0f && dt_s < 0.1f))
		return -EINVAL;
	e->t_now_us = t_us;
	for (int i = 0; i < 3; i++)
		e->rate_rad_s[i] = e->running ? (dang_rad[i] / dt_s - e->x.gyro_bias[i]) *
							(1.0f - e->x.gyro_scale[i]) :
						 dang_rad[i] / dt_s;
	if (!e->running) {
		align_step(e, dang_rad, dvel_m_s, dt_s, t_us);
		return 1;
	}

	/* newest step into the ring; the output predictor advances with it */
	if (e->imu_count == ESTIM_IMU_BUF) {
		/* cannot happen with the clamped horizon and rate; keep going */
		e->imu_head = (e->imu_head + 1) % ESTIM_IMU_BUF;
		e->imu_count--;
	}
	unsigned int idx = (e->imu_head + e->imu_count) % ESTIM_IMU_BUF;
	struct estim_imu_step *s = &e->imu_buf[idx];
	s->t_us = t_us;
	s->dt_s = dt_s;
	s->clip_s = e->clip_pending_s;
	e->clip_pending_s = 0.0f;
	memcpy(s->dang, dang_rad, sizeof(s->dang));
	memcpy(s->dvel, dvel_m_s, sizeof(s->dvel));
	out_step(e, &e->out, s);
	e->out_buf[idx] = e->out;
	e->imu_count++;

	uint64_t hz = horizon_us(e);
	while (e->running && e->imu_count > 0 && e->imu_buf[e->imu_head].t_us + hz <= t_us) {
		struct estim_imu_step st = e->imu_buf[e->imu_head];
		struct estim_out o = e->out_buf[e->imu_head];
		e->imu_head = (e->imu_head + 1) % ESTIM_IMU_BUF;
		e->imu_count--;
		delayed_step(e, &st, &o);
	}
	return 1;
}

static void shift_one(uint64_t *t_us, uint64_t d_us)
{
	if (*t_us)
		*t_us += d_us;
}

/* Time that did not pass for the aircraft, d_us of the stamps' jump over a
 * source's pause (estim_source_paused): every time the filter holds moves on
 * by it, as if the pause had not been, so nothing seems older for it (a
 * simulator's 1.5 s stall is no GPS loss: none of its time passed) and the
 * stamps after it follow on. */
static void shift_time(struct estim *e, uint64_t d_us)
{
	for (unsigned int k = 0; k < e->imu_count; k++)
		e->imu_buf[(e->imu_head + k) % ESTIM_IMU_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->baro_count; k++)
		e->baro_buf[(e->baro_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->mag_count; k++)
		e->mag_buf[(e->mag_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->tas_count; k++)
		e->tas_buf[(e->tas_head + k) % ESTIM_OBS_BUF].t_us += d_us;
	for (unsigned int k = 0; k < e->gps_count; k++)
		e->gps_buf[(e->gps_head + k) % ESTIM_GPS_BUF].t_us += d_us;
	struct estim_decim *dec[] = { &e->baro_dec, &e->mag_dec, &e->tas_dec };
	for (size_t i = 0; i < sizeof(dec) / sizeof(dec[0]); i++) {
		shift_one(&dec[i]->next_us, d_us);
		shift_one(&dec[i]->t0_us, d_us);
	}
	for (int i = 0; i < ESTIM_SENSOR_COUNT; i++)
		shift_one(&e->innov[i].last_fused_us, d_us);
	uint64_t *times[] = {
		&e->imu_bad_us, &e->imu_frozen_us, &e->next_step_us, &e->t_delayed_us, &e->t_now_us,
		&e->gps_fail_since_us, &e->baro_fail_since_us, &e->mag_fail_since_us, &e->hgt_reset_us,
		&e->last_baro_valid_us, &e->gps_last_valid_us, &e->gps_prev_obs_us, &e->gps_prev_valid_us,
		&e->numeric_us,
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		shift_one(times[i], d_us);
}

void estim_source_paused(struct estim *e, uint64_t d_us)
{
	e->pause_us += d_us;
}

/* The interval a sample stands for: the time since the one before, less what
 * its source said was a pause (taken out of the filter's time, shift_time).
 * The IMU's own interval is learnt from those times through a slow low-pass,
 * so one jittery stamp cannot move it far. A gap of more than five intervals
 * is lost samples or a stalled source: the sample is held for one interval
 * and the gap counted (time passed for the aircraft: what it did meanwhile,
 * the next fusions correct); eight gaps in a row are no gaps but a slower
 * source. */
static float imu_interval(struct estim *e, uint64_t t_us)
{
	if (!e->imu_last_us)
		return 0.0f;  /* the first sample starts the clock */
	const float lo = 1.0f / ESTIM_IMU_MAX_HZ, hi = 1.0f / ESTIM_IMU_MIN_HZ;
	uint64_t span_us = t_us - e->imu_last_us;
	if (e->pause_us) {
		/* The jump over a pause: all of the interval but one sample's. */
		uint64_t one_us = e->imu_dt_s > 0.0f ? (uint64_t)(e->imu_dt_s * 1e6f) : 0;
		uint64_t paused = span_us > one_us ? span_us - one_us : 0;
		if (paused > e->pause_us)
			paused = e->pause_us;
		if (paused) {
			shift_time(e, paused);
			e->pause_us -= paused;
			span_us -= paused;
		}
	}
	float raw = (float)span_us * 1e-6f;
	bool first = e->imu_dt_s == 0.0f;
	if (first)
		e->imu_dt_s = clampf(raw, lo, hi);
	if (raw > 5.0f * e->imu_dt_s) {
		e->count.imu_gaps++;
		if (++e->imu_gap_run >= 8) {
			e->imu_gap_run = 0;
			e->imu_dt_s = clampf(raw, lo, hi);
			return raw;
		}
		return e->imu_dt_s;
	}
	e->imu_gap_run = 0;
	if (!first)
		e->imu_dt_s = clampf(e->imu_dt_s + 0.05f * (raw - e->imu_dt_s), lo, hi);
	return raw;
}

int estim_push_imu(struct estim *e, const struct imu_sample *s)
{
	bool ok = true;
	for (int i = 0; i < 3; i++) {
		if (!isfinite(s->gyro_rad_s[i]) || fabsf(s->gyro_rad_s[i]) > 35.0f)
			ok = false;
		if (!isfinite(s->accel_m_s2[i]) || fabsf(s->accel_m_s2[i]) > 160.0f)
			ok = false;
	}
	if (e->imu_last_us && s->t_us <= e->imu_last_us)
		ok = false;  /* time going backwards or repeated */
	if (!ok) {
		e->count.imu_invalid++;
		e->imu_bad_us = s->t_us ? s->t_us : 1;
		return -EINVAL;
	}
	float dt = imu_interval(e, s->t_us);
	e->imu_last_us = s->t_us;
	float raw[6] = { s->gyro_rad_s[0], s->gyro_rad_s[1], s->gyro_rad_s[2],
			 s->accel_m_s2[0], s->accel_m_s2[1], s->accel_m_s2[2] };
	if (memcmp(raw, e->imu_last_raw, sizeof(raw)) == 0) {
		/* Six noisy channels never repeat exactly: the sensor is stuck. */
		if (++e->imu_same_count >= 20) {
			e->count.imu_frozen++;
			e->imu_frozen_us = s->t_us;
			return -EINVAL;
		}
	} else {
		e->imu_same_count = 0;
	}
	memcpy(e->imu_last_raw, raw, sizeof(raw));
	if (fabsf(raw[3]) >= ESTIM_ACCEL_CLIP_M_S2 || fabsf(raw[4]) >= ESTIM_ACCEL_CLIP_M_S2 ||
	    fabsf(raw[5]) >= ESTIM_ACCEL_CLIP_M_S2) {
		e->count.accel_clipped++;
		e->clip_pending_s += dt;
	}
	estim_accum_add(&e->accum, s->gyro_rad_s, s->accel_m_s2, dt);
	/* Steps fall due on a fixed grid, so 400 Hz from 1 kHz samples is
	 * alternately 2 and 3 samples long and 400 Hz on average. The grid is
	 * the main loop's (src/daemon/sensors.c paces it on multiples of its
	 * period, by the same rule: the first sample at or past a multiple),
	 * so that each loop sees one step over the time since the last loop.
	 * On a grid of its own (from the first sample) the state moved in
	 * some loops by the time of two steps and in others not at all, and
	 * what the flight code derives per loop (TECS's height demand rate)
	 * alternated between 5/3 of its value and 0: docs/flight-control.md. */
	uint64_t period_us = (uint64_t)(1e6f / e->cfg.filter_rate_hz);
	if (e->next_step_us == 0)
		e->next_step_us = (s->t_us / period_us + 1) * period_us;
	if (s->t_us < e->next_step_us)
		return 0;
	e->next_step_us = (s->t_us / period_us + 1) * period_us;
	float dang[3], dvel[3];
	float T = estim_accum_take(&e->accum, dang, dvel);
	return estim_predict(e, dang, dvel, T, s->t_us) < 0 ? -EINVAL : 1;
}

/* ---- sensor intake ---------------------------------------------------- */

static int obs_push(struct estim *e, struct estim_obs *buf, unsigned int *head, unsigned int *count,
		    const struct estim_obs *o)
{
	if (o->t_us < e->t_delayed_us)
		e->count.obs_late++;
	if (*count == ESTIM_OBS_BUF) {
		*head = (*head + 1) % ESTIM_OBS_BUF;
		(*count)--;
		e->count.obs_dropped++;
	}
	buf[(*head + *count) % ESTIM_OBS_BUF] = *o;
	(*count)++;
	return 0;
}

static uint64_t meas_time(uint64_t t_us, float delay_ms)
{
	uint64_t d = ms_to_us(delay_ms);
	return t_us > d ? t_us - d : 0;
}

/* A slow sensor's samples averaged down to at most max_hz, and to no more
 * than its pending buffer holds over the delayed horizon (four to spare), so
 * a source marking every sample fresh at the IMU's rate neither overflows
 * the buffer nor is starved. Each average falls due on a grid of that period
 * (a quarter period early counts, for jitter) and carries its samples' mean
 * time. A source at or under the rate has every sample taken as it is.
 * Returns true with the average in out when one falls due. */
static bool decim_add(struct estim *e, struct estim_decim *d, float max_hz, const struct estim_obs *in,
		      struct estim_obs *out)
{
	uint64_t period = (uint64_t)(1e6f / max_hz), hold = horizon_us(e) / (ESTIM_OBS_BUF - 4);
	if (hold > period)
		period = hold;
	if (d->n == 0)
		d->t0_us = in->t_us;
	d->dt_sum_us += in->t_us > d->t0_us ? in->t_us - d->t0_us : 0;
	for (int i = 0; i < 3; i++)
		d->sum[i] += in->v[i];
	d->n++;
	if (in->t_us + period / 4 < d->next_us)
		return false;
	out->t_us = d->t0_us + d->dt_sum_us / d->n;
	for (int i = 0; i < 3; i++)
		out->v[i] = d->sum[i] / (float)d->n;
	e->count.obs_averaged += d->n - 1;
	d->next_us = (d->next_us ? d->next_us : in->t_us) + period;
	if (d->next_us <= in->t_us)
		d->next_us = in->t_us + period;
	d->n = 0;
	d->dt_sum_us = 0;
	memset(d->sum, 0, sizeof(d->sum));
	return true;
}

int estim_push_baro(struct estim *e, const struct baro_sample *s)
{
	if (!isfinite(s->pressure_pa) || s->pressure_pa < 30000.0f || s->pressure_pa > 115000.0f) {
		e->count.baro_invalid++;
		e->innov[ESTIM_BARO].invalid++;
		return -EINVAL;
	}
	float tk = isfinite(s->temp_c) && s->temp_c > -60.0f && s->temp_c < 90.0f ? s->temp_c + 273.15f : 288.15f;
	e->baro_temp_k = tk;
	e->air_density = s->pressure_pa / (287.05f * tk);
	e->last_baro_valid_us = s->t_us;
	if (!e->running)
		return -EAGAIN;
	/* ISA pressure altitude (troposphere) */
	float h = 44330.77f * (1.0f - powf(s->pressure_pa / 101325.0f, 0.190263f));
	struct estim_obs o = { .t_us = meas_time(s->t_us, e->cfg.baro_delay_ms), .v = { h, 0.0f, 0.0f } }, avg;
	if (!decim_add(e, &e->baro_dec, ESTIM_BARO_MAX_HZ, &o, &avg))
		return 0;
	return obs_push(e, e->baro_buf, &e->baro_head, &e->baro_count, &avg);
}

int estim_push_mag(struct estim *e, const struct mag_sample *s)
{
	float m[3], n2 = 0.0f;
	for (int i = 0; i < 3; i++) {
		m[i] = s->field_ut[i] * UT_TO_GAUSS;
		n2 += m[i] * m[i];
	}
	/* the earth's field is 0.25-0.65 gauss; allow for hard iron */
	if (!isfinite(n2) || n2 < 0.05f * 0.05f || n2 > 2.0f * 2.0f) {
		e->count.mag_invalid++;
		e->innov[ESTIM_MAG].invalid++;
		return -EINVAL;
	}
	if (!e->cfg.use_mag)
		return -EAGAIN;
	if (!e->running) {
		for (int i = 0; i < 3; i++) {
			e->align_mag[i] += m[i];
			e->mov_mag[i] += m[i];
		}
		e->align_mag_n++;
		e->mov_mag_n++;
		return -EAGAIN;
	}
	struct estim_obs o = { .t_us = meas_time(s->t_us, e->cfg.mag_delay_ms), .v = { m[0], m[1], m[2] } }, avg;
	if (!decim_add(e, &e->mag_dec, ESTIM_MAG_MAX_HZ, &o, &avg))
		return 0;
	return obs_push(e, e->mag_buf, &e->mag_head, &e->mag_count, &avg);
}

int estim_push_airspeed(struct estim *e, const struct airspeed_sample *s)
{
	if (!isfinite(s->diff_pressure_pa) || fabsf(s->diff_pressure_pa) > 10000.0f) {
		e->count.airspeed_invalid++;
		e->innov[ESTIM_TAS].invalid++;
		return -EINVAL;
	}
	float dp = s->diff_pressure_pa > 0.0f ? s->diff_pressure_pa : 0.0f;
	float eas = sqrtf(2.0f * dp / RHO0);
	float rho = e->air_density;
	if (isfinite(s->temp_c) && s->temp_c > -60.0f && s->temp_c < 90.0f)
		rho = e->air_density * e->baro_temp_k / (s->temp_c + 273.15f);
	float tas = eas * sqrtf(RHO0 / rho);
	e->tas_meas_m_s = tas;
	e->tas_meas_us = s->t_us;
	if (!e->running) {
		e->tas_last_m_s = tas;
		return -EAGAIN;
	}
	struct estim_obs o = { .t_us = meas_time(s->t_us, e->cfg.airspeed_delay_ms), .v = { tas, 0.0f, 0.0f } },
			 avg;
	if (!decim_add(e, &e->tas_dec, ESTIM_TAS_MAX_HZ, &o, &avg))
		return 0;
	return obs_push(e, e->tas_buf, &e->tas_head, &e->tas_count, &avg);
}

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
	if (e->gps_prev_valid_us && f->t_us > e->gps_prev_valid_us) {
		float dt = (float)(f->t_us - e->gps_prev_valid_us) * 1e-6f;
		if (dt <= 2.0f)
			e->gps_dt_s = e->gps_dt_s == 0.0f ? dt : e->gps_dt_s + 0.2f * (dt - e->gps_dt_s);
	}
	e->gps_prev_valid_us = f->t_us;
	e->gps_last_valid_us = f->t_us;
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
	g.t_us = meas_time(f->t_us, c->gps_delay_ms);
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

/* ---- outputs ---------------------------------------------------------- */

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
	bool gps = recent(t, e->innov[ESTIM_GPS_POS].last_fused_us, gps_timeout_s(e));
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
	if (recent(t, e->innov[ESTIM_MAG].last_fused_us, 1.0f))
		h |= ESTIM_H_MAG_USED;
	if (e->mag_fail_since_us)
		h |= ESTIM_H_MAG_REJECTING;
	if (recent(t, e->innov[ESTIM_BARO].last_fused_us, 1.0f))
		h |= ESTIM_H_BARO_USED;
	if (e->running && (e->baro_fail_since_us || !recent(now, e->last_baro_valid_us, 1.0f)))
		h |= ESTIM_H_BARO_FAULT;
	if (recent(t, e->hgt_reset_us, 10.0f))
		h |= ESTIM_H_HGT_DISAGREE;
	if (recent(t, e->innov[ESTIM_TAS].last_fused_us, 1.0f))
		h |= ESTIM_H_AIRSPEED_USED;
	if (recent(t, e->innov[ESTIM_BETA].last_fused_us, 1.0f))
		h |= ESTIM_H_BETA_USED;
	if (recent(now, e->imu_bad_us, 1.0f) || (e->imu_bad_us && e->imu_bad_us > e->t_now_us))
		h |= ESTIM_H_IMU_BAD;
	if (e->imu_frozen_us && e->imu_frozen_us >= e->t_now_us)
		h |= ESTIM_H_IMU_FROZEN;
	if (recent(now, e->numeric_us, 10.0f))
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
		if (!recent(e->t_delayed_us, e->innov[ESTIM_GPS_POS].last_fused_us, gps_timeout_s(e)))
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
	if ((h & ESTIM_H_BARO_USED) || recent(e->t_delayed_us, e->innov[ESTIM_GPS_HGT].last_fused_us, 2.0f))
		f |= ESTIM_EKF_VELOCITY_VERT | ESTIM_EKF_POS_VERT_ABS | ESTIM_EKF_POS_VERT_AGL;
	if (h & ESTIM_H_CONST_POS)
		f |= ESTIM_EKF_CONST_POS_MODE;
	bool gps_ok = recent(e->t_now_us, e->gps_last_valid_us, gps_timeout_s(e) + 0.5f);
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
	/* the sensor's own reading, within ESTIM_TAS_MEAS_AGE_S either side of now */
	uint64_t age = e->t_now_us > e->tas_meas_us ? e->t_now_us - e->tas_meas_us : e->tas_meas_us - e->t_now_us;
	out->airspeed_meas_m_s = e->cfg.use_airspeed && e->tas_meas_us != 0 &&
				 (float)age * 1e-6f < ESTIM_TAS_MEAS_AGE_S ? e->tas_meas_m_s : NAN;
	memcpy(out->wind_ne_m_s, e->x.wind, sizeof(out->wind_ne_m_s));
	out->pos_sigma_m = sqrt_pos(e->P[6][6] + e->P[7][7]);
	if (f & ESTIM_EKF_ATTITUDE)
		out->valid |= VEHICLE_ATTITUDE_VALID;
	if (f & ESTIM_EKF_POS_VERT_ABS)
		out->valid |= VEHICLE_ALTITUDE_VALID;
	if ((f & ESTIM_EKF_POS_HORIZ_ABS) && (f & ESTIM_EKF_VELOCITY_HORIZ))
		out->valid |= VEHICLE_POSITION_VALID;
	if (h & ESTIM_H_AIRSPEED_USED)
		out->valid |= VEHICLE_AIRSPEED_VALID;
	if (e->wind_active && e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] < 4.0f)
		out->valid |= VEHICLE_WIND_VALID;
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
