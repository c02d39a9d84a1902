// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bbbmini: BeagleBone Black with Mirko Denecke's BBBMINI cape, wired as
 * ArduPilot's bbbmini target drives it. Sources (docs/bbbmini-facts.md gives
 * each with its file and lines): ArduPilot's
 * libraries/AP_HAL_Linux/hwdef/bbbmini/hwdef.dat and the older SPIDevice.cpp
 * table (SPI devices, speeds, modes, rotation), RCInput_AioPRU.h and
 * RCOutput_AioPRU.h with Tools/Linux_HAL_Essentials/pru/aiopru/RcAioPRU.p
 * (PRU1's RC ring and PWM block), and the cape's doc/hardware/hardware.md and
 * doc/software/software.md (UARTs and their rates):
 *   SPI1 CS0  MPU9250 (mode 3, 1 MHz set-up, 11 MHz data), ROTATION_NONE, its
 *             AK8963 through the auxiliary I2C master
 *   SPI1 CS1  MS5611 (mode 3, 10 MHz)
 *   SPI0 CS0  a second MPU9250 on the cape's SPI0 connector, optional
 *   PRU1      the AioPRU firmware: RC input (P8.15, eCAP) in a ring at
 *             0x4A303000, 12 PWM outputs (P8.27-P8.46) from 0x4A302000
 *   UART5     u-blox GPS, 38400 as shipped; UART4 telemetry radio, 57600
 *   I2C2      connector P15 (P9.19/P9.20), /dev/i2c-2: ArduPilot's bbbmini hwdef
 *             puts its LightWare rangefinder there (HAL_RANGEFINDER_LIGHTWARE_I2C_BUS
 *             2); an SF10/SF11 (0x66) or a LIDAR-Lite v3 (0x62), one by RNGFND1_TYPE.
 *             The cape's "serial 2" is not in its documents: a TFmini comes on a
 *             USB serial adapter
 * SPI1 is /dev/spidev2.x and SPI0 /dev/spidev1.x on the 3.8-4.19 bone
 * kernels ArduPilot's target assumes; on mainline kernels they are
 * spidev1.x and spidev0.x: set them in [devices]. The AioPRU firmware must
 * be running on PRU1 before fulmard starts (hal/pru/hal_pru.h). The battery
 * inputs (AIN0, AIN1) are not in the table yet: the AM335x ADC's IIO driver
 * gives raw counts with no scale.
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "pru/hal_pru.h"

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on SPI1 CS0", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev2.0", 3, 11000000),
	  .drv = { .rotation = ROTATION_NONE, .aux_mag = true } },
	{ .name = "imu2", .what = "second MPU9250 on SPI0 CS0", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev1.0", 3, 11000000), .drv = { .rotation = ROTATION_NONE },
	  .optional = true },
	{ .name = "baro", .what = "MS5611 on SPI1 CS1", .driver = &ms5611_driver,
	  LINUX_SPI("/dev/spidev2.1", 3, 10000000) },
	{ .name = "rcin", .what = "PRU1 AioPRU RC input ring (pin P8.15)",
	  .driver = &rcin_pulse_driver, LINUX_MMIO(0x4A303000, 0x1000),
	  .drv = { .rcin_mmio = rcin_aiopru_open } },
	{ .name = "rcout", .what = "PRU1 AioPRU PWM output, 12 channels",
	  .driver = &servo_mmio_driver, LINUX_MMIO(0x4A302000, 0x1000),
	  .drv = { .rcout_mmio = rcout_aiopru_open } },
	{ .name = "gps", .what = "u-blox GPS on UART5", .driver = &ublox_driver,
	  LINUX_UART("/dev/ttyO5", 38400), .drv = { .baud = 115200 } },
	{ .name = "telem", .what = "telemetry radio on UART4", LINUX_UART("/dev/ttyO4", 57600),
	  .optional = true },
	/* Rangefinders: the one RNGFND1_TYPE names starts (docs/boards.md, "Rangefinders"). */
	{ .name = "rngfnd_sf", .what = "LightWare SF10/SF11 on I2C2 (P15) at 0x66",
	  .driver = &lightware_i2c_driver, LINUX_I2C("/dev/i2c-2", 0x66), .drv = { .rngfnd_type = 7 } },
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3 on I2C2 (P15) at 0x62", .driver = &lidarlite_driver,
	  LINUX_I2C("/dev/i2c-2", 0x62), .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "Benewake TFmini on a USB serial adapter", .driver = &tfmini_driver,
	  LINUX_UART("/dev/ttyUSB0", 115200), .drv = { .rngfnd_type = 20 } },
};

BOARD_DEFINE(.name = "bbbmini",
	     .description = "BeagleBone Black + BBBMINI cape (MPU9250, MS5611, PRU1 AioPRU RC in/out)",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
