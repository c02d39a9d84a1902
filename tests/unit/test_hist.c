// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hist.h"

static struct hist h;

static void test_hist_bucket_edges_hold_their_values(void **state)
{
	/* Every value lies at or below its bucket's upper edge and above the previous one's. */
	for (uint64_t v = 0; v < 100000; v += 7) {
		unsigned int b = hist_bucket(v);
		assert_true(v <= hist_bucket_upper(b));
		if (b > 0)
			assert_true(v > hist_bucket_upper(b - 1));
	}
	for (unsigned int e = 6; e < 40; e++) {
		uint64_t v = (1ull << e) + 12345;
		unsigned int b = hist_bucket(v);
		assert_true(v <= hist_bucket_upper(b) && v > hist_bucket_upper(b - 1));
		/* Width at most 1/32 of the value. */
		assert_true((hist_bucket_upper(b) - hist_bucket_upper(b - 1)) * 32 <= v);
	}
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_hist_quantiles_of_a_uniform_spread_are_within_a_bucket(void **state)
{
	hist_init(&h);
	for (uint64_t v = 1; v <= 10000; v++)
		hist_add(&h, v * 1000);  /* 1 us .. 10 ms */
	assert_int_equal(hist_total(&h), 10000);
	assert_int_equal(hist_max(&h), 10000000);
	double qs[] = { 0.5, 0.99, 0.999 };
	for (int i = 0; i < 3; i++) {
		double want = qs[i] * 10000 * 1000;
		double got = (double)hist_quantile(&h, qs[i]);
		assert_true(got >= want && got <= want * 1.032);
	}
	assert_int_equal(hist_quantile(&h, 1.0), 10000000);
	assert_int_equal(hist_mean(&h), 5000500);
}

static void test_hist_empty_reports_zero(void **state)
{
	hist_init(&h);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_int_equal(hist_mean(&h), 0);
	assert_int_equal(hist_max(&h), 0);
}

static void test_hist_single_outlier_is_the_max_not_the_median(void **state)
{
	hist_init(&h);
	for (int i = 0; i < 999; i++)
		hist_add(&h, 5000);
	hist_add(&h, 2000000);
	assert_true(hist_quantile(&h, 0.5) <= 5000 * 1.032);
	assert_true(hist_quantile(&h, 0.99) <= 5000 * 1.032);
	assert_true(hist_quantile(&h, 0.9995) >= 2000000);
	assert_int_equal(hist_max(&h), 2000000);
}

/* What hist_write prints, read back, is the same histogram: merged runs keep their quantiles. */
static void test_hist_written_and_read_back_gives_the_same_quantiles(void **state)
{
	hist_init(&h);
	for (uint64_t v = 1; v <= 3000; v++)
		hist_add(&h, v * v * 7);
	hist_add(&h, 1000000000);  /* an outlier alone in its bucket: quantiles below it are bucket edges */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(hist_write(&h, "timer wake", f), 0);
	assert_int_equal(fclose(f), 0);
	static struct hist back;
	hist_init(&back);
	unsigned long long up, count, max = 0;
	unsigned int lines = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
		if (sscanf(line, "timer wake max %llu", &max) == 1)
			continue;
		assert_int_equal(sscanf(line, "timer wake %llu %llu", &up, &count), 2);
		for (unsigned long long i = 0; i < count; i++)
			hist_add(&back, up);  /* the upper edge lands in its own bucket */
	}
	free(text);
	assert_true(lines > 1 && lines <= HIST_BUCKETS + 1);
	assert_int_equal(max, hist_max(&h));
	assert_int_equal(hist_total(&back), 3001);
	double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	for (int i = 0; i < 4; i++)
		assert_int_equal(hist_quantile(&back, qs[i]), hist_quantile(&h, qs[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_bucket_edges_hold_their_values),
		cmocka_unit_test(test_hist_quantiles_of_a_uniform_spread_are_within_a_bucket),
		cmocka_unit_test(test_hist_empty_reports_zero),
		cmocka_unit_test(test_hist_single_outlier_is_the_max_not_the_median),
		cmocka_unit_test(test_hist_written_and_read_back_gives_the_same_quantiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
