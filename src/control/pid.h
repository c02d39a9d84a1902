/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A general PID with feed-forward and three first-order low-pass filters,
 * shaped as ArduPilot's AC_PID (the multicopter's rate loops use it, one
 * instance per axis; any loop that wants P, I, D and FF on a filtered target
 * can):
 *
 *   target'  = LPF(target, FLTT)                 the target, smoothed
 *   error    = LPF(target' - measurement, FLTE)  the error, smoothed
 *   deriv    = LPF(d error / dt, FLTD)           on the filtered error
 *   integ   += I error dt, within +-IMAX, and while `limit` is set only
 *              when that shrinks it (the actuator is saturated)
 *   out      = P error + integ + D deriv + FF target'
 *
 * Each filter is y += a (x - y), a = dt / (dt + 1 / (2 pi f)); a corner of
 * 0 (or less) is no filter. After init or ctl_pid_reset_filters the next
 * update takes the target and error as they are and the derivative as 0,
 * so a loop that starts or restarts does not kick.
 *
 * Units are the caller's: P is output per unit error, I output per unit
 * error-second, D output per unit error/s, FF output per unit target, IMAX
 * in output units. Pure; state in caller storage; one writer (the thread
 * that runs the loop).
 */
#ifndef FULMAR_CONTROL_PID_H
#define FULMAR_CONTROL_PID_H

#include <stdbool.h>

struct ctl_pid_params {
	float p, i, d;
	float imax;               /* |integrator| bound; 0 holds it at 0 */
	float ff;
	float fltt_hz, flte_hz, fltd_hz;   /* corners on target, error, derivative; 0 = none */
};

/* What each term gave in the last update (for logs and tests). */
struct ctl_pid_terms {
	float p, i, d, ff;
};

struct ctl_pid {
	float target;             /* filtered target */
	float error;              /* filtered error */
	float derivative;         /* filtered derivative of the error, per s */
	float integrator;
	bool reset;               /* next update starts the filters afresh */
	struct ctl_pid_terms last;
};

/* The low-pass coefficient for a step of dt_s at a corner of cutoff_hz:
 * 1 (pass through) when cutoff_hz is not positive, 0 (hold) when dt_s is
 * not positive, NaN in either taken as that case. */
float ctl_lowpass_alpha(float dt_s, float cutoff_hz);

/* Zeroed, with the filters to start afresh. */
void ctl_pid_init(struct ctl_pid *c);

/* The next update starts the filters from its inputs; the integrator stays. */
void ctl_pid_reset_filters(struct ctl_pid *c);

void ctl_pid_reset_integrator(struct ctl_pid *c);

/* Moves the integrator towards `toward` with time constant tc_s (an
 * exponential decay over dt_s; tc_s <= 0 sets it at once). */
void ctl_pid_relax_integrator(struct ctl_pid *c, float toward, float dt_s, float tc_s);

/*
 * One step of dt_s seconds (not positive: no time passes, so nothing is
 * filtered, differentiated or integrated, and the output is recomputed from
 * the held state). Returns P + I + D + FF, the terms also in c->last.
 * A target or measurement that is not finite changes nothing and returns 0:
 * the caller decides what such an input means and counts it.
 */
float ctl_pid_update(struct ctl_pid *c, const struct ctl_pid_params *p, float target,
		     float measurement, float dt_s, bool limit);

#endif
