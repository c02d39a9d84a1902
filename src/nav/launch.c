// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/launch.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

void launch_params_default(struct launch_params *p)
{
	p->tkoff_thr_minacc = 0.0f;
	p->tkoff_thr_delay = 2.0f;
	p->tkoff_thr_minspd = 0.0f;
}

void launch_init(struct launch *l)
{
	memset(l, 0, sizeof(*l));
}

bool launch_update(struct launch *l, const struct launch_params *p, uint64_t now_us,
		   float accel_x_m_s2, float gs_m_s, float pitch_rad, float roll_rad)
{
	if (l->launched)
		return true;
	/* the delay runs from the throw; without the acceleration check there is
	 * no throw to time from */
	uint64_t delay_us = p->tkoff_thr_minacc > 0.0f ?
				    (uint64_t)(fmaxf(p->tkoff_thr_delay, 0.0f) * 100000.0f) : 0;
	if (l->armed && now_us - l->t_armed_us > delay_us + LAUNCH_WINDOW_US)
		l->armed = false;
	if (!l->armed) {
		bool attitude_ok = pitch_rad > -30.0f * NAV_DEG2RAD && pitch_rad < 45.0f * NAV_DEG2RAD &&
				   fabsf(roll_rad) < 30.0f * NAV_DEG2RAD;
		if (p->tkoff_thr_minacc <= 0.0f ||
		    (attitude_ok && accel_x_m_s2 >= p->tkoff_thr_minacc)) {
			l->armed = true;
			l->t_armed_us = now_us;
		}
	}
	if (l->armed && now_us - l->t_armed_us >= delay_us && gs_m_s >= p->tkoff_thr_minspd)
		l->launched = true;
	return l->launched;
}
