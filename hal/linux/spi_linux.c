// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * SPI over spidev. A batch goes to the kernel as one SPI_IOC_MESSAGE, so chip
 * select stays asserted across its segments and no other user of the bus can
 * slip in between (a register address and its burst read stay together).
 */
#include "linux/hal_linux.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/spi/spidev.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Segments per batch: a bound lets the kernel's transfer array live on the stack. */
#define SPI_LINUX_MAX_XFERS SPI_MAX_XFERS

/*
 * SPI_IOC_MESSAGE(n) sizes a char array by n, which is a VLA type when n is not
 * a constant (-Wvla); this is the same request number built without one.
 */
#define SPI_LINUX_MESSAGE(n) \
	_IOC(_IOC_WRITE, SPI_IOC_MAGIC, 0, (n) * sizeof(struct spi_ioc_transfer))
static_assert(SPI_LINUX_MESSAGE(2) == SPI_IOC_MESSAGE(2), "spidev request number");
static_assert(SPI_LINUX_MAX_XFERS * sizeof(struct spi_ioc_transfer) < (1u << _IOC_SIZEBITS),
	      "a batch must fit the ioctl size field");

struct spi_linux {
	struct spi_dev dev;
	int fd;
	uint32_t speed_hz;
	uint8_t bits_per_word;
};

static int spi_linux_transfer_batch(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n)
{
	struct spi_linux *s = (struct spi_linux *)dev;
	struct spi_ioc_transfer tr[SPI_LINUX_MAX_XFERS];

	if (n == 0 || n > SPI_LINUX_MAX_XFERS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		tr[i] = (struct spi_ioc_transfer){
			.tx_buf = (uintptr_t)xfers[i].tx,
			.rx_buf = (uintptr_t)xfers[i].rx,
			.len = xfers[i].len,
			.speed_hz = xfers[i].speed_hz ? xfers[i].speed_hz : s->speed_hz,
			.bits_per_word = s->bits_per_word,
			.cs_change = xfers[i].cs_change,
		};
	}
	/* The kernel moves all of it or fails; the byte count it returns adds nothing. */
	if (ioctl(s->fd, SPI_LINUX_MESSAGE(n), tr) < 0)
		return -errno;
	return 0;
}

static int spi_linux_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	struct spi_linux *s = (struct spi_linux *)dev;

	if (speed_hz == 0)
		return -EINVAL;
	if (ioctl(s->fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0)
		return -errno;
	s->speed_hz = speed_hz;
	return 0;
}

static void spi_linux_close(struct spi_dev *dev)
{
	struct spi_linux *s = (struct spi_linux *)dev;

	close(s->fd);
	free(s);
}

static const struct spi_ops spi_linux_ops = {
	.transfer_batch = spi_linux_transfer_batch,
	.set_speed = spi_linux_set_speed,
	.close = spi_linux_close,
};

int spi_linux_open(const struct spi_config *cfg, struct spi_dev **out)
{
	uint8_t mode = cfg->mode;
	uint8_t bits = cfg->bits_per_word ? cfg->bits_per_word : 8;
	uint32_t speed_hz = cfg->speed_hz;
	int err;

	if (mode > 3 || speed_hz == 0)
		return -EINVAL;
	struct spi_linux *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dev.ops = &spi_linux_ops;
	s->speed_hz = speed_hz;
	s->bits_per_word = bits;

	s->fd = open(cfg->path, O_RDWR | O_CLOEXEC);
	if (s->fd < 0) {
		err = -errno;
		goto err_free;
	}
	/*
	 * The 8-bit mode ioctl replaces the low mode bits, so CS_HIGH, LSB_FIRST
	 * and 3WIRE left by an earlier user of the device are cleared too.
	 */
	if (ioctl(s->fd, SPI_IOC_WR_MODE, &mode) < 0 ||
	    ioctl(s->fd, SPI_IOC_WR_BITS_PER_WORD, &bits) < 0 ||
	    ioctl(s->fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0) {
		err = -errno;
		goto err_close;
	}
	*out = &s->dev;
	return 0;

err_close:
	close(s->fd);
err_free:
	free(s);
	return err;
}
