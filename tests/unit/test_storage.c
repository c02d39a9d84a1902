// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Atomic file replacement, in a fresh temporary directory per test that is
 * also the working directory, so most paths are bare names. The tests run as
 * root, for whom permission bits stop nothing, so failures are made with the
 * file system's shape instead (a parent that is a file, a directory where a
 * file should be, a symlink at the temporary name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fulmar/storage.h"

struct dir {
	char path[64];
};

static int setup(void **state)
{
	struct dir *d = malloc(sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/fulmar-storage-XXXXXX");
	if (!mkdtemp(d->path)) {
		free(d);
		return -1;
	}
	if (chdir(d->path) < 0) {
		rmdir(d->path);
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

/* Everything a test leaves is known by name; anything else makes rmdir fail the test. */
static int teardown(void **state)
{
	struct dir *d = *state;
	static const char *const names[] = {
		"params", "params.tmp", "key", "key.tmp", "file", "victim", "dir",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (unlink(names[i]) < 0 && errno == EISDIR)
			rmdir(names[i]);
	}
	int rc = chdir("/") < 0 ? -1 : rmdir(d->path);
	free(d);
	return rc;
}

static void test_storage_write_then_read_gives_back_the_data(void **state)
{
	const char data[] = "SYSID_THISMAV=1\nATC_RAT_RLL_P=0.135\n";
	char buf[128];

	assert_int_equal(storage_write_atomic("params", data, sizeof(data), 0644), 0);
	assert_int_equal(storage_read("params", buf, sizeof(buf)), sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
	assert_int_equal(access("params.tmp", F_OK), -1);

	char abs[128];
	snprintf(abs, sizeof(abs), "%s/params", ((struct dir *)*state)->path);
	assert_int_equal(storage_write_atomic(abs, "abs", 3, 0644), 0);
	assert_int_equal(storage_read(abs, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "abs", 3);
}

static void test_storage_write_replaces_the_old_file_whole(void **state)
{
	char buf[128];

	assert_int_equal(storage_write_atomic("params", "old old old", 11, 0644), 0);
	assert_int_equal(storage_write_atomic("params", "new", 3, 0644), 0);
	assert_int_equal(storage_read("params", buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "new", 3);
	/* And to nothing at all. */
	assert_int_equal(storage_write_atomic("params", NULL, 0, 0644), 0);
	assert_int_equal(storage_read("params", buf, sizeof(buf)), 0);
}

static void test_storage_file_gets_exactly_the_mode_asked_for(void **state)
{
	struct stat st;
	mode_t old = umask(022);

	assert_int_equal(storage_write_atomic("key", "secret", 6, 0600), 0);
	assert_int_equal(stat("key", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	umask(old);
}

static void test_storage_stale_tmp_file_does_not_pass_its_mode_on(void **state)
{
	struct stat st;

	int fd = open("key.tmp", O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0666), 0);
	close(fd);
	assert_int_equal(storage_write_atomic("key", "secret", 6, 0600), 0);
	assert_int_equal(stat("key", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_storage_read_of_missing_file_gives_enoent(void **state)
{
	char buf[8];

	assert_int_equal(storage_read("params", buf, sizeof(buf)), -ENOENT);
}

static void test_storage_read_of_a_file_longer_than_cap_gives_efbig(void **state)
{
	char buf[8];

	assert_int_equal(storage_write_atomic("params", "123456789", 9, 0644), 0);
	assert_int_equal(storage_read("params", buf, 8), -EFBIG);
	/* Exactly cap is fine. */
	assert_int_equal(storage_write_atomic("params", "12345678", 8, 0644), 0);
	assert_int_equal(storage_read("params", buf, 8), 8);
}

static void test_storage_write_into_a_missing_directory_gives_enoent(void **state)
{
	assert_int_equal(storage_write_atomic("sub/params", "x", 1, 0644), -ENOENT);
}

static void test_storage_write_below_a_regular_file_gives_enotdir(void **state)
{
	assert_int_equal(storage_write_atomic("file", "x", 1, 0644), 0);
	assert_int_equal(storage_write_atomic("file/params", "x", 1, 0644), -ENOTDIR);
}

static void test_storage_failed_write_leaves_the_old_file_alone(void **state)
{
	char buf[16];

	assert_int_equal(storage_write_atomic("params", "old", 3, 0644), 0);
	/* A directory in the way of the temporary file makes its open fail. */
	assert_int_equal(mkdir("params.tmp", 0755), 0);
	assert_int_equal(storage_write_atomic("params", "new", 3, 0644), -EISDIR);
	assert_int_equal(storage_read("params", buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "old", 3);
	assert_int_equal(rmdir("params.tmp"), 0);
}

static void test_storage_failed_rename_removes_the_tmp_file(void **state)
{
	/* A file cannot be renamed over a directory. */
	assert_int_equal(mkdir("dir", 0755), 0);
	assert_int_equal(storage_write_atomic("dir", "x", 1, 0644), -EISDIR);
	assert_int_equal(access("dir.tmp", F_OK), -1);
}

static void test_storage_symlink_at_the_tmp_name_is_not_followed(void **state)
{
	char buf[16];

	assert_int_equal(storage_write_atomic("victim", "precious", 8, 0644), 0);
	assert_int_equal(symlink("victim", "params.tmp"), 0);
	assert_int_equal(storage_write_atomic("params", "x", 1, 0644), -ELOOP);
	assert_int_equal(storage_read("victim", buf, sizeof(buf)), 8);
	assert_memory_equal(buf, "precious", 8);
	assert_int_equal(unlink("params.tmp"), 0);
}

#define DIR_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		DIR_TEST(test_storage_write_then_read_gives_back_the_data),
		DIR_TEST(test_storage_write_replaces_the_old_file_whole),
		DIR_TEST(test_storage_file_gets_exactly_the_mode_asked_for),
		DIR_TEST(test_storage_stale_tmp_file_does_not_pass_its_mode_on),
		DIR_TEST(test_storage_read_of_missing_file_gives_enoent),
		DIR_TEST(test_storage_read_of_a_file_longer_than_cap_gives_efbig),
		DIR_TEST(test_storage_write_into_a_missing_directory_gives_enoent),
		DIR_TEST(test_storage_write_below_a_regular_file_gives_enotdir),
		DIR_TEST(test_storage_failed_write_leaves_the_old_file_alone),
		DIR_TEST(test_storage_failed_rename_removes_the_tmp_file),
		DIR_TEST(test_storage_symlink_at_the_tmp_name_is_not_followed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
