// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "estim/vibe.h"

/* Feeds seconds s at 1 kHz of g on z plus a sine of amplitude amp at hz on x. */
static void feed(struct vibe *v, double s, float amp, float hz)
{
	for (int i = 0; i < (int)(s * 1000); i++) {
		float t = i * 1e-3f;
		float a[3] = { amp * sinf(2.0f * 3.14159265f * hz * t), 0.0f, -9.80665f };
		vibe_push(v, 1000000 + (uint64_t)i * 1000, a);
	}
}

static void test_still_is_zero(void **state)
{
	struct vibe v;
	float o[3];
	vibe_init(&v);
	assert_false(vibe_get(&v, o));
	feed(&v, 5, 0.0f, 0.0f);
	assert_true(vibe_get(&v, o));
	assert_true(o[0] < 1e-3f && o[1] < 1e-3f && o[2] < 1e-3f);
	assert_int_equal(v.clipped, 0);
}

static void test_fast_shaking_reads_its_rms(void **state)
{
	struct vibe v;
	float o[3];
	vibe_init(&v);
	/* 80 Hz, 10 m/s^2 peak: far above the 5 Hz floor, so the RMS, 7.07. */
	feed(&v, 5, 10.0f, 80.0f);
	vibe_get(&v, o);
	assert_true(fabsf(o[0] - 7.07f) < 0.5f);
	assert_true(o[2] < 1e-3f);
}

static void test_slow_motion_is_not_vibration(void **state)
{
	struct vibe v;
	float o[3];
	vibe_init(&v);
	/* 0.2 Hz manoeuvring, 10 m/s^2: the floor follows it. */
	feed(&v, 20, 10.0f, 0.2f);
	vibe_get(&v, o);
	assert_true(o[0] < 0.5f);
}

static void test_clipping_counted_and_nan_skipped(void **state)
{
	struct vibe v;
	vibe_init(&v);
	float clip[3] = { 0, 0, -VIBE_CLIP_M_S2 }, ok[3] = { 0, 0, -9.8f }, bad[3] = { NAN, 0, 0 };
	vibe_push(&v, 1000, ok);
	vibe_push(&v, 2000, clip);
	vibe_push(&v, 3000, clip);
	vibe_push(&v, 4000, bad);
	assert_int_equal(v.clipped, 2);
	assert_int_equal(v.samples, 3);
	float o[3];
	vibe_get(&v, o);
	assert_true(isfinite(o[0]) && isfinite(o[2]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_still_is_zero),
		cmocka_unit_test(test_fast_shaking_reads_its_rms),
		cmocka_unit_test(test_slow_motion_is_not_vibration),
		cmocka_unit_test(test_clipping_counted_and_nan_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
