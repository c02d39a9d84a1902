// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC receivers as board devices (driver.h), all on the rcin thread:
 *   rcin_pulse_driver  pulse capture (a GPIO edge line, the PRU's ring, the
 *                      Zynq's FIFO: the backend the board's entry names) into
 *                      the PPM-sum / SBUS / DSM decoders of src/rc;
 *   sbus_driver        SBUS bytes on a UART (100000 8E2, inverted by the board);
 *   dsm_driver         Spektrum bytes on a UART (115200 8N1).
 * A board has one RC input.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/rcin.h"
#include "fulmar/uart.h"
#include "rc/dsm.h"
#include "rc/input.h"
#include "rc/rc.h"
#include "rc/sbus.h"

#define RCIN_BATCH 64
#define RC_UART_READ 64

struct rc_dev {
	struct rcin *rcin;             /* pulse capture: the backend's handle */
	struct rc_input rc;
	struct rc_sbus sbus;
	struct rc_dsm dsm;
};

static void rc_out(struct drv_inst *d, const struct rc_frame *f, uint64_t now_us)
{
	if (drv_publish(d, SENSOR_RC, f) == 0) {
		drv_ok(d->slot, now_us, 1);
		drv_running(d->slot, true);
	} else {
		drv_error(d->slot);
	}
}

static int pulse_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct rc_dev *r = d->priv;
	const struct board_driver *s = &d->desc->drv;
	int rc = -EINVAL;
	if (d->desc->kind == BOARD_DEV_MMIO && s->rcin_mmio)
		rc = s->rcin_mmio(d->handle, s->mmio_off, &r->rcin);
	else if (d->desc->kind == BOARD_DEV_GPIO && s->rcin_gpio)
		rc = s->rcin_gpio(d->handle, &r->rcin);
	if (rc) {
		snprintf(err, err_len, "%s (%s): RC capture: %s", d->desc->name, d->desc->what,
			 strerror(-rc));
		return rc;
	}
	rc_input_init(&r->rc);
	return 0;
}

static void pulse_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct rc_dev *r = d->priv;
	struct rcin_pulse p[RCIN_BATCH];
	for (int reads = 0; reads < 16; reads++) {
		int n = rcin_read(r->rcin, p, RCIN_BATCH, now_us);
		if (n < 0) {
			drv_error(d->slot);
			return;
		}
		for (int i = 0; i < n; i++) {
			struct rc_frame f;
			if (rc_input_pulse(&r->rc, p[i].low_us, p[i].high_us, p[i].t_us, &f))
				rc_out(d, &f, now_us);
		}
		if (n < RCIN_BATCH)
			return;
	}
}

static size_t pulse_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_RCIN, 0, pulse_task);
}

static void pulse_close(struct drv_inst *d)
{
	struct rc_dev *r = d->priv;
	rcin_close(r->rcin);
	r->rcin = NULL;
}

const struct driver rcin_pulse_driver = {
	.name = "RC pulse capture", .buses = DRV_BUS(BOARD_DEV_GPIO) | DRV_BUS(BOARD_DEV_MMIO),
	.role = "RC input", .pass = 1, .priv_size = sizeof(struct rc_dev), .probe = pulse_probe,
	.bits = DRV_SENSOR_RC_RECEIVER, .stale_us = DRV_SLOW_STALE_US, .tasks = pulse_tasks,
	.close = pulse_close,
};

/* ---- serial receivers ---- */

static int serial_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct rc_dev *r = d->priv;
	(void)err;
	(void)err_len;
	rc_sbus_init(&r->sbus, false);
	rc_dsm_init(&r->dsm, false);
	return 0;
}

static void serial_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct rc_dev *r = d->priv;
	uint8_t buf[RC_UART_READ];
	for (int reads = 0; reads < 8; reads++) {
		int n = uart_read(d->handle, buf, sizeof(buf));
		if (n < 0) {
			drv_error(d->slot);
			return;
		}
		if (n == 0)
			return;
		struct rc_frame f;
		int k = d->drv == &sbus_driver ?
			rc_sbus_bytes(&r->sbus, buf, (size_t)n, now_us, &f) :
			rc_dsm_bytes(&r->dsm, buf, (size_t)n, now_us, &f);
		if (k > 0)
			rc_out(d, &f, now_us);
	}
}

static size_t serial_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_RCIN, 0, serial_task);
}

#define SERIAL_RC_DRIVER(what) { \
	.name = what, .buses = DRV_BUS(BOARD_DEV_UART), .role = "RC input", .pass = 1, \
	.priv_size = sizeof(struct rc_dev), .probe = serial_probe, \
	.bits = DRV_SENSOR_RC_RECEIVER, .stale_us = DRV_SLOW_STALE_US, .tasks = serial_tasks, \
}

const struct driver sbus_driver = SERIAL_RC_DRIVER("SBUS receiver");
const struct driver dsm_driver = SERIAL_RC_DRIVER("Spektrum receiver");
