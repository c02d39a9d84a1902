// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The Navio2 as boards/navio2.c describes it, brought up by board_io: the
 * MPU9250, the LSM9DS1's magnetometer and the u-blox as emulated chips on
 * SPI, the MS5611 on an emulated I2C bus, and the RCIO co-processor as the
 * files its kernel module shows, in a temporary directory: a PWM chip
 * (pwmchip0/{npwm,export,unexport,pwmN/...}, the pwmN directories made
 * beforehand, as regular files cannot react to export) and /sys/kernel/rcio
 * (status/alive, rcin/connected, rcin/ch0..15, adc/ch0..5). The drivers and
 * backends are the real ones, opened on those files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../emul/emul_board.h"
#include "../emul/emul_i2c.h"
#include "../emul/emul_lsm9ds1.h"
#include "../emul/emul_mpu.h"
#include "../emul/emul_ms5611.h"
#include "../emul/emul_ublox.h"
#include "drivers/drivers.h"
#include "drivers/mpu.h"
#include "drivers/rcio_rc.h"
#include "linux/hal_linux.h"
#include "linux/rcout_pwm_sysfs.h"
#include "rc/rc.h"
#include "test_board_io_harness.h"

#define G 9.80665f
#define NPWM 16u

static const uint16_t baro_c[6] = { 40127, 36924, 23317, 23282, 33464, 28312 };
static const uint16_t sticks[8] = { 1500, 1510, 1100, 1490, 1900, 1200, 1000, 2000 };

struct navio2 {
	struct bio_fixture f;
	struct emul_mpu mpu;
	struct emul_lsm9ds1_m mag;
	struct emul_i2c_bus i2c1;
	struct emul_ms5611 baro;
	struct emul_ublox gps;
	struct emul_ublox_spi gps_spi;
	char root[32];
	struct sysfs_dir *pwm_dir, *rcio_dir;
	struct analog_in *batt_v, *batt_i;
};

/* ---- the files ---- */

static void put(const struct navio2 *n, const char *rel, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", n->root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void putf(const struct navio2 *n, const char *rel, long v)
{
	char text[24];

	snprintf(text, sizeof(text), "%ld\n", v);
	put(n, rel, text);
}

static const char *got(const struct navio2 *n, const char *rel)
{
	static char buf[64];
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", n->root, rel);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void mkdir_in(const struct navio2 *n, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", n->root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void set_stick(const struct navio2 *n, unsigned int ch, long us)
{
	char rel[32];

	snprintf(rel, sizeof(rel), "rcio/rcin/ch%u", ch);
	putf(n, rel, us);
}

static void make_tree(struct navio2 *n)
{
	char rel[64];

	snprintf(n->root, sizeof(n->root), "/tmp/fulmar-navio2-XXXXXX");
	assert_non_null(mkdtemp(n->root));
	mkdir_in(n, "pwmchip0");
	putf(n, "pwmchip0/npwm", NPWM);
	put(n, "pwmchip0/export", "");
	put(n, "pwmchip0/unexport", "");
	for (unsigned int ch = 0; ch < NPWM; ch++) {
		static const char *const attr[] = { "enable", "period", "duty_cycle", "polarity" };
		snprintf(rel, sizeof(rel), "pwmchip0/pwm%u", ch);
		mkdir_in(n, rel);
		for (size_t a = 0; a < 4; a++) {
			snprintf(rel, sizeof(rel), "pwmchip0/pwm%u/%s", ch, attr[a]);
			put(n, rel, a == 3 ? "normal\n" : "0\n");
		}
	}
	mkdir_in(n, "rcio");
	mkdir_in(n, "rcio/status");
	mkdir_in(n, "rcio/rcin");
	mkdir_in(n, "rcio/adc");
	put(n, "rcio/status/alive", "1\n");
	put(n, "rcio/rcin/connected", "1\n");
	for (unsigned int ch = 0; ch < 16; ch++)
		set_stick(n, ch, ch < 8 ? sticks[ch] : 0);
	static const long adc_mv[6] = { 4790, 5120, 1000, 500, 0, 0 };
	for (unsigned int ch = 0; ch < 6; ch++) {
		snprintf(rel, sizeof(rel), "rcio/adc/ch%u", ch);
		putf(n, rel, adc_mv[ch]);
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* ---- the fixture ---- */

static void advance(void *ctx, uint64_t now_us)
{
	struct navio2 *n = ctx;

	emul_mpu_advance(&n->mpu, now_us);
	emul_lsm9ds1_m_advance(&n->mag, now_us);
	emul_ms5611_set_time(&n->baro, now_us);
	emul_ublox_advance(&n->gps, now_us);
}

static void *handle(void *ctx, const char *name)
{
	struct navio2 *n = ctx;

	if (!strcmp(name, "imu"))
		return &n->mpu.dev;
	if (!strcmp(name, "mag"))
		return &n->mag.dev;
	if (!strcmp(name, "gps"))
		return &n->gps_spi.dev;
	if (!strcmp(name, "baro"))
		return &n->i2c1.bus;
	if (!strcmp(name, "pwm"))
		return n->pwm_dir;
	if (!strcmp(name, "rcin"))
		return n->rcio_dir;
	if (!strcmp(name, "batt_v"))
		return n->batt_v;
	if (!strcmp(name, "batt_i"))
		return n->batt_i;
	return NULL;  /* telem: no driver of board_io's */
}

/* The devices as devices_open would open them, on the tree (as the board's table names them). */
static void open_files(struct navio2 *n)
{
	char p[PATH_MAX], adc[PATH_MAX];

	snprintf(p, sizeof(p), "%s/pwmchip0", n->root);
	struct sysfs_config pwm = { .path = p };
	assert_int_equal(sysfs_linux_open(&pwm, &n->pwm_dir), 0);
	snprintf(p, sizeof(p), "%s/rcio", n->root);
	struct sysfs_config rcio = { .path = p };
	assert_int_equal(sysfs_linux_open(&rcio, &n->rcio_dir), 0);
	snprintf(adc, sizeof(adc), "%s/rcio/adc", n->root);
	struct analog_config v = { .device = adc, .channel = "ch2" };
	struct analog_config i = { .device = adc, .channel = "ch3" };
	assert_int_equal(analog_sysfs_open(&v, &n->batt_v), 0);
	assert_int_equal(analog_sysfs_open(&i, &n->batt_i), 0);
}

static struct navio2 *navio2_new(void)
{
	struct navio2 *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	emul_mpu_init(&n->mpu, 0x71);
	n->mpu.dither = true;
	emul_lsm9ds1_m_init(&n->mag);
	n->mag.dither = true;
	emul_i2c_init(&n->i2c1);
	emul_ms5611_init(&n->baro, baro_c, 0x77);
	emul_i2c_attach(&n->i2c1, &n->baro.i2c);
	emul_ublox_init(&n->gps, 9600);
	emul_ublox_spi_init(&n->gps_spi, &n->gps);
	make_tree(n);
	open_files(n);
	n->f.now_us = 1000000;
	n->f.advance = advance;
	n->f.ctx = n;
	bio_devices(&n->f, handle, n);
	return n;
}

static void navio2_free(struct navio2 *n)
{
	sysfs_close(n->pwm_dir);
	sysfs_close(n->rcio_dir);
	analog_close(n->batt_v);
	analog_close(n->batt_i);
	assert_int_equal(nftw(n->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(n);
}

static int setup(void **state)
{
	struct navio2 *n = navio2_new();

	assert_int_equal(bio_open(&n->f), 0);
	*state = n;
	return 0;
}

static int teardown(void **state)
{
	struct navio2 *n = *state;

	board_io_close(&n->f.bio);
	navio2_free(n);
	return 0;
}

static const struct rcio_rc_stats *rc_stats(struct navio2 *n)
{
	return rcio_rc_stats(board_io_instance(&n->f.bio, "rcin"));
}

static uint32_t rc_gen(struct navio2 *n, struct rc_frame *f)
{
	return sensors_latest(&n->f.hub, SENSOR_RC, f);
}

static bool rc_healthy(struct navio2 *n)
{
	uint32_t present, enabled, healthy;

	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	return (healthy & DRV_SENSOR_RC_RECEIVER) != 0;
}

/* ---- bring-up ---- */

static void test_board_io_navio2_brings_up_every_part_and_its_tasks(void **state)
{
	struct navio2 *n = *state;
	uint32_t present, enabled, healthy;

	assert_int_equal(mpu_chip(mpu_of(board_io_instance(&n->f.bio, "imu"))), MPU_CHIP_MPU9250);
	assert_true(bio_status(&n->f, "imu", "MPU9250", 0).running);
	assert_true(bio_status(&n->f, "mag", "LSM9DS1 magnetometer", 0).running);
	assert_true(bio_status(&n->f, "baro", "MS5611", 0).running);
	assert_true(bio_status(&n->f, "pwm", "PWM-class servo outputs", 0).running);
	bio_status(&n->f, "gps", "u-blox", 0);
	bio_status(&n->f, "rcin", "RCIO RC input", 0);
	bio_status(&n->f, "batt_v", "battery voltage", 0);

	static const struct { const char *name; enum sched_thread_id thread; } tasks[] = {
		{ "imu", SCHED_TIMER }, { "mag", SCHED_TIMER }, { "baro", SCHED_TIMER },
		{ "gps-spi", SCHED_TIMER }, { "rcin", SCHED_IO }, { "batt_v", SCHED_IO },
		{ "pwm-refresh", SCHED_MAIN },
	};
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		assert_true(bio_has_task(&n->f, tasks[i].name));
		for (size_t k = 0; k < n->f.n_tasks; k++)
			if (!strcmp(n->f.tasks[k].name, tasks[i].name))
				assert_int_equal(n->f.tasks[k].thread, tasks[i].thread);
	}
	/* One compass: the MPU9250's AK8963 is not read (boards/navio2.c says why). */
	assert_false(bio_has_task(&n->f, "imu.mag"));

	/* 14 outputs, each exported, at 50 Hz, normal polarity, enabled and sending nothing. */
	struct rcout *out = board_io_rcout(&n->f.bio);
	assert_non_null(out);
	assert_int_equal(rcout_channels(out), 14);
	char rel[64];
	for (unsigned int ch = 0; ch < 14; ch++) {
		snprintf(rel, sizeof(rel), "pwmchip0/pwm%u/period", ch);
		assert_string_equal(got(n, rel), "20000000");
		snprintf(rel, sizeof(rel), "pwmchip0/pwm%u/duty_cycle", ch);
		assert_string_equal(got(n, rel), "0");
		snprintf(rel, sizeof(rel), "pwmchip0/pwm%u/enable", ch);
		assert_string_equal(got(n, rel), "1");
	}
	assert_string_equal(got(n, "pwmchip0/pwm14/period"), "0");   /* 14, 15: not ours */

	board_io_sensor_bits(&n->f.bio, n->f.now_us, &present, &enabled, &healthy);
	uint32_t want = DRV_SENSOR_GYRO | DRV_SENSOR_ACCEL | DRV_SENSOR_MAG |
			DRV_SENSOR_ABS_PRESSURE | DRV_SENSOR_GPS | DRV_SENSOR_MOTOR_OUTPUTS |
			DRV_SENSOR_RC_RECEIVER | DRV_SENSOR_BATTERY;
	assert_int_equal(present, want);
	assert_int_equal(enabled, want);
}

static void test_board_io_navio2_samples_reach_the_hub(void **state)
{
	struct navio2 *n = *state;
	const int16_t acc[3] = { 0, 1024, 2048 }, gyr[3] = { 164, 0, -328 };

	emul_mpu_set_raw(&n->mpu, acc, gyr, 0);
	n->mag.field[0] = 1000;
	n->mag.field[1] = 2000;
	n->mag.field[2] = -3000;
	bio_run(&n->f, 1000000);

	assert_in_range(n->f.imu_count, 990, 1001);
	const struct imu_sample *s = &n->f.imu_last;
	assert_float_equal(s->accel_m_s2[1], 0.5f * G, 0.01f);   /* ROTATION_NONE */
	assert_float_equal(s->accel_m_s2[2], G, 0.01f);

	/* The LSM9DS1's magnetometer, 0.014 uT/LSB at +-4 gauss, turned ROLL_180: x, -y, -z. */
	struct mag_sample m;
	assert_true(sensors_latest(&n->f.hub, SENSOR_MAG, &m) > 0);
	assert_float_equal(m.field_ut[0], 14.0f, 0.1f);
	assert_float_equal(m.field_ut[1], -28.0f, 0.1f);
	assert_float_equal(m.field_ut[2], 42.0f, 0.1f);

	struct baro_sample b;
	assert_true(sensors_latest(&n->f.hub, SENSOR_BARO, &b) > 0);
	assert_float_equal(b.pressure_pa, 100009.0f, 30.0f);

	/* Battery from ADC ch2 and ch3 in millivolts: 11.3 V/V and 17 A/V. */
	struct battery_sample bat;
	assert_true(sensors_latest(&n->f.hub, SENSOR_BATTERY, &bat) > 0);
	assert_float_equal(bat.voltage_v, 11.3f, 0.01f);
	assert_float_equal(bat.current_a, 8.5f, 0.01f);

	/* RC: the eight widths, in order, as one frame of the co-processor's. */
	struct rc_frame f;
	assert_true(rc_gen(n, &f) > 0);
	assert_int_equal(f.channel_count, 8);
	assert_int_equal(f.protocol, RC_PROTOCOL_RCIO);
	assert_false(f.failsafe);
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(f.channels_us[i], sticks[i]);
	assert_true(f.timestamp_us <= n->f.now_us && f.timestamp_us + 20000 >= n->f.now_us);
	assert_true(rc_stats(n)->frames >= 49);
	assert_true(rc_healthy(n));
}

/* ---- servo outputs ---- */

static void test_board_io_navio2_outputs_are_written_and_refreshed_from_the_main_thread(void **state)
{
	struct navio2 *n = *state;
	struct rcout *out = board_io_rcout(&n->f.bio);
	const struct rcout_pwm_sysfs_stats *st = rcout_pwm_sysfs_stats(out);

	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 13, 1100), 0);
	assert_string_equal(got(n, "pwmchip0/pwm0/duty_cycle"), "1500000");
	assert_string_equal(got(n, "pwmchip0/pwm13/duty_cycle"), "1100000");

	/*
	 * Nothing written by the flight code for a while: the pwm-refresh task
	 * rewrites every width (the rcio module stops forwarding them after
	 * 100 ms without a write). Blank the files to see the rewrite.
	 */
	uint64_t refreshes = st->refreshes;
	put(n, "pwmchip0/pwm0/duty_cycle", "0\n");
	put(n, "pwmchip0/pwm13/duty_cycle", "0\n");
	bio_run(&n->f, RCOUT_PWM_SYSFS_REFRESH_US / 1000u * 1000u + 10000u);
	assert_string_equal(got(n, "pwmchip0/pwm0/duty_cycle"), "1500000");
	assert_string_equal(got(n, "pwmchip0/pwm13/duty_cycle"), "1100000");
	assert_true(st->refreshes > refreshes);
	/* Over a second: at least every RCOUT_PWM_SYSFS_REFRESH_US. */
	refreshes = st->refreshes;
	bio_run(&n->f, 1000000);
	assert_true(st->refreshes - refreshes >= 1000000u / RCOUT_PWM_SYSFS_REFRESH_US - 1u);
	assert_int_equal(st->write_errors, 0);
	assert_true(bio_status(&n->f, "pwm", "PWM-class servo outputs", 0).healthy);

	/* Closing: every output to width 0 and disabled. */
	board_io_close(&n->f.bio);
	assert_string_equal(got(n, "pwmchip0/pwm0/duty_cycle"), "0");
	assert_string_equal(got(n, "pwmchip0/pwm0/enable"), "0");
}

/* ---- RC input: bad input never becomes a frame ---- */

/*
 * Frames flow; then bad(n) spoils the input: from the next read on no frame
 * is published, the read is counted under why and as an error of the slot,
 * the receiver goes unhealthy (what the RC failsafe sees: frames stop);
 * good(n) mends it and frames flow again.
 */
static void expect_no_frames(struct navio2 *n, void (*bad)(struct navio2 *),
			     void (*good)(struct navio2 *), enum rcio_rc_fault why)
{
	struct rc_frame f;

	bio_run(&n->f, 100000);
	assert_true(rc_healthy(n));
	assert_int_equal(rc_stats(n)->fault, RCIO_RC_OK);
	uint64_t errors = bio_status(&n->f, "rcin", "RCIO RC input", 0).errors;
	uint64_t faults = rc_stats(n)->faults[why];

	bad(n);
	bio_run(&n->f, 25000);          /* the io thread's next read (50 Hz) */
	uint32_t gen = rc_gen(n, &f);
	bio_run(&n->f, 600000);
	assert_int_equal(rc_gen(n, &f), gen);
	assert_int_equal(rc_stats(n)->fault, why);
	assert_true(rc_stats(n)->faults[why] - faults >= 30);
	assert_true(bio_status(&n->f, "rcin", "RCIO RC input", 0).errors - errors >= 30);
	assert_false(rc_healthy(n));

	good(n);
	bio_run(&n->f, 100000);
	assert_true(rc_gen(n, &f) > gen);
	assert_int_equal(rc_stats(n)->fault, RCIO_RC_OK);
	assert_true(rc_healthy(n));
	for (unsigned int i = 0; i < 8; i++)
		assert_in_range(f.channels_us[i], RC_CHANNEL_MIN_US, RC_CHANNEL_MAX_US);
}

static void sticks_back(struct navio2 *n)
{
	for (unsigned int ch = 0; ch < 8; ch++)
		set_stick(n, ch, sticks[ch]);
}

static void garbage_word(struct navio2 *n) { put(n, "rcio/rcin/ch3", "abc\n"); }
static void garbage_tail(struct navio2 *n) { put(n, "rcio/rcin/ch3", "1500us\n"); }
static void garbage_empty(struct navio2 *n) { put(n, "rcio/rcin/ch3", ""); }
static void too_wide(struct navio2 *n) { set_stick(n, 1, 3000); }
static void too_narrow(struct navio2 *n) { set_stick(n, 1, 700); }
static void negative(struct navio2 *n) { set_stick(n, 1, -1500); }
static void gap(struct navio2 *n) { set_stick(n, 4, 0); }

static void file_gone(struct navio2 *n)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/rcio/rcin/ch5", n->root);
	assert_int_equal(unlink(p), 0);
}

static void no_signal(struct navio2 *n) { put(n, "rcio/rcin/connected", "0\n"); }
static void signal_back(struct navio2 *n) { put(n, "rcio/rcin/connected", "1\n"); }

/* What the module does when the co-processor reports no RC: connected 0, every width 0. */
static void all_zero(struct navio2 *n)
{
	for (unsigned int ch = 0; ch < 16; ch++)
		set_stick(n, ch, 0);
}

static void dead(struct navio2 *n) { put(n, "rcio/status/alive", "0\n"); }
static void alive(struct navio2 *n) { put(n, "rcio/status/alive", "1\n"); }
static void alive_garbage(struct navio2 *n) { put(n, "rcio/status/alive", "yes\n"); }

static void test_board_io_navio2_rc_garbage_is_no_frame(void **state)
{
	struct navio2 *n = *state;

	expect_no_frames(n, garbage_word, sticks_back, RCIO_RC_GARBAGE);
	expect_no_frames(n, garbage_tail, sticks_back, RCIO_RC_GARBAGE);
	expect_no_frames(n, garbage_empty, sticks_back, RCIO_RC_GARBAGE);
	expect_no_frames(n, alive_garbage, alive, RCIO_RC_GARBAGE);
}

static void test_board_io_navio2_rc_width_out_of_range_is_no_frame(void **state)
{
	struct navio2 *n = *state;

	expect_no_frames(n, too_wide, sticks_back, RCIO_RC_RANGE);
	expect_no_frames(n, too_narrow, sticks_back, RCIO_RC_RANGE);
	expect_no_frames(n, negative, sticks_back, RCIO_RC_RANGE);
	expect_no_frames(n, gap, sticks_back, RCIO_RC_RANGE);
}

static void test_board_io_navio2_rc_missing_file_is_no_frame(void **state)
{
	struct navio2 *n = *state;

	expect_no_frames(n, file_gone, sticks_back, RCIO_RC_READ_ERROR);
}

static void test_board_io_navio2_rc_lost_signal_or_dead_co_processor_is_no_frame(void **state)
{
	struct navio2 *n = *state;

	expect_no_frames(n, no_signal, signal_back, RCIO_RC_NO_SIGNAL);
	expect_no_frames(n, all_zero, sticks_back, RCIO_RC_NO_SIGNAL);
	expect_no_frames(n, dead, alive, RCIO_RC_DEAD);
}

/* Widths that stay the same (SBUS with the sticks still, in AUTO) are frames, not a fault. */
static void test_board_io_navio2_rc_still_sticks_are_still_frames(void **state)
{
	struct navio2 *n = *state;
	struct rc_frame f;

	bio_run(&n->f, 100000);
	uint32_t gen = rc_gen(n, &f);
	bio_run(&n->f, 20000000);   /* the same widths for 20 s */
	assert_true(rc_gen(n, &f) > gen + 900);
	assert_int_equal(rc_stats(n)->fault, RCIO_RC_OK);
	assert_true(rc_healthy(n));
}

static void test_board_io_navio2_rc_widths_past_2200_are_clamped_and_unsent_channels_dropped(void **state)
{
	struct navio2 *n = *state;
	struct rc_frame f;

	set_stick(n, 7, 2450);          /* the module passes up to 2500 */
	set_stick(n, 6, 0);             /* a six-channel receiver ... */
	set_stick(n, 7, 0);
	set_stick(n, 5, 2450);
	bio_run(&n->f, 100000);
	assert_true(rc_gen(n, &f) > 0);
	assert_int_equal(f.channel_count, 6);
	assert_int_equal(f.channels_us[5], RC_CHANNEL_MAX_US);
	assert_int_equal(f.channels_us[6], 0);
	set_stick(n, 0, 800);
	bio_run(&n->f, 100000);
	assert_true(rc_gen(n, &f) > 0);
	assert_int_equal(f.channels_us[0], 800);
}

/* ---- battery ---- */

static void test_board_io_navio2_battery_garbage_is_no_sample(void **state)
{
	struct navio2 *n = *state;
	struct battery_sample b;

	bio_run(&n->f, 300000);
	assert_true(sensors_latest(&n->f.hub, SENSOR_BATTERY, &b) > 0);
	put(n, "rcio/adc/ch2", "garbage\n");
	bio_run(&n->f, 150000);
	uint32_t gen = sensors_latest(&n->f.hub, SENSOR_BATTERY, &b);
	uint64_t errors = bio_status(&n->f, "batt_v", "battery voltage", 0).errors;
	bio_run(&n->f, 600000);
	assert_int_equal(sensors_latest(&n->f.hub, SENSOR_BATTERY, &b), gen);
	assert_true(bio_status(&n->f, "batt_v", "battery voltage", 0).errors >= errors + 5);
	assert_true(analog_sysfs_stats(n->batt_v)->garbage >= 6);
	assert_false(bio_status(&n->f, "batt_v", "battery voltage", 0).healthy);
	put(n, "rcio/adc/ch2", "1100\n");
	bio_run(&n->f, 200000);
	assert_true(sensors_latest(&n->f.hub, SENSOR_BATTERY, &b) > gen);
	assert_float_equal(b.voltage_v, 1.1f * 11.3f, 0.01f);
}

/* ---- start-up ---- */

static void test_board_io_navio2_refuses_to_start_without_the_rcio_module_files(void **state)
{
	(void)state;
	struct navio2 *n = navio2_new();
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/rcio/rcin/ch2", n->root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(bio_open(&n->f), -ENOENT);
	assert_non_null(strstr(n->f.err, "rcin/ch2"));
	assert_non_null(strstr(n->f.err, "rcio module"));
	navio2_free(n);
}

static void test_board_io_navio2_refuses_a_pwm_chip_with_too_few_channels(void **state)
{
	(void)state;
	struct navio2 *n = navio2_new();

	putf(n, "pwmchip0/npwm", 8);
	assert_int_equal(bio_open(&n->f), -EINVAL);
	assert_non_null(strstr(n->f.err, "pwm"));
	navio2_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_board_io_navio2_brings_up_every_part_and_its_tasks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_samples_reach_the_hub, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_outputs_are_written_and_refreshed_from_the_main_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_garbage_is_no_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_width_out_of_range_is_no_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_missing_file_is_no_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_lost_signal_or_dead_co_processor_is_no_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_still_sticks_are_still_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_rc_widths_past_2200_are_clamped_and_unsent_channels_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_navio2_battery_garbage_is_no_sample, setup, teardown),
		cmocka_unit_test(test_board_io_navio2_refuses_to_start_without_the_rcio_module_files),
		cmocka_unit_test(test_board_io_navio2_refuses_a_pwm_chip_with_too_few_channels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
