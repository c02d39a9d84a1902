// SPDX-License-Identifier: GPL-3.0-or-later
/* Sentence layouts: NMEA 0183 (GGA, RMC), as u-blox receivers send them. */
#include "drivers/nmea.h"

#include <math.h>
#include <string.h>

#define KNOTS_TO_M_S 0.514444f
#define PI 3.14159265358979323846
#define MAX_FIELDS 20

void nmea_parser_init(struct nmea_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->fix.fix = GPS_FIX_NONE;
	p->fix.alt_ellipsoid_m = NAN;
	p->fix.h_acc_m = NAN;
	p->fix.v_acc_m = NAN;
	p->fix.s_acc_m_s = NAN;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

struct field {
	const char *s;
	size_t len;
};

/* A decimal number "[-]123.456"; false for an empty or malformed field. */
static bool field_number(struct field f, double *out)
{
	double v = 0, scale = 1;
	bool neg = false, digits = false, point = false;

	for (size_t i = 0; i < f.len; i++) {
		char c = f.s[i];
		if (i == 0 && (c == '-' || c == '+')) {
			neg = c == '-';
		} else if (c == '.' && !point) {
			point = true;
		} else if (c >= '0' && c <= '9') {
			digits = true;
			if (point) {
				scale /= 10;
				v += (c - '0') * scale;
			} else {
				v = v * 10 + (c - '0');
			}
		} else {
			return false;
		}
	}
	if (!digits)
		return false;
	*out = neg ? -v : v;
	return true;
}

/* "ddmm.mmmm" (or "dddmm.mmmm") with its hemisphere letter: signed degrees. */
static bool field_angle(struct field value, struct field hemi, char neg_hemi, char pos_hemi,
			double *deg)
{
	double v;

	if (!field_number(value, &v) || v < 0 || hemi.len != 1)
		return false;
	if (hemi.s[0] != neg_hemi && hemi.s[0] != pos_hemi)
		return false;
	double whole = floor(v / 100);
	double minutes = v - whole * 100;
	if (minutes >= 60)
		return false;
	*deg = (whole + minutes / 60) * (hemi.s[0] == neg_hemi ? -1 : 1);
	return true;
}

/* "hhmmss[.ss]" into the fix's time of day. */
static bool field_time(struct field f, struct gps_utc *utc)
{
	double v;

	if (f.len < 6 || !field_number(f, &v) || v < 0)
		return false;
	uint32_t whole = (uint32_t)v;
	utc->hour = (uint8_t)(whole / 10000);
	utc->min = (uint8_t)(whole / 100 % 100);
	utc->sec = (uint8_t)(whole % 100);
	utc->nano = (int32_t)((v - whole) * 1e9 + 0.5);
	if (utc->hour > 23 || utc->min > 59 || utc->sec > 60)
		return false;
	utc->time_valid = true;
	return true;
}

/* "ddmmyy": two-digit years 80..99 are the 1900s (GPS began in 1980), the rest 2000 + yy. */
static bool field_date(struct field f, struct gps_utc *utc)
{
	double v;

	if (f.len != 6 || !field_number(f, &v))
		return false;
	uint32_t d = (uint32_t)v;
	utc->day = (uint8_t)(d / 10000);
	utc->month = (uint8_t)(d / 100 % 100);
	utc->year = (uint16_t)(d % 100 >= 80 ? 1900 + d % 100 : 2000 + d % 100);
	if (utc->day < 1 || utc->day > 31 || utc->month < 1 || utc->month > 12)
		return false;
	utc->date_valid = true;
	return true;
}

static bool nmea_gga(struct nmea_parser *p, const struct field *fl, size_t n)
{
	struct gps_fix f = p->fix;
	double lat, lon, q, sats, hdop, alt, sep;

	if (n < 12 || !field_number(fl[6], &q))
		return false;
	if (q == 0) {
		/* No fix: the position fields are empty. */
		f.fix = GPS_FIX_NONE;
	} else {
		if (!field_angle(fl[2], fl[3], 'S', 'N', &lat) ||
		    !field_angle(fl[4], fl[5], 'W', 'E', &lon) || !field_number(fl[9], &alt))
			return false;
		f.fix = GPS_FIX_3D;
		f.lat_deg = lat;
		f.lon_deg = lon;
		f.alt_msl_m = (float)alt;
		f.alt_ellipsoid_m = field_number(fl[11], &sep) ? (float)(alt + sep) : NAN;
	}
	if (fl[1].len)
		field_time(fl[1], &f.utc);
	if (field_number(fl[7], &sats))
		f.num_sv = (uint8_t)sats;
	if (field_number(fl[8], &hdop))
		f.dop = (float)hdop;
	p->fix = f;
	p->stats.gga++;
	return true;
}

static bool nmea_rmc(struct nmea_parser *p, const struct field *fl, size_t n)
{
	struct gps_fix f = p->fix;
	double knots, course = 0;

	if (n < 10 || fl[2].len != 1)
		return false;
	if (fl[1].len && !field_time(fl[1], &f.utc))
		return false;
	if (fl[9].len && !field_date(fl[9], &f.utc))
		return false;
	if (fl[2].s[0] != 'A') {
		f.fix = GPS_FIX_NONE;
	} else {
		if (!field_number(fl[7], &knots))
			return false;
		field_number(fl[8], &course);   /* empty when standing still */
		f.ground_speed_m_s = (float)knots * KNOTS_TO_M_S;
		f.course_deg = (float)course;
		f.vel_ned_m_s[0] = f.ground_speed_m_s * (float)cos(course * PI / 180);
		f.vel_ned_m_s[1] = f.ground_speed_m_s * (float)sin(course * PI / 180);
		f.vel_ned_m_s[2] = 0;
		f.vel_down_valid = false;
	}
	p->fix = f;
	p->stats.rmc++;
	return true;
}

/* A whole sentence, '$' to just before the line end, is in buf. */
static size_t nmea_sentence(struct nmea_parser *p, uint64_t now_us)
{
	char *star = memchr(p->buf, '*', p->len);

	if (!star || (size_t)(star - p->buf) + 3 != p->len) {
		p->stats.malformed++;
		return 0;
	}
	uint8_t sum = 0;
	for (const char *c = p->buf + 1; c < star; c++)
		sum ^= (uint8_t)*c;
	int hi = hex_value(star[1]), lo = hex_value(star[2]);
	if (hi < 0 || lo < 0 || sum != (uint8_t)(hi << 4 | lo)) {
		p->stats.bad_checksum++;
		return 0;
	}

	struct field fl[MAX_FIELDS];
	size_t n = 0;
	const char *s = p->buf + 1;
	while (n < MAX_FIELDS) {
		const char *comma = memchr(s, ',', (size_t)(star - s));
		const char *end = comma ? comma : star;
		fl[n++] = (struct field){ s, (size_t)(end - s) };
		if (!comma)
			break;
		s = comma + 1;
	}
	/* fl[0] is the address: a two-letter talker and the sentence type. */
	if (fl[0].len != 5) {
		p->stats.malformed++;
		return 0;
	}
	bool ok;
	if (memcmp(fl[0].s + 2, "GGA", 3) == 0) {
		ok = nmea_gga(p, fl, n);
	} else if (memcmp(fl[0].s + 2, "RMC", 3) == 0) {
		ok = nmea_rmc(p, fl, n);
	} else {
		p->stats.other++;
		return 0;
	}
	if (!ok) {
		p->stats.malformed++;
		return 0;
	}
	p->fix.t_us = now_us;
	return 1;
}

size_t nmea_parser_feed(struct nmea_parser *p, const uint8_t *data, size_t len, uint64_t now_us)
{
	size_t done = 0;

	for (size_t i = 0; i < len; i++) {
		char c = (char)data[i];
		if (c == '$') {
			/* A new sentence starts, whatever came before. */
			p->in_sentence = true;
			p->len = 0;
		}
		if (!p->in_sentence)
			continue;
		if (c == '\r' || c == '\n') {
			done += nmea_sentence(p, now_us);
			p->in_sentence = false;
			continue;
		}
		if (p->len >= NMEA_MAX_SENTENCE || data[i] < 0x20 || data[i] > 0x7e) {
			p->stats.malformed++;
			p->in_sentence = false;
			continue;
		}
		p->buf[p->len++] = c;
	}
	return done;
}

const struct gps_fix *nmea_parser_fix(const struct nmea_parser *p)
{
	return &p->fix;
}
