/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter's attitude and rate controllers, shaped as ArduCopter's
 * AC_AttitudeControl / AC_AttitudeControl_Multi, with its ATC_* parameter
 * names and defaults. Pure: no clock, file or device; the estimate, the
 * mixer's limit flags and dt are arguments; state in caller storage. The
 * main thread (the flight loop, 400 Hz) is its only writer.
 *
 * Each main-loop step the flight mode calls one input function, then
 * copter_atc_set_throttle_out, then copter_atc_rate_controller_run, and
 * hands the result to copter_motors_update (copter/motors.h):
 *
 *   input_*      desired attitude -> a shaped target attitude moving towards
 *                it with ATC_ACCEL_*_MAX, ATC_INPUT_TC and ATC_RATE_*_MAX,
 *                whose angular velocity is fed forward; then the quaternion
 *                error between target and estimate, split into a thrust-
 *                vector part (x, y) and a heading part (z), becomes a body
 *                rate through the square-root controller (ATC_ANG_*_P, the
 *                acceleration limit / 2) and is added to the feed-forward.
 *   rate run     one PID (control/pid.h: ATC_RAT_*_{P,I,D,IMAX,FF,FLTT,FLTE,
 *                FLTD}) per body axis -> the mixer's roll, pitch, yaw (-1..1);
 *                the integrators stop growing while the mixer reports the
 *                axis saturated, are held near 0 while landed and are reset
 *                when disarmed; the throttle-vs-attitude mix slews towards
 *                the mode's ATC_THR_MIX_*.
 *
 * Angles, axes and signs are ArduCopter's and the mixer's: body x forward,
 * y right, z down; roll +1 = roll right, pitch +1 = nose up, yaw +1 = nose
 * right. Euler angles are ZYX (yaw, then pitch, then roll). The public
 * inputs are in centidegrees as ArduCopter's are.
 */
#ifndef FULMAR_COPTER_ATC_H
#define FULMAR_COPTER_ATC_H

#include <stdbool.h>
#include <stdint.h>

#include "control/pid.h"
#include "copter/motors.h"
#include "fulmar/vehicle_state.h"

/* Field names are ArduCopter's parameter names in lower case; the rate
 * loops' groups hold ATC_RAT_RLL_P as atc_rat_rll.p, ATC_RAT_RLL_FLTT as
 * atc_rat_rll.fltt_hz and so on. */
struct copter_atc_params {
	struct ctl_pid_params atc_rat_rll, atc_rat_pit, atc_rat_yaw;  /* output per rad/s */
	float atc_ang_rll_p, atc_ang_pit_p, atc_ang_yaw_p;  /* 1/s: rate per angle error */
	float atc_accel_r_max, atc_accel_p_max, atc_accel_y_max;  /* cdeg/s/s; 0 = no limit */
	float atc_rate_r_max, atc_rate_p_max, atc_rate_y_max;     /* deg/s, body; 0 = no limit */
	float atc_input_tc;       /* s, 0..1: time constant of the shaped approach */
	float atc_slew_yaw;       /* cdeg/s: heading target's rate when a caller asks to slew */
	float atc_thr_mix_min, atc_thr_mix_man, atc_thr_mix_max;  /* see copter_motors_in.thr_mix */
	float atc_angle_boost;    /* 1: throttle raised by 1 / cos(tilt) when asked */
	float angle_max;          /* cdeg: largest lean target, 1000..8000 */
};

/*
 * ArduCopter 4.x's defaults (AC_AttitudeControl.h/.cpp,
 * AC_AttitudeControl_Multi.h, ArduCopter/config.h):
 *   ATC_RAT_RLL/PIT: P 0.135 I 0.135 D 0.0036 IMAX 0.5 FF 0 FLTT 20 FLTE 0 FLTD 20
 *   ATC_RAT_YAW:     P 0.18  I 0.018 D 0      IMAX 0.5 FF 0 FLTT 20 FLTE 2.5 FLTD 0
 *   ATC_ANG_RLL/PIT/YAW_P 4.5; ATC_ACCEL_R/P_MAX 110000, ATC_ACCEL_Y_MAX 27000;
 *   ATC_RATE_R/P/Y_MAX 0; ATC_INPUT_TC 0.15; ATC_SLEW_YAW 6000;
 *   ATC_THR_MIX_MIN 0.1, _MAN 0.1, _MAX 0.5; ATC_ANGLE_BOOST 1; ANGLE_MAX 3000.
 */
void copter_atc_params_default(struct copter_atc_params *p);

enum copter_atc_axis {
	COPTER_ATC_ROLL,
	COPTER_ATC_PITCH,
	COPTER_ATC_YAW,
	COPTER_ATC_AXIS_COUNT,
};

struct copter_atc {
	struct ctl_pid rate_pid[COPTER_ATC_AXIS_COUNT];
	float target_q[4];                 /* target attitude, body to NED, w x y z */
	float euler_rate_target_rad_s[3];  /* shaped rates of the target's Euler angles */
	float ang_vel_target_rad_s[3];     /* the same as the target frame's body rate (feed-forward) */
	float rate_target_rad_s[3];        /* body rates asked of the rate loops */
	float att_error_rad[3];            /* last error: thrust vector (x, y), heading (z) */
	float thrust_error_rad;            /* angle between target and estimated thrust axes */
	float throttle;                    /* from copter_atc_set_throttle_out, 0..1 */
	float thr_mix;                     /* slewed mix handed to the mixer */
	/* the last finite demands: what a non-finite one is replaced by */
	float roll_cd, pitch_cd, yaw_cd, yaw_rate_cds, throttle_in;
	bool target_set;                   /* the target has been set from an estimate */
	uint32_t nonfinite_inputs;         /* demands or dt not finite (held) */
	uint32_t bad_estimates;            /* attitude invalid or not finite, or a rate not finite */
};

/* Zeroed, target level; the first input with a usable estimate starts the
 * target at the estimated attitude. */
void copter_atc_init(struct copter_atc *a);

/*
 * ArduCopter's relax_attitude_controllers: the target becomes the estimated
 * attitude with its body rates (0 where not finite), every PID's filters and
 * integrator are reset. Called by copter_atc_rate_controller_run when
 * disarmed; a mode change may call it too.
 */
void copter_atc_relax(struct copter_atc *a, const struct vehicle_state *vs);

/*
 * ArduCopter's reset_yaw_target_and_rate: the target turned about the
 * vertical onto the estimate's heading (its lean kept), the heading's rate
 * target zeroed and the feed-forward made again from it. Nothing happens
 * without a usable estimate. A landing calls it from touchdown on, so the
 * heading loop does not fight the twist the ground gave the vehicle.
 */
void copter_atc_reset_yaw_target(struct copter_atc *a, const struct vehicle_state *vs);

/*
 * STABILIZE / ALT_HOLD / LOITER: lean angles (roll_cd, pitch_cd: Euler
 * angles, their combined magnitude limited to ANGLE_MAX) and a rate of the
 * heading (yaw_rate_cds), over dt_s. The lean targets are shaped by
 * ATC_INPUT_TC within the acceleration limits, the yaw rate within
 * ATC_ACCEL_Y_MAX. A non-finite demand keeps the last finite one and is
 * counted; a non-finite or negative dt_s counts (non-finite) and is taken
 * as 0.
 */
void copter_atc_input_euler_angle_roll_pitch_euler_rate_yaw(struct copter_atc *a,
							     const struct copter_atc_params *p,
							     const struct vehicle_state *vs,
							     float roll_cd, float pitch_cd,
							     float yaw_rate_cds, float dt_s);

/*
 * AUTO / GUIDED: lean angles as above and a heading (yaw_cd, any value,
 * wrapped). With slew_yaw the heading target turns no faster than
 * ATC_SLEW_YAW (and ATC_RATE_Y_MAX when set), as ArduCopter's waypoint
 * modes ask.
 */
void copter_atc_input_euler_angle_roll_pitch_yaw(struct copter_atc *a,
						 const struct copter_atc_params *p,
						 const struct vehicle_state *vs, float roll_cd,
						 float pitch_cd, float yaw_cd, bool slew_yaw,
						 float dt_s);

/*
 * The collective thrust, 0..1 of the mixer's range (copter_motors_in.
 * throttle), passed through; with angle_boost and ATC_ANGLE_BOOST raised
 * by 1 / cos(tilt) of the estimate (tilt capped at 84 degrees) and faded
 * to 0 from 84 to 90 degrees of tilt and beyond, as ArduCopter does. A
 * non-finite throttle keeps the last finite one (counted).
 */
void copter_atc_set_throttle_out(struct copter_atc *a, const struct copter_atc_params *p,
				 const struct vehicle_state *vs, float throttle, bool angle_boost);

/* Which ATC_THR_MIX_* the flight mode asks for (ArduCopter's
 * set_throttle_mix_min / _man / _max). */
enum copter_atc_thr_mix {
	COPTER_ATC_THR_MIX_MIN = 1,   /* landed or landing */
	COPTER_ATC_THR_MIX_MAN,       /* pilot's throttle (STABILIZE, ACRO) */
	COPTER_ATC_THR_MIX_MAX,       /* automatic throttle: MIN + ratio (MAX - MIN) */
};

struct copter_atc_rate_in {
	bool armed;                        /* false: copter_atc_relax, outputs 0 */
	bool landed;                       /* integrators may only shrink, and decay to 0
					    * with a 0.16 s time constant */
	struct copter_motors_limit limit;  /* the mixer's flags from its last step */
	enum copter_atc_thr_mix thr_mix;   /* any other value: MIN */
	float thr_mix_ratio;               /* 0..1, for COPTER_ATC_THR_MIX_MAX */
};

/* What the mixer is given (the fields of copter_motors_in of the same
 * names); never NaN. */
struct copter_atc_out {
	float roll, pitch, yaw;            /* -1..1 */
	float throttle;                    /* 0..1 */
	float thr_mix;                     /* ATC_THR_MIX_MIN..1 */
	struct ctl_pid_terms terms[COPTER_ATC_AXIS_COUNT];
};

/*
 * The rate loops for one step of dt_s: each body rate target against the
 * estimate's body rate. roll and pitch stop integrating outwards while
 * limit.roll_pitch is set, yaw while limit.yaw is. An axis whose rate is not
 * finite outputs 0 that step (counted in bad_estimates). The mix slews
 * towards its target at +2 per s and -0.5 per s. Every field of *out is
 * written.
 */
void copter_atc_rate_controller_run(struct copter_atc *a, const struct copter_atc_params *p,
				    const struct vehicle_state *vs,
				    const struct copter_atc_rate_in *in, float dt_s,
				    struct copter_atc_out *out);

/*
 * The shaping pieces, one routine for every axis (exposed for tests).
 *
 * copter_atc_shape_rate: rate_now moved towards rate_want by at most
 * accel_max dt_s (accel_max <= 0: at once).
 *
 * copter_atc_shape_angle: the rate that closes error_rad (plus rate_ff, the
 * rate of the desired angle itself): the square-root controller with p =
 * 1 / input_tc_s, clamped to +-rate_max (0 = none), then shaped from
 * rate_now with accel_max.
 */
float copter_atc_shape_rate(float rate_now, float rate_want, float accel_max, float dt_s);
float copter_atc_shape_angle(float error_rad, float input_tc_s, float accel_max, float rate_now,
			     float rate_ff, float rate_max, float dt_s);

#endif
