// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The PM QoS request as the kernel reads it: a binary s32 written once to an
 * open descriptor that is kept. A regular file stands in for the character
 * device (the value written is what the kernel would take); the real
 * /dev/cpu_dma_latency is used where it exists and is writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/pm_qos.h"

static void test_pm_qos_writes_the_latency_as_a_binary_s32_and_keeps_the_fd(void **state)
{
	char path[] = "/tmp/fulmar-pmqos-XXXXXX";
	int tmp = mkstemp(path);
	assert_true(tmp >= 0);
	close(tmp);

	int fd = pm_qos_hold(path, 25);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) >= 0);           /* still open: the request holds */
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);   /* not inherited by what we run */
	int32_t v = -1;
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&v, sizeof v, 1, f), 1);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	assert_int_equal(v, 25);
	pm_qos_release(fd);
	assert_true(fcntl(fd, F_GETFD) < 0);
	unlink(path);
}

static void test_pm_qos_says_why_it_cannot_hold(void **state)
{
	assert_int_equal(pm_qos_hold("/nonexistent/cpu_dma_latency", 0), -ENOENT);
	assert_int_equal(pm_qos_hold("/dev/null", -1), -EINVAL);
	pm_qos_release(-1);    /* a no-op */
}

static void test_pm_qos_holds_the_real_interface_where_there_is_one(void **state)
{
	if (access(PM_QOS_CPU_DMA_LATENCY, W_OK) != 0) {
		print_message("SKIP: %s is absent or not writable here\n", PM_QOS_CPU_DMA_LATENCY);
		skip();
	}
	int fd = pm_qos_hold(PM_QOS_CPU_DMA_LATENCY, 0);
	assert_true(fd >= 0);
	pm_qos_release(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pm_qos_writes_the_latency_as_a_binary_s32_and_keeps_the_fd),
		cmocka_unit_test(test_pm_qos_says_why_it_cannot_hold),
		cmocka_unit_test(test_pm_qos_holds_the_real_interface_where_there_is_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
