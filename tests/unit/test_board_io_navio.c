// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The Navio+ as boards/navio.c describes it, brought up by board_io on
 * emulated chips behind the bus interfaces: MPU9250 (its AK8963 on the
 * auxiliary bus) on SPI, the u-blox on SPI, MS5611 + PCA9685 + MS4525 on one
 * I2C bus, the PCA9685's output enable, PPM on an edge-event GPIO line, and
 * the ADS1115 battery inputs. The drivers, backends and decoders are the real
 * ones; only the chips are emulated.
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
#include "../emul/emul_board.h"
#include "../emul/emul_gpio.h"
#include "../emul/emul_i2c.h"
#include "../emul/emul_mpu.h"
#include "../emul/emul_lightware_i2c.h"
#include "../emul/emul_ms4525.h"
#include "../emul/emul_ms5611.h"
#include "../emul/emul_pca9685.h"
#include "../emul/emul_ublox.h"
#include "param/param.h"
#include "rcin_e2e.h"
#include "drivers/drivers.h"
#include "drivers/mpu.h"
#include "drivers/ublox.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define DEG 0.017453292519943295f

static const uint16_t baro_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };

struct navio {
	struct bio_fixture f;
	struct emul_mpu mpu;
	struct emul_ak8963 ak;
	struct emul_i2c_bus i2c1;
	struct emul_ms5611 baro;
	struct emul_pca9685 pca;
	struct emul_ms4525 pitot;
	struct emul_lightware_i2c sf11;   /* on I2C-1 when rngfnd is set */
	bool rngfnd;
	struct emul_gpio oe;
	struct emul_edges rc;
	struct emul_ublox gps;
	struct emul_ublox_spi gps_spi;
	struct emul_analog batt_v, batt_i;
};

static void advance(void *ctx, uint64_t now_us)
{
	struct navio *n = ctx;

	emul_ak8963_set_time(&n->ak, now_us);
	emul_mpu_advance(&n->mpu, now_us);
	emul_ms5611_set_time(&n->baro, now_us);
	emul_pca9685_set_time(&n->pca, now_us);
	emul_ms4525_set_time(&n->pitot, now_us);
	emul_ublox_advance(&n->gps, now_us);
	n->rc.now_ns = now_us * 1000u;
}

static void *handle(void *ctx, const char *name)
{
	struct navio *n = ctx;

	if (!strcmp(name, "imu"))
		return &n->mpu.dev;
	if (!strcmp(name, "gps"))
		return &n->gps_spi.dev;
	if (!strcmp(name, "baro") || !strcmp(name, "pwm") || !strcmp(name, "airspeed"))
		return &n->i2c1.bus;   /* three handles on one adapter */
	if (!strcmp(name, "rngfnd_sf") && n->rngfnd)
		return &n->i2c1.bus;   /* what devices_open_rangefinder opens for RNGFND1_TYPE 7 */
	if (!strcmp(name, "pwm_oe"))
		return &n->oe.line;
	if (!strcmp(name, "rcin"))
		return &n->rc.line;
	if (!strcmp(name, "batt_v"))
		return &n->batt_v.in;
	if (!strcmp(name, "batt_i"))
		return &n->batt_i.in;
	return NULL;  /* telem: no driver of board_io's */
}

static struct navio *navio_new(uint8_t who_am_i)
{
	struct navio *n = calloc(1, sizeof(*n));
	static const uint8_t asa[3] = { 128, 128, 128 };

	assert_non_null(n);
	emul_mpu_init(&n->mpu, who_am_i);
	emul_ak8963_init(&n->ak, asa);
	n->mpu.aux = &n->ak.i2c;
	n->mpu.dither = true;
	emul_i2c_init(&n->i2c1);
	emul_ms5611_init(&n->baro, baro_c, 0x77);
	emul_pca9685_init(&n->pca, 25000000, 24576000);
	emul_ms4525_init(&n->pitot);
	emul_i2c_attach(&n->i2c1, &n->baro.i2c);
	emul_i2c_attach(&n->i2c1, &n->pca.i2c);
	emul_i2c_attach(&n->i2c1, &n->pitot.i2c);
	emul_lightware_i2c_init(&n->sf11);
	emul_i2c_attach(&n->i2c1, &n->sf11.i2c);
	emul_gpio_init(&n->oe);
	emul_edges_init(&n->rc);
	emul_ublox_init(&n->gps, 9600);
	emul_ublox_spi_init(&n->gps_spi, &n->gps);
	emul_analog_init(&n->batt_v, 1000.0);   /* 1 V at the ADC */
	emul_analog_init(&n->batt_i, 500.0);
	n->f.now_us = 1000000;
	n->f.advance = advance;
	n->f.ctx = n;
	bio_devices(&n->f, handle, n);
	return n;
}

static int setup(void **state)
{
	struct navio *n = navio_new(0x71);

	assert_int_equal(bio_open(&n->f), 0);
	*state = n;
	return 0;
}

static int teardown(void **state)
{
	struct navio *n = *state;

	board_io_close(&n->f.bio);
	free(n);
	return 0;
}

static void test_board_io_navio_brings_up_every_part_and_its_tasks(void **state)
{
	struct navio *n = *state;
	uint32_t present, enabled, healthy;

	assert_int_equal(mpu_chip(mpu_of(board_io_instance(&n->f.bio, "imu"))), MPU_CHIP_MPU9250);
	assert_true(bio_status(&n->f, "imu", "MPU9250", 0).running);
	assert_true(bio_status(&n->f, "imu.mag", "MPU9250", 0).running);  /* its AK8963 */
	assert_true(bio_status(&n->f, "baro", "MS5611", 0).running);
	assert_true(bio_status(&n->f, "pwm", "PCA9685", 0).running);
	assert_true(bio_status(&n->f, "airspeed", "MS4525DO", 0).running);
	bio_status(&n->f, "gps", "u-blox", 0);
	bio_status(&n->f, "rcin", "RC pulse capture", 0);
	bio_status(&n->f, "batt_v", "battery voltage", 0);
	/* The outputs are on (OE is active low: the line's logical 1), all pulses off. */
	assert_int_equal(n->oe.value, 1);
	assert_true(fabs(emul_pca9685_period_us(&n->pca) - 20000.0) < 1.0);
	assert_true(emul_pca9685_high_us(&n->pca, 3) == 0.0);
	assert_true(n->pca.ext_switch_awake == 0 && n->pca.prescale_ignored == 0);
	assert_int_equal(n->mpu.slow_reg_too_fast, 0);
	assert_int_equal(n->mpu.lost_writes, 0);

	const char *timer[] = { "imu", "baro", "airspeed", "pwm", "gps-spi" };
	for (size_t i = 0; i < 5; i++) {
		assert_true(bio_has_task(&n->f, timer[i]));
		for (size_t k = 0; k < n->f.n_tasks; k++)
			if (!strcmp(n->f.tasks[k].name, timer[i]))
				assert_int_equal(n->f.tasks[k].thread, SCHED_TIMER);
	}
	assert_true(bio_has_task(&n->f, "gps") && bio_has_task(&n->f, "rcin") &&
		    bio_has_task(&n->f, "batt_v"));
	assert_false(bio_has_task(&n->f, "mag"));  /* the AK8963 comes with the IMU's reads */
	assert_non_null(board_io_rcout(&n->f.bio));
	assert_int_equal(rcout_channels(board_io_rcout(&n->f.bio)), 13);

	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	uint32_t want = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_DIFF_PRESSURE |
			DRV_SENSOR_GPS | DRV_SENSOR_MOTOR_OUTPUTS |
			DRV_SENSOR_RC_RECEIVER | DRV_SENSOR_BATTERY;
	assert_int_equal(present, want);
	assert_int_equal(enabled, want);
}

static void test_board_io_navio_samples_reach_the_hub(void **state)
{
	struct navio *n = *state;
	const int16_t acc[3] = { 0, 1024, 2048 }, gyr[3] = { 164, 0, -328 };

	emul_mpu_set_raw(&n->mpu, acc, gyr, 0);
	n->ak.field[0] = 100;
	n->ak.field[1] = 200;
	n->ak.field[2] = -300;
	uint64_t t0 = n->f.now_us;
	bio_run(&n->f, 1000000);

	/* 1 kHz for a second, all of it through the ring. */
	assert_in_range(n->f.imu_count, 990, 1001);
	assert_int_equal(sensors_imu_dropped(&n->f.hub), 0);
	const struct imu_sample *s = &n->f.imu_last;
	/* Navio: ROTATION_NONE, so chip axes are body axes. */
	assert_float_equal(s->accel_m_s2[0], 0.0f, 0.01f);
	assert_float_equal(s->accel_m_s2[1], 0.5f * G, 0.01f);
	assert_float_equal(s->accel_m_s2[2], G, 0.01f);
	assert_float_equal(s->gyro_rad_s[0], 10.0f * DEG, 0.002f);
	assert_float_equal(s->gyro_rad_s[2], -20.0f * DEG, 0.002f);
	assert_true(s->t_us > t0 && s->t_us <= n->f.now_us);

	struct baro_sample b;
	assert_true(sensors_latest(&n->f.hub, SENSOR_BARO, &b) > 0);
	assert_float_equal(b.pressure_pa, 100009.0f, 30.0f);   /* the datasheet's example */
	assert_float_equal(b.temp_c, 20.07f, 0.05f);
	assert_true(sensors_accepted(&n->f.hub, SENSOR_BARO) > 50);

	/* The AK8963 inside the MPU9250: 0.15 uT/LSB, its axes ROLL_180_YAW_90 from the IMU's. */
	struct mag_sample m;
	assert_true(sensors_latest(&n->f.hub, SENSOR_MAG, &m) > 0);
	assert_float_equal(m.field_ut[0], 200 * 0.15f, 0.5f);
	assert_float_equal(m.field_ut[1], 100 * 0.15f, 0.5f);
	assert_float_equal(m.field_ut[2], 300 * 0.15f, 0.5f);

	struct airspeed_sample a;
	assert_true(sensors_latest(&n->f.hub, SENSOR_AIRSPEED, &a) > 0);

	/* Battery: the board's 11.3 V/V and 17 A/V while the parameters are 0. */
	struct battery_sample bat;
	assert_true(sensors_latest(&n->f.hub, SENSOR_BATTERY, &bat) > 0);
	assert_float_equal(bat.voltage_v, 11.3f, 0.01f);
	assert_float_equal(bat.current_a, 8.5f, 0.01f);
	assert_true(bat.consumed_mah > 0.0f);
	assert_int_equal(param_set(param_find("BATT_VOLT_MULT"), 10.0f), 0);
	assert_int_equal(param_set(param_find("BATT_AMP_OFFSET"), 0.1f), 0);
	bio_run(&n->f, 200000);
	assert_true(sensors_latest(&n->f.hub, SENSOR_BATTERY, &bat) > 0);
	assert_float_equal(bat.voltage_v, 10.0f, 0.01f);
	assert_float_equal(bat.current_a, 0.4f * 17.0f, 0.01f);

	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	assert_true(healthy & DRV_SENSOR_GYRO);
	assert_true(healthy & DRV_SENSOR_ABS_PRESSURE);
	assert_true(healthy & DRV_SENSOR_MAG);
	assert_true(healthy & DRV_SENSOR_BATTERY);
	assert_false(healthy & DRV_SENSOR_RC_RECEIVER);  /* no receiver signal */
}

static void test_board_io_navio_counts_a_failed_transfer_and_keeps_the_last_sample(void **state)
{
	struct navio *n = *state;

	bio_run(&n->f, 100000);
	struct baro_sample before, after;
	uint32_t gen = sensors_latest(&n->f.hub, SENSOR_BARO, &before);
	assert_true(gen > 0);
	uint64_t errors = bio_status(&n->f, "baro", "MS5611", 0).errors;

	/* The I2C bus fails everything for 30 ms. */
	n->i2c1.fail_next = 1000;
	bio_run(&n->f, 30000);
	struct board_io_status st = bio_status(&n->f, "baro", "MS5611", 0);
	assert_true(st.errors > errors);
	assert_int_equal(sensors_latest(&n->f.hub, SENSOR_BARO, &after), gen);
	assert_int_equal(after.t_us, before.t_us);   /* the last good one, with its time */
	assert_float_equal(after.pressure_pa, before.pressure_pa, 0.0f);

	/* The IMU's SPI fails the same way: counted; the samples resume after. */
	uint64_t imu_before = n->f.imu_count;
	uint64_t imu_err = bio_status(&n->f, "imu", "MPU9250", 0).errors;
	n->mpu.fail_batches = 5;
	n->mpu.fail_err = -EIO;
	bio_run(&n->f, 5000);
	assert_true(bio_status(&n->f, "imu", "MPU9250", 0).errors >= imu_err + 5);
	n->i2c1.fail_next = 0;
	bio_run(&n->f, 100000);
	assert_true(n->f.imu_count > imu_before + 90);
	assert_true(sensors_latest(&n->f.hub, SENSOR_BARO, &after) > gen);
}

/* The board's LightWare entry, opened as RNGFND1_TYPE 7 has it: an I2C-1
 * rangefinder beside the barometer and the pitot, read on the timer thread. */
static void test_board_io_navio_rangefinder_reaches_the_hub(void **state)
{
	(void)state;
	struct navio *n = navio_new(0x71);
	n->rngfnd = true;
	bio_devices(&n->f, handle, n);
	assert_int_equal(bio_open(&n->f), 0);
	n->sf11.word = 1234;
	assert_true(bio_status(&n->f, "rngfnd_sf", "LightWare SF10/SF11", 0).running);
	assert_true(bio_has_task(&n->f, "rngfnd_sf"));
	bio_run(&n->f, 1000000);
	struct range_sample r;
	assert_true(sensors_latest(&n->f.hub, SENSOR_RANGE, &r) > 0);
	assert_int_equal(r.reading, RANGE_READING_OK);
	assert_float_equal(r.distance_m, 12.34f, 1e-4f);
	assert_in_range(sensors_accepted(&n->f.hub, SENSOR_RANGE), 19, 21);   /* 20 Hz */
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	assert_true(present & DRV_SENSOR_LASER_POSITION);
	assert_true(healthy & DRV_SENSOR_LASER_POSITION);
	/* unplugged: unhealthy once stale, and nothing more published */
	n->i2c1.ndevs--;
	uint64_t before = sensors_accepted(&n->f.hub, SENSOR_RANGE);
	bio_run(&n->f, 1000000);
	assert_int_equal(sensors_accepted(&n->f.hub, SENSOR_RANGE), before);
	assert_true(bio_status(&n->f, "rngfnd_sf", "LightWare SF10/SF11", 0).errors >= 19);
	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	assert_true(present & DRV_SENSOR_LASER_POSITION);
	assert_false(healthy & DRV_SENSOR_LASER_POSITION);
	board_io_close(&n->f.bio);
	free(n);
}

static void test_board_io_navio_decodes_ppm_into_the_hub(void **state)
{
	struct navio *n = *state;

	wave_ppm(true);
	uint64_t t = (n->f.now_us + 1000) * 1000u;
	for (size_t i = 0; i < wave.n; i++) {
		bool next_high = wave.high[i];
		if (i == 0 || wave.high[i - 1] != next_high)
			emul_edges_add(&n->rc, next_high, t);
		t += wave.dur_ns[i];
	}
	bio_run(&n->f, rc_wave_duration_ns(&wave) / 1000u + 20000);
	struct rc_frame fr;
	assert_true(sensors_latest(&n->f.hub, SENSOR_RC, &fr) > 0);
	assert_channels(&fr, RC_PROTOCOL_PPM, ppm_ch, 8);
	assert_true(sensors_accepted(&n->f.hub, SENSOR_RC) >= 25);
	assert_true(bio_status(&n->f, "rcin", "RC pulse capture", 0).samples >= 25);
}

static void test_board_io_navio_outputs_reach_the_pca9685_from_the_timer_thread(void **state)
{
	struct navio *n = *state;
	struct rcout *out = board_io_rcout(&n->f.bio);
	uint16_t us;

	/* Main writes; nothing reaches the chip until the bus owner runs. */
	uint32_t writes = n->pca.writes;
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 2, 1100), 0);
	assert_int_equal(rcout_write(out, 12, 1900), 0);
	assert_int_equal(n->pca.writes, writes);
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(rcout_write(out, 13, 1500), -EINVAL);
	assert_int_equal(rcout_write(out, 0, 2600), -EINVAL);

	bio_run(&n->f, 5000);
	/* Channel 0 is the chip's output 3 (the first three drive the RGB LED). */
	assert_true(fabs(emul_pca9685_high_us(&n->pca, 3) - 1500.0) < 2.0);
	assert_true(fabs(emul_pca9685_high_us(&n->pca, 5) - 1100.0) < 2.0);
	assert_true(fabs(emul_pca9685_high_us(&n->pca, 15) - 1900.0) < 2.0);
	assert_true(emul_pca9685_high_us(&n->pca, 0) == 0.0);
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 1500);
	/* One channel per timer wake: three writes, no more for unchanged channels. */
	uint32_t after = n->pca.writes;
	bio_run(&n->f, 5000);
	assert_int_equal(n->pca.writes, after);

	board_io_close(&n->f.bio);
	assert_int_equal(n->oe.value, 0);     /* outputs off at exit */
	assert_true(emul_pca9685_high_us(&n->pca, 3) == 0.0);
}

/* RC_SPEED on the Navio: one prescaler for every output, set again by the
 * timer thread while they are all off; refused once pulses run. */
static void test_board_io_navio_output_rate_is_set_while_outputs_are_off(void **state)
{
	struct navio *n = *state;
	struct rcout *out = board_io_rcout(&n->f.bio);

	bio_run(&n->f, 5000);
	assert_true(fabs(emul_pca9685_period_us(&n->pca) - 20000.0) < 1.0);
	assert_int_equal(rcout_set_rate(out, 0xf, 20), -EINVAL);     /* prescaler past 255 */
	assert_int_equal(rcout_set_rate(out, 0xf, 490), 0);
	bio_run(&n->f, 20000);
	/* 24.576 MHz / 4096 / 13: the period rounded up from 490 Hz's, never shorter */
	double period = emul_pca9685_period_us(&n->pca);
	assert_true(fabs(period - 1e6 / (24576000.0 / 4096.0 / 13.0)) < 1.0);
	assert_int_equal(n->pca.prescale_ignored, 0);
	assert_int_equal(n->pca.early_restarts, 0);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 0, 2200), -EINVAL);        /* longer than the period */
	bio_run(&n->f, 5000);
	assert_true(fabs(emul_pca9685_high_us(&n->pca, 3) - 1500.0) < 2.0);
	assert_int_equal(rcout_set_rate(out, 0xf, 400), -EBUSY);
	assert_int_equal(rcout_set_rate(out, 0xf, 490), 0);          /* the same: nothing to do */
}

static void test_board_io_navio_reads_the_spi_gps(void **state)
{
	struct navio *n = *state;

	bio_run(&n->f, 4000000);
	struct gps_fix g;
	assert_true(sensors_latest(&n->f.hub, SENSOR_GPS, &g) > 0);
	assert_int_equal(g.fix, GPS_FIX_3D);
	assert_float_equal(g.lat_deg, 48.1173, 1e-6);
	assert_float_equal(g.lon_deg, 11.5166667, 1e-6);
	assert_int_equal(g.num_sv, 12);
	assert_true(ublox_dev_nav_pvt(board_io_instance(&n->f.bio, "gps")));      /* configured for NAV-PVT over SPI */
	assert_true(n->gps.nav_pvt_sent >= 2);
	assert_int_equal(n->gps.cfg_prt, 0);    /* no UART port set-up sent to the SPI port */
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	assert_true(healthy & DRV_SENSOR_GPS);
}

static void test_board_io_navio_refuses_an_imu_that_does_not_answer_who_am_i(void **state)
{
	(void)state;
	struct navio *n = navio_new(0x00);

	assert_int_equal(bio_open(&n->f), -ENODEV);
	assert_non_null(strstr(n->f.err, "imu (MPU9250 on SPI0 CE1)"));
	assert_non_null(strstr(n->f.err, "WHO_AM_I"));
	free(n);
}

static void test_board_io_navio_refuses_a_barometer_that_does_not_answer(void **state)
{
	(void)state;
	struct navio *n = navio_new(0x71);

	n->baro.i2c.addr = 0x76;   /* nobody at 0x77 */
	assert_int_equal(bio_open(&n->f), -ENODEV);
	assert_non_null(strstr(n->f.err, "baro (MS5611 on I2C-1 at 0x77)"));
	free(n);
}

/* RNGFND1_TYPE 7 with no SF10/SF11 on the header: start-up stops, saying which. */
static void test_board_io_navio_refuses_a_rangefinder_that_does_not_answer(void **state)
{
	(void)state;
	struct navio *n = navio_new(0x71);

	n->rngfnd = true;
	n->sf11.i2c.addr = 0x67;   /* nobody at 0x66 */
	bio_devices(&n->f, handle, n);
	assert_int_equal(bio_open(&n->f), -ENODEV);
	assert_string_equal(n->f.err, "rngfnd_sf (LightWare SF10/SF11 on I2C-1 at 0x66): no "
			    "LightWare SF10/SF11 answers (a 2-byte distance read)");
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_board_io_navio_brings_up_every_part_and_its_tasks,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio_samples_reach_the_hub, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_board_io_navio_counts_a_failed_transfer_and_keeps_the_last_sample, setup,
			teardown),
		cmocka_unit_test(test_board_io_navio_rangefinder_reaches_the_hub),
		cmocka_unit_test(test_board_io_navio_refuses_a_rangefinder_that_does_not_answer),
		cmocka_unit_test_setup_teardown(test_board_io_navio_decodes_ppm_into_the_hub, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_board_io_navio_outputs_reach_the_pca9685_from_the_timer_thread, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio_output_rate_is_set_while_outputs_are_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio_reads_the_spi_gps, setup, teardown),
		cmocka_unit_test(test_board_io_navio_refuses_an_imu_that_does_not_answer_who_am_i),
		cmocka_unit_test(test_board_io_navio_refuses_a_barometer_that_does_not_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
