// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_gpio.h"

#include <errno.h>
#include <string.h>

static int emul_gpio_set(struct gpio_line *line, int value)
{
	struct emul_gpio *g = (void *)line;

	if (g->fail_next) {
		g->fail_next--;
		return -EIO;
	}
	if (value != 0 && value != 1)
		return -EINVAL;
	g->value = value;
	g->sets++;
	return 0;
}

static int emul_gpio_get(struct gpio_line *line)
{
	return ((struct emul_gpio *)(void *)line)->value;
}

static void emul_gpio_close(struct gpio_line *line)
{
	(void)line;
}

static const struct gpio_ops emul_gpio_ops = {
	.set = emul_gpio_set,
	.get = emul_gpio_get,
	.close = emul_gpio_close,
};

void emul_gpio_init(struct emul_gpio *g)
{
	memset(g, 0, sizeof(*g));
	g->line.ops = &emul_gpio_ops;
	g->value = -1;
}
