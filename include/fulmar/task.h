/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A task: a function run on one of fulmard's six threads at a rate. Drivers
 * say which tasks they need (src/drivers/driver.h); the scheduler
 * (src/daemon/scheduler.h) runs them. Here so that both can name them without
 * either including the other.
 */
#ifndef FULMAR_TASK_H
#define FULMAR_TASK_H

#include <stdint.h>

enum sched_thread_id {
	SCHED_TIMER = 1,   /* 1 kHz: fast sensors, timer callbacks */
	SCHED_MAIN,        /* IMU-paced: estimate, navigate, control, outputs */
	SCHED_RCIN,        /* RC input backend and decoders */
	SCHED_UART,        /* serial ports and network links */
	SCHED_TONE,        /* buzzer tunes */
	SCHED_IO,          /* log writer, saves, slow work */
	SCHED_THREAD_COUNT,
};

struct sched_task {
	const char *name;
	enum sched_thread_id thread;
	uint32_t rate_hz;   /* 0: every wake of its thread; else at most the thread's rate */
	void (*run)(void *ctx, uint64_t now_us);
	void *ctx;
};

#endif
