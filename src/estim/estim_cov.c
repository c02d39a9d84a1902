// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The estimator's covariance: its prediction through a filter step (the
 * transition, then the process noise), its bounds and its resets.
 *
 * P <- F P F' on the rows and columns it changes (estim_cov.h). With A = F P:
 *  - rows 0..8 of A are P's plus the G terms, each over all 27 columns;
 *  - rows 9..26 of A are P's;
 *  - F P F' = A F': columns 9..26 are A's, and columns 0..8 of rows 9..26
 *    are the transposes of rows 0..8 of A (P symmetric: the column update of
 *    P[j][di] adds the same terms to the same value in the same order as the
 *    row update of P[di][j]);
 *  - only the 9 x 9 block of A F' among rows and columns 0..8 is left to
 *    compute, and to make symmetric.
 */
#include "estim/estim_cov.h"

#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"

#define N ESTIM_NSTATES
#define NAV ESTIM_COV_NAV

void estim_cov_transition(float P[N][N], float R[3][3], const float dv_ned[3], const float dang[3],
			  float dt_s)
{
	/* G's blocks, in the order the dense update applied them (which fixes
	 * the order of the additions, and so the rounding) */
	enum { NB = 5 };
	static const int blk_row[NB] = { ESTIM_S_ATT, ESTIM_S_VEL, ESTIM_S_VEL, ESTIM_S_POS, ESTIM_S_ATT };
	static const int blk_col[NB] = { ESTIM_S_GYRO_BIAS, ESTIM_S_ATT, ESTIM_S_ACC_BIAS, ESTIM_S_VEL,
					 ESTIM_S_GYRO_SCALE };
	float B[NB][3][3];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			B[0][i][j] = -R[i][j] * dt_s;
			B[2][i][j] = -R[i][j] * dt_s;
			B[3][i][j] = i == j ? dt_s : 0.0f;
			/* dtheta' = ... - R diag(dang) dsf */
			B[4][i][j] = -R[i][j] * dang[j];
		}
	/* -[a x] */
	B[1][0][0] = 0.0f;
	B[1][0][1] = dv_ned[2];
	B[1][0][2] = -dv_ned[1];
	B[1][1][0] = -dv_ned[2];
	B[1][1][1] = 0.0f;
	B[1][1][2] = dv_ned[0];
	B[1][2][0] = dv_ned[1];
	B[1][2][1] = -dv_ned[0];
	B[1][2][2] = 0.0f;

	/* A = rows 0..8 of F P */
	float A[NAV][N];
	memcpy(A, P, sizeof(A));
	for (int b = 0; b < NB; b++)
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				float f = B[b][i][k];
				if (f == 0.0f)
					continue;
				const float *src = P[blk_col[b] + k];
				float *dst = A[blk_row[b] + i];
				for (int j = 0; j < N; j++)
					dst[j] += f * src[j];
			}
	/* C = the 9 x 9 block of A F' */
	float C[NAV][NAV];
	for (int j = 0; j < NAV; j++)
		memcpy(C[j], A[j], sizeof(C[j]));
	for (int b = 0; b < NB; b++)
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				float f = B[b][i][k];
				if (f == 0.0f)
					continue;
				int di = blk_row[b] + i, sk = blk_col[b] + k;
				for (int j = 0; j < NAV; j++)
					C[j][di] += f * A[j][sk];
			}

	for (int i = 0; i < NAV; i++) {
		P[i][i] = C[i][i];
		for (int j = i + 1; j < NAV; j++)
			P[i][j] = P[j][i] = 0.5f * (C[i][j] + C[j][i]);
		for (int j = NAV; j < N; j++)
			P[i][j] = P[j][i] = A[i][j];
	}
}

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

/* Variances in [0, max]. A variance over its bound scales its whole row and
 * column (keeps P positive semi-definite, unlike clipping the diagonal
 * alone); a negative one zeroes them. P is exactly symmetric here and stays
 * so: every writer of P keeps it so (estim_cov_transition, estim_fuse_scalar,
 * the resets), so this needs no averaging of the two triangles. */
void estim_cov_fix(struct estim *e)
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
void estim_cov_reset(struct estim *e, int i0, int n, float var)
{
	for (int i = i0; i < i0 + n; i++) {
		for (int j = 0; j < N; j++)
			e->P[i][j] = e->P[j][i] = 0.0f;
		e->P[i][i] = var;
	}
}

/* P = F P F' + Q, F from the strapdown error model (estim_cov.h: only the
 * rows and columns of attitude, velocity and position change). */
void estim_cov_predict(struct estim *e, float R[3][3], const float dv_ned[3], const float dang[3], float dt)
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
	if (e->origin_set &&
	    !estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_VEL].last_fused_us, estim_gps_timeout_s(e)))
		q[ESTIM_S_POS] = q[ESTIM_S_POS + 1] = c->pos_nsd_dr * c->pos_nsd_dr * dt;
	q[ESTIM_S_BARO_BIAS] = c->baro_bias_nsd * c->baro_bias_nsd * dt;
	for (int i = 0; i < N; i++)
		P[i][i] += q[i];
	estim_cov_fix(e);
	/* Inactive states keep their prior and no correlation. */
	if (!e->wind_active)
		estim_cov_reset(e, ESTIM_S_WIND, 2, 25.0f);
	if (!e->mag_active) {
		estim_cov_reset(e, ESTIM_S_MAG_EARTH, 3, 0.0025f);
		estim_cov_reset(e, ESTIM_S_MAG_BODY, 3, 0.0025f);
	}
}
