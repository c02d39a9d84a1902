// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Servo outputs on a kernel PWM chip as a board device (driver.h), on a
 * BOARD_DEV_SYSFS entry whose directory is the chip's
 * (/sys/class/pwm/pwmchip0). The board names the backend's constructor and
 * its refresh (.drv.rcout_sysfs, .drv.rcout_refresh: hal/linux's
 * rcout_pwm_sysfs), so only a board with such a chip links it.
 *
 * The main thread writes the outputs (flight code, through the struct rcout
 * this gives board_io) and, in this driver's task on the same thread at
 * every main wake, refreshes them: the Navio2's rcio module stops forwarding
 * the widths to its co-processor when nothing has been written for 100 ms
 * (rcio_pwm.c, armtimeout = HZ / 10), and the backend wants a call at least
 * every 10 ms. The main loop runs at the board's 400 Hz (50 Hz at the
 * least a configuration can set, still well inside the 100 ms). A failed
 * refresh is counted by the backend and as an error of the slot, which goes
 * unhealthy when no refresh has succeeded for DRV_SLOW_STALE_US.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/rcout.h"
#include "fulmar/sysfs.h"

struct servo_sysfs {
	struct rcout *out;
};

static int servo_sysfs_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct servo_sysfs *s = d->priv;
	const struct board_driver *cfg = &d->desc->drv;
	char why[160] = "";

	if (!cfg->rcout_sysfs || !cfg->rcout_refresh || !cfg->channels) {
		snprintf(err, err_len, "%s (%s): PWM-class outputs need a backend, its refresh and a "
			 "channel count", d->desc->name, d->desc->what);
		return -EINVAL;
	}
	int rc = cfg->rcout_sysfs(sysfs_path(d->handle), cfg->channels, &s->out, why, sizeof(why));
	if (rc) {
		snprintf(err, err_len, "%s (%s): %s", d->desc->name, d->desc->what,
			 why[0] ? why : strerror(-rc));
		return rc;
	}
	if (cfg->pwm_hz) {
		uint32_t mask = cfg->channels >= 32 ? UINT32_MAX : (1u << cfg->channels) - 1u;
		rc = rcout_set_rate(s->out, mask, cfg->pwm_hz);
		if (rc) {
			snprintf(err, err_len, "%s (%s): %u Hz: %s", d->desc->name, d->desc->what,
				 (unsigned int)cfg->pwm_hz, strerror(-rc));
			rcout_close(s->out);
			s->out = NULL;
			return rc;
		}
	}
	return 0;
}

/* main thread, every wake. */
static void servo_sysfs_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct servo_sysfs *s = d->priv;

	if (d->desc->drv.rcout_refresh(s->out, now_us) < 0)
		drv_error(d->slot);
	else
		drv_alive(d->slot, now_us);
}

static size_t servo_sysfs_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, "refresh", SCHED_MAIN, 0, servo_sysfs_task);
}

static struct rcout *servo_sysfs_outputs(struct drv_inst *d)
{
	return ((struct servo_sysfs *)d->priv)->out;
}

static void servo_sysfs_close(struct drv_inst *d)
{
	struct servo_sysfs *s = d->priv;

	rcout_close(s->out);
	s->out = NULL;
}

const struct driver servo_sysfs_driver = {
	.name = "PWM-class servo outputs", .buses = DRV_BUS(BOARD_DEV_SYSFS),
	.role = "servo output", .pass = 1, .priv_size = sizeof(struct servo_sysfs),
	.probe = servo_sysfs_probe, .bits = DRV_SENSOR_MOTOR_OUTPUTS,
	.stale_us = DRV_SLOW_STALE_US, .running_at_start = true, .tasks = servo_sysfs_tasks,
	.outputs = servo_sysfs_outputs, .close = servo_sysfs_close,
};
