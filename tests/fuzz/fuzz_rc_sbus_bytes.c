// SPDX-License-Identifier: GPL-3.0-or-later
/* SBUS from a UART: records of bytes read together (see fuzz_rc.h) into rc_sbus_bytes(). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_rc.h"
#include "rc/sbus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_sbus d;
	rc_sbus_init(&d, false);
	uint64_t t = 1000000;
	uint32_t frames = 0;
	size_t i = 0;
	while (i < size) {
		uint8_t header = data[i++];
		size_t n = header & 31u;
		if (n > size - i)
			n = size - i;
		t += fuzz_idle_us(header) + 120u * n;
		struct rc_frame f;
		int got = rc_sbus_bytes(&d, data + i, n, t, &f);
		FUZZ_ASSERT(got >= 0 && (size_t)got <= n / RC_SBUS_FRAME_LEN + 1);
		if (got) {
			fuzz_check_frame(&f, RC_PROTOCOL_SBUS, RC_SBUS_CHANNELS, RC_SBUS_CHANNELS, t, 1);
			FUZZ_ASSERT(f.channels_us[17] == 1000 || f.channels_us[17] == 2000);
			frames += (uint32_t)got;
		}
		i += n;
	}
	FUZZ_ASSERT(d.stats.frames == frames);
	return 0;
}
