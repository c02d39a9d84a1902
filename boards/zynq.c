// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * zynq: a Zybo-class Zynq-7000 board whose programmable logic holds the
 * ArduPilot-style PWM block (8 channels, {period, high} tick pairs at 100 MHz)
 * at 0x43C00000 and the RC pulse-capture FIFO (one keyhole register) at
 * 0x43C10000: the addresses and layouts of ArduPilot's
 * libraries/AP_HAL_Linux/RCOutput_ZYNQ.cpp and RCInput_ZYNQ.cpp, inside the
 * PL's M_AXI_GP0 window of the Zynq-7000 TRM (Xilinx UG585, system address
 * map); docs/boards.md, "Where the wiring facts come from", says more. With
 * UIO nodes in the device tree, set "rcout = uio:NAME" and "rcin = uio:NAME"
 * in [devices] instead of /dev/mem.
 * The Zybo has no sensors of its own: the table assumes an MPU9250 and an
 * MS5611 on PS SPI0 (chip selects 0 and 1) and a u-blox on PS UART1; override
 * the paths in [devices] for other wiring. The IMU is taken to be mounted with
 * its axes on the aircraft's (ROTATION_NONE); its AK8963 is read through the
 * MPU9250's auxiliary I2C master.
 */
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "zynq/hal_zynq.h"

static const struct board_dev devs[] = {
	{
		.name = "imu", .what = "MPU9250 on PS SPI0 CS0", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MPU9250, .rotation = ROTATION_NONE, .aux_ak8963 = true,
			 .setup_speed_hz = 1000000 },
		.u.spi = { .cfg = { .path = "/dev/spidev1.0", .mode = 3, .speed_hz = 20000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "baro", .what = "MS5611 on PS SPI0 CS1", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MS5611 },
		.u.spi = { .cfg = { .path = "/dev/spidev1.1", .mode = 3, .speed_hz = 10000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "rcout", .what = "PL PWM block, 8 channels", .kind = BOARD_DEV_MMIO,
		.drv = { .kind = BOARD_DRV_RCOUT, .rcout_mmio = rcout_zynq_open },
		.u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = 0x43C00000, .len = 0x1000 },
			    .open = mmio_linux_open },
	},
	{
		.name = "rcin", .what = "PL pulse-capture FIFO", .kind = BOARD_DEV_MMIO,
		.drv = { .kind = BOARD_DRV_RCIN, .rcin_mmio = rcin_zynq_open },
		.u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = 0x43C10000, .len = 0x1000 },
			    .open = mmio_linux_open },
	},
	{
		.name = "gps", .what = "u-blox GPS on PS UART1", .kind = BOARD_DEV_UART,
		.drv = { .kind = BOARD_DRV_UBLOX, .baud = 115200 },
		.u.uart = { .cfg = { .path = "/dev/ttyPS1", .baud = 38400 }, .open = uart_linux_open },
	},
	{
		.name = "telem", .what = "telemetry radio (USB serial)", .kind = BOARD_DEV_UART,
		.optional = true,
		.u.uart = { .cfg = { .path = "/dev/ttyUSB0", .baud = 57600 }, .open = uart_linux_open },
	},
};

static const struct board zynq_board = {
	.name = "zynq",
	.description = "Zynq-7000 (Zybo class) with PL PWM output and pulse-capture RC input",
	.devs = devs,
	.n_devs = sizeof(devs) / sizeof(devs[0]),
	.imu_rate_hz = 1000,
	.main_rate_hz = 400,
};

const struct board *board_get(void)
{
	return &zynq_board;
}
