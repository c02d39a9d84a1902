// SPDX-License-Identifier: GPL-3.0-or-later
/* The LightWare SF10/SF11 legacy I2C driver against the emulated sensor, and its descriptor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_i2c.h"
#include "../emul/emul_lightware_i2c.h"
#include "drivers/drivers.h"
#include "drivers/lightware_i2c.h"

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_lightware_i2c chip;
	struct lightware_i2c sensor;
	uint64_t now_us;
	struct range_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_lightware_i2c_init(&f->chip);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	struct lightware_i2c_config cfg = { .bus = &f->bus.bus };
	assert_int_equal(lightware_i2c_init(&f->sensor, &cfg), 0);
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
	return lightware_i2c_poll(&f->sensor, f->now_us, &f->out);
}

static void test_lightware_reads_centimetres_big_endian_at_20_hz(void **state)
{
	struct fixture *f = *state;
	f->chip.word = 0x0a3c;   /* 2620 cm */
	int samples = 0;
	for (int i = 0; i < 100; i++)
		samples += step(f, 10000);
	assert_int_equal(samples, 20);
	assert_int_equal(f->out.reading, RANGE_READING_OK);
	assert_float_equal(f->out.distance_m, 26.20f, 1e-4f);
	assert_int_equal(f->out.raw, 2620);
	assert_int_equal(f->out.quality_pct, -1);
	assert_int_equal(f->chip.i2c.addr, LIGHTWARE_I2C_ADDR);
	assert_int_equal(f->sensor.cfg.addr, 0x66);
}

static void test_lightware_top_bit_is_a_reading_without_a_distance(void **state)
{
	struct fixture *f = *state;
	f->chip.word = 65436;   /* -100: what some firmwares send for out of range */
	assert_int_equal(step(f, 0), 1);
	assert_int_equal(f->out.reading, RANGE_READING_NO_RETURN);
	assert_true(f->out.distance_m == 0.0f);
	assert_int_equal(lightware_i2c_stats(&f->sensor)->no_return, 1);
}

static void test_lightware_refuses_a_distance_beyond_any_sf1x(void **state)
{
	struct fixture *f = *state;
	f->chip.word = 0x7fff;  /* 327 m: garbage on the bus */
	f->out.distance_m = -1.0f;
	assert_int_equal(step(f, 0), -EIO);
	assert_true(f->out.distance_m == -1.0f);   /* nothing written */
	assert_int_equal(lightware_i2c_stats(&f->sensor)->refused, 1);
	f->chip.word = 300;
	assert_int_equal(step(f, 50000), 1);
	assert_float_equal(f->out.distance_m, 3.0f, 1e-5f);
}

/* The driver passes a stuck sensor's reading on with its raw word: the
 * rangefinder's state (src/vehicle/rangefinder.h) judges it stuck. */
static void test_lightware_passes_a_stuck_word_on_unchanged(void **state)
{
	struct fixture *f = *state;
	f->chip.word = 777;
	for (int i = 0; i < 40; i++) {
		assert_int_equal(step(f, 50000), 1);
		assert_int_equal(f->out.raw, 777);
		assert_int_equal(f->out.t_us, f->now_us);
	}
}

static void test_lightware_bus_errors_are_counted_and_the_last_reading_stays(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(step(f, 0), 1);
	struct range_sample good = f->out;
	f->bus.fail_next = 3;
	for (int i = 0; i < 3; i++)
		assert_int_equal(step(f, 50000), -EIO);
	assert_memory_equal(&f->out, &good, sizeof(good));
	assert_int_equal(lightware_i2c_stats(&f->sensor)->bus_errors, 3);
	assert_int_equal(step(f, 50000), 1);
}

static void test_lightware_that_never_answers_is_no_device(void **state)
{
	struct fixture *f = *state;
	f->bus.ndevs = 0;      /* nothing at 0x66: every read NAKed */
	int rc = 0;
	for (int i = 0; i < 10; i++)
		rc = step(f, 20000);
	assert_int_equal(rc, -ENODEV);
	uint32_t transfers = f->bus.transfers;
	assert_int_equal(step(f, 1000000), -ENODEV);
	assert_int_equal(f->bus.transfers, transfers);   /* no more bus traffic */
}

/* ---- the descriptor, through a host that keeps what is published ---- */

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

static void test_lightware_descriptor_says_who_does_not_answer(void **state)
{
	struct fixture *f = *state;
	f->bus.ndevs = 0;
	static const struct board_dev desc = { .name = "rngfnd", .kind = BOARD_DEV_I2C,
					       .u.i2c.addr = 0x66 };
	struct drv_host host = { .publish = host_publish };
	struct lightware_i2c priv;
	struct drv_inst d = { .drv = &lightware_i2c_driver, .desc = &desc, .handle = &f->bus.bus,
			      .host = &host, .priv = &priv };
	char err[128];
	assert_int_equal(lightware_i2c_driver.probe(&d, err, sizeof(err)), 0);
	int rc = 0;
	for (int i = 0; i < 20 && rc != -ENODEV; i++) {
		f->now_us += 20000;
		rc = lightware_i2c_driver.setup(&d, f->now_us);
	}
	assert_int_equal(rc, -ENODEV);
	assert_int_equal(lightware_i2c_driver.bits, 0x100);   /* MAV_SYS_STATUS_SENSOR_LASER_POSITION */
	assert_string_equal(lightware_i2c_driver.role, "rangefinder");
}

static void test_lightware_descriptor_publishes_range_samples(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "rngfnd", .kind = BOARD_DEV_I2C,
					       .u.i2c.addr = 0x66 };
	struct drv_host host = { .publish = host_publish };
	struct lightware_i2c priv;
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &lightware_i2c_driver, .desc = &desc, .handle = &f->bus.bus,
			      .host = &host, .priv = &priv, .slot = &slot };
	char err[128];
	assert_int_equal(lightware_i2c_driver.probe(&d, err, sizeof(err)), 0);
	assert_int_equal(lightware_i2c_driver.setup(&d, f->now_us), 1);
	struct sched_task t[2];
	assert_int_equal(lightware_i2c_driver.tasks(&d, t), 1);
	assert_string_equal(t[0].name, "rngfnd");
	n_published = 0;
	f->chip.word = 1234;
	f->bus.fail_next = 1;
	for (int i = 0; i < 3; i++) {
		f->now_us += 50000;
		t[0].run(t[0].ctx, f->now_us);
	}
	assert_int_equal(n_published, 2);
	assert_float_equal(published.distance_m, 12.34f, 1e-4f);
	assert_int_equal(atomic_load(&slot.errors), 1);
	assert_int_equal(atomic_load(&slot.samples), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lightware_reads_centimetres_big_endian_at_20_hz, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_top_bit_is_a_reading_without_a_distance, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_refuses_a_distance_beyond_any_sf1x, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_passes_a_stuck_word_on_unchanged, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_bus_errors_are_counted_and_the_last_reading_stays, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_that_never_answers_is_no_device, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_descriptor_says_who_does_not_answer, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lightware_descriptor_publishes_range_samples, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
