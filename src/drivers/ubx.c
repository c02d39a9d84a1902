// SPDX-License-Identifier: GPL-3.0-or-later
/* Frame format and message layouts: u-blox 8 / M8 receiver description, UBX protocol. */
#include "drivers/ubx.h"

#include <errno.h>
#include <string.h>

void ubx_parser_init(struct ubx_parser *p)
{
	memset(p, 0, sizeof(*p));
}

static void ubx_checksum(const uint8_t *data, size_t len, uint8_t *ck_a, uint8_t *ck_b)
{
	uint8_t a = 0, b = 0;

	for (size_t i = 0; i < len; i++) {
		a = (uint8_t)(a + data[i]);
		b = (uint8_t)(b + a);
	}
	*ck_a = a;
	*ck_b = b;
}

enum ubx_prefix {
	UBX_PREFIX_PARTIAL = 1,   /* consistent so far */
	UBX_PREFIX_FRAME,         /* a complete, good frame */
	UBX_PREFIX_BAD,           /* cannot be the start of a frame */
};

/* Judges buf[0 .. n) given that buf[0 .. n - 1) was a consistent prefix. */
static enum ubx_prefix ubx_judge(struct ubx_parser *p, size_t n)
{
	const uint8_t *b = p->buf;
	size_t k = n - 1;

	if (k == 0)
		return b[0] == UBX_SYNC1 ? UBX_PREFIX_PARTIAL : UBX_PREFIX_BAD;
	if (k == 1)
		return b[1] == UBX_SYNC2 ? UBX_PREFIX_PARTIAL : UBX_PREFIX_BAD;
	if (k < 5)
		return UBX_PREFIX_PARTIAL;
	size_t plen = (size_t)b[4] | (size_t)b[5] << 8;
	if (k == 5) {
		if (plen > UBX_MAX_PAYLOAD) {
			p->stats.oversize++;
			return UBX_PREFIX_BAD;
		}
		return UBX_PREFIX_PARTIAL;
	}
	if (n < plen + UBX_OVERHEAD)
		return UBX_PREFIX_PARTIAL;
	uint8_t ck_a, ck_b;
	ubx_checksum(&b[2], 4 + plen, &ck_a, &ck_b);
	if (ck_a != b[6 + plen] || ck_b != b[7 + plen]) {
		p->stats.bad_checksum++;
		return UBX_PREFIX_BAD;
	}
	return UBX_PREFIX_FRAME;
}

static void ubx_emit(struct ubx_parser *p,
		     void (*on_frame)(void *ctx, const struct ubx_frame *frame), void *ctx)
{
	const struct ubx_frame f = {
		.cls = p->buf[2],
		.id = p->buf[3],
		.len = (uint16_t)(p->buf[4] | p->buf[5] << 8),
		.payload = &p->buf[6],
	};

	p->stats.frames++;
	if (on_frame)
		on_frame(ctx, &f);
}

/* Drops the first `drop` bytes of the buffer; they belonged to no good frame when skipped. */
static void ubx_shift(struct ubx_parser *p, size_t drop, bool skipped)
{
	if (skipped)
		p->stats.skipped += drop;
	memmove(p->buf, &p->buf[drop], p->len - drop);
	p->len -= drop;
}

/*
 * The buffer's first byte cannot start a frame: look for the next sync byte
 * and judge what follows it again, byte by byte, as if it had just arrived.
 * Frames found on the way are emitted.
 */
static size_t ubx_rescan(struct ubx_parser *p,
			 void (*on_frame)(void *ctx, const struct ubx_frame *frame), void *ctx)
{
	size_t frames = 0, k = 0;

	ubx_shift(p, 1, true);
	while (k < p->len) {
		if (k == 0 && p->buf[0] != UBX_SYNC1) {
			const uint8_t *sync = memchr(p->buf, UBX_SYNC1, p->len);
			ubx_shift(p, sync ? (size_t)(sync - p->buf) : p->len, true);
			continue;
		}
		switch (ubx_judge(p, k + 1)) {
		case UBX_PREFIX_PARTIAL:
			k++;
			break;
		case UBX_PREFIX_FRAME:
			ubx_emit(p, on_frame, ctx);
			frames++;
			ubx_shift(p, k + 1, false);
			k = 0;
			break;
		case UBX_PREFIX_BAD:
			ubx_shift(p, 1, true);
			k = 0;
			break;
		}
	}
	return frames;
}

size_t ubx_parser_feed(struct ubx_parser *p, const uint8_t *data, size_t len,
		       void (*on_frame)(void *ctx, const struct ubx_frame *frame), void *ctx)
{
	size_t frames = 0;

	for (size_t i = 0; i < len; i++) {
		if (p->len == 0 && data[i] != UBX_SYNC1) {
			p->stats.skipped++;
			continue;
		}
		p->buf[p->len++] = data[i];
		switch (ubx_judge(p, p->len)) {
		case UBX_PREFIX_PARTIAL:
			break;
		case UBX_PREFIX_FRAME:
			ubx_emit(p, on_frame, ctx);
			frames++;
			p->len = 0;
			break;
		case UBX_PREFIX_BAD:
			frames += ubx_rescan(p, on_frame, ctx);
			break;
		}
	}
	return frames;
}

size_t ubx_build(uint8_t *out, size_t cap, uint8_t cls, uint8_t id, const uint8_t *payload,
		 uint16_t len)
{
	size_t total = (size_t)len + UBX_OVERHEAD;

	if (total > cap)
		return 0;
	out[0] = UBX_SYNC1;
	out[1] = UBX_SYNC2;
	out[2] = cls;
	out[3] = id;
	out[4] = (uint8_t)len;
	out[5] = (uint8_t)(len >> 8);
	if (len)
		memcpy(&out[6], payload, len);
	ubx_checksum(&out[2], 4 + (size_t)len, &out[6 + len], &out[7 + len]);
	return total;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t ubx_build_cfg_prt_uart(uint8_t *out, size_t cap, uint8_t port, uint32_t baud,
			      uint16_t in_proto, uint16_t out_proto)
{
	uint8_t pl[20] = { 0 };

	pl[0] = port;
	/* mode: 8 data bits (7:6 = 11), no parity (11:9 = 100), 1 stop bit; bit 4 for old firmware. */
	put_le32(&pl[4], 0x000008d0);
	put_le32(&pl[8], baud);
	put_le16(&pl[12], in_proto);
	put_le16(&pl[14], out_proto);
	return ubx_build(out, cap, UBX_CLASS_CFG, UBX_ID_CFG_PRT, pl, sizeof(pl));
}

size_t ubx_build_cfg_msg(uint8_t *out, size_t cap, uint8_t cls, uint8_t id, uint8_t rate)
{
	const uint8_t pl[3] = { cls, id, rate };

	return ubx_build(out, cap, UBX_CLASS_CFG, UBX_ID_CFG_MSG, pl, sizeof(pl));
}

size_t ubx_build_cfg_rate(uint8_t *out, size_t cap, uint16_t meas_ms, uint16_t nav_rate,
			  uint16_t time_ref)
{
	uint8_t pl[6];

	put_le16(&pl[0], meas_ms);
	put_le16(&pl[2], nav_rate);
	put_le16(&pl[4], time_ref);
	return ubx_build(out, cap, UBX_CLASS_CFG, UBX_ID_CFG_RATE, pl, sizeof(pl));
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int32_t le32s(const uint8_t *p)
{
	return (int32_t)le32(p);
}

int ubx_decode_nav_pvt(const uint8_t *pl, size_t len, struct gps_fix *fix)
{
	if (len < UBX_NAV_PVT_MIN_LEN)
		return -EBADMSG;

	struct gps_fix f = { .t_us = fix->t_us };
	uint8_t fix_type = pl[20];
	bool fix_ok = pl[21] & 0x01;

	f.itow_ms = le32(&pl[0]);
	f.utc = (struct gps_utc){
		.year = (uint16_t)(pl[4] | pl[5] << 8),
		.month = pl[6], .day = pl[7], .hour = pl[8], .min = pl[9], .sec = pl[10],
		.nano = le32s(&pl[16]),
		.date_valid = pl[11] & 0x01,
		.time_valid = pl[11] & 0x02,
	};
	/* fixType 2: 2D, 3: 3D, 4: GNSS + dead reckoning; 0, 1 (DR only), 5 (time only): none. */
	if (!fix_ok || fix_type < 2 || fix_type > 4)
		f.fix = GPS_FIX_NONE;
	else
		f.fix = fix_type == 2 ? GPS_FIX_2D : GPS_FIX_3D;
	f.num_sv = pl[23];
	f.lon_deg = le32s(&pl[24]) * 1e-7;
	f.lat_deg = le32s(&pl[28]) * 1e-7;
	f.alt_ellipsoid_m = (float)le32s(&pl[32]) * 1e-3f;
	f.alt_msl_m = (float)le32s(&pl[36]) * 1e-3f;
	f.h_acc_m = (float)le32(&pl[40]) * 1e-3f;
	f.v_acc_m = (float)le32(&pl[44]) * 1e-3f;
	for (int i = 0; i < 3; i++)
		f.vel_ned_m_s[i] = (float)le32s(&pl[48 + 4 * i]) * 1e-3f;
	f.vel_down_valid = true;
	f.ground_speed_m_s = (float)le32s(&pl[60]) * 1e-3f;
	f.course_deg = (float)le32s(&pl[64]) * 1e-5f;
	f.s_acc_m_s = (float)le32(&pl[68]) * 1e-3f;
	f.dop = (float)(pl[76] | pl[77] << 8) * 0.01f;
	*fix = f;
	return 0;
}
