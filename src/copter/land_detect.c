// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/land_detect.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

/* The timers add dt each step: 400 steps of 0.0025 s fall a hair short of
 * 1 s in float. ArduCopter counts loops; this tolerance keeps its step. */
#define TIME_EPS_S 1e-4f

void copter_land_params_default(struct copter_land_params *p)
{
	p->fs_crash_check = 1.0f;
}

void copter_land_init(struct copter_land *ld)
{
	memset(ld, 0, sizeof(*ld));
	ld->landed = ld->landed_maybe = true;
}

float copter_thrust_angle_rad(float roll_a, float pitch_a, float roll_b, float pitch_b)
{
	/* body z in the earth frame of a zero heading: (sin p cos r, -sin r, cos p cos r) */
	float ax = sinf(pitch_a) * cosf(roll_a), ay = -sinf(roll_a), az = cosf(pitch_a) * cosf(roll_a);
	float bx = sinf(pitch_b) * cosf(roll_b), by = -sinf(roll_b), bz = cosf(pitch_b) * cosf(roll_b);
	return acosf(nav_clampf(ax * bx + ay * by + az * bz, -1.0f, 1.0f));
}

static bool inputs_finite(const struct copter_land_in *in)
{
	return isfinite(in->throttle) && isfinite(in->throttle_hover) && isfinite(in->climb_m_s) &&
	       !isinf(in->speed_m_s) && isfinite(in->accel_ned_m_s2[0]) &&
	       isfinite(in->accel_ned_m_s2[1]) && isfinite(in->accel_ned_m_s2[2]) &&
	       isfinite(in->roll_rad) && isfinite(in->pitch_rad) && isfinite(in->target_roll_rad) &&
	       isfinite(in->target_pitch_rad);
}

static float accel_filt(const struct copter_land *ld)
{
	const float *a = ld->accel_ned_filt_m_s2;
	return sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* The target's lean (its thrust vector's angle from the vertical). */
static float target_lean_rad(const struct copter_land_in *in)
{
	return copter_thrust_angle_rad(in->target_roll_rad, in->target_pitch_rad, 0.0f, 0.0f);
}

static void set_landed(struct copter_land *ld, bool b)
{
	if (ld->landed != b)
		ld->land_s = 0.0f;
	ld->landed = b;
}

static void update_landed(struct copter_land *ld, const struct copter_land_in *in, float dt)
{
	if (!in->armed) {
		set_landed(ld, true);
	} else if (ld->landed) {
		/* flying again once spooled up past half the hover throttle */
		if (in->spool_unlimited && in->throttle > 0.5f * fmaxf(in->throttle_hover, 0.0f))
			set_landed(ld, false);
	} else {
		float err = copter_thrust_angle_rad(in->roll_rad, in->pitch_rad, in->target_roll_rad,
						    in->target_pitch_rad);
		bool ok = in->throttle_lower && in->throttle_mix_min &&
			  target_lean_rad(in) <= COPTER_LAND_LARGE_ANGLE_DEG * NAV_DEG2RAD &&
			  err <= COPTER_LAND_ANGLE_ERROR_DEG * NAV_DEG2RAD &&
			  accel_filt(ld) <= COPTER_LAND_ACCEL_MAX_M_S2 &&
			  fabsf(in->climb_m_s) < COPTER_LAND_CLIMB_MAX_M_S;
		if (!ok)
			ld->land_s = 0.0f;
		else if (ld->land_s + TIME_EPS_S < COPTER_LAND_TRIGGER_S)
			ld->land_s += dt;
		else
			set_landed(ld, true);
	}
	/* the count reaches the trigger in one step and lands on the next, as
	 * ArduCopter's loop counter does */
	ld->landed_maybe = ld->landed || ld->land_s + TIME_EPS_S >= COPTER_LAND_MAYBE_TRIGGER_S;
}

static void update_crash(struct copter_land *ld, const struct copter_land_params *p,
			 const struct copter_land_in *in, float dt)
{
	if (!in->armed) {
		ld->crashed = false;
		ld->crash_s = 0.0f;
		return;
	}
	if (ld->landed || !(p->fs_crash_check != 0.0f) || !in->crash_check_mode) {
		ld->crash_s = 0.0f;
		return;
	}
	float lean = acosf(nav_clampf(cosf(in->roll_rad) * cosf(in->pitch_rad), -1.0f, 1.0f));
	float err = copter_thrust_angle_rad(in->roll_rad, in->pitch_rad, in->target_roll_rad,
					    in->target_pitch_rad);
	bool crashing = accel_filt(ld) < COPTER_CRASH_ACCEL_MAX_M_S2 &&
			lean > COPTER_CRASH_LEAN_MIN_DEG * NAV_DEG2RAD &&
			err > COPTER_CRASH_ANGLE_ERROR_DEG * NAV_DEG2RAD &&
			!(in->speed_m_s >= COPTER_CRASH_SPEED_MAX_M_S);
	if (!crashing) {
		ld->crash_s = 0.0f;
		return;
	}
	ld->crash_s += dt;
	if (ld->crash_s + TIME_EPS_S >= COPTER_CRASH_TRIGGER_S)
		ld->crashed = true;
}

void copter_land_update(struct copter_land *ld, const struct copter_land_params *p,
			const struct copter_land_in *in, float dt_s)
{
	if (!isfinite(dt_s) || dt_s <= 0.0f || !inputs_finite(in)) {
		ld->nonfinite_inputs++;
		return;
	}
	float alpha = dt_s / (dt_s + 1.0f / (2.0f * NAV_PI_F * COPTER_LAND_ACCEL_LPF_HZ));
	for (int i = 0; i < 3; i++)
		ld->accel_ned_filt_m_s2[i] += alpha * (in->accel_ned_m_s2[i] - ld->accel_ned_filt_m_s2[i]);
	update_landed(ld, in, dt_s);
	update_crash(ld, p, in, dt_s);
}

bool copter_land_want_thr_mix_min(const struct copter_land *ld, const struct copter_land_in *in,
				  float climb_target_m_s, bool landing)
{
	if (!in->armed || ld->landed)
		return true;
	float err = copter_thrust_angle_rad(in->roll_rad, in->pitch_rad, in->target_roll_rad,
					    in->target_pitch_rad);
	bool large_request = target_lean_rad(in) > COPTER_LAND_LARGE_ANGLE_DEG * NAV_DEG2RAD;
	bool large_error = !(err <= COPTER_LAND_ANGLE_ERROR_DEG * NAV_DEG2RAD);
	bool moving = accel_filt(ld) > COPTER_LAND_ACCEL_MOVING_M_S2;
	bool no_descent = !(climb_target_m_s < 0.0f);
	return !((large_request && !landing) || large_error || moving || no_descent);
}
