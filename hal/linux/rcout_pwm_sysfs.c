// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Servo outputs on the kernel's PWM sysfs class
 * (Documentation/driver-api/pwm.rst, "Using PWMs with the sysfs interface"):
 * writing N to the chip's "export" creates pwmN/ with "enable", "period" and
 * "duty_cycle" (decimal nanoseconds) and "polarity" ("normal"/"inversed").
 *
 * Facts that shape this file (docs/navio2-blue-facts.md, A4):
 *   - the kernel refuses a duty_cycle above the period, and a period below the
 *     duty_cycle; a freshly exported channel has period 0, where some kernels
 *     refuse any duty_cycle. Hence the order at open: enable 0, duty 0 only if
 *     a period is already set, the period, duty 0, polarity, enable 1.
 *   - writing "export" for a channel that is exported already gives EBUSY:
 *     a channel left exported (by a crashed run) is ours to take.
 *   - the Navio2's RCIO module passes the outputs on only while duty_cycle or
 *     period was written in the last 100 ms; rcout_pwm_sysfs_refresh keeps
 *     them fresh. Its rate is per group of four channels, and only a period
 *     written to a group's first channel changes it.
 *   - open question, to check on a Navio2: the kernel's PWM core skips a
 *     state equal to the last one applied (drivers/pwm/core.c: the early
 *     return in pwm_apply_state/__pwm_apply, and the legacy path that calls
 *     ->config only when period or duty changed). If the Navio2's kernel does
 *     so, rewriting an unchanged width never reaches rcio_pwm_config, where
 *     the 100 ms timer is pushed back, and a width held steady for 100 ms
 *     would stop being sent; what the RCIO firmware then does is not known.
 *
 * The refresh rewrites widths unchanged all the same, as the brief of issue
 * 41 and ArduPilot's RCOutput_Sysfs (which rewrites on every loop) do.
 *
 * Each channel's duty_cycle stays open: a width is one pwrite, with no
 * open/close on the flight path. sysfs takes every write whole, from offset 0.
 * Values are written with a newline, as echo does; the kernel accepts one.
 */
#include "linux/rcout_pwm_sysfs.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS_PER_US 1000u
#define NS_PER_S 1000000000u
#define RATE_DEFAULT_HZ 50u
/* "4294967295\n" and a NUL, with room to see garbage. */
#define VALUE_CAP 32u

struct pwm_channel {
	int duty_fd;                /* pwmN/duty_cycle, or -1 */
	uint32_t period_ns;
	uint32_t duty_ns;           /* the width asked for last (0: no pulses) */
	bool exported;              /* we wrote export (or it was exported already) */
	bool dirty;                 /* duty_ns has not reached sysfs yet */
};

struct rcout_pwm_sysfs {
	struct rcout out;           /* first: the HAL hands out &out */
	int dir_fd;                 /* the chip's directory */
	char *chip_dir;             /* for messages */
	uint64_t refresh_us;        /* when every channel was last rewritten */
	bool refreshed;             /* refresh_us is set */
	struct rcout_pwm_sysfs_stats stats;
	struct pwm_channel ch[RCOUT_PWM_SYSFS_MAX_CHANNELS];
};

static struct rcout_pwm_sysfs *pwm_of(struct rcout *out)
{
	return (struct rcout_pwm_sysfs *)(void *)out;
}

static void say(char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err || err_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	do
		n = write(fd, s, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* A sysfs store takes the whole buffer or fails; less is not a store. */
	return (size_t)n == len ? 0 : -EIO;
}

/* One value into one attribute (name relative to the chip's directory). */
static int attr_write(int dir_fd, const char *name, const char *value)
{
	/* O_TRUNC is what a shell's ">" asks for; sysfs ignores it. */
	int fd = openat(dir_fd, name, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = write_all(fd, value, strlen(value));
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int attr_write_u32(int dir_fd, const char *name, uint32_t v)
{
	char buf[VALUE_CAP];

	snprintf(buf, sizeof(buf), "%u\n", (unsigned int)v);
	return attr_write(dir_fd, name, buf);
}

static int duty_write(int fd, uint32_t duty_ns)
{
	char buf[VALUE_CAP];
	int len = snprintf(buf, sizeof(buf), "%u\n", (unsigned int)duty_ns);
	ssize_t n;

	do
		n = pwrite(fd, buf, (size_t)len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

/* Reads what fd holds from offset 0 into buf, NUL-terminated. */
static int fd_read_text(int fd, char *buf, size_t cap)
{
	ssize_t n;

	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int attr_read_text(int dir_fd, const char *name, char *buf, size_t cap)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fd_read_text(fd, buf, cap);
	close(fd);
	return rc;
}

/*
 * A sysfs number: decimal digits, then a newline or the end (whitespace after
 * the newline is let pass). Anything else is not a PWM attribute: -EIO.
 */
static int parse_u32(const char *s, uint32_t *v)
{
	uint64_t acc = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EIO;
	for (; *p >= '0' && *p <= '9'; p++) {
		acc = acc * 10u + (uint64_t)(*p - '0');
		if (acc > UINT32_MAX)
			return -EIO;
	}
	for (; *p; p++)
		if (*p != '\n' && *p != ' ' && *p != '\t')
			return -EIO;
	*v = (uint32_t)acc;
	return 0;
}

/* The text of a bad value, for a message: the first line, printable. */
static const char *shown(char *buf)
{
	for (char *p = buf; *p; p++) {
		if (*p == '\n') {
			*p = '\0';
			break;
		}
		if (*p < ' ' || *p > '~')
			*p = '?';
	}
	return buf;
}

static int attr_read_u32(struct rcout_pwm_sysfs *s, const char *name, uint32_t *v,
			 char *err, size_t err_len)
{
	char buf[VALUE_CAP];

	int rc = attr_read_text(s->dir_fd, name, buf, sizeof(buf));
	if (rc < 0) {
		say(err, err_len, "%s/%s: cannot read: %s", s->chip_dir, name, strerror(-rc));
		return rc;
	}
	rc = parse_u32(buf, v);
	if (rc < 0)
		say(err, err_len, "%s/%s: \"%s\" is not a number: not a PWM chip?", s->chip_dir,
		    name, shown(buf));
	return rc;
}

static int rcout_pwm_sysfs_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	struct rcout_pwm_sysfs *s = pwm_of(out);
	uint32_t period_ns = NS_PER_S / rate_hz;
	uint32_t groups = 0;          /* bit g: group g is named in mask */
	int rc = 0;

	for (unsigned int c = 0; c < out->channels; c++)
		if (mask & (1u << c))
			groups |= 1u << (c / RCOUT_PWM_SYSFS_GROUP);
	for (unsigned int c = 0; c < out->channels; c++) {
		if ((groups & (1u << (c / RCOUT_PWM_SYSFS_GROUP))) && s->ch[c].duty_ns >= period_ns &&
		    s->ch[c].duty_ns != 0) {
			s->stats.refused++;
			return -EINVAL;
		}
	}
	/* In channel order, so each group's first channel is written first. */
	for (unsigned int c = 0; c < out->channels; c++) {
		char name[32];

		if (!(groups & (1u << (c / RCOUT_PWM_SYSFS_GROUP))))
			continue;
		snprintf(name, sizeof(name), "pwm%u/period", c);
		int w = attr_write_u32(s->dir_fd, name, period_ns);
		if (w < 0) {
			s->stats.write_errors++;
			if (rc == 0)
				rc = w;
			continue;
		}
		s->ch[c].period_ns = period_ns;
	}
	return rc;
}

static int rcout_pwm_sysfs_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct rcout_pwm_sysfs *s = pwm_of(out);
	struct pwm_channel *c = &s->ch[ch];
	uint32_t duty_ns = (uint32_t)pulse_us * NS_PER_US;

	/* Equal to the period would be a constant high: no pulse edge at all. */
	if (duty_ns >= c->period_ns && duty_ns != 0) {
		s->stats.refused++;
		return -EINVAL;
	}
	c->duty_ns = duty_ns;
	int rc = duty_write(c->duty_fd, duty_ns);
	c->dirty = rc < 0;
	if (rc < 0)
		s->stats.write_errors++;
	return rc;
}

static int rcout_pwm_sysfs_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	struct rcout_pwm_sysfs *s = pwm_of(out);
	char buf[VALUE_CAP];
	uint32_t ns = 0;
	uint64_t us = 0;

	int rc = fd_read_text(s->ch[ch].duty_fd, buf, sizeof(buf));
	if (rc == 0)
		rc = parse_u32(buf, &ns);
	if (rc == 0) {
		us = ((uint64_t)ns + NS_PER_US / 2) / NS_PER_US;
		if (us > UINT16_MAX)
			rc = -EIO;
	}
	if (rc < 0) {
		s->stats.read_errors++;
		return rc;
	}
	*pulse_us = (uint16_t)us;
	return 0;
}

int rcout_pwm_sysfs_refresh(struct rcout *out, uint64_t now_us)
{
	struct rcout_pwm_sysfs *s = pwm_of(out);
	bool all = !s->refreshed || now_us - s->refresh_us >= RCOUT_PWM_SYSFS_REFRESH_US;
	int rc = 0;

	for (unsigned int ch = 0; ch < out->channels; ch++) {
		struct pwm_channel *c = &s->ch[ch];

		if (!all && !c->dirty)
			continue;
		int w = duty_write(c->duty_fd, c->duty_ns);
		c->dirty = w < 0;
		if (w < 0) {
			s->stats.write_errors++;
			rc = -EIO;
		}
	}
	if (all) {
		s->refresh_us = now_us;
		s->refreshed = true;
		s->stats.refreshes++;
	}
	return rc;
}

const struct rcout_pwm_sysfs_stats *rcout_pwm_sysfs_stats(const struct rcout *out)
{
	return &((const struct rcout_pwm_sysfs *)(const void *)out)->stats;
}

/*
 * Off, then gone: width 0 first so that no pulse is sent whatever the kernel
 * does with enable, then enable 0, then unexport. Errors cannot be reported
 * from here (rcout_close is void) and each step is still worth trying.
 */
static void pwm_channel_release(struct rcout_pwm_sysfs *s, unsigned int ch)
{
	struct pwm_channel *c = &s->ch[ch];
	char name[32];

	if (c->duty_fd >= 0) {
		(void)duty_write(c->duty_fd, 0);
		close(c->duty_fd);
		c->duty_fd = -1;
	}
	if (!c->exported)
		return;
	snprintf(name, sizeof(name), "pwm%u/enable", ch);
	(void)attr_write(s->dir_fd, name, "0\n");
	(void)attr_write_u32(s->dir_fd, "unexport", ch);
	c->exported = false;
}

static void pwm_free(struct rcout_pwm_sysfs *s)
{
	for (unsigned int ch = 0; ch < RCOUT_PWM_SYSFS_MAX_CHANNELS; ch++)
		pwm_channel_release(s, ch);
	close(s->dir_fd);
	free(s->chip_dir);
	free(s);
}

static void rcout_pwm_sysfs_close(struct rcout *out)
{
	pwm_free(pwm_of(out));
}

static const struct rcout_ops rcout_pwm_sysfs_ops = {
	.set_rate = rcout_pwm_sysfs_set_rate,
	.write = rcout_pwm_sysfs_write,
	.read = rcout_pwm_sysfs_read,
	.close = rcout_pwm_sysfs_close,
};

/*
 * Exports every channel before any is set up, so that a chip missing some
 * channels is refused before an output is touched. Returns how many failed,
 * naming them in err.
 */
static unsigned int pwm_export_all(struct rcout_pwm_sysfs *s, unsigned int channels,
				   char *err, size_t err_len)
{
	unsigned int failed = 0;
	size_t used = 0;
	char list[256] = "";

	for (unsigned int ch = 0; ch < channels; ch++) {
		struct pwm_channel *c = &s->ch[ch];
		char name[32];

		int rc = attr_write_u32(s->dir_fd, "export", ch);
		if (rc == 0 || rc == -EBUSY) {
			c->exported = true;
			snprintf(name, sizeof(name), "pwm%u/duty_cycle", ch);
			c->duty_fd = openat(s->dir_fd, name, O_RDWR | O_CLOEXEC);
			rc = c->duty_fd < 0 ? -errno : 0;
		}
		if (rc == 0)
			continue;
		failed++;
		if (used < sizeof(list)) {
			int n = snprintf(list + used, sizeof(list) - used, "%spwm%u (%s)",
					 failed > 1 ? ", " : "", ch, strerror(-rc));
			used += n > 0 ? (size_t)n : 0;
		}
	}
	if (failed)
		say(err, err_len, "%s: %u of %u channels would not export: %s", s->chip_dir, failed,
		    channels, list);
	return failed;
}

/* The order matters: see the top of the file. */
static int pwm_channel_setup(struct rcout_pwm_sysfs *s, unsigned int ch, char *err, size_t err_len)
{
	struct pwm_channel *c = &s->ch[ch];
	char name[32];
	uint32_t old_period;
	int rc;

	snprintf(name, sizeof(name), "pwm%u/enable", ch);
	rc = attr_write(s->dir_fd, name, "0\n");
	if (rc < 0)
		goto err_write;
	snprintf(name, sizeof(name), "pwm%u/period", ch);
	rc = attr_read_u32(s, name, &old_period, err, err_len);
	if (rc < 0)
		return rc;
	if (old_period != 0) {
		snprintf(name, sizeof(name), "pwm%u/duty_cycle", ch);
		rc = duty_write(c->duty_fd, 0);
		if (rc < 0)
			goto err_write;
	}
	c->period_ns = NS_PER_S / RATE_DEFAULT_HZ;
	snprintf(name, sizeof(name), "pwm%u/period", ch);
	rc = attr_write_u32(s->dir_fd, name, c->period_ns);
	if (rc < 0)
		goto err_write;
	snprintf(name, sizeof(name), "pwm%u/duty_cycle", ch);
	rc = duty_write(c->duty_fd, 0);
	if (rc < 0)
		goto err_write;
	snprintf(name, sizeof(name), "pwm%u/polarity", ch);
	rc = attr_write(s->dir_fd, name, "normal\n");
	if (rc < 0)
		goto err_write;
	snprintf(name, sizeof(name), "pwm%u/enable", ch);
	rc = attr_write(s->dir_fd, name, "1\n");
	if (rc < 0)
		goto err_write;
	return 0;

err_write:
	say(err, err_len, "%s/%s: the kernel refused the write: %s", s->chip_dir, name,
	    strerror(-rc));
	return rc;
}

int rcout_pwm_sysfs_open(const char *chip_dir, unsigned int channels, struct rcout **out,
			 char *err, size_t err_len)
{
	uint32_t npwm;
	int rc;

	assert(chip_dir && out);
	if (channels == 0 || channels > RCOUT_PWM_SYSFS_MAX_CHANNELS) {
		say(err, err_len, "%s: %u channels asked, 1..%u possible", chip_dir, channels,
		    RCOUT_PWM_SYSFS_MAX_CHANNELS);
		return -EINVAL;
	}

	struct rcout_pwm_sysfs *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (unsigned int ch = 0; ch < RCOUT_PWM_SYSFS_MAX_CHANNELS; ch++)
		s->ch[ch].duty_fd = -1;
	s->chip_dir = strdup(chip_dir);
	if (!s->chip_dir) {
		rc = -ENOMEM;
		goto err_free;
	}
	s->dir_fd = open(chip_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dir_fd < 0) {
		rc = -errno;
		if (rc == -ENOENT || rc == -ENOTDIR) {
			say(err, err_len, "%s: no such PWM chip (is its kernel driver loaded?)",
			    chip_dir);
			rc = -ENODEV;
		} else {
			say(err, err_len, "%s: %s", chip_dir, strerror(-rc));
		}
		goto err_free_dir;
	}

	rc = attr_read_u32(s, "npwm", &npwm, err, err_len);
	if (rc < 0)
		goto err_close;
	if (channels > npwm) {
		say(err, err_len, "%s: %u channels asked, the chip has %u", chip_dir, channels,
		    (unsigned int)npwm);
		rc = -EINVAL;
		goto err_close;
	}

	s->out.ops = &rcout_pwm_sysfs_ops;
	s->out.channels = channels;
	if (pwm_export_all(s, channels, err, err_len) > 0) {
		rc = -EIO;
		goto err_release;
	}
	for (unsigned int ch = 0; ch < channels; ch++) {
		rc = pwm_channel_setup(s, ch, err, err_len);
		if (rc < 0)
			goto err_release;
	}
	*out = &s->out;
	return 0;

err_release:
	pwm_free(s);
	return rc;
err_close:
	close(s->dir_fd);
err_free_dir:
	free(s->chip_dir);
err_free:
	free(s);
	return rc;
}
