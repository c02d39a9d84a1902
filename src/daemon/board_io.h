/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The board backend: the drivers a flight board's table names (each struct
 * board_dev's .driver, a descriptor of src/drivers/driver.h), created on the
 * devices devices_open() opened, run as tasks on the six threads and feeding
 * the sensor hub. It is one loop over the table and knows no chip: what a
 * device needs (its set-up, its tasks and threads, its health bits) is its
 * driver's descriptor. It stands where the HIL backend (hil.h) stands when
 * fulmard flies a simulator.
 *
 * Bus ownership (every bus has exactly one thread), as the drivers choose it:
 *   timer  every SPI and I2C chip: IMUs (FIFO read each wake), barometers
 *          (state machine each wake), compasses and pitots (100 Hz); a servo
 *          controller sharing an I2C bus with them (main publishes the pulse
 *          widths, the timer thread writes them); a GPS on SPI, clocked here
 *          with its bytes crossing to the uart thread in SPSC rings.
 *   rcin   pulse capture (GPIO edges, PRU ring, Zynq FIFO) and the
 *          PPM/SBUS/DSM decoders; a serial receiver on a UART.
 *   uart   a GPS on a UART: its set-up and its messages.
 *   io     battery voltage and current (libiio, sysfs reads; 10 Hz); RC
 *          widths that a kernel module shows in sysfs (Navio2's RCIO).
 *   tone   a buzzer's tunes.
 *   main   memory-mapped servo outputs (PRU, Zynq PL), written directly;
 *          PWM-class servo outputs, written and refreshed (Navio2).
 * A chip behind a GPIO chip select (the PXF cape) gets its select driven
 * around each transfer by an adapter here, whatever the chip.
 * An error in a task is data: the drivers count it and keep their last good
 * sample with its time; board_io_status() tells each device's counts, and
 * board_io_sensor_bits() the MAV_SYS_STATUS_SENSOR bits.
 *
 * Start-up: board_io_open() runs on the leader thread before the threads
 * start, and brings every chip through its set-up (probe by WHO_AM_I or the
 * chip's equivalent, reset, configuration), waiting on the given clock. A
 * chip that does not answer or does not finish its set-up fails the open
 * with one line naming the device: fulmard then exits with EX_IOERR.
 */
#ifndef FULMAR_DAEMON_BOARD_IO_H
#define FULMAR_DAEMON_BOARD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/devices.h"
#include "daemon/scheduler.h"
#include "daemon/sensors.h"
#include "drivers/driver.h"
#include "fulmar/rcout.h"
#include "fulmar/spi.h"

/* Start-up: how long one chip may take for its set-up. */
#define BOARD_IO_SETUP_TIMEOUT_US 3000000u

#define BOARD_IO_MAX_SLOTS 16
#define BOARD_IO_MAX_TASKS 16

/* A copy of one slot, for reports. */
struct board_io_status {
	const char *name;
	const char *what;
	const char *chip;              /* the driver's name */
	uint64_t samples, errors, last_ok_us;
	bool running;
	bool healthy;
};

/* SPI behind a GPIO chip select (the PXF cape): asserted around each transfer. */
struct board_io_spi_cs {
	struct spi_dev dev;            /* first: the driver sees this */
	struct spi_dev *bus;
	struct gpio_line *cs;
	uint32_t gpio_errors;
};

/* Time at start-up: the wall clock in fulmard, an emulation's clock in tests. */
struct board_io_clock {
	uint64_t (*now_us)(void *ctx);
	void (*sleep_until_us)(void *ctx, uint64_t t_us);
	void *ctx;
};

struct board_io {
	struct devices *devs;
	struct sensor_hub *hub;
	const struct board_io_clock *clk;
	struct drv_host host;
	bool (*armed_fn)(void);
	struct drv_inst inst[DEVICES_MAX];
	unsigned int n_inst;
	struct drv_slot slot[BOARD_IO_MAX_SLOTS];
	unsigned int n_slots;
	struct board_io_spi_cs cs[4];
	unsigned int n_cs;
	struct rcout *rcout;           /* the board's outputs, whichever driver */
	bool opened;
};

/*
 * Creates the drivers of every open device that names one, and sets them up
 * (leader thread, before the threads start; clk NULL: the monotonic clock).
 * The parameters must be loaded (param_init). Returns 0, or -errno with one
 * line naming the device in err; then nothing is left open (devices stay
 * with their owner).
 */
int board_io_open(struct board_io *b, struct devices *devs, struct sensor_hub *hub,
		  const struct board_io_clock *clk, char *err, size_t err_len);
/* The tasks to run, each on its thread (at most max; returns how many). */
size_t board_io_tasks(struct board_io *b, struct sched_task *out, size_t max);
/* Registers board_io_tasks() with the scheduler: 0 or -errno from sched_add_task. */
int board_io_add_tasks(struct board_io *b, struct sched *s);
/* The board's servo outputs for flight_init (main thread writes them), or NULL. */
struct rcout *board_io_rcout(struct board_io *b);
/* The driver instance of the device called name, or NULL (tests, reports). */
struct drv_inst *board_io_instance(struct board_io *b, const char *name);
/* Before the threads start: what the drivers ask to learn arming (default: flight_armed). */
void board_io_set_armed_source(struct board_io *b, bool (*armed)(void));
/* After the threads stopped: outputs off, backends closed. Safe on an unopened b. */
void board_io_close(struct board_io *b);

/*
 * Any thread: MAV_SYS_STATUS_SENSOR present / enabled / healthy bits, for
 * gcs_inputs.sensors_present, _enabled and _health. Healthy: running, and a
 * good sample within the slot's stale time before now_us.
 */
void board_io_sensor_bits(const struct board_io *b, uint64_t now_us, uint32_t *present,
			  uint32_t *enabled, uint32_t *healthy);
/* Any thread: each driven device's counts; returns how many (at most max). */
size_t board_io_status(const struct board_io *b, uint64_t now_us, struct board_io_status *out,
		       size_t max);

#endif
