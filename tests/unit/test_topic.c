// SPDX-License-Identifier: GPL-3.0-or-later
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/topic.h"

struct fix {
	double lat_deg, lon_deg;
	float alt_m;
	uint8_t sats;  /* an odd size: the last word is partly used */
};

static void test_topic_reads_nothing_before_the_first_publish(void **state)
{
	struct topic t;
	_Atomic uint32_t store[TOPIC_WORDS(struct fix)];
	topic_init(&t, store, sizeof(struct fix));
	struct fix f = { .sats = 42 };
	assert_int_equal(topic_read(&t, &f), 0);
	assert_int_equal(f.sats, 42);
	assert_int_equal(topic_generation(&t), 0);
}

static void test_topic_returns_the_latest_value_and_its_generation(void **state)
{
	struct topic t;
	_Atomic uint32_t store[TOPIC_WORDS(struct fix)];
	topic_init(&t, store, sizeof(struct fix));
	struct fix a = { 52.5, 13.4, 34.5f, 9 }, b = { -33.9, 151.2, 58.0f, 12 }, out;
	topic_publish(&t, &a);
	assert_int_equal(topic_read(&t, &out), 1);
	assert_true(out.lat_deg == a.lat_deg && out.sats == 9);
	topic_publish(&t, &b);
	assert_int_equal(topic_read(&t, &out), 2);
	assert_true(out.lon_deg == b.lon_deg && out.alt_m == b.alt_m && out.sats == 12);
	assert_int_equal(topic_generation(&t), 2);
}

/* Readers never see a mix of two publishes; generations never go back. */
#define STRESS_N 1000000u

struct big {
	uint64_t v[16];  /* every word equal in a consistent value */
};

static struct topic stress_topic;
static _Atomic uint32_t stress_store[TOPIC_WORDS(struct big)];
static atomic_bool stress_done;

static void *writer(void *arg)
{
	struct big b;
	for (uint64_t i = 1; i <= STRESS_N; i++) {
		for (int k = 0; k < 16; k++)
			b.v[k] = i * 0x0101010101010101ull;
		topic_publish(&stress_topic, &b);
	}
	atomic_store(&stress_done, true);
	return arg;
}

static void test_topic_readers_never_see_a_torn_value(void **state)
{
	topic_init(&stress_topic, stress_store, sizeof(struct big));
	atomic_store(&stress_done, false);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	uint32_t last_gen = 0;
	uint64_t reads = 0;
	while (!atomic_load(&stress_done) || reads == 0) {
		struct big b;
		uint32_t gen = topic_read(&stress_topic, &b);
		if (gen == 0)
			continue;
		assert_true(gen >= last_gen);
		last_gen = gen;
		for (int k = 1; k < 16; k++)
			assert_true(b.v[k] == b.v[0]);
		reads++;
	}
	pthread_join(t, NULL);
	struct big b;
	assert_int_equal(topic_read(&stress_topic, &b), STRESS_N);
	assert_true(b.v[15] == (uint64_t)STRESS_N * 0x0101010101010101ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topic_reads_nothing_before_the_first_publish),
		cmocka_unit_test(test_topic_returns_the_latest_value_and_its_generation),
		cmocka_unit_test(test_topic_readers_never_see_a_torn_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
