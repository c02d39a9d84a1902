// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * UBX: the frame parser on clean, split, corrupted and noisy streams, the
 * frame builders against frames known from the u-blox documentation, the
 * NAV-PVT decoder, and the start-up configuration sequence against the
 * emulated receiver in tests/emul (baud-rate change, ACK/NAK, an old
 * receiver without NAV-PVT, a silent one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../emul/emul_ublox.h"
#include "drivers/nmea.h"
#include "drivers/ublox.h"

/* cmocka 1.1.5 compares only floats; positions need doubles. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

struct seen {
	size_t n;
	struct {
		uint8_t cls, id;
		uint16_t len;
		uint8_t payload[UBX_MAX_PAYLOAD];
	} f[32];
};

static void collect(void *ctx, const struct ubx_frame *frame)
{
	struct seen *s = ctx;

	if (s->n >= 32)
		return;
	s->f[s->n].cls = frame->cls;
	s->f[s->n].id = frame->id;
	s->f[s->n].len = frame->len;
	memcpy(s->f[s->n].payload, frame->payload, frame->len);
	s->n++;
}

static const uint8_t ack_cfg_msg[] = { 0xb5, 0x62, 0x05, 0x01, 0x02, 0x00, 0x06, 0x01, 0x0f, 0x38 };

static void test_ubx_builders_match_frames_from_the_u_blox_documentation(void **state)
{
	(void)state;
	uint8_t out[64];
	/* Widely published frames: UART1 at 115200 (UBX+NMEA both ways), 5 Hz, NAV-PVT on, GGA off. */
	const uint8_t prt[] = { 0xb5, 0x62, 0x06, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x00,
				0xd0, 0x08, 0x00, 0x00, 0x00, 0xc2, 0x01, 0x00, 0x03, 0x00,
				0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0xbc, 0x5e };
	const uint8_t rate[] = { 0xb5, 0x62, 0x06, 0x08, 0x06, 0x00, 0xc8, 0x00, 0x01, 0x00,
				 0x01, 0x00, 0xde, 0x6a };
	const uint8_t pvt_on[] = { 0xb5, 0x62, 0x06, 0x01, 0x03, 0x00, 0x01, 0x07, 0x01, 0x13, 0x51 };
	const uint8_t gga_off[] = { 0xb5, 0x62, 0x06, 0x01, 0x03, 0x00, 0xf0, 0x00, 0x00, 0xfa, 0x0f };

	assert_int_equal(ubx_build_cfg_prt_uart(out, sizeof(out), 1, 115200, 3, 3), sizeof(prt));
	assert_memory_equal(out, prt, sizeof(prt));
	assert_int_equal(ubx_build_cfg_rate(out, sizeof(out), 200, 1, 1), sizeof(rate));
	assert_memory_equal(out, rate, sizeof(rate));
	assert_int_equal(ubx_build_cfg_msg(out, sizeof(out), 0x01, 0x07, 1), sizeof(pvt_on));
	assert_memory_equal(out, pvt_on, sizeof(pvt_on));
	assert_int_equal(ubx_build_cfg_msg(out, sizeof(out), 0xf0, 0x00, 0), sizeof(gga_off));
	assert_memory_equal(out, gga_off, sizeof(gga_off));
	/* Too small a buffer: nothing written, 0 returned. */
	assert_int_equal(ubx_build_cfg_prt_uart(out, 27, 1, 115200, 3, 3), 0);
}

static void test_ubx_parser_finds_a_frame_and_its_payload(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };

	ubx_parser_init(&p);
	assert_int_equal(ubx_parser_feed(&p, ack_cfg_msg, sizeof(ack_cfg_msg), collect, &s), 1);
	assert_int_equal(s.f[0].cls, UBX_CLASS_ACK);
	assert_int_equal(s.f[0].id, UBX_ID_ACK_ACK);
	assert_int_equal(s.f[0].len, 2);
	assert_int_equal(s.f[0].payload[0], 0x06);
	assert_int_equal(s.f[0].payload[1], 0x01);
	assert_int_equal(p.stats.frames, 1);
	assert_int_equal(p.stats.skipped, 0);
}

static void test_ubx_parser_takes_frames_a_byte_at_a_time(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	uint8_t two[64];
	size_t n = ubx_build_cfg_rate(two, sizeof(two), 100, 1, 1);

	memcpy(&two[n], ack_cfg_msg, sizeof(ack_cfg_msg));
	n += sizeof(ack_cfg_msg);
	ubx_parser_init(&p);
	for (size_t i = 0; i < n; i++)
		ubx_parser_feed(&p, &two[i], 1, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.f[0].id, UBX_ID_CFG_RATE);
	assert_int_equal(s.f[1].cls, UBX_CLASS_ACK);
}

static void test_ubx_parser_rejects_a_bad_checksum_and_goes_on(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	uint8_t buf[32];

	memcpy(buf, ack_cfg_msg, sizeof(ack_cfg_msg));
	buf[7] ^= 0x20;                           /* payload hit by noise */
	memcpy(&buf[10], ack_cfg_msg, sizeof(ack_cfg_msg));
	ubx_parser_init(&p);
	assert_int_equal(ubx_parser_feed(&p, buf, 20, collect, &s), 1);
	assert_int_equal(p.stats.bad_checksum, 1);
	assert_int_equal(s.f[0].payload[1], 0x01);
	assert_int_equal(p.stats.skipped, 10);
}

static void test_ubx_parser_finds_a_frame_hidden_behind_a_false_header(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	uint8_t buf[64];
	size_t n = 0;

	/* Noise that looks like a header announcing 40 bytes; a real frame starts inside them. */
	const uint8_t fake[] = { 0xb5, 0x62, 0x01, 0x07, 40, 0x00, 0x13 };
	memcpy(buf, fake, sizeof(fake));
	n = sizeof(fake);
	memcpy(&buf[n], ack_cfg_msg, sizeof(ack_cfg_msg));
	n += sizeof(ack_cfg_msg);
	n += ubx_build_cfg_msg(&buf[n], sizeof(buf) - n, 0xf0, 0x04, 0);
	memset(&buf[n], 0x55, 48 - n + 8);       /* filler to where the false frame "ends" */
	n = 56;
	ubx_parser_init(&p);
	assert_int_equal(ubx_parser_feed(&p, buf, n, collect, &s), 2);
	assert_int_equal(s.f[0].cls, UBX_CLASS_ACK);
	assert_int_equal(s.f[1].id, UBX_ID_CFG_MSG);
	assert_int_equal(s.f[1].payload[1], 0x04);
	assert_int_equal(p.stats.bad_checksum, 1);
}

static void test_ubx_parser_skips_nmea_between_frames(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	const char *nmea = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n";

	ubx_parser_init(&p);
	ubx_parser_feed(&p, (const uint8_t *)nmea, strlen(nmea), collect, &s);
	ubx_parser_feed(&p, ack_cfg_msg, sizeof(ack_cfg_msg), collect, &s);
	ubx_parser_feed(&p, (const uint8_t *)nmea, strlen(nmea), collect, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(p.stats.skipped, 2 * strlen(nmea));
	assert_int_equal(p.stats.bad_checksum, 0);
}

static void test_ubx_parser_rejects_a_length_it_cannot_hold(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	const uint8_t big[] = { 0xb5, 0x62, 0x01, 0x35, 0x00, 0x04 };   /* 1024 bytes announced */

	ubx_parser_init(&p);
	ubx_parser_feed(&p, big, sizeof(big), collect, &s);
	ubx_parser_feed(&p, ack_cfg_msg, sizeof(ack_cfg_msg), collect, &s);
	assert_int_equal(p.stats.oversize, 1);
	assert_int_equal(s.n, 1);
}

static void test_ubx_parser_survives_random_garbage(void **state)
{
	(void)state;
	struct ubx_parser p;
	struct seen s = { 0 };
	uint8_t noise[4096];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1664525u + 1013904223u;
		noise[i] = (uint8_t)(x >> 24);
		/* Plenty of sync pairs, so false headers are common. */
		if (i % 97 == 0)
			noise[i] = 0xb5;
		if (i % 97 == 1)
			noise[i] = 0x62;
	}
	ubx_parser_init(&p);
	ubx_parser_feed(&p, noise, sizeof(noise), collect, &s);
	size_t junk_frames = s.n;
	/* A real frame right after the noise is found no matter what state the noise left. */
	for (int i = 0; i < 4 && s.n == junk_frames; i++)
		ubx_parser_feed(&p, ack_cfg_msg, sizeof(ack_cfg_msg), collect, &s);
	assert_true(s.n > junk_frames);
	assert_int_equal(s.f[s.n - 1].cls, UBX_CLASS_ACK);
	assert_true(p.stats.skipped > 3000);
	assert_true(p.stats.bad_checksum + p.stats.oversize > 10);
}

static void put32(uint8_t *p, int32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

static void test_ubx_decodes_nav_pvt(void **state)
{
	(void)state;
	uint8_t pl[92] = { 0 };
	struct gps_fix fix = { .t_us = 77 };

	put32(&pl[0], 123456789);
	pl[4] = 0xe8, pl[5] = 0x07, pl[6] = 12, pl[7] = 31, pl[8] = 23, pl[9] = 59, pl[10] = 58;
	pl[11] = 0x03;
	put32(&pl[16], -250000);
	pl[20] = 3;
	pl[21] = 0x01;
	pl[23] = 14;
	put32(&pl[24], -1223456789);              /* lon -122.3456789 */
	put32(&pl[28], 473456789);                /* lat 47.3456789 */
	put32(&pl[32], 120500);
	put32(&pl[36], 99250);
	put32(&pl[40], 1800);
	put32(&pl[44], 2600);
	put32(&pl[48], 10500);
	put32(&pl[52], -3250);
	put32(&pl[56], 125);
	put32(&pl[60], 10991);
	put32(&pl[64], 34280000);                 /* 342.8 deg */
	put32(&pl[68], 350);
	pl[76] = 0x2c, pl[77] = 0x01;             /* pDOP 3.00 */

	assert_int_equal(ubx_decode_nav_pvt(pl, sizeof(pl), &fix), 0);
	assert_int_equal(fix.t_us, 77);
	assert_int_equal(fix.fix, GPS_FIX_3D);
	assert_int_equal(fix.itow_ms, 123456789);
	assert_int_equal(fix.num_sv, 14);
	assert_near(fix.lat_deg, 47.3456789, 1e-9);
	assert_near(fix.lon_deg, -122.3456789, 1e-9);
	assert_float_equal(fix.alt_ellipsoid_m, 120.5f, 1e-4);
	assert_float_equal(fix.alt_msl_m, 99.25f, 1e-4);
	assert_float_equal(fix.h_acc_m, 1.8f, 1e-5);
	assert_float_equal(fix.v_acc_m, 2.6f, 1e-5);
	assert_float_equal(fix.vel_ned_m_s[0], 10.5f, 1e-5);
	assert_float_equal(fix.vel_ned_m_s[1], -3.25f, 1e-5);
	assert_float_equal(fix.vel_ned_m_s[2], 0.125f, 1e-5);
	assert_true(fix.vel_down_valid);
	assert_float_equal(fix.ground_speed_m_s, 10.991f, 1e-5);
	assert_float_equal(fix.course_deg, 342.8f, 1e-3);
	assert_float_equal(fix.s_acc_m_s, 0.35f, 1e-5);
	assert_float_equal(fix.dop, 3.0f, 1e-5);
	assert_int_equal(fix.utc.year, 2024);
	assert_int_equal(fix.utc.month, 12);
	assert_int_equal(fix.utc.sec, 58);
	assert_int_equal(fix.utc.nano, -250000);
	assert_true(fix.utc.date_valid && fix.utc.time_valid);

	/* fixType 3 but gnssFixOK clear (e.g. outside the accuracy masks): no fix. */
	pl[21] = 0;
	assert_int_equal(ubx_decode_nav_pvt(pl, sizeof(pl), &fix), 0);
	assert_int_equal(fix.fix, GPS_FIX_NONE);
	pl[21] = 1;
	pl[20] = 2;
	assert_int_equal(ubx_decode_nav_pvt(pl, sizeof(pl), &fix), 0);
	assert_int_equal(fix.fix, GPS_FIX_2D);
	pl[20] = 5;   /* time only */
	assert_int_equal(ubx_decode_nav_pvt(pl, sizeof(pl), &fix), 0);
	assert_int_equal(fix.fix, GPS_FIX_NONE);
	/* u-blox 7's shorter NAV-PVT carries everything used; anything shorter is refused. */
	pl[20] = 3;
	assert_int_equal(ubx_decode_nav_pvt(pl, 84, &fix), 0);
	assert_int_equal(fix.fix, GPS_FIX_3D);
	assert_int_equal(ubx_decode_nav_pvt(pl, 83, &fix), -EBADMSG);
}

/* The uart thread's part: the loop a daemon runs around the setup machine and the parsers. */
struct host {
	struct emul_ublox rx;
	struct ublox_setup setup;
	struct ubx_parser ubx;
	struct nmea_parser nmea;
	uint64_t now_us;
	enum ublox_action last;
	uint32_t bauds[8];
	size_t nbauds;
	size_t nav_pvt;
	struct gps_fix fix;
};

static void host_frame(void *ctx, const struct ubx_frame *f)
{
	struct host *h = ctx;

	ublox_setup_on_frame(&h->setup, f);
	if (f->cls == UBX_CLASS_NAV && f->id == UBX_ID_NAV_PVT &&
	    ubx_decode_nav_pvt(f->payload, f->len, &h->fix) == 0) {
		h->fix.t_us = h->now_us;
		h->nav_pvt++;
	}
}

/* Runs the uart thread every 10 ms for ms milliseconds. */
static void host_run(struct host *h, int ms)
{
	for (int t = 0; t < ms; t += 10) {
		uint8_t buf[512];
		int n;

		h->now_us += 10000;
		emul_ublox_advance(&h->rx, h->now_us);
		while ((n = uart_read(&h->rx.uart, buf, sizeof(buf))) > 0) {
			ubx_parser_feed(&h->ubx, buf, (size_t)n, host_frame, h);
			nmea_parser_feed(&h->nmea, buf, (size_t)n, h->now_us);
		}
		for (;;) {
			struct ublox_out out;
			h->last = ublox_setup_step(&h->setup, h->now_us, &out);
			if (h->last == UBLOX_SEND) {
				assert_int_equal(uart_write(&h->rx.uart, out.frame, out.len), (int)out.len);
				continue;
			}
			if (h->last == UBLOX_SET_BAUD) {
				assert_int_equal(uart_set_baud(&h->rx.uart, out.baud), 0);
				if (h->nbauds < 8)
					h->bauds[h->nbauds++] = out.baud;
				continue;
			}
			break;
		}
	}
}

static struct host *host_new(uint32_t receiver_baud)
{
	struct host *h = calloc(1, sizeof(*h));
	const struct ublox_setup_config cfg = { .baud = 115200, .rate_ms = 200 };

	assert_non_null(h);
	emul_ublox_init(&h->rx, receiver_baud);
	assert_int_equal(ublox_setup_init(&h->setup, &cfg), 0);
	ubx_parser_init(&h->ubx);
	nmea_parser_init(&h->nmea);
	h->now_us = 1000000;
	return h;
}

static void test_ublox_setup_moves_a_cold_receiver_to_115200_and_nav_pvt(void **state)
{
	(void)state;
	struct host *h = host_new(9600);

	host_run(h, 3000);
	assert_int_equal(h->last, UBLOX_DONE);
	assert_true(ublox_setup_has_nav_pvt(&h->setup));
	assert_int_equal(h->rx.rx_baud, 115200);
	assert_int_equal(h->rx.host_baud, 115200);
	assert_int_equal(h->rx.lost_in_rate_change, 0);
	assert_int_equal(h->rx.nav_pvt_rate, 1);
	assert_int_equal(h->rx.meas_ms, 200);
	for (int i = 0; i < 6; i++)
		assert_int_equal(h->rx.nmea_rate[i], 0);
	assert_int_equal(ublox_setup_stats(&h->setup)->acks, 8);
	assert_int_equal(ublox_setup_stats(&h->setup)->naks, 0);

	/* And then the fixes come in at 5 Hz. */
	size_t before = h->nav_pvt;
	host_run(h, 1000);
	assert_in_range(h->nav_pvt - before, 4, 6);
	assert_int_equal(h->fix.fix, GPS_FIX_3D);
	assert_near(h->fix.lat_deg, 48.1173, 1e-7);
	assert_near(h->fix.lon_deg, 11.5166667, 1e-7);
	assert_float_equal(h->fix.alt_msl_m, 545.4f, 1e-3);
	assert_float_equal(h->fix.vel_ned_m_s[1], -2.0f, 1e-6);
	assert_int_equal(h->fix.num_sv, 12);
	free(h);
}

static void test_ublox_setup_copes_with_a_receiver_already_at_115200(void **state)
{
	(void)state;
	struct host *h = host_new(115200);

	host_run(h, 3000);
	assert_int_equal(h->last, UBLOX_DONE);
	assert_true(ublox_setup_has_nav_pvt(&h->setup));
	/* The 9600 CFG-PRT was noise to it; everything after was understood. */
	assert_true(h->rx.noise_in > 0);
	assert_int_equal(h->rx.cfg_prt, 0);
	assert_int_equal(h->rx.meas_ms, 200);
	free(h);
}

static void test_ublox_setup_falls_back_to_nmea_on_a_receiver_without_nav_pvt(void **state)
{
	(void)state;
	struct host *h = host_new(9600);

	h->rx.has_nav_pvt = false;
	host_run(h, 3000);
	assert_int_equal(h->last, UBLOX_DONE);
	assert_false(ublox_setup_has_nav_pvt(&h->setup));
	assert_int_equal(ublox_setup_stats(&h->setup)->naks, 1);
	/* NMEA stays on and carries the fix. */
	assert_int_equal(h->rx.nmea_rate[0], 1);
	uint32_t gga = h->nmea.stats.gga;
	host_run(h, 3000);
	assert_true(h->nmea.stats.gga > gga);
	const struct gps_fix *fix = nmea_parser_fix(&h->nmea);
	assert_int_equal(fix->fix, GPS_FIX_3D);
	assert_near(fix->lat_deg, 48.1173, 1e-6);
	assert_near(fix->lon_deg, 11.5166667, 1e-6);
	assert_float_equal(fix->alt_msl_m, 545.4f, 1e-3);
	assert_int_equal(h->nmea.stats.bad_checksum, 0);
	free(h);
}

static void test_ublox_setup_passes_a_nak_for_an_nmea_sentence_the_receiver_lacks(void **state)
{
	(void)state;
	struct host *h = host_new(9600);

	h->rx.nak_nmea_id = 0x01;   /* no GLL on this one */
	host_run(h, 3000);
	assert_int_equal(h->last, UBLOX_DONE);
	assert_true(ublox_setup_has_nav_pvt(&h->setup));
	assert_int_equal(ublox_setup_stats(&h->setup)->naks, 1);
	assert_int_equal(h->rx.meas_ms, 200);
	free(h);
}

static void test_ublox_setup_gives_up_on_a_silent_receiver(void **state)
{
	(void)state;
	struct host *h = host_new(9600);

	h->rx.silent = true;
	host_run(h, 10000);
	assert_int_equal(h->last, UBLOX_FAILED);
	const struct ublox_setup_stats *st = ublox_setup_stats(&h->setup);
	assert_int_equal(st->rounds, 3);
	assert_int_equal(st->timeouts, 9);
	/* Each round went back to the start rate before trying the target rate again. */
	assert_int_equal(h->nbauds, 5);
	assert_int_equal(h->bauds[0], 115200);
	assert_int_equal(h->bauds[1], 9600);
	assert_int_equal(h->bauds[2], 115200);
	free(h);
}

static void test_ublox_setup_retries_a_step_whose_ack_was_lost(void **state)
{
	(void)state;
	struct host *h = host_new(9600);

	/* Let the rate change happen, then lose whatever the receiver says for a while. */
	host_run(h, 60);
	assert_int_equal(h->rx.rx_baud, 115200);
	h->rx.silent = true;
	host_run(h, 400);
	h->rx.silent = false;
	host_run(h, 3000);
	assert_int_equal(h->last, UBLOX_DONE);
	assert_true(ublox_setup_stats(&h->setup)->timeouts >= 1);
	assert_int_equal(ublox_setup_stats(&h->setup)->rounds, 1);
	free(h);
}

static void test_ublox_setup_rejects_a_rate_out_of_range(void **state)
{
	(void)state;
	struct ublox_setup s;
	struct ublox_setup_config c = { .rate_ms = 50 };

	assert_int_equal(ublox_setup_init(&s, &c), -EINVAL);
	c.rate_ms = 250;
	assert_int_equal(ublox_setup_init(&s, &c), -EINVAL);
	c.rate_ms = 100;
	assert_int_equal(ublox_setup_init(&s, &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ubx_builders_match_frames_from_the_u_blox_documentation),
		cmocka_unit_test(test_ubx_parser_finds_a_frame_and_its_payload),
		cmocka_unit_test(test_ubx_parser_takes_frames_a_byte_at_a_time),
		cmocka_unit_test(test_ubx_parser_rejects_a_bad_checksum_and_goes_on),
		cmocka_unit_test(test_ubx_parser_finds_a_frame_hidden_behind_a_false_header),
		cmocka_unit_test(test_ubx_parser_skips_nmea_between_frames),
		cmocka_unit_test(test_ubx_parser_rejects_a_length_it_cannot_hold),
		cmocka_unit_test(test_ubx_parser_survives_random_garbage),
		cmocka_unit_test(test_ubx_decodes_nav_pvt),
		cmocka_unit_test(test_ublox_setup_moves_a_cold_receiver_to_115200_and_nav_pvt),
		cmocka_unit_test(test_ublox_setup_copes_with_a_receiver_already_at_115200),
		cmocka_unit_test(test_ublox_setup_falls_back_to_nmea_on_a_receiver_without_nav_pvt),
		cmocka_unit_test(test_ublox_setup_passes_a_nak_for_an_nmea_sentence_the_receiver_lacks),
		cmocka_unit_test(test_ublox_setup_gives_up_on_a_silent_receiver),
		cmocka_unit_test(test_ublox_setup_retries_a_step_whose_ack_was_lost),
		cmocka_unit_test(test_ublox_setup_rejects_a_rate_out_of_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
