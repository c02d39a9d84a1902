// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The corrections are the second-order terms of the rotation vector and of the
 * velocity integral over an interval whose attitude rotates by alpha(t):
 *   coning:   phi = alpha + sum 1/2 (alpha_{k-1} + dalpha_{k-1}/6) x dalpha_k
 *   velocity: dv  = nu + sum (alpha_{k-1} + dalpha_k/2) x dv_k
 *                      + 1/12 sum (dalpha_{k-1} x dv_k + dv_{k-1} x dalpha_k)
 * (Bortz rotation-vector equation; Savage, "Strapdown inertial navigation
 * integration algorithm design", JGCD 1998, two-sample forms). The velocity
 * term (alpha x dv) is the rotation compensation; with the 1/12 terms it also
 * removes sculling rectification.
 */
#include "estim/estim_accum.h"

#include <string.h>

static void cross(const float a[3], const float b[3], float out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

void estim_accum_init(struct estim_accum *a)
{
	memset(a, 0, sizeof(*a));
}

void estim_accum_add(struct estim_accum *a, const float gyro_rad_s[3], const float accel_m_s2[3], float dt_s)
{
	float da[3], dv[3], c[3], t[3];
	for (int i = 0; i < 3; i++) {
		da[i] = gyro_rad_s[i] * dt_s;
		dv[i] = accel_m_s2[i] * dt_s;
	}
	/* coning: (alpha + last_da / 6) x da / 2 */
	for (int i = 0; i < 3; i++)
		t[i] = a->alpha[i] + a->last_dang[i] * (1.0f / 6.0f);
	cross(t, da, c);
	for (int i = 0; i < 3; i++)
		a->beta[i] += 0.5f * c[i];
	/* rotation compensation: (alpha + da / 2) x dv */
	for (int i = 0; i < 3; i++)
		t[i] = a->alpha[i] + 0.5f * da[i];
	cross(t, dv, c);
	for (int i = 0; i < 3; i++)
		a->scul[i] += c[i];
	/* sculling: (last_da x dv + last_dv x da) / 12 */
	float c2[3];
	cross(a->last_dang, dv, c);
	cross(a->last_dvel, da, c2);
	for (int i = 0; i < 3; i++)
		a->scul[i] += (c[i] + c2[i]) * (1.0f / 12.0f);
	for (int i = 0; i < 3; i++) {
		a->alpha[i] += da[i];
		a->nu[i] += dv[i];
		a->last_dang[i] = da[i];
		a->last_dvel[i] = dv[i];
	}
	a->dt_s += dt_s;
	a->count++;
}

float estim_accum_take(struct estim_accum *a, float dang_rad[3], float dvel_m_s[3])
{
	if (a->count == 0 || a->dt_s <= 0.0f)
		return 0.0f;
	for (int i = 0; i < 3; i++) {
		dang_rad[i] = a->alpha[i] + a->beta[i];
		dvel_m_s[i] = a->nu[i] + a->scul[i];
	}
	float dt = a->dt_s;
	/* Keep the last sample's deltas: the next interval's first coning and
	 * sculling terms use them, as the two-sample forms assume. */
	float ld[3], lv[3];
	memcpy(ld, a->last_dang, sizeof(ld));
	memcpy(lv, a->last_dvel, sizeof(lv));
	memset(a, 0, sizeof(*a));
	memcpy(a->last_dang, ld, sizeof(ld));
	memcpy(a->last_dvel, lv, sizeof(lv));
	return dt;
}
