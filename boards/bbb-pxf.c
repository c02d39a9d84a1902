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
 * Rotation: the 2015 MPU9250 driver's own axis swap (ROLL_180_YAW_90) then
 * the PXF's YAW_180, i.e. ROLL_180_YAW_270 (ArduPilot's
 * libraries/AP_InertialSensor/AP_InertialSensor_MPU9250.cpp, 2015); the
 * MPU6000 is taken to sit the same way (not checked on hardware). The AK8963
 * inside the MPU9250 is read through its auxiliary I2C master.
 */
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "pru/hal_pru.h"

#define PXF_ROTATION ROTATION_ROLL_180_YAW_270

#define CS_LINE(nm, desc, chip_name, line) \
	{ \
		.name = nm, .what = desc, .kind = BOARD_DEV_GPIO, \
		.u.gpio = { .cfg = { .chip = chip_name, .offset = line, \
				     .dir = GPIO_DIR_OUTPUT, .active_low = true, \
				     .initial_value = 0 }, \
			    .open = gpio_linux_open }, \
	}

static const struct board_dev devs[] = {
	{
		.name = "imu", .what = "MPU9250 on SPI bus 2", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MPU9250, .rotation = PXF_ROTATION, .aux_ak8963 = true,
			 .setup_speed_hz = 1000000, .chip_select = "imu_cs" },
		.u.spi = { .cfg = { .path = "/dev/spidev2.0", .mode = 3, .speed_hz = 20000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "imu2", .what = "MPU6000 on SPI bus 2", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MPU6000, .rotation = PXF_ROTATION,
			 .setup_speed_hz = 500000, .chip_select = "imu2_cs" },
		.u.spi = { .cfg = { .path = "/dev/spidev2.0", .mode = 3, .speed_hz = 20000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "baro", .what = "MS5611 on SPI bus 2", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MS5611, .chip_select = "baro_cs" },
		.u.spi = { .cfg = { .path = "/dev/spidev2.0", .mode = 3, .speed_hz = 10000000 },
			   .open = spi_linux_open },
	},
	CS_LINE("imu_cs", "MPU9250 chip select, P9_23", "gpiochip1", 17),
	CS_LINE("imu2_cs", "MPU6000 chip select, P9_28", "gpiochip3", 17),
	CS_LINE("baro_cs", "MS5611 chip select, P9_42", "gpiochip0", 7),
	{
		.name = "rcin", .what = "PRU0 RC input ring (pin P8_15)", .kind = BOARD_DEV_MMIO,
		.drv = { .kind = BOARD_DRV_RCIN, .rcin_mmio = rcin_pru_open },
		.u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = 0x4A312000, .len = 0x1000 },
			    .open = mmio_linux_open },
	},
	{
		.name = "rcout", .what = "PRU1 PWM output, 12 channels", .kind = BOARD_DEV_MMIO,
		.drv = { .kind = BOARD_DRV_RCOUT, .rcout_mmio = rcout_pru_open },
		.u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = 0x4A310000, .len = 0x1000 },
			    .open = mmio_linux_open },
	},
	{
		.name = "spektrum_pwr", .what = "Spektrum satellite power, P8_17", .kind = BOARD_DEV_GPIO,
		.u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 27, .dir = GPIO_DIR_OUTPUT,
				     .initial_value = 1 },
			    .open = gpio_linux_open },
	},
	{
		.name = "gps", .what = "u-blox GPS on UART5", .kind = BOARD_DEV_UART,
		.drv = { .kind = BOARD_DRV_UBLOX, .baud = 115200 },
		.u.uart = { .cfg = { .path = "/dev/ttyO5", .baud = 38400 }, .open = uart_linux_open },
	},
	{
		.name = "telem", .what = "telemetry radio on UART4", .kind = BOARD_DEV_UART,
		.optional = true,
		.u.uart = { .cfg = { .path = "/dev/ttyO4", .baud = 57600 }, .open = uart_linux_open },
	},
};

static const struct board bbb_pxf_board = {
	.name = "bbb-pxf",
	.description = "BeagleBone Black + PXF/Erle cape (MPU9250, MPU6000, MS5611, PRU RC in/out)",
	.devs = devs,
	.n_devs = sizeof(devs) / sizeof(devs[0]),
	.imu_rate_hz = 1000,
	.main_rate_hz = 400,
};

const struct board *board_get(void)
{
	return &bbb_pxf_board;
}
