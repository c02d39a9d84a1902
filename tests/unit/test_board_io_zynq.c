// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The Zynq board as boards/zynq.c describes it, brought up by board_io: the
 * MPU9250 (and its AK8963) and MS5611 emulated behind SPI, the u-blox behind
 * a UART (rate change included), the PL pulse-capture FIFO emulated behind
 * struct mmio, and the PL PWM registers in a memfd mapped through the real
 * mmio backend, as /dev/mem would be.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
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
#include "linux/hal_linux.h"
#include "rcin_e2e.h"
#include "drivers/drivers.h"
#include "drivers/mpu.h"
#include "drivers/ublox.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define WIN_LEN 0x1000

static const uint16_t baro_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };

struct zynq {
	struct bio_fixture f;
	struct emul_mpu mpu;
	struct emul_ak8963 ak;
	struct emul_ms5611 baro;
	struct emul_ublox gps;
	struct emul_pl_fifo fifo;
	int pwm_fd;
	struct mmio *pwm_win;
	volatile uint32_t *pwm;     /* the PL's view of the registers */
};

static void advance(void *ctx, uint64_t now_us)
{
	struct zynq *z = ctx;

	emul_ak8963_set_time(&z->ak, now_us);
	emul_mpu_advance(&z->mpu, now_us);
	emul_ms5611_set_time(&z->baro, now_us);
	emul_ublox_advance(&z->gps, now_us);
	z->fifo.now_us = now_us;
}

static void *handle(void *ctx, const char *name)
{
	struct zynq *z = ctx;

	if (!strcmp(name, "imu"))
		return &z->mpu.dev;
	if (!strcmp(name, "baro"))
		return &z->baro.spi;
	if (!strcmp(name, "gps"))
		return &z->gps.uart;
	if (!strcmp(name, "rcin"))
		return &z->fifo.m;
	if (!strcmp(name, "rcout"))
		return z->pwm_win;
	return NULL;
}

static int setup(void **state)
{
	struct zynq *z = calloc(1, sizeof(*z));
	static const uint8_t asa[3] = { 128, 128, 128 };
	char path[64];

	assert_non_null(z);
	emul_mpu_init(&z->mpu, 0x71);
	emul_ak8963_init(&z->ak, asa);
	z->mpu.aux = &z->ak.i2c;
	z->mpu.dither = true;
	emul_ms5611_init(&z->baro, baro_c, 0x77);
	emul_ublox_init(&z->gps, 38400);
	z->gps.host_baud = 38400;    /* the port as the board opens it */
	z->f.now_us = 1000000;
	emul_pl_fifo_init(&z->fifo, WIN_LEN, 0, z->f.now_us);
	z->pwm_fd = memfd_create("fulmar-zynq-pl", MFD_CLOEXEC);
	assert_true(z->pwm_fd >= 0);
	assert_int_equal(ftruncate(z->pwm_fd, WIN_LEN), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", z->pwm_fd);
	const struct mmio_config cfg = { .mem_path = path, .phys_base = 0, .len = WIN_LEN };
	assert_int_equal(mmio_linux_open(&cfg, "/sys", &z->pwm_win), 0);
	z->pwm = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, z->pwm_fd, 0);
	assert_true(z->pwm != MAP_FAILED);
	z->f.advance = advance;
	z->f.ctx = z;
	bio_devices(&z->f, handle, z);
	assert_int_equal(bio_open(&z->f), 0);
	*state = z;
	return 0;
}

static int teardown(void **state)
{
	struct zynq *z = *state;

	board_io_close(&z->f.bio);
	munmap((void *)z->pwm, WIN_LEN);
	mmio_close(z->pwm_win);
	close(z->pwm_fd);
	free(z);
	return 0;
}

static void test_board_io_zynq_brings_up_its_sensors_and_they_reach_the_hub(void **state)
{
	struct zynq *z = *state;
	const int16_t acc[3] = { 2048, -1024, 512 }, gyr[3] = { 0, 0, 0 };

	assert_true(bio_has_task(&z->f, "imu") && bio_has_task(&z->f, "baro") &&
		    bio_has_task(&z->f, "gps") && bio_has_task(&z->f, "rcin"));
	assert_false(bio_has_task(&z->f, "pwm"));   /* PL outputs: main writes them */
	emul_mpu_set_raw(&z->mpu, acc, gyr, 0);
	bio_run(&z->f, 500000);
	assert_in_range(z->f.imu_count, 490, 501);
	assert_float_equal(z->f.imu_last.accel_m_s2[0], G, 0.01f);
	assert_float_equal(z->f.imu_last.accel_m_s2[1], -0.5f * G, 0.01f);
	assert_float_equal(z->f.imu_last.accel_m_s2[2], 0.25f * G, 0.01f);
	struct baro_sample b;
	assert_true(sensors_latest(&z->f.hub, SENSOR_BARO, &b) > 0);
	assert_float_equal(b.pressure_pa, 100009.0f, 30.0f);
	struct mag_sample m;
	assert_true(sensors_latest(&z->f.hub, SENSOR_MAG, &m) > 0);
	uint32_t present, enabled, healthy;
	board_io_sensor_bits(&z->f.bio, z->f.now_us, &present, &enabled, &healthy);
	uint32_t want = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_GPS |
			DRV_SENSOR_MOTOR_OUTPUTS | DRV_SENSOR_RC_RECEIVER;
	assert_int_equal(present, want);
	assert_int_equal(healthy & (DRV_SENSOR_GYRO | DRV_SENSOR_ABS_PRESSURE |
				    DRV_SENSOR_MOTOR_OUTPUTS),
			 DRV_SENSOR_GYRO | DRV_SENSOR_ABS_PRESSURE |
			 DRV_SENSOR_MOTOR_OUTPUTS);
}

static void test_board_io_zynq_decodes_sbus_from_the_pl_fifo(void **state)
{
	struct zynq *z = *state;

	wave_sbus();
	emul_levels_init(&z->fifo.lv, z->f.now_us);
	for (size_t i = 0; i < wave.n; i++)
		emul_levels_add(&z->fifo.lv, wave.high[i], (uint32_t)((wave.dur_ns[i] + 500) / 1000));
	bio_run(&z->f, rc_wave_duration_ns(&wave) / 1000u + 10000);
	struct rc_frame fr;
	assert_true(sensors_latest(&z->f.hub, SENSOR_RC, &fr) > 0);
	assert_channels(&fr, RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_true(sensors_accepted(&z->f.hub, SENSOR_RC) >= 20);
	assert_true(z->fifo.lv.next + 1 >= z->fifo.lv.n);   /* everything popped */
}

static void test_board_io_zynq_outputs_reach_the_pl_registers(void **state)
{
	struct zynq *z = *state;
	struct rcout *out = board_io_rcout(&z->f.bio);

	assert_non_null(out);
	assert_int_equal(rcout_channels(out), 8);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 7, 1000), 0);
	/* {period, high} in 100 MHz ticks; 50 Hz. */
	assert_int_equal(z->pwm[0], 2000000u);
	assert_int_equal(z->pwm[1], 150000u);
	assert_int_equal(z->pwm[2 * 7 + 1], 100000u);
	assert_int_equal(z->pwm[2 * 3 + 1], 0u);
	uint16_t us;
	assert_int_equal(rcout_read(out, 7, &us), 0);
	assert_int_equal(us, 1000);
	board_io_close(&z->f.bio);
	assert_int_equal(z->pwm[1], 0u);   /* outputs off at exit */
}

static void test_board_io_zynq_sets_up_the_uart_gps_and_reads_nav_pvt(void **state)
{
	struct zynq *z = *state;

	bio_run(&z->f, 5000000);
	assert_int_equal(z->gps.rx_baud, 115200);    /* moved from 38400 */
	assert_true(z->gps.nav_pvt_sent >= 2);
	struct gps_fix g;
	assert_true(sensors_latest(&z->f.hub, SENSOR_GPS, &g) > 0);
	assert_int_equal(g.fix, GPS_FIX_3D);
	assert_float_equal(g.lat_deg, 48.1173, 1e-6);
	assert_true(ublox_dev_nav_pvt(board_io_instance(&z->f.bio, "gps")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_board_io_zynq_brings_up_its_sensors_and_they_reach_the_hub, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_board_io_zynq_decodes_sbus_from_the_pl_fifo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_board_io_zynq_outputs_reach_the_pl_registers,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_zynq_sets_up_the_uart_gps_and_reads_nav_pvt,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
