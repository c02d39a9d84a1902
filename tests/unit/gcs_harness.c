// SPDX-License-Identifier: GPL-3.0-or-later
#include "gcs_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "mavlink/mavlink_msgs.h"

struct sent sent[HARNESS_MAX_SENT];
unsigned int n_sent;

void harness_capture(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	assert_true(n_sent < HARNESS_MAX_SENT);
	sent[n_sent].link = link;
	sent[n_sent].msgid = msgid;
	memcpy(sent[n_sent].payload, payload, mavlink_msg_info(msgid)->max_len);
	n_sent++;
	(void)ctx;
}

const struct mavlink_frame *harness_frame(uint8_t sysid, uint8_t compid, uint32_t msgid,
					  const uint8_t *payload)
{
	static struct mavlink_frame frame;
	struct mavlink_parser p;
	mavlink_parser_init(&p);
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	struct mavlink_header h = { 2, 0, sysid, compid, msgid };
	size_t n = mavlink_encode(&h, payload, buf);
	bool got;
	mavlink_parse(&p, buf, n, &frame, &got);
	assert_true(got);
	return &frame;
}

const struct sent *harness_last(uint32_t msgid)
{
	for (unsigned int i = n_sent; i-- > 0;)
		if (sent[i].msgid == msgid)
			return &sent[i];
	return NULL;
}

unsigned int harness_count(int link, uint32_t msgid)
{
	unsigned int c = 0;
	for (unsigned int i = 0; i < n_sent; i++)
		c += sent[i].msgid == msgid && sent[i].link == link;
	return c;
}
