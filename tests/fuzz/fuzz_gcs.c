// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A ground station that says anything: records of (message, payload bytes,
 * time step) become well-formed frames (so the fuzzer need not find CRCs) of
 * every message fulmar knows, from the GCS or from strangers, handled by the
 * ground-station services with their parameters, mission and vehicle.
 * Checked: every parameter stays in its range, the mission within its room
 * and its current item inside it, the vehicle in a real mode and never armed
 * while initialising, and every message sent encodes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_mavlink.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gcs g;
	static struct mission m, fence, rally;
	static struct vehicle v;
	static struct mavlink_parser p;
	static struct mavlink_frame f;
	param_init();
	mission_clear(&m);
	vehicle_init(&v);
	struct gcs_tx tx = { sent, NULL };
	gcs_init(&g, 1, 1, &tx, &m);
	mission_clear(&fence);
	mission_clear(&rally);
	g.fence = &fence;
	g.rally = &rally;
	g.vehicle = &v;
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
		gcs_handle(&g, flags & 3, &f, now);
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
		FUZZ_CHECK(vehicle_mode_name(v.mode) != NULL);
		FUZZ_CHECK(!(v.armed && v.mode == PLANE_INITIALISING));
	}
	return 0;
}
