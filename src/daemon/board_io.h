/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The board backend: the chip drivers, RC input and servo outputs a flight
 * board's table names (struct board_driver in each struct board_dev), created
 * on the devices devices_open() opened, run as tasks on the six threads and
 * feeding the sensor hub. It stands where the HIL backend (hil.h) stands when
 * fulmard flies a simulator.
 *
 * Bus ownership (every bus has exactly one thread):
 *   timer  every SPI and I2C chip: IMUs (FIFO read each wake), barometer
 *          (state machine each wake), magnetometers and pitot (100 Hz); on a
 *          board whose servo controller shares an I2C bus with them (Navio's
 *          PCA9685 with the MS5611), the PCA9685 too: main publishes pulse
 *          widths in a seqlocked topic and the timer thread writes one
 *          changed channel per wake; a u-blox on SPI (Navio) is clocked here
 *          (100 Hz, 64 bytes) and its bytes cross to the uart thread in SPSC
 *          rings, behind a struct uart, so the same u-blox code reads it.
 *   rcin   the pulse-capture backend (GPIO edges, PRU ring, Zynq FIFO) and
 *          the PPM/SBUS/DSM decoders; an SBUS or DSM receiver on a UART.
 *   uart   a u-blox on a UART: UBX set-up, NAV-PVT (NMEA when the receiver
 *          cannot be set up).
 *   io     battery voltage and current (libiio, sysfs reads; 10 Hz).
 *   main   MMIO servo outputs (PRU, Zynq PL) are written directly.
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

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/devices.h"
#include "daemon/scheduler.h"
#include "daemon/sensors.h"
#include "drivers/ak8963.h"
#include "drivers/hmc5883l.h"
#include "drivers/ms4525.h"
#include "drivers/ms5611.h"
#include "drivers/mpu.h"
#include "drivers/nmea.h"
#include "drivers/pca9685.h"
#include "drivers/ublox.h"
#include "drivers/ubx.h"
#include "fulmar/rcin.h"
#include "fulmar/rcout.h"
#include "rc/input.h"
#include "util/ring.h"
#include "util/topic.h"

/* MAV_SYS_STATUS_SENSOR bits (MAVLink common.xml). */
#define BOARD_IO_SENSOR_GYRO 0x00000001u
#define BOARD_IO_SENSOR_ACCEL 0x00000002u
#define BOARD_IO_SENSOR_MAG 0x00000004u
#define BOARD_IO_SENSOR_ABS_PRESSURE 0x00000008u
#define BOARD_IO_SENSOR_DIFF_PRESSURE 0x00000010u
#define BOARD_IO_SENSOR_GPS 0x00000020u
#define BOARD_IO_SENSOR_MOTOR_OUTPUTS 0x00008000u
#define BOARD_IO_SENSOR_RC_RECEIVER 0x00010000u
#define BOARD_IO_SENSOR_GYRO2 0x00020000u
#define BOARD_IO_SENSOR_ACCEL2 0x00040000u
#define BOARD_IO_SENSOR_MAG2 0x00080000u
#define BOARD_IO_SENSOR_BATTERY 0x02000000u

/* A device with no good sample (or output write) for this long is unhealthy. */
#define BOARD_IO_IMU_STALE_US 50000u
#define BOARD_IO_SLOW_STALE_US 500000u
#define BOARD_IO_GPS_STALE_US 2000000u

/* Start-up: how long one chip may take for its set-up. */
#define BOARD_IO_SETUP_TIMEOUT_US 3000000u

#define BOARD_IO_MAX_SLOTS 16
#define BOARD_IO_PCA_CHANNELS 16
#define BOARD_IO_SPI_GPS_CHUNK 64
#define BOARD_IO_SPI_GPS_RING 2048     /* bytes each way */

/* One device's counters: written by its owner thread, read by any (relaxed). */
struct board_io_slot {
	const struct device *dev;
	const char *label;             /* the device's name, or e.g. "imu.mag" for a part of it */
	enum board_driver_kind kind;
	uint32_t bits;                 /* MAV_SYS_STATUS_SENSOR bits it stands for */
	uint32_t stale_us;
	_Atomic uint64_t samples;      /* good samples, frames or output writes */
	_Atomic uint64_t errors;       /* failed transfers and refused data */
	_Atomic uint64_t last_ok_us;   /* the owner's clock at the last good one */
	_Atomic bool running;          /* set up and producing */
};

/* A copy of one slot, for reports. */
struct board_io_status {
	const char *name;
	const char *what;
	enum board_driver_kind kind;
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

/* A u-blox on SPI seen as a struct uart (uart thread) fed by the timer thread. */
struct board_io_spi_uart {
	struct uart u;                 /* first: the u-blox code sees this */
	struct spi_dev *spi;
	struct ring rx;                /* timer -> uart */
	struct ring tx;                /* uart -> timer */
	uint8_t rx_storage[BOARD_IO_SPI_GPS_RING];
	uint8_t tx_storage[BOARD_IO_SPI_GPS_RING];
};

/* The PCA9685's outputs as main sees them; the timer thread writes the chip. */
struct board_io_pca_out {
	struct rcout base;             /* first: flight code sees this */
	struct pca9685 *chip;
	uint16_t rate_hz;
	uint16_t want[BOARD_IO_PCA_CHANNELS];       /* main's */
	struct topic topic;                         /* main -> timer: want[] */
	_Atomic uint32_t words[TOPIC_WORDS(uint16_t[BOARD_IO_PCA_CHANNELS])];
	uint16_t pending[BOARD_IO_PCA_CHANNELS];    /* timer's copy of the topic */
	uint32_t seen_gen;                          /* timer */
	unsigned int next_ch;                       /* timer: round robin */
	_Atomic uint16_t written[BOARD_IO_PCA_CHANNELS];  /* what the chip was given (timer) */
};

struct board_io_gps {
	struct board_io_slot *slot;
	struct uart *uart;             /* the port, or &spi_uart.u */
	bool on_spi;
	struct ublox_setup setup;
	bool setup_over;
	bool nav_pvt;                  /* NAV-PVT comes (else NMEA) */
	struct ubx_parser ubx;
	struct nmea_parser nmea;
	uint64_t now_us;               /* of the read being parsed */
	struct sensor_hub *hub;
};

/* The tunes a buzzer plays, most urgent last. */
enum board_io_tune {
	BOARD_IO_TUNE_NONE = 0,
	BOARD_IO_TUNE_STARTUP,
	BOARD_IO_TUNE_DISARM,
	BOARD_IO_TUNE_ARM,
	BOARD_IO_TUNE_LOW_BATTERY,     /* repeats while the battery is low */
	BOARD_IO_TUNE_FAILSAFE,        /* repeats while RC is lost or says failsafe */
	BOARD_IO_TUNE_COUNT,
};

/* tone thread: a self-oscillating buzzer on a GPIO line, tunes as on/off patterns. */
struct board_io_tone {
	struct gpio_line *line;
	enum board_io_tune playing;
	unsigned int step;             /* index in the tune's pattern */
	uint64_t step_end_us;
	uint64_t again_us[BOARD_IO_TUNE_COUNT];  /* a repeating tune may start again then */
	bool started, armed, low, failsafe;
	uint64_t low_since_us;
	uint32_t plays[BOARD_IO_TUNE_COUNT];
	uint32_t gpio_errors;
	struct sensor_hub *hub;
	bool (*armed_fn)(void);
	int p_low_volt;
};

struct board_io {
	struct devices *devs;
	struct sensor_hub *hub;
	struct board_io_slot slot[BOARD_IO_MAX_SLOTS];
	unsigned int n_slots;

	/* timer thread */
	struct mpu imu[2];
	struct board_io_slot *imu_slot[2];
	struct board_io_slot *mag_aux_slot;          /* the AK8963 inside imu[0] */
	uint32_t mag_aux_seen;
	struct imu_sample imu_buf[MPU_MAX_FRAMES];
	unsigned int n_imu;
	struct board_io_spi_cs cs[4];
	unsigned int n_cs;
	struct ms5611 baro;
	struct board_io_slot *baro_slot;
	struct hmc5883l hmc;
	struct board_io_slot *hmc_slot;
	struct ak8963 ak;
	struct board_io_slot *ak_slot;
	struct ms4525 pitot;
	struct board_io_slot *pitot_slot;
	struct pca9685 pca;
	struct board_io_slot *pca_slot;
	struct board_io_pca_out pca_out;
	struct board_io_spi_uart spi_uart;

	/* uart thread */
	struct board_io_gps gps;
	struct board_io_slot *gps_slot;

	/* rcin thread */
	struct rcin *rcin;
	struct rc_input rc;
	struct uart *rc_uart;
	enum board_driver_kind rc_uart_kind;
	struct rc_sbus rc_sbus;
	struct rc_dsm rc_dsm;
	struct board_io_slot *rc_slot;

	/* main thread */
	struct rcout *rcout;           /* the board's outputs, whichever backend */
	struct rcout *rcout_mmio;      /* owned: closed by board_io_close */
	struct board_io_slot *rcout_slot;

	/* io thread */
	struct analog_in *batt_v, *batt_i;
	float batt_v_board, batt_i_board;      /* the board's figures */
	int p_volt_mult, p_amp_pervlt, p_amp_offset;
	float consumed_mah;
	uint64_t batt_last_us;
	struct board_io_slot *batt_slot;

	/* tone thread */
	struct board_io_tone tone;

	bool opened;
};

/* Time at start-up: the wall clock in fulmard, an emulation's clock in tests. */
struct board_io_clock {
	uint64_t (*now_us)(void *ctx);
	void (*sleep_until_us)(void *ctx, uint64_t t_us);
	void *ctx;
};

/*
 * Creates the drivers of every open device with a struct board_driver, and
 * sets them up (leader thread, before the threads start; clk NULL: the
 * monotonic clock). The parameters must be loaded (param_init). Returns 0, or
 * -errno with one line naming the device in err; then nothing is left open
 * (devices stay with their owner).
 */
int board_io_open(struct board_io *b, struct devices *devs, struct sensor_hub *hub,
		  const struct board_io_clock *clk, char *err, size_t err_len);
/* The tasks to run, each on its thread (at most max; returns how many). */
size_t board_io_tasks(struct board_io *b, struct sched_task *out, size_t max);
/* Registers board_io_tasks() with the scheduler: 0 or -errno from sched_add_task. */
int board_io_add_tasks(struct board_io *b, struct sched *s);
/* The board's servo outputs for flight_init (main thread writes them), or NULL. */
struct rcout *board_io_rcout(struct board_io *b);
/*
 * Before the threads start: what the buzzer asks to tell arming (default:
 * flight_armed). Tunes: start-up once, arm and disarm on each change, low
 * battery while the voltage stays under FS_BATT_VOLTAGE (if set) for 3 s,
 * failsafe while RC frames have stopped for FS_SHORT_TIMEOUT (1.5 s) after
 * having come, or the receiver says failsafe.
 */
void board_io_set_armed_source(struct board_io *b, bool (*armed)(void));
/* After the threads stopped: outputs off, backends closed. Safe on an unopened b. */
void board_io_close(struct board_io *b);

/*
 * Any thread: MAV_SYS_STATUS_SENSOR present / enabled / healthy bits, for
 * gcs_inputs.sensors_present, _enabled and _health. Healthy: running, and a
 * good sample within the kind's stale time before now_us.
 */
void board_io_sensor_bits(const struct board_io *b, uint64_t now_us, uint32_t *present,
			  uint32_t *enabled, uint32_t *healthy);
/* Any thread: each driven device's counts; returns how many (at most max). */
size_t board_io_status(const struct board_io *b, uint64_t now_us, struct board_io_status *out,
		       size_t max);

#endif
