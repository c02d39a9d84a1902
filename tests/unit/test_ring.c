// SPDX-License-Identifier: GPL-3.0-or-later
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/ring.h"

static void test_ring_returns_elements_in_order_across_the_wrap(void **state)
{
	struct ring r;
	uint32_t store[8], out[8];
	ring_init(&r, store, 8, sizeof(uint32_t));
	uint32_t next_in = 0, next_out = 0;
	for (int round = 0; round < 100; round++) {
		uint32_t in[5];
		for (int i = 0; i < 5; i++)
			in[i] = next_in++;
		assert_int_equal(ring_write(&r, in, 5), 5);
		assert_int_equal(ring_used(&r), 5);
		assert_int_equal(ring_read(&r, out, 8), 5);
		for (int i = 0; i < 5; i++)
			assert_int_equal(out[i], next_out++);
	}
	assert_int_equal(ring_dropped(&r), 0);
}

static void test_ring_full_drops_the_new_elements_and_counts_them(void **state)
{
	struct ring r;
	uint8_t store[4], out[4];
	ring_init(&r, store, 4, 1);
	assert_int_equal(ring_free(&r), 4);
	assert_int_equal(ring_write(&r, "abcdef", 6), 4);
	assert_int_equal(ring_dropped(&r), 2);
	assert_int_equal(ring_free(&r), 0);
	assert_int_equal(ring_write(&r, "g", 1), 0);
	assert_int_equal(ring_dropped(&r), 3);
	assert_int_equal(ring_read(&r, out, 4), 4);
	assert_memory_equal(out, "abcd", 4);
	assert_int_equal(ring_read(&r, out, 4), 0);
}

static void test_ring_empty_read_gives_nothing(void **state)
{
	struct ring r;
	uint64_t store[2], out;
	ring_init(&r, store, 2, sizeof(uint64_t));
	assert_int_equal(ring_read(&r, &out, 1), 0);
	assert_int_equal(ring_used(&r), 0);
}

/* Two threads: every element arrives once, in order, or is counted as dropped. */
#define STRESS_N 1000000u

struct sample {
	uint64_t seq;
	uint64_t check;  /* ~seq: a torn element shows */
};

static struct ring stress_ring;
static struct sample stress_store[256];

static void *producer(void *arg)
{
	/* Most elements wait for room (so they cross); every 16th is offered once (so some drop). */
	for (uint64_t i = 0; i < STRESS_N; i++) {
		struct sample s = { i, ~i };
		while (i % 16 != 0 && ring_used(&stress_ring) == 256)
			;
		ring_write(&stress_ring, &s, 1);
	}
	return arg;
}

static void test_ring_two_threads_lose_nothing_they_do_not_count(void **state)
{
	ring_init(&stress_ring, stress_store, 256, sizeof(struct sample));
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, producer, NULL), 0);
	uint64_t got = 0, last = 0;
	bool first = true, done = false;
	while (!done) {
		struct sample s[32];
		size_t n = ring_read(&stress_ring, s, 32);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(s[i].check, ~s[i].seq);
			if (!first)
				assert_true(s[i].seq > last);
			first = false;
			last = s[i].seq;
			got++;
			if (s[i].seq == STRESS_N - 1)
				done = true;
		}
		/* The producer may have dropped the very last element: stop once it is finished. */
		if (n == 0 && got + ring_dropped(&stress_ring) == STRESS_N)
			done = true;
	}
	pthread_join(t, NULL);
	assert_true(got > STRESS_N / 2);  /* most crossed; the rest are counted drops */
	got += ring_read(&stress_ring, (struct sample[256]){ 0 }, 256);
	assert_int_equal(got + ring_dropped(&stress_ring), STRESS_N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_returns_elements_in_order_across_the_wrap),
		cmocka_unit_test(test_ring_full_drops_the_new_elements_and_counts_them),
		cmocka_unit_test(test_ring_empty_read_gives_nothing),
		cmocka_unit_test(test_ring_two_threads_lose_nothing_they_do_not_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
