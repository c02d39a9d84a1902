// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_bucket_edges_hold_their_values),
		cmocka_unit_test(test_hist_quantiles_of_a_uniform_spread_are_within_a_bucket),
		cmocka_unit_test(test_hist_empty_reports_zero),
		cmocka_unit_test(test_hist_single_outlier_is_the_max_not_the_median),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
