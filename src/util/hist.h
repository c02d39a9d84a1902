/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Log-linear histogram of durations in nanoseconds: exact below 32 ns, then 32
 * buckets per power of two (a bucket is at most 1/32 = 3.1 % wide), up to
 * 2^40 ns (18 minutes); longer values land in the last bucket, and the exact
 * maximum is kept apart. One writer thread adds; any thread may read at any time
 * (counts are relaxed atomics, so a reader sees a nearly-consistent picture).
 */
#ifndef FULMAR_UTIL_HIST_H
#define FULMAR_UTIL_HIST_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP 40
#define HIST_BUCKETS (HIST_SUB * (HIST_MAX_EXP - HIST_SUB_BITS + 1))

struct hist {
	_Atomic uint64_t count[HIST_BUCKETS];
	_Atomic uint64_t total;
	_Atomic uint64_t sum_ns;
	_Atomic uint64_t max_ns;
};

void hist_init(struct hist *h);
/* Writer thread only; wait-free, no division. */
void hist_add(struct hist *h, uint64_t v_ns);
/*
 * The value at quantile q (0..1): the upper edge of the bucket holding it, so
 * a reported p99.9 is never below the true one by more than a bucket; the
 * exact maximum for q = 1. 0 when empty.
 */
uint64_t hist_quantile(const struct hist *h, double q);
uint64_t hist_total(const struct hist *h);
uint64_t hist_max(const struct hist *h);
/* Mean in ns, 0 when empty. */
uint64_t hist_mean(const struct hist *h);

/*
 * The histogram as text, for tools that merge runs: a line "PREFIX max NS",
 * then "PREFIX UPPER_NS COUNT" for each non-empty bucket in order (UPPER_NS is
 * the bucket's upper edge, as hist_quantile gives). Not for real-time threads.
 * Returns 0 or -EIO.
 */
int hist_write(const struct hist *h, const char *prefix, FILE *f);

/* Bucket arithmetic, exposed for tests. */
unsigned int hist_bucket(uint64_t v_ns);
uint64_t hist_bucket_upper(unsigned int bucket);

#endif
