// SPDX-License-Identifier: GPL-3.0-or-later
/* The BMP280 driver against the emulated chip in tests/emul. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../emul/emul_bmp280.h"
#include "../emul/emul_i2c.h"
#include "drivers/bmp280.h"
#include "drivers/drivers.h"

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_bmp280 chip;
	struct bmp280 baro;
	struct bmp280_config cfg;
	uint64_t now_us;
	struct baro_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_bmp280_init(&f->chip, BMP280_I2C_ADDR);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	f->cfg = (struct bmp280_config){ .bus = &f->bus.bus };
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
	emul_bmp280_set_time(&f->chip, f->now_us);
	return bmp280_poll(&f->baro, f->now_us, &f->out);
}

/* Polls every millisecond for ms; the samples it gave. */
static int run_ms(struct fixture *f, int ms)
{
	int samples = 0;

	for (int i = 0; i < ms; i++) {
		int r = step(f, 1000);
		assert_true(r == 0 || r == 1);
		samples += r;
	}
	return samples;
}

static void start(struct fixture *f)
{
	assert_int_equal(bmp280_init(&f->baro, &f->cfg), 0);
	for (int i = 0; i < 200 && !bmp280_is_running(&f->baro); i++)
		assert_int_equal(step(f, 1000), 0);
	assert_true(bmp280_is_running(&f->baro));
}

/* Runs until the set-up gives up (or 2 s pass); the last result. */
static int run_to_failure(struct fixture *f)
{
	int r = 0;

	assert_int_equal(bmp280_init(&f->baro, &f->cfg), 0);
	for (int i = 0; i < 2000 && r != -ENODEV && r != -EBADMSG; i++)
		r = step(f, 1000);
	return r;
}

static void test_bmp280_compensates_the_datasheet_example(void **state)
{
	(void)state;
	/* Data sheet 3.12: these words, adc_T 519888, adc_P 415148 -> 25.08 degC, 100653.27 Pa. */
	const uint8_t raw[24] = {
		0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b,
		0x27, 0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17,
	};
	struct bmp280_calib cal;
	double p_pa, t_c;

	bmp280_calib_parse(raw, &cal);
	assert_int_equal(cal.dig_t1, 27504);
	assert_int_equal(cal.dig_t2, 26435);
	assert_int_equal(cal.dig_t3, -1000);
	assert_int_equal(cal.dig_p1, 36477);
	assert_int_equal(cal.dig_p2, -10685);
	assert_int_equal(cal.dig_p3, 3024);
	assert_int_equal(cal.dig_p4, 2855);
	assert_int_equal(cal.dig_p5, 140);
	assert_int_equal(cal.dig_p6, -7);
	assert_int_equal(cal.dig_p7, 15500);
	assert_int_equal(cal.dig_p8, -14600);
	assert_int_equal(cal.dig_p9, 6000);
	assert_true(bmp280_calib_is_valid(&cal));
	assert_true(bmp280_compensate(&cal, 415148, 519888, &p_pa, &t_c));
	assert_float_equal(t_c, 25.08, 0.005);
	assert_float_equal(p_pa, 100653.27, 0.01);
}

static void test_bmp280_resets_reads_calibration_and_starts_normal_mode(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(f->chip.resets, 1);
	assert_int_equal(f->chip.early_accesses, 0);
	assert_int_equal(f->chip.regs[0xf4], 0x57);   /* osrs_t x2, osrs_p x16, normal */
	assert_int_equal(f->chip.regs[0xf5], 0x08);   /* t_sb 0.5 ms, filter 4 */
	assert_int_equal(f->chip.ignored_config_writes, 0);
	assert_int_equal(bmp280_chip_id(&f->baro), 0x58);
}

static void test_bmp280_gives_samples_in_pa_and_degc(void **state)
{
	struct fixture *f = *state;

	f->chip.noise = false;
	f->cfg.stuck_limit = 1000;
	start(f);
	assert_int_equal(run_ms(f, 100), 1);
	assert_float_equal(f->out.temp_c, 25.08f, 0.005f);
	assert_float_equal(f->out.pressure_pa, 100653.27f, 0.02f);
	assert_true(f->out.t_us > f->now_us - 100000 && f->out.t_us <= f->now_us);
	assert_int_equal(bmp280_stats(&f->baro)->skipped, 0);
}

static void test_bmp280_polls_at_20hz_with_noisy_data(void **state)
{
	struct fixture *f = *state;

	start(f);
	/* One reading per 50 ms poll, every one a new measurement. */
	assert_in_range(run_ms(f, 1000), 18, 20);
	assert_int_equal(bmp280_stats(&f->baro)->stuck_events, 0);
	assert_int_equal(bmp280_stats(&f->baro)->range_errors, 0);
}

static void test_bmp280_refuses_another_chip_id(void **state)
{
	struct fixture *f = *state;

	f->chip.chip_id = 0x60;    /* a BME280 */
	assert_int_equal(run_to_failure(f), -ENODEV);
	assert_int_equal(bmp280_stats(&f->baro)->id_errors, DRV_STARTUP_TRIES);
	assert_int_equal(bmp280_chip_id(&f->baro), 0x60);
	assert_int_equal(f->chip.resets, 0);
	/* From then on, no more bus traffic. */
	uint32_t n = f->bus.transfers;
	assert_int_equal(step(f, 100000), -ENODEV);
	assert_int_equal(f->bus.transfers, n);
}

static void test_bmp280_gives_enodev_when_nothing_answers(void **state)
{
	struct fixture *f = *state;

	int r;

	f->chip.absent = true;
	assert_int_equal(bmp280_init(&f->baro, &f->cfg), 0);
	assert_int_equal(step(f, 0), -ENXIO);
	do
		r = step(f, 1000);
	while (r == 0 || r == -ENXIO);
	assert_int_equal(r, -ENODEV);
	assert_int_equal(f->bus.transfers, DRV_STARTUP_TRIES);
	/* The shared rule's pace: DRV_STARTUP_RETRY_US between tries. */
	assert_true(f->now_us >= 1000000 + (DRV_STARTUP_TRIES - 1) * DRV_STARTUP_RETRY_US);
}

static void test_bmp280_refuses_a_calibration_of_zeros(void **state)
{
	struct fixture *f = *state;
	const int32_t zeros[12] = { 0 };

	emul_bmp280_set_calib(&f->chip, zeros);
	assert_int_equal(run_to_failure(f), -EBADMSG);
	assert_int_equal(bmp280_stats(&f->baro)->calib_errors, 3);
	assert_int_equal(f->chip.resets, 3);
}

static void test_bmp280_refuses_garbage_data_as_out_of_range(void **state)
{
	struct fixture *f = *state;
	struct baro_sample good, last;

	start(f);
	assert_true(run_ms(f, 200) > 0);
	assert_true(bmp280_last_sample(&f->baro, &good));
	f->chip.garbage = true;
	assert_int_equal(run_ms(f, 200), 0);
	assert_int_equal(bmp280_stats(&f->baro)->range_errors, 1);
	assert_true(bmp280_last_sample(&f->baro, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	f->chip.garbage = false;
	assert_true(run_ms(f, 200) > 0);
}

static void test_bmp280_refuses_a_skipped_measurement(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_true(run_ms(f, 200) > 0);
	/* Pressure measurement skipped (osrs_p 000): the chip gives 0x80000. */
	f->chip.regs[0xf4] = (uint8_t)(f->chip.regs[0xf4] & ~0x1c);
	assert_int_equal(run_ms(f, 300), 0);
	assert_true(bmp280_stats(&f->baro)->skipped >= 5);
	assert_int_equal(bmp280_stats(&f->baro)->range_errors, 0);
}

static void test_bmp280_counts_stuck_data_and_sets_up_again(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	start(f);
	assert_true(run_ms(f, 200) > 0);
	f->chip.noise = false;
	for (int i = 0; i < 5000 && r != -ESTALE; i++) {
		r = step(f, 1000);
		assert_true(r == 0 || r == 1 || r == -ESTALE);
	}
	assert_int_equal(r, -ESTALE);
	/* 50 identical readings 50 ms apart: 2.5 s. */
	assert_int_equal(bmp280_stats(&f->baro)->stuck_events, 1);
	assert_int_equal(bmp280_stats(&f->baro)->setups, 2);
	f->chip.noise = true;
	assert_true(run_ms(f, 300) > 0);
	assert_int_equal(f->chip.resets, 2);
}

static void test_bmp280_sets_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	start(f);
	assert_true(run_ms(f, 200) > 0);
	emul_bmp280_power_cycle(&f->chip);
	for (int i = 0; i < 5000 && r != -ESTALE; i++)
		r = step(f, 1000);
	assert_int_equal(r, -ESTALE);
	assert_true(bmp280_stats(&f->baro)->skipped >= 40);
	assert_true(run_ms(f, 300) > 0);
	assert_int_equal(f->chip.regs[0xf4], 0x57);
}

static void test_bmp280_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct baro_sample last;

	start(f);
	assert_true(run_ms(f, 200) > 0);
	struct baro_sample good = f->out;
	f->bus.fail_next = 1;
	assert_int_equal(step(f, 50000), -EIO);
	assert_int_equal(bmp280_stats(&f->baro)->bus_errors, 1);
	assert_true(bmp280_last_sample(&f->baro, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	assert_true(run_ms(f, 200) > 0);
}

static void test_bmp280_init_rejects_a_missing_bus(void **state)
{
	struct fixture *f = *state;
	struct bmp280_config c = { 0 };

	assert_int_equal(bmp280_init(&f->baro, &c), -EINVAL);
}

static struct baro_sample published;
static int n_published;

static int host_publish(void *ctx, enum sensor_kind k, const void *s)
{
	(void)ctx;
	assert_int_equal(k, SENSOR_BARO);
	published = *(const struct baro_sample *)s;
	n_published++;
	return 0;
}

/* As a board device: set up through the descriptor, polled on the timer thread, samples published. */
static void test_bmp280_descriptor_sets_up_and_publishes_barometer_samples(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "baro", .kind = BOARD_DEV_I2C,
					       .u.i2c.addr = 0x76 };
	struct drv_host host = { .publish = host_publish };
	struct bmp280 priv;
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &bmp280_driver, .desc = &desc, .handle = &f->bus.bus,
			      .host = &host, .priv = &priv, .slot = &slot };
	char e[96];

	assert_int_equal(bmp280_driver.probe(&d, e, sizeof(e)), 0);
	int rc = 0;
	for (int i = 0; i < 100 && rc != 1; i++) {
		f->now_us += 1000;
		emul_bmp280_set_time(&f->chip, f->now_us);
		rc = bmp280_driver.setup(&d, f->now_us);
	}
	assert_int_equal(rc, 1);
	struct sched_task t[2];
	assert_int_equal(bmp280_driver.tasks(&d, t), 1);
	assert_int_equal(t[0].thread, SCHED_TIMER);
	n_published = 0;
	for (int i = 0; i < 1000; i++) {     /* a second of timer wakes */
		f->now_us += 1000;
		emul_bmp280_set_time(&f->chip, f->now_us);
		t[0].run(t[0].ctx, f->now_us);
	}
	assert_in_range(n_published, 18, 20);
	assert_float_equal(published.pressure_pa, 100653.3f, 1.0f);
	assert_int_equal(atomic_load(&slot.errors), 0);
	assert_int_equal(atomic_load(&slot.samples), (uint64_t)n_published);
}

static void test_bmp280_descriptor_names_the_chip_id_it_read(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "baro", .kind = BOARD_DEV_I2C };
	struct bmp280 priv;
	struct drv_inst d = { .drv = &bmp280_driver, .desc = &desc, .handle = &f->bus.bus,
			      .priv = &priv };
	char e[96];

	f->chip.chip_id = 0x60;
	assert_int_equal(bmp280_driver.probe(&d, e, sizeof(e)), 0);
	int rc = 0;
	for (int i = 0; i < 100 && rc != -ENODEV; i++) {
		f->now_us += 20000;
		rc = bmp280_driver.setup(&d, f->now_us);
	}
	assert_int_equal(rc, -ENODEV);
	bmp280_driver.setup_detail(&d, e, sizeof(e));
	assert_string_equal(e, " (chip id 0x60, a BMP280's is 0x58)");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_bmp280_compensates_the_datasheet_example),
		T(test_bmp280_resets_reads_calibration_and_starts_normal_mode),
		T(test_bmp280_gives_samples_in_pa_and_degc),
		T(test_bmp280_polls_at_20hz_with_noisy_data),
		T(test_bmp280_refuses_another_chip_id),
		T(test_bmp280_gives_enodev_when_nothing_answers),
		T(test_bmp280_refuses_a_calibration_of_zeros),
		T(test_bmp280_refuses_garbage_data_as_out_of_range),
		T(test_bmp280_refuses_a_skipped_measurement),
		T(test_bmp280_counts_stuck_data_and_sets_up_again),
		T(test_bmp280_sets_up_again_after_the_chip_lost_power),
		T(test_bmp280_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_bmp280_init_rejects_a_missing_bus),
		T(test_bmp280_descriptor_sets_up_and_publishes_barometer_samples),
		T(test_bmp280_descriptor_names_the_chip_id_it_read),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
