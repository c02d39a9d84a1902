/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Small float helpers shared by navigation and control (control includes this
 * header: nav is built first). Header-only, pure.
 */
#ifndef FULMAR_NAV_MATH_H
#define FULMAR_NAV_MATH_H

#include <math.h>

#define NAV_PI_F 3.14159265358979f
#define NAV_G_M_S2 9.80665f
#define NAV_DEG2RAD (NAV_PI_F / 180.0f)
#define NAV_RAD2DEG (180.0f / NAV_PI_F)

static inline float nav_clampf(float x, float lo, float hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* Wrap an angle into [-pi, pi). */
static inline float nav_wrap_pi(float a)
{
	if (!isfinite(a))
		return 0.0f;
	while (a >= NAV_PI_F)
		a -= 2.0f * NAV_PI_F;
	while (a < -NAV_PI_F)
		a += 2.0f * NAV_PI_F;
	return a;
}

/* Wrap into [0, 2 pi). */
static inline float nav_wrap_2pi(float a)
{
	a = nav_wrap_pi(a);
	return a < 0.0f ? a + 2.0f * NAV_PI_F : a;
}

#endif
