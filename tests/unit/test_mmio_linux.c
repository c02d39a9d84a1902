// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register windows, mapped from regular files: a temporary directory holds a
 * UIO tree of its own (sys/class/uio/uioN/...) with a regular file standing in
 * for each device node (dev/uioN), and a regular file stands in for /dev/mem.
 * Regular files map just as devices do, and what is written through a window
 * can be read back from the file.
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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/hal_linux.h"

static char root[] = "/tmp/fulmar-mmio-XXXXXX";
static char sys_root[64];
static size_t page;

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mkdirs(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

/* A file of len bytes whose 32-bit words hold their own file offsets. */
static void make_backing(const char *rel, size_t len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	for (uint32_t off = 0; off < len; off += 4)
		assert_int_equal(pwrite(fd, &off, 4, off), 4);
	close(fd);
}

static uint32_t backing_word(const char *rel, size_t off)
{
	char p[PATH_MAX];
	uint32_t v = 0;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, 4, (off_t)off), 4);
	close(fd);
	return v;
}

/*
 * uio0 "other"; uio1 "pruss_shmem" with map0 of one page and map1 of two pages
 * whose registers start 0x100 into its first page; uio2 "bad_size".
 */
static int setup(void **state)
{
	char size[32];

	page = (size_t)sysconf(_SC_PAGESIZE);
	if (!mkdtemp(root))
		return -1;
	snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
	mkdirs("sys/class/uio/uio0");
	put("sys/class/uio/uio0/name", "other\n");
	mkdirs("sys/class/uio/uio1/maps/map0");
	mkdirs("sys/class/uio/uio1/maps/map1");
	put("sys/class/uio/uio1/name", "pruss_shmem\n");
	snprintf(size, sizeof(size), "0x%08zx\n", page);
	put("sys/class/uio/uio1/maps/map0/size", size);
	put("sys/class/uio/uio1/maps/map0/offset", "0x0\n");
	snprintf(size, sizeof(size), "0x%08zx\n", 2 * page - 0x100);
	put("sys/class/uio/uio1/maps/map1/size", size);
	put("sys/class/uio/uio1/maps/map1/offset", "0x100\n");
	mkdirs("sys/class/uio/uio2/maps/map0");
	put("sys/class/uio/uio2/name", "bad_size\n");
	put("sys/class/uio/uio2/maps/map0/size", "lots\n");
	mkdirs("dev");
	make_backing("dev/uio1", 3 * page);
	make_backing("mem", 4 * page);
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

static void test_mmio_uio_device_is_found_by_name_and_its_map_mapped(void **state)
{
	const struct mmio_config cfg = { .uio_name = "pruss_shmem", .uio_map = 0, .len = 0x100 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), 0);
	assert_int_equal(mmio_len(m), 0x100);
	assert_int_equal(mmio_read32(m, 0x40), 0x40);
	mmio_write32(m, 0xfc, 0xdeadbeef);
	assert_int_equal(backing_word("dev/uio1", 0xfc), 0xdeadbeef);
	mmio_close(m);
}

static void test_mmio_uio_map_n_is_at_n_pages_and_starts_at_its_offset(void **state)
{
	const struct mmio_config cfg = {
		.uio_name = "pruss_shmem", .uio_map = 1, .len = 2 * page - 0x100,
	};
	struct mmio *m = NULL;

	/* A trailing slash on the root changes nothing. */
	char slashed[80];
	snprintf(slashed, sizeof(slashed), "%s/", sys_root);
	assert_int_equal(mmio_linux_open(&cfg, slashed, &m), 0);
	assert_int_equal(mmio_read32(m, 0), page + 0x100);
	assert_int_equal(mmio_read32(m, cfg.len - 4), 3 * page - 4);
	mmio_write32(m, 8, 0x12345678);
	assert_int_equal(backing_word("dev/uio1", page + 0x108), 0x12345678);
	mmio_close(m);
}

static void test_mmio_uio_window_larger_than_the_map_gives_einval(void **state)
{
	const struct mmio_config cfg = { .uio_name = "pruss_shmem", .uio_map = 0, .len = page + 4 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -EINVAL);
	assert_null(m);
}

static void test_mmio_missing_uio_name_or_map_gives_enodev(void **state)
{
	struct mmio_config cfg = { .uio_name = "pru_nope", .len = 4 };
	struct mmio *m = NULL;
	char empty[80];

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -ENODEV);
	cfg.uio_name = "pruss_shmem";
	cfg.uio_map = 2;
	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -ENODEV);
	/* A system without any UIO device has no class/uio directory at all. */
	snprintf(empty, sizeof(empty), "%s/dev", root);
	assert_int_equal(mmio_linux_open(&cfg, empty, &m), -ENODEV);
	assert_null(m);
}

static void test_mmio_uio_size_that_is_not_a_number_gives_eio(void **state)
{
	const struct mmio_config cfg = { .uio_name = "bad_size", .len = 4 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -EIO);
	assert_null(m);
}

static void test_mmio_memory_device_is_mapped_at_the_physical_base(void **state)
{
	char mem[80];
	snprintf(mem, sizeof(mem), "%s/mem", root);
	const struct mmio_config cfg = { .mem_path = mem, .phys_base = 2 * page, .len = 64 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), 0);
	assert_int_equal(mmio_len(m), 64);
	assert_int_equal(mmio_read32(m, 0), 2 * page);
	assert_int_equal(mmio_read32(m, 60), 2 * page + 60);
	mmio_write32(m, 4, 0xa5a5a5a5);
	assert_int_equal(mmio_read32(m, 4), 0xa5a5a5a5);
	assert_int_equal(backing_word("mem", 2 * page + 4), 0xa5a5a5a5);
	mmio_close(m);
}

static void test_mmio_unaligned_base_or_bad_length_gives_einval(void **state)
{
	char mem[80];
	snprintf(mem, sizeof(mem), "%s/mem", root);
	struct mmio_config cfg = { .mem_path = mem, .phys_base = page + 4, .len = 64 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -EINVAL);
	cfg.phys_base = page;
	cfg.len = 0;
	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -EINVAL);
	cfg.len = 6;
	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -EINVAL);
	assert_null(m);
}

static void test_mmio_missing_memory_device_gives_enoent(void **state)
{
	const struct mmio_config cfg = { .mem_path = "/dev/mem-fulmar-none", .len = 4 };
	struct mmio *m = NULL;

	assert_int_equal(mmio_linux_open(&cfg, sys_root, &m), -ENOENT);
	assert_null(m);
}

static void test_mmio_close_of_null_is_a_no_op(void **state)
{
	mmio_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmio_uio_device_is_found_by_name_and_its_map_mapped),
		cmocka_unit_test(test_mmio_uio_map_n_is_at_n_pages_and_starts_at_its_offset),
		cmocka_unit_test(test_mmio_uio_window_larger_than_the_map_gives_einval),
		cmocka_unit_test(test_mmio_missing_uio_name_or_map_gives_enodev),
		cmocka_unit_test(test_mmio_uio_size_that_is_not_a_number_gives_eio),
		cmocka_unit_test(test_mmio_memory_device_is_mapped_at_the_physical_base),
		cmocka_unit_test(test_mmio_unaligned_base_or_bad_length_gives_einval),
		cmocka_unit_test(test_mmio_missing_memory_device_gives_enoent),
		cmocka_unit_test(test_mmio_close_of_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
