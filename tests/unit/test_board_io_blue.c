// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The BeagleBone Blue as boards/blue.c describes it, brought up by board_io:
 * the MPU9250, its AK8963 and the BMP280 on one emulated I2C bus (the
 * AK8963 answering only once the MPU9250 has opened its bypass), the u-blox
 * behind UART2 (rate change included), and PRU1's data RAM as the AioPRU
 * firmware leaves it, two memfds mapped through the real mmio backend as
 * /dev/mem would be: the RC ring written as the firmware's eCAP writes it,
 * the PWM block read back as the firmware reads it, 8 channels of it; the
 * power module's two ADC inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_ak8963.h"
#include "../emul/emul_board.h"
#include "../emul/emul_bmp280.h"
#include "../emul/emul_i2c.h"
#include "../emul/emul_mpu.h"
#include "../emul/emul_ublox.h"
#include "drivers/drivers.h"
#include "drivers/ublox.h"
#include "mmio_spy.h"
#include "pru/hal_pru.h"
#include "rcin_e2e.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define WIN_LEN 0x1000
#define TICKS_PER_US 200u

struct blue {
	struct bio_fixture f;
	struct emul_i2c_bus i2c2;
	struct emul_mpu mpu;
	struct emul_ak8963 ak;
	struct emul_bmp280 baro;
	/* Between the bus and the BMP280: counts the chip-id reads. */
	struct emul_i2c_dev baro_tap;
	uint32_t baro_id_reads;
	struct emul_ublox gps;
	struct emul_memwin ring, pwm;
	struct emul_analog batt_v, batt_i;
	/* The eCAP playing the wave into the ring (RcAioPRU.p). */
	bool playing;
	size_t lvl;
	uint64_t t_ns, last_event_ns;
	uint32_t cap1;
	bool fell;
	uint16_t idx;
};

static int baro_tap_xfer(struct emul_i2c_dev *dev, const uint8_t *tx, size_t tx_len, uint8_t *rx,
			 size_t rx_len)
{
	struct blue *b = (void *)((char *)dev - offsetof(struct blue, baro_tap));

	if (tx_len == 1 && tx[0] == 0xd0 && rx_len)
		b->baro_id_reads++;
	return b->baro.i2c.xfer(&b->baro.i2c, tx, tx_len, rx, rx_len);
}

/* An entry {high, low} at the firmware's index, then the tail naming it. */
static void ring_entry(struct blue *b, uint32_t high_ticks, uint32_t low_ticks)
{
	b->ring.ram[1 + 2 * b->idx] = high_ticks;
	b->ring.ram[2 + 2 * b->idx] = low_ticks;
	b->ring.ram[0] = (uint32_t)b->idx << 16;
	b->idx = (uint16_t)((b->idx + 1) % RCIN_AIOPRU_RING_ENTRIES);
}

/* The eCAP in difference mode: the high time at the falling edge, the low at the rising one. */
static void ecap_advance(struct blue *b, uint64_t now_us)
{
	while (b->playing && b->lvl < wave.n && (b->t_ns + wave.dur_ns[b->lvl]) / 1000u <= now_us) {
		b->t_ns += wave.dur_ns[b->lvl];
		uint32_t since = (uint32_t)(b->t_ns / 5u - b->last_event_ns / 5u);
		if (wave.high[b->lvl]) {
			b->cap1 = since;
			b->last_event_ns = b->t_ns;
			b->fell = true;
		} else if (b->fell) {
			ring_entry(b, b->cap1, since);
			b->last_event_ns = b->t_ns;
			b->fell = false;
		}
		b->lvl++;
	}
}

static void advance(void *ctx, uint64_t now_us)
{
	struct blue *b = ctx;

	emul_ak8963_set_time(&b->ak, now_us);
	emul_mpu_advance(&b->mpu, now_us);
	emul_bmp280_set_time(&b->baro, now_us);
	emul_ublox_advance(&b->gps, now_us);
	ecap_advance(b, now_us);
}

static void *handle(void *ctx, const char *name)
{
	struct blue *b = ctx;

	if (!strcmp(name, "imu") || !strcmp(name, "mag") || !strcmp(name, "baro"))
		return &b->i2c2.bus;   /* three handles on one adapter */
	if (!strcmp(name, "gps"))
		return &b->gps.uart;
	if (!strcmp(name, "rcin"))
		return b->ring.win;
	if (!strcmp(name, "rcout"))
		return b->pwm.win;
	if (!strcmp(name, "batt_v"))
		return &b->batt_v.in;
	if (!strcmp(name, "batt_i"))
		return &b->batt_i.in;
	return NULL;   /* telem: optional; rangefinders: RNGFND1_TYPE 0 */
}

/* The board with every chip answering; open it with bio_open. */
static struct blue *blue_new(uint8_t who_am_i, uint8_t baro_id)
{
	struct blue *b = calloc(1, sizeof(*b));
	static const uint8_t asa[3] = { 128, 128, 128 };

	assert_non_null(b);
	emul_i2c_init(&b->i2c2);
	emul_mpu_init(&b->mpu, who_am_i);
	emul_ak8963_init(&b->ak, asa);
	b->mpu.aux = &b->ak.i2c;
	b->mpu.dither = true;
	emul_mpu_attach_i2c(&b->mpu, &b->i2c2, 0x68);
	emul_bmp280_init(&b->baro, 0x76);
	b->baro.chip_id = baro_id;
	b->baro_tap = (struct emul_i2c_dev){ .addr = 0x76, .xfer = baro_tap_xfer };
	emul_i2c_attach(&b->i2c2, &b->baro_tap);
	emul_ublox_init(&b->gps, 38400);
	b->gps.host_baud = 38400;    /* the port as the board opens it */
	assert_int_equal(emul_memwin_open(&b->ring, WIN_LEN), 0);
	assert_int_equal(emul_memwin_open(&b->pwm, WIN_LEN), 0);
	/* What the firmware's start-up leaves: an empty ring, every period 20 ms, no width. */
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++)
		b->pwm.ram[2 + 2 * ch] = 20000u * TICKS_PER_US;
	emul_analog_init(&b->batt_v, 1100.0);   /* 1.1 V at the ADC: 11.11 V */
	emul_analog_init(&b->batt_i, 500.0);    /* 0.5 V: 8.5 A */
	b->f.now_us = 1000000;
	b->f.advance = advance;
	b->f.ctx = b;
	bio_devices(&b->f, handle, b);
	return b;
}

static void blue_free(struct blue *b)
{
	emul_memwin_close(&b->ring);
	emul_memwin_close(&b->pwm);
	free(b);
}

static int setup(void **state)
{
	struct blue *b = blue_new(0x71, 0x58);

	assert_int_equal(bio_open(&b->f), 0);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct blue *b = *state;

	board_io_close(&b->f.bio);
	blue_free(b);
	return 0;
}

static void test_board_io_blue_brings_up_its_i2c_sensors_and_they_reach_the_hub(void **state)
{
	struct blue *b = *state;
	const int16_t acc[3] = { 2048, -1024, 512 }, gyr[3] = { 0, 0, 0 };

	assert_true(bio_has_task(&b->f, "imu") && bio_has_task(&b->f, "mag") &&
		    bio_has_task(&b->f, "baro") && bio_has_task(&b->f, "gps") &&
		    bio_has_task(&b->f, "rcin"));
	assert_false(bio_has_task(&b->f, "rcout"));  /* PRU outputs: main writes them */
	assert_int_equal(b->mpu.regs[0x37], 0x02);    /* the bypass open for the AK8963 */
	emul_mpu_set_raw(&b->mpu, acc, gyr, 0);
	b->ak.field[0] = 1000;
	b->ak.field[1] = -2000;
	b->ak.field[2] = 500;
	bio_run(&b->f, 500000);
	assert_in_range(b->f.imu_count, 490, 501);
	/* The board's ROLL_180_YAW_90: body x is the chip's y, y its x, z its -z. */
	assert_float_equal(b->f.imu_last.accel_m_s2[0], -0.5f * G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[1], G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[2], -0.25f * G, 0.01f);
	struct baro_sample bs;
	assert_true(sensors_latest(&b->f.hub, SENSOR_BARO, &bs) > 0);
	assert_float_equal(bs.pressure_pa, 100653.3f, 5.0f);
	/* The AK8963 read directly, in its own axes (0.15 uT per count, ASA 128). */
	struct mag_sample m;
	assert_true(sensors_latest(&b->f.hub, SENSOR_MAG, &m) > 0);
	assert_float_equal(m.field_ut[0], 150.0f, 1e-3);
	assert_float_equal(m.field_ut[1], -300.0f, 1e-3);
	assert_float_equal(m.field_ut[2], 75.0f, 1e-3);
	assert_true(bio_status(&b->f, "mag", "AK8963", 0).running);
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&b->f.bio, b->f.now_us, &present, &enabled, &healthy);
	uint32_t want = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_GPS | DRV_SENSOR_MOTOR_OUTPUTS |
			DRV_SENSOR_RC_RECEIVER | DRV_SENSOR_BATTERY;
	assert_int_equal(present, want);
	uint32_t live = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_MOTOR_OUTPUTS | DRV_SENSOR_BATTERY;
	/* The power module's figures: 10.1 V and 17 A per ADC volt. */
	struct battery_sample bat;
	assert_true(sensors_latest(&b->f.hub, SENSOR_BATTERY, &bat) > 0);
	assert_float_equal(bat.voltage_v, 11.11f, 1e-3);
	assert_float_equal(bat.current_a, 8.5f, 1e-3);
	assert_int_equal(healthy & live, live);
	assert_int_equal(bio_status(&b->f, "imu", "MPU9250", 0).errors, 0);
	assert_int_equal(b->i2c2.naks, 0);
}

static void test_board_io_blue_decodes_sbus_from_the_pru1_ring(void **state)
{
	struct blue *b = *state;

	wave_sbus();
	b->t_ns = b->last_event_ns = b->f.now_us * 1000u;
	b->playing = true;
	bio_run(&b->f, rc_wave_duration_ns(&wave) / 1000u + 10000);
	struct rc_frame fr;
	assert_true(sensors_latest(&b->f.hub, SENSOR_RC, &fr) > 0);
	assert_channels(&fr, RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_true(sensors_accepted(&b->f.hub, SENSOR_RC) >= 20);
	assert_true(bio_status(&b->f, "rcin", "RC pulse capture", 0).running);
}

static void test_board_io_blue_outputs_reach_the_pru1_block_8_of_them(void **state)
{
	struct blue *b = *state;
	struct rcout *out = board_io_rcout(&b->f.bio);

	assert_non_null(out);
	assert_int_equal(rcout_channels(out), 8);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 7, 1000), 0);
	assert_int_equal(rcout_write(out, 8, 1000), -EINVAL);  /* the Blue's firmware has no 9th */
	/* Enable mask, then {high, period} per channel in 5 ns ticks; 50 Hz. */
	assert_int_equal(b->pwm.ram[0], (1u << 0) | (1u << 7));
	assert_int_equal(b->pwm.ram[1], 1500u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[2], 20000u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[1 + 2 * 7], 1000u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[1 + 2 * 8], 0u);
	board_io_close(&b->f.bio);
	assert_int_equal(b->pwm.ram[0], 0u);   /* outputs off at exit */
	assert_int_equal(b->pwm.ram[1], 0u);
}

static void test_board_io_blue_sets_up_the_uart2_gps_and_reads_nav_pvt(void **state)
{
	struct blue *b = *state;

	bio_run(&b->f, 5000000);
	assert_int_equal(b->gps.rx_baud, 115200);    /* moved from 38400 */
	assert_true(b->gps.nav_pvt_sent >= 2);
	struct gps_fix g;
	assert_true(sensors_latest(&b->f.hub, SENSOR_GPS, &g) > 0);
	assert_int_equal(g.fix, GPS_FIX_3D);
	assert_true(ublox_dev_nav_pvt(board_io_instance(&b->f.bio, "gps")));
}

/* A BME280 (chip id 0x60) where the BMP280 should be: named, tried, never driven. */
static void test_board_io_blue_refuses_a_barometer_with_the_wrong_chip_id(void **state)
{
	(void)state;
	struct blue *b = blue_new(0x71, 0x60);

	assert_int_equal(bio_open(&b->f), -ENODEV);
	assert_string_equal(b->f.err, "baro (BMP280 on I2C2 at 0x76): no BMP280 answers "
			    "(chip id 0x60, a BMP280's is 0x58)");
	assert_int_equal(b->baro_id_reads, DRV_STARTUP_TRIES);
	assert_int_equal(b->baro.resets, 0);          /* nothing written to another chip */
	assert_int_equal(b->baro.measurements, 0);
	struct baro_sample bs;
	assert_int_equal(sensors_latest(&b->f.hub, SENSOR_BARO, &bs), 0);
	blue_free(b);
}

static void test_board_io_blue_refuses_an_imu_that_does_not_answer_who_am_i(void **state)
{
	(void)state;
	struct blue *b = blue_new(0x00, 0x58);

	assert_int_equal(bio_open(&b->f), -ENODEV);
	assert_string_equal(b->f.err, "imu (MPU9250 on I2C2 at 0x68): no MPU9250 answers to "
			    "WHO_AM_I (read 0x00)");
	blue_free(b);
}

/* The AK8963 is an entry of its own here: one that does not answer stops start-up. */
static void test_board_io_blue_refuses_a_compass_that_does_not_answer(void **state)
{
	(void)state;
	struct blue *b = blue_new(0x71, 0x58);

	b->mpu.aux = NULL;   /* nothing behind the bypass */
	assert_int_equal(bio_open(&b->f), -ENODEV);
	assert_non_null(strstr(b->f.err, "mag (AK8963 in the MPU9250, I2C2 at 0x0C): no AK8963 answers"));
	blue_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_board_io_blue_brings_up_its_i2c_sensors_and_they_reach_the_hub, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_board_io_blue_decodes_sbus_from_the_pru1_ring,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_blue_outputs_reach_the_pru1_block_8_of_them,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_blue_sets_up_the_uart2_gps_and_reads_nav_pvt,
						setup, teardown),
		cmocka_unit_test(test_board_io_blue_refuses_a_barometer_with_the_wrong_chip_id),
		cmocka_unit_test(test_board_io_blue_refuses_an_imu_that_does_not_answer_who_am_i),
		cmocka_unit_test(test_board_io_blue_refuses_a_compass_that_does_not_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
