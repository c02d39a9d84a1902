// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/config.h"

static const struct board_dev devs[] = {
	{ .name = "telem", .what = "radio", .kind = BOARD_DEV_UART, .optional = true,
	  .u.uart = { .cfg = { .path = "/dev/ttyUSB0", .baud = 57600 } } },
	{ .name = "imu", .what = "MPU9250", .kind = BOARD_DEV_SPI,
	  .u.spi = { .cfg = { .path = "/dev/spidev0.1" } } },
};
static const struct board board = {
	.name = "testboard", .devs = devs, .n_devs = 2, .main_rate_hz = 200,
};

static struct config cfg;
static char err[512];

static int parse(const char *text)
{
	config_defaults(&cfg, &board);
	err[0] = '\0';
	return config_parse(&cfg, text, "test.conf", &board, err, sizeof(err));
}

static void test_config_defaults_follow_the_board(void **state)
{
	config_defaults(&cfg, &board);
	assert_string_equal(cfg.state_dir, "/var/lib/fulmar");
	assert_int_equal(cfg.sched.thread[SCHED_MAIN].rate_hz, 200);
	assert_int_equal(cfg.sched.thread[SCHED_TIMER].rate_hz, 1000);
	assert_true(cfg.sched.realtime);
	assert_int_equal(cfg.sched.cpu_dma_latency_us, 0);
	assert_int_equal(cfg.log_level, LOG_LEVEL_INFO);
	assert_int_equal(cfg.vehicle, VEHICLE_PLANE);
}

static void test_config_reads_every_kind_of_value(void **state)
{
	assert_int_equal(parse("# comment\n"
			       "; another\n"
			       "\n"
			       "[daemon]\n"
			       "state_dir = /tmp/state\n"
			       "log_dir=\"/tmp/logs dir\"\n"
			       "log_level = debug\n"
			       "vehicle = copter\n"
			       "[sched]\n"
			       "  realtime = off  \n"
			       "priority_max = 0x30\n"
			       "cpu_dma_latency_us = -1\n"
			       "[thread.main]\n"
			       "rate_hz = 50\n"
			       "cpu = 1\n"
			       "[thread.io]\n"
			       "priority = 5\n"
			       "cpu = -1\n"
			       "[devices]\n"
			       "telem = /dev/ttyS3\n"),
			 0);
	assert_string_equal(cfg.state_dir, "/tmp/state");
	assert_string_equal(cfg.log_dir, "/tmp/logs dir");
	assert_int_equal(cfg.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(cfg.vehicle, VEHICLE_COPTER);
	assert_false(cfg.sched.realtime);
	assert_int_equal(cfg.sched.priority_max, 48);
	assert_int_equal(cfg.sched.cpu_dma_latency_us, -1);
	assert_int_equal(cfg.sched.thread[SCHED_MAIN].rate_hz, 50);
	assert_int_equal(cfg.sched.thread[SCHED_MAIN].cpu, 1);
	assert_int_equal(cfg.sched.thread[SCHED_IO].priority, 5);
	assert_int_equal(cfg.sched.thread[SCHED_IO].cpu, -1);
	assert_int_equal(cfg.n_overrides, 1);
	assert_string_equal(cfg.overrides[0].device, "telem");
	assert_string_equal(cfg.overrides[0].value, "/dev/ttyS3");
	assert_string_equal(cfg.overrides[0].where, "test.conf:20");
}

/* Each bad file gives -EINVAL and one line naming file:line and the problem. */
static void test_config_rejects_bad_input_with_file_and_line(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "[sched]\nfoo = 1\n", "test.conf:2: unknown key 'foo' in [sched]" },
		{ "[bogus]\n", "test.conf:1: unknown section [bogus]" },
		{ "[thread.gps]\n", "test.conf:1: unknown thread 'gps'" },
		{ "[sched]\nrealtime = maybe\n", "test.conf:2: realtime: 'maybe' is not a boolean" },
		{ "[sched]\npriority_max = 100\n", "test.conf:2: priority_max: '100' is not a whole number in 6..99" },
		{ "[sched]\ncpu_dma_latency_us = -2\n", "test.conf:2: cpu_dma_latency_us: '-2' is not a whole number in -1..2000000000" },
		{ "[thread.main]\nrate_hz = 12abc\n", "test.conf:2: rate_hz: '12abc'" },
		{ "[thread.main]\nrate_hz = 0\n", "test.conf:2: rate_hz: '0'" },
		{ "[daemon]\nlog_level = loud\n", "test.conf:2: log_level: 'loud' is not one of" },
		{ "[daemon]\nvehicle = heli\n", "test.conf:2: vehicle: 'heli' is not one of plane, copter" },
		{ "[daemon]\nstate_dir =\n", "test.conf:2: state_dir: path is empty" },
		{ "realtime = true\n", "test.conf:1: 'realtime' is outside any [section]" },
		{ "[sched]\nrealtime\n", "test.conf:2: expected 'key = value'" },
		{ "[sched]\n= 3\n", "test.conf:2: missing key" },
		{ "[sched\n", "test.conf:1: malformed section header" },
		{ "[sched]\nrealtime = 1\n\nrealtime = 0\n", "test.conf:4: 'realtime' is set twice in [sched]" },
		{ "[devices]\ngps = /dev/ttyS1\n", "test.conf:2: board testboard has no device 'gps'" },
		{ "[devices]\nimu = none\n", "test.conf:2: device 'imu' (MPU9250) is required" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text), -EINVAL);
		if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s...\"", i, err, cases[i].msg);
		assert_null(strchr(err, '\n'));
	}
}

static void test_config_survives_garbage(void **state)
{
	/* Random bytes, long lines, NULs: an error or a success, never a crash. */
	char text[4096];
	unsigned int seed = 1;
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand_r(&seed) % (sizeof(text) - 1));
		for (size_t i = 0; i < n; i++) {
			static const char alphabet[] = "[]=#;\n \"abcdefghijklmnopqrstuvwxyz._0123456789-\t";
			text[i] = (rand_r(&seed) % 8) ? alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)]
						      : (char)(rand_r(&seed) % 256);
		}
		text[n] = '\0';
		int rc = parse(text);
		assert_true(rc == 0 || rc == -EINVAL);
		if (rc)
			assert_non_null(strstr(err, "test.conf:"));
	}
	char long_line[3000];
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	assert_int_equal(parse(long_line), -EINVAL);
	assert_non_null(strstr(err, "test.conf:1: line longer than"));
}

static void test_config_load_names_a_missing_or_unreadable_file(void **state)
{
	config_defaults(&cfg, &board);
	assert_int_equal(config_load(&cfg, "/nonexistent/fulmard.conf", &board, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/fulmard.conf: No such file or directory");
	assert_int_equal(config_load(&cfg, "/", &board, err, sizeof(err)), -EISDIR);

	char path[] = "/tmp/fulmar-config-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] = "[sched]\nlock_memory = no\n[thread.tone]\nrate_hz = 20\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(config_load(&cfg, path, &board, err, sizeof(err)), 0);
	assert_false(cfg.sched.lock_memory);
	assert_int_equal(cfg.sched.thread[SCHED_TONE].rate_hz, 20);
	/* A binary file is refused, not parsed. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "[sched]\0\x01", 9), 9);
	close(fd);
	assert_int_equal(config_load(&cfg, path, &board, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL byte"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults_follow_the_board),
		cmocka_unit_test(test_config_reads_every_kind_of_value),
		cmocka_unit_test(test_config_rejects_bad_input_with_file_and_line),
		cmocka_unit_test(test_config_survives_garbage),
		cmocka_unit_test(test_config_load_names_a_missing_or_unreadable_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
