// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "param/param.h"
#include "drivers/drivers.h"
#include "test_board_io_harness.h"

void bio_devices(struct bio_fixture *f, void *(*handle)(void *ctx, const char *name), void *ctx)
{
	const struct board *b = board_get();

	memset(&f->devs, 0, sizeof(f->devs));
	f->devs.board = b;
	f->devs.n = b->n_devs;
	for (unsigned int i = 0; i < b->n_devs; i++) {
		struct device *d = &f->devs.dev[i];
		d->desc = b->devs[i];
		d->handle = handle(ctx, d->desc.name);
		d->disabled = d->handle == NULL;
	}
}

static uint64_t clk_now(void *ctx)
{
	return ((struct bio_fixture *)ctx)->now_us;
}

static void clk_sleep(void *ctx, uint64_t t_us)
{
	struct bio_fixture *f = ctx;

	if (t_us > f->now_us)
		f->now_us = t_us;
	f->advance(f->ctx, f->now_us);
}

int bio_open(struct bio_fixture *f)
{
	const struct board *b = board_get();
	struct board_io_clock clk = { clk_now, clk_sleep, f };

	param_init(PARAM_PLANE);
	sensors_init(&f->hub, b->imu_rate_hz, b->main_rate_hz, NULL, NULL);
	f->advance(f->ctx, f->now_us);
	int rc = board_io_open(&f->bio, &f->devs, &f->hub, &clk, f->err, sizeof(f->err));
	if (rc == 0)
		f->n_tasks = board_io_tasks(&f->bio, f->tasks, 16);
	return rc;
}

static uint32_t thread_hz(const struct bio_fixture *f, enum sched_thread_id t)
{
	switch (t) {
	case SCHED_TIMER: return 1000;
	case SCHED_RCIN: return f->rcin_hz ? f->rcin_hz : 200;
	case SCHED_UART: return 100;
	case SCHED_IO: return 50;
	case SCHED_TONE: return 100;
	default: return 400;
	}
}

void bio_run(struct bio_fixture *f, uint64_t dt_us)
{
	uint64_t end = f->now_us + dt_us;

	while (f->now_us < end) {
		f->now_us += 1000;
		f->advance(f->ctx, f->now_us);
		uint64_t tick = f->now_us / 1000;
		for (size_t i = 0; i < f->n_tasks; i++) {
			const struct sched_task *t = &f->tasks[i];
			uint32_t hz = t->rate_hz ? t->rate_hz : thread_hz(f, t->thread);
			if (tick % (1000 / hz) == 0)
				t->run(t->ctx, f->now_us);
		}
		struct imu_sample s[64];
		size_t n;
		while ((n = sensors_read_imu(&f->hub, s, 64)) > 0) {
			f->imu_count += n;
			f->imu_last = s[n - 1];
		}
	}
}

struct board_io_status bio_status(struct bio_fixture *f, const char *name, const char *chip,
				  unsigned int nth)
{
	struct board_io_status st[BOARD_IO_MAX_SLOTS];
	size_t n = board_io_status(&f->bio, f->now_us, st, BOARD_IO_MAX_SLOTS);

	for (size_t i = 0; i < n; i++)
		if (strcmp(st[i].name, name) == 0 && strcmp(st[i].chip, chip) == 0 && nth-- == 0)
			return st[i];
	fail_msg("no status for %s", name);
	return st[0];
}

bool bio_has_task(const struct bio_fixture *f, const char *name)
{
	for (size_t i = 0; i < f->n_tasks; i++)
		if (strcmp(f->tasks[i].name, name) == 0)
			return true;
	return false;
}
