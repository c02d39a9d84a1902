// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The BeagleBone Black + BBBMINI cape as boards/bbbmini.c describes it,
 * brought up by board_io: the MPU9250 (with its AK8963) and the MS5611 on
 * SPI1 with the kernel's chip selects, the u-blox behind UART5 (rate change
 * included), and PRU1's data RAM as the AioPRU firmware leaves it, two memfds
 * mapped through the real mmio backend as /dev/mem would be: the RC ring
 * written as the firmware's eCAP writes it, the PWM block read back as the
 * firmware reads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../emul/emul_ak8963.h"
#include "../emul/emul_board.h"
#include "../emul/emul_mpu.h"
#include "../emul/emul_ms5611.h"
#include "../emul/emul_ublox.h"
#include "drivers/drivers.h"
#include "drivers/ublox.h"
#include "linux/hal_linux.h"
#include "mmio_spy.h"
#include "pru/hal_pru.h"
#include "rcin_e2e.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define WIN_LEN 0x1000
#define TICKS_PER_US 200u

static const uint16_t baro_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };

struct bbbmini {
	struct bio_fixture f;
	struct emul_mpu mpu;
	struct emul_ak8963 ak;
	struct emul_ms5611 baro;
	struct emul_ublox gps;
	struct emul_memwin ring, pwm;
	/* The eCAP playing the wave into the ring (RcAioPRU.p). */
	bool playing;
	size_t lvl;
	uint64_t t_ns, last_event_ns;
	uint32_t cap1;
	bool fell;
	uint16_t idx;
};

/* An entry {high, low} at the firmware's index, then the tail naming it. */
static void ring_entry(struct bbbmini *b, uint32_t high_ticks, uint32_t low_ticks)
{
	b->ring.ram[1 + 2 * b->idx] = high_ticks;
	b->ring.ram[2 + 2 * b->idx] = low_ticks;
	b->ring.ram[0] = (uint32_t)b->idx << 16;
	b->idx = (uint16_t)((b->idx + 1) % RCIN_AIOPRU_RING_ENTRIES);
}

/* The eCAP in difference mode: the high time at the falling edge, the low at the rising one. */
static void ecap_advance(struct bbbmini *b, uint64_t now_us)
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
	struct bbbmini *b = ctx;

	emul_ak8963_set_time(&b->ak, now_us);
	emul_mpu_advance(&b->mpu, now_us);
	emul_ms5611_set_time(&b->baro, now_us);
	emul_ublox_advance(&b->gps, now_us);
	ecap_advance(b, now_us);
}

static void *handle(void *ctx, const char *name)
{
	struct bbbmini *b = ctx;

	if (!strcmp(name, "imu"))
		return &b->mpu.dev;
	if (!strcmp(name, "baro"))
		return &b->baro.spi;
	if (!strcmp(name, "gps"))
		return &b->gps.uart;
	if (!strcmp(name, "rcin"))
		return b->ring.win;
	if (!strcmp(name, "rcout"))
		return b->pwm.win;
	return NULL;   /* imu2 and telem: optional, not configured */
}

static int setup(void **state)
{
	struct bbbmini *b = calloc(1, sizeof(*b));
	static const uint8_t asa[3] = { 128, 128, 128 };

	assert_non_null(b);
	emul_mpu_init(&b->mpu, 0x71);
	emul_ak8963_init(&b->ak, asa);
	b->mpu.aux = &b->ak.i2c;
	b->mpu.dither = true;
	emul_ms5611_init(&b->baro, baro_c, 0x77);
	emul_ublox_init(&b->gps, 38400);
	b->gps.host_baud = 38400;    /* the port as the board opens it */
	assert_int_equal(emul_memwin_open(&b->ring, WIN_LEN), 0);
	assert_int_equal(emul_memwin_open(&b->pwm, WIN_LEN), 0);
	/* What the firmware's start-up leaves: an empty ring, every period 20 ms, no width. */
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++)
		b->pwm.ram[2 + 2 * ch] = 20000u * TICKS_PER_US;
	b->f.now_us = 1000000;
	b->f.advance = advance;
	b->f.ctx = b;
	bio_devices(&b->f, handle, b);
	assert_int_equal(bio_open(&b->f), 0);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bbbmini *b = *state;

	board_io_close(&b->f.bio);
	emul_memwin_close(&b->ring);
	emul_memwin_close(&b->pwm);
	free(b);
	return 0;
}

static void test_board_io_bbbmini_brings_up_its_sensors_and_they_reach_the_hub(void **state)
{
	struct bbbmini *b = *state;
	const int16_t acc[3] = { 2048, -1024, 512 }, gyr[3] = { 0, 0, 0 };

	assert_true(bio_has_task(&b->f, "imu") && bio_has_task(&b->f, "baro") &&
		    bio_has_task(&b->f, "gps") && bio_has_task(&b->f, "rcin"));
	assert_false(bio_has_task(&b->f, "imu2"));   /* optional, not configured */
	assert_false(bio_has_task(&b->f, "rcout"));  /* PRU outputs: main writes them */
	emul_mpu_set_raw(&b->mpu, acc, gyr, 0);
	bio_run(&b->f, 500000);
	assert_in_range(b->f.imu_count, 490, 501);
	assert_float_equal(b->f.imu_last.accel_m_s2[0], G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[1], -0.5f * G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[2], 0.25f * G, 0.01f);
	struct baro_sample bs;
	assert_true(sensors_latest(&b->f.hub, SENSOR_BARO, &bs) > 0);
	assert_float_equal(bs.pressure_pa, 100009.0f, 30.0f);
	struct mag_sample m;
	assert_true(sensors_latest(&b->f.hub, SENSOR_MAG, &m) > 0);
	assert_true(bio_status(&b->f, "imu.mag", "MPU9250", 0).running);
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&b->f.bio, b->f.now_us, &present, &enabled, &healthy);
	assert_int_equal(present, DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
				  DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_GPS |
				  DRV_SENSOR_MOTOR_OUTPUTS | DRV_SENSOR_RC_RECEIVER);
	assert_int_equal(healthy & (DRV_SENSOR_GYRO | DRV_SENSOR_MAG | DRV_SENSOR_ABS_PRESSURE |
				    DRV_SENSOR_MOTOR_OUTPUTS),
			 DRV_SENSOR_GYRO | DRV_SENSOR_MAG | DRV_SENSOR_ABS_PRESSURE |
			 DRV_SENSOR_MOTOR_OUTPUTS);
}

static void test_board_io_bbbmini_decodes_sbus_from_the_pru1_ring(void **state)
{
	struct bbbmini *b = *state;

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

static void test_board_io_bbbmini_outputs_reach_the_pru1_block(void **state)
{
	struct bbbmini *b = *state;
	struct rcout *out = board_io_rcout(&b->f.bio);

	assert_non_null(out);
	assert_int_equal(rcout_channels(out), 12);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 11, 1000), 0);
	/* Enable mask, then {high, period} per channel in 5 ns ticks; 50 Hz. */
	assert_int_equal(b->pwm.ram[0], (1u << 0) | (1u << 11));
	assert_int_equal(b->pwm.ram[1], 1500u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[2], 20000u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[1 + 2 * 11], 1000u * TICKS_PER_US);
	assert_int_equal(b->pwm.ram[1 + 2 * 5], 0u);
	board_io_close(&b->f.bio);
	assert_int_equal(b->pwm.ram[0], 0u);   /* outputs off at exit */
	assert_int_equal(b->pwm.ram[1], 0u);
}

static void test_board_io_bbbmini_sets_up_the_uart_gps_and_reads_nav_pvt(void **state)
{
	struct bbbmini *b = *state;

	bio_run(&b->f, 5000000);
	assert_int_equal(b->gps.rx_baud, 115200);    /* moved from 38400 */
	assert_true(b->gps.nav_pvt_sent >= 2);
	struct gps_fix g;
	assert_true(sensors_latest(&b->f.hub, SENSOR_GPS, &g) > 0);
	assert_int_equal(g.fix, GPS_FIX_3D);
	assert_true(ublox_dev_nav_pvt(board_io_instance(&b->f.bio, "gps")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_board_io_bbbmini_brings_up_its_sensors_and_they_reach_the_hub, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbbmini_decodes_sbus_from_the_pru1_ring,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbbmini_outputs_reach_the_pru1_block,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_board_io_bbbmini_sets_up_the_uart_gps_and_reads_nav_pvt, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
