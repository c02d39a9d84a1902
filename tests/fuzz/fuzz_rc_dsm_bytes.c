// SPDX-License-Identifier: GPL-3.0-or-later
/* DSM from a UART: records of bytes read together (see fuzz_rc.h) into rc_dsm_bytes(). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_rc.h"
#include "rc/dsm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_dsm d;
	rc_dsm_init(&d, false);
	uint64_t t = 1000000;
	uint32_t frames = 0;
	size_t i = 0;
	while (i < size) {
		uint8_t header = data[i++];
		size_t n = header & 31u;
		if (n > size - i)
			n = size - i;
		t += fuzz_idle_us(header) + 87u * n;
		struct rc_frame f;
		int got = rc_dsm_bytes(&d, data + i, n, t, &f);
		FUZZ_ASSERT(got >= 0 && (size_t)got <= n / RC_DSM_FRAME_LEN + 1);
		if (got) {
			fuzz_check_frame(&f, RC_PROTOCOL_DSM, RC_DSM_MIN_CHANNELS, RC_DSM_MAX_CHANNELS, t, 1);
			FUZZ_ASSERT(!f.failsafe && !f.frame_lost);
			FUZZ_ASSERT(rc_dsm_resolution(&d) == 10 || rc_dsm_resolution(&d) == 11);
			frames += (uint32_t)got;
		}
		i += n;
	}
	FUZZ_ASSERT(d.stats.frames == frames);
	return 0;
}
