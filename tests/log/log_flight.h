// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A synthetic fixed-wing flight for the log programs: every logged message with
 * plausible, moving values, produced at the rates a flight would log them.
 * Shared by log-bench (benchmark and long-log generator) and the program tests.
 */
#ifndef FULMAR_TESTS_LOG_FLIGHT_H
#define FULMAR_TESTS_LOG_FLIGHT_H

#include <stdint.h>

#include "log/log_writer.h"

/* Which thread's messages a call produces (each thread has its own producer). */
enum flight_group {
	FLIGHT_TIMER = 1,   /* IMU (two instances), BARO, MAG */
	FLIGHT_MAIN,        /* ATT, CTUN, NTUN, TECS, RCOU, POS, XKF1/3/4, PM, MODE, EV, CMD, PARM */
	FLIGHT_RCIN,        /* RCIN */
	FLIGHT_UART,        /* GPS, BAT */
};

struct flight_rates {
	unsigned imu_hz;        /* per IMU instance */
	unsigned main_hz;
	unsigned duration_s;    /* for the mode and arming timeline */
};

/* Messages of one group due at t_us, for a caller running every period_us (the
 * group's fastest rate; slower messages are decimated here). Returns records
 * offered, and adds the refused ones to *refused. */
unsigned flight_emit(struct log_producer *p, enum flight_group g, uint64_t t_us,
		     uint64_t period_us, const struct flight_rates *rates, unsigned *refused);

/* The mission as CMD records and some parameters as PARM (main group, at start). */
unsigned flight_emit_start(struct log_producer *p, uint64_t t_us, unsigned *refused);

#endif
