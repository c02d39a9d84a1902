// SPDX-License-Identifier: GPL-3.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/log_download.h"
#include "mavlink/mavlink_msgs.h"

int log_download_init(struct log_download *d, const char *dir, const struct log_download_tx *tx,
		      unsigned (*active_log)(void *ctx), void *active_ctx)
{
	if (!dir || !tx || !tx->send || strlen(dir) >= sizeof d->dir)
		return -EINVAL;
	memset(d, 0, sizeof *d);
	strcpy(d->dir, dir);
	d->tx = *tx;
	d->active_log = active_log;
	d->active_ctx = active_ctx;
	d->fd = -1;
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static void scan(struct log_download *d)
{
	d->count = 0;
	DIR *dir = opendir(d->dir);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL && d->count < LOG_DOWNLOAD_MAX_LOGS) {
		unsigned n = log_number(e->d_name);
		if (n)
			d->nums[d->count++] = (uint16_t)n;
	}
	closedir(dir);
	qsort(d->nums, d->count, sizeof d->nums[0], cmp_u16);
}

static void path_of(const struct log_download *d, unsigned num, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%u.BIN", d->dir, num);
}

static void stop_sending(struct log_download *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	d->sending = false;
}

static void start_list(struct log_download *d, int link, const uint8_t *payload, size_t len)
{
	struct mavlink_log_request_list m;
	mavlink_log_request_list_unpack(payload, len, &m);
	scan(d);
	d->listing = true;
	d->list_link = link;
	if (d->count == 0) {
		d->list_next = 0;           /* the one "no logs" entry */
		d->list_last = 0;
		return;
	}
	unsigned first = m.start ? m.start : 1;
	unsigned last = m.end < d->count ? m.end : d->count;
	if (first > last) {
		d->listing = false;
		return;
	}
	d->list_next = first;
	d->list_last = last;
}

static void start_data(struct log_download *d, int link, const uint8_t *payload, size_t len)
{
	struct mavlink_log_request_data m;
	char path[LOG_WRITER_PATH_MAX + 16];
	struct stat st;

	mavlink_log_request_data_unpack(payload, len, &m);
	if (d->count == 0)
		scan(d);
	stop_sending(d);
	if (m.id == 0 || m.id > d->count)
		return;
	path_of(d, d->nums[m.id - 1], path, sizeof path);
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return;
	if (fstat(d->fd, &st) < 0) {
		stop_sending(d);
		return;
	}
	/* A file still growing is sent as far as it is now. */
	uint64_t size = (uint64_t)st.st_size;
	if (size > UINT32_MAX)
		size = UINT32_MAX;
	uint64_t end = (uint64_t)m.ofs + m.count;
	d->ofs = m.ofs;
	d->end = (uint32_t)(end < size ? end : size);
	d->to_eof = end >= size;
	d->data_id = m.id;
	d->data_link = link;
	d->sending = true;
}

static void erase_all(struct log_download *d)
{
	char path[LOG_WRITER_PATH_MAX + 16];
	unsigned active = d->active_log ? d->active_log(d->active_ctx) : 0;

	stop_sending(d);
	d->listing = false;
	scan(d);
	for (unsigned k = 0; k < d->count; k++) {
		if (d->nums[k] == active)
			continue;
		path_of(d, d->nums[k], path, sizeof path);
		unlink(path);
	}
	scan(d);
}

int log_download_handle(struct log_download *d, int link, uint32_t msgid,
			const uint8_t *payload, size_t len)
{
	switch (msgid) {
	case MAVLINK_MSG_ID_LOG_REQUEST_LIST:
		start_list(d, link, payload, len);
		return 1;
	case MAVLINK_MSG_ID_LOG_REQUEST_DATA:
		start_data(d, link, payload, len);
		return 1;
	case MAVLINK_MSG_ID_LOG_ERASE:
		erase_all(d);
		return 1;
	case MAVLINK_MSG_ID_LOG_REQUEST_END:
		stop_sending(d);
		d->listing = false;
		return 1;
	default:
		return 0;
	}
}

static void send_entry(struct log_download *d)
{
	struct mavlink_log_entry e = { 0 };
	uint8_t payload[MAVLINK_MSG_LOG_ENTRY_MAX_LEN];

	e.num_logs = (uint16_t)d->count;
	e.last_log_num = d->count ? d->nums[d->count - 1] : 0;
	if (d->count) {
		char path[LOG_WRITER_PATH_MAX + 16];
		struct stat st;
		e.id = (uint16_t)d->list_next;
		path_of(d, d->nums[d->list_next - 1], path, sizeof path);
		if (stat(path, &st) == 0) {
			e.size = st.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)st.st_size;
			e.time_utc = st.st_mtime > 0 ? (uint32_t)st.st_mtime : 0;
		}
	}
	mavlink_log_entry_pack(&e, payload);
	d->tx.send(d->tx.ctx, d->list_link, MAVLINK_MSG_ID_LOG_ENTRY, payload);
	if (d->list_next >= d->list_last)
		d->listing = false;
	else
		d->list_next++;
}

static void send_data(struct log_download *d)
{
	struct mavlink_log_data m = { .id = d->data_id, .ofs = d->ofs };
	uint8_t payload[MAVLINK_MSG_LOG_DATA_MAX_LEN];
	size_t want = d->end > d->ofs ? d->end - d->ofs : 0;

	if (want > LOG_DOWNLOAD_CHUNK)
		want = LOG_DOWNLOAD_CHUNK;
	ssize_t n = want ? pread(d->fd, m.data, want, (off_t)d->ofs) : 0;
	if (n < 0)
		n = 0;
	m.count = (uint8_t)n;
	mavlink_log_data_pack(&m, payload);
	d->tx.send(d->tx.ctx, d->data_link, MAVLINK_MSG_ID_LOG_DATA, payload);
	d->ofs += (uint32_t)n;
	d->bytes_sent += (uint64_t)n;
	/* A short or empty chunk ends the transfer; a request that ran to the end of
	 * the file on a whole chunk gets one empty chunk more, which says so. */
	if (n < (ssize_t)LOG_DOWNLOAD_CHUNK || (d->ofs >= d->end && !d->to_eof))
		stop_sending(d);
}

unsigned log_download_tick(struct log_download *d, unsigned max_msgs)
{
	unsigned sent = 0;
	while (sent < max_msgs && (d->listing || d->sending)) {
		if (d->listing)
			send_entry(d);
		else
			send_data(d);
		sent++;
	}
	return sent;
}

bool log_download_is_busy(const struct log_download *d)
{
	return d->listing || d->sending;
}

void log_download_fini(struct log_download *d)
{
	stop_sending(d);
	d->listing = false;
}
