// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/serial.h"

#include <assert.h>
#include <string.h>

static uint8_t char_bits(const struct rc_uart_cfg *cfg)
{
	return (uint8_t)(1 + 8 + (cfg->parity_even ? 1 : 0) + cfg->stop_bits);
}

void rc_uart_init(struct rc_uart *u)
{
	memset(u, 0, sizeof(*u));
}

uint32_t rc_uart_bits(const struct rc_uart_cfg *cfg, uint32_t width_us)
{
	uint64_t n = ((uint64_t)width_us * cfg->baud + 500000u) / 1000000u;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/*
 * Whether a level inside a character is too far from a whole number of bits to
 * be read safely. Each level is rounded on its own (a character resynchronises
 * on its start bit); one off by half a bit or more would slip the bits after
 * it, and 8N1 (DSM) has no parity to notice. So a level off by more than
 * RC_UART_TOLERANCE_PERMILLE of a bit rejects the frame instead.
 */
static bool ambiguous(const struct rc_uart_cfg *cfg, uint32_t width_us, uint32_t n)
{
	uint64_t x = (uint64_t)width_us * cfg->baud;  /* bit times, scaled by 1e6 */
	uint64_t whole = (uint64_t)n * 1000000u;
	uint64_t err = x > whole ? x - whole : whole - x;
	return err > RC_UART_TOLERANCE_PERMILLE * 1000u;
}

static void uart_reset(struct rc_uart *u)
{
	u->shift = 0;
	u->pos = 0;
	u->idle_bits = 0;  /* after an error, a gap must be seen whole before it counts */
}

static enum rc_uart_event framing_error(struct rc_uart *u)
{
	uart_reset(u);
	return RC_UART_FRAMING_ERROR;
}

enum rc_uart_event rc_uart_run(struct rc_uart *u, const struct rc_uart_cfg *cfg, bool mark,
			       uint32_t width_us, uint8_t *byte, uint32_t *used)
{
	const uint8_t len = char_bits(cfg);
	const uint8_t last_space = (uint8_t)(len - cfg->stop_bits);  /* positions 0..last_space-1 may be space */
	const uint32_t n = rc_uart_bits(cfg, width_us);

	if (u->pos == 0) {
		if (mark) {
			/* Idle: any length, whole bits or not. */
			u->idle_bits = n > UINT32_MAX - u->idle_bits ? UINT32_MAX : u->idle_bits + n;
			return RC_UART_NONE;
		}
		if (n == 0)  /* a glitch on an idle line does not start a character */
			return RC_UART_NONE;
		/* A start bit, and n - 1 data bits of 0. */
		if (n > last_space || ambiguous(cfg, width_us, n))
			return framing_error(u);
		u->shift = 0;
		u->pos = (uint8_t)n;
		u->idle_bits = 0;
		return RC_UART_NONE;
	}
	if (n == 0)
		return framing_error(u);
	if (!mark) {
		/* pos may already be in the stop bits, after a mark level that ended there */
		if (u->pos >= last_space || n > (uint32_t)(last_space - u->pos) || ambiguous(cfg, width_us, n))
			return framing_error(u);
		u->pos = (uint8_t)(u->pos + n);
		return RC_UART_NONE;
	}
	uint32_t need = (uint32_t)(len - u->pos);
	if (n < need) {
		if (ambiguous(cfg, width_us, n))
			return framing_error(u);
		u->shift |= (uint16_t)(((1u << n) - 1u) << u->pos);
		u->pos = (uint8_t)(u->pos + n);
		return RC_UART_NONE;
	}
	/* The character ends in this level, so its stop bits are marks. When the level
	 * ends right after them, its length must be clear too: the next start bit
	 * follows at once. Past them the line idles, for any length. */
	if (n == need && ambiguous(cfg, width_us, n))
		return framing_error(u);
	u->shift |= (uint16_t)(((1u << need) - 1u) << u->pos);
	uint16_t c = u->shift;
	u->shift = 0;
	u->pos = 0;
	u->idle_bits = n - need;
	uint8_t data = (uint8_t)(c >> 1);
	if (cfg->parity_even) {
		unsigned ones = (unsigned)__builtin_popcount((unsigned)(c >> 1) & 0x1ffu);
		if (ones & 1u)  /* the stop bits were right: the rest of the level is idle all the same */
			return RC_UART_PARITY_ERROR;
	}
	*byte = data;
	*used = need;
	return RC_UART_BYTE;
}

bool rc_uart_is_idle_for(const struct rc_uart *u, uint32_t min_bits)
{
	return u->pos == 0 && u->idle_bits >= min_bits;
}

void rc_framer_init(struct rc_framer *f, uint8_t frame_len, int16_t header, bool gap_ends_frame)
{
	assert(frame_len > 0 && frame_len <= RC_FRAMER_MAX_LEN);
	memset(f, 0, sizeof(*f));
	f->frame_len = frame_len;
	f->header = header;
	f->gap_ends_frame = gap_ends_frame;
	f->state = RC_FRAMER_WAIT_GAP;  /* the first byte seen may be anywhere in a frame */
}

bool rc_framer_gap(struct rc_framer *f, struct rc_stats *stats)
{
	bool whole = false;
	if (f->state == RC_FRAMER_IN_FRAME) {
		if (f->len == f->frame_len && f->gap_ends_frame)
			whole = true;
		else
			stats->rejected[RC_REJECT_LENGTH]++;
	}
	f->state = RC_FRAMER_READY;
	f->len = 0;
	return whole;
}

bool rc_framer_byte(struct rc_framer *f, uint8_t byte, struct rc_stats *stats)
{
	switch (f->state) {
	case RC_FRAMER_WAIT_GAP:
		return false;
	case RC_FRAMER_READY:
		if (f->header >= 0 && byte != (uint8_t)f->header) {
			stats->rejected[RC_REJECT_HEADER]++;
			f->state = RC_FRAMER_WAIT_GAP;
			return false;
		}
		f->state = RC_FRAMER_IN_FRAME;
		f->len = 0;
		break;
	case RC_FRAMER_IN_FRAME:
		break;
	}
	if (f->len == f->frame_len) {
		/* Only with gap_ends_frame: a byte too many before the gap. */
		stats->rejected[RC_REJECT_LENGTH]++;
		f->state = RC_FRAMER_WAIT_GAP;
		f->len = 0;
		return false;
	}
	f->buf[f->len++] = byte;
	if (f->len == f->frame_len && !f->gap_ends_frame) {
		/* The next frame may follow without a visible gap (bytes read late arrive
		 * together); a header, where the protocol has one, still checks it. */
		f->state = RC_FRAMER_READY;
		return true;
	}
	return false;
}

void rc_framer_error(struct rc_framer *f, enum rc_reject reason, struct rc_stats *stats)
{
	if (f->state == RC_FRAMER_IN_FRAME)
		stats->rejected[reason]++;
	f->state = RC_FRAMER_WAIT_GAP;
	f->len = 0;
}

uint16_t rc_clamp_us(uint32_t us)
{
	if (us < RC_CHANNEL_MIN_US)
		return RC_CHANNEL_MIN_US;
	if (us > RC_CHANNEL_MAX_US)
		return RC_CHANNEL_MAX_US;
	return (uint16_t)us;
}

uint64_t rc_sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void rc_serial_init(struct rc_serial *s, const struct rc_serial_cfg *cfg, uint8_t frame_len,
		    int16_t header, bool gap_ends_frame)
{
	(void)cfg;
	memset(s, 0, sizeof(*s));
	rc_uart_init(&s->uart);
	rc_framer_init(&s->framer, frame_len, header, gap_ends_frame);
}

static enum rc_reject uart_reason(enum rc_uart_event ev)
{
	return ev == RC_UART_PARITY_ERROR ? RC_REJECT_PARITY : RC_REJECT_FRAMING;
}

/* One level of the pin; returns true when a whole frame is ready. */
static bool serial_level(struct rc_serial *s, const struct rc_serial_cfg *cfg, struct rc_stats *stats,
			 bool high, uint32_t width_us, uint64_t start_us)
{
	const bool mark = high != cfg->uart.inverted;
	uint8_t byte = 0;
	uint32_t used = 0;
	bool whole = false;

	enum rc_uart_event ev = rc_uart_run(&s->uart, &cfg->uart, mark, width_us, &byte, &used);
	switch (ev) {
	case RC_UART_NONE:
		break;
	case RC_UART_BYTE: {
		/* Rounding may put the end of the used bits past the level's end: not past it. */
		uint64_t used_us = ((uint64_t)used * 1000000u + cfg->uart.baud / 2) / cfg->uart.baud;
		s->byte_end_us = start_us + (used_us < width_us ? used_us : width_us);
		whole = rc_framer_byte(&s->framer, byte, stats);
		break;
	}
	case RC_UART_FRAMING_ERROR:
	case RC_UART_PARITY_ERROR:
		rc_framer_error(&s->framer, uart_reason(ev), stats);
		break;
	}
	if (mark) {
		uint32_t gap_bits = rc_uart_bits(&cfg->uart, cfg->gap_us);
		if (rc_uart_is_idle_for(&s->uart, gap_bits) && rc_framer_gap(&s->framer, stats))
			whole = true;
	}
	return whole;
}

bool rc_serial_pulse(struct rc_serial *s, const struct rc_serial_cfg *cfg, struct rc_stats *stats,
		     uint32_t low_us, uint32_t high_us, uint64_t t_us)
{
	uint64_t high_start = rc_sub_sat(t_us, high_us);
	uint64_t low_start = rc_sub_sat(high_start, low_us);
	bool whole = serial_level(s, cfg, stats, false, low_us, low_start);
	/* A frame is only ever whole at the end of a mark level, so at most one per pair. */
	if (serial_level(s, cfg, stats, true, high_us, high_start))
		whole = true;
	if (s->byte_end_us > t_us)  /* only when t_us < low_us + high_us, a caller's slip */
		s->byte_end_us = t_us;
	if (whole && t_us - s->byte_end_us > RC_STALE_US) {
		stats->stale_frames++;
		whole = false;
	}
	return whole;
}

bool rc_serial_byte(struct rc_serial *s, const struct rc_serial_cfg *cfg, struct rc_stats *stats,
		    uint8_t byte, uint64_t t_us)
{
	if (s->have_byte) {
		/* Idle time between the end of the previous byte and the start of this one.
		 * Estimated arrival times (rc_serial_byte_time) of a chunk read late can
		 * fall before the previous byte's: that is no gap. */
		uint64_t idle = rc_sub_sat(rc_sub_sat(t_us, s->byte_end_us), cfg->byte_time_us);
		if (idle >= cfg->gap_us)
			rc_framer_gap(&s->framer, stats);
	}
	s->byte_end_us = t_us;
	s->have_byte = true;
	return rc_framer_byte(&s->framer, byte, stats);
}

uint64_t rc_serial_byte_time(const struct rc_serial_cfg *cfg, uint64_t t_us, size_t i, size_t n)
{
	assert(i < n);
	uint64_t later = (uint64_t)(n - 1 - i);
	if (later > t_us / cfg->byte_time_us)
		return 0;
	return t_us - later * cfg->byte_time_us;
}
