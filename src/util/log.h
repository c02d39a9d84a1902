/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Text logging to stderr with syslog "<N>" priority prefixes, which journald
 * keeps as priorities. Formats strings and writes a file descriptor, so it is
 * for start-up, shutdown and the non-real-time threads only; the timer and
 * main paths count errors and push binary records instead.
 *
 * A file defines LOG_TAG before including this header.
 */
#ifndef FULMAR_UTIL_LOG_H
#define FULMAR_UTIL_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARN = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Set once at start-up, before any thread starts. Default: info. */
void log_set_level(enum log_level level);
/* Whether the "<N>" prefixes are written (default: when stderr is not a terminal). */
void log_set_prefix(bool on);
void log_print(enum log_level level, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...) log_print(LOG_LEVEL_ERR, LOG_TAG, __VA_ARGS__)
#define log_warn(...) log_print(LOG_LEVEL_WARN, LOG_TAG, __VA_ARGS__)
#define log_info(...) log_print(LOG_LEVEL_INFO, LOG_TAG, __VA_ARGS__)
#define log_debug(...) log_print(LOG_LEVEL_DEBUG, LOG_TAG, __VA_ARGS__)

#endif
