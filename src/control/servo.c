// SPDX-License-Identifier: GPL-3.0-or-later
#include "control/servo.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

void servo_params_default(struct servo_params *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < SERVO_CHANNELS; i++) {
		p->ch[i].servo_min = 1100.0f;
		p->ch[i].servo_trim = 1500.0f;
		p->ch[i].servo_max = 1900.0f;
	}
	p->ch[0].servo_function = SERVO_FUNC_AILERON;
	p->ch[1].servo_function = SERVO_FUNC_ELEVATOR;
	p->ch[2].servo_function = SERVO_FUNC_THROTTLE;
	p->ch[2].servo_trim = 1100.0f;
	p->ch[3].servo_function = SERVO_FUNC_RUDDER;
	p->mixing_gain = 0.5f;
	p->thr_slewrate = 100.0f;
}

void servo_init(struct servo *s)
{
	memset(s, 0, sizeof(*s));
}

static uint16_t to_us(float v)
{
	if (!(v > 0.0f))
		return 0;
	if (v > 65535.0f)
		return 65535;
	return (uint16_t)lrintf(v);
}

uint16_t servo_pwm_surface(const struct servo_channel_params *c, float v)
{
	if (!isfinite(v))
		v = 0.0f;
	v = nav_clampf(v, -1.0f, 1.0f);
	if (c->servo_reversed > 0.5f)
		v = -v;
	float us = v >= 0.0f ? c->servo_trim + v * (c->servo_max - c->servo_trim)
			     : c->servo_trim + v * (c->servo_trim - c->servo_min);
	return to_us(us);
}

uint16_t servo_pwm_throttle(const struct servo_channel_params *c, float t)
{
	if (!isfinite(t))
		t = 0.0f;
	t = nav_clampf(t, 0.0f, 1.0f);
	if (c->servo_reversed > 0.5f)
		t = 1.0f - t;
	return to_us(c->servo_min + t * (c->servo_max - c->servo_min));
}

/* MIN..MAX usable, and the pulse within it up to the rounding of to_us(). */
static int check_range(const struct servo_channel_params *c, float trim, uint16_t pwm_us)
{
	if (!isfinite(c->servo_min) || !isfinite(trim) || !isfinite(c->servo_max) ||
	    !(c->servo_min <= trim && trim <= c->servo_max && c->servo_min < c->servo_max))
		return -EINVAL;
	if ((float)pwm_us < c->servo_min - 0.5f || (float)pwm_us > c->servo_max + 0.5f)
		return -ERANGE;
	return 0;
}

int servo_surface_of_pwm(const struct servo_channel_params *c, uint16_t pwm_us, float *out)
{
	int rc = check_range(c, c->servo_trim, pwm_us);
	if (rc)
		return rc;
	float d = (float)pwm_us - c->servo_trim;
	float v = 0.0f;
	if (d > 0.0f)
		v = c->servo_max > c->servo_trim ? d / (c->servo_max - c->servo_trim) : 1.0f;
	else if (d < 0.0f)
		v = c->servo_trim > c->servo_min ? d / (c->servo_trim - c->servo_min) : -1.0f;
	v = nav_clampf(v, -1.0f, 1.0f);
	*out = c->servo_reversed > 0.5f ? 0.0f - v : v;  /* never -0 */
	return 0;
}

int servo_throttle_of_pwm(const struct servo_channel_params *c, uint16_t pwm_us, float *out)
{
	int rc = check_range(c, c->servo_min, pwm_us);
	if (rc)
		return rc;
	float t = nav_clampf(((float)pwm_us - c->servo_min) / (c->servo_max - c->servo_min), 0.0f, 1.0f);
	*out = c->servo_reversed > 0.5f ? 1.0f - t : t;
	return 0;
}

void servo_output(struct servo *s, const struct servo_params *p, const struct ctl_surfaces *u,
		  float throttle, float dt_s, uint16_t pwm_us[SERVO_CHANNELS])
{
	throttle = isfinite(throttle) ? nav_clampf(throttle, 0.0f, 1.0f) : 0.0f;
	if (!s->started || !(p->thr_slewrate > 0.0f)) {
		s->throttle = throttle;
		s->started = true;
	} else {
		float step = p->thr_slewrate * 0.01f * (dt_s > 0.0f ? dt_s : 0.0f);
		s->throttle += nav_clampf(throttle - s->throttle, -step, step);
	}
	float g = p->mixing_gain;
	for (int i = 0; i < SERVO_CHANNELS; i++) {
		const struct servo_channel_params *c = &p->ch[i];
		switch ((int)c->servo_function) {
		case SERVO_FUNC_AILERON:
			pwm_us[i] = servo_pwm_surface(c, u->aileron);
			break;
		case SERVO_FUNC_ELEVATOR:
			pwm_us[i] = servo_pwm_surface(c, u->elevator);
			break;
		case SERVO_FUNC_RUDDER:
			pwm_us[i] = servo_pwm_surface(c, u->rudder);
			break;
		case SERVO_FUNC_THROTTLE:
			pwm_us[i] = servo_pwm_throttle(c, s->throttle);
			break;
		case SERVO_FUNC_ELEVON_LEFT:
			pwm_us[i] = servo_pwm_surface(c, g * (u->elevator - u->aileron));
			break;
		case SERVO_FUNC_ELEVON_RIGHT:
			pwm_us[i] = servo_pwm_surface(c, g * (u->elevator + u->aileron));
			break;
		case SERVO_FUNC_VTAIL_LEFT:
			pwm_us[i] = servo_pwm_surface(c, g * (u->elevator - u->rudder));
			break;
		case SERVO_FUNC_VTAIL_RIGHT:
			pwm_us[i] = servo_pwm_surface(c, g * (u->elevator + u->rudder));
			break;
		default:
			pwm_us[i] = to_us(c->servo_trim);
			break;
		}
	}
}
