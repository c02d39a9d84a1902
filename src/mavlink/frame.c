// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/frame.h"

#include <string.h>

#include "mavlink/mavlink_msgs.h"
#include "util/crc.h"

void mavlink_parser_init(struct mavlink_parser *p)
{
	memset(p, 0, sizeof(*p));
}

enum check {
	CHECK_MORE = 1,   /* a valid start: more bytes needed */
	CHECK_FRAME,      /* a good frame of check_len bytes */
	CHECK_SKIP,       /* a frame of an unknown message: drop check_len bytes */
	CHECK_BAD,        /* not a frame: drop the STX and look again */
};

static size_t header_len(uint8_t stx)
{
	return stx == MAVLINK_STX_V2 ? MAVLINK_V2_HEADER_LEN : MAVLINK_V1_HEADER_LEN;
}

/*
 * Looks at the bytes held, which start with an STX. *frame_len is the frame's
 * length (CHECK_FRAME, CHECK_SKIP), or how many bytes must be held before
 * another look can tell more (CHECK_MORE: the header's, then the frame's).
 */
static enum check check(struct mavlink_parser *p, size_t *frame_len)
{
	const uint8_t *b = p->buf;
	bool v2 = b[0] == MAVLINK_STX_V2;
	size_t hl = header_len(b[0]);
	*frame_len = hl;
	if (p->n < hl)
		return CHECK_MORE;

	uint8_t len = b[1];
	uint32_t msgid;
	size_t total = hl + len + 2;
	if (v2) {
		if (b[2] & ~MAVLINK_IFLAG_SIGNED) {
			p->stats.bad_flags++;
			return CHECK_BAD;
		}
		if (b[2] & MAVLINK_IFLAG_SIGNED)
			total += MAVLINK_SIGNATURE_LEN;
		msgid = (uint32_t)b[7] | (uint32_t)b[8] << 8 | (uint32_t)b[9] << 16;
	} else {
		msgid = b[5];
	}

	const struct mavlink_msg_info *info = mavlink_msg_info(msgid);
	/*
	 * A MAVLink 1 frame has exactly the base fields; a MAVLink 2 frame at most
	 * all of them, its trailing zeros cut. We keep one byte of an all-zero
	 * payload, as the C and Python libraries do; some implementations cut
	 * them all, and those frames are as valid.
	 */
	if (info && (v2 ? len > info->max_len : len != info->min_len)) {
		p->stats.bad_len++;
		return CHECK_BAD;
	}
	*frame_len = total;
	if (p->n < total)
		return CHECK_MORE;
	if (!info) {
		/* Without its CRC_EXTRA the frame cannot be checked, only stepped over. */
		p->stats.unknown_id++;
		return CHECK_SKIP;
	}
	uint16_t crc = crc_x25(CRC_X25_INIT, b + 1, hl - 1 + len);
	crc = crc_x25(crc, &info->crc_extra, 1);
	if (crc != (uint16_t)(b[hl + len] | b[hl + len + 1] << 8)) {
		p->stats.bad_crc++;
		return CHECK_BAD;
	}
	return CHECK_FRAME;
}

static void fill(const struct mavlink_parser *p, size_t total, struct mavlink_frame *f)
{
	const uint8_t *b = p->buf;
	memcpy(f->raw, b, total);
	f->raw_len = total;
	f->len = b[1];
	if (b[0] == MAVLINK_STX_V2) {
		f->version = 2;
		f->incompat_flags = b[2];
		f->compat_flags = b[3];
		f->seq = b[4];
		f->sysid = b[5];
		f->compid = b[6];
		f->msgid = (uint32_t)b[7] | (uint32_t)b[8] << 8 | (uint32_t)b[9] << 16;
		f->is_signed = b[2] & MAVLINK_IFLAG_SIGNED;
	} else {
		f->version = 1;
		f->incompat_flags = 0;
		f->compat_flags = 0;
		f->seq = b[2];
		f->sysid = b[3];
		f->compid = b[4];
		f->msgid = b[5];
		f->is_signed = false;
	}
}

/* Drops the first k held bytes, then any up to the next STX. */
static void drop(struct mavlink_parser *p, size_t k, bool garbage)
{
	if (garbage)
		p->stats.skipped_bytes += k;
	while (k < p->n && p->buf[k] != MAVLINK_STX_V1 && p->buf[k] != MAVLINK_STX_V2) {
		k++;
		p->stats.skipped_bytes++;
	}
	memmove(p->buf, p->buf + k, p->n - k);
	p->n -= k;
}

size_t mavlink_parse(struct mavlink_parser *p, const uint8_t *data, size_t len,
		     struct mavlink_frame *out, bool *got)
{
	size_t used = 0, want = 0;
	*got = false;
	for (;;) {
		/* Work through what is held before taking more. */
		while (p->n > 0) {
			size_t flen = 0;
			enum check c = check(p, &flen);
			if (c == CHECK_MORE) {
				want = flen;
				break;
			}
			if (c == CHECK_FRAME) {
				fill(p, flen, out);
				p->stats.frames++;
				drop(p, flen, false);
				*got = true;
				return used;
			}
			if (c == CHECK_SKIP)
				drop(p, flen, false);
			else
				drop(p, 1, true);
		}
		if (used == len)
			return used;
		if (p->n == 0) {
			uint8_t byte = data[used++];
			if (byte != MAVLINK_STX_V1 && byte != MAVLINK_STX_V2)
				p->stats.skipped_bytes++;
			else
				p->buf[p->n++] = byte;
			continue;
		}
		/* As many bytes as the next look needs, at once (check sets want > n). */
		size_t k = want - p->n;
		if (k > len - used)
			k = len - used;
		memcpy(p->buf + p->n, data + used, k);
		p->n += k;
		used += k;
	}
}

size_t mavlink_encode(const struct mavlink_header *h, const uint8_t *payload, uint8_t *out)
{
	const struct mavlink_msg_info *info = mavlink_msg_info(h->msgid);
	if (!info)
		return 0;
	size_t hl, len;
	if (h->version == 1) {
		if (h->msgid > 255)
			return 0;
		len = info->min_len;
		hl = MAVLINK_V1_HEADER_LEN;
		out[0] = MAVLINK_STX_V1;
		out[1] = (uint8_t)len;
		out[2] = h->seq;
		out[3] = h->sysid;
		out[4] = h->compid;
		out[5] = (uint8_t)h->msgid;
	} else {
		len = info->max_len;
		while (len > 1 && payload[len - 1] == 0)
			len--;
		hl = MAVLINK_V2_HEADER_LEN;
		out[0] = MAVLINK_STX_V2;
		out[1] = (uint8_t)len;
		out[2] = 0;
		out[3] = 0;
		out[4] = h->seq;
		out[5] = h->sysid;
		out[6] = h->compid;
		out[7] = (uint8_t)h->msgid;
		out[8] = (uint8_t)(h->msgid >> 8);
		out[9] = (uint8_t)(h->msgid >> 16);
	}
	memcpy(out + hl, payload, len);
	uint16_t crc = crc_x25(CRC_X25_INIT, out + 1, hl - 1 + len);
	crc = crc_x25(crc, &info->crc_extra, 1);
	out[hl + len] = (uint8_t)crc;
	out[hl + len + 1] = (uint8_t)(crc >> 8);
	return hl + len + 2;
}

unsigned int mavlink_seq_lost(struct mavlink_seq_track *t, const struct mavlink_frame *f)
{
	unsigned int oldest = 0;
	t->frames++;
	for (unsigned int i = 0; i < MAVLINK_SEQ_SOURCES; i++) {
		if (t->src[i].used && t->src[i].sysid == f->sysid && t->src[i].compid == f->compid) {
			uint8_t gap = (uint8_t)(f->seq - (uint8_t)(t->src[i].seq + 1));
			t->src[i].seq = f->seq;
			t->src[i].heard = t->frames;
			return gap < 128 ? gap : 0;
		}
		if (!t->src[i].used || (t->src[oldest].used && t->src[i].heard < t->src[oldest].heard))
			oldest = i;
	}
	t->src[oldest].used = true;
	t->src[oldest].sysid = f->sysid;
	t->src[oldest].compid = f->compid;
	t->src[oldest].seq = f->seq;
	t->src[oldest].heard = t->frames;
	return 0;
}
