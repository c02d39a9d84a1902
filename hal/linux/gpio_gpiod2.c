// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * GPIO lines through libgpiod 2.x, which speaks the kernel's v2 character
 * device ABI (Linux 5.10 on). Only the 2.0 API is used, so any 2.x will do.
 *
 * Unlike v1, v2 lets us name the event clock (CLOCK_MONOTONIC, which the rest
 * of fulmar stamps with) and size the kernel's event queue, so a reader that
 * runs late loses nothing until GPIOD2_KERNEL_EVENT_FIFO edges are pending.
 */
#include "linux/hal_linux.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <gpiod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/gpio_internal.h"

/*
 * Edges the kernel keeps for one line (its default is 16). An 8-channel PPM
 * frame is 18 edges, so a reader that misses a 50 Hz cycle would otherwise
 * drop some; 256 is about half a second of PPM.
 */
#define GPIOD2_KERNEL_EVENT_FIFO 256

struct gpio_gpiod2 {
	struct gpio_line line;                  /* first: the HAL hands out &line */
	struct gpiod_line_request *req;
	struct gpiod_edge_event_buffer *evbuf;  /* NULL unless an edge input */
	unsigned int offset;
	enum gpio_dir dir;
};

/* libgpiod 2.x documents errno on failure; -EIO covers a path that forgets. */
static int gpiod2_err(void)
{
	return errno > 0 ? -errno : -EIO;
}

static int gpiod2_set(struct gpio_line *line, int value)
{
	struct gpio_gpiod2 *g = (struct gpio_gpiod2 *)line;

	if (g->dir != GPIO_DIR_OUTPUT)
		return -EPERM;
	if (value != 0 && value != 1)
		return -EINVAL;
	if (gpiod_line_request_set_value(g->req, g->offset,
					 value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) < 0)
		return gpiod2_err();
	return 0;
}

static int gpiod2_get(struct gpio_line *line)
{
	struct gpio_gpiod2 *g = (struct gpio_gpiod2 *)line;
	enum gpiod_line_value v = gpiod_line_request_get_value(g->req, g->offset);

	if (v == GPIOD_LINE_VALUE_ERROR)
		return gpiod2_err();
	return v == GPIOD_LINE_VALUE_ACTIVE;
}

static int gpiod2_read_events(struct gpio_line *line, struct gpio_event *ev, size_t max)
{
	struct gpio_gpiod2 *g = (struct gpio_gpiod2 *)line;
	size_t n = 0;
	int rc;

	assert(ev || max == 0);
	if (max > INT_MAX)
		max = INT_MAX;
	while (n < max) {
		/* Reading an empty request blocks, so look first without waiting. */
		rc = gpiod_line_request_wait_edge_events(g->req, 0);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			rc = gpiod2_err();
			goto err_read;
		}
		if (rc == 0)
			break;

		/* evbuf was sized at open: nothing is allocated here. */
		size_t want = max - n < GPIO_EVENT_BATCH ? max - n : GPIO_EVENT_BATCH;
		rc = gpiod_line_request_read_edge_events(g->req, g->evbuf, want);
		if (rc < 0) {
			rc = gpiod2_err();
			goto err_read;
		}
		for (int i = 0; i < rc; i++, n++) {
			struct gpiod_edge_event *e =
				gpiod_edge_event_buffer_get_event(g->evbuf, (unsigned long)i);
			ev[n].t_ns = gpiod_edge_event_get_timestamp_ns(e);
			ev[n].seqno = (uint32_t)gpiod_edge_event_get_line_seqno(e);
			ev[n].rising = gpiod_edge_event_get_event_type(e) ==
				       GPIOD_EDGE_EVENT_RISING_EDGE;
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

static int gpiod2_event_fd(struct gpio_line *line)
{
	struct gpio_gpiod2 *g = (struct gpio_gpiod2 *)line;

	return gpiod_line_request_get_fd(g->req);
}

static void gpiod2_close(struct gpio_line *line)
{
	struct gpio_gpiod2 *g = (struct gpio_gpiod2 *)line;

	if (g->evbuf)
		gpiod_edge_event_buffer_free(g->evbuf);
	gpiod_line_request_release(g->req);
	free(g);
}

/* Lines without edge detection leave the event ops NULL: the HAL says -ENOTSUP. */
static const struct gpio_ops gpiod2_ops = {
	.set = gpiod2_set,
	.get = gpiod2_get,
	.close = gpiod2_close,
};

static const struct gpio_ops gpiod2_edge_ops = {
	.set = gpiod2_set,
	.get = gpiod2_get,
	.read_events = gpiod2_read_events,
	.event_fd = gpiod2_event_fd,
	.close = gpiod2_close,
};

static bool gpiod2_is_number(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int gpiod2_chip_open_path(const char *path, struct gpiod_chip **out)
{
	errno = 0;
	struct gpiod_chip *chip = gpiod_chip_open(path);
	if (!chip)
		return gpiod2_err();
	*out = chip;
	return 0;
}

static int gpiod2_is_chip_dirent(const struct dirent *d)
{
	return strncmp(d->d_name, "gpiochip", 8) == 0;
}

/*
 * Labels live in the chips, so every chip is opened until one matches. scandir
 * sorts, so with two chips of one label the same one wins on every boot.
 */
static int gpiod2_chip_open_label(const char *label, struct gpiod_chip **out)
{
	struct dirent **ents;
	int n = scandir("/dev", &ents, gpiod2_is_chip_dirent, alphasort);
	if (n < 0)
		return gpiod2_err();

	int rc = -ENOENT;
	int first_err = 0;  /* a chip we could not open may be the one asked for */
	for (int i = 0; i < n && rc == -ENOENT; i++) {
		char path[PATH_MAX];
		struct gpiod_chip *chip;

		int len = snprintf(path, sizeof(path), "/dev/%s", ents[i]->d_name);
		int err = len < 0 || (size_t)len >= sizeof(path) ? -ENAMETOOLONG :
			  gpiod2_chip_open_path(path, &chip);
		if (err < 0) {
			if (!first_err)
				first_err = err;
			continue;
		}
		struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
		bool match = info && strcmp(gpiod_chip_info_get_label(info), label) == 0;
		if (info)
			gpiod_chip_info_free(info);
		if (match) {
			*out = chip;
			rc = 0;
		} else {
			gpiod_chip_close(chip);
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (rc == -ENOENT && first_err)
		rc = first_err;
	return rc;
}

/*
 * libgpiod 2.x opens paths only. Accept what 1.x's gpiod_chip_open_lookup
 * did, so board tables work with either: a path, a name under /dev, a number,
 * or a label.
 */
static int gpiod2_chip_open(const char *descr, struct gpiod_chip **out)
{
	char path[PATH_MAX];
	int len;

	if (descr[0] == '/')
		return gpiod2_chip_open_path(descr, out);
	if (gpiod2_is_number(descr))
		len = snprintf(path, sizeof(path), "/dev/gpiochip%s", descr);
	else
		len = snprintf(path, sizeof(path), "/dev/%s", descr);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	if (gpiod2_is_number(descr) || gpiod_is_gpiochip_device(path))
		return gpiod2_chip_open_path(path, out);
	return gpiod2_chip_open_label(descr, out);
}

static enum gpiod_line_edge gpiod2_edge(enum gpio_edge edge)
{
	switch (edge) {
	case GPIO_EDGE_RISING:
		return GPIOD_LINE_EDGE_RISING;
	case GPIO_EDGE_FALLING:
		return GPIOD_LINE_EDGE_FALLING;
	case GPIO_EDGE_BOTH:
		return GPIOD_LINE_EDGE_BOTH;
	case GPIO_EDGE_NONE:
		break;
	}
	return GPIOD_LINE_EDGE_NONE;
}

/* Fills the settings for cfg; the setters fail only on out-of-range enums. */
static int gpiod2_settings_fill(struct gpiod_line_settings *s, const struct gpio_config *cfg,
				bool edge)
{
	gpiod_line_settings_set_active_low(s, cfg->active_low);
	if (cfg->dir == GPIO_DIR_OUTPUT) {
		if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) < 0)
			return gpiod2_err();
		/* Logical, like everything else here: ACTIVE_LOW inverts it. */
		if (gpiod_line_settings_set_output_value(s, cfg->initial_value ?
							 GPIOD_LINE_VALUE_ACTIVE :
							 GPIOD_LINE_VALUE_INACTIVE) < 0)
			return gpiod2_err();
		return 0;
	}
	if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT) < 0)
		return gpiod2_err();
	static const enum gpiod_line_bias biases[] = {
		[GPIO_BIAS_AS_IS] = GPIOD_LINE_BIAS_AS_IS,
		[GPIO_BIAS_DISABLED] = GPIOD_LINE_BIAS_DISABLED,
		[GPIO_BIAS_PULL_UP] = GPIOD_LINE_BIAS_PULL_UP,
		[GPIO_BIAS_PULL_DOWN] = GPIOD_LINE_BIAS_PULL_DOWN,
	};
	if (gpiod_line_settings_set_bias(s, biases[gpio_config_bias(cfg)]) < 0)
		return gpiod2_err();
	if (!edge)
		return 0;
	if (gpiod_line_settings_set_edge_detection(s, gpiod2_edge(gpio_config_edge(cfg))) < 0)
		return gpiod2_err();
	/* Already the kernel's default; said here because gpio.h promises it. */
	if (gpiod_line_settings_set_event_clock(s, GPIOD_LINE_CLOCK_MONOTONIC) < 0)
		return gpiod2_err();
	return 0;
}

int gpio_linux_open(const struct gpio_config *cfg, struct gpio_line **out)
{
	struct gpio_gpiod2 *g;
	struct gpiod_chip *chip;
	struct gpiod_line_settings *settings;
	struct gpiod_line_config *line_cfg;
	struct gpiod_request_config *req_cfg;
	int rc;

	assert(cfg && out);
	rc = gpio_config_check(cfg);
	if (rc < 0)
		return rc;
	bool edge = cfg->dir == GPIO_DIR_INPUT && gpio_config_edge(cfg) != GPIO_EDGE_NONE;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->dir = cfg->dir;
	g->offset = cfg->offset;

	rc = gpiod2_chip_open(cfg->chip, &chip);
	if (rc < 0)
		goto err_free;

	rc = -ENOMEM;
	settings = gpiod_line_settings_new();
	if (!settings)
		goto err_chip;
	rc = gpiod2_settings_fill(settings, cfg, edge);
	if (rc < 0)
		goto err_settings;

	rc = -ENOMEM;
	line_cfg = gpiod_line_config_new();
	if (!line_cfg)
		goto err_settings;
	if (gpiod_line_config_add_line_settings(line_cfg, &g->offset, 1, settings) < 0) {
		rc = gpiod2_err();
		goto err_line_cfg;
	}

	rc = -ENOMEM;
	req_cfg = gpiod_request_config_new();
	if (!req_cfg)
		goto err_line_cfg;
	gpiod_request_config_set_consumer(req_cfg,
					  cfg->consumer ? cfg->consumer : GPIO_CONSUMER_DEFAULT);
	if (edge)
		gpiod_request_config_set_event_buffer_size(req_cfg, GPIOD2_KERNEL_EVENT_FIFO);

	/* The kernel answers EINVAL for an offset past the chip's last line. */
	errno = 0;
	g->req = gpiod_chip_request_lines(chip, req_cfg, line_cfg);
	if (!g->req) {
		rc = gpiod2_err();
		goto err_req_cfg;
	}
	if (edge) {
		g->evbuf = gpiod_edge_event_buffer_new(GPIO_EVENT_BATCH);
		if (!g->evbuf) {
			rc = -ENOMEM;
			goto err_request;
		}
	}

	/* A request holds its own file descriptor: the chip is not needed past here. */
	gpiod_request_config_free(req_cfg);
	gpiod_line_config_free(line_cfg);
	gpiod_line_settings_free(settings);
	gpiod_chip_close(chip);
	g->line.ops = edge ? &gpiod2_edge_ops : &gpiod2_ops;
	*out = &g->line;
	return 0;

err_request:
	gpiod_line_request_release(g->req);
err_req_cfg:
	gpiod_request_config_free(req_cfg);
err_line_cfg:
	gpiod_line_config_free(line_cfg);
err_settings:
	gpiod_line_settings_free(settings);
err_chip:
	gpiod_chip_close(chip);
err_free:
	free(g);
	return rc;
}
