// SPDX-License-Identifier: GPL-3.0-or-later
#include "param/param.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "param/param_table.h"
#include "util/errmsg.h"

/* Float bits, so that any thread reads a whole value. Written by the main thread only. */
static _Atomic uint32_t values[PARAM_TABLE_MAX];
static _Atomic uint32_t generation;

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static struct param_def kept[PARAM_TABLE_MAX];
const struct param_def *param_defs = kept;
unsigned int param_count;

void param_init(unsigned int kind)
{
	assert(param_table_count <= PARAM_TABLE_MAX);
	param_count = 0;
	for (unsigned int i = 0; i < param_table_count; i++)
		if (param_table[i].only == 0 || (param_table[i].only & kind))
			kept[param_count++] = param_table[i];
	for (unsigned int i = 0; i < param_count; i++) {
		assert(strlen(param_defs[i].name) <= PARAM_NAME_LEN);
		assert(i == 0 || strcmp(param_defs[i - 1].name, param_defs[i].name) < 0);
		/* A default outside its own range would make every saved file unloadable. */
		assert(param_defs[i].def >= param_defs[i].min && param_defs[i].def <= param_defs[i].max);
		atomic_store_explicit(&values[i], bits(param_defs[i].def), memory_order_relaxed);
	}
	atomic_store(&generation, 0);
}

int param_find(const char *name)
{
	/* The table is sorted by name (param_init asserts it). */
	size_t lo = 0, hi = param_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(name, param_defs[mid].name, PARAM_NAME_LEN);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

float param_get(int idx)
{
	assert(idx >= 0 && (unsigned int)idx < param_count);
	return from_bits(atomic_load_explicit(&values[idx], memory_order_relaxed));
}

float param_get_by_name(const char *name)
{
	int idx = param_find(name);
	assert(idx >= 0);
	return param_get(idx);
}

/* The value a request would set, or -errno. */
static int check(int idx, float v, float *out)
{
	const struct param_def *d = &param_defs[idx];
	if (isnan(v))
		return -EINVAL;
	if (d->type != PARAM_FLOAT) {
		if (v != rintf(v))
			return -EINVAL;
		v = rintf(v);
	}
	if (v < d->min || v > d->max)
		return -ERANGE;
	*out = v;
	return 0;
}

int param_set(int idx, float value)
{
	assert(idx >= 0 && (unsigned int)idx < param_count);
	float v;
	int rc = check(idx, value, &v);
	if (rc)
		return rc;
	if (atomic_load_explicit(&values[idx], memory_order_relaxed) != bits(v)) {
		atomic_store_explicit(&values[idx], bits(v), memory_order_relaxed);
		atomic_fetch_add_explicit(&generation, 1, memory_order_release);
	}
	return 0;
}

uint32_t param_generation(void)
{
	return atomic_load_explicit(&generation, memory_order_acquire);
}

int param_load_text(const char *text, const char *name, unsigned int *unknown,
		    char *err, size_t err_len)
{
	/* Checked first, applied after: a bad line anywhere applies nothing. */
	static struct { int idx; float v; } pending[PARAM_TABLE_MAX];
	static bool seen[PARAM_TABLE_MAX];
	unsigned int n = 0, line = 0;
	*unknown = 0;
	memset(seen, 0, sizeof(seen));
	for (const char *s = text; *s;) {
		line++;
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char buf[256];
		if (len >= sizeof(buf))
			return errmsg_at(err, err_len, name, line, "line too long");
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (nl ? 1 : 0);
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		char *p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		char *key = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		size_t klen = (size_t)(p - key);
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (klen == 0 || *p == '\0')
			return errmsg_at(err, err_len, name, line, "expected NAME,VALUE");
		if (klen > PARAM_NAME_LEN)
			return errmsg_at(err, err_len, name, line, "name longer than %d characters",
				    PARAM_NAME_LEN);
		char *end;
		float v = strtof(p, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (end == p || *end != '\0')
			return errmsg_at(err, err_len, name, line, "'%s' is not a number", p);
		key[klen] = '\0';
		int idx = param_find(key);
		if (idx < 0) {
			(*unknown)++;
			continue;
		}
		float ok;
		int rc = check(idx, v, &ok);
		if (rc == -ERANGE)
			return errmsg_at(err, err_len, name, line, "%s = %g is outside %g..%g", key,
				    (double)v, (double)param_defs[idx].min, (double)param_defs[idx].max);
		if (rc)
			return errmsg_at(err, err_len, name, line, "%s = %s is not a valid %s", key, p,
				    param_defs[idx].type == PARAM_FLOAT ? "number" : "whole number");
		if (seen[idx])
			return errmsg_at(err, err_len, name, line, "%s is set twice", key);
		seen[idx] = true;
		pending[n].idx = idx;
		pending[n].v = ok;
		n++;
	}
	for (unsigned int i = 0; i < n; i++)
		param_set(pending[i].idx, pending[i].v);
	return 0;
}

long param_save_text(char *buf, size_t len)
{
	size_t used = 0;
	for (unsigned int i = 0; i < param_count; i++) {
		/* %.9g gives back the same float when read. */
		int w = snprintf(buf + used, len - used, "%s,%.9g\n", param_defs[i].name,
				 (double)param_get((int)i));
		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	return (long)used;
}

unsigned int param_binds_load(const struct param_bind *binds, unsigned int count, void *base)
{
	unsigned int missing = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct param_bind *b = &binds[i];
		int idx = param_find(b->name);
		if (idx < 0) {
			missing++;
			continue;
		}
		float v = param_get(idx) * b->scale;
		for (unsigned int k = 0; k < b->n; k++)
			memcpy((char *)base + b->off[k], &v, sizeof(v));
	}
	return missing;
}
