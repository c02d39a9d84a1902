/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Emulated parts a whole board needs besides its chips (tests of
 * src/daemon/board_io.c): an SPI bus whose chips are chosen by GPIO chip
 * selects, the u-blox receiver seen through its SPI port, an edge-event GPIO
 * input (an RC receiver's pin), and an analog input. Single-threaded; the
 * test owns them and moves their clocks.
 */
#ifndef FULMAR_TESTS_EMUL_BOARD_H
#define FULMAR_TESTS_EMUL_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emul_gpio.h"
#include "emul_ublox.h"
#include "fulmar/analog.h"
#include "fulmar/gpio.h"
#include "fulmar/spi.h"

#define EMUL_CS_BUS_MAX 4

/*
 * One SPI bus, chips behind GPIO chip-select lines (logical 1 = selected). A
 * transfer with no chip or more than one selected reaches nobody: it reads
 * 0xFF (a floating MISO) and counts as a clash.
 */
struct emul_cs_bus {
	struct spi_dev dev;           /* first: every handle on the bus is this */
	struct emul_gpio *cs[EMUL_CS_BUS_MAX];
	struct spi_dev *chip[EMUL_CS_BUS_MAX];
	size_t n;
	uint32_t transfers;
	uint32_t clashes;             /* none or several selected */
};

void emul_cs_bus_init(struct emul_cs_bus *b);
void emul_cs_bus_attach(struct emul_cs_bus *b, struct emul_gpio *cs, struct spi_dev *chip);

/*
 * A u-blox's SPI port (DDC/SPI protocol): bytes clocked in that are not 0xFF
 * go to the receiver, bytes clocked out are its output, 0xFF when it has
 * none. The port has no baud rate: the receiver is put at the host's.
 */
struct emul_ublox_spi {
	struct spi_dev dev;           /* first: the driver sees this */
	struct emul_ublox *rx;
	uint32_t transfers;
};

void emul_ublox_spi_init(struct emul_ublox_spi *s, struct emul_ublox *rx);

#define EMUL_EDGES_MAX 65536

/* An input line with kernel-style edge events, handed out once their time has come. */
struct emul_edges {
	struct gpio_line line;        /* first */
	struct gpio_event ev[EMUL_EDGES_MAX];
	size_t n, next;
	uint64_t now_ns;
};

void emul_edges_init(struct emul_edges *e);
void emul_edges_add(struct emul_edges *e, bool rising, uint64_t t_ns);

/* An analog input reading value (IIO units: millivolts), or failing. */
struct emul_analog {
	struct analog_in in;          /* first */
	double value;
	unsigned int fail_next;
	uint32_t reads;
};

void emul_analog_init(struct emul_analog *a, double value);

#endif
