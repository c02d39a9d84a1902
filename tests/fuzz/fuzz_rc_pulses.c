// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The RC pin: width pairs into rc_input (the three decoders and the lock), and
 * into a PPM, an SBUS and a DSM pulse decoder of their own, whose frames are
 * checked against each protocol's limits.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_rc.h"
#include "rc/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* Time from near zero (saturating subtractions) or near the wrap of 2^64. */
	const uint64_t t0 = data[0] & 1 ? UINT64_MAX - 20000000u : (uint64_t)data[0] * 1000u;
	uint64_t t = t0;
	data++;
	size--;

	struct rc_input in;
	struct rc_ppm ppm;
	struct rc_sbus sbus;
	struct rc_dsm dsm;
	rc_input_init(&in);
	rc_ppm_init(&ppm);
	rc_sbus_init(&sbus, true);
	rc_dsm_init(&dsm, true);

	for (size_t i = 0; i + 4 <= size; i += 4) {
		uint32_t low = fuzz_width(data + i), high = fuzz_width(data + i + 2);
		t += (uint64_t)low + high;
		const int check_time = t >= t0;
		struct rc_frame f;

		if (rc_input_pulse(&in, low, high, t, &f)) {
			/* Only the locked protocol's frames, and never stale ones. */
			enum rc_protocol p = rc_input_protocol(&in, t);
			FUZZ_ASSERT(p != RC_PROTOCOL_NONE);
			fuzz_check_frame(&f, p, 1, RC_MAX_CHANNELS, t, check_time);
			FUZZ_ASSERT(t - f.timestamp_us <= RC_STALE_US);
			FUZZ_ASSERT(in.locks >= 1);
		}
		if (rc_ppm_pulse(&ppm, low, high, t, &f))
			fuzz_check_frame(&f, RC_PROTOCOL_PPM, RC_PPM_MIN_CHANNELS, RC_MAX_CHANNELS, t, check_time);
		if (rc_sbus_pulse(&sbus, low, high, t, &f)) {
			fuzz_check_frame(&f, RC_PROTOCOL_SBUS, RC_SBUS_CHANNELS, RC_SBUS_CHANNELS, t, check_time);
			FUZZ_ASSERT(f.channels_us[16] == 1000 || f.channels_us[16] == 2000);
		}
		if (rc_dsm_pulse(&dsm, low, high, t, &f)) {
			fuzz_check_frame(&f, RC_PROTOCOL_DSM, RC_DSM_MIN_CHANNELS, RC_DSM_MAX_CHANNELS, t, check_time);
			FUZZ_ASSERT(!f.failsafe);
			FUZZ_ASSERT(rc_dsm_resolution(&dsm) == 10 || rc_dsm_resolution(&dsm) == 11);
		}
	}
	/* The decoders inside rc_input saw the same pairs as the ones outside. */
	FUZZ_ASSERT(in.ppm.stats.frames == ppm.stats.frames);
	FUZZ_ASSERT(in.sbus.stats.frames == sbus.stats.frames);
	FUZZ_ASSERT(in.dsm.stats.frames == dsm.stats.frames);
	return 0;
}
