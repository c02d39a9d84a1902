/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The u-blox UBX protocol, as pure byte-in / byte-out functions: a frame
 * parser that finds frames in any byte stream (interleaved NMEA, line noise,
 * the garbage of a baud-rate change), frame builders for the configuration
 * messages, and the NAV-PVT decoder.
 *
 * Frame: 0xB5 0x62, class, id, length (u16 LE), payload, CK_A CK_B: the
 * 8-bit Fletcher checksum over class .. payload.
 *
 * No clock, no I/O, no allocation; a parser belongs to the thread that feeds
 * it (the uart thread).
 */
#ifndef FULMAR_DRIVERS_UBX_H
#define FULMAR_DRIVERS_UBX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/gps_fix.h"

#define UBX_SYNC1 0xb5
#define UBX_SYNC2 0x62
/* Longest payload kept; longer frames are skipped (and counted). NAV-PVT is 92. */
#define UBX_MAX_PAYLOAD 256
/* Header (sync, class, id, length) and checksum around the payload. */
#define UBX_OVERHEAD 8

#define UBX_CLASS_NAV 0x01
#define UBX_CLASS_ACK 0x05
#define UBX_CLASS_CFG 0x06
#define UBX_CLASS_NMEA 0xf0
#define UBX_ID_NAV_PVT 0x07
#define UBX_ID_ACK_NAK 0x00
#define UBX_ID_ACK_ACK 0x01
#define UBX_ID_CFG_PRT 0x00
#define UBX_ID_CFG_MSG 0x01
#define UBX_ID_CFG_RATE 0x08
#define UBX_NAV_PVT_LEN 92
/* u-blox 7 (protocol 14) sends NAV-PVT without the last 8 bytes, which the decoder does not use. */
#define UBX_NAV_PVT_MIN_LEN 84

/* inProtoMask / outProtoMask bits of CFG-PRT. */
#define UBX_PROTO_UBX 0x0001
#define UBX_PROTO_NMEA 0x0002

struct ubx_frame {
	uint8_t cls;
	uint8_t id;
	uint16_t len;
	const uint8_t *payload;   /* valid until the parser is fed again */
};

struct ubx_parser_stats {
	uint64_t frames;          /* good frames found */
	uint32_t bad_checksum;    /* complete frames whose checksum failed */
	uint32_t oversize;        /* headers announcing more than UBX_MAX_PAYLOAD */
	uint64_t skipped;         /* bytes that were no part of a good frame (NMEA text too) */
};

struct ubx_parser {
	uint8_t buf[UBX_OVERHEAD + UBX_MAX_PAYLOAD];
	size_t len;
	struct ubx_parser_stats stats;
};

void ubx_parser_init(struct ubx_parser *p);
/*
 * Feeds len bytes; calls on_frame (if not NULL) for each good frame, in
 * order, and returns how many there were. After a bad frame the bytes after
 * its first sync byte are searched again, so a real frame hidden behind a
 * false header is still found. A partial frame waits in the parser for the
 * next call.
 */
size_t ubx_parser_feed(struct ubx_parser *p, const uint8_t *data, size_t len,
		       void (*on_frame)(void *ctx, const struct ubx_frame *frame), void *ctx);

/*
 * Builders: write one complete frame to out and return its length, or 0 when
 * it does not fit in cap.
 */
size_t ubx_build(uint8_t *out, size_t cap, uint8_t cls, uint8_t id, const uint8_t *payload,
		 uint16_t len);
/* CFG-PRT for a UART (port 1 or 2): 8N1 at baud, with these protocol masks. */
size_t ubx_build_cfg_prt_uart(uint8_t *out, size_t cap, uint8_t port, uint32_t baud,
			      uint16_t in_proto, uint16_t out_proto);
/* CFG-MSG: message cls/id every rate navigation solutions on the port this arrives on (0: off). */
size_t ubx_build_cfg_msg(uint8_t *out, size_t cap, uint8_t cls, uint8_t id, uint8_t rate);
/* CFG-RATE: a measurement every meas_ms, a solution every nav_rate of them; time_ref 1: GPS. */
size_t ubx_build_cfg_rate(uint8_t *out, size_t cap, uint16_t meas_ms, uint16_t nav_rate,
			  uint16_t time_ref);

/*
 * NAV-PVT payload to a fix (t_us left for the caller). -EBADMSG when len is
 * under 84. The fix counts only when the receiver sets gnssFixOK.
 */
int ubx_decode_nav_pvt(const uint8_t *payload, size_t len, struct gps_fix *fix);

#endif
