// SPDX-License-Identifier: GPL-3.0-or-later
/* tools/sim fault time-line parser: every event, comments, ordering, and
 * file:line errors for bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "faults.h"

static struct sim_timeline tl;

static int parse(const char *text, char *err, size_t err_len)
{
	sim_timeline_init(&tl);
	return sim_timeline_parse(&tl, text, strlen(text), "flight.txt", err, err_len);
}

static void test_sim_timeline_reads_every_event_and_skips_comments(void **state)
{
	const char *text =
		"# a test flight\n"
		"\n"
		"2.5 throw            # the hand launch\n"
		"  3   rc 8=1800 3=1100\n"
		"4 rc off\n"
		"4.5 rc on\r\n"
		"5 rc_loss 2\n"
		"6 gps_loss 10\n"
		"7 gps_glitch 3 100 -50\n"
		"8 freeze baro 4\n"
		"9 dropout imu 0.5\n"
		"10 bias gyro 1 -2 0.5\n"
		"10 bias baro 120\n"
		"11 link_loss 1.5\n"
		"12 motor_fail 0\n"
		"13 wind 8 270\n";
	char err[160] = "";
	assert_int_equal(parse(text, err, sizeof(err)), 0);
	assert_int_equal(tl.count, 14);
	assert_int_equal(tl.ev[0].kind, SIM_EV_THROW);
	assert_int_equal(tl.ev[0].t_us, 2500000);
	assert_string_equal(tl.ev[0].text, "throw");
	assert_int_equal(tl.ev[1].kind, SIM_EV_RC_SET);
	assert_int_equal(tl.ev[1].rc_pwm_us[7], 1800);
	assert_int_equal(tl.ev[1].rc_pwm_us[2], 1100);
	assert_int_equal(tl.ev[1].rc_pwm_us[0], 0);
	assert_string_equal(tl.ev[1].text, "rc 8=1800 3=1100");
	assert_int_equal(tl.ev[2].kind, SIM_EV_RC_OFF);
	assert_int_equal(tl.ev[3].kind, SIM_EV_RC_ON);
	assert_int_equal(tl.ev[4].kind, SIM_EV_RC_LOSS);
	assert_true(tl.ev[4].dur_s == 2.0);
	assert_int_equal(tl.ev[5].kind, SIM_EV_GPS_LOSS);
	assert_int_equal(tl.ev[6].kind, SIM_EV_GPS_GLITCH);
	assert_true(tl.ev[6].dur_s == 3.0 && tl.ev[6].v[0] == 100.0 && tl.ev[6].v[1] == -50.0 &&
		    tl.ev[6].v[2] == 0.0);
	assert_int_equal(tl.ev[7].kind, SIM_EV_FREEZE);
	assert_int_equal(tl.ev[7].sensor, SIM_FS_BARO);
	assert_int_equal(tl.ev[8].kind, SIM_EV_DROPOUT);
	assert_int_equal(tl.ev[8].sensor, SIM_FS_IMU);
	assert_int_equal(tl.ev[9].kind, SIM_EV_BIAS);
	assert_int_equal(tl.ev[9].sensor, SIM_FS_GYRO);
	assert_true(tl.ev[9].v[0] == 1.0 && tl.ev[9].v[1] == -2.0 && tl.ev[9].v[2] == 0.5);
	assert_int_equal(tl.ev[10].sensor, SIM_FS_BARO);
	assert_true(tl.ev[10].v[0] == 120.0);
	assert_int_equal(tl.ev[11].kind, SIM_EV_LINK_LOSS);
	assert_int_equal(tl.ev[12].kind, SIM_EV_MOTOR_FAIL);
	assert_true(tl.ev[12].dur_s == 0.0);
	assert_int_equal(tl.ev[13].kind, SIM_EV_WIND);
	assert_true(tl.ev[13].v[0] == 8.0 && tl.ev[13].v[1] == 270.0);
}

/* Each bad line, alone after two good ones, is reported at its line number. */
static void test_sim_timeline_names_the_file_and_line_of_a_bad_line(void **state)
{
	static const struct {
		const char *line;
		const char *reason;   /* a word the message must contain */
	} bad[] = {
		{ "5 explode", "unknown event" },
		{ "-1 throw", "time" },
		{ "nan throw", "time" },
		{ "1e9 throw", "time" },
		{ "5", "missing" },
		{ "5 throw now", "speed 'now' is not" },
		{ "5 throw 0.5", "1-40 m/s" },
		{ "5 throw 9 9", "[SPEED_M_S]" },
		{ "5 gps_loss", "DURATION" },
		{ "5 gps_loss -3", "duration" },
		{ "5 gps_loss inf", "duration" },
		{ "5 gps_glitch 3 100", "DURATION" },
		{ "5 gps_glitch 3 100 north", "distance" },
		{ "5 freeze compass 3", "unknown sensor" },
		{ "5 dropout imu", "SENSOR DURATION" },
		{ "5 bias accel 1 2", "3 values" },
		{ "5 bias gps 1", "no bias" },
		{ "5 bias baro x", "not a number" },
		{ "5 rc 13=1500", "channel" },
		{ "5 rc 0=1500", "channel" },
		{ "5 rc 3=3000", "pulse" },
		{ "5 rc 3=", "pulse" },
		{ "5 rc 3", "CH=PWM" },
		{ "5 rc", "CH=PWM" },
		{ "5 wind 200 90", "speed" },
		{ "5 wind 5", "SPEED" },
		{ "5 link_loss 1 2", "DURATION" },
		{ "5 throw 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", "too many" },
		{ "5 throw_the_aeroplane_as_hard_as_you_can_now", "too long" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[200], err[200] = "";
		snprintf(text, sizeof(text), "# header\n1 throw\n%s\n4 rc off\n", bad[i].line);
		int r = parse(text, err, sizeof(err));
		if (r != -EINVAL || strncmp(err, "flight.txt:3: ", 14) != 0 || !strstr(err, bad[i].reason))
			fail_msg("'%s' gave %d, '%s'", bad[i].line, r, err);
		assert_int_equal(tl.count, 1);   /* stopped at the bad line */
	}
}

static void test_sim_timeline_rejects_nul_bytes_and_overlong_lines(void **state)
{
	char err[160] = "";
	const char nul[] = "1 throw\n2 rc\0off\n";
	sim_timeline_init(&tl);
	assert_int_equal(sim_timeline_parse(&tl, nul, sizeof(nul) - 1, "x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "x:2: "));
	static char longline[1200];
	memset(longline, ' ', sizeof(longline) - 1);
	memcpy(longline, "1 throw", 7);
	assert_int_equal(parse(longline, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "flight.txt:1: line longer"));
}

static void test_sim_timeline_sorts_by_time_keeping_the_order_of_ties(void **state)
{
	char err[160];
	assert_int_equal(parse("9 rc off\n2 rc 1=1100\n2 rc 1=1200\n0 throw\n2 rc 1=1300\n", err, sizeof(err)), 0);
	sim_timeline_sort(&tl);
	assert_int_equal(tl.ev[0].kind, SIM_EV_THROW);
	assert_int_equal(tl.ev[1].rc_pwm_us[0], 1100);
	assert_int_equal(tl.ev[2].rc_pwm_us[0], 1200);
	assert_int_equal(tl.ev[3].rc_pwm_us[0], 1300);
	assert_int_equal(tl.ev[4].kind, SIM_EV_RC_OFF);
}

static void test_sim_timeline_single_lines_add_up_and_fill(void **state)
{
	char err[160];
	sim_timeline_init(&tl);
	assert_int_equal(sim_timeline_add_line(&tl, "3 gps_loss 1", "--fault 1", 1, err, sizeof(err)), 0);
	assert_int_equal(sim_timeline_add_line(&tl, "   # nothing", "--fault 2", 1, err, sizeof(err)), 0);
	assert_int_equal(tl.count, 1);
	assert_int_equal(sim_timeline_add_line(&tl, "3 gps_lost 1", "--fault 3", 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--fault 3:1: unknown event 'gps_lost'");
	while (tl.count < SIM_TIMELINE_MAX)
		assert_int_equal(sim_timeline_add_line(&tl, "1 rc on", "f", tl.count, err, sizeof(err)), 0);
	assert_int_equal(sim_timeline_add_line(&tl, "1 rc on", "f", 600, err, sizeof(err)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_timeline_reads_every_event_and_skips_comments),
		cmocka_unit_test(test_sim_timeline_names_the_file_and_line_of_a_bad_line),
		cmocka_unit_test(test_sim_timeline_rejects_nul_bytes_and_overlong_lines),
		cmocka_unit_test(test_sim_timeline_sorts_by_time_keeping_the_order_of_ties),
		cmocka_unit_test(test_sim_timeline_single_lines_add_up_and_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
