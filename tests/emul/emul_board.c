// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_board.h"

#include <errno.h>
#include <string.h>

/* ---- SPI bus with GPIO chip selects */

static int cs_bus_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct emul_cs_bus *b = (struct emul_cs_bus *)(void *)dev;
	struct spi_dev *sel = NULL;
	int count = 0;

	b->transfers++;
	for (size_t i = 0; i < b->n; i++)
		if (b->cs[i]->value == 1) {
			sel = b->chip[i];
			count++;
		}
	if (count != 1) {
		b->clashes++;
		for (size_t i = 0; i < n; i++)
			if (x[i].rx)
				memset(x[i].rx, 0xff, x[i].len);
		return 0;
	}
	return sel->ops->transfer_batch(sel, x, n);
}

static int cs_bus_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	struct emul_cs_bus *b = (struct emul_cs_bus *)(void *)dev;
	/* The speed belongs to the handle; every chip on the bus hears it. */
	for (size_t i = 0; i < b->n; i++)
		if (b->chip[i]->ops->set_speed)
			b->chip[i]->ops->set_speed(b->chip[i], speed_hz);
	return 0;
}

static void cs_bus_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops cs_bus_ops = {
	.transfer_batch = cs_bus_batch,
	.set_speed = cs_bus_set_speed,
	.close = cs_bus_close,
};

void emul_cs_bus_init(struct emul_cs_bus *b)
{
	memset(b, 0, sizeof(*b));
	b->dev.ops = &cs_bus_ops;
}

void emul_cs_bus_attach(struct emul_cs_bus *b, struct emul_gpio *cs, struct spi_dev *chip)
{
	b->cs[b->n] = cs;
	b->chip[b->n] = chip;
	b->n++;
}

/* ---- u-blox SPI port */

static int ublox_spi_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct emul_ublox_spi *s = (struct emul_ublox_spi *)(void *)dev;
	struct uart *u = &s->rx->uart;

	s->transfers++;
	s->rx->rx_baud = s->rx->host_baud;
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < x[i].len; k++) {
			uint8_t in = x[i].tx ? x[i].tx[k] : 0;
			if (in != 0xff)
				u->ops->write(u, &in, 1);
			uint8_t out;
			if (u->ops->read(u, &out, 1) != 1)
				out = 0xff;
			if (x[i].rx)
				x[i].rx[k] = out;
		}
	}
	return 0;
}

static void ublox_spi_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops ublox_spi_ops = {
	.transfer_batch = ublox_spi_batch,
	.close = ublox_spi_close,
};

void emul_ublox_spi_init(struct emul_ublox_spi *s, struct emul_ublox *rx)
{
	memset(s, 0, sizeof(*s));
	s->dev.ops = &ublox_spi_ops;
	s->rx = rx;
	rx->rx_baud = rx->host_baud;
}

/* ---- edge-event input */

static int edges_read(struct gpio_line *line, struct gpio_event *ev, size_t max)
{
	struct emul_edges *e = (struct emul_edges *)(void *)line;
	size_t k = 0;

	while (k < max && e->next < e->n && e->ev[e->next].t_ns <= e->now_ns)
		ev[k++] = e->ev[e->next++];
	return (int)k;
}

static int edges_get(struct gpio_line *line)
{
	struct emul_edges *e = (struct emul_edges *)(void *)line;
	return e->next ? e->ev[e->next - 1].rising : 0;
}

static int edges_set(struct gpio_line *line, int value)
{
	(void)line;
	(void)value;
	return -EPERM;
}

static void edges_close(struct gpio_line *line)
{
	(void)line;
}

static const struct gpio_ops edges_ops = {
	.set = edges_set,
	.get = edges_get,
	.read_events = edges_read,
	.close = edges_close,
};

void emul_edges_init(struct emul_edges *e)
{
	memset(e, 0, sizeof(*e));
	e->line.ops = &edges_ops;
}

void emul_edges_add(struct emul_edges *e, bool rising, uint64_t t_ns)
{
	if (e->n >= EMUL_EDGES_MAX)
		return;
	e->ev[e->n] = (struct gpio_event){ .t_ns = t_ns, .seqno = (uint32_t)e->n + 1,
					   .rising = rising };
	e->n++;
}

/* ---- analog input */

static int analog_emul_read(struct analog_in *in, double *value)
{
	struct emul_analog *a = (struct emul_analog *)(void *)in;

	a->reads++;
	if (a->fail_next) {
		a->fail_next--;
		return -EIO;
	}
	*value = a->value;
	return 0;
}

static void analog_emul_close(struct analog_in *in)
{
	(void)in;
}

static const struct analog_ops analog_emul_ops = {
	.read = analog_emul_read,
	.close = analog_emul_close,
};

void emul_analog_init(struct emul_analog *a, double value)
{
	memset(a, 0, sizeof(*a));
	a->in.ops = &analog_emul_ops;
	a->value = value;
}

/* ---- RC capture hardware */

void emul_levels_init(struct emul_levels *l, uint64_t t0_us)
{
	l->n = l->next = 0;
	l->t_us = t0_us;
}

void emul_levels_add(struct emul_levels *l, bool high, uint32_t dur_us)
{
	if (l->n >= EMUL_LEVELS_MAX || dur_us == 0)
		return;
	if (l->n > l->next && l->high[l->n - 1] == high) {
		l->dur_us[l->n - 1] += dur_us;
		l->end_us[l->n - 1] += dur_us;
	} else {
		l->high[l->n] = high;
		l->dur_us[l->n] = dur_us;
		l->end_us[l->n] = l->t_us + dur_us;
		l->n++;
	}
	l->t_us += dur_us;
}

static uint32_t pl_fifo_read32(struct mmio *m, size_t off)
{
	struct emul_pl_fifo *f = (struct emul_pl_fifo *)(void *)m;

	if (off != f->fifo_off)
		return 0;
	f->pops++;
	struct emul_levels *l = &f->lv;
	/* A level is in the FIFO once the edge after it is seen: not the last one. */
	if (l->next + 1 >= l->n || l->end_us[l->next] > f->now_us)
		return 0xffffffffu;
	uint32_t v = (l->high[l->next] ? 0x80000000u : 0) | (l->dur_us[l->next] * 100u);
	l->next++;
	return v;
}

static void pl_fifo_write32(struct mmio *m, size_t off, uint32_t value)
{
	(void)m;
	(void)off;
	(void)value;
}

static void pl_fifo_close(struct mmio *m)
{
	(void)m;
}

static const struct mmio_ops pl_fifo_ops = {
	.read32 = pl_fifo_read32,
	.write32 = pl_fifo_write32,
	.close = pl_fifo_close,
};

void emul_pl_fifo_init(struct emul_pl_fifo *f, size_t len, size_t fifo_off, uint64_t t0_us)
{
	memset(f, 0, sizeof(*f));
	f->m.ops = &pl_fifo_ops;
	f->m.len = len;
	f->fifo_off = fifo_off;
	emul_levels_init(&f->lv, t0_us);
}

void emul_pru_rcin_init(struct emul_pru_rcin *p, volatile uint32_t *ram, uint64_t t0_us)
{
	memset(p, 0, sizeof(*p));
	p->ram = ram;
	emul_levels_init(&p->lv, t0_us);
	p->tail = 20;   /* where rcinpru0 starts */
	p->ram[0] = (uint32_t)p->tail << 16;
}

void emul_pru_rcin_advance(struct emul_pru_rcin *p, uint64_t now_us)
{
	struct emul_levels *l = &p->lv;

	while (l->next + 1 < l->n && l->end_us[l->next] <= now_us) {
		uint32_t dt = l->dur_us[l->next] & 0xffffu;
		p->ram[1 + p->tail] = (dt << 16) | (l->high[l->next] ? 1u : 0u);
		p->tail = (uint16_t)((p->tail + 1) % 300);
		p->ram[0] = (p->ram[0] & 0xffffu) | ((uint32_t)p->tail << 16);
		l->next++;
	}
}
