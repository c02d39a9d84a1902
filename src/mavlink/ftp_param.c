// SPDX-License-Identifier: GPL-3.0-or-later
/* The MAVLink FTP server's @PARAM/param.pck: the parameters in ArduPilot's packed format. */
#include "mavlink/ftp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mavlink/wire.h"
#include "param/param.h"

#define PCK_MAGIC 0x671bu
#define PCK_MAGIC_DEFAULTS 0x671cu

/* ArduPilot's AP_Param type numbers and their sizes. */
static unsigned int pck_type(enum param_type t, unsigned int *size)
{
	switch (t) {
	case PARAM_INT8: *size = 1; return 1;
	case PARAM_INT16: *size = 2; return 2;
	case PARAM_INT32: *size = 4; return 3;
	default: *size = 4; return 4;
	}
}

static void pck_value(enum param_type t, float v, uint8_t *out)
{
	int32_t i = (int32_t)lrintf(v);
	switch (t) {
	case PARAM_INT8: out[0] = (uint8_t)(int8_t)i; break;
	case PARAM_INT16: wire_put_i16(out, (int16_t)i); break;
	case PARAM_INT32: wire_put_i32(out, i); break;
	default: wire_put_f32(out, v); break;
	}
}

/* "withdefaults=1&start=N&count=N": unknown keys are ignored, as ArduPilot does. */
static void pck_query(const char *q, bool *defaults, unsigned long *start, unsigned long *count)
{
	while (q && *q) {
		const char *end = strchr(q, '&');
		size_t n = end ? (size_t)(end - q) : strlen(q);
		char item[48];
		if (n < sizeof(item)) {
			memcpy(item, q, n);
			item[n] = '\0';
			char *eq = strchr(item, '=');
			if (eq) {
				*eq = '\0';
				unsigned long v = strtoul(eq + 1, NULL, 10);
				if (strcmp(item, "withdefaults") == 0)
					*defaults = v != 0;
				else if (strcmp(item, "start") == 0)
					*start = v;
				else if (strcmp(item, "count") == 0)
					*count = v;
			}
		}
		q = end ? end + 1 : NULL;
	}
}

long ftp_param_pack(const char *query, uint8_t *buf, size_t len)
{
	bool defaults = false;
	unsigned long start = 0, count = param_count;
	pck_query(query, &defaults, &start, &count);
	if (start > param_count)
		start = param_count;
	if (count > param_count - start)
		count = param_count - start;
	if (len < 6)
		return -ENOSPC;
	wire_put_u16(buf, defaults ? PCK_MAGIC_DEFAULTS : PCK_MAGIC);
	wire_put_u16(buf + 2, (uint16_t)count);
	wire_put_u16(buf + 4, (uint16_t)param_count);
	size_t pos = 6;
	const char *prev = "";
	for (unsigned long i = start; i < start + count; i++) {
		const struct param_def *d = &param_defs[i];
		size_t nlen = strnlen(d->name, PARAM_NAME_LEN);
		size_t common = 0;
		while (common < nlen - 1 && common < 15 && prev[common] == d->name[common])
			common++;
		size_t suffix = nlen - common;
		unsigned int tsize;
		unsigned int type = pck_type(d->type, &tsize);
		float v = param_get((int)i);
		bool with_def = defaults && v != d->def;
		size_t entry = 2 + suffix + tsize + (with_def ? tsize : 0);
		/* A block re-read after a loss must not hold half a parameter. */
		if (pos / FTP_DATA_MAX != (pos + entry - 1) / FTP_DATA_MAX) {
			size_t next = (pos / FTP_DATA_MAX + 1) * FTP_DATA_MAX;
			if (next > len)
				return -ENOSPC;
			memset(buf + pos, 0, next - pos);
			pos = next;
		}
		if (pos + entry > len)
			return -ENOSPC;
		buf[pos] = (uint8_t)(type | (with_def ? 1u : 0u) << 4);
		buf[pos + 1] = (uint8_t)(common | (suffix - 1) << 4);
		memcpy(buf + pos + 2, d->name + common, suffix);
		pck_value(d->type, v, buf + pos + 2 + suffix);
		if (with_def)
			pck_value(d->type, d->def, buf + pos + 2 + suffix + tsize);
		pos += entry;
		prev = d->name;
	}
	return (long)pos;
}
