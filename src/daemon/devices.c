// SPDX-License-Identifier: GPL-3.0-or-later
#include "daemon/devices.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYSFS_ROOT "/sys"

unsigned int devices_missing(const struct board *board, char *buf, size_t len)
{
	unsigned int count = 0;
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned int i = 0; i < board->n_devs; i++) {
		const struct board_dev *d = &board->devs[i];
		if (!d->missing)
			continue;
		int w = snprintf(buf + n, len - n, "%s%s (%s): %s", count ? "; " : "", d->name,
				 d->what, d->missing);
		count++;
		if (w > 0 && (size_t)w < len - n)
			n += (size_t)w;
	}
	return count;
}

static const char *kind_name(enum board_dev_kind k)
{
	switch (k) {
	case BOARD_DEV_SPI: return "spi";
	case BOARD_DEV_I2C: return "i2c";
	case BOARD_DEV_GPIO: return "gpio";
	case BOARD_DEV_UART: return "uart";
	case BOARD_DEV_ANALOG: return "analog";
	case BOARD_DEV_MMIO: return "mmio";
	case BOARD_DEV_SYSFS: return "sysfs";
	}
	return "?";
}

/* "chip:line" */
static int parse_gpio(char *v, struct gpio_config *g)
{
	char *colon = strrchr(v, ':');
	if (!colon || colon == v)
		return -EINVAL;
	char *end;
	unsigned long off = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end || off > 4095)
		return -EINVAL;
	*colon = '\0';
	g->chip = v;
	g->offset = (unsigned int)off;
	return 0;
}

/* "device:channel" */
static int parse_analog(char *v, struct analog_config *a)
{
	char *colon = strchr(v, ':');
	if (!colon || colon == v || !colon[1])
		return -EINVAL;
	*colon = '\0';
	a->device = v;
	a->channel = colon + 1;
	return 0;
}

/* "uio:NAME" or "PATH@0xBASE" */
static int parse_mmio(char *v, struct mmio_config *m)
{
	if (strncmp(v, "uio:", 4) == 0 && v[4]) {
		m->uio_name = v + 4;
		m->uio_map = 0;
		return 0;
	}
	char *at = strchr(v, '@');
	if (!at || at == v)
		return -EINVAL;
	char *end;
	unsigned long long base = strtoull(at + 1, &end, 0);
	if (end == at + 1 || *end || base % 4096)
		return -EINVAL;
	*at = '\0';
	m->uio_name = NULL;
	m->mem_path = v;
	m->phys_base = base;
	return 0;
}

static const char *override_form(enum board_dev_kind k)
{
	switch (k) {
	case BOARD_DEV_GPIO: return "CHIP:LINE, e.g. gpiochip0:4";
	case BOARD_DEV_ANALOG: return "DEVICE:CHANNEL, e.g. ads1015:voltage2";
	case BOARD_DEV_MMIO: return "uio:NAME or PATH@0xBASE (page aligned)";
	case BOARD_DEV_SYSFS: return "a directory, e.g. /sys/kernel/rcio";
	default: return "a device path";
	}
}

static int apply_override(struct device *dev, const struct config_override *o)
{
	snprintf(dev->value, sizeof(dev->value), "%s", o->value);
	if (strcmp(dev->value, "none") == 0) {
		dev->disabled = true;
		return 0;
	}
	dev->disabled = false;
	struct board_dev *d = &dev->desc;
	switch (d->kind) {
	case BOARD_DEV_SPI: d->u.spi.cfg.path = dev->value; return 0;
	case BOARD_DEV_I2C: d->u.i2c.cfg.path = dev->value; return 0;
	case BOARD_DEV_UART: d->u.uart.cfg.path = dev->value; return 0;
	case BOARD_DEV_GPIO: return parse_gpio(dev->value, &d->u.gpio.cfg);
	case BOARD_DEV_ANALOG: return parse_analog(dev->value, &d->u.analog.cfg);
	case BOARD_DEV_MMIO: return parse_mmio(dev->value, &d->u.mmio.cfg);
	case BOARD_DEV_SYSFS: d->u.sysfs.cfg.path = dev->value; return 0;
	}
	return -EINVAL;
}

/* Where the device is, for messages. */
static void locate(const struct board_dev *d, char *buf, size_t len)
{
	switch (d->kind) {
	case BOARD_DEV_SPI: snprintf(buf, len, "%s", d->u.spi.cfg.path); break;
	case BOARD_DEV_I2C: snprintf(buf, len, "%s", d->u.i2c.cfg.path); break;
	case BOARD_DEV_UART: snprintf(buf, len, "%s", d->u.uart.cfg.path ? d->u.uart.cfg.path : "(none)"); break;
	case BOARD_DEV_GPIO:
		snprintf(buf, len, "%s line %u", d->u.gpio.cfg.chip, d->u.gpio.cfg.offset);
		break;
	case BOARD_DEV_ANALOG:
		/* a file of a kernel module's (analog_sysfs) has a path for its device */
		snprintf(buf, len, "%s%s/%s", d->u.analog.cfg.device[0] == '/' ? "" : "IIO ",
			 d->u.analog.cfg.device, d->u.analog.cfg.channel);
		break;
	case BOARD_DEV_SYSFS: snprintf(buf, len, "%s", d->u.sysfs.cfg.path); break;
	case BOARD_DEV_MMIO:
		if (d->u.mmio.cfg.uio_name)
			snprintf(buf, len, "UIO '%s' map %u", d->u.mmio.cfg.uio_name,
				 d->u.mmio.cfg.uio_map);
		else
			snprintf(buf, len, "%s@0x%08" PRIx64 " (%zu bytes)", d->u.mmio.cfg.mem_path,
				 d->u.mmio.cfg.phys_base, d->u.mmio.cfg.len);
		break;
	}
}

static int open_one(struct device *dev)
{
	const struct board_dev *d = &dev->desc;
	int rc = -EINVAL;
	switch (d->kind) {
	case BOARD_DEV_SPI: {
		struct spi_dev *h;
		rc = d->u.spi.open(&d->u.spi.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_I2C: {
		struct i2c_bus *h;
		rc = d->u.i2c.open(&d->u.i2c.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_GPIO: {
		struct gpio_line *h;
		rc = d->u.gpio.open(&d->u.gpio.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_UART: {
		struct uart *h;
		rc = d->u.uart.open(&d->u.uart.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_ANALOG: {
		struct analog_in *h;
		rc = d->u.analog.open(&d->u.analog.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_SYSFS: {
		struct sysfs_dir *h;
		rc = d->u.sysfs.open(&d->u.sysfs.cfg, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	case BOARD_DEV_MMIO: {
		struct mmio *h;
		rc = d->u.mmio.open(&d->u.mmio.cfg, SYSFS_ROOT, &h);
		dev->handle = rc ? NULL : h;
		break;
	}
	}
	return rc;
}

static void close_one(struct device *dev)
{
	switch (dev->desc.kind) {
	case BOARD_DEV_SPI: spi_close(dev->handle); break;
	case BOARD_DEV_I2C: i2c_close(dev->handle); break;
	case BOARD_DEV_GPIO: gpio_close(dev->handle); break;
	case BOARD_DEV_UART: uart_close(dev->handle); break;
	case BOARD_DEV_ANALOG: analog_close(dev->handle); break;
	case BOARD_DEV_MMIO: mmio_close(dev->handle); break;
	case BOARD_DEV_SYSFS: sysfs_close(dev->handle); break;
	}
	dev->handle = NULL;
}

int devices_open(struct devices *d, const struct board *board, const struct config *cfg,
		 bool hil, char *err, size_t err_len)
{
	memset(d, 0, sizeof(*d));
	d->board = board;
	if (board->n_devs > DEVICES_MAX) {
		snprintf(err, err_len, "board %s has more than %d devices", board->name, DEVICES_MAX);
		return -E2BIG;
	}
	for (unsigned int i = 0; i < board->n_devs; i++) {
		struct device *dev = &d->dev[i];
		dev->desc = board->devs[i];
		dev->disabled = dev->desc.optional || hil;
		for (unsigned int j = 0; j < cfg->n_overrides; j++) {
			const struct config_override *o = &cfg->overrides[j];
			if (strcmp(o->device, dev->desc.name) == 0 && apply_override(dev, o)) {
				snprintf(err, err_len, "%s: '%s' for %s device '%s' is not %s",
					 o->where, o->value, kind_name(dev->desc.kind), o->device,
					 override_form(dev->desc.kind));
				return -EINVAL;
			}
		}
		/* RNGFND1_TYPE picks a rangefinder entry once the parameters are in */
		if (dev->desc.drv.rngfnd_type) {
			dev->refused = strcmp(dev->value, "none") == 0;
			dev->disabled = true;
		}
	}
	d->n = board->n_devs;

	int rc = 0;
	for (unsigned int i = 0; i < d->n; i++) {
		struct device *dev = &d->dev[i];
		if (dev->disabled)
			continue;
		rc = open_one(dev);
		if (rc) {
			char where[PATH_MAX];
			locate(&dev->desc, where, sizeof(where));
			snprintf(err, err_len, "%s (%s): %s: %s", dev->desc.name, dev->desc.what,
				 where, strerror(-rc));
			goto err_close;
		}
	}
	return 0;

err_close:
	devices_close(d);
	return rc;
}

bool devices_rangefinder_type_matches(unsigned int tag, int type)
{
	/* ArduPilot's 3 (LidarLite-I2C) and 15 (LidarLiteV3-I2C) speak the same registers */
	if (type == 3)
		type = 15;
	if (tag == 3)
		tag = 15;
	return tag != 0 && type > 0 && tag == (unsigned int)type;
}

int devices_open_rangefinder(struct devices *d, int type, int addr, const char **name,
			     char *err, size_t err_len)
{
	for (unsigned int i = 0; i < d->n; i++) {
		struct device *dev = &d->dev[i];
		if (!devices_rangefinder_type_matches(dev->desc.drv.rngfnd_type, type) || dev->refused)
			continue;
		if (addr > 0 && addr < 128 && dev->desc.kind == BOARD_DEV_I2C)
			dev->desc.u.i2c.addr = (uint8_t)addr;
		int rc = open_one(dev);
		if (rc) {
			char where[PATH_MAX];
			locate(&dev->desc, where, sizeof(where));
			snprintf(err, err_len, "%s (%s, RNGFND1_TYPE %d): %s: %s", dev->desc.name,
				 dev->desc.what, type, where, strerror(-rc));
			return rc;
		}
		dev->disabled = false;
		*name = dev->desc.name;
		return 1;
	}
	return 0;
}

void devices_close(struct devices *d)
{
	for (unsigned int i = d->n; i-- > 0;)
		if (d->dev[i].handle)
			close_one(&d->dev[i]);
}

void *devices_find(const struct devices *d, const char *name, enum board_dev_kind kind)
{
	for (unsigned int i = 0; i < d->n; i++)
		if (d->dev[i].desc.kind == kind && strcmp(d->dev[i].desc.name, name) == 0)
			return d->dev[i].handle;
	return NULL;
}

void devices_describe(const struct board *board, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned int i = 0; i < board->n_devs && n < len; i++) {
		const struct board_dev *d = &board->devs[i];
		char where[PATH_MAX];
		locate(d, where, sizeof(where));
		/* a rangefinder entry is optional too: opened only when RNGFND1_TYPE picks it */
		char tag[32] = "";
		if (d->drv.rngfnd_type)
			snprintf(tag, sizeof(tag), " [RNGFND1_TYPE %u]", d->drv.rngfnd_type);
		int w = snprintf(buf + n, len - n, "  %-8s %-6s %-40s %s%s%s%s\n", d->name,
				 kind_name(d->kind), where, d->what,
				 d->optional || d->drv.rngfnd_type ? " [optional]" : "", tag,
				 d->missing ? " [MISSING: " : "");
		if (w < 0)
			return;
		n += (size_t)w;
		if (d->missing && n < len) {
			n--;  /* before the newline */
			w = snprintf(buf + n, len - n, "%s]\n", d->missing);
			if (w < 0)
				return;
			n += (size_t)w;
		}
	}
}
