/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the programs that run inside the kernel-test guest share: a small TAP
 * harness (cmocka is not shipped as a static library) and sysfs/configfs
 * helpers. Single-threaded; one program per bus, each a single source file.
 */
#ifndef FULMAR_KTEST_H
#define FULMAR_KTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
	int run;
	int failed;
	bool failing;
} ktest;

__attribute__((format(printf, 3, 4)))
static inline void ktest_fail(int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	ktest.failing = true;
	printf("#   line %d: %s failed: ", line, cond);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Fails the running test and returns from it; the message is a format and its arguments. */
#define KT_CHECK(cond, ...)                                          \
	do {                                                         \
		if (!(cond)) {                                       \
			ktest_fail(__LINE__, #cond, __VA_ARGS__);    \
			return;                                      \
		}                                                    \
	} while (0)

/* For a call that returns 0 or -errno. */
#define KT_CHECK_OK(expr)                                                          \
	do {                                                                       \
		int kt_rc_ = (expr);                                               \
		KT_CHECK(kt_rc_ == 0, "returned %d (%s)", kt_rc_, strerror(-kt_rc_)); \
	} while (0)

static inline void ktest_run(const char *name, void (*fn)(void))
{
	ktest.failing = false;
	printf("# %s\n", name);
	fflush(stdout);
	fn();
	ktest.run++;
	if (ktest.failing)
		ktest.failed++;
	printf("%s %d - %s\n", ktest.failing ? "not ok" : "ok", ktest.run, name);
	fflush(stdout);
}

#define KT_RUN(fn) ktest_run(#fn, fn)

/* Prints the plan and the summary line; the program's exit status. */
static inline int ktest_done(void)
{
	printf("1..%d\n%d passed, %d failed\n", ktest.run, ktest.run - ktest.failed, ktest.failed);
	return ktest.failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static inline uint64_t ktest_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Writes s to a sysfs or configfs attribute in one write(); 0 or -errno. */
static inline int ktest_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, s, strlen(s));
	int err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

__attribute__((format(printf, 2, 3)))
static inline int ktest_writef(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ktest_write(path, buf);
}

/* Reads an attribute without its trailing newline; its length or -errno. */
static inline int ktest_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return (int)n;
}

static inline int ktest_read_double(const char *path, double *value)
{
	char buf[64], *end;
	int n = ktest_read(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*value = strtod(buf, &end);
	return errno || end == buf ? -EINVAL : 0;
}

static inline int ktest_read_long(const char *path, long *value)
{
	char buf[64], *end;
	int n = ktest_read(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*value = strtol(buf, &end, 0);
	return errno || end == buf ? -EINVAL : 0;
}

#endif
