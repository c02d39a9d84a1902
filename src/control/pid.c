// SPDX-License-Identifier: GPL-3.0-or-later
#include "control/pid.h"

#include <math.h>
#include <string.h>

#define TWO_PI 6.283185307179586f

float ctl_lowpass_alpha(float dt_s, float cutoff_hz)
{
	if (!(cutoff_hz > 0.0f))
		return 1.0f;
	if (!(dt_s > 0.0f))
		return 0.0f;
	float rc = 1.0f / (TWO_PI * cutoff_hz);
	return dt_s / (dt_s + rc);
}

void ctl_pid_init(struct ctl_pid *c)
{
	memset(c, 0, sizeof(*c));
	c->reset = true;
}

void ctl_pid_reset_filters(struct ctl_pid *c)
{
	c->reset = true;
}

void ctl_pid_reset_integrator(struct ctl_pid *c)
{
	c->integrator = 0.0f;
}

void ctl_pid_relax_integrator(struct ctl_pid *c, float toward, float dt_s, float tc_s)
{
	if (!isfinite(toward))
		return;
	if (!(tc_s > 0.0f)) {
		c->integrator = toward;
		return;
	}
	if (!(dt_s > 0.0f))
		return;
	c->integrator += (toward - c->integrator) * (1.0f - expf(-dt_s / tc_s));
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

float ctl_pid_update(struct ctl_pid *c, const struct ctl_pid_params *p, float target,
		     float measurement, float dt_s, bool limit)
{
	if (!isfinite(target) || !isfinite(measurement))
		return 0.0f;
	float dt = dt_s > 0.0f ? dt_s : 0.0f;

	if (c->reset) {
		c->reset = false;
		c->target = target;
		c->error = target - measurement;
		c->derivative = 0.0f;
	} else {
		float error_last = c->error;
		c->target += ctl_lowpass_alpha(dt, p->fltt_hz) * (target - c->target);
		c->error += ctl_lowpass_alpha(dt, p->flte_hz) * ((c->target - measurement) - c->error);
		if (dt > 0.0f) {
			float raw = (c->error - error_last) / dt;
			c->derivative += ctl_lowpass_alpha(dt, p->fltd_hz) * (raw - c->derivative);
		}
	}

	float imax = fabsf(p->imax);
	if (!(p->i != 0.0f) || !(imax > 0.0f)) {
		c->integrator = 0.0f;
	} else if (dt > 0.0f) {
		/* saturated: only a step back towards zero is allowed, so the
		 * integrator never winds further into what cannot be given */
		bool shrinks = (c->integrator > 0.0f && c->error < 0.0f) ||
			       (c->integrator < 0.0f && c->error > 0.0f);
		if (!limit || shrinks)
			c->integrator = clampf(c->integrator + c->error * p->i * dt, -imax, imax);
	}

	c->last.p = p->p * c->error;
	c->last.i = c->integrator;
	c->last.d = p->d * c->derivative;
	c->last.ff = p->ff * c->target;
	return c->last.p + c->last.i + c->last.d + c->last.ff;
}
