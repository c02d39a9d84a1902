// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_tfmini.h"

#include <string.h>

static struct emul_tfmini *of(struct uart *u)
{
	return (struct emul_tfmini *)(void *)u;
}

static int rd(struct uart *u, uint8_t *buf, size_t len)
{
	struct emul_tfmini *e = of(u);
	size_t n = len < e->out_len ? len : e->out_len;
	memcpy(buf, e->out, n);
	memmove(e->out, e->out + n, e->out_len - n);
	e->out_len -= n;
	return (int)n;
}

static int wr(struct uart *u, const uint8_t *buf, size_t len)
{
	(void)u;
	(void)buf;
	return (int)len;
}

static void cl(struct uart *u)
{
	(void)u;
}

static const struct uart_ops ops = { .read = rd, .write = wr, .close = cl };

void emul_tfmini_inject(struct emul_tfmini *e, const uint8_t *b, size_t n)
{
	if (n > sizeof(e->out) - e->out_len)
		n = sizeof(e->out) - e->out_len;   /* the line's buffer overflows: lost */
	memcpy(e->out + e->out_len, b, n);
	e->out_len += n;
}

void emul_tfmini_frame(struct emul_tfmini *e, uint16_t cm, uint16_t strength, int checksum_delta)
{
	uint8_t f[9] = { 0x59, 0x59, (uint8_t)cm, (uint8_t)(cm >> 8), (uint8_t)strength,
			 (uint8_t)(strength >> 8), 0x07, 0x00, 0 };
	unsigned int sum = 0;
	for (int i = 0; i < 8; i++)
		sum += f[i];
	f[8] = (uint8_t)(sum + (unsigned int)checksum_delta);
	emul_tfmini_inject(e, f, sizeof(f));
	e->frames_sent++;
}

void emul_tfmini_advance(struct emul_tfmini *e, uint64_t now_us)
{
	while (e->next_us <= now_us) {
		if (!e->silent)
			emul_tfmini_frame(e, e->distance_cm, e->strength, 0);
		e->next_us += e->period_us;
	}
}

void emul_tfmini_init(struct emul_tfmini *e)
{
	memset(e, 0, sizeof(*e));
	e->uart.ops = &ops;
	e->distance_cm = 250;
	e->strength = 400;
	e->period_us = 10000;
}
