// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/buzzer.h"

#include <stdio.h>

#include "drivers/drivers.h"
#include "fulmar/gpio.h"
#include "param/param.h"
#include "rc/rc.h"

/* On, off, on, ... durations in ms, 0-terminated. */
static const uint16_t tune_startup[] = { 100, 50, 100, 50, 300, 0 };
static const uint16_t tune_disarm[] = { 100, 100, 100, 0 };
static const uint16_t tune_arm[] = { 500, 0 };
static const uint16_t tune_low_battery[] = { 50, 50, 50, 50, 50, 50, 50, 0 };
static const uint16_t tune_failsafe[] = { 200, 200, 200, 200, 200, 0 };

static const uint16_t *const tunes[BUZZER_TUNE_COUNT] = {
	[BUZZER_TUNE_STARTUP] = tune_startup,
	[BUZZER_TUNE_DISARM] = tune_disarm,
	[BUZZER_TUNE_ARM] = tune_arm,
	[BUZZER_TUNE_LOW_BATTERY] = tune_low_battery,
	[BUZZER_TUNE_FAILSAFE] = tune_failsafe,
};

#define LOW_BATTERY_US 3000000u
#define RC_LOST_US 1500000u
#define REPEAT_LOW_US 5000000u
#define REPEAT_FAILSAFE_US 2000000u

static void tone_set(struct drv_inst *d, bool on)
{
	struct buzzer *t = d->priv;
	if (gpio_set(d->handle, on ? 1 : 0))
		t->gpio_errors++;
}

static void tone_start(struct drv_inst *d, enum buzzer_tune tune, uint64_t now_us)
{
	struct buzzer *t = d->priv;
	t->playing = tune;
	t->step = 0;
	t->step_end_us = now_us + (uint64_t)tunes[tune][0] * 1000u;
	t->plays[tune]++;
	t->again_us[tune] = now_us + (tune == BUZZER_TUNE_LOW_BATTERY ? REPEAT_LOW_US :
				      REPEAT_FAILSAFE_US);
	tone_set(d, true);
}

/* A tune starts over anything less urgent; otherwise it is dropped (or retried, if it repeats). */
static void tone_want(struct drv_inst *d, enum buzzer_tune tune, uint64_t now_us)
{
	struct buzzer *t = d->priv;
	if (t->playing == BUZZER_TUNE_NONE || tune >= t->playing)
		tone_start(d, tune, now_us);
}

/* Tone thread, 100 Hz. */
static void tone_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct buzzer *t = d->priv;
	const struct drv_host *h = d->host;
	if (!t->started) {
		t->started = true;
		tone_want(d, BUZZER_TUNE_STARTUP, now_us);
	}
	bool armed = h->armed(h->ctx);
	if (armed != t->armed) {
		t->armed = armed;
		tone_want(d, armed ? BUZZER_TUNE_ARM : BUZZER_TUNE_DISARM, now_us);
	}
	struct battery_sample bat;
	float low_v = t->p_low_volt >= 0 ? param_get(t->p_low_volt) : 0.0f;
	bool under = low_v > 0.0f && h->latest(h->ctx, SENSOR_BATTERY, &bat) &&
		     bat.voltage_v < low_v;
	if (!under)
		t->low_since_us = 0;
	else if (!t->low_since_us)
		t->low_since_us = now_us;
	t->low = under && now_us - t->low_since_us >= LOW_BATTERY_US;
	struct rc_frame rc;
	t->failsafe = h->latest(h->ctx, SENSOR_RC, &rc) &&
		      (rc.failsafe || now_us - rc.timestamp_us > RC_LOST_US);
	if (t->failsafe && t->playing != BUZZER_TUNE_FAILSAFE &&
	    now_us >= t->again_us[BUZZER_TUNE_FAILSAFE])
		tone_want(d, BUZZER_TUNE_FAILSAFE, now_us);
	else if (t->low && t->playing != BUZZER_TUNE_LOW_BATTERY &&
		 now_us >= t->again_us[BUZZER_TUNE_LOW_BATTERY])
		tone_want(d, BUZZER_TUNE_LOW_BATTERY, now_us);

	if (t->playing == BUZZER_TUNE_NONE || now_us < t->step_end_us)
		return;
	const uint16_t *pat = tunes[t->playing];
	if (pat[t->step + 1] == 0) {
		tone_set(d, false);
		t->playing = BUZZER_TUNE_NONE;
		return;
	}
	t->step++;
	tone_set(d, t->step % 2 == 0);
	t->step_end_us = now_us + (uint64_t)pat[t->step] * 1000u;
}

static int buzzer_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct buzzer *t = d->priv;
	(void)err;
	(void)err_len;
	t->p_low_volt = param_find("FS_BATT_VOLTAGE");
	return 0;
}

static size_t buzzer_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_TONE, 0, tone_task);
}

static void buzzer_close(struct drv_inst *d)
{
	gpio_set(d->handle, 0);
}

const struct buzzer *buzzer_of(const struct drv_inst *d)
{
	return d->priv;
}

const struct driver buzzer_driver = {
	.name = "buzzer", .buses = DRV_BUS(BOARD_DEV_GPIO), .role = "buzzer", .pass = 1,
	.priv_size = sizeof(struct buzzer), .probe = buzzer_probe, .tasks = buzzer_tasks,
	.close = buzzer_close,
};
