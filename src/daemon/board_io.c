// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "board"
#include "daemon/board_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/flight.h"
#include "fulmar/clock.h"
#include "fulmar/gpio.h"
#include "util/log.h"

/* ---- SPI behind a GPIO chip select ---------------------------------------------------- */

static int spi_cs_batch(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n)
{
	struct board_io_spi_cs *c = (struct board_io_spi_cs *)(void *)dev;
	size_t start = 0;
	/* A segment with cs_change ends a group: the select goes up after it. */
	while (start < n) {
		size_t end = start;
		while (end + 1 < n && !xfers[end].cs_change)
			end++;
		struct spi_xfer group[SPI_MAX_XFERS];
		size_t len = end - start + 1;
		memcpy(group, &xfers[start], len * sizeof(group[0]));
		group[len - 1].cs_change = false;
		int rc = gpio_set(c->cs, 1);
		if (rc) {
			c->gpio_errors++;
			return rc;
		}
		rc = spi_transfer_batch(c->bus, group, len);
		int rc2 = gpio_set(c->cs, 0);
		if (rc2)
			c->gpio_errors++;
		if (rc)
			return rc;
		if (rc2)
			return rc2;
		start = end + 1;
	}
	return 0;
}

static int spi_cs_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	struct board_io_spi_cs *c = (struct board_io_spi_cs *)(void *)dev;
	return spi_set_speed(c->bus, speed_hz);
}

static void spi_cs_close(struct spi_dev *dev)
{
	(void)dev;  /* the bus and the line are the devices table's */
}

static const struct spi_ops spi_cs_ops = {
	.transfer_batch = spi_cs_batch,
	.set_speed = spi_cs_set_speed,
	.close = spi_cs_close,
};

/* ---- what the drivers are given -------------------------------------------------------- */

static int host_publish(void *ctx, enum sensor_kind k, const void *sample)
{
	struct board_io *b = ctx;
	switch (k) {
	case SENSOR_IMU: return sensors_push_imu(b->hub, sample);
	case SENSOR_BARO: return sensors_publish_baro(b->hub, sample);
	case SENSOR_MAG: return sensors_publish_mag(b->hub, sample);
	case SENSOR_AIRSPEED: return sensors_publish_airspeed(b->hub, sample);
	case SENSOR_GPS: return sensors_publish_gps(b->hub, sample);
	case SENSOR_BATTERY: return sensors_publish_battery(b->hub, sample);
	case SENSOR_RC: return sensors_publish_rc(b->hub, sample);
	case SENSOR_RANGE: return sensors_publish_range(b->hub, sample);
	case SENSOR_KIND_COUNT: break;
	}
	return -EINVAL;
}

static uint32_t host_latest(void *ctx, enum sensor_kind k, void *out)
{
	struct board_io *b = ctx;
	return sensors_latest(b->hub, k, out);
}

static bool host_armed(void *ctx)
{
	struct board_io *b = ctx;
	return b->armed_fn ? b->armed_fn() : false;
}

static void *host_find(void *ctx, const char *name, enum board_dev_kind kind)
{
	struct board_io *b = ctx;
	return devices_find(b->devs, name, kind);
}

static struct drv_inst *host_instance_of(void *ctx, const struct driver *drv)
{
	struct board_io *b = ctx;
	for (unsigned int i = 0; i < b->n_inst; i++)
		if (b->inst[i].drv == drv)
			return &b->inst[i];
	return NULL;
}

static struct drv_slot *host_add_slot(void *ctx, struct drv_inst *d, const char *label,
				      uint32_t bits, uint32_t bits2, uint32_t stale_us)
{
	struct board_io *b = ctx;
	if (b->n_slots >= BOARD_IO_MAX_SLOTS)
		return NULL;
	for (unsigned int i = 0; i < b->n_slots && bits2; i++)
		if (b->slot[i].bits & bits)
			bits = bits2;
	struct drv_slot *s = &b->slot[b->n_slots++];
	s->desc = d->desc;
	s->label = label;
	s->chip = d->drv->name;
	s->bits = bits;
	s->stale_us = stale_us;
	atomic_init(&s->samples, 0);
	atomic_init(&s->errors, 0);
	atomic_init(&s->last_ok_us, 0);
	atomic_init(&s->running, false);
	return s;
}

/*
 * Runs a driver's set-up to its end on the start-up clock: the driver's
 * setup() returns 1 when done, 0 to go on, -errno on a transfer error
 * (retried), or a final error.
 */
static int host_run_setup(void *ctx, struct drv_inst *d, const struct driver *drv, int *last_err)
{
	struct board_io *b = ctx;
	const struct board_io_clock *clk = b->clk;
	uint64_t t0 = clk->now_us(clk->ctx);
	*last_err = 0;
	for (;;) {
		uint64_t now = clk->now_us(clk->ctx);
		int rc = drv->setup(d, now);
		if (rc > 0)
			return 0;
		if (rc == -ENODEV || rc == -EBADMSG)
			return rc;
		if (rc < 0)
			*last_err = rc;
		if (now - t0 > BOARD_IO_SETUP_TIMEOUT_US)
			return -ETIMEDOUT;
		uint64_t next = drv->next_us ? drv->next_us(d) : 0;
		if (next < now + 100)
			next = now + 100;
		if (next > now + 10000)
			next = now + 10000;
		clk->sleep_until_us(clk->ctx, next);
	}
}

/* ---- start-up ------------------------------------------------------------------------------- */

static uint64_t mono_now_us(void *ctx)
{
	(void)ctx;
	return clock_mono_ns() / 1000u;
}

static void mono_sleep_until_us(void *ctx, uint64_t t_us)
{
	(void)ctx;
	clock_sleep_until_ns(t_us * 1000u);
}

static const struct board_io_clock mono_clock = { mono_now_us, mono_sleep_until_us, NULL };

#define FAIL(...) do { snprintf(err, err_len, __VA_ARGS__); return rc; } while (0)

/* The SPI handle a chip uses: the device's, or the device's behind its chip-select line. */
static int chip_spi(struct board_io *b, const struct device *dev, void **out, char *err,
		    size_t err_len)
{
	int rc = -EINVAL;
	const char *cs_name = dev->desc.drv.chip_select;
	if (!cs_name) {
		*out = dev->handle;
		return 0;
	}
	struct gpio_line *cs = devices_find(b->devs, cs_name, BOARD_DEV_GPIO);
	if (!cs)
		FAIL("%s (%s): its chip select '%s' is not an open GPIO device", dev->desc.name,
		     dev->desc.what, cs_name);
	rc = -E2BIG;
	if (b->n_cs >= sizeof(b->cs) / sizeof(b->cs[0]))
		FAIL("%s: too many chip-select lines", dev->desc.name);
	struct board_io_spi_cs *c = &b->cs[b->n_cs++];
	c->dev.ops = &spi_cs_ops;
	c->bus = dev->handle;
	c->cs = cs;
	*out = &c->dev;
	return 0;
}

static int setup_error(const struct drv_inst *d, int rc, int last_err, char *err, size_t err_len)
{
	const struct board_dev *desc = d->desc;
	const char *chip = d->drv->name;
	char detail[96] = "";
	if (d->drv->setup_detail)
		d->drv->setup_detail(d, detail, sizeof(detail));
	if (rc == -ENODEV)
		snprintf(err, err_len, "%s (%s): no %s answers%s", desc->name, desc->what, chip,
			 detail);
	else if (rc == -EBADMSG)
		snprintf(err, err_len, "%s (%s): the %s's PROM fails its CRC", desc->name,
			 desc->what, chip);
	else
		snprintf(err, err_len, "%s (%s): the %s did not finish its set-up in %u s%s%s",
			 desc->name, desc->what, chip, BOARD_IO_SETUP_TIMEOUT_US / 1000000u,
			 last_err ? ": " : "", last_err ? strerror(-last_err) : "");
	return rc == -ETIMEDOUT ? -ETIMEDOUT : -ENODEV;
}

/* How many started instances have this role. */
static unsigned int role_count(const struct board_io *b, const char *role)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < b->n_inst; i++)
		n += b->inst[i].drv->role && strcmp(b->inst[i].drv->role, role) == 0;
	return n;
}

static int open_one(struct board_io *b, const struct device *dev, char *err, size_t err_len)
{
	const struct driver *drv = dev->desc.driver;
	int rc = -EINVAL;
	if (!(drv->buses & DRV_BUS(dev->desc.kind)))
		FAIL("%s (%s): the %s does not sit on this kind of device", dev->desc.name,
		     dev->desc.what, drv->name);
	rc = -E2BIG;
	unsigned int max = drv->max ? drv->max : 1;
	if (drv->role && role_count(b, drv->role) >= max)
		FAIL("%s (%s): more than %u %s%s on the board", dev->desc.name, dev->desc.what, max,
		     drv->role, max > 1 ? "s" : "");
	struct drv_inst *d = &b->inst[b->n_inst];
	memset(d, 0, sizeof(*d));
	d->drv = drv;
	d->desc = &dev->desc;
	d->host = &b->host;
	d->handle = dev->handle;
	d->role_index = drv->role ? role_count(b, drv->role) : 0;
	if (dev->desc.kind == BOARD_DEV_SPI) {
		rc = chip_spi(b, dev, &d->handle, err, err_len);
		if (rc)
			return rc;
	}
	if (drv->priv_size) {
		d->priv = calloc(1, drv->priv_size);
		rc = -ENOMEM;
		if (!d->priv)
			FAIL("%s: no memory for its driver", dev->desc.name);
	}
	/* From here on board_io_close closes it. */
	b->n_inst++;
	if (drv->probe) {
		rc = drv->probe(d, err, err_len);
		if (rc)
			return rc;
	}
	if (drv->setup) {
		int last = 0;
		rc = host_run_setup(b, d, drv, &last);
		if (rc)
			return setup_error(d, rc, last, err, err_len);
	}
	if (drv->bits) {
		d->slot = host_add_slot(b, d, dev->desc.name, drv->bits, drv->bits2, drv->stale_us);
		rc = -E2BIG;
		if (!d->slot)
			FAIL("board %s: more than %d driven devices", b->devs->board->name,
			     BOARD_IO_MAX_SLOTS);
		drv_running(d->slot, drv->running_at_start);
	}
	if (drv->start)
		return drv->start(d, err, err_len);
	return 0;
}

int board_io_open(struct board_io *b, struct devices *devs, struct sensor_hub *hub,
		  const struct board_io_clock *clk, char *err, size_t err_len)
{
	memset(b, 0, sizeof(*b));
	b->devs = devs;
	b->hub = hub;
	b->clk = clk ? clk : &mono_clock;
	b->armed_fn = flight_armed;
	b->host = (struct drv_host){
		.publish = host_publish,
		.latest = host_latest,
		.armed = host_armed,
		.find = host_find,
		.instance_of = host_instance_of,
		.add_slot = host_add_slot,
		.run_setup = host_run_setup,
		.board = devs->board,
		.ctx = b,
	};
	b->opened = true;
	int rc = 0;
	unsigned int passes = 1;
	for (unsigned int i = 0; i < devs->n; i++)
		if (devs->dev[i].desc.driver && devs->dev[i].desc.driver->pass + 1 > passes)
			passes = devs->dev[i].desc.driver->pass + 1;
	for (unsigned int pass = 0; pass < passes && !rc; pass++) {
		for (unsigned int i = 0; i < devs->n && !rc; i++) {
			const struct device *dev = &devs->dev[i];
			const struct driver *drv = dev->desc.driver;
			if (!drv || dev->disabled || !dev->handle || drv->pass != pass)
				continue;
			rc = open_one(b, dev, err, err_len);
		}
	}
	if (rc) {
		board_io_close(b);
		return rc;
	}
	for (unsigned int i = 0; i < b->n_inst && !b->rcout; i++)
		if (b->inst[i].drv->outputs)
			b->rcout = b->inst[i].drv->outputs(&b->inst[i]);
	return 0;
}

size_t board_io_tasks(struct board_io *b, struct sched_task *out, size_t max)
{
	size_t n = 0;
	for (unsigned int i = 0; i < b->n_inst; i++) {
		struct drv_inst *d = &b->inst[i];
		struct sched_task t[2];
		size_t k = d->drv->tasks ? d->drv->tasks(d, t) : 0;
		for (size_t j = 0; j < k && n < max; j++)
			out[n++] = t[j];
	}
	return n;
}

int board_io_add_tasks(struct board_io *b, struct sched *s)
{
	struct sched_task t[BOARD_IO_MAX_TASKS];
	size_t n = board_io_tasks(b, t, BOARD_IO_MAX_TASKS);
	for (size_t i = 0; i < n; i++) {
		int rc = sched_add_task(s, &t[i]);
		if (rc)
			return rc;
	}
	return 0;
}

struct rcout *board_io_rcout(struct board_io *b)
{
	return b->rcout;
}

struct drv_inst *board_io_instance(struct board_io *b, const char *name)
{
	for (unsigned int i = 0; i < b->n_inst; i++)
		if (strcmp(b->inst[i].desc->name, name) == 0)
			return &b->inst[i];
	return NULL;
}

void board_io_set_armed_source(struct board_io *b, bool (*armed)(void))
{
	b->armed_fn = armed;
}

void board_io_close(struct board_io *b)
{
	if (!b->opened)
		return;
	/* The last opened first: a part goes before what it was found on. */
	for (unsigned int i = b->n_inst; i-- > 0;) {
		struct drv_inst *d = &b->inst[i];
		if (d->drv->close)
			d->drv->close(d);
		free(d->priv);
		d->priv = NULL;
	}
	b->n_inst = 0;
	b->rcout = NULL;
	b->opened = false;
}

/* ---- status ----------------------------------------------------------------------------- */

static bool slot_healthy(const struct drv_slot *s, uint64_t now_us)
{
	if (!atomic_load_explicit(&s->running, memory_order_relaxed))
		return false;
	if (!s->stale_us)
		return true;
	uint64_t t = atomic_load_explicit(&s->last_ok_us, memory_order_relaxed);
	return t != 0 && (now_us <= t || now_us - t <= s->stale_us);
}

void board_io_sensor_bits(const struct board_io *b, uint64_t now_us, uint32_t *present,
			  uint32_t *enabled, uint32_t *healthy)
{
	uint32_t p = 0, h = 0, bad = 0;
	for (unsigned int i = 0; i < b->n_slots; i++) {
		const struct drv_slot *s = &b->slot[i];
		p |= s->bits;
		if (slot_healthy(s, now_us))
			h |= s->bits;
		else
			bad |= s->bits;
	}
	*present = p;
	*enabled = p;
	*healthy = h & ~bad;
}

size_t board_io_status(const struct board_io *b, uint64_t now_us, struct board_io_status *out,
		       size_t max)
{
	size_t n = 0;
	for (unsigned int i = 0; i < b->n_slots && n < max; i++, n++) {
		const struct drv_slot *s = &b->slot[i];
		out[n] = (struct board_io_status){
			.name = s->label,
			.what = s->desc->what,
			.chip = s->chip,
			.samples = atomic_load_explicit(&s->samples, memory_order_relaxed),
			.errors = atomic_load_explicit(&s->errors, memory_order_relaxed),
			.last_ok_us = atomic_load_explicit(&s->last_ok_us, memory_order_relaxed),
			.running = atomic_load_explicit(&s->running, memory_order_relaxed),
			.healthy = slot_healthy(s, now_us),
		};
	}
	return n;
}
