// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The estimator's parts (estim_internal.h says which file holds what),
 * compiled as one translation unit: what they share is static here, so the
 * compiler inlines the filter step across them as it did when they were one
 * file. Compiled apart they cost 1 % more per main loop (tools/bench-loop:
 * 37.1k instructions against 36.7k).
 */
#define ESTIM_INTERNAL static

#include "estim.c"
#include "estim_airspeed.c"
#include "estim_align.c"
#include "estim_baro.c"
#include "estim_cov.c"
#include "estim_fuse.c"
#include "estim_gps.c"
#include "estim_health.c"
#include "estim_intake.c"
#include "estim_mag.c"
#include "estim_strapdown.c"
