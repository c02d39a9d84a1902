/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The main thread's flight work, between the sensor hub and the servo
 * outputs, every main loop: every IMU sample and every new baro, compass,
 * airspeed and GPS sample into the estimator; its estimate into the plane's
 * modes, navigation and control (src/vehicle/plane.h); the pulses out. It
 * also keeps home (mission item 0, as ArduPilot does: set at the first good
 * position and again at arming) and tells the ground-station services what
 * to report.
 */
#ifndef FULMAR_DAEMON_FLIGHT_H
#define FULMAR_DAEMON_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sensors.h"
#include "estim/estim.h"
#include "fulmar/rcout.h"
#include "mavlink/gcs.h"
#include "vehicle/plane.h"

#define FLIGHT_IMU_BATCH 64

/*
 * Before the threads start, after the services are open (the flight shares
 * their vehicle, mission and ground-station state). out may be NULL (a board
 * without servo outputs).
 */
void flight_init(struct sensor_hub *hub, struct rcout *out);
/* Main thread, every loop (a struct sched_task's run). */
void flight_task(void *ctx, uint64_t now_us);
/* Main thread: what the ground station is told of the sensors, estimate and outputs. */
void flight_fill_gcs(struct gcs_inputs *in);
/* Whether the outputs are armed (the motor may run). Any thread. */
bool flight_armed(void);
/* Main thread (the leader in lock-step): the servo parameters the outputs were
 * last mixed with, for the HIL link to normalise the pulses by. */
const struct servo_params *flight_servo_params(void);
struct sched;
/*
 * Before the threads, after sched_init: where the log's loop-timing records
 * (PM) read from, and the flight's optional work (navigation, the log's
 * periodic records) registered for shedding. Returns 0 or -errno.
 */
int flight_add_work(struct sched *s);
/*
 * For tests of overload shedding only (fulmard --test-burn): every main loop
 * between from_us and to_us on the clock of the log's lines burns us of CPU in
 * the flight core. After flight_init; up to FLIGHT_TEST_BURNS windows (more
 * are ignored).
 */
#define FLIGHT_TEST_BURNS 4
void flight_test_burn(uint32_t us, uint64_t from_us, uint64_t to_us);
/* Main thread: the estimator and the plane, for the log and tests. */
const struct estim *flight_estimator(void);
const struct plane *flight_plane(void);
/* Main thread, for SYS_STATUS: the RC is bad now (the failsafe's timer runs),
 * the battery failsafe has fired; either vehicle's. */
bool flight_rc_bad(void);
bool flight_battery_failsafe(void);
/* Main thread: a copter's throttle out, 0..1 (NAN for a plane: its throttle
 * is its throttle channel's). */
float flight_copter_throttle(void);

#endif
