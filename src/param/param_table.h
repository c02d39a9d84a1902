/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FULMAR_PARAM_TABLE_H
#define FULMAR_PARAM_TABLE_H

/* Room for the whole table; ArduPlane has about a thousand. */
#define PARAM_TABLE_MAX 1024

#endif
