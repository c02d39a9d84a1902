/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * GPIO lines: outputs (buzzer, LEDs, output enables, chip selects), inputs, and
 * inputs with edge events stamped by the kernel (PPM/SBUS/DSM pulse capture).
 * A line handle belongs to one thread. Functions return 0 (or a count, or a
 * level) on success and -errno on failure.
 */
#ifndef FULMAR_GPIO_H
#define FULMAR_GPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gpio_line;

enum gpio_dir {
	GPIO_DIR_INPUT = 1,
	GPIO_DIR_OUTPUT,
};

enum gpio_edge {
	GPIO_EDGE_NONE = 1,
	GPIO_EDGE_RISING,
	GPIO_EDGE_FALLING,
	GPIO_EDGE_BOTH,
};

struct gpio_config {
	const char *chip;         /* "gpiochip0", "/dev/gpiochip0" or a chip label */
	unsigned int offset;      /* line number on that chip */
	enum gpio_dir dir;
	enum gpio_edge edge;      /* inputs only; 0 is taken as GPIO_EDGE_NONE */
	bool active_low;
	int initial_value;        /* outputs: logical level at request time */
	const char *consumer;     /* shown by gpioinfo; NULL: "fulmard" */
};

struct gpio_event {
	uint64_t t_ns;            /* kernel timestamp, CLOCK_MONOTONIC */
	bool rising;              /* logical level went 0 -> 1 */
};

/* Outputs: set the logical level (0 or 1). */
int gpio_set(struct gpio_line *line, int value);
/* Returns the logical level 0 or 1, or -errno. */
int gpio_get(struct gpio_line *line);
/* Edge inputs: up to max events already queued, oldest first; never blocks; returns the count. */
int gpio_read_events(struct gpio_line *line, struct gpio_event *ev, size_t max);
/* A file descriptor that polls readable when events are queued, or -errno. */
int gpio_event_fd(struct gpio_line *line);
/* Releases the line. NULL is a no-op. */
void gpio_close(struct gpio_line *line);

/* For backends only. */
struct gpio_ops {
	int (*set)(struct gpio_line *line, int value);
	int (*get)(struct gpio_line *line);
	int (*read_events)(struct gpio_line *line, struct gpio_event *ev, size_t max);  /* optional */
	int (*event_fd)(struct gpio_line *line);                                          /* optional */
	void (*close)(struct gpio_line *line);
};

struct gpio_line {
	const struct gpio_ops *ops;
};

#endif
