// SPDX-License-Identifier: GPL-3.0-or-later
/* The set-up and the task of a polled chip (driver.h, struct drv_polled), and its start-up tries. */
#include <errno.h>
#include <stdio.h>

#include "drivers/driver.h"

union any_sample {
	struct imu_sample imu;
	struct baro_sample baro;
	struct mag_sample mag;
	struct airspeed_sample airspeed;
	struct range_sample range;
};

int drv_startup_failed(struct drv_startup *s, int err, uint64_t now_us, uint64_t *next_us)
{
	if (s->answered)
		return err;
	if (++s->tries >= DRV_STARTUP_TRIES) {
		s->absent = true;
		return -ENODEV;
	}
	*next_us = now_us + DRV_STARTUP_RETRY_US;
	return err;
}

int drv_polled_setup(struct drv_inst *d, uint64_t now_us)
{
	const struct drv_polled *p = d->drv->polled;
	union any_sample s;
	int rc = p->poll(d->priv, now_us, &s);
	if (rc == -EIO && p->eio_answers)
		return 0;
	if (rc < 0)
		return rc;
	if (!p->is_running)
		return rc;  /* a sample: it answers */
	return p->is_running(d->priv) ? 1 : 0;
}

uint64_t drv_polled_next(const struct drv_inst *d)
{
	return d->drv->polled->next_us(d->priv);
}

void drv_polled_detail(const struct drv_inst *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s", d->drv->polled->detail ? d->drv->polled->detail : "");
}

/* Timer thread: a poll when due, its sample into the hub. */
static void polled_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	const struct drv_polled *p = d->drv->polled;
	if (now_us < p->next_us(d->priv))
		return;
	union any_sample s;
	int rc = p->poll(d->priv, now_us, &s);
	if (rc < 0) {
		drv_error(d->slot);
	} else if (rc > 0) {
		if (drv_publish(d, p->kind, &s) == 0) {
			drv_ok(d->slot, now_us, 1);
			if (!p->is_running)
				drv_running(d->slot, true);
		} else {
			drv_error(d->slot);
		}
	}
	if (p->is_running)
		drv_running(d->slot, p->is_running(d->priv));
}

size_t drv_polled_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_TIMER, d->drv->polled->rate_hz, polled_task);
}
