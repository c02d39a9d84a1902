// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mavlink/mavlink_msgs.h"
#include "mavlink/router.h"

static struct router r;
static struct mavlink_frame frame;

static const struct mavlink_frame *make(uint8_t sysid, uint8_t compid, uint32_t msgid,
					const uint8_t *payload)
{
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

static const struct mavlink_frame *heartbeat(uint8_t sysid, uint8_t compid)
{
	uint8_t p[255] = { 0 };
	return make(sysid, compid, MAVLINK_MSG_ID_HEARTBEAT, p);
}

static const struct mavlink_frame *command(uint8_t from, uint8_t to_sys, uint8_t to_comp)
{
	struct mavlink_command_long c = { .command = 400, .target_system = to_sys,
					  .target_component = to_comp };
	uint8_t p[255];
	mavlink_command_long_pack(&c, p);
	return make(from, 190, MAVLINK_MSG_ID_COMMAND_LONG, p);
}

static void test_router_broadcasts_go_everywhere_else_and_to_us(void **state)
{
	router_init(&r, 1, 1);
	bool local;
	uint32_t out = router_route(&r, heartbeat(255, 190), 0, &local);
	assert_true(local);
	assert_int_equal(out & 1, 0);       /* never back where it came from */
	assert_int_equal(out & 0x6, 0x6);
	out = router_route(&r, command(255, 0, 0), 0, &local);
	assert_true(local);
	assert_int_equal(out & 1, 0);
}

static void test_router_addressed_messages_follow_what_was_heard(void **state)
{
	router_init(&r, 1, 1);
	bool local;
	router_route(&r, heartbeat(255, 190), 0, &local);   /* GCS on link 0 */
	router_route(&r, heartbeat(1, 191), 2, &local);     /* companion computer on link 2 */
	router_route(&r, heartbeat(7, 1), 1, &local);       /* another aircraft on link 1 */

	/* GCS to us: ours only. */
	assert_int_equal(router_route(&r, command(255, 1, 1), 0, &local), 0);
	assert_true(local);
	/* GCS to our companion computer: to link 2, not to us. */
	assert_int_equal(router_route(&r, command(255, 1, 191), 0, &local), 1u << 2);
	assert_false(local);
	/* GCS to system 1, any component: us and the companion. */
	assert_int_equal(router_route(&r, command(255, 1, 0), 0, &local), 1u << 2);
	assert_true(local);
	/* Companion to the other aircraft: link 1. */
	assert_int_equal(router_route(&r, command(1, 7, 0), 2, &local), 1u << 1);
	assert_false(local);
	/* To a system nobody has heard: nowhere. */
	assert_int_equal(router_route(&r, command(255, 42, 0), 0, &local), 0);
	assert_false(local);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_router_broadcasts_go_everywhere_else_and_to_us),
		cmocka_unit_test(test_router_addressed_messages_follow_what_was_heard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
