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

/* Pull resistor on an input: RC receivers with open-collector outputs need one. */
enum gpio_bias {
	GPIO_BIAS_AS_IS = 1,      /* leave whatever the board's pin set-up chose */
	GPIO_BIAS_DISABLED,
	GPIO_BIAS_PULL_UP,
	GPIO_BIAS_PULL_DOWN,
};

struct gpio_config {
	const char *chip;         /* "gpiochip0", "/dev/gpiochip0" or a chip label */
	unsigned int offset;      /* line number on that chip */
	enum gpio_dir dir;
	enum gpio_edge edge;      /* inputs only; 0 is taken as GPIO_EDGE_NONE */
	enum gpio_bias bias;      /* 0 is taken as GPIO_BIAS_AS_IS */
	bool active_low;
	int initial_value;        /* outputs: logical level at request time */
	const char *consumer;     /* shown by gpioinfo; NULL: "fulmard" */
};

struct gpio_event {
	uint64_t t_ns;            /* kernel timestamp, CLOCK_MONOTONIC */
	/*
	 * The kernel's per-line event count, 1 for the first: a jump means the
	 * kernel's queue overflowed and edges were lost. 0 when the interface
	 * cannot tell (libgpiod 1.x).
	 */
	uint32_t seqno;
	bool rising;              /* logical level went 0 -> 1 */
};

/* Outputs: set the logical level (0 or 1; else -EINVAL). An input gives -EPERM. */
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
