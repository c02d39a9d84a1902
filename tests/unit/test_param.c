// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "param/param.h"
#include "param/param_table.h"

static char err[256];

static int setup(void **state)
{
	param_init(PARAM_PLANE);
	return 0;
}

/* A copter's ground station sees the shared rows and none of the plane's; the
 * plane's table is the shared rows and its own, in the same sorted order. */
static void test_param_rows_of_the_kind_that_flies(void **state)
{
	param_init(PARAM_COPTER);
	unsigned int copter = param_count;
	assert_true(param_find("SYSID_THISMAV") >= 0);
	assert_true(param_find("SERVO1_FUNCTION") >= 0);
	assert_int_equal(param_find("TECS_LAND_SINK"), -1);
	assert_int_equal(param_find("NAVL1_PERIOD"), -1);
	unsigned int shared = 0, plane_rows = 0, copter_rows = 0;
	for (unsigned int i = 0; i < param_table_count; i++) {
		shared += param_table[i].only == PARAM_ALL;
		plane_rows += param_table[i].only == PARAM_PLANE;
		copter_rows += param_table[i].only == PARAM_COPTER;
	}
	assert_int_equal(copter, shared + copter_rows);
	param_init(PARAM_PLANE);
	assert_true(param_find("TECS_LAND_SINK") >= 0);
	assert_int_equal(param_count, shared + plane_rows);
	for (unsigned int i = 1; i < param_count; i++)
		assert_true(strcmp(param_defs[i - 1].name, param_defs[i].name) < 0);
}

/* FNV-1a over bytes. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* The plane's parameters are what they were before the copter's rows came
 * (issue 39: the plane flies byte-identically): the same names, in the same
 * order, with the same types, defaults, ranges and units. The fingerprint
 * was taken from the table as it stood at 0b436ed. Rows that came for a new
 * feature since (each listed below, none of them a row the plane had) are
 * left out of it: they are new, not changed, and the rest must still match. */
#define PLANE_PARAMS_COUNT_BEFORE_COPTER 185u
#define PLANE_PARAMS_FNV_BEFORE_COPTER 0x63c41a72u

static const char *const plane_rows_added_since[] = {
	/* issue 40: the rangefinder */
	"RNGFND1_ADDR", "RNGFND1_GNDCLEAR", "RNGFND1_MAX_CM", "RNGFND1_MIN_CM", "RNGFND1_ORIENT",
	"RNGFND1_POS_X", "RNGFND1_POS_Y", "RNGFND1_POS_Z", "RNGFND1_TYPE", "RNGFND_LANDING",
	"LAND_SLOPE_RCALC",
	/* issue 40: the airspeed sensor's health */
	"ARSPD_OPTIONS", "ARSPD_WIND_GATE", "ARSPD_WIND_MAX", "ARSPD_WIND_WARN", "TECS_SYNAIRSPEED",
};

static bool added_since(const char *name)
{
	for (size_t i = 0; i < sizeof(plane_rows_added_since) / sizeof(plane_rows_added_since[0]); i++)
		if (strcmp(name, plane_rows_added_since[i]) == 0)
			return true;
	return false;
}

static void test_param_plane_set_is_unchanged_by_the_copter(void **state)
{
	param_init(PARAM_PLANE);
	uint32_t h = 2166136261u;
	unsigned int kept = 0, added = 0;
	for (unsigned int i = 0; i < param_count; i++) {
		const struct param_def *d = &param_defs[i];
		if (added_since(d->name)) {
			added++;
			continue;
		}
		kept++;
		h = fnv(h, d->name, strlen(d->name) + 1);
		uint32_t t = (uint32_t)d->type;
		h = fnv(h, &t, sizeof(t));
		h = fnv(h, &d->def, sizeof(d->def));
		h = fnv(h, &d->min, sizeof(d->min));
		h = fnv(h, &d->max, sizeof(d->max));
		h = fnv(h, d->units, strlen(d->units) + 1);
	}
	print_message("plane: %u parameters (%u added since), fingerprint 0x%08x\n", param_count,
		      added, h);
	/* every listed row is in the plane's set: the list says what was added, no more */
	assert_int_equal(added, sizeof(plane_rows_added_since) / sizeof(plane_rows_added_since[0]));
	assert_int_equal(kept, PLANE_PARAMS_COUNT_BEFORE_COPTER);
	assert_int_equal(h, PLANE_PARAMS_FNV_BEFORE_COPTER);
}

static void test_param_find_and_defaults(void **state)
{
	int id = param_find("SYSID_THISMAV");
	assert_true(id >= 0);
	assert_true(param_get(id) == 1.0f);
	assert_true(param_get_by_name("SR0_PARAMS") == 10.0f);
	assert_int_equal(param_find("NO_SUCH_PARAM"), -1);
	assert_int_equal(param_find(""), -1);
	/* MAVLink names are 16 bytes without a NUL when they fill it. */
	char name16[16];
	memcpy(name16, "SCHED_LOOP_RATE", 15);
	name16[15] = 'X';
	assert_int_equal(param_find("SCHED_LOOP_RATEX"), -1);
}

static void test_param_set_checks_range_and_type(void **state)
{
	int id = param_find("SYSID_THISMAV");
	uint32_t g = param_generation();
	assert_int_equal(param_set(id, 42), 0);
	assert_true(param_get(id) == 42.0f);
	assert_int_equal(param_generation(), g + 1);
	assert_int_equal(param_set(id, 42), 0);  /* no change, no new generation */
	assert_int_equal(param_generation(), g + 1);
	assert_int_equal(param_set(id, 300), -ERANGE);
	assert_int_equal(param_set(id, 0), -ERANGE);
	assert_int_equal(param_set(id, 2.5f), -EINVAL);
	assert_int_equal(param_set(id, NAN), -EINVAL);
	assert_true(param_get(id) == 42.0f);
}

static void test_param_load_text_applies_all_or_nothing(void **state)
{
	unsigned int unknown;
	assert_int_equal(param_load_text("# a Mission Planner file\n"
					 "SYSID_THISMAV,7\n"
					 "SR0_EXTRA1 4  # spaces work too\n"
					 "SR1_EXTRA1\t2\n"
					 "ANGLE_MAX,4500\n"
					 "\n",
					 "a.param", &unknown, err, sizeof(err)),
			 0);
	assert_int_equal(unknown, 1);
	assert_true(param_get_by_name("SYSID_THISMAV") == 7.0f);
	assert_true(param_get_by_name("SR0_EXTRA1") == 4.0f);
	assert_true(param_get_by_name("SR1_EXTRA1") == 2.0f);

	static const struct { const char *text, *msg; } bad[] = {
		{ "SYSID_THISMAV,9\nSR0_EXTRA1,x\n", "b.param:2: 'x' is not a number" },
		{ "SYSID_THISMAV,9\nSR0_EXTRA1,99\n", "b.param:2: SR0_EXTRA1 = 99 is outside 0..50" },
		{ "SYSID_THISMAV,9\nSYSID_THISMAV,10\n", "b.param:2: SYSID_THISMAV is set twice" },
		{ "SYSID_THISMAV\n", "b.param:1: expected NAME,VALUE" },
		{ "SYSID_THISMAV,9.5\n", "b.param:1: SYSID_THISMAV = 9.5 is not a valid whole number" },
		{ "A_NAME_LONGER_THAN_16,1\n", "b.param:1: name longer than 16" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(param_load_text(bad[i].text, "b.param", &unknown, err, sizeof(err)),
				 -EINVAL);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("case %zu: got \"%s\"", i, err);
		/* Nothing half-applied: the first line's 9 never landed. */
		assert_true(param_get_by_name("SYSID_THISMAV") == 7.0f);
	}
}

static void test_param_save_text_reads_back_the_same(void **state)
{
	param_set(param_find("SR2_POSITION"), 3);
	static char buf[65536];
	long n = param_save_text(buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, "SR2_POSITION,3\n"));
	param_init(PARAM_PLANE);
	unsigned int unknown;
	assert_int_equal(param_load_text(buf, "saved", &unknown, err, sizeof(err)), 0);
	assert_int_equal(unknown, 0);
	assert_true(param_get_by_name("SR2_POSITION") == 3.0f);
	char small[16];
	assert_int_equal(param_save_text(small, sizeof(small)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_param_find_and_defaults, setup),
		cmocka_unit_test_setup(test_param_set_checks_range_and_type, setup),
		cmocka_unit_test_setup(test_param_load_text_applies_all_or_nothing, setup),
		cmocka_unit_test_setup(test_param_save_text_reads_back_the_same, setup),
		cmocka_unit_test(test_param_rows_of_the_kind_that_flies),
		cmocka_unit_test(test_param_plane_set_is_unchanged_by_the_copter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
