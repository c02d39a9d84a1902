/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flight log (DataFlash .BIN files, src/log/log_writer.h) as the daemon
 * runs it: one producer ring for the main thread's records, the writer
 * serviced on the io thread (the only thread that touches the file), every
 * parameter and a version message at the start of each file. A directory
 * that cannot be written is said and the flight goes on without a log.
 */
#ifndef FULMAR_DAEMON_FLIGHTLOG_H
#define FULMAR_DAEMON_FLIGHTLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "log/log_writer.h"

/* Leader, before the threads: the writer on dir (LOG_MAX_FILES kept). Returns 0 or -errno. */
int flightlog_open(const char *dir, const char *version);
/* Main thread's producer, or NULL when there is no log. */
struct log_producer *flightlog_main(void);
/* Any thread: armed or not (the writer keeps files per arming). */
void flightlog_set_armed(bool armed);
/*
 * io thread task: writes what the rings hold, and a LATE record for each late
 * loop the scheduler ctx (a struct sched; NULL: none) has seen since.
 */
void flightlog_task(void *ctx, uint64_t now_us);
/*
 * Log download (LOG_REQUEST_LIST/DATA, LOG_ERASE, LOG_REQUEST_END): the io
 * thread reads the files, so the main thread's ground-station code hands the
 * requests over and sends the replies the io thread leaves for it. Neither
 * side waits; what does not fit is dropped and counted (the ground station
 * asks again, as they all do).
 */
#define FLIGHTLOG_MSG_MAX 255
struct flightlog_msg {
	int16_t link;
	uint8_t len;
	uint32_t msgid;
	uint8_t payload[FLIGHTLOG_MSG_MAX];
};
/* Main thread: whether msgid is a log-download message (then it is queued for io). */
bool flightlog_request(int link, uint32_t msgid, const uint8_t *payload, size_t len);
/* Main thread: the next reply to send, false when none. */
bool flightlog_reply(struct flightlog_msg *out);
/* Leader, after the threads: the rest written, synced, closed. */
void flightlog_close(uint64_t now_us);

#endif
