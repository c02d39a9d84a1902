// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * blue: the BeagleBone Blue, wired as ArduPilot's blue target drives it.
 * Sources (docs/navio2-blue-facts.md, part B, gives each with its file,
 * lines and commit): ArduPilot's libraries/AP_HAL_Linux/hwdef/blue/hwdef.dat
 * (I2C devices, addresses, rotations), HAL_Linux_Class.cpp (AioPRU RC in
 * and out), RCInput_AioPRU.h, RCOutput_AioPRU.h and
 * Tools/Linux_HAL_Essentials/pru/aiopru/RcAioPRU.p (PRU1's RC ring and PWM
 * block, 8 channels in its BBBLUE build), AP_InertialSensor_Invensense.cpp
 * (the bypass on I2C); librobotcontrol and the drone-labs and mirkix
 * ArduPilot-on-Blue notes (connectors, UARTs, i2cdetect):
 *   I2C2      /dev/i2c-2: MPU9250 0x68, its AK8963 0x0C through the MPU's
 *             bypass, BMP280 0x76
 *   PRU1      the AioPRU firmware (BBBLUE build): RC input on E4 pin 4
 *             (PRU_E_B, "P8.15", eCAP) in a ring at 0x4A303000; 8 servo
 *             outputs (the servo header 1-8; which R30 bit reaches which pin is
 *             unconfirmed) from 0x4A302000
 *   UART2     u-blox GPS (GPS connector), 38400 assumed (the BBBMINI's figure)
 *   UART1     telemetry radio (UT1 connector), 57600
 *   AIN0/AIN1 a power module's voltage and current (header pins unconfirmed)
 *   I2C1      the external I2C connector, /dev/i2c-1: ArduPilot's blue hwdef puts
 *             its LightWare rangefinder there (HAL_RANGEFINDER_LIGHTWARE_I2C_BUS 1);
 *             an SF10/SF11 (0x66) or a LIDAR-Lite v3 (0x62), one by RNGFND1_TYPE.
 *             UART5's connector pins are not confirmed: a TFmini comes on a USB
 *             serial adapter
 * Rotations: hwdef.dat says ROTATION_NONE for the IMU and the compass, on
 * top of the Invensense driver's own axis swap (x and y exchanged, z
 * negated: ROLL_180_YAW_90), which fulmar's MPU driver does not make; the
 * AK8963's axes are the swapped ones already (ak8963.h). Neither was
 * checked on a board. Not in the table: the buttons, LEDs and relays (no
 * consumer in fulmard), the DSM2 port on UART4 (one RC input per board),
 * the Blue's own 2-cell pack on AIN6 (docs/boards.md, "The BeagleBone
 * Blue"). The AioPRU firmware must be running on PRU1, under UIO, before
 * fulmard starts (hal/pru/hal_pru.h).
 */
#include "drivers/drivers.h"
#include "drivers/rotation.h"
#include "fulmar/board.h"
#include "linux/hal_linux.h"
#include "pru/hal_pru.h"

static const struct board_dev devs[] = {
	{ .name = "imu", .what = "MPU9250 on I2C2 at 0x68", .driver = &mpu9250_driver,
	  LINUX_I2C("/dev/i2c-2", 0x68), .drv = { .rotation = ROTATION_ROLL_180_YAW_90 } },
	/* Reached once the MPU9250's set-up has opened its bypass (IMUs come up first). */
	{ .name = "mag", .what = "AK8963 in the MPU9250, I2C2 at 0x0C", .driver = &ak8963_driver,
	  LINUX_I2C("/dev/i2c-2", 0x0c), .drv = { .rotation = ROTATION_NONE } },
	{ .name = "baro", .what = "BMP280 on I2C2 at 0x76", .driver = &bmp280_driver,
	  LINUX_I2C("/dev/i2c-2", 0x76) },
	{ .name = "rcin", .what = "PRU1 AioPRU RC input ring (E4 pin 4)",
	  .driver = &rcin_pulse_driver, LINUX_MMIO(0x4A303000, 0x1000),
	  .drv = { .rcin_mmio = rcin_aiopru_open } },
	{ .name = "rcout", .what = "PRU1 AioPRU PWM output, 8 channels",
	  .driver = &servo_mmio_driver, LINUX_MMIO(0x4A302000, 0x1000),
	  .drv = { .rcout_mmio = rcout_aiopru_blue_open } },
	{ .name = "gps", .what = "u-blox GPS on UART2", .driver = &ublox_driver,
	  LINUX_UART("/dev/ttyS2", 38400), .drv = { .baud = 115200 } },
	{ .name = "telem", .what = "telemetry radio on UART1", LINUX_UART("/dev/ttyS1", 57600),
	  .optional = true },
	/*
	 * A power module on AIN0 and AIN1, as ArduPilot's blue hwdef has it
	 * (HAL_BATT_VOLT_PIN 0, HAL_BATT_VOLT_SCALE 10.1; HAL_BATT_CURR_PIN 1,
	 * HAL_BATT_CURR_SCALE 17): volts and amps per ADC volt, the ADC's
	 * 1.8 V over 4095 counts (AnalogIn_IIO.h's BLUE figure).
	 */
	{ .name = "batt_v", .what = "battery voltage, AM335x ADC AIN0", .driver = &batt_volt_driver,
	  IIO_ANALOG_RAW("iio:device0", "voltage0", 1800.0 / 4095.0), .drv = { .scale = 10.1f } },
	{ .name = "batt_i", .what = "battery current, AM335x ADC AIN1", .driver = &batt_curr_driver,
	  IIO_ANALOG_RAW("iio:device0", "voltage1", 1800.0 / 4095.0), .drv = { .scale = 17.0f } },
	/* Rangefinders: the one RNGFND1_TYPE names starts (docs/boards.md, "Rangefinders"). */
	{ .name = "rngfnd_sf", .what = "LightWare SF10/SF11 on I2C1 at 0x66",
	  .driver = &lightware_i2c_driver, LINUX_I2C("/dev/i2c-1", 0x66), .drv = { .rngfnd_type = 7 } },
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3 on I2C1 at 0x62", .driver = &lidarlite_driver,
	  LINUX_I2C("/dev/i2c-1", 0x62), .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "Benewake TFmini on a USB serial adapter", .driver = &tfmini_driver,
	  LINUX_UART("/dev/ttyUSB0", 115200), .drv = { .rngfnd_type = 20 } },
};

BOARD_DEFINE(.name = "blue",
	     .description = "BeagleBone Blue (MPU9250, AK8963, BMP280 on I2C, PRU1 AioPRU RC in/out)",
	     .imu_rate_hz = 1000, .main_rate_hz = 400);
