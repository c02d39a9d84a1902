// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mavlink/ftp.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

#define MAX_SENT 1024

struct sent {
	unsigned int n;
	int link[MAX_SENT];
	struct mavlink_file_transfer_protocol m[MAX_SENT];
};

static void on_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	struct sent *s = ctx;
	assert_int_equal(msgid, MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL);
	assert_true(s->n < MAX_SENT);
	s->link[s->n] = link;
	mavlink_file_transfer_protocol_unpack(payload, MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN,
					      &s->m[s->n]);
	s->n++;
}

static const char *const sys_names[] = { "threads.txt", NULL };

static long sys_read(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	if (strcmp(name, "threads.txt") != 0)
		return -ENOENT;
	return snprintf(buf, len, "thread main 400 Hz\n");
}

struct fixture {
	char dir[64], root[96], logs[96];
	struct sent sent;
	struct ftp f;
	uint16_t seq;
	uint8_t log[20000];
};

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	param_init(PARAM_PLANE);
	snprintf(x->dir, sizeof(x->dir), "/tmp/fulmar-ftp-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->root, sizeof(x->root), "%s/ftp", x->dir);
	snprintf(x->logs, sizeof(x->logs), "%s/logs", x->dir);
	assert_int_equal(mkdir(x->root, 0755), 0);
	assert_int_equal(mkdir(x->logs, 0755), 0);
	for (size_t i = 0; i < sizeof(x->log); i++)
		x->log[i] = (uint8_t)(i * 31 + i / 251);
	char path[160];
	snprintf(path, sizeof(path), "%s/3.BIN", x->logs);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(x->log, 1, sizeof(x->log), fp), sizeof(x->log));
	fclose(fp);
	/* Something outside the sandbox, and links to it from inside. */
	snprintf(path, sizeof(path), "%s/secret", x->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("secret", fp);
	fclose(fp);
	char link[200];
	snprintf(link, sizeof(link), "%s/link", x->root);
	assert_int_equal(symlink(path, link), 0);
	snprintf(link, sizeof(link), "%s/up", x->root);
	assert_int_equal(symlink(x->dir, link), 0);
	struct ftp_config cfg = { .root = x->root, .log_dir = x->logs, .sysid = 1, .compid = 1,
				  .sys_read = sys_read, .sys_names = sys_names };
	struct ftp_tx tx = { on_send, &x->sent };
	ftp_init(&x->f, &cfg, &tx);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	ftp_fini(&x->f);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	assert_int_equal(system(cmd), 0);
	free(x);
	return 0;
}

/* Sends a request on link 0 (or link) and returns its one reply. */
static struct ftp_msg request_on(struct fixture *x, int link, uint8_t op, uint8_t session,
				 uint32_t offset, const void *data, size_t size)
{
	struct ftp_msg q = { .seq = x->seq++, .session = session, .opcode = op,
			     .size = (uint8_t)size, .offset = offset };
	if (data)
		memcpy(q.data, data, size < FTP_DATA_MAX ? size : FTP_DATA_MAX);
	struct mavlink_file_transfer_protocol m = { .target_system = 1, .target_component = 1 };
	ftp_msg_pack(&q, m.payload);
	uint8_t p[MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN];
	mavlink_file_transfer_protocol_pack(&m, p);
	unsigned int before = x->sent.n;
	ftp_handle(&x->f, link, 255, 190, p, sizeof(p));
	struct ftp_msg r = { 0 };
	if (x->sent.n == before)
		return r;
	assert_int_equal(x->sent.n, before + 1);
	assert_int_equal(x->sent.link[before], link);
	assert_int_equal(x->sent.m[before].target_system, 255);
	assert_int_equal(x->sent.m[before].target_component, 190);
	ftp_msg_unpack(x->sent.m[before].payload, &r);
	assert_int_equal(r.seq, (uint16_t)(q.seq + 1));
	assert_int_equal(r.req_opcode, op);
	return r;
}

static struct ftp_msg request(struct fixture *x, uint8_t op, uint8_t session, uint32_t offset,
			      const char *path)
{
	return request_on(x, 0, op, session, offset, path, path ? strlen(path) : 0);
}

static void assert_nak(const struct ftp_msg *r, enum ftp_err err)
{
	assert_int_equal(r->opcode, FTP_OP_NAK);
	assert_int_equal(r->data[0], err);
}

/* Reads a whole session with ReadFile; returns the length. */
static size_t read_all(struct fixture *x, uint8_t session, uint8_t *out, size_t max)
{
	size_t got = 0;
	for (;;) {
		struct ftp_msg r = request_on(x, 0, FTP_OP_READ_FILE, session, (uint32_t)got, NULL,
					      FTP_DATA_MAX);
		if (r.opcode == FTP_OP_NAK) {
			assert_nak(&r, FTP_ERR_EOF);
			return got;
		}
		assert_int_equal(r.offset, got);
		assert_true(got + r.size <= max);
		memcpy(out + got, r.data, r.size);
		got += r.size;
	}
}

/* Decodes param.pck, checking each entry against the table as it stands. */
static void check_pck(const uint8_t *b, size_t n, bool defaults, unsigned int *with_default)
{
	assert_true(n >= 6);
	assert_int_equal(b[0] | b[1] << 8, defaults ? 0x671c : 0x671b);
	assert_int_equal(b[2] | b[3] << 8, param_count);
	assert_int_equal(b[4] | b[5] << 8, param_count);
	char name[17] = "";
	size_t pos = 6;
	unsigned int i = 0;
	*with_default = 0;
	while (pos < n) {
		if (b[pos] == 0) {
			pos++;
			continue;
		}
		unsigned int type = b[pos] & 15, flags = b[pos] >> 4;
		unsigned int common = b[pos + 1] & 15, len = (b[pos + 1] >> 4) + 1u;
		assert_true(type >= 1 && type <= 4);
		unsigned int size = type == 1 ? 1 : type == 2 ? 2 : 4;
		size_t entry = 2 + len + size + (flags & 1 ? size : 0);
		/* Never across a 239-byte block. */
		assert_int_equal(pos / FTP_DATA_MAX, (pos + entry - 1) / FTP_DATA_MAX);
		memcpy(name + common, b + pos + 2, len);
		name[common + len] = '\0';
		assert_true(i < param_count);
		assert_string_equal(name, param_defs[i].name);
		const uint8_t *v = b + pos + 2 + len;
		float value;
		if (type == 1) {
			value = (int8_t)v[0];
		} else if (type == 2) {
			value = (int16_t)(v[0] | v[1] << 8);
		} else if (type == 3) {
			value = (float)(int32_t)((uint32_t)v[0] | (uint32_t)v[1] << 8 |
						 (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24);
		} else {
			memcpy(&value, v, 4);
		}
		assert_true(value == param_get((int)i));
		if (flags & 1) {
			assert_true(defaults);
			(*with_default)++;
		}
		pos += entry;
		i++;
	}
	assert_int_equal(i, param_count);
}

static void test_ftp_param_pck_matches_the_table(void **state)
{
	struct fixture *x = *state;
	int idx = param_find("TRIM_ARSPD_CM");
	assert_true(idx >= 0);
	assert_int_equal(param_set(idx, param_defs[idx].def + 100.0f), 0);
	static uint8_t buf[FTP_VFILE_MAX];
	unsigned int with_default;
	struct ftp_msg r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "@PARAM/param.pck");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_int_equal(r.size, 4);
	uint32_t size = (uint32_t)r.data[0] | (uint32_t)r.data[1] << 8 | (uint32_t)r.data[2] << 16;
	size_t n = read_all(x, r.session, buf, sizeof(buf));
	assert_int_equal(n, size);
	check_pck(buf, n, false, &with_default);
	assert_int_equal(with_default, 0);
	request(x, FTP_OP_TERMINATE_SESSION, r.session, 0, NULL);

	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/@PARAM/param.pck?withdefaults=1");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	n = read_all(x, r.session, buf, sizeof(buf));
	check_pck(buf, n, true, &with_default);
	assert_int_equal(with_default, 1);   /* only the one that differs */
}

static void test_ftp_sessions_run_out_and_belong_to_their_link(void **state)
{
	struct fixture *x = *state;
	uint8_t s[FTP_SESSIONS];
	for (unsigned int i = 0; i < FTP_SESSIONS; i++) {
		struct ftp_msg r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
		assert_int_equal(r.opcode, FTP_OP_ACK);
		s[i] = r.session;
	}
	struct ftp_msg r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	assert_nak(&r, FTP_ERR_NO_SESSIONS_AVAILABLE);
	/* Another link cannot read or close this link's session. */
	r = request_on(x, 1, FTP_OP_READ_FILE, s[0], 0, NULL, 10);
	assert_nak(&r, FTP_ERR_INVALID_SESSION);
	r = request_on(x, 1, FTP_OP_TERMINATE_SESSION, s[0], 0, NULL, 0);
	assert_nak(&r, FTP_ERR_INVALID_SESSION);
	r = request(x, FTP_OP_TERMINATE_SESSION, s[0], 0, NULL);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request(x, FTP_OP_READ_FILE, s[0], 0, NULL);
	assert_nak(&r, FTP_ERR_INVALID_SESSION);
	r = request(x, FTP_OP_READ_FILE, 200, 0, NULL);
	assert_nak(&r, FTP_ERR_INVALID_SESSION);
	r = request(x, FTP_OP_RESET_SESSIONS, 0, 0, NULL);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_int_equal(x->f.stats.rejected, 4);
}

/* Sends the same request bytes again, as a ground station does after a time-out. */
static void resend(struct fixture *x)
{
	x->seq--;
}

static void test_ftp_a_repeated_request_gets_the_same_reply(void **state)
{
	struct fixture *x = *state;
	struct ftp_msg r = request(x, FTP_OP_CREATE_FILE, 0, 0, "gone.txt");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	request(x, FTP_OP_TERMINATE_SESSION, r.session, 0, NULL);
	r = request(x, FTP_OP_REMOVE_FILE, 0, 0, "gone.txt");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	resend(x);
	struct ftp_msg again = request(x, FTP_OP_REMOVE_FILE, 0, 0, "gone.txt");
	assert_int_equal(again.opcode, FTP_OP_ACK);   /* not FileNotFound: it was not run twice */
	assert_int_equal(x->f.stats.retries, 1);
	/* A new sequence number is a new request. */
	r = request(x, FTP_OP_REMOVE_FILE, 0, 0, "gone.txt");
	assert_nak(&r, FTP_ERR_FILE_NOT_FOUND);

	/* An open retried takes one session, not two. */
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	resend(x);
	again = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	assert_int_equal(again.session, r.session);
	unsigned int used = 0;
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		used += x->f.session[s].kind != FTP_SESSION_FREE;
	assert_int_equal(used, 1);
}

static void test_ftp_nak_codes(void **state)
{
	struct fixture *x = *state;
	struct ftp_msg r = request(x, 42, 0, 0, NULL);
	assert_nak(&r, FTP_ERR_UNKNOWN_COMMAND);
	static const char big[240] = "x";
	r = request_on(x, 0, FTP_OP_OPEN_FILE_RO, 0, 0, big, sizeof(big));
	assert_nak(&r, FTP_ERR_INVALID_DATA_SIZE);
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/nothing.BIN");
	assert_nak(&r, FTP_ERR_FILE_NOT_FOUND);
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "@PARAM/other");
	assert_nak(&r, FTP_ERR_FILE_NOT_FOUND);
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	uint8_t s = r.session;
	r = request_on(x, 0, FTP_OP_READ_FILE, s, 0, NULL, 0);
	assert_nak(&r, FTP_ERR_INVALID_DATA_SIZE);
	r = request_on(x, 0, FTP_OP_READ_FILE, s, 20000, NULL, 100);
	assert_nak(&r, FTP_ERR_EOF);
	r = request_on(x, 0, FTP_OP_READ_FILE, s, 0xffffffffu, NULL, 100);
	assert_nak(&r, FTP_ERR_EOF);
	r = request_on(x, 0, FTP_OP_WRITE_FILE, s, 0, "abc", 3);
	assert_nak(&r, FTP_ERR_INVALID_SESSION);
	/* The logs and the virtual files are read-only. */
	r = request(x, FTP_OP_CREATE_FILE, 0, 0, "/APM/LOGS/4.BIN");
	assert_nak(&r, FTP_ERR_FILE_PROTECTED);
	r = request(x, FTP_OP_REMOVE_FILE, 0, 0, "/APM/LOGS/3.BIN");
	assert_nak(&r, FTP_ERR_FILE_PROTECTED);
	r = request(x, FTP_OP_REMOVE_FILE, 0, 0, "@PARAM/param.pck");
	assert_nak(&r, FTP_ERR_FILE_PROTECTED);
	r = request(x, FTP_OP_CREATE_DIRECTORY, 0, 0, "d");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request(x, FTP_OP_CREATE_DIRECTORY, 0, 0, "d");
	assert_nak(&r, FTP_ERR_FILE_EXISTS);
	r = request(x, FTP_OP_CREATE_FILE, 0, 0, "d/f");
	request(x, FTP_OP_TERMINATE_SESSION, r.session, 0, NULL);
	r = request(x, FTP_OP_REMOVE_DIRECTORY, 0, 0, "d");
	assert_nak(&r, FTP_ERR_FAIL_ERRNO);
	assert_int_equal(r.size, 2);
	assert_int_equal(r.data[1], ENOTEMPTY);
	r = request_on(x, 0, FTP_OP_RENAME, 0, 0, "d/f", 3);   /* no second name */
	assert_nak(&r, FTP_ERR_INVALID_DATA_SIZE);
	assert_int_equal(x->f.stats.rejected, 5);
}

static void test_ftp_paths_cannot_leave_the_sandbox(void **state)
{
	struct fixture *x = *state;
	static const char *const bad[] = {
		"../secret", "/../secret", "a/../../secret", "/APM/LOGS/../../secret",
		"link", "up/secret", "/up/ftp/../secret",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ftp_msg r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, bad[i]);
		assert_nak(&r, FTP_ERR_FILE_PROTECTED);
		assert_int_equal(x->f.stats.escapes, i + 1);
	}
	struct ftp_msg r = request(x, FTP_OP_CREATE_FILE, 0, 0, "up/new");
	assert_nak(&r, FTP_ERR_FILE_PROTECTED);
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "up");
	assert_nak(&r, FTP_ERR_FILE_PROTECTED);
	char outside[160];
	snprintf(outside, sizeof(outside), "%s/new", x->dir);
	assert_int_not_equal(access(outside, F_OK), 0);
	/* The link itself lists as neither file nor directory. */
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "/");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_null(memmem(r.data, r.size, "Flink", 5));
}

static void test_ftp_lists_the_tree(void **state)
{
	struct fixture *x = *state;
	struct ftp_msg r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "/");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_string_equal((char *)r.data, "D@PARAM");
	assert_non_null(memmem(r.data, r.size, "D@SYS", 6));
	assert_non_null(memmem(r.data, r.size, "DAPM", 5));
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "/APM/LOGS");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_string_equal((char *)r.data, "F3.BIN\t20000");
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 1, "/APM/LOGS");
	assert_nak(&r, FTP_ERR_EOF);
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "@SYS");
	assert_string_equal((char *)r.data, "Fthreads.txt\t0");
	r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "@SYS/threads.txt");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request_on(x, 0, FTP_OP_READ_FILE, r.session, 0, NULL, 100);
	assert_memory_equal(r.data, "thread main", 11);
}

static void test_ftp_burst_read_streams_the_file(void **state)
{
	struct fixture *x = *state;
	struct ftp_msg r = request(x, FTP_OP_OPEN_FILE_RO, 0, 0, "/APM/LOGS/3.BIN");
	uint8_t s = r.session;
	static uint8_t got[20000];
	uint32_t ofs = 0;
	unsigned int bursts = 0;
	uint16_t seq = 0;
	for (bool end = false; !end; bursts++) {
		r = request_on(x, 0, FTP_OP_BURST_READ_FILE, s, ofs, NULL, 0);
		assert_int_equal(r.opcode, 0);   /* no immediate reply: the tick sends */
		seq = (uint16_t)(x->seq);
		for (bool complete = false; !complete;) {
			unsigned int before = x->sent.n;
			/* Paced: never more than asked for. */
			assert_true(ftp_tick(&x->f, 3) <= 3);
			assert_true(x->sent.n - before <= 3);
			for (unsigned int k = before; k < x->sent.n; k++) {
				struct ftp_msg b;
				ftp_msg_unpack(x->sent.m[k].payload, &b);
				assert_int_equal(b.seq, seq++);
				assert_int_equal(b.req_opcode, FTP_OP_BURST_READ_FILE);
				complete = b.burst_complete != 0;
				if (b.opcode == FTP_OP_NAK) {
					assert_nak(&b, FTP_ERR_EOF);
					end = true;
					continue;
				}
				assert_int_equal(b.offset, ofs);
				memcpy(got + ofs, b.data, b.size);
				ofs += b.size;
			}
		}
		assert_true(bursts < 10);
	}
	assert_int_equal(ofs, sizeof(got));
	assert_memory_equal(got, x->log, sizeof(got));
	assert_false(ftp_is_busy(&x->f));
	/* A burst block larger than the data field is refused. */
	r = request_on(x, 0, FTP_OP_BURST_READ_FILE, s, 0, NULL, 240);
	assert_nak(&r, FTP_ERR_INVALID_DATA_SIZE);
}

static void test_ftp_write_rename_truncate_crc(void **state)
{
	struct fixture *x = *state;
	struct ftp_msg r = request(x, FTP_OP_CREATE_FILE, 0, 0, "up.txt");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	uint8_t s = r.session;
	r = request_on(x, 0, FTP_OP_WRITE_FILE, s, 0, x->log, 200);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request_on(x, 0, FTP_OP_WRITE_FILE, s, 200, x->log + 200, 100);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request_on(x, 0, FTP_OP_WRITE_FILE, s, FTP_WRITE_MAX, x->log, 100);
	assert_nak(&r, FTP_ERR_FAIL_ERRNO);
	request(x, FTP_OP_TERMINATE_SESSION, s, 0, NULL);
	char names[] = "up.txt\0/down.txt";
	r = request_on(x, 0, FTP_OP_RENAME, 0, 0, names, sizeof(names) - 1);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request(x, FTP_OP_CALC_FILE_CRC32, 0, 0, "down.txt");
	assert_int_equal(r.opcode, 0);   /* computed by the tick */
	unsigned int before = x->sent.n;
	assert_int_equal(ftp_tick(&x->f, 10), 1);
	ftp_msg_unpack(x->sent.m[before].payload, &r);
	assert_int_equal(r.opcode, FTP_OP_ACK);
	assert_int_equal(r.size, 4);
	uint32_t crc = (uint32_t)r.data[0] | (uint32_t)r.data[1] << 8 |
		       (uint32_t)r.data[2] << 16 | (uint32_t)r.data[3] << 24;
	assert_int_equal(crc, ftp_crc32(0, x->log, 300));
	r = request(x, FTP_OP_TRUNCATE_FILE, 0, 10, "down.txt");
	assert_int_equal(r.opcode, FTP_OP_ACK);
	r = request(x, FTP_OP_LIST_DIRECTORY, 0, 0, "/");
	assert_non_null(memmem(r.data, r.size, "Fdown.txt\t10", 13));
	/* The CRC of "123456789" as zlib's crc32 computes it, without its pre and post xor. */
	assert_int_equal(~ftp_crc32(0xffffffffu, "123456789", 9), 0xcbf43926u);
}

static void test_ftp_others_and_garbage(void **state)
{
	struct fixture *x = *state;
	/* For another system: not answered. */
	struct mavlink_file_transfer_protocol m = { .target_system = 7, .target_component = 1 };
	uint8_t p[MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN];
	mavlink_file_transfer_protocol_pack(&m, p);
	ftp_handle(&x->f, 0, 255, 190, p, sizeof(p));
	assert_int_equal(x->sent.n, 0);
	assert_int_equal(x->f.stats.not_for_us, 1);
	/* Random requests: at most one reply each, never a crash; bursts paced. */
	srand(17);
	for (int i = 0; i < 20000; i++) {
		for (size_t k = 0; k < sizeof(p); k++)
			p[k] = (uint8_t)rand();
		p[1] = (uint8_t)(rand() % 2);
		p[2] = 1;
		p[3 + 3] = (uint8_t)(rand() % 18);          /* mostly real opcodes */
		if (rand() % 2)
			p[3 + 4] = (uint8_t)(rand() % 40);  /* short sizes */
		if (rand() % 2)
			memcpy(p + 3 + 12, "/APM/LOGS/3.BIN", 16);
		unsigned int before = x->sent.n;
		ftp_handle(&x->f, rand() % 10, 255, 190, p, (size_t)(rand() % (int)sizeof(p)));
		assert_true(x->sent.n <= before + 1);
		ftp_tick(&x->f, 2);
		x->sent.n = 0;
	}
	assert_true(x->f.stats.rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ftp_param_pck_matches_the_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_sessions_run_out_and_belong_to_their_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_a_repeated_request_gets_the_same_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_nak_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_paths_cannot_leave_the_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_lists_the_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_burst_read_streams_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_write_rename_truncate_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftp_others_and_garbage, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
