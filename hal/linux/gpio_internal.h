/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the two libgpiod backends (gpio_gpiod1.c for libgpiod 1.x,
 * gpio_gpiod2.c for 2.x; meson compiles one) share, and what their unit test
 * checks without a GPIO chip. Static inline so that it needs no source file of
 * its own and costs nothing in the backend that does not use it.
 */
#ifndef FULMAR_GPIO_INTERNAL_H
#define FULMAR_GPIO_INTERNAL_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "fulmar/gpio.h"

/* Shown by gpioinfo when the board table names no consumer. */
#define GPIO_CONSUMER_DEFAULT "fulmard"

/*
 * Events converted per batch on the reader's stack (libgpiod 1.x) or held in
 * the preallocated libgpiod 2.x event buffer. A batch is not a limit on what
 * one gpio_read_events call returns: it loops until max or the queue is empty.
 */
#define GPIO_EVENT_BATCH 16

/* The config's edge with 0 read as GPIO_EDGE_NONE, as gpio.h promises. */
static inline enum gpio_edge gpio_config_edge(const struct gpio_config *cfg)
{
	return cfg->edge ? cfg->edge : GPIO_EDGE_NONE;
}

/* The config's bias with 0 read as GPIO_BIAS_AS_IS. */
static inline enum gpio_bias gpio_config_bias(const struct gpio_config *cfg)
{
	return cfg->bias ? cfg->bias : GPIO_BIAS_AS_IS;
}

/*
 * 0 if cfg can be requested, else -EINVAL. Runs before the chip is opened, so
 * a bad board table fails the same way on a machine with no GPIO at all.
 */
static inline int gpio_config_check(const struct gpio_config *cfg)
{
	if (!cfg->chip || cfg->chip[0] == '\0')
		return -EINVAL;
	enum gpio_edge edge = gpio_config_edge(cfg);
	if (edge < GPIO_EDGE_NONE || edge > GPIO_EDGE_BOTH)
		return -EINVAL;
	enum gpio_bias bias = gpio_config_bias(cfg);
	if (bias < GPIO_BIAS_AS_IS || bias > GPIO_BIAS_PULL_DOWN)
		return -EINVAL;
	switch (cfg->dir) {
	case GPIO_DIR_INPUT:
		return 0;
	case GPIO_DIR_OUTPUT:
		/* The kernel has no edge detection on a line it lets us drive. */
		if (edge != GPIO_EDGE_NONE)
			return -EINVAL;
		if (cfg->initial_value != 0 && cfg->initial_value != 1)
			return -EINVAL;
		/* A pull on a line we drive ourselves is a board-table mistake. */
		if (bias != GPIO_BIAS_AS_IS)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * libgpiod 1.x hands back the kernel's u64 nanosecond stamp split into a
 * timespec; this puts it back together. The cast comes before the multiply
 * because time_t and long are 32 bits on armhf.
 */
static inline uint64_t gpio_timespec_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * UINT64_C(1000000000) + (uint64_t)ts->tv_nsec;
}

#endif
