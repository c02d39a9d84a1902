// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* Written before the threads start, read-only afterwards. */
static enum log_level max_level = LOG_LEVEL_INFO;
static int prefix = -1;  /* -1: decide from isatty on first use */

void log_set_level(enum log_level level)
{
	max_level = level;
}

void log_set_prefix(bool on)
{
	prefix = on;
}

void log_print(enum log_level level, const char *tag, const char *fmt, ...)
{
	if (level > max_level)
		return;
	if (prefix < 0)
		prefix = !isatty(STDERR_FILENO);

	/* One write per line, so lines from two threads never interleave. */
	char line[1024];
	int n = prefix ? snprintf(line, sizeof(line), "<%d>%s: ", (int)level, tag)
		       : snprintf(line, sizeof(line), "%s: ", tag);
	if (n < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	size_t len = (size_t)n + (size_t)m;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;  /* nowhere left to report a failed log write */
}
