/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Vibration, as ArduPilot reports it in VIBRATION (and its log's VIBE): per
 * axis, the root of the low-passed (2 Hz) square of the accelerometer less
 * its own 5 Hz low-pass, in m/s^2; and the count of samples with an axis at
 * the clipping limit. Pure; fed every raw IMU sample, on one thread.
 */
#ifndef FULMAR_ESTIM_VIBE_H
#define FULMAR_ESTIM_VIBE_H

#include <stdbool.h>
#include <stdint.h>

/* 15.5 g: the drivers run the accelerometer at +-16 g; a margin below its end. */
#define VIBE_CLIP_M_S2 (15.5f * 9.80665f)

struct vibe {
	uint64_t last_us;       /* 0: no sample yet */
	float floor[3];         /* the accelerometer's 5 Hz low-pass */
	float sq[3];            /* (accel - floor)^2 through 2 Hz */
	uint32_t clipped;       /* samples with an axis at VIBE_CLIP_M_S2 or beyond */
	uint32_t samples;
};

void vibe_init(struct vibe *v);
/* One accelerometer sample at time t_us; a non-finite one is skipped. */
void vibe_push(struct vibe *v, uint64_t t_us, const float accel_m_s2[3]);
/* The vibration levels (m/s^2); false before the first sample. */
bool vibe_get(const struct vibe *v, float out_m_s2[3]);

#endif
