/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 1 and 2 framing: a byte-stream parser that resynchronises on
 * garbage and counts every rejection by class, and an encoder. Pure: no I/O,
 * no clocks. One parser per link, used by the thread that reads the link.
 */
#ifndef FULMAR_MAVLINK_FRAME_H
#define FULMAR_MAVLINK_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAVLINK_STX_V1 0xFE
#define MAVLINK_STX_V2 0xFD
#define MAVLINK_V1_HEADER_LEN 6          /* STX through msgid */
#define MAVLINK_V2_HEADER_LEN 10
#define MAVLINK_SIGNATURE_LEN 13         /* link id, 48-bit timestamp, 48-bit signature */
#define MAVLINK_IFLAG_SIGNED 0x01
#define MAVLINK_MAX_FRAME_LEN (MAVLINK_V2_HEADER_LEN + 255 + 2 + MAVLINK_SIGNATURE_LEN)

struct mavlink_frame {
	uint8_t version;          /* 1 or 2 */
	uint8_t incompat_flags;
	uint8_t compat_flags;
	uint8_t seq;
	uint8_t sysid;
	uint8_t compid;
	uint32_t msgid;
	uint8_t len;              /* payload bytes on the wire (v2 may be truncated) */
	bool is_signed;
	/* The frame as received, STX to the end of the signature: to verify and to forward. */
	uint8_t raw[MAVLINK_MAX_FRAME_LEN];
	size_t raw_len;
};

/* Rejections by class, and what got through. Written by the parser's thread. */
struct mavlink_parse_stats {
	uint64_t frames;          /* good frames out */
	uint64_t bad_crc;
	uint64_t bad_len;         /* a length the message cannot have */
	uint64_t unknown_id;      /* a message fulmar has no definition for: skipped whole */
	uint64_t bad_flags;       /* MAVLink 2 incompatibility flags we do not understand */
	uint64_t skipped_bytes;   /* bytes thrown away while looking for a frame */
};

struct mavlink_parser {
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	size_t n;
	struct mavlink_parse_stats stats;
};

/* The payload inside raw (a frame is plain data: it may be copied through a ring). */
static inline const uint8_t *mavlink_payload(const struct mavlink_frame *f)
{
	return f->raw + (f->version == 2 ? MAVLINK_V2_HEADER_LEN : MAVLINK_V1_HEADER_LEN);
}

void mavlink_parser_init(struct mavlink_parser *p);

/*
 * Feeds up to len bytes and stops after the first complete good frame, which
 * goes to *out with *got = true. Returns how many bytes of data were used.
 * Bytes the parser holds may already make the next frame, so call again,
 * while a frame comes out or data is left:
 *
 *	size_t off = 0;
 *	bool got;
 *	do {
 *		off += mavlink_parse(p, data + off, len - off, &frame, &got);
 *		if (got) handle(&frame);
 *	} while (got || off < len);
 */
size_t mavlink_parse(struct mavlink_parser *p, const uint8_t *data, size_t len,
		     struct mavlink_frame *out, bool *got);

/*
 * Frames lost on a link, counted by sequence number. Each sender (system and
 * component) numbers its own frames, so each is followed apart: a ground
 * station whose components interleave loses nothing. A sender's first frame
 * counts nothing, nor does a step back or of 128 or more ahead: that is a
 * sender that restarted or frames out of order, not 128 frames lost in a row.
 * Up to MAVLINK_SEQ_SOURCES senders at once per link; one more takes the
 * place of the one heard longest ago, and starts afresh.
 */
#define MAVLINK_SEQ_SOURCES 16
struct mavlink_seq_track {
	struct {
		uint8_t sysid, compid, seq;
		bool used;
		uint64_t heard;       /* the tracker's frame count when last heard */
	} src[MAVLINK_SEQ_SOURCES];
	uint64_t frames;
};

/* The frames missing just before f from its sender (0..127). t zeroed to start. */
unsigned int mavlink_seq_lost(struct mavlink_seq_track *t, const struct mavlink_frame *f);

/* Header fields of a frame to send. */
struct mavlink_header {
	uint8_t version;          /* 1 or 2 */
	uint8_t seq;
	uint8_t sysid;
	uint8_t compid;
	uint32_t msgid;
};

/*
 * Frames a payload packed by the generated mavlink_<msg>_pack() (max_len bytes)
 * into out (MAVLINK_MAX_FRAME_LEN bytes; a signature is added by
 * mavlink_sign). MAVLink 2 drops trailing zero bytes (keeping at least one);
 * MAVLink 1 sends the base fields only. Returns the frame length, or 0 when
 * the message is unknown or cannot go as MAVLink 1 (id above 255).
 */
size_t mavlink_encode(const struct mavlink_header *h, const uint8_t *payload, uint8_t *out);

#endif
