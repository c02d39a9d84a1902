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
/* Before the threads: where the log's loop-timing records (PM) read from. */
void flight_timing_source(const struct sched *s);
/* Main thread: the estimator and the plane, for the log and tests. */
const struct estim *flight_estimator(void);
const struct plane *flight_plane(void);

#endif
