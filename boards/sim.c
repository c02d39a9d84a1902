// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * sim: a PC. Sensors and actuators come from a simulator over MAVLink HIL; the
 * only hardware is what a user plugs in: a USB telemetry radio, a buzzer on a
 * USB GPIO adapter. Both optional, off until the configuration names them.
 */
#include "fulmar/board.h"
#include "linux/hal_linux.h"

static const struct board_dev devs[] = {
	{
		.name = "telem", .what = "telemetry radio (USB serial)", .kind = BOARD_DEV_UART,
		.optional = true,
		.u.uart = { .cfg = { .path = "/dev/ttyUSB0", .baud = 57600 },
			    .open = uart_linux_open },
	},
	{
		.name = "buzzer", .what = "buzzer on a GPIO line", .kind = BOARD_DEV_GPIO,
		.optional = true,
		.u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 0, .dir = GPIO_DIR_OUTPUT },
			    .open = gpio_linux_open },
	},
};

static const struct board sim_board = {
	.name = "sim",
	.description = "PC: sensors and actuators from a simulator over MAVLink HIL",
	.devs = devs,
	.n_devs = sizeof(devs) / sizeof(devs[0]),
	.imu_rate_hz = 1000,
	.main_rate_hz = 400,
	.hil_default = "udp:127.0.0.1:14560",
};

const struct board *board_get(void)
{
	return &sim_board;
}
