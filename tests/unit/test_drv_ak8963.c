// SPDX-License-Identifier: GPL-3.0-or-later
/* The AK8963 driver over direct I2C against the emulated chip in tests/emul. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "../emul/emul_ak8963.h"
#include "../emul/emul_i2c.h"
#include "drivers/ak8963.h"

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_ak8963 chip;
	struct ak8963 mag;
	struct ak8963_config cfg;
	uint64_t now_us;
	struct mag_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const uint8_t asa[3] = { 128, 176, 80 };   /* factors 1, 1.1875, 0.8125 */

	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_ak8963_init(&f->chip, asa);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	f->cfg = (struct ak8963_config){ .bus = &f->bus.bus, .rotation = ROTATION_NONE };
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
	emul_ak8963_set_time(&f->chip, f->now_us);
	return ak8963_poll(&f->mag, f->now_us, &f->out);
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
	assert_int_equal(ak8963_init(&f->mag, &f->cfg), 0);
	for (int i = 0; i < 200 && !ak8963_is_running(&f->mag); i++)
		assert_int_equal(step(f, 1000), 0);
	assert_true(ak8963_is_running(&f->mag));
}

static void test_ak8963_sets_up_through_power_down_and_reads_its_asa(void **state)
{
	struct fixture *f = *state;
	uint8_t asa[3];

	start(f);
	assert_int_equal(f->chip.resets, 1);
	assert_int_equal(f->chip.fuse_reads, 3);
	assert_int_equal(f->chip.bad_mode_changes, 0);
	assert_int_equal(f->chip.regs[0x0a], 0x16);   /* 16-bit, continuous 100 Hz */
	ak8963_asa(&f->mag, asa);
	assert_int_equal(asa[0], 128);
	assert_int_equal(asa[1], 176);
	assert_int_equal(asa[2], 80);
}

static void test_ak8963_gives_microtesla_adjusted_by_asa(void **state)
{
	struct fixture *f = *state;

	f->chip.field[0] = 1000;
	f->chip.field[1] = 1000;
	f->chip.field[2] = -1000;
	start(f);
	int samples = run_ms(f, 100);
	assert_in_range(samples, 9, 11);
	assert_float_equal(f->out.field_ut[0], 150.0f, 1e-3);
	assert_float_equal(f->out.field_ut[1], 178.125f, 1e-3);
	assert_float_equal(f->out.field_ut[2], -121.875f, 1e-3);
	assert_int_equal(f->out.t_us, f->mag.last.t_us);
	assert_int_equal(ak8963_stats(&f->mag)->overruns, 0);
}

static void test_ak8963_applies_the_mpu9250_axis_rotation(void **state)
{
	struct fixture *f = *state;

	f->cfg.rotation = ROTATION_ROLL_180_YAW_90;
	f->chip.field[0] = 1000;   /* 150 uT along the AK8963's x: the IMU's y */
	start(f);
	assert_true(run_ms(f, 30) > 0);
	assert_float_equal(f->out.field_ut[0], 0, 1e-6);
	assert_float_equal(f->out.field_ut[1], 150.0f, 1e-3);
}

static void test_ak8963_rejects_a_chip_with_the_wrong_wia(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	f->chip.wia = 0x00;
	f->chip.regs[0] = 0x00;
	assert_int_equal(ak8963_init(&f->mag, &f->cfg), 0);
	for (int i = 0; i < 200 && r != -ENODEV; i++)
		r = step(f, 1000);
	assert_int_equal(r, -ENODEV);
	assert_int_equal(f->chip.resets, 0);
	assert_true(ak8963_stats(&f->mag)->probe_failures >= 1);
	uint32_t transfers = f->bus.transfers;
	assert_int_equal(step(f, 100000), -ENODEV);
	assert_int_equal(f->bus.transfers, transfers);
}

static void test_ak8963_gives_up_on_a_nak_at_the_wrong_address(void **state)
{
	struct fixture *f = *state;
	int r;

	f->cfg.addr = 0x0d;
	assert_int_equal(ak8963_init(&f->mag, &f->cfg), 0);
	assert_int_equal(step(f, 0), -ENXIO);
	do
		r = step(f, 1000);
	while (r == 0 || r == -ENXIO);
	assert_int_equal(r, -ENODEV);
	assert_true(f->bus.naks >= 2);
	assert_int_equal(ak8963_stats(&f->mag)->bus_errors, f->bus.naks);
}

static void test_ak8963_drops_a_sample_flagged_as_overflowed(void **state)
{
	struct fixture *f = *state;
	struct mag_sample last;

	f->chip.field[0] = 100;
	start(f);
	assert_true(run_ms(f, 30) > 0);
	struct mag_sample good = f->out;
	f->chip.overflow = true;
	assert_int_equal(run_ms(f, 50), 0);
	assert_true(ak8963_stats(&f->mag)->overflows >= 4);
	assert_true(ak8963_last_sample(&f->mag, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	f->chip.overflow = false;
	assert_true(run_ms(f, 30) > 0);
}

static void test_ak8963_counts_samples_it_was_too_slow_for(void **state)
{
	struct fixture *f = *state;

	start(f);
	run_ms(f, 30);
	/* A caller that only comes back every 25 ms lets a sample be overwritten. */
	for (int i = 0; i < 4; i++)
		step(f, 25000);
	assert_true(ak8963_stats(&f->mag)->overruns >= 3);
}

static void test_ak8963_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct mag_sample last;

	start(f);
	assert_true(run_ms(f, 30) > 0);
	struct mag_sample good = f->out;
	f->bus.fail_next = 1;
	assert_int_equal(step(f, 5000), -EIO);
	assert_int_equal(ak8963_stats(&f->mag)->bus_errors, 1);
	assert_true(ak8963_last_sample(&f->mag, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	assert_true(run_ms(f, 30) > 0);
}

static void test_ak8963_sets_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_true(run_ms(f, 30) > 0);
	emul_ak8963_power_cycle(&f->chip);
	/* Silence for 100 ms, then the set-up again. */
	assert_int_equal(run_ms(f, 110), 0);
	assert_int_equal(ak8963_stats(&f->mag)->stale_events, 1);
	assert_true(run_ms(f, 100) > 5);
	assert_int_equal(f->chip.resets, 2);
	assert_int_equal(f->chip.bad_mode_changes, 0);
}

static void test_ak8963_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct ak8963_config c = f->cfg;

	c.rotation = 0;
	assert_int_equal(ak8963_init(&f->mag, &c), -EINVAL);
	c = f->cfg;
	c.bus = NULL;
	assert_int_equal(ak8963_init(&f->mag, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_ak8963_sets_up_through_power_down_and_reads_its_asa),
		T(test_ak8963_gives_microtesla_adjusted_by_asa),
		T(test_ak8963_applies_the_mpu9250_axis_rotation),
		T(test_ak8963_rejects_a_chip_with_the_wrong_wia),
		T(test_ak8963_gives_up_on_a_nak_at_the_wrong_address),
		T(test_ak8963_drops_a_sample_flagged_as_overflowed),
		T(test_ak8963_counts_samples_it_was_too_slow_for),
		T(test_ak8963_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_ak8963_sets_up_again_after_the_chip_lost_power),
		T(test_ak8963_init_rejects_a_bad_configuration),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
