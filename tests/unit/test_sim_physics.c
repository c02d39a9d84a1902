// SPDX-License-Identifier: GPL-3.0-or-later
/* Flight-model checks of tools/sim: integration, trim, stall, glide, roll,
 * turns, ground contact, launch and battery. Measured figures are printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "atmos.h"
#include "model.h"

#define DT 0.002   /* 500 Hz */
#define DEG (M_PI / 180.0)
#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const struct sim_env still = { { 0, 0, 0 }, SIM_RHO0_KG_M3 };

static double energy(const struct sim_airframe *p, const struct sim_state *s)
{
	struct v3 w = s->rate_body_rad_s;
	double rot = 0.5 * (p->jxx_kg_m2 * w.x * w.x + p->jyy_kg_m2 * w.y * w.y + p->jzz_kg_m2 * w.z * w.z) -
		     p->jxz_kg_m2 * w.x * w.z;
	return 0.5 * p->mass_kg * v3_dot(s->vel_ned_m_s, s->vel_ned_m_s) + rot -
	       p->mass_kg * SIM_G0_M_S2 * s->pos_ned_m.z;
}

/* A state in trimmed level flight at 100 m. */
static void trimmed(const struct sim_airframe *p, double va, struct sim_state *s, struct sim_controls *u)
{
	struct sim_trim t;
	assert_int_equal(sim_trim_level(p, SIM_RHO0_KG_M3, va, &t), 0);
	sim_state_init(p, s);
	s->pos_ned_m = v3_make(0, 0, -100);
	s->vel_ned_m_s = v3_make(va, 0, 0);
	s->att = quat_from_euler(0, t.alpha_rad, 0);
	s->vel_ned_m_s = quat_rotate(s->att, v3_make(va * cos(t.alpha_rad) * cos(t.beta_rad), va * sin(t.beta_rad),
						     va * sin(t.alpha_rad) * cos(t.beta_rad)));
	s->alpha_rad = t.alpha_rad;
	*u = (struct sim_controls){ t.aileron, t.elevator, t.rudder, t.throttle };
}

static void test_sim_free_fall_follows_half_g_t_squared(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	p.aero_off = true;
	sim_state_init(&p, &s);
	s.pos_ned_m = v3_make(0, 0, -200);
	struct sim_controls u = { 0, 0, 0, 0 };
	for (int i = 0; i < 1000; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double t = 1000 * DT;
	assert_near(s.pos_ned_m.z, -200 + 0.5 * SIM_G0_M_S2 * t * t, 1e-9);
	assert_near(s.vel_ned_m_s.z, SIM_G0_M_S2 * t, 1e-9);
	/* An accelerometer in free fall reads nothing. */
	assert_true(v3_norm(s.accel_body_m_s2) < 1e-12);
}

static void test_sim_tumbling_body_keeps_its_energy_without_aero(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	p.aero_off = true;
	sim_state_init(&p, &s);
	s.pos_ned_m = v3_make(0, 0, -500);
	s.vel_ned_m_s = v3_make(10, 3, -5);
	s.rate_body_rad_s = v3_make(1.0, 2.0, -0.5);
	struct sim_controls u = { 0, 0, 0, 0 };
	double e0 = energy(&p, &s);
	for (int i = 0; i < 2500; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double e1 = energy(&p, &s);
	print_message("tumbling 5 s: energy %.9f -> %.9f J\n", e0, e1);
	assert_true(fabs(e1 - e0) < 1e-7 * fabs(e0));
}

static void test_sim_lift_without_drag_does_no_work(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	p.cd0 = 0;
	p.oswald_e = 1e30;
	p.cd_flat_plate = 0;
	memset(&p.mom, 0, sizeof(p.mom));
	sim_state_init(&p, &s);
	s.pos_ned_m = v3_make(0, 0, -500);
	s.vel_ned_m_s = v3_make(15, 2, 1);
	s.att = quat_from_euler(0.3, 0.1, 0.2);
	s.rate_body_rad_s = v3_make(0.2, 0.1, 0.05);
	struct sim_controls u = { 0, 0, 0, 0 };
	double e0 = energy(&p, &s);
	for (int i = 0; i < 1500; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double e1 = energy(&p, &s);
	print_message("lift and side force only, 3 s: energy %.6f -> %.6f J\n", e0, e1);
	assert_true(fabs(e1 - e0) < 1e-6 * fabs(e0));
}

static void test_sim_trimmed_cruise_holds_level_at_a_sensible_throttle(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_controls u;
	sim_airframe_default(&p);
	trimmed(&p, 16.0, &s, &u);
	print_message("trim at 16 m/s: alpha %.2f deg, elevator %.3f, throttle %.3f, aileron %.4f, rudder %.4f\n",
		      s.alpha_rad / DEG, u.elevator, u.throttle, u.aileron, u.rudder);
	assert_true(u.throttle > 0.3 && u.throttle < 0.7);
	for (int i = 0; i < 5000; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	print_message("after 10 s: height change %.3f m, airspeed %.3f m/s, roll %.2f deg, current %.2f A\n",
		      -(s.pos_ned_m.z + 100), s.airspeed_m_s, roll / DEG, s.batt_current_a);
	assert_true(fabs(s.pos_ned_m.z + 100) < 0.2);
	assert_true(fabs(s.airspeed_m_s - 16.0) < 0.3);
	assert_true(fabs(roll) < 5 * DEG);
	/* Cruise draws a sensible current from a 3S pack. */
	assert_true(s.batt_current_a > 2.0 && s.batt_current_a < 15.0);
}

static void test_sim_will_not_trim_below_the_stall_speed(void **state)
{
	struct sim_airframe p;
	struct sim_trim t;
	sim_airframe_default(&p);
	double clmax = 0, amax = 0;
	for (double a = 0; a < 0.5; a += 0.0005) {
		if (sim_lift_coef(&p, a) > clmax) {
			clmax = sim_lift_coef(&p, a);
			amax = a;
		}
	}
	double vs = sqrt(2 * p.mass_kg * SIM_G0_M_S2 / (SIM_RHO0_KG_M3 * p.wing_area_m2 * clmax));
	print_message("CLmax %.3f at %.1f deg, stall speed %.2f m/s\n", clmax, amax / DEG, vs);
	assert_true(vs > 8.0 && vs < 10.0);
	assert_int_equal(sim_trim_level(&p, SIM_RHO0_KG_M3, vs + 0.7, &t), 0);
	assert_true(sim_trim_level(&p, SIM_RHO0_KG_M3, vs - 0.3, &t) < 0);
	assert_true(sim_trim_level(&p, SIM_RHO0_KG_M3, 7.0, &t) < 0);
}

static void test_sim_full_up_elevator_at_idle_stalls_and_sinks(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_controls u;
	sim_airframe_default(&p);
	trimmed(&p, 12.0, &s, &u);
	u.throttle = 0;
	u.elevator = 1;
	double amax = 0, vmin = 99, sink = 0;
	for (int i = 0; i < 2000; i++) {
		sim_model_step(&p, &s, &u, &still, DT);
		amax = fmax(amax, s.alpha_rad);
		vmin = fmin(vmin, s.airspeed_m_s);
		sink = fmax(sink, s.vel_ned_m_s.z);
	}
	print_message("full up at idle: max alpha %.1f deg, min airspeed %.1f m/s, max sink %.1f m/s\n",
		      amax / DEG, vmin, sink);
	assert_true(amax > p.alpha_stall_rad);
	assert_true(vmin < 9.0);
	assert_true(sink > 3.0);
}

static void test_sim_best_glide_ratio_is_in_the_published_range(void **state)
{
	struct sim_airframe p;
	struct sim_trim t, best = { 0 };
	sim_airframe_default(&p);
	double best_ld = 0, best_v = 0;
	for (double v = 9.0; v <= 22.0; v += 0.25) {
		if (sim_trim_glide(&p, SIM_RHO0_KG_M3, v, &t) != 0)
			continue;
		double ld = -1.0 / tan(t.gamma_rad);
		if (ld > best_ld) {
			best_ld = ld;
			best_v = v;
			best = t;
		}
	}
	print_message("best glide (trim): L/D %.2f at %.2f m/s, elevator %.3f\n", best_ld, best_v, best.elevator);
	assert_true(best_ld > 8.0 && best_ld < 12.0);

	/* Fly it: from the trimmed glide, 20 s hands off. */
	struct sim_state s;
	sim_state_init(&p, &s);
	s.pos_ned_m = v3_make(0, 0, -300);
	s.vel_ned_m_s = v3_make(best_v * cos(best.gamma_rad), 0, -best_v * sin(best.gamma_rad));
	s.att = quat_from_euler(0, best.alpha_rad + best.gamma_rad, 0);
	struct sim_controls u = { 0, best.elevator, 0, 0 };
	for (int i = 0; i < 10000; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double ratio = s.pos_ned_m.x / (s.pos_ned_m.z + 300);
	print_message("glide flown 20 s: %.1f m forward for %.1f m down, ratio %.2f\n",
		      s.pos_ned_m.x, s.pos_ned_m.z + 300, ratio);
	assert_true(fabs(ratio - best_ld) < 0.05 * best_ld);
}

static void test_sim_full_aileron_rolls_at_a_plausible_rate(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_controls u;
	sim_airframe_default(&p);
	trimmed(&p, 16.0, &s, &u);
	u.aileron = 1.0;
	double pmax = 0;
	for (int i = 0; i < 250; i++) {
		sim_model_step(&p, &s, &u, &still, DT);
		pmax = fmax(pmax, s.rate_body_rad_s.x);
	}
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	print_message("full right aileron at 16 m/s: %.0f deg/s peak, %.0f deg of bank in 0.5 s\n",
		      pmax / DEG, roll / DEG);
	assert_true(pmax > 90 * DEG && pmax < 200 * DEG);
	assert_true(roll > 30 * DEG);
}

static void test_sim_coordinated_turn_has_the_rate_of_its_bank(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_controls u;
	sim_airframe_default(&p);
	trimmed(&p, 16.0, &s, &u);
	const struct sim_controls u0 = u;
	const double bank = 30 * DEG;
	double yaw_prev = 0, turned = 0, rate_sum = 0, beta_max = 0, vz_sum = 0, ay_max = 0, ay_int = 0;
	int n = 0;
	for (int i = 0; i < 7500; i++) {
		double roll, pitch, yaw;
		quat_to_euler(s.att, &roll, &pitch, &yaw);
		struct v3 w = s.rate_body_rad_s;
		/* A simple autopilot: bank hold, height hold, speed hold, and the rudder
		 * centres the slip ball (no sideways specific force). */
		u.aileron = 2.0 * (bank - roll) - 0.3 * w.x;
		u.elevator = u0.elevator + 0.3 * s.vel_ned_m_s.z + 0.05 * (s.pos_ned_m.z + 100) - 0.3 * w.y;
		ay_int -= 0.0002 * s.accel_body_m_s2.y;
		u.rudder = fmin(1, fmax(-1, 4.0 * s.beta_rad + ay_int));
		u.throttle = fmin(1, fmax(0, u0.throttle + 0.3 * (16.0 - s.airspeed_m_s)));
		sim_model_step(&p, &s, &u, &still, DT);
		if (i >= 5000) {
			double d = yaw - yaw_prev;
			d = remainder(d, 2 * M_PI);
			turned += d;
			rate_sum += SIM_G0_M_S2 * tan(roll) / sqrt(s.vel_ned_m_s.x * s.vel_ned_m_s.x +
								      s.vel_ned_m_s.y * s.vel_ned_m_s.y);
			beta_max = fmax(beta_max, fabs(s.beta_rad));
			ay_max = fmax(ay_max, fabs(s.accel_body_m_s2.y));
			vz_sum += s.vel_ned_m_s.z;
			n++;
		}
		yaw_prev = yaw;
	}
	double rate = turned / (n * DT), expect = rate_sum / n;
	print_message("30 deg bank turn: %.2f deg/s measured, g tan(phi)/V %.2f deg/s, |beta| <= %.2f deg, "
		      "|ay| <= %.3f m/s^2, height error %.2f m, mean vz %.3f m/s\n", rate / DEG, expect / DEG,
		      beta_max / DEG, ay_max, -(s.pos_ned_m.z + 100), vz_sum / n);
	assert_true(fabs(rate - expect) < 0.03 * expect);
	assert_true(ay_max < 0.2);
	assert_true(beta_max < 2 * DEG);
}

static void test_sim_plane_at_rest_on_the_ground_stays_put(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	sim_state_init(&p, &s);
	struct sim_controls u = { 0, 0, 0, 0 };
	/* Let it settle onto its contact points first. */
	for (int i = 0; i < 500; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	struct v3 start = s.pos_ned_m;
	for (int i = 0; i < 2000; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double moved = v3_norm(v3_sub(s.pos_ned_m, start));
	print_message("4 s at rest after settling: moved %.2e m, rates %.2e rad/s, accel z %.3f m/s^2\n", moved,
		      v3_norm(s.rate_body_rad_s), s.accel_body_m_s2.z);
	assert_true(s.on_ground);
	assert_false(s.crashed);
	assert_true(moved < 0.005);
	assert_true(v3_norm(s.rate_body_rad_s) < 1e-3);
	/* At rest the accelerometer reads 1 g up. */
	assert_near(s.accel_body_m_s2.z, -SIM_G0_M_S2, 0.05);
}

static void test_sim_belly_landing_slides_to_a_stop(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	sim_state_init(&p, &s);
	s.pos_ned_m.z = -1.0;
	s.vel_ned_m_s = v3_make(11, 0, 1.0);
	s.att = quat_from_euler(0, 3 * DEG, 0);
	struct sim_controls u = { 0, 0.2, 0, 0 };
	for (int i = 0; i < 5000; i++)
		sim_model_step(&p, &s, &u, &still, DT);
	double roll, pitch, yaw;
	quat_to_euler(s.att, &roll, &pitch, &yaw);
	print_message("belly landing: slid to %.1f m, speed %.3f m/s, impact %.2f m/s, pitch %.1f deg\n",
		      s.pos_ned_m.x, v3_norm(s.vel_ned_m_s), s.impact_speed_max_m_s, pitch / DEG);
	assert_true(s.on_ground);
	assert_false(s.crashed);
	assert_true(v3_norm(s.vel_ned_m_s) < 0.1);
	assert_true(fabs(roll) < 20 * DEG && fabs(pitch) < 30 * DEG);
}

static void test_sim_hard_nose_in_is_a_crash(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	sim_airframe_default(&p);
	sim_state_init(&p, &s);
	s.pos_ned_m.z = -0.5;
	s.vel_ned_m_s = v3_make(14, 0, 8);
	s.att = quat_from_euler(0, -30 * DEG, 0);
	struct sim_controls u = { 0, 0, 0, 0 };
	double pitch_min = 0;
	for (int i = 0; i < 2500; i++) {
		sim_model_step(&p, &s, &u, &still, DT);
		double roll, pitch, yaw;
		quat_to_euler(s.att, &roll, &pitch, &yaw);
		pitch_min = fmin(pitch_min, pitch);
	}
	print_message("nose-in at 16 m/s: impact %.1f m/s, lowest pitch %.0f deg, rest speed %.3f m/s\n",
		      s.impact_speed_max_m_s, pitch_min / DEG, v3_norm(s.vel_ned_m_s));
	assert_true(s.crashed);
	assert_true(v3_norm(s.vel_ned_m_s) < 0.2);
}

static void test_sim_hand_launch_at_full_throttle_climbs_away(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_trim t;
	sim_airframe_default(&p);
	assert_int_equal(sim_trim_level(&p, SIM_RHO0_KG_M3, 13.0, &t), 0);
	sim_state_hand_launch(&p, &s, 11.0, 5.0, 90.0, 1.8);
	struct sim_controls u = { 0, t.elevator, 0, 1.0 };
	double hmin = 99, vmin = 99;
	for (int i = 0; i < 2500; i++) {
		sim_model_step(&p, &s, &u, &still, DT);
		hmin = fmin(hmin, -s.pos_ned_m.z);
		vmin = fmin(vmin, s.airspeed_m_s);
	}
	print_message("hand launch 11 m/s 5 deg up: lowest %.2f m, height after 5 s %.1f m, min airspeed %.1f m/s, "
		      "east %.1f m\n", hmin, -s.pos_ned_m.z, vmin, s.pos_ned_m.y);
	assert_false(s.on_ground);
	assert_true(hmin > 0.5);
	assert_true(-s.pos_ned_m.z > 5.0);
	assert_true(s.pos_ned_m.y > 40.0);
}

static void test_sim_battery_sags_under_load_and_drains(void **state)
{
	struct sim_airframe p;
	struct sim_state s;
	struct sim_controls u;
	sim_airframe_default(&p);
	trimmed(&p, 16.0, &s, &u);
	u.throttle = 1.0;
	sim_model_step(&p, &s, &u, &still, DT);
	double ocv = sim_batt_ocv_v(&p, s.batt_used_ah);
	print_message("full throttle at 16 m/s: %.1f A, %.2f V loaded (%.2f V open), thrust %.1f N, %.0f rpm\n",
		      s.batt_current_a, s.batt_voltage_v, ocv, s.thrust_n, s.prop_rad_s * 60 / (2 * M_PI));
	assert_true(s.batt_current_a > 10.0 && s.batt_current_a < 40.0);
	assert_near(s.batt_voltage_v, ocv - s.batt_current_a * p.batt_r_ohm, 1e-9);
	assert_true(s.batt_voltage_v < ocv - 0.2);

	/* Charge drawn integrates the current, and the open-circuit voltage falls. */
	struct sim_state b = s;
	double q = 0;
	for (int i = 0; i < 1000; i++) {
		sim_model_step(&p, &b, &u, &still, DT);
		q += b.batt_current_a * DT / 3600;
	}
	assert_near(b.batt_used_ah - s.batt_used_ah, q, 1e-12);
	assert_true(sim_batt_ocv_v(&p, 3.0) < sim_batt_ocv_v(&p, 1.0));
	assert_near(sim_batt_ocv_v(&p, 0.0), 12.6, 1e-9);
	/* Static thrust on a full pack. */
	struct sim_state g;
	struct sim_forces f;
	sim_state_init(&p, &g);
	sim_forces_eval(&p, &g, &u, &still, &f);
	print_message("static thrust %.1f N at %.1f A\n", f.thrust_n, f.batt_current_a);
	assert_true(f.thrust_n > 0.4 * p.mass_kg * SIM_G0_M_S2 && f.thrust_n < 1.2 * p.mass_kg * SIM_G0_M_S2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_free_fall_follows_half_g_t_squared),
		cmocka_unit_test(test_sim_tumbling_body_keeps_its_energy_without_aero),
		cmocka_unit_test(test_sim_lift_without_drag_does_no_work),
		cmocka_unit_test(test_sim_trimmed_cruise_holds_level_at_a_sensible_throttle),
		cmocka_unit_test(test_sim_will_not_trim_below_the_stall_speed),
		cmocka_unit_test(test_sim_full_up_elevator_at_idle_stalls_and_sinks),
		cmocka_unit_test(test_sim_best_glide_ratio_is_in_the_published_range),
		cmocka_unit_test(test_sim_full_aileron_rolls_at_a_plausible_rate),
		cmocka_unit_test(test_sim_coordinated_turn_has_the_rate_of_its_bank),
		cmocka_unit_test(test_sim_plane_at_rest_on_the_ground_stays_put),
		cmocka_unit_test(test_sim_belly_landing_slides_to_a_stop),
		cmocka_unit_test(test_sim_hard_nose_in_is_a_crash),
		cmocka_unit_test(test_sim_hand_launch_at_full_throttle_climbs_away),
		cmocka_unit_test(test_sim_battery_sags_under_load_and_drains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
