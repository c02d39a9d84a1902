// SPDX-License-Identifier: GPL-3.0-or-later
/* The TFmini frame parser and its uart-thread device against the emulated sensor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_tfmini.h"
#include "drivers/drivers.h"
#include "drivers/tfmini.h"

static struct range_sample published;
static int n_published;

static int host_publish(void *ctx, enum sensor_kind k, const void *s)
{
	(void)ctx;
	assert_int_equal(k, SENSOR_RANGE);
	published = *(const struct range_sample *)s;
	n_published++;
	return 0;
}

struct fixture {
	struct emul_tfmini tf;
	struct drv_host host;
	struct drv_slot slot;
	struct board_dev desc;
	struct drv_inst d;
	struct sched_task task[2];
	uint64_t now_us;
	struct tfmini p;
	struct range_sample out;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	emul_tfmini_init(&f->tf);
	f->host.publish = host_publish;
	f->desc = (struct board_dev){ .name = "rngfnd", .kind = BOARD_DEV_UART };
	f->d = (struct drv_inst){ .drv = &tfmini_driver, .desc = &f->desc, .handle = &f->tf.uart,
				  .host = &f->host, .slot = &f->slot,
				  .priv = calloc(1, tfmini_driver.priv_size) };
	assert_non_null(f->d.priv);
	tfmini_init(&f->p);
	f->now_us = 1000000;
	f->tf.next_us = f->now_us;
	n_published = 0;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	free(f->d.priv);
	free(f);
	return 0;
}

static void start(struct fixture *f)
{
	char err[96];
	assert_int_equal(tfmini_driver.probe(&f->d, err, sizeof(err)), 0);
	int rc = 0;
	for (int i = 0; i < 10 && rc == 0; i++) {
		f->now_us += 10000;
		emul_tfmini_advance(&f->tf, f->now_us);
		rc = tfmini_driver.setup(&f->d, f->now_us);
	}
	assert_int_equal(rc, 1);
	assert_int_equal(tfmini_driver.tasks(&f->d, f->task), 1);
	assert_int_equal(f->task[0].thread, SCHED_UART);
}

/* The uart thread's 100 Hz for run_us. */
static void run(struct fixture *f, uint64_t run_us)
{
	for (uint64_t t = 0; t < run_us; t += 10000) {
		f->now_us += 10000;
		emul_tfmini_advance(&f->tf, f->now_us);
		f->task[0].run(f->task[0].ctx, f->now_us);
	}
}

static void test_tfmini_frames_give_distances_in_metres(void **state)
{
	struct fixture *f = *state;
	f->tf.distance_cm = 0x01f4;  /* 500 cm, little-endian on the wire */
	start(f);
	run(f, 1000000);
	assert_in_range(n_published, 99, 101);
	assert_int_equal(published.reading, RANGE_READING_OK);
	assert_float_equal(published.distance_m, 5.0f, 1e-5f);
	assert_int_equal(published.raw, 500);
	assert_int_equal(atomic_load(&f->slot.errors), 0);
	assert_true(atomic_load(&f->slot.running));
	assert_int_equal(tfmini_driver.bits, 0x100);
}

static void test_tfmini_checksum_is_the_low_byte_of_the_sum(void **state)
{
	struct fixture *f = *state;
	/* 59 59 2c 01 c8 00 07 00: 0x59+0x59+0x2c+0x01+0xc8+0x07 = 0x1ae, checksum 0xae */
	const uint8_t frame[9] = { 0x59, 0x59, 0x2c, 0x01, 0xc8, 0x00, 0x07, 0x00, 0xae };
	assert_int_equal(tfmini_feed(&f->p, frame, 9, 7, &f->out), 1);
	assert_float_equal(f->out.distance_m, 3.0f, 1e-5f);
	assert_int_equal(f->out.t_us, 7);
	uint8_t bad[9];
	memcpy(bad, frame, 9);
	bad[8] ^= 1;
	assert_int_equal(tfmini_feed(&f->p, bad, 9, 8, &f->out), 0);
	assert_int_equal(tfmini_stats(&f->p)->bad_checksum, 1);
	assert_int_equal(f->out.t_us, 7);   /* untouched */
}

static void test_tfmini_weak_or_saturated_signal_gives_no_distance(void **state)
{
	struct fixture *f = *state;
	const uint16_t strengths[] = { 0, 19, 65535 };
	for (size_t i = 0; i < 3; i++) {
		struct emul_tfmini *e = &f->tf;
		e->out_len = 0;
		emul_tfmini_frame(e, 321, strengths[i], 0);
		f->out.distance_m = -1.0f;
		assert_int_equal(tfmini_feed(&f->p, e->out, e->out_len, 1, &f->out), 1);
		assert_int_equal(f->out.reading, RANGE_READING_NO_RETURN);
		assert_true(f->out.distance_m == 0.0f);
	}
	f->tf.out_len = 0;
	emul_tfmini_frame(&f->tf, 0xffff, 500, 0);   /* the manual's "unreliable" distance */
	assert_int_equal(tfmini_feed(&f->p, f->tf.out, f->tf.out_len, 1, &f->out), 1);
	assert_int_equal(f->out.reading, RANGE_READING_NO_RETURN);
	f->tf.out_len = 0;
	emul_tfmini_frame(&f->tf, 20, 20, 0);         /* strength 20: reliable */
	assert_int_equal(tfmini_feed(&f->p, f->tf.out, f->tf.out_len, 1, &f->out), 1);
	assert_int_equal(f->out.reading, RANGE_READING_OK);
	assert_int_equal(tfmini_stats(&f->p)->no_return, 4);
}

static void test_tfmini_garbage_and_bad_checksums_are_counted_never_published(void **state)
{
	struct fixture *f = *state;
	start(f);
	run(f, 100000);
	int before = n_published;
	f->tf.silent = true;
	const uint8_t junk[] = { 0x00, 0x59, 0x13, 0xff, 0x59, 0x59, 0x59, 0x01, 0x02 };
	emul_tfmini_inject(&f->tf, junk, sizeof(junk));
	emul_tfmini_frame(&f->tf, 1, 400, 3);         /* bad checksum */
	emul_tfmini_frame(&f->tf, 5000, 400, 0);      /* 50 m: no TFmini sends that */
	uint8_t noise[200];
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)(i * 37u + 11u);
	emul_tfmini_inject(&f->tf, noise, sizeof(noise));
	run(f, 100000);
	assert_int_equal(n_published, before);
	assert_true(atomic_load(&f->slot.errors) >= 2);
	assert_float_equal(published.distance_m, 2.5f, 1e-5f);
	/* frames again: found in the stream after the noise */
	f->tf.silent = false;
	f->tf.distance_cm = 260;
	run(f, 100000);
	assert_true(n_published > before);
	assert_float_equal(published.distance_m, 2.6f, 1e-5f);
}

static void test_tfmini_frame_found_inside_a_broken_one(void **state)
{
	struct fixture *f = *state;
	/* a frame cut short by a new one: 59 59 65 00 | 59 59 c8 00 90 01 07 00 cs */
	uint8_t b[4 + 9] = { 0x59, 0x59, 0x65, 0x00 };
	f->tf.out_len = 0;
	emul_tfmini_frame(&f->tf, 200, 400, 0);
	memcpy(b + 4, f->tf.out, 9);
	assert_int_equal(tfmini_feed(&f->p, b, sizeof(b), 1, &f->out), 1);
	assert_float_equal(f->out.distance_m, 2.0f, 1e-5f);
	assert_int_equal(tfmini_stats(&f->p)->bad_checksum, 1);
}

/* Bytes split anywhere between reads still make whole frames. */
static void test_tfmini_frames_split_across_reads(void **state)
{
	struct fixture *f = *state;
	f->tf.out_len = 0;
	for (int i = 0; i < 5; i++)
		emul_tfmini_frame(&f->tf, (uint16_t)(100 + i), 400, 0);
	size_t got = 0;
	for (size_t i = 0; i < f->tf.out_len; i += 4) {
		size_t n = f->tf.out_len - i < 4 ? f->tf.out_len - i : 4;
		got += tfmini_feed(&f->p, f->tf.out + i, n, 1, &f->out);
	}
	assert_int_equal(got, 5);
	assert_int_equal(f->out.raw, 104);
	assert_int_equal(tfmini_stats(&f->p)->garbage, 0);
}

/* The device passes a stuck sensor's distance on with its raw value: the
 * rangefinder's state (src/vehicle/rangefinder.h) judges it stuck. */
static void test_tfmini_passes_a_stuck_distance_on_unchanged(void **state)
{
	struct fixture *f = *state;
	f->tf.distance_cm = 333;
	start(f);
	run(f, 500000);
	assert_int_equal(published.raw, 333);
	assert_int_equal(published.t_us, f->now_us);
}

static void test_tfmini_that_sends_nothing_is_no_device(void **state)
{
	struct fixture *f = *state;
	f->tf.silent = true;
	char err[96];
	assert_int_equal(tfmini_driver.probe(&f->d, err, sizeof(err)), 0);
	int rc = 0;
	for (int i = 0; i < 400 && rc == 0; i++) {
		f->now_us += 10000;
		emul_tfmini_advance(&f->tf, f->now_us);
		rc = tfmini_driver.setup(&f->d, f->now_us);
	}
	assert_int_equal(rc, -ENODEV);
	tfmini_driver.setup_detail(&f->d, err, sizeof(err));
	assert_string_equal(err, " (no good frame at 115200 baud)");
	assert_int_equal(n_published, 0);
}

static void test_tfmini_that_falls_silent_stops_publishing(void **state)
{
	struct fixture *f = *state;
	start(f);
	run(f, 200000);
	int before = n_published;
	f->tf.silent = true;
	run(f, 1000000);
	assert_int_equal(n_published, before);
	/* its health slot goes stale (board_io: no sample for DRV_SLOW_STALE_US) */
	assert_true(f->now_us - atomic_load(&f->slot.last_ok_us) > DRV_SLOW_STALE_US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tfmini_frames_give_distances_in_metres, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_checksum_is_the_low_byte_of_the_sum, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_weak_or_saturated_signal_gives_no_distance, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_garbage_and_bad_checksums_are_counted_never_published, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_frame_found_inside_a_broken_one, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_frames_split_across_reads, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_passes_a_stuck_distance_on_unchanged, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_that_sends_nothing_is_no_device, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tfmini_that_falls_silent_stops_publishing, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
