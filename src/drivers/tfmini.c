// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/tfmini.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/uart.h"

void tfmini_init(struct tfmini *t)
{
	memset(t, 0, sizeof(*t));
}

/* A whole frame with a good checksum: 1 and *out a reading, 0 refused. */
static int decode(struct tfmini *t, uint64_t now_us, struct range_sample *out)
{
	const uint8_t *f = t->frame;
	uint16_t cm = (uint16_t)(f[2] | f[3] << 8);
	uint16_t strength = (uint16_t)(f[4] | f[5] << 8);
	t->stats.frames++;
	struct range_sample r = { .t_us = now_us, .quality_pct = -1, .raw = cm };
	if (strength < TFMINI_MIN_STRENGTH || strength == 0xffff || cm == 0xffff) {
		t->stats.no_return++;
		r.reading = RANGE_READING_NO_RETURN;
	} else if (cm > TFMINI_MAX_CM) {
		t->stats.refused++;
		return 0;
	} else {
		r.reading = RANGE_READING_OK;
		r.distance_m = (float)cm * 0.01f;
	}
	*out = r;
	return 1;
}

size_t tfmini_feed(struct tfmini *t, const uint8_t *buf, size_t n, uint64_t now_us,
		   struct range_sample *out)
{
	size_t readings = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = buf[i];
		if (t->len < 2) {
			/* the two header bytes; a lone 0x59 followed by another byte is noise */
			if (c == TFMINI_HEADER) {
				t->frame[t->len++] = c;
			} else {
				t->stats.garbage += (uint32_t)t->len + 1;
				t->len = 0;
			}
			continue;
		}
		t->frame[t->len++] = c;
		if (t->len < TFMINI_FRAME_LEN)
			continue;
		t->len = 0;
		uint8_t sum = 0;
		for (size_t k = 0; k < TFMINI_FRAME_LEN - 1; k++)
			sum = (uint8_t)(sum + t->frame[k]);
		if (sum != t->frame[TFMINI_FRAME_LEN - 1]) {
			t->stats.bad_checksum++;
			/* a frame may start inside what was taken for this one */
			for (size_t k = 1; k + 1 < TFMINI_FRAME_LEN; k++) {
				if (t->frame[k] == TFMINI_HEADER && t->frame[k + 1] == TFMINI_HEADER) {
					t->len = TFMINI_FRAME_LEN - k;
					memmove(t->frame, t->frame + k, t->len);
					break;
				}
			}
			continue;
		}
		readings += (size_t)decode(t, now_us, out);
	}
	return readings;
}

const struct tfmini_stats *tfmini_stats(const struct tfmini *t)
{
	return &t->stats;
}

/*
 * ---- as a board device (driver.h): a TFmini on a UART, read by the uart thread ----
 * The set-up waits for the first good frame (2.5 s at most: a TFmini that
 * sends nothing stops start-up, as any chip that does not answer does); the
 * task reads what came each wake and publishes the latest reading. Frames
 * refused or with a bad checksum are counted as the device's errors.
 */

#define TFMINI_READ 256
#define SETUP_SILENCE_US 2500000u       /* inside board_io's 3 s: said as "no TFmini answers" */

struct tfmini_dev {
	struct tfmini parser;
	uint64_t next_us;
	uint64_t setup_from_us;           /* the set-up's first poll */
	uint32_t refused_seen;            /* stats.bad_checksum + refused, as counted */
};

static int tfmini_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct tfmini_dev *t = d->priv;
	(void)err;
	(void)err_len;
	tfmini_init(&t->parser);
	return 0;
}

/* Whatever came; 1 and *out the latest reading, 0 none, <0 from the port. */
static int tfmini_dev_read(struct drv_inst *d, uint64_t now_us, struct range_sample *out)
{
	struct tfmini_dev *t = d->priv;
	uint8_t buf[TFMINI_READ];
	size_t readings = 0;
	for (int reads = 0; reads < 8; reads++) {
		int n = uart_read(d->handle, buf, sizeof(buf));
		if (n < 0)
			return n;
		if (n == 0)
			break;
		readings += tfmini_feed(&t->parser, buf, (size_t)n, now_us, out);
		if ((size_t)n < sizeof(buf))
			break;
	}
	return readings > 0;
}

static int tfmini_dev_setup(struct drv_inst *d, uint64_t now_us)
{
	struct tfmini_dev *t = d->priv;
	struct range_sample r;
	if (!t->setup_from_us)
		t->setup_from_us = now_us;
	t->next_us = now_us + 10000;
	int rc = tfmini_dev_read(d, now_us, &r);
	if (rc == 0 && now_us - t->setup_from_us >= SETUP_SILENCE_US)
		return -ENODEV;
	return rc;
}

static uint64_t tfmini_dev_next(const struct drv_inst *d)
{
	return ((const struct tfmini_dev *)d->priv)->next_us;
}

static void tfmini_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	(void)d;
	snprintf(buf, len, " (no good frame at %u baud)", TFMINI_BAUD);
}

static void tfmini_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct tfmini_dev *t = d->priv;
	struct range_sample r;
	int rc = tfmini_dev_read(d, now_us, &r);
	if (rc < 0)
		drv_error(d->slot);
	const struct tfmini_stats *st = &t->parser.stats;
	uint32_t bad = st->bad_checksum + st->refused;
	for (; t->refused_seen != bad; t->refused_seen++)
		drv_error(d->slot);
	if (rc > 0) {
		if (drv_publish(d, SENSOR_RANGE, &r) == 0) {
			drv_ok(d->slot, now_us, 1);
			drv_running(d->slot, true);
		} else {
			drv_error(d->slot);
		}
	}
}

static size_t tfmini_dev_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_UART, 0, tfmini_task);
}

const struct driver tfmini_driver = {
	.name = "Benewake TFmini", .buses = DRV_BUS(BOARD_DEV_UART), .role = "rangefinder",
	.pass = 1, .priv_size = sizeof(struct tfmini_dev), .probe = tfmini_dev_probe,
	.setup = tfmini_dev_setup, .next_us = tfmini_dev_next, .setup_detail = tfmini_dev_detail,
	.bits = DRV_SENSOR_LASER_POSITION, .stale_us = DRV_SLOW_STALE_US,
	.tasks = tfmini_dev_tasks,
};
