/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the board_io tests share: a board's table (the real boards/<name>.c)
 * opened on emulated devices, an emulated clock that moves every emulator
 * on, and the tasks run as the scheduler would (timer 1 kHz, rcin 200 Hz,
 * uart 100 Hz, io 50 Hz) with main's part played by the test: draining the
 * IMU ring.
 */
#ifndef FULMAR_TEST_BOARD_IO_HARNESS_H
#define FULMAR_TEST_BOARD_IO_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/board_io.h"
#include "daemon/devices.h"
#include "daemon/sensors.h"

struct bio_fixture {
	struct devices devs;
	struct sensor_hub hub;
	struct board_io bio;
	uint64_t now_us;
	/* The board test's emulators follow this clock. */
	void (*advance)(void *ctx, uint64_t now_us);
	void *ctx;
	struct sched_task tasks[16];
	size_t n_tasks;
	uint32_t rcin_hz;             /* the rcin thread's rate; 0: 200 Hz (the default) */
	uint64_t imu_count;
	struct imu_sample imu_last;
	char err[512];
};

/* Fills f->devs from the linked board's table; handle(name) gives each device's emulated handle. */
void bio_devices(struct bio_fixture *f, void *(*handle)(void *ctx, const char *name), void *ctx);
/* board_io_open on the emulated clock; the tasks are then in f->tasks. */
int bio_open(struct bio_fixture *f);
/* Moves the clock on by dt_us in 1 ms steps, running the tasks due at each. */
void bio_run(struct bio_fixture *f, uint64_t dt_us);
/* The status of the device (name), or fails the test. label: "imu" and "imu.mag" differ. */
struct board_io_status bio_status(struct bio_fixture *f, const char *name, const char *chip,
				  unsigned int nth);
bool bio_has_task(const struct bio_fixture *f, const char *name);

#endif
