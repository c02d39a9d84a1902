// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * DataFlash (ArduPilot .bin) record encoding: the pure layer, no I/O, no allocation.
 *
 * A record is 0xA3 0x95 <type id> then the packed little-endian payload; its length
 * comes from the FMT record for that id (FMT is id 128, 89 bytes, format "BBnNZ").
 * Every function here writes only into the caller's buffer and is safe to call from
 * any thread, real-time ones included: packing is byte copies, never string
 * formatting. Functions return the number of bytes written, or -ENOSPC when the
 * buffer is too small, or -EINVAL for a bad argument; nothing is written on error.
 */
#ifndef FULMAR_LOG_DF_FORMAT_H
#define FULMAR_LOG_DF_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DF_HEAD1 0xA3u
#define DF_HEAD2 0x95u
#define DF_HEADER_LEN 3u
#define DF_FMT_ID 128u
#define DF_FMT_LEN 89u
#define DF_MAX_RECORD_LEN 255u       /* FMT's length field is a uint8 */
#define DF_MAX_FIELDS 16u            /* FMT's format is char[16] */
#define DF_NAME_LEN 4u
#define DF_FORMAT_LEN 16u
#define DF_LABELS_LEN 64u
#define DF_ARRAY_LEN 32u             /* 'a': int16[32] */

/*
 * One field's value, typed by its format letter. Raw stored values: 'c'/'C'/'e'/'E'
 * hold the value ×100 and 'L' degrees ×1e7 (df_value_to_double() applies those).
 * Strings point into the record (or, for packing, at the caller's text) and are
 * not NUL-terminated; len excludes the padding.
 */
struct df_value {
	char letter;
	union {
		int64_t i;           /* b h i c e L q */
		uint64_t u;          /* B H I C E M Q */
		float f;             /* f */
		double d;            /* d */
		struct {
			const char *p;
			size_t len;
		} s;                 /* n N Z */
		int16_t a[DF_ARRAY_LEN]; /* a */
	} v;
};

/* Bytes a format letter occupies in the payload; 0 for an unknown letter. */
size_t df_letter_size(char letter);

/* Payload bytes (without the 3-byte header) of a format string, or -EINVAL for an
 * unknown letter, an empty format or more than DF_MAX_FIELDS letters. */
int df_format_payload_size(const char *format);

/* Whether a letter's value lives in df_value.v.i (signed integers). */
int df_letter_is_signed(char letter);

/* The value as a double in the unit the letter implies: ×100 letters divided by
 * 100, 'L' by 1e7. Strings and arrays give 0. */
double df_value_to_double(const struct df_value *val);

/* Packs a record of a format string from values (n of them, one per letter, each
 * value's letter matching). The generic path, used by tools and tests. */
int df_pack_values(uint8_t *buf, size_t cap, uint8_t type, const char *format,
		   const struct df_value *vals, size_t n);

/* FMT record describing type: name up to 4 chars, format up to 16 letters, labels
 * up to 64 chars (comma-separated, one per letter). The length field is computed. */
int df_pack_fmt(uint8_t *buf, size_t cap, uint8_t type, const char *name,
		const char *format, const char *labels);

/* UNIT "QbZ" (TimeUS,Id,Label), MULT "Qbd" (TimeUS,Id,Mult), FMTU "QBNN"
 * (TimeUS,FmtType,UnitIds,MultIds); t_us is CLOCK_MONOTONIC microseconds. The ids
 * they use are those of df_msgs.h (DF_ID_UNIT, DF_ID_MULT, DF_ID_FMTU). */
int df_pack_unit(uint8_t *buf, size_t cap, uint64_t t_us, char id, const char *label);
int df_pack_mult(uint8_t *buf, size_t cap, uint64_t t_us, char id, double mult);
int df_pack_fmtu(uint8_t *buf, size_t cap, uint64_t t_us, uint8_t fmt_type,
		 const char *units, const char *mults);

/*
 * Cursor helpers for the typed packers: each copies the little-endian bytes of one
 * field. A cursor never runs past what df_put_begin() reserved.
 */
struct df_put {
	uint8_t *p;
};

/* Little-endian stores independent of host order and alignment. */
static inline void df_put_u8(struct df_put *c, uint8_t v) { *c->p++ = v; }
static inline void df_put_u16(struct df_put *c, uint16_t v)
{
	c->p[0] = (uint8_t)v;
	c->p[1] = (uint8_t)(v >> 8);
	c->p += 2;
}
static inline void df_put_u32(struct df_put *c, uint32_t v)
{
	for (unsigned k = 0; k < 4; k++)
		c->p[k] = (uint8_t)(v >> (8 * k));
	c->p += 4;
}
static inline void df_put_u64(struct df_put *c, uint64_t v)
{
	for (unsigned k = 0; k < 8; k++)
		c->p[k] = (uint8_t)(v >> (8 * k));
	c->p += 8;
}
static inline void df_put_i8(struct df_put *c, int8_t v) { df_put_u8(c, (uint8_t)v); }
static inline void df_put_i16(struct df_put *c, int16_t v) { df_put_u16(c, (uint16_t)v); }
static inline void df_put_i32(struct df_put *c, int32_t v) { df_put_u32(c, (uint32_t)v); }
static inline void df_put_i64(struct df_put *c, int64_t v) { df_put_u64(c, (uint64_t)v); }
static inline void df_put_f32(struct df_put *c, float v)
{
	uint32_t u;
	_Static_assert(sizeof u == sizeof v, "float is 32 bits");
	memcpy(&u, &v, sizeof u);
	df_put_u32(c, u);
}
static inline void df_put_f64(struct df_put *c, double v)
{
	uint64_t u;
	_Static_assert(sizeof u == sizeof v, "double is 64 bits");
	memcpy(&u, &v, sizeof u);
	df_put_u64(c, u);
}
/* A char[n] field: copies up to n bytes of s (stopping at its NUL), pads with NUL. */
static inline void df_put_str(struct df_put *c, const char *s, size_t n)
{
	size_t k = 0;
	if (s)
		for (; k < n && s[k]; k++)
			c->p[k] = (uint8_t)s[k];
	for (; k < n; k++)
		c->p[k] = 0;
	c->p += n;
}

#endif
