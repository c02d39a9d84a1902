// SPDX-License-Identifier: GPL-3.0-or-later
/* The sensor hub: what it refuses, what it passes on, and how it paces main. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "daemon/sensors.h"

static struct sensor_hub hub;

static void count_pace(void *ctx)
{
	(*(unsigned int *)ctx)++;
}

static struct imu_sample imu_at(uint64_t t_us)
{
	return (struct imu_sample){ .t_us = t_us, .accel_m_s2 = { 0, 0, -9.8f },
				    .gyro_rad_s = { 0.01f, 0, 0 }, .temp_c = 30 };
}

static void test_sensors_pace_main_evenly_at_its_rate(void **state)
{
	unsigned int paces = 0;
	sensors_init(&hub, 1000, 400, count_pace, &paces);
	unsigned int at[8], n = 0;
	for (unsigned int i = 1; i <= 1000; i++) {
		struct imu_sample s = imu_at(i * 1000u);
		unsigned int before = paces;
		assert_int_equal(sensors_push_imu(&hub, &s), 0);
		if (paces != before && n < 8)
			at[n++] = i;
		struct imu_sample out;
		assert_int_equal(sensors_read_imu(&hub, &out, 1), 1);
		assert_int_equal(out.t_us, s.t_us);
	}
	assert_int_equal(paces, 400);
	/* 2.5 samples per loop: gaps of 2 and 3 alternate, never 1 or 4. */
	for (unsigned int i = 1; i < n; i++)
		assert_true(at[i] - at[i - 1] == 2 || at[i] - at[i - 1] == 3);
	assert_int_equal(sensors_accepted(&hub, SENSOR_IMU), 1000);
}

/* Paced by the stamps, not by counting: at any IMU rate main wakes at its own
 * rate, or with every sample of an IMU slower than it. */
static void test_sensors_pace_main_by_time_at_any_imu_rate(void **state)
{
	static const struct { uint32_t imu_hz, want; } runs[] = {
		{ 50, 50 }, { 100, 100 }, { 250, 250 }, { 400, 400 }, { 2000, 400 },
	};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		unsigned int paces = 0;
		sensors_init(&hub, 1000, 400, count_pace, &paces);
		uint64_t step = 1000000u / runs[r].imu_hz;
		for (uint64_t t = step; t <= 1000000u; t += step) {
			struct imu_sample s = imu_at(t), out;
			assert_int_equal(sensors_push_imu(&hub, &s), 0);
			assert_int_equal(sensors_read_imu(&hub, &out, 1), 1);
		}
		assert_int_equal(paces, runs[r].want);
	}
	/* A stall: the sample after it wakes main once, not once per period missed. */
	unsigned int paces = 0;
	sensors_init(&hub, 1000, 400, count_pace, &paces);
	struct imu_sample s = imu_at(1000), out;
	sensors_push_imu(&hub, &s);
	s = imu_at(501000);
	sensors_push_imu(&hub, &s);
	s = imu_at(502000);
	sensors_push_imu(&hub, &s);
	assert_int_equal(sensors_read_imu(&hub, &out, 1), 1);
	assert_int_equal(paces, 1);
}

/* The samples' clock: CLOCK_MONOTONIC until a source publishes its own, then
 * the last step's stamp and source time, run on by the time since it came. */
static void test_sensors_clock_is_monotonic_time_or_the_sources(void **state)
{
	sensors_init(&hub, 1000, 400, NULL, NULL);
	uint64_t t, src;
	sensors_now(&hub, 5000000, &t, &src);
	assert_int_equal(t, 5000000);
	assert_int_equal(src, 5000000);
	sensors_publish_clock(&hub, &(struct sensor_clock){ .t_us = 4900000, .source_us = 12000,
							   .arrival_us = 4990000 });
	sensors_now(&hub, 5000000, &t, &src);
	assert_int_equal(t, 4910000);
	assert_int_equal(src, 12000);   /* the simulator's time stands still between its steps */
	/* asked for a moment before the step came: no time has run on */
	sensors_now(&hub, 4980000, &t, &src);
	assert_int_equal(t, 4900000);
	assert_int_equal(src, 12000);
}

static void test_sensors_full_imu_ring_drops_and_counts(void **state)
{
	sensors_init(&hub, 1000, 1000, NULL, NULL);
	for (unsigned int i = 0; i < SENSORS_IMU_RING + 10; i++) {
		struct imu_sample s = imu_at(i);
		assert_int_equal(sensors_push_imu(&hub, &s), 0);
	}
	assert_int_equal(sensors_imu_dropped(&hub), 10);
	struct imu_sample out[SENSORS_IMU_RING];
	assert_int_equal(sensors_read_imu(&hub, out, SENSORS_IMU_RING), SENSORS_IMU_RING);
	/* The oldest are kept: nothing the estimator had is reordered. */
	assert_int_equal(out[0].t_us, 0);
	assert_int_equal(out[SENSORS_IMU_RING - 1].t_us, SENSORS_IMU_RING - 1);
}

static void test_sensors_refuse_what_cannot_be_and_count_it(void **state)
{
	sensors_init(&hub, 1000, 400, NULL, NULL);
	struct imu_sample s = imu_at(1);
	s.gyro_rad_s[2] = NAN;
	assert_int_equal(sensors_push_imu(&hub, &s), -EINVAL);
	s.gyro_rad_s[2] = INFINITY;
	assert_int_equal(sensors_push_imu(&hub, &s), -EINVAL);
	struct imu_sample out;
	assert_int_equal(sensors_read_imu(&hub, &out, 1), 0);
	assert_int_equal(sensors_rejected(&hub, SENSOR_IMU), 2);

	struct baro_sample b = { .t_us = 1, .pressure_pa = 0, .temp_c = 20 };
	assert_int_equal(sensors_publish_baro(&hub, &b), -EINVAL);
	b.pressure_pa = 101325;
	b.temp_c = NAN;
	assert_int_equal(sensors_publish_baro(&hub, &b), -EINVAL);
	assert_int_equal(sensors_latest(&hub, SENSOR_BARO, &b), 0);
	b.temp_c = 20;
	assert_int_equal(sensors_publish_baro(&hub, &b), 0);
	struct baro_sample got;
	assert_int_equal(sensors_latest(&hub, SENSOR_BARO, &got), 1);
	assert_true(got.pressure_pa == 101325.0f);
	assert_int_equal(sensors_rejected(&hub, SENSOR_BARO), 2);

	struct gps_fix g = { .t_us = 1, .fix = GPS_FIX_3D, .num_sv = 9, .lat_deg = -35.36,
			     .lon_deg = 149.16, .alt_msl_m = 584, .h_acc_m = 1, .v_acc_m = 2 };
	g.lat_deg = 135.0;  /* the other side of the world and then some */
	assert_int_equal(sensors_publish_gps(&hub, &g), -EINVAL);
	g.lat_deg = -35.36;
	g.h_acc_m = -1;
	assert_int_equal(sensors_publish_gps(&hub, &g), -EINVAL);
	g.h_acc_m = 1;
	g.vel_ned_m_s[1] = NAN;
	assert_int_equal(sensors_publish_gps(&hub, &g), -EINVAL);
	g.vel_ned_m_s[1] = 0;
	assert_int_equal(sensors_publish_gps(&hub, &g), 0);
	/* No fix: the position is not looked at (receivers fill it with anything). */
	struct gps_fix nofix = { .t_us = 2, .fix = GPS_FIX_NONE, .lat_deg = NAN };
	assert_int_equal(sensors_publish_gps(&hub, &nofix), 0);
	assert_int_equal(sensors_rejected(&hub, SENSOR_GPS), 3);
	assert_int_equal(sensors_accepted(&hub, SENSOR_GPS), 2);

	struct rc_frame r = { .timestamp_us = 1, .channel_count = 8 };
	for (int i = 0; i < 8; i++)
		r.channels_us[i] = 1500;
	r.channels_us[3] = 400;
	assert_int_equal(sensors_publish_rc(&hub, &r), -EINVAL);
	r.channels_us[3] = 1500;
	r.channel_count = 0;
	assert_int_equal(sensors_publish_rc(&hub, &r), -EINVAL);
	r.channel_count = 8;
	assert_int_equal(sensors_publish_rc(&hub, &r), 0);

	struct battery_sample bat = { .t_us = 1, .voltage_v = -3, .current_a = NAN };
	assert_int_equal(sensors_publish_battery(&hub, &bat), -EINVAL);
	bat.voltage_v = 12.4f;
	assert_int_equal(sensors_publish_battery(&hub, &bat), 0);

	struct mag_sample m = { .t_us = 1, .field_ut = { 20, NAN, 40 } };
	assert_int_equal(sensors_publish_mag(&hub, &m), -EINVAL);
	struct airspeed_sample a = { .t_us = 1, .diff_pressure_pa = INFINITY };
	assert_int_equal(sensors_publish_airspeed(&hub, &a), -EINVAL);
}

/* A rangefinder's reading reaches the flight code only when it can be one:
 * a distance with "no return", NaN, a negative or absurd distance are refused. */
static void test_sensors_refuse_rangefinder_readings_that_cannot_be(void **state)
{
	sensors_init(&hub, 1000, 400, NULL, NULL);
	const struct range_sample bad[] = {
		{ .t_us = 1, .distance_m = NAN, .reading = RANGE_READING_OK },
		{ .t_us = 1, .distance_m = -0.5f, .reading = RANGE_READING_OK },
		{ .t_us = 1, .distance_m = 5000.0f, .reading = RANGE_READING_OK },
		{ .t_us = 1, .distance_m = 3.0f, .reading = RANGE_READING_NO_RETURN },
		{ .t_us = 1, .distance_m = 3.0f, .reading = 0 },
		{ .t_us = 1, .distance_m = 3.0f, .reading = RANGE_READING_OK, .quality_pct = 101 },
		{ .t_us = 1, .distance_m = 3.0f, .reading = RANGE_READING_OK, .max_m = INFINITY },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sensors_publish_range(&hub, &bad[i]), -EINVAL);
	assert_int_equal(sensors_rejected(&hub, SENSOR_RANGE), 7);
	struct range_sample got, ok = { .t_us = 2, .distance_m = 3.0f, .quality_pct = -1,
					.reading = RANGE_READING_OK, .raw = 300 };
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &got), 0);
	assert_int_equal(sensors_publish_range(&hub, &ok), 0);
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &got), 1);
	assert_true(got.distance_m == 3.0f && got.raw == 300);
	struct range_sample none = { .t_us = 3, .reading = RANGE_READING_NO_RETURN, .quality_pct = -1 };
	assert_int_equal(sensors_publish_range(&hub, &none), 0);
	assert_string_equal(sensor_kind_name(SENSOR_RANGE), "rangefinder");
}

static void test_sensors_latest_value_has_a_generation(void **state)
{
	sensors_init(&hub, 1000, 400, NULL, NULL);
	struct mag_sample m = { .t_us = 5, .field_ut = { 20, 5, 40 } }, got;
	assert_int_equal(sensors_latest(&hub, SENSOR_MAG, &got), 0);
	sensors_publish_mag(&hub, &m);
	m.t_us = 6;
	sensors_publish_mag(&hub, &m);
	assert_int_equal(sensors_latest(&hub, SENSOR_MAG, &got), 2);
	assert_int_equal(got.t_us, 6);
	assert_string_equal(sensor_kind_name(SENSOR_GPS), "GPS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sensors_pace_main_evenly_at_its_rate),
		cmocka_unit_test(test_sensors_pace_main_by_time_at_any_imu_rate),
		cmocka_unit_test(test_sensors_clock_is_monotonic_time_or_the_sources),
		cmocka_unit_test(test_sensors_full_imu_ring_drops_and_counts),
		cmocka_unit_test(test_sensors_refuse_what_cannot_be_and_count_it),
		cmocka_unit_test(test_sensors_refuse_rangefinder_readings_that_cannot_be),
		cmocka_unit_test(test_sensors_latest_value_has_a_generation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
