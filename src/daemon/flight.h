/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The main thread's flight work, between the sensor hub and the servo
 * outputs: takes every IMU sample the hub holds, keeps the latest of each
 * sensor for telemetry, and drives the outputs. (The estimator, modes,
 * navigation and control plug in here as they land; until then the outputs
 * stand at their safe values: control surfaces at trim, throttle at minimum.)
 */
#ifndef FULMAR_DAEMON_FLIGHT_H
#define FULMAR_DAEMON_FLIGHT_H

#include <stdint.h>

#include "daemon/sensors.h"
#include "fulmar/rcout.h"
#include "mavlink/gcs.h"

#define FLIGHT_IMU_BATCH 64

/* Before the threads start. out may be NULL (a board without servo outputs). */
void flight_init(struct sensor_hub *hub, struct rcout *out);
/* Main thread, every loop (a struct sched_task's run). */
void flight_task(void *ctx, uint64_t now_us);
/* Main thread: what the ground station is told of the sensors and outputs. */
void flight_fill_gcs(struct gcs_inputs *in);
/* Whether the outputs are armed (the motor may run). Any thread. */
bool flight_armed(void);

#endif
