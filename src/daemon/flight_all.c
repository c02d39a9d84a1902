// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The flight's files as one translation unit (flight_internal.h): the main
 * loop's records are static and inlined into flight_task as when they were
 * one file (tools/bench-loop's instructions a loop).
 */
#define FLIGHT_ONE_UNIT

#include "flight.c"
#include "flight_gcs.c"
#include "flight_records.c"
