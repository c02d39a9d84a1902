// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Servo outputs on the PWM sysfs class, against a tree shaped like
 * /sys/class/pwm/pwmchip0 in a temporary directory: regular files for
 * export, unexport, npwm and each pwmN/{enable,period,duty_cycle,polarity}.
 * Regular files cannot react as the kernel does, so the pwmN/ directories
 * that "export" would create are made beforehand, and what the backend wrote
 * is read back from the files. Where the order of writes matters (enable,
 * unexport), the file is a FIFO that the test holds open: every write the
 * backend makes waits in the pipe, in order, for the test to read.
 * A write failure is made with RLIMIT_FSIZE 0, under which every write to a
 * regular file fails with EFBIG.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/rcout_pwm_sysfs.h"

#define NPWM 16u

static char root[32];
static char chip[64];

static void path_of(char *p, size_t cap, const char *rel)
{
	int n = snprintf(p, cap, "%s/%s", chip, rel);
	assert_true(n > 0 && (size_t)n < cap);
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];

	path_of(p, sizeof(p), rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's first line (what the backend wrote last, as sysfs would show it). */
static const char *got(const char *rel)
{
	static char buf[64];
	char p[PATH_MAX];

	path_of(p, sizeof(p), rel);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static const char *got_ch(unsigned int ch, const char *attr)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "pwm%u/%s", ch, attr);
	return got(rel);
}

static void put_ch(unsigned int ch, const char *attr, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "pwm%u/%s", ch, attr);
	put(rel, text);
}

/* A freshly exported channel, as the kernel shows it. */
static void make_channel(unsigned int ch)
{
	char p[PATH_MAX];
	char rel[32];

	snprintf(rel, sizeof(rel), "pwm%u", ch);
	path_of(p, sizeof(p), rel);
	assert_int_equal(mkdir(p, 0755), 0);
	put_ch(ch, "enable", "0\n");
	put_ch(ch, "period", "0\n");
	put_ch(ch, "duty_cycle", "0\n");
	put_ch(ch, "polarity", "normal\n");
}

/* Replaces a file by a FIFO and returns the test's end of it (never blocks). */
static int make_fifo(const char *rel)
{
	char p[PATH_MAX];

	path_of(p, sizeof(p), rel);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0644), 0);
	/* O_RDWR: a FIFO with a reader lets the backend's opens for writing through. */
	int fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* Everything written into the FIFO since the last call. */
static const char *drain(int fd)
{
	static char buf[256];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return buf;
}

/* pwmchip0 with npwm 16 and channels 0..15 already present. */
static int setup(void **state)
{
	strcpy(root, "/tmp/fulmar-pwm-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(chip, sizeof(chip), "%s/pwmchip0", root);
	if (mkdir(chip, 0755) < 0)
		return -1;
	put("export", "");
	put("unexport", "");
	put("npwm", "16\n");
	for (unsigned int ch = 0; ch < NPWM; ch++)
		make_channel(ch);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	return nftw(root, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static struct rcout *open_ok(unsigned int channels)
{
	struct rcout *out = NULL;
	char err[256] = "";

	int rc = rcout_pwm_sysfs_open(chip, channels, &out, err, sizeof(err));
	if (rc != 0)
		fail_msg("open: %d: %s", rc, err);
	assert_non_null(out);
	return out;
}

static void test_rcout_pwm_sysfs_opens_every_channel_at_50_hz_enabled_without_pulses(void **state)
{
	struct rcout *out = open_ok(14);

	assert_int_equal(rcout_channels(out), 14);
	for (unsigned int ch = 0; ch < 14; ch++) {
		assert_string_equal(got_ch(ch, "period"), "20000000");
		assert_string_equal(got_ch(ch, "duty_cycle"), "0");
		assert_string_equal(got_ch(ch, "polarity"), "normal");
		assert_string_equal(got_ch(ch, "enable"), "1");
	}
	/* Channels it was not asked for are left alone. */
	assert_string_equal(got_ch(14, "period"), "0");
	assert_string_equal(got_ch(14, "enable"), "0");
	assert_string_equal(got("export"), "13");

	uint16_t us = 1;
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 0);
	rcout_close(out);
}

static void test_rcout_pwm_sysfs_writes_a_1500_us_pulse_as_1500000_ns(void **state)
{
	struct rcout *out = open_ok(14);
	uint16_t us = 0;

	assert_int_equal(rcout_write(out, 3, 1500), 0);
	assert_string_equal(got_ch(3, "duty_cycle"), "1500000");
	assert_string_equal(got_ch(2, "duty_cycle"), "0");
	assert_int_equal(rcout_read(out, 3, &us), 0);
	assert_int_equal(us, 1500);

	assert_int_equal(rcout_write(out, 13, 1000), 0);
	assert_string_equal(got_ch(13, "duty_cycle"), "1000000");
	assert_int_equal(rcout_write(out, 3, 0), 0);
	assert_string_equal(got_ch(3, "duty_cycle"), "0");
	assert_int_equal(rcout_pwm_sysfs_stats(out)->refused, 0);
	assert_int_equal(rcout_pwm_sysfs_stats(out)->write_errors, 0);
	rcout_close(out);
}

static void test_rcout_pwm_sysfs_enables_after_setting_up_and_disables_then_unexports_on_close(
	void **state)
{
	int enable = make_fifo("pwm0/enable");
	int unexport = make_fifo("unexport");
	struct rcout *out = open_ok(1);

	/* Disabled before the period and width change, enabled after. */
	assert_string_equal(drain(enable), "0\n1\n");
	assert_string_equal(got_ch(0, "period"), "20000000");
	assert_string_equal(got_ch(0, "duty_cycle"), "0");
	assert_string_equal(drain(unexport), "");

	assert_int_equal(rcout_write(out, 0, 1700), 0);
	rcout_close(out);
	assert_string_equal(got_ch(0, "duty_cycle"), "0");
	assert_string_equal(drain(enable), "0\n");
	assert_string_equal(drain(unexport), "0\n");
	close(enable);
	close(unexport);
}

static void test_rcout_pwm_sysfs_close_leaves_every_channel_off(void **state)
{
	struct rcout *out = open_ok(4);

	for (unsigned int ch = 0; ch < 4; ch++)
		assert_int_equal(rcout_write(out, ch, (uint16_t)(1100 + 100 * ch)), 0);
	rcout_close(out);
	for (unsigned int ch = 0; ch < 4; ch++) {
		assert_string_equal(got_ch(ch, "duty_cycle"), "0");
		assert_string_equal(got_ch(ch, "enable"), "0");
	}
	assert_string_equal(got("unexport"), "3");
	rcout_close(NULL);
}

static void test_rcout_pwm_sysfs_refresh_rewrites_unchanged_widths_every_40_ms(void **state)
{
	struct rcout *out = open_ok(4);

	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 2, 1200), 0);
	/* Something else in the files shows whether the refresh wrote them. */
	put_ch(0, "duty_cycle", "7\n");
	put_ch(1, "duty_cycle", "7\n");
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 1000000), 0);
	assert_string_equal(got_ch(0, "duty_cycle"), "1500000");
	assert_string_equal(got_ch(1, "duty_cycle"), "0");
	assert_string_equal(got_ch(2, "duty_cycle"), "1200000");

	put_ch(0, "duty_cycle", "7\n");
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 1000000 + 10000), 0);
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 1000000 + 39999), 0);
	assert_string_equal(got_ch(0, "duty_cycle"), "7");
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 1000000 + 40000), 0);
	assert_string_equal(got_ch(0, "duty_cycle"), "1500000");
	assert_int_equal(rcout_pwm_sysfs_stats(out)->refreshes, 2);
	rcout_close(out);
}

static void test_rcout_pwm_sysfs_refuses_and_counts_a_width_outside_the_period(void **state)
{
	struct rcout *out = open_ok(8);

	/* 490 Hz: 2040816 ns, so 2500 us does not fit and 2000 us does. */
	assert_int_equal(rcout_set_rate(out, 1u << 0, 490), 0);
	assert_string_equal(got_ch(0, "period"), "2040816");
	assert_int_equal(rcout_write(out, 0, 2500), -EINVAL);
	assert_string_equal(got_ch(0, "duty_cycle"), "0");
	assert_int_equal(rcout_pwm_sysfs_stats(out)->refused, 1);
	assert_int_equal(rcout_write(out, 0, 2000), 0);
	assert_string_equal(got_ch(0, "duty_cycle"), "2000000");

	/* A rate whose period the width would not fit is refused too, and nothing changes. */
	assert_int_equal(rcout_set_rate(out, 1u << 0, 500), -EINVAL);
	assert_int_equal(rcout_pwm_sysfs_stats(out)->refused, 2);
	assert_string_equal(got_ch(0, "period"), "2040816");
	rcout_close(out);
}

static void test_rcout_pwm_sysfs_sets_the_rate_of_whole_groups_of_four(void **state)
{
	struct rcout *out = open_ok(8);

	assert_int_equal(rcout_set_rate(out, 1u << 1, 400), 0);
	for (unsigned int ch = 0; ch < 4; ch++)
		assert_string_equal(got_ch(ch, "period"), "2500000");
	for (unsigned int ch = 4; ch < 8; ch++)
		assert_string_equal(got_ch(ch, "period"), "20000000");
	/* Channel 0 now runs at 400 Hz: 2500 us is the whole period. */
	assert_int_equal(rcout_write(out, 0, 2500), -EINVAL);
	assert_int_equal(rcout_write(out, 4, 2500), 0);
	rcout_close(out);
}

static void test_rcout_pwm_sysfs_names_a_missing_chip(void **state)
{
	static struct rcout untouched;
	struct rcout *out = &untouched;
	char path[PATH_MAX];
	char err[256] = "";

	snprintf(path, sizeof(path), "%s/pwmchip7", root);
	assert_int_equal(rcout_pwm_sysfs_open(path, 14, &out, err, sizeof(err)), -ENODEV);
	assert_ptr_equal(out, &untouched);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "no such PWM chip"));
	/* No room for a message is no reason to fail differently. */
	assert_int_equal(rcout_pwm_sysfs_open(path, 14, &out, NULL, 0), -ENODEV);
}

static void test_rcout_pwm_sysfs_names_and_counts_channels_that_will_not_export(void **state)
{
	struct rcout *out = NULL;
	char err[256] = "";
	char p[PATH_MAX];

	/* The kernel did not create pwm3/ and pwm5/. */
	for (unsigned int ch = 3; ch <= 5; ch += 2) {
		char rel[32];

		snprintf(rel, sizeof(rel), "pwm%u", ch);
		path_of(p, sizeof(p), rel);
		assert_int_equal(nftw(p, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
	}
	assert_int_equal(rcout_pwm_sysfs_open(chip, 8, &out, err, sizeof(err)), -EIO);
	assert_null(out);
	assert_non_null(strstr(err, chip));
	assert_non_null(strstr(err, "2 of 8 channels would not export"));
	assert_non_null(strstr(err, "pwm3 ("));
	assert_non_null(strstr(err, "pwm5 ("));
	assert_null(strstr(err, "pwm4"));
	/* No output was touched, and what was exported was given back. */
	assert_string_equal(got_ch(0, "enable"), "0");
	assert_string_equal(got_ch(0, "period"), "0");
	assert_string_equal(got("unexport"), "7");
}

static void test_rcout_pwm_sysfs_rejects_text_in_a_period(void **state)
{
	struct rcout *out = NULL;
	char err[256] = "";

	put_ch(2, "period", "twenty ms\n");
	assert_int_equal(rcout_pwm_sysfs_open(chip, 4, &out, err, sizeof(err)), -EIO);
	assert_null(out);
	assert_non_null(strstr(err, "pwmchip0/pwm2/period"));
	assert_non_null(strstr(err, "\"twenty ms\" is not a number"));
	/* The channels set up before it are off again. */
	assert_string_equal(got_ch(0, "enable"), "0");
	assert_string_equal(got("unexport"), "3");
}

static void test_rcout_pwm_sysfs_rejects_text_in_npwm_and_too_many_channels(void **state)
{
	struct rcout *out = NULL;
	char err[256] = "";

	assert_int_equal(rcout_pwm_sysfs_open(chip, 17, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "17 channels asked, the chip has 16"));
	assert_int_equal(rcout_pwm_sysfs_open(chip, 0, &out, err, sizeof(err)), -EINVAL);
	put("npwm", "16 or so\n");
	assert_int_equal(rcout_pwm_sysfs_open(chip, 4, &out, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "pwmchip0/npwm: \"16 or so\" is not a number"));
	put("npwm", "");
	assert_int_equal(rcout_pwm_sysfs_open(chip, 4, &out, err, sizeof(err)), -EIO);
	assert_null(out);
	assert_string_equal(got("export"), "");
}

static void test_rcout_pwm_sysfs_counts_text_read_back_from_duty_cycle(void **state)
{
	struct rcout *out = open_ok(2);
	uint16_t us = 42;

	put_ch(1, "duty_cycle", "off\n");
	assert_int_equal(rcout_read(out, 1, &us), -EIO);
	assert_int_equal(us, 42);
	assert_int_equal(rcout_pwm_sysfs_stats(out)->read_errors, 1);
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 0);
	rcout_close(out);
}

static void fsize_limit(rlim_t cur, rlim_t max)
{
	struct rlimit lim = { .rlim_cur = cur, .rlim_max = max };

	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void test_rcout_pwm_sysfs_counts_a_failed_write_and_retries_it_on_the_next_refresh(
	void **state)
{
	struct rcout *out = open_ok(4);
	struct rlimit was;

	assert_int_equal(rcout_write(out, 1, 1500), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	/* Past the limit, a write raises SIGXFSZ before it fails with EFBIG. */
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
	fsize_limit(0, was.rlim_max);

	int rc = rcout_write(out, 1, 1600);
	int refreshed = rcout_pwm_sysfs_refresh(out, 5000000);

	fsize_limit(was.rlim_cur, was.rlim_max);
	signal(SIGXFSZ, old);
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(refreshed, -EIO);
	/* One for the write, one for each of the 4 channels the refresh rewrote. */
	assert_int_equal(rcout_pwm_sysfs_stats(out)->write_errors, 5);
	assert_string_equal(got_ch(1, "duty_cycle"), "1500000");

	/* Not yet time for a full refresh, but the failed channels are written again. */
	put_ch(2, "duty_cycle", "7\n");
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 5000000 + 1000), 0);
	assert_string_equal(got_ch(1, "duty_cycle"), "1600000");
	assert_string_equal(got_ch(2, "duty_cycle"), "0");
	/* Nothing left to retry: channel 2 is not rewritten until the 40 ms are up. */
	put_ch(2, "duty_cycle", "7\n");
	assert_int_equal(rcout_pwm_sysfs_refresh(out, 5000000 + 2000), 0);
	assert_string_equal(got_ch(2, "duty_cycle"), "7");
	assert_int_equal(rcout_pwm_sysfs_stats(out)->write_errors, 5);
	rcout_close(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_opens_every_channel_at_50_hz_enabled_without_pulses,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_writes_a_1500_us_pulse_as_1500000_ns, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_enables_after_setting_up_and_disables_then_unexports_on_close,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_pwm_sysfs_close_leaves_every_channel_off,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_refresh_rewrites_unchanged_widths_every_40_ms, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_refuses_and_counts_a_width_outside_the_period, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_sets_the_rate_of_whole_groups_of_four, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_pwm_sysfs_names_a_missing_chip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_names_and_counts_channels_that_will_not_export, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_rcout_pwm_sysfs_rejects_text_in_a_period, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_rejects_text_in_npwm_and_too_many_channels, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_counts_text_read_back_from_duty_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rcout_pwm_sysfs_counts_a_failed_write_and_retries_it_on_the_next_refresh,
			setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
