/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink FTP server (src/mavlink/ftp.h) as the daemon runs it: the io
 * thread owns it and every file it touches, the main thread only moves
 * frames. Requests go main -> io in one ring, replies io -> main in another;
 * the main thread sends a reply only when the link's ring to the uart thread
 * has room for it, and the io thread makes burst replies only as fast as its
 * ring empties, so a burst fills neither the link nor the loop. Neither side
 * waits; a request that does not fit is dropped and counted (the ground
 * station asks again).
 */
#ifndef FULMAR_DAEMON_FTP_SERVICE_H
#define FULMAR_DAEMON_FTP_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/links.h"
#include "daemon/scheduler.h"

/*
 * Leader, before the threads: the writable area STATE_DIR/ftp (made when
 * missing; without it, writes are refused) and the logs as /APM/LOGS.
 */
void ftp_service_open(const struct config *cfg, uint8_t sysid, uint8_t compid);
/*
 * Leader, before the threads: the server's io task, the main task that sends
 * its replies on ls, and s's report as @SYS/threads.txt. Returns 0 or -errno.
 */
int ftp_service_add_tasks(struct sched *s, struct links *ls);
/* Main thread: whether f is a FILE_TRANSFER_PROTOCOL (then it is queued for io). */
bool ftp_service_request(int link, const struct mavlink_frame *f);
/* Leader, after the threads. */
void ftp_service_close(void);

#endif
