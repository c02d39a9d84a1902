/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the RC fuzz targets share: the input formats, and the check of the output
 * promise of src/rc/rc.h on every frame a decoder outputs. A broken promise
 * aborts, which libFuzzer reports as a crash with the input that caused it.
 */
#ifndef FULMAR_FUZZ_RC_H
#define FULMAR_FUZZ_RC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rc/rc.h"

#define FUZZ_ASSERT(cond)                                                              \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

/*
 * Checks a frame: min..max channels, each within RC_CHANNEL_MIN_US..MAX_US and
 * the unused ones 0, the protocol given, and a timestamp no later than now_us
 * (when time has not wrapped, check_time).
 */
static inline void fuzz_check_frame(const struct rc_frame *f, enum rc_protocol protocol,
				    unsigned int min, unsigned int max, uint64_t now_us, int check_time)
{
	FUZZ_ASSERT(f->protocol == protocol);
	FUZZ_ASSERT(f->channel_count >= min && f->channel_count <= max);
	FUZZ_ASSERT(max <= RC_MAX_CHANNELS);
	for (unsigned int i = 0; i < RC_MAX_CHANNELS; i++) {
		if (i < f->channel_count)
			FUZZ_ASSERT(f->channels_us[i] >= RC_CHANNEL_MIN_US && f->channels_us[i] <= RC_CHANNEL_MAX_US);
		else
			FUZZ_ASSERT(f->channels_us[i] == 0);
	}
	if (check_time)
		FUZZ_ASSERT(f->timestamp_us <= now_us);
	if (f->failsafe)
		FUZZ_ASSERT(f->frame_lost);
}

/*
 * Pulse input format: 1 byte of time base, then 4 bytes per pair: the low and the
 * high width, 16 bits little-endian each, in us; 0xFFFF stands for
 * FUZZ_LONG_WIDTH_US, longer than every timeout of the decoders.
 */
#define FUZZ_LONG_WIDTH_US 250000u

static inline uint32_t fuzz_width(const uint8_t *p)
{
	uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8;
	return w == 0xffff ? FUZZ_LONG_WIDTH_US : w;
}

/*
 * Byte input format: records of a header byte and up to 31 data bytes: bits 0-4
 * of the header are the count n, bits 5-7 pick the idle time before the record
 * from fuzz_idle_us; the record's bytes are read at once, n byte times later.
 */
static inline uint32_t fuzz_idle_us(uint8_t header)
{
	static const uint32_t idle[8] = { 0, 50, 120, 500, 1500, 2500, 14000, 250000 };
	return idle[header >> 5];
}

#endif
