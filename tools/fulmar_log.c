// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fulmar-log: look into DataFlash (.bin) logs, fulmar's and ArduPilot's.
 *
 *   fulmar-log info FILE                       types, record counts, duration
 *   fulmar-log dump [--csv] [--type NAME]... FILE
 *                                              records as text, or CSV of one type
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/df_reader.h"

#define MAX_TYPES_FILTER 32

struct dump_opts {
	bool csv;
	unsigned ntypes;
	const char *types[MAX_TYPES_FILTER];
	bool header_done;
};

struct summary {
	uint64_t t_first_us, t_last_us, t_min_us, t_max_us;
	bool have_t;
};

typedef void (*record_fn)(const struct df_record *rec, void *ctx);

static void usage(FILE *out)
{
	fputs("usage: fulmar-log info FILE\n"
	      "       fulmar-log dump [--csv] [--type NAME]... FILE\n"
	      "  info  types with their record counts, time span, skipped and truncated bytes\n"
	      "  dump  one record a line (NAME {Label: value, ...}); --type keeps only the\n"
	      "        named types (repeatable); --csv writes CSV and needs exactly one --type\n",
	      out);
}

/* Reads the whole file through a reader, calling fn for each record. */
static int read_file(const char *path, struct df_reader *r, record_fn fn, void *ctx)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		int e = errno;
		fprintf(stderr, "fulmar-log: %s: %s\n", path, strerror(e));
		return -e;
	}
	static uint8_t chunk[65536];
	struct df_record rec;
	bool at_end = false;

	df_reader_init(r);
	while (!at_end) {
		size_t n = fread(chunk, 1, sizeof chunk, fp), off = 0;
		if (n < sizeof chunk) {
			if (ferror(fp)) {
				fprintf(stderr, "fulmar-log: %s: read error\n", path);
				fclose(fp);
				return -EIO;
			}
			at_end = true;
		}
		do {
			off += df_reader_feed(r, chunk + off, n - off);
			if (at_end && off == n)
				df_reader_end(r);
			while (df_reader_next(r, &rec) == 1)
				fn(&rec, ctx);
		} while (off < n);
	}
	fclose(fp);
	return 0;
}

static bool record_time(const struct df_record *rec, uint64_t *t_us)
{
	int col = df_fmt_column(rec->fmt, "TimeUS");
	struct df_value v;
	if (col < 0 || df_record_field(rec, (unsigned)col, &v) != 0 || v.letter != 'Q')
		return false;
	*t_us = v.v.u;
	return true;
}

static void info_record(const struct df_record *rec, void *ctx)
{
	struct summary *s = ctx;
	uint64_t t;
	if (!record_time(rec, &t))
		return;
	if (!s->have_t) {
		s->t_first_us = s->t_min_us = s->t_max_us = t;
		s->have_t = true;
	}
	s->t_last_us = t;
	if (t < s->t_min_us)
		s->t_min_us = t;
	if (t > s->t_max_us)
		s->t_max_us = t;
}

static int cmd_info(const char *path)
{
	static struct df_reader r;
	struct summary s = { 0 };
	int rc = read_file(path, &r, info_record, &s);
	if (rc < 0)
		return 1;

	printf("%s: %u types, %llu records\n", path, df_reader_type_count(&r),
	       (unsigned long long)r.records);
	printf("skipped bytes: %llu in %llu runs; truncated bytes at end: %llu; unusable FMTs: %llu\n",
	       (unsigned long long)r.skipped_bytes, (unsigned long long)r.resyncs,
	       (unsigned long long)r.truncated_bytes, (unsigned long long)r.bad_fmts);
	if (s.have_t)
		printf("TimeUS: first %.6f s, last %.6f s, min %.6f s, max %.6f s, duration %.6f s\n",
		       (double)s.t_first_us / 1e6, (double)s.t_last_us / 1e6,
		       (double)s.t_min_us / 1e6, (double)s.t_max_us / 1e6,
		       (double)(s.t_max_us - s.t_min_us) / 1e6);
	printf("%-4s %-4s %8s %4s  %s\n", "id", "name", "count", "len", "format");
	for (unsigned k = 0; k < 256; k++)
		if (r.count[k])
			printf("%-4u %-4s %8u %4u  %s\n", k, r.fmts[k].name, r.count[k],
			       r.fmts[k].length, r.fmts[k].format);
	return 0;
}

/* Text fields: printable ASCII as is, the rest as \xNN; in CSV, quotes doubled. */
static void print_text(const char *p, size_t len, bool csv)
{
	if (csv)
		putchar('"');
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)p[k];
		if (csv && ch == '"')
			fputs("\"\"", stdout);
		else if (ch >= 0x20 && ch < 0x7f)
			putchar(ch);
		else
			printf("\\x%02x", ch);
	}
	if (csv)
		putchar('"');
}

static void print_value(const struct df_value *v, bool csv)
{
	switch (v->letter) {
	case 'b': case 'h': case 'i': case 'q':
		printf("%lld", (long long)v->v.i);
		break;
	case 'B': case 'H': case 'I': case 'M': case 'Q':
		printf("%llu", (unsigned long long)v->v.u);
		break;
	case 'c': case 'C': case 'e': case 'E':
		printf("%.2f", df_value_to_double(v));
		break;
	case 'L':
		printf("%.7f", df_value_to_double(v));
		break;
	case 'f':
		printf("%.9g", (double)v->v.f);
		break;
	case 'd':
		printf("%.17g", v->v.d);
		break;
	case 'n': case 'N': case 'Z':
		print_text(v->v.s.p, v->v.s.len, csv);
		break;
	case 'a':
		putchar(csv ? '"' : '[');
		for (unsigned k = 0; k < DF_ARRAY_LEN; k++)
			printf(k ? " %d" : "%d", v->v.a[k]);
		putchar(csv ? '"' : ']');
		break;
	default:
		break;
	}
}

static bool type_selected(const struct dump_opts *o, const char *name)
{
	if (o->ntypes == 0)
		return true;
	for (unsigned k = 0; k < o->ntypes; k++)
		if (strcmp(o->types[k], name) == 0)
			return true;
	return false;
}

static void dump_record(const struct df_record *rec, void *ctx)
{
	struct dump_opts *o = ctx;
	const struct df_fmt *f = rec->fmt;
	char label[DF_LABELS_LEN + 1];
	struct df_value v;

	if (!type_selected(o, f->name))
		return;
	if (!f->fields_ok) {
		if (!o->csv)
			printf("%s {unreadable format \"%s\"}\n", f->name, f->format);
		return;
	}
	if (o->csv && !o->header_done) {
		for (unsigned k = 0; k < f->nfields; k++) {
			df_fmt_label(f, k, label, sizeof label);
			printf(k ? ",%s" : "%s", label);
		}
		putchar('\n');
		o->header_done = true;
	}
	if (!o->csv)
		printf("%s {", f->name);
	for (unsigned k = 0; k < f->nfields; k++) {
		if (df_record_field(rec, k, &v) != 0)
			continue;
		if (o->csv) {
			if (k)
				putchar(',');
		} else {
			df_fmt_label(f, k, label, sizeof label);
			printf(k ? ", %s: " : "%s: ", label);
		}
		print_value(&v, o->csv);
	}
	puts(o->csv ? "" : "}");
}

static int cmd_dump(int argc, char **argv)
{
	static struct df_reader r;
	struct dump_opts o = { 0 };
	const char *path = NULL;

	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--csv") == 0) {
			o.csv = true;
		} else if (strcmp(argv[k], "--type") == 0 && k + 1 < argc) {
			if (o.ntypes == MAX_TYPES_FILTER) {
				fprintf(stderr, "fulmar-log: at most %d --type\n", MAX_TYPES_FILTER);
				return 2;
			}
			o.types[o.ntypes++] = argv[++k];
		} else if (argv[k][0] == '-' || path) {
			usage(stderr);
			return 2;
		} else {
			path = argv[k];
		}
	}
	if (!path || (o.csv && o.ntypes != 1)) {
		usage(stderr);
		return 2;
	}
	return read_file(path, &r, dump_record, &o) < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "info") == 0)
		return cmd_info(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "dump") == 0)
		return cmd_dump(argc - 2, argv + 2);
	usage(stderr);
	return 2;
}
