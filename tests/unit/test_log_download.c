// SPDX-License-Identifier: GPL-3.0-or-later
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/log_download.h"
#include "mavlink/mavlink_msgs.h"

/* What went out: every message, in order. */
struct sent {
	unsigned n;
	int link[512];
	uint32_t msgid[512];
	uint8_t payload[512][MAVLINK_MSG_LOG_DATA_MAX_LEN];
};

static void on_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	struct sent *s = ctx;
	assert_true(s->n < 512);
	s->link[s->n] = link;
	s->msgid[s->n] = msgid;
	size_t len = msgid == MAVLINK_MSG_ID_LOG_DATA ? MAVLINK_MSG_LOG_DATA_MAX_LEN
						       : MAVLINK_MSG_LOG_ENTRY_MAX_LEN;
	memcpy(s->payload[s->n], payload, len);
	s->n++;
}

struct fixture {
	char dir[64];
	struct sent sent;
	struct log_download d;
	uint8_t content[6][2000];
	size_t size[6];
	unsigned active;
};

static unsigned active_log(void *ctx)
{
	return ((struct fixture *)ctx)->active;
}

static void write_log(struct fixture *f, unsigned num, size_t size)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%u.BIN", f->dir, num);
	for (size_t k = 0; k < size; k++)
		f->content[num][k] = (uint8_t)(k * 7 + num);
	f->size[num] = size;
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(f->content[num], 1, size, fp), size);
	fclose(fp);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	snprintf(f->dir, sizeof f->dir, "/tmp/fulmar-logdl-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	struct log_download_tx tx = { on_send, &f->sent };
	assert_int_equal(log_download_init(&f->d, f->dir, &tx, active_log, f), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[512];
	log_download_fini(&f->d);
	DIR *d = opendir(f->dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", f->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void request_list(struct fixture *f, uint16_t start, uint16_t end)
{
	struct mavlink_log_request_list m = { 1, 1, start, end };
	uint8_t p[MAVLINK_MSG_LOG_REQUEST_LIST_MAX_LEN];
	mavlink_log_request_list_pack(&m, p);
	assert_int_equal(log_download_handle(&f->d, 2, MAVLINK_MSG_ID_LOG_REQUEST_LIST, p, sizeof p), 1);
}

static void request_data(struct fixture *f, uint16_t id, uint32_t ofs, uint32_t count)
{
	struct mavlink_log_request_data m = { 1, 1, id, ofs, count };
	uint8_t p[MAVLINK_MSG_LOG_REQUEST_DATA_MAX_LEN];
	mavlink_log_request_data_pack(&m, p);
	assert_int_equal(log_download_handle(&f->d, 3, MAVLINK_MSG_ID_LOG_REQUEST_DATA, p, sizeof p), 1);
}

static void simple(struct fixture *f, uint32_t msgid)
{
	uint8_t p[2] = { 1, 1 };
	assert_int_equal(log_download_handle(&f->d, 2, msgid, p, sizeof p), 1);
}

static struct mavlink_log_entry entry(const struct fixture *f, unsigned k)
{
	struct mavlink_log_entry e;
	assert_int_equal(f->sent.msgid[k], MAVLINK_MSG_ID_LOG_ENTRY);
	mavlink_log_entry_unpack(f->sent.payload[k], MAVLINK_MSG_LOG_ENTRY_MAX_LEN, &e);
	return e;
}

static struct mavlink_log_data data(const struct fixture *f, unsigned k)
{
	struct mavlink_log_data m;
	assert_int_equal(f->sent.msgid[k], MAVLINK_MSG_ID_LOG_DATA);
	mavlink_log_data_unpack(f->sent.payload[k], MAVLINK_MSG_LOG_DATA_MAX_LEN, &m);
	return m;
}

static void test_log_download_lists_an_empty_directory_as_no_logs(void **state)
{
	struct fixture *f = *state;
	request_list(f, 0, 0xffff);
	assert_int_equal(log_download_tick(&f->d, 10), 1);
	struct mavlink_log_entry e = entry(f, 0);
	assert_int_equal(e.id, 0);
	assert_int_equal(e.num_logs, 0);
	assert_int_equal(e.last_log_num, 0);
	assert_false(log_download_is_busy(&f->d));
}

static void test_log_download_lists_logs_oldest_first_paced_by_tick(void **state)
{
	struct fixture *f = *state;
	write_log(f, 5, 1000);
	write_log(f, 1, 100);
	write_log(f, 2, 180);
	request_list(f, 0, 0xffff);
	assert_int_equal(log_download_tick(&f->d, 2), 2);
	assert_true(log_download_is_busy(&f->d));
	assert_int_equal(log_download_tick(&f->d, 2), 1);
	assert_int_equal(log_download_tick(&f->d, 2), 0);
	static const unsigned nums[] = { 1, 2, 5 };
	for (unsigned k = 0; k < 3; k++) {
		struct mavlink_log_entry e = entry(f, k);
		assert_int_equal(f->sent.link[k], 2);
		assert_int_equal(e.id, k + 1);
		assert_int_equal(e.num_logs, 3);
		assert_int_equal(e.last_log_num, 5);
		assert_int_equal(e.size, f->size[nums[k]]);
		/* The file's time, UTC seconds: written just now. */
		assert_true(labs((long)e.time_utc - (long)time(NULL)) < 60);
	}
	/* A range: id 2 only. */
	request_list(f, 2, 2);
	assert_int_equal(log_download_tick(&f->d, 10), 1);
	assert_int_equal(entry(f, 3).id, 2);
}

/* Reassembles a transfer, checking the chunks' shape; returns the messages used. */
static unsigned reassemble(struct fixture *f, unsigned from, uint16_t id, uint8_t *out,
			   size_t *len)
{
	unsigned k = from;
	*len = 0;
	for (; k < f->sent.n; k++) {
		struct mavlink_log_data m = data(f, k);
		assert_int_equal(m.id, id);
		assert_int_equal(f->sent.link[k], 3);
		assert_true(m.count <= 90);
		memcpy(out + m.ofs, m.data, m.count);
		if (m.ofs + m.count > *len)
			*len = m.ofs + m.count;
		/* Only the last chunk is short. */
		if (m.count < 90)
			assert_int_equal(k, f->sent.n - 1);
	}
	return k - from;
}

static void test_log_download_sends_a_whole_log_in_90_byte_chunks(void **state)
{
	struct fixture *f = *state;
	static uint8_t got[4000];
	size_t len;

	write_log(f, 1, 100);
	write_log(f, 2, 180);
	write_log(f, 3, 1000);
	request_list(f, 0, 0xffff);
	log_download_tick(&f->d, 10);
	f->sent.n = 0;

	request_data(f, 3, 0, 0xffffffffu);
	/* Paced: at most 4 a tick. */
	unsigned ticks = 0;
	while (log_download_is_busy(&f->d)) {
		assert_true(log_download_tick(&f->d, 4) <= 4);
		ticks++;
	}
	assert_int_equal(reassemble(f, 0, 3, got, &len), 12);   /* 11 × 90 + 10 */
	assert_int_equal(ticks, 3);
	assert_int_equal(len, 1000);
	assert_memory_equal(got, f->content[3], 1000);

	/* Exactly two chunks: an empty one says the file ended. */
	f->sent.n = 0;
	request_data(f, 2, 0, 0xffffffffu);
	log_download_tick(&f->d, 100);
	assert_int_equal(f->sent.n, 3);
	assert_int_equal(data(f, 2).count, 0);
	assert_int_equal(data(f, 2).ofs, 180);
	reassemble(f, 0, 2, got, &len);
	assert_memory_equal(got, f->content[2], 180);

	/* A window inside a file: just those bytes. */
	f->sent.n = 0;
	request_data(f, 3, 50, 100);
	log_download_tick(&f->d, 100);
	assert_int_equal(f->sent.n, 2);
	assert_int_equal(data(f, 0).ofs, 50);
	assert_int_equal(data(f, 1).count, 10);
	assert_memory_equal(data(f, 0).data, f->content[3] + 50, 90);

	/* Past the end: one empty chunk. Unknown id: nothing. */
	f->sent.n = 0;
	request_data(f, 1, 500, 90);
	log_download_tick(&f->d, 100);
	assert_int_equal(f->sent.n, 1);
	assert_int_equal(data(f, 0).count, 0);
	f->sent.n = 0;
	request_data(f, 9, 0, 90);
	assert_int_equal(log_download_tick(&f->d, 100), 0);
}

static void test_log_download_stops_at_request_end(void **state)
{
	struct fixture *f = *state;
	write_log(f, 1, 2000);
	request_data(f, 1, 0, 0xffffffffu);
	assert_int_equal(log_download_tick(&f->d, 3), 3);
	simple(f, MAVLINK_MSG_ID_LOG_REQUEST_END);
	assert_false(log_download_is_busy(&f->d));
	assert_int_equal(log_download_tick(&f->d, 3), 0);
}

static void test_log_download_erase_keeps_the_log_being_written(void **state)
{
	struct fixture *f = *state;
	write_log(f, 1, 10);
	write_log(f, 2, 10);
	write_log(f, 3, 10);
	f->active = 3;
	simple(f, MAVLINK_MSG_ID_LOG_ERASE);
	request_list(f, 0, 0xffff);
	log_download_tick(&f->d, 10);
	assert_int_equal(f->sent.n, 1);
	struct mavlink_log_entry e = entry(f, 0);
	assert_int_equal(e.num_logs, 1);
	assert_int_equal(e.last_log_num, 3);
	assert_int_equal(e.id, 1);
}

static void test_log_download_ignores_other_messages(void **state)
{
	struct fixture *f = *state;
	uint8_t p[32] = { 0 };
	assert_int_equal(log_download_handle(&f->d, 0, MAVLINK_MSG_ID_HEARTBEAT, p, 9), 0);
	assert_int_equal(log_download_tick(&f->d, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_log_download_lists_an_empty_directory_as_no_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_download_lists_logs_oldest_first_paced_by_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_download_sends_a_whole_log_in_90_byte_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_download_stops_at_request_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_download_erase_keeps_the_log_being_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_download_ignores_other_messages, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
