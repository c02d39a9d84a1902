/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Servo and ESC outputs: pulses of pulse_us at a rate per channel group.
 * Backends: the BeagleBone PRU PWM firmware, the Zynq PL PWM block, the
 * I2C PWM chip of the Navio (a driver in src/drivers). Owned by the main
 * thread. Functions return 0 or -errno.
 * Channels count from 0. A channel at 0 us sends no pulses (a servo holds,
 * an ESC sees no signal): outputs start that way until written.
 */
#ifndef FULMAR_RCOUT_H
#define FULMAR_RCOUT_H

#include <stddef.h>
#include <stdint.h>

struct rcout;

/* How many channels the backend has. */
unsigned int rcout_channels(const struct rcout *out);
/* Pulse rate (50 Hz for servos, up to 490 Hz for ESCs) of the channels in mask. */
int rcout_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz);
/*
 * Pulse width of one channel: 0 (off) or 500..2500 us, and shorter than the
 * channel's period (2500 us does not fit 490 Hz); else -EINVAL.
 */
int rcout_write(struct rcout *out, unsigned int ch, uint16_t pulse_us);
/* The pulse width the hardware is producing now (read back where it can say). */
int rcout_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us);
/* NULL is a no-op; outputs go off (no pulses) first. */
void rcout_close(struct rcout *out);

/* For backends only: embed struct rcout first. */
struct rcout_ops {
	int (*set_rate)(struct rcout *out, uint32_t mask, uint16_t rate_hz);
	int (*write)(struct rcout *out, unsigned int ch, uint16_t pulse_us);
	int (*read)(struct rcout *out, unsigned int ch, uint16_t *pulse_us);
	void (*close)(struct rcout *out);
};

struct rcout {
	const struct rcout_ops *ops;
	unsigned int channels;
};

#endif
