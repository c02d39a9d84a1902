/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PPM-sum decoder. A PPM-sum receiver sends one short pulse (~300-400 us) per
 * channel; the time from one pulse's edge to the next pulse's same edge is the
 * channel value, and a long interval (the sync, >= RC_PPM_SYNC_MIN_US) ends the
 * frame. The decoder takes (low, high) level pairs; low + high is the interval
 * between two falling edges, which is one channel whichever the pulse polarity.
 *
 * Rules:
 *  - Nothing is decoded before the first sync.
 *  - An interval strictly between RC_PPM_CHANNEL_MIN_US and RC_PPM_CHANNEL_MAX_US
 *    is a channel; its value is clamped to RC_CHANNEL_MIN_US..RC_CHANNEL_MAX_US.
 *  - Any other interval shorter than a sync, a zero width, or more than
 *    RC_MAX_CHANNELS channels before a sync rejects the frame, and the decoder
 *    waits for the next sync.
 *  - At a sync, a frame of RC_PPM_MIN_CHANNELS..RC_MAX_CHANNELS channels is
 *    output if its channel count is that of the last frame output, or of the
 *    frame just before it. So a frame that gained or lost a pulse (a missed or an
 *    extra edge shifts every channel after it) is rejected, while a receiver that
 *    really changes its channel count is followed after one frame.
 *  - The frame's timestamp is the end of its last channel (the start of the
 *    sync); it is output when the sync ends, one sync length later. A sync
 *    longer than RC_STALE_US (the signal stopped) drops the frame as stale.
 * PPM has no failsafe flag: receivers stop sending, hold, or send preset values.
 *
 * Thread, ownership and units: see rc.h.
 */
#ifndef FULMAR_RC_PPM_H
#define FULMAR_RC_PPM_H

#include <stdbool.h>
#include <stdint.h>

#include "rc/rc.h"

#define RC_PPM_CHANNEL_MIN_US 700   /* exclusive */
#define RC_PPM_CHANNEL_MAX_US 2300  /* exclusive */
#define RC_PPM_SYNC_MIN_US 2700
#define RC_PPM_MIN_CHANNELS 5

struct rc_ppm {
	/* private */
	uint16_t width_us[RC_MAX_CHANNELS];
	uint8_t count;          /* channels so far in this frame */
	bool synced;            /* a sync was seen and the frame so far is good */
	uint8_t prev_count;     /* channel count of the previous whole frame */
	uint8_t output_count;   /* channel count of the last frame output */
	/* read-only to the caller */
	struct rc_stats stats;
};

void rc_ppm_init(struct rc_ppm *d);

/*
 * The pin was low for low_us and then high for high_us, and that high level
 * ended at t_us. Returns 1 and fills *out when this pair was the sync that ended
 * a good frame, else 0 and leaves *out alone.
 */
int rc_ppm_pulse(struct rc_ppm *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		 struct rc_frame *out);

#endif
