/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Hand-launch detector (ArduPlane's TKOFF_THR_* logic): the motor stays off
 * until a throw is seen. A forward acceleration of at least TKOFF_THR_MINACC
 * with the aircraft in a launch attitude (pitch -30..45 degrees, |roll| < 30)
 * arms it; TKOFF_THR_DELAY tenths of a second later, a ground speed of at
 * least TKOFF_THR_MINSPD launches. MINACC 0 skips the acceleration check.
 * Armed but not launched within LAUNCH_WINDOW_US after the delay, it disarms
 * (a throw that failed, or a knock on the bench). Pure; main thread.
 */
#ifndef FULMAR_NAV_LAUNCH_H
#define FULMAR_NAV_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#define LAUNCH_WINDOW_US 2500000u

struct launch_params {
	float tkoff_thr_minacc;   /* m/s^2, 0 = no acceleration check */
	float tkoff_thr_delay;    /* 0.1 s units */
	float tkoff_thr_minspd;   /* m/s of GPS ground speed */
};

void launch_params_default(struct launch_params *p);

struct launch {
	bool armed;
	bool launched;
	uint64_t t_armed_us;
};

void launch_init(struct launch *l);
/* One step; returns whether launched (latched until launch_init). accel_x is
 * the forward specific force (m/s^2), gs the ground speed. */
bool launch_update(struct launch *l, const struct launch_params *p, uint64_t now_us,
		   float accel_x_m_s2, float gs_m_s, float pitch_rad, float roll_rad);

#endif
