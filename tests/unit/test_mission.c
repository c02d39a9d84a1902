// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mission/mission.h"

static struct mission a, b;
static char err[256];
static char text[200000];

static void test_mission_wpl_round_trip_keeps_every_field(void **state)
{
	mission_clear(&a);
	for (int i = 0; i < 20; i++) {
		a.items[i] = (struct mission_item){
			.command = (uint16_t)(i ? 16 : 16), .frame = (uint8_t)(i ? 3 : 0),
			.autocontinue = 1, .param1 = (float)i, .param2 = 2.5f, .param3 = -1,
			.param4 = 0.125f, .x = 522345678 + i * 1001, .y = -1234567 - i * 77,
			.z = 100.25f + (float)i,
		};
	}
	a.count = 20;
	a.current = 3;
	long n = mission_save_wpl(&a, text, sizeof(text));
	assert_true(n > 0);
	assert_memory_equal(text, "QGC WPL 110\n0\t0\t0\t16\t", 21);
	assert_non_null(strstr(text, "52.2345678\t-0.1234567\t"));
	assert_int_equal(mission_load_wpl(&b, text, "t.waypoints", err, sizeof(err)), 0);
	assert_int_equal(b.count, 20);
	assert_int_equal(b.current, 3);
	assert_memory_equal(a.items, b.items, sizeof(a.items[0]) * 20);
}

static void test_mission_wpl_refuses_bad_files_whole(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "QGC WPL 120\n", "m:1: not a \"QGC WPL 110\" file" },
		{ "", "m:1: empty file" },
		{ "QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t52\t13\t100\n", "m:2: expected 12 numbers, found 11" },
		{ "QGC WPL 110\n1\t1\t0\t16\t0\t0\t0\t0\t52\t13\t100\t1\n", "m:2: item 1 where 0 was expected" },
		{ "QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t952\t13\t100\t1\n", "m:2: latitude 952" },
		{ "QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\tnan\t13\t100\t1\n", "m:2: field 9 is not a number" },
		{ "QGC WPL 110\n0\t1\t0\t70000\t0\t0\t0\t0\t52\t13\t100\t1\n", "m:2: frame 0 or command 70000" },
	};
	mission_clear(&b);
	b.count = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mission_load_wpl(&b, bad[i].text, "m", err, sizeof(err)), -EINVAL);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("case %zu: got \"%s\"", i, err);
		assert_int_equal(b.count, 1);  /* untouched */
	}
}

static void test_mission_wpl_refuses_more_items_than_room(void **state)
{
	size_t n = (size_t)snprintf(text, sizeof(text), "QGC WPL 110\n");
	for (int i = 0; i <= MISSION_MAX_ITEMS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d 0 3 16 0 0 0 0 52 13 100 1\n", i);
	assert_int_equal(mission_load_wpl(&b, text, "big", err, sizeof(err)), -ENOSPC);
	char small[20];
	a.count = 3;
	assert_int_equal(mission_save_wpl(&a, small, sizeof(small)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mission_wpl_round_trip_keeps_every_field),
		cmocka_unit_test(test_mission_wpl_refuses_bad_files_whole),
		cmocka_unit_test(test_mission_wpl_refuses_more_items_than_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
