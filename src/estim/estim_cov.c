// SPDX-License-Identifier: GPL-3.0-or-later
/*
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

#include <string.h>

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
