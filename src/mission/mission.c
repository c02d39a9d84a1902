// SPDX-License-Identifier: GPL-3.0-or-later
#include "mission/mission.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"

#define WPL_HEADER "QGC WPL 110"

void mission_clear(struct mission *m)
{
	m->count = 0;
	m->current = 0;
}

/* Degrees to 1e-7 degrees, refusing what is not a coordinate. */
static bool to_e7(double deg, int32_t *out)
{
	if (!isfinite(deg) || fabs(deg) > 214.0)
		return false;
	*out = (int32_t)llround(deg * 1e7);
	return true;
}

int mission_load_wpl(struct mission *m, const char *text, const char *name, char *err,
		     size_t err_len)
{
	/* Parsed into a copy: a bad line leaves the mission as it was. */
	static struct mission tmp;
	mission_clear(&tmp);
	unsigned int line = 0;
	bool header = false;
	for (const char *s = text; *s;) {
		line++;
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char buf[512];
		if (len >= sizeof(buf))
			return errmsg_at(err, err_len, name, line, "line too long");
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (nl ? 1 : 0);
		char *p = buf;
		while (isspace((unsigned char)*p))
			p++;
		size_t l = strlen(p);
		while (l && isspace((unsigned char)p[l - 1]))
			p[--l] = '\0';
		if (*p == '\0')
			continue;
		if (!header) {
			if (strcmp(p, WPL_HEADER) != 0)
				return errmsg_at(err, err_len, name, line, "not a \"" WPL_HEADER "\" file");
			header = true;
			continue;
		}
		double v[12];
		char *q = p;
		for (int i = 0; i < 12; i++) {
			char *end;
			v[i] = strtod(q, &end);
			if (end == q)
				return errmsg_at(err, err_len, name, line, "expected 12 numbers, found %d", i);
			q = end;
		}
		while (isspace((unsigned char)*q))
			q++;
		if (*q)
			return errmsg_at(err, err_len, name, line, "more than 12 fields");
		if (v[0] != tmp.count)
			return errmsg_at(err, err_len, name, line, "item %g where %u was expected", v[0],
				    tmp.count);
		if (tmp.count == MISSION_MAX_ITEMS) {
			errmsg_at(err, err_len, name, line, "more than %d items", MISSION_MAX_ITEMS);
			return -ENOSPC;
		}
		for (int i = 1; i < 12; i++)
			if (!isfinite(v[i]))
				return errmsg_at(err, err_len, name, line, "field %d is not a number", i + 1);
		if (v[2] < 0 || v[2] > 255 || v[3] < 0 || v[3] > 65535 || v[2] != rint(v[2]) ||
		    v[3] != rint(v[3]))
			return errmsg_at(err, err_len, name, line, "frame %g or command %g out of range",
				    v[2], v[3]);
		struct mission_item *it = &tmp.items[tmp.count];
		it->frame = (uint8_t)v[2];
		it->command = (uint16_t)v[3];
		it->param1 = (float)v[4];
		it->param2 = (float)v[5];
		it->param3 = (float)v[6];
		it->param4 = (float)v[7];
		if (!to_e7(v[8], &it->x) || !to_e7(v[9], &it->y))
			return errmsg_at(err, err_len, name, line, "latitude %g or longitude %g out of range",
				    v[8], v[9]);
		it->z = (float)v[10];
		it->autocontinue = v[11] != 0;
		if (v[1] != 0)
			tmp.current = tmp.count;
		tmp.count++;
	}
	if (!header)
		return errmsg_at(err, err_len, name, line ? line : 1, "empty file");
	*m = tmp;
	return 0;
}

long mission_save_wpl(const struct mission *m, char *buf, size_t len)
{
	int w = snprintf(buf, len, WPL_HEADER "\n");
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	size_t used = (size_t)w;
	for (unsigned int i = 0; i < m->count; i++) {
		const struct mission_item *it = &m->items[i];
		/* 1e-7 degrees exactly: seven decimals of the integer value. */
		w = snprintf(buf + used, len - used,
			     "%u\t%d\t%u\t%u\t%.9g\t%.9g\t%.9g\t%.9g\t%s%d.%07d\t%s%d.%07d\t%.9g\t%u\n",
			     i, i == m->current, it->frame, it->command, (double)it->param1,
			     (double)it->param2, (double)it->param3, (double)it->param4,
			     it->x < 0 ? "-" : "", abs(it->x / 10000000), abs(it->x % 10000000),
			     it->y < 0 ? "-" : "", abs(it->y / 10000000), abs(it->y % 10000000),
			     (double)it->z, it->autocontinue);
		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	return (long)used;
}
