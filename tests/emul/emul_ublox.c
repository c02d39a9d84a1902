// SPDX-License-Identifier: GPL-3.0-or-later
#include "emul_ublox.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void emul_ublox_emit(struct emul_ublox *e, const uint8_t *b, size_t n)
{
	if (e->out_len + n > sizeof(e->out))
		return;  /* the host stopped reading: the receiver's buffer overflows */
	memcpy(&e->out[e->out_len], b, n);
	e->out_len += n;
}

static void emul_ublox_ubx(struct emul_ublox *e, uint8_t cls, uint8_t id, const uint8_t *pl,
			   uint16_t len)
{
	uint8_t f[8 + 100];
	uint8_t a = 0, b = 0;

	if (len > 100)
		return;
	f[0] = 0xb5;
	f[1] = 0x62;
	f[2] = cls;
	f[3] = id;
	f[4] = (uint8_t)len;
	f[5] = (uint8_t)(len >> 8);
	memcpy(&f[6], pl, len);
	for (size_t i = 2; i < 6u + len; i++) {
		a = (uint8_t)(a + f[i]);
		b = (uint8_t)(b + a);
	}
	f[6 + len] = a;
	f[7 + len] = b;
	emul_ublox_emit(e, f, 8u + len);
}

static void emul_ublox_ack(struct emul_ublox *e, bool ack, uint8_t cls, uint8_t id)
{
	const uint8_t pl[2] = { cls, id };

	emul_ublox_ubx(e, 0x05, ack ? 0x01 : 0x00, pl, 2);
}

static uint32_t get_le(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One complete, checked UBX command from the host. */
static void emul_ublox_command(struct emul_ublox *e, uint8_t cls, uint8_t id, const uint8_t *pl,
			       uint16_t len)
{
	if (e->silent || cls != 0x06)
		return;
	if (id == 0x00 && len == 20) {
		e->cfg_prt++;
		e->rx_baud = get_le(&pl[8], 4);
		emul_ublox_ack(e, true, cls, id);   /* already at the new rate */
	} else if (id == 0x01 && len == 3) {
		e->cfg_msg++;
		bool ok = true;
		if (pl[0] == 0x01 && pl[1] == 0x07) {
			ok = e->has_nav_pvt;
			e->nav_pvt_rate = ok ? pl[2] : 0;
		} else if (pl[0] == 0xf0 && pl[1] < 6 && pl[1] != e->nak_nmea_id)
			e->nmea_rate[pl[1]] = pl[2];
		else
			ok = false;
		emul_ublox_ack(e, ok, cls, id);
	} else if (id == 0x08 && len == 6) {
		e->cfg_rate++;
		uint16_t ms = (uint16_t)get_le(pl, 2);
		bool ok = ms >= 25;
		if (ok)
			e->meas_ms = ms;
		emul_ublox_ack(e, ok, cls, id);
	} else {
		emul_ublox_ack(e, false, cls, id);
	}
}

/* The receiver's reader: a byte it understood, in UBX framing. */
static void emul_ublox_hear(struct emul_ublox *e, uint8_t byte)
{
	if (e->cmd_len == 0 && byte != 0xb5)
		return;
	if (e->cmd_len == 1 && byte != 0x62) {
		e->cmd_len = 0;
		return;
	}
	e->cmd[e->cmd_len++] = byte;
	if (e->cmd_len < 6)
		return;
	size_t len = e->cmd[4] | (size_t)e->cmd[5] << 8;
	if (len + 8 > sizeof(e->cmd)) {
		e->cmd_len = 0;
		return;
	}
	if (e->cmd_len < len + 8)
		return;
	uint8_t a = 0, b = 0;
	for (size_t i = 2; i < 6 + len; i++) {
		a = (uint8_t)(a + e->cmd[i]);
		b = (uint8_t)(b + a);
	}
	if (a == e->cmd[6 + len] && b == e->cmd[7 + len])
		emul_ublox_command(e, e->cmd[2], e->cmd[3], &e->cmd[6], (uint16_t)len);
	e->cmd_len = 0;
}

static void emul_ublox_nmea(struct emul_ublox *e, const char *body)
{
	char line[100];
	uint8_t sum = 0;

	for (const char *c = body; *c; c++)
		sum ^= (uint8_t)*c;
	int n = snprintf(line, sizeof(line), "$%s*%02X\r\n", body, sum);
	if (n > 0 && (size_t)n < sizeof(line))
		emul_ublox_emit(e, (const uint8_t *)line, (size_t)n);
}

static void emul_ublox_ddmm(char *out, size_t cap, int32_t e7, bool lat)
{
	uint32_t a = (uint32_t)(e7 < 0 ? -(int64_t)e7 : e7);
	uint32_t deg = a / 10000000;
	double minutes = (a % 10000000) * 60.0 / 1e7;

	snprintf(out, cap, lat ? "%02u%07.4f,%c" : "%03u%07.4f,%c", deg, minutes,
		 lat ? (e7 < 0 ? 'S' : 'N') : (e7 < 0 ? 'W' : 'E'));
}

static void emul_ublox_measure(struct emul_ublox *e)
{
	const struct emul_ublox_fix *f = &e->fix;

	if (e->nav_pvt_rate) {
		uint8_t pl[92] = { 0 };
		uint32_t itow = (uint32_t)(e->now_us / 1000);
		for (int i = 0; i < 4; i++)
			pl[i] = (uint8_t)(itow >> (8 * i));
		const uint8_t date[7] = { 0xe8, 0x07, 5, 17, 12, 30, 5 };   /* 2024-05-17 12:30:05 */
		memcpy(&pl[4], date, sizeof(date));
		pl[11] = 0x07;
		pl[20] = f->fix_type;
		pl[21] = f->fix_ok ? 1 : 0;
		pl[23] = f->num_sv;
		const int32_t v[] = { f->lon_e7, f->lat_e7, f->height_mm, f->hmsl_mm, 1500, 2500,
				      f->vel_mm_s[0], f->vel_mm_s[1], f->vel_mm_s[2] };
		for (int k = 0; k < 9; k++)
			for (int i = 0; i < 4; i++)
				pl[24 + 4 * k + i] = (uint8_t)((uint32_t)v[k] >> (8 * i));
		pl[76] = 150;   /* pDOP 1.5 */
		emul_ublox_ubx(e, 0x01, 0x07, pl, sizeof(pl));
		e->nav_pvt_sent++;
	}
	char lat[20], lon[20], body[90];
	emul_ublox_ddmm(lat, sizeof(lat), f->lat_e7, true);
	emul_ublox_ddmm(lon, sizeof(lon), f->lon_e7, false);
	bool fix = f->fix_ok && f->fix_type >= 2;
	if (e->nmea_rate[0]) {
		snprintf(body, sizeof(body), "GNGGA,123005.00,%s,%s,%d,%02u,0.9,%.1f,M,%.1f,M,,",
			 fix ? lat : ",", fix ? lon : ",", fix ? 1 : 0, f->num_sv,
			 f->hmsl_mm / 1000.0, (f->height_mm - f->hmsl_mm) / 1000.0);
		emul_ublox_nmea(e, body);
	}
	if (e->nmea_rate[2])
		emul_ublox_nmea(e, "GNGSA,A,3,01,02,03,04,,,,,,,,,1.5,0.9,1.2");
	if (e->nmea_rate[4]) {
		snprintf(body, sizeof(body), "GNRMC,123005.00,%c,%s,%s,0.000,,170524,,,A",
			 fix ? 'A' : 'V', lat, lon);
		emul_ublox_nmea(e, body);
	}
	if (e->nmea_rate[5])
		emul_ublox_nmea(e, "GNVTG,,T,,M,0.000,N,0.000,K,A");
}

void emul_ublox_advance(struct emul_ublox *e, uint64_t now_us)
{
	e->now_us = now_us;
	size_t heard = 0;
	while (heard < e->wire_len && e->wire_at_us[heard] <= now_us) {
		if (e->wire_baud[heard] == e->rx_baud)
			emul_ublox_hear(e, e->wire[heard]);
		else
			e->noise_in++;
		heard++;
	}
	memmove(e->wire, &e->wire[heard], e->wire_len - heard);
	memmove(e->wire_at_us, &e->wire_at_us[heard], (e->wire_len - heard) * sizeof(uint64_t));
	memmove(e->wire_baud, &e->wire_baud[heard], (e->wire_len - heard) * sizeof(uint32_t));
	e->wire_len -= heard;
	while (e->next_meas_us <= now_us) {
		if (!e->silent)
			emul_ublox_measure(e);
		e->next_meas_us += e->meas_ms * 1000u;
	}
}

static int emul_ublox_read(struct uart *u, uint8_t *buf, size_t len)
{
	struct emul_ublox *e = (void *)u;
	size_t n = len < e->out_len ? len : e->out_len;

	for (size_t i = 0; i < n; i++) {
		if (e->host_baud == e->rx_baud) {
			buf[i] = e->out[i];
		} else {
			/* Sampled at the wrong rate: noise, which may well contain 0xB5 0x62. */
			e->noise = e->noise * 1103515245u + 12345u;
			buf[i] = (uint8_t)(e->noise >> 16);
		}
	}
	memmove(e->out, &e->out[n], e->out_len - n);
	e->out_len -= n;
	return (int)n;
}

static int emul_ublox_write(struct uart *u, const uint8_t *buf, size_t len)
{
	struct emul_ublox *e = (void *)u;
	uint64_t byte_us = 10000000u / e->host_baud;
	uint64_t t = e->wire_free_us > e->now_us ? e->wire_free_us : e->now_us;
	size_t n = 0;

	for (; n < len && e->wire_len < sizeof(e->wire); n++) {
		t += byte_us ? byte_us : 1;
		e->wire[e->wire_len] = buf[n];
		e->wire_at_us[e->wire_len] = t;
		e->wire_baud[e->wire_len] = e->host_baud;
		e->wire_len++;
	}
	e->wire_free_us = t;
	return (int)n;
}

static int emul_ublox_set_baud(struct uart *u, uint32_t baud)
{
	struct emul_ublox *e = (void *)u;

	/* Whatever had not left yet goes out garbled. */
	for (size_t i = 0; i < e->wire_len; i++)
		if (e->wire_at_us[i] > e->now_us) {
			e->wire_baud[i] = 0;
			e->lost_in_rate_change++;
		}
	e->host_baud = baud;
	return 0;
}

static void emul_ublox_close(struct uart *u)
{
	(void)u;
}

static const struct uart_ops emul_ublox_ops = {
	.read = emul_ublox_read,
	.write = emul_ublox_write,
	.set_baud = emul_ublox_set_baud,
	.close = emul_ublox_close,
};

void emul_ublox_init(struct emul_ublox *e, uint32_t rx_baud)
{
	memset(e, 0, sizeof(*e));
	e->uart.ops = &emul_ublox_ops;
	e->host_baud = 9600;
	e->rx_baud = rx_baud;
	e->has_nav_pvt = true;
	e->nak_nmea_id = 0xff;
	for (int i = 0; i < 6; i++)
		e->nmea_rate[i] = 1;
	e->meas_ms = 1000;
	e->next_meas_us = 1000000;
	e->noise = 1;
	e->fix = (struct emul_ublox_fix){
		.lat_e7 = 481173000, .lon_e7 = 115166667, .height_mm = 592300, .hmsl_mm = 545400,
		.vel_mm_s = { 1000, -2000, 300 }, .fix_type = 3, .fix_ok = true, .num_sv = 12,
	};
}
