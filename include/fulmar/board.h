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
