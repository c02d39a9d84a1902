// SPDX-License-Identifier: GPL-3.0-or-later
/* The NMEA GGA/RMC fallback parser: known sentences, bad ones, and noise around them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "drivers/nmea.h"

/* cmocka 1.1.5 compares only floats; positions need doubles. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static size_t feed(struct nmea_parser *p, const char *s, uint64_t now_us)
{
	return nmea_parser_feed(p, (const uint8_t *)s, strlen(s), now_us);
}

/* The textbook examples (NMEA 0183 references): Munich, 23 March 1994. */
static const char gga[] = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n";
static const char rmc[] =
	"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n";

static void test_nmea_reads_position_and_altitude_from_gga(void **state)
{
	(void)state;
	struct nmea_parser p;

	nmea_parser_init(&p);
	assert_int_equal(feed(&p, gga, 42), 1);
	const struct gps_fix *f = nmea_parser_fix(&p);
	assert_int_equal(f->t_us, 42);
	assert_int_equal(f->fix, GPS_FIX_3D);
	assert_near(f->lat_deg, 48.0 + 7.038 / 60, 1e-9);
	assert_near(f->lon_deg, 11.0 + 31.0 / 60, 1e-9);
	assert_float_equal(f->alt_msl_m, 545.4f, 1e-4);
	assert_float_equal(f->alt_ellipsoid_m, 592.3f, 1e-3);
	assert_int_equal(f->num_sv, 8);
	assert_float_equal(f->dop, 0.9f, 1e-6);
	assert_int_equal(f->utc.hour, 12);
	assert_int_equal(f->utc.min, 35);
	assert_int_equal(f->utc.sec, 19);
	assert_true(isnan(f->h_acc_m));
	assert_int_equal(p.stats.gga, 1);
}

static void test_nmea_reads_speed_course_and_date_from_rmc(void **state)
{
	(void)state;
	struct nmea_parser p;

	nmea_parser_init(&p);
	assert_int_equal(feed(&p, gga, 1), 1);
	assert_int_equal(feed(&p, rmc, 2), 1);
	const struct gps_fix *f = nmea_parser_fix(&p);
	assert_int_equal(f->fix, GPS_FIX_3D);
	assert_float_equal(f->ground_speed_m_s, 22.4f * 0.514444f, 1e-4);
	assert_float_equal(f->course_deg, 84.4f, 1e-4);
	assert_float_equal(f->vel_ned_m_s[0], f->ground_speed_m_s * cosf(84.4f * 3.14159265f / 180), 1e-3);
	assert_float_equal(f->vel_ned_m_s[1], f->ground_speed_m_s * sinf(84.4f * 3.14159265f / 180), 1e-3);
	assert_false(f->vel_down_valid);
	assert_int_equal(f->utc.year, 1994);
	assert_int_equal(f->utc.month, 3);
	assert_int_equal(f->utc.day, 23);
	assert_true(f->utc.date_valid);
	assert_float_equal(f->alt_msl_m, 545.4f, 1e-4);   /* kept from the GGA */
}

static void test_nmea_takes_any_talker_and_the_southern_and_western_hemispheres(void **state)
{
	(void)state;
	struct nmea_parser p;

	nmea_parser_init(&p);
	assert_int_equal(feed(&p,
		"$GNGGA,001043.00,3352.12812,S,15112.20710,W,2,12,0.71,41.6,M,21.3,M,,*73\r\n", 0), 1);
	const struct gps_fix *f = nmea_parser_fix(&p);
	assert_near(f->lat_deg, -(33.0 + 52.12812 / 60), 1e-9);
	assert_near(f->lon_deg, -(151.0 + 12.20710 / 60), 1e-9);
	assert_int_equal(f->num_sv, 12);
}

static void test_nmea_rejects_a_sentence_with_a_bad_checksum(void **state)
{
	(void)state;
	struct nmea_parser p;
	char bad[sizeof(gga)];

	memcpy(bad, gga, sizeof(gga));
	bad[20] = '9';   /* a digit of the latitude changed in transit */
	nmea_parser_init(&p);
	assert_int_equal(feed(&p, bad, 0), 0);
	assert_int_equal(p.stats.bad_checksum, 1);
	assert_int_equal(nmea_parser_fix(&p)->fix, GPS_FIX_NONE);
}

static void test_nmea_rejects_sentences_without_checksum_or_too_long(void **state)
{
	(void)state;
	struct nmea_parser p;
	char longline[200] = "$GPGGA,";

	nmea_parser_init(&p);
	assert_int_equal(feed(&p, "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,\r\n",
			      0), 0);
	memset(&longline[7], '1', 150);
	strcat(longline, "*00\r\n");
	assert_int_equal(feed(&p, longline, 0), 0);
	assert_int_equal(p.stats.malformed, 2);
	/* The next good sentence is fine. */
	assert_int_equal(feed(&p, gga, 0), 1);
}

static void test_nmea_reports_no_fix_from_gga_quality_0_and_rmc_status_v(void **state)
{
	(void)state;
	struct nmea_parser p;

	nmea_parser_init(&p);
	assert_int_equal(feed(&p, gga, 0), 1);
	assert_int_equal(feed(&p, "$GPGGA,123520,,,,,0,00,99.9,,,,,,*76\r\n", 0), 1);
	assert_int_equal(nmea_parser_fix(&p)->fix, GPS_FIX_NONE);
	assert_int_equal(feed(&p, gga, 0), 1);
	assert_int_equal(feed(&p, "$GPRMC,123521,V,,,,,,,230394,,,N*5A\r\n", 0), 1);
	assert_int_equal(nmea_parser_fix(&p)->fix, GPS_FIX_NONE);
}

static void test_nmea_ignores_other_sentences_and_binary_noise(void **state)
{
	(void)state;
	struct nmea_parser p;
	const uint8_t noise[] = { 0xb5, 0x62, 0x01, 0x07, 0x5c, 0x00, 0x24, 0x0d, 0x0a, 0xff, 0x00 };

	nmea_parser_init(&p);
	nmea_parser_feed(&p, noise, sizeof(noise), 0);
	assert_int_equal(feed(&p, "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n", 0), 0);
	nmea_parser_feed(&p, noise, sizeof(noise), 0);
	/* A sentence cut short by a new '$' is dropped; the new one counts. */
	assert_int_equal(feed(&p, "$GPGGA,1235", 0), 0);
	assert_int_equal(feed(&p, gga, 0), 1);
	assert_int_equal(p.stats.other, 1);
	assert_int_equal(p.stats.gga, 1);
}

static void test_nmea_takes_a_sentence_split_over_many_reads(void **state)
{
	(void)state;
	struct nmea_parser p;
	size_t done = 0;

	nmea_parser_init(&p);
	for (size_t i = 0; i < strlen(rmc); i++)
		done += nmea_parser_feed(&p, (const uint8_t *)&rmc[i], 1, i);
	assert_int_equal(done, 1);
	assert_int_equal(p.stats.rmc, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nmea_reads_position_and_altitude_from_gga),
		cmocka_unit_test(test_nmea_reads_speed_course_and_date_from_rmc),
		cmocka_unit_test(test_nmea_takes_any_talker_and_the_southern_and_western_hemispheres),
		cmocka_unit_test(test_nmea_rejects_a_sentence_with_a_bad_checksum),
		cmocka_unit_test(test_nmea_rejects_sentences_without_checksum_or_too_long),
		cmocka_unit_test(test_nmea_reports_no_fix_from_gga_quality_0_and_rmc_status_v),
		cmocka_unit_test(test_nmea_ignores_other_sentences_and_binary_noise),
		cmocka_unit_test(test_nmea_takes_a_sentence_split_over_many_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
