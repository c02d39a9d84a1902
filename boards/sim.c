// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * sim: a PC. Sensors and actuators come from a simulator over MAVLink HIL; the
 * only hardware is what a user plugs in: a USB telemetry radio, a buzzer on a
 * USB GPIO adapter. Both optional, off until the configuration names them.
 * The rangefinder, when there is one, is the simulator's too: DISTANCE_SENSOR
 * on the HIL link with RNGFND1_TYPE 10 (src/daemon/hil.c), so this table
 * places none.
 */
#include "drivers/drivers.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"

static const struct board_dev devs[] = {
	{ .name = "telem", .what = "telemetry radio (USB serial)",
	  LINUX_UART("/dev/ttyUSB0", 57600), .optional = true },
	{ .name = "buzzer", .what = "buzzer on a GPIO line", .driver = &buzzer_driver,
	  LINUX_GPIO_OUT("gpiochip0", 0, false, 0), .optional = true },
};

BOARD_DEFINE(.name = "sim",
	     .description = "PC: sensors and actuators from a simulator over MAVLink HIL",
	     .imu_rate_hz = 1000, .main_rate_hz = 400, .hil_default = "udp:127.0.0.1:14560");
