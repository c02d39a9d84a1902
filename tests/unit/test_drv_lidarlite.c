// SPDX-License-Identifier: GPL-3.0-or-later
/* The LIDAR-Lite v3 driver against the emulated module's register map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "../emul/emul_i2c.h"
#include "../emul/emul_lidarlite.h"
#include "drivers/drivers.h"
#include "drivers/lidarlite.h"

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_lidarlite chip;
	struct lidarlite sensor;
	uint64_t now_us;
	struct range_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_lidarlite_init(&f->chip);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	struct lidarlite_config cfg = { .bus = &f->bus.bus };
	assert_int_equal(lidarlite_init(&f->sensor, &cfg), 0);
	f->now_us = 1000000;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	free(*state);
	return 0;
}

/* Runs the driver every 500 us for run_us; returns the samples, rc the last error. */
static int run(struct fixture *f, uint64_t run_us, int *last_err)
{
	int samples = 0;
	*last_err = 0;
	for (uint64_t t = 0; t < run_us; t += 500) {
		f->now_us += 500;
		emul_lidarlite_set_time(&f->chip, f->now_us);
		int rc = lidarlite_poll(&f->sensor, f->now_us, &f->out);
		if (rc > 0)
			samples++;
		else if (rc < 0)
			*last_err = rc;
	}
	return samples;
}

static void test_lidarlite_measures_and_reads_the_distance_at_50_hz(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.distance_cm = 0x0123;   /* 291 cm */
	int n = run(f, 1000000, &err);
	assert_in_range(n, 49, 50);
	assert_int_equal(err, 0);
	assert_int_equal(f->out.reading, RANGE_READING_OK);
	assert_float_equal(f->out.distance_m, 2.91f, 1e-5f);
	assert_int_equal(f->out.raw, 291);
	assert_int_equal(f->chip.acquisitions, (uint32_t)n + (f->chip.measuring ? 1u : 0u));
	assert_int_equal(f->chip.repeated_starts, 0);   /* register address, stop, then read */
	assert_int_equal(f->sensor.cfg.addr, 0x62);
}

static void test_lidarlite_waits_while_busy(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.meas_us = 15000;     /* a slow measurement */
	int n = run(f, 1000000, &err);
	assert_in_range(n, 49, 50);  /* still 50 Hz: the next cycle starts 20 ms after the last */
	assert_int_equal(err, 0);
}

static void test_lidarlite_invalid_signal_gives_no_distance(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.no_return = true;
	assert_true(run(f, 100000, &err) > 0);
	assert_int_equal(f->out.reading, RANGE_READING_NO_RETURN);
	assert_true(f->out.distance_m == 0.0f);
	assert_true(lidarlite_stats(&f->sensor)->no_return > 0);
}

static void test_lidarlite_module_fault_is_counted_without_a_sample(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.fault = true;
	assert_int_equal(run(f, 200000, &err), 0);
	assert_int_equal(err, -EIO);
	assert_true(lidarlite_stats(&f->sensor)->faults >= 9);
	f->chip.fault = false;
	assert_true(run(f, 100000, &err) > 0);
}

static void test_lidarlite_refuses_garbage_distances(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.distance_cm = 0xffff;
	f->out.distance_m = -1.0f;
	assert_int_equal(run(f, 100000, &err), 0);
	assert_int_equal(err, -EIO);
	assert_true(f->out.distance_m == -1.0f);
	assert_true(lidarlite_stats(&f->sensor)->refused > 0);
}

static void test_lidarlite_busy_forever_times_out_and_tries_again(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.stuck_busy = true;
	assert_int_equal(run(f, 250000, &err), 0);
	assert_int_equal(err, -ETIMEDOUT);
	assert_int_equal(lidarlite_stats(&f->sensor)->busy_timeouts, 2);
	assert_int_equal(f->chip.acquisitions, 3);
}

/* The driver passes a stuck module's distance on with its raw value: the
 * rangefinder's state (src/vehicle/rangefinder.h) judges it stuck. */
static void test_lidarlite_passes_a_stuck_distance_on_unchanged(void **state)
{
	struct fixture *f = *state;
	int err;
	f->chip.distance_cm = 444;
	assert_true(run(f, 500000, &err) >= 24);
	assert_int_equal(f->out.raw, 444);
}

static void test_lidarlite_that_never_answers_is_no_device(void **state)
{
	struct fixture *f = *state;
	int err;
	f->bus.ndevs = 0;
	assert_int_equal(run(f, 1000000, &err), 0);
	assert_int_equal(err, -ENODEV);
	assert_int_equal(lidarlite_stats(&f->sensor)->bus_errors, 10);
	static const struct board_dev desc = { .name = "rngfnd", .kind = BOARD_DEV_I2C,
					       .u.i2c.addr = 0x62 };
	struct lidarlite priv;
	struct drv_inst d = { .drv = &lidarlite_driver, .desc = &desc, .handle = &f->bus.bus,
			      .priv = &priv };
	char e[96];
	assert_int_equal(lidarlite_driver.probe(&d, e, sizeof(e)), 0);
	int rc = 0;
	for (int i = 0; i < 20 && rc != -ENODEV; i++) {
		f->now_us += 20000;
		rc = lidarlite_driver.setup(&d, f->now_us);
	}
	assert_int_equal(rc, -ENODEV);
	lidarlite_driver.setup_detail(&d, e, sizeof(e));
	assert_string_equal(e, " (acquisition command)");
}

static void test_lidarlite_bus_errors_restart_the_cycle(void **state)
{
	struct fixture *f = *state;
	int err;
	assert_true(run(f, 100000, &err) > 0);
	f->bus.fail_next = 5;
	int n = run(f, 200000, &err);
	assert_true(n >= 5);
	assert_int_equal(lidarlite_stats(&f->sensor)->bus_errors, 5);
	assert_false(f->sensor.start.absent);   /* it answered before: not "no device" */
}

static struct range_sample published;
static int n_published;

static int host_publish(void *ctx, enum sensor_kind k, const void *s)
{
	(void)ctx;
	assert_int_equal(k, SENSOR_RANGE);
	published = *(const struct range_sample *)s;
	n_published++;
	return 0;
}

/* As a board device: polled on the timer thread when due, its faults the
 * device's errors, nothing published for them. */
static void test_lidarlite_descriptor_counts_faults_and_publishes_readings(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "rngfnd_ll", .kind = BOARD_DEV_I2C,
					       .u.i2c.addr = 0x62 };
	struct drv_host host = { .publish = host_publish };
	struct lidarlite priv;
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &lidarlite_driver, .desc = &desc, .handle = &f->bus.bus,
			      .host = &host, .priv = &priv, .slot = &slot };
	char e[96];
	assert_int_equal(lidarlite_driver.probe(&d, e, sizeof(e)), 0);
	int rc = 0;
	for (int i = 0; i < 100 && rc != 1; i++) {
		f->now_us += 1000;
		emul_lidarlite_set_time(&f->chip, f->now_us);
		rc = lidarlite_driver.setup(&d, f->now_us);
	}
	assert_int_equal(rc, 1);
	struct sched_task t[2];
	assert_int_equal(lidarlite_driver.tasks(&d, t), 1);
	assert_int_equal(t[0].thread, SCHED_TIMER);
	n_published = 0;
	f->chip.distance_cm = 777;
	for (int i = 0; i < 1000; i++) {     /* a second of timer wakes */
		f->now_us += 1000;
		emul_lidarlite_set_time(&f->chip, f->now_us);
		t[0].run(t[0].ctx, f->now_us);
	}
	assert_in_range(n_published, 49, 51);
	assert_float_equal(published.distance_m, 7.77f, 1e-5f);
	assert_int_equal(atomic_load(&slot.errors), 0);
	f->chip.fault = true;
	for (int i = 0; i < 200; i++) {
		f->now_us += 1000;
		emul_lidarlite_set_time(&f->chip, f->now_us);
		t[0].run(t[0].ctx, f->now_us);
	}
	assert_in_range(n_published, 49, 52);   /* at most the one measured before the fault */
	assert_true(atomic_load(&slot.errors) >= 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lidarlite_measures_and_reads_the_distance_at_50_hz, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_waits_while_busy, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_invalid_signal_gives_no_distance, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_module_fault_is_counted_without_a_sample, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_refuses_garbage_distances, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_busy_forever_times_out_and_tries_again, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_passes_a_stuck_distance_on_unchanged, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_that_never_answers_is_no_device, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_bus_errors_restart_the_cycle, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lidarlite_descriptor_counts_faults_and_publishes_readings, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
