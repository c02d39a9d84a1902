// SPDX-License-Identifier: GPL-3.0-or-later
/* tools/sim world: the hand launch as the accelerometer feels it, the
 * time-line's faults and scripted pilot as the autopilot would see them,
 * controls, and determinism of the ground truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wmm_field.h"
#include "world.h"

#define DEG (M_PI / 180.0)
#define G SIM_G0_M_S2
#define assert_near_world(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static struct sim_timeline tl;
static struct sim_world w, w2;
static struct sim_step_out out;

static void start(const char *timeline, uint64_t seed)
{
	char err[160];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	if (sim_timeline_parse(&tl, timeline, strlen(timeline), "t", err, sizeof(err)) != 0)
		fail_msg("%s", err);
	sim_timeline_sort(&tl);
	sim_world_config_default(&c);
	c.seed = seed;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
}

static void run_to(double t_s)
{
	while (sim_world_time_us(&w) < (uint64_t)llround(t_s * 1e6))
		sim_world_step(&w, &out);
}

static bool noted(const char *what)
{
	for (unsigned int i = 0; i < out.n_notes; i++)
		if (strstr(out.notes[i], what))
			return true;
	return false;
}

/* Surfaces as the model applies them (fractions of the airframe's travel),
 * sent as an autopilot sends them (docs/hil.md: over surface_throw). */
static void set_controls(double ail, double elev, double thr, double rud, uint8_t mode)
{
	float c[SIM_ACTUATORS] = { 0 };
	double k = w.cfg.surface_throw;
	c[SIM_CTL_AILERON] = (float)(ail / k);
	c[SIM_CTL_ELEVATOR] = (float)(elev / k);
	c[SIM_CTL_RUDDER] = (float)(rud / k);
	c[SIM_CTL_THROTTLE] = (float)thr;
	assert_int_equal(sim_world_set_actuators(&w, c, mode, sim_world_time_us(&w)), 0);
}

static void test_sim_world_without_a_throw_starts_at_rest_on_the_ground(void **state)
{
	start("", 1);
	sim_world_step(&w, &out);
	/* settled before the flight starts: the first sample is of a plane at rest */
	assert_true(fabs(w.st.accel_body_m_s2.z + G) < 0.05);
	assert_true(fabs(w.st.vel_ned_m_s.z) < 1e-3);
	run_to(2.0);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_GROUND);
	assert_true(v3_norm(w.st.vel_ned_m_s) < 0.01);
	assert_true(fabs(w.st.pos_ned_m.z) < 0.2);
	assert_false(w.st.crashed);
}

/* The cub on its wheels in a wind above its stall speed, from ahead or the
 * side: held where it stands (its pitot feels the wind) until the autopilot
 * arms; then free, and the wind moves it. */
static void test_sim_world_a_wheeled_airframe_is_held_until_armed(void **state)
{
	(void)state;
	static const double from_deg[2] = { 0.0, 90.0 };
	for (int k = 0; k < 2; k++) {
		char err[160];
		struct sim_world_config c;
		sim_timeline_init(&tl);
		assert_int_equal(sim_timeline_parse(&tl, "", 0, "t", err, sizeof(err)), 0);
		sim_world_config_default(&c);
		assert_int_equal(sim_airframe_by_name("cub", &c.airframe), 0);
		c.wind.speed_m_s = 10.0;
		c.wind.from_deg = from_deg[k];
		assert_int_equal(sim_world_init(&w, &c, &tl), 0);
		struct v3 p0 = w.st.pos_ned_m;
		run_to(10.0);
		assert_int_equal(sim_world_phase(&w), SIM_PHASE_GROUND);
		assert_true(v3_norm(v3_sub(w.st.pos_ned_m, p0)) < 1e-9);
		assert_true(w.st.airspeed_m_s > 8.0);
		assert_true(fabs(w.st.accel_body_m_s2.z + G * cos(sim_airframe_rest_pitch_rad(&c.airframe))) < 0.1);
		set_controls(0.0, 0.0, 0.0, 0.0, 128);
		run_to(14.0);
		print_message("10 m/s from %.0f deg: 4 s after the arming it moved %.1f m\n", from_deg[k],
			      v3_norm(v3_sub(w.st.pos_ned_m, p0)));
		assert_true(v3_norm(v3_sub(w.st.pos_ned_m, p0)) > 0.05);
	}
}

/* In the hand: still, level, 1.7 m up; the IMU reads gravity and noise only. */
static void test_sim_world_held_in_the_hand_the_imu_feels_gravity_only(void **state)
{
	start("30 throw\n", 3);
	struct v3 sum = { 0 }, sum2 = { 0 }, gsum = { 0 };
	int n = 0;
	for (int i = 0; i < 2000; i++) {
		sim_world_step(&w, &out);
		assert_int_equal(sim_world_phase(&w), SIM_PHASE_HELD);
		assert_true(out.fresh & SIM_OUT_ACCEL);
		struct v3 a = w.pub.imu.accel_m_s2;
		sum = v3_add(sum, a);
		sum2 = v3_add(sum2, v3_make(a.x * a.x, a.y * a.y, a.z * a.z));
		gsum = v3_add(gsum, w.pub.imu.gyro_rad_s);
		n++;
	}
	assert_true(fabs(w.st.pos_ned_m.z + 1.7) < 1e-9);
	assert_true(v3_norm(w.st.vel_ned_m_s) == 0.0);
	struct v3 m = v3_scale(sum, 1.0 / n);
	double sd_x = sqrt(sum2.x / n - m.x * m.x);
	print_message("held: accel mean %.3f %.3f %.3f m/s^2, sd x %.4f, gyro mean %.3f deg/s\n", m.x, m.y, m.z,
		      sd_x, gsum.x / n / DEG);
	/* Turn-on biases are up to ~0.6 m/s^2 (3 sigma) and scale errors 1 %. */
	assert_true(fabs(m.x) < 0.8 && fabs(m.y) < 0.8);
	assert_true(fabs(m.z + G) < 0.8);
	/* White noise only: 400 ug/rtHz at 1 kHz is about 0.12 m/s^2. */
	assert_true(sd_x > 0.05 && sd_x < 0.3);
	assert_true(fabs(gsum.x / n) < 1.2 * DEG);
}

/* The throw: several g along the nose for a quarter of a second, out of the
 * hand at 10-12 m/s a few degrees nose up; with the motor on it flies away. */
static void test_sim_world_throw_accelerates_it_to_flying_speed(void **state)
{
	start("1 throw\n", 4);
	run_to(1.0);
	set_controls(0, 0.05, 1.0, 0, 128);
	double peak_truth = 0, peak_imu = 0;
	uint64_t t_throw = 0, t_release = 0;
	while (sim_world_time_us(&w) < 1600000) {
		sim_world_step(&w, &out);
		enum sim_phase ph = sim_world_phase(&w);
		if (ph == SIM_PHASE_THROW && !t_throw)
			t_throw = out.t_us;
		if (t_throw && ph != SIM_PHASE_THROW && !t_release) {
			t_release = out.t_us;
			double roll, pitch, yaw;
			quat_to_euler(w.st.att, &roll, &pitch, &yaw);
			double v = v3_norm(w.st.vel_ned_m_s);
			print_message("released after %.3f s at %.2f m/s, pitch %.1f deg, %.2f m up\n",
				      (double)(t_release - t_throw) * 1e-6, v, pitch / DEG, -w.st.pos_ned_m.z);
			assert_true(v >= 10.0 && v <= 12.0);
			assert_true(pitch / DEG > 2.0 && pitch / DEG < 10.0);
		}
		if (ph == SIM_PHASE_THROW) {
			peak_truth = fmax(peak_truth, w.st.accel_body_m_s2.x);
			peak_imu = fmax(peak_imu, w.pub.imu.accel_m_s2.x);
		}
	}
	print_message("throw: peak specific force %.1f g (IMU %.1f g)\n", peak_truth / G, peak_imu / G);
	assert_true(t_throw >= 1000000 && t_throw <= 1002000);
	assert_true(t_release > t_throw);
	double dur = (double)(t_release - t_throw) * 1e-6;
	assert_true(dur >= 0.2 && dur <= 0.3);
	assert_true(peak_truth > 3.0 * G && peak_truth < 5.5 * G);
	assert_true(peak_imu > 3.0 * G);
	run_to(6.0);
	print_message("5 s after the throw: %.1f m up, %.1f m north, %.1f m/s\n", -w.st.pos_ned_m.z, w.st.pos_ned_m.x,
		      w.st.airspeed_m_s);
	assert_false(w.st.crashed);
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_AIR);
	assert_true(w.st.pos_ned_m.x > 40.0);
	assert_true(-w.st.pos_ned_m.z > 3.0);
}

static void test_sim_world_throw_without_the_motor_glides_down(void **state)
{
	start("0.5 throw\n", 5);
	run_to(10.0);
	assert_true(w.st.on_ground);
	assert_false(w.st.crashed);
	assert_true(w.st.pos_ned_m.x > 5.0);
}

static void test_sim_world_gps_loss_and_glitch_show_in_the_reports(void **state)
{
	start("2 gps_loss 1\n5 gps_glitch 1 100 -40\n", 6);
	run_to(1.9);
	struct sim_gps_sample before = w.pub.gps;
	assert_int_equal(before.fix_type, 3);
	int nofix = 0, reports = 0;
	bool began = false, ended = false;
	while (sim_world_time_us(&w) < 3500000) {
		sim_world_step(&w, &out);
		began |= noted("2.000 gps_loss 1");
		ended |= noted("3.000 gps_loss end");
		if (!(out.fresh & SIM_OUT_GPS))
			continue;
		bool in = out.t_us >= 2000000 && out.t_us < 3000000;
		assert_int_equal(w.pub.gps.fix_type, in ? 1 : 3);
		nofix += in;
		reports++;
	}
	assert_true(began && ended);
	assert_int_equal(nofix, 5);   /* 5 Hz for 1 s */
	assert_true(reports >= 7);
	/* The glitch: the reported position jumps 100 m north, 40 m west. */
	run_to(4.95);
	struct sim_lla p0 = { w.pub.gps.lat_deg, w.pub.gps.lon_deg, w.pub.gps.alt_m };
	struct v3 n0 = sim_lla_to_ned(&w.cfg.home, &p0);
	run_to(5.25);
	struct sim_lla p1 = { w.pub.gps.lat_deg, w.pub.gps.lon_deg, w.pub.gps.alt_m };
	struct v3 n1 = sim_lla_to_ned(&w.cfg.home, &p1);
	assert_true(fabs(n1.x - n0.x - 100.0) < 2.0);
	assert_true(fabs(n1.y - n0.y + 40.0) < 2.0);
	run_to(6.5);
	struct sim_lla p2 = { w.pub.gps.lat_deg, w.pub.gps.lon_deg, w.pub.gps.alt_m };
	struct v3 n2 = sim_lla_to_ned(&w.cfg.home, &p2);
	assert_true(fabs(n2.x - n0.x) < 2.0);
}

/* With the GPS's noise off, each report is exactly where the aircraft was
 * the configured latency earlier: watched during the throw and climb-out,
 * when it moves at 11 m/s. */
static void test_sim_world_gps_reports_the_position_of_its_latency_ago(void **state)
{
	static struct v3 past[2000];
	char err[160];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	assert_int_equal(sim_timeline_parse(&tl, "0.5 throw\n", 10, "t", err, sizeof(err)), 0);
	sim_world_config_default(&c);
	c.sensors.gps_h_sigma_m = c.sensors.gps_v_sigma_m = c.sensors.gps_vel_sigma_m_s = 0.0;
	c.sensors.gps_latency_s = 0.3;
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
	set_controls(0, 0.05, 1.0, 0, 128);
	int checked = 0;
	while (sim_world_time_us(&w) < 3000000) {
		sim_world_step(&w, &out);
		uint64_t k = out.t_us / 1000;
		past[k % 2000] = w.st.pos_ned_m;
		if (!(out.fresh & SIM_OUT_GPS))
			continue;
		assert_int_equal(w.pub.gps.t_us - w.pub.gps.t_fix_us, 300000);
		if (out.t_us < 400000)
			continue;
		struct sim_lla p = { w.pub.gps.lat_deg, w.pub.gps.lon_deg, w.pub.gps.alt_m };
		struct v3 n = sim_lla_to_ned(&w.cfg.home, &p);
		struct v3 then = past[(k - 300) % 2000];
		assert_true(v3_norm(v3_sub(n, then)) < 0.01);
		/* and not where it is now, once it moves */
		if (out.t_us > 1000000)
			assert_true(v3_norm(v3_sub(n, w.st.pos_ned_m)) > 2.0);
		checked++;
	}
	assert_true(checked >= 12);
}

/* The pitot's and magnetometer's noise as configured, seen through the world
 * (the aircraft at rest on the ground in still air). */
static void test_sim_world_pitot_and_magnetometer_noise_match_their_configuration(void **state)
{
	start("", 12);
	double dp = 0, dp2 = 0, mx = 0, mx2 = 0;
	int na = 0, nm = 0;
	while (sim_world_time_us(&w) < 20000000) {
		sim_world_step(&w, &out);
		if (out.fresh & SIM_OUT_AIRSPEED) {
			dp += w.pub.airspeed.diff_pressure_pa;
			dp2 += w.pub.airspeed.diff_pressure_pa * w.pub.airspeed.diff_pressure_pa;
			na++;
		}
		if (out.fresh & SIM_OUT_MAG) {
			mx += w.pub.mag.field_gauss.x;
			mx2 += w.pub.mag.field_gauss.x * w.pub.mag.field_gauss.x;
			nm++;
		}
	}
	double sd_dp = sqrt(dp2 / na - (dp / na) * (dp / na));
	double sd_mx = sqrt(mx2 / nm - (mx / nm) * (mx / nm));
	print_message("pitot sd %.3f Pa over %d, mag x sd %.5f G over %d\n", sd_dp, na, sd_mx, nm);
	assert_int_equal(na, 1000);   /* 50 Hz */
	assert_int_equal(nm, 2000);   /* 100 Hz */
	assert_true(fabs(sd_dp - w.cfg.sensors.airspeed_noise_pa) < 0.1 * w.cfg.sensors.airspeed_noise_pa);
	assert_true(fabs(dp / na) < 0.2);
	assert_true(fabs(sd_mx - w.cfg.sensors.mag_noise_gauss) < 0.1 * w.cfg.sensors.mag_noise_gauss);
}

static void test_sim_world_dropout_clears_and_freeze_holds(void **state)
{
	start("1 dropout imu 0.5\n1 freeze baro 1\n1 dropout battery 0\n", 7);
	run_to(1.0);
	double p_before = w.pub.baro.pressure_pa;
	int imu = 0, baro = 0, batt = 0;
	while (sim_world_time_us(&w) < 1400000) {
		sim_world_step(&w, &out);
		imu += (out.fresh & (SIM_OUT_ACCEL | SIM_OUT_GYRO)) != 0;
		if (out.fresh & SIM_OUT_BARO) {
			baro++;
			assert_true(w.pub.baro.pressure_pa == p_before);
		}
		batt += (out.fresh & SIM_OUT_BATT) != 0;
	}
	assert_int_equal(imu, 0);
	assert_int_equal(baro, 20);   /* still flagged: 50 Hz for 0.4 s */
	run_to(2.5);
	assert_true(out.fresh & SIM_OUT_ACCEL);
	assert_true(w.pub.baro.pressure_pa != p_before);
	while (sim_world_time_us(&w) < 4000000) {
		sim_world_step(&w, &out);
		batt += (out.fresh & SIM_OUT_BATT) != 0;
	}
	assert_int_equal(batt, 0);    /* for good */
}

static void test_sim_world_bias_steps_shift_the_mean(void **state)
{
	start("1 bias accel 0.5 0 0\n1 bias gyro 0 0 2\n1 bias baro 100\n", 8);
	double ax0 = 0, gz0 = 0, ax1 = 0, gz1 = 0, p0 = 0, p1 = 0;
	for (int i = 0; i < 1000; i++) {
		sim_world_step(&w, &out);
		ax0 += w.pub.imu.accel_m_s2.x;
		gz0 += w.pub.imu.gyro_rad_s.z;
		p0 += w.pub.baro.pressure_pa;
	}
	for (int i = 0; i < 1000; i++) {
		sim_world_step(&w, &out);
		ax1 += w.pub.imu.accel_m_s2.x;
		gz1 += w.pub.imu.gyro_rad_s.z;
		p1 += w.pub.baro.pressure_pa;
	}
	assert_true(fabs((ax1 - ax0) / 1000 - 0.5) < 0.03);
	assert_true(fabs((gz1 - gz0) / 1000 / DEG - 2.0) < 0.1);
	/* the baro lags 50 ms behind a step: compare the settled part */
	assert_true(fabs((p1 - p0) / 1000 - 100.0) < 10.0);
}

static void test_sim_world_scripted_pilot_and_rc_loss(void **state)
{
	start("1 rc 8=1800 1=1700\n2 rc off\n3 rc on\n4 rc_loss 0.5\n", 9);
	sim_world_step(&w, &out);
	assert_true(out.fresh & SIM_OUT_RC);
	assert_int_equal(w.rc_pwm_us[7], 1000);   /* the mode switch's default */
	assert_int_equal(w.rc_pwm_us[2], 1000);   /* throttle low */
	assert_int_equal(w.rc_pwm_us[0], 1500);
	int frames[6] = { 1 };
	while (sim_world_time_us(&w) < 5000000) {
		sim_world_step(&w, &out);
		if (out.fresh & SIM_OUT_RC)
			frames[out.t_us / 1000000]++;
		if (out.t_us == 1500000)
			assert_true(w.rc_pwm_us[7] == 1800 && w.rc_pwm_us[0] == 1700 && w.rc_pwm_us[1] == 1500);
	}
	assert_int_equal(frames[0], 50);
	assert_int_equal(frames[1], 50);   /* 1 s - 2 s */
	assert_int_equal(frames[2], 0);    /* off */
	assert_int_equal(frames[3], 50);
	assert_int_equal(frames[4], 25);   /* lost for half of it */
}

static void test_sim_world_link_loss_motor_failure_and_wind_step(void **state)
{
	start("1 link_loss 0.25\n2 motor_fail 1\n4 wind 10 90\n", 10);
	set_controls(0, 0, 1.0, 0, 128);
	int down = 0;
	while (sim_world_time_us(&w) < 1500000) {
		sim_world_step(&w, &out);
		down += !out.link_up;
	}
	assert_int_equal(down, 250);
	run_to(1.9);
	assert_true(w.st.thrust_n > 5.0);
	run_to(2.5);
	assert_true(w.applied.throttle == 0.0 && w.commanded.throttle == 1.0);
	assert_true(w.st.thrust_n == 0.0);
	run_to(3.5);
	assert_true(w.st.thrust_n > 5.0);
	run_to(4.1);
	/* from the east: blowing west */
	assert_true(fabs(w.wind_ned_m_s.y + 10.0) < 1e-9 && fabs(w.wind_ned_m_s.x) < 1e-9);
}

static void test_sim_world_never_applies_a_non_finite_or_out_of_range_control(void **state)
{
	start("", 11);
	float good[SIM_ACTUATORS] = { 0.25f, 0.0f, 0.0f, 0.5f };
	assert_int_equal(sim_world_set_actuators(&w, good, 128, 5), 0);
	struct sim_controls before = w.commanded;
	float c[SIM_ACTUATORS] = { 0.9f, 0.9f, 0.9f, 0.9f };
	c[6] = NAN;
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), -EINVAL);
	c[6] = 0;
	c[1] = INFINITY;
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 5), -EINVAL);
	c[1] = 1.01f;
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 5), -ERANGE);
	c[1] = 0.0f;
	c[SIM_CTL_THROTTLE] = -0.8f;   /* a throttle sent as -1..1 */
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 5), -ERANGE);
	c[SIM_CTL_THROTTLE] = 0.9f;
	c[12] = -1.5f;
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 5), -ERANGE);
	assert_memory_equal(&w.commanded, &before, sizeof(before));
	assert_true(w.armed && w.actuators[SIM_CTL_AILERON] == 0.25f);
}

/* The same pulse widths move the same surfaces and give the same throttle as
 * when the wire carried (pwm - 1500) / 500 for every channel, read by the
 * simulator as (x + 1) / 2 for the throttle: fulmar's default 1100/1500/1900
 * surfaces, the demonstration's 1000-2000 us ESC. */
static void test_sim_world_same_pulses_same_deflections_and_thrust_as_before(void **state)
{
	start("", 12);
	for (int pwm = 1100; pwm <= 1900; pwm += 10) {
		float c[SIM_ACTUATORS] = { 0 };
		c[SIM_CTL_AILERON] = ((float)pwm - 1500.0f) / 400.0f;
		c[SIM_CTL_ELEVATOR] = -c[SIM_CTL_AILERON];
		c[SIM_CTL_RUDDER] = c[SIM_CTL_AILERON];
		int thr_pwm = 1000 + (pwm - 1100) * 1000 / 800;
		c[SIM_CTL_THROTTLE] = ((float)thr_pwm - 1000.0f) / 1000.0f;
		assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
		double old_surface = ((double)pwm - 1500.0) / 500.0;
		double old_thr = (((double)thr_pwm - 1500.0) / 500.0 + 1.0) / 2.0;
		assert_true(fabs(w.commanded.aileron - old_surface) < 1e-6);
		assert_true(fabs(w.commanded.elevator + old_surface) < 1e-6);
		assert_true(fabs(w.commanded.rudder - old_surface) < 1e-6);
		assert_true(fabs(w.commanded.throttle - old_thr) < 1e-6);
	}
}

/* The throttle is the motor's 0..1, and nothing while disarmed. */
static void test_sim_world_throttle_is_0_to_1_and_off_while_disarmed(void **state)
{
	start("", 13);
	float c[SIM_ACTUATORS] = { 0 };
	c[SIM_CTL_THROTTLE] = 0.0f;
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
	run_to(0.5);
	assert_true(w.commanded.throttle == 0.0 && w.st.thrust_n == 0.0);
	/* disarmed: the motor stays off at full throttle; the surfaces still move */
	c[SIM_CTL_THROTTLE] = 1.0f;
	c[SIM_CTL_ELEVATOR] = 0.5f;
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 5), 0);
	run_to(1.0);
	assert_true(w.applied.throttle == 0.0 && w.st.thrust_n == 0.0);
	assert_true(fabs(w.applied.elevator - 0.5 * w.cfg.surface_throw) < 1e-9);
	/* on the ground it does not creep */
	assert_true(hypot(w.st.vel_ned_m_s.x, w.st.vel_ned_m_s.y) < 0.01);
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
	run_to(1.5);
	assert_true(w.applied.throttle == 1.0 && w.st.thrust_n > 5.0);
}

/* Elevons and V-tails (control/servo.h's mixing, gain g) fly as the aileron,
 * elevator and rudder they stand for: g times the command, then the throw. */
static void test_sim_world_elevons_and_vtails_fly_as_the_surfaces_they_mix(void **state)
{
	start("", 14);
	const double g = 0.5, k = w.cfg.surface_throw;
	double ail = 0.4, elev = 0.2, rud = -0.6;
	float c[SIM_ACTUATORS] = { 0 };
	c[SIM_CTL_ELEVON_LEFT] = (float)(g * (elev - ail));
	c[SIM_CTL_ELEVON_RIGHT] = (float)(g * (elev + ail));
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
	assert_true(fabs(w.commanded.aileron - k * g * ail) < 1e-6);
	assert_true(fabs(w.commanded.elevator - k * g * elev) < 1e-6);
	assert_true(w.commanded.rudder == 0.0);
	memset(c, 0, sizeof(c));
	c[SIM_CTL_VTAIL_LEFT] = (float)(g * (elev - rud));
	c[SIM_CTL_VTAIL_RIGHT] = (float)(g * (elev + rud));
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
	assert_true(fabs(w.commanded.rudder - k * g * rud) < 1e-6);
	assert_true(fabs(w.commanded.elevator - k * g * elev) < 1e-6);
	assert_true(w.commanded.aileron == 0.0);
	/* with a conventional tail too, the sum is held to full travel */
	c[SIM_CTL_ELEVATOR] = 1.0f;
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 5), 0);
	assert_true(fabs(w.commanded.elevator - k) < 1e-9);
}

static int columns(const char *line)
{
	int n = 1;
	for (; *line; line++)
		n += *line == ',';
	return n;
}

static void test_sim_world_truth_is_deterministic_and_well_formed(void **state)
{
	static char a[400][600], b[600];
	start("0.5 throw\n1 gps_glitch 1 5 5\n", 42);
	for (int i = 0; i < 400; i++) {
		run_to(0.01 * (i + 1));
		set_controls(sin(i * 0.1) * 0.3, 0.1, 0.8, 0, 128);
		assert_true(sim_truth_csv_row(&w, i == 100 ? "1.000 gps_glitch 1 5 5;x,y" : "", a[i], sizeof(a[i])) <
			    (int)sizeof(a[i]));
	}
	w2 = w;
	start("0.5 throw\n1 gps_glitch 1 5 5\n", 42);
	for (int i = 0; i < 400; i++) {
		run_to(0.01 * (i + 1));
		set_controls(sin(i * 0.1) * 0.3, 0.1, 0.8, 0, 128);
		sim_truth_csv_row(&w, i == 100 ? "1.000 gps_glitch 1 5 5;x,y" : "", b, sizeof(b));
		assert_string_equal(a[i], b);
	}
	assert_memory_equal(&w.st, &w2.st, sizeof(w.st));
	char h[600];
	sim_truth_csv_header(&w, h, sizeof(h));
	assert_int_equal(columns(h), columns(a[0]));
	assert_int_equal(columns(h), columns(a[100]));   /* the comma in the event is gone */
	assert_non_null(strstr(a[100], ",1.000 gps_glitch 1 5 5;x y\n"));
	/* another seed, another flight */
	start("0.5 throw\n", 43);
	run_to(1.0);
	sim_truth_csv_row(&w, "", b, sizeof(b));
	assert_string_not_equal(a[99], b);
}

/* A plane's truth has the columns it always had, to the byte (the planes fly
 * byte-identically whatever else airframes add). */
static void test_sim_world_plane_truth_columns_are_unchanged(void **state)
{
	start("", 1);
	char h[1024];
	int n = sim_truth_csv_header(&w, h, sizeof(h));
	assert_string_equal(h,
			    "t_s,phase,lat_deg,lon_deg,alt_msl_m,pos_n_m,pos_e_m,pos_d_m,"
			    "vel_n_m_s,vel_e_m_s,vel_d_m_s,q_w,q_x,q_y,q_z,roll_deg,pitch_deg,yaw_deg,"
			    "rate_p_deg_s,rate_q_deg_s,rate_r_deg_s,airspeed_m_s,alpha_deg,beta_deg,"
			    "wind_n_m_s,wind_e_m_s,wind_d_m_s,aileron,elevator,rudder,throttle_cmd,throttle,"
			    "thrust_n,armed,batt_v,batt_a,batt_used_mah,on_ground,crashed,impact_m_s,events\n");
	assert_int_equal(n, (int)strlen(h));
	/* cut short, it says how much it needed */
	char small[16];
	assert_int_equal(sim_truth_csv_header(&w, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void start_airframe(const char *airframe, const char *timeline)
{
	char err[160];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	if (sim_timeline_parse(&tl, timeline, strlen(timeline), "t", err, sizeof(err)) != 0)
		fail_msg("%s", err);
	sim_timeline_sort(&tl);
	sim_world_config_default(&c);
	assert_int_equal(sim_airframe_by_name(airframe, &c.airframe), 0);
	assert_int_equal(sim_world_init(&w, &c, &tl), 0);
}

/* docs/hil.md: on a multirotor controls[i] is motor i + 1's output 0..1,
 * ArduCopter's order, and exactly 0 while disarmed; no surfaces. */
static void test_sim_world_multirotor_controls_are_its_motors_in_order(void **state)
{
	start_airframe("quad", "");
	assert_int_equal(sim_world_phase(&w), SIM_PHASE_GROUND);
	assert_false(w.ground_held);
	for (int i = 0; i < SIM_ACTUATORS; i++)
		assert_int_equal(sim_world_ctl_is_motor(&w, i), i < 4);
	float c[SIM_ACTUATORS] = { 0.2f, 0.3f, 0.4f, 0.5f, -0.5f };
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_true(w.motor_cmd[i] == (double)c[i]);
	assert_true(w.commanded.aileron == 0.0 && w.commanded.elevator == 0.0 && w.commanded.rudder == 0.0);
	assert_near_world(w.commanded.throttle, 0.35, 1e-7);
	run_to(0.2);
	for (int i = 0; i < 4; i++)
		assert_true(w.motor_out[i] == w.motor_cmd[i] && w.st.esc_out[i] == w.motor_cmd[i]);
	/* each motor its own output: the speeds in the outputs' order */
	assert_true(w.st.motor_rad_s[0] > 100.0);
	for (int i = 1; i < 4; i++)
		assert_true(w.st.motor_rad_s[i] > w.st.motor_rad_s[i - 1] + 10.0);
	/* a motor output below 0 or above 1 is refused whole; index 4 is no motor */
	float bad[SIM_ACTUATORS] = { 0.2f, -0.1f, 0.4f, 0.5f };
	assert_int_equal(sim_world_set_actuators(&w, bad, 128, 0), -ERANGE);
	bad[1] = 1.01f;
	assert_int_equal(sim_world_set_actuators(&w, bad, 128, 0), -ERANGE);
	assert_true(w.motor_cmd[1] == (double)0.3f);
	/* disarmed: every motor exactly 0, whatever the outputs say */
	assert_int_equal(sim_world_set_actuators(&w, c, 0, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_true(w.motor_cmd[i] == 0.0);
	run_to(0.6);
	for (int i = 0; i < 4; i++)
		assert_true(w.motor_out[i] == 0.0 && w.st.motor_rad_s[i] < 1.0);
	assert_true(w.st.thrust_n < 0.01 && w.applied.throttle == 0.0);

	/* the hexa's six */
	start_airframe("hexa", "");
	for (int i = 0; i < SIM_ACTUATORS; i++)
		assert_int_equal(sim_world_ctl_is_motor(&w, i), i < 6);
	float h[SIM_ACTUATORS] = { 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, -1.0f };
	assert_int_equal(sim_world_set_actuators(&w, h, 128, 0), 0);
	for (int i = 0; i < 6; i++)
		assert_true(w.motor_cmd[i] == (double)h[i]);

	/* a plane's controls are as they were: index 0 is the aileron */
	start("", 3);
	assert_true(sim_world_ctl_is_motor(&w, SIM_CTL_THROTTLE));
	assert_false(sim_world_ctl_is_motor(&w, 0));
}

/* motor_fail stops every motor of a multirotor; it comes back after. */
static void test_sim_world_multirotor_motor_fail_stops_every_motor(void **state)
{
	start_airframe("quad", "0.5 motor_fail 0.5\n");
	float c[SIM_ACTUATORS] = { 0.3f, 0.3f, 0.3f, 0.3f };
	assert_int_equal(sim_world_set_actuators(&w, c, 128, 0), 0);
	run_to(0.45);
	assert_true(w.st.thrust_n > 5.0);
	run_to(0.9);
	for (int i = 0; i < 4; i++)
		assert_true(w.motor_out[i] == 0.0 && w.motor_cmd[i] == (double)0.3f);
	assert_true(w.st.thrust_n < 0.5 && w.applied.throttle == 0.0);
	run_to(1.3);
	assert_true(w.motor_out[0] == (double)0.3f && w.st.thrust_n > 5.0);
}

/* A multirotor's truth: the planes' columns, then its motors' outputs and
 * speeds, then the events, last as always. */
static void test_sim_world_multirotor_truth_has_its_motors(void **state)
{
	static const char *const names[2] = { "quad", "hexa" };
	for (int k = 0; k < 2; k++) {
		start_airframe(names[k], "0.1 gps_loss 1\n");
		char h[1024], r[1536], tail[256];
		sim_truth_csv_header(&w, h, sizeof(h));
		int n = k ? 6 : 4;
		size_t off = 0;
		off += (size_t)snprintf(tail + off, sizeof(tail) - off, ",impact_m_s,");
		for (int i = 1; i <= n; i++)
			off += (size_t)snprintf(tail + off, sizeof(tail) - off, "motor%d,", i);
		for (int i = 1; i <= n; i++)
			off += (size_t)snprintf(tail + off, sizeof(tail) - off, "motor%d_rad_s,", i);
		snprintf(tail + off, sizeof(tail) - off, "events\n");
		assert_non_null(strstr(h, tail));
		assert_int_equal(strlen(strstr(h, tail)), strlen(tail));
		float c[SIM_ACTUATORS] = { 0.25f, 0.5f, 0.75f, 1.0f, 0.125f, 0.0f };
		assert_int_equal(sim_world_set_actuators(&w, c, 128, 0), 0);
		run_to(0.2);
		int len = sim_truth_csv_row(&w, "0.100 gps_loss 1", r, sizeof(r));
		assert_true(len > 0 && len < (int)sizeof(r));
		assert_int_equal(columns(h), columns(r));
		assert_non_null(strstr(r, k ? ",0.2500,0.5000,0.7500,1.0000,0.1250,0.0000," : ",0.2500,0.5000,0.7500,1.0000,"));
		assert_non_null(strstr(r, ",0.100 gps_loss 1\n"));
		/* too small a buffer: cut, never overrun, and says what it needed */
		char small[300];
		memset(small, 'x', sizeof(small));
		int need = sim_truth_csv_row(&w, "", small, sizeof(small) - 8);
		assert_true(need >= (int)sizeof(small) - 8);
		for (size_t i = sizeof(small) - 8; i < sizeof(small); i++)
			assert_int_equal(small[i], 'x');
	}
}

static void test_sim_world_takes_the_earth_field_from_the_magnetic_model_at_home(void **state)
{
	struct sim_world_config c;
	sim_world_config_default(&c);
	/* the default keeps the sensors' configured field */
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	assert_true(w.cfg.sensors.mag_declination_deg == 12.5);
	/* Christchurch on a date: the full model's field there */
	c.home = (struct sim_lla){ -43.53, 172.64, 40.0 };
	c.mag_year = 2027.25;
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	struct sim_wmm f;
	assert_int_equal(sim_wmm_field(-43.53, 172.64, 40.0, 2027.25, &f), 0);
	assert_true(w.cfg.sensors.mag_declination_deg == f.decl_deg);
	assert_true(w.cfg.sensors.mag_inclination_deg == f.incl_deg);
	assert_true(fabs(w.cfg.sensors.mag_field_gauss - f.f_nt * 1e-5) < 1e-12);
	assert_true(f.decl_deg > 24.0 && f.decl_deg < 26.0);
	/* the compass sees it: the field's length, less the hard iron, at rest */
	sim_world_step(&w, &out);
	for (int i = 0; i < 200; i++)
		sim_world_step(&w, &out);
	struct v3 m = v3_sub(w.pub.mag.field_gauss, w.cfg.sensors.mag_hard_iron_gauss);
	assert_true(fabs(v3_norm(m) - f.f_nt * 1e-5) < 0.01);
	/* outside the model's life: refused */
	c.mag_year = 2031.0;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
}

static void test_sim_world_rejects_an_imu_rate_that_does_not_divide_a_second(void **state)
{
	struct sim_world_config c;
	sim_world_config_default(&c);
	c.imu_hz = 300;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
	c.imu_hz = 400;
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	sim_world_step(&w, &out);
	assert_int_equal(out.t_us, 2500);
	assert_true(out.first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_world_without_a_throw_starts_at_rest_on_the_ground),
		cmocka_unit_test(test_sim_world_a_wheeled_airframe_is_held_until_armed),
		cmocka_unit_test(test_sim_world_held_in_the_hand_the_imu_feels_gravity_only),
		cmocka_unit_test(test_sim_world_throw_accelerates_it_to_flying_speed),
		cmocka_unit_test(test_sim_world_throw_without_the_motor_glides_down),
		cmocka_unit_test(test_sim_world_gps_loss_and_glitch_show_in_the_reports),
		cmocka_unit_test(test_sim_world_gps_reports_the_position_of_its_latency_ago),
		cmocka_unit_test(test_sim_world_pitot_and_magnetometer_noise_match_their_configuration),
		cmocka_unit_test(test_sim_world_dropout_clears_and_freeze_holds),
		cmocka_unit_test(test_sim_world_bias_steps_shift_the_mean),
		cmocka_unit_test(test_sim_world_scripted_pilot_and_rc_loss),
		cmocka_unit_test(test_sim_world_link_loss_motor_failure_and_wind_step),
		cmocka_unit_test(test_sim_world_never_applies_a_non_finite_or_out_of_range_control),
		cmocka_unit_test(test_sim_world_same_pulses_same_deflections_and_thrust_as_before),
		cmocka_unit_test(test_sim_world_throttle_is_0_to_1_and_off_while_disarmed),
		cmocka_unit_test(test_sim_world_elevons_and_vtails_fly_as_the_surfaces_they_mix),
		cmocka_unit_test(test_sim_world_truth_is_deterministic_and_well_formed),
		cmocka_unit_test(test_sim_world_plane_truth_columns_are_unchanged),
		cmocka_unit_test(test_sim_world_multirotor_controls_are_its_motors_in_order),
		cmocka_unit_test(test_sim_world_multirotor_motor_fail_stops_every_motor),
		cmocka_unit_test(test_sim_world_multirotor_truth_has_its_motors),
		cmocka_unit_test(test_sim_world_takes_the_earth_field_from_the_magnetic_model_at_home),
		cmocka_unit_test(test_sim_world_rejects_an_imu_rate_that_does_not_divide_a_second),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
