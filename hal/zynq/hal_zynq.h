/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Zynq-7000 PL backends (the PL design ArduPilot's Zynq drivers expect,
 * as libraries/AP_HAL_Linux/RCInput_ZYNQ.cpp/.h and RCOutput_ZYNQ.cpp/.h
 * describe it; docs/boards.md, "Where the wiring facts come from"): an RC
 * pulse-capture FIFO read through one keyhole register, and 8 PWM outputs as
 * {period, high} register pairs, both in ticks of a 100 MHz clock (100 per us).
 *
 * Constructors of backends, seen by board files and tests only. Each takes a
 * register window the caller has opened (mmio_linux_open from the board table:
 * a UIO map or /dev/mem; 0x43C10000 and 0x43C00000 in the reference design)
 * and the byte offset of the registers in it. The window is not owned: it
 * must stay open until the handle is closed, and closing the handle leaves it
 * open. Each returns 0 and writes *out, or returns -errno and leaves *out
 * alone.
 *
 * What cannot be told from here: an access to a PL address with no logic
 * behind it (bitstream not loaded) may hang the interconnect or raise SIGBUS
 * rather than read as anything. Load the bitstream before fulmard starts, and
 * prefer a UIO node that comes with the bitstream's device-tree overlay: when
 * it exists, the logic is there.
 */
#ifndef FULMAR_HAL_ZYNQ_H
#define FULMAR_HAL_ZYNQ_H

#include <stddef.h>

#include "fulmar/mmio.h"
#include "fulmar/rcin.h"
#include "fulmar/rcout.h"

/* Entries one rcin_read pops at most; the rest wait for the next call. */
#define RCIN_ZYNQ_POPS_MAX 512
/* Entries rcin_zynq_open pops at most while emptying the FIFO. */
#define RCIN_ZYNQ_DRAIN_MAX 65536

/*
 * RC input from the keyhole register at byte offset off of win. Every read of
 * it pops one entry: 0xFFFFFFFF when the FIFO is empty, else bit 31 the level
 * that ended, bits 30..0 its length in ticks. Open empties the FIFO (what it
 * held has no time to it). Returns -EINVAL when the register is outside the
 * window, -EPROTO when it has not read empty after RCIN_ZYNQ_DRAIN_MAX reads
 * (not a pulse-capture FIFO). A window that always reads all ones looks like
 * an empty FIFO and cannot be told from a quiet pin.
 */
int rcin_zynq_open(struct mmio *win, size_t off, struct rcin **out);

#define RCOUT_ZYNQ_CHANNELS 8
#define RCOUT_ZYNQ_BYTES (8 * RCOUT_ZYNQ_CHANNELS)

/*
 * 8 outputs through the {period, high} pairs at byte offset off of win, all
 * at 50 Hz with no pulses (high 0). Returns -EINVAL when the registers do not
 * fit the window, -ENXIO when they read all ones, -EIO when they do not hold
 * what was written (no PWM block there).
 */
int rcout_zynq_open(struct mmio *win, size_t off, struct rcout **out);

#endif
