/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the MAVLink fuzz targets share. */
#ifndef FULMAR_FUZZ_MAVLINK_H
#define FULMAR_FUZZ_MAVLINK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                               \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

#endif
