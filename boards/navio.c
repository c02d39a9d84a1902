// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * navio: Raspberry Pi 2/3 (32-bit) with an Emlid Navio+, wired as ArduPilot
 * drove it in late 2015. Sources (docs/boards.md, "Where the wiring facts
 * come from", says more): ArduPilot's libraries/AP_HAL_Linux/SPIDriver.cpp
 * (its Navio SPI table), HAL_Linux_Class.cpp and RCOutput_PCA9685.cpp (the
 * PCA9685's address, clock, channel offset and output enable), GPIO_Navio.cpp
 * (GPIO4 RC input, GPIO27 output enable), the MS5611 driver in
 * libraries/AP_Baro (0x77) and libraries/AP_BattMonitor (the battery scales);
 * the NXP PCA9685 and TI ADS1115 datasheets (0x40 and 0x48 with the address
 * pins low):
 *   SPI0 CE1  MPU9250 (mode 0, 1 MHz for set-up, 20 MHz for data), AK8963 behind it
 *   SPI0 CE0  u-blox GPS (mode 0, 250 kHz set-up, 5 MHz)
 *   I2C-1     MS5611 0x77, PCA9685 0x40 (24.576 MHz external clock, outputs 4..16;
 *             the first three drive the RGB LED), ADS1115 0x48 (battery)
 *   GPIO4     RC input (PPM-sum, SBUS), GPIO27 PCA9685 output enable, low = on
 *   ttyAMA0   telemetry
 * Rotation: the 2015 MPU9250 driver's axis swap (ROLL_180_YAW_90) and the
 * Navio's own ROLL_180_YAW_90 cancel: ROTATION_NONE (ArduPilot's
 * libraries/AP_InertialSensor/AP_InertialSensor_MPU9250.cpp, 2015). I2C-1
 * belongs to the timer thread (barometer, pitot); the PCA9685 on it is
 * written there from the pulse widths the main thread publishes
 * (src/daemon/board_io.c). The u-blox on SPI0 is clocked by the timer thread
 * too (SPI0 also carries the IMU) and its bytes reach the uart thread's
 * u-blox driver through rings.
 */
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"

static const struct board_dev devs[] = {
	{
		.name = "imu", .what = "MPU9250 on SPI0 CE1", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_MPU9250, .rotation = ROTATION_NONE, .aux_ak8963 = true,
			 .setup_speed_hz = 1000000 },
		.u.spi = { .cfg = { .path = "/dev/spidev0.1", .mode = 0, .speed_hz = 20000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "gps", .what = "u-blox on SPI0 CE0", .kind = BOARD_DEV_SPI,
		.drv = { .kind = BOARD_DRV_UBLOX },
		.u.spi = { .cfg = { .path = "/dev/spidev0.0", .mode = 0, .speed_hz = 5000000 },
			   .open = spi_linux_open },
	},
	{
		.name = "baro", .what = "MS5611 on I2C-1 at 0x77", .kind = BOARD_DEV_I2C,
		.drv = { .kind = BOARD_DRV_MS5611 },
		.u.i2c = { .cfg = { .path = "/dev/i2c-1" }, .addr = 0x77, .open = i2c_linux_open },
	},
	{
		.name = "pwm", .what = "PCA9685 on I2C-1 at 0x40", .kind = BOARD_DEV_I2C,
		.drv = { .kind = BOARD_DRV_PCA9685, .output_enable = "pwm_oe",
			 .ext_clock_hz = 24576000, .channel_offset = 3, .pwm_hz = 50 },
		.u.i2c = { .cfg = { .path = "/dev/i2c-1" }, .addr = 0x40, .open = i2c_linux_open },
	},
	{
		/* High (outputs off) until the PWM driver has set every channel up. */
		.name = "pwm_oe", .what = "PCA9685 output enable, GPIO27, active low",
		.kind = BOARD_DEV_GPIO,
		.u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 27, .dir = GPIO_DIR_OUTPUT,
				     .active_low = true, .initial_value = 0 },
			    .open = gpio_linux_open },
	},
	{
		.name = "rcin", .what = "RC receiver (PPM-sum/SBUS) on GPIO4", .kind = BOARD_DEV_GPIO,
		.drv = { .kind = BOARD_DRV_RCIN, .rcin_gpio = rcin_gpio_open },
		.u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 4, .dir = GPIO_DIR_INPUT,
				     .edge = GPIO_EDGE_BOTH },
			    .open = gpio_linux_open },
	},
	{
		/* Navio+ divider: 11.3 V per ADC volt (AP_BattMonitor's Navio figure). */
		.name = "batt_v", .what = "battery voltage, ADS1115 A2", .kind = BOARD_DEV_ANALOG,
		.drv = { .kind = BOARD_DRV_BATT_VOLT, .scale = 11.3f },
		.u.analog = { .cfg = { .device = "ads1115", .channel = "voltage2" },
			      .open = analog_iio_open },
	},
	{
		/* 17 A per ADC volt. */
		.name = "batt_i", .what = "battery current, ADS1115 A3", .kind = BOARD_DEV_ANALOG,
		.drv = { .kind = BOARD_DRV_BATT_CURR, .scale = 17.0f },
		.u.analog = { .cfg = { .device = "ads1115", .channel = "voltage3" },
			      .open = analog_iio_open },
	},
	{
		/* An external pitot on the I2C header: off until [devices] airspeed = /dev/i2c-1. */
		.name = "airspeed", .what = "MS4525DO pitot on I2C-1 at 0x28", .kind = BOARD_DEV_I2C,
		.optional = true,
		.drv = { .kind = BOARD_DRV_MS4525 },
		.u.i2c = { .cfg = { .path = "/dev/i2c-1" }, .addr = 0x28, .open = i2c_linux_open },
	},
	{
		.name = "telem", .what = "telemetry radio on the Pi UART", .kind = BOARD_DEV_UART,
		.u.uart = { .cfg = { .path = "/dev/ttyAMA0", .baud = 57600 },
			    .open = uart_linux_open },
	},
};

static const struct board navio_board = {
	.name = "navio",
	.description = "Raspberry Pi 2/3 + Emlid Navio+ (MPU9250, MS5611, u-blox, PCA9685)",
	.devs = devs,
	.n_devs = sizeof(devs) / sizeof(devs[0]),
	.imu_rate_hz = 1000,
	.main_rate_hz = 400,
};

const struct board *board_get(void)
{
	return &navio_board;
}
