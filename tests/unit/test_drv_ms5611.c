// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MS5611 driver: its pure compensation and CRC against the datasheet's
 * and AN520's worked examples, and the whole driver over SPI and over I2C
 * against the emulated chip in tests/emul.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_i2c.h"
#include "../emul/emul_ms5611.h"
#include "drivers/ms5611.h"

/* The datasheet's example coefficients C1..C6. */
static const uint16_t example_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };

static void example_prom(uint16_t prom[8])
{
	prom[0] = 0;
	memcpy(&prom[1], example_c, sizeof(example_c));
	prom[7] = 0;
}

static void test_ms5611_compensates_the_datasheet_example(void **state)
{
	(void)state;
	uint16_t prom[8];
	int32_t p_pa, t_centi;

	example_prom(prom);
	ms5611_compensate(prom, 9085466, 8569150, &p_pa, &t_centi);
	assert_int_equal(t_centi, 2007);     /* 20.07 degC */
	assert_int_equal(p_pa, 100009);      /* 1000.09 mbar */
}

/* The datasheet's formulas once more, in double precision, written out step by step. */
static void reference_compensation(const uint16_t c[6], double d1, double d2, double *p_pa,
				   double *t_centi)
{
	double dt = d2 - c[4] * 256.0;
	double temp = 2000.0 + dt * c[5] / 8388608.0;
	double off = c[1] * 65536.0 + c[3] * dt / 128.0;
	double sens = c[0] * 32768.0 + c[2] * dt / 256.0;
	double t2 = 0, off2 = 0, sens2 = 0;

	if (temp < 2000) {
		t2 = dt * dt / 2147483648.0;
		off2 = 2.5 * (temp - 2000) * (temp - 2000);
		sens2 = 1.25 * (temp - 2000) * (temp - 2000);
		if (temp < -1500) {
			off2 += 7 * (temp + 1500) * (temp + 1500);
			sens2 += 5.5 * (temp + 1500) * (temp + 1500);
		}
	}
	temp -= t2;
	off -= off2;
	sens -= sens2;
	*p_pa = (d1 * sens / 2097152.0 - off) / 32768.0;
	*t_centi = temp;
}

static void test_ms5611_applies_second_order_compensation_when_cold(void **state)
{
	(void)state;
	uint16_t prom[8];

	example_prom(prom);
	/* D2 for about +5 degC, about -25 degC (both branches), and the warm case for contrast. */
	const uint32_t d2s[] = { 8100000, 7200000, 8800000 };
	const int32_t want_branch[] = { 1, 2, 0 };
	for (size_t i = 0; i < 3; i++) {
		int32_t p_pa, t_centi;
		double ref_p, ref_t;

		ms5611_compensate(prom, 9085466, d2s[i], &p_pa, &t_centi);
		reference_compensation(example_c, 9085466, d2s[i], &ref_p, &ref_t);
		/* Integer division truncates where the reference does not: a count or two. */
		assert_in_range(t_centi, (int32_t)ref_t - 2, (int32_t)ref_t + 2);
		assert_in_range(p_pa, (int32_t)ref_p - 2, (int32_t)ref_p + 2);
		int32_t branch = t_centi >= 2000 ? 0 : (t_centi >= -1500 ? 1 : 2);
		assert_int_equal(branch, want_branch[i]);
	}
}

static void test_ms5611_crc4_matches_the_an520_example(void **state)
{
	(void)state;
	uint16_t prom[8] = { 0x3132, 0x3334, 0x3536, 0x3738, 0x3940, 0x4142, 0x4344, 0x4500 };

	assert_int_equal(ms5611_prom_crc4(prom), 0xb);
	assert_false(ms5611_prom_is_valid(prom));
	prom[7] = 0x450b;
	assert_true(ms5611_prom_is_valid(prom));
	prom[3] ^= 0x0100;
	assert_false(ms5611_prom_is_valid(prom));
}

static void test_ms5611_rejects_a_prom_of_all_zeros_or_all_ones(void **state)
{
	(void)state;
	uint16_t zeros[8] = { 0 }, ones[8];

	memset(ones, 0xff, sizeof(ones));
	assert_false(ms5611_prom_is_valid(zeros));
	assert_false(ms5611_prom_is_valid(ones));
}

struct fixture {
	struct emul_ms5611 emul;
	struct emul_i2c_bus i2c;
	struct ms5611 baro;
	struct ms5611_config cfg;
	uint64_t now_us;
	struct baro_sample out;
};

static struct fixture *fixture_new(bool over_i2c)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_ms5611_init(&f->emul, example_c, MS5611_I2C_ADDR);
	emul_i2c_init(&f->i2c);
	emul_i2c_attach(&f->i2c, &f->emul.i2c);
	if (over_i2c)
		f->cfg.bus = (struct chip_bus){ .kind = CHIP_BUS_I2C, .i2c = &f->i2c.bus,
						.i2c_addr = MS5611_I2C_ADDR };
	else
		f->cfg.bus = (struct chip_bus){ .kind = CHIP_BUS_SPI, .spi = &f->emul.spi,
						.spi_speed_hz = 10000000 };
	f->now_us = 5000000;
	return f;
}

static int fixture_setup(void **state)
{
	*state = fixture_new(false);
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
	emul_ms5611_set_time(&f->emul, f->now_us);
	return ms5611_poll(&f->baro, f->now_us, &f->out);
}

/* Polls every millisecond for ms milliseconds; returns how many samples came. */
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

static void check_datasheet_example_end_to_end(struct fixture *f)
{
	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	int samples = run_ms(f, 200);

	assert_true(ms5611_is_running(&f->baro));
	/* 3 ms per conversion at OSR 1024, four pressures per temperature. */
	assert_in_range(samples, 45, 55);
	assert_float_equal(f->out.pressure_pa, 100009.0f, 0.5f);
	assert_float_equal(f->out.temp_c, 20.07f, 0.001f);
	/* Stamped when read, within a conversion of the last poll. */
	assert_in_range(f->out.t_us, f->now_us - 4000, f->now_us);
	assert_int_equal(f->emul.resets, 1);
	assert_int_equal(f->emul.early_commands, 0);
	assert_int_equal(f->emul.early_reads, 0);
	assert_int_equal(f->emul.spoiled, 0);
	assert_int_equal(f->emul.last_convert & 0x0f, 0x04);   /* OSR 1024 */
	assert_in_range(f->emul.d1_count, 4 * f->emul.d2_count - 4, 4 * f->emul.d2_count + 4);
	assert_int_equal(ms5611_stats(&f->baro)->bus_errors, 0);
	assert_int_equal(ms5611_stats(&f->baro)->samples, (uint64_t)samples);
}

static void test_ms5611_over_spi_gives_the_datasheet_example(void **state)
{
	check_datasheet_example_end_to_end(*state);
}

static void test_ms5611_over_i2c_gives_the_datasheet_example(void **state)
{
	(void)state;
	struct fixture *f = fixture_new(true);

	check_datasheet_example_end_to_end(f);
	assert_int_equal(f->i2c.naks, 0);
	free(f);
}

static void test_ms5611_setup_never_waits_inside_a_call(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	assert_int_equal(step(f, 0), 0);                     /* reset sent */
	assert_int_equal(f->emul.resets, 1);
	uint64_t due = ms5611_next_poll_us(&f->baro);
	assert_true(due >= f->now_us + 2800);
	/* Calls before then do nothing at all. */
	uint32_t conversions = f->emul.conversions;
	assert_int_equal(step(f, 1000), 0);
	assert_int_equal(step(f, 1000), 0);
	assert_int_equal(f->emul.early_commands, 0);
	assert_int_equal(f->emul.conversions, conversions);
	assert_false(ms5611_is_running(&f->baro));
	step(f, 1000);                                        /* PROM */
	assert_true(ms5611_is_running(&f->baro));
}

static void test_ms5611_rejects_a_prom_with_a_bad_crc(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	f->emul.prom[3] ^= 0x0010;   /* CRC left as it was */
	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	for (int i = 0; i < 100 && r != -EBADMSG; i++)
		r = step(f, 1000);
	assert_int_equal(r, -EBADMSG);
	assert_int_equal(ms5611_stats(&f->baro)->crc_errors, 3);
	assert_int_equal(f->emul.resets, 3);
	assert_int_equal(f->emul.conversions, 0);
	/* Given up: no more traffic. */
	uint32_t resets = f->emul.resets;
	assert_int_equal(step(f, 100000), -EBADMSG);
	assert_int_equal(f->emul.resets, resets);
}

static void test_ms5611_gives_up_on_a_nak_at_the_wrong_address(void **state)
{
	(void)state;
	struct fixture *f = fixture_new(true);
	int r = 0;

	f->cfg.bus.i2c_addr = 0x76;   /* CSB the other way round */
	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	assert_int_equal(step(f, 0), -ENXIO);
	for (int i = 0; i < 200 && r != -ENODEV; i++) {
		r = step(f, 1000);
		assert_true(r == 0 || r == -ENXIO || r == -ENODEV);
	}
	assert_int_equal(r, -ENODEV);
	assert_true(f->i2c.naks >= 10);
	assert_int_equal(ms5611_stats(&f->baro)->bus_errors, f->i2c.naks);
	assert_int_equal(f->emul.resets, 0);
	free(f);
}

static void test_ms5611_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct baro_sample last;

	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	assert_false(ms5611_last_sample(&f->baro, &last));
	run_ms(f, 50);
	struct baro_sample good = f->out;

	/* Fail whatever comes next, then keep polling until the driver notices. */
	f->emul.fail_next = 1;
	int r = 0;
	for (int i = 0; i < 10 && r != -EIO; i++)
		r = step(f, 1000);
	assert_int_equal(r, -EIO);
	assert_int_equal(ms5611_stats(&f->baro)->bus_errors, 1);
	assert_true(ms5611_last_sample(&f->baro, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	/* And it goes on. */
	assert_true(run_ms(f, 50) > 5);
	assert_true(f->out.t_us > good.t_us);
	assert_int_equal(f->emul.early_reads, 0);
}

static void test_ms5611_repeats_a_conversion_that_reads_zero(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	run_ms(f, 20);
	f->emul.zero_reads = 2;
	int samples = run_ms(f, 60);
	assert_int_equal(ms5611_stats(&f->baro)->adc_errors, 2);
	assert_true(samples > 10);
	assert_float_equal(f->out.pressure_pa, 100009.0f, 0.5f);
}

static void test_ms5611_reports_stuck_pressure_and_starts_over(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	f->cfg.stuck_limit = 10;
	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	f->emul.noise = false;
	for (int i = 0; i < 200 && r != -ESTALE; i++)
		r = step(f, 1000);
	assert_int_equal(r, -ESTALE);
	assert_int_equal(ms5611_stats(&f->baro)->stuck_events, 1);
	assert_false(ms5611_is_running(&f->baro));
	f->emul.noise = true;
	assert_true(run_ms(f, 100) > 10);
	assert_int_equal(f->emul.resets, 2);
}

static void test_ms5611_waits_the_conversion_time_of_its_osr(void **state)
{
	struct fixture *f = *state;

	f->cfg.osr = MS5611_OSR_4096;
	f->cfg.pressure_per_temp = 1;
	assert_int_equal(ms5611_init(&f->baro, &f->cfg), 0);
	int samples = run_ms(f, 500);
	assert_int_equal(f->emul.last_convert & 0x0f, 0x08);
	assert_int_equal(f->emul.early_reads, 0);
	/* 10 ms per conversion (9.04 rounded up to the next poll), half of them pressure. */
	assert_in_range(samples, 22, 26);
	assert_in_range(f->emul.d1_count, f->emul.d2_count - 1, f->emul.d2_count + 1);
}

static void test_ms5611_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct ms5611_config c = f->cfg;

	c.bus.kind = 0;
	assert_int_equal(ms5611_init(&f->baro, &c), -EINVAL);
	c = f->cfg;
	c.bus.spi = NULL;
	assert_int_equal(ms5611_init(&f->baro, &c), -EINVAL);
	c = f->cfg;
	c.osr = 6;
	assert_int_equal(ms5611_init(&f->baro, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms5611_compensates_the_datasheet_example),
		cmocka_unit_test(test_ms5611_applies_second_order_compensation_when_cold),
		cmocka_unit_test(test_ms5611_crc4_matches_the_an520_example),
		cmocka_unit_test(test_ms5611_rejects_a_prom_of_all_zeros_or_all_ones),
		T(test_ms5611_over_spi_gives_the_datasheet_example),
		T(test_ms5611_over_i2c_gives_the_datasheet_example),
		T(test_ms5611_setup_never_waits_inside_a_call),
		T(test_ms5611_rejects_a_prom_with_a_bad_crc),
		T(test_ms5611_gives_up_on_a_nak_at_the_wrong_address),
		T(test_ms5611_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_ms5611_repeats_a_conversion_that_reads_zero),
		T(test_ms5611_reports_stuck_pressure_and_starts_over),
		T(test_ms5611_waits_the_conversion_time_of_its_osr),
		T(test_ms5611_init_rejects_a_bad_configuration),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
