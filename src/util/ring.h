/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lock-free single-producer/single-consumer ring of fixed-size elements
 * (IMU samples, log records, serial bytes). Exactly one thread writes and one
 * thread reads; each side is wait-free. A full ring drops what does not fit and
 * counts it: a producer never blocks.
 */
#ifndef FULMAR_UTIL_RING_H
#define FULMAR_UTIL_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RING_CACHE_LINE 64

struct ring {
	alignas(RING_CACHE_LINE) _Atomic uint32_t head;  /* next slot to write; producer's */
	alignas(RING_CACHE_LINE) _Atomic uint32_t tail;  /* next slot to read; consumer's */
	alignas(RING_CACHE_LINE) _Atomic uint64_t dropped;  /* elements refused; producer's */
	uint32_t mask;
	uint32_t elem_size;
	unsigned char *buf;
};

/*
 * storage holds count elements of elem_size bytes; count is a power of two
 * (asserted). The ring does not own storage.
 */
void ring_init(struct ring *r, void *storage, uint32_t count, uint32_t elem_size);

/* Producer: copies up to n elements in; returns how many fit. The rest are counted as dropped. */
size_t ring_write(struct ring *r, const void *elems, size_t n);
/* Consumer: copies up to n elements out, oldest first; returns how many. */
size_t ring_read(struct ring *r, void *elems, size_t n);
/*
 * Producer: room for this many elements now (it only grows until the producer
 * writes), for records that must go whole or not at all.
 */
size_t ring_free(const struct ring *r);
/* Producer: counts n elements as dropped without offering them (a record that did not fit). */
void ring_count_dropped(struct ring *r, size_t n);
/* Either side: elements waiting (a snapshot). */
size_t ring_used(const struct ring *r);
/* Either side: how many elements the producer has had to drop since init. */
uint64_t ring_dropped(const struct ring *r);

#endif
