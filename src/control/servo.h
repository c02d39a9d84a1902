/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Servo outputs: normalised surfaces and throttle -> pulse widths per channel,
 * as ArduPilot's SERVOn_MIN/TRIM/MAX/REVERSED/FUNCTION describe them, with
 * elevon and V-tail mixing (MIXING_GAIN) and the throttle slew limit
 * (THR_SLEWRATE). Pure; state in caller storage; main thread.
 *
 * Surface channels: pwm = trim + v (max - trim) for v > 0, trim + v (trim - min)
 * for v < 0, v in -1..1, negated first when reversed. Throttle: min + t (max -
 * min), t in 0..1 (reversed: max - t (max - min)).
 *
 * Mixed surfaces, each "+1 = trailing edge up", g = MIXING_GAIN (the left
 * elevon goes down to roll right):
 *   elevon left = g (elevator - aileron), elevon right = g (elevator + aileron)
 *   V-tail left = g (elevator - rudder),  V-tail right = g (elevator + rudder)
 * A surface's physical sense is then set by its channel's reversal.
 */
#ifndef FULMAR_CONTROL_SERVO_H
#define FULMAR_CONTROL_SERVO_H

#include <stdbool.h>
#include <stdint.h>

#include "control/attitude.h"

#define SERVO_CHANNELS 8

/* SERVOn_FUNCTION values (ArduPilot's numbering; 0 = not driven). */
enum servo_function {
	SERVO_FUNC_DISABLED = 0,
	SERVO_FUNC_AILERON = 4,
	SERVO_FUNC_ELEVATOR = 19,
	SERVO_FUNC_RUDDER = 21,
	SERVO_FUNC_THROTTLE = 70,
	SERVO_FUNC_ELEVON_LEFT = 77,
	SERVO_FUNC_ELEVON_RIGHT = 78,
	SERVO_FUNC_VTAIL_LEFT = 79,
	SERVO_FUNC_VTAIL_RIGHT = 80,
};

struct servo_channel_params {
	float servo_min, servo_trim, servo_max;   /* microseconds */
	float servo_reversed;                     /* 0 or 1 */
	float servo_function;                     /* enum servo_function */
};

struct servo_params {
	struct servo_channel_params ch[SERVO_CHANNELS];
	float mixing_gain;      /* elevon and V-tail mixing, 0.5..1.2 */
	float thr_slewrate;     /* percent of throttle per second, 0 = unlimited */
};

/* 1100/1500/1900 us on every channel; channel 1 aileron, 2 elevator, 3
 * throttle (trim at min), 4 rudder; MIXING_GAIN 0.5, THR_SLEWRATE 100. */
void servo_params_default(struct servo_params *p);

struct servo {
	float throttle;         /* after the slew limit */
	bool started;
};

void servo_init(struct servo *s);

/* One channel's pulse for a signed surface command (-1..1). */
uint16_t servo_pwm_surface(const struct servo_channel_params *c, float v);
/* One channel's pulse for a throttle (0..1). */
uint16_t servo_pwm_throttle(const struct servo_channel_params *c, float t);

/*
 * The inverses, for whoever must say what a pulse commands (the HIL link,
 * docs/hil.md): the surface command (-1..1: TRIM 0, MIN -1, MAX +1, linear on
 * each side of TRIM, reversal undone) or the throttle (0..1: MIN 0, MAX 1,
 * reversed MAX 0) that servo_pwm_surface or servo_pwm_throttle turned into
 * pwm_us. Return 0 with *out written; -EINVAL when the channel's MIN, TRIM and
 * MAX cannot describe it (not finite, not MIN <= TRIM <= MAX, MIN = MAX);
 * -ERANGE when the pulse lies outside MIN..MAX by more than the half
 * microsecond of rounding. *out is then left alone.
 */
int servo_surface_of_pwm(const struct servo_channel_params *c, uint16_t pwm_us, float *out);
int servo_throttle_of_pwm(const struct servo_channel_params *c, uint16_t pwm_us, float *out);

/*
 * Pulses for every channel from the surfaces and the throttle demand (0..1),
 * throttle slewed by THR_SLEWRATE over dt_s. Channels with no function get
 * their trim.
 */
void servo_output(struct servo *s, const struct servo_params *p, const struct ctl_surfaces *u,
		  float throttle, float dt_s, uint16_t pwm_us[SERVO_CHANNELS]);

#endif
