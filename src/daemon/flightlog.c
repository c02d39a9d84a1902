// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "flightlog"
#include "daemon/flightlog.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/scheduler.h"
#include "log/log_download.h"
#include "mavlink_msgs.h"
#include "param/param.h"
#include "util/log.h"

#define MAIN_RING_BYTES (64u * 1024u)
#define OUT_BUF_BYTES (64u * 1024u)
#define REQ_SLOTS 16u                   /* main -> io */
#define REPLY_SLOTS 64u                 /* io -> main */
#define REPLIES_PER_TICK 20u

static struct flightlog {
	bool open;
	struct log_writer w;
	struct log_producer main;
	uint8_t main_ring[MAIN_RING_BYTES];
	uint8_t out[OUT_BUF_BYTES];
	char version[64];           /* fits a MSG record */
	bool download;
	struct log_download dl;     /* io thread */
	struct ring req, reply;
	struct flightlog_msg req_slots[REQ_SLOTS], reply_slots[REPLY_SLOTS];
	uint64_t pmt_last_us;       /* io thread: when PMT records were last written; 0: never */
	struct sched_figures pmt_prev[SCHED_THREAD_COUNT];
} fl;

#define PMT_EVERY_US 10000000u  /* as PM */

/* io thread: log_download's replies into the ring for main. */
static void reply_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	(void)ctx;
	struct flightlog_msg m = { .link = (int16_t)link, .msgid = msgid,
				   .len = (uint8_t)mavlink_msg_info(msgid)->max_len };
	memcpy(m.payload, payload, m.len);
	ring_write(&fl.reply, &m, 1);
}

/* io thread: the file being written (never erased, sent only as far as it is written). */
static unsigned int active_log(void *ctx)
{
	(void)ctx;
	struct log_writer_stats st;
	log_writer_get_stats(&fl.w, &st);
	return st.state == LOG_WRITER_LOGGING ? st.file_num : 0;
}

static void on_status(void *ctx, enum log_writer_event ev, int err, const char *text)
{
	(void)ctx;
	if (ev == LOG_EVENT_STOPPED || ev == LOG_EVENT_DROPS)
		log_warn("%s%s%s", text, err ? ": " : "", err ? strerror(-err) : "");
	else
		log_info("%s", text);
}

/* Every file begins with what the flight was flown with. */
static void on_file_start(void *ctx, struct log_writer *w, uint64_t now_us)
{
	(void)ctx;
	struct df_msg m = { .t_us = now_us };
	memcpy(m.text, fl.version, sizeof(fl.version));
	log_writer_emit(w, DF_ID_MSG, &m);
	for (unsigned int i = 0; i < param_count; i++) {
		struct df_parm p = { .t_us = now_us, .value = param_get((int)i),
				     .default_value = param_defs[i].def };
		snprintf(p.name, sizeof(p.name), "%s", param_defs[i].name);
		log_writer_emit(w, DF_ID_PARM, &p);
	}
}

int flightlog_open(const char *dir, const char *version)
{
	memset(&fl, 0, sizeof(fl));
	snprintf(fl.version, sizeof(fl.version), "%s", version);
	if (!((int)param_get_by_name("LOG_BACKEND_TYPE") & 1)) {
		log_info("flight log off (LOG_BACKEND_TYPE)");
		return 0;
	}
	struct log_writer_config cfg = {
		.dir = dir,
		.max_files = (unsigned int)param_get_by_name("LOG_MAX_FILES"),
		.log_disarmed = param_get_by_name("LOG_DISARMED") != 0.0f,
		.rotate_on_disarm = param_get_by_name("LOG_FILE_DSRMROT") != 0.0f,
		.buf = fl.out,
		.buf_len = sizeof(fl.out),
		.on_status = on_status,
		.on_file_start = on_file_start,
	};
	int rc = log_writer_init(&fl.w, &cfg);
	if (!rc)
		rc = log_writer_add_producer(&fl.w, &fl.main, fl.main_ring, sizeof(fl.main_ring),
					     "main");
	if (rc) {
		log_warn("flight log in %s: %s: flying without a log", dir, strerror(-rc));
		return rc;
	}
	fl.open = true;
	ring_init(&fl.req, fl.req_slots, REQ_SLOTS, sizeof(struct flightlog_msg));
	ring_init(&fl.reply, fl.reply_slots, REPLY_SLOTS, sizeof(struct flightlog_msg));
	struct log_download_tx tx = { reply_send, NULL };
	fl.download = log_download_init(&fl.dl, dir, &tx, active_log, NULL) == 0;
	log_info("flight log in %s", dir);
	return 0;
}

struct log_producer *flightlog_main(void)
{
	return fl.open ? &fl.main : NULL;
}

void flightlog_set_armed(bool armed)
{
	if (fl.open)
		log_writer_set_armed(&fl.w, armed);
}

bool flightlog_request(int link, uint32_t msgid, const uint8_t *payload, size_t len)
{
	if (msgid != MAVLINK_MSG_ID_LOG_REQUEST_LIST && msgid != MAVLINK_MSG_ID_LOG_REQUEST_DATA &&
	    msgid != MAVLINK_MSG_ID_LOG_ERASE && msgid != MAVLINK_MSG_ID_LOG_REQUEST_END)
		return false;
	if (!fl.open || !fl.download)
		return true;            /* no logs here: nothing to answer with */
	struct flightlog_msg m = { .link = (int16_t)link, .msgid = msgid,
				   .len = (uint8_t)(len > FLIGHTLOG_MSG_MAX ? FLIGHTLOG_MSG_MAX : len) };
	memcpy(m.payload, payload, m.len);
	ring_write(&fl.req, &m, 1);
	return true;
}

bool flightlog_reply(struct flightlog_msg *out)
{
	return fl.open && ring_read(&fl.reply, out, 1) == 1;
}

/* The scheduler's late loops as LATE records (dropped with no file open: counted there). */
static void log_late_loops(struct sched *s)
{
	struct sched_late l;
	while (sched_late_take(s, &l)) {
		struct df_late r = { .t_us = l.start_ns / 1000u, .thread = l.thread, .cause = l.cause,
				     .period_us = l.period_us, .interval_us = l.interval_us,
				     .late_us = l.late_us, .run_us = l.run_us, .task_us = l.task_us,
				     .run_delay_us = l.run_delay_us, .cpu_us = l.cpu_us,
				     .nvcsw = l.nvcsw, .nivcsw = l.nivcsw, .minflt = l.minflt,
				     .majflt = l.majflt };
		_Static_assert(sizeof(r.task) == sizeof(l.task), "LATE's Task holds a task's name");
		memcpy(r.task, l.task, sizeof(r.task));
		log_writer_emit(&fl.w, DF_ID_LATE, &r);
	}
}

static uint16_t sat16(uint64_t v)
{
	return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

static uint32_t us32(uint64_t ns)
{
	return ns / 1000u > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000u);
}

/*
 * Every 10 s, a PMT record per thread: its loops since the last, those over
 * 1.5x and 2x, and the window's worst (sched_window_take: this is its one
 * reader). The first call only starts the window.
 */
static void log_thread_windows(struct sched *s, uint64_t now_us)
{
	if (fl.pmt_last_us && now_us - fl.pmt_last_us < PMT_EVERY_US)
		return;
	/* Until a file is being written (the arming opens one), each window only restarts:
	 * the first record then covers what the file's LATE records cover. */
	struct log_writer_stats st;
	log_writer_get_stats(&fl.w, &st);
	bool first = fl.pmt_last_us == 0 || st.state != LOG_WRITER_LOGGING;
	fl.pmt_last_us = now_us ? now_us : 1;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		enum sched_thread_id id = (enum sched_thread_id)i;
		struct sched_figures f, *prev = &fl.pmt_prev[i];
		struct sched_window w;
		sched_figures_read(s, id, &f);
		sched_window_take(s, id, &w);
		if (!first) {
			struct df_pmt r = {
				.t_us = now_us, .thread = (uint8_t)i,
				.n_loop = (uint32_t)(f.loops - prev->loops),
				.n_long = sat16(f.overruns_1_5x - prev->overruns_1_5x),
				.n_late = sat16(f.overruns_2x - prev->overruns_2x),
				.max_i_us = us32(w.interval_max_ns), .max_w_us = us32(w.wake_max_ns),
				.max_r_us = us32(w.run_max_ns),
				.load_permille = sat16(sched_load_permille(s, id, prev, &f)),
			};
			log_writer_emit(&fl.w, DF_ID_PMT, &r);
		}
		*prev = f;
	}
}

void flightlog_task(void *ctx, uint64_t now_us)
{
	if (!fl.open)
		return;
	if (ctx) {
		log_late_loops(ctx);
		log_thread_windows(ctx, now_us);
	}
	log_writer_service(&fl.w, now_us);
	if (!fl.download)
		return;
	struct flightlog_msg m;
	while (ring_read(&fl.req, &m, 1) == 1)
		log_download_handle(&fl.dl, m.link, m.msgid, m.payload, m.len);
	size_t room = ring_free(&fl.reply);
	if (room)
		log_download_tick(&fl.dl, room < REPLIES_PER_TICK ? (unsigned int)room : REPLIES_PER_TICK);
}

void flightlog_close(uint64_t now_us)
{
	if (!fl.open)
		return;
	if (fl.download)
		log_download_fini(&fl.dl);
	int rc = log_writer_fini(&fl.w, now_us);
	struct log_writer_stats st;
	log_writer_get_stats(&fl.w, &st);
	if (rc)
		log_warn("flight log: closing: %s", strerror(-rc));
	if (st.file_num)
		log_info("flight log: %u.BIN, %llu records, %llu dropped, %llu lost", st.file_num,
			 (unsigned long long)st.records_written,
			 (unsigned long long)st.records_dropped,
			 (unsigned long long)st.records_lost);
	fl.open = false;
}
