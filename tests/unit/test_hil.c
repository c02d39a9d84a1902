// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The daemon's HIL link against a scripted simulator: real UDP datagrams on
 * loopback and a real pty, MAVLink frames built with the same wire code
 * fulmar-sim uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/hil.h"
#include "mavlink_msgs.h"

static struct sensor_hub hub;
static struct hil hil;
static struct servo_params servo;   /* servo_params_default's: set in main() */

struct sim {
	struct udp_sock *sock;
	struct udp_addr daemon;
	uint8_t buf[8192];
	size_t len;
	uint8_t seq;
};

static void sim_open(struct sim *s, struct link_spec *spec)
{
	struct udp_addr a;
	memset(s, 0, sizeof(*s));
	assert_int_equal(udp_addr_parse("127.0.0.1", 0, &a), 0);
	assert_int_equal(udp_open(&a, &s->sock), 0);
	assert_int_equal(udp_local_addr(s->sock, &a), 0);
	char url[64];
	snprintf(url, sizeof(url), "udp:127.0.0.1:%u",
		 ntohs(((const struct sockaddr_in *)&a.ss)->sin_port));
	assert_int_equal(hil_spec_parse(url, spec), 0);
}

/* Appends one frame to the datagram being built. */
static void sim_add(struct sim *s, uint32_t msgid, const uint8_t *payload)
{
	struct mavlink_header h = { .version = 2, .seq = s->seq++, .sysid = 1, .compid = 1,
				    .msgid = msgid };
	s->len += mavlink_encode(&h, payload, s->buf + s->len);
}

static void sim_send(struct sim *s)
{
	assert_int_equal(udp_sendto(s->sock, &s->daemon, s->buf, s->len), (int)s->len);
	s->len = 0;
}

/* Waits for the daemon's next frame and returns it. */
static void sim_expect(struct sim *s, uint32_t msgid, uint8_t *payload_out, size_t *len_out)
{
	struct pollfd p = { .fd = udp_fd(s->sock), .events = POLLIN };
	assert_int_equal(poll(&p, 1, 1000), 1);
	uint8_t d[512];
	struct udp_addr from;
	int n = udp_recvfrom(s->sock, d, sizeof(d), &from);
	assert_true(n > 0);
	s->daemon = from;
	struct mavlink_parser parser;
	struct mavlink_frame f;
	bool got;
	mavlink_parser_init(&parser);
	mavlink_parse(&parser, d, (size_t)n, &f, &got);
	assert_true(got);
	assert_int_equal(f.msgid, msgid);
	memcpy(payload_out, mavlink_payload(&f), f.len);
	*len_out = f.len;
}

static void add_sensor(struct sim *s, uint64_t t_us, uint32_t fields, float gz)
{
	struct mavlink_hil_sensor m = {
		.time_usec = t_us, .xacc = 0.1f, .yacc = -0.2f, .zacc = -9.8f,
		.xgyro = 0.01f, .ygyro = 0.02f, .zgyro = gz,
		.xmag = 0.2f, .ymag = 0.05f, .zmag = -0.5f,
		.abs_pressure = 950.25f, .diff_pressure = 1.5f, .pressure_alt = 540,
		.temperature = 21.5f, .fields_updated = fields,
	};
	uint8_t p[MAVLINK_MSG_HIL_SENSOR_MAX_LEN];
	mavlink_hil_sensor_pack(&m, p);
	sim_add(s, MAVLINK_MSG_ID_HIL_SENSOR, p);
}

static uint64_t times[64];
static unsigned int n_times;

static int record_time(void *ctx, uint64_t t_us)
{
	(void)ctx;
	if (n_times < 64)
		times[n_times++] = t_us;
	return 0;
}

/* Opens the link and plays the handshake: the daemon's heartbeat tells the simulator where it is. */
static void sim_connect(struct sim *s)
{
	struct link_spec spec;
	char err[256];
	sim_open(s, &spec);
	sensors_init(&hub, 1000, 250, NULL, NULL);
	assert_int_equal(hil_open(&hil, &spec, &hub, true, err, sizeof(err)), 0);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	uint8_t p[255];
	size_t len;
	sim_expect(s, MAVLINK_MSG_ID_HEARTBEAT, p, &len);
	n_times = 0;
}

static int receive_all(void)
{
	return hil_receive(&hil, 1000, record_time, NULL);
}

static void test_hil_urls(void **state)
{
	struct link_spec s;
	assert_int_equal(hil_spec_parse("udp:127.0.0.1:14560", &s), 0);
	assert_int_equal(s.kind, LINK_UDP_CLIENT);
	assert_int_equal(s.port, 14560);
	assert_int_equal(hil_spec_parse("serial:/dev/ttyUSB0:921600", &s), 0);
	assert_int_equal(s.kind, LINK_SERIAL);
	assert_int_equal(s.baud, 921600);
	assert_int_equal(hil_spec_parse("udp:127.0.0.1", &s), -EINVAL);
	assert_int_equal(hil_spec_parse("tcp:127.0.0.1:5760", &s), -EINVAL);
	assert_int_equal(hil_spec_parse("udp-server:0.0.0.0:14560", &s), -EINVAL);
}

static void test_hil_sensor_steps_reach_the_hub_in_si_units(void **state)
{
	struct sim s;
	sim_connect(&s);
	struct mavlink_hil_gps g = { .time_usec = 4000, .fix_type = 3, .lat = -353632610,
				     .lon = 1491652300, .alt = 584090, .eph = 120, .epv = 200,
				     .vel = 1500, .vn = 1200, .ve = -900, .vd = 30, .cog = 32314,
				     .satellites_visible = 11 };
	uint8_t p[255];
	mavlink_hil_gps_pack(&g, p);
	sim_add(&s, MAVLINK_MSG_ID_HIL_GPS, p);
	struct mavlink_hil_rc_inputs_raw rc = { .time_usec = 4000, .chan1_raw = 1600,
						.chan2_raw = 1400, .chan3_raw = 1000,
						.chan4_raw = 1500, .chan5_raw = 1100,
						.chan6_raw = 1500, .chan7_raw = 1500,
						.chan8_raw = 1800 };
	mavlink_hil_rc_inputs_raw_pack(&rc, p);
	sim_add(&s, MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW, p);
	struct mavlink_battery_status bat = { .voltages = { 12450, UINT16_MAX },
					      .current_battery = 1234, .current_consumed = 56 };
	mavlink_battery_status_pack(&bat, p);
	sim_add(&s, MAVLINK_MSG_ID_BATTERY_STATUS, p);
	for (uint64_t t = 1000; t <= 4000; t += 1000)
		add_sensor(&s, t, t == 4000 ? 0x1FFFu : 0x3Fu, 0.03f);
	sim_send(&s);

	assert_int_equal(receive_all(), 4);
	assert_int_equal(n_times, 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(times[i], (i + 1) * 1000u);
	struct imu_sample imu[8];
	assert_int_equal(sensors_read_imu(&hub, imu, 8), 4);
	assert_int_equal(imu[3].t_us, 4000);  /* lock-step: the simulator's time */
	assert_true(imu[3].accel_m_s2[2] == -9.8f && imu[3].gyro_rad_s[2] == 0.03f);
	struct mag_sample mag;
	assert_int_equal(sensors_latest(&hub, SENSOR_MAG, &mag), 1);  /* only the 4th step had it */
	assert_float_equal(mag.field_ut[2], -50.0, 1e-4);
	struct baro_sample baro;
	assert_int_equal(sensors_latest(&hub, SENSOR_BARO, &baro), 1);
	assert_float_equal(baro.pressure_pa, 95025.0, 0.01);
	assert_float_equal(baro.temp_c, 21.5, 1e-6);
	struct airspeed_sample as;
	assert_int_equal(sensors_latest(&hub, SENSOR_AIRSPEED, &as), 1);
	assert_float_equal(as.diff_pressure_pa, 150.0, 1e-3);
	struct gps_fix fix;
	assert_int_equal(sensors_latest(&hub, SENSOR_GPS, &fix), 1);
	assert_int_equal(fix.fix, GPS_FIX_3D);
	assert_int_equal(fix.num_sv, 11);
	assert_float_equal(fix.lat_deg, -35.363261, 1e-7);
	assert_float_equal(fix.alt_msl_m, 584.09, 1e-3);
	assert_float_equal(fix.vel_ned_m_s[1], -9.0, 1e-5);
	assert_float_equal(fix.h_acc_m, 1.2, 1e-5);
	assert_float_equal(fix.course_deg, 323.14, 1e-3);
	struct rc_frame r;
	assert_int_equal(sensors_latest(&hub, SENSOR_RC, &r), 1);
	assert_int_equal(r.channel_count, 8);
	assert_int_equal(r.channels_us[7], 1800);
	assert_int_equal(r.protocol, RC_PROTOCOL_HIL);
	struct battery_sample b;
	assert_int_equal(sensors_latest(&hub, SENSOR_BATTERY, &b), 1);
	assert_float_equal(b.voltage_v, 12.45, 1e-5);
	assert_float_equal(b.current_a, 12.34, 1e-5);
	assert_float_equal(b.consumed_mah, 56, 1e-6);
	hil_close(&hil);
	udp_close(s.sock);
}

static void test_hil_outputs_reach_the_simulator_by_function(void **state)
{
	struct sim s;
	sim_connect(&s);
	add_sensor(&s, 2500, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	struct rcout *out = hil_rcout(&hil);
	assert_int_equal(rcout_channels(out), HIL_CHANNELS);
	/* ArduPlane's default map: 1 aileron, 2 elevator, 3 throttle, 4 rudder */
	assert_int_equal(rcout_write(out, 0, 1900), 0);
	assert_int_equal(rcout_write(out, 2, 1500), 0);
	assert_int_equal(rcout_write(out, 3, 1300), 0);
	assert_int_equal(rcout_write(out, 2, 3000), -EINVAL);
	assert_int_equal(rcout_write(out, HIL_CHANNELS, 1500), -EINVAL);
	assert_int_equal(hil_send_outputs(&hil, true, &servo), 0);
	uint8_t p[255];
	size_t len;
	sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, p, &len);
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(p, len, &m);
	assert_int_equal(m.time_usec, 2500);
	assert_true(m.controls[HIL_CTL_AILERON] == 1.0f);       /* SERVO1_MAX */
	assert_true(m.controls[HIL_CTL_RUDDER] == -0.5f);       /* channel 4, half way to MIN */
	assert_true(m.controls[HIL_CTL_THROTTLE] == 0.5f);      /* 1500 of 1100..1900 */
	assert_int_equal(m.mode & 128, 128);
	assert_int_equal(m.flags & 1, 1);
	/* The elevator (channel 2) was never driven, and nothing drives the mixed
	 * surfaces or the indices past them: no pulses, flagged so (docs/hil.md). */
	assert_true(m.controls[HIL_CTL_ELEVATOR] == 0.0f);
	assert_true(m.flags & HIL_FLAG_NO_PULSES(HIL_CTL_ELEVATOR));
	for (int i = HIL_CTL_ELEVON_LEFT; i < HIL_CONTROLS; i++)
		assert_true(m.controls[i] == 0.0f && (m.flags & HIL_FLAG_NO_PULSES(i)));
	assert_false(m.flags & (HIL_FLAG_NO_PULSES(HIL_CTL_AILERON) | HIL_FLAG_NO_PULSES(HIL_CTL_RUDDER) |
				HIL_FLAG_NO_PULSES(HIL_CTL_THROTTLE)));
	/* Disarmed, the same pulses: the motor off, exactly; the surfaces as they were. */
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, p, &len);
	mavlink_hil_actuator_controls_unpack(p, len, &m);
	assert_true(m.controls[HIL_CTL_THROTTLE] == 0.0f && !signbit(m.controls[HIL_CTL_THROTTLE]));
	assert_false(m.flags & HIL_FLAG_NO_PULSES(HIL_CTL_THROTTLE));
	assert_true(m.controls[HIL_CTL_AILERON] == 1.0f && m.controls[HIL_CTL_RUDDER] == -0.5f);
	assert_int_equal(m.mode & 128, 0);
	assert_int_equal(hil.stats.outputs_refused, 0);
	hil_close(&hil);
	udp_close(s.sock);
}

/* The default channel map's pulses; 0 for the channels past it. */
static void default_pulses(uint16_t us[HIL_CHANNELS], uint16_t ail, uint16_t elev, uint16_t thr,
			   uint16_t rud)
{
	memset(us, 0, HIL_CHANNELS * sizeof(us[0]));
	us[0] = ail;
	us[1] = elev;
	us[2] = thr;
	us[3] = rud;
}

/* A quad X on channels 1-4 (SERVO1..4_FUNCTION 33..36, ArduCopter's), ESC
 * range 1000..2000: control i is motor i + 1, 0..1, 0 disarmed; the rest
 * drive nothing. Motors 3 and 4 swapped onto channels 4 and 3 still go to
 * indices 2 and 3. */
static void test_hil_a_multirotor_sends_each_motor_at_its_index(void **state)
{
	struct servo_params p = servo;
	static const int func[4] = { 33, 34, 36, 35 };
	for (int ch = 0; ch < 4; ch++) {
		p.ch[ch].servo_function = (float)func[ch];
		p.ch[ch].servo_min = p.ch[ch].servo_trim = 1000;
		p.ch[ch].servo_max = 2000;
	}
	uint16_t us[HIL_CHANNELS] = { 1250, 1500, 2000, 1000 };
	struct hil_controls c;
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[0] == 0.25f);
	assert_true(c.controls[1] == 0.5f);
	assert_true(c.controls[2] == 0.0f);   /* motor 3, on channel 4 */
	assert_true(c.controls[3] == 1.0f);   /* motor 4, on channel 3 */
	for (int k = 0; k < 4; k++)
		assert_false(c.flags & HIL_FLAG_NO_PULSES(k));
	for (int k = 4; k < HIL_CONTROLS; k++) {
		assert_true(c.flags & HIL_FLAG_NO_PULSES(k));
		assert_true(c.controls[k] == 0.0f);
	}
	assert_int_equal(c.refused, 0);
	hil_controls_from_outputs(&p, us, false, &c);
	for (int k = 0; k < HIL_CONTROLS; k++)
		assert_true(c.controls[k] == 0.0f);
	/* a motor's pulse outside its range is refused, never passed on */
	us[1] = 2100;
	hil_controls_from_outputs(&p, us, true, &c);
	assert_int_equal(c.refused, 1);
	assert_true(c.flags & HIL_FLAG_NO_PULSES(1));
	assert_true(c.controls[1] == 0.0f);
}

static void test_hil_throttle_is_0_at_min_1_at_max_and_0_disarmed(void **state)
{
	uint16_t us[HIL_CHANNELS];
	struct hil_controls c;
	/* SERVO3 1100..1900, the default: MIN is no thrust, not 10 % */
	default_pulses(us, 1500, 1500, 1100, 1500);
	hil_controls_from_outputs(&servo, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 0.0f);
	default_pulses(us, 1500, 1500, 1900, 1500);
	hil_controls_from_outputs(&servo, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 1.0f);
	/* the demonstration's ESC range, 1000..2000 */
	struct servo_params p = servo;
	p.ch[2].servo_min = p.ch[2].servo_trim = 1000;
	p.ch[2].servo_max = 2000;
	default_pulses(us, 1500, 1500, 1000, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 0.0f);
	default_pulses(us, 1500, 1500, 1750, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 0.75f);
	/* disarmed: 0 exactly, whatever the pulse says */
	for (uint16_t pwm = 1000; pwm <= 2000; pwm += 50) {
		default_pulses(us, 1500, 1500, pwm, 1500);
		hil_controls_from_outputs(&p, us, false, &c);
		assert_true(c.controls[HIL_CTL_THROTTLE] == 0.0f);
		assert_false(c.flags & HIL_FLAG_NO_PULSES(HIL_CTL_THROTTLE));
	}
	/* a reversed throttle: MAX is off */
	p.ch[2].servo_reversed = 1;
	default_pulses(us, 1500, 1500, 2000, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 0.0f);
	default_pulses(us, 1500, 1500, 1000, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 1.0f);
	/* an ESC without pulses: flagged, and 0 */
	default_pulses(us, 1500, 1500, 0, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_THROTTLE] == 0.0f);
	assert_true(c.flags & HIL_FLAG_NO_PULSES(HIL_CTL_THROTTLE));
	assert_int_equal(c.refused, 0);
}

static void test_hil_surfaces_follow_min_trim_max_and_reversal(void **state)
{
	uint16_t us[HIL_CHANNELS];
	struct hil_controls c;
	struct servo_params p = servo;
	/* SERVO1_REVERSED: the servo moves the other way; the command is the same */
	p.ch[0].servo_reversed = 1;
	default_pulses(us, 1100, 1500, 1100, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_AILERON] == 1.0f);      /* rolls right */
	default_pulses(us, 1700, 1500, 1100, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.controls[HIL_CTL_AILERON] == -0.5f);
	/* SERVO2_TRIM off centre (1600 in 1000..1900): each side to its own end */
	p.ch[1].servo_min = 1000;
	p.ch[1].servo_trim = 1600;
	p.ch[1].servo_max = 1900;
	const struct { uint16_t us; float v; } elev[] = {
		{ 1600, 0.0f }, { 1000, -1.0f }, { 1900, 1.0f }, { 1300, -0.5f }, { 1750, 0.5f },
	};
	for (size_t i = 0; i < sizeof(elev) / sizeof(elev[0]); i++) {
		default_pulses(us, 1500, elev[i].us, 1100, 1500);
		hil_controls_from_outputs(&p, us, true, &c);
		assert_true(c.controls[HIL_CTL_ELEVATOR] == elev[i].v);
	}
	/* what the mixer sends comes back as the commands it was given */
	struct servo sv;
	servo_init(&sv);
	uint16_t pwm[SERVO_CHANNELS];
	struct ctl_surfaces u = { 0.3f, -0.7f, 0.45f };
	servo_output(&sv, &p, &u, 0.6f, 0.02f, pwm);
	memset(us, 0, sizeof(us));
	memcpy(us, pwm, sizeof(pwm));
	hil_controls_from_outputs(&p, us, true, &c);
	assert_float_equal(c.controls[HIL_CTL_AILERON], 0.3, 0.5 / 400);
	assert_float_equal(c.controls[HIL_CTL_ELEVATOR], -0.7, 0.5 / 600);
	assert_float_equal(c.controls[HIL_CTL_RUDDER], 0.45, 0.5 / 400);
	assert_float_equal(c.controls[HIL_CTL_THROTTLE], 0.6, 0.5 / 800);
	assert_int_equal(c.refused, 0);
}

/* A flying wing and a V-tail: their surfaces by function, not channel 1 as an
 * aileron; and a second channel with a function already taken changes nothing. */
static void test_hil_elevons_and_vtails_reach_the_simulator_as_surfaces(void **state)
{
	struct servo_params p = servo;
	p.ch[0].servo_function = SERVO_FUNC_ELEVON_LEFT;
	p.ch[1].servo_function = SERVO_FUNC_ELEVON_RIGHT;
	p.ch[1].servo_reversed = 1;                 /* the right servo mounted mirrored */
	p.ch[3].servo_function = SERVO_FUNC_VTAIL_LEFT;
	p.ch[4].servo_function = SERVO_FUNC_VTAIL_RIGHT;
	p.ch[5].servo_function = SERVO_FUNC_THROTTLE;
	p.ch[5].servo_min = p.ch[5].servo_trim = 1000;
	p.ch[5].servo_max = 2000;
	struct servo sv;
	servo_init(&sv);
	uint16_t pwm[SERVO_CHANNELS], us[HIL_CHANNELS];
	struct ctl_surfaces u = { 0.4f, 0.2f, -0.3f };
	servo_output(&sv, &p, &u, 0.5f, 0.02f, pwm);
	memset(us, 0, sizeof(us));
	memcpy(us, pwm, sizeof(pwm));
	struct hil_controls c;
	hil_controls_from_outputs(&p, us, true, &c);
	double g = (double)p.mixing_gain;
	assert_float_equal(c.controls[HIL_CTL_ELEVON_LEFT], (g * (0.2 - 0.4)), 0.5 / 400);
	assert_float_equal(c.controls[HIL_CTL_ELEVON_RIGHT], (g * (0.2 + 0.4)), 0.5 / 400);
	assert_float_equal(c.controls[HIL_CTL_VTAIL_LEFT], (g * (0.2 + 0.3)), 0.5 / 400);
	assert_float_equal(c.controls[HIL_CTL_VTAIL_RIGHT], (g * (0.2 - 0.3)), 0.5 / 400);
	/* both throttles (channels 3 and 6) say 0.5: the first is sent */
	assert_float_equal(c.controls[HIL_CTL_THROTTLE], 0.5, 0.5 / 800);
	/* no aileron, elevator or rudder channel: nothing there, and flagged */
	for (int i = HIL_CTL_AILERON; i <= HIL_CTL_RUDDER; i++)
		assert_true(c.controls[i] == 0.0f && (c.flags & HIL_FLAG_NO_PULSES(i)));
	for (int i = HIL_CTL_ELEVON_LEFT; i <= HIL_CTL_VTAIL_RIGHT; i++)
		assert_false(c.flags & HIL_FLAG_NO_PULSES(i));
	assert_int_equal(c.refused, 0);
}

/* What cannot be normalised is never sent: counted, and the control goes as
 * "no pulses" (the simulator holds the surface, stops the motor). */
static void test_hil_refuses_outputs_it_cannot_normalise(void **state)
{
	uint16_t us[HIL_CHANNELS];
	struct hil_controls c;
	struct servo_params p = servo;
	default_pulses(us, 2100, 1500, 1500, 1500);    /* past SERVO1_MAX */
	hil_controls_from_outputs(&p, us, true, &c);
	assert_int_equal(c.refused, 1);
	assert_int_equal(c.refused_ch, 1);
	assert_int_equal(c.refused_us, 2100);
	assert_true(c.controls[HIL_CTL_AILERON] == 0.0f && (c.flags & HIL_FLAG_NO_PULSES(HIL_CTL_AILERON)));
	/* a range that cannot be: MIN above MAX, a trim outside, NaN, infinity */
	p.ch[1].servo_min = NAN;
	p.ch[2].servo_min = 1900;
	p.ch[2].servo_max = 1100;
	p.ch[3].servo_trim = 2000;
	p.ch[0].servo_max = INFINITY;
	default_pulses(us, 1500, 1500, 1500, 1500);
	hil_controls_from_outputs(&p, us, true, &c);
	assert_int_equal(c.refused, 4);
	for (int i = 0; i < HIL_CTL_ELEVON_LEFT; i++)
		assert_true(c.controls[i] == 0.0f && (c.flags & HIL_FLAG_NO_PULSES(i)));
	/* a function that is no number: that channel drives nothing */
	p = servo;
	p.ch[0].servo_function = NAN;
	hil_controls_from_outputs(&p, us, true, &c);
	assert_true(c.flags & HIL_FLAG_NO_PULSES(HIL_CTL_AILERON));
	/* the same through the link: counted, said once, every value finite and in range */
	struct sim s;
	sim_connect(&s);
	add_sensor(&s, 1000, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	struct rcout *out = hil_rcout(&hil);
	p = servo;
	p.ch[2].servo_max = NAN;
	assert_int_equal(rcout_write(out, 0, 2200), 0);
	assert_int_equal(rcout_write(out, 1, 1500), 0);
	assert_int_equal(rcout_write(out, 2, 1700), 0);
	assert_int_equal(rcout_write(out, 3, 1500), 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(hil_send_outputs(&hil, true, &p), 0);
		uint8_t pl[255];
		size_t len;
		sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, pl, &len);
		struct mavlink_hil_actuator_controls m;
		mavlink_hil_actuator_controls_unpack(pl, len, &m);
		for (int i = 0; i < HIL_CONTROLS; i++)
			assert_true(isfinite(m.controls[i]) && fabsf(m.controls[i]) <= 1.0f);
		assert_true(m.flags & HIL_FLAG_NO_PULSES(HIL_CTL_AILERON));
		assert_true(m.flags & HIL_FLAG_NO_PULSES(HIL_CTL_THROTTLE));
		assert_false(m.flags & HIL_FLAG_NO_PULSES(HIL_CTL_ELEVATOR));
	}
	assert_int_equal(hil.stats.outputs_refused, 4);
	hil_close(&hil);
	udp_close(s.sock);
}

static void test_hil_bad_input_is_counted_not_used(void **state)
{
	struct sim s;
	sim_connect(&s);
	add_sensor(&s, 1000, 0x3F, 0);
	add_sensor(&s, 2000, 0x3F, NAN);     /* a value that cannot be */
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	assert_int_equal(hil.stats.rejected, 1);
	/* Garbage, a frame with a bit flipped, a frame out of order, then a good one. */
	static const uint8_t junk[] = { 0x00, 0x13, 0x37, 0x55, 0xAA, 0x01 };
	memcpy(s.buf, junk, sizeof(junk));
	s.len = sizeof(junk);
	add_sensor(&s, 2500, 0x3F, 0);
	s.buf[s.len - 5] ^= 0x10;
	add_sensor(&s, 900, 0x3F, 0);
	add_sensor(&s, 3000, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	assert_int_equal(hil.stats.time_backwards, 1);
	assert_int_equal(times[n_times - 1], 3000);
	assert_int_equal(hil.parser.stats.bad_crc, 1);
	assert_true(hil.parser.stats.skipped_bytes >= sizeof(junk));
	struct imu_sample imu[8];
	assert_int_equal(sensors_read_imu(&hub, imu, 8), 2);
	for (int i = 0; i < 2; i++)
		assert_true(isfinite(imu[i].gyro_rad_s[2]));
	assert_int_equal(hil.event, HIL_EVENT_NONE);
	hil_close(&hil);
	udp_close(s.sock);
}

static void add_distance(struct sim *s, uint16_t cm, uint16_t min_cm, uint16_t max_cm,
			 uint8_t orientation, uint8_t quality)
{
	struct mavlink_distance_sensor m = { .time_boot_ms = 1, .min_distance = min_cm,
					     .max_distance = max_cm, .current_distance = cm,
					     .orientation = orientation, .signal_quality = quality };
	uint8_t p[255];
	mavlink_distance_sensor_pack(&m, p);
	sim_add(s, MAVLINK_MSG_ID_DISTANCE_SENSOR, p);
}

/* DISTANCE_SENSOR is the rangefinder with RNGFND1_TYPE 10, looking down only;
 * its limits travel with the reading; a simulator that sends none leaves the
 * hub without one (the flight's state: NoData). */
static void test_hil_distance_sensor_is_the_downward_rangefinder(void **state)
{
	struct sim s;
	sim_connect(&s);
	/* not a MAVLink rangefinder: counted, not taken */
	add_distance(&s, 420, 20, 4000, 25, 0);
	add_sensor(&s, 1000, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	struct range_sample r;
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &r), 0);
	assert_int_equal(hil.stats.distance_ignored, 1);
	hil.rangefinder = true;
	add_sensor(&s, 2000, 0x3F, 0);
	add_distance(&s, 420, 20, 4000, 25, 0);
	add_distance(&s, 999, 20, 4000, 0, 0);     /* forward: ignored and counted */
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &r), 1);
	assert_int_equal(r.reading, RANGE_READING_OK);
	assert_float_equal(r.distance_m, 4.2f, 1e-5f);
	assert_float_equal(r.min_m, 0.2f, 1e-6f);
	assert_float_equal(r.max_m, 40.0f, 1e-5f);
	assert_int_equal(r.quality_pct, -1);
	assert_int_equal(r.t_us, 2000);              /* the last HIL_SENSOR's time */
	assert_int_equal(hil.stats.distance_msgs, 1);
	assert_int_equal(hil.stats.distance_ignored, 2);
	/* beyond max_distance: passed on with its limits (the flight's state: OutOfRangeHigh);
	 * signal quality 1, "invalid": no distance */
	add_sensor(&s, 3000, 0x3F, 0);
	add_distance(&s, 4100, 20, 4000, 25, 80);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &r), 2);
	assert_true(r.distance_m > r.max_m);
	assert_int_equal(r.quality_pct, 80);
	add_sensor(&s, 4000, 0x3F, 0);
	add_distance(&s, 300, 20, 4000, 25, 1);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	assert_int_equal(sensors_latest(&hub, SENSOR_RANGE, &r), 3);
	assert_int_equal(r.reading, RANGE_READING_NO_RETURN);
	assert_true(r.distance_m == 0.0f);
	hil.rangefinder = false;
	hil_close(&hil);
	udp_close(s.sock);
}

/* A lock-step frame of two steps ending at end_us, with a GPS fix at its end. */
static void lockstep_frame(struct sim *s, uint64_t end_us)
{
	struct mavlink_hil_gps g = { .time_usec = end_us, .fix_type = 3, .lat = -353632610,
				     .lon = 1491652300, .alt = 584090, .eph = 120, .epv = 200,
				     .vel = 1500, .vn = 1200, .cog = 0, .satellites_visible = 11 };
	uint8_t p[255];
	add_sensor(s, end_us - 1000, 0x3F, 0);
	mavlink_hil_gps_pack(&g, p);
	sim_add(s, MAVLINK_MSG_ID_HIL_GPS, p);
	add_sensor(s, end_us, 0x3F, 0);
}

/* The daemon's answer: a HIL_ACTUATOR_CONTROLS for t_us. */
static void expect_answer(struct sim *s, uint64_t t_us)
{
	uint8_t pl[255];
	size_t len;
	sim_expect(s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, pl, &len);
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(pl, len, &m);
	assert_int_equal(m.time_usec, t_us);
}

static void test_hil_lockstep_answers_a_frame_sent_again_without_time_passing(void **state)
{
	struct sim s;
	sim_connect(&s);
	/* The first frame, its reset bit on, twice before any answer (a slow first answer):
	 * the copy is no restart and changes nothing. */
	add_sensor(&s, 500, 0x3F | 0x80000000u, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	add_sensor(&s, 500, 0x3F | 0x80000000u, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 0);
	assert_int_equal(hil.event, HIL_EVENT_NONE);
	assert_int_equal(hil.stats.repeated, 1);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	expect_answer(&s, 500);
	struct imu_sample first[2];
	assert_int_equal(sensors_read_imu(&hub, first, 2), 1);
	hil.stats.repeated = 0;
	n_times = 0;

	lockstep_frame(&s, 2000);
	sim_send(&s);
	assert_int_equal(receive_all(), 2);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	expect_answer(&s, 2000);
	struct imu_sample imu[8];
	assert_int_equal(sensors_read_imu(&hub, imu, 8), 2);
	assert_int_equal(sensors_accepted(&hub, SENSOR_GPS), 1);

	/* The answer was lost: the simulator sends the same frame again. */
	lockstep_frame(&s, 2000);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);          /* to be answered... */
	assert_int_equal(n_times, 2);                /* ...with no time passing */
	assert_int_equal(sensors_read_imu(&hub, imu, 8), 0);
	assert_int_equal(sensors_accepted(&hub, SENSOR_GPS), 1);
	assert_int_equal(sensors_rejected(&hub, SENSOR_GPS), 0);
	assert_int_equal(hil.stats.repeated, 3);
	assert_int_equal(hil.stats.time_backwards, 0);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	expect_answer(&s, 2000);
	assert_int_equal(hil.stats.answered_again, 1);

	/* The next frame goes on as ever. */
	lockstep_frame(&s, 4000);
	sim_send(&s);
	assert_int_equal(receive_all(), 2);
	assert_int_equal(n_times, 4);
	assert_int_equal(times[3], 4000);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	expect_answer(&s, 4000);
	/* A step older than the frame answered last is out of order, not a repeat. */
	add_sensor(&s, 2000, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 0);
	assert_int_equal(hil.stats.time_backwards, 1);
	assert_int_equal(hil.stats.repeated, 3);
	assert_int_equal(hil.event, HIL_EVENT_NONE);
	hil_close(&hil);
	udp_close(s.sock);
}

static void test_hil_simulator_restart_stops_the_flight(void **state)
{
	struct sim s;
	sim_connect(&s);
	add_sensor(&s, 5000000, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	add_sensor(&s, 1000, 0x3F, 0);       /* a new simulator run starts at 0 */
	sim_send(&s);
	assert_int_equal(receive_all(), -ECONNRESET);
	assert_int_equal(hil.event, HIL_EVENT_RESTART);
	hil_close(&hil);
	udp_close(s.sock);
}

static void test_hil_real_time_keeps_the_spacing_of_samples_that_arrive_together(void **state)
{
	struct sim s;
	struct link_spec spec;
	char err[256];
	sim_open(&s, &spec);
	sensors_init(&hub, 1000, 250, NULL, NULL);
	assert_int_equal(hil_open(&hil, &spec, &hub, false, err, sizeof(err)), 0);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	uint8_t p[255];
	size_t len;
	sim_expect(&s, MAVLINK_MSG_ID_HEARTBEAT, p, &len);
	/* Frames of four steps: once the first has set the offset, each sample
	 * keeps its place in time (the first frame's collapse onto its arrival). */
	for (uint64_t t = 1000; t <= 4000; t += 1000)
		add_sensor(&s, t, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(hil_receive(&hil, 1000, NULL, NULL), 4);
	struct timespec four_ms = { 0, 4000000 };
	nanosleep(&four_ms, NULL);
	for (uint64_t t = 5000; t <= 8000; t += 1000)
		add_sensor(&s, t, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(hil_receive(&hil, 1000, NULL, NULL), 4);
	struct imu_sample imu[8];
	assert_int_equal(sensors_read_imu(&hub, imu, 8), 8);
	for (int i = 1; i < 8; i++)
		assert_true(imu[i].t_us > imu[i - 1].t_us);
	for (int i = 5; i < 8; i++)
		assert_int_equal(imu[i].t_us - imu[i - 1].t_us, 1000);
	/* On our clock: close to now, not the simulator's 4 ms. */
	assert_true(imu[7].t_us > 1000000u);
	/* The answer carries the simulator's time, as the simulator's lock-step wants. */
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, p, &len);
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(p, len, &m);
	assert_int_equal(m.time_usec, 8000);
	assert_int_equal(m.flags & 1, 0);
	hil_close(&hil);
	udp_close(s.sock);
}

/* Real time: the link open and the simulator heard, with the hub's IMU ring emptied. */
static void real_time_connect(struct sim *s)
{
	struct link_spec spec;
	char err[256];
	sim_open(s, &spec);
	sensors_init(&hub, 1000, 250, NULL, NULL);
	assert_int_equal(hil_open(&hil, &spec, &hub, false, err, sizeof(err)), 0);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	uint8_t p[255];
	size_t len;
	sim_expect(s, MAVLINK_MSG_ID_HEARTBEAT, p, &len);
}

/* One frame of four 1 ms steps ending at end_us, received; returns the last sample. */
static struct imu_sample real_time_frame(struct sim *s, uint64_t end_us)
{
	for (uint64_t t = end_us - 3000; t <= end_us; t += 1000)
		add_sensor(s, t, 0x3F, 0);
	sim_send(s);
	assert_int_equal(hil_receive(&hil, 1000, NULL, NULL), 4);
	struct imu_sample imu[4];
	assert_int_equal(sensors_read_imu(&hub, imu, 4), 4);
	return imu[3];
}

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A simulator that stalls for 400 ms and then flows again, its time going on
 * from where it stopped: after a quarter of a second of steps that late, the
 * mapping moves up by the stall, and the samples' clock, as the flight code
 * reads it, is the simulator's time on ours. When the simulator then catches
 * up (a burst of 200 ms of steps at once), the mapping stays where it moved
 * and the burst keeps its 1 ms spacing: the estimator loses no time. However
 * busy the host, the steps after the stall are at least 400 ms late, so the
 * move happens and is at least that large. */
static void test_hil_real_time_re_anchors_when_the_simulator_falls_behind_for_good(void **state)
{
	struct sim s;
	real_time_connect(&s);
	struct timespec stall = { 0, 400000000 }, frame = { 0, 4000000 };
	/* A settled mapping first (its least offset is found over the first
	 * second), the simulator's time on the wall clock's. */
	uint64_t t0 = mono_us(), sim_us = 4000;
	struct imu_sample before = real_time_frame(&s, sim_us);
	while (mono_us() < t0 + 1100000u) {
		nanosleep(&frame, NULL);
		while (sim_us + 4000 <= 4000 + (mono_us() - t0))
			before = real_time_frame(&s, sim_us += 4000);
	}
	/* The stall: the simulator's time goes on from where it stopped. */
	uint64_t sim_before = sim_us;
	nanosleep(&stall, NULL);
	struct imu_sample last = before;
	uint64_t t1 = mono_us(), until = t1 + 2000000u;
	while (hil.stats.reanchors == 0 && mono_us() < until) {
		while (sim_us + 4000 <= sim_before + 4000 + (mono_us() - t1))
			last = real_time_frame(&s, sim_us += 4000);
		nanosleep(&frame, NULL);
	}
	assert_true(hil.stats.reanchors >= 1);
	assert_true(hil.stats.reanchored_us >= 390000u);
	/* and says so to the estimator: a pause, no time of the simulator's */
	assert_int_equal(sensors_paused_us(&hub), hil.stats.reanchored_us);
	/* The stamps jumped by the stall, not by the simulator's 4 ms a frame. */
	uint64_t steps_us = sim_us - sim_before;
	assert_true(last.t_us - before.t_us >= steps_us + 390000u);
	/* It catches up: 200 ms of steps at once, their spacing kept. */
	uint64_t reanchors = hil.stats.reanchors;
	for (int f = 0; f < 50; f++) {
		sim_us += 4000;
		for (uint64_t t = sim_us - 3000; t <= sim_us; t += 1000)
			add_sensor(&s, t, 0x3F, 0);
		if (f % 8 == 7 || f == 49)
			sim_send(&s);
	}
	int got = 0, rc;
	while (got < 200 && (rc = hil_receive(&hil, 1000, NULL, NULL)) > 0)
		got += rc;
	assert_int_equal(got, 200);
	struct imu_sample burst[200];
	assert_int_equal(sensors_read_imu(&hub, burst, 200), 200);
	assert_int_equal(burst[0].t_us - last.t_us, 1000);
	for (int i = 1; i < 200; i++)
		assert_int_equal(burst[i].t_us - burst[i - 1].t_us, 1000);
	assert_int_equal(hil.stats.reanchors, reanchors);
	last = burst[199];
	/* And stay 1 ms apart within the frames after it. */
	uint64_t t_prev = last.t_us;
	sim_us += 4000;
	struct imu_sample next = real_time_frame(&s, sim_us);
	assert_true(next.t_us > t_prev);
	/* The flight code's clock: the last step's stamp run on since it came, and its time. */
	uint64_t now_t, now_src;
	sensors_now(&hub, mono_us(), &now_t, &now_src);
	assert_true(now_t >= next.t_us);
	assert_int_equal(now_src, sim_us);
	hil_close(&hil);
	udp_close(s.sock);
}

/* Steps that come late in a burst and catch up (our reader held up, or a
 * simulator behind by less than it skips): the mapping stays, so the
 * samples keep the simulator's spacing, 1 ms, through the burst. */
static void test_hil_real_time_keeps_its_mapping_through_a_late_burst(void **state)
{
	struct sim s;
	real_time_connect(&s);
	uint64_t t0 = mono_us(), sim_us = 4000;
	real_time_frame(&s, sim_us);
	struct timespec late = { 0, 200000000 };
	nanosleep(&late, NULL);
	/* Everything the simulator owes since, in one go, its time caught up with
	 * ours (at most 100 frames, which the hub's IMU ring holds). */
	uint64_t owed_to = 4000 + (mono_us() - t0) / 4000u * 4000u;
	if (owed_to > 404000u)
		owed_to = 404000u;
	unsigned int frames = 0;
	while (sim_us < owed_to) {
		sim_us += 4000;
		for (uint64_t t = sim_us - 3000; t <= sim_us; t += 1000)
			add_sensor(&s, t, 0x3F, 0);
		if (++frames % 8 == 0 || sim_us >= owed_to)
			sim_send(&s);
	}
	int got = 0, rc;
	while (got < (int)frames * 4 && (rc = hil_receive(&hil, 1000, NULL, NULL)) > 0)
		got += rc;
	assert_int_equal(got, (int)frames * 4);
	assert_int_equal(hil.stats.reanchors, 0);
	struct imu_sample imu[SENSORS_IMU_RING];
	size_t n = sensors_read_imu(&hub, imu, SENSORS_IMU_RING);
	assert_int_equal(n, frames * 4);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(imu[i].t_us - imu[i - 1].t_us, 1000);
	hil_close(&hil);
	udp_close(s.sock);
}

static void test_hil_over_a_serial_line(void **state)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	char url[128];
	snprintf(url, sizeof(url), "serial:%s:921600", ptsname(master));
	struct link_spec spec;
	char err[256];
	assert_int_equal(hil_spec_parse(url, &spec), 0);
	sensors_init(&hub, 1000, 250, NULL, NULL);
	assert_int_equal(hil_open(&hil, &spec, &hub, true, err, sizeof(err)), 0);
	struct sim s = { 0 };
	add_sensor(&s, 1000, 0x3F, 0);
	add_sensor(&s, 2000, 0x3F, 0);
	assert_int_equal(write(master, s.buf, s.len), (ssize_t)s.len);
	n_times = 0;
	int got = 0;
	for (int i = 0; i < 20 && got < 2; i++) {
		int r = receive_all();
		assert_true(r >= 0);
		got += r;
	}
	assert_int_equal(got, 2);
	assert_int_equal(times[1], 2000);
	assert_int_equal(hil_send_outputs(&hil, false, &servo), 0);
	uint8_t d[512];
	struct pollfd p = { .fd = master, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 1000), 1);
	ssize_t n = read(master, d, sizeof(d));
	assert_true(n > 0);
	struct mavlink_parser parser;
	struct mavlink_frame f;
	bool ok;
	mavlink_parser_init(&parser);
	mavlink_parse(&parser, d, (size_t)n, &f, &ok);
	assert_true(ok);
	assert_int_equal(f.msgid, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS);
	hil_close(&hil);
	close(master);
}

int main(void)
{
	servo_params_default(&servo);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hil_urls),
		cmocka_unit_test(test_hil_sensor_steps_reach_the_hub_in_si_units),
		cmocka_unit_test(test_hil_outputs_reach_the_simulator_by_function),
		cmocka_unit_test(test_hil_throttle_is_0_at_min_1_at_max_and_0_disarmed),
		cmocka_unit_test(test_hil_a_multirotor_sends_each_motor_at_its_index),
		cmocka_unit_test(test_hil_surfaces_follow_min_trim_max_and_reversal),
		cmocka_unit_test(test_hil_elevons_and_vtails_reach_the_simulator_as_surfaces),
		cmocka_unit_test(test_hil_refuses_outputs_it_cannot_normalise),
		cmocka_unit_test(test_hil_bad_input_is_counted_not_used),
		cmocka_unit_test(test_hil_distance_sensor_is_the_downward_rangefinder),
		cmocka_unit_test(test_hil_simulator_restart_stops_the_flight),
		cmocka_unit_test(test_hil_lockstep_answers_a_frame_sent_again_without_time_passing),
		cmocka_unit_test(test_hil_real_time_keeps_the_spacing_of_samples_that_arrive_together),
		cmocka_unit_test(test_hil_real_time_re_anchors_when_the_simulator_falls_behind_for_good),
		cmocka_unit_test(test_hil_real_time_keeps_its_mapping_through_a_late_burst),
		cmocka_unit_test(test_hil_over_a_serial_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
