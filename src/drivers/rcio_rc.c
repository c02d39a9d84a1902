// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the Navio2's RCIO co-processor as a board device (driver.h),
 * on a BOARD_DEV_SYSFS entry whose directory is the module's
 * (/sys/kernel/rcio). The co-processor decodes PPM or SBUS itself; Emlid's
 * rcio module (rcio_rcin.c) polls it every 10 ms and shows each channel's
 * width in microseconds as rcin/ch0..ch15 ("%d\n"), with rcin/connected
 * 0 or 1; when the co-processor reports no RC it sets every channel to 0.
 * ArduPilot's RCInput_Navio2.cpp reads ch0..ch7 the same way.
 *
 * Read on the io thread (sysfs reads, at its 50 Hz), which may log. The
 * promise is that of src/rc/rc.h: a frame is published only when every
 * read succeeded and made sense; otherwise nothing is published, the read is
 * counted by its cause (rcio_rc_stats) and as an error of the slot, and the
 * plane's RC failsafe sees the frames stop, as it would see a receiver go
 * quiet. A cause is logged once when it starts and once when frames resume.
 *
 * Widths that do not change are not a fault: on SBUS a transmitter whose
 * sticks sit still sends the same values bit for bit, for minutes in AUTO,
 * and taking that for a lost link would end the mission in an RC failsafe.
 * The co-processor's own word on the signal (rcin/connected) and on itself
 * (status/alive) is what says the link is gone, as for ArduPilot's navio2.
 */
#define LOG_TAG "rcio"
#include "drivers/rcio_rc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/sysfs.h"
#include "rc/rc.h"
#include "util/log.h"

struct rcio_rc {
	const char *alive;             /* the liveness file this module has, or NULL */
	char what[48];                 /* the file and text behind the last fault, for the log */
	struct rcio_rc_stats stats;
};

/* Names of the module's liveness file: newer, then older rcio modules. */
static const char *const alive_names[] = { "status/alive", "status.alive", "status/status.alive" };

static const char *fault_text(enum rcio_rc_fault f)
{
	switch (f) {
	case RCIO_RC_OK: return "frames";
	case RCIO_RC_DEAD: return "the RCIO co-processor does not answer";
	case RCIO_RC_NO_SIGNAL: return "no RC signal";
	case RCIO_RC_READ_ERROR: return "a file would not read";
	case RCIO_RC_GARBAGE: return "a file holds no number";
	case RCIO_RC_RANGE: return "a width out of range, or after a missing channel";
	case RCIO_RC_FAULT_COUNT: break;
	}
	return "?";
}

/* A whole decimal number with sysfs's newline; -EBADMSG otherwise. */
static int parse_int(const char *s, long *v)
{
	char *end;

	errno = 0;
	long x = strtol(s, &end, 10);
	if (end == s || errno)
		return -EBADMSG;
	if (*end == '\n')
		end++;
	if (*end)
		return -EBADMSG;
	*v = x;
	return 0;
}

/* One file's number; a fault (and what for the log) when it is not one. */
static enum rcio_rc_fault read_num(struct drv_inst *d, const char *name, long *v)
{
	struct rcio_rc *r = d->priv;
	char buf[24];

	int n = sysfs_read(d->handle, name, buf, sizeof(buf));
	if (n < 0) {
		snprintf(r->what, sizeof(r->what), "%s: %s", name, strerror(-n));
		return RCIO_RC_READ_ERROR;
	}
	if (parse_int(buf, v)) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(r->what, sizeof(r->what), "%s holds '%.12s'", name, buf);
		return RCIO_RC_GARBAGE;
	}
	return RCIO_RC_OK;
}

static enum rcio_rc_fault read_frame(struct drv_inst *d, uint64_t now_us, struct rc_frame *f)
{
	struct rcio_rc *r = d->priv;
	enum rcio_rc_fault e;
	long v;

	r->what[0] = '\0';
	if (r->alive) {
		if ((e = read_num(d, r->alive, &v)) != RCIO_RC_OK)
			return e;
		if (v == 0)
			return RCIO_RC_DEAD;
	}
	if ((e = read_num(d, "rcin/connected", &v)) != RCIO_RC_OK)
		return e;
	if (v == 0)
		return RCIO_RC_NO_SIGNAL;

	uint16_t w[RCIO_RC_CHANNELS];
	unsigned int n = 0;
	for (unsigned int i = 0; i < RCIO_RC_CHANNELS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "rcin/ch%u", i);
		if ((e = read_num(d, name, &v)) != RCIO_RC_OK)
			return e;
		/* 0: a channel the receiver does not send; they come after the ones it does. */
		if (v != 0 && (v < RCIO_RC_PULSE_MIN_US || v > RCIO_RC_PULSE_MAX_US || n < i)) {
			snprintf(r->what, sizeof(r->what), "%s holds %ld", name, v);
			return RCIO_RC_RANGE;
		}
		w[i] = (uint16_t)v;
		n += v != 0;
	}
	if (n < RCIO_RC_MIN_CHANNELS)
		return RCIO_RC_NO_SIGNAL;


	memset(f, 0, sizeof(*f));
	f->timestamp_us = now_us;
	f->channel_count = (uint8_t)n;
	f->protocol = RC_PROTOCOL_RCIO;
	for (unsigned int i = 0; i < n; i++)
		f->channels_us[i] = w[i] < RC_CHANNEL_MIN_US ? RC_CHANNEL_MIN_US :
				    w[i] > RC_CHANNEL_MAX_US ? RC_CHANNEL_MAX_US : w[i];
	return RCIO_RC_OK;
}

static void report(struct drv_inst *d, enum rcio_rc_fault e)
{
	struct rcio_rc *r = d->priv;

	if (e == r->stats.fault)
		return;
	if (e == RCIO_RC_OK)
		log_info("%s (%s): RC frames again after %s", d->desc->name, d->desc->what,
			 fault_text(r->stats.fault));
	else
		log_warn("%s (%s): %s%s%s%s: RC taken as lost", d->desc->name, d->desc->what,
			 fault_text(e), r->what[0] ? " (" : "", r->what, r->what[0] ? ")" : "");
	r->stats.fault = e;
}

/* io thread. */
static void rcio_rc_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct rcio_rc *r = d->priv;
	struct rc_frame f;

	enum rcio_rc_fault e = read_frame(d, now_us, &f);
	report(d, e);
	if (e != RCIO_RC_OK) {
		r->stats.faults[e]++;
		drv_error(d->slot);
		return;
	}
	if (drv_publish(d, SENSOR_RC, &f) == 0) {
		r->stats.frames++;
		drv_ok(d->slot, now_us, 1);
		drv_running(d->slot, true);
	} else {
		drv_error(d->slot);
	}
}

/* The module's files must be there at start-up; no signal yet is fine. */
static int rcio_rc_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct rcio_rc *r = d->priv;
	char buf[24];
	const char *dir = sysfs_path(d->handle);

	for (unsigned int i = 0; i <= RCIO_RC_CHANNELS; i++) {
		char name[16];
		if (i == RCIO_RC_CHANNELS)
			snprintf(name, sizeof(name), "rcin/connected");
		else
			snprintf(name, sizeof(name), "rcin/ch%u", i);
		int n = sysfs_read(d->handle, name, buf, sizeof(buf));
		if (n < 0) {
			snprintf(err, err_len, "%s (%s): %s/%s: %s (is Emlid's rcio module loaded?)",
				 d->desc->name, d->desc->what, dir, name, strerror(-n));
			return n;
		}
	}
	for (size_t i = 0; i < sizeof(alive_names) / sizeof(alive_names[0]) && !r->alive; i++)
		if (sysfs_read(d->handle, alive_names[i], buf, sizeof(buf)) >= 0)
			r->alive = alive_names[i];
	if (!r->alive)
		log_warn("%s (%s): %s has no status/alive: the co-processor's liveness is not "
			 "checked, only rcin/connected", d->desc->name, d->desc->what,
			 dir);
	return 0;
}

static size_t rcio_rc_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_IO, 0, rcio_rc_task);
}

const struct rcio_rc_stats *rcio_rc_stats(const struct drv_inst *d)
{
	return &((const struct rcio_rc *)d->priv)->stats;
}

const struct driver rcio_rc_driver = {
	.name = "RCIO RC input", .buses = DRV_BUS(BOARD_DEV_SYSFS), .role = "RC input",
	.pass = 1, .priv_size = sizeof(struct rcio_rc), .probe = rcio_rc_probe,
	.bits = DRV_SENSOR_RC_RECEIVER, .stale_us = DRV_SLOW_STALE_US, .tasks = rcio_rc_tasks,
};
