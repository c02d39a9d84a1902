// SPDX-License-Identifier: GPL-3.0-or-later
/* The general PID (control/pid.h) against values worked by hand at 400 Hz:
 * each term, each of the three filters, the integrator's limit and its
 * behaviour on saturation, relaxing, the restart without a kick, and inputs
 * that are not numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "control/pid.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

#define DT 0.0025f
/* dt / (dt + 1 / (2 pi f)) at 400 Hz, worked out by hand:
 * 20 Hz: 0.0025 / (0.0025 + 0.00795775) = 0.2390572
 * 2.5 Hz: 0.0025 / (0.0025 + 0.06366198) = 0.0377859 */
#define A20 0.2390572
#define A2_5 0.0377859

static struct ctl_pid_params only(float kp, float ki, float kd, float ff)
{
	struct ctl_pid_params p;
	memset(&p, 0, sizeof(p));
	p.p = kp;
	p.i = ki;
	p.d = kd;
	p.ff = ff;
	p.imax = 1.0f;
	return p;
}

static void test_pid_lowpass_alpha_matches_the_rc_formula(void **state)
{
	(void)state;
	assert_near(ctl_lowpass_alpha(DT, 20.0f), A20, 1e-6);
	assert_near(ctl_lowpass_alpha(DT, 2.5f), A2_5, 1e-6);
	assert_near(ctl_lowpass_alpha(DT, 0.0f), 1.0, 0.0);
	assert_near(ctl_lowpass_alpha(DT, NAN), 1.0, 0.0);
	assert_near(ctl_lowpass_alpha(0.0f, 20.0f), 0.0, 0.0);
	assert_near(ctl_lowpass_alpha(NAN, 20.0f), 0.0, 0.0);
}

static void test_pid_p_term_is_gain_times_error(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.5f, 0.0f, 0.0f, 0.0f);
	assert_near(ctl_pid_update(&c, &p, 2.0f, 0.5f, DT, false), 0.75, 1e-6);
	assert_near(c.last.p, 0.75, 1e-6);
	assert_near(ctl_pid_update(&c, &p, -1.0f, 0.5f, DT, false), -0.75, 1e-6);
	assert_near(c.last.i, 0.0, 0.0);
	assert_near(c.last.d, 0.0, 0.0);
	assert_near(c.last.ff, 0.0, 0.0);
}

static void test_pid_ff_term_follows_the_target_filter(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.0f, 0.0f, 0.0f, 0.2f);
	p.fltt_hz = 20.0f;
	/* the first update takes its target as it is */
	ctl_pid_update(&c, &p, 0.0f, 0.0f, DT, false);
	/* then a unit step: 1 - (1 - a)^n of it after n steps */
	assert_near(ctl_pid_update(&c, &p, 1.0f, 0.0f, DT, false), 0.2 * A20, 1e-6);
	assert_near(c.target, A20, 1e-6);
	assert_near(ctl_pid_update(&c, &p, 1.0f, 0.0f, DT, false),
		    0.2 * (1.0 - (1.0 - A20) * (1.0 - A20)), 1e-6);
	/* and the P term sees the filtered target too */
	struct ctl_pid c2;
	ctl_pid_init(&c2);
	struct ctl_pid_params p2 = only(1.0f, 0.0f, 0.0f, 0.0f);
	p2.fltt_hz = 20.0f;
	ctl_pid_update(&c2, &p2, 0.0f, 0.0f, DT, false);
	assert_near(ctl_pid_update(&c2, &p2, 1.0f, 0.0f, DT, false), A20, 1e-6);
}

static void test_pid_error_filter_smooths_the_p_term(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.18f, 0.0f, 0.0f, 0.0f);
	p.flte_hz = 2.5f;
	ctl_pid_update(&c, &p, 0.0f, 0.0f, DT, false);
	assert_near(ctl_pid_update(&c, &p, 1.0f, 0.0f, DT, false), 0.18 * A2_5, 1e-6);
	double e = A2_5;
	for (int i = 0; i < 10; i++) {
		e += A2_5 * (1.0 - e);
		ctl_pid_update(&c, &p, 1.0f, 0.0f, DT, false);
	}
	assert_near(c.error, e, 1e-5);
	assert_near(c.last.p, 0.18 * e, 1e-5);
}

static void test_pid_d_term_is_the_filtered_error_rate(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.0f, 0.0f, 0.01f, 0.0f);
	p.fltd_hz = 20.0f;
	ctl_pid_update(&c, &p, 0.0f, 0.0f, DT, false);
	/* error 0 -> 0.1 in one step: 40 per s, filtered: 40 a */
	assert_near(ctl_pid_update(&c, &p, 0.0f, -0.1f, DT, false), 0.01 * 40.0 * A20, 1e-5);
	/* no further change: the filter decays by (1 - a) */
	assert_near(ctl_pid_update(&c, &p, 0.0f, -0.1f, DT, false),
		    0.01 * 40.0 * A20 * (1.0 - A20), 1e-5);
	/* without a D filter the raw rate */
	struct ctl_pid c2;
	ctl_pid_init(&c2);
	struct ctl_pid_params p2 = only(0.0f, 0.0f, 0.01f, 0.0f);
	ctl_pid_update(&c2, &p2, 0.0f, 0.0f, DT, false);
	assert_near(ctl_pid_update(&c2, &p2, 0.0f, -0.1f, DT, false), 0.4, 1e-5);
}

static void test_pid_i_term_integrates_error_within_imax(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.0f, 2.0f, 0.0f, 0.0f);
	p.imax = 0.01f;
	/* 0.1 x 2 x 0.0025 = 0.0005 a step, the first included */
	for (int i = 1; i <= 10; i++)
		assert_near(ctl_pid_update(&c, &p, 0.1f, 0.0f, DT, false), 0.0005 * i, 1e-6);
	for (int i = 0; i < 100; i++)
		ctl_pid_update(&c, &p, 0.1f, 0.0f, DT, false);
	assert_near(c.integrator, 0.01, 1e-7);
	for (int i = 0; i < 100; i++)
		ctl_pid_update(&c, &p, -0.1f, 0.0f, DT, false);
	assert_near(c.integrator, -0.01, 1e-7);
	/* I 0 holds it at 0 */
	p.i = 0.0f;
	ctl_pid_update(&c, &p, -0.1f, 0.0f, DT, false);
	assert_near(c.integrator, 0.0, 0.0);
}

static void test_pid_limit_lets_the_integrator_shrink_but_not_grow(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.0f, 2.0f, 0.0f, 0.0f);
	for (int i = 0; i < 20; i++)
		ctl_pid_update(&c, &p, 0.1f, 0.0f, DT, false);
	assert_near(c.integrator, 0.01, 1e-6);
	/* saturated, the error still asking for more: held */
	for (int i = 0; i < 20; i++)
		ctl_pid_update(&c, &p, 0.1f, 0.0f, DT, true);
	assert_near(c.integrator, 0.01, 1e-6);
	/* saturated, the error asking for less: allowed */
	ctl_pid_update(&c, &p, -0.1f, 0.0f, DT, true);
	assert_near(c.integrator, 0.0095, 1e-6);
	/* from zero, saturated: stays zero whichever way the error is */
	struct ctl_pid z;
	ctl_pid_init(&z);
	ctl_pid_update(&z, &p, 0.1f, 0.0f, DT, true);
	ctl_pid_update(&z, &p, -0.1f, 0.0f, DT, true);
	assert_near(z.integrator, 0.0, 0.0);
}

static void test_pid_relax_decays_with_its_time_constant(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	c.integrator = 0.4f;
	for (int i = 0; i < 200; i++)
		ctl_pid_relax_integrator(&c, 0.0f, DT, 0.16f);
	/* 0.4 exp(-0.5 / 0.16) */
	assert_near(c.integrator, 0.4 * exp(-0.5 / 0.16), 1e-5);
	ctl_pid_relax_integrator(&c, 0.0f, DT, 0.0f);
	assert_near(c.integrator, 0.0, 0.0);
}

static void test_pid_restart_takes_inputs_without_a_kick(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.1f, 0.0f, 0.01f, 0.0f);
	p.fltt_hz = 20.0f;
	p.fltd_hz = 20.0f;
	ctl_pid_update(&c, &p, 0.0f, 0.0f, DT, false);
	ctl_pid_reset_filters(&c);
	/* after a reset a large target is taken as it is, and no derivative */
	assert_near(ctl_pid_update(&c, &p, 3.0f, 1.0f, DT, false), 0.2, 1e-6);
	assert_near(c.last.d, 0.0, 0.0);
	assert_false(c.reset);
}

static void test_pid_nonfinite_inputs_change_nothing(void **state)
{
	(void)state;
	struct ctl_pid c;
	ctl_pid_init(&c);
	struct ctl_pid_params p = only(0.1f, 1.0f, 0.01f, 0.1f);
	for (int i = 0; i < 10; i++)
		ctl_pid_update(&c, &p, 0.5f, 0.0f, DT, false);
	struct ctl_pid before = c;
	assert_near(ctl_pid_update(&c, &p, NAN, 0.0f, DT, false), 0.0, 0.0);
	assert_near(ctl_pid_update(&c, &p, 0.5f, INFINITY, DT, false), 0.0, 0.0);
	assert_memory_equal(&before, &c, sizeof(c));
	/* no time passing: nothing filtered or integrated */
	float out = ctl_pid_update(&c, &p, 0.5f, 0.0f, 0.0f, false);
	assert_near(c.integrator, before.integrator, 0.0);
	assert_near(c.target, before.target, 0.0);
	assert_true(isfinite(out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_lowpass_alpha_matches_the_rc_formula),
		cmocka_unit_test(test_pid_p_term_is_gain_times_error),
		cmocka_unit_test(test_pid_ff_term_follows_the_target_filter),
		cmocka_unit_test(test_pid_error_filter_smooths_the_p_term),
		cmocka_unit_test(test_pid_d_term_is_the_filtered_error_rate),
		cmocka_unit_test(test_pid_i_term_integrates_error_within_imax),
		cmocka_unit_test(test_pid_limit_lets_the_integrator_shrink_but_not_grow),
		cmocka_unit_test(test_pid_relax_decays_with_its_time_constant),
		cmocka_unit_test(test_pid_restart_takes_inputs_without_a_kick),
		cmocka_unit_test(test_pid_nonfinite_inputs_change_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
