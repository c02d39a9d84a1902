// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fulmar's side of the MAVLink interoperability test (interop.cjs runs the
 * other side with an independent implementation):
 *   interop_tool list            ids of the messages fulmar knows, one a line
 *   interop_tool encode          every known message framed by fulmar, to stdout
 *   interop_tool decode [KEYHEX] frames from stdin parsed by fulmar, a line each:
 *                                "msgid seq sysid compid verdict payloadhex"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mavlink/frame.h"
#include "mavlink/mavlink_msgs.h"
#include "mavlink/signing.h"

static void emit(uint8_t version, uint8_t seq, uint32_t id, const uint8_t *payload, int *count)
{
	uint8_t out[MAVLINK_MAX_FRAME_LEN];
	struct mavlink_header h = { version, seq, 42, 200, id };
	size_t n = mavlink_encode(&h, payload, out);
	if (n == 0)
		return;
	fwrite(out, 1, n, stdout);
	(*count)++;
}

static int encode(void)
{
	int count = 0;
	for (size_t i = 0; i < MAVLINK_MSG_COUNT; i++) {
		const struct mavlink_msg_info *m = &mavlink_msg_infos[i];
		uint8_t payload[255];
		/* Every byte set, so nothing is truncated ... */
		for (size_t k = 0; k < m->max_len; k++)
			payload[k] = (uint8_t)((k * 37 + i + 1) | 1);
		emit(2, (uint8_t)i, m->id, payload, &count);
		if (m->id < 256)
			emit(1, (uint8_t)i, m->id, payload, &count);
		/* ... and the last third zero, so MAVLink 2 cuts it. */
		memset(payload + m->max_len * 2 / 3, 0, m->max_len - m->max_len * 2 / 3);
		emit(2, (uint8_t)(i + 100), m->id, payload, &count);
	}
	fprintf(stderr, "%d\n", count);
	return 0;
}

static int decode(const char *keyhex)
{
	static struct mavlink_signing signing;
	mavlink_signing_init(&signing);
	if (keyhex) {
		uint8_t key[MAVLINK_KEY_LEN];
		if (strlen(keyhex) != 64)
			return 2;
		for (int i = 0; i < 32; i++) {
			unsigned int b;
			if (sscanf(keyhex + 2 * i, "%2x", &b) != 1)
				return 2;
			key[i] = (uint8_t)b;
		}
		mavlink_signing_set_key(&signing, key, 0);
	}
	static const char *const verdicts[] = {
		[MAVLINK_ACCEPT] = "accept", [MAVLINK_REJECT_SIGNATURE] = "bad-signature",
		[MAVLINK_REJECT_REPLAY] = "replay", [MAVLINK_REJECT_UNSIGNED] = "unsigned",
	};
	static struct mavlink_parser parser;
	static struct mavlink_frame frame;
	mavlink_parser_init(&parser);
	uint8_t buf[4096];
	ssize_t n;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
		size_t off = 0;
		bool got;
		do {
			off += mavlink_parse(&parser, buf + off, (size_t)n - off, &frame, &got);
			if (!got)
				continue;
			printf("%u %u %u %u %s ", frame.msgid, frame.seq, frame.sysid, frame.compid,
			       verdicts[mavlink_signing_check(&signing, &frame, 0)]);
			for (size_t k = 0; k < frame.len; k++)
				printf("%02x", mavlink_payload(&frame)[k]);
			printf("\n");
		} while (got || off < (size_t)n);
	}
	const struct mavlink_parse_stats *s = &parser.stats;
	fprintf(stderr, "frames %llu bad_crc %llu bad_len %llu unknown %llu skipped %llu\n",
		(unsigned long long)s->frames, (unsigned long long)s->bad_crc,
		(unsigned long long)s->bad_len, (unsigned long long)s->unknown_id,
		(unsigned long long)s->skipped_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < MAVLINK_MSG_COUNT; i++)
			printf("%u\n", mavlink_msg_infos[i].id);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "encode") == 0)
		return encode();
	if (argc >= 2 && strcmp(argv[1], "decode") == 0)
		return decode(argc > 2 ? argv[2] : NULL);
	fprintf(stderr, "usage: interop_tool list|encode|decode [KEYHEX]\n");
	return 2;
}
