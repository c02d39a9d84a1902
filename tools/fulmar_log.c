// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fulmar-log: look into DataFlash (.bin) logs, fulmar's and ArduPilot's.
 *
 *   fulmar-log info FILE                          types, record counts, duration
 *   fulmar-log dump [--csv|--json] [--type NAME]... [--from S] [--to S] FILE
 *                                                 records as text, CSV of one type or JSON lines
 *   fulmar-log export --kml|--gpx [--source GPS|POS] FILE
 *                                                 the flight path (and mission) to stdout,
 *                                                 heights above sea level
 *   fulmar-log plot [-o OUT.svg] FILE             an SVG page of the flight
 *   fulmar-log summary FILE                       flight time, distance, extremes, modes,
 *                                                 failsafes and errors, loop timing
 *
 * One streaming pass over the file in every command: a long log costs its read time.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "log/df_reader.h"

#define MAX_TYPES_FILTER 32

typedef void (*record_fn)(const struct df_record *rec, void *ctx);

static void usage(FILE *out)
{
	fputs("usage: fulmar-log info FILE\n"
	      "       fulmar-log dump [--csv|--json] [--type NAME]... [--from S] [--to S] FILE\n"
	      "       fulmar-log export --kml|--gpx [--source GPS|POS] FILE\n"
	      "       fulmar-log plot [-o OUT.svg] FILE\n"
	      "       fulmar-log summary FILE\n"
	      "  info     types with their record counts, time span, skipped and truncated bytes\n"
	      "  dump     one record a line (NAME {Label: value, ...}); --type keeps only the\n"
	      "           named types (repeatable); --csv writes CSV and needs exactly one --type;\n"
	      "           --json writes one JSON object a line; --from/--to keep records whose\n"
	      "           TimeUS lies in [S, S] seconds (records without TimeUS are left out)\n"
	      "  export   the track as KML or GPX (GPS fixes by default, or POS), with the\n"
	      "           mission's waypoints from CMD records; every height above sea level\n"
	      "           (heights above home put on home's, ORGN Type 1); what cannot be\n"
	      "           placed is left out and counted on stderr\n"
	      "  plot     SVG: ground track with waypoints, altitude, airspeed, roll and pitch\n"
	      "           demand against achieved (late loops marked), loop-timing histogram\n"
	      "           (stdout without -o)\n"
	      "  summary  flight time, distance, max altitude and speed, modes, failsafes and\n"
	      "           errors, loop timing, late loops by thread and cause, log drops\n",
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
	static uint8_t chunk[1 << 20];
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

/* Column indices per type, looked up once: -1 when absent. */
struct col_cache {
	bool done[256];
	int time[256];
};

static int time_col(struct col_cache *c, const struct df_record *rec)
{
	if (!c->done[rec->type]) {
		int col = df_fmt_column(rec->fmt, "TimeUS");
		if (col >= 0 && rec->fmt->format[col] != 'Q')
			col = -1;
		c->time[rec->type] = col;
		c->done[rec->type] = true;
	}
	return c->time[rec->type];
}

/* A type's FMT may be redefined mid-file; the cache follows the record's own FMT. */
static void col_cache_on_fmt(struct col_cache *c, const struct df_record *rec)
{
	if (rec->type == DF_FMT_ID)
		c->done[rec->data[3]] = false;
}

static bool record_time(struct col_cache *c, const struct df_record *rec, uint64_t *t_us)
{
	int col = time_col(c, rec);
	struct df_value v;
	if (col < 0 || df_record_field(rec, (unsigned)col, &v) != 0)
		return false;
	*t_us = v.v.u;
	return true;
}

/* ---- info ---- */

struct info_ctx {
	struct col_cache cols;
	uint64_t t_first_us, t_last_us, t_min_us, t_max_us;
	bool have_t;
};

static void info_record(const struct df_record *rec, void *ctx)
{
	struct info_ctx *s = ctx;
	uint64_t t;
	col_cache_on_fmt(&s->cols, rec);
	if (!record_time(&s->cols, rec, &t))
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
	static struct info_ctx s;
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

/* ---- dump ---- */

enum dump_style { DUMP_TEXT = 1, DUMP_CSV, DUMP_JSON };

struct dump_opts {
	enum dump_style style;
	unsigned ntypes;
	const char *types[MAX_TYPES_FILTER];
	bool header_done;
	bool has_from, has_to;
	uint64_t from_us, to_us;
	struct col_cache cols;
	bool selected_done[256], selected[256];
};

/* Text fields: printable ASCII as is; the rest escaped in the style's way. */
static void print_text(const char *p, size_t len, enum dump_style style)
{
	if (style != DUMP_TEXT)
		putchar('"');
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)p[k];
		if (style == DUMP_CSV && ch == '"')
			fputs("\"\"", stdout);
		else if (style == DUMP_JSON && (ch == '"' || ch == '\\'))
			printf("\\%c", ch);
		else if (ch >= 0x20 && ch < 0x7f)
			putchar(ch);
		else if (style == DUMP_JSON)
			printf("\\u%04x", ch);
		else
			printf("\\x%02x", ch);
	}
	if (style != DUMP_TEXT)
		putchar('"');
}

static void print_float(double v, int digits, enum dump_style style)
{
	/* JSON has no NaN or infinity. */
	if (style == DUMP_JSON && !isfinite(v))
		fputs("null", stdout);
	else
		printf("%.*g", digits, v);
}

static void print_value(const struct df_value *v, enum dump_style style)
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
		print_float((double)v->v.f, 9, style);
		break;
	case 'd':
		print_float(v->v.d, 17, style);
		break;
	case 'n': case 'N': case 'Z':
		print_text(v->v.s.p, v->v.s.len, style);
		break;
	case 'a':
		putchar(style == DUMP_CSV ? '"' : '[');
		for (unsigned k = 0; k < DF_ARRAY_LEN; k++)
			printf(k ? (style == DUMP_JSON ? ",%d" : " %d") : "%d", v->v.a[k]);
		putchar(style == DUMP_CSV ? '"' : ']');
		break;
	default:
		break;
	}
}

static bool type_selected(struct dump_opts *o, const struct df_record *rec)
{
	if (o->ntypes == 0)
		return true;
	if (!o->selected_done[rec->type]) {
		o->selected[rec->type] = false;
		for (unsigned k = 0; k < o->ntypes; k++)
			if (strcmp(o->types[k], rec->fmt->name) == 0)
				o->selected[rec->type] = true;
		o->selected_done[rec->type] = true;
	}
	return o->selected[rec->type];
}

static void dump_record(const struct df_record *rec, void *ctx)
{
	struct dump_opts *o = ctx;
	const struct df_fmt *f = rec->fmt;
	char label[DF_LABELS_LEN + 1];
	struct df_value v;

	col_cache_on_fmt(&o->cols, rec);
	if (rec->type == DF_FMT_ID)
		o->selected_done[rec->data[3]] = false;
	if (!type_selected(o, rec))
		return;
	if (o->has_from || o->has_to) {
		uint64_t t;
		if (!record_time(&o->cols, rec, &t))
			return;
		if ((o->has_from && t < o->from_us) || (o->has_to && t > o->to_us))
			return;
	}
	if (!f->fields_ok) {
		if (o->style == DUMP_TEXT)
			printf("%s {unreadable format \"%s\"}\n", f->name, f->format);
		return;
	}
	if (o->style == DUMP_CSV && !o->header_done) {
		for (unsigned k = 0; k < f->nfields; k++) {
			df_fmt_label(f, k, label, sizeof label);
			printf(k ? ",%s" : "%s", label);
		}
		putchar('\n');
		o->header_done = true;
	}
	if (o->style == DUMP_TEXT)
		printf("%s {", f->name);
	else if (o->style == DUMP_JSON) {
		fputs("{\"type\":", stdout);
		print_text(f->name, strlen(f->name), DUMP_JSON);
	}
	for (unsigned k = 0; k < f->nfields; k++) {
		if (df_record_field(rec, k, &v) != 0)
			continue;
		df_fmt_label(f, k, label, sizeof label);
		if (o->style == DUMP_CSV) {
			if (k)
				putchar(',');
		} else if (o->style == DUMP_JSON) {
			putchar(',');
			print_text(label, strlen(label), DUMP_JSON);
			putchar(':');
		} else {
			printf(k ? ", %s: " : "%s: ", label);
		}
		print_value(&v, o->style);
	}
	puts(o->style == DUMP_TEXT ? "}" : o->style == DUMP_JSON ? "}" : "");
}

static bool parse_seconds(const char *s, uint64_t *out_us)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 0.0) || v > 1.8e13)
		return false;
	*out_us = (uint64_t)(v * 1e6 + 0.5);
	return true;
}

static int cmd_dump(int argc, char **argv)
{
	static struct df_reader r;
	static struct dump_opts o;
	const char *path = NULL;

	o.style = DUMP_TEXT;
	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--csv") == 0) {
			o.style = DUMP_CSV;
		} else if (strcmp(argv[k], "--json") == 0) {
			o.style = DUMP_JSON;
		} else if (strcmp(argv[k], "--type") == 0 && k + 1 < argc) {
			if (o.ntypes == MAX_TYPES_FILTER) {
				fprintf(stderr, "fulmar-log: at most %d --type\n", MAX_TYPES_FILTER);
				return 2;
			}
			o.types[o.ntypes++] = argv[++k];
		} else if (strcmp(argv[k], "--from") == 0 && k + 1 < argc) {
			if (!parse_seconds(argv[++k], &o.from_us))
				goto bad;
			o.has_from = true;
		} else if (strcmp(argv[k], "--to") == 0 && k + 1 < argc) {
			if (!parse_seconds(argv[++k], &o.to_us))
				goto bad;
			o.has_to = true;
		} else if (argv[k][0] == '-' || path) {
			goto bad;
		} else {
			path = argv[k];
		}
	}
	if (!path || (o.style == DUMP_CSV && o.ntypes != 1))
		goto bad;
	return read_file(path, &r, dump_record, &o) < 0 ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}

/* ---- flight extraction: one pass that keeps what summary, export and plot use ---- */

struct pt {
	double t;                /* s */
	double v[4];
};

struct series {
	struct pt *p;
	size_t n, cap;
};

static void series_add(struct series *s, double t, double a, double b, double c, double d)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct pt *p = realloc(s->p, cap * sizeof *p);
		if (!p) {
			fputs("fulmar-log: out of memory\n", stderr);
			exit(1);
		}
		s->p = p;
		s->cap = cap;
	}
	s->p[s->n++] = (struct pt){ t, { a, b, c, d } };
}

enum col_id {
	C_TIME, C_LAT, C_LNG, C_ALT, C_SPD, C_STATUS, C_GWK, C_GMS,       /* GPS, POS */
	C_AS,                                                              /* CTUN, ARSP */
	C_DROLL, C_ROLL, C_DPITCH, C_PITCH,                                /* ATT */
	C_MAXT, C_AVGT, C_NLON, C_NLOOP, C_LR,                             /* PM */
	C_MODE, C_MODENUM,                                                 /* MODE */
	C_ID, C_SUBSYS, C_ECODE, C_MESSAGE,                                /* EV, ERR, MSG */
	C_CNUM, C_CID, C_FRAME, C_RELHOME, C_DP,                           /* CMD, POS, DSF */
	C_TYPE,                                                            /* ORGN */
	C_THR, C_CAUSE, C_IVL, C_TKT, C_TASK,                              /* LATE */
	C_NL2X, C_MAXI, C_MAXW, C_MAXR,                                    /* PMT */
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	"TimeUS", "Lat", "Lng", "Alt", "Spd", "Status", "GWk", "GMS",
	"Airspeed",
	"DesRoll", "Roll", "DesPitch", "Pitch",
	"MaxT", "AvgT", "NLon", "NLoop", "LR",
	"Mode", "ModeNum",
	"Id", "Subsys", "ECode", "Message",
	"CNum", "CId", "Frame", "RelHomeAlt", "Dp",
	"Type",
	"Thr", "Cause", "Ivl", "TkT", "Task",
	"NL2x", "MaxI", "MaxW", "MaxR",
};

enum kind {
	K_NONE = 0, K_GPS, K_POS, K_CTUN, K_ARSP, K_ATT, K_PM, K_MODE, K_EV, K_ERR, K_MSG,
	K_CMD, K_BARO, K_DSF, K_ORGN, K_LATE, K_PMT,
};

/* LATE's Thr and Cause (fulmar's daemon/scheduler.h). */
static const char *const late_threads[] = { "?", "timer", "main", "rcin", "uart", "tone", "io" };
static const char *const late_causes[] = {
	"a task ran long", "a task slept in a system call", "page faults read from storage",
	"another task held the CPU", "the kernel woke it late",
};
#define LATE_THREADS (sizeof late_threads / sizeof late_threads[0])
#define LATE_CAUSES (sizeof late_causes / sizeof late_causes[0])
#define LATE_TASKS 32

/* PMT: a thread's loops, those over 1.5x and 2x, and its worst (us). */
struct thr_loops {
	unsigned records;
	double loops, over_1_5x, over_2x, max_i_us, max_w_us, max_r_us;
};

struct event {
	double t;
	int kind;
	int a, b;
	char text[65];
};

struct flight {
	struct col_cache cols;
	bool kind_done[256];
	enum kind kind[256];
	int col[256][C_COUNT];
	struct series gps;        /* lat, lng, alt m, speed m/s */
	struct series gps_time;   /* week, week ms */
	struct series pos;        /* lat, lng, alt m, rel home alt m */
	struct series airspeed;   /* CTUN.As or ARSP.Airspeed */
	struct series att;        /* des roll, roll, des pitch, pitch (deg) */
	struct series pm;         /* max, avg (us, avg < 0 when absent), nlon, nloop */
	struct series baro;       /* alt */
	struct event *ev;
	size_t nev, evcap;
	/* mission: the last CMD seen for each seq; frame is the MAV_FRAME, -1 when the
	 * CMD format has no Frame column (ArduPilot before it logged one) */
	struct { bool have; int cid, frame; double lat, lng, alt; } cmd[1024];
	unsigned ncmd;
	/* home as ORGN Type 1 records it: the last one, and the range of its altitudes */
	bool have_home;
	double home_alt_m, home_alt_min_m, home_alt_max_m;
	double t_min, t_max;
	bool have_t;
	uint64_t dsf_drops;
	unsigned loop_rate_hz;
	/* LATE: the late loops (thread, cause, interval us, longest task us), counted by
	 * thread and cause, and a task that ran long by name */
	struct series late;
	unsigned late_n[LATE_THREADS][LATE_CAUSES];
	double late_longest_us[LATE_THREADS][LATE_CAUSES];
	struct { unsigned thread; char name[17]; unsigned n; double longest_us; } late_task[LATE_TASKS];
	unsigned n_late_task;
	/* PMT: each thread's loops, those over 1.5x and 2x, and its worst (us) */
	struct thr_loops thr[LATE_THREADS];
};

static enum kind kind_of(const char *name)
{
	static const struct { const char *name; enum kind k; } map[] = {
		{ "GPS", K_GPS }, { "POS", K_POS }, { "CTUN", K_CTUN }, { "ARSP", K_ARSP },
		{ "ATT", K_ATT }, { "PM", K_PM }, { "MODE", K_MODE }, { "EV", K_EV },
		{ "ERR", K_ERR }, { "MSG", K_MSG }, { "CMD", K_CMD }, { "BARO", K_BARO },
		{ "DSF", K_DSF }, { "ORGN", K_ORGN }, { "LATE", K_LATE },
		{ "PMT", K_PMT },
	};
	for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
		if (strcmp(map[k].name, name) == 0)
			return map[k].k;
	return K_NONE;
}

static double fld(const struct flight *fl, const struct df_record *rec, enum col_id c)
{
	int col = fl->col[rec->type][c];
	struct df_value v;
	if (col < 0 || df_record_field(rec, (unsigned)col, &v) != 0)
		return NAN;
	return df_value_to_double(&v);
}

static void add_event(struct flight *fl, double t, int kind, int a, int b, const char *text,
		      size_t len)
{
	if (fl->nev == fl->evcap) {
		size_t cap = fl->evcap ? fl->evcap * 2 : 64;
		struct event *e = realloc(fl->ev, cap * sizeof *e);
		if (!e)
			exit(1);
		fl->ev = e;
		fl->evcap = cap;
	}
	struct event *e = &fl->ev[fl->nev++];
	e->t = t;
	e->kind = kind;
	e->a = a;
	e->b = b;
	if (len > 64)
		len = 64;
	memcpy(e->text, text ? text : "", text ? len : 0);
	e->text[text ? len : 0] = '\0';
}

static void raise_max(double *m, double v)
{
	if (v > *m)
		*m = v;
}

static void pmt_record(struct flight *fl, const struct df_record *rec)
{
	double thr = fld(fl, rec, C_THR), n = fld(fl, rec, C_NLOOP), nlon = fld(fl, rec, C_NLON),
	       nl2 = fld(fl, rec, C_NL2X);
	if (!(thr >= 1 && thr < LATE_THREADS) || !isfinite(n) || !isfinite(nlon) || !isfinite(nl2))
		return;
	unsigned th = (unsigned)thr;
	fl->thr[th].records++;
	fl->thr[th].loops += n;
	fl->thr[th].over_1_5x += nlon;
	fl->thr[th].over_2x += nl2;
	raise_max(&fl->thr[th].max_i_us, fld(fl, rec, C_MAXI));
	raise_max(&fl->thr[th].max_w_us, fld(fl, rec, C_MAXW));
	raise_max(&fl->thr[th].max_r_us, fld(fl, rec, C_MAXR));
}

static void late_record(struct flight *fl, const struct df_record *rec, double t)
{
	double thr = fld(fl, rec, C_THR), cause = fld(fl, rec, C_CAUSE), ivl = fld(fl, rec, C_IVL);
	double tkt = fld(fl, rec, C_TKT);
	if (!(thr >= 0 && thr < LATE_THREADS) || !(cause >= 0 && cause < LATE_CAUSES))
		return;   /* not a thread or cause this reader knows: left out of the sums */
	unsigned th = (unsigned)thr, c = (unsigned)cause;
	series_add(&fl->late, t, thr, cause, ivl, tkt);
	fl->late_n[th][c]++;
	if (ivl > fl->late_longest_us[th][c])
		fl->late_longest_us[th][c] = ivl;
	struct df_value v;
	int col = fl->col[rec->type][C_TASK];
	if (c != 0 || col < 0 || df_record_field(rec, (unsigned)col, &v) != 0)
		return;
	char name[17];
	size_t len = v.v.s.len < 16 ? v.v.s.len : 16;
	memcpy(name, v.v.s.p, len);
	name[len] = '\0';
	unsigned k = 0;
	while (k < fl->n_late_task && !(fl->late_task[k].thread == th &&
					 strcmp(fl->late_task[k].name, name) == 0))
		k++;
	if (k == fl->n_late_task) {
		if (k == LATE_TASKS)
			return;
		fl->n_late_task++;
		fl->late_task[k].thread = th;
		memcpy(fl->late_task[k].name, name, sizeof name);
	}
	fl->late_task[k].n++;
	if (tkt > fl->late_task[k].longest_us)
		fl->late_task[k].longest_us = tkt;
}

static void flight_record(const struct df_record *rec, void *ctx)
{
	struct flight *fl = ctx;
	uint8_t type = rec->type;

	if (type == DF_FMT_ID) {
		fl->kind_done[rec->data[3]] = false;
		col_cache_on_fmt(&fl->cols, rec);
		return;
	}
	if (!fl->kind_done[type]) {
		fl->kind[type] = rec->fmt->fields_ok ? kind_of(rec->fmt->name) : K_NONE;
		for (int c = 0; c < C_COUNT; c++)
			fl->col[type][c] = df_fmt_column(rec->fmt, col_names[c]);
		/* Names that differ between message types. */
		if (fl->kind[type] == K_CTUN)
			fl->col[type][C_AS] = df_fmt_column(rec->fmt, "As");
		if (fl->kind[type] == K_PM && fl->col[type][C_NLOOP] < 0)
			fl->col[type][C_NLOOP] = df_fmt_column(rec->fmt, "NL");
		fl->kind_done[type] = true;
	}
	enum kind k = fl->kind[type];
	if (k == K_NONE)
		return;
	uint64_t t_us;
	if (!record_time(&fl->cols, rec, &t_us))
		return;
	double t = (double)t_us / 1e6;
	if (!fl->have_t || t < fl->t_min)
		fl->t_min = t;
	if (!fl->have_t || t > fl->t_max)
		fl->t_max = t;
	fl->have_t = true;

	switch (k) {
	case K_GPS: {
		double status = fld(fl, rec, C_STATUS), lat = fld(fl, rec, C_LAT);
		double lng = fld(fl, rec, C_LNG);
		if (!(status >= 3) || (lat == 0.0 && lng == 0.0))
			break;
		series_add(&fl->gps, t, lat, lng, fld(fl, rec, C_ALT), fld(fl, rec, C_SPD));
		series_add(&fl->gps_time, t, fld(fl, rec, C_GWK), fld(fl, rec, C_GMS), 0, 0);
		break;
	}
	case K_POS: {
		double lat = fld(fl, rec, C_LAT), lng = fld(fl, rec, C_LNG);
		if (lat == 0.0 && lng == 0.0)
			break;
		series_add(&fl->pos, t, lat, lng, fld(fl, rec, C_ALT), fld(fl, rec, C_RELHOME));
		break;
	}
	case K_CTUN: case K_ARSP: {
		double as = fld(fl, rec, C_AS);
		if (isfinite(as))
			series_add(&fl->airspeed, t, as, 0, 0, 0);
		break;
	}
	case K_ATT:
		series_add(&fl->att, t, fld(fl, rec, C_DROLL), fld(fl, rec, C_ROLL),
			   fld(fl, rec, C_DPITCH), fld(fl, rec, C_PITCH));
		break;
	case K_PM: {
		double lr = fld(fl, rec, C_LR);
		if (lr > 0)
			fl->loop_rate_hz = (unsigned)lr;
		series_add(&fl->pm, t, fld(fl, rec, C_MAXT), fld(fl, rec, C_AVGT),
			   fld(fl, rec, C_NLON), fld(fl, rec, C_NLOOP));
		break;
	}
	case K_BARO:
		series_add(&fl->baro, t, fld(fl, rec, C_ALT), 0, 0, 0);
		break;
	case K_MODE: {
		double mode = fld(fl, rec, C_MODENUM);
		if (!isfinite(mode))
			mode = fld(fl, rec, C_MODE);
		add_event(fl, t, K_MODE, (int)mode, 0, NULL, 0);
		break;
	}
	case K_EV:
		add_event(fl, t, K_EV, (int)fld(fl, rec, C_ID), 0, NULL, 0);
		break;
	case K_ERR:
		add_event(fl, t, K_ERR, (int)fld(fl, rec, C_SUBSYS), (int)fld(fl, rec, C_ECODE), NULL, 0);
		break;
	case K_MSG: {
		struct df_value v;
		int col = fl->col[type][C_MESSAGE];
		if (col >= 0 && df_record_field(rec, (unsigned)col, &v) == 0)
			add_event(fl, t, K_MSG, 0, 0, v.v.s.p, v.v.s.len);
		break;
	}
	case K_CMD: {
		double seq = fld(fl, rec, C_CNUM);
		if (!(seq >= 0) || seq >= 1024)
			break;
		unsigned s = (unsigned)seq;
		fl->cmd[s].have = true;
		fl->cmd[s].cid = (int)fld(fl, rec, C_CID);
		fl->cmd[s].lat = fld(fl, rec, C_LAT);
		fl->cmd[s].lng = fld(fl, rec, C_LNG);
		fl->cmd[s].alt = fld(fl, rec, C_ALT);
		double frame = fld(fl, rec, C_FRAME);
		fl->cmd[s].frame = isfinite(frame) ? (int)frame : -1;
		if (s + 1 > fl->ncmd)
			fl->ncmd = s + 1;
		break;
	}
	case K_DSF: {
		double dp = fld(fl, rec, C_DP);
		if (dp > (double)fl->dsf_drops)
			fl->dsf_drops = (uint64_t)dp;
		break;
	}
	case K_ORGN: {
		/* Type 1 is home (0 the estimator's origin). */
		double alt = fld(fl, rec, C_ALT);
		if (fld(fl, rec, C_TYPE) != 1.0 || !isfinite(alt))
			break;
		if (!fl->have_home || alt < fl->home_alt_min_m)
			fl->home_alt_min_m = alt;
		if (!fl->have_home || alt > fl->home_alt_max_m)
			fl->home_alt_max_m = alt;
		fl->home_alt_m = alt;
		fl->have_home = true;
		break;
	}
	case K_LATE:
		late_record(fl, rec, t);
		break;
	case K_PMT:
		pmt_record(fl, rec);
		break;
	default:
		break;
	}
}

static int flight_read(const char *path, struct flight *fl)
{
	static struct df_reader r;
	memset(fl, 0, sizeof *fl);
	return read_file(path, &r, flight_record, fl);
}

/* CMD's Lat/Lng: 'L' in ArduPilot's layout (already degrees), plain floats in old ones. */
static bool cmd_is_waypoint(const struct flight *fl, unsigned s)
{
	/* NAV commands with a position: WAYPOINT 16, LOITER_* 17-19, RTL 20 (no pos),
	 * LAND 21, TAKEOFF 22, LOITER_TO_ALT 31, and a seq-0 home. */
	if (!fl->cmd[s].have || !isfinite(fl->cmd[s].lat) ||
	    (fl->cmd[s].lat == 0.0 && fl->cmd[s].lng == 0.0))
		return false;
	int c = fl->cmd[s].cid;
	return c == 16 || c == 17 || c == 18 || c == 19 || c == 21 || c == 22 || c == 31;
}

static double dist_m(double lat1, double lng1, double lat2, double lng2)
{
	const double r = 6371008.8, d2r = M_PI / 180.0;
	double dlat = (lat2 - lat1) * d2r, dlng = (lng2 - lng1) * d2r;
	double a = sin(dlat / 2) * sin(dlat / 2) +
		   cos(lat1 * d2r) * cos(lat2 * d2r) * sin(dlng / 2) * sin(dlng / 2);
	return 2 * r * asin(sqrt(a < 1.0 ? a : 1.0));
}

/* ArduPlane's mode numbers. */
static const char *plane_mode_name(int m)
{
	static const char *const names[] = {
		"MANUAL", "CIRCLE", "STABILIZE", "TRAINING", "ACRO", "FBWA", "FBWB", "CRUISE",
		"AUTOTUNE", "?", "AUTO", "RTL", "LOITER", "TAKEOFF", "AVOID_ADSB", "GUIDED",
		"INITIALISING", "QSTABILIZE", "QHOVER", "QLOITER", "QLAND", "QRTL", "QAUTOTUNE",
		"QACRO", "THERMAL",
	};
	if (m >= 0 && (size_t)m < sizeof names / sizeof names[0])
		return names[m];
	return "?";
}

static const char *ev_name(int id)
{
	switch (id) {
	case 10: return "ARMED";
	case 11: return "DISARMED";
	case 15: return "AUTO_ARMED";
	case 17: return "LAND_COMPLETE_MAYBE";
	case 18: return "LAND_COMPLETE";
	case 28: return "NOT_LANDED";
	default: return "";
	}
}

/* ---- summary ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmd_summary(const char *path)
{
	static struct flight fl;
	if (flight_read(path, &fl) < 0)
		return 1;

	printf("%s\n", path);
	if (!fl.have_t) {
		puts("no timed records");
		return 0;
	}
	printf("log span: %.1f s (TimeUS %.3f to %.3f s)\n", fl.t_max - fl.t_min, fl.t_min, fl.t_max);

	/* Armed time from ARMED/DISARMED events; open at the end counts to the end. */
	double armed_s = 0, armed_at = -1;
	unsigned arms = 0;
	/* A log that starts armed (its first arming event a disarm) counts from its start. */
	for (size_t k = 0; k < fl.nev; k++) {
		if (fl.ev[k].kind != K_EV || (fl.ev[k].a != 10 && fl.ev[k].a != 11))
			continue;
		if (fl.ev[k].a == 11) {
			armed_at = fl.t_min;
			arms++;
		}
		break;
	}
	for (size_t k = 0; k < fl.nev; k++) {
		const struct event *e = &fl.ev[k];
		if (e->kind != K_EV)
			continue;
		if (e->a == 10 && armed_at < 0) {
			armed_at = e->t;
			arms++;
		} else if (e->a == 11 && armed_at >= 0) {
			armed_s += e->t - armed_at;
			armed_at = -1;
		}
	}
	if (armed_at >= 0)
		armed_s += fl.t_max - armed_at;
	if (arms)
		printf("flight time (armed): %.1f s in %u arming%s\n", armed_s, arms, arms == 1 ? "" : "s");
	else
		puts("flight time (armed): no ARMED event in the log");

	/* Distance and extremes from GPS (3D fixes), else from POS. */
	const struct series *trk = fl.gps.n ? &fl.gps : &fl.pos;
	double dist = 0, max_alt = -INFINITY, max_spd = -INFINITY;
	for (size_t k = 0; k < trk->n; k++) {
		if (k)
			dist += dist_m(trk->p[k - 1].v[0], trk->p[k - 1].v[1], trk->p[k].v[0],
				       trk->p[k].v[1]);
		if (trk->p[k].v[2] > max_alt)
			max_alt = trk->p[k].v[2];
		if (trk == &fl.gps && trk->p[k].v[3] > max_spd)
			max_spd = trk->p[k].v[3];
	}
	if (trk->n) {
		printf("distance: %.0f m over %zu %s positions\n", dist, trk->n,
		       trk == &fl.gps ? "GPS" : "POS");
		printf("max altitude: %.1f m AMSL (%s)\n", max_alt, trk == &fl.gps ? "GPS" : "POS");
	} else {
		puts("distance: no position records");
	}
	double max_rel = -INFINITY;
	for (size_t k = 0; k < fl.pos.n; k++)
		if (fl.pos.p[k].v[3] > max_rel)
			max_rel = fl.pos.p[k].v[3];
	if (isfinite(max_rel))
		printf("max altitude above home: %.1f m (POS)\n", max_rel);
	if (isfinite(max_spd))
		printf("max ground speed: %.1f m/s (GPS)\n", max_spd);
	double max_as = -INFINITY;
	for (size_t k = 0; k < fl.airspeed.n; k++)
		if (fl.airspeed.p[k].v[0] > max_as)
			max_as = fl.airspeed.p[k].v[0];
	if (isfinite(max_as))
		printf("max airspeed: %.1f m/s\n", max_as);

	/* Modes, in order, with how long each lasted. */
	puts("modes:");
	size_t nmodes = 0;
	for (size_t k = 0; k < fl.nev; k++) {
		if (fl.ev[k].kind != K_MODE)
			continue;
		double until = fl.t_max;
		for (size_t j = k + 1; j < fl.nev; j++)
			if (fl.ev[j].kind == K_MODE) {
				until = fl.ev[j].t;
				break;
			}
		printf("  %10.3f s  %-12s (%d) for %.1f s\n", fl.ev[k].t,
		       plane_mode_name(fl.ev[k].a), fl.ev[k].a, until - fl.ev[k].t);
		nmodes++;
	}
	if (!nmodes)
		puts("  none logged");

	/* Failsafes and errors: ERR records, and MSG texts that say failsafe. */
	puts("failsafes and errors:");
	size_t nerr = 0;
	for (size_t k = 0; k < fl.nev; k++) {
		const struct event *e = &fl.ev[k];
		if (e->kind == K_ERR) {
			printf("  %10.3f s  ERR subsystem %d code %d%s\n", e->t, e->a, e->b,
			       e->b == 0 ? " (cleared)" : "");
			nerr++;
		} else if (e->kind == K_MSG && (strcasestr(e->text, "failsafe") ||
						 strcasestr(e->text, "error"))) {
			printf("  %10.3f s  MSG %s\n", e->t, e->text);
			nerr++;
		}
	}
	if (!nerr)
		puts("  none");
	puts("events:");
	for (size_t k = 0; k < fl.nev; k++)
		if (fl.ev[k].kind == K_EV)
			printf("  %10.3f s  EV %d %s\n", fl.ev[k].t, fl.ev[k].a, ev_name(fl.ev[k].a));

	/* Loop timing from PM. */
	if (fl.pm.n) {
		double worst = 0, nlon = 0, nloop = 0, avg_sum = 0;
		size_t avg_n = 0;
		double *maxes = malloc(fl.pm.n * sizeof *maxes);
		if (!maxes)
			return 1;
		for (size_t k = 0; k < fl.pm.n; k++) {
			const struct pt *p = &fl.pm.p[k];
			maxes[k] = p->v[0];
			if (p->v[0] > worst)
				worst = p->v[0];
			if (isfinite(p->v[1])) {
				avg_sum += p->v[1];
				avg_n++;
			}
			if (isfinite(p->v[2]))
				nlon += p->v[2];
			if (isfinite(p->v[3]))
				nloop += p->v[3];
		}
		qsort(maxes, fl.pm.n, sizeof *maxes, cmp_double);
		printf("loop timing (%zu PM records", fl.pm.n);
		if (fl.loop_rate_hz)
			printf(", %u Hz loop", fl.loop_rate_hz);
		puts("):");
		if (avg_n)
			printf("  mean loop time: %.0f us\n", avg_sum / (double)avg_n);
		printf("  longest loop: %.0f us; median of per-period maxima %.0f us, 99th percentile %.0f us\n",
		       worst, maxes[fl.pm.n / 2], maxes[(size_t)((double)(fl.pm.n - 1) * 0.99)]);
		if (nloop > 0)
			printf("  long loops: %.0f of %.0f (%.2f %%)\n", nlon, nloop, 100.0 * nlon / nloop);
		free(maxes);
	} else {
		puts("loop timing: no PM records");
	}
	/* Every thread's loops from PMT, as the seed's figures are given. */
	bool have_pmt = false;
	for (unsigned th = 1; th < LATE_THREADS; th++)
		have_pmt |= fl.thr[th].records > 0;
	if (have_pmt) {
		puts("loops by thread (PMT): loops, over 1.5x and 2x their period (per million), "
		     "longest start to start, wake-up and run");
		for (unsigned th = 1; th < LATE_THREADS; th++) {
			const struct thr_loops *p = &fl.thr[th];
			if (!p->records)
				continue;
			double pm = p->loops > 0 ? 1e6 / p->loops : 0;
			printf("  %-5s %10.0f loops, %6.0f over 1.5x (%.1f per million), %6.0f over 2x "
			       "(%.1f per million), longest %.1f ms, wake-up %.1f ms, run %.1f ms\n",
			       late_threads[th], p->loops, p->over_1_5x, p->over_1_5x * pm, p->over_2x,
			       p->over_2x * pm, p->max_i_us * 1e-3, p->max_w_us * 1e-3, p->max_r_us * 1e-3);
		}
	}
	/* Late loops from LATE: where the time went, by thread and cause. */
	if (fl.late.n) {
		printf("late loops (over 2x their period, LATE): %zu\n", fl.late.n);
		for (unsigned th = 0; th < LATE_THREADS; th++)
			for (unsigned c = 0; c < LATE_CAUSES; c++) {
				if (!fl.late_n[th][c])
					continue;
				printf("  %-5s %s: %u (longest %.1f ms)", late_threads[th], late_causes[c],
				       fl.late_n[th][c], fl.late_longest_us[th][c] * 1e-3);
				for (unsigned k = 0; c == 0 && k < fl.n_late_task; k++)
					if (fl.late_task[k].thread == th)
						/* no name: no task ran long, the time went outside them */
						printf("; %s %u (up to %.1f ms)",
						       fl.late_task[k].name[0] ? fl.late_task[k].name : "outside its tasks",
						       fl.late_task[k].n, fl.late_task[k].longest_us * 1e-3);
				putchar('\n');
			}
	} else {
		puts("late loops (over 2x their period, LATE): none");
	}
	printf("log drops: %llu records (DSF)\n", (unsigned long long)fl.dsf_drops);
	return 0;
}

/* ---- export ---- */

/* GPS week and milliseconds to UTC (GPS is ahead of UTC by 18 s since 2017). */
static void gps_utc_iso(double week, double week_ms, char *out, size_t cap)
{
	time_t t = (time_t)(315964800.0 + week * 604800.0 + week_ms / 1000.0 - 18.0);
	struct tm tm;
	gmtime_r(&t, &tm);
	unsigned ms = (unsigned)fmod(week_ms, 1000.0);
	snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/* Where a mission item's height is measured from. */
enum datum { DATUM_MSL = 1, DATUM_HOME, DATUM_TERRAIN, DATUM_OTHER };

/* MAV_FRAME to datum. A CMD format without a Frame column (older ArduPilot logs): item
 * 0 is home, which ArduPilot keeps above sea level, and the others are taken as above
 * home, the frame ArduPilot's missions default to. */
static enum datum cmd_datum(const struct flight *fl, unsigned s)
{
	switch (fl->cmd[s].frame) {
	case -1:
		return s == 0 ? DATUM_MSL : DATUM_HOME;
	case 0: case 5:          /* GLOBAL, GLOBAL_INT */
		return DATUM_MSL;
	case 3: case 6:          /* GLOBAL_RELATIVE_ALT, GLOBAL_RELATIVE_ALT_INT */
		return DATUM_HOME;
	case 10: case 11:        /* GLOBAL_TERRAIN_ALT, GLOBAL_TERRAIN_ALT_INT */
		return DATUM_TERRAIN;
	default:                 /* local frames and unknown ones: nothing to place it on */
		return DATUM_OTHER;
	}
}

/* Home's altitude above sea level as the log records it: the last ORGN Type 1 (fulmar
 * and ArduPilot write one whenever home is set; a mission's heights above home are
 * flown from the home set last, at arming), else mission item 0 when it is a place
 * above sea level (ArduPilot's home item). */
static bool home_alt_msl(const struct flight *fl, double *alt_m)
{
	if (fl->have_home) {
		*alt_m = fl->home_alt_m;
		return true;
	}
	if (fl->ncmd && cmd_is_waypoint(fl, 0) && cmd_datum(fl, 0) == DATUM_MSL &&
	    isfinite(fl->cmd[0].alt)) {
		*alt_m = fl->cmd[0].alt;
		return true;
	}
	return false;
}

/* What the export could not place, told on stderr at the end. */
struct export_notes {
	unsigned written, no_home, other_frame, terrain_level, no_frame_column;
};

/* A waypoint's height for a reader that takes heights as above sea level. KML says
 * "above the ground" itself (relativeToGround), so there a height above terrain stays
 * as logged; GPX cannot, so there it is put on home's altitude (the ground taken as
 * level with home). Returns false, counted in *n, when the log cannot place it. */
static bool wp_height(const struct flight *fl, unsigned s, bool kml, const double *home_m,
		      double *ele_m, bool *above_ground, char *note, size_t cap, struct export_notes *n)
{
	char frame[32];
	double h = fl->cmd[s].alt;
	if (fl->cmd[s].frame < 0) {
		snprintf(frame, sizeof frame, "no Frame logged");
		n->no_frame_column++;
	} else {
		snprintf(frame, sizeof frame, "MAV_FRAME %d", fl->cmd[s].frame);
	}
	*above_ground = false;
	switch (cmd_datum(fl, s)) {
	case DATUM_MSL:
		*ele_m = h;
		snprintf(note, cap, "%.2f m above sea level (%s)", h, frame);
		return true;
	case DATUM_HOME:
		if (!home_m) {
			n->no_home++;
			return false;
		}
		*ele_m = *home_m + h;
		snprintf(note, cap, "%.2f m above home (%s), home at %.2f m above sea level", h, frame,
			 *home_m);
		return true;
	case DATUM_TERRAIN:
		if (kml) {
			*ele_m = h;
			*above_ground = true;
			snprintf(note, cap, "%.2f m above terrain (%s)", h, frame);
			return true;
		}
		if (!home_m) {
			n->no_home++;
			return false;
		}
		*ele_m = *home_m + h;
		snprintf(note, cap, "%.2f m above terrain (%s): ele puts it above home's %.2f m, "
			 "the ground taken as level with home", h, frame, *home_m);
		n->terrain_level++;
		return true;
	case DATUM_OTHER:
	default:
		n->other_frame++;
		return false;
	}
}

/* Text as XML element content. */
static void put_xml_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", stdout);
		else if (*s == '>')
			fputs("&gt;", stdout);
		else if (*s == '&')
			fputs("&amp;", stdout);
		else
			putchar(*s);
	}
}

static void export_waypoints(const struct flight *fl, bool kml, const double *home_m,
			     struct export_notes *n)
{
	for (unsigned s = 0; s < fl->ncmd; s++) {
		if (!cmd_is_waypoint(fl, s))
			continue;
		char note[160];
		double ele;
		bool above_ground;
		if (!wp_height(fl, s, kml, home_m, &ele, &above_ground, note, sizeof note, n))
			continue;
		n->written++;
		if (kml)
			printf("<Placemark><name>WP %u</name><description>%s</description><Point>"
			       "<altitudeMode>%s</altitudeMode><coordinates>%.7f,%.7f,%.2f</coordinates>"
			       "</Point></Placemark>\n", s, note,
			       above_ground ? "relativeToGround" : "absolute", fl->cmd[s].lng,
			       fl->cmd[s].lat, ele);
		else
			printf("<wpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.2f</ele><name>WP %u</name>"
			       "<cmt>%s</cmt></wpt>\n", fl->cmd[s].lat, fl->cmd[s].lng, ele, s, note);
	}
}

static void export_tell(const char *path, const struct flight *fl, const double *home_m,
			const struct export_notes *n)
{
	if (n->no_home)
		fprintf(stderr, "fulmar-log: %s: home's altitude is not in the log (no ORGN Type 1, "
			"no mission item 0 above sea level): %u waypoint%s given above home or "
			"terrain left out\n", path, n->no_home, n->no_home == 1 ? "" : "s");
	if (n->other_frame)
		fprintf(stderr, "fulmar-log: %s: %u waypoint%s in a frame without a height above "
			"sea level (local or unknown MAV_FRAME) left out\n", path, n->other_frame,
			n->other_frame == 1 ? "" : "s");
	if (n->terrain_level)
		fprintf(stderr, "fulmar-log: %s: %u waypoint%s given above terrain: GPX has no such "
			"height, so <ele> is home's altitude plus it (the ground taken as level with "
			"home)\n", path, n->terrain_level, n->terrain_level == 1 ? "" : "s");
	if (n->no_frame_column)
		fprintf(stderr, "fulmar-log: %s: CMD has no Frame column: item 0 taken as above sea "
			"level (home), the others as above home (ArduPilot's default)\n", path);
	if (home_m && fl->have_home && fl->home_alt_max_m - fl->home_alt_min_m > 1.0)
		fprintf(stderr, "fulmar-log: %s: home's altitude changed in the log (%.2f to %.2f m): "
			"heights above home are put on the last, %.2f m\n", path,
			fl->home_alt_min_m, fl->home_alt_max_m, *home_m);
}

/* Every height written is above mean sea level, as GPX and KML readers take them: the
 * track's (GPS and POS Alt are), and the mission's, whatever frame it was given in
 * (KML's terrain-relative waypoints excepted, which say so with relativeToGround). */
static int cmd_export(int argc, char **argv)
{
	static struct flight fl;
	const char *path = NULL, *source = NULL;
	int kml = -1;

	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--kml") == 0)
			kml = 1;
		else if (strcmp(argv[k], "--gpx") == 0)
			kml = 0;
		else if (strcmp(argv[k], "--source") == 0 && k + 1 < argc)
			source = argv[++k];
		else if (argv[k][0] == '-' || path)
			goto bad;
		else
			path = argv[k];
	}
	if (!path || kml < 0 || (source && strcmp(source, "GPS") && strcmp(source, "POS")))
		goto bad;
	if (flight_read(path, &fl) < 0)
		return 1;
	bool use_gps = source ? strcmp(source, "GPS") == 0 : fl.gps.n > 0;
	const struct series *trk = use_gps ? &fl.gps : &fl.pos;
	if (trk->n == 0) {
		fprintf(stderr, "fulmar-log: %s: no %s positions\n", path, use_gps ? "GPS" : "POS");
		return 1;
	}
	double home_alt_m;
	const double *home_m = home_alt_msl(&fl, &home_alt_m) ? &home_alt_m : NULL;
	struct export_notes notes = { 0 };
	if (kml) {
		puts("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>");
		fputs("<name>", stdout);
		put_xml_text(path);
		puts("</name>");
		puts("<Style id=\"track\"><LineStyle><color>ff0080ff</color><width>3</width></LineStyle></Style>");
		export_waypoints(&fl, true, home_m, &notes);
		printf("<Placemark><name>%s track</name><styleUrl>#track</styleUrl><LineString>"
		       "<altitudeMode>absolute</altitudeMode><coordinates>\n", use_gps ? "GPS" : "POS");
		for (size_t k = 0; k < trk->n; k++)
			printf("%.7f,%.7f,%.2f\n", trk->p[k].v[1], trk->p[k].v[0], trk->p[k].v[2]);
		puts("</coordinates></LineString></Placemark>\n</Document>\n</kml>");
	} else {
		puts("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<gpx version=\"1.1\" creator=\"fulmar-log\" xmlns=\"http://www.topografix.com/GPX/1/1\">");
		export_waypoints(&fl, false, home_m, &notes);
		fputs("<trk><name>", stdout);
		put_xml_text(path);
		printf(" %s track</name><trkseg>\n", use_gps ? "GPS" : "POS");
		for (size_t k = 0; k < trk->n; k++) {
			printf("<trkpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.2f</ele>", trk->p[k].v[0],
			       trk->p[k].v[1], trk->p[k].v[2]);
			if (use_gps && fl.gps_time.p[k].v[0] > 0) {
				char iso[96];
				gps_utc_iso(fl.gps_time.p[k].v[0], fl.gps_time.p[k].v[1], iso, sizeof iso);
				printf("<time>%s</time>", iso);
			}
			puts("</trkpt>");
		}
		puts("</trkseg></trk>\n</gpx>");
	}
	export_tell(path, &fl, home_m, &notes);
	return 0;
bad:
	usage(stderr);
	return 2;
}

/* ---- plot (SVG by hand) ---- */

#define SVG_W 1000
#define PANEL_H 220
#define MARGIN_L 70
#define MARGIN_R 20
#define PLOT_W (SVG_W - MARGIN_L - MARGIN_R)
#define MAX_SERIES 4

struct line {
	const struct series *s;
	int idx;                 /* which v[] */
	double scale;
	const char *label;
	const char *color;
};

static void svg_text(FILE *o, double x, double y, const char *anchor, const char *cls,
		     const char *text)
{
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y, anchor, cls);
	for (const char *c = text; *c; c++) {
		if (*c == '<')
			fputs("&lt;", o);
		else if (*c == '>')
			fputs("&gt;", o);
		else if (*c == '&')
			fputs("&amp;", o);
		else
			fputc(*c, o);
	}
	fputs("</text>\n", o);
}

/* Axis ticks at 1, 2 or 5 × 10^n. */
static double nice_step(double span, int ticks)
{
	double raw = span / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void panel_frame(FILE *o, double y0, const char *title, double t0, double t1, double lo,
			double hi, const char *unit)
{
	char buf[64];
	fprintf(o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n",
		MARGIN_L, y0 + 25, PLOT_W, PANEL_H - 60);
	svg_text(o, MARGIN_L, y0 + 18, "start", "title", title);
	double ph = PANEL_H - 60;
	double ystep = nice_step(hi - lo, 4);
	for (double v = ceil(lo / ystep) * ystep; v <= hi + 1e-9; v += ystep) {
		double y = y0 + 25 + ph - (v - lo) / (hi - lo) * ph;
		fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
			MARGIN_L, MARGIN_L + PLOT_W, y, y);
		snprintf(buf, sizeof buf, "%g", fabs(v) < ystep * 1e-6 ? 0.0 : v);
		svg_text(o, MARGIN_L - 5, y + 4, "end", "tick", buf);
	}
	svg_text(o, 14, y0 + 25 + ph / 2, "middle", "tick", unit);
	double xstep = nice_step(t1 - t0, 8);
	for (double v = ceil(t0 / xstep) * xstep; v <= t1 + 1e-9; v += xstep) {
		double x = MARGIN_L + (v - t0) / (t1 - t0) * PLOT_W;
		fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" class=\"grid\"/>\n",
			x, x, y0 + 25, y0 + 25 + ph);
		snprintf(buf, sizeof buf, "%g", v);
		svg_text(o, x, y0 + 25 + ph + 14, "middle", "tick", buf);
	}
	svg_text(o, MARGIN_L + PLOT_W, y0 + 25 + ph + 28, "end", "tick", "time (s, TimeUS)");
}

/* A time series drawn as at most two points per pixel column (its min and max there),
 * so an hour at 400 Hz stays a small file and no peak is lost. */
static void draw_line(FILE *o, const struct line *l, double y0, double t0, double t1, double lo,
		      double hi)
{
	const struct series *s = l->s;
	double ph = PANEL_H - 60;
	int col = -1;
	double cmin = 0, cmax = 0, tmin = 0, tmax = 0;
	bool first = true;

	fprintf(o, "<polyline class=\"series\" stroke=\"%s\" points=\"", l->color);
	for (size_t k = 0; k <= s->n; k++) {
		int c = -2;
		double v = 0;
		if (k < s->n) {
			v = s->p[k].v[l->idx] * l->scale;
			if (!isfinite(v))
				continue;
			c = (int)((s->p[k].t - t0) / (t1 - t0) * PLOT_W);
		}
		if (c != col && col >= 0) {
			/* Flush the previous column, in time order of its extremes. */
			double a = tmin <= tmax ? cmin : cmax, b = tmin <= tmax ? cmax : cmin;
			double x = MARGIN_L + col;
			fprintf(o, "%s%.1f,%.1f", first ? "" : " ", x, y0 + 25 + ph - (a - lo) / (hi - lo) * ph);
			if (a != b)
				fprintf(o, " %.1f,%.1f", x, y0 + 25 + ph - (b - lo) / (hi - lo) * ph);
			first = false;
		}
		if (k == s->n)
			break;
		if (c != col) {
			col = c;
			cmin = cmax = v;
			tmin = tmax = s->p[k].t;
		} else {
			if (v < cmin) {
				cmin = v;
				tmin = s->p[k].t;
			}
			if (v > cmax) {
				cmax = v;
				tmax = s->p[k].t;
			}
		}
	}
	fputs("\"/>\n", o);
}

/* A thin mark at each late loop (LATE) across a panel: what the flight did then. */
static void late_marks(FILE *o, double y0, const struct series *late, double t0, double t1)
{
	for (size_t k = 0; k < late->n; k++) {
		double x = MARGIN_L + (late->p[k].t - t0) / (t1 - t0) * PLOT_W;
		fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#e377c2\" "
			"stroke-opacity=\"0.5\"/>\n", x, x, y0 + 25, y0 + PANEL_H - 35);
	}
}

static void time_panel(FILE *o, double y0, const char *title, const char *unit,
		       const struct line *lines, int nlines, double t0, double t1)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < nlines; k++)
		for (size_t j = 0; j < lines[k].s->n; j++) {
			double v = lines[k].s->p[j].v[lines[k].idx] * lines[k].scale;
			if (!isfinite(v))
				continue;
			if (v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
	if (!isfinite(lo)) {
		panel_frame(o, y0, title, t0, t1, 0, 1, unit);
		svg_text(o, MARGIN_L + PLOT_W / 2.0, y0 + PANEL_H / 2.0, "middle", "note", "no data in this log");
		return;
	}
	if (hi - lo < 1e-6) {
		lo -= 1;
		hi += 1;
	}
	double pad = (hi - lo) * 0.05;
	lo -= pad;
	hi += pad;
	panel_frame(o, y0, title, t0, t1, lo, hi, unit);
	for (int k = 0; k < nlines; k++) {
		if (!lines[k].s->n)
			continue;
		draw_line(o, &lines[k], y0, t0, t1, lo, hi);
		double lx = MARGIN_L + PLOT_W - 150.0 * (nlines - k);
		fprintf(o, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			lx, lx + 20, y0 + 14, y0 + 14, lines[k].color);
		svg_text(o, lx + 25, y0 + 18, "start", "tick", lines[k].label);
	}
}

static void track_panel(FILE *o, double y0, double h, const struct flight *fl)
{
	const struct series *trk = fl->gps.n ? &fl->gps : &fl->pos;
	svg_text(o, MARGIN_L, y0 + 18, "start", "title",
		 trk == &fl->gps ? "Ground track (GPS) and waypoints (CMD)" : "Ground track (POS) and waypoints (CMD)");
	double lat0 = INFINITY, lat1 = -INFINITY, lng0 = INFINITY, lng1 = -INFINITY;
	for (size_t k = 0; k < trk->n; k++) {
		lat0 = fmin(lat0, trk->p[k].v[0]);
		lat1 = fmax(lat1, trk->p[k].v[0]);
		lng0 = fmin(lng0, trk->p[k].v[1]);
		lng1 = fmax(lng1, trk->p[k].v[1]);
	}
	for (unsigned s = 0; s < fl->ncmd; s++)
		if (cmd_is_waypoint(fl, s)) {
			lat0 = fmin(lat0, fl->cmd[s].lat);
			lat1 = fmax(lat1, fl->cmd[s].lat);
			lng0 = fmin(lng0, fl->cmd[s].lng);
			lng1 = fmax(lng1, fl->cmd[s].lng);
		}
	double box_h = h - 40;
	fprintf(o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" class=\"frame\"/>\n",
		MARGIN_L, y0 + 25, PLOT_W, box_h);
	if (!isfinite(lat0)) {
		svg_text(o, MARGIN_L + PLOT_W / 2.0, y0 + h / 2, "middle", "note", "no positions in this log");
		return;
	}
	/* Local flat projection in metres, same scale on both axes. */
	double clat = cos((lat0 + lat1) / 2 * M_PI / 180.0);
	double w_m = fmax((lng1 - lng0) * 111320.0 * clat, 1.0);
	double h_m = fmax((lat1 - lat0) * 110540.0, 1.0);
	double scale = fmin((PLOT_W - 20) / w_m, (box_h - 20) / h_m);
	double ox = MARGIN_L + PLOT_W / 2.0 - w_m * scale / 2;
	double oy = y0 + 25 + box_h / 2 + h_m * scale / 2;
#define PX(lng) (ox + ((lng) - lng0) * 111320.0 * clat * scale)
#define PY(lat) (oy - ((lat) - lat0) * 110540.0 * scale)
	/* Decimate to about one point a pixel. */
	fputs("<polyline class=\"series\" stroke=\"#1f77b4\" points=\"", o);
	double lx = -1e9, ly = -1e9;
	for (size_t k = 0; k < trk->n; k++) {
		double x = PX(trk->p[k].v[1]), y = PY(trk->p[k].v[0]);
		if (fabs(x - lx) < 1 && fabs(y - ly) < 1 && k + 1 < trk->n)
			continue;
		fprintf(o, "%.1f,%.1f ", x, y);
		lx = x;
		ly = y;
	}
	fputs("\"/>\n", o);
	fputs("<polyline class=\"mission\" points=\"", o);
	for (unsigned s = 0; s < fl->ncmd; s++)
		if (cmd_is_waypoint(fl, s) && s > 0)
			fprintf(o, "%.1f,%.1f ", PX(fl->cmd[s].lng), PY(fl->cmd[s].lat));
	fputs("\"/>\n", o);
	for (unsigned s = 0; s < fl->ncmd; s++) {
		if (!cmd_is_waypoint(fl, s))
			continue;
		char label[16];
		snprintf(label, sizeof label, "%u", s);
		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" class=\"wp\"/>\n",
			PX(fl->cmd[s].lng), PY(fl->cmd[s].lat));
		svg_text(o, PX(fl->cmd[s].lng) + 7, PY(fl->cmd[s].lat) - 7, "start", "tick", label);
	}
	fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"green\"/>\n",
		PX(trk->p[0].v[1]), PY(trk->p[0].v[0]));
	/* A scale bar. */
	double bar_m = nice_step(w_m, 4);
	fprintf(o, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"black\" stroke-width=\"2\"/>\n",
		MARGIN_L + 10, MARGIN_L + 10 + bar_m * scale, y0 + 25 + box_h - 10, y0 + 25 + box_h - 10);
	char label[32];
	snprintf(label, sizeof label, "%g m", bar_m);
	svg_text(o, MARGIN_L + 10, y0 + 25 + box_h - 15, "start", "tick", label);
#undef PX
#undef PY
}

static void histogram_panel(FILE *o, double y0, const struct flight *fl)
{
	svg_text(o, MARGIN_L, y0 + 18, "start", "title",
		 "Loop timing (PM): per-period longest (MaxT) and mean (AvgT) loop");
	double ph = PANEL_H - 60;
	fprintf(o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" class=\"frame\"/>\n",
		MARGIN_L, y0 + 25, PLOT_W, ph);
	if (!fl->pm.n) {
		svg_text(o, MARGIN_L + PLOT_W / 2.0, y0 + PANEL_H / 2.0, "middle", "note", "no PM records in this log");
		return;
	}
	double hi = 0;
	for (size_t k = 0; k < fl->pm.n; k++)
		hi = fmax(hi, fl->pm.p[k].v[0]);
	if (!(hi > 0))
		hi = 1;
	enum { NBINS = 50 };
	unsigned bins[2][NBINS] = { { 0 } }, top = 1;
	double width = hi / NBINS * 1.0001;
	for (size_t k = 0; k < fl->pm.n; k++)
		for (int s = 0; s < 2; s++) {
			double v = fl->pm.p[k].v[s];
			if (!isfinite(v) || v < 0)
				continue;
			unsigned b = (unsigned)(v / width);
			if (b >= NBINS)
				b = NBINS - 1;
			if (++bins[s][b] > top)
				top = bins[s][b];
		}
	static const char *const colors[2] = { "#d62728", "#2ca02c" };
	double bw = (double)PLOT_W / NBINS;
	for (int s = 0; s < 2; s++)
		for (int b = 0; b < NBINS; b++) {
			if (!bins[s][b])
				continue;
			double hgt = (double)bins[s][b] / top * ph;
			fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.6\"/>\n",
				MARGIN_L + b * bw + (s ? bw / 2 : 0), y0 + 25 + ph - hgt, bw / 2, hgt, colors[s]);
		}
	char buf[64];
	for (int k = 0; k <= 5; k++) {
		snprintf(buf, sizeof buf, "%.0f", hi * k / 5);
		svg_text(o, MARGIN_L + PLOT_W * k / 5.0, y0 + 25 + ph + 14, "middle", "tick", buf);
	}
	snprintf(buf, sizeof buf, "%u", top);
	svg_text(o, MARGIN_L - 5, y0 + 29, "end", "tick", buf);
	svg_text(o, MARGIN_L - 5, y0 + 25 + ph + 4, "end", "tick", "0");
	svg_text(o, MARGIN_L + PLOT_W, y0 + 25 + ph + 28, "end", "tick", "loop time (us); bars: PM periods");
	svg_text(o, MARGIN_L + PLOT_W - 200, y0 + 18, "start", "tick", "red: MaxT  green: AvgT");
}

static int cmd_plot(int argc, char **argv)
{
	static struct flight fl;
	const char *path = NULL, *out_path = NULL;

	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "-o") == 0 && k + 1 < argc)
			out_path = argv[++k];
		else if (argv[k][0] == '-' || path)
			goto bad;
		else
			path = argv[k];
	}
	if (!path)
		goto bad;
	if (flight_read(path, &fl) < 0)
		return 1;
	FILE *o = out_path ? fopen(out_path, "w") : stdout;
	if (!o) {
		fprintf(stderr, "fulmar-log: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	double t0 = fl.have_t ? fl.t_min : 0, t1 = fl.have_t ? fl.t_max : 1;
	if (t1 - t0 < 1e-3)
		t1 = t0 + 1;
	const double track_h = 520;
	const int npanels = 5;
	double total_h = 40 + track_h + npanels * PANEL_H;

	fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n",
		SVG_W, total_h, SVG_W, total_h);
	fputs("<style>text{font-family:sans-serif}.title{font-size:14px;font-weight:bold}"
	      ".tick{font-size:11px}.note{font-size:14px;fill:#888}"
	      ".frame{fill:none;stroke:#444}.grid{stroke:#ddd}"
	      ".series{fill:none;stroke-width:1.2}.mission{fill:none;stroke:#ff7f0e;stroke-dasharray:6,4}"
	      ".wp{fill:#ff7f0e;stroke:black}</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", o);
	svg_text(o, SVG_W / 2.0, 24, "middle", "title", path);
	double y = 40;
	track_panel(o, y, track_h, &fl);
	y += track_h;

	struct line alt[3] = {
		{ &fl.gps, 2, 1, "GPS Alt (AMSL)", "#1f77b4" },
		{ &fl.pos, 2, 1, "POS Alt (AMSL)", "#ff7f0e" },
		{ &fl.baro, 0, 1, "BARO Alt (rel.)", "#2ca02c" },
	};
	time_panel(o, y, "Altitude", "m", alt, 3, t0, t1);
	y += PANEL_H;
	struct line spd[2] = {
		{ &fl.airspeed, 0, 1, "airspeed", "#9467bd" },
		{ &fl.gps, 3, 1, "GPS ground speed", "#8c564b" },
	};
	time_panel(o, y, "Airspeed (CTUN.As / ARSP) and ground speed", "m/s", spd, 2, t0, t1);
	y += PANEL_H;
	struct line roll[2] = {
		{ &fl.att, 0, 1, "DesRoll", "#d62728" },
		{ &fl.att, 1, 1, "Roll", "#1f77b4" },
	};
	time_panel(o, y, "Roll: demand against achieved (ATT)", "deg", roll, 2, t0, t1);
	late_marks(o, y, &fl.late, t0, t1);
	y += PANEL_H;
	struct line pitch[2] = {
		{ &fl.att, 2, 1, "DesPitch", "#d62728" },
		{ &fl.att, 3, 1, "Pitch", "#1f77b4" },
	};
	time_panel(o, y, "Pitch: demand against achieved (ATT)", "deg", pitch, 2, t0, t1);
	late_marks(o, y, &fl.late, t0, t1);
	if (fl.late.n) {
		char note[96];
		snprintf(note, sizeof note, "pink marks: %zu late loops (LATE)", fl.late.n);
		svg_text(o, MARGIN_L, y + PANEL_H - 8, "start", "tick", note);
	}
	y += PANEL_H;
	histogram_panel(o, y, &fl);
	fputs("</svg>\n", o);
	if (out_path && fclose(o) != 0) {
		fprintf(stderr, "fulmar-log: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	return 0;
bad:
	usage(stderr);
	return 2;
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
	if (argc >= 3 && strcmp(argv[1], "export") == 0)
		return cmd_export(argc - 2, argv + 2);
	if (argc >= 3 && strcmp(argv[1], "plot") == 0)
		return cmd_plot(argc - 2, argv + 2);
	if (argc == 3 && strcmp(argv[1], "summary") == 0)
		return cmd_summary(argv[2]);
	usage(stderr);
	return 2;
}
