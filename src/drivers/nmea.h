/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * NMEA 0183 GGA and RMC sentences (any talker: GP, GN, GL, ...) to a GPS fix,
 * the fallback when a receiver cannot be configured for UBX NAV-PVT. A pure
 * byte-in parser: sentences must carry their checksum; anything else in the
 * stream (UBX frames, noise) is skipped. No locale, no allocation, no clock
 * (now_us stamps the fix).
 *
 * GGA gives position, altitude, satellites, HDOP and whether there is a fix
 * (quality 0 = none; any other quality counts as 3D, as GGA carries an
 * altitude); RMC gives the date, ground speed and course (north and east
 * velocity from them; there is no vertical velocity in NMEA) and its own
 * valid flag. Each sentence updates its part of the same fix.
 *
 * A parser belongs to the thread that feeds it (the uart thread).
 */
#ifndef FULMAR_DRIVERS_NMEA_H
#define FULMAR_DRIVERS_NMEA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/gps_fix.h"

/* 82 characters from '$' to the end of the line, as NMEA 0183 allows. */
#define NMEA_MAX_SENTENCE 82

struct nmea_stats {
	uint32_t gga;
	uint32_t rmc;
	uint32_t other;           /* good sentences of other types, ignored */
	uint32_t bad_checksum;
	uint32_t malformed;       /* no checksum, too long, or fields that do not parse */
};

struct nmea_parser {
	char buf[NMEA_MAX_SENTENCE + 1];
	size_t len;
	bool in_sentence;
	struct gps_fix fix;
	struct nmea_stats stats;
};

void nmea_parser_init(struct nmea_parser *p);
/*
 * Feeds len bytes; returns how many GGA or RMC sentences they completed.
 * The fix after them is nmea_parser_fix(); its t_us is the now_us of the
 * call that completed the last one.
 */
size_t nmea_parser_feed(struct nmea_parser *p, const uint8_t *data, size_t len, uint64_t now_us);
const struct gps_fix *nmea_parser_fix(const struct nmea_parser *p);

#endif
