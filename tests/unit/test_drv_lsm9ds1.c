// SPDX-License-Identifier: GPL-3.0-or-later
/* The LSM9DS1 drivers (A/G die and M die) against the emulated dies in tests/emul. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../emul/emul_lsm9ds1.h"
#include "drivers/drivers.h"
#include "drivers/lsm9ds1.h"

#define G 9.80665f
#define DEG 0.017453292519943f

struct fixture {
	struct emul_lsm9ds1_ag ag_chip;
	struct emul_lsm9ds1_m m_chip;
	struct lsm9ds1 ag;
	struct lsm9ds1_m mag;
	struct lsm9ds1_config ag_cfg;
	struct lsm9ds1_m_config m_cfg;
	uint64_t now_us;
	struct imu_sample imu;
	struct mag_sample field;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	emul_lsm9ds1_ag_init(&f->ag_chip);
	emul_lsm9ds1_m_init(&f->m_chip);
	f->ag_cfg = (struct lsm9ds1_config){ .spi = &f->ag_chip.dev, .rotation = ROTATION_NONE };
	f->m_cfg = (struct lsm9ds1_m_config){ .spi = &f->m_chip.dev, .rotation = ROTATION_NONE };
	f->now_us = 1000000;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	free(*state);
	return 0;
}

static void advance(struct fixture *f, uint64_t dt_us)
{
	f->now_us += dt_us;
	emul_lsm9ds1_ag_advance(&f->ag_chip, f->now_us);
	emul_lsm9ds1_m_advance(&f->m_chip, f->now_us);
}

static int ag_step(struct fixture *f, uint64_t dt_us)
{
	advance(f, dt_us);
	return lsm9ds1_poll(&f->ag, f->now_us, &f->imu);
}

static int m_step(struct fixture *f, uint64_t dt_us)
{
	advance(f, dt_us);
	return lsm9ds1_m_poll(&f->mag, f->now_us, &f->field);
}

/* Polls every millisecond for ms; the samples it gave. */
static int ag_run_ms(struct fixture *f, int ms)
{
	int samples = 0;

	for (int i = 0; i < ms; i++) {
		int r = ag_step(f, 1000);
		assert_true(r == 0 || r == 1);
		samples += r;
	}
	return samples;
}

static int m_run_ms(struct fixture *f, int ms)
{
	int samples = 0;

	for (int i = 0; i < ms; i++) {
		int r = m_step(f, 1000);
		assert_true(r == 0 || r == 1);
		samples += r;
	}
	return samples;
}

static void ag_start(struct fixture *f)
{
	assert_int_equal(lsm9ds1_init(&f->ag, &f->ag_cfg), 0);
	for (int i = 0; i < 200 && !lsm9ds1_is_running(&f->ag); i++)
		assert_int_equal(ag_step(f, 1000), 0);
	assert_true(lsm9ds1_is_running(&f->ag));
}

static void m_start(struct fixture *f)
{
	assert_int_equal(lsm9ds1_m_init(&f->mag, &f->m_cfg), 0);
	for (int i = 0; i < 200 && !lsm9ds1_m_is_running(&f->mag); i++)
		assert_int_equal(m_step(f, 1000), 0);
	assert_true(lsm9ds1_m_is_running(&f->mag));
}

/* Runs the A/G set-up until it gives up (or 2 s pass); the last result. */
static int ag_run_to_failure(struct fixture *f)
{
	int r = 0;

	assert_int_equal(lsm9ds1_init(&f->ag, &f->ag_cfg), 0);
	for (int i = 0; i < 2000 && r != -ENODEV; i++)
		r = ag_step(f, 1000);
	return r;
}

static int m_run_to_failure(struct fixture *f)
{
	int r = 0;

	assert_int_equal(lsm9ds1_m_init(&f->mag, &f->m_cfg), 0);
	for (int i = 0; i < 2000 && r != -ENODEV; i++)
		r = m_step(f, 1000);
	return r;
}

/* ---- the A/G die ---- */

static void test_lsm9ds1_configures_952hz_2000dps_16g_with_bdu(void **state)
{
	struct fixture *f = *state;

	ag_start(f);
	assert_int_equal(f->ag_chip.resets, 1);
	assert_int_equal(f->ag_chip.regs[0x10], 0xd8);   /* CTRL_REG1_G */
	assert_int_equal(f->ag_chip.regs[0x20], 0xc8);   /* CTRL_REG6_XL */
	assert_int_equal(f->ag_chip.regs[0x22], 0x44);   /* CTRL_REG8: BDU, IF_ADD_INC */
	assert_int_equal(f->ag_chip.regs[0x23], 0x04);   /* CTRL_REG9: I2C off */
	/* 952 Hz, read every millisecond: a sample at nearly every poll. */
	assert_in_range(ag_run_ms(f, 1000), 945, 953);
}

static void test_lsm9ds1_gives_rad_s_and_m_s2_by_the_datasheet_sensitivities(void **state)
{
	struct fixture *f = *state;
	const int16_t accel[3] = { 1366, -683, 100 }, gyro[3] = { 1000, -2000, 14 };

	f->ag_chip.dither = false;
	for (int i = 0; i < 3; i++) {
		f->ag_chip.accel[i] = accel[i];
		f->ag_chip.gyro[i] = gyro[i];
	}
	f->ag_chip.temp = -40;   /* 25 - 40 / 16 = 22.5 degC */
	ag_start(f);
	assert_true(ag_run_ms(f, 20) > 0);
	for (int i = 0; i < 3; i++) {
		/* 0.732 mg/LSB at +-16 g, 70 mdps/LSB at 2000 dps (data sheet table 3). */
		assert_float_equal(f->imu.accel_m_s2[i], (float)accel[i] * 0.732e-3f * G, 1e-4);
		assert_float_equal(f->imu.gyro_rad_s[i], (float)gyro[i] * 0.070f * DEG, 1e-5);
	}
	assert_float_equal(f->imu.accel_m_s2[0], 9.8055f, 1e-3);   /* 1366 LSB: 1 g */
	assert_float_equal(f->imu.gyro_rad_s[0], 1.22173f, 1e-4);  /* 1000 LSB: 70 deg/s */
	assert_float_equal(f->imu.temp_c, 22.5f, 1e-4);
	assert_int_equal(f->imu.t_us, f->now_us);
}

static void test_lsm9ds1_applies_the_rotation(void **state)
{
	struct fixture *f = *state;

	f->ag_cfg.rotation = ROTATION_YAW_180;
	f->ag_chip.accel[0] = 1366;
	f->ag_chip.accel[2] = 0;
	ag_start(f);
	assert_true(ag_run_ms(f, 20) > 0);
	assert_float_equal(f->imu.accel_m_s2[0], -9.8055f, 1e-3);
}

static void test_lsm9ds1_refuses_another_who_am_i(void **state)
{
	struct fixture *f = *state;

	f->ag_chip.who_am_i = 0x71;   /* an MPU9250 on this chip select */
	assert_int_equal(ag_run_to_failure(f), -ENODEV);
	assert_int_equal(lsm9ds1_stats(&f->ag)->probe_failures, DRV_STARTUP_TRIES);
	assert_int_equal(f->ag.who_am_i, 0x71);
	assert_int_equal(f->ag_chip.resets, 0);
	uint32_t n = f->ag_chip.batches;
	assert_int_equal(ag_step(f, 100000), -ENODEV);
	assert_int_equal(f->ag_chip.batches, n);
}

static void test_lsm9ds1_gives_enodev_when_nothing_answers(void **state)
{
	struct fixture *f = *state;

	f->ag_chip.absent = true;   /* MISO reads 0x00 */
	assert_int_equal(ag_run_to_failure(f), -ENODEV);
	assert_int_equal(f->ag.who_am_i, 0x00);
	assert_int_equal(f->ag_chip.batches, DRV_STARTUP_TRIES);
	assert_true(f->now_us >= 1000000 + (DRV_STARTUP_TRIES - 1) * DRV_STARTUP_RETRY_US);
}

static void test_lsm9ds1_refuses_garbage_at_start(void **state)
{
	struct fixture *f = *state;

	f->ag_chip.garbage = true;   /* MISO reads 0xFF */
	assert_int_equal(ag_run_to_failure(f), -ENODEV);
	assert_int_equal(f->ag.who_am_i, 0xff);
	assert_int_equal(lsm9ds1_stats(&f->ag)->probe_failures, DRV_STARTUP_TRIES);
}

static void test_lsm9ds1_gives_enodev_after_failed_transfers_at_start(void **state)
{
	struct fixture *f = *state;
	int r;

	f->ag_chip.fail_next = 1000;
	assert_int_equal(lsm9ds1_init(&f->ag, &f->ag_cfg), 0);
	assert_int_equal(ag_step(f, 0), -EIO);
	do
		r = ag_step(f, 1000);
	while (r == 0 || r == -EIO);
	assert_int_equal(r, -ENODEV);
	assert_int_equal(lsm9ds1_stats(&f->ag)->bus_errors, DRV_STARTUP_TRIES);
}

static void test_lsm9ds1_counts_stuck_data_and_sets_up_again(void **state)
{
	struct fixture *f = *state;
	int r = 0, n = 0;

	ag_start(f);
	assert_true(ag_run_ms(f, 50) > 0);
	f->ag_chip.frozen = true;
	for (; n < 1000 && r != -ESTALE; n++) {
		r = ag_step(f, 1000);
		assert_true(r == 0 || r == 1 || r == -ESTALE);
	}
	assert_int_equal(r, -ESTALE);
	/* 250 identical samples at 952 Hz: about 263 ms. */
	assert_in_range(n, 250, 275);
	assert_int_equal(lsm9ds1_stats(&f->ag)->stuck_events, 1);
	assert_int_equal(lsm9ds1_stats(&f->ag)->setups, 2);
	f->ag_chip.frozen = false;
	assert_true(ag_run_ms(f, 100) > 0);
	assert_int_equal(f->ag_chip.resets, 2);
}

static void test_lsm9ds1_treats_garbage_while_running_as_stuck(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	ag_start(f);
	assert_true(ag_run_ms(f, 50) > 0);
	f->ag_chip.garbage = true;
	for (int i = 0; i < 1000 && r != -ESTALE; i++)
		r = ag_step(f, 1000);
	assert_int_equal(r, -ESTALE);
	assert_int_equal(lsm9ds1_stats(&f->ag)->stuck_events, 1);
}

static void test_lsm9ds1_sets_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;

	ag_start(f);
	assert_true(ag_run_ms(f, 50) > 0);
	emul_lsm9ds1_ag_power_cycle(&f->ag_chip);
	/* No GDA for 50 ms, then the set-up again. */
	assert_int_equal(ag_run_ms(f, 52), 0);
	assert_int_equal(lsm9ds1_stats(&f->ag)->stale_events, 1);
	assert_true(ag_run_ms(f, 150) > 50);
	assert_int_equal(f->ag_chip.regs[0x10], 0xd8);
	assert_int_equal(f->ag_chip.resets, 2);
}

static void test_lsm9ds1_counts_a_bus_error_and_keeps_the_last_sample(void **state)
{
	struct fixture *f = *state;
	struct imu_sample last;

	ag_start(f);
	assert_true(ag_run_ms(f, 20) > 0);
	struct imu_sample good = f->imu;
	f->ag_chip.fail_next = 1;
	assert_int_equal(ag_step(f, 1000), -EIO);
	assert_int_equal(lsm9ds1_stats(&f->ag)->bus_errors, 1);
	assert_true(lsm9ds1_last_sample(&f->ag, &last));
	assert_memory_equal(&last, &good, sizeof(good));
	assert_true(ag_run_ms(f, 20) > 0);
}

static void test_lsm9ds1_init_rejects_a_bad_configuration(void **state)
{
	struct fixture *f = *state;
	struct lsm9ds1_config c = f->ag_cfg;
	struct lsm9ds1_m_config mc = f->m_cfg;

	c.rotation = 0;
	assert_int_equal(lsm9ds1_init(&f->ag, &c), -EINVAL);
	c = f->ag_cfg;
	c.spi = NULL;
	assert_int_equal(lsm9ds1_init(&f->ag, &c), -EINVAL);
	mc.rotation = 0;
	assert_int_equal(lsm9ds1_m_init(&f->mag, &mc), -EINVAL);
}

/* ---- the M die ---- */

static void test_lsm9ds1_m_configures_continuous_80hz_4_gauss(void **state)
{
	struct fixture *f = *state;

	m_start(f);
	assert_int_equal(f->m_chip.resets, 1);
	assert_int_equal(f->m_chip.regs[0x20], 0xfc);   /* TEMP_COMP, UHP, 80 Hz */
	assert_int_equal(f->m_chip.regs[0x21], 0x00);   /* +-4 gauss */
	assert_int_equal(f->m_chip.regs[0x22], 0x80);   /* I2C off, continuous */
	assert_int_equal(f->m_chip.regs[0x23], 0x0c);   /* Z UHP */
	assert_int_equal(f->m_chip.regs[0x24], 0x40);   /* BDU */
	assert_in_range(m_run_ms(f, 1000), 78, 81);
	/* Every burst carried the MS bit: the M die only increments with it. */
	assert_int_equal(f->m_chip.bursts_without_ms, 0);
}

static void test_lsm9ds1_m_gives_microtesla_at_0_14_mgauss_per_lsb(void **state)
{
	struct fixture *f = *state;

	f->m_chip.dither = false;
	f->m_chip.field[0] = 1500;
	f->m_chip.field[1] = -750;
	f->m_chip.field[2] = 300;
	m_start(f);
	assert_true(m_run_ms(f, 30) > 0);
	/* 1500 LSB * 0.14 mgauss = 0.21 gauss = 21 uT. */
	assert_float_equal(f->field.field_ut[0], 21.0f, 1e-4);
	assert_float_equal(f->field.field_ut[1], -10.5f, 1e-4);
	assert_float_equal(f->field.field_ut[2], 4.2f, 1e-4);
}

static void test_lsm9ds1_m_refuses_another_who_am_i(void **state)
{
	struct fixture *f = *state;

	f->m_chip.who_am_i = 0x68;   /* the A/G die on the M die's chip select */
	assert_int_equal(m_run_to_failure(f), -ENODEV);
	assert_int_equal(lsm9ds1_m_stats(&f->mag)->probe_failures, DRV_STARTUP_TRIES);
	assert_int_equal(f->mag.who_am_i, 0x68);
	assert_int_equal(f->m_chip.resets, 0);
}

static void test_lsm9ds1_m_gives_enodev_when_nothing_answers(void **state)
{
	struct fixture *f = *state;

	f->m_chip.absent = true;
	assert_int_equal(m_run_to_failure(f), -ENODEV);
	assert_int_equal(f->mag.who_am_i, 0x00);
}

static void test_lsm9ds1_m_counts_stuck_data_and_sets_up_again(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	m_start(f);
	assert_true(m_run_ms(f, 100) > 0);
	f->m_chip.frozen = true;
	for (int i = 0; i < 3000 && r != -ESTALE; i++) {
		r = m_step(f, 1000);
		assert_true(r == 0 || r == 1 || r == -ESTALE);
	}
	assert_int_equal(r, -ESTALE);
	assert_int_equal(lsm9ds1_m_stats(&f->mag)->stuck_events, 1);
	f->m_chip.frozen = false;
	assert_true(m_run_ms(f, 200) > 0);
	assert_int_equal(f->m_chip.resets, 2);
}

static void test_lsm9ds1_m_sets_up_again_after_the_chip_lost_power(void **state)
{
	struct fixture *f = *state;

	m_start(f);
	assert_true(m_run_ms(f, 100) > 0);
	emul_lsm9ds1_m_power_cycle(&f->m_chip);
	assert_int_equal(m_run_ms(f, 210), 0);
	assert_int_equal(lsm9ds1_m_stats(&f->mag)->stale_events, 1);
	assert_true(m_run_ms(f, 200) > 5);
	assert_int_equal(f->m_chip.regs[0x22], 0x80);
}

/* ---- as board devices ---- */

static int n_imu, n_mag;
static struct imu_sample pub_imu;
static struct mag_sample pub_mag;

static int host_publish(void *ctx, enum sensor_kind k, const void *s)
{
	(void)ctx;
	if (k == SENSOR_IMU) {
		pub_imu = *(const struct imu_sample *)s;
		n_imu++;
	} else {
		assert_int_equal(k, SENSOR_MAG);
		pub_mag = *(const struct mag_sample *)s;
		n_mag++;
	}
	return 0;
}

/* Polls a descriptor's set-up as the backend would, every millisecond; its last result. */
static int dev_setup(struct fixture *f, struct drv_inst *d)
{
	int rc = 0;

	for (int i = 0; i < 1000 && rc != 1 && rc != -ENODEV; i++) {
		advance(f, 1000);
		rc = d->drv->setup(d, f->now_us);
	}
	return rc;
}

static void dev_run(struct fixture *f, const struct sched_task *t, int ms)
{
	uint32_t every = t->rate_hz ? 1000 / t->rate_hz : 1;

	for (int i = 1; i <= ms; i++) {
		advance(f, 1000);
		if (i % (int)every == 0)
			t->run(t->ctx, f->now_us);
	}
}

static void test_lsm9ds1_descriptor_first_imu_publishes_every_sample(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "imu", .kind = BOARD_DEV_SPI,
					       .drv.rotation = ROTATION_YAW_90 };
	struct drv_host host = { .publish = host_publish };
	static _Alignas(max_align_t) uint8_t priv[512];   /* the backend callocs it */
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &lsm9ds1_driver, .desc = &desc, .handle = &f->ag_chip.dev,
			      .host = &host, .priv = priv, .slot = &slot };
	char e[96];

	assert_true(lsm9ds1_driver.priv_size <= sizeof(priv));
	assert_int_equal(lsm9ds1_driver.probe(&d, e, sizeof(e)), 0);
	assert_int_equal(dev_setup(f, &d), 1);
	struct sched_task t[2];
	assert_int_equal(lsm9ds1_driver.tasks(&d, t), 1);
	assert_int_equal(t[0].thread, SCHED_TIMER);
	assert_int_equal(t[0].rate_hz, 0);
	n_imu = 0;
	dev_run(f, &t[0], 1000);
	assert_in_range(n_imu, 945, 953);
	assert_int_equal(atomic_load(&slot.samples), (uint64_t)n_imu);
	assert_int_equal(atomic_load(&slot.errors), 0);
	/* Yaw 90: the die's +z stays +z, 1 g. */
	assert_float_equal(pub_imu.accel_m_s2[2], 9.8055f, 1e-3);
}

static void test_lsm9ds1_descriptor_second_imu_is_watched_not_published(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "imu2", .kind = BOARD_DEV_SPI };
	struct drv_host host = { .publish = host_publish };
	static _Alignas(max_align_t) uint8_t priv[512];   /* the backend callocs it */
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &lsm9ds1_driver, .desc = &desc, .handle = &f->ag_chip.dev,
			      .host = &host, .priv = priv, .slot = &slot, .role_index = 1 };
	char e[96];

	assert_int_equal(lsm9ds1_driver.probe(&d, e, sizeof(e)), 0);
	assert_int_equal(dev_setup(f, &d), 1);
	struct sched_task t[2];
	assert_int_equal(lsm9ds1_driver.tasks(&d, t), 1);
	assert_int_equal(t[0].rate_hz, 200);
	n_imu = 0;
	dev_run(f, &t[0], 1000);
	assert_int_equal(n_imu, 0);
	assert_in_range(atomic_load(&slot.samples), 195, 200);
}

static void test_lsm9ds1_descriptor_names_the_who_am_i_it_read(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "imu2", .kind = BOARD_DEV_SPI };
	static _Alignas(max_align_t) uint8_t priv[512];   /* the backend callocs it */
	struct drv_inst d = { .drv = &lsm9ds1_driver, .desc = &desc, .handle = &f->ag_chip.dev,
			      .priv = priv };
	char e[96];

	f->ag_chip.who_am_i = 0x71;
	assert_int_equal(lsm9ds1_driver.probe(&d, e, sizeof(e)), 0);
	assert_int_equal(dev_setup(f, &d), -ENODEV);
	lsm9ds1_driver.setup_detail(&d, e, sizeof(e));
	assert_string_equal(e, " to WHO_AM_I (read 0x71, an LSM9DS1's A/G die is 0x68)");
}

static void test_lsm9ds1_m_descriptor_publishes_compass_samples(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "mag", .kind = BOARD_DEV_SPI };
	struct drv_host host = { .publish = host_publish };
	struct lsm9ds1_m priv;
	struct drv_slot slot = { 0 };
	struct drv_inst d = { .drv = &lsm9ds1_m_driver, .desc = &desc, .handle = &f->m_chip.dev,
			      .host = &host, .priv = &priv, .slot = &slot };
	char e[96];

	assert_int_equal(lsm9ds1_m_driver.priv_size, sizeof(priv));
	assert_int_equal(lsm9ds1_m_driver.probe(&d, e, sizeof(e)), 0);
	assert_int_equal(dev_setup(f, &d), 1);
	struct sched_task t[2];
	assert_int_equal(lsm9ds1_m_driver.tasks(&d, t), 1);
	n_mag = 0;
	dev_run(f, &t[0], 1000);
	assert_in_range(n_mag, 78, 81);
	assert_float_equal(pub_mag.field_ut[0], 21.0f, 0.02f);
	assert_int_equal(atomic_load(&slot.errors), 0);
}

static void test_lsm9ds1_m_descriptor_names_the_who_am_i_it_read(void **state)
{
	struct fixture *f = *state;
	static const struct board_dev desc = { .name = "mag", .kind = BOARD_DEV_SPI };
	struct lsm9ds1_m priv;
	struct drv_inst d = { .drv = &lsm9ds1_m_driver, .desc = &desc, .handle = &f->m_chip.dev,
			      .priv = &priv };
	char e[96];

	f->m_chip.garbage = true;
	assert_int_equal(lsm9ds1_m_driver.probe(&d, e, sizeof(e)), 0);
	assert_int_equal(dev_setup(f, &d), -ENODEV);
	lsm9ds1_m_driver.setup_detail(&d, e, sizeof(e));
	assert_string_equal(e, " to WHO_AM_I_M (read 0xff, an LSM9DS1's M die is 0x3d)");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_lsm9ds1_configures_952hz_2000dps_16g_with_bdu),
		T(test_lsm9ds1_gives_rad_s_and_m_s2_by_the_datasheet_sensitivities),
		T(test_lsm9ds1_applies_the_rotation),
		T(test_lsm9ds1_refuses_another_who_am_i),
		T(test_lsm9ds1_gives_enodev_when_nothing_answers),
		T(test_lsm9ds1_refuses_garbage_at_start),
		T(test_lsm9ds1_gives_enodev_after_failed_transfers_at_start),
		T(test_lsm9ds1_counts_stuck_data_and_sets_up_again),
		T(test_lsm9ds1_treats_garbage_while_running_as_stuck),
		T(test_lsm9ds1_sets_up_again_after_the_chip_lost_power),
		T(test_lsm9ds1_counts_a_bus_error_and_keeps_the_last_sample),
		T(test_lsm9ds1_init_rejects_a_bad_configuration),
		T(test_lsm9ds1_m_configures_continuous_80hz_4_gauss),
		T(test_lsm9ds1_m_gives_microtesla_at_0_14_mgauss_per_lsb),
		T(test_lsm9ds1_m_refuses_another_who_am_i),
		T(test_lsm9ds1_m_gives_enodev_when_nothing_answers),
		T(test_lsm9ds1_m_counts_stuck_data_and_sets_up_again),
		T(test_lsm9ds1_m_sets_up_again_after_the_chip_lost_power),
		T(test_lsm9ds1_descriptor_first_imu_publishes_every_sample),
		T(test_lsm9ds1_descriptor_second_imu_is_watched_not_published),
		T(test_lsm9ds1_descriptor_names_the_who_am_i_it_read),
		T(test_lsm9ds1_m_descriptor_publishes_compass_samples),
		T(test_lsm9ds1_m_descriptor_names_the_who_am_i_it_read),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
