// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A ground station that says anything: records of (message, payload bytes,
 * time step) become well-formed frames (so the fuzzer need not find CRCs) of
 * every message fulmar knows, from the GCS or from strangers, handled by the
 * ground-station services with their parameters, mission and vehicle.
 * FILE_TRANSFER_PROTOCOL goes to the MAVFTP server (as the daemon hands it
 * to the io thread) over a scratch sandbox made once per process.
 * Checked: every parameter stays in its range, the mission within its room
 * and its current item inside it, the vehicle in a real mode and never armed
 * while initialising, every message sent encodes, and MAVFTP answers each
 * request at most once and paces its bursts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_mavlink.h"
#include "mavlink/ftp.h"
#include "mavlink/gcs.h"
#include "vehicle/fence.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sent(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	struct mavlink_header h = { 2, 0, 1, 1, msgid };
	FUZZ_CHECK(link == GCS_LINK_ALL || (link >= 0 && link < GCS_MAX_LINKS));
	FUZZ_CHECK(mavlink_encode(&h, payload, buf) > 0);
	(void)ctx;
}

static unsigned int ftp_sent;

static void ftp_out(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	ftp_sent++;
	sent(ctx, link, msgid, payload);
}

static char ftp_dir[] = "/tmp/fulmar-fuzz-ftp-XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void ftp_cleanup(void)
{
	nftw(ftp_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A sandbox with a log and a writable area, made once (removed at exit). */
static struct ftp *ftp_server(void)
{
	static struct ftp f;
	static char root[64], logs[64];
	static bool made;
	const char *dir = ftp_dir;
	if (!made) {
		FUZZ_CHECK(mkdtemp(ftp_dir) != NULL);
		atexit(ftp_cleanup);
		snprintf(root, sizeof(root), "%s/ftp", dir);
		snprintf(logs, sizeof(logs), "%s/logs", dir);
		FUZZ_CHECK(mkdir(root, 0755) == 0 && mkdir(logs, 0755) == 0);
		char path[96];
		snprintf(path, sizeof(path), "%s/1.BIN", logs);
		FILE *fp = fopen(path, "wb");
		FUZZ_CHECK(fp != NULL);
		for (int i = 0; i < 3000; i++)
			fputc(i & 0xff, fp);
		fclose(fp);
		made = true;
	} else {
		ftp_fini(&f);
	}
	struct ftp_config cfg = { .root = root, .log_dir = logs, .sysid = 1, .compid = 1 };
	struct ftp_tx tx = { ftp_out, NULL };
	ftp_init(&f, &cfg, &tx);
	return &f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gcs g;
	static struct mission m, fence, rally;
	static struct vehicle v;
	static struct mavlink_parser p;
	static struct mavlink_frame f;
	param_init(PARAM_PLANE);
	mission_clear(&m);
	vehicle_init(&v, VEHICLE_PLANE);
	struct gcs_tx tx = { sent, NULL };
	gcs_init(&g, 1, 1, &tx, &m);
	mission_clear(&fence);
	mission_clear(&rally);
	g.fence = &fence;
	g.rally = &rally;
	g.vehicle = &v;
	struct ftp *ftp = ftp_server();
	uint64_t now = 1000000;
	size_t i = 0;
	while (i + 3 <= size) {
		/* [message][length][flags: link, sender, what the estimator knows][payload...] */
		const struct mavlink_msg_info *info = &mavlink_msg_infos[data[i] % MAVLINK_MSG_COUNT];
		size_t len = data[i + 1];
		uint8_t flags = data[i + 2];
		i += 3;
		if (len > size - i)
			len = size - i;
		uint8_t payload[255] = { 0 };
		memcpy(payload, data + i, len < info->max_len ? len : info->max_len);
		i += len;

		uint8_t buf[MAVLINK_MAX_FRAME_LEN];
		struct mavlink_header h = { 2, 0, (flags & 8) ? 42 : 255, 190, info->id };
		size_t n = mavlink_encode(&h, payload, buf);
		mavlink_parser_init(&p);
		bool got;
		mavlink_parse(&p, buf, n, &f, &got);
		FUZZ_CHECK(got);
		vehicle_update(&v, (flags >> 4) & 7, m.count);
		g.in.state.valid = (flags >> 4) & 7;
		if (f.msgid == MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL) {
			ftp_sent = 0;
			ftp_handle(ftp, flags & 3, f.sysid, f.compid, mavlink_payload(&f), f.len);
			FUZZ_CHECK(ftp_sent <= 1);
			ftp_sent = 0;
			FUZZ_CHECK(ftp_tick(ftp, 4) <= 4 && ftp_sent <= 4);
		} else {
			gcs_handle(&g, flags & 3, &f, now);
		}
		now += (uint64_t)(flags & 0x80 ? 1700000 : 20000);
		gcs_tick(&g, now);

		for (unsigned int k = 0; k < param_count; k++) {
			float x = param_get((int)k);
			FUZZ_CHECK(x >= param_defs[k].min && x <= param_defs[k].max);
		}
		FUZZ_CHECK(m.count <= MISSION_MAX_ITEMS);
		FUZZ_CHECK(m.count == 0 || m.current < m.count);
		uint16_t bad;
		FUZZ_CHECK(fence.count <= FENCE_MAX_ITEMS && rally.count <= RALLY_MAX_ITEMS);
		FUZZ_CHECK(fence_validate(&fence, &bad) == FENCE_RESULT_OK);
		FUZZ_CHECK(vehicle_mode_name(v.kind, v.mode) != NULL);
		FUZZ_CHECK(!(v.armed && v.initialising));
	}
	return 0;
}
