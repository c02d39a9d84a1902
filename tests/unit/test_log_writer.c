// SPDX-License-Identifier: GPL-3.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/df_reader.h"
#include "log/log_writer.h"

#include "reference.h"

/* The reference logs' folder, once main has found it. */
static char dataflash_dir[256];

/* ---- helpers ---- */

static void make_dir(char *out, size_t cap)
{
	snprintf(out, cap, "/tmp/fulmar-logw-XXXXXX");
	assert_non_null(mkdtemp(out));
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[512];
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	uint8_t *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

typedef void (*rec_fn)(const struct df_reader *r, const struct df_record *rec, void *ctx);

/* Reads a whole file through a fresh reader (caller frees it). */
static struct df_reader *read_log(const char *path, rec_fn fn, void *ctx)
{
	size_t len, off = 0;
	uint8_t *data = slurp(path, &len);
	struct df_reader *r = malloc(sizeof *r);
	struct df_record rec;
	assert_non_null(r);
	df_reader_init(r);
	while (off < len) {
		off += df_reader_feed(r, data + off, len - off);
		while (df_reader_next(r, &rec) == 1)
			if (fn)
				fn(r, &rec, ctx);
	}
	df_reader_end(r);
	while (df_reader_next(r, &rec) == 1)
		if (fn)
			fn(r, &rec, ctx);
	free(data);
	return r;
}

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct events {
	unsigned n[8];
	int last_err;
	char text[8][128];
};

static void on_status(void *ctx, enum log_writer_event ev, int err, const char *text)
{
	struct events *e = ctx;
	e->n[ev]++;
	e->last_err = err;
	snprintf(e->text[ev], sizeof e->text[ev], "%s", text);
}

/* A test fixture: a writer on a temporary directory with one producer. */
struct fixture {
	char dir[64];
	struct log_writer w;
	struct log_producer p;
	struct events ev;
	struct log_writer_config cfg;
	uint8_t ring[16384];
	uint8_t buf[65536];
};

static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	make_dir(f->dir, sizeof f->dir);
	f->cfg = (struct log_writer_config){
		.dir = f->dir, .max_files = 0, .log_disarmed = true,
		.buf = f->buf, .buf_len = sizeof f->buf,
		.on_status = on_status, .ctx = &f->ev,
	};
	return f;
}

static void fixture_start(struct fixture *f)
{
	assert_int_equal(log_writer_init(&f->w, &f->cfg), 0);
	assert_int_equal(log_writer_add_producer(&f->w, &f->p, f->ring, sizeof f->ring, "test"), 0);
}

static void fixture_free(struct fixture *f)
{
	remove_tree(f->dir);
	free(f);
}

static void log_path(const struct fixture *f, unsigned n, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%u.BIN", f->dir, n);
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static bool msg_has(const struct df_record *rec, const char *text)
{
	struct df_value v;
	return rec->type == DF_ID_MSG && df_record_field(rec, 1, &v) == 0 &&
	       memmem(v.v.s.p, v.v.s.len, text, strlen(text)) != NULL;
}

/* ---- the message table's C structs ---- */

static void test_log_struct_members_have_their_letters_sizes(void **state)
{
	for (size_t k = 0; k < df_msg_def_count; k++) {
		const struct df_msg_def *d = &df_msg_defs[k];
		if (!d->fields) {
			assert_true(d->type == DF_ID_FMT || d->type == DF_ID_UNIT ||
				    d->type == DF_ID_MULT || d->type == DF_ID_FMTU);
			continue;
		}
		for (size_t j = 0; d->format[j]; j++) {
			char c = d->format[j];
			size_t want = df_letter_size(c);
			if (c == 'n' || c == 'N' || c == 'Z')
				assert_true(d->fields[j].size >= want);
			else
				assert_int_equal(d->fields[j].size, want);
			/* Members are in the format's order. */
			if (j)
				assert_true(d->fields[j].off > d->fields[j - 1].off);
		}
		assert_true(strlen(d->labels) <= DF_LABELS_LEN);
		/* t_us first: the writer reads the time from there. */
		assert_int_equal(d->fields[0].off, 0);
		assert_int_equal(d->format[0], 'Q');
	}
}

/* ---- round trip through the writer ---- */

union msg_storage {
	max_align_t align;
	unsigned char b[256];
};

struct round_trip {
	union msg_storage sent[256];
	bool have[256];
	unsigned seen[256];
	bool fmt_seen[256];
	unsigned fields_checked;
};

/* Random contents for each member of a message through its field table. */
static void fill_random(const struct df_msg_def *d, unsigned char *m)
{
	memset(m, 0, 256);
	for (size_t j = 0; d->format[j]; j++) {
		unsigned char *p = m + d->fields[j].off;
		char c = d->format[j];
		if (c == 'n' || c == 'N' || c == 'Z') {
			size_t n = df_letter_size(c);
			size_t len = rnd() % (n + 1);
			for (size_t k = 0; k < len; k++)
				p[k] = (unsigned char)(' ' + rnd() % 95);
			p[len] = '\0';
		} else {
			for (size_t k = 0; k < d->fields[j].size; k++)
				p[k] = (unsigned char)rnd();
		}
	}
	/* Times stay plausible and increasing. */
	uint64_t t = 1000000u + d->type;
	memcpy(m, &t, sizeof t);
}

static void check_record(const struct df_reader *r, const struct df_record *rec, void *ctx)
{
	struct round_trip *rt = ctx;
	if (rec->type == DF_ID_FMT) {
		struct df_value v;
		assert_int_equal(df_record_field(rec, 0, &v), 0);
		rt->fmt_seen[v.v.u] = true;
		return;
	}
	/* FMT before first use. */
	assert_true(rec->type == DF_ID_FMT || rt->fmt_seen[rec->type]);
	if (!rt->have[rec->type] || msg_has(rec, "fulmar log "))
		return;
	rt->seen[rec->type]++;
	const struct df_msg_def *d = df_msg_def_find(rec->type);
	const unsigned char *m = rt->sent[rec->type].b;
	assert_string_equal(rec->fmt->format, d->format);
	for (unsigned j = 0; d->format[j]; j++) {
		struct df_value v;
		const unsigned char *p = m + d->fields[j].off;
		assert_int_equal(df_record_field(rec, j, &v), 0);
		assert_int_equal(v.letter, d->format[j]);
		switch (v.letter) {
		case 'n': case 'N': case 'Z':
			assert_int_equal(v.v.s.len, strlen((const char *)p));
			assert_memory_equal(v.v.s.p, p, v.v.s.len);
			break;
		case 'f':
			assert_memory_equal(&v.v.f, p, 4);
			break;
		case 'd':
			assert_memory_equal(&v.v.d, p, 8);
			break;
		default: {
			/* Integers: the reader's value, narrowed, has the member's bytes. */
			size_t n = d->fields[j].size;
			uint64_t u = df_letter_is_signed(v.letter) ? (uint64_t)v.v.i : v.v.u;
			uint8_t le[8];
			for (size_t k = 0; k < 8; k++)
				le[k] = (uint8_t)(u >> (8 * k));
			uint64_t host = 0;
			memcpy(&host, p, n);
			uint8_t want[8];
			for (size_t k = 0; k < 8; k++)
				want[k] = (uint8_t)(host >> (8 * k));
			assert_memory_equal(le, want, n);
			break;
		}
		}
		rt->fields_checked++;
	}
}

static void test_log_writer_round_trips_every_logged_type_field_by_field(void **state)
{
	struct fixture *f = fixture_new();
	static struct round_trip rt;
	unsigned types = 0, fields = 0;
	char letters[32] = "";

	memset(&rt, 0, sizeof rt);
	fixture_start(f);
	for (unsigned round = 0; round < 3; round++) {
		for (size_t k = 0; k < df_msg_def_count; k++) {
			const struct df_msg_def *d = &df_msg_defs[k];
			if (!d->fields)
				continue;
			fill_random(d, rt.sent[d->type].b);
			rt.have[d->type] = true;
			/* The typed form for one of them, the generic one for the rest. */
			if (d->type == DF_ID_IMU)
				assert_int_equal(log_write_imu(&f->p, (const void *)rt.sent[d->type].b), 0);
			else
				assert_int_equal(log_write(&f->p, d->type, rt.sent[d->type].b), 0);
			if (round == 0) {
				types++;
				fields += (unsigned)strlen(d->format);
				for (const char *c = d->format; *c; c++)
					if (!strchr(letters, *c)) {
						size_t n = strlen(letters);
						letters[n] = *c;
						letters[n + 1] = '\0';
					}
			}
		}
		/* Each round's records are checked against that round's values. */
		assert_true(log_writer_service(&f->w, 1000000u + round) >= 0);
		char path[128];
		log_path(f, 1, path, sizeof path);
		assert_int_equal(log_writer_fini(&f->w, 1000000u + round), 0);
		memset(rt.seen, 0, sizeof rt.seen);
		memset(rt.fmt_seen, 0, sizeof rt.fmt_seen);
		rt.fields_checked = 0;
		struct df_reader *r = read_log(path, check_record, &rt);
		assert_int_equal(r->skipped_bytes, 0);
		assert_int_equal(r->truncated_bytes, 0);
		assert_int_equal(r->bad_fmts, 0);
		for (unsigned t = 0; t < 256; t++)
			if (rt.have[t])
				assert_int_equal(rt.seen[t], 1);
		assert_int_equal(rt.fields_checked, fields);
		free(r);
		/* A new file for the next round: a new boot. */
		remove(path);
		char last[128];
		snprintf(last, sizeof last, "%s/LASTLOG.TXT", f->dir);
		remove(last);
		fixture_start(f);
	}
	assert_int_equal(log_writer_fini(&f->w, 2000000u), 0);
	print_message("round trip: %u types, %u fields, letters %s\n", types, fields, letters);
	fixture_free(f);
}

/* ---- files: naming, LASTLOG, max files, rotation ---- */

static unsigned read_lastlog(const struct fixture *f)
{
	char path[128], text[16] = "";
	snprintf(path, sizeof path, "%s/LASTLOG.TXT", f->dir);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(text, sizeof text, fp));
	fclose(fp);
	assert_non_null(strstr(text, "\r\n"));
	return (unsigned)atoi(text);
}

static void test_log_writer_numbers_files_per_boot_and_keeps_max_files(void **state)
{
	struct fixture *f = fixture_new();
	char path[128];

	f->cfg.max_files = 3;
	for (unsigned boot = 1; boot <= 5; boot++) {
		fixture_start(f);
		assert_true(log_writer_service(&f->w, boot * 1000u) >= 0);
		assert_int_equal(f->ev.n[LOG_EVENT_STARTED], boot);
		assert_int_equal(log_writer_fini(&f->w, boot * 1000u + 1), 0);
		assert_int_equal(read_lastlog(f), boot);
	}
	for (unsigned n = 1; n <= 5; n++) {
		log_path(f, n, path, sizeof path);
		assert_int_equal(file_exists(path), n >= 3);
	}
	unsigned count, lo, hi;
	assert_int_equal(log_dir_scan(f->dir, &count, &lo, &hi), 0);
	assert_int_equal(count, 3);
	assert_int_equal(lo, 3);
	assert_int_equal(hi, 5);
	fixture_free(f);
}

static void test_log_writer_rotates_at_disarm_and_skips_disarmed_time(void **state)
{
	struct fixture *f = fixture_new();
	char path[128];
	struct df_ev ev = { 0, 10 };

	f->cfg.log_disarmed = false;
	f->cfg.rotate_on_disarm = true;
	fixture_start(f);
	/* Disarmed: no file, records discarded. */
	assert_int_equal(log_write_ev(&f->p, &ev), 0);
	assert_int_equal(log_writer_service(&f->w, 1000), 0);
	log_path(f, 1, path, sizeof path);
	assert_false(file_exists(path));

	for (unsigned flight = 1; flight <= 2; flight++) {
		uint64_t t = flight * 10000000u;
		log_writer_set_armed(&f->w, true);
		assert_true(log_writer_service(&f->w, t) >= 0);
		ev.t_us = t + 1;
		ev.id = 10;
		assert_int_equal(log_write_ev(&f->p, &ev), 0);
		assert_true(log_writer_service(&f->w, t + 10) >= 0);
		ev.t_us = t + 2;
		ev.id = 11;
		assert_int_equal(log_write_ev(&f->p, &ev), 0);
		log_writer_set_armed(&f->w, false);
		assert_true(log_writer_service(&f->w, t + 20) >= 0);
		assert_int_equal(f->ev.n[LOG_EVENT_CLOSED], flight);
		/* Closed at disarm, both events in it: complete on the storage. */
		log_path(f, flight, path, sizeof path);
		struct df_reader *r = read_log(path, NULL, NULL);
		assert_int_equal(r->count[DF_ID_EV], 2);
		assert_int_equal(r->truncated_bytes, 0);
		free(r);
		struct log_writer_stats st;
		log_writer_get_stats(&f->w, &st);
		assert_int_equal(st.state, LOG_WRITER_IDLE);
	}
	log_path(f, 3, path, sizeof path);
	assert_false(file_exists(path));
	assert_int_equal(read_lastlog(f), 2);
	assert_int_equal(log_writer_fini(&f->w, 50000000u), 0);
	fixture_free(f);
}

/* Without rotation, a disarm still puts everything on the storage at once. */
static void test_log_writer_syncs_at_disarm_without_rotating(void **state)
{
	struct fixture *f = fixture_new();
	char path[128];
	struct df_ev ev = { 0, 10 };
	struct log_writer_stats st;

	fixture_start(f);
	log_writer_set_armed(&f->w, true);
	assert_true(log_writer_service(&f->w, 1000000u) >= 0);
	ev.t_us = 1000001u;
	assert_int_equal(log_write_ev(&f->p, &ev), 0);
	ev.t_us = 1000002u;
	ev.id = 11;
	assert_int_equal(log_write_ev(&f->p, &ev), 0);
	log_writer_set_armed(&f->w, false);
	/* Well inside the flush and sync intervals: only the disarm can explain it. */
	assert_true(log_writer_service(&f->w, 1000010u) > 0);
	log_writer_get_stats(&f->w, &st);
	assert_int_equal(st.syncs, 1);
	assert_int_equal(st.state, LOG_WRITER_LOGGING);
	assert_int_equal(f->ev.n[LOG_EVENT_CLOSED], 0);
	log_path(f, 1, path, sizeof path);
	struct df_reader *r = read_log(path, NULL, NULL);
	assert_int_equal(r->count[DF_ID_EV], 2);
	free(r);
	assert_int_equal(log_writer_fini(&f->w, 1000020u), 0);
	fixture_free(f);
}

/* Records are on the storage within the flush interval, without a close: a crash
 * (SIGKILL) loses at most that much; fdatasync follows at 1 Hz. */
static void test_log_writer_flushes_periodically_without_a_close(void **state)
{
	struct fixture *f = fixture_new();
	char path[128];
	struct df_att att = { 0 };

	fixture_start(f);
	log_path(f, 1, path, sizeof path);
	uint64_t t = 5000000u;
	unsigned written = 0;
	for (unsigned k = 0; k < 40; k++, t += 10000u) {   /* 0.4 s at 100 Hz */
		att.t_us = t;
		att.roll_cdeg = (int16_t)k;
		assert_int_equal(log_write_att(&f->p, &att), 0);
		written++;
		assert_true(log_writer_service(&f->w, t) >= 0);
	}
	/* Without fini: what the file holds now is what a crash would leave. */
	struct df_reader *r = read_log(path, NULL, NULL);
	assert_int_equal(r->truncated_bytes, 0);
	assert_true(r->count[DF_ID_ATT] > 0);
	/* Everything older than the flush interval (250 ms) is there. */
	assert_true(r->count[DF_ID_ATT] >= written - 26);
	free(r);
	for (unsigned k = 0; k < 80; k++, t += 10000u)
		assert_true(log_writer_service(&f->w, t) >= 0);
	struct log_writer_stats st;
	log_writer_get_stats(&f->w, &st);
	assert_true(st.syncs >= 1);
	r = read_log(path, NULL, NULL);
	assert_int_equal(r->count[DF_ID_ATT], written);
	/* The writer's own figures, once a second. */
	assert_true(r->count[DF_ID_DSF] >= 1);
	free(r);
	assert_int_equal(log_writer_fini(&f->w, t), 0);
	fixture_free(f);
}

/* ---- trouble ---- */

/* POSIX storage with a byte budget (then ENOSPC, after a partial write), an error to
 * return from open, and a stall in write that the test ends: with hold set, the next
 * write sets held and waits inside the storage until released is set (by the test's
 * producer), or gives up after HOLD_HANG_CHECK_US and says so in hold_timed_out. */
struct faulty {
	long long budget;           /* bytes left; < 0: unlimited */
	int open_err;
	_Atomic bool hold, held, released;
	bool hold_timed_out;
};

/* Only a hang check: a producer that does not wait on the storage releases the stall
 * after a few hundred calls at 2 kHz (0.25 s); one that waits never does. */
#define HOLD_HANG_CHECK_US 20000000u

static int faulty_open(void *ctx, const char *path, bool append)
{
	struct faulty *fs = ctx;
	if (fs->open_err)
		return fs->open_err;
	return log_storage_posix.open(NULL, path, append);
}

static ssize_t faulty_write(void *ctx, int h, const void *buf, size_t len)
{
	struct faulty *fs = ctx;
	if (atomic_exchange(&fs->hold, false)) {
		uint64_t give_up = mono_us() + HOLD_HANG_CHECK_US;
		atomic_store(&fs->held, true);
		while (!atomic_load(&fs->released)) {
			if (mono_us() > give_up) {
				fs->hold_timed_out = true;
				break;
			}
			struct timespec ts = { 0, 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	if (fs->budget >= 0) {
		if (fs->budget == 0)
			return -ENOSPC;
		if ((long long)len > fs->budget)
			len = (size_t)fs->budget;
		fs->budget -= (long long)len;
	}
	return log_storage_posix.write(NULL, h, buf, len);
}

static int faulty_sync(void *ctx, int h) { return log_storage_posix.sync(NULL, h); }
static int faulty_truncate(void *ctx, int h, off_t len) { return log_storage_posix.truncate(NULL, h, len); }
static int faulty_close(void *ctx, int h) { return log_storage_posix.close(NULL, h); }

static const struct log_storage_ops faulty_ops = {
	faulty_open, faulty_write, faulty_sync, faulty_truncate, faulty_close,
};

static void find_resumed(const struct df_reader *r, const struct df_record *rec, void *ctx)
{
	if (msg_has(rec, "log resumed"))
		(*(unsigned *)ctx)++;
}

static void test_log_writer_survives_a_full_disk_and_resumes(void **state)
{
	struct fixture *f = fixture_new();
	struct faulty fs = { .budget = 20000 };
	char path[128];
	struct df_imu imu = { .instance = 0 };

	f->cfg.ops = &faulty_ops;
	f->cfg.ops_ctx = &fs;
	f->cfg.retry_interval_us = 1000000u;
	fixture_start(f);
	log_path(f, 1, path, sizeof path);
	uint64_t t = 1000000u;
	for (unsigned k = 0; k < 300; k++, t += 10000u) {
		for (unsigned j = 0; j < 4; j++) {
			imu.t_us = t + j;
			int rc = log_write_imu(&f->p, &imu);
			assert_true(rc == 0 || rc == -ENOBUFS);
		}
		log_writer_service(&f->w, t);
		if (k == 150)
			fs.budget = -1;         /* someone made room */
	}
	assert_int_equal(f->ev.n[LOG_EVENT_STOPPED], 1);
	assert_non_null(strstr(f->ev.text[LOG_EVENT_STOPPED], "No space left"));
	assert_int_equal(f->ev.n[LOG_EVENT_RESUMED], 1);
	struct log_writer_stats st;
	log_writer_get_stats(&f->w, &st);
	assert_true(st.records_lost > 0);
	assert_true(st.write_errors >= 1);
	assert_int_equal(st.state, LOG_WRITER_LOGGING);
	assert_int_equal(st.records_corrupt, 0);
	assert_int_equal(log_writer_fini(&f->w, t), 0);
	print_message("full disk: %llu lost, %llu errors\n", (unsigned long long)st.records_lost,
		      (unsigned long long)st.write_errors);

	/* One file, whole records only: the failed write was cut back. */
	unsigned resumed = 0;
	struct df_reader *r = read_log(path, find_resumed, &resumed);
	assert_int_equal(r->skipped_bytes, 0);
	assert_int_equal(r->truncated_bytes, 0);
	assert_int_equal(resumed, 1);
	/* Every IMU record is in the file or counted lost (lost also counts the few
	 * MSG and DSF records that were in the failed write). */
	uint64_t accounted = r->count[DF_ID_IMU] + st.records_lost + log_writer_dropped(&f->w);
	assert_true(accounted >= 1200 && accounted <= 1210);
	assert_true(r->count[DF_ID_IMU] < 1200);
	free(r);
	fixture_free(f);
}

static void test_log_writer_waits_for_a_missing_or_read_only_directory(void **state)
{
	struct fixture *f = fixture_new();
	struct faulty fs = { .budget = -1 };
	char parent[96], dir[128], path[160];
	struct df_ev ev = { 1, 10 };

	/* Two levels missing: the writer creates one level only. */
	snprintf(parent, sizeof parent, "%s/a", f->dir);
	snprintf(dir, sizeof dir, "%s/b", parent);
	f->cfg.dir = dir;
	f->cfg.ops = &faulty_ops;
	f->cfg.ops_ctx = &fs;
	f->cfg.retry_interval_us = 1000000u;
	fixture_start(f);
	assert_int_equal(log_write_ev(&f->p, &ev), 0);
	assert_int_equal(log_writer_service(&f->w, 1000000u), -ENOENT);
	assert_int_equal(f->ev.n[LOG_EVENT_STOPPED], 1);
	assert_int_equal(f->ev.last_err, -ENOENT);
	/* Retries are quiet until something changes. */
	assert_int_equal(log_writer_service(&f->w, 2500000u), -ENOENT);
	assert_int_equal(f->ev.n[LOG_EVENT_STOPPED], 1);

	/* The directory appears, but the storage is read-only. */
	assert_int_equal(mkdir(parent, 0755), 0);
	fs.open_err = -EROFS;
	assert_int_equal(log_writer_service(&f->w, 4000000u), -EROFS);
	assert_int_equal(f->ev.n[LOG_EVENT_STARTED], 0);

	/* Writable again: a file starts. */
	fs.open_err = 0;
	assert_true(log_writer_service(&f->w, 5500000u) >= 0);
	assert_int_equal(f->ev.n[LOG_EVENT_STARTED], 1);
	struct log_writer_stats st;
	log_writer_get_stats(&f->w, &st);
	assert_int_equal(st.records_lost, 1);
	assert_int_equal(log_writer_fini(&f->w, 6000000u), 0);
	snprintf(path, sizeof path, "%s/1.BIN", dir);
	assert_true(file_exists(path));
	fixture_free(f);
}

/*
 * A producer thread at 2 kHz while the I/O thread is stuck in the storage's write: it
 * never waits. The stall lasts until the producer itself ends it, after RELEASE_AFTER
 * calls refused for a full ring, so every one of the calls counted "held" began and
 * returned while the I/O thread sat inside write(). A producer that waited on the
 * storage, or on anything the I/O thread holds while writing, would never get there:
 * the stall would run into its hang check (HOLD_HANG_CHECK_US) and the test fails. No
 * wall-clock bound decides the verdict, so a busy host cannot (the longest call is
 * printed: a figure, measured 3 us idle on the 2-core development VM).
 */
#define RELEASE_AFTER 100u

struct producer_run {
	struct log_producer *p;
	struct faulty *fs;
	_Atomic bool stop;
	uint64_t max_call_us;
	unsigned calls, refused;
	unsigned held_calls, held_refused;   /* calls made while the I/O thread was held */
};

static void *producer_main(void *arg)
{
	struct producer_run *run = arg;
	struct df_imu imu = { .instance = 1 };
	uint64_t next = mono_us();
	while (!atomic_load(&run->stop)) {
		/* Only this thread sets released: held now means held until after the call. */
		bool held = atomic_load(&run->fs->held) && !atomic_load(&run->fs->released);
		imu.t_us = mono_us();
		uint64_t t0 = mono_us();
		int rc = log_write_imu(run->p, &imu);
		uint64_t dt = mono_us() - t0;
		if (dt > run->max_call_us)
			run->max_call_us = dt;
		run->calls++;
		run->refused += rc == -ENOBUFS;
		if (held) {
			run->held_calls++;
			run->held_refused += rc == -ENOBUFS;
			if (run->held_refused == RELEASE_AFTER)
				atomic_store(&run->fs->released, true);
		}
		next += 500;
		struct timespec ts = { (time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

static void test_log_writer_producers_never_block_on_stalled_storage(void **state)
{
	struct fixture *f = fixture_new();
	struct faulty fs = { .budget = -1 };
	struct producer_run run = { .fs = &fs };
	pthread_t th;
	char path[128];

	f->cfg.ops = &faulty_ops;
	f->cfg.ops_ctx = &fs;
	f->cfg.flush_interval_us = 50000u;
	fixture_start(f);
	run.p = &f->p;
	atomic_init(&run.stop, false);
	assert_int_equal(pthread_create(&th, NULL, producer_main, &run), 0);
	uint64_t longest_service = 0;
	unsigned services = 0, after = 0;
	/* The I/O thread's loop, at 100 Hz: after 20 services (a file open and written),
	 * the next write holds; once released, 20 more drain what queued meanwhile. */
	while (after < 20) {
		if (services == 20)
			atomic_store(&fs.hold, true);
		uint64_t t0 = mono_us();
		log_writer_service(&f->w, t0);
		if (mono_us() - t0 > longest_service)
			longest_service = mono_us() - t0;
		services++;
		if (atomic_load(&fs.released) || fs.hold_timed_out)
			after++;
		struct timespec ts = { 0, 10000000L };
		nanosleep(&ts, NULL);
	}
	atomic_store(&run.stop, true);
	pthread_join(th, NULL);
	print_message("stall: %u calls (%u while the I/O thread was held in write, %u of them "
		      "refused), %u refused in all, longest call %llu us, longest service %llu us\n",
		      run.calls, run.held_calls, run.held_refused, run.refused,
		      (unsigned long long)run.max_call_us, (unsigned long long)longest_service);
	/* The I/O thread was held in the storage, and the producer, not the hang check,
	 * ended it: its calls went on, filled the ring (2 kHz into 16 KiB) and were refused. */
	assert_true(atomic_load(&fs.held));
	assert_false(fs.hold_timed_out);
	assert_true(atomic_load(&fs.released));
	assert_int_equal(run.held_refused, RELEASE_AFTER);
	assert_true(run.held_calls > run.held_refused);
	assert_int_equal(log_writer_dropped(&f->w), run.refused);
	log_writer_service(&f->w, mono_us() + 2000000u);
	assert_true(f->ev.n[LOG_EVENT_DROPS] >= 1);
	assert_int_equal(log_writer_fini(&f->w, mono_us() + 2000000u), 0);

	/* The drops are in the log as DSF.Dp, and every queued record made it. */
	log_path(f, 1, path, sizeof path);
	struct df_reader *r = read_log(path, NULL, NULL);
	assert_true(r->count[DF_ID_DSF] >= 1);
	assert_int_equal(r->count[DF_ID_IMU], run.calls - run.refused);
	assert_int_equal(r->truncated_bytes, 0);
	free(r);
	fixture_free(f);
}

/* ---- compatibility with ArduPilot's own logs ---- */

struct ref_fmts {
	char letters[64];
	struct df_fmt fmt[256];
	bool have[256];
	/* FMTU, UNIT and MULT as the log says them (ids are the log's own) */
	char units[256][17], mults[256][17];
	bool have_fmtu[256];
	char unit_label[128][65];
	double mult[128];
	bool have_unit[128], have_mult[128];
};

static void text_of(const struct df_value *v, char *out, size_t cap)
{
	size_t n = v->v.s.len < cap - 1 ? v->v.s.len : cap - 1;
	memcpy(out, v->v.s.p, n);
	out[n] = '\0';
}

static void collect_fmts(const struct df_reader *r, const struct df_record *rec, void *ctx)
{
	struct ref_fmts *rf = ctx;
	struct df_value v, a, b;
	const char *name = rec->fmt ? rec->fmt->name : "";
	if (strcmp(name, "FMTU") == 0 && df_record_field(rec, 1, &v) == 0 &&
	    df_record_field(rec, 2, &a) == 0 && df_record_field(rec, 3, &b) == 0) {
		text_of(&a, rf->units[v.v.u & 0xff], sizeof rf->units[0]);
		text_of(&b, rf->mults[v.v.u & 0xff], sizeof rf->mults[0]);
		rf->have_fmtu[v.v.u & 0xff] = true;
		return;
	}
	if (strcmp(name, "UNIT") == 0 && df_record_field(rec, 1, &v) == 0 &&
	    df_record_field(rec, 2, &a) == 0) {
		text_of(&a, rf->unit_label[v.v.i & 0x7f], sizeof rf->unit_label[0]);
		rf->have_unit[v.v.i & 0x7f] = true;
		return;
	}
	if (strcmp(name, "MULT") == 0 && df_record_field(rec, 1, &v) == 0 &&
	    df_record_field(rec, 2, &a) == 0) {
		rf->mult[v.v.i & 0x7f] = a.v.d;
		rf->have_mult[v.v.i & 0x7f] = true;
		return;
	}
	if (rec->type != DF_ID_FMT)
		return;
	df_record_field(rec, 0, &v);
	const struct df_fmt *f = &r->fmts[v.v.u];
	for (const char *c = f->format; *c; c++)
		if (!strchr(rf->letters, *c)) {
			size_t n = strlen(rf->letters);
			rf->letters[n] = *c;
			rf->letters[n + 1] = '\0';
		}
	rf->fmt[v.v.u] = *f;
	rf->have[v.v.u] = true;
}

static const struct df_fmt *ref_find(const struct ref_fmts *rf, const char *name)
{
	for (unsigned k = 0; k < 256; k++)
		if (rf->have[k] && strcmp(rf->fmt[k].name, name) == 0)
			return &rf->fmt[k];
	return NULL;
}

static const char *our_unit(char id)
{
	for (size_t k = 0; k < df_unit_count; k++)
		if (df_units[k].id == id)
			return df_units[k].label;
	return NULL;
}

static bool our_mult(char id, double *out)
{
	for (size_t k = 0; k < df_mult_count; k++)
		if (df_mults[k].id == id) {
			*out = df_mults[k].mult;
			return true;
		}
	return false;
}

/* A type's units and multipliers, column by column, are the reference's: compared by
 * what the ids stand for (each log's UNIT and MULT records), not by the ids. */
static void assert_units_as_ref(const struct ref_fmts *rf, const struct df_fmt *ref,
				const struct df_msg_def *ours)
{
	assert_true(rf->have_fmtu[ref->type]);
	const char *ru = rf->units[ref->type], *rm = rf->mults[ref->type];
	assert_int_equal(strlen(ru), strlen(ours->units));
	assert_int_equal(strlen(rm), strlen(ours->mults));
	for (size_t j = 0; ours->units[j]; j++) {
		const char *mine = our_unit(ours->units[j]);
		assert_non_null(mine);
		assert_true(rf->have_unit[ru[j] & 0x7f]);
		if (strcmp(mine, rf->unit_label[ru[j] & 0x7f]) != 0)
			print_message("%s column %zu: unit %s, the reference's %s\n", ours->name, j,
				      mine, rf->unit_label[ru[j] & 0x7f]);
		assert_string_equal(mine, rf->unit_label[ru[j] & 0x7f]);
		double m = 0.0;
		assert_true(our_mult(ours->mults[j], &m));
		assert_true(rf->have_mult[rm[j] & 0x7f]);
		assert_true(m == rf->mult[rm[j] & 0x7f] ||
			    fabs(m - rf->mult[rm[j] & 0x7f]) < 1e-6 * fabs(m));
	}
}

static void test_log_uses_only_what_ardupilot_logs_use(void **state)
{
	static struct ref_fmts modern, plane;
	char path[512];

	snprintf(path, sizeof path, "%s/ArduCopter-4.6.2_amc-backend_log_80k.bin", dataflash_dir);
	assert_int_equal(access(path, R_OK), 0);
	memset(&modern, 0, sizeof modern);
	free(read_log(path, collect_fmts, &modern));
	snprintf(path, sizeof path, "%s/ArduPlane-3.8.2-dev_pymavlink-test.BIN", dataflash_dir);
	assert_int_equal(access(path, R_OK), 0);
	memset(&plane, 0, sizeof plane);
	free(read_log(path, collect_fmts, &plane));

	/* Every letter we write appears in a real log (MULT's 'd' is ArduPilot's own). */
	for (size_t k = 0; k < df_msg_def_count; k++)
		for (const char *c = df_msg_defs[k].format; *c; c++)
			assert_non_null(strchr(modern.letters, *c));
	/* Same name, same layout: these match modern ArduPilot exactly. */
	static const char *same_as_modern[] = {
		"FMT", "UNIT", "MULT", "FMTU", "PARM", "MSG", "MODE", "EV", "ERR", "GPS",
		"IMU", "BARO", "MAG", "POS", "RCIN", "RCOU", "BAT", "CMD", "XKF1", "XKF3",
		"XKF4", "DSF", "XKF2", "ARSP", "VIBE", "POWR", "ORGN",
	};
	for (size_t k = 0; k < sizeof same_as_modern / sizeof same_as_modern[0]; k++) {
		const struct df_fmt *ref = ref_find(&modern, same_as_modern[k]);
		const struct df_msg_def *ours = NULL;
		for (size_t j = 0; j < df_msg_def_count; j++)
			if (strcmp(df_msg_defs[j].name, same_as_modern[k]) == 0)
				ours = &df_msg_defs[j];
		assert_non_null(ours);
		if (!ref) {
			print_message("%s not in the modern log\n", same_as_modern[k]);
			continue;
		}
		assert_string_equal(ours->format, ref->format);
		assert_string_equal(ours->labels, ref->labels);
		assert_int_equal(ours->length, ref->length);
	}
	/* The records added for issue 17 have the reference's units and multipliers too
	 * (the older ones keep fulmar's: some of ArduPilot's are plainly wrong, e.g. ATT's). */
	static const char *same_units_as_modern[] = {
		"XKF1", "XKF2", "ARSP", "VIBE", "POWR", "ORGN", "MAG",
	};
	for (size_t k = 0; k < sizeof same_units_as_modern / sizeof same_units_as_modern[0]; k++) {
		const struct df_fmt *ref = ref_find(&modern, same_units_as_modern[k]);
		const struct df_msg_def *ours = NULL;
		for (size_t j = 0; j < df_msg_def_count; j++)
			if (strcmp(df_msg_defs[j].name, same_units_as_modern[k]) == 0)
				ours = &df_msg_defs[j];
		assert_non_null(ref);
		assert_non_null(ours);
		assert_units_as_ref(&modern, ref, ours);
	}
	/* The copter's records are ArduCopter 4.6's, units and multipliers too (ATT
	 * and CTUN under their names, in the copter's layouts). */
	static const uint8_t copter_ids[] = {
		DF_ID_RATE, DF_ID_PSCN, DF_ID_PSCE, DF_ID_PSCD, DF_ID_CATT, DF_ID_CCTUN, DF_ID_MOTB,
	};
	for (size_t k = 0; k < sizeof copter_ids; k++) {
		const struct df_msg_def *ours = df_msg_def_find(copter_ids[k]);
		assert_non_null(ours);
		const struct df_fmt *ref = ref_find(&modern, ours->name);
		assert_non_null(ref);
		assert_string_equal(ours->format, ref->format);
		assert_string_equal(ours->labels, ref->labels);
		assert_int_equal(ours->length, ref->length);
		assert_units_as_ref(&modern, ref, ours);
	}
	/* Plane's attitude record: the centidegree layout. */
	const struct df_fmt *att = ref_find(&plane, "ATT");
	assert_non_null(att);
	assert_string_equal(df_msg_def_find(DF_ID_ATT)->format, att->format);
	assert_string_equal(df_msg_def_find(DF_ID_ATT)->labels, att->labels);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_struct_members_have_their_letters_sizes),
		cmocka_unit_test(test_log_writer_round_trips_every_logged_type_field_by_field),
		cmocka_unit_test(test_log_writer_numbers_files_per_boot_and_keeps_max_files),
		cmocka_unit_test(test_log_writer_rotates_at_disarm_and_skips_disarmed_time),
		cmocka_unit_test(test_log_writer_syncs_at_disarm_without_rotating),
		cmocka_unit_test(test_log_writer_flushes_periodically_without_a_close),
		cmocka_unit_test(test_log_writer_survives_a_full_disk_and_resumes),
		cmocka_unit_test(test_log_writer_waits_for_a_missing_or_read_only_directory),
		cmocka_unit_test(test_log_writer_producers_never_block_on_stalled_storage),
	};
	const struct CMUnitTest reference_tests[] = {
		cmocka_unit_test(test_log_uses_only_what_ardupilot_logs_use),
	};
	if (!reference_wanted(argc, argv))
		return cmocka_run_group_tests(tests, NULL, NULL);
	if (reference_dir("dataflash", dataflash_dir, sizeof dataflash_dir) < 0)
		return reference_absent(dataflash_dir);
	return cmocka_run_group_tests(reference_tests, NULL, NULL);
}
