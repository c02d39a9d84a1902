/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Test-side encoders for the RC decoders: turn channel values into what a
 * receiver puts on the wire, as PPM-sum pulses, SBUS and DSM bytes, and those
 * bytes as UART levels on a pin; then the levels into the (low, high, t) pulse
 * pairs an RC input backend delivers, with jitter on every edge.
 *
 * A wave is a list of levels (high or low, for a duration in nanoseconds);
 * appending the level already in progress lengthens it. Faults are made by
 * editing it: rc_wave_flip() inverts one level, which drops a pulse (or adds
 * one) and merges it with its neighbours.
 */
#ifndef FULMAR_TESTS_RC_WAVE_H
#define FULMAR_TESTS_RC_WAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_WAVE_MAX_LEVELS 200000

struct rc_wave {
	size_t n;
	bool high[RC_WAVE_MAX_LEVELS];
	uint64_t dur_ns[RC_WAVE_MAX_LEVELS];
};

struct rc_pair {
	uint32_t low_us;
	uint32_t high_us;
	uint64_t t_us;  /* the end of the high level */
};

void rc_wave_init(struct rc_wave *w);
void rc_wave_level(struct rc_wave *w, bool high, uint64_t dur_ns);
/* Inverts level i, merging it with the levels either side. */
void rc_wave_flip(struct rc_wave *w, size_t i);
uint64_t rc_wave_duration_ns(const struct rc_wave *w);

/*
 * One PPM-sum frame: for each channel a pulse of pulse_us at the pulse level
 * (high when pulse_high), then the other level for the rest of the channel's
 * time; then the sync at the other level until frame_us from the frame's start.
 */
void rc_wave_ppm_frame(struct rc_wave *w, const uint16_t *ch_us, unsigned int n, uint32_t pulse_us,
		       uint32_t frame_us, bool pulse_high);

struct rc_wave_uart {
	uint32_t baud;
	bool parity_even;
	bool bad_parity;      /* send the wrong parity bit */
	bool bad_stop;        /* send the first stop bit as a space */
	unsigned int stop_bits;
	bool inverted;        /* pin low at mark */
};

extern const struct rc_wave_uart rc_wave_sbus_uart;  /* 100000 8E2 inverted */
extern const struct rc_wave_uart rc_wave_dsm_uart;   /* 115200 8N1 */

void rc_wave_uart_bytes(struct rc_wave *w, const struct rc_wave_uart *u, const uint8_t *bytes, size_t n);
/* The line at mark (idle) for us. */
void rc_wave_uart_idle(struct rc_wave *w, const struct rc_wave_uart *u, uint32_t us);

/* SBUS: the raw value for a width (875 + raw * 0.625 us), and a whole frame. */
uint16_t rc_wave_sbus_raw(uint16_t us);
void rc_wave_sbus_frame(uint8_t out[25], const uint16_t ch_us[16], uint8_t flags);

/*
 * DSM: a 16-byte frame of n channels (given in the decoder's output order: roll,
 * pitch, throttle, yaw, ...) at resolution 10 or 11. Up to 7 channels fit one
 * frame (part 0); with more, part 0 carries channel numbers 0..6 and part 1 the
 * rest, filled up with the first ones, its first word marked with the phase bit.
 * Words are sent in a rotated order to show that order does not matter.
 */
void rc_wave_dsm_frame(uint8_t out[16], const uint16_t *ch_us, unsigned int n, unsigned int res,
		       unsigned int part);
/* The DSM position (0..2047, or 0..1023 at resolution 10) for a width. */
uint16_t rc_wave_dsm_pos(uint16_t us, unsigned int res);

/*
 * The pulse pairs of the wave, which starts at t0_us: each low level and the high
 * level after it (a leading high level is skipped; so is a trailing low level,
 * which no edge ends). Each edge moves by a uniform random -jitter_us..+jitter_us
 * (and the edges keep their order). Returns the number of pairs, at most max.
 */
size_t rc_wave_pairs(const struct rc_wave *w, uint64_t t0_us, uint32_t jitter_us, uint32_t *seed,
		     struct rc_pair *out, size_t max);

struct rc_frame;
/*
 * The output promise of rc.h: 1..RC_MAX_CHANNELS channels, each within
 * RC_CHANNEL_MIN_US..RC_CHANNEL_MAX_US, the unused ones 0, a known protocol.
 */
bool rc_wave_frame_is_safe(const struct rc_frame *f);

/* xorshift32; never returns 0 for a seed that is not 0. */
uint32_t rc_wave_rand(uint32_t *seed);

#endif
