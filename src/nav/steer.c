// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/steer.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

void steer_params_default(struct steer_params *p)
{
	p->ground_steer_alt = 0.0f;
	p->tconst = 0.75f;
	p->p = 1.8f;
	p->i = 0.2f;
	p->imax = 1500.0f;
	p->minspd = 1.0f;
}

void steer_init(struct steer *s)
{
	memset(s, 0, sizeof(*s));
}

bool steer_on_ground(const struct steer_params *p, float hgt_m)
{
	return p->ground_steer_alt > 0.0f && hgt_m < p->ground_steer_alt;
}

float steer_limit(float v_m_s, float fbw_min_m_s, float thr)
{
	float a = fbw_min_m_s > 0.0f ? nav_clampf(v_m_s / fbw_min_m_s, 0.0f, 1.0f) : 1.0f;
	float t = isfinite(thr) ? nav_clampf(thr, 0.0f, 1.0f) : 0.0f;
	return STEER_LIM_STILL + (1.0f - STEER_LIM_STILL) * fmaxf(a * a, t * t);
}

float steer_rudder(struct steer *s, const struct steer_params *p, float heading_err_rad,
		   float yaw_rate_rad_s, float gs_m_s, float aspd_m_s, float fbw_min_m_s, float thr,
		   float dt_s)
{
	if (!isfinite(heading_err_rad) || !isfinite(yaw_rate_rad_s) || !isfinite(gs_m_s) ||
	    !isfinite(fbw_min_m_s) || !isfinite(dt_s))
		return 0.0f;
	float tc = p->tconst > 0.05f ? p->tconst : 0.05f;
	float r_d = nav_clampf(heading_err_rad / tc, -STEER_RATE_MAX_RAD_S, STEER_RATE_MAX_RAD_S);
	float e = r_d - yaw_rate_rad_s;
	float k = STEER_GAIN_SPEED_M_S / fmaxf(gs_m_s, STEER_GAIN_SPEED_M_S);
	float lim = steer_limit(isfinite(aspd_m_s) ? aspd_m_s : gs_m_s, fbw_min_m_s, thr);
	float ilim = fminf(nav_clampf(p->imax / 4500.0f, 0.0f, 1.0f), lim);
	float u_p = k * p->p * e;
	float d_i = p->i * k * e * dt_s;
	bool pushing_limit = fabsf(u_p + s->integ) >= lim && (u_p + s->integ) * d_i > 0.0f;
	if (gs_m_s >= p->minspd && dt_s > 0.0f && !pushing_limit)
		s->integ += d_i;
	s->integ = nav_clampf(s->integ, -ilim, ilim);
	return nav_clampf(u_p + s->integ, -lim, lim);
}
