// SPDX-License-Identifier: GPL-3.0-or-later
/* The simulator's time-line: faults and scripted events at simulated times.
 * Pure: parses text the caller has read, into caller storage; no I/O, no
 * allocation.
 *
 * One event per line, "T_SECONDS EVENT ARGS", '#' starts a comment:
 *
 *	throw                        the hand launch
 *	rc CH=PWM ...                scripted pilot: channels 1-12, 800-2200 us
 *	rc on | rc off               the transmitter on or off
 *	rc_loss DUR                  the transmitter off for DUR s, then on again
 *	gps_loss DUR                 no fix for DUR s
 *	gps_glitch DUR N E [D]       reported position jumps by N, E, D metres
 *	freeze SENSOR DUR            values stop changing (still flagged as new)
 *	dropout SENSOR DUR           no new values (HIL_SENSOR bits clear, messages absent)
 *	bias SENSOR V...             a step in the sensor's bias (replaces the last step)
 *	link_loss DUR                the HIL link carries nothing either way
 *	motor_fail DUR               the motor gives nothing
 *	wind SPEED FROM_DEG          the steady wind steps to SPEED m/s from FROM_DEG
 *	pitot block DUR [TAU]        the pitot's port blocked: the reading holds, then creeps
 *	                             as the trapped pressure leaks (time constant TAU s, 0 none)
 *	pitot water DUR              water in the tube: a noisy, biased, intermittent reading
 *	pitot off DUR                the tube off the sensor: it reads near zero
 *	baro_drift HPA_PER_H         the weather's pressure changes at this rate from now
 *	mag_current X Y Z            the compass's interference, mGauss per amp of motor
 *	                             current in body axes, from now (0 0 0 ends it)
 *
 * DUR 0 means "to the end of the flight". SENSOR is one of accel, gyro, imu
 * (both), mag, baro, airspeed, gps, battery, rangefinder. bias takes x y z
 * for accel (m/s^2), gyro (deg/s) and mag (gauss), one value in Pa for baro
 * and airspeed, in V for battery, in m for rangefinder. */
#ifndef FULMAR_SIM_FAULTS_H
#define FULMAR_SIM_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#define SIM_TIMELINE_MAX 512
#define SIM_RC_CHANNELS 12
#define SIM_EVENT_TEXT 80

enum sim_event_kind {
	SIM_EV_THROW = 1,
	SIM_EV_RC_SET,
	SIM_EV_RC_ON,
	SIM_EV_RC_OFF,
	SIM_EV_RC_LOSS,
	SIM_EV_GPS_LOSS,
	SIM_EV_GPS_GLITCH,
	SIM_EV_FREEZE,
	SIM_EV_DROPOUT,
	SIM_EV_BIAS,
	SIM_EV_LINK_LOSS,
	SIM_EV_MOTOR_FAIL,
	SIM_EV_WIND,
	SIM_EV_PITOT_BLOCK,
	SIM_EV_PITOT_WATER,
	SIM_EV_PITOT_OFF,
	SIM_EV_BARO_DRIFT,
	SIM_EV_MAG_CURRENT,
	SIM_EV_COUNT
};

/* Sensors a fault can name; imu names accel and gyro together. */
enum sim_fault_sensor {
	SIM_FS_ACCEL = 1,
	SIM_FS_GYRO,
	SIM_FS_IMU,
	SIM_FS_MAG,
	SIM_FS_BARO,
	SIM_FS_AIRSPEED,
	SIM_FS_GPS,
	SIM_FS_BATTERY,
	SIM_FS_RANGEFINDER,
	SIM_FS_COUNT
};

struct sim_event {
	uint64_t t_us;
	enum sim_event_kind kind;
	enum sim_fault_sensor sensor;     /* freeze, dropout, bias */
	double dur_s;                     /* 0 = to the end of the flight */
	double v[3];                      /* glitch offset, bias, wind speed/from, pitot leak tau,
					   * baro drift rate, mag interference gain */
	uint16_t rc_pwm_us[SIM_RC_CHANNELS];  /* rc CH=PWM: 0 = channel unchanged */
	char text[SIM_EVENT_TEXT];        /* canonical "EVENT ARGS", for the truth file */
};

struct sim_timeline {
	struct sim_event ev[SIM_TIMELINE_MAX];
	unsigned int count;
};

void sim_timeline_init(struct sim_timeline *tl);

/* Parses one line (without its newline) and adds its event, if any (blank
 * lines and comments add none). name and line_no go into the message: on
 * error, writes "name:line: reason" into err and returns -EINVAL; -ENOSPC
 * when the time-line is full. */
int sim_timeline_add_line(struct sim_timeline *tl, const char *text, const char *name,
			  unsigned int line_no, char *err, size_t err_len);

/* Parses a whole file's text (len bytes, NUL bytes are an error). Stops at the
 * first bad line. */
int sim_timeline_parse(struct sim_timeline *tl, const char *text, size_t len, const char *name,
		       char *err, size_t err_len);

/* Sorts by time, keeping the order of events at the same time (call once all
 * events are in). */
void sim_timeline_sort(struct sim_timeline *tl);

const char *sim_event_name(enum sim_event_kind k);
const char *sim_fault_sensor_name(enum sim_fault_sensor s);

#endif
