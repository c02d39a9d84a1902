/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * InvenSense MPU6000 and MPU9250 (and MPU9255) accelerometer + gyroscope on SPI
 * or I2C, read through the chip's FIFO.
 *
 * The driver is a state machine over a caller-owned struct mpu. It never
 * sleeps and never reads a clock: every call takes now_us (CLOCK_MONOTONIC,
 * microseconds) and does a bounded amount of bus work. Set-up (probe by
 * WHO_AM_I, reset, 100 ms + 100 ms of reset waits, configuration, read-back
 * check) runs inside mpu_poll() across calls, so the timer thread can call
 * mpu_poll() every millisecond from the start; calls before
 * mpu_next_poll_us() return 0 without touching the bus.
 *
 * Configuration: gyro +-2000 deg/s (16.4 LSB per deg/s), accel +-16 g
 * (2048 LSB/g), the chip's low-pass filter as chosen, sample rate
 * 1 kHz / (1 + SMPLRT_DIV), FIFO with accel + temperature + gyro (14-byte
 * frames) or accel + gyro (12 bytes; temperature then comes from TEMP_OUT).
 *
 * Each running poll makes two SPI kernel calls: one batch reading INT_STATUS,
 * TEMP_OUT, FIFO_COUNT and one configuration register (round robin, checked
 * against what was written: a chip that lost power or was reset shows up
 * here), then one burst read of the whole frames waiting in the FIFO.
 * Registers other than the sensor, interrupt and FIFO registers are accessed
 * at setup_speed_hz, as the datasheets require (1 MHz).
 *
 * Errors are data: a failed transfer is counted, mpu_poll() returns its
 * -errno, and the last good sample stays readable with its time. A FIFO
 * overflow (INT_STATUS.FIFO_OFLOW or a full count), misaligned frames (a
 * frame whose temperature is far from TEMP_OUT, or a count that is not whole
 * frames for long) and stuck data (identical frames for stuck_limit samples)
 * are counted and recovered from: the FIFO is reset, or, when registers no
 * longer read back as written or data is stuck, the whole set-up runs again.
 *
 * On I2C (BeagleBone Blue) the same register traffic goes as one I2C
 * transaction per SPI chip-select transaction, so a poll takes up to five
 * (status) plus one (FIFO) kernel calls. The chip's I2C interface stays on
 * and its bypass is enabled (INT_PIN_CFG.BYPASS_EN, register map 4.15), as
 * ArduPilot's Invensense driver does on I2C: the AK8963 inside an MPU9250
 * then answers on the host's bus at 0x0C and is driven by ak8963.h, not
 * through the auxiliary master (aux_ak8963 is refused on I2C).
 *
 * Magnetometer: with aux_ak8963 the driver also runs an AK8963 on the
 * chip's auxiliary I2C bus (the one inside the MPU9250; Navio). Its set-up
 * (soft reset, WIA, fuse-ROM ASA, 16-bit continuous 100 Hz) goes through the
 * I2C master's slave-4 channel, one transaction per call, each checked on
 * the next; then slave 0 reads ST1..ST2 at every sample into the FIFO, so
 * each FIFO frame carries the magnetometer's state at that sample and a new
 * measurement is seen exactly once. Field in microtesla as ak8963.h
 * describes; mpu_mag_sample() hands it out. A magnetometer that does not
 * answer is counted and left out; the IMU runs on without it.
 *
 * Thread: one struct mpu belongs to the thread that owns its bus (the
 * timer thread). No allocation; the FIFO buffer is inside the struct.
 */
#ifndef FULMAR_DRIVERS_MPU_H
#define FULMAR_DRIVERS_MPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/rotation.h"
#include "drivers/sensor_sample.h"

struct i2c_bus;
struct spi_dev;

enum mpu_chip {
	MPU_CHIP_MPU6000 = 1,     /* WHO_AM_I 0x68 */
	MPU_CHIP_MPU9250,         /* WHO_AM_I 0x71; the MPU9255 (0x73) is driven the same way */
};

/* DLPF_CFG 1..6; bandwidths of the gyro path (MPU6000 / MPU9250). */
enum mpu_dlpf {
	MPU_DLPF_188HZ = 1,       /* 188 / 184 Hz */
	MPU_DLPF_98HZ,            /* 98 / 92 Hz */
	MPU_DLPF_42HZ,            /* 42 / 41 Hz */
	MPU_DLPF_20HZ,
	MPU_DLPF_10HZ,
	MPU_DLPF_5HZ,
};

struct mpu_config {
	struct spi_dev *spi;      /* the chip's bus: spi, or i2c at i2c_addr */
	struct i2c_bus *i2c;
	uint8_t i2c_addr;         /* 7-bit: 0x68 with AD0 low, 0x69 high */
	uint32_t setup_speed_hz;  /* configuration registers; 0: 1 MHz */
	uint32_t read_speed_hz;   /* sensor, interrupt, FIFO registers; 0: 1 MHz (up to 20 MHz) */
	enum rotation rotation;   /* chip axes to body axes; must be set */
	enum mpu_dlpf dlpf;       /* 0: MPU_DLPF_188HZ */
	uint16_t rate_hz;         /* 1000 / n for n = 1..256; 0: 1000 */
	bool fifo_without_temp;   /* 12-byte frames: less SPI traffic, no misalignment check */
	uint16_t stuck_limit;     /* identical frames in a row that mean stuck data; 0: 250 */
	bool aux_ak8963;          /* an AK8963 on the auxiliary I2C bus (inside an MPU9250) */
	/*
	 * AK8963 axes to body axes; must be set with aux_ak8963. Inside an
	 * MPU9250: rotation_compose(ROTATION_ROLL_180_YAW_90, rotation).
	 */
	enum rotation mag_rotation;
};

/* Counters only grow; read them from the owning thread. */
struct mpu_stats {
	uint64_t samples;         /* handed out */
	uint32_t bus_errors;      /* failed bus calls */
	uint32_t fifo_overflows;  /* FIFO resets after an overflow */
	uint32_t fifo_misaligned; /* FIFO resets after frames failed the temperature check */
	uint32_t config_errors;   /* registers that no longer read back as written */
	uint32_t stuck_events;    /* runs of stuck_limit identical frames */
	uint32_t setups;          /* set-ups started (1 + recoveries) */
	uint32_t probe_failures;  /* WHO_AM_I reads that named no supported chip */
	uint64_t mag_samples;
	uint32_t mag_overflows;   /* AK8963 samples dropped for ST2.HOFL */
	uint32_t mag_errors;      /* AK8963 set-ups that failed, samples not in 16-bit mode */
};

/*
 * Most frames one poll can return (the MPU6000's 1024-byte FIFO of 12-byte
 * frames): an out array this long never leaves data behind.
 */
#define MPU_MAX_FRAMES 85
#define MPU_FIFO_BYTES_MAX 1024
#define MPU_CHECK_REGS_MAX 16

struct mpu {
	struct mpu_config cfg;
	struct rotation_matrix rot;
	enum mpu_chip chip;
	int state;
	int fail_err;
	uint64_t next_us;
	uint32_t period_us;
	uint16_t fifo_size;
	uint8_t frame_len;
	uint8_t who_am_i;
	uint8_t attempts;
	bool ever_ran;
	uint8_t check_idx;
	uint8_t check_count;
	uint8_t check_reg[MPU_CHECK_REGS_MAX];
	uint8_t check_val[MPU_CHECK_REGS_MAX];
	uint8_t partial_polls;
	int16_t prev_raw[6];
	uint16_t stuck_run;
	uint64_t last_t_us;
	bool have_last;
	struct imu_sample last;
	/* The AK8963 on the auxiliary bus. */
	struct rotation_matrix mag_rot;
	bool mag_active;
	bool mag_failed;
	uint8_t aux_op;
	uint8_t aux_checks;
	uint8_t asa[3];
	float mag_scale_ut[3];
	uint32_t mag_seq;
	struct mag_sample mag;
	struct mpu_stats stats;
	uint8_t buf[MPU_FIFO_BYTES_MAX];
};

/*
 * Stores the configuration; no bus traffic. Returns 0, or -EINVAL for
 * neither or both of spi and i2c, aux_ak8963 on i2c, an unset or unknown
 * rotation (or mag_rotation with aux_ak8963) or dlpf, or a rate that is not
 * 1000 / n.
 */
int mpu_init(struct mpu *m, const struct mpu_config *cfg);

/*
 * Advances set-up or reads the FIFO. Writes up to max samples, oldest first,
 * to out and returns how many (0 while setting up or when nothing is new).
 * Samples are spaced by mpu_sample_period_us(); the newest is stamped now_us
 * and older ones one period apart before it (never earlier than a sample
 * already handed out). Returns -errno from the bus on a failed transfer,
 * -ESTALE when data is stuck (a new set-up follows; out is not valid), and
 * -ENODEV (every call from then on, without bus traffic) when at start-up the
 * chip never identified itself as a supported MPU or could not be
 * configured. Once a chip has run, it is never given up on: set-up repeats
 * until it answers again.
 */
int mpu_poll(struct mpu *m, uint64_t now_us, struct imu_sample *out, size_t max);

/* When mpu_poll() next has work to do. */
uint64_t mpu_next_poll_us(const struct mpu *m);
bool mpu_is_running(const struct mpu *m);
/* The chip found by the probe; 0 before. */
enum mpu_chip mpu_chip(const struct mpu *m);
uint32_t mpu_sample_period_us(const struct mpu *m);
/* The last sample handed out, with its time; false before the first. */
bool mpu_last_sample(const struct mpu *m, struct imu_sample *out);
/*
 * The newest AK8963 sample (aux_ak8963) and how many there have been: a
 * caller that remembers the count knows whether it is new. 0 (and out
 * untouched) before the first.
 */
uint32_t mpu_mag_sample(const struct mpu *m, struct mag_sample *out);
/* Whether the AK8963 on the auxiliary bus is set up and read. */
bool mpu_mag_is_running(const struct mpu *m);
const struct mpu_stats *mpu_stats(const struct mpu *m);

struct drv_inst;
/* The MPU of a board device driven by mpu6000_driver or mpu9250_driver (tests, reports). */
struct mpu *mpu_of(struct drv_inst *d);

#endif
