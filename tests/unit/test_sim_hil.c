// SPDX-License-Identifier: GPL-3.0-or-later
/* fulmar-sim's HIL framing without sockets: what a frame carries, in what
 * order and at what rates (docs/hil.md), and what it does with the controls
 * an autopilot sends back, good and bad. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "hil.h"
#include "mavlink/mavlink_msgs.h"

static struct sim_timeline tl;
static struct sim_world world;
static struct sim_hil hil;
static struct sim_hil_tx tx;

static void start_at(const char *timeline, unsigned int imu_hz, unsigned int sensor_hz)
{
	char err[160];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	if (sim_timeline_parse(&tl, timeline, strlen(timeline), "t", err, sizeof(err)))
		fail_msg("%s", err);
	sim_timeline_sort(&tl);
	sim_world_config_default(&c);
	/* The surfaces commanded are then the wire's (test_sim_world checks the throw). */
	c.surface_throw = 1.0;
	c.imu_hz = imu_hz;
	c.sensor_hz = sensor_hz;
	assert_int_equal(sim_world_init(&world, &c, &tl), 0);
	sim_hil_init(&hil, &world, 1, 1);
}

static void start(const char *timeline)
{
	start_at(timeline, 1000, 0);
}

/* The frames in tx, parsed back as an autopilot would. */
static unsigned int parse_tx(struct mavlink_frame *out, unsigned int max)
{
	struct mavlink_parser p;
	mavlink_parser_init(&p);
	unsigned int n = 0;
	size_t off = 0;
	bool got;
	do {
		off += mavlink_parse(&p, tx.buf + off, tx.len - off, &out[n], &got);
		if (got && n < max - 1)
			n++;
	} while (got || off < tx.len);
	assert_int_equal(p.stats.bad_crc + p.stats.bad_len + p.stats.skipped_bytes, 0);
	return n;
}

static void test_sim_hil_frame_sends_each_steps_messages_sensor_last(void **state)
{
	static struct mavlink_frame f[64];
	start("");
	assert_int_equal(sim_hil_frame(&hil, 4, &tx, NULL, NULL), 4);
	unsigned int n = parse_tx(f, 64);
	assert_int_equal(n, tx.n_msgs);
	uint64_t t_expect = 1000;
	unsigned int sensors = 0;
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(f[i].version, 2);
		assert_int_equal(f[i].sysid, 1);
		if (f[i].msgid != MAVLINK_MSG_ID_HIL_SENSOR)
			continue;
		struct mavlink_hil_sensor m;
		mavlink_hil_sensor_unpack(mavlink_payload(&f[i]), f[i].len, &m);
		assert_int_equal(m.time_usec, t_expect);
		if (sensors == 0) {
			/* the first step: everything is new, and the flight starts */
			assert_int_equal(m.fields_updated, 0x80001fffu);
			assert_true(fabsf(m.zacc + 9.8f) < 1.0f);
			assert_true(m.abs_pressure > 900.0f && m.abs_pressure < 1000.0f);   /* 584 m */
			assert_true(fabsf(m.pressure_alt - 584.0f) < 30.0f);
		} else {
			assert_int_equal(m.fields_updated, SIM_HIL_ACCEL_BITS | SIM_HIL_GYRO_BITS);
		}
		t_expect += 1000;
		sensors++;
	}
	assert_int_equal(sensors, 4);
	assert_int_equal(f[n - 1].msgid, MAVLINK_MSG_ID_HIL_SENSOR);
	/* First step: RC, battery and state come before its HIL_SENSOR. */
	assert_int_equal(f[0].msgid, MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW);
	assert_int_equal(f[1].msgid, MAVLINK_MSG_ID_BATTERY_STATUS);
	assert_int_equal(f[2].msgid, MAVLINK_MSG_ID_HIL_STATE_QUATERNION);
	assert_int_equal(f[3].msgid, MAVLINK_MSG_ID_HIL_SENSOR);
	struct mavlink_hil_rc_inputs_raw rc;
	mavlink_hil_rc_inputs_raw_unpack(mavlink_payload(&f[0]), f[0].len, &rc);
	assert_true(rc.chan1_raw == 1500 && rc.chan3_raw == 1000 && rc.chan8_raw == 1000 && rc.rssi == 255);
	struct mavlink_battery_status b;
	mavlink_battery_status_unpack(mavlink_payload(&f[1]), f[1].len, &b);
	assert_true(b.voltages[0] > 12400 && b.voltages[0] < 12800);   /* a full 3S pack */
	assert_int_equal(b.battery_remaining, 100);
}

/* One simulated second at the default rates: GPS 5 Hz (the first report a
 * latency late), RC and truth 50 Hz, battery 10 Hz, HIL_SENSOR every step. */
static void test_sim_hil_rates_over_one_second(void **state)
{
	static struct mavlink_frame f[64];
	unsigned int count[256] = { 0 };
	uint64_t first_gps_us = 0;
	start("");
	for (int i = 0; i < 250; i++) {
		sim_hil_frame(&hil, 4, &tx, NULL, NULL);
		unsigned int n = parse_tx(f, 64);
		for (unsigned int k = 0; k < n; k++) {
			count[f[k].msgid & 0xff]++;
			if (f[k].msgid == MAVLINK_MSG_ID_HIL_GPS && !first_gps_us) {
				struct mavlink_hil_gps g;
				mavlink_hil_gps_unpack(mavlink_payload(&f[k]), f[k].len, &g);
				first_gps_us = g.time_usec;
				assert_int_equal(g.fix_type, 3);
				assert_true(abs(g.lat - (int32_t)lround(-35.363261 * 1e7)) < 1000);  /* ~10 m */
				assert_true(g.satellites_visible >= 4);
			}
		}
	}
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_SENSOR], 1000);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW], 50);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_STATE_QUATERNION], 50);
	assert_int_equal(count[MAVLINK_MSG_ID_BATTERY_STATUS], 10);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_GPS], 5);
	assert_int_equal(first_gps_us, 151000);   /* measured at 1 ms, 150 ms latency */
}

/* --all-fresh: every HIL_SENSOR marks every field fresh, as many simulators
 * do, but a sensor the time-line has dropped out (here the barometer from
 * 0.5 s for 0.2 s) stays clear. */
static void test_sim_hil_all_fresh_marks_every_field_but_a_dropped_sensors(void **state)
{
	static struct mavlink_frame f[64];
	start("0.5 dropout baro 0.2");
	hil.all_fresh = true;
	unsigned int sensors = 0, without_baro = 0;
	for (int i = 0; i < 250; i++) {
		sim_hil_frame(&hil, 4, &tx, NULL, NULL);
		unsigned int n = parse_tx(f, 64);
		for (unsigned int k = 0; k < n; k++) {
			if (f[k].msgid != MAVLINK_MSG_ID_HIL_SENSOR)
				continue;
			struct mavlink_hil_sensor m;
			mavlink_hil_sensor_unpack(mavlink_payload(&f[k]), f[k].len, &m);
			uint32_t all = m.fields_updated & 0x1fffu;
			bool dropped = m.time_usec >= 500000 && m.time_usec < 700000;
			uint32_t baro = SIM_HIL_ABS_PRESSURE_BIT | SIM_HIL_PRESSURE_ALT_BIT | SIM_HIL_TEMPERATURE_BIT;
			assert_int_equal(all, dropped ? 0x1fffu & ~baro : 0x1fffu);
			without_baro += dropped;
			sensors++;
		}
	}
	assert_int_equal(sensors, 1000);
	assert_int_equal(without_baro, 200);
}

/* --sensor-hz 200 under 1000 Hz physics, in 50 Hz lock-step frames of 20
 * steps: four HIL_SENSOR a frame, every 5 ms, the last ending the frame; the
 * slower sensors and the other messages at their own rates, each going out
 * with (and stamped as) a HIL_SENSOR. */
static void test_sim_hil_sensor_hz_decimates_the_reports(void **state)
{
	static struct mavlink_frame f[64];
	unsigned int count[256] = { 0 }, baro = 0, mag = 0, pitot = 0;
	uint64_t t_expect = 5000, first_gps_us = 0;
	start_at("", 1000, 200);
	assert_int_equal(world.report_every, 5);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(sim_hil_frame(&hil, 20, &tx, NULL, NULL), 4);
		assert_int_equal(tx.n_sensor, 4);
		unsigned int n = parse_tx(f, 64);
		assert_int_equal(f[n - 1].msgid, MAVLINK_MSG_ID_HIL_SENSOR);
		uint64_t pending[8];   /* the other messages' times since the last HIL_SENSOR */
		unsigned int n_pending = 0;
		for (unsigned int k = 0; k < n; k++) {
			count[f[k].msgid & 0xff]++;
			uint64_t t = 0;
			if (f[k].msgid == MAVLINK_MSG_ID_HIL_GPS) {
				struct mavlink_hil_gps g;
				mavlink_hil_gps_unpack(mavlink_payload(&f[k]), f[k].len, &g);
				t = g.time_usec;
				if (!first_gps_us)
					first_gps_us = t;
			} else if (f[k].msgid == MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW) {
				struct mavlink_hil_rc_inputs_raw r;
				mavlink_hil_rc_inputs_raw_unpack(mavlink_payload(&f[k]), f[k].len, &r);
				t = r.time_usec;
			} else if (f[k].msgid == MAVLINK_MSG_ID_HIL_STATE_QUATERNION) {
				struct mavlink_hil_state_quaternion q;
				mavlink_hil_state_quaternion_unpack(mavlink_payload(&f[k]), f[k].len, &q);
				t = q.time_usec;
			}
			if (f[k].msgid != MAVLINK_MSG_ID_HIL_SENSOR) {
				if (t && n_pending < 8)
					pending[n_pending++] = t;
				continue;
			}
			struct mavlink_hil_sensor m;
			mavlink_hil_sensor_unpack(mavlink_payload(&f[k]), f[k].len, &m);
			assert_int_equal(m.time_usec, t_expect);
			/* the first report is the flight's start, everything in it new */
			if (t_expect == 5000)
				assert_int_equal(m.fields_updated, 0x80001fffu);
			else
				assert_int_equal(m.fields_updated & SIM_HIL_RESET_BIT, 0);
			assert_int_equal(m.fields_updated & 0x3fu, SIM_HIL_ACCEL_BITS | SIM_HIL_GYRO_BITS);
			baro += !!(m.fields_updated & SIM_HIL_ABS_PRESSURE_BIT);
			mag += !!(m.fields_updated & SIM_HIL_MAG_BITS);
			pitot += !!(m.fields_updated & SIM_HIL_DIFF_PRESSURE_BIT);
			/* what came before it belongs to its step: stamped with its time */
			for (unsigned int j = 0; j < n_pending; j++)
				assert_int_equal(pending[j], m.time_usec);
			n_pending = 0;
			t_expect += 5000;
		}
	}
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_SENSOR], 200);
	assert_int_equal(baro, 50);
	assert_int_equal(mag, 100);
	assert_int_equal(pitot, 50);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW], 50);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_STATE_QUATERNION], 50);
	assert_int_equal(count[MAVLINK_MSG_ID_BATTERY_STATUS], 10);
	assert_int_equal(count[MAVLINK_MSG_ID_HIL_GPS], 5);
	assert_int_equal(first_gps_us, 155000);   /* measured at the first report, 150 ms latency */
}

/* Each report at a lower --sensor-hz is the mean of the IMU's samples at the
 * physics steps since the last: the same world (seed, air start, so the
 * aircraft moves) reporting every step gives those samples. The mean also
 * takes the white noise down by the square root of the decimation, as the
 * noise density has it for the lower output rate. */
static void test_sim_hil_sensor_hz_reports_the_mean_of_the_steps(void **state)
{
	static struct sim_world a, b;
	struct sim_world_config c;
	sim_world_config_default(&c);
	c.air_start = true;
	c.air_start_alt_m = 100.0;
	c.air_start_speed_m_s = 18.0;
	assert_int_equal(sim_world_init(&a, &c, NULL), 0);
	c.sensor_hz = 250;
	assert_int_equal(sim_world_init(&b, &c, NULL), 0);
	struct v3 sum_g = v3_make(0, 0, 0), sum_a = v3_make(0, 0, 0);
	unsigned int reports = 0;
	for (int i = 1; i <= 2000; i++) {
		struct sim_step_out oa, ob;
		sim_world_step(&a, &oa);
		sim_world_step(&b, &ob);
		/* the same physics: the reporting changes nothing in the air */
		assert_true(v3_norm(v3_sub(a.st.pos_ned_m, b.st.pos_ned_m)) == 0.0);
		assert_true(oa.report && (oa.fresh & SIM_OUT_ACCEL));
		sum_g = v3_add(sum_g, a.pub.imu.gyro_rad_s);
		sum_a = v3_add(sum_a, a.pub.imu.accel_m_s2);
		assert_int_equal(ob.report, i % 4 == 0);
		assert_int_equal(!!(ob.fresh & (SIM_OUT_ACCEL | SIM_OUT_GYRO)), ob.report);
		if (!ob.report)
			continue;
		assert_int_equal(b.pub.imu.t_us, (uint64_t)i * 1000u);
		struct v3 dg = v3_sub(b.pub.imu.gyro_rad_s, v3_scale(sum_g, 0.25));
		struct v3 da = v3_sub(b.pub.imu.accel_m_s2, v3_scale(sum_a, 0.25));
		assert_true(v3_norm(dg) < 1e-12 && v3_norm(da) < 1e-12);
		sum_g = sum_a = v3_make(0, 0, 0);
		reports++;
	}
	assert_int_equal(reports, 500);
}

/* At rest, the gyro's scatter is its white noise: at 250 Hz, the mean of four
 * 1 kHz samples, half of it (within the scatter of 500 and 2000 samples). */
static void test_sim_hil_sensor_hz_noise_falls_with_the_rate(void **state)
{
	static struct sim_world w;
	double sd[2];
	for (int r = 0; r < 2; r++) {
		struct sim_world_config c;
		sim_world_config_default(&c);
		c.sensor_hz = r ? 250 : 0;
		assert_int_equal(sim_world_init(&w, &c, NULL), 0);
		double s1 = 0.0, s2 = 0.0;
		unsigned int n = 0;
		for (int i = 0; i < 2000; i++) {
			struct sim_step_out o;
			sim_world_step(&w, &o);
			if (!o.report)
				continue;
			double x = w.pub.imu.gyro_rad_s.x;
			s1 += x;
			s2 += x * x;
			n++;
		}
		sd[r] = sqrt(s2 / n - (s1 / n) * (s1 / n));
	}
	double ratio = sd[0] / sd[1];
	if (!(ratio > 1.7 && ratio < 2.3))
		fail_msg("gyro noise at 1000 Hz %.3g rad/s, at 250 Hz %.3g: ratio %.2f, not ~2", sd[0],
			 sd[1], ratio);
}

/* sensor_hz must divide imu_hz. */
static void test_sim_hil_sensor_hz_must_divide_the_physics_rate(void **state)
{
	static struct sim_world w;
	struct sim_world_config c;
	sim_world_config_default(&c);
	c.sensor_hz = 300;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
	c.sensor_hz = 2000;
	assert_int_equal(sim_world_init(&w, &c, NULL), -EINVAL);
	c.sensor_hz = 1000;
	assert_int_equal(sim_world_init(&w, &c, NULL), 0);
	assert_int_equal(w.report_every, 1);
}

static size_t controls_msg(uint64_t t_us, const float *c, uint8_t mode, uint64_t flags, uint8_t *out)
{
	struct mavlink_hil_actuator_controls m;
	uint8_t p[MAVLINK_MSG_HIL_ACTUATOR_CONTROLS_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_usec = t_us;
	memcpy(m.controls, c, sizeof(m.controls));
	m.mode = mode;
	m.flags = flags;
	mavlink_hil_actuator_controls_pack(&m, p);
	struct mavlink_header h = { 2, 7, 1, 1, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS };
	return mavlink_encode(&h, p, out);
}

static void test_sim_hil_applies_controls_that_answer_the_frame(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	/* docs/hil.md: aileron, elevator, rudder, throttle 0..1 */
	float c[16] = { 0.5f, -0.25f, 0.1f, 1.0f };
	start("");
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	assert_false(hil.answered);
	size_t n = controls_msg(4000, c, 128 | 1, 1, buf);
	/* byte by byte: the parser keeps its place */
	for (size_t i = 0; i < n; i++)
		sim_hil_input(&hil, buf + i, 1);
	assert_true(hil.answered);
	assert_int_equal(hil.st.controls, 1);
	assert_true(world.commanded.aileron == 0.5 && world.commanded.elevator == -0.25);
	assert_true(world.commanded.rudder == (double)0.1f);
	assert_true(world.commanded.throttle == 1.0 && world.armed);
	/* An earlier time, still after the last applied: taken but does not answer
	 * the next frame. Disarmed: the motor is off whatever the throttle says. */
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	c[3] = 0.7f;
	n = controls_msg(6000, c, 0, 1, buf);
	sim_hil_input(&hil, buf, n);
	assert_false(hil.answered);
	assert_true(world.commanded.throttle == 0.0 && !world.armed);
	assert_true(world.commanded.aileron == 0.5);
	n = controls_msg(8000, c, 0, 1, buf);
	sim_hil_input(&hil, buf, n);
	assert_true(hil.answered);
	assert_int_equal(hil.st.problems[SIM_HIL_BACKWARDS] + hil.st.problems[SIM_HIL_FUTURE], 0);
}

static void test_sim_hil_drops_bad_controls_and_says_why(void **state)
{
	uint8_t buf[4 * MAVLINK_MAX_FRAME_LEN];
	float c[16] = { 0.3f, 0.0f, 0.0f, 0.4f };
	start("");
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	sim_hil_input(&hil, buf, controls_msg(4000, c, 128, 1, buf));
	assert_true(world.commanded.aileron == (double)0.3f);
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);

	float bad[16] = { NAN, 1.0f };
	sim_hil_input(&hil, buf, controls_msg(8000, bad, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_NONFINITE], 1);
	assert_true(hil.fresh_problems & (1u << SIM_HIL_NONFINITE));
	assert_non_null(strstr(hil.problem_text[SIM_HIL_NONFINITE], "non-finite controls[0]"));
	bad[0] = 0.0f;
	bad[9] = -INFINITY;
	sim_hil_input(&hil, buf, controls_msg(8000, bad, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_NONFINITE], 2);

	/* Out of range: a throttle sent as -1..1 (the old wire), a surface past full. */
	float range[16] = { 0.1f, 0.0f, 0.0f, -0.8f };
	sim_hil_input(&hil, buf, controls_msg(8000, range, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_RANGE], 1);
	assert_non_null(strstr(hil.problem_text[SIM_HIL_RANGE], "controls[3] = -0.8"));
	range[3] = 0.5f;
	range[6] = 1.5f;
	sim_hil_input(&hil, buf, controls_msg(8000, range, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_RANGE], 2);
	assert_non_null(strstr(hil.problem_text[SIM_HIL_RANGE], "controls[6] = 1.5"));

	float other[16] = { -0.7f };
	sim_hil_input(&hil, buf, controls_msg(2000, other, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_BACKWARDS], 1);
	sim_hil_input(&hil, buf, controls_msg(9000, other, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_FUTURE], 1);
	assert_false(hil.answered);
	/* none of them applied */
	assert_true(world.commanded.aileron == (double)0.3f && world.commanded.throttle == (double)0.4f);

	/* garbage, a corrupted frame, then a good one in the same read */
	size_t off = 0;
	memcpy(buf, "\x00\x11garbage\xfd\x03", 11);
	off = 11;
	size_t n = controls_msg(8000, other, 128, 1, buf + off);
	buf[off + 20] ^= 0x40;   /* a flipped bit: bad CRC */
	off += n;
	off += controls_msg(8000, other, 128, 1, buf + off);
	hil.fresh_problems = 0;
	assert_int_equal(sim_hil_input(&hil, buf, off), 1);
	assert_true(hil.parser.stats.bad_crc + hil.parser.stats.skipped_bytes > 0);
	assert_true(hil.fresh_problems & (1u << SIM_HIL_MALFORMED));
	assert_true(hil.answered);
	assert_true(world.commanded.aileron == (double)-0.7f);
}

static void test_sim_hil_controls_without_pulses_hold_and_the_motor_stops(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	float c[16] = { 0.4f, 0.0f, 0.0f, 0.6f };
	start("");
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	sim_hil_input(&hil, buf, controls_msg(4000, c, 128, 1, buf));
	assert_true(world.commanded.aileron == (double)0.4f && world.commanded.throttle == (double)0.6f);
	/* no pulses behind the aileron (bit 32) and the throttle (bit 35): the
	 * servo holds where it was, the motor stops, whatever the values say
	 * (out of range too: a flagged value means nothing) */
	float z[16] = { 7.0f, 0.2f, 0.0f, 0.5f };
	sim_hil_input(&hil, buf, controls_msg(4000, z, 128, 1 | (1ull << 32) | (1ull << 35), buf));
	assert_int_equal(hil.st.problems[SIM_HIL_RANGE], 0);
	assert_true(world.commanded.aileron == (double)0.4f);
	assert_true(world.commanded.elevator == (double)0.2f);
	assert_true(world.commanded.throttle == 0.0);
	z[0] = 0.0f;
	sim_hil_input(&hil, buf, controls_msg(4000, z, 128, 1, buf));
	assert_true(world.commanded.aileron == 0.0 && world.commanded.throttle == 0.5);
}

/* A multirotor over the wire (docs/hil.md): controls[i] is motor i + 1's
 * output 0..1 in ArduCopter's order; a motor without pulses stops; a motor
 * below 0 is out of range, the whole message dropped; past the motors the
 * indices drive nothing (-1..1 as ever). */
static void test_sim_hil_multirotor_controls_are_its_motors(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	sim_world_config_default(&c);
	sim_airframe_quad(&c.airframe);
	assert_int_equal(sim_world_init(&world, &c, &tl), 0);
	sim_hil_init(&hil, &world, 1, 1);
	sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	float m[16] = { 0.2f, 0.4f, 0.6f, 0.8f, -0.5f };
	sim_hil_input(&hil, buf, controls_msg(4000, m, 128, 1, buf));
	assert_true(hil.answered);
	for (int i = 0; i < 4; i++)
		assert_true(world.motor_cmd[i] == (double)m[i]);
	/* no pulses to motor 2 (bit 33): its ESC stops it, whatever the value */
	m[1] = 0.5f;
	sim_hil_input(&hil, buf, controls_msg(4000, m, 128, 1 | (1ull << 33), buf));
	assert_true(world.motor_cmd[1] == 0.0 && world.motor_cmd[2] == (double)0.6f);
	/* a motor sent as -1..1: dropped and said */
	m[2] = -0.2f;
	sim_hil_input(&hil, buf, controls_msg(4000, m, 128, 1, buf));
	assert_int_equal(hil.st.problems[SIM_HIL_RANGE], 1);
	assert_non_null(strstr(hil.problem_text[SIM_HIL_RANGE], "controls[2] = -0.2, outside 0..1 (a motor)"));
	assert_true(world.motor_cmd[2] == (double)0.6f);
	/* disarmed: every motor exactly 0 */
	m[2] = 0.6f;
	sim_hil_input(&hil, buf, controls_msg(4000, m, 0, 1, buf));
	for (int i = 0; i < 4; i++)
		assert_true(world.motor_cmd[i] == 0.0);
}

static void test_sim_hil_link_loss_sends_nothing_and_takes_nothing(void **state)
{
	uint8_t buf[MAVLINK_MAX_FRAME_LEN];
	float c[16] = { 0.9f };
	start("0.002 link_loss 0.01\n");
	assert_int_equal(sim_hil_frame(&hil, 1, &tx, NULL, NULL), 1);
	assert_int_equal(sim_hil_frame(&hil, 4, &tx, NULL, NULL), 0);
	assert_int_equal(tx.len, 0);
	assert_int_equal(sim_hil_input(&hil, buf, controls_msg(1000, c, 128, 1, buf)), 0);
	assert_true(world.commanded.aileron == 0.0);
	assert_true(hil.st.link_down_bytes > 0);
	for (int i = 0; i < 3; i++)
		sim_hil_frame(&hil, 4, &tx, NULL, NULL);
	assert_int_equal(sim_hil_frame(&hil, 4, &tx, NULL, NULL), 4);   /* back at 13 ms */
}

static void test_sim_hil_same_seed_same_bytes(void **state)
{
	static uint8_t first[SIM_HIL_TX_BYTES * 4];
	size_t len = 0;
	start("0.01 throw\n");
	for (int i = 0; i < 4; i++) {
		sim_hil_frame(&hil, 50, &tx, NULL, NULL);
		memcpy(first + len, tx.buf, tx.len);
		len += tx.len;
	}
	start("0.01 throw\n");
	size_t off = 0;
	for (int i = 0; i < 4; i++) {
		sim_hil_frame(&hil, 50, &tx, NULL, NULL);
		assert_memory_equal(first + off, tx.buf, tx.len);
		off += tx.len;
	}
	assert_int_equal(off, len);
}

static void test_sim_hil_rangefinder_sends_distance_sensor_at_20_hz(void **state)
{
	char err[160];
	struct sim_world_config c;
	sim_timeline_init(&tl);
	if (sim_timeline_parse(&tl, "0.5 dropout rangefinder 0.2\n", 28, "t", err, sizeof(err)))
		fail_msg("%s", err);
	sim_world_config_default(&c);
	c.air_start = true;
	c.air_start_alt_m = 150.0;          /* past the SF11's 120 m at first: no return */
	c.air_start_speed_m_s = 15.0;
	sim_rangefinder_config_for(SIM_RANGEFINDER_SF11, &c.rangefinder);
	assert_int_equal(sim_world_init(&world, &c, &tl), 0);
	sim_hil_init(&hil, &world, 1, 1);
	static struct mavlink_frame f[SIM_HIL_TX_MSGS];
	int n = 0, in_dropout = 0;
	for (int i = 0; i < 40; i++) {
		sim_hil_frame(&hil, 25, &tx, NULL, NULL);
		unsigned int k = parse_tx(f, SIM_HIL_TX_MSGS);
		for (unsigned int j = 0; j < k; j++) {
			if (f[j].msgid != MAVLINK_MSG_ID_DISTANCE_SENSOR)
				continue;
			struct mavlink_distance_sensor d;
			mavlink_distance_sensor_unpack(mavlink_payload(&f[j]), f[j].len, &d);
			assert_int_equal(f[j].len, MAVLINK_MSG_DISTANCE_SENSOR_MAX_LEN);   /* with its extensions */
			assert_int_equal(d.min_distance, 20);
			assert_int_equal(d.max_distance, 12000);
			assert_int_equal(d.type, 0);
			assert_int_equal(d.id, 0);
			assert_int_equal(d.orientation, 25);
			assert_int_equal(d.covariance, 255);
			assert_int_equal(d.current_distance, 12001);       /* no return */
			assert_int_equal(d.signal_quality, 1);
			assert_true((d.time_boot_ms - 1) % 50 == 0);   /* from the first report, at 1 ms */
			if (d.time_boot_ms > 500 && d.time_boot_ms < 700)
				in_dropout++;
			n++;
		}
	}
	assert_int_equal(in_dropout, 0);
	assert_int_equal(n, 20 - 4);               /* 20 Hz over a second, less the dropout's */
	/* Lower down, a reading of the beam's length in centimetres. */
	world.st.pos_ned_m.z = -30.0;
	for (int i = 0; i < 4; i++) {
		sim_hil_frame(&hil, 25, &tx, NULL, NULL);
		unsigned int k = parse_tx(f, SIM_HIL_TX_MSGS);
		for (unsigned int j = 0; j < k; j++) {
			if (f[j].msgid != MAVLINK_MSG_ID_DISTANCE_SENSOR)
				continue;
			struct mavlink_distance_sensor d;
			mavlink_distance_sensor_unpack(mavlink_payload(&f[j]), f[j].len, &d);
			if (d.signal_quality == 1)
				continue;                  /* a dropout's 1 % */
			assert_true(fabs(d.current_distance - 100.0 * world.rangefinder_pub.true_m) < 30.0);
			assert_true(d.signal_quality > 50);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_hil_frame_sends_each_steps_messages_sensor_last),
		cmocka_unit_test(test_sim_hil_rates_over_one_second),
		cmocka_unit_test(test_sim_hil_all_fresh_marks_every_field_but_a_dropped_sensors),
		cmocka_unit_test(test_sim_hil_sensor_hz_decimates_the_reports),
		cmocka_unit_test(test_sim_hil_sensor_hz_reports_the_mean_of_the_steps),
		cmocka_unit_test(test_sim_hil_sensor_hz_noise_falls_with_the_rate),
		cmocka_unit_test(test_sim_hil_sensor_hz_must_divide_the_physics_rate),
		cmocka_unit_test(test_sim_hil_applies_controls_that_answer_the_frame),
		cmocka_unit_test(test_sim_hil_drops_bad_controls_and_says_why),
		cmocka_unit_test(test_sim_hil_controls_without_pulses_hold_and_the_motor_stops),
		cmocka_unit_test(test_sim_hil_multirotor_controls_are_its_motors),
		cmocka_unit_test(test_sim_hil_link_loss_sends_nothing_and_takes_nothing),
		cmocka_unit_test(test_sim_hil_same_seed_same_bytes),
		cmocka_unit_test(test_sim_hil_rangefinder_sends_distance_sensor_at_20_hz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
