/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The descriptor list: every driver a board table can name (.driver), each
 * defined in its own file here. What a descriptor is: driver.h. Adding a
 * chip adds its file, its line below and its line in meson.build.
 */
#ifndef FULMAR_DRIVERS_DRIVERS_H
#define FULMAR_DRIVERS_DRIVERS_H

#include "drivers/driver.h"

extern const struct driver mpu6000_driver;     /* IMU, SPI or I2C (mpu_dev.c) */
extern const struct driver mpu9250_driver;     /* IMU, SPI or I2C; .aux_mag (SPI): its compass too */
extern const struct driver lsm9ds1_driver;     /* IMU, SPI: the LSM9DS1's accel/gyro die */
extern const struct driver lsm9ds1_m_driver;   /* compass, SPI: the LSM9DS1's magnetometer die */
extern const struct driver ms5611_driver;      /* barometer, SPI or I2C */
extern const struct driver bmp280_driver;      /* barometer, I2C */
extern const struct driver hmc5883l_driver;    /* compass, I2C */
extern const struct driver ak8963_driver;      /* compass, I2C (a chip of its own) */
extern const struct driver ms4525_driver;      /* pitot, I2C */
extern const struct driver lightware_i2c_driver;  /* rangefinder, I2C (RNGFND1_TYPE 7) */
extern const struct driver lidarlite_driver;   /* rangefinder, I2C (RNGFND1_TYPE 15, 3) */
extern const struct driver tfmini_driver;      /* rangefinder, UART (RNGFND1_TYPE 20) */
extern const struct driver ublox_driver;       /* GPS, UART or SPI */
extern const struct driver pca9685_driver;     /* servo outputs, I2C */
extern const struct driver servo_mmio_driver;  /* servo outputs, MMIO (.rcout_mmio) */
extern const struct driver servo_sysfs_driver; /* servo outputs, kernel PWM chip (.rcout_sysfs) */
extern const struct driver rcin_pulse_driver;  /* RC, pulse capture (.rcin_gpio, .rcin_mmio) */
extern const struct driver sbus_driver;        /* RC, SBUS bytes on a UART */
extern const struct driver dsm_driver;         /* RC, Spektrum bytes on a UART */
extern const struct driver rcio_rc_driver;     /* RC, the Navio2 RCIO module's sysfs widths */
extern const struct driver batt_volt_driver;   /* battery voltage, analog */
extern const struct driver batt_curr_driver;   /* battery current, analog (with a voltage) */
extern const struct driver buzzer_driver;      /* buzzer, GPIO line */

#endif
