// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/sbus.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

static const struct rc_serial_cfg sbus_cfg = {
	.uart = { .baud = RC_SBUS_BAUD, .parity_even = true, .stop_bits = 2, .inverted = true },
	.gap_us = RC_SBUS_GAP_US,
	.byte_time_us = 120,  /* 12 bits at 10 us */
};

void rc_sbus_init(struct rc_sbus *d, bool pulse_input)
{
	memset(d, 0, sizeof(*d));
	rc_serial_init(&d->serial, &sbus_cfg, RC_SBUS_FRAME_LEN, RC_SBUS_HEADER, pulse_input);
}

/* One 25-byte frame, its header checked, into *out with time t_us; counted. */
static void sbus_decode(struct rc_sbus *d, const uint8_t frame[RC_SBUS_FRAME_LEN], uint64_t t_us,
			struct rc_frame *out)
{
	memset(out, 0, sizeof(*out));
	/* 16 values of 11 bits, LSB first, in bytes 1..22. */
	uint32_t acc = 0;
	unsigned bits = 0, ch = 0;
	for (unsigned i = 1; i <= 22; i++) {
		acc |= (uint32_t)frame[i] << bits;
		bits += 8;
		while (bits >= 11) {
			uint32_t raw = acc & 0x7ffu;
			acc >>= 11;
			bits -= 11;
			/* 875 + raw * 5/8, rounded. */
			out->channels_us[ch++] = rc_clamp_us(875u + (raw * 5u + 4u) / 8u);
		}
	}
	uint8_t flags = frame[23];
	out->channels_us[16] = (flags & RC_SBUS_FLAG_CH17) ? 2000 : 1000;
	out->channels_us[17] = (flags & RC_SBUS_FLAG_CH18) ? 2000 : 1000;
	out->channel_count = RC_SBUS_CHANNELS;
	out->protocol = RC_PROTOCOL_SBUS;
	out->failsafe = (flags & RC_SBUS_FLAG_FAILSAFE) != 0;
	/* A failsafe frame is a lost one too, whatever the lost bit says. */
	out->frame_lost = (flags & (RC_SBUS_FLAG_FRAME_LOST | RC_SBUS_FLAG_FAILSAFE)) != 0;
	out->timestamp_us = t_us;

	d->stats.frames++;
	if (out->failsafe)
		d->stats.failsafe_frames++;
	if (out->frame_lost)
		d->stats.lost_frames++;
}

int rc_sbus_pulse(struct rc_sbus *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		  struct rc_frame *out)
{
	assert(d->serial.framer.gap_ends_frame);
	if (!rc_serial_pulse(&d->serial, &sbus_cfg, &d->stats, low_us, high_us, t_us))
		return 0;
	sbus_decode(d, d->serial.framer.buf, d->serial.byte_end_us, out);
	return 1;
}

int rc_sbus_bytes(struct rc_sbus *d, const uint8_t *bytes, size_t n, uint64_t t_us,
		  struct rc_frame *out)
{
	assert(!d->serial.framer.gap_ends_frame);
	int frames = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = rc_serial_byte_time(&sbus_cfg, t_us, i, n);
		if (rc_serial_byte(&d->serial, &sbus_cfg, &d->stats, bytes[i], t)) {
			sbus_decode(d, d->serial.framer.buf, t, out);
			if (frames < INT_MAX)
				frames++;
		}
	}
	return frames;
}
