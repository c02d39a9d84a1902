// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The BeagleBone Black + PXF cape as boards/bbb-pxf.c describes it, brought
 * up by board_io: the MPU9250 (with its AK8963), the MPU6000 and the MS5611
 * share one emulated SPI bus, each answering only while its GPIO chip-select
 * line is asserted (the cape's wiring); the PRU's RC input ring and PWM
 * command block are memfds mapped through the real mmio backend, the ring
 * written by the test as rcinpru0 writes it and the command block answered by
 * a thread standing in for pwmpru1; the u-blox is behind a UART.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../emul/emul_ak8963.h"
#include "../emul/emul_board.h"
#include "../emul/emul_gpio.h"
#include "../emul/emul_mpu.h"
#include "../emul/emul_ms5611.h"
#include "../emul/emul_ublox.h"
#include "linux/hal_linux.h"
#include "mmio_spy.h"
#include "rcin_e2e.h"
#include "drivers/drivers.h"
#include "drivers/mpu.h"
#include "drivers/ublox.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define WIN_LEN 0x1000
#define CMD_MAGIC 0xF00FBAAFu
#define REPLY_MAGIC 0xBAAFF00Fu
#define W_ENMASK 1
#define W_PERIODHI(bit) (3 + 2 * (bit))
#define W_HILO_READ(bit) (27 + 2 * (bit))
#define W_ENMASK_READ 51

static const uint16_t baro_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };

struct bbb {
	struct bio_fixture f;
	struct emul_cs_bus spi2;
	struct emul_mpu mpu9250, mpu6000;
	struct emul_ak8963 ak;
	struct emul_ms5611 baro;
	struct emul_gpio cs_imu, cs_imu2, cs_baro, spektrum;
	struct emul_ublox gps;
	struct emul_memwin rcin_ram, pwm_ram;
	struct emul_pru_rcin pru0;
	pthread_t pru1;
	atomic_bool stop;
};

/*
 * pwmpru1's passes, in short: outputs in enmask go on at their width, an
 * enmask of exactly one bit turns that output off, and each pass ends with
 * hilo_read, enmask_read and the reply magic.
 */
static void *pru1_main(void *arg)
{
	struct bbb *b = arg;
	volatile uint32_t *blk = b->pwm_ram.ram;
	uint32_t on = 0;

	while (!atomic_load(&b->stop)) {
		uint32_t en = blk[W_ENMASK];
		for (unsigned int bit = 0; bit < 12; bit++) {
			if (en == (1u << bit))
				on &= ~(1u << bit);
			else if (en & (1u << bit))
				on |= 1u << bit;
			blk[W_HILO_READ(bit) + 1] = (on & (1u << bit)) ? blk[W_PERIODHI(bit) + 1] : 0;
		}
		blk[W_ENMASK_READ] = on;
		blk[0] = REPLY_MAGIC;
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void advance(void *ctx, uint64_t now_us)
{
	struct bbb *b = ctx;

	emul_ak8963_set_time(&b->ak, now_us);
	emul_mpu_advance(&b->mpu9250, now_us);
	emul_mpu_advance(&b->mpu6000, now_us);
	emul_ms5611_set_time(&b->baro, now_us);
	emul_ublox_advance(&b->gps, now_us);
	emul_pru_rcin_advance(&b->pru0, now_us);
}

static void *handle(void *ctx, const char *name)
{
	struct bbb *b = ctx;

	if (!strcmp(name, "imu") || !strcmp(name, "imu2") || !strcmp(name, "baro"))
		return &b->spi2.dev;   /* three handles on /dev/spidev2.0 */
	if (!strcmp(name, "imu_cs"))
		return &b->cs_imu.line;
	if (!strcmp(name, "imu2_cs"))
		return &b->cs_imu2.line;
	if (!strcmp(name, "baro_cs"))
		return &b->cs_baro.line;
	if (!strcmp(name, "spektrum_pwr"))
		return &b->spektrum.line;
	if (!strcmp(name, "rcin"))
		return b->rcin_ram.win;
	if (!strcmp(name, "rcout"))
		return b->pwm_ram.win;
	if (!strcmp(name, "gps"))
		return &b->gps.uart;
	return NULL;
}

static int setup(void **state)
{
	struct bbb *b = calloc(1, sizeof(*b));
	static const uint8_t asa[3] = { 128, 128, 128 };

	assert_non_null(b);
	emul_mpu_init(&b->mpu9250, 0x71);
	emul_mpu_init(&b->mpu6000, 0x68);
	emul_ak8963_init(&b->ak, asa);
	b->mpu9250.aux = &b->ak.i2c;
	b->mpu9250.dither = b->mpu6000.dither = true;
	emul_ms5611_init(&b->baro, baro_c, 0x77);
	emul_gpio_init(&b->cs_imu);
	emul_gpio_init(&b->cs_imu2);
	emul_gpio_init(&b->cs_baro);
	emul_gpio_init(&b->spektrum);
	emul_cs_bus_init(&b->spi2);
	emul_cs_bus_attach(&b->spi2, &b->cs_imu, &b->mpu9250.dev);
	emul_cs_bus_attach(&b->spi2, &b->cs_imu2, &b->mpu6000.dev);
	emul_cs_bus_attach(&b->spi2, &b->cs_baro, &b->baro.spi);
	emul_ublox_init(&b->gps, 38400);
	b->gps.host_baud = 38400;
	b->f.now_us = 1000000;
	assert_int_equal(emul_memwin_open(&b->rcin_ram, WIN_LEN), 0);
	assert_int_equal(emul_memwin_open(&b->pwm_ram, WIN_LEN), 0);
	emul_pru_rcin_init(&b->pru0, b->rcin_ram.ram, b->f.now_us);
	atomic_init(&b->stop, false);
	assert_int_equal(pthread_create(&b->pru1, NULL, pru1_main, b), 0);
	/*
	 * PRU1 is a core of its own that answers within microseconds; the driver
	 * gives it RCOUT_PRU_ANSWER_US (20 ms). A thread standing in for it at
	 * normal priority can wait longer than that for a CPU on a busy host, so
	 * it runs at SCHED_FIFO where that is allowed (as root, as CI runs); it
	 * sleeps 50 us a pass, so it takes little from anything else.
	 */
	pthread_setschedparam(b->pru1, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 });
	b->f.advance = advance;
	b->f.ctx = b;
	bio_devices(&b->f, handle, b);
	assert_int_equal(bio_open(&b->f), 0);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bbb *b = *state;

	board_io_close(&b->f.bio);
	atomic_store(&b->stop, true);
	pthread_join(b->pru1, NULL);
	emul_memwin_close(&b->rcin_ram);
	emul_memwin_close(&b->pwm_ram);
	free(b);
	return 0;
}

static void test_board_io_bbb_runs_three_chips_on_one_bus_by_their_chip_selects(void **state)
{
	struct bbb *b = *state;

	assert_int_equal(mpu_chip(mpu_of(board_io_instance(&b->f.bio, "imu"))), MPU_CHIP_MPU9250);
	assert_int_equal(mpu_chip(mpu_of(board_io_instance(&b->f.bio, "imu2"))), MPU_CHIP_MPU6000);
	assert_true(bio_has_task(&b->f, "imu2"));
	bio_run(&b->f, 500000);
	/* Every transfer reached exactly one chip; all are deselected between them. */
	assert_true(b->spi2.transfers > 1000);
	assert_int_equal(b->spi2.clashes, 0);
	assert_int_equal(b->cs_imu.value, 0);
	assert_int_equal(b->cs_imu2.value, 0);
	assert_int_equal(b->cs_baro.value, 0);
	assert_int_equal(b->mpu9250.lost_writes + b->mpu6000.lost_writes, 0);
	assert_true(bio_status(&b->f, "imu2", "MPU6000", 0).samples >= 450);
	assert_in_range(b->f.imu_count, 490, 501);
	struct baro_sample bs;
	assert_true(sensors_latest(&b->f.hub, SENSOR_BARO, &bs) > 0);
	assert_float_equal(bs.pressure_pa, 100009.0f, 30.0f);
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&b->f.bio, b->f.now_us, &present, &enabled, &healthy);
	uint32_t want = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_GYRO2 | DRV_SENSOR_ACCEL2 |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_GPS |
			DRV_SENSOR_MOTOR_OUTPUTS | DRV_SENSOR_RC_RECEIVER;
	assert_int_equal(present, want);
	assert_true(healthy & DRV_SENSOR_GYRO2);
	assert_true(healthy & DRV_SENSOR_MAG);
}

static void test_board_io_bbb_applies_the_pxf_rotation(void **state)
{
	struct bbb *b = *state;
	const int16_t acc[3] = { 1024, 2048, 512 }, gyr[3] = { 164, 0, 0 };

	emul_mpu_set_raw(&b->mpu9250, acc, gyr, 0);
	bio_run(&b->f, 50000);
	/* ROLL_180_YAW_270: body = (-y, -x, -z) of the chip's axes. */
	assert_float_equal(b->f.imu_last.accel_m_s2[0], -G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[1], -0.5f * G, 0.01f);
	assert_float_equal(b->f.imu_last.accel_m_s2[2], -0.25f * G, 0.01f);
	assert_float_equal(b->f.imu_last.gyro_rad_s[0], 0.0f, 0.001f);
	assert_float_equal(b->f.imu_last.gyro_rad_s[1], -10.0f * 0.0174533f, 0.002f);
}

static void test_board_io_bbb_counts_a_stuck_chip_select_and_recovers(void **state)
{
	struct bbb *b = *state;

	bio_run(&b->f, 20000);
	uint64_t before = bio_status(&b->f, "imu", "MPU9250", 0).errors;
	struct imu_sample last = b->f.imu_last;
	uint64_t n = b->f.imu_count;
	/* The chip-select line fails: the transfer must not go out on a shared bus. */
	b->cs_imu.fail_next = 3;
	bio_run(&b->f, 3000);
	assert_true(bio_status(&b->f, "imu", "MPU9250", 0).errors >= before + 3);
	assert_int_equal(b->spi2.clashes, 0);
	assert_true(b->f.imu_count - n <= 3);
	assert_true(b->f.imu_last.t_us >= last.t_us);
	bio_run(&b->f, 50000);
	assert_true(b->f.imu_count - n > 40);
}

static void test_board_io_bbb_decodes_ppm_from_the_pru_ring(void **state)
{
	struct bbb *b = *state;

	wave_ppm(true);
	emul_levels_init(&b->pru0.lv, b->f.now_us);
	for (size_t i = 0; i < wave.n; i++)
		emul_levels_add(&b->pru0.lv, wave.high[i], (uint32_t)((wave.dur_ns[i] + 500) / 1000));
	bio_run(&b->f, rc_wave_duration_ns(&wave) / 1000u + 10000);
	struct rc_frame fr;
	assert_true(sensors_latest(&b->f.hub, SENSOR_RC, &fr) > 0);
	assert_channels(&fr, RC_PROTOCOL_PPM, ppm_ch, 8);
	assert_true(sensors_accepted(&b->f.hub, SENSOR_RC) >= 25);
}

/* The block as the ARM sees it (the backend's mapping; the firmware thread has its own). */
static uint32_t blk_word(struct bbb *b, unsigned int w)
{
	return mmio_read32(b->pwm_ram.win, 4u * w);
}

static void test_board_io_bbb_outputs_reach_the_pru_command_block(void **state)
{
	struct bbb *b = *state;
	struct rcout *out = board_io_rcout(&b->f.bio);

	assert_non_null(out);
	assert_int_equal(rcout_channels(out), 12);
	assert_int_equal(rcout_write(out, 0, 1500), 0);   /* PRU bit 10 */
	assert_int_equal(rcout_write(out, 11, 1200), 0);  /* PRU bit 0 */
	assert_int_equal(blk_word(b, W_PERIODHI(10)), 4000000u);  /* 50 Hz at 200 MHz */
	assert_int_equal(blk_word(b, W_PERIODHI(10) + 1), 300000u);
	assert_int_equal(blk_word(b, W_PERIODHI(0) + 1), 240000u);
	/* The firmware turns them on at its next pass. */
	for (int i = 0; i < 2000 && (blk_word(b, W_ENMASK_READ) & 0x401u) != 0x401u; i++) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	uint16_t us;
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 1500);
	board_io_close(&b->f.bio);
	assert_int_equal(blk_word(b, W_ENMASK_READ) & 0xfffu, 0u);   /* all off at exit */
}

static void test_board_io_bbb_sets_up_the_uart_gps(void **state)
{
	struct bbb *b = *state;

	bio_run(&b->f, 5000000);
	struct gps_fix g;
	assert_true(sensors_latest(&b->f.hub, SENSOR_GPS, &g) > 0);
	assert_int_equal(b->gps.rx_baud, 115200);
	assert_float_equal(g.lon_deg, 11.5166667, 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_board_io_bbb_runs_three_chips_on_one_bus_by_their_chip_selects, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbb_applies_the_pxf_rotation, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_board_io_bbb_counts_a_stuck_chip_select_and_recovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbb_decodes_ppm_from_the_pru_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbb_outputs_reach_the_pru_command_block,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_bbb_sets_up_the_uart_gps, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
