// SPDX-License-Identifier: GPL-3.0-or-later
#include "estim/vibe.h"

#include <math.h>
#include <string.h>

#define VIBE_FLOOR_HZ 5.0f
#define VIBE_LEVEL_HZ 2.0f
/* A gap longer than this (a stall, a paused simulator) is taken as one this long. */
#define VIBE_MAX_DT_S 0.1f

void vibe_init(struct vibe *v)
{
	memset(v, 0, sizeof(*v));
}

/* The first-order low-pass's gain for a step of dt at cut-off hz. */
static float lp_gain(float dt_s, float hz)
{
	float rc = 1.0f / (2.0f * 3.14159265f * hz);
	return dt_s / (dt_s + rc);
}

void vibe_push(struct vibe *v, uint64_t t_us, const float a[3])
{
	if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(a[2]))
		return;
	v->samples++;
	if (fabsf(a[0]) >= VIBE_CLIP_M_S2 || fabsf(a[1]) >= VIBE_CLIP_M_S2 ||
	    fabsf(a[2]) >= VIBE_CLIP_M_S2)
		v->clipped++;
	if (v->last_us == 0 || t_us <= v->last_us) {
		/* The first sample (or a clock that stepped back): the floor starts here. */
		if (v->last_us == 0)
			memcpy(v->floor, a, sizeof(v->floor));
		v->last_us = t_us ? t_us : 1;
		return;
	}
	float dt = (float)(t_us - v->last_us) * 1e-6f;
	v->last_us = t_us;
	if (dt > VIBE_MAX_DT_S)
		dt = VIBE_MAX_DT_S;
	float kf = lp_gain(dt, VIBE_FLOOR_HZ), kl = lp_gain(dt, VIBE_LEVEL_HZ);
	for (int i = 0; i < 3; i++) {
		v->floor[i] += kf * (a[i] - v->floor[i]);
		float d = a[i] - v->floor[i];
		v->sq[i] += kl * (d * d - v->sq[i]);
	}
}

bool vibe_get(const struct vibe *v, float out[3])
{
	if (v->last_us == 0)
		return false;
	for (int i = 0; i < 3; i++)
		out[i] = sqrtf(v->sq[i]);
	return true;
}
