// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bbb-pxf: BeagleBone Black with the PXF (Erle) cape. Sources of the facts
 * below (docs/boards.md, "Where the wiring facts come from", says more):
 * ArduPilot's libraries/AP_HAL_Linux/SPIDriver.cpp (its PXF SPI table),
 * RCInput_PRU.cpp and RCOutput_PRU.cpp; the PXF overlay and PRU firmware in
 * ArduPilot's Tools/Linux_HAL_Essentials (devicetree/pxf/BB-BONE-PRU-05-00A0.dts,
 * pru/rcinpru, pru/pwmpru); the P8/P9 header tables of the BeagleBone Black
 * System Reference Manual (pin to GPIO line); the AM335x Technical Reference
 * Manual, SPRUH73 (PRU-ICSS at 0x4A300000, its shared RAM at +0x10000):
 *   SPI bus 2 (/dev/spidev2.0, mode 3) with chip selects driven as GPIOs:
 *     MPU9250  P9_23 = gpio1_17   (1 MHz set-up, 20 MHz data)
 *     MPU6000  P9_28 = gpio3_17   (0.5 / 20 MHz)
 *     MS5611   P9_42 = gpio0_7    (10 MHz)
 *   PRU0 runs the RC input firmware (pin P8_15), its ring in PRU shared RAM at
 *   0x4A312000; PRU1 runs the 12-channel PWM firmware, its command block at
 *   the start of PRU shared RAM, 0x4A310000. P8_17 = gpio0_27 powers a
 *   Spektrum satellite.
 *   The LSM9DS0 on SPI bus 1 and the FRAM are not used by fulmar.
 * Chip-select lines are requested at start-up, deselected (high), so no two
 * chips ever answer on the shared bus.
 * The GPS UART (ttyO5) is the usual PXF launch line, not checked on hardware.
 * Rangefinders (one, by RNGFND1_TYPE): an SF10/SF11 (0x66) or LIDAR-Lite v3
 * (0x62) on the cape's I2C, /dev/i2c-1 as ArduPilot's Linux boards of 2015
 * had it; a TFmini on a USB serial adapter (ttyO4 and ttyO5 are taken).
 * Rotation: the 2015 MPU9250 driver's own axis swap (ROLL_180_YAW_90) then
 * the PXF's YAW_180, i.e. ROLL_180_YAW_270 (ArduPilot's
 * libraries/AP_InertialSensor/AP_InertialSensor_MPU9250.cpp, 2015); the
 * MPU6000 is taken to sit the same way (not checked on hardware). The AK8963
 * inside the MPU9250 is read through its auxiliary I2C master.
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "pru/hal_pru.h"

#define PXF_ROTATION ROTATION_ROLL_180_YAW_270

#define CS_LINE(nm, desc, chip_name, line) \
	{ .name = nm, .what = desc, LINUX_GPIO_OUT(chip_name, line, true, 0) }

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on SPI bus 2", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev2.0", 3, 20000000),
	  .drv = { .rotation = PXF_ROTATION, .aux_mag = true, .chip_select = "imu_cs" } },
	{ .name = "imu2", .what = "MPU6000 on SPI bus 2", .driver = &mpu6000_driver,
	  LINUX_SPI("/dev/spidev2.0", 3, 20000000),
	  .drv = { .rotation = PXF_ROTATION, .setup_speed_hz = 500000, .chip_select = "imu2_cs" } },
	{ .name = "baro", .what = "MS5611 on SPI bus 2", .driver = &ms5611_driver,
	  LINUX_SPI("/dev/spidev2.0", 3, 10000000), .drv = { .chip_select = "baro_cs" } },
	CS_LINE("imu_cs", "MPU9250 chip select, P9_23", "gpiochip1", 17),
	CS_LINE("imu2_cs", "MPU6000 chip select, P9_28", "gpiochip3", 17),
	CS_LINE("baro_cs", "MS5611 chip select, P9_42", "gpiochip0", 7),
	{ .name = "rcin", .what = "PRU0 RC input ring (pin P8_15)", .driver = &rcin_pulse_driver,
	  LINUX_MMIO(0x4A312000, 0x1000), .drv = { .rcin_mmio = rcin_pru_open } },
	{ .name = "rcout", .what = "PRU1 PWM output, 12 channels", .driver = &servo_mmio_driver,
	  LINUX_MMIO(0x4A310000, 0x1000), .drv = { .rcout_mmio = rcout_pru_open } },
	{ .name = "spektrum_pwr", .what = "Spektrum satellite power, P8_17",
	  LINUX_GPIO_OUT("gpiochip0", 27, false, 1) },
	{ .name = "gps", .what = "u-blox GPS on UART5", .driver = &ublox_driver,
	  LINUX_UART("/dev/ttyO5", 38400), .drv = { .baud = 115200 } },
	{ .name = "telem", .what = "telemetry radio on UART4", LINUX_UART("/dev/ttyO4", 57600),
	  .optional = true },
	/* Rangefinders: the one RNGFND1_TYPE names starts (docs/boards.md, "Rangefinders"). */
	{ .name = "rngfnd_sf", .what = "LightWare SF10/SF11 on I2C-1 at 0x66",
	  .driver = &lightware_i2c_driver, LINUX_I2C("/dev/i2c-1", 0x66), .drv = { .rngfnd_type = 7 } },
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3 on I2C-1 at 0x62", .driver = &lidarlite_driver,
	  LINUX_I2C("/dev/i2c-1", 0x62), .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "Benewake TFmini on a USB serial adapter", .driver = &tfmini_driver,
	  LINUX_UART("/dev/ttyUSB0", 115200), .drv = { .rngfnd_type = 20 } },
};

BOARD_DEFINE(.name = "bbb-pxf",
	     .description = "BeagleBone Black + PXF/Erle cape (MPU9250, MPU6000, MS5611, PRU RC in/out)",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
