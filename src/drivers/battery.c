// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An analog battery monitor as board devices (driver.h): the voltage input
 * (batt_volt_driver) and, optionally, the current input (batt_curr_driver),
 * read together on the io thread at 10 Hz. The scales are ArduPilot's
 * parameters, BATT_VOLT_MULT, BATT_AMP_PERVLT and BATT_AMP_OFFSET; while a
 * scale is left at 0 the board's own figure (.drv.scale) stands. The
 * current is integrated into the consumed charge.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "drivers/drivers.h"
#include "fulmar/analog.h"
#include "param/param.h"

struct battery_dev {
	float v_board;                 /* the board's volts per ADC volt */
	int p_volt_mult, p_amp_pervlt, p_amp_offset;
	struct analog_in *curr;        /* the current input, if the board has one */
	float i_board;                 /* its amps per ADC volt */
	float consumed_mah;
	uint64_t last_us;
};

static float param_or(int idx, float board_figure)
{
	float v = idx >= 0 ? param_get(idx) : 0.0f;
	return v > 0.0f ? v : board_figure;
}

static float board_scale(const struct drv_inst *d)
{
	return d->desc->drv.scale > 0.0f ? d->desc->drv.scale : 1.0f;
}

static int volt_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct battery_dev *b = d->priv;
	(void)err;
	(void)err_len;
	b->v_board = board_scale(d);
	b->p_volt_mult = param_find("BATT_VOLT_MULT");
	b->p_amp_pervlt = param_find("BATT_AMP_PERVLT");
	b->p_amp_offset = param_find("BATT_AMP_OFFSET");
	return 0;
}

/* io thread, 10 Hz. */
static void battery_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct battery_dev *b = d->priv;
	double mv;
	if (analog_read(d->handle, &mv)) {
		drv_error(d->slot);
		return;
	}
	struct battery_sample s = { .t_us = now_us, .current_a = NAN, .consumed_mah = NAN };
	s.voltage_v = (float)(mv / 1000.0) * param_or(b->p_volt_mult, b->v_board);
	if (b->curr) {
		double mv_i;
		if (analog_read(b->curr, &mv_i) == 0) {
			float off = b->p_amp_offset >= 0 ? param_get(b->p_amp_offset) : 0.0f;
			float a = ((float)(mv_i / 1000.0) - off) * param_or(b->p_amp_pervlt, b->i_board);
			s.current_a = a;
			if (b->last_us && now_us > b->last_us)
				b->consumed_mah += a * (float)(now_us - b->last_us) / 3.6e6f;
			b->last_us = now_us;
			s.consumed_mah = b->consumed_mah;
		} else {
			drv_error(d->slot);
		}
	}
	if (drv_publish(d, SENSOR_BATTERY, &s) == 0) {
		drv_ok(d->slot, now_us, 1);
		drv_running(d->slot, true);
	} else {
		drv_error(d->slot);
	}
}

static size_t volt_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_IO, 10, battery_task);
}

const struct driver batt_volt_driver = {
	.name = "battery voltage", .buses = DRV_BUS(BOARD_DEV_ANALOG), .role = "battery voltage",
	.pass = 1, .priv_size = sizeof(struct battery_dev), .probe = volt_probe,
	.bits = DRV_SENSOR_BATTERY, .stale_us = DRV_SLOW_STALE_US, .tasks = volt_tasks,
};

/* Opened after every voltage input (pass 2): it is read with its voltage. */
static int curr_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct drv_inst *v = d->host->instance_of(d->host->ctx, &batt_volt_driver);
	if (!v) {
		snprintf(err, err_len, "%s (%s): a battery current input without a voltage one",
			 d->desc->name, d->desc->what);
		return -EINVAL;
	}
	struct battery_dev *b = v->priv;
	b->curr = d->handle;
	b->i_board = board_scale(d);
	return 0;
}

const struct driver batt_curr_driver = {
	.name = "battery current", .buses = DRV_BUS(BOARD_DEV_ANALOG), .role = "battery current",
	.pass = 2, .probe = curr_probe,
};
