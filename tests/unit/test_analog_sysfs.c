// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Analog inputs from sysfs millivolt files (hal/linux/analog_sysfs.c), and
 * the sysfs directory handle (sysfs_linux.c), against a tree shaped like
 * the Navio2's /sys/kernel/rcio/adc in a temporary directory: ch0..ch5 as
 * regular files holding "%d\n", as the rcio module prints them. A read that
 * fails is made by putting a directory where the file was (pread gives
 * EISDIR), which also shows the backend opening the file again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/hal_linux.h"

static char root[32];
static char adc[64];

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", adc, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void drop(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", adc, name);
	if (unlink(p) != 0)
		assert_int_equal(rmdir(p), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/fulmar-adc-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(adc, sizeof(adc), "%s/adc", root);
	assert_int_equal(mkdir(adc, 0755), 0);
	for (int i = 0; i < 6; i++) {
		char name[8];
		snprintf(name, sizeof(name), "ch%d", i);
		put(name, "0\n");
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 6; i++) {
		char name[8];
		snprintf(name, sizeof(name), "ch%d", i);
		drop(name);
	}
	assert_int_equal(rmdir(adc), 0);
	assert_int_equal(rmdir(root), 0);
	return 0;
}

static struct analog_in *open_ch(const char *ch)
{
	struct analog_config cfg = { .device = adc, .channel = ch };
	struct analog_in *in = NULL;

	assert_int_equal(analog_sysfs_open(&cfg, &in), 0);
	assert_non_null(in);
	return in;
}

static void test_analog_sysfs_reads_millivolts_as_the_module_prints_them(void **state)
{
	(void)state;
	put("ch2", "1042\n");
	struct analog_in *in = open_ch("ch2");
	double mv = -1.0;

	assert_int_equal(analog_read(in, &mv), 0);
	assert_true(mv == 1042.0);
	put("ch2", "1043");          /* without the newline too */
	assert_int_equal(analog_read(in, &mv), 0);
	assert_true(mv == 1043.0);
	const struct analog_sysfs_stats *st = analog_sysfs_stats(in);
	assert_int_equal(st->read_errors + st->garbage, 0);
	analog_close(in);
}

static void test_analog_sysfs_open_says_enodev_for_a_missing_file(void **state)
{
	(void)state;
	struct analog_config cfg = { .device = adc, .channel = "ch7" };
	struct analog_in *in = (struct analog_in *)&cfg;   /* must be left alone */

	assert_int_equal(analog_sysfs_open(&cfg, &in), -ENODEV);
	assert_ptr_equal(in, (struct analog_in *)&cfg);
}

static void test_analog_sysfs_refuses_garbage_and_keeps_the_value_untouched(void **state)
{
	(void)state;
	static const char *const bad[] = { "", "\n", "abc\n", "12x\n", "-5\n", "65536\n",
					   "99999999999999999999999\n", "1 2\n" };
	struct analog_in *in = open_ch("ch3");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double mv = 7.0;
		put("ch3", bad[i]);
		assert_int_equal(analog_read(in, &mv), -EBADMSG);
		assert_true(mv == 7.0);
	}
	assert_int_equal(analog_sysfs_stats(in)->garbage, sizeof(bad) / sizeof(bad[0]));
	put("ch3", "65535\n");       /* the top of the 16-bit register still reads */
	double mv;
	assert_int_equal(analog_read(in, &mv), 0);
	assert_true(mv == 65535.0);
	analog_close(in);
}

static void test_analog_sysfs_counts_a_failed_read_and_opens_the_file_again(void **state)
{
	(void)state;
	struct analog_in *in = open_ch("ch4");
	char p[PATH_MAX];
	double mv = 3.0;

	/* The module unloaded and something else stands there: the kept fd is the old file's. */
	drop("ch4");
	snprintf(p, sizeof(p), "%s/ch4", adc);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(analog_read(in, &mv), 0);   /* the open fd still reads the old file */
	analog_close(in);

	in = open_ch("ch4");                          /* a directory opens O_RDONLY ... */
	mv = 3.0;
	assert_int_equal(analog_read(in, &mv), -EISDIR);   /* ... and will not read */
	assert_int_equal(analog_read(in, &mv), -EISDIR);   /* opened again, still not a file */
	assert_true(mv == 3.0);
	assert_int_equal(analog_sysfs_stats(in)->read_errors, 2);
	drop("ch4");
	assert_int_equal(analog_read(in, &mv), -ENOENT);
	put("ch4", "812\n");
	assert_int_equal(analog_read(in, &mv), 0);
	assert_true(mv == 812.0);
	assert_int_equal(analog_sysfs_stats(in)->read_errors, 3);
	analog_close(in);
}

/* A value that does not move (a bench supply) is a reading every time. */
static void test_analog_sysfs_a_steady_value_is_a_reading(void **state)
{
	(void)state;
	put("ch5", "4790\n");
	struct analog_in *in = open_ch("ch5");
	double mv = 0.0;

	for (unsigned int i = 0; i < 1000; i++)
		assert_int_equal(analog_read(in, &mv), 0);
	assert_true(mv == 4790.0);
	analog_close(in);
}

static void test_sysfs_dir_reads_files_below_it_and_says_what_is_missing(void **state)
{
	(void)state;
	struct sysfs_config cfg = { .path = root };
	struct sysfs_dir *d = NULL;
	char buf[8];

	assert_int_equal(sysfs_linux_open(&cfg, &d), 0);
	assert_string_equal(sysfs_path(d), root);
	put("ch1", "5012\n");
	assert_int_equal(sysfs_read(d, "adc/ch1", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "5012\n");
	assert_int_equal(sysfs_read(d, "adc/ch9", buf, sizeof(buf)), -ENOENT);
	put("ch1", "12345678\n");
	assert_int_equal(sysfs_read(d, "adc/ch1", buf, sizeof(buf)), -EOVERFLOW);
	sysfs_close(d);
	sysfs_close(NULL);

	struct sysfs_config gone = { .path = "/tmp/fulmar-no-such-dir/rcio" };
	assert_int_equal(sysfs_linux_open(&gone, &d), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_analog_sysfs_reads_millivolts_as_the_module_prints_them, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_sysfs_open_says_enodev_for_a_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_sysfs_refuses_garbage_and_keeps_the_value_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_sysfs_counts_a_failed_read_and_opens_the_file_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analog_sysfs_a_steady_value_is_a_reading, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysfs_dir_reads_files_below_it_and_says_what_is_missing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
