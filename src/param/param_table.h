/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FULMAR_PARAM_TABLE_H
#define FULMAR_PARAM_TABLE_H

#include "param/param.h"

/* Room for the whole table; ArduPlane has about a thousand. */
#define PARAM_TABLE_MAX 1024

/* Every row of every kind (param_table.c), sorted by name; the same name may
 * appear once for each kind that has it. */
extern const struct param_def param_table[];
extern const unsigned int param_table_count;

#endif
