/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Benewake TFmini laser rangefinder on a UART (115200 baud, 8N1), which
 * streams 9-byte frames at 100 Hz without being asked (Benewake's TFmini
 * product manual SJ-PM-TFmini-T-01, "Data output format"):
 *   0x59 0x59  distance (cm, little-endian)  strength (little-endian)
 *   mode  spare  checksum (the low byte of the sum of the first 8 bytes)
 * The manual: with strength under 20 the distance is unreliable (the sensor
 * then sends 0xFFFF); above its 12 m it sends 1200. A frame with strength
 * under TFMINI_MIN_STRENGTH, strength 65535 or distance 0xFFFF is a reading
 * without a distance (RANGE_READING_NO_RETURN); a distance beyond
 * TFMINI_MAX_CM with a good strength is not what a TFmini sends: refused
 * and counted. A frame whose checksum fails is dropped and counted; bytes
 * between frames are counted as garbage. ArduPilot reads it as RNGFND1_TYPE
 * 20 (libraries/AP_RangeFinder/AP_RangeFinder_Benewake.cpp).
 *
 * The parser is pure: bytes and the time they were read in, readings out;
 * its caller owns it. The board device (tfmini_driver, drivers.h) reads the
 * port on the uart thread, which owns it, and publishes there. No allocation.
 */
#ifndef FULMAR_DRIVERS_TFMINI_H
#define FULMAR_DRIVERS_TFMINI_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/sensor_sample.h"

#define TFMINI_BAUD 115200u
#define TFMINI_HEADER 0x59
#define TFMINI_FRAME_LEN 9
#define TFMINI_MIN_STRENGTH 20u
#define TFMINI_MAX_CM 1200u

struct tfmini_stats {
	uint64_t frames;                  /* with a good checksum */
	uint32_t bad_checksum;
	uint32_t garbage;                 /* bytes outside frames */
	uint32_t no_return;               /* weak or saturated: no distance */
	uint32_t refused;                 /* a distance beyond TFMINI_MAX_CM */
};

struct tfmini {
	uint8_t frame[TFMINI_FRAME_LEN];
	size_t len;
	struct tfmini_stats stats;
};

void tfmini_init(struct tfmini *t);
/*
 * Feeds n bytes read at now_us. Returns how many readings they completed
 * (frames with a good checksum and a plausible content), the last of them
 * in *out (stamped now_us); 0 leaves *out untouched.
 */
size_t tfmini_feed(struct tfmini *t, const uint8_t *buf, size_t n, uint64_t now_us,
		   struct range_sample *out);
const struct tfmini_stats *tfmini_stats(const struct tfmini *t);

#endif
