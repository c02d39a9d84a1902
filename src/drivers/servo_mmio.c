// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Servo outputs from a memory-mapped block (the PRU's PWM firmware, the Zynq
 * PL's PWM) as a board device (driver.h): the backend the board's entry
 * names makes a struct rcout of the window, and the main thread writes it
 * directly. Nothing runs on another thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/rcout.h"

struct servo_mmio {
	struct rcout *out;
};

static int servo_mmio_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct servo_mmio *s = d->priv;
	const struct board_driver *cfg = &d->desc->drv;
	if (!cfg->rcout_mmio) {
		snprintf(err, err_len, "%s (%s): servo outputs need an MMIO window and a backend",
			 d->desc->name, d->desc->what);
		return -EINVAL;
	}
	int rc = cfg->rcout_mmio(d->handle, cfg->mmio_off, &s->out);
	if (rc) {
		snprintf(err, err_len, "%s (%s): servo outputs: %s", d->desc->name, d->desc->what,
			 strerror(-rc));
		return rc;
	}
	if (cfg->pwm_hz)
		rcout_set_rate(s->out, UINT32_MAX, cfg->pwm_hz);
	return 0;
}

static struct rcout *servo_mmio_outputs(struct drv_inst *d)
{
	return ((struct servo_mmio *)d->priv)->out;
}

static void servo_mmio_close(struct drv_inst *d)
{
	struct servo_mmio *s = d->priv;
	rcout_close(s->out);
	s->out = NULL;
}

const struct driver servo_mmio_driver = {
	.name = "MMIO servo outputs", .buses = DRV_BUS(BOARD_DEV_MMIO), .role = "servo output",
	.pass = 1, .priv_size = sizeof(struct servo_mmio), .probe = servo_mmio_probe,
	.bits = DRV_SENSOR_MOTOR_OUTPUTS, .running_at_start = true,
	.outputs = servo_mmio_outputs, .close = servo_mmio_close,
};
