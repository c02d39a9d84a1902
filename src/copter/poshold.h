/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * POSHOLD's lean angles, ArduCopter's way: each axis (roll, pitch) on its own
 * is flown by the pilot's stick while it is out, brakes when it centres, and
 * once both axes have stopped the loiter controller holds the place.
 *
 *   PILOT          the stick's lean, plus the wind's (below)
 *   BRAKE          a lean against the velocity on that axis, growing at
 *                  PHLD_BRAKE_RATE (deg/s) up to PHLD_BRAKE_ANGLE (cd),
 *                  until the axis is slower than 0.1 m/s (or 6 s)
 *   BRAKE_READY    stopped; holds its brake until the other axis is too
 *   BRAKE_TO_LOITER  both stopped: the loiter controller starts where the
 *                  vehicle is and takes over in 1.5 s, mixed linearly
 *   LOITER         the loiter controller's lean
 *   TO_PILOT       a stick out again: from the lean flown to the pilot's in
 *                  0.5 s; the other axis, leaving the controller, brakes
 *
 * The brake's lean for a speed v (cm/s) along the axis is ArduCopter's
 * published curve: gain * v * (1 + 500 / (|v| + 60)), gain = (15 *
 * PHLD_BRAKE_RATE + 95) / 100. The wind's lean is the loiter
 * controller's horizontal demand while holding still (slower than 0.1 m/s),
 * low-passed with a 1 s time constant and capped at two thirds of
 * ANGLE_MAX: the pilot and the brake fly on top of it.
 *
 * Pure step functions; angles in centidegrees, roll right and pitch nose up
 * positive (the attitude controller's convention), axes 0 roll, 1 pitch.
 */
#ifndef FULMAR_COPTER_POSHOLD_H
#define FULMAR_COPTER_POSHOLD_H

#include <stdbool.h>

struct copter_poshold_params {
	float brake_rate;    /* PHLD_BRAKE_RATE, deg/s (4..12) */
	float brake_angle;   /* PHLD_BRAKE_ANGLE, cd (2000..4500) */
};

enum copter_poshold_axis {
	COPTER_POSHOLD_PILOT = 0,
	COPTER_POSHOLD_BRAKE,
	COPTER_POSHOLD_BRAKE_READY,
	COPTER_POSHOLD_BRAKE_TO_LOITER,
	COPTER_POSHOLD_LOITER,
	COPTER_POSHOLD_TO_PILOT,
};

struct copter_poshold {
	enum copter_poshold_axis axis[2];
	float brake_cd[2];      /* the brake's lean, without the wind's */
	float brake_s[2];       /* time braking */
	float mix_s[2];         /* time into a hand-over */
	float from_cd[2];       /* the lean a hand-over to the pilot starts from */
	float pilot_cd[2];      /* this step's pilot lean, wind's included */
	float wind_ne_m_s2[2];  /* the wind's share of the loiter controller's demand */
	float wind_cd[2];       /* ... as lean angles in this step's heading frame */
};

/* Entering the mode: both axes with the pilot, no wind known. */
void copter_poshold_init(struct copter_poshold *ph);

struct copter_poshold_in {
	float stick_cd[2];        /* the pilot's lean, 0 with the stick centred */
	float vel_ne_m_s[2];      /* the estimate's horizontal velocity */
	float yaw_rad;            /* the heading the axes are in */
	float ctl_accel_ne_m_s2[2]; /* the loiter controller's last horizontal demand */
	float ctl_cd[2];          /* ... and its last leans */
	float angle_max_cd;       /* ANGLE_MAX */
	float dt_s;
};

/*
 * One step of the axes' states. Returns true when the loiter controller must
 * start now, where the vehicle is (the caller sets its target).
 */
bool copter_poshold_update(struct copter_poshold *ph, const struct copter_poshold_params *pp,
			   const struct copter_poshold_in *in);

/* Both axes on the loiter controller (BRAKE_TO_LOITER or LOITER): it must run. */
bool copter_poshold_loitering(const struct copter_poshold *ph);

/* The leans to fly (cd), given the loiter controller's this step (ignored
 * unless copter_poshold_loitering). */
void copter_poshold_angles(const struct copter_poshold *ph, const float ctl_cd[2],
			   float out_cd[2]);

#endif
