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
#include "fulmar/mmio.h"
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

/*
 * RC capture hardware fed from a list of pin levels, each seen only once the
 * clock has passed its end:
 * - the Zynq PL pulse-capture FIFO behind a struct mmio (a read of the
 *   keyhole at fifo_off pops {bit 31 level, bits 30..0 ticks at 100 MHz},
 *   0xFFFFFFFF when empty);
 * - the BeagleBone rcinpru0 ring, written into a mapping of PRU shared RAM
 *   (the level that ended and its length in us, then the tail).
 */
#define EMUL_LEVELS_MAX 65536

struct emul_levels {
	bool high[EMUL_LEVELS_MAX];
	uint32_t dur_us[EMUL_LEVELS_MAX];
	uint64_t end_us[EMUL_LEVELS_MAX];
	size_t n, next;
	uint64_t t_us;                /* where the next level added starts */
};

void emul_levels_init(struct emul_levels *l, uint64_t t0_us);
void emul_levels_add(struct emul_levels *l, bool high, uint32_t dur_us);

struct emul_pl_fifo {
	struct mmio m;                /* first */
	size_t fifo_off;
	struct emul_levels lv;
	uint64_t now_us;
	uint64_t pops;
};

void emul_pl_fifo_init(struct emul_pl_fifo *f, size_t len, size_t fifo_off, uint64_t t0_us);

struct emul_pru_rcin {
	volatile uint32_t *ram;       /* the ring, as the PRU sees it */
	struct emul_levels lv;
	uint16_t tail;
};

void emul_pru_rcin_init(struct emul_pru_rcin *p, volatile uint32_t *ram, uint64_t t0_us);
/* Writes the levels that have ended by now_us into the ring. */
void emul_pru_rcin_advance(struct emul_pru_rcin *p, uint64_t now_us);

#endif
