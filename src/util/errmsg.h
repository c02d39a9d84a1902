/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One line for people about a bad line of a file: "name:line: reason". */
#ifndef FULMAR_UTIL_ERRMSG_H
#define FULMAR_UTIL_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>

/* Writes "name:line: " and the formatted reason into err (cut to err_len). Returns -EINVAL. */
int errmsg_at(char *err, size_t err_len, const char *name, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int errmsg_vat(char *err, size_t err_len, const char *name, unsigned int line, const char *fmt,
	       va_list ap) __attribute__((format(printf, 5, 0)));

#endif
