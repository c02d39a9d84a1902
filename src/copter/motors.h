/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter motor mixer: roll, pitch, yaw and throttle demands -> one
 * normalised actuator (0..1, what HIL_ACTUATOR_CONTROLS carries) and one
 * pulse width per motor, with ArduCopter's frames, motor numbering, spool
 * states, thrust linearisation (MOT_THST_EXPO), battery-voltage compensation
 * and saturation rules (AP_MotorsMatrix / AP_MotorsMulticopter semantics).
 * Pure: no clock, file or device; dt and the battery voltage are arguments;
 * state in caller storage. Main thread (the flight loop) is its only writer.
 *
 * Axes and signs (ArduPilot's): roll +1 = roll right, pitch +1 = nose up,
 * yaw +1 = nose right (clockwise seen from above), throttle 0..1 = the
 * fraction of the full-voltage maximum thrust. Positive roll speeds up the
 * left motors, positive pitch the front motors, positive yaw the motors whose
 * propellers turn counter-clockwise (their drag turns the body clockwise).
 *
 * Per motor the mixer makes a thrust t in 0..1 of the thrust available now,
 *   t = T + s (roll R + pitch P + yaw' Y)
 * with R = -sin(angle), P = cos(angle), Y = +1 CCW / -1 CW, each column
 * scaled so its largest magnitude is 0.5; s (<= 1) and yaw' (<= yaw) are what
 * saturation leaves, T the throttle moved to fit. Then the actuator is
 *   a = MOT_SPIN_MIN + (MOT_SPIN_MAX - MOT_SPIN_MIN) x,
 *   (1 - e) (v x) + e (v x)^2 = lift_max t,    e = MOT_THST_EXPO,
 * v the filtered battery voltage over MOT_BAT_VOLT_MAX (1 when compensation
 * is off) and lift_max = (1 - e) v + e v^2 the share of full-voltage thrust
 * the battery can still give. The demands are divided by lift_max before
 * mixing, so a sagging battery gets larger actuators for the same thrust.
 *
 * Saturation, in ArduCopter's order: yaw gives way first, down to what fits
 * beside roll and pitch but never below MOT_YAW_HEADROOM / 1000; if roll,
 * pitch and that yaw still span more than the 0..1 range they are scaled
 * down together (limit roll_pitch and yaw); otherwise the throttle moves to
 * fit them: down from a demand too high (limit throttle_upper: climb is
 * given up before attitude), up from a demand too low (limit throttle_lower),
 * but at low throttle never above throttle_avg_max =
 * max(throttle, throttle (1 - thr_mix) + MOT_THST_HOVER thr_mix), beyond
 * which attitude is scaled instead of climbing.
 */
#ifndef FULMAR_COPTER_MOTORS_H
#define FULMAR_COPTER_MOTORS_H

#include <stdbool.h>
#include <stdint.h>

#define COPTER_MOTORS_MAX 6

/* FRAME_CLASS and FRAME_TYPE values (ArduCopter's numbers, so FRAME_TYPE's
 * plus is 0). */
enum copter_frame_class {
	COPTER_FRAME_CLASS_QUAD = 1,
	COPTER_FRAME_CLASS_HEXA = 2,
};

enum copter_frame_type {
	COPTER_FRAME_TYPE_PLUS = 0,
	COPTER_FRAME_TYPE_X = 1,
};

/* SERVOn_FUNCTION 33..38 drive motors 1..6. */
#define COPTER_SERVO_FUNC_MOTOR1 33

struct copter_motor {
	float roll, pitch, yaw;   /* mixing factors, each column's largest |x| 0.5 */
	int test_order;           /* 1.. clockwise from the front (+) or front right (X) */
};

/* motor[i] is ArduCopter's motor i + 1, wired to the output SERVOn_FUNCTION
 * 33 + i names. */
struct copter_frame {
	int count;
	struct copter_motor motor[COPTER_MOTORS_MAX];
};

/*
 * The frame of FRAME_CLASS and FRAME_TYPE: quad plus and X, hexa plus and X.
 * Returns 0 with *out written, -EINVAL for any other class or type.
 */
int copter_frame_get(int frame_class, int frame_type, struct copter_frame *out);

/* Field names are ArduCopter's parameter names in lower case. */
struct copter_motors_params {
	float frame_class, frame_type;     /* read by copter_motors_init only */
	float mot_pwm_min, mot_pwm_max;    /* us; unless 0 < min < max: 1000 and 2000 */
	float mot_safe_disarm;             /* 1: pulse 0 (none) while disarmed */
	float mot_spin_arm;                /* actuator at ground idle */
	float mot_spin_min, mot_spin_max;  /* actuator at thrust 0 and at thrust 1 */
	float mot_thst_expo;               /* -1..1: 0 linear, 1 thrust ~ actuator^2 */
	float mot_thst_hover;              /* thrust to hover, 0..1 */
	float mot_bat_volt_max;            /* V; 0 = no voltage compensation */
	float mot_bat_volt_min;            /* V; raised to 0.6 mot_bat_volt_max if lower */
	float mot_yaw_headroom;            /* yaw kept at least this / 1000 of the range */
	float mot_spool_time;              /* s for each ramp; below 0.05 taken as 0.05 */
};

/* ArduCopter's defaults: quad X, PWM 1000..2000, SAFE_DISARM 0, SPIN_ARM
 * 0.10, SPIN_MIN 0.15, SPIN_MAX 0.95, THST_EXPO 0.65, THST_HOVER 0.35,
 * BAT_VOLT_MAX/MIN 0 (off), YAW_HEADROOM 200, SPOOL_TIME 0.5 s. */
void copter_motors_params_default(struct copter_motors_params *p);

/* ArduCopter's spool states. Outputs in each:
 *   SHUT_DOWN       actuator exactly 0; pulse MOT_PWM_MIN (0 when disarmed
 *                   with MOT_SAFE_DISARM 1). Forced whenever disarmed.
 *   GROUND_IDLE     every actuator ramps towards MOT_SPIN_ARM (desired
 *                   GROUND_IDLE), up to MOT_SPIN_MIN (desired
 *                   THROTTLE_UNLIMITED) or down to 0 (desired SHUT_DOWN),
 *                   at MOT_SPIN_MIN per MOT_SPOOL_TIME; no mixing.
 *   SPOOLING_UP     mixing, the throttle capped by a ceiling that rises
 *                   from 0 to 1 in MOT_SPOOL_TIME; done when it reaches
 *                   the throttle demand.
 *   THROTTLE_UNLIMITED  mixing, no ceiling.
 *   SPOOLING_DOWN   mixing, the ceiling falls to 0 in MOT_SPOOL_TIME, then
 *                   GROUND_IDLE.
 */
enum copter_spool {
	COPTER_SPOOL_SHUT_DOWN = 1,
	COPTER_SPOOL_GROUND_IDLE,
	COPTER_SPOOL_SPOOLING_UP,
	COPTER_SPOOL_THROTTLE_UNLIMITED,
	COPTER_SPOOL_SPOOLING_DOWN,
};

enum copter_spool_desired {
	COPTER_SPOOL_WANT_SHUT_DOWN = 1,
	COPTER_SPOOL_WANT_GROUND_IDLE,
	COPTER_SPOOL_WANT_THROTTLE_UNLIMITED,
};

struct copter_motors {
	struct copter_frame frame;
	enum copter_spool spool;
	float spin_up_ratio;      /* ground idle: the actuator over MOT_SPIN_MIN */
	float thrust_ceiling;     /* spooling: the throttle cap, 0..1 */
	float volt_ratio;         /* filtered battery voltage / MOT_BAT_VOLT_MAX; 1 = off */
	float lift_max;           /* (1 - e) v + e v^2 */
	float throttle_last;      /* the last finite throttle demand */
	uint32_t nonfinite_inputs;   /* demands, thr_mix, voltage or dt not finite */
};

/*
 * Checks the parameters and sets up the frame they name, in SHUT_DOWN with
 * compensation off. Returns 0, or -EINVAL for an unknown FRAME_CLASS or
 * FRAME_TYPE, or spin or expo parameters that are not finite or outside
 * 0 <= SPIN_ARM <= SPIN_MIN < SPIN_MAX <= 1, -1 <= THST_EXPO <= 1; *m is
 * then left alone. The frame is fixed until the next init (ArduCopter asks for a
 * reboot).
 */
int copter_motors_init(struct copter_motors *m, const struct copter_motors_params *p);

/*
 * What the flight loop asks of the motors each step. Non-finite roll, pitch,
 * yaw and thr_mix count and act as 0 (no torque is the safe demand); a
 * non-finite throttle counts and keeps the last finite one (0 means a fall
 * in flight; the failsafe logic decides); a non-finite battery voltage counts
 * and leaves the filtered voltage as it was.
 */
struct copter_motors_in {
	bool armed;                        /* false: SHUT_DOWN at once */
	enum copter_spool_desired desired; /* any other value: SHUT_DOWN */
	float roll, pitch, yaw;            /* -1..1 (clamped) */
	float throttle;                    /* 0..1 (clamped) */
	float thr_mix;                     /* 0..1: ArduCopter's ATC_THR_MIX_* share of
					    * MOT_THST_HOVER that attitude may raise
					    * the average thrust towards (0.1 landed,
					    * 0.5 flying by default) */
	float batt_v;                      /* V, the resting estimate where there is one;
					    * below MOT_BAT_VOLT_MIN / 4: no reading */
};

/* Set when the mixer could not give what was asked: the rate and altitude
 * controllers stop integrating in that direction. All set in SHUT_DOWN and
 * GROUND_IDLE. */
struct copter_motors_limit {
	bool roll_pitch, yaw, throttle_lower, throttle_upper;
};

struct copter_motors_out {
	int count;                                /* motors of the frame */
	enum copter_spool spool;                  /* after this step */
	float thrust[COPTER_MOTORS_MAX];          /* mixer output, 0..1 of available; 0 unmixed */
	float actuator[COPTER_MOTORS_MAX];        /* 0..1, never NaN */
	uint16_t pwm_us[COPTER_MOTORS_MAX];
	struct copter_motors_limit limit;
};

/*
 * One step: filter the battery voltage, run the spool states over dt_s
 * seconds (a non-finite or negative dt_s counts as 0), mix, linearise and
 * convert to pulses. Every field of *out is written.
 */
void copter_motors_update(struct copter_motors *m, const struct copter_motors_params *p,
			  const struct copter_motors_in *in, float dt_s, struct copter_motors_out *out);

/* Thrust (0..1 of available, clamped) -> actuator, and back, with the
 * present voltage compensation of m. Inverses of each other between
 * MOT_SPIN_MIN and MOT_SPIN_MAX. */
float copter_motors_thrust_to_actuator(const struct copter_motors *m,
				       const struct copter_motors_params *p, float thrust);
float copter_motors_actuator_to_thrust(const struct copter_motors *m,
				       const struct copter_motors_params *p, float actuator);

/* Actuator (0..1, clamped; not finite: 0) -> pulse between the usable
 * MOT_PWM_MIN and MOT_PWM_MAX, rounded to the microsecond. */
uint16_t copter_motors_pwm(const struct copter_motors_params *p, float actuator);

/* The motor index (0 for motor 1) a SERVOn_FUNCTION drives: 0..5 for 33..38,
 * -ENOENT for any other function. */
int copter_motor_of_servo_function(int servo_function);

#endif
