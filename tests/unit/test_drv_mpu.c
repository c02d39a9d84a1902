// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MPU6000/MPU9250 driver against the emulated chip in tests/emul: the
 * real driver code, the real HAL dispatch, a register-map model behind
 * struct spi_ops (or on an emulated I2C bus). Time is stepped by the test, 1 ms per poll as the timer
 * thread would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_ak8963.h"
#include "../emul/emul_mpu.h"
#include "drivers/mpu.h"
#include "fulmar/i2c.h"

#define DEG 0.017453292519943295f
#define G 9.80665f

struct fixture {
	struct emul_mpu emul;
	struct emul_ak8963 ak;
	struct emul_i2c_bus i2c;
	struct mpu mpu;
	struct mpu_config cfg;
	uint64_t now_us;
	struct imu_sample out[MPU_MAX_FRAMES];
};

static struct fixture *fixture_new(uint8_t who_am_i)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_mpu_init(&f->emul, who_am_i);
	f->cfg = (struct mpu_config){
		.spi = &f->emul.dev,
		.setup_speed_hz = 1000000,
		.read_speed_hz = 20000000,
		.rotation = ROTATION_NONE,
	};
	f->now_us = 1000000;
	return f;
}

static int fixture_setup(void **state)
{
	*state = fixture_new(0x68);
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
	emul_ak8963_set_time(&f->ak, f->now_us);
	emul_mpu_advance(&f->emul, f->now_us);
	return mpu_poll(&f->mpu, f->now_us, f->out, MPU_MAX_FRAMES);
}

/* Polls every millisecond until running; returns how many polls that took. */
static int run_until_running(struct fixture *f)
{
	int polls = 0;

	while (!mpu_is_running(&f->mpu)) {
		assert_true(polls < 5000);
		int r = step(f, 1000);
		assert_true(r >= 0 || r == -EIO);
		polls++;
	}
	return polls;
}

static void start(struct fixture *f)
{
	assert_int_equal(mpu_init(&f->mpu, &f->cfg), 0);
	run_until_running(f);
}

static void test_mpu_probes_mpu6000_and_configures_it(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(mpu_init(&f->mpu, &f->cfg), 0);
	uint64_t t0 = f->now_us;
	run_until_running(f);

	assert_int_equal(mpu_chip(&f->mpu), MPU_CHIP_MPU6000);
	/* Two 100 ms reset waits at least. */
	assert_true(f->now_us - t0 >= 200000);
	assert_int_equal(f->emul.device_resets, 1);
	assert_int_equal(f->emul.regs[0x6b], 0x01);          /* awake, PLL clock */
	assert_int_equal(f->emul.regs[0x19], 0);             /* 1 kHz */
	assert_int_equal(f->emul.regs[0x1a], 1);             /* DLPF 188 Hz */
	assert_int_equal(f->emul.regs[0x1b], 0x18);          /* +-2000 deg/s */
	assert_int_equal(f->emul.regs[0x1c], 0x18);          /* +-16 g */
	assert_int_equal(f->emul.regs[0x23], 0xf8);          /* accel, temp, gyro into the FIFO */
	assert_int_equal(f->emul.regs[0x6a], 0x50);          /* FIFO on, I2C off */
	assert_int_equal(f->emul.regs[0x38], 0x10);          /* FIFO overflow flag */
	assert_int_equal(emul_mpu_last_write(&f->emul, 0x1d), -1);  /* no ACCEL_CONFIG2 on a 6000 */
	assert_int_equal(f->emul.lost_writes, 0);
	assert_int_equal(f->emul.slow_reg_too_fast, 0);
	assert_int_equal(mpu_stats(&f->mpu)->setups, 1);
}

static void test_mpu_probes_mpu9250_and_mpu9255(void **state)
{
	(void)state;
	const uint8_t ids[] = { 0x71, 0x73 };

	for (size_t i = 0; i < 2; i++) {
		struct fixture *f = fixture_new(ids[i]);
		f->cfg.dlpf = MPU_DLPF_42HZ;
		start(f);
		assert_int_equal(mpu_chip(&f->mpu), MPU_CHIP_MPU9250);
		assert_int_equal(f->emul.regs[0x1a], 3);
		assert_int_equal(f->emul.regs[0x1d], 3);     /* accel filter follows */
		assert_int_equal(f->emul.lost_writes, 0);
		assert_int_equal(f->emul.slow_reg_too_fast, 0);
		free(f);
	}
}

static void test_mpu_rejects_a_chip_with_the_wrong_who_am_i(void **state)
{
	(void)state;
	const uint8_t ids[] = { 0x70, 0x00, 0xff, 0x12 };

	for (size_t i = 0; i < 4; i++) {
		struct fixture *f = fixture_new(ids[i]);
		int r = 0;

		assert_int_equal(mpu_init(&f->mpu, &f->cfg), 0);
		for (int k = 0; k < 1000 && r != -ENODEV; k++)
			r = step(f, 1000);
		assert_int_equal(r, -ENODEV);
		assert_false(mpu_is_running(&f->mpu));
		assert_int_equal(f->emul.device_resets, 0);
		assert_true(mpu_stats(&f->mpu)->probe_failures >= 1);
		/* Failed for good: no more bus traffic. */
		uint32_t batches = f->emul.batches;
		assert_int_equal(step(f, 1000), -ENODEV);
		assert_int_equal(f->emul.batches, batches);
		free(f);
	}
}

static void test_mpu_setup_never_waits_inside_a_call(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(mpu_init(&f->mpu, &f->cfg), 0);
	int polls = 0;
	while (!mpu_is_running(&f->mpu)) {
		uint32_t before = f->emul.batches;
		assert_int_equal(step(f, 1000), 0);
		/* At most one SPI kernel call per step of the set-up. */
		assert_true(f->emul.batches - before <= 1);
		polls++;
	}
	/* The reset waits were spread over the calls, not slept through. */
	assert_true(polls >= 200);
	/* The first frame is due one period after the FIFO started. */
	assert_int_equal(mpu_next_poll_us(&f->mpu), f->now_us + 1000);
}

static void test_mpu_reads_fifo_samples_in_si_units(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 0, -1024, 2048 };
	const int16_t gyro[3] = { 164, 0, -328 };

	emul_mpu_set_raw(&f->emul, accel, gyro, 3400);
	start(f);
	int n = step(f, 5000);
	assert_int_equal(n, 5);
	for (int i = 0; i < n; i++) {
		const struct imu_sample *s = &f->out[i];
		assert_float_equal(s->accel_m_s2[0], 0, 1e-6);
		assert_float_equal(s->accel_m_s2[1], -0.5f * G, 1e-4);
		assert_float_equal(s->accel_m_s2[2], G, 1e-4);
		/* 10 deg/s, give or take the emulator's one-LSB noise. */
		assert_float_equal(s->gyro_rad_s[0], 10 * DEG, 0.0011);
		assert_float_equal(s->gyro_rad_s[1], 0, 1e-6);
		assert_float_equal(s->gyro_rad_s[2], -20 * DEG, 1e-4);
		assert_float_equal(s->temp_c, 3400 / 340.0f + 36.53f, 1e-3);
	}
	assert_int_equal(mpu_stats(&f->mpu)->samples, 5);
	assert_int_equal(f->emul.slow_reg_too_fast, 0);
}

static void test_mpu9250_temperature_has_its_own_scale(void **state)
{
	(void)state;
	struct fixture *f = fixture_new(0x71);
	const int16_t accel[3] = { 0, 0, 2048 }, gyro[3] = { 0 };

	emul_mpu_set_raw(&f->emul, accel, gyro, 1000);
	start(f);
	assert_int_equal(step(f, 2000), 2);
	assert_float_equal(f->out[1].temp_c, 1000 / 333.87f + 21.0f, 1e-3);
	free(f);
}

static void test_mpu_stamps_samples_one_period_apart_ending_now(void **state)
{
	struct fixture *f = *state;

	start(f);
	step(f, 1000);
	int n = step(f, 4000);
	assert_int_equal(n, 4);
	assert_int_equal(f->out[3].t_us, f->now_us);
	for (int i = 1; i < n; i++)
		assert_int_equal(f->out[i].t_us - f->out[i - 1].t_us, 1000);
	assert_int_equal(mpu_sample_period_us(&f->mpu), 1000);
}

static void test_mpu_timestamps_never_go_backwards(void **state)
{
	struct fixture *f = *state;
	uint64_t last = 0;

	start(f);
	/* Irregular polling: two samples may be waiting just after a late call. */
	const uint32_t gaps[] = { 1000, 1900, 100, 2700, 300, 1000, 2100, 900 };
	for (size_t i = 0; i < 40; i++) {
		int n = step(f, gaps[i % 8]);
		assert_true(n >= 0);
		for (int k = 0; k < n; k++) {
			assert_true(f->out[k].t_us > last);
			assert_true(f->out[k].t_us <= f->now_us);
			last = f->out[k].t_us;
		}
	}
}

static void test_mpu_applies_the_board_rotation(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 2048, 0, 0 }, gyro[3] = { 0, 164, 0 };

	f->cfg.rotation = ROTATION_ROLL_180_YAW_90;  /* (x, y, z) -> (y, x, -z) */
	emul_mpu_set_raw(&f->emul, accel, gyro, 0);
	emul_mpu_set_raw(&f->emul, accel, gyro, 0);
	f->emul.dither = false;
	start(f);
	assert_int_equal(step(f, 1000), 1);
	assert_float_equal(f->out[0].accel_m_s2[0], 0, 1e-6);
	assert_float_equal(f->out[0].accel_m_s2[1], G, 1e-4);
	assert_float_equal(f->out[0].accel_m_s2[2], 0, 1e-6);
	assert_float_equal(f->out[0].gyro_rad_s[0], 10 * DEG, 1e-5);
	assert_float_equal(f->out[0].gyro_rad_s[1], 0, 1e-6);
}

static void test_mpu_divides_the_sample_rate(void **state)
{
	struct fixture *f = *state;

	f->cfg.rate_hz = 250;
	start(f);
	assert_int_equal(f->emul.regs[0x19], 3);
	assert_int_equal(mpu_sample_period_us(&f->mpu), 4000);
	int total = 0;
	for (int i = 0; i < 40; i++)
		total += step(f, 1000);
	assert_in_range(total, 9, 11);
}

static void test_mpu_resets_the_fifo_after_an_overflow_and_goes_on(void **state)
{
	(void)state;
	struct fixture *f = fixture_new(0x71);

	start(f);
	assert_int_equal(step(f, 1000), 1);
	/* 512 bytes hold 36 frames of 14: 100 ms without a read overflows them. */
	f->now_us += 100000;
	emul_mpu_advance(&f->emul, f->now_us);
	assert_true(f->emul.overflows > 0);
	uint32_t resets = f->emul.fifo_resets;
	assert_int_equal(mpu_poll(&f->mpu, f->now_us, f->out, MPU_MAX_FRAMES), 0);
	assert_int_equal(mpu_stats(&f->mpu)->fifo_overflows, 1);
	assert_int_equal(f->emul.fifo_resets, resets + 1);
	/* Fresh frames right after. */
	assert_int_equal(step(f, 1000), 1);
	assert_int_equal(step(f, 1000), 1);
	assert_int_equal(mpu_stats(&f->mpu)->fifo_overflows, 1);
	free(f);
}

static void test_mpu_catches_a_misaligned_fifo_by_its_temperature(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 100, 200, 2048 }, gyro[3] = { 5, 6, 7 };

	emul_mpu_set_raw(&f->emul, accel, gyro, 3400);   /* 46.5 degC */
	start(f);
	assert_int_equal(step(f, 1000), 1);
	f->now_us += 3000;
	emul_mpu_advance(&f->emul, f->now_us);
	emul_mpu_slip_fifo(&f->emul, 2);
	/* The first frame now carries a gyro value where the temperature was. */
	assert_int_equal(mpu_poll(&f->mpu, f->now_us, f->out, MPU_MAX_FRAMES), 0);
	assert_int_equal(mpu_stats(&f->mpu)->fifo_misaligned, 1);
	assert_int_equal(step(f, 1000), 1);
	assert_float_equal(f->out[0].accel_m_s2[2], G, 1e-4);
}

static void test_mpu_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct imu_sample last;

	assert_false(mpu_last_sample(&f->mpu, &last));
	start(f);
	assert_int_equal(step(f, 1000), 1);
	struct imu_sample good = f->out[0];

	f->emul.fail_batches = 1;
	f->emul.fail_err = -EIO;
	assert_int_equal(step(f, 1000), -EIO);
	assert_int_equal(mpu_stats(&f->mpu)->bus_errors, 1);
	assert_true(mpu_last_sample(&f->mpu, &last));
	assert_memory_equal(&last, &good, sizeof(good));

	/* The bus comes back: both waiting samples arrive. */
	assert_int_equal(step(f, 1000), 2);
	assert_true(mpu_is_running(&f->mpu));
}

static void test_mpu_reports_stuck_data_and_starts_over(void **state)
{
	struct fixture *f = *state;
	int r = 0, polls = 0;

	f->cfg.stuck_limit = 50;
	start(f);
	f->emul.frozen = true;
	while (r != -ESTALE) {
		assert_true(polls++ < 100);
		r = step(f, 1000);
		assert_true(r >= 0 || r == -ESTALE);
	}
	assert_int_equal(mpu_stats(&f->mpu)->stuck_events, 1);
	assert_false(mpu_is_running(&f->mpu));
	f->emul.frozen = false;
	run_until_running(f);
	assert_int_equal(f->emul.device_resets, 2);
	assert_int_equal(step(f, 1000), 1);
}

static void test_mpu_sets_itself_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(step(f, 1000), 1);
	emul_mpu_power_cycle(&f->emul);
	/* The round-robin register check notices within a few polls. */
	for (int i = 0; i < 12 && mpu_is_running(&f->mpu); i++)
		assert_true(step(f, 1000) >= 0);
	assert_false(mpu_is_running(&f->mpu));
	assert_true(mpu_stats(&f->mpu)->config_errors >= 1);
	run_until_running(f);
	assert_int_equal(mpu_stats(&f->mpu)->setups, 2);
	assert_int_equal(f->emul.regs[0x1b], 0x18);
	assert_int_equal(step(f, 1000), 1);
}

static void test_mpu_retries_setup_steps_after_bus_errors(void **state)
{
	struct fixture *f = *state;
	int polls = 0;

	assert_int_equal(mpu_init(&f->mpu, &f->cfg), 0);
	while (!mpu_is_running(&f->mpu)) {
		assert_true(polls++ < 5000);
		/* Every seventh transfer fails. */
		if (f->emul.batches % 7 == 3)
			f->emul.fail_batches = 1;
		int r = step(f, 1000);
		assert_true(r == 0 || r == -EIO);
	}
	assert_true(mpu_stats(&f->mpu)->bus_errors > 0);
	assert_int_equal(f->emul.lost_writes, 0);
}

static void test_mpu_never_gives_up_on_a_chip_that_has_run(void **state)
{
	struct fixture *f = *state;

	start(f);
	f->emul.fail_batches = 3000;   /* three seconds of a dead bus */
	for (int i = 0; i < 3000; i++) {
		int r = step(f, 1000);
		assert_true(r == -EIO || r == 0);
	}
	assert_true(mpu_stats(&f->mpu)->bus_errors >= 1000);
	f->emul.fail_batches = 0;
	emul_mpu_power_cycle(&f->emul);
	for (int i = 0; i < 12 && mpu_is_running(&f->mpu); i++)
		step(f, 1000);
	assert_false(mpu_is_running(&f->mpu));
	/* And now the chip stays silent for longer than a start-up would forgive. */
	f->emul.fail_batches = 100;
	for (int i = 0; i < 2000; i++)
		assert_int_not_equal(step(f, 1000), -ENODEV);
	run_until_running(f);
	assert_int_equal(step(f, 1000), 1);
}

static void test_mpu_without_temperature_in_the_fifo_reads_twelve_byte_frames(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 0, 0, 2048 }, gyro[3] = { 0 };

	f->cfg.fifo_without_temp = true;
	emul_mpu_set_raw(&f->emul, accel, gyro, -3400);
	start(f);
	assert_int_equal(f->emul.regs[0x23], 0x78);
	assert_int_equal(step(f, 3000), 3);
	assert_int_equal(emul_mpu_fifo_count(&f->emul), 0);
	assert_float_equal(f->out[2].temp_c, -10.0f + 36.53f, 1e-3);
	assert_float_equal(f->out[2].accel_m_s2[2], G, 1e-4);
}

static void test_mpu_hands_out_no_more_than_asked(void **state)
{
	struct fixture *f = *state;

	start(f);
	f->now_us += 10000;
	emul_mpu_advance(&f->emul, f->now_us);
	assert_int_equal(mpu_poll(&f->mpu, f->now_us, f->out, 4), 4);
	/* The rest waits in the FIFO for the next call. */
	assert_int_equal(mpu_poll(&f->mpu, f->now_us + 1, f->out, MPU_MAX_FRAMES), 6);
}

static void test_mpu_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct mpu_config c = f->cfg;

	c.rotation = 0;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c = f->cfg;
	c.rate_hz = 300;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c.rate_hz = 2000;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c = f->cfg;
	c.spi = NULL;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c = f->cfg;
	c.dlpf = 7;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
}

/* An MPU9250 with its AK8963 (ASA factors 1, 1.1875, 0.8125) on the auxiliary bus. */
static struct fixture *fixture_with_mag(void)
{
	struct fixture *f = fixture_new(0x71);
	const uint8_t asa[3] = { 128, 176, 80 };

	emul_ak8963_init(&f->ak, asa);
	f->emul.aux = &f->ak.i2c;
	f->cfg.aux_ak8963 = true;
	f->cfg.mag_rotation = ROTATION_NONE;
	return f;
}

static int fixture_setup_mag(void **state)
{
	*state = fixture_with_mag();
	return 0;
}

static void test_mpu9250_reads_its_ak8963_through_the_aux_master(void **state)
{
	struct fixture *f = *state;
	struct mag_sample mag;

	f->ak.field[0] = 1000;
	f->ak.field[1] = 1000;
	f->ak.field[2] = -1000;
	assert_int_equal(mpu_mag_sample(&f->mpu, &mag), 0);
	start(f);
	assert_true(mpu_mag_is_running(&f->mpu));
	assert_int_equal(f->ak.resets, 1);
	assert_int_equal(f->ak.fuse_reads, 3);
	assert_int_equal(f->ak.bad_mode_changes, 0);
	assert_int_equal(f->ak.regs[0x0a], 0x16);
	assert_int_equal(f->emul.regs[0x23], 0xf9);          /* slave 0 into the FIFO */
	assert_int_equal(f->emul.regs[0x6a], 0x70);          /* FIFO, I2C master, no I2C slave */
	assert_int_equal(f->emul.slow_reg_too_fast, 0);
	assert_int_equal(f->emul.lost_writes, 0);

	int imu = 0;
	for (int i = 0; i < 100; i++)
		imu += step(f, 1000);
	assert_int_equal(imu, 100);
	assert_float_equal(f->out[0].accel_m_s2[2], G, 1e-4);
	uint32_t n = mpu_mag_sample(&f->mpu, &mag);
	assert_in_range(n, 9, 11);                            /* 100 Hz */
	assert_int_equal(mpu_stats(&f->mpu)->mag_samples, n);
	assert_float_equal(mag.field_ut[0], 150.0f, 1e-3);
	assert_float_equal(mag.field_ut[1], 178.125f, 1e-3);
	assert_float_equal(mag.field_ut[2], -121.875f, 1e-3);
	/* Stamped with the time of the frame that carried it. */
	assert_in_range(mag.t_us, f->now_us - 10000, f->now_us);
	/* Each measurement once: no more samples than the chip made. */
	assert_true(n <= f->ak.samples);
}

static void test_mpu9250_rotates_the_ak8963_into_the_body_frame(void **state)
{
	struct fixture *f = *state;
	struct mag_sample mag;

	/* The IMU mounted as it is, the AK8963's axes as the MPU9250 has them. */
	f->cfg.mag_rotation = rotation_compose(ROTATION_ROLL_180_YAW_90, ROTATION_NONE);
	f->ak.field[0] = 1000;
	start(f);
	for (int i = 0; i < 30; i++)
		step(f, 1000);
	assert_true(mpu_mag_sample(&f->mpu, &mag) > 0);
	assert_float_equal(mag.field_ut[0], 0, 1e-6);
	assert_float_equal(mag.field_ut[1], 150.0f, 1e-3);
}

static void test_mpu9250_runs_on_without_an_ak8963_that_does_not_answer(void **state)
{
	struct fixture *f = *state;
	struct mag_sample mag;

	f->ak.i2c.addr = 0x0d;     /* nobody at 0x0C: slave 4 is NAKed */
	start(f);
	assert_false(mpu_mag_is_running(&f->mpu));
	assert_int_equal(mpu_stats(&f->mpu)->mag_errors, 1);
	assert_int_equal(f->emul.regs[0x23], 0xf8);          /* plain 14-byte frames */
	assert_int_equal(f->emul.regs[0x6a], 0x50);
	assert_int_equal(step(f, 1000), 1);
	assert_int_equal(step(f, 1000), 1);
	assert_int_equal(mpu_mag_sample(&f->mpu, &mag), 0);
}

static void test_mpu9250_leaves_out_a_magnetometer_with_the_wrong_wia(void **state)
{
	struct fixture *f = *state;

	f->ak.wia = 0x00;
	f->ak.regs[0] = 0x00;
	start(f);
	assert_false(mpu_mag_is_running(&f->mpu));
	assert_int_equal(mpu_stats(&f->mpu)->mag_errors, 1);
	assert_int_equal(f->ak.fuse_reads, 0);
	assert_int_equal(step(f, 1000), 1);
}

static void test_mpu9250_drops_magnetometer_samples_flagged_as_overflowed(void **state)
{
	struct fixture *f = *state;
	struct mag_sample mag;

	start(f);
	for (int i = 0; i < 30; i++)
		step(f, 1000);
	uint32_t before = mpu_mag_sample(&f->mpu, &mag);
	assert_true(before > 0);
	f->ak.overflow = true;
	for (int i = 0; i < 50; i++)
		assert_int_equal(step(f, 1000), 1);
	assert_in_range(mpu_mag_sample(&f->mpu, &mag), before, before + 1);
	assert_true(mpu_stats(&f->mpu)->mag_overflows >= 4);
}

static void test_mpu_init_rejects_aux_without_a_mag_rotation(void **state)
{
	struct fixture *f = *state;

	f->cfg.aux_ak8963 = true;
	assert_int_equal(mpu_init(&f->mpu, &f->cfg), -EINVAL);
}

/*
 * An MPU9250 at 0x68 on an I2C bus, as on the BeagleBone Blue, with its
 * AK8963 behind the bypass.
 */
static int fixture_setup_i2c(void **state)
{
	struct fixture *f = fixture_new(0x71);
	const uint8_t asa[3] = { 128, 128, 128 };

	emul_ak8963_init(&f->ak, asa);
	f->emul.aux = &f->ak.i2c;
	emul_i2c_init(&f->i2c);
	emul_mpu_attach_i2c(&f->emul, &f->i2c, 0x68);
	f->cfg = (struct mpu_config){ .i2c = &f->i2c.bus, .i2c_addr = 0x68,
				      .rotation = ROTATION_NONE };
	*state = f;
	return 0;
}

static void test_mpu9250_on_i2c_keeps_its_i2c_interface_and_opens_the_bypass(void **state)
{
	struct fixture *f = *state;
	uint8_t wia = 0;
	const uint8_t reg = 0x00;

	/* Before the set-up the AK8963 is out of the host's reach. */
	assert_int_equal(i2c_write_read(&f->i2c.bus, 0x0c, &reg, 1, &wia, 1), -ENXIO);
	start(f);
	assert_int_equal(mpu_chip(&f->mpu), MPU_CHIP_MPU9250);
	for (size_t i = 0; i < f->emul.nwrites; i++)
		if (f->emul.writes[i].reg == 0x6a)
			assert_int_equal(f->emul.writes[i].val & 0x10, 0);   /* never I2C_IF_DIS */
	assert_int_equal(f->emul.regs[0x37], 0x02);          /* INT_PIN_CFG.BYPASS_EN */
	assert_int_equal(f->emul.regs[0x6a] & 0x20, 0);      /* the I2C master off */
	assert_int_equal(f->emul.lost_writes, 0);
	assert_int_equal(i2c_write_read(&f->i2c.bus, 0x0c, &reg, 1, &wia, 1), 0);
	assert_int_equal(wia, 0x48);
}

static void test_mpu9250_on_i2c_reads_fifo_samples_in_si_units(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 0, -1024, 2048 };
	const int16_t gyro[3] = { 164, 0, -328 };

	emul_mpu_set_raw(&f->emul, accel, gyro, 0);
	start(f);
	int n = step(f, 5000);
	assert_int_equal(n, 5);
	for (int i = 0; i < n; i++) {
		assert_float_equal(f->out[i].accel_m_s2[1], -0.5f * G, 1e-4);
		assert_float_equal(f->out[i].accel_m_s2[2], G, 1e-4);
		assert_float_equal(f->out[i].gyro_rad_s[0], 10 * DEG, 0.0011);
		assert_float_equal(f->out[i].gyro_rad_s[2], -20 * DEG, 1e-4);
		assert_float_equal(f->out[i].temp_c, 21.0f, 1e-3);
	}
	/* A failed transfer is counted and the chip read on. */
	f->emul.fail_batches = 1;
	assert_int_equal(step(f, 1000), -EIO);
	assert_int_equal(mpu_stats(&f->mpu)->bus_errors, 1);
	assert_int_equal(step(f, 1000), 2);
}

static void test_mpu_init_rejects_a_bus_it_cannot_drive(void **state)
{
	struct fixture *f = *state;
	struct mpu_config c = f->cfg;

	c.spi = &f->emul.dev;                                 /* both */
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c = f->cfg;
	c.i2c = NULL;                                         /* neither */
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
	c = f->cfg;
	c.aux_ak8963 = true;                                  /* the master behind an open bypass */
	c.mag_rotation = ROTATION_NONE;
	assert_int_equal(mpu_init(&f->mpu, &c), -EINVAL);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
#define M(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup_mag, fixture_teardown)
#define I(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup_i2c, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_mpu_probes_mpu6000_and_configures_it),
		T(test_mpu_probes_mpu9250_and_mpu9255),
		T(test_mpu_rejects_a_chip_with_the_wrong_who_am_i),
		T(test_mpu_setup_never_waits_inside_a_call),
		T(test_mpu_reads_fifo_samples_in_si_units),
		T(test_mpu9250_temperature_has_its_own_scale),
		T(test_mpu_stamps_samples_one_period_apart_ending_now),
		T(test_mpu_timestamps_never_go_backwards),
		T(test_mpu_applies_the_board_rotation),
		T(test_mpu_divides_the_sample_rate),
		T(test_mpu_resets_the_fifo_after_an_overflow_and_goes_on),
		T(test_mpu_catches_a_misaligned_fifo_by_its_temperature),
		T(test_mpu_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_mpu_reports_stuck_data_and_starts_over),
		T(test_mpu_sets_itself_up_again_after_the_chip_lost_power),
		T(test_mpu_retries_setup_steps_after_bus_errors),
		T(test_mpu_never_gives_up_on_a_chip_that_has_run),
		T(test_mpu_without_temperature_in_the_fifo_reads_twelve_byte_frames),
		T(test_mpu_hands_out_no_more_than_asked),
		T(test_mpu_init_rejects_a_bad_configuration),
		M(test_mpu9250_reads_its_ak8963_through_the_aux_master),
		M(test_mpu9250_rotates_the_ak8963_into_the_body_frame),
		M(test_mpu9250_runs_on_without_an_ak8963_that_does_not_answer),
		M(test_mpu9250_leaves_out_a_magnetometer_with_the_wrong_wia),
		M(test_mpu9250_drops_magnetometer_samples_flagged_as_overflowed),
		T(test_mpu_init_rejects_aux_without_a_mag_rotation),
		I(test_mpu9250_on_i2c_keeps_its_i2c_interface_and_opens_the_bypass),
		I(test_mpu9250_on_i2c_reads_fifo_samples_in_si_units),
		I(test_mpu_init_rejects_a_bus_it_cannot_drive),
	};
#undef T
#undef M
#undef I
	return cmocka_run_group_tests(tests, NULL, NULL);
}
