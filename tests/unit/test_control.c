// SPDX-License-Identifier: GPL-3.0-or-later
/* Attitude controllers and servo outputs against closed forms: the rate
 * loop's feed-forward and damping, integrator limits and anti-windup, rate
 * limits, the speed scaler, turn compensation, the yaw damper, servo ranges,
 * reversal, mixing and the throttle slew. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "control/attitude.h"
#include "control/servo.h"
#include "nav/nav_math.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))
#define D2R NAV_DEG2RAD

static struct vehicle_state level_state(float airspeed)
{
	struct vehicle_state vs;
	memset(&vs, 0, sizeof(vs));
	vs.valid = VEHICLE_ATTITUDE_VALID | VEHICLE_AIRSPEED_VALID;
	vs.airspeed_m_s = airspeed;
	return vs;
}

static void test_ctl_speed_scaler_follows_airspeed_within_limits(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	struct vehicle_state vs = level_state(15.0f);
	assert_near(ctl_speed_scaler(&p, &vs, 0.5f), 1.0, 1e-6);
	vs.airspeed_m_s = 20.0f;
	assert_near(ctl_speed_scaler(&p, &vs, 0.5f), 0.75, 1e-6);
	vs.airspeed_m_s = 5.0f;
	assert_near(ctl_speed_scaler(&p, &vs, 0.5f), 2.0, 1e-6);
	vs.airspeed_m_s = 60.0f;
	assert_near(ctl_speed_scaler(&p, &vs, 0.5f), 0.5, 1e-6);
	/* no sensor: from the throttle against TRIM_THROTTLE */
	vs.valid = VEHICLE_ATTITUDE_VALID;
	assert_near(ctl_speed_scaler(&p, &vs, p.trim_throttle * 0.01f), 1.0, 1e-6);
	assert_near(ctl_speed_scaler(&p, &vs, 1.0f), 0.5f + p.trim_throttle * 0.005f, 1e-6);
	assert_near(ctl_speed_scaler(&p, &vs, 0.0f), 1.67, 1e-6);
}

static void test_ctl_roll_rate_loop_matches_closed_form(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	p.rll2srv_i = 0.0f;
	struct ctl_axis a;
	memset(&a, 0, sizeof(a));
	float tau = p.rll2srv_tconst;
	float kp_ff = (p.rll2srv_p - p.rll2srv_i * tau) * tau - p.rll2srv_d;
	/* 10 degrees to go, not rolling, scaler 1 */
	float des = 10.0f / tau;
	float out = ctl_roll_step(&a, &p, 10 * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(out, des * p.rll2srv_d + des * kp_ff, 1e-4);
	/* already rolling at the demanded rate: the feed-forward alone */
	out = ctl_roll_step(&a, &p, 10 * D2R, 0.0f, des * D2R, 1.0f, 1.0f, 0.02f, false);
	assert_near(out, des * kp_ff, 1e-4);
	/* the damper on the rate error, and scaler squared on it */
	out = ctl_roll_step(&a, &p, 0.0f, 0.0f, 20 * D2R, 1.5f, 1.0f, 0.02f, false);
	assert_near(out, -20.0f * p.rll2srv_d * 1.5f * 1.5f, 1e-4);
	/* full deflection at 45 degrees of servo */
	out = ctl_roll_step(&a, &p, 170 * D2R, 0.0f, 0.0f, 2.0f, 1.0f, 0.02f, false);
	assert_near(out, 45.0, 1e-6);
	/* the shortest way round through +-180 */
	out = ctl_roll_step(&a, &p, 175 * D2R, -175 * D2R, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_true(out < 0.0f);
}

static void test_ctl_roll_rate_limit_caps_the_demanded_rate(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	p.rll2srv_rmax = 30.0f;
	struct ctl_axis a;
	memset(&a, 0, sizeof(a));
	ctl_roll_step(&a, &p, 60 * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.desired_rate_deg_s, 30.0, 1e-4);
	ctl_roll_step(&a, &p, -60 * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.desired_rate_deg_s, -30.0, 1e-4);
	/* pitch: separate up and down limits */
	p.ptch2srv_rmax_up = 20.0f;
	p.ptch2srv_rmax_dn = 10.0f;
	p.ptch2srv_rll = 0.0f;
	ctl_pitch_step(&a, &p, 30 * D2R, 0.0f, 0.0f, 0.0f, 15.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.desired_rate_deg_s, 20.0, 1e-4);
	ctl_pitch_step(&a, &p, -30 * D2R, 0.0f, 0.0f, 0.0f, 15.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.desired_rate_deg_s, -10.0, 1e-4);
}

static void test_ctl_integrator_limited_by_imax_and_stops_when_saturated(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	struct ctl_axis a;
	memset(&a, 0, sizeof(a));
	/* a steady error with no response: the integrator grows at
	 * rate_err * I * tau per second, then stops at IMAX */
	float err_deg = 4.0f;
	float des = err_deg / p.rll2srv_tconst;
	ctl_roll_step(&a, &p, err_deg * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.integ_deg, des * p.rll2srv_i * p.rll2srv_tconst * 0.02f, 1e-5);
	for (int i = 0; i < 5000; i++)
		ctl_roll_step(&a, &p, err_deg * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, false);
	assert_near(a.integ_deg, p.rll2srv_imax * 0.01f, 1e-4);
	/* integrators held at zero on demand (on the ground) */
	ctl_roll_step(&a, &p, err_deg * D2R, 0.0f, 0.0f, 1.0f, 1.0f, 0.02f, true);
	assert_near(a.integ_deg, 0.0, 1e-9);
	/* a saturated output stops the integrator growing further */
	p.rll2srv_imax = 10000.0f;
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 200; i++)
		ctl_roll_step(&a, &p, 120 * D2R, 0.0f, 0.0f, 2.0f, 1.0f, 0.02f, false);
	float held = a.integ_deg;
	for (int i = 0; i < 200; i++)
		ctl_roll_step(&a, &p, 120 * D2R, 0.0f, 0.0f, 2.0f, 1.0f, 0.02f, false);
	assert_near(a.integ_deg, held, 1e-6);
	assert_true(held < 45.0f);
}

static void test_ctl_pitch_feeds_forward_the_turn(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	p.ptch2srv_i = 0.0f;
	struct ctl_axis a;
	memset(&a, 0, sizeof(a));
	float V = 15.0f, phi = 45 * D2R, tau = p.ptch2srv_tconst;
	float kp_ff = (p.ptch2srv_p - p.ptch2srv_i * tau) * tau - p.ptch2srv_d;
	float q_turn = NAV_G_M_S2 / V * tanf(phi) * sinf(phi) * NAV_RAD2DEG;
	/* on the pitch demand, in a 45 degree bank: elevator up by kp_ff q_turn */
	float out = ctl_pitch_step(&a, &p, 0.0f, 0.0f, 0.0f, phi, V, 1.0f, 1.0f, 0.02f, false);
	assert_near(out, kp_ff * q_turn, 1e-3);
	assert_true(out > 0.0f);
	/* the same for a left bank, and none with PTCH2SRV_RLL 0 */
	assert_near(ctl_pitch_step(&a, &p, 0.0f, 0.0f, 0.0f, -phi, V, 1.0f, 1.0f, 0.02f, false),
		    kp_ff * q_turn, 1e-3);
	p.ptch2srv_rll = 0.0f;
	assert_near(ctl_pitch_step(&a, &p, 0.0f, 0.0f, 0.0f, phi, V, 1.0f, 1.0f, 0.02f, false), 0.0,
		    1e-6);
}

static void test_ctl_yaw_damper_and_rudder_mix(void **state)
{
	(void)state;
	struct ctl_params p;
	ctl_params_default(&p);
	struct ctl c;
	ctl_init(&c);
	struct vehicle_state vs = level_state(15.0f);
	struct ctl_demand d = { .roll_rad = 20 * D2R, .pitch_rad = 0.0f, .throttle = 0.5f,
				.accel_y_m_s2 = NAN };
	struct ctl_surfaces u;
	/* defaults (DAMP 0): the rudder is KFF_RDDRMIX of the aileron */
	ctl_update(&c, &p, &vs, &d, 0.02f, &u);
	assert_true(u.aileron > 0.0f);
	assert_near(u.rudder, p.kff_rddrmix * u.aileron, 1e-6);
	/* a damper: yawing right faster than the turn needs -> left rudder */
	p.kff_rddrmix = 0.0f;
	p.yaw2srv_damp = 0.5f;
	ctl_init(&c);
	d.roll_rad = 0.0f;
	vs.rate_rad_s[2] = 0.3f;
	ctl_update(&c, &p, &vs, &d, 0.02f, &u);
	assert_near(u.rudder, -p.yaw2srv_damp * 0.3f * NAV_RAD2DEG / 45.0f, 1e-4);
	/* in a steady coordinated turn the washed-out rate error is nothing */
	ctl_init(&c);
	vs.roll_rad = 30 * D2R;
	d.roll_rad = vs.roll_rad;
	vs.rate_rad_s[2] = NAV_G_M_S2 / 15.0f * sinf(vs.roll_rad);
	ctl_update(&c, &p, &vs, &d, 0.02f, &u);
	assert_near(u.rudder, 0.0, 1e-4);
	/* slipping (lateral specific force to the left): the integrator adds
	 * right rudder, limited by IMAX */
	p.yaw2srv_int = 1.0f;
	p.yaw2srv_slip = 1.0f;
	ctl_init(&c);
	vs.roll_rad = 0.0f;
	d.roll_rad = 0.0f;
	vs.rate_rad_s[2] = 0.0f;
	d.accel_y_m_s2 = -1.0f;
	for (int i = 0; i < 5000; i++)
		ctl_update(&c, &p, &vs, &d, 0.02f, &u);
	assert_true(u.rudder > 0.0f);
	assert_near(c.yaw.integ_deg, p.yaw2srv_imax * 0.01f / p.yaw2srv_damp, 1e-3);
}

static void test_ctl_roll_loop_closes_on_the_euler_rate(void **state)
{
	(void)state;
	/* a climbing right turn at its demanded bank, yawing at the turn rate:
	 * body p is not zero but the bank angle is not changing; no aileron
	 * beyond the (zero) integrator */
	struct ctl_params p;
	ctl_params_default(&p);
	struct ctl c;
	ctl_init(&c);
	struct vehicle_state vs = level_state(15.0f);
	float phi = 30 * D2R, th = 8 * D2R, psid = NAV_G_M_S2 * tanf(phi) / 15.0f;
	vs.roll_rad = phi;
	vs.pitch_rad = th;
	vs.rate_rad_s[0] = -psid * sinf(th);
	vs.rate_rad_s[1] = psid * sinf(phi) * cosf(th);
	vs.rate_rad_s[2] = psid * cosf(phi) * cosf(th);
	struct ctl_demand d = { .roll_rad = phi, .pitch_rad = th, .throttle = 0.5f, .accel_y_m_s2 = NAN };
	struct ctl_surfaces u;
	ctl_update(&c, &p, &vs, &d, 0.02f, &u);
	assert_near(u.aileron, 0.0, 1e-3);
}

/* ---- servos ---- */

static void test_servo_pulse_ranges_trim_and_reversal(void **state)
{
	(void)state;
	struct servo_channel_params c = { 1100, 1500, 1900, 0, SERVO_FUNC_AILERON };
	assert_int_equal(servo_pwm_surface(&c, -1.0f), 1100);
	assert_int_equal(servo_pwm_surface(&c, 0.0f), 1500);
	assert_int_equal(servo_pwm_surface(&c, 1.0f), 1900);
	assert_int_equal(servo_pwm_surface(&c, 0.5f), 1700);
	assert_int_equal(servo_pwm_surface(&c, 3.0f), 1900);
	assert_int_equal(servo_pwm_surface(&c, NAN), 1500);
	/* an off-centre trim: each side scales to its own end */
	c.servo_trim = 1400;
	assert_int_equal(servo_pwm_surface(&c, 0.5f), 1650);
	assert_int_equal(servo_pwm_surface(&c, -0.5f), 1250);
	/* reversed mirrors about the trim */
	c.servo_reversed = 1;
	assert_int_equal(servo_pwm_surface(&c, 1.0f), 1100);
	assert_int_equal(servo_pwm_surface(&c, -1.0f), 1900);
	/* throttle runs min..max, reversed max..min */
	struct servo_channel_params t = { 1000, 1000, 2000, 0, SERVO_FUNC_THROTTLE };
	assert_int_equal(servo_pwm_throttle(&t, 0.0f), 1000);
	assert_int_equal(servo_pwm_throttle(&t, 0.25f), 1250);
	assert_int_equal(servo_pwm_throttle(&t, 1.5f), 2000);
	t.servo_reversed = 1;
	assert_int_equal(servo_pwm_throttle(&t, 0.25f), 1750);
}

static void test_servo_default_channel_map_and_throttle_slew(void **state)
{
	(void)state;
	struct servo_params p;
	servo_params_default(&p);
	struct servo s;
	servo_init(&s);
	uint16_t pwm[SERVO_CHANNELS];
	struct ctl_surfaces u = { 0.5f, -0.5f, 0.25f };
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	assert_int_equal(pwm[0], 1700);   /* aileron */
	assert_int_equal(pwm[1], 1300);   /* elevator */
	assert_int_equal(pwm[2], 1100);   /* throttle */
	assert_int_equal(pwm[3], 1600);   /* rudder */
	assert_int_equal(pwm[4], 1500);   /* unused: trim */
	/* THR_SLEWRATE 100 %/s: half a second to half throttle */
	for (int i = 0; i < 25; i++)
		servo_output(&s, &p, &u, 1.0f, 0.02f, pwm);
	assert_near(s.throttle, 0.5, 1e-5);
	assert_int_equal(pwm[2], 1500);
	for (int i = 0; i < 100; i++)
		servo_output(&s, &p, &u, 1.0f, 0.02f, pwm);
	assert_int_equal(pwm[2], 1900);
	/* and down at the same rate */
	servo_output(&s, &p, &u, 0.0f, 0.1f, pwm);
	assert_near(s.throttle, 0.9, 1e-5);
	/* 0 = no limit */
	p.thr_slewrate = 0.0f;
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	assert_int_equal(pwm[2], 1100);
}

static void test_servo_elevon_and_vtail_mixing(void **state)
{
	(void)state;
	struct servo_params p;
	servo_params_default(&p);
	p.ch[0].servo_function = SERVO_FUNC_ELEVON_LEFT;
	p.ch[1].servo_function = SERVO_FUNC_ELEVON_RIGHT;
	p.ch[3].servo_function = SERVO_FUNC_VTAIL_LEFT;
	p.ch[4].servo_function = SERVO_FUNC_VTAIL_RIGHT;
	struct servo s;
	servo_init(&s);
	uint16_t pwm[SERVO_CHANNELS];
	float g = p.mixing_gain;
	/* pure pitch: both elevons and both ruddervators up together */
	struct ctl_surfaces u = { 0.0f, 0.6f, 0.0f };
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	assert_int_equal(pwm[0], pwm[1]);
	assert_int_equal(pwm[0], 1500 + (int)lrintf(g * 0.6f * 400));
	assert_int_equal(pwm[3], pwm[4]);
	/* pure roll right: left elevon down, right up, by the same amount */
	u = (struct ctl_surfaces){ 0.6f, 0.0f, 0.0f };
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	assert_int_equal(pwm[0], 1500 - (int)lrintf(g * 0.6f * 400));
	assert_int_equal(pwm[1], 1500 + (int)lrintf(g * 0.6f * 400));
	assert_int_equal(pwm[3], 1500);
	/* pure yaw: the ruddervators split */
	u = (struct ctl_surfaces){ 0.0f, 0.0f, 0.4f };
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	assert_int_equal(pwm[3], 1500 - (int)lrintf(g * 0.4f * 400));
	assert_int_equal(pwm[4], 1500 + (int)lrintf(g * 0.4f * 400));
	assert_int_equal(pwm[0], 1500);
	/* sums and differences give back the commands */
	u = (struct ctl_surfaces){ 0.3f, 0.5f, -0.2f };
	servo_output(&s, &p, &u, 0.0f, 0.02f, pwm);
	float l = (pwm[0] - 1500) / 400.0f, r = (pwm[1] - 1500) / 400.0f;
	assert_near((l + r) / (2 * g), 0.5, 0.01);
	assert_near((r - l) / (2 * g), 0.3, 0.01);
}

/* The inverses the HIL link sends with: every pulse back to its command, to
 * the rounding of a microsecond, and exactly at MIN, TRIM and MAX. */
static void test_servo_pulses_give_back_their_commands(void **state)
{
	(void)state;
	const struct servo_channel_params cs[] = {
		{ 1100, 1500, 1900, 0, SERVO_FUNC_AILERON },
		{ 1100, 1500, 1900, 1, SERVO_FUNC_AILERON },
		{ 1000, 1620, 1900, 0, SERVO_FUNC_ELEVATOR },    /* trim off centre */
		{ 982, 1411, 2050, 1, SERVO_FUNC_RUDDER },
	};
	for (size_t k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) {
		const struct servo_channel_params *c = &cs[k];
		float span = fminf(c->servo_max - c->servo_trim, c->servo_trim - c->servo_min);
		for (int i = -20; i <= 20; i++) {
			float v = (float)i / 20.0f, back = 99.0f;
			assert_int_equal(servo_surface_of_pwm(c, servo_pwm_surface(c, v), &back), 0);
			assert_near(back, v, 0.5 / (double)span + 1e-6);
		}
		float v = 99.0f;
		bool rev = c->servo_reversed > 0.5f;
		assert_int_equal(servo_surface_of_pwm(c, (uint16_t)c->servo_min, &v), 0);
		assert_true(v == (rev ? 1.0f : -1.0f));
		assert_int_equal(servo_surface_of_pwm(c, (uint16_t)c->servo_max, &v), 0);
		assert_true(v == (rev ? -1.0f : 1.0f));
		assert_int_equal(servo_surface_of_pwm(c, (uint16_t)c->servo_trim, &v), 0);
		assert_true(v == 0.0f && !signbit(v));
	}
	struct servo_channel_params t = { 1100, 1100, 1900, 0, SERVO_FUNC_THROTTLE };
	float x = 99.0f;
	assert_int_equal(servo_throttle_of_pwm(&t, 1100, &x), 0);
	assert_true(x == 0.0f);
	assert_int_equal(servo_throttle_of_pwm(&t, 1900, &x), 0);
	assert_true(x == 1.0f);
	assert_int_equal(servo_throttle_of_pwm(&t, 1300, &x), 0);
	assert_true(x == 0.25f);
	t.servo_reversed = 1;
	assert_int_equal(servo_throttle_of_pwm(&t, 1900, &x), 0);
	assert_true(x == 0.0f);
	assert_int_equal(servo_throttle_of_pwm(&t, servo_pwm_throttle(&t, 0.3f), &x), 0);
	assert_near(x, 0.3, 0.5 / 800 + 1e-6);
	/* Outside MIN..MAX, or a range that cannot be: refused, *out untouched. */
	x = 42.0f;
	assert_int_equal(servo_throttle_of_pwm(&t, 1099, &x), -ERANGE);
	assert_int_equal(servo_surface_of_pwm(&cs[0], 1901, &x), -ERANGE);
	struct servo_channel_params bad = { 1900, 1500, 1100, 0, SERVO_FUNC_AILERON };
	assert_int_equal(servo_surface_of_pwm(&bad, 1500, &x), -EINVAL);
	bad = (struct servo_channel_params){ 1100, 1950, 1900, 0, SERVO_FUNC_AILERON };
	assert_int_equal(servo_surface_of_pwm(&bad, 1500, &x), -EINVAL);
	bad = (struct servo_channel_params){ 1500, 1500, 1500, 0, SERVO_FUNC_THROTTLE };
	assert_int_equal(servo_throttle_of_pwm(&bad, 1500, &x), -EINVAL);
	bad = (struct servo_channel_params){ NAN, 1500, 1900, 0, SERVO_FUNC_AILERON };
	assert_int_equal(servo_surface_of_pwm(&bad, 1500, &x), -EINVAL);
	bad = (struct servo_channel_params){ 1100, 1500, INFINITY, 0, SERVO_FUNC_THROTTLE };
	assert_int_equal(servo_throttle_of_pwm(&bad, 1500, &x), -EINVAL);
	assert_true(x == 42.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctl_speed_scaler_follows_airspeed_within_limits),
		cmocka_unit_test(test_ctl_roll_rate_loop_matches_closed_form),
		cmocka_unit_test(test_ctl_roll_rate_limit_caps_the_demanded_rate),
		cmocka_unit_test(test_ctl_integrator_limited_by_imax_and_stops_when_saturated),
		cmocka_unit_test(test_ctl_pitch_feeds_forward_the_turn),
		cmocka_unit_test(test_ctl_yaw_damper_and_rudder_mix),
		cmocka_unit_test(test_ctl_roll_loop_closes_on_the_euler_rate),
		cmocka_unit_test(test_servo_pulse_ranges_trim_and_reversal),
		cmocka_unit_test(test_servo_default_channel_map_and_throttle_slew),
		cmocka_unit_test(test_servo_elevon_and_vtail_mixing),
		cmocka_unit_test(test_servo_pulses_give_back_their_commands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
