// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/hist.h"

#include <errno.h>

void hist_init(struct hist *h)
{
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		atomic_init(&h->count[i], 0);
	atomic_init(&h->total, 0);
	atomic_init(&h->sum_ns, 0);
	atomic_init(&h->max_ns, 0);
}

unsigned int hist_bucket(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned int)v;
	unsigned int e = 63u - (unsigned int)__builtin_clzll(v);  /* floor(log2 v) >= HIST_SUB_BITS */
	if (e >= HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	unsigned int sub = (unsigned int)(v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return (e - HIST_SUB_BITS + 1) * HIST_SUB + sub;
}

uint64_t hist_bucket_upper(unsigned int b)
{
	if (b < HIST_SUB)
		return b;
	unsigned int e = b / HIST_SUB + HIST_SUB_BITS - 1;
	uint64_t sub = b % HIST_SUB;
	uint64_t lower = ((uint64_t)HIST_SUB + sub) << (e - HIST_SUB_BITS);
	return lower + (1ull << (e - HIST_SUB_BITS)) - 1;
}

/* Single writer: a relaxed load and store is an increment nobody else races. */
static void bump(_Atomic uint64_t *c, uint64_t by)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by,
			      memory_order_relaxed);
}

void hist_add(struct hist *h, uint64_t v)
{
	bump(&h->count[hist_bucket(v)], 1);
	bump(&h->total, 1);
	bump(&h->sum_ns, v);
	if (v > atomic_load_explicit(&h->max_ns, memory_order_relaxed))
		atomic_store_explicit(&h->max_ns, v, memory_order_relaxed);
}

uint64_t hist_total(const struct hist *h)
{
	return atomic_load_explicit(&h->total, memory_order_relaxed);
}

uint64_t hist_max(const struct hist *h)
{
	return atomic_load_explicit(&h->max_ns, memory_order_relaxed);
}

uint64_t hist_mean(const struct hist *h)
{
	uint64_t n = hist_total(h);
	return n ? atomic_load_explicit(&h->sum_ns, memory_order_relaxed) / n : 0;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t max = hist_max(h);
	uint64_t n = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		n += atomic_load_explicit(&h->count[i], memory_order_relaxed);
	if (n == 0)
		return 0;
	if (q >= 1.0)
		return max;
	/* The rank of the sample at q, counting from 1. */
	uint64_t rank = (uint64_t)(q * (double)n);
	if ((double)rank < q * (double)n || rank == 0)
		rank++;
	uint64_t seen = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += atomic_load_explicit(&h->count[i], memory_order_relaxed);
		if (seen >= rank) {
			uint64_t up = hist_bucket_upper(i);
			return up < max ? up : max;
		}
	}
	return max;
}

int hist_write(const struct hist *h, const char *prefix, FILE *f)
{
	int bad = fprintf(f, "%s max %llu\n", prefix, (unsigned long long)hist_max(h)) < 0;
	for (unsigned int i = 0; i < HIST_BUCKETS && !bad; i++) {
		uint64_t c = atomic_load_explicit(&h->count[i], memory_order_relaxed);
		if (c)
			bad = fprintf(f, "%s %llu %llu\n", prefix,
				      (unsigned long long)hist_bucket_upper(i), (unsigned long long)c) < 0;
	}
	return bad ? -EIO : 0;
}
