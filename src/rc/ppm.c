// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/ppm.h"

#include <string.h>

#include "rc/serial.h"

void rc_ppm_init(struct rc_ppm *d)
{
	memset(d, 0, sizeof(*d));
}

/* Drops the frame in progress; it counts as rejected once it has a channel. */
static void reject(struct rc_ppm *d, enum rc_reject reason)
{
	if (d->synced && d->count > 0)
		d->stats.rejected[reason]++;
	d->synced = false;
	d->count = 0;
}

static int frame_end(struct rc_ppm *d, uint64_t t_us, struct rc_frame *out)
{
	uint8_t n = d->count;
	uint8_t prev = d->prev_count;
	d->prev_count = n;
	if (n < RC_PPM_MIN_CHANNELS) {
		d->stats.rejected[RC_REJECT_LENGTH]++;
		return 0;
	}
	if (n != d->output_count && n != prev) {
		d->stats.rejected[RC_REJECT_CHANNELS]++;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	for (uint8_t i = 0; i < n; i++)
		out->channels_us[i] = rc_clamp_us(d->width_us[i]);
	out->channel_count = n;
	out->protocol = RC_PROTOCOL_PPM;
	out->timestamp_us = t_us;
	d->output_count = n;
	d->stats.frames++;
	return 1;
}

int rc_ppm_pulse(struct rc_ppm *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		 struct rc_frame *out)
{
	uint64_t sum = (uint64_t)low_us + high_us;
	uint32_t w = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;

	if (low_us == 0 || high_us == 0) {
		/* A capture glitch: where the channels stand is no longer known. */
		reject(d, RC_REJECT_FRAMING);
		return 0;
	}
	if (w >= RC_PPM_SYNC_MIN_US) {
		int got = 0;
		if (d->synced && d->count > 0) {
			if (w > RC_STALE_US)
				d->stats.stale_frames++;
			else
				got = frame_end(d, rc_sub_sat(t_us, w), out);
		}
		d->synced = true;
		d->count = 0;
		return got;
	}
	if (!d->synced)
		return 0;
	if (w <= RC_PPM_CHANNEL_MIN_US || w >= RC_PPM_CHANNEL_MAX_US) {
		reject(d, RC_REJECT_RANGE);
		return 0;
	}
	if (d->count == RC_MAX_CHANNELS) {
		reject(d, RC_REJECT_LENGTH);
		return 0;
	}
	d->width_us[d->count++] = (uint16_t)w;
	return 0;
}
