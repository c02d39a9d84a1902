/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * RC input from the Navio2's RCIO co-processor (rcio_rc.c): the channel
 * widths Emlid's rcio kernel module publishes under /sys/kernel/rcio/rcin,
 * read on the io thread. What the board names and tests look at.
 */
#ifndef FULMAR_DRIVERS_RCIO_RC_H
#define FULMAR_DRIVERS_RCIO_RC_H

#include <stdint.h>

#include "drivers/driver.h"

/* Channels read, rcin/ch0.. (ArduPilot's RCInput_Navio2 reads 8 too). */
#define RCIO_RC_CHANNELS 8u
/* Fewer leading channels than this (roll, pitch, throttle, yaw) is no signal. */
#define RCIO_RC_MIN_CHANNELS 4u
/* The widths the module itself lets through (rcio_rcin.c keeps the old value outside). */
#define RCIO_RC_PULSE_MIN_US 800
#define RCIO_RC_PULSE_MAX_US 2500

/* Why no frame was given; counted in rcio_rc_stats.faults. */
enum rcio_rc_fault {
	RCIO_RC_OK = 0,
	RCIO_RC_DEAD,          /* status/alive says the co-processor does not answer */
	RCIO_RC_NO_SIGNAL,     /* rcin/connected is 0, or too few channels carry a width */
	RCIO_RC_READ_ERROR,    /* a file is gone or would not read */
	RCIO_RC_GARBAGE,       /* a file holds something other than a whole number */
	RCIO_RC_RANGE,         /* a width outside RCIO_RC_PULSE_MIN_US..MAX_US, or a gap */
	RCIO_RC_FAULT_COUNT
};

/* Written by the io thread only. */
struct rcio_rc_stats {
	uint64_t frames;                           /* published */
	uint64_t faults[RCIO_RC_FAULT_COUNT];      /* reads that gave no frame, by why */
	enum rcio_rc_fault fault;                  /* of the last read */
};

/* The counts of an instance of rcio_rc_driver (tests, reports). */
const struct rcio_rc_stats *rcio_rc_stats(const struct drv_inst *d);

#endif
