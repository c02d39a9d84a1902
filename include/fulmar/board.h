/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a flight board is: a table of devices, each with its wiring (a const
 * config) and the backend that opens it. Exactly one boards/<name>.c is linked
 * into fulmard; it defines board_get(). The daemon opens the table generically,
 * so a board is data, and a new board is a new file.
 */
#ifndef FULMAR_BOARD_H
#define FULMAR_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/analog.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/mmio.h"
#include "fulmar/spi.h"
#include "fulmar/uart.h"

enum board_dev_kind {
	BOARD_DEV_SPI = 1,
	BOARD_DEV_I2C,
	BOARD_DEV_GPIO,
	BOARD_DEV_UART,
	BOARD_DEV_ANALOG,
	BOARD_DEV_MMIO,
};

/*
 * What fulmard runs on a device (src/daemon/board_io.c creates it). Zero: the
 * device is no driver's own, only a helper another entry names (a chip-select
 * line, an output enable, a power switch) or a link the services open
 * (telemetry).
 */
enum board_driver_kind {
	BOARD_DRV_NONE = 0,
	BOARD_DRV_MPU6000,        /* SPI; drivers/mpu.h */
	BOARD_DRV_MPU9250,        /* SPI; drivers/mpu.h, with aux_ak8963 its magnetometer too */
	BOARD_DRV_MS5611,         /* SPI or I2C */
	BOARD_DRV_HMC5883L,       /* I2C */
	BOARD_DRV_AK8963,         /* I2C (a separate chip, not the one inside an MPU9250) */
	BOARD_DRV_MS4525,         /* I2C pitot */
	BOARD_DRV_UBLOX,          /* UART, or SPI through a byte shim */
	BOARD_DRV_PCA9685,        /* I2C servo outputs */
	BOARD_DRV_RCIN,           /* pulse capture: a GPIO edge line or an MMIO window */
	BOARD_DRV_RCIN_SBUS,      /* SBUS bytes on a UART (100000 8E2, inverted by the board) */
	BOARD_DRV_RCIN_DSM,       /* Spektrum bytes on a UART (115200 8N1) */
	BOARD_DRV_RCOUT,          /* servo outputs from an MMIO window (PRU, Zynq PL) */
	BOARD_DRV_BATT_VOLT,      /* analog: battery voltage (BATT_VOLT_MULT) */
	BOARD_DRV_BATT_CURR,      /* analog: battery current (BATT_AMP_PERVLT, BATT_AMP_OFFSET) */
	BOARD_DRV_BUZZER,         /* GPIO line: a self-oscillating buzzer, on/off tunes */
	BOARD_DRV_COUNT,
};

struct rcin;
struct rcout;

/* The driver of a device and its settings; plain data in the board table. */
struct board_driver {
	enum board_driver_kind kind;
	/*
	 * enum rotation of src/drivers/rotation.h (chip axes to body axes) for
	 * IMUs and magnetometers; 0 is taken as ROTATION_NONE.
	 */
	int rotation;
	uint32_t rate_hz;         /* IMU sample rate; 0: the board's imu_rate_hz */
	uint32_t baud;            /* u-blox on a UART: the rate to move it to; 0: 115200 */
	bool aux_ak8963;          /* MPU9250: run the AK8963 on its auxiliary bus */
	uint32_t setup_speed_hz;  /* SPI chips with a slow set-up clock (MPU: 1 MHz) */
	/* Name of the GPIO device that is this SPI chip's select (driven around each transfer). */
	const char *chip_select;
	/* PCA9685: the output-enable GPIO device, the EXTCLK rate (0: internal), first output. */
	const char *output_enable;
	uint32_t ext_clock_hz;
	uint8_t channel_offset;
	uint16_t pwm_hz;          /* PCA9685 and MMIO outputs: pulse rate; 0: 50 Hz */
	/* Battery: the board's figure used while the parameter is left at 0 (V or A per volt). */
	float scale;
	/*
	 * BOARD_DRV_RCIN / BOARD_DRV_RCOUT: the backend's constructor (hal/pru,
	 * hal/zynq, hal/linux rcin_gpio), named by the board file so that only the
	 * backends a board uses are linked. mmio ones take the window and the byte
	 * offset of the registers in it.
	 */
	int (*rcin_mmio)(struct mmio *win, size_t off, struct rcin **out);
	int (*rcin_gpio)(struct gpio_line *line, struct rcin **out);
	int (*rcout_mmio)(struct mmio *win, size_t off, struct rcout **out);
	size_t mmio_off;
};

struct board_dev {
	const char *name;         /* unique on the board: "imu", "baro", "rcin", "gps", "buzzer" */
	const char *what;         /* for people: "MPU9250 on SPI0 CS1" */
	enum board_dev_kind kind;
	/*
	 * Non-NULL when fulmar has no backend or driver for this part yet: says what
	 * is missing. fulmard refuses to start on a board with such a part rather
	 * than fly without it.
	 */
	const char *missing;
	bool optional;            /* opened only when the configuration gives it a path */
	struct board_driver drv;  /* what runs on it; all zero: nothing of its own */
	union {
		struct {
			struct spi_config cfg;
			int (*open)(const struct spi_config *cfg, struct spi_dev **out);
		} spi;
		struct {
			struct i2c_config cfg;
			uint8_t addr;  /* 7-bit address of the chip this entry stands for */
			int (*open)(const struct i2c_config *cfg, struct i2c_bus **out);
		} i2c;
		struct {
			struct gpio_config cfg;
			int (*open)(const struct gpio_config *cfg, struct gpio_line **out);
		} gpio;
		struct {
			struct uart_config cfg;
			int (*open)(const struct uart_config *cfg, struct uart **out);
		} uart;
		struct {
			struct analog_config cfg;
			int (*open)(const struct analog_config *cfg, struct analog_in **out);
		} analog;
		struct {
			struct mmio_config cfg;
			int (*open)(const struct mmio_config *cfg, const char *sysfs_root,
				    struct mmio **out);
		} mmio;
	} u;
};

struct board {
	const char *name;         /* as in -Dboard= */
	const char *description;
	const struct board_dev *devs;
	unsigned int n_devs;
	uint32_t imu_rate_hz;     /* rate the IMU is sampled at on the timer thread */
	uint32_t main_rate_hz;    /* default main-loop rate */
	/* Said once at start-up when set: what this board does not do yet. */
	const char *notice;
	/*
	 * A board whose sensors and outputs are a simulator's: the HIL link it
	 * uses when the command line names none ("udp:127.0.0.1:14560"). NULL on
	 * boards with their own sensors (they fly HIL only with --hil).
	 */
	const char *hil_default;
};

/* Defined by the one linked boards/<name>.c. */
const struct board *board_get(void);

#endif
