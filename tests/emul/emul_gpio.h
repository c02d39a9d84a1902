/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated GPIO output line behind struct gpio_ops: remembers its
 * logical level and how often it was set; can be made to fail.
 */
#ifndef FULMAR_TESTS_EMUL_GPIO_H
#define FULMAR_TESTS_EMUL_GPIO_H

#include <stdint.h>

#include "fulmar/gpio.h"

struct emul_gpio {
	struct gpio_line line;        /* first: the driver sees this */
	int value;                    /* logical level, -1 before the first set */
	uint32_t sets;
	unsigned int fail_next;       /* the next n calls fail with -EIO */
};

void emul_gpio_init(struct emul_gpio *g);

#endif
