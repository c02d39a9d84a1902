// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/topic.h"

#include <assert.h>
#include <string.h>

void topic_init(struct topic *t, _Atomic uint32_t *storage, size_t size)
{
	assert(size > 0 && size <= UINT32_MAX);
	atomic_init(&t->seq, 0);
	t->size = (uint32_t)size;
	t->words = storage;
	for (size_t i = 0; i < (size + 3) / 4; i++)
		atomic_init(&storage[i], 0);
}

void topic_publish(struct topic *t, const void *value)
{
	size_t nwords = (t->size + 3) / 4;
	uint32_t seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
	/* Orders the odd sequence before every word store below. */
	atomic_thread_fence(memory_order_release);
	const unsigned char *src = value;
	for (size_t i = 0; i < nwords; i++) {
		uint32_t w = 0;
		size_t n = t->size - i * 4 < 4 ? t->size - i * 4 : 4;
		memcpy(&w, src + i * 4, n);
		atomic_store_explicit(&t->words[i], w, memory_order_relaxed);
	}
	atomic_store_explicit(&t->seq, seq + 2, memory_order_release);
}

uint32_t topic_read(const struct topic *t, void *out)
{
	size_t nwords = (t->size + 3) / 4;
	unsigned char *dst = out;
	for (;;) {
		uint32_t s1 = atomic_load_explicit(&t->seq, memory_order_acquire);
		if (s1 == 0)
			return 0;
		if (s1 & 1)
			continue;
		/* A torn copy is overwritten by the retry; only a consistent one is returned. */
		for (size_t i = 0; i < nwords; i++) {
			uint32_t w = atomic_load_explicit(&t->words[i], memory_order_relaxed);
			size_t n = t->size - i * 4 < 4 ? t->size - i * 4 : 4;
			memcpy(dst + i * 4, &w, n);
		}
		/* Orders the word loads before the re-check of the sequence. */
		atomic_thread_fence(memory_order_acquire);
		uint32_t s2 = atomic_load_explicit(&t->seq, memory_order_relaxed);
		if (s1 == s2)
			return s1 / 2;
	}
}

uint32_t topic_generation(const struct topic *t)
{
	return atomic_load_explicit(&t->seq, memory_order_acquire) / 2;
}
