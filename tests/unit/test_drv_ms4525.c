// SPDX-License-Identifier: GPL-3.0-or-later
/* The MS4525DO driver: its transfer functions, and the driver against the emulated sensor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "../emul/emul_i2c.h"
#include "../emul/emul_ms4525.h"
#include "drivers/ms4525.h"

#define PSI 6894.757f

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_ms4525 chip;
	struct ms4525 sensor;
	struct ms4525_config cfg;
	uint64_t now_us;
	struct airspeed_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_ms4525_init(&f->chip);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	f->cfg = (struct ms4525_config){ .bus = &f->bus.bus };
	f->now_us = 1000000;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	free(*state);
	return 0;
}

static int step(struct fixture *f, uint64_t dt_us)
{
	f->now_us += dt_us;
	emul_ms4525_set_time(&f->chip, f->now_us);
	return ms4525_poll(&f->sensor, f->now_us, &f->out);
}

static void test_ms4525_transfer_function_spans_minus_to_plus_one_psi(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	const struct ms4525_config *c = &f->sensor.cfg;
	/* 10 % of full scale is the bottom of the range, 90 % the top, half-way is zero. */
	assert_float_equal(ms4525_pressure_pa(c, 1638), -1.0f * PSI, 0.5f);
	assert_float_equal(ms4525_pressure_pa(c, 14745), 1.0f * PSI, 0.5f);
	assert_float_equal(ms4525_pressure_pa(c, 8192), 0.5263f, 0.01f);
	/* One count is 2 psi / 13106.4 counts. */
	assert_float_equal(ms4525_pressure_pa(c, 8193) - ms4525_pressure_pa(c, 8192),
			   2.0f * PSI / 13106.4f, 1e-3f);
}

static void test_ms4525_output_type_b_and_other_ranges(void **state)
{
	(void)state;
	const struct ms4525_config c = {
		.output = MS4525_OUTPUT_B, .p_min_psi = -5.0f, .p_max_psi = 5.0f,
	};

	assert_float_equal(ms4525_pressure_pa(&c, 819), -5.0f * PSI, 3.0f);     /* 5 % */
	assert_float_equal(ms4525_pressure_pa(&c, 15564), 5.0f * PSI, 3.0f);    /* 95 % */
}

static void test_ms4525_temperature_spans_minus_50_to_150_c(void **state)
{
	(void)state;
	assert_float_equal(ms4525_temp_c(0), -50.0f, 1e-5f);
	assert_float_equal(ms4525_temp_c(2047), 150.0f, 1e-4f);
	assert_float_equal(ms4525_temp_c(512), 0.0244f, 1e-3f);
}

static void test_ms4525_reads_pressure_and_temperature_from_the_sensor(void **state)
{
	struct fixture *f = *state;

	f->chip.pressure = 9830;   /* +0.25 psi */
	f->chip.temp = 768;        /* 25.04 degC */
	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	int samples = 0;
	for (int i = 0; i < 100; i++)
		samples += step(f, 1000);
	assert_int_equal(samples, 10);   /* 100 Hz */
	assert_float_equal(f->out.diff_pressure_pa, ms4525_pressure_pa(&f->sensor.cfg, 9830), 1e-3f);
	assert_float_equal(f->out.diff_pressure_pa, 0.25f * PSI, 1.0f);
	assert_float_equal(f->out.temp_c, 768 * 200.0f / 2047 - 50, 1e-4f);
	assert_int_equal(f->out.t_us, f->now_us - 9000);
	assert_int_equal(ms4525_stats(&f->sensor)->stale, 0);
}

static void test_ms4525_counts_stale_packets_without_a_sample(void **state)
{
	struct fixture *f = *state;

	f->cfg.interval_us = 500;        /* faster than the sensor measures */
	f->chip.update_us = 1000;
	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	int samples = 0;
	for (int i = 0; i < 20; i++)
		samples += step(f, 500);
	/* Every other read finds nothing new. */
	assert_in_range(samples, 10, 11);
	assert_int_equal(ms4525_stats(&f->sensor)->stale, 20 - samples);
}

static void test_ms4525_reports_a_sensor_fault_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct airspeed_sample last;

	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	assert_int_equal(step(f, 10000), 1);
	struct airspeed_sample good = f->out;
	f->chip.fault = true;
	assert_int_equal(step(f, 10000), -EIO);
	assert_int_equal(ms4525_stats(&f->sensor)->faults, 1);
	assert_true(ms4525_last_sample(&f->sensor, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	f->chip.fault = false;
	assert_int_equal(step(f, 10000), 1);
}

static void test_ms4525_counts_a_bus_error_and_goes_on(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	assert_int_equal(step(f, 10000), 1);
	f->bus.fail_next = 20;
	for (int i = 0; i < 20; i++)
		assert_int_equal(step(f, 10000), -EIO);
	/* It has answered before: never given up on. */
	assert_int_equal(step(f, 10000), 1);
	assert_int_equal(ms4525_stats(&f->sensor)->bus_errors, 20);
}

static void test_ms4525_gives_up_on_a_nak_at_the_wrong_address(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	f->cfg.addr = 0x36;
	assert_int_equal(ms4525_init(&f->sensor, &f->cfg), 0);
	for (int i = 0; i < 1000 && r != -ENODEV; i++) {
		r = step(f, 1000);
		assert_true(r == 0 || r == -ENXIO || r == -ENODEV);
	}
	assert_int_equal(r, -ENODEV);
	assert_int_equal(f->bus.naks, 10);
	assert_int_equal(step(f, 100000), -ENODEV);
	assert_int_equal(f->bus.naks, 10);
}

static void test_ms4525_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct ms4525_config c = f->cfg;

	c.p_min_psi = 1.0f;
	c.p_max_psi = -1.0f;
	assert_int_equal(ms4525_init(&f->sensor, &c), -EINVAL);
	c = f->cfg;
	c.output = 3;
	assert_int_equal(ms4525_init(&f->sensor, &c), -EINVAL);
	c = f->cfg;
	c.bus = NULL;
	assert_int_equal(ms4525_init(&f->sensor, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_ms4525_transfer_function_spans_minus_to_plus_one_psi),
		cmocka_unit_test(test_ms4525_output_type_b_and_other_ranges),
		cmocka_unit_test(test_ms4525_temperature_spans_minus_50_to_150_c),
		T(test_ms4525_reads_pressure_and_temperature_from_the_sensor),
		T(test_ms4525_counts_stale_packets_without_a_sample),
		T(test_ms4525_reports_a_sensor_fault_and_keeps_the_last_sample),
		T(test_ms4525_counts_a_bus_error_and_goes_on),
		T(test_ms4525_gives_up_on_a_nak_at_the_wrong_address),
		T(test_ms4525_init_rejects_a_bad_configuration),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
