// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * navio2: Raspberry Pi 2/3 (32-bit) with an Emlid Navio2, wired as
 * ArduPilot's navio2 target drives it. Sources (docs/boards.md, "navio2",
 * and docs/navio2-blue-facts.md, part A, say more): ArduPilot's
 * libraries/AP_HAL_Linux/hwdef/navio2/hwdef.dat (SPI table, IMU, compass and
 * barometer lines, battery pins and scales), HAL_Linux_Class.cpp
 * (RCOutput_Sysfs on pwmchip0, 14 channels; RCInput_Navio2; AnalogIn_Navio2),
 * RCInput_Navio2.cpp, AnalogIn_Navio2.cpp; Emlid's rcio kernel module
 * (emlid/rcio-dkms: rcio_pwm.c, rcio_rcin.c, rcio_adc.c, rcio_status.c) and
 * Emlid's Navio2 documentation (ADC channel map, PWM header):
 *   SPI0 CE0  u-blox GPS (mode 0, 5 MHz)
 *   SPI0 CE1  MPU9250 (mode 0, 1 MHz set-up, 11 MHz data)
 *   SPI0 CE2  LSM9DS1 magnetometer die (mode 0, 10 MHz), rotation ROLL_180
 *   I2C-1     MS5611 0x77
 *   RCIO      an STM32 co-processor on the Pi's SPI1, owned by Emlid's rcio
 *             module, which shows it in sysfs: 14 servo outputs as
 *             /sys/class/pwm/pwmchip0, RC widths in /sys/kernel/rcio/rcin,
 *             ADC millivolts in /sys/kernel/rcio/adc (ch2 power module
 *             voltage, 11.3 V/V; ch3 current, 17 A/V)
 *   ttyAMA0   telemetry on the UART header
 * One compass: the daemon has one magnetometer topic, so the MPU9250's
 * AK8963 (ArduPilot's second compass on this board) is left unread and
 * the LSM9DS1's, ArduPilot's first, is the compass. The LSM9DS1's
 * accel/gyro die (/dev/spidev0.3) is not used, as ArduPilot does not use it
 * (its speed and rotation are not in any source read).
 * Threads: SPI0 and I2C-1 belong to the timer thread (IMU, compass, GPS bytes
 * into rings for the uart thread, barometer); the sysfs files are read on
 * the io thread (RC at 50 Hz, battery at 10 Hz), and the servo outputs are
 * written and refreshed by the main thread (src/drivers/servo_sysfs.c).
 * Not here yet: the RGB LED (rgb_led0..2 in /sys/class/leds; fulmar has no
 * LED output) and the board and servo-rail voltages (ADC ch0, ch1).
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "linux/rcout_pwm_sysfs.h"

#define RCIO_ADC "/sys/kernel/rcio/adc"

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on SPI0 CE1", .driver = &mpu9250_driver,
	  LINUX_SPI("/dev/spidev0.1", 0, 11000000),
	  .drv = { .rotation = ROTATION_NONE, .setup_speed_hz = 1000000 } },
	{ .name = "mag", .what = "LSM9DS1 magnetometer on SPI0 CE2", .driver = &lsm9ds1_m_driver,
	  LINUX_SPI("/dev/spidev0.2", 0, 10000000), .drv = { .rotation = ROTATION_ROLL_180 } },
	{ .name = "gps", .what = "u-blox on SPI0 CE0", .driver = &ublox_driver,
	  LINUX_SPI("/dev/spidev0.0", 0, 5000000) },
	{ .name = "baro", .what = "MS5611 on I2C-1 at 0x77", .driver = &ms5611_driver,
	  LINUX_I2C("/dev/i2c-1", 0x77) },
	/* The RCIO's outputs 0..13, header pins 1..14; the backend starts them at 50 Hz. */
	{ .name = "pwm", .what = "RCIO servo outputs, PWM class", .driver = &servo_sysfs_driver,
	  LINUX_SYSFS("/sys/class/pwm/pwmchip0"),
	  .drv = { .rcout_sysfs = rcout_pwm_sysfs_open, .rcout_refresh = rcout_pwm_sysfs_refresh,
		   .channels = 14 } },
	{ .name = "rcin", .what = "RC receiver (PPM/SBUS) through the RCIO", .driver = &rcio_rc_driver,
	  LINUX_SYSFS("/sys/kernel/rcio") },
	/* AP hwdef.dat: HAL_BATT_VOLT_PIN 2, HAL_BATT_VOLT_SCALE 11.3. */
	{ .name = "batt_v", .what = "battery voltage, RCIO ADC A2 (POWER port)",
	  .driver = &batt_volt_driver, SYSFS_ANALOG(RCIO_ADC, "ch2"), .drv = { .scale = 11.3f } },
	/* HAL_BATT_CURR_PIN 3, HAL_BATT_CURR_SCALE 17.0. */
	{ .name = "batt_i", .what = "battery current, RCIO ADC A3 (POWER port)",
	  .driver = &batt_curr_driver, SYSFS_ANALOG(RCIO_ADC, "ch3"), .drv = { .scale = 17.0f } },
	{ .name = "telem", .what = "telemetry radio on the Pi UART",
	  LINUX_UART("/dev/ttyAMA0", 57600) },
};

BOARD_DEFINE(.name = "navio2",
	     .description = "Raspberry Pi 2/3 + Emlid Navio2 (MPU9250, LSM9DS1, MS5611, u-blox, RCIO)",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
