// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>

#include "log/df_format.h"
#include "log/df_msgs.h"

size_t df_letter_size(char letter)
{
	switch (letter) {
	case 'b': case 'B': case 'M':
		return 1;
	case 'h': case 'H': case 'c': case 'C':
		return 2;
	case 'i': case 'I': case 'f': case 'e': case 'E': case 'L': case 'n':
		return 4;
	case 'd': case 'q': case 'Q':
		return 8;
	case 'N':
		return 16;
	case 'Z': case 'a':
		return 64;
	default:
		return 0;
	}
}

int df_format_payload_size(const char *format)
{
	size_t n = 0, total = 0;

	if (!format || !format[0])
		return -EINVAL;
	for (; format[n]; n++) {
		size_t s = df_letter_size(format[n]);
		if (s == 0 || n >= DF_MAX_FIELDS)
			return -EINVAL;
		total += s;
	}
	if (total + DF_HEADER_LEN > DF_MAX_RECORD_LEN)
		return -EINVAL;
	return (int)total;
}

int df_letter_is_signed(char letter)
{
	switch (letter) {
	case 'b': case 'h': case 'i': case 'c': case 'e': case 'L': case 'q':
		return 1;
	default:
		return 0;
	}
}

double df_value_to_double(const struct df_value *val)
{
	switch (val->letter) {
	case 'f':
		return (double)val->v.f;
	case 'd':
		return val->v.d;
	case 'c': case 'e':
		return (double)val->v.i / 100.0;
	case 'C': case 'E':
		return (double)val->v.u / 100.0;
	case 'L':
		return (double)val->v.i / 1e7;
	case 'b': case 'h': case 'i': case 'q':
		return (double)val->v.i;
	case 'B': case 'H': case 'I': case 'M': case 'Q':
		return (double)val->v.u;
	default:
		return 0.0;
	}
}

static void put_value(struct df_put *c, const struct df_value *val)
{
	switch (val->letter) {
	case 'b': df_put_i8(c, (int8_t)val->v.i); break;
	case 'B': case 'M': df_put_u8(c, (uint8_t)val->v.u); break;
	case 'h': case 'c': df_put_i16(c, (int16_t)val->v.i); break;
	case 'H': case 'C': df_put_u16(c, (uint16_t)val->v.u); break;
	case 'i': case 'e': case 'L': df_put_i32(c, (int32_t)val->v.i); break;
	case 'I': case 'E': df_put_u32(c, (uint32_t)val->v.u); break;
	case 'f': df_put_f32(c, val->v.f); break;
	case 'd': df_put_f64(c, val->v.d); break;
	case 'q': df_put_i64(c, val->v.i); break;
	case 'Q': df_put_u64(c, val->v.u); break;
	case 'n': case 'N': case 'Z': {
		/* Text given with a length: copy that much, pad the rest. */
		size_t n = df_letter_size(val->letter);
		size_t len = val->v.s.len < n ? val->v.s.len : n;
		if (len)
			memcpy(c->p, val->v.s.p, len);
		memset(c->p + len, 0, n - len);
		c->p += n;
		break;
	}
	case 'a':
		for (unsigned k = 0; k < DF_ARRAY_LEN; k++)
			df_put_i16(c, val->v.a[k]);
		break;
	default:
		break;
	}
}

int df_pack_values(uint8_t *buf, size_t cap, uint8_t type, const char *format,
		   const struct df_value *vals, size_t n)
{
	int size = df_format_payload_size(format);

	if (size < 0 || strlen(format) != n)
		return -EINVAL;
	for (size_t k = 0; k < n; k++)
		if (vals[k].letter != format[k])
			return -EINVAL;
	if ((size_t)size + DF_HEADER_LEN > cap)
		return -ENOSPC;
	struct df_put c = { buf };
	df_put_u8(&c, DF_HEAD1);
	df_put_u8(&c, DF_HEAD2);
	df_put_u8(&c, type);
	for (size_t k = 0; k < n; k++)
		put_value(&c, &vals[k]);
	return (int)(c.p - buf);
}

int df_pack_fmt(uint8_t *buf, size_t cap, uint8_t type, const char *name,
		const char *format, const char *labels)
{
	int size = df_format_payload_size(format);

	if (size < 0 || !name || strlen(name) > DF_NAME_LEN || !labels ||
	    strlen(labels) > DF_LABELS_LEN)
		return -EINVAL;
	if (cap < DF_FMT_LEN)
		return -ENOSPC;
	struct df_put c = { buf };
	df_put_u8(&c, DF_HEAD1);
	df_put_u8(&c, DF_HEAD2);
	df_put_u8(&c, DF_FMT_ID);
	df_put_u8(&c, type);
	df_put_u8(&c, (uint8_t)(size + (int)DF_HEADER_LEN));
	df_put_str(&c, name, DF_NAME_LEN);
	df_put_str(&c, format, DF_FORMAT_LEN);
	df_put_str(&c, labels, DF_LABELS_LEN);
	return (int)DF_FMT_LEN;
}

int df_pack_unit(uint8_t *buf, size_t cap, uint64_t t_us, char id, const char *label)
{
	if (!label || strlen(label) > DF_LABELS_LEN)
		return -EINVAL;
	if (cap < DF_UNIT_LEN)
		return -ENOSPC;
	struct df_put c = { buf };
	df_put_u8(&c, DF_HEAD1);
	df_put_u8(&c, DF_HEAD2);
	df_put_u8(&c, DF_ID_UNIT);
	df_put_u64(&c, t_us);
	df_put_i8(&c, (int8_t)id);
	df_put_str(&c, label, DF_LABELS_LEN);
	return (int)DF_UNIT_LEN;
}

int df_pack_mult(uint8_t *buf, size_t cap, uint64_t t_us, char id, double mult)
{
	if (cap < DF_MULT_LEN)
		return -ENOSPC;
	struct df_put c = { buf };
	df_put_u8(&c, DF_HEAD1);
	df_put_u8(&c, DF_HEAD2);
	df_put_u8(&c, DF_ID_MULT);
	df_put_u64(&c, t_us);
	df_put_i8(&c, (int8_t)id);
	df_put_f64(&c, mult);
	return (int)DF_MULT_LEN;
}

int df_pack_fmtu(uint8_t *buf, size_t cap, uint64_t t_us, uint8_t fmt_type,
		 const char *units, const char *mults)
{
	if (!units || !mults || strlen(units) > DF_FORMAT_LEN || strlen(mults) > DF_FORMAT_LEN)
		return -EINVAL;
	if (cap < DF_FMTU_LEN)
		return -ENOSPC;
	struct df_put c = { buf };
	df_put_u8(&c, DF_HEAD1);
	df_put_u8(&c, DF_HEAD2);
	df_put_u8(&c, DF_ID_FMTU);
	df_put_u64(&c, t_us);
	df_put_u8(&c, fmt_type);
	df_put_str(&c, units, DF_FORMAT_LEN);
	df_put_str(&c, mults, DF_FORMAT_LEN);
	return (int)DF_FMTU_LEN;
}
