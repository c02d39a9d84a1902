// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Log download over MAVLink (LOG_REQUEST_LIST, LOG_REQUEST_DATA, LOG_ERASE,
 * LOG_REQUEST_END), as ArduPilot answers them, without sockets: messages come in
 * through log_download_handle() and go out through the tx callback, paced by
 * log_download_tick().
 *
 * Ids: the logs in the directory sorted by number, oldest first, are ids 1..num_logs
 * (last_log_num is the highest file number). An empty directory answers one
 * LOG_ENTRY with id 0 and num_logs 0. LOG_DATA carries 90 bytes; a LOG_DATA with
 * count 0 marks the end of the file.
 *
 * Threads: it reads the log directory and files, so it belongs on the I/O thread
 * (the one that also runs the writer); one thread calls every function.
 */
#ifndef FULMAR_LOG_LOG_DOWNLOAD_H
#define FULMAR_LOG_LOG_DOWNLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log_writer.h"

#define LOG_DOWNLOAD_MAX_LOGS 1024u
#define LOG_DOWNLOAD_CHUNK 90u

/* Where replies go: a packed payload of msgid for one link (gcs_tx's shape). */
struct log_download_tx {
	void (*send)(void *ctx, int link, uint32_t msgid, const uint8_t *payload);
	void *ctx;
};

struct log_download {
	char dir[LOG_WRITER_PATH_MAX];
	struct log_download_tx tx;
	/* The file being written, never erased or sent beyond what it holds; optional. */
	unsigned (*active_log)(void *ctx);
	void *active_ctx;
	/* Snapshot of the directory: log numbers, oldest first. */
	uint16_t nums[LOG_DOWNLOAD_MAX_LOGS];
	unsigned count;
	/* LOG_ENTRY replies still to send. */
	bool listing;
	int list_link;
	unsigned list_next, list_last;     /* ids */
	/* LOG_DATA replies still to send. */
	bool sending;
	int data_link;
	uint16_t data_id;
	int fd;
	uint32_t ofs, end;
	bool to_eof;                       /* the request reaches the end of the file */
	uint64_t bytes_sent;
};

/* dir is copied. -EINVAL for a bad argument. */
int log_download_init(struct log_download *d, const char *dir, const struct log_download_tx *tx,
		      unsigned (*active_log)(void *ctx), void *active_ctx);

/*
 * A message from a ground station: 1 when it was one of the four log messages
 * (acted on), 0 when it is not ours. The replies go out from log_download_tick().
 */
int log_download_handle(struct log_download *d, int link, uint32_t msgid,
			const uint8_t *payload, size_t len);

/* Sends up to max_msgs queued replies; returns how many were sent. */
unsigned log_download_tick(struct log_download *d, unsigned max_msgs);

/* Whether replies are pending (a list or a transfer under way). */
bool log_download_is_busy(const struct log_download *d);

/* Closes an open file. */
void log_download_fini(struct log_download *d);

#endif
