// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/ring.h"

#include <assert.h>
#include <string.h>

void ring_init(struct ring *r, void *storage, uint32_t count, uint32_t elem_size)
{
	assert(count >= 2 && (count & (count - 1)) == 0);
	assert(elem_size > 0);
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->dropped, 0);
	r->mask = count - 1;
	r->elem_size = elem_size;
	r->buf = storage;
}

/*
 * head and tail run freely over uint32_t and wrap; head - tail is the fill
 * level as long as the capacity is below 2^31, which ring_init's count keeps.
 */
static void copy_in(struct ring *r, uint32_t pos, const unsigned char *src, size_t n)
{
	size_t cap = (size_t)r->mask + 1;
	size_t at = pos & r->mask;
	size_t first = n < cap - at ? n : cap - at;
	memcpy(r->buf + at * r->elem_size, src, first * r->elem_size);
	memcpy(r->buf, src + first * r->elem_size, (n - first) * r->elem_size);
}

static void copy_out(const struct ring *r, uint32_t pos, unsigned char *dst, size_t n)
{
	size_t cap = (size_t)r->mask + 1;
	size_t at = pos & r->mask;
	size_t first = n < cap - at ? n : cap - at;
	memcpy(dst, r->buf + at * r->elem_size, first * r->elem_size);
	memcpy(dst + first * r->elem_size, r->buf, (n - first) * r->elem_size);
}

size_t ring_write(struct ring *r, const void *elems, size_t n)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t space = (size_t)r->mask + 1 - (uint32_t)(head - tail);
	size_t k = n < space ? n : space;
	if (k > 0) {
		copy_in(r, head, elems, k);
		atomic_store_explicit(&r->head, head + (uint32_t)k, memory_order_release);
	}
	if (k < n)
		ring_count_dropped(r, n - k);
	return k;
}

size_t ring_read(struct ring *r, void *elems, size_t n)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t avail = (uint32_t)(head - tail);
	size_t k = n < avail ? n : avail;
	if (k > 0) {
		copy_out(r, tail, elems, k);
		atomic_store_explicit(&r->tail, tail + (uint32_t)k, memory_order_release);
	}
	return k;
}

size_t ring_free(const struct ring *r)
{
	return (size_t)r->mask + 1 - ring_used(r);
}

void ring_count_dropped(struct ring *r, size_t n)
{
	uint64_t d = atomic_load_explicit(&r->dropped, memory_order_relaxed);
	atomic_store_explicit(&r->dropped, d + n, memory_order_relaxed);
}

size_t ring_used(const struct ring *r)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	return (uint32_t)(head - tail);
}

uint64_t ring_dropped(const struct ring *r)
{
	return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}
