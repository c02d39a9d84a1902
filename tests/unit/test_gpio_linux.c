// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The libgpiod backend (1.x or 2.x, whichever meson picked) on a machine with
 * no GPIO chip: what can be checked is that every way of naming a missing chip
 * fails with a clean -errno, that bad configs are refused before the kernel
 * is asked, and the timestamp arithmetic. Requesting real lines needs
 * gpio-sim and comes in its own suite.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "linux/gpio_internal.h"
#include "linux/hal_linux.h"

/* Chip names nothing on a test machine answers to. */
#define MISSING_NAME "gpiochip4095"
#define MISSING_PATH "/dev/gpiochip4095"
#define MISSING_NUMBER "4095"
#define MISSING_LABEL "fulmar-test-no-such-chip"

/* Stands in for *out, which a failed open must leave alone. */
static struct gpio_line sentinel_line;

static int open_rc(const struct gpio_config *cfg)
{
	struct gpio_line *line = &sentinel_line;
	int rc = gpio_linux_open(cfg, &line);

	if (rc == 0)
		gpio_close(line);
	else
		assert_ptr_equal(line, &sentinel_line);
	return rc;
}

static void test_gpio_open_of_a_missing_chip_by_name_gives_enoent(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT };

	assert_int_equal(open_rc(&cfg), -ENOENT);
}

static void test_gpio_open_of_a_missing_chip_by_path_gives_enoent(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_PATH, .dir = GPIO_DIR_OUTPUT };

	assert_int_equal(open_rc(&cfg), -ENOENT);
}

static void test_gpio_open_of_a_missing_chip_by_number_gives_enoent(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_NUMBER, .dir = GPIO_DIR_INPUT,
					 .edge = GPIO_EDGE_BOTH };

	assert_int_equal(open_rc(&cfg), -ENOENT);
}

static void test_gpio_open_of_a_missing_chip_by_label_gives_enoent(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_LABEL, .dir = GPIO_DIR_INPUT };

	assert_int_equal(open_rc(&cfg), -ENOENT);
}

static void test_gpio_open_of_a_device_that_is_not_a_gpio_chip_fails_cleanly(void **state)
{
	const struct gpio_config cfg = { .chip = "/dev/null", .dir = GPIO_DIR_INPUT };

	/* libgpiod 1.6 says ENOTTY, 2.x ENODEV: any -errno will do, but not 0. */
	int rc = open_rc(&cfg);
	assert_true(rc < 0 && rc > -4096);
}

/*
 * The chip is missing, so a config that reached the kernel would fail with
 * -ENOENT: -EINVAL shows it was refused first.
 */
static void test_gpio_open_refuses_direction_zero_before_asking_the_kernel(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_NAME };

	assert_int_equal(open_rc(&cfg), -EINVAL);
}

static void test_gpio_open_refuses_an_unknown_direction(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_NAME,
					 .dir = (enum gpio_dir)(GPIO_DIR_OUTPUT + 1) };

	assert_int_equal(open_rc(&cfg), -EINVAL);
}

static void test_gpio_open_refuses_edge_detection_on_an_output(void **state)
{
	const enum gpio_edge edges[] = { GPIO_EDGE_RISING, GPIO_EDGE_FALLING, GPIO_EDGE_BOTH };

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const struct gpio_config cfg = { .chip = MISSING_NAME, .dir = GPIO_DIR_OUTPUT,
						 .edge = edges[i] };
		assert_int_equal(open_rc(&cfg), -EINVAL);
	}
}

static void test_gpio_open_refuses_an_unknown_edge(void **state)
{
	const struct gpio_config cfg = { .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT,
					 .edge = (enum gpio_edge)(GPIO_EDGE_BOTH + 1) };

	assert_int_equal(open_rc(&cfg), -EINVAL);
}

static void test_gpio_open_refuses_an_unknown_bias_and_a_pull_on_an_output(void **state)
{
	const struct gpio_config unknown = { .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT,
					     .bias = (enum gpio_bias)(GPIO_BIAS_PULL_DOWN + 1) };
	const struct gpio_config pulled_output = { .chip = MISSING_NAME, .dir = GPIO_DIR_OUTPUT,
						   .bias = GPIO_BIAS_PULL_UP };
	const struct gpio_config pulled_input = { .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT,
						  .bias = GPIO_BIAS_PULL_UP,
						  .edge = GPIO_EDGE_BOTH };

	assert_int_equal(open_rc(&unknown), -EINVAL);
	assert_int_equal(open_rc(&pulled_output), -EINVAL);
	/* Valid: gets as far as the kernel, which has no such chip. */
	assert_int_equal(open_rc(&pulled_input), -ENOENT);
}

static void test_gpio_open_refuses_an_output_initial_value_other_than_0_or_1(void **state)
{
	const int values[] = { -1, 2, 255 };

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const struct gpio_config cfg = { .chip = MISSING_NAME, .dir = GPIO_DIR_OUTPUT,
						 .initial_value = values[i] };
		assert_int_equal(open_rc(&cfg), -EINVAL);
	}
}

static void test_gpio_open_refuses_a_missing_or_empty_chip_name(void **state)
{
	const struct gpio_config no_chip = { .dir = GPIO_DIR_INPUT };
	const struct gpio_config empty = { .chip = "", .dir = GPIO_DIR_INPUT };

	assert_int_equal(open_rc(&no_chip), -EINVAL);
	/* libgpiod 1.x would read "" as chip number 0. */
	assert_int_equal(open_rc(&empty), -EINVAL);
}

/* The valid configs get as far as the kernel, which has no such chip. */
static void test_gpio_open_passes_valid_configs_on_to_the_kernel(void **state)
{
	const struct gpio_config cfgs[] = {
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_OUTPUT },  /* edge 0 means none */
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_OUTPUT, .edge = GPIO_EDGE_NONE,
		  .active_low = true, .initial_value = 1, .consumer = "test" },
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT },
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_RISING },
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_FALLING,
		  .active_low = true },
		{ .chip = MISSING_NAME, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_BOTH },
	};

	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		assert_int_equal(open_rc(&cfgs[i]), -ENOENT);
}

static void test_gpio_close_of_null_does_nothing(void **state)
{
	gpio_close(NULL);
}

static void test_gpio_timestamp_joins_seconds_and_nanoseconds(void **state)
{
	const struct timespec zero = { 0, 0 };
	const struct timespec just_under_2s = { 1, 999999999 };

	assert_true(gpio_timespec_to_ns(&zero) == 0);
	assert_true(gpio_timespec_to_ns(&just_under_2s) == UINT64_C(1999999999));
}

static void test_gpio_timestamp_does_not_wrap_at_32_bits(void **state)
{
	/* 49 days of uptime, far past 2^32 ns (4.3 s); time_t is 32 bits on armhf. */
	const struct timespec days = { 4233600, 123 };
	/* The largest a 32-bit time_t holds: still well inside uint64_t nanoseconds. */
	const struct timespec t32_max = { 2147483647, 999999999 };

	assert_true(gpio_timespec_to_ns(&days) == UINT64_C(4233600000000123));
	assert_true(gpio_timespec_to_ns(&t32_max) == UINT64_C(2147483647999999999));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpio_open_of_a_missing_chip_by_name_gives_enoent),
		cmocka_unit_test(test_gpio_open_of_a_missing_chip_by_path_gives_enoent),
		cmocka_unit_test(test_gpio_open_of_a_missing_chip_by_number_gives_enoent),
		cmocka_unit_test(test_gpio_open_of_a_missing_chip_by_label_gives_enoent),
		cmocka_unit_test(test_gpio_open_of_a_device_that_is_not_a_gpio_chip_fails_cleanly),
		cmocka_unit_test(test_gpio_open_refuses_direction_zero_before_asking_the_kernel),
		cmocka_unit_test(test_gpio_open_refuses_an_unknown_direction),
		cmocka_unit_test(test_gpio_open_refuses_edge_detection_on_an_output),
		cmocka_unit_test(test_gpio_open_refuses_an_unknown_edge),
		cmocka_unit_test(test_gpio_open_refuses_an_unknown_bias_and_a_pull_on_an_output),
		cmocka_unit_test(test_gpio_open_refuses_an_output_initial_value_other_than_0_or_1),
		cmocka_unit_test(test_gpio_open_refuses_a_missing_or_empty_chip_name),
		cmocka_unit_test(test_gpio_open_passes_valid_configs_on_to_the_kernel),
		cmocka_unit_test(test_gpio_close_of_null_does_nothing),
		cmocka_unit_test(test_gpio_timestamp_joins_seconds_and_nanoseconds),
		cmocka_unit_test(test_gpio_timestamp_does_not_wrap_at_32_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
