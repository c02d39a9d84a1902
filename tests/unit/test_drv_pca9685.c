// SPDX-License-Identifier: GPL-3.0-or-later
/* The PCA9685 driver against the emulated chip and output-enable line in tests/emul. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "../emul/emul_gpio.h"
#include "../emul/emul_i2c.h"
#include "../emul/emul_pca9685.h"
#include "drivers/pca9685.h"

#define NAVIO_CLOCK_HZ 24576000u

struct fixture {
	struct emul_i2c_bus bus;
	struct emul_pca9685 chip;
	struct emul_gpio oe;
	struct pca9685 pwm;
	struct pca9685_config cfg;
	uint64_t now_us;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_i2c_init(&f->bus);
	emul_pca9685_init(&f->chip, 25000000, NAVIO_CLOCK_HZ);
	emul_i2c_attach(&f->bus, &f->chip.i2c);
	emul_gpio_init(&f->oe);
	/* The Navio: external 24.576 MHz clock, outputs from the fourth on, /OE on a GPIO. */
	f->cfg = (struct pca9685_config){
		.bus = &f->bus.bus,
		.ext_clock_hz = NAVIO_CLOCK_HZ,
		.channel_offset = 3,
		.freq_hz = 50,
		.output_enable = &f->oe.line,
	};
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
	emul_pca9685_set_time(&f->chip, f->now_us);
	return pca9685_poll(&f->pwm, f->now_us);
}

/* Polls every 100 us, as fast as a start-up loop might. */
static void start(struct fixture *f)
{
	int r = 0;

	assert_int_equal(pca9685_init(&f->pwm, &f->cfg), 0);
	for (int i = 0; i < 1000 && r != 1; i++) {
		r = step(f, 100);
		assert_true(r == 0 || r == 1);
	}
	assert_true(pca9685_is_ready(&f->pwm));
}

static void test_pca9685_prescale_from_the_navio_clock_is_exact_at_50_and_400_hz(void **state)
{
	(void)state;
	assert_int_equal(pca9685_prescale_for(NAVIO_CLOCK_HZ, 50), 119);
	assert_int_equal(pca9685_prescale_for(NAVIO_CLOCK_HZ, 400), 14);
	/* 25 MHz cannot make 50 Hz exactly: rounded so the period is longer, never shorter. */
	uint32_t p = pca9685_prescale_for(25000000, 50);
	assert_int_equal(p, 122);
	assert_true(25000000.0 / (4096.0 * (p + 1)) <= 50.0);
	assert_true(25000000.0 / (4096.0 * p) > 50.0);
}

static void test_pca9685_sets_up_the_external_clock_as_the_datasheet_asks(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(f->chip.regs[0xfe], 119);
	assert_int_equal(f->chip.regs[0x00] & 0x70, 0x60);    /* EXTCLK, AI, awake */
	assert_int_equal(f->chip.prescale_ignored, 0);
	assert_int_equal(f->chip.ext_switch_awake, 0);
	assert_int_equal(f->chip.early_restarts, 0);
	assert_float_equal(emul_pca9685_period_us(&f->chip), 20000.0, 1e-6);
	assert_float_equal(pca9685_freq_hz(&f->pwm), 50.0f, 1e-4);
	/* All outputs low until written, and enabled at the pin at the very end. */
	for (unsigned int n = 0; n < 16; n++)
		assert_float_equal(emul_pca9685_high_us(&f->chip, n), 0, 0);
	assert_int_equal(f->oe.value, 1);
}

static void test_pca9685_outputs_stay_disabled_during_setup(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(pca9685_init(&f->pwm, &f->cfg), 0);
	step(f, 0);
	assert_int_equal(f->oe.value, 0);
	while (!pca9685_is_ready(&f->pwm)) {
		assert_int_equal(f->oe.value, 0);
		step(f, 100);
	}
	assert_int_equal(f->oe.value, 1);
}

static void test_pca9685_turns_microseconds_into_the_pulse_the_chip_makes(void **state)
{
	struct fixture *f = *state;
	const double tick_us = 20000.0 / 4096;

	start(f);
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 1500), 0);
	assert_int_equal(pca9685_write_us(&f->pwm, 12, 1000), 0);
	/* Channel 0 is the chip's output 3 on a Navio. */
	assert_float_equal(emul_pca9685_high_us(&f->chip, 3), 1500.0, tick_us / 2);
	assert_float_equal(emul_pca9685_high_us(&f->chip, 15), 1000.0, tick_us / 2);
	assert_float_equal(emul_pca9685_high_us(&f->chip, 0), 0, 0);
	assert_int_equal(pca9685_stats(&f->pwm)->writes, 2);
}

static void test_pca9685_writes_a_range_of_channels_in_one_transfer(void **state)
{
	struct fixture *f = *state;
	const uint16_t us[8] = { 1000, 1100, 1200, 1300, 1400, 1500, 1600, 2000 };

	start(f);
	uint32_t transfers = f->bus.transfers;
	assert_int_equal(pca9685_write_range_us(&f->pwm, 2, us, 8), 0);
	assert_int_equal(f->bus.transfers, transfers + 1);
	for (unsigned int i = 0; i < 8; i++)
		assert_float_equal(emul_pca9685_high_us(&f->chip, 3 + 2 + i), us[i], 20000.0 / 4096 / 2);
}

static void test_pca9685_single_writes_send_only_the_off_bytes(void **state)
{
	struct fixture *f = *state;

	start(f);
	uint32_t writes = f->chip.writes;
	assert_int_equal(pca9685_write_us(&f->pwm, 4, 1234), 0);
	assert_int_equal(f->chip.writes, writes + 2);
}

static void test_pca9685_zero_microseconds_is_full_off(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(pca9685_write_us(&f->pwm, 1, 1500), 0);
	assert_int_equal(pca9685_write_us(&f->pwm, 1, 0), 0);
	assert_float_equal(emul_pca9685_high_us(&f->chip, 4), 0, 0);
	assert_int_equal(f->chip.regs[0x06 + 4 * 4 + 3] & 0x10, 0x10);
}

static void test_pca9685_clamps_a_pulse_longer_than_the_period(void **state)
{
	struct fixture *f = *state;

	f->cfg.freq_hz = 400;   /* 2500 us */
	start(f);
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 3000), 0);
	assert_float_equal(emul_pca9685_high_us(&f->chip, 3), 2500.0 * 4095 / 4096, 1e-6);
	assert_int_equal(pca9685_us_to_counts(NAVIO_CLOCK_HZ, 14, 60000), 4095);
}

static void test_pca9685_uses_the_measured_internal_oscillator(void **state)
{
	struct fixture *f = *state;

	/* No external clock; this chip's oscillator was measured at 26 MHz. */
	f->chip.internal_hz = 26000000;
	f->cfg.ext_clock_hz = 0;
	f->cfg.osc_hz = 26000000;
	start(f);
	assert_int_equal(f->chip.regs[0x00] & 0x40, 0);
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 1500), 0);
	double tick = emul_pca9685_period_us(&f->chip) / 4096;
	assert_float_equal(emul_pca9685_high_us(&f->chip, 3), 1500.0, tick / 2);
	assert_true(emul_pca9685_period_us(&f->chip) >= 20000.0);
}

static void test_pca9685_refuses_writes_before_setup_and_past_the_last_output(void **state)
{
	struct fixture *f = *state;
	const uint16_t us[4] = { 1500, 1500, 1500, 1500 };

	assert_int_equal(pca9685_init(&f->pwm, &f->cfg), 0);
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 1500), -EAGAIN);
	start(f);
	assert_int_equal(pca9685_write_us(&f->pwm, 12, 1500), 0);
	assert_int_equal(pca9685_write_us(&f->pwm, 13, 1500), -EINVAL);   /* 13 + 3 = 16 */
	assert_int_equal(pca9685_write_range_us(&f->pwm, 10, us, 4), -EINVAL);
	assert_int_equal(pca9685_write_range_us(&f->pwm, 9, us, 4), 0);
}

static void test_pca9685_retries_setup_after_bus_errors(void **state)
{
	struct fixture *f = *state;
	int errors = 0;

	assert_int_equal(pca9685_init(&f->pwm, &f->cfg), 0);
	for (int i = 0; i < 1000 && !pca9685_is_ready(&f->pwm); i++) {
		/* A failure every 25 ms: after each retry's 10 ms there is room to go on. */
		if (i % 25 == 0)
			f->bus.fail_next = 1;
		int r = step(f, 1000);
		assert_true(r == 0 || r == 1 || r == -EIO);
		errors += r == -EIO;
	}
	assert_true(pca9685_is_ready(&f->pwm));
	assert_true(errors > 0);
	assert_int_equal(pca9685_stats(&f->pwm)->bus_errors, (uint32_t)errors);
	assert_int_equal(f->chip.regs[0xfe], 119);
}

static void test_pca9685_reports_a_nak_at_the_wrong_address(void **state)
{
	struct fixture *f = *state;

	f->cfg.addr = 0x41;
	assert_int_equal(pca9685_init(&f->pwm, &f->cfg), 0);
	assert_int_equal(step(f, 0), -ENXIO);
	assert_int_equal(step(f, 20000), -ENXIO);
	assert_false(pca9685_is_ready(&f->pwm));
	assert_int_equal(f->oe.value, 0);
	assert_true(f->bus.naks >= 2);
}

static void test_pca9685_counts_a_failed_output_write(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 1500), 0);
	f->bus.fail_next = 1;
	assert_int_equal(pca9685_write_us(&f->pwm, 0, 1900), -EIO);
	/* The chip goes on making the last pulse it was given. */
	assert_float_equal(emul_pca9685_high_us(&f->chip, 3), 1500.0, 20000.0 / 4096 / 2);
	assert_int_equal(pca9685_stats(&f->pwm)->bus_errors, 1);
}

static void test_pca9685_output_enable_follows_the_caller(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(pca9685_set_outputs_enabled(&f->pwm, false), 0);
	assert_int_equal(f->oe.value, 0);
	assert_int_equal(pca9685_set_outputs_enabled(&f->pwm, true), 0);
	assert_int_equal(f->oe.value, 1);
	f->oe.fail_next = 1;
	assert_int_equal(pca9685_set_outputs_enabled(&f->pwm, false), -EIO);
	assert_int_equal(pca9685_stats(&f->pwm)->gpio_errors, 1);
}

static void test_pca9685_works_without_an_output_enable_line(void **state)
{
	struct fixture *f = *state;

	f->cfg.output_enable = NULL;
	start(f);
	assert_int_equal(pca9685_set_outputs_enabled(&f->pwm, false), 0);
	assert_int_equal(f->oe.sets, 0);
}

static void test_pca9685_init_rejects_a_frequency_it_cannot_make(void **state)
{
	struct fixture *f = *state;
	struct pca9685_config c = f->cfg;

	c.ext_clock_hz = 0;
	c.freq_hz = 3000;           /* prescale 2 */
	assert_int_equal(pca9685_init(&f->pwm, &c), -EINVAL);
	c.freq_hz = 10;             /* prescale 609 */
	assert_int_equal(pca9685_init(&f->pwm, &c), -EINVAL);
	c.freq_hz = 1500;
	assert_int_equal(pca9685_init(&f->pwm, &c), 0);
	c.channel_offset = 16;
	assert_int_equal(pca9685_init(&f->pwm, &c), -EINVAL);
	c = f->cfg;
	c.bus = NULL;
	assert_int_equal(pca9685_init(&f->pwm, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pca9685_prescale_from_the_navio_clock_is_exact_at_50_and_400_hz),
		T(test_pca9685_sets_up_the_external_clock_as_the_datasheet_asks),
		T(test_pca9685_outputs_stay_disabled_during_setup),
		T(test_pca9685_turns_microseconds_into_the_pulse_the_chip_makes),
		T(test_pca9685_writes_a_range_of_channels_in_one_transfer),
		T(test_pca9685_single_writes_send_only_the_off_bytes),
		T(test_pca9685_zero_microseconds_is_full_off),
		T(test_pca9685_clamps_a_pulse_longer_than_the_period),
		T(test_pca9685_uses_the_measured_internal_oscillator),
		T(test_pca9685_refuses_writes_before_setup_and_past_the_last_output),
		T(test_pca9685_retries_setup_after_bus_errors),
		T(test_pca9685_reports_a_nak_at_the_wrong_address),
		T(test_pca9685_counts_a_failed_output_write),
		T(test_pca9685_output_enable_follows_the_caller),
		T(test_pca9685_works_without_an_output_enable_line),
		T(test_pca9685_init_rejects_a_frequency_it_cannot_make),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
