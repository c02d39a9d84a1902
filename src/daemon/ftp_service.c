// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "mavftp"
#include "daemon/ftp_service.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mavlink/ftp.h"
#include "mavlink_msgs.h"
#include "util/log.h"
#include "util/ring.h"

#define REQ_SLOTS 16u          /* main -> io */
#define REPLY_SLOTS 128u       /* io -> main: a burst's worth of 20 ms at ~1.5 MB/s */
#define SEND_PER_WAKE 8u       /* main: replies per loop, 3200/s at 400 Hz */
#define FTP_MSG_LEN MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN

struct ftp_req {
	int16_t link;
	uint8_t sys, comp, len;
	uint8_t payload[FTP_MSG_LEN];
};

struct ftp_reply {
	int16_t link;
	uint8_t payload[FTP_MSG_LEN];
};

static const char *const sys_names[] = { "threads.txt", NULL };

static struct ftp_service {
	bool open;
	struct ftp ftp;                 /* io thread */
	struct sched *sched;
	struct sched_work send_work;    /* main: shed first, like the other GCS work */
	struct links *links;
	char root[PATH_MAX + 8];
	char log_dir[PATH_MAX];
	struct ring req, reply;
	struct ftp_req req_slots[REQ_SLOTS];
	struct ftp_reply reply_slots[REPLY_SLOTS];
	struct ftp_reply held;          /* main: a reply waiting for room on its link */
	bool holding;
} fs;

/* io thread: the server's replies into the ring for main (room was checked by the tick). */
static void reply_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	(void)ctx;
	(void)msgid;
	struct ftp_reply r = { .link = (int16_t)link };
	memcpy(r.payload, payload, FTP_MSG_LEN);
	ring_write(&fs.reply, &r, 1);
}

/* io thread: @SYS/threads.txt, the scheduler's timing report (read with relaxed loads). */
static long sys_read(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	if (strcmp(name, "threads.txt") != 0 || !fs.sched)
		return -ENOENT;
	sched_report(fs.sched, buf, len);
	return (long)strnlen(buf, len);
}

void ftp_service_open(const struct config *cfg, uint8_t sysid, uint8_t compid)
{
	memset(&fs, 0, sizeof(fs));
	snprintf(fs.root, sizeof(fs.root), "%s/ftp", cfg->state_dir);
	snprintf(fs.log_dir, sizeof(fs.log_dir), "%s", cfg->log_dir);
	bool writable = mkdir(fs.root, 0750) == 0 || errno == EEXIST;
	if (!writable)
		log_warn("%s: %s: MAVFTP without a writable area", fs.root, strerror(errno));
	struct ftp_config fc = {
		.root = writable ? fs.root : NULL,
		.log_dir = fs.log_dir[0] ? fs.log_dir : NULL,
		.sysid = sysid, .compid = compid,
		.sys_read = sys_read, .sys_names = sys_names,
	};
	struct ftp_tx tx = { reply_send, NULL };
	ftp_init(&fs.ftp, &fc, &tx);
	ring_init(&fs.req, fs.req_slots, REQ_SLOTS, sizeof(struct ftp_req));
	ring_init(&fs.reply, fs.reply_slots, REPLY_SLOTS, sizeof(struct ftp_reply));
	fs.open = true;
}

bool ftp_service_request(int link, const struct mavlink_frame *f)
{
	if (f->msgid != MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL)
		return false;
	if (!fs.open)
		return true;
	struct ftp_req r = { .link = (int16_t)link, .sys = f->sysid, .comp = f->compid,
			     .len = (uint8_t)(f->len > FTP_MSG_LEN ? FTP_MSG_LEN : f->len) };
	memcpy(r.payload, mavlink_payload(f), r.len);
	ring_write(&fs.req, &r, 1);   /* full: dropped and counted by the ring */
	return true;
}

/* Main thread: up to SEND_PER_WAKE replies, as far as the links have room. */
static void send_replies(struct links *ls)
{
	for (unsigned int i = 0; i < SEND_PER_WAKE; i++) {
		if (!fs.holding && ring_read(&fs.reply, &fs.held, 1) != 1)
			return;
		fs.holding = true;
		/* The link's ring to the uart thread takes it whole or it waits here. */
		if (links_tx_room(ls, fs.held.link) < MAVLINK_MAX_FRAME_LEN)
			return;
		links_send(ls, fs.held.link, MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL, fs.held.payload);
		fs.holding = false;
	}
}

/*
 * main thread, every wake: the replies go out at the loop's rate rather than
 * the GCS services' 50 Hz, a few at a time, so a burst keeps the link's ring
 * fed between two uart polls without a long run of the loop.
 */
static void send_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	(void)now_us;
	if (!fs.open || (!fs.holding && ring_used(&fs.reply) == 0))
		return;
	if (!sched_work_begin(fs.sched, &fs.send_work))
		return;
	send_replies(fs.links);
	sched_work_end(fs.sched, &fs.send_work);
}

/* io thread task: runs the requests and the burst. */
static void ftp_service_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	(void)now_us;
	if (!fs.open)
		return;
	static struct ftp_req r;
	/* Each request has at most one immediate reply: only as many as there is room for. */
	while (ring_free(&fs.reply) > 0 && ring_read(&fs.req, &r, 1) == 1)
		ftp_handle(&fs.ftp, r.link, r.sys, r.comp, r.payload, r.len);
	size_t room = ring_free(&fs.reply);
	if (room)
		ftp_tick(&fs.ftp, (unsigned int)room);
}

int ftp_service_add_tasks(struct sched *s, struct links *ls)
{
	fs.sched = s;
	fs.links = ls;
	fs.send_work = (struct sched_work){ .name = "MAVFTP replies", .thread = SCHED_MAIN,
					    .shed = SCHED_SHED_FIRST, .budget_us = 100,
					    .max_defer_us = 1000000 };
	int rc = sched_add_work(s, &fs.send_work);
	const struct sched_task t[] = {
		{ "mavftp", SCHED_IO, 0, ftp_service_task, NULL },
		{ "mavftp-send", SCHED_MAIN, 0, send_task, NULL },
	};
	for (size_t i = 0; i < 2 && !rc; i++)
		rc = sched_add_task(s, &t[i]);
	return rc;
}

void ftp_service_close(void)
{
	if (!fs.open)
		return;
	const struct ftp_stats *st = &fs.ftp.stats;
	if (st->requests)
		log_info("MAVFTP: %llu requests, %llu retries, %llu refused as malformed, "
			 "%llu escapes refused, %llu bytes read, %llu written",
			 (unsigned long long)st->requests, (unsigned long long)st->retries,
			 (unsigned long long)st->rejected, (unsigned long long)st->escapes,
			 (unsigned long long)st->bytes_read, (unsigned long long)st->bytes_written);
	ftp_fini(&fs.ftp);
	fs.open = false;
}
