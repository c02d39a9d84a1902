/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the SBUS and DSM decoders share, for src/rc only: a soft UART that turns
 * the levels of a pin into characters, and a framer that cuts a byte stream into
 * fixed-length frames at the idle gaps between them. Pure functions on caller
 * storage, rcin thread, like the rest of src/rc (see rc.h).
 *
 * The soft UART works on levels: "the line was at mark (idle, logical 1) for w
 * us" or "at space (logical 0) for w us". A character is a space start bit, the
 * data bits LSB first, an optional even parity bit and 1 or 2 mark stop bits.
 * Since the stop bits are marks, a character can only end inside a mark level,
 * so a level yields at most one character.
 */
#ifndef FULMAR_RC_SERIAL_H
#define FULMAR_RC_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rc/rc.h"

struct rc_uart_cfg {
	uint32_t baud;       /* bits per second */
	bool parity_even;    /* a parity bit after the 8 data bits */
	uint8_t stop_bits;   /* 1 or 2 */
	bool inverted;       /* the pin is low at mark (idle) and high at space (SBUS) */
};

struct rc_uart {
	uint16_t shift;      /* the character so far, bit 0 = start bit */
	uint8_t pos;         /* bits of the character received; 0 = between characters */
	uint32_t idle_bits;  /* mark bits since the last character ended (saturating) */
};

enum rc_uart_event {
	RC_UART_NONE = 0,
	RC_UART_BYTE,            /* a character ended well: *byte holds its data */
	RC_UART_FRAMING_ERROR,   /* space where a stop bit belongs, or a glitch inside a character */
	RC_UART_PARITY_ERROR,
};

void rc_uart_init(struct rc_uart *u);

/* Bit times in a level of width_us, rounded to the nearest (0 for a glitch). */
uint32_t rc_uart_bits(const struct rc_uart_cfg *cfg, uint32_t width_us);

/*
 * How far from a whole number of bits (in thousandths of a bit) a level inside a
 * character may be. Edges must be captured to within about +-1.5 us for DSM
 * (8.7 us bits) and +-2 us for SBUS (10 us bits); levels further off reject
 * their frame, as framing errors.
 */
#define RC_UART_TOLERANCE_PERMILLE 400

/*
 * One level of width_us at mark (true) or space. On RC_UART_BYTE, *byte is the
 * data and *used the bit times of this level that the character took (its end
 * is used bit times after the level began); the rest of the level is idle and
 * shows in u->idle_bits. After an error the UART waits for the next start bit.
 */
enum rc_uart_event rc_uart_run(struct rc_uart *u, const struct rc_uart_cfg *cfg, bool mark,
			       uint32_t width_us, uint8_t *byte, uint32_t *used);

/* Between characters and idle for at least min_bits bit times. */
bool rc_uart_is_idle_for(const struct rc_uart *u, uint32_t min_bits);

#define RC_FRAMER_MAX_LEN 25

enum rc_framer_state {
	RC_FRAMER_WAIT_GAP = 0,  /* out of step: ignore bytes until the next gap */
	RC_FRAMER_READY,         /* after a gap or a whole frame: the next byte begins a frame */
	RC_FRAMER_IN_FRAME,
};

struct rc_framer {
	uint8_t buf[RC_FRAMER_MAX_LEN];
	uint8_t len;
	uint8_t frame_len;     /* <= RC_FRAMER_MAX_LEN */
	int16_t header;        /* the first byte every frame has, or -1 */
	bool gap_ends_frame;   /* a frame is whole when a gap follows its last byte (pulse input:
	                          the gap is seen with the last stop bit); else as soon as its
	                          last byte arrives (byte input: the gap shows only later) */
	enum rc_framer_state state;
};

void rc_framer_init(struct rc_framer *f, uint8_t frame_len, int16_t header, bool gap_ends_frame);
/* An idle gap. Returns true when a whole frame lies in f->buf, to be decoded now. */
bool rc_framer_gap(struct rc_framer *f, struct rc_stats *stats);
/* One byte. Returns true when a whole frame lies in f->buf, to be decoded now. */
bool rc_framer_byte(struct rc_framer *f, uint8_t byte, struct rc_stats *stats);
/* A UART error: rejects the frame in progress, if any, for that reason. */
void rc_framer_error(struct rc_framer *f, enum rc_reject reason, struct rc_stats *stats);

/*
 * A soft UART and a framer together, as the SBUS and DSM decoders use them for
 * both pulse and byte input.
 */
struct rc_serial_cfg {
	struct rc_uart_cfg uart;
	uint32_t gap_us;         /* idle time that separates frames */
	uint32_t byte_time_us;   /* one character on the wire, rounded up */
};

struct rc_serial {
	struct rc_uart uart;
	struct rc_framer framer;
	uint64_t byte_end_us;  /* when the last byte ended (pulse input) or arrived (byte input) */
	bool have_byte;        /* byte input: byte_end_us holds a byte's time */
};

void rc_serial_init(struct rc_serial *s, const struct rc_serial_cfg *cfg, uint8_t frame_len,
		    int16_t header, bool gap_ends_frame);

/*
 * Pulse input: the pin was low for low_us, then high for high_us, ending at t_us.
 * Returns true when a whole frame lies in s->framer.buf; s->byte_end_us is then
 * when its last stop bit ended, no more than RC_STALE_US before t_us (older
 * frames are counted in stats->stale_frames and dropped).
 */
bool rc_serial_pulse(struct rc_serial *s, const struct rc_serial_cfg *cfg, struct rc_stats *stats,
		     uint32_t low_us, uint32_t high_us, uint64_t t_us);

/*
 * Byte input: one byte that arrived at t_us. A frame begins after an idle time of
 * cfg->gap_us or straight after a whole frame. Returns true when a whole frame
 * lies in s->framer.buf.
 */
bool rc_serial_byte(struct rc_serial *s, const struct rc_serial_cfg *cfg, struct rc_stats *stats,
		    uint8_t byte, uint64_t t_us);

/*
 * The arrival time of byte i of n read together at t_us: the bytes are taken to
 * have arrived back to back, the last at t_us.
 */
uint64_t rc_serial_byte_time(const struct rc_serial_cfg *cfg, uint64_t t_us, size_t i, size_t n);

/* Helpers shared by the decoders. */
uint16_t rc_clamp_us(uint32_t us);
/* a - b, or 0 when b > a. */
uint64_t rc_sub_sat(uint64_t a, uint64_t b);

#endif
