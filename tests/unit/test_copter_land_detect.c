// SPDX-License-Identifier: GPL-3.0-or-later
/* The multicopter's land and crash detectors against ArduCopter's rules:
 * the thrust-vector angle, the landed and maybe-landed timing, each
 * criterion restarting the count, take-off, the crash timing and each of
 * its conditions, the throttle-mix choice; closed loops on copter_sim.c: a
 * LAND from 5 m, a slow descent and a hover that must not land, a flip that
 * must disarm and a gusty hover that must not; non-finite inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "copter/land_detect.h"
#include "copter/psc.h"
#include "copter/wpnav.h"
#include "copter_sim.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

#define DT 0.0025               /* 400 Hz */
#define DEG (3.14159265358979 / 180.0)

/* Every landed criterion met: on the ground at zero throttle. */
static struct copter_land_in on_ground(void)
{
	struct copter_land_in in;
	memset(&in, 0, sizeof(in));
	in.armed = true;
	in.spool_unlimited = true;
	in.throttle_lower = true;
	in.throttle_mix_min = true;
	in.throttle_hover = 0.4f;
	in.crash_check_mode = true;
	return in;
}

/* Armed and flying: the detector told of a take-off. */
static void take_off(struct copter_land *ld, const struct copter_land_params *p)
{
	copter_land_init(ld);
	struct copter_land_in in = on_ground();
	in.throttle_lower = false;
	in.throttle = 0.45f;
	copter_land_update(ld, p, &in, DT);
	assert_false(ld->landed);
	assert_false(ld->landed_maybe);
}

/* Steps of `in` until `flag` is set (at most max_steps); the step count. */
static int steps_until(struct copter_land *ld, const struct copter_land_params *p,
		       const struct copter_land_in *in, const bool *flag, int max_steps)
{
	for (int i = 1; i <= max_steps; i++) {
		copter_land_update(ld, p, in, DT);
		if (*flag)
			return i;
	}
	return -1;
}

static void test_copter_thrust_angle_matches_hand_values(void **state)
{
	(void)state;
	assert_near(copter_thrust_angle_rad((float)(30 * DEG), 0, 0, 0), 30 * DEG, 1e-5);
	assert_near(copter_thrust_angle_rad(0, (float)(20 * DEG), 0, (float)(-10 * DEG)), 30 * DEG,
		    1e-5);
	/* acos(cos 30 cos 40) */
	assert_near(copter_thrust_angle_rad((float)(30 * DEG), (float)(40 * DEG), 0, 0),
		    acos(cos(30 * DEG) * cos(40 * DEG)), 1e-5);
	assert_near(copter_thrust_angle_rad((float)(180 * DEG), 0, 0, 0), 180 * DEG, 1e-3);
}

static void test_copter_land_lands_after_one_second_and_maybe_after_a_fifth(void **state)
{
	(void)state;
	struct copter_land_params p;
	copter_land_params_default(&p);
	assert_near(p.fs_crash_check, 1.0, 0);
	struct copter_land ld;
	take_off(&ld, &p);
	struct copter_land_in in = on_ground();
	int maybe = steps_until(&ld, &p, &in, &ld.landed_maybe, 1000);
	assert_false(ld.landed);
	int landed = steps_until(&ld, &p, &in, &ld.landed, 1000) + maybe;
	printf("maybe landed after %.4f s, landed after %.4f s\n", maybe * DT, landed * DT);
	/* LAND_DETECTOR_MAYBE_TRIGGER_SEC and _TRIGGER_SEC, give or take a step
	 * of rounding and the step ArduCopter takes to set the flag */
	assert_true(maybe * DT >= 0.2 - DT && maybe * DT <= 0.2 + 2 * DT);
	assert_true(landed * DT >= 1.0 && landed * DT <= 1.0 + 2 * DT);
	assert_true(ld.landed_maybe);

	/* disarmed is landed at once */
	take_off(&ld, &p);
	in.armed = false;
	in.throttle_lower = false;
	copter_land_update(&ld, &p, &in, DT);
	assert_true(ld.landed && ld.landed_maybe);

	/* landed, it takes off only spooled up past half MOT_THST_HOVER */
	in = on_ground();
	in.throttle_lower = false;
	in.throttle = 0.19f;
	copter_land_update(&ld, &p, &in, DT);
	assert_true(ld.landed);
	in.throttle = 0.21f;
	in.spool_unlimited = false;
	copter_land_update(&ld, &p, &in, DT);
	assert_true(ld.landed);
	in.spool_unlimited = true;
	copter_land_update(&ld, &p, &in, DT);
	assert_false(ld.landed);
}

static void test_copter_land_any_failing_criterion_restarts_the_count(void **state)
{
	(void)state;
	struct copter_land_params p;
	copter_land_params_default(&p);
	struct copter_land_in variants[7];
	for (int i = 0; i < 7; i++)
		variants[i] = on_ground();
	variants[0].throttle_lower = false;
	variants[1].throttle_mix_min = false;
	variants[2].climb_m_s = -1.01f;                          /* LAND_DETECTOR_VEL_Z_MAX */
	/* LAND_DETECTOR_ACCEL_MAX, through the 1 Hz filter: 2 m/s/s crosses
	 * 1 m/s/s in 0.11 s, before the count's last 0.25 s are up */
	variants[3].accel_ned_m_s2[0] = 2.0f;
	variants[4].target_pitch_rad = (float)(-16 * DEG);       /* LAND_CHECK_LARGE_ANGLE_CD */
	variants[5].roll_rad = (float)(31 * DEG);                /* LAND_CHECK_ANGLE_ERROR_DEG */
	variants[5].target_roll_rad = 0.0f;
	variants[6].climb_m_s = 1.01f;
	for (int v = 0; v < 7; v++) {
		struct copter_land ld;
		take_off(&ld, &p);
		struct copter_land_in ok = on_ground();
		for (int i = 0; i < 300; i++)            /* 0.75 s of the 1 s */
			copter_land_update(&ld, &p, &ok, DT);
		assert_true(ld.landed_maybe);
		for (int i = 0; i < 800; i++)
			copter_land_update(&ld, &p, &variants[v], DT);
		assert_false(ld.landed);
		assert_false(ld.landed_maybe);
		assert_near(ld.land_s, 0.0, 0);
	}
	/* and just inside each limit it lands */
	struct copter_land_in edge = on_ground();
	edge.climb_m_s = -0.99f;
	edge.accel_ned_m_s2[2] = 0.99f;
	edge.target_pitch_rad = (float)(-14.9 * DEG);
	edge.pitch_rad = (float)(14.9 * DEG);
	struct copter_land ld;
	take_off(&ld, &p);
	assert_true(steps_until(&ld, &p, &edge, &ld.landed, 2000) > 0);
}

static struct copter_land_in flipped(void)
{
	struct copter_land_in in = on_ground();
	in.throttle_lower = false;
	in.throttle = 0.8f;
	in.roll_rad = (float)(180 * DEG);
	return in;
}

static void test_copter_crash_disarms_after_two_seconds_and_only_then(void **state)
{
	(void)state;
	struct copter_land_params p;
	copter_land_params_default(&p);
	struct copter_land ld;
	take_off(&ld, &p);
	struct copter_land_in in = flipped();
	int n = steps_until(&ld, &p, &in, &ld.crashed, 2000);
	printf("crash flagged after %.4f s\n", n * DT);
	assert_true(n * DT >= 2.0 - DT && n * DT <= 2.0 + DT);
	assert_false(ld.landed);
	/* latched while armed, cleared by the disarm */
	in.roll_rad = 0.0f;
	copter_land_update(&ld, &p, &in, DT);
	assert_true(ld.crashed);
	in.armed = false;
	copter_land_update(&ld, &p, &in, DT);
	assert_false(ld.crashed);

	/* an unknown speed does not stop it (ArduCopter skips that test) */
	take_off(&ld, &p);
	in = flipped();
	in.speed_m_s = NAN;
	assert_true(steps_until(&ld, &p, &in, &ld.crashed, 2000) > 0);

	/* each condition that keeps it flying */
	struct copter_land_in variants[6];
	for (int i = 0; i < 6; i++)
		variants[i] = flipped();
	variants[0].accel_ned_m_s2[2] = 3.5f;           /* falling or flying: CRASH_CHECK_ACCEL_MAX */
	variants[1].roll_rad = (float)(14 * DEG);       /* hardly leaning: CRASH_CHECK_ANGLE_MIN_DEG */
	variants[1].target_roll_rad = (float)(-20 * DEG);
	variants[2].roll_rad = (float)(40 * DEG);       /* where it was asked to be, near enough */
	variants[2].target_roll_rad = (float)(11 * DEG);
	variants[3].speed_m_s = 10.5f;                  /* CRASH_CHECK_SPEED_MAX */
	variants[4].crash_check_mode = false;           /* ACRO, FLIP */
	variants[5] = flipped();                        /* FS_CRASH_CHECK 0, below */
	for (int v = 0; v < 6; v++) {
		struct copter_land_params pv = p;
		if (v == 5)
			pv.fs_crash_check = 0.0f;
		take_off(&ld, &pv);
		for (int i = 0; i < 2000; i++)
			copter_land_update(&ld, &pv, &variants[v], DT);
		assert_false(ld.crashed);
	}
	/* landed: no crash check (on uneven ground a landed frame may lean) */
	copter_land_init(&ld);
	in = flipped();
	in.throttle = 0.1f;         /* under half the hover throttle: still landed */
	for (int i = 0; i < 2000; i++)
		copter_land_update(&ld, &p, &in, DT);
	assert_true(ld.landed);
	assert_false(ld.crashed);
}

static void test_copter_land_throttle_mix_follows_arducopters_choice(void **state)
{
	(void)state;
	struct copter_land ld;
	struct copter_land_params p;
	copter_land_params_default(&p);
	take_off(&ld, &p);
	struct copter_land_in in = on_ground();
	in.throttle_lower = false;
	/* descending, upright, calm: minimum mix */
	assert_true(copter_land_want_thr_mix_min(&ld, &in, -0.5f, false));
	/* no descent asked */
	assert_false(copter_land_want_thr_mix_min(&ld, &in, 0.0f, false));
	/* a large lean asked: not unless landing */
	in.target_roll_rad = (float)(20 * DEG);
	in.roll_rad = in.target_roll_rad;
	assert_false(copter_land_want_thr_mix_min(&ld, &in, -0.5f, false));
	assert_true(copter_land_want_thr_mix_min(&ld, &in, -0.5f, true));
	/* a large attitude error, even landing */
	in.roll_rad = (float)(55 * DEG);
	assert_false(copter_land_want_thr_mix_min(&ld, &in, -0.5f, true));
	/* disarmed or landed: always */
	in.armed = false;
	assert_true(copter_land_want_thr_mix_min(&ld, &in, 1.0f, false));
}

/* ---- closed loops ---- */

struct land_flight {
	struct copter_sim s;
	struct copter_psc c;
	struct copter_psc_params pp;
	struct copter_wpnav_params wp;
	struct copter_land ld;
	struct copter_land_params lp;
	struct copter_psc_out out;
	double angle_err_max, lean_max;
};

static void lf_init(struct land_flight *f, const struct copter_sim_params *sp, float alt)
{
	memset(f, 0, sizeof(*f));
	copter_psc_params_default(&f->pp);
	copter_wpnav_params_default(&f->wp);
	copter_land_params_default(&f->lp);
	copter_sim_init(&f->s, sp, alt, 0.0f);
	struct copter_psc_meas m;
	copter_sim_meas(&f->s, &m);
	copter_psc_init(&f->c, &m, sp->hover_throttle, sp->hover_throttle);
	copter_land_init(&f->ld);
	f->out.throttle = sp->hover_throttle;
	/* in flight: the detector has seen the take-off */
	struct copter_land_in in = on_ground();
	in.throttle_lower = false;
	in.throttle = sp->hover_throttle;
	copter_land_update(&f->ld, &f->lp, &in, DT);
	assert_false(f->ld.landed);
}

enum lf_mode { LF_HOLD = 1, LF_DESCEND, LF_LAND };

/* One step: the mode's targets, the controller and vehicle, the detectors
 * on what the vehicle and mixer report. */
static void lf_step(struct land_flight *f, enum lf_mode mode, float alt_hold)
{
	struct copter_psc_limits lim;
	copter_wpnav_limits(&f->wp, mode == LF_LAND ? COPTER_WPNAV_LAND : COPTER_WPNAV_AUTO, &lim);
	const float here[2] = { 0.0f, 0.0f };
	copter_psc_xy_input_pos(&f->c, &f->pp, &lim, here, DT);
	if (mode == LF_HOLD)
		copter_psc_z_input_alt(&f->c, &f->pp, &lim, alt_hold, DT);
	else if (mode == LF_DESCEND)
		copter_psc_z_input_climb(&f->c, &f->pp, &lim, -0.5f, false, DT);
	else
		copter_psc_z_input_climb(&f->c, &f->pp, &lim,
					 copter_wpnav_land_climb_rate(&f->wp, &f->pp, f->s.alt_m,
								      hypotf(f->s.pos_ne_m[0], f->s.pos_ne_m[1])),
					 true, DT);
	copter_sim_fly(&f->s, &f->c, &f->pp, DT, &f->out);

	struct copter_land_in in;
	memset(&in, 0, sizeof(in));
	in.armed = true;
	in.spool_unlimited = f->s.mo.spool == COPTER_SPOOL_THROTTLE_UNLIMITED;
	in.throttle_lower = f->s.mo.limit.throttle_lower;
	in.throttle = f->out.throttle;
	in.throttle_hover = f->s.p.hover_throttle;
	in.climb_m_s = -f->s.vel_ned_m_s[2];
	const float *v = f->s.vel_ned_m_s;
	in.speed_m_s = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	memcpy(in.accel_ned_m_s2, f->s.accel_ned_m_s2, sizeof(in.accel_ned_m_s2));
	in.roll_rad = f->s.roll_rad;
	in.pitch_rad = f->s.pitch_rad;
	in.target_roll_rad = f->out.roll_rad;
	in.target_pitch_rad = f->out.pitch_rad;
	in.crash_check_mode = true;
	in.throttle_mix_min = copter_land_want_thr_mix_min(&f->ld, &in, f->c.z.climb_m_s,
							   mode == LF_LAND);
	copter_land_update(&f->ld, &f->lp, &in, DT);
	f->angle_err_max = fmax(f->angle_err_max,
				copter_thrust_angle_rad(in.roll_rad, in.pitch_rad, in.target_roll_rad,
							in.target_pitch_rad));
	f->lean_max = fmax(f->lean_max, acos(cos((double)in.roll_rad) * cos((double)in.pitch_rad)));
}

/* Flies `mode` until secs, or the vehicle has been on the ground for
 * after_s; returns when it touched down (-1 never) and when landed was set. */
static void lf_fly(struct land_flight *f, enum lf_mode mode, float secs, float after_s,
		   double *t_touch, double *t_maybe, double *t_landed)
{
	*t_touch = *t_maybe = *t_landed = -1;
	for (int i = 1; i <= (int)((double)secs / DT); i++) {
		lf_step(f, mode, 10.0f);
		double t = i * DT;
		if (*t_touch < 0 && f->s.on_ground)
			*t_touch = t;
		if (*t_maybe < 0 && f->ld.landed_maybe)
			*t_maybe = t;
		if (*t_landed < 0 && f->ld.landed)
			*t_landed = t;
		if (*t_touch >= 0 && t > *t_touch + (double)after_s)
			break;
	}
}

static void test_copter_land_detects_a_landing_within_the_trigger_time(void **state)
{
	(void)state;
	struct copter_sim_params sp;
	copter_sim_params_default(&sp);
	struct land_flight f;
	lf_init(&f, &sp, 5.0f);
	double touch, maybe, landed;
	lf_fly(&f, LF_LAND, 60.0f, 5.0f, &touch, &maybe, &landed);
	printf("LAND from 5 m: touchdown at %.3f s, maybe landed %.3f s and landed %.3f s after it\n",
	       touch, maybe - touch, landed - touch);
	assert_true(touch > 0);
	/* nothing before the ground */
	assert_true(maybe >= touch && landed >= touch);
	/* on the ground the target keeps descending (force_descend) until the
	 * throttle reaches its floor and the mixer flags throttle_lower
	 * (measured 0.61 s), then LAND_DETECTOR_TRIGGER_SEC: 1.62 s in all */
	assert_true(landed - touch <= 2.0);
	assert_near(landed - maybe, 1.0 - 0.2, 2 * DT);
}

static void test_copter_land_stays_flying_in_a_hover_and_a_slow_descent(void **state)
{
	(void)state;
	struct copter_sim_params sp;
	copter_sim_params_default(&sp);
	copter_sim_wind_force(&sp, 5.0f, 0.0f, sp.wind_force_ne_n);
	struct land_flight f;
	lf_init(&f, &sp, 10.0f);
	for (int i = 0; i < 30 * 400; i++) {
		lf_step(&f, LF_HOLD, 10.0f);
		assert_false(f.ld.landed_maybe);
		assert_false(f.ld.crashed);
	}
	/* a 0.5 m/s descent (LAND_SPEED) all the way down, not a LAND: no
	 * landing until the ground */
	double touch, maybe, landed;
	lf_fly(&f, LF_DESCEND, 60.0f, 5.0f, &touch, &maybe, &landed);
	printf("0.5 m/s descent from 10 m: touchdown at %.3f s, landed %.3f s after it\n", touch,
	       landed - touch);
	assert_true(touch > 15.0);
	assert_true(maybe >= touch && landed >= touch);
	/* on the ground it still lands: the target keeps pushing down below the
	 * vehicle within its leash until the throttle reaches its floor */
	assert_true(landed > 0);
}

static void test_copter_crash_disarms_a_flipped_vehicle(void **state)
{
	(void)state;
	struct copter_sim_params sp;
	copter_sim_params_default(&sp);
	struct land_flight f;
	lf_init(&f, &sp, 10.0f);
	for (int i = 0; i < 5 * 400; i++)
		lf_step(&f, LF_HOLD, 10.0f);
	/* a motor gone: it flips and stays upside down */
	f.s.att_stuck = true;
	f.s.roll_rad = (float)(180 * DEG);
	double t_touch = -1, t_crash = -1;
	for (int i = 1; i <= 10 * 400; i++) {
		lf_step(&f, LF_HOLD, 10.0f);
		if (t_touch < 0 && f.s.on_ground)
			t_touch = i * DT;
		if (f.ld.crashed) {
			t_crash = i * DT;
			break;
		}
	}
	printf("flip at 10 m: on the ground %.3f s later, crash flagged %.3f s after that\n", t_touch,
	       t_crash - t_touch);
	assert_true(t_touch > 0 && t_crash > 0);
	assert_false(f.ld.landed);
	/* not while falling (accelerating, then too fast); 2 s once at rest and
	 * the 1 Hz acceleration filter under 3 m/s/s */
	assert_true(t_crash - t_touch >= 2.0);
	assert_true(t_crash - t_touch <= 2.5);
}

static void test_copter_crash_leaves_a_gusty_hover_alone(void **state)
{
	(void)state;
	struct copter_sim_params sp;
	copter_sim_params_default(&sp);
	copter_sim_wind_force(&sp, 5.0f, (float)(45 * DEG), sp.wind_force_ne_n);
	sp.gust_sigma_n = 2.0f;     /* 1.3 m/s/s of gusts, 1 s correlation */
	sp.gust_tau_s = 1.0f;
	sp.seed = 7;
	struct land_flight f;
	lf_init(&f, &sp, 10.0f);
	double pos_max = 0;
	for (int i = 0; i < 120 * 400; i++) {
		lf_step(&f, LF_HOLD, 10.0f);
		assert_false(f.ld.crashed);
		assert_false(f.ld.landed_maybe);
		pos_max = fmax(pos_max, hypot(f.s.pos_ne_m[0], f.s.pos_ne_m[1]));
	}
	printf("gusty hover, 120 s: lean up to %.2f deg, thrust-vector error up to %.2f deg, "
	       "within %.3f m\n", f.lean_max / DEG, f.angle_err_max / DEG, pos_max);
	assert_true(f.lean_max > 10 * DEG);      /* the gusts do push it about */
	assert_true(f.angle_err_max < 30 * DEG);
}

static void test_copter_land_nonfinite_inputs_skip_the_step(void **state)
{
	(void)state;
	struct copter_land_params p;
	copter_land_params_default(&p);
	struct copter_land ld;
	take_off(&ld, &p);
	struct copter_land_in in = on_ground();
	for (int i = 0; i < 300; i++)
		copter_land_update(&ld, &p, &in, DT);
	struct copter_land before = ld;
	struct copter_land_in bad = in;
	bad.accel_ned_m_s2[1] = NAN;
	copter_land_update(&ld, &p, &bad, DT);
	bad = in;
	bad.speed_m_s = INFINITY;
	copter_land_update(&ld, &p, &bad, DT);
	bad = in;
	bad.target_roll_rad = NAN;
	copter_land_update(&ld, &p, &bad, DT);
	copter_land_update(&ld, &p, &in, NAN);
	copter_land_update(&ld, &p, &in, 0.0f);
	assert_int_equal(ld.nonfinite_inputs, before.nonfinite_inputs + 5);
	assert_near(ld.land_s, before.land_s, 0);
	assert_true(ld.landed == before.landed && ld.landed_maybe == before.landed_maybe);
	assert_true(isfinite(ld.accel_ned_filt_m_s2[1]));
	/* a NaN speed is no speed: allowed */
	in.speed_m_s = NAN;
	copter_land_update(&ld, &p, &in, DT);
	assert_int_equal(ld.nonfinite_inputs, before.nonfinite_inputs + 5);
	assert_true(ld.land_s > before.land_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copter_thrust_angle_matches_hand_values),
		cmocka_unit_test(test_copter_land_lands_after_one_second_and_maybe_after_a_fifth),
		cmocka_unit_test(test_copter_land_any_failing_criterion_restarts_the_count),
		cmocka_unit_test(test_copter_crash_disarms_after_two_seconds_and_only_then),
		cmocka_unit_test(test_copter_land_throttle_mix_follows_arducopters_choice),
		cmocka_unit_test(test_copter_land_detects_a_landing_within_the_trigger_time),
		cmocka_unit_test(test_copter_land_stays_flying_in_a_hover_and_a_slow_descent),
		cmocka_unit_test(test_copter_crash_disarms_a_flipped_vehicle),
		cmocka_unit_test(test_copter_crash_leaves_a_gusty_hover_alone),
		cmocka_unit_test(test_copter_land_nonfinite_inputs_skip_the_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
