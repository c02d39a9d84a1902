// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The buzzer's tunes, on a board of the test's own (a buzzer on a GPIO line,
 * nothing else), played by board_io's tone task from what the sensor hub and
 * the arming state say. The line is an emulated GPIO output; the test reads
 * its level every 10 ms as the tone thread runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_gpio.h"
#include "param/param.h"
#include "drivers/buzzer.h"
#include "drivers/drivers.h"
#include "test_board_io_harness.h"

static const struct board_dev devs[] = {
	{
		.name = "buzzer", .what = "buzzer on a GPIO line", .kind = BOARD_DEV_GPIO,
		.driver = &buzzer_driver,
		.u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 5, .dir = GPIO_DIR_OUTPUT } },
	},
};

static const struct board tone_board = {
	.name = "tone-test", .description = "a buzzer", .devs = devs, .n_devs = 1,
	.imu_rate_hz = 1000, .main_rate_hz = 400,
};

const struct board *board_get(void)
{
	return &tone_board;
}

struct tone_fix {
	struct bio_fixture f;
	struct emul_gpio buzzer;
	char trace[2048];            /* the line every 10 ms: '#' on, '.' off */
	size_t n;
};

static bool armed;

static bool test_armed(void)
{
	return armed;
}

static void advance(void *ctx, uint64_t now_us)
{
	(void)ctx;
	(void)now_us;
}

static void *handle(void *ctx, const char *name)
{
	struct tone_fix *t = ctx;
	return strcmp(name, "buzzer") == 0 ? &t->buzzer.line : NULL;
}

static int setup(void **state)
{
	struct tone_fix *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	emul_gpio_init(&t->buzzer);
	armed = false;
	t->f.now_us = 10000000;
	t->f.advance = advance;
	t->f.ctx = t;
	bio_devices(&t->f, handle, t);
	assert_int_equal(bio_open(&t->f), 0);
	board_io_set_armed_source(&t->f.bio, test_armed);
	assert_true(bio_has_task(&t->f, "buzzer"));
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tone_fix *t = *state;

	board_io_close(&t->f.bio);
	assert_int_equal(t->buzzer.value, 0);
	free(t);
	return 0;
}

/* Runs ms milliseconds, appending the buzzer's level every 10 ms to the trace. */
static const char *play(struct tone_fix *t, unsigned int ms)
{
	size_t from = t->n;
	for (unsigned int i = 0; i < ms / 10; i++) {
		bio_run(&t->f, 10000);
		assert_true(t->n < sizeof(t->trace) - 1);
		t->trace[t->n++] = t->buzzer.value == 1 ? '#' : '.';
	}
	t->trace[t->n] = '\0';
	return &t->trace[from];
}

static void test_board_io_tone_plays_startup_then_arm_and_disarm(void **state)
{
	struct tone_fix *t = *state;

	/* 100 on, 50 off, 100 on, 50 off, 300 on. */
	assert_string_equal(play(t, 800), "##########.....##########.....##############################"
					  "....................");
	armed = true;
	assert_string_equal(play(t, 600), "##################################################..........");
	armed = false;
	assert_string_equal(play(t, 400), "##########..........##########..........");
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_ARM], 1);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_DISARM], 1);
}

static void test_board_io_tone_repeats_failsafe_while_rc_is_lost(void **state)
{
	struct tone_fix *t = *state;

	play(t, 1000);
	struct rc_frame fr = { .timestamp_us = t->f.now_us, .channel_count = 4,
			       .channels_us = { 1500, 1500, 1000, 1500 }, .protocol = RC_PROTOCOL_PPM };
	assert_int_equal(sensors_publish_rc(&t->f.hub, &fr), 0);
	/* Frames stop: silent until 1.5 s have passed, then 200/200 x3 every 2 s. */
	const char *s = play(t, 1500);
	assert_null(strchr(s, '#'));
	play(t, 4500);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_FAILSAFE], 3);
	/* Frames again: no more. */
	fr.timestamp_us = t->f.now_us;
	assert_int_equal(sensors_publish_rc(&t->f.hub, &fr), 0);
	play(t, 1100);
	for (int i = 0; i < 8; i++) {
		fr.timestamp_us = t->f.now_us;
		sensors_publish_rc(&t->f.hub, &fr);
		play(t, 500);
	}
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_FAILSAFE], 3);
	/* A receiver that says failsafe while its frames come. */
	fr.failsafe = true;
	fr.timestamp_us = t->f.now_us;
	sensors_publish_rc(&t->f.hub, &fr);
	play(t, 100);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_FAILSAFE], 4);
}

static void test_board_io_tone_warns_of_a_battery_low_for_three_seconds(void **state)
{
	struct tone_fix *t = *state;
	struct battery_sample b = { .voltage_v = 10.2f, .current_a = NAN, .consumed_mah = NAN };

	play(t, 1000);
	assert_int_equal(param_set(param_find("FS_BATT_VOLTAGE"), 10.5f), 0);
	b.t_us = t->f.now_us;
	assert_int_equal(sensors_publish_battery(&t->f.hub, &b), 0);
	assert_null(strchr(play(t, 2900), '#'));
	play(t, 200);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_LOW_BATTERY], 1);
	play(t, 5000);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_LOW_BATTERY], 2);
	b.voltage_v = 11.5f;
	sensors_publish_battery(&t->f.hub, &b);
	play(t, 6000);
	assert_int_equal(buzzer_of(board_io_instance(&t->f.bio, "buzzer"))->plays[BUZZER_TUNE_LOW_BATTERY], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_board_io_tone_plays_startup_then_arm_and_disarm,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_io_tone_repeats_failsafe_while_rc_is_lost,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_board_io_tone_warns_of_a_battery_low_for_three_seconds, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
