// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/dsm.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

static const struct rc_serial_cfg dsm_cfg = {
	.uart = { .baud = RC_DSM_BAUD, .parity_even = false, .stop_bits = 1, .inverted = false },
	.gap_us = RC_DSM_GAP_US,
	.byte_time_us = 87,  /* 10 bits at 8.68 us */
};

void rc_dsm_init(struct rc_dsm *d, bool pulse_input)
{
	memset(d, 0, sizeof(*d));
	rc_serial_init(&d->serial, &dsm_cfg, RC_DSM_FRAME_LEN, -1, pulse_input);
}

unsigned int rc_dsm_resolution(const struct rc_dsm *d)
{
	return d->resolution;
}

static void sniff_reset(struct rc_dsm *d)
{
	d->sniff_frames = 0;
	memset(&d->sniff10, 0, sizeof(d->sniff10));
	memset(&d->sniff11, 0, sizeof(d->sniff11));
}

static bool has_layout(const struct rc_dsm_reading *r, uint16_t mask)
{
	for (unsigned int i = 0; i < r->layouts; i++)
		if (r->layout[i] == mask)
			return true;
	return false;
}

/*
 * The channel numbers of a frame's words read at this resolution, or false when
 * that reading is impossible: a repeated number, bits 15-14 set in 10-bit mode,
 * or no channel at all.
 */
static bool frame_channels(const uint16_t w[RC_DSM_WORDS], unsigned int res, uint16_t *mask_out)
{
	uint16_t mask = 0;
	for (unsigned int k = 0; k < RC_DSM_WORDS; k++) {
		unsigned int ch;
		if (w[k] == 0xffff)
			continue;
		if (res == 10) {
			if (w[k] & 0xc000)
				return false;
			ch = w[k] >> 10;
		} else {
			ch = (w[k] >> 11) & 0xfu;
			if (ch >= RC_DSM_MAX_CHANNELS)
				continue;  /* XPlus: not decoded */
		}
		if (mask & (1u << ch))
			return false;
		mask = (uint16_t)(mask | (1u << ch));
	}
	if (mask == 0)
		return false;
	*mask_out = mask;
	return true;
}

/* One frame's words read at resolution res, for detection. */
static void sniff(struct rc_dsm_reading *r, const uint16_t w[RC_DSM_WORDS], unsigned int res)
{
	uint16_t m = 0;
	if (!frame_channels(w, res, &m)) {
		r->bad = true;
		return;
	}
	r->mask |= m;
	if (has_layout(r, m))
		return;
	if (r->layouts == RC_DSM_LAYOUTS)
		r->bad = true;
	else
		r->layout[r->layouts++] = m;
}

static bool plausible(const struct rc_dsm_reading *r, unsigned int res)
{
	unsigned int n = (unsigned int)__builtin_popcount(r->mask);
	unsigned int max = res == 10 ? RC_DSM_WORDS : RC_DSM_MAX_CHANNELS;
	return !r->bad && (r->mask & (r->mask + 1u)) == 0 && n >= RC_DSM_MIN_CHANNELS && n <= max;
}

/* Where DSM channel number ch goes in the output: throttle, roll, pitch -> roll, pitch, throttle. */
static unsigned int output_index(unsigned int ch)
{
	switch (ch) {
	case 0: return 2;
	case 1: return 0;
	case 2: return 1;
	default: return ch;
	}
}

/* A whole frame in buf, ended at t_us. Returns 1 with *out filled, or 0. */
static int dsm_frame(struct rc_dsm *d, const uint8_t *buf, uint64_t t_us, struct rc_frame *out)
{
	uint16_t w[RC_DSM_WORDS];
	for (unsigned int k = 0; k < RC_DSM_WORDS; k++)
		w[k] = (uint16_t)(buf[2 + 2 * k] << 8 | buf[3 + 2 * k]);

	/* Wraps to a huge age when time runs backwards: detect again then too. */
	if (d->have_good && t_us - d->last_good_us > RC_DSM_REDETECT_US) {
		d->resolution = 0;
		sniff_reset(d);
	}

	if (d->resolution == 0) {
		sniff(&d->sniff10, w, 10);
		sniff(&d->sniff11, w, 11);
		d->last_good_us = t_us;
		d->have_good = true;
		if (++d->sniff_frames < RC_DSM_DETECT_FRAMES)
			return 0;
		bool ok10 = plausible(&d->sniff10, 10);
		bool ok11 = plausible(&d->sniff11, 11);
		d->detected = ok10 ? d->sniff10 : d->sniff11;
		sniff_reset(d);
		if (ok10 == ok11)
			return 0;
		d->resolution = ok10 ? 10 : 11;
		d->mask = d->detected.mask;
		d->seen = 0;
		/* and this frame is the first decoded */
	}

	uint16_t m = 0;
	if (!frame_channels(w, d->resolution, &m) || !has_layout(&d->detected, m)) {
		d->stats.rejected[RC_REJECT_CHANNELS]++;
		return 0;
	}
	for (unsigned int k = 0; k < RC_DSM_WORDS; k++) {
		if (w[k] == 0xffff)
			continue;
		unsigned int ch = d->resolution == 10 ? (unsigned int)(w[k] >> 10) : (w[k] >> 11) & 0xfu;
		if (ch >= RC_DSM_MAX_CHANNELS)
			continue;
		d->pos[ch] = d->resolution == 10 ? (uint16_t)((w[k] & 0x3ffu) << 1) : (uint16_t)(w[k] & 0x7ffu);
	}
	d->seen |= m;
	d->last_good_us = t_us;
	if (d->seen != d->mask)
		return 0;

	memset(out, 0, sizeof(*out));
	unsigned int n = (unsigned int)__builtin_popcount(d->mask);
	for (unsigned int ch = 0; ch < n; ch++)
		out->channels_us[output_index(ch)] = rc_clamp_us(903u + (d->pos[ch] * 7u + 6u) / 12u);
	out->channel_count = (uint8_t)n;
	out->protocol = RC_PROTOCOL_DSM;
	out->timestamp_us = t_us;
	d->stats.frames++;
	return 1;
}

int rc_dsm_pulse(struct rc_dsm *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		 struct rc_frame *out)
{
	assert(d->serial.framer.gap_ends_frame);
	if (!rc_serial_pulse(&d->serial, &dsm_cfg, &d->stats, low_us, high_us, t_us))
		return 0;
	return dsm_frame(d, d->serial.framer.buf, d->serial.byte_end_us, out);
}

int rc_dsm_bytes(struct rc_dsm *d, const uint8_t *bytes, size_t n, uint64_t t_us,
		 struct rc_frame *out)
{
	assert(!d->serial.framer.gap_ends_frame);
	int frames = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = rc_serial_byte_time(&dsm_cfg, t_us, i, n);
		if (rc_serial_byte(&d->serial, &dsm_cfg, &d->stats, bytes[i], t) &&
		    dsm_frame(d, d->serial.framer.buf, t, out) && frames < INT_MAX)
			frames++;
	}
	return frames;
}
