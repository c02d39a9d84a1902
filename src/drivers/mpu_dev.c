// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MPU6000 and MPU9250 as board devices (src/drivers/driver.h): the
 * register-level driver is mpu.c. The board's first IMU feeds the estimator
 * on every wake of the timer thread; a second one is read at 200 Hz and
 * watched (its FIFO must not overflow), not fused. An MPU9250 that is the
 * first IMU runs its AK8963 on its auxiliary I2C master when the board says
 * so: the compass comes up after the IMU, and one that does not answer is
 * said, not fatal. On I2C (the MPU9250 of the BeagleBone Blue) the chip's
 * bypass is on and its AK8963 is a board entry of its own (ak8963_driver).
 */
#define LOG_TAG "board"
#include "drivers/mpu.h"

#include <errno.h>
#include <stdio.h>

#include "drivers/drivers.h"
#include "util/log.h"

/* The AK8963 inside an MPU9250 has its own axes (ak8963.h). */
#define AK8963_IN_MPU9250 ROTATION_ROLL_180_YAW_90

#define SECOND_IMU_HZ 200

struct mpu_dev {
	struct mpu m;
	struct imu_sample buf[MPU_MAX_FRAMES];
	bool aux;                     /* its AK8963 is read through it */
	struct drv_slot *mag_slot;
	uint32_t mag_seen;
	char mag_label[40];
};

struct mpu *mpu_of(struct drv_inst *d)
{
	return &((struct mpu_dev *)d->priv)->m;
}

static int mpu_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct mpu_dev *p = d->priv;
	const struct board_driver *s = &d->desc->drv;
	enum rotation rot = s->rotation ? (enum rotation)s->rotation : ROTATION_NONE;
	p->aux = s->aux_mag && d->role_index == 0 && d->drv == &mpu9250_driver;
	bool spi = d->desc->kind == BOARD_DEV_SPI;
	struct mpu_config cfg = {
		.spi = spi ? d->handle : NULL,
		.i2c = spi ? NULL : d->handle,
		.i2c_addr = spi ? 0 : d->desc->u.i2c.addr,
		.setup_speed_hz = s->setup_speed_hz,
		.read_speed_hz = spi ? d->desc->u.spi.cfg.speed_hz : 0,
		.rotation = rot,
		.rate_hz = (uint16_t)(s->rate_hz ? s->rate_hz : d->host->board->imu_rate_hz),
		.aux_ak8963 = p->aux,
		.mag_rotation = p->aux ? rotation_compose(AK8963_IN_MPU9250, rot) : 0,
	};
	if (mpu_init(&p->m, &cfg)) {
		snprintf(err, err_len, "%s (%s): IMU settings refused (rotation %d, rate %u Hz)",
			 d->desc->name, d->desc->what, s->rotation, cfg.rate_hz);
		return -EINVAL;
	}
	return 0;
}

static int mpu_dev_setup(struct drv_inst *d, uint64_t now_us)
{
	struct mpu_dev *p = d->priv;
	int n = mpu_poll(&p->m, now_us, p->buf, MPU_MAX_FRAMES);
	if (n < 0)
		return n;
	return mpu_is_running(&p->m) ? 1 : 0;
}

static uint64_t mpu_dev_next(const struct drv_inst *d)
{
	return mpu_next_poll_us(&((const struct mpu_dev *)d->priv)->m);
}

static void mpu_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	snprintf(buf, len, " to WHO_AM_I (read 0x%02x)",
		 ((const struct mpu_dev *)d->priv)->m.who_am_i);
}

/* The AK8963 behind an MPU9250 comes up after the IMU. */
static int mpu_mag_setup(struct drv_inst *d, uint64_t now_us)
{
	struct mpu_dev *p = d->priv;
	int n = mpu_poll(&p->m, now_us, p->buf, MPU_MAX_FRAMES);
	if (n < 0 && n != -EIO)
		return n;
	if (mpu_mag_is_running(&p->m))
		return 1;
	return mpu_stats(&p->m)->mag_errors ? -ENODEV : 0;
}

static const struct driver mpu_mag_part = {
	.name = "AK8963", .setup = mpu_mag_setup, .next_us = mpu_dev_next,
};

static int mpu_dev_start(struct drv_inst *d, char *err, size_t err_len)
{
	struct mpu_dev *p = d->priv;
	enum mpu_chip want = d->drv == &mpu6000_driver ? MPU_CHIP_MPU6000 : MPU_CHIP_MPU9250;
	if (mpu_chip(&p->m) != want)
		log_warn("%s (%s): WHO_AM_I 0x%02x is another MPU than the board says; driving it",
			 d->desc->name, d->desc->what, p->m.who_am_i);
	if (!p->aux)
		return 0;
	int last = 0;
	if (d->host->run_setup(d->host->ctx, d, &mpu_mag_part, &last)) {
		log_warn("%s (%s): its AK8963 magnetometer does not answer; flying without",
			 d->desc->name, d->desc->what);
		return 0;
	}
	snprintf(p->mag_label, sizeof(p->mag_label), "%s.mag", d->desc->name);
	p->mag_slot = d->host->add_slot(d->host->ctx, d, p->mag_label, DRV_SENSOR_MAG,
					DRV_SENSOR_MAG2, DRV_SLOW_STALE_US);
	if (!p->mag_slot) {
		snprintf(err, err_len, "%s: no room for its compass's health", d->desc->name);
		return -E2BIG;
	}
	drv_running(p->mag_slot, true);
	return 0;
}

/* Timer thread: the FIFO read each wake, every sample to the estimator's ring. */
static void mpu_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct mpu_dev *p = d->priv;
	int n = mpu_poll(&p->m, now_us, p->buf, MPU_MAX_FRAMES);
	if (n < 0) {
		drv_error(d->slot);
	} else if (n > 0) {
		uint64_t ok = 0;
		for (int i = 0; i < n; i++)
			ok += drv_publish(d, SENSOR_IMU, &p->buf[i]) == 0;
		if (ok)
			drv_ok(d->slot, now_us, ok);
		if (ok < (uint64_t)n)
			atomic_fetch_add_explicit(&d->slot->errors, (uint64_t)n - ok,
						  memory_order_relaxed);
	}
	drv_running(d->slot, mpu_is_running(&p->m));
	if (p->mag_slot) {
		struct mag_sample mag;
		uint32_t c = mpu_mag_sample(&p->m, &mag);
		if (c != p->mag_seen) {
			p->mag_seen = c;
			if (drv_publish(d, SENSOR_MAG, &mag) == 0)
				drv_ok(p->mag_slot, now_us, 1);
			else
				drv_error(p->mag_slot);
		}
		drv_running(p->mag_slot, mpu_mag_is_running(&p->m));
	}
}

/* A second IMU: read and watched. */
static void mpu_watch_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct mpu_dev *p = d->priv;
	int n = mpu_poll(&p->m, now_us, p->buf, MPU_MAX_FRAMES);
	if (n < 0)
		drv_error(d->slot);
	else if (n > 0)
		drv_ok(d->slot, now_us, (uint64_t)n);
	drv_running(d->slot, mpu_is_running(&p->m));
}

static size_t mpu_dev_tasks(struct drv_inst *d, struct sched_task out[2])
{
	if (d->role_index == 0)
		return drv_task(d, out, 0, NULL, SCHED_TIMER, 0, mpu_task);
	return drv_task(d, out, 0, NULL, SCHED_TIMER, SECOND_IMU_HZ, mpu_watch_task);
}

#define MPU_DRIVER(chip) { \
	.name = chip, .buses = DRV_BUS(BOARD_DEV_SPI) | DRV_BUS(BOARD_DEV_I2C), .role = "IMU", .max = 2, .pass = 0, \
	.priv_size = sizeof(struct mpu_dev), \
	.probe = mpu_dev_probe, .setup = mpu_dev_setup, .next_us = mpu_dev_next, \
	.setup_detail = mpu_dev_detail, \
	.bits = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL, .bits2 = DRV_SENSOR_GYRO2 | DRV_SENSOR_ACCEL2, \
	.stale_us = DRV_IMU_STALE_US, .running_at_start = true, \
	.start = mpu_dev_start, .tasks = mpu_dev_tasks, \
}

const struct driver mpu6000_driver = MPU_DRIVER("MPU6000");
const struct driver mpu9250_driver = MPU_DRIVER("MPU9250");
