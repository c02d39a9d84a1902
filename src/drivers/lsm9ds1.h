/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ST LSM9DS1 on SPI (Navio2): two dies in one package, each on its own chip
 * select, so two drivers and two board devices:
 *   - the accelerometer + gyroscope ("A/G") die, struct lsm9ds1: WHO_AM_I
 *     0x68; gyro and accelerometer both at 952 Hz, +-2000 deg/s
 *     (70 mdps/LSB) and +-16 g (0.732 mg/LSB), block data update, address
 *     auto-increment, I2C off. Samples in rad/s and m/s^2, the die
 *     temperature in degC (16 LSB/degC, 0 at 25 degC);
 *   - the magnetometer ("M") die, struct lsm9ds1_m: WHO_AM_I_M 0x3D;
 *     continuous conversion at 80 Hz, ultra-high-performance on all axes,
 *     temperature compensation, +-4 gauss (0.14 mgauss/LSB), block data
 *     update, I2C off. Samples in microtesla (sensor_sample.h; 1 gauss =
 *     100 uT). On SPI the M die increments the register address in a burst
 *     only with bit 6 (MS) of the address byte set, in addition to bit 7
 *     (read); the A/G die increments by its CTRL_REG8.IF_ADD_INC.
 * The two dies have their own axes (the data sheet's figure of the
 * package's axes): each board entry carries its own rotation.
 *
 * Both are state machines over caller-owned structs, never sleeping, never
 * reading a clock: every call takes now_us. Set-up: identification, soft
 * reset, configuration, every written register read back. Running, the A/G
 * die is read each call: one SPI kernel call of two transactions, the
 * temperature, STATUS_REG and gyro registers (0x15..0x1D), then the
 * accelerometer's (0x28..0x2D); a sample only when STATUS_REG.GDA says the
 * gyro has new data. The M die is read every 5 ms (STATUS_REG_M and
 * the six data bytes, 0x27..0x2D), a sample when ZYXDA is set.
 *
 * Errors are data: a failed transfer is counted and returned, the last
 * good sample stays readable with its time.
 *   - Start-up: driver.h's drv_startup rule. A transfer error, or an
 *     identification that is not the die's (what an SPI bus reads with no
 *     chip: 0x00 or 0xFF), is tried again 20 ms later; at the tenth the
 *     device is refused: -ENODEV from then on without bus traffic. Wrong
 *     identifications are counted (stats.probe_failures) and the last one
 *     kept for the message.
 *   - Registers that do not read back as written: counted, the set-up runs
 *     again (5 times at start-up, then -ENODEV).
 *   - Stuck data, as mpu.c: stuck_limit new samples in a row identical on
 *     all six axes (three for the magnetometer) are counted, -ESTALE, and the
 *     set-up runs again. Real sensors always carry noise in the last bits.
 *   - No new data for 50 ms (A/G) or 200 ms (M): the die lost its
 *     configuration (a power dip, a reset); counted, the set-up runs again.
 *
 * Not done: the FIFO (a poll slower than 952 Hz loses samples rather than
 * catching up), the self-tests, the magnetometer's hard-iron offset
 * registers.
 *
 * Thread: the one that owns the SPI handles (the timer thread). No allocation.
 */
#ifndef FULMAR_DRIVERS_LSM9DS1_H
#define FULMAR_DRIVERS_LSM9DS1_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/rotation.h"
#include "drivers/sensor_sample.h"

struct spi_dev;

#define LSM9DS1_WHO_AM_I_AG 0x68
#define LSM9DS1_WHO_AM_I_M 0x3d
/* The A/G die's output data rate: one sample every 1050 us. */
#define LSM9DS1_ODR_HZ 952

/* ---- the accelerometer + gyroscope die ---- */

struct lsm9ds1_config {
	struct spi_dev *spi;
	uint32_t speed_hz;            /* 0: the device's own (the board's spidev speed) */
	enum rotation rotation;       /* die axes to body axes; must be set */
	uint16_t stuck_limit;         /* identical samples in a row; 0: 250 */
};

struct lsm9ds1_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t probe_failures;      /* WHO_AM_I reads that were not 0x68 */
	uint32_t config_errors;       /* registers that did not read back as written */
	uint32_t stuck_events;        /* runs of stuck_limit identical samples */
	uint32_t stale_events;        /* no new data for 50 ms */
	uint32_t setups;
};

struct lsm9ds1 {
	struct lsm9ds1_config cfg;
	struct rotation_matrix rot;
	struct drv_startup start;
	int state;
	int fail_err;
	uint64_t next_us;
	uint64_t last_data_us;
	uint8_t who_am_i;
	uint8_t attempts;
	bool ever_ran;
	int16_t prev_raw[6];
	uint16_t stuck_run;
	bool have_last;
	struct imu_sample last;
	struct lsm9ds1_stats stats;
};

/* No bus traffic. -EINVAL for a NULL spi or an unset rotation. */
int lsm9ds1_init(struct lsm9ds1 *g, const struct lsm9ds1_config *cfg);
/*
 * Advances set-up or reads a sample. 1 with *out written (stamped now_us),
 * 0 nothing new, -errno from the bus, -ESTALE for stuck data (a new set-up
 * follows), and -ENODEV (from then on, without bus traffic) when at start-up
 * no A/G die identified itself or none took its configuration.
 */
int lsm9ds1_poll(struct lsm9ds1 *g, uint64_t now_us, struct imu_sample *out);
uint64_t lsm9ds1_next_poll_us(const struct lsm9ds1 *g);
bool lsm9ds1_is_running(const struct lsm9ds1 *g);
bool lsm9ds1_last_sample(const struct lsm9ds1 *g, struct imu_sample *out);
const struct lsm9ds1_stats *lsm9ds1_stats(const struct lsm9ds1 *g);

/* ---- the magnetometer die ---- */

struct lsm9ds1_m_config {
	struct spi_dev *spi;
	uint32_t speed_hz;            /* 0: the device's own */
	enum rotation rotation;       /* die axes to body axes; must be set */
	uint16_t stuck_limit;         /* identical samples in a row; 0: 100 (1.25 s) */
};

struct lsm9ds1_m_stats {
	uint64_t samples;
	uint32_t bus_errors;
	uint32_t probe_failures;      /* WHO_AM_I_M reads that were not 0x3D */
	uint32_t config_errors;
	uint32_t stuck_events;
	uint32_t stale_events;        /* no new data for 200 ms */
	uint32_t setups;
};

struct lsm9ds1_m {
	struct lsm9ds1_m_config cfg;
	struct rotation_matrix rot;
	struct drv_startup start;
	int state;
	int fail_err;
	uint64_t next_us;
	uint64_t last_data_us;
	uint8_t who_am_i;
	uint8_t attempts;
	bool ever_ran;
	int16_t prev_raw[3];
	uint16_t stuck_run;
	bool have_last;
	struct mag_sample last;
	struct lsm9ds1_m_stats stats;
};

/* No bus traffic. -EINVAL for a NULL spi or an unset rotation. */
int lsm9ds1_m_init(struct lsm9ds1_m *m, const struct lsm9ds1_m_config *cfg);
/* As lsm9ds1_poll(), for the magnetometer die (WHO_AM_I_M 0x3D). */
int lsm9ds1_m_poll(struct lsm9ds1_m *m, uint64_t now_us, struct mag_sample *out);
uint64_t lsm9ds1_m_next_poll_us(const struct lsm9ds1_m *m);
bool lsm9ds1_m_is_running(const struct lsm9ds1_m *m);
bool lsm9ds1_m_last_sample(const struct lsm9ds1_m *m, struct mag_sample *out);
const struct lsm9ds1_m_stats *lsm9ds1_m_stats(const struct lsm9ds1_m *m);

#endif
