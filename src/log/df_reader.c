// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>

#include "log/df_reader.h"

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Copies a NUL-padded char[n] field, terminating it. */
static void copy_text(char *dst, const uint8_t *src, size_t n)
{
	size_t k = 0;
	for (; k < n && src[k]; k++)
		dst[k] = (char)src[k];
	dst[k] = '\0';
}

/* Fills the derived parts of a df_fmt from its format and labels. */
static void fmt_layout(struct df_fmt *f)
{
	size_t off = DF_HEADER_LEN;
	unsigned n = 0;

	f->fields_ok = false;
	f->nfields = 0;
	for (; f->format[n]; n++) {
		size_t s = df_letter_size(f->format[n]);
		if (s == 0)
			return;
		f->offset[n] = (uint8_t)off;
		off += s;
	}
	if (n == 0 || off != f->length)
		return;
	f->nfields = (uint8_t)n;
	f->fields_ok = true;

	unsigned col = 0;
	size_t start = 0;
	for (size_t k = 0;; k++) {
		char ch = f->labels[k];
		if (ch == ',' || ch == '\0') {
			if (col < DF_MAX_FIELDS) {
				f->label_off[col] = (uint8_t)start;
				f->label_len[col] = (uint8_t)(k - start);
			}
			col++;
			start = k + 1;
		}
		if (ch == '\0')
			break;
	}
	/* Columns the labels do not name get an empty name. */
	for (; col < n; col++) {
		f->label_off[col] = 0;
		f->label_len[col] = 0;
	}
}

void df_reader_init(struct df_reader *r)
{
	memset(r, 0, sizeof *r);
	/* FMT describes itself; it is read even before its own FMT record arrives. */
	struct df_fmt *f = &r->fmts[DF_FMT_ID];
	f->type = DF_FMT_ID;
	f->length = DF_FMT_LEN;
	strcpy(f->name, "FMT");
	strcpy(f->format, "BBnNZ");
	strcpy(f->labels, "Type,Length,Name,Format,Columns");
	fmt_layout(f);
	r->known[DF_FMT_ID] = true;
}

size_t df_reader_feed(struct df_reader *r, const uint8_t *data, size_t len)
{
	if (r->head > 0) {
		memmove(r->buf, r->buf + r->head, r->tail - r->head);
		r->tail -= r->head;
		r->head = 0;
	}
	size_t room = DF_READER_BUF - r->tail;
	if (len > room)
		len = room;
	memcpy(r->buf + r->tail, data, len);
	r->tail += len;
	return len;
}

void df_reader_end(struct df_reader *r)
{
	r->eof = true;
}

static void learn_fmt(struct df_reader *r, const uint8_t *rec)
{
	uint8_t type = rec[3];
	uint8_t length = rec[4];

	/* FMT's own layout is fixed: a record redefining it would desynchronise us. */
	if (type == DF_FMT_ID)
		return;
	if (length < DF_HEADER_LEN) {
		r->bad_fmts++;
		return;
	}
	struct df_fmt *f = &r->fmts[type];
	f->type = type;
	f->length = length;
	copy_text(f->name, rec + 5, DF_NAME_LEN);
	copy_text(f->format, rec + 9, DF_FORMAT_LEN);
	copy_text(f->labels, rec + 25, DF_LABELS_LEN);
	fmt_layout(f);
	/* Keep the length even when the letters are unknown: it keeps us in sync. */
	if (!f->fields_ok)
		r->bad_fmts++;
	r->known[type] = true;
}

static void skip_byte(struct df_reader *r)
{
	if (!r->skipping)
		r->resyncs++;
	r->skipping = true;
	r->skipped_bytes++;
	r->head++;
}

/* At end of input: whether a known record starts after head and ends in the buffer. */
static bool later_record_fits(const struct df_reader *r)
{
	for (size_t k = r->head + 1; k + DF_HEADER_LEN <= r->tail; k++) {
		const uint8_t *p = r->buf + k;
		if (p[0] == DF_HEAD1 && p[1] == DF_HEAD2 && r->known[p[2]] &&
		    k + r->fmts[p[2]].length <= r->tail)
			return true;
	}
	return false;
}

int df_reader_next(struct df_reader *r, struct df_record *rec)
{
	for (;;) {
		size_t avail = r->tail - r->head;
		const uint8_t *p = r->buf + r->head;

		if (avail < DF_HEADER_LEN) {
			if (r->eof && avail) {
				r->truncated_bytes += avail;
				r->head = r->tail;
			}
			return 0;
		}
		if (p[0] != DF_HEAD1 || p[1] != DF_HEAD2 || !r->known[p[2]]) {
			skip_byte(r);
			continue;
		}
		size_t len = r->fmts[p[2]].length;
		if (avail < len) {
			if (!r->eof)
				return 0;
			/* Garbage that looks like a header may still hide whole records. */
			if (later_record_fits(r)) {
				skip_byte(r);
				continue;
			}
			r->truncated_bytes += avail;
			r->head = r->tail;
			return 0;
		}
		r->skipping = false;
		if (p[2] == DF_FMT_ID)
			learn_fmt(r, p);
		rec->type = p[2];
		rec->length = (uint8_t)len;
		rec->fmt = &r->fmts[p[2]];
		rec->data = p;
		r->count[p[2]]++;
		r->records++;
		r->head += len;
		return 1;
	}
}

unsigned df_reader_type_count(const struct df_reader *r)
{
	unsigned n = 0;
	for (unsigned k = 0; k < 256; k++)
		n += r->count[k] != 0;
	return n;
}

int df_record_field(const struct df_record *rec, unsigned idx, struct df_value *out)
{
	const struct df_fmt *f = rec->fmt;

	if (!f->fields_ok)
		return -EINVAL;
	if (idx >= f->nfields)
		return -ERANGE;
	const uint8_t *p = rec->data + f->offset[idx];
	char letter = f->format[idx];
	struct df_value v = { .letter = letter };

	switch (letter) {
	case 'b': v.v.i = (int8_t)p[0]; break;
	case 'B': case 'M': v.v.u = p[0]; break;
	case 'h': case 'c': v.v.i = (int16_t)get_u16(p); break;
	case 'H': case 'C': v.v.u = get_u16(p); break;
	case 'i': case 'e': case 'L': v.v.i = (int32_t)get_u32(p); break;
	case 'I': case 'E': v.v.u = get_u32(p); break;
	case 'q': v.v.i = (int64_t)get_u64(p); break;
	case 'Q': v.v.u = get_u64(p); break;
	case 'f': {
		uint32_t u = get_u32(p);
		memcpy(&v.v.f, &u, sizeof v.v.f);
		break;
	}
	case 'd': {
		uint64_t u = get_u64(p);
		memcpy(&v.v.d, &u, sizeof v.v.d);
		break;
	}
	case 'n': case 'N': case 'Z': {
		size_t n = df_letter_size(letter), len = 0;
		while (len < n && p[len])
			len++;
		v.v.s.p = (const char *)p;
		v.v.s.len = len;
		break;
	}
	case 'a':
		for (unsigned k = 0; k < DF_ARRAY_LEN; k++)
			v.v.a[k] = (int16_t)get_u16(p + 2 * k);
		break;
	default:
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int df_fmt_column(const struct df_fmt *fmt, const char *label)
{
	size_t n = strlen(label);
	for (unsigned k = 0; k < fmt->nfields; k++)
		if (fmt->label_len[k] == n && memcmp(fmt->labels + fmt->label_off[k], label, n) == 0)
			return (int)k;
	return -ENOENT;
}

int df_fmt_label(const struct df_fmt *fmt, unsigned idx, char *out, size_t cap)
{
	if (idx >= fmt->nfields || cap == 0)
		return -ERANGE;
	size_t n = fmt->label_len[idx];
	if (n >= cap)
		n = cap - 1;
	memcpy(out, fmt->labels + fmt->label_off[idx], n);
	out[n] = '\0';
	return 0;
}
