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
 *   rangefinders (one, by RNGFND1_TYPE): LightWare SF10/SF11 at 0x66 (ArduPilot's
 *             RNGFND1_ADDR 102) or LIDAR-Lite v3 at 0x62 (Garmin's manual) on the
 *             I2C header (I2C-1); the Navio+ has no spare UART (ttyAMA0 is the
 *             telemetry port), so a TFmini comes on a USB serial adapter
 * Rotation: the 2015 MPU9250 driver's axis swap (ROLL_180_YAW_90) and the
 * Navio's own ROLL_180_YAW_90 cancel: ROTATION_NONE (ArduPilot's
 * libraries/AP_InertialSensor/AP_InertialSensor_MPU9250.cpp, 2015). I2C-1
 * belongs to the timer thread (barometer, pitot); the PCA9685 on it is
 * written there from the pulse widths the main thread publishes
 * (src/daemon/board_io.c). The u-blox on SPI0 is clocked by the timer thread
 * too (SPI0 also carries the IMU) and its bytes reach the uart thread's
 * u-blox driver through rings.
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on SPI0 CE1", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev0.1", 0, 20000000),
	  .drv = { .rotation = ROTATION_NONE, .aux_mag = true } },
	{ .name = "gps", .what = "u-blox on SPI0 CE0", .driver = &ublox_driver,
	  LINUX_SPI("/dev/spidev0.0", 0, 5000000) },
	{ .name = "baro", .what = "MS5611 on I2C-1 at 0x77", .driver = &ms5611_driver,
	  LINUX_I2C("/dev/i2c-1", 0x77) },
	{ .name = "pwm", .what = "PCA9685 on I2C-1 at 0x40", .driver = &pca9685_driver,
	  LINUX_I2C("/dev/i2c-1", 0x40),
	  .drv = { .output_enable = "pwm_oe", .ext_clock_hz = 24576000, .channel_offset = 3,
		   .pwm_hz = 50 } },
	/* High (outputs off) until the PWM driver has set every channel up. */
	{ .name = "pwm_oe", .what = "PCA9685 output enable, GPIO27, active low",
	  LINUX_GPIO_OUT("gpiochip0", 27, true, 0) },
	{ .name = "rcin", .what = "RC receiver (PPM-sum/SBUS) on GPIO4", .driver = &rcin_pulse_driver,
	  LINUX_GPIO_IN("gpiochip0", 4, GPIO_EDGE_BOTH), .drv = { .rcin_gpio = rcin_gpio_open } },
	/* Navio+ divider: 11.3 V per ADC volt (AP_BattMonitor's Navio figure). */
	{ .name = "batt_v", .what = "battery voltage, ADS1115 A2", .driver = &batt_volt_driver,
	  IIO_ANALOG("ads1115", "voltage2"), .drv = { .scale = 11.3f } },
	/* 17 A per ADC volt. */
	{ .name = "batt_i", .what = "battery current, ADS1115 A3", .driver = &batt_curr_driver,
	  IIO_ANALOG("ads1115", "voltage3"), .drv = { .scale = 17.0f } },
	/* An external pitot on the I2C header: off until [devices] airspeed = /dev/i2c-1. */
	{ .name = "airspeed", .what = "MS4525DO pitot on I2C-1 at 0x28", .driver = &ms4525_driver,
	  LINUX_I2C("/dev/i2c-1", 0x28), .optional = true },
	/* Rangefinders: the one RNGFND1_TYPE names starts (docs/boards.md, "Rangefinders"). */
	{ .name = "rngfnd_sf", .what = "LightWare SF10/SF11 on I2C-1 at 0x66",
	  .driver = &lightware_i2c_driver, LINUX_I2C("/dev/i2c-1", 0x66), .drv = { .rngfnd_type = 7 } },
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3 on I2C-1 at 0x62", .driver = &lidarlite_driver,
	  LINUX_I2C("/dev/i2c-1", 0x62), .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "Benewake TFmini on a USB serial adapter", .driver = &tfmini_driver,
	  LINUX_UART("/dev/ttyUSB0", 115200), .drv = { .rngfnd_type = 20 } },
	{ .name = "telem", .what = "telemetry radio on the Pi UART",
	  LINUX_UART("/dev/ttyAMA0", 57600) },
};

BOARD_DEFINE(.name = "navio",
	     .description = "Raspberry Pi 2/3 + Emlid Navio+ (MPU9250, MS5611, u-blox, PCA9685)",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
