/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SPI device access (one chip select on one bus).
 *
 * A handle belongs to the thread that uses it (sensor drivers: the timer
 * thread); it is not safe to share between threads. All functions return 0
 * (or a byte count where noted) on success and -errno on failure.
 */
#ifndef FULMAR_SPI_H
#define FULMAR_SPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spi_dev;

/* How the board wires a device; const, owned by the board file. */
struct spi_config {
	const char *path;       /* "/dev/spidev0.1" */
	uint8_t mode;           /* 0..3: CPOL | CPHA */
	uint8_t bits_per_word;  /* 0 means 8 */
	uint32_t speed_hz;      /* clock for transfers that do not say otherwise */
};

/* One segment of a batched transfer; all segments go in one kernel call. */
struct spi_xfer {
	const uint8_t *tx;      /* NULL clocks out zeros */
	uint8_t *rx;            /* NULL discards what is read */
	uint32_t len;
	uint32_t speed_hz;      /* 0: the device's current speed */
	bool cs_change;         /* release chip select after this segment (not on the last:
	                           spidev reads it there as "keep it asserted after") */
};

/* Segments in one batch at most (the Linux backend's bound); more give -EINVAL. */
#define SPI_MAX_XFERS 16

/* Full duplex: len bytes out of tx while len bytes come into rx (either may be NULL). */
int spi_transfer(struct spi_dev *dev, const uint8_t *tx, uint8_t *rx, size_t len);
/* n (1..SPI_MAX_XFERS) segments with chip select held across them unless a segment says cs_change. */
int spi_transfer_batch(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n);
/* Change the default clock (chips with a slow set-up and a fast data rate). */
int spi_set_speed(struct spi_dev *dev, uint32_t speed_hz);
/* NULL is a no-op. */
void spi_close(struct spi_dev *dev);

/* For backends only: embed struct spi_dev first in the backend's state. */
struct spi_ops {
	int (*transfer_batch)(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n);
	int (*set_speed)(struct spi_dev *dev, uint32_t speed_hz);  /* optional */
	void (*close)(struct spi_dev *dev);
};

struct spi_dev {
	const struct spi_ops *ops;
};

#endif
