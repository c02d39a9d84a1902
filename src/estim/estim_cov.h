/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The estimator's covariance propagation through one filter step, P <- F P F',
 * for F = I + G, G the blocks of the strapdown error model:
 *   dtheta' = dtheta - R dt dbg - R diag(dang) dsf
 *   dv'     = dv - [R dvc x] dtheta - R dt dba
 *   dp'     = dp + dt dv
 * Every block of G sits in the rows of the attitude, velocity and position
 * (the first ESTIM_COV_NAV states), so the rest of F is the identity: the
 * rows and columns of the other 18 states only take the first 9 rows of
 * G P, and the 18 x 18 block among them (two thirds of P) does not change.
 * estim_cov_transition computes only what changes: the same operations in
 * the same order as the dense row-then-column update (with the upper and
 * lower triangles of the changed 9 x 9 block averaged), and so, for a P that
 * is exactly symmetric, the same floats. Pure; P is caller storage. Split
 * out of estim.c so the unit tests can hold it against the dense product.
 */
#ifndef FULMAR_ESTIM_COV_H
#define FULMAR_ESTIM_COV_H

#include "estim/estim.h"

enum { ESTIM_COV_NAV = 9 }; /* attitude, velocity, position: the rows G touches */

/* P <- F P F' for the attitude R (body to NED) at the step's start, the
 * step's specific-force velocity change dv_ned (m/s, NED), its corrected
 * delta angle dang (rad, body) and its length dt_s. P must be exactly
 * symmetric; it is left exactly symmetric. */
void estim_cov_transition(float P[ESTIM_NSTATES][ESTIM_NSTATES], float R[3][3], const float dv_ned[3],
			  const float dang[3], float dt_s);

#endif
