// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Bytes off a link into the MAVLink parser, in pieces whose sizes the input
 * chooses; every frame that comes out goes through the signing check and the
 * router. Checked: frames are whole and of a length their message allows,
 * the counters add up, nothing reads past a buffer, and the same bytes in one
 * piece give the same frames and counters (how reads split a stream changes
 * nothing).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_mavlink.h"
#include "mavlink/frame.h"
#include "mavlink/mavlink_msgs.h"
#include "mavlink/router.h"
#include "mavlink/signing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mavlink_parser p;
	static struct mavlink_frame f;
	static struct mavlink_signing s;
	static struct router r;
	static const uint8_t key[MAVLINK_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	if (size == 0)
		return 0;
	mavlink_parser_init(&p);
	mavlink_signing_init(&s);
	/* The first byte: signing on or off, and the size of the pieces. */
	if (data[0] & 1)
		mavlink_signing_set_key(&s, key, 1000);
	size_t piece = (size_t)(data[0] >> 1) + 1;
	router_init(&r, 1, 1);
	uint64_t frames = 0;
	for (size_t off = 1; off < size;) {
		size_t n = size - off < piece ? size - off : piece;
		size_t used = 0;
		bool got;
		do {
			used += mavlink_parse(&p, data + off + used, n - used, &f, &got);
			if (!got)
				continue;
			frames++;
			const struct mavlink_msg_info *info = mavlink_msg_info(f.msgid);
			FUZZ_CHECK(info != NULL);
			FUZZ_CHECK(f.version == 1 || f.version == 2);
			FUZZ_CHECK(f.len <= info->max_len);
			FUZZ_CHECK(f.version == 2 || f.len == info->min_len);
			size_t want = (f.version == 2 ? MAVLINK_V2_HEADER_LEN : MAVLINK_V1_HEADER_LEN) +
				      f.len + 2 + (f.is_signed ? MAVLINK_SIGNATURE_LEN : 0);
			FUZZ_CHECK(f.raw_len == want);
			enum mavlink_verdict v = mavlink_signing_check(&s, &f, 2000);
			FUZZ_CHECK(v >= MAVLINK_ACCEPT && v <= MAVLINK_REJECT_UNSIGNED);
			bool local;
			uint32_t mask = router_route(&r, &f, (unsigned int)(frames % 4), &local);
			FUZZ_CHECK(!(mask & (UINT32_C(1) << (frames % 4))));
		} while (got || used < n);
		off += n;
	}
	FUZZ_CHECK(p.stats.frames == frames);
	FUZZ_CHECK(p.n <= sizeof(p.buf));

	static struct mavlink_parser whole;
	static struct mavlink_frame g;
	mavlink_parser_init(&whole);
	uint64_t same = 0;
	size_t off = 1;
	bool got;
	do {
		off += mavlink_parse(&whole, data + off, size - off, &g, &got);
		same += got;
	} while (got || off < size);
	FUZZ_CHECK(same == frames);
	FUZZ_CHECK(memcmp(&whole.stats, &p.stats, sizeof(p.stats)) == 0);
	FUZZ_CHECK(whole.n == p.n && memcmp(whole.buf, p.buf, p.n) == 0);
	return 0;
}
