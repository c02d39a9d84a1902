// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/signing.h"

#include <string.h>

#include "mavlink/mavlink_msgs.h"
#include "util/crc.h"
#include "util/sha256.h"

void mavlink_signing_init(struct mavlink_signing *s)
{
	memset(s, 0, sizeof(*s));
}

void mavlink_signing_set_key(struct mavlink_signing *s, const uint8_t key[MAVLINK_KEY_LEN],
			     uint64_t now_ts)
{
	static const uint8_t zero[MAVLINK_KEY_LEN];
	memcpy(s->key, key, MAVLINK_KEY_LEN);
	s->enabled = memcmp(key, zero, MAVLINK_KEY_LEN) != 0;
	if (now_ts > s->timestamp)
		s->timestamp = now_ts;
	s->n_streams = 0;
}

uint64_t mavlink_signing_timestamp(uint64_t unix_us)
{
	uint64_t epoch_us = (uint64_t)MAVLINK_SIGNING_EPOCH_UNIX * 1000000u;
	return unix_us > epoch_us ? (unix_us - epoch_us) / 10 : 0;
}

/* The 6-byte signature of frame bytes [0, n) followed by link id and timestamp (7 bytes at n). */
static void signature(const uint8_t key[MAVLINK_KEY_LEN], const uint8_t *frame, size_t n,
		      uint8_t sig[6])
{
	struct sha256 h;
	uint8_t d[SHA256_DIGEST_LEN];
	sha256_init(&h);
	sha256_update(&h, key, MAVLINK_KEY_LEN);
	sha256_update(&h, frame, n + 7);
	sha256_final(&h, d);
	memcpy(sig, d, 6);
}

size_t mavlink_sign(struct mavlink_signing *s, uint8_t *buf, size_t len, uint8_t link_id,
		    uint64_t now_ts)
{
	if (!s->enabled || buf[0] != MAVLINK_STX_V2)
		return len;
	const struct mavlink_msg_info *info =
		mavlink_msg_info((uint32_t)buf[7] | (uint32_t)buf[8] << 8 | (uint32_t)buf[9] << 16);
	if (!info)
		return len;
	/* The incompatibility flags are covered by the CRC: set the flag, redo the CRC. */
	buf[2] |= MAVLINK_IFLAG_SIGNED;
	size_t body = MAVLINK_V2_HEADER_LEN + buf[1];
	uint16_t crc = crc_x25(CRC_X25_INIT, buf + 1, body - 1);
	crc = crc_x25(crc, &info->crc_extra, 1);
	buf[body] = (uint8_t)crc;
	buf[body + 1] = (uint8_t)(crc >> 8);

	/* Strictly increasing on every frame we send, whatever the clock says. */
	s->timestamp = now_ts > s->timestamp ? now_ts : s->timestamp + 1;
	uint8_t *t = buf + body + 2;
	t[0] = link_id;
	for (int i = 0; i < 6; i++)
		t[1 + i] = (uint8_t)(s->timestamp >> (8 * i));
	signature(s->key, buf, body + 2, t + 7);
	return body + 2 + MAVLINK_SIGNATURE_LEN;
}

static struct mavlink_signing_stream *find_stream(struct mavlink_signing *s, uint8_t sysid,
						  uint8_t compid, uint8_t link_id)
{
	for (unsigned int i = 0; i < s->n_streams; i++) {
		struct mavlink_signing_stream *st = &s->streams[i];
		if (st->sysid == sysid && st->compid == compid && st->link_id == link_id)
			return st;
	}
	return NULL;
}

enum mavlink_verdict mavlink_signing_check(struct mavlink_signing *s,
					   const struct mavlink_frame *f, uint64_t now_ts)
{
	if (!s->enabled)
		return MAVLINK_ACCEPT;
	if (!f->is_signed) {
		if (f->msgid == MAVLINK_MSG_ID_RADIO_STATUS)
			return MAVLINK_ACCEPT;
		s->stats.unsigned_refused++;
		return MAVLINK_REJECT_UNSIGNED;
	}
	size_t body = f->raw_len - MAVLINK_SIGNATURE_LEN;
	const uint8_t *t = f->raw + body;
	uint8_t sig[6];
	signature(s->key, f->raw, body, sig);
	if (memcmp(sig, t + 7, 6) != 0) {
		s->stats.bad_signature++;
		return MAVLINK_REJECT_SIGNATURE;
	}
	uint64_t ts = 0;
	for (int i = 5; i >= 0; i--)
		ts = ts << 8 | t[1 + i];
	struct mavlink_signing_stream *st = find_stream(s, f->sysid, f->compid, t[0]);
	if (st ? ts <= st->timestamp : ts + MAVLINK_SIGNING_NEW_STREAM_WINDOW < s->timestamp) {
		s->stats.replayed++;
		return MAVLINK_REJECT_REPLAY;
	}
	if (!st) {
		if (s->n_streams == MAVLINK_SIGNING_STREAMS) {
			/* Forget the stalest stream rather than refuse a new one for good. */
			unsigned int old = 0;
			for (unsigned int i = 1; i < s->n_streams; i++)
				if (s->streams[i].timestamp < s->streams[old].timestamp)
					old = i;
			st = &s->streams[old];
			s->stats.streams_full++;
		} else {
			st = &s->streams[s->n_streams++];
		}
		st->sysid = f->sysid;
		st->compid = f->compid;
		st->link_id = t[0];
	}
	st->timestamp = ts;
	if (ts > s->timestamp)
		s->timestamp = ts;
	if (now_ts > s->timestamp)
		s->timestamp = now_ts;
	s->stats.accepted++;
	return MAVLINK_ACCEPT;
}
