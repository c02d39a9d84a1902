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
	assert_int_equal(hil_send_outputs(&hil, false), 0);
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

static void test_hil_outputs_reach_the_simulator_normalised(void **state)
{
	struct sim s;
	sim_connect(&s);
	add_sensor(&s, 2500, 0x3F, 0);
	sim_send(&s);
	assert_int_equal(receive_all(), 1);
	struct rcout *out = hil_rcout(&hil);
	assert_int_equal(rcout_channels(out), HIL_CHANNELS);
	assert_int_equal(rcout_write(out, 0, 2000), 0);
	assert_int_equal(rcout_write(out, 2, 1000), 0);
	assert_int_equal(rcout_write(out, 3, 1250), 0);
	assert_int_equal(rcout_write(out, 2, 3000), -EINVAL);
	assert_int_equal(rcout_write(out, HIL_CHANNELS, 1500), -EINVAL);
	assert_int_equal(hil_send_outputs(&hil, true), 0);
	uint8_t p[255];
	size_t len;
	sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, p, &len);
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(p, len, &m);
	assert_int_equal(m.time_usec, 2500);
	assert_true(m.controls[0] == 1.0f && m.controls[2] == -1.0f && m.controls[3] == -0.5f);
	assert_int_equal(m.mode & 128, 128);
	assert_int_equal(m.flags & 1, 1);
	/* Channel 2 was never driven: no pulses, flagged so (docs/hil.md). */
	assert_true(m.flags & (1ull << 33));
	assert_false(m.flags & (1ull << 32));
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
	assert_int_equal(hil_send_outputs(&hil, false), 0);
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
	assert_int_equal(hil_send_outputs(&hil, false), 0);
	sim_expect(&s, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, p, &len);
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(p, len, &m);
	assert_int_equal(m.time_usec, 8000);
	assert_int_equal(m.flags & 1, 0);
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
	assert_int_equal(hil_send_outputs(&hil, false), 0);
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
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hil_urls),
		cmocka_unit_test(test_hil_sensor_steps_reach_the_hub_in_si_units),
		cmocka_unit_test(test_hil_outputs_reach_the_simulator_normalised),
		cmocka_unit_test(test_hil_bad_input_is_counted_not_used),
		cmocka_unit_test(test_hil_simulator_restart_stops_the_flight),
		cmocka_unit_test(test_hil_real_time_keeps_the_spacing_of_samples_that_arrive_together),
		cmocka_unit_test(test_hil_over_a_serial_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
