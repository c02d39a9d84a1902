// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/poshold.h"

#include <math.h>
#include <string.h>

#define G_M_S2 9.80665f
#define RAD_TO_CD (18000.0f / (float)M_PI)
#define STOPPED_M_S 0.1f        /* POSHOLD_SPEED_0: an axis this slow has stopped */
#define BRAKE_MAX_S 6.0f        /* the longest brake */
#define TO_LOITER_S 1.5f        /* the brake handed to the loiter controller */
#define TO_PILOT_S 0.5f         /* the controller's lean handed to the pilot */
#define WIND_TC_S 1.0f
#define WIND_SHARE_MAX (2.0f / 3.0f)   /* of ANGLE_MAX */

static float clampf(float x, float lo, float hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

static float finite_or(float x, float dflt)
{
	return isfinite(x) ? x : dflt;
}

void copter_poshold_init(struct copter_poshold *ph)
{
	memset(ph, 0, sizeof(*ph));
}

bool copter_poshold_loitering(const struct copter_poshold *ph)
{
	for (int a = 0; a < 2; a++)
		if (ph->axis[a] != COPTER_POSHOLD_BRAKE_TO_LOITER && ph->axis[a] != COPTER_POSHOLD_LOITER)
			return false;
	return true;
}

/* The lean that brakes a speed along the axis (m/s; positive: the way a
 * positive lean accelerates), before the rate limit. */
static float brake_target_cd(const struct copter_poshold_params *pp, float v_m_s)
{
	float rate = clampf(finite_or(pp->brake_rate, 8.0f), 4.0f, 12.0f);
	float most = clampf(finite_or(pp->brake_angle, 3000.0f), 2000.0f, 4500.0f);
	float gain = (15.0f * rate + 95.0f) * 0.01f;
	float v = v_m_s * 100.0f;
	return clampf(-gain * v * (1.0f + 500.0f / (fabsf(v) + 60.0f)), -most, most);
}

static void to_pilot(struct copter_poshold *ph, int a, float from_cd)
{
	ph->axis[a] = COPTER_POSHOLD_TO_PILOT;
	ph->from_cd[a] = from_cd;
	ph->mix_s[a] = 0.0f;
}

static void to_brake(struct copter_poshold *ph, int a, float from_cd)
{
	ph->axis[a] = COPTER_POSHOLD_BRAKE;
	ph->brake_cd[a] = from_cd - ph->wind_cd[a];
	ph->brake_s[a] = 0.0f;
}

bool copter_poshold_update(struct copter_poshold *ph, const struct copter_poshold_params *pp,
			   const struct copter_poshold_in *in)
{
	float dt = in->dt_s > 0.0f && in->dt_s < 0.1f ? in->dt_s : 0.0f;
	float cy = cosf(finite_or(in->yaw_rad, 0.0f)), sy = sinf(finite_or(in->yaw_rad, 0.0f));
	float vn = finite_or(in->vel_ne_m_s[0], 0.0f), ve = finite_or(in->vel_ne_m_s[1], 0.0f);
	/* along each axis, the way its positive lean accelerates: right; back (nose up) */
	float v_axis[2] = { -vn * sy + ve * cy, -(vn * cy + ve * sy) };
	bool loitering = copter_poshold_loitering(ph);

	/* the wind: what the loiter controller leans against while holding still */
	if (ph->axis[0] == COPTER_POSHOLD_LOITER && ph->axis[1] == COPTER_POSHOLD_LOITER &&
	    hypotf(vn, ve) < STOPPED_M_S) {
		float k = dt / (dt + WIND_TC_S);
		for (int i = 0; i < 2; i++)
			ph->wind_ne_m_s2[i] += (finite_or(in->ctl_accel_ne_m_s2[i], 0.0f) -
						ph->wind_ne_m_s2[i]) * k;
	}
	float wn = ph->wind_ne_m_s2[0], we = ph->wind_ne_m_s2[1];
	float a_fwd = wn * cy + we * sy, a_right = -wn * sy + we * cy;
	float wmax = WIND_SHARE_MAX * fmaxf(finite_or(in->angle_max_cd, 3000.0f), 0.0f);
	ph->wind_cd[0] = clampf(atanf(a_right / G_M_S2) * RAD_TO_CD, -wmax, wmax);
	ph->wind_cd[1] = clampf(-atanf(a_fwd / G_M_S2) * RAD_TO_CD, -wmax, wmax);

	float rate_cd = clampf(finite_or(pp->brake_rate, 8.0f), 4.0f, 12.0f) * 100.0f * dt;
	bool stick_any = false;
	for (int a = 0; a < 2; a++) {
		float stick = finite_or(in->stick_cd[a], 0.0f);
		bool out = stick != 0.0f;
		stick_any |= out;
		ph->pilot_cd[a] = stick + ph->wind_cd[a];
		switch (ph->axis[a]) {
		case COPTER_POSHOLD_PILOT:
			if (!out)
				to_brake(ph, a, ph->pilot_cd[a]);
			break;
		case COPTER_POSHOLD_TO_PILOT:
			ph->mix_s[a] += dt;
			if (ph->mix_s[a] >= TO_PILOT_S)
				ph->axis[a] = COPTER_POSHOLD_PILOT;
			if (!out)
				to_brake(ph, a, ph->from_cd[a] + (ph->pilot_cd[a] - ph->from_cd[a]) *
							      fminf(ph->mix_s[a] / TO_PILOT_S, 1.0f));
			break;
		case COPTER_POSHOLD_BRAKE:
		case COPTER_POSHOLD_BRAKE_READY: {
			if (out) {
				to_pilot(ph, a, ph->brake_cd[a] + ph->wind_cd[a]);
				break;
			}
			float want = brake_target_cd(pp, v_axis[a]);
			ph->brake_cd[a] = clampf(want, ph->brake_cd[a] - rate_cd, ph->brake_cd[a] + rate_cd);
			ph->brake_s[a] += dt;
			if (fabsf(v_axis[a]) < STOPPED_M_S || ph->brake_s[a] >= BRAKE_MAX_S)
				ph->axis[a] = COPTER_POSHOLD_BRAKE_READY;
			break;
		}
		case COPTER_POSHOLD_BRAKE_TO_LOITER:
		case COPTER_POSHOLD_LOITER:
			ph->mix_s[a] += dt;
			if (ph->axis[a] == COPTER_POSHOLD_BRAKE_TO_LOITER && ph->mix_s[a] >= TO_LOITER_S)
				ph->axis[a] = COPTER_POSHOLD_LOITER;
			break;
		}
	}
	/* a stick out leaves the controller: that axis to the pilot, the other brakes */
	if (loitering && stick_any) {
		float flown[2];
		copter_poshold_angles(ph, in->ctl_cd, flown);
		for (int a = 0; a < 2; a++) {
			if (finite_or(in->stick_cd[a], 0.0f) != 0.0f)
				to_pilot(ph, a, flown[a]);
			else
				to_brake(ph, a, flown[a]);
		}
		return false;
	}
	/* both stopped: the loiter controller starts here */
	if (ph->axis[0] == COPTER_POSHOLD_BRAKE_READY && ph->axis[1] == COPTER_POSHOLD_BRAKE_READY) {
		for (int a = 0; a < 2; a++) {
			ph->axis[a] = COPTER_POSHOLD_BRAKE_TO_LOITER;
			ph->mix_s[a] = 0.0f;
		}
		return true;
	}
	return false;
}

void copter_poshold_angles(const struct copter_poshold *ph, const float ctl_cd[2], float out_cd[2])
{
	for (int a = 0; a < 2; a++) {
		float ctl = finite_or(ctl_cd[a], 0.0f);
		float brake = ph->brake_cd[a] + ph->wind_cd[a];
		switch (ph->axis[a]) {
		case COPTER_POSHOLD_PILOT:
			out_cd[a] = ph->pilot_cd[a];
			break;
		case COPTER_POSHOLD_TO_PILOT:
			out_cd[a] = ph->from_cd[a] + (ph->pilot_cd[a] - ph->from_cd[a]) *
						     fminf(ph->mix_s[a] / TO_PILOT_S, 1.0f);
			break;
		case COPTER_POSHOLD_BRAKE:
		case COPTER_POSHOLD_BRAKE_READY:
			out_cd[a] = brake;
			break;
		case COPTER_POSHOLD_BRAKE_TO_LOITER: {
			float k = fminf(ph->mix_s[a] / TO_LOITER_S, 1.0f);
			out_cd[a] = brake + (ctl - brake) * k;
			break;
		}
		case COPTER_POSHOLD_LOITER:
			out_cd[a] = ctl;
			break;
		}
	}
}
