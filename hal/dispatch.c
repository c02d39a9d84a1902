// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The public HAL calls: each forwards to its backend's op. An optional op that
 * a backend leaves NULL gives -ENOTSUP.
 */
#include <assert.h>
#include <errno.h>

#include "fulmar/analog.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/mmio.h"
#include "fulmar/rcin.h"
#include "fulmar/rcout.h"
#include "fulmar/sysfs.h"
#include "fulmar/spi.h"
#include "fulmar/uart.h"

int spi_transfer(struct spi_dev *dev, const uint8_t *tx, uint8_t *rx, size_t len)
{
	if (len > UINT32_MAX)
		return -EINVAL;
	const struct spi_xfer x = { .tx = tx, .rx = rx, .len = (uint32_t)len };
	return dev->ops->transfer_batch(dev, &x, 1);
}

int spi_transfer_batch(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n)
{
	return dev->ops->transfer_batch(dev, xfers, n);
}

int spi_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	if (!dev->ops->set_speed)
		return -ENOTSUP;
	return dev->ops->set_speed(dev, speed_hz);
}

void spi_close(struct spi_dev *dev)
{
	if (dev)
		dev->ops->close(dev);
}

int i2c_write(struct i2c_bus *bus, uint8_t addr, const uint8_t *buf, size_t len)
{
	return bus->ops->write_read(bus, addr, buf, len, NULL, 0);
}

int i2c_read(struct i2c_bus *bus, uint8_t addr, uint8_t *buf, size_t len)
{
	return bus->ops->write_read(bus, addr, NULL, 0, buf, len);
}

int i2c_write_read(struct i2c_bus *bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
		   uint8_t *rx, size_t rx_len)
{
	return bus->ops->write_read(bus, addr, tx, tx_len, rx, rx_len);
}

void i2c_close(struct i2c_bus *bus)
{
	if (bus)
		bus->ops->close(bus);
}

int gpio_set(struct gpio_line *line, int value)
{
	return line->ops->set(line, value);
}

int gpio_get(struct gpio_line *line)
{
	return line->ops->get(line);
}

int gpio_read_events(struct gpio_line *line, struct gpio_event *ev, size_t max)
{
	if (!line->ops->read_events)
		return -ENOTSUP;
	return line->ops->read_events(line, ev, max);
}

int gpio_event_fd(struct gpio_line *line)
{
	if (!line->ops->event_fd)
		return -ENOTSUP;
	return line->ops->event_fd(line);
}

void gpio_close(struct gpio_line *line)
{
	if (line)
		line->ops->close(line);
}

int uart_read(struct uart *u, uint8_t *buf, size_t len)
{
	return u->ops->read(u, buf, len);
}

int uart_write(struct uart *u, const uint8_t *buf, size_t len)
{
	return u->ops->write(u, buf, len);
}

int uart_set_baud(struct uart *u, uint32_t baud)
{
	if (!u->ops->set_baud)
		return -ENOTSUP;
	return u->ops->set_baud(u, baud);
}

int uart_fd(struct uart *u)
{
	if (!u->ops->fd)
		return -ENOTSUP;
	return u->ops->fd(u);
}

void uart_close(struct uart *u)
{
	if (u)
		u->ops->close(u);
}

int analog_read(struct analog_in *in, double *value)
{
	return in->ops->read(in, value);
}

void analog_close(struct analog_in *in)
{
	if (in)
		in->ops->close(in);
}

uint32_t mmio_read32(struct mmio *m, size_t off)
{
	assert(off % 4 == 0 && off + 4 <= m->len);
	return m->ops->read32(m, off);
}

void mmio_write32(struct mmio *m, size_t off, uint32_t value)
{
	assert(off % 4 == 0 && off + 4 <= m->len);
	m->ops->write32(m, off, value);
}

size_t mmio_len(const struct mmio *m)
{
	return m->len;
}

void mmio_close(struct mmio *m)
{
	if (m)
		m->ops->close(m);
}

int rcin_read(struct rcin *in, struct rcin_pulse *out, size_t max, uint64_t now_us)
{
	int n = in->ops->read(in, out, max, now_us);
	if (n > 0)
		in->stats.pulses += (uint64_t)n;
	return n;
}

const struct rcin_stats *rcin_stats(const struct rcin *in)
{
	return &in->stats;
}

void rcin_close(struct rcin *in)
{
	if (in)
		in->ops->close(in);
}

unsigned int rcout_channels(const struct rcout *out)
{
	return out->channels;
}

int rcout_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	if (rate_hz == 0 || rate_hz > 1000)
		return -EINVAL;
	return out->ops->set_rate(out, mask, rate_hz);
}

int rcout_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	if (ch >= out->channels || (pulse_us != 0 && (pulse_us < 500 || pulse_us > 2500)))
		return -EINVAL;
	return out->ops->write(out, ch, pulse_us);
}

int rcout_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	if (ch >= out->channels)
		return -EINVAL;
	return out->ops->read(out, ch, pulse_us);
}

void rcout_close(struct rcout *out)
{
	if (out)
		out->ops->close(out);
}

int sysfs_read(struct sysfs_dir *dir, const char *name, char *buf, size_t cap)
{
	assert(cap > 0);
	return dir->ops->read(dir, name, buf, cap);
}

const char *sysfs_path(const struct sysfs_dir *dir)
{
	return dir->path;
}

void sysfs_close(struct sysfs_dir *dir)
{
	if (dir)
		dir->ops->close(dir);
}
