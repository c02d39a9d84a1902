// SPDX-License-Identifier: GPL-3.0-or-later
/* The HMC5883L driver against the emulated chip in tests/emul. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "../emul/emul_hmc5883l.h"
#include "../emul/emul_i2c.h"
#include "drivers/hmc5883l.h"

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_hmc5883l chip;
	struct hmc5883l mag;
	struct hmc5883l_config cfg;
	uint64_t now_us;
	struct mag_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_hmc5883l_init(&f->chip);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	f->cfg = (struct hmc5883l_config){ .bus = &f->bus.bus, .rotation = ROTATION_NONE };
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
	emul_hmc5883l_set_time(&f->chip, f->now_us);
	return hmc5883l_poll(&f->mag, f->now_us, &f->out);
}

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
	assert_int_equal(hmc5883l_init(&f->mag, &f->cfg), 0);
	for (int i = 0; i < 200 && !hmc5883l_is_running(&f->mag); i++)
		assert_int_equal(step(f, 1000), 0);
	assert_true(hmc5883l_is_running(&f->mag));
}

static void test_hmc5883l_configures_75hz_averaged_continuous_measurement(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(f->chip.regs[0], 0x78);
	assert_int_equal(f->chip.regs[1], 0x20);
	assert_int_equal(f->chip.regs[2], 0x00);
	/* 75 Hz: about 7 samples in 100 ms, less the first one, dropped. */
	assert_in_range(run_ms(f, 100), 5, 8);
	assert_int_equal(f->chip.partial_reads, 0);
}

static void test_hmc5883l_reorders_x_z_y_and_scales_by_gain(void **state)
{
	struct fixture *f = *state;

	f->chip.field[0] = 1090;    /* 1 gauss at 1.3 Ga: 100 uT */
	f->chip.field[1] = -545;
	f->chip.field[2] = 218;
	start(f);
	assert_true(run_ms(f, 40) > 0);
	assert_float_equal(f->out.field_ut[0], 100.0f, 1e-3);
	assert_float_equal(f->out.field_ut[1], -50.0f, 1e-3);
	assert_float_equal(f->out.field_ut[2], 20.0f, 1e-3);
}

static void test_hmc5883l_uses_the_lsb_of_the_chosen_gain(void **state)
{
	struct fixture *f = *state;

	f->cfg.gain = HMC5883L_GAIN_8_1GA;
	f->chip.field[0] = 230;
	start(f);
	assert_int_equal(f->chip.regs[1], 0xe0);
	assert_true(run_ms(f, 40) > 0);
	assert_float_equal(f->out.field_ut[0], 100.0f, 1e-3);
}

static void test_hmc5883l_rejects_a_chip_that_is_not_h43(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	f->chip.regs[11] = '5';
	assert_int_equal(hmc5883l_init(&f->mag, &f->cfg), 0);
	for (int i = 0; i < 200 && r != -ENODEV; i++)
		r = step(f, 1000);
	assert_int_equal(r, -ENODEV);
	assert_true(hmc5883l_stats(&f->mag)->probe_failures >= 1);
	assert_int_equal(f->chip.regs[2], 0x01);   /* never configured */
}

static void test_hmc5883l_gives_up_on_a_nak_at_the_wrong_address(void **state)
{
	struct fixture *f = *state;
	int r;

	f->cfg.addr = 0x1f;
	assert_int_equal(hmc5883l_init(&f->mag, &f->cfg), 0);
	assert_int_equal(step(f, 0), -ENXIO);
	do
		r = step(f, 1000);
	while (r == 0 || r == -ENXIO);
	assert_int_equal(r, -ENODEV);
	assert_true(f->bus.naks >= 2);
}

static void test_hmc5883l_drops_a_sample_with_an_axis_at_minus_4096(void **state)
{
	struct fixture *f = *state;
	struct mag_sample last;

	f->chip.field[0] = 100;
	start(f);
	assert_true(run_ms(f, 40) > 0);
	f->chip.overflow_y = true;
	run_ms(f, 15);   /* the sample already measured may still come */
	struct mag_sample good;
	assert_true(hmc5883l_last_sample(&f->mag, &good));
	assert_int_equal(run_ms(f, 60), 0);
	assert_true(hmc5883l_stats(&f->mag)->overflows >= 3);
	assert_true(hmc5883l_last_sample(&f->mag, &last));
	assert_memory_equal(&last, &good, sizeof(good));
}

static void test_hmc5883l_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct mag_sample last;

	start(f);
	assert_true(run_ms(f, 40) > 0);
	struct mag_sample good = f->out;
	f->bus.fail_next = 1;
	assert_int_equal(step(f, 7000), -EIO);
	assert_int_equal(hmc5883l_stats(&f->mag)->bus_errors, 1);
	assert_true(hmc5883l_last_sample(&f->mag, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	assert_true(run_ms(f, 40) > 0);
}

static void test_hmc5883l_sets_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_true(run_ms(f, 40) > 0);
	emul_hmc5883l_power_cycle(&f->chip);
	/* Silence for 200 ms, then the set-up again. */
	assert_int_equal(run_ms(f, 210), 0);
	assert_int_equal(hmc5883l_stats(&f->mag)->stale_events, 1);
	assert_true(run_ms(f, 100) > 3);
	assert_int_equal(f->chip.regs[0], 0x78);
	assert_int_equal(hmc5883l_stats(&f->mag)->setups, 2);
}

static void test_hmc5883l_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct hmc5883l_config c = f->cfg;

	c.rotation = 0;
	assert_int_equal(hmc5883l_init(&f->mag, &c), -EINVAL);
	c = f->cfg;
	c.gain = 9;
	assert_int_equal(hmc5883l_init(&f->mag, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_hmc5883l_configures_75hz_averaged_continuous_measurement),
		T(test_hmc5883l_reorders_x_z_y_and_scales_by_gain),
		T(test_hmc5883l_uses_the_lsb_of_the_chosen_gain),
		T(test_hmc5883l_rejects_a_chip_that_is_not_h43),
		T(test_hmc5883l_gives_up_on_a_nak_at_the_wrong_address),
		T(test_hmc5883l_drops_a_sample_with_an_axis_at_minus_4096),
		T(test_hmc5883l_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_hmc5883l_sets_up_again_after_the_chip_lost_power),
		T(test_hmc5883l_init_rejects_a_bad_configuration),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
