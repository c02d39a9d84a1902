// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Analog inputs that a kernel module hands out as one decimal number of
 * millivolts per file, as the Navio2's RCIO module does under
 * /sys/kernel/rcio/adc (ch0..ch5: "%d\n" of the co-processor's ADC register,
 * which ArduPilot's AnalogIn_Navio2.cpp reads as millivolts). The file stays
 * open and every read is a pread at offset 0, as sysfs wants.
 *
 * Bad input is an error, never a value: a file that is gone or unreadable
 * (-errno), text that is not one whole number within 0..ANALOG_SYSFS_MAX_MV
 * (-EBADMSG). A value that does not move is a value: a pack on a bench supply
 * can read the same millivolts for minutes, and a co-processor that stops
 * answering is said by the module's status/alive (the RC input reads it).
 * Each kind of fault is
 * logged once when it starts and once when good values come back (the io
 * thread, which may write), and counted (analog_sysfs_stats).
 */
#include "linux/hal_linux.h"

#define LOG_TAG "adc"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

struct analog_sysfs {
	struct analog_in in;        /* first: the HAL hands out &in */
	int fd;                     /* -1 while the file is gone */
	char path[PATH_MAX];
	int fault;                  /* the fault being reported (0: none) */
	struct analog_sysfs_stats stats;
};

static struct analog_sysfs *analog_sysfs_of(struct analog_in *in)
{
	return (struct analog_sysfs *)(void *)in;
}

/* A whole decimal number, with the newline sysfs ends it with. */
static int parse_mv(const char *s, long *mv)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || errno)
		return -EBADMSG;
	if (*end == '\n')
		end++;
	if (*end || v < 0 || v > ANALOG_SYSFS_MAX_MV)
		return -EBADMSG;
	*mv = v;
	return 0;
}

static void report(struct analog_sysfs *a, int rc, const char *text)
{
	if (rc == a->fault)
		return;
	if (rc == -EBADMSG)
		log_warn("%s holds '%s', not a number of millivolts in 0..%d: no reading",
			 a->path, text, ANALOG_SYSFS_MAX_MV);
	else if (rc)
		log_warn("%s: %s: no reading", a->path, strerror(-rc));
	else
		log_info("%s: readings again", a->path);
	a->fault = rc;
}

static int read_text(struct analog_sysfs *a, char *buf, size_t cap)
{
	if (a->fd < 0) {
		/* The module was reloaded, or the file never came: look again. */
		a->fd = open(a->path, O_RDONLY | O_CLOEXEC);
		if (a->fd < 0)
			return -errno;
	}
	ssize_t n;
	do
		n = pread(a->fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int rc = -errno;
		close(a->fd);
		a->fd = -1;
		return rc;
	}
	buf[n] = '\0';
	return 0;
}

static int analog_sysfs_read(struct analog_in *in, double *value)
{
	struct analog_sysfs *a = analog_sysfs_of(in);
	char buf[32];
	long mv = 0;

	int rc = read_text(a, buf, sizeof(buf));
	if (rc) {
		a->stats.read_errors++;
		buf[0] = '\0';
	} else if ((rc = parse_mv(buf, &mv)) != 0) {
		a->stats.garbage++;
		buf[strcspn(buf, "\n")] = '\0';
	}
	report(a, rc, buf);
	if (rc)
		return rc;
	*value = (double)mv;
	return 0;
}

static void analog_sysfs_close(struct analog_in *in)
{
	struct analog_sysfs *a = analog_sysfs_of(in);

	if (a->fd >= 0)
		close(a->fd);
	free(a);
}

static const struct analog_ops analog_sysfs_ops = {
	.read = analog_sysfs_read,
	.close = analog_sysfs_close,
};

int analog_sysfs_open(const struct analog_config *cfg, struct analog_in **out)
{
	struct analog_sysfs *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	int n = snprintf(a->path, sizeof(a->path), "%s/%s", cfg->device, cfg->channel);
	if (n < 0 || (size_t)n >= sizeof(a->path)) {
		free(a);
		return -ENAMETOOLONG;
	}
	a->fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (a->fd < 0) {
		int rc = errno == ENOENT ? -ENODEV : -errno;
		free(a);
		return rc;
	}
	a->in.ops = &analog_sysfs_ops;
	*out = &a->in;
	return 0;
}

const struct analog_sysfs_stats *analog_sysfs_stats(const struct analog_in *in)
{
	return &((const struct analog_sysfs *)(const void *)in)->stats;
}
