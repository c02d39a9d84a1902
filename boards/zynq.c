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
 * MPU9250's auxiliary I2C master. A rangefinder (one, by RNGFND1_TYPE) is
 * assumed on PS I2C0 (/dev/i2c-0: SF10/SF11 at 0x66, LIDAR-Lite v3 at 0x62)
 * or, a TFmini, on a second USB serial adapter; [devices] moves them.
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "zynq/hal_zynq.h"

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on PS SPI0 CS0", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev1.0", 3, 20000000),
	  .drv = { .rotation = ROTATION_NONE, .aux_mag = true } },
	{ .name = "baro", .what = "MS5611 on PS SPI0 CS1", .driver = &ms5611_driver,
	  LINUX_SPI("/dev/spidev1.1", 3, 10000000) },
	{ .name = "rcout", .what = "PL PWM block, 8 channels", .driver = &servo_mmio_driver,
	  LINUX_MMIO(0x43C00000, 0x1000), .drv = { .rcout_mmio = rcout_zynq_open } },
	{ .name = "rcin", .what = "PL pulse-capture FIFO", .driver = &rcin_pulse_driver,
	  LINUX_MMIO(0x43C10000, 0x1000), .drv = { .rcin_mmio = rcin_zynq_open } },
	{ .name = "gps", .what = "u-blox GPS on PS UART1", .driver = &ublox_driver,
	  LINUX_UART("/dev/ttyPS1", 38400), .drv = { .baud = 115200 } },
	{ .name = "telem", .what = "telemetry radio (USB serial)",
	  LINUX_UART("/dev/ttyUSB0", 57600), .optional = true },
	/* Rangefinders: the one RNGFND1_TYPE names starts (docs/boards.md, "Rangefinders"). */
	{ .name = "rngfnd_sf", .what = "LightWare SF10/SF11 on PS I2C0 at 0x66",
	  .driver = &lightware_i2c_driver, LINUX_I2C("/dev/i2c-0", 0x66), .drv = { .rngfnd_type = 7 } },
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3 on PS I2C0 at 0x62", .driver = &lidarlite_driver,
	  LINUX_I2C("/dev/i2c-0", 0x62), .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "Benewake TFmini on a second USB serial adapter", .driver = &tfmini_driver,
	  LINUX_UART("/dev/ttyUSB1", 115200), .drv = { .rngfnd_type = 20 } },
};

BOARD_DEFINE(.name = "zynq",
	     .description = "Zynq-7000 (Zybo class) with PL PWM output and pulse-capture RC input",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
