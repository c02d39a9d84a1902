// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/errmsg.h"

#include <errno.h>
#include <stdio.h>

int errmsg_vat(char *err, size_t err_len, const char *name, unsigned int line, const char *fmt,
	       va_list ap)
{
	int n = snprintf(err, err_len, "%s:%u: ", name, line);
	if (n >= 0 && (size_t)n < err_len)
		vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
	return -EINVAL;
}

int errmsg_at(char *err, size_t err_len, const char *name, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = errmsg_vat(err, err_len, name, line, fmt, ap);
	va_end(ap);
	return rc;
}
