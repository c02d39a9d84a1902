// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * GPIO lines through libgpiod 1.x (Debian 12 ships 1.6.3). libgpiod 1.x
 * speaks the kernel's v1 character-device ABI, so the kernel needs
 * CONFIG_GPIO_CDEV_V1 (default y, deprecated since 5.10).
 *
 * Edge timestamps: the v1 ABI stamps events with CLOCK_MONOTONIC from Linux
 * 5.7 on and with CLOCK_REALTIME before, and offers no way to choose; we
 * warn at open on an older kernel rather than pretend. The kernel queues at
 * most 16 events per v1 line and drops the newest beyond that, without
 * telling anyone, so an edge input must be read at least every 16 edges.
 */
#include "linux/hal_linux.h"

#include <assert.h>
#include <errno.h>
#include <gpiod.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "linux/gpio_internal.h"

#define LOG_TAG "gpio"
#include "util/log.h"

struct gpio_gpiod1 {
	struct gpio_line line;          /* first: the HAL hands out &line */
	struct gpiod_chip *chip;        /* owns line below */
	struct gpiod_line *gline;
	int event_fd;                   /* -1 unless an edge input */
	enum gpio_dir dir;
};

/* libgpiod 1.x documents errno on failure; -EIO covers a path that forgets. */
static int gpiod1_err(void)
{
	return errno > 0 ? -errno : -EIO;
}

static int gpiod1_set(struct gpio_line *line, int value)
{
	struct gpio_gpiod1 *g = (struct gpio_gpiod1 *)line;

	if (g->dir != GPIO_DIR_OUTPUT)
		return -EPERM;
	if (value != 0 && value != 1)
		return -EINVAL;
	if (gpiod_line_set_value(g->gline, value) < 0)
		return gpiod1_err();
	return 0;
}

static int gpiod1_get(struct gpio_line *line)
{
	struct gpio_gpiod1 *g = (struct gpio_gpiod1 *)line;
	int v = gpiod_line_get_value(g->gline);

	return v < 0 ? gpiod1_err() : v;
}

static int gpiod1_read_events(struct gpio_line *line, struct gpio_event *ev, size_t max)
{
	struct gpio_gpiod1 *g = (struct gpio_gpiod1 *)line;
	struct gpiod_line_event batch[GPIO_EVENT_BATCH];
	size_t n = 0;
	int rc;

	assert(ev || max == 0);
	if (max > INT_MAX)
		max = INT_MAX;
	while (n < max) {
		/*
		 * The event fd is blocking and read() would wait for an edge, so
		 * only read once poll says something is queued.
		 */
		struct pollfd pfd = { .fd = g->event_fd, .events = POLLIN };
		rc = poll(&pfd, 1, 0);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto err_read;
		}
		if (rc == 0)
			break;
		if (pfd.revents & (POLLERR | POLLNVAL)) {
			rc = -EIO;
			goto err_read;
		}

		size_t want = max - n < GPIO_EVENT_BATCH ? max - n : GPIO_EVENT_BATCH;
		rc = gpiod_line_event_read_multiple(g->gline, batch, (unsigned int)want);
		if (rc < 0) {
			rc = gpiod1_err();
			goto err_read;
		}
		for (int i = 0; i < rc; i++, n++) {
			ev[n].t_ns = gpio_timespec_to_ns(&batch[i].ts);
			ev[n].seqno = 0;  /* the v1 interface has no sequence numbers */
			ev[n].rising = batch[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
		}
		/* A short read means the kernel queue is empty: save the poll. */
		if ((size_t)rc < want)
			break;
	}
	return (int)n;

err_read:
	/* Events already taken from the kernel would be lost: hand them over first. */
	return n ? (int)n : rc;
}

static int gpiod1_event_fd(struct gpio_line *line)
{
	struct gpio_gpiod1 *g = (struct gpio_gpiod1 *)line;

	return g->event_fd;
}

static void gpiod1_close(struct gpio_line *line)
{
	struct gpio_gpiod1 *g = (struct gpio_gpiod1 *)line;

	gpiod_line_release(g->gline);
	gpiod_chip_close(g->chip);
	free(g);
}

/* Lines without edge detection leave the event ops NULL: the HAL says -ENOTSUP. */
static const struct gpio_ops gpiod1_ops = {
	.set = gpiod1_set,
	.get = gpiod1_get,
	.close = gpiod1_close,
};

static const struct gpio_ops gpiod1_edge_ops = {
	.set = gpiod1_set,
	.get = gpiod1_get,
	.read_events = gpiod1_read_events,
	.event_fd = gpiod1_event_fd,
	.close = gpiod1_close,
};

static int gpiod1_request_type(const struct gpio_config *cfg)
{
	if (cfg->dir == GPIO_DIR_OUTPUT)
		return GPIOD_LINE_REQUEST_DIRECTION_OUTPUT;
	switch (gpio_config_edge(cfg)) {
	case GPIO_EDGE_RISING:
		return GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
	case GPIO_EDGE_FALLING:
		return GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE;
	case GPIO_EDGE_BOTH:
		return GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
	case GPIO_EDGE_NONE:
		break;
	}
	return GPIOD_LINE_REQUEST_DIRECTION_INPUT;
}

/* Whether this kernel stamps v1 edge events with CLOCK_MONOTONIC (5.7 on). */
static bool gpiod1_kernel_stamps_monotonic(void)
{
	struct utsname u;
	unsigned int major, minor;

	/* Cannot tell: assume the kernel we support rather than warn falsely. */
	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 5 || (major == 5 && minor >= 7);
}

int gpio_linux_open(const struct gpio_config *cfg, struct gpio_line **out)
{
	assert(cfg && out);
	int rc = gpio_config_check(cfg);
	if (rc < 0)
		return rc;
	bool edge = cfg->dir == GPIO_DIR_INPUT && gpio_config_edge(cfg) != GPIO_EDGE_NONE;

	struct gpio_gpiod1 *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->dir = cfg->dir;
	g->event_fd = -1;

	/* Takes a path, a /dev name, a label or a number, like the gpio tools. */
	errno = 0;
	g->chip = gpiod_chip_open_lookup(cfg->chip);
	if (!g->chip) {
		rc = gpiod1_err();
		goto err_free;
	}
	/* Fails with EINVAL for an offset past the chip's last line. */
	g->gline = gpiod_chip_get_line(g->chip, cfg->offset);
	if (!g->gline) {
		rc = gpiod1_err();
		goto err_chip;
	}

	static const int bias_flags[] = {
		[GPIO_BIAS_AS_IS] = 0,
		[GPIO_BIAS_DISABLED] = GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE,
		[GPIO_BIAS_PULL_UP] = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP,
		[GPIO_BIAS_PULL_DOWN] = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN,
	};
	const struct gpiod_line_request_config req = {
		.consumer = cfg->consumer ? cfg->consumer : GPIO_CONSUMER_DEFAULT,
		.request_type = gpiod1_request_type(cfg),
		.flags = (cfg->active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0) |
			 bias_flags[gpio_config_bias(cfg)],
	};
	/* With ACTIVE_LOW the kernel inverts initial_value too: it stays logical. */
	if (gpiod_line_request(g->gline, &req, cfg->initial_value) < 0) {
		rc = gpiod1_err();
		goto err_chip;
	}

	if (edge) {
		g->event_fd = gpiod_line_event_get_fd(g->gline);
		if (g->event_fd < 0) {
			rc = gpiod1_err();
			goto err_release;
		}
		if (!gpiod1_kernel_stamps_monotonic())
			log_warn("%s:%u: kernel older than 5.7 stamps edges with CLOCK_REALTIME, "
				 "not CLOCK_MONOTONIC", cfg->chip, cfg->offset);
	}

	g->line.ops = edge ? &gpiod1_edge_ops : &gpiod1_ops;
	*out = &g->line;
	return 0;

err_release:
	gpiod_line_release(g->gline);
err_chip:
	gpiod_chip_close(g->chip);
err_free:
	free(g);
	return rc;
}
