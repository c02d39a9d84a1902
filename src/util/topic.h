/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Seqlocked latest-value topic (vehicle state, GPS fix, RC frame, setpoints).
 * One writer thread publishes; any number of readers copy the whole value and
 * learn from the generation whether it is new. The writer never waits; a
 * reader retries only while a publish is in progress.
 *
 * The value lives in 32-bit atomic words so that the concurrent copy is
 * well-defined C11 (and clean under ThreadSanitizer), not a tolerated race.
 */
#ifndef FULMAR_UTIL_TOPIC_H
#define FULMAR_UTIL_TOPIC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Words of storage a value of type T needs: _Atomic uint32_t store[TOPIC_WORDS(T)]. */
#define TOPIC_WORDS(T) ((sizeof(T) + sizeof(uint32_t) - 1) / sizeof(uint32_t))

struct topic {
	_Atomic uint32_t seq;     /* odd while a publish is in progress; 2 x generation */
	uint32_t size;            /* bytes of the value */
	_Atomic uint32_t *words;  /* TOPIC_WORDS(value) words */
};

/* storage: at least TOPIC_WORDS of size words. Generation starts at 0 (nothing published). */
void topic_init(struct topic *t, _Atomic uint32_t *storage, size_t size);
/* Writer thread only. */
void topic_publish(struct topic *t, const void *value);
/*
 * Any thread: copies the latest value into out (size bytes) and returns its
 * generation, 1 for the first publish and counting up; 0 means nothing was
 * published yet and out is untouched.
 */
uint32_t topic_read(const struct topic *t, void *out);
/* Any thread: the generation without a copy. */
uint32_t topic_generation(const struct topic *t);

#endif
