// SPDX-License-Identifier: GPL-3.0-or-later
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "log/log_writer.h"

#define DEFAULT_FLUSH_US 250000u
#define DEFAULT_SYNC_US 1000000u
#define DEFAULT_RETRY_US 5000000u
#define DSF_INTERVAL_US 1000000u
/* Room a record may need in the output buffer: its FMT and FMTU, then itself. */
#define RECORD_ROOM (DF_FMT_LEN + DF_FMTU_LEN + DF_MAX_RECORD_LEN)

/* ---- POSIX storage ---- */

static int posix_open(void *ctx, const char *path, bool append)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
	int fd = open(path, flags, 0644);
	return fd < 0 ? -errno : fd;
}

static ssize_t posix_write(void *ctx, int h, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = write(h, buf, len);
		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
	}
}

static int posix_sync(void *ctx, int h)
{
	return fdatasync(h) < 0 ? -errno : 0;
}

static int posix_truncate(void *ctx, int h, off_t len)
{
	return ftruncate(h, len) < 0 ? -errno : 0;
}

static int posix_close(void *ctx, int h)
{
	return close(h) < 0 ? -errno : 0;
}

const struct log_storage_ops log_storage_posix = {
	.open = posix_open,
	.write = posix_write,
	.sync = posix_sync,
	.truncate = posix_truncate,
	.close = posix_close,
};

/* ---- the directory ---- */

unsigned log_number(const char *name)
{
	unsigned n = 0;
	size_t k = 0;
	if (name[0] < '1' || name[0] > '9')
		return 0;
	for (; name[k] >= '0' && name[k] <= '9'; k++) {
		n = n * 10 + (unsigned)(name[k] - '0');
		if (n > LOG_WRITER_MAX_LOG_NUM)
			return 0;
	}
	return strcmp(name + k, ".BIN") == 0 ? n : 0;
}

int log_dir_scan(const char *dir, unsigned *count, unsigned *lowest, unsigned *highest)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	unsigned c = 0, lo = 0, hi = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		unsigned n = log_number(e->d_name);
		if (!n)
			continue;
		c++;
		if (!lo || n < lo)
			lo = n;
		if (n > hi)
			hi = n;
	}
	closedir(d);
	*count = c;
	*lowest = lo;
	*highest = hi;
	return 0;
}

static unsigned read_lastlog(const char *dir)
{
	char path[LOG_WRITER_PATH_MAX + 16], text[16];
	snprintf(path, sizeof path, "%s/LASTLOG.TXT", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	unsigned long v = strtoul(text, NULL, 10);
	return v <= LOG_WRITER_MAX_LOG_NUM ? (unsigned)v : 0;
}

/* ---- helpers ---- */

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void report(struct log_writer *w, enum log_writer_event ev, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void report(struct log_writer *w, enum log_writer_event ev, int err, const char *fmt, ...)
{
	char text[96];
	va_list ap;
	if (!w->cfg.on_status)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	w->cfg.on_status(w->cfg.ctx, ev, err, text);
}

static const char *file_name(const struct log_writer *w)
{
	const char *slash = strrchr(w->path, '/');
	return slash ? slash + 1 : w->path;
}

/* ---- set-up and producers ---- */

int log_writer_init(struct log_writer *w, const struct log_writer_config *cfg)
{
	if (!cfg || !cfg->dir || !cfg->dir[0] || strlen(cfg->dir) >= LOG_WRITER_PATH_MAX ||
	    !cfg->buf || cfg->buf_len < LOG_WRITER_MIN_BUF)
		return -EINVAL;
	memset(w, 0, sizeof *w);
	w->cfg = *cfg;
	if (!w->cfg.ops)
		w->cfg.ops = &log_storage_posix;
	if (!w->cfg.flush_interval_us)
		w->cfg.flush_interval_us = DEFAULT_FLUSH_US;
	if (!w->cfg.sync_interval_us)
		w->cfg.sync_interval_us = DEFAULT_SYNC_US;
	if (!w->cfg.retry_interval_us)
		w->cfg.retry_interval_us = DEFAULT_RETRY_US;
	strcpy(w->dir, cfg->dir);
	w->cfg.dir = w->dir;
	w->out = cfg->buf;
	w->h = -1;
	atomic_init(&w->armed, false);
	for (size_t k = 0; k < df_msg_def_count; k++)
		w->rec_len[df_msg_defs[k].type] = df_msg_defs[k].length;
	w->st.state = LOG_WRITER_IDLE;
	return 0;
}

int log_writer_add_producer(struct log_writer *w, struct log_producer *p, void *storage,
			    uint32_t bytes, const char *name)
{
	if (!storage || bytes < 1024 || (bytes & (bytes - 1)))
		return -EINVAL;
	if (w->nproducers == LOG_WRITER_MAX_PRODUCERS)
		return -ENOSPC;
	memset(p, 0, sizeof *p);
	ring_init(&p->ring, storage, bytes, 1);
	p->writer = w;
	p->free_min = bytes;
	snprintf(p->name, sizeof p->name, "%s", name ? name : "?");
	w->producers[w->nproducers++] = p;
	return 0;
}

int log_write_raw(struct log_producer *p, const uint8_t *rec, size_t len)
{
	/* Only whole records of known types enter a ring: the I/O thread splits the
	 * byte stream by the table's lengths. */
	if (len < DF_HEADER_LEN || rec[0] != DF_HEAD1 || rec[1] != DF_HEAD2 ||
	    p->writer->rec_len[rec[2]] != len)
		return -EINVAL;
	if (ring_free(&p->ring) < len) {
		ring_count_dropped(&p->ring, 1);
		return -ENOBUFS;
	}
	ring_write(&p->ring, rec, len);
	return 0;
}

int log_write(struct log_producer *p, uint8_t type, const void *msg)
{
	uint8_t rec[DF_MAX_RECORD_LEN];
	int n = df_pack_struct(rec, sizeof rec, df_msg_def_find(type), msg);
	if (n < 0)
		return n;
	return log_write_raw(p, rec, (size_t)n);
}

void log_writer_set_armed(struct log_writer *w, bool armed)
{
	atomic_store_explicit(&w->armed, armed, memory_order_release);
}

uint64_t log_writer_dropped(const struct log_writer *w)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < w->nproducers; k++)
		n += ring_dropped(&w->producers[k]->ring);
	return n;
}

void log_writer_get_stats(const struct log_writer *w, struct log_writer_stats *out)
{
	*out = w->st;
	out->records_dropped = log_writer_dropped(w);
}

/* ---- the file ---- */

static void enter_trouble(struct log_writer *w, int err, uint64_t now_us)
{
	bool was_resuming = w->resuming;
	if (w->h >= 0)
		w->cfg.ops->close(w->cfg.ops_ctx, w->h);
	w->h = -1;
	w->st.records_lost += w->out_records;
	/* FMTs in the lost buffer are not in the file: announce those types again. */
	memcpy(w->announced, w->announced_file, sizeof w->announced);
	w->out_len = 0;
	w->out_records = 0;
	w->st.last_err = err;
	w->next_retry_us = now_us + w->cfg.retry_interval_us;
	if (w->st.state != LOG_WRITER_TROUBLE && !was_resuming) {
		w->lost_at_trouble = w->st.records_lost;
		report(w, LOG_EVENT_STOPPED, err, "Log: %s: %s, logging stopped",
		       w->path[0] ? file_name(w) : w->dir, strerror(-err));
	}
	w->st.state = LOG_WRITER_TROUBLE;
}

/* Writes the whole buffer or nothing: a failed write is cut back to the last whole
 * record, so the file always ends on a record boundary a reader can open. */
static int flush_out(struct log_writer *w, uint64_t now_us)
{
	size_t off = 0;
	int err = 0;

	if (w->h < 0 || w->out_len == 0)
		return 0;
	while (off < w->out_len) {
		ssize_t n = w->cfg.ops->write(w->cfg.ops_ctx, w->h, w->out + off, w->out_len - off);
		if (n <= 0) {
			err = n < 0 ? (int)n : -EIO;
			break;
		}
		off += (size_t)n;
	}
	w->st.writes++;
	w->writes_since_dsf++;
	if (err) {
		w->st.write_errors++;
		if (off)
			w->cfg.ops->truncate(w->cfg.ops_ctx, w->h, (off_t)w->st.bytes_file);
		enter_trouble(w, err, now_us);
		return err;
	}
	memcpy(w->announced_file, w->announced, sizeof w->announced);
	w->st.bytes_file += w->out_len;
	w->st.bytes_total += w->out_len;
	w->st.records_written += w->out_records;
	w->unsynced_bytes += w->out_len;
	w->last_write_us = now_us;
	w->out_len = 0;
	w->out_records = 0;
	if (w->resuming) {
		w->resuming = false;
		report(w, LOG_EVENT_RESUMED, 0, "Log: %s resumed, %" PRIu64 " records lost",
		       file_name(w), w->st.records_lost - w->lost_at_trouble);
	}
	return (int)off;
}

static int sync_file(struct log_writer *w, uint64_t now_us)
{
	if (w->h < 0 || w->unsynced_bytes == 0)
		return 0;
	int rc = w->cfg.ops->sync(w->cfg.ops_ctx, w->h);
	w->last_sync_us = now_us;
	if (rc < 0) {
		w->st.write_errors++;
		enter_trouble(w, rc, now_us);
		return rc;
	}
	w->st.syncs++;
	w->unsynced_bytes = 0;
	return 0;
}

/* Appends a whole record, announcing its type first in this file. */
static void put_record(struct log_writer *w, const uint8_t *rec, size_t len, uint64_t now_us)
{
	if (w->out_len + RECORD_ROOM > w->cfg.buf_len)
		flush_out(w, now_us);
	if (w->h < 0) {
		if (w->st.state == LOG_WRITER_TROUBLE)
			w->st.records_lost++;
		return;
	}
	uint8_t type = rec[2];
	if (!w->announced[type]) {
		int n = df_pack_announce(w->out + w->out_len, w->cfg.buf_len - w->out_len, now_us,
					 df_msg_def_find(type));
		if (n < 0) {
			/* A table entry the format cannot express: never write it blind. */
			w->st.records_corrupt++;
			return;
		}
		w->out_len += (size_t)n;
		w->announced[type] = true;
	}
	memcpy(w->out + w->out_len, rec, len);
	w->out_len += len;
	w->out_records++;
}

int log_writer_emit(struct log_writer *w, uint8_t type, const void *msg)
{
	uint8_t rec[DF_MAX_RECORD_LEN];
	if (w->h < 0)
		return -ENODEV;
	int n = df_pack_struct(rec, sizeof rec, df_msg_def_find(type), msg);
	if (n < 0)
		return n;
	uint64_t t_us;
	memcpy(&t_us, msg, sizeof t_us);        /* every message struct starts with t_us */
	put_record(w, rec, (size_t)n, t_us);
	return w->h < 0 ? w->st.last_err : 0;
}

static void emit_text(struct log_writer *w, uint64_t now_us, const char *text)
{
	struct df_msg m = { .t_us = now_us };
	snprintf(m.text, sizeof m.text, "%s", text);
	log_writer_emit(w, DF_ID_MSG, &m);
}

static void write_lastlog(struct log_writer *w, unsigned num)
{
	char path[LOG_WRITER_PATH_MAX + 16], text[16];
	snprintf(path, sizeof path, "%s/LASTLOG.TXT", w->dir);
	int h = w->cfg.ops->open(w->cfg.ops_ctx, path, false);
	if (h < 0)
		return;
	int n = snprintf(text, sizeof text, "%u\r\n", num);
	w->cfg.ops->write(w->cfg.ops_ctx, h, text, (size_t)n);
	w->cfg.ops->close(w->cfg.ops_ctx, h);
}

static void start_file(struct log_writer *w, uint64_t now_us)
{
	memset(w->announced, 0, sizeof w->announced);
	memset(w->announced_file, 0, sizeof w->announced_file);
	w->out_len = 0;
	w->out_records = 0;
	int n = df_pack_preamble(w->out, w->cfg.buf_len, now_us);
	assert(n > 0);
	w->out_len = (size_t)n;
	w->announced[DF_ID_FMT] = w->announced[DF_ID_UNIT] = true;
	w->announced[DF_ID_MULT] = w->announced[DF_ID_FMTU] = true;
	w->st.bytes_file = 0;
	w->unsynced_bytes = 0;
	w->last_write_us = w->last_sync_us = w->last_dsf_us = now_us;
	w->st.state = LOG_WRITER_LOGGING;
	w->started = true;
	char text[64];
	snprintf(text, sizeof text, "fulmar log %u", w->st.file_num);
	emit_text(w, now_us, text);
	if (w->cfg.on_file_start)
		w->cfg.on_file_start(w->cfg.ctx, w, now_us);
}

static int open_new_file(struct log_writer *w, uint64_t now_us)
{
	unsigned count, lo, hi;
	int rc;

	if (mkdir(w->dir, 0755) < 0 && errno != EEXIST) {
		rc = -errno;
		goto err;
	}
	rc = log_dir_scan(w->dir, &count, &lo, &hi);
	if (rc < 0)
		goto err;
	unsigned last = read_lastlog(w->dir);
	if (hi > last)
		last = hi;
	unsigned num = last >= LOG_WRITER_MAX_LOG_NUM ? 1 : last + 1;
	/* Make room: the oldest (lowest numbered) go first. */
	while (w->cfg.max_files && count >= w->cfg.max_files && lo && lo != num) {
		char old[LOG_WRITER_PATH_MAX + 16];
		snprintf(old, sizeof old, "%s/%u.BIN", w->dir, lo);
		if (unlink(old) < 0 && errno != ENOENT)
			break;
		rc = log_dir_scan(w->dir, &count, &lo, &hi);
		if (rc < 0)
			goto err;
	}
	snprintf(w->path, sizeof w->path, "%s/%u.BIN", w->dir, num);
	rc = w->cfg.ops->open(w->cfg.ops_ctx, w->path, false);
	if (rc < 0)
		goto err;
	w->h = rc;
	w->st.file_num = num;
	write_lastlog(w, num);
	start_file(w, now_us);
	report(w, LOG_EVENT_STARTED, 0, "Log: %s started", file_name(w));
	return 0;
err:
	w->path[0] = '\0';
	enter_trouble(w, rc, now_us);
	return rc;
}

/* After trouble: the same file again, appended to, so one flight stays one file. */
static int reopen_file(struct log_writer *w, uint64_t now_us)
{
	int rc = w->cfg.ops->open(w->cfg.ops_ctx, w->path, true);
	if (rc < 0) {
		enter_trouble(w, rc, now_us);
		return rc;
	}
	w->h = rc;
	w->resuming = true;
	w->st.state = LOG_WRITER_LOGGING;
	char text[64];
	snprintf(text, sizeof text, "log resumed, %" PRIu64 " records lost",
		 w->st.records_lost - w->lost_at_trouble);
	emit_text(w, now_us, text);
	return 0;
}

static void close_file(struct log_writer *w, uint64_t now_us)
{
	if (w->h < 0)
		return;
	flush_out(w, now_us);
	sync_file(w, now_us);
	if (w->h < 0)
		return;
	int rc = w->cfg.ops->close(w->cfg.ops_ctx, w->h);
	w->h = -1;
	w->st.state = LOG_WRITER_IDLE;
	w->path[0] = '\0';
	if (rc < 0)
		w->st.write_errors++;
	report(w, LOG_EVENT_CLOSED, rc, "Log: %u.BIN closed, %" PRIu64 " bytes", w->st.file_num,
	       w->st.bytes_file);
}

/* ---- draining ---- */

static void drain_producer(struct log_writer *w, struct log_producer *p, uint64_t now_us,
			   bool keep)
{
	size_t budget = ring_used(&p->ring);
	size_t cap = (size_t)p->ring.mask + 1;
	if (cap - budget < p->free_min)
		p->free_min = cap - budget;

	/* Only what is there now: a producer faster than the storage cannot keep us here. */
	while (budget > 0) {
		size_t room = sizeof w->stage - p->carry_len;
		memcpy(w->stage, p->carry, p->carry_len);
		size_t n = ring_read(&p->ring, w->stage + p->carry_len, budget < room ? budget : room);
		if (n == 0)
			break;
		budget -= n;
		size_t total = p->carry_len + n, off = 0;
		p->carry_len = 0;
		while (off + DF_HEADER_LEN <= total) {
			const uint8_t *rec = w->stage + off;
			size_t len = w->rec_len[rec[2]];
			if (rec[0] != DF_HEAD1 || rec[1] != DF_HEAD2 || len == 0) {
				/* Cannot happen through log_write_raw(); never guess. */
				w->st.records_corrupt++;
				off = total;
				break;
			}
			if (off + len > total)
				break;
			if (keep)
				put_record(w, rec, len, now_us);
			off += len;
		}
		memcpy(p->carry, w->stage + off, total - off);
		p->carry_len = total - off;
	}
}

static void drain_all(struct log_writer *w, uint64_t now_us, bool keep)
{
	for (unsigned k = 0; k < w->nproducers; k++)
		drain_producer(w, w->producers[k], now_us, keep);
}

static void write_dsf(struct log_writer *w, uint64_t now_us, uint64_t dropped)
{
	struct df_dsf d = { .t_us = now_us, .dropped = (uint32_t)dropped,
		.writes = (uint16_t)(w->writes_since_dsf > UINT16_MAX ? UINT16_MAX : w->writes_since_dsf),
		.bytes = (uint32_t)(w->st.bytes_file + w->out_len) };
	uint64_t sum = 0;
	d.free_min = UINT32_MAX;
	for (unsigned k = 0; k < w->nproducers; k++) {
		struct log_producer *p = w->producers[k];
		size_t free_now = (size_t)p->ring.mask + 1 - ring_used(&p->ring);
		if (p->free_min < d.free_min)
			d.free_min = (uint32_t)p->free_min;
		if (free_now > d.free_max)
			d.free_max = (uint32_t)free_now;
		sum += free_now;
		p->free_min = free_now;
	}
	if (w->nproducers)
		d.free_avg = (uint32_t)(sum / w->nproducers);
	else
		d.free_min = 0;
	log_writer_emit(w, DF_ID_DSF, &d);
	w->writes_since_dsf = 0;
	w->last_dsf_us = now_us;
}

/* Once a second: a DSF record, and a status report when producers dropped records. */
static void report_drops(struct log_writer *w, uint64_t now_us)
{
	uint64_t total = 0, fresh = 0;
	const char *who = "";

	if (now_us - w->last_dsf_us < DSF_INTERVAL_US)
		return;
	for (unsigned k = 0; k < w->nproducers; k++) {
		struct log_producer *p = w->producers[k];
		uint64_t d = ring_dropped(&p->ring);
		total += d;
		if (d > p->drops_reported) {
			fresh += d - p->drops_reported;
			who = p->name;
			p->drops_reported = d;
		}
	}
	if (w->h >= 0)
		write_dsf(w, now_us, total);
	w->last_dsf_us = now_us;
	if (fresh)
		report(w, LOG_EVENT_DROPS, -ENOBUFS, "Log: %" PRIu64 " records dropped (%s queue full)",
		       fresh, who);
}

/* After a full disk: whether there is room for two buffers again. Without this the
 * space freed by cutting back the failed write would let logging flap between
 * resumed and stopped at every retry. */
static bool has_room(const struct log_writer *w)
{
	struct statvfs vfs;
	if (statvfs(w->dir, &vfs) < 0)
		return true;            /* cannot tell: let the write decide */
	return (uint64_t)vfs.f_bavail * vfs.f_frsize >= 2 * (uint64_t)w->cfg.buf_len;
}

int log_writer_service(struct log_writer *w, uint64_t now_us)
{
	uint64_t bytes_before = w->st.bytes_total;
	uint64_t t0 = mono_us();
	bool armed = atomic_load_explicit(&w->armed, memory_order_acquire);

	if (armed != w->armed_seen) {
		w->armed_seen = armed;
		if (!armed) {
			/* Disarm: everything so far on the storage, then maybe a new file. */
			drain_all(w, now_us, w->h >= 0);
			if (w->cfg.rotate_on_disarm) {
				close_file(w, now_us);
			} else {
				flush_out(w, now_us);
				sync_file(w, now_us);
			}
		} else if (w->cfg.rotate_on_disarm && w->st.state == LOG_WRITER_IDLE) {
			w->next_retry_us = 0;
		}
	}

	bool want = armed || w->cfg.log_disarmed;
	if (want && w->h < 0 && now_us >= w->next_retry_us) {
		if (w->st.last_err == -ENOSPC && w->st.state == LOG_WRITER_TROUBLE && !has_room(w))
			w->next_retry_us = now_us + w->cfg.retry_interval_us;
		else if (w->st.state == LOG_WRITER_TROUBLE && w->path[0])
			reopen_file(w, now_us);
		else
			open_new_file(w, now_us);
	}

	drain_all(w, now_us, want);
	report_drops(w, now_us);

	if (w->h >= 0 && (w->out_len >= w->cfg.buf_len / 2 ||
			  (w->out_len && now_us - w->last_write_us >= w->cfg.flush_interval_us)))
		flush_out(w, now_us);
	if (w->h >= 0 && w->unsynced_bytes && now_us - w->last_sync_us >= w->cfg.sync_interval_us)
		sync_file(w, now_us);

	uint64_t took = mono_us() - t0;
	if (took > w->st.longest_write_us)
		w->st.longest_write_us = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
	if (w->st.state == LOG_WRITER_TROUBLE)
		return w->st.last_err;
	return (int)(w->st.bytes_total - bytes_before);
}

int log_writer_fini(struct log_writer *w, uint64_t now_us)
{
	drain_all(w, now_us, w->h >= 0);
	report_drops(w, now_us);
	close_file(w, now_us);
	return w->st.state == LOG_WRITER_TROUBLE ? w->st.last_err : 0;
}
