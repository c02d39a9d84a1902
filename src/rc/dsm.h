/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Spektrum DSM2/DSMX decoder, for satellite ("remote") receivers: a UART at
 * 115200 baud 8N1, not inverted (idle high). A frame is 16 bytes, sent every 11
 * or 22 ms: 2 bytes of fade count or system type (ignored), then 7 big-endian
 * 16-bit servo words. 0xFFFF is an empty word. In 1024 (10-bit) mode a word is
 * channel number << 10 | position (bits 15-14 zero); in 2048 (11-bit) mode it
 * is phase << 15 | channel number << 11 | position. A frame carries at most 7
 * channels, so systems with more spread them over two frames.
 *
 * The frame does not say which mode it uses, so the decoder finds out: over
 * RC_DSM_DETECT_FRAMES whole frames it reads every word both ways. A reading is
 * plausible when no frame repeats a channel number, the frames show at most
 * RC_DSM_LAYOUTS different sets of channel numbers (a receiver sends the same
 * set every frame, or alternates two), and the numbers seen are exactly 0..n-1
 * (n = 4..7 for 10-bit, 4..12 for 11-bit). Exactly one plausible reading
 * decides; otherwise it listens again. (A 10-bit frame read as 11-bit repeats
 * channel numbers; an 11-bit one read as 10-bit has numbers up to 2n-1 or bit
 * 14/15 set, so only a 4-channel 11-bit system can look ambiguous, and then the
 * decoder waits rather than guess.) After detection a frame must show one of the
 * sets seen during detection: DSM frames carry no checksum, and these checks are
 * what keeps noise from being read as channels. After RC_DSM_REDETECT_US
 * without a good frame it detects again, so a receiver bound anew in the other
 * mode is found.
 *
 * Output: after detection, a frame once every channel of the set has been
 * received; each later good frame outputs all n channels with their latest
 * values. Position p (0..2047; 10-bit positions doubled) is
 * us = 903 + p * 7/12, the 0.583 us per count and 903..2097 us full range of
 * Spektrum's "Remote Receiver Interfacing" specification (rev A, 2016). DSM
 * sends throttle, roll, pitch, yaw, ...; the output puts roll, pitch, throttle,
 * yaw first, the order PPM and SBUS receivers use, and the rest in order.
 * Channel numbers 12-15 of 11-bit mode (XPlus) are not decoded and ignored.
 * DSM has no failsafe flag: satellites stop sending when the link is lost, so
 * failsafe is never set and a lost link shows as frames ceasing.
 *
 * Two inputs, one per decoder instance, as for SBUS (see sbus.h): rc_dsm_pulse()
 * and rc_dsm_bytes(). Thread, ownership and units: see rc.h.
 */
#ifndef FULMAR_RC_DSM_H
#define FULMAR_RC_DSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rc/rc.h"
#include "rc/serial.h"

#define RC_DSM_BAUD 115200
#define RC_DSM_FRAME_LEN 16
#define RC_DSM_WORDS 7
#define RC_DSM_MIN_CHANNELS 4
#define RC_DSM_MAX_CHANNELS 12
/* Frames are at least 9.6 ms apart (16 bytes take 1.4 ms of an 11 ms period). */
#define RC_DSM_GAP_US 2000
#define RC_DSM_DETECT_FRAMES 5
#define RC_DSM_LAYOUTS 4
#define RC_DSM_REDETECT_US 200000

/* What detection has seen of one reading (10 or 11 bits). */
struct rc_dsm_reading {
	bool bad;                           /* a frame impossible in this reading */
	uint16_t mask;                      /* channel numbers seen */
	uint16_t layout[RC_DSM_LAYOUTS];    /* the different sets of channel numbers seen */
	uint8_t layouts;
};

struct rc_dsm {
	/* private */
	struct rc_serial serial;
	uint8_t resolution;     /* 0 while detecting, then 10 or 11 */
	uint8_t sniff_frames;
	struct rc_dsm_reading sniff10, sniff11;
	struct rc_dsm_reading detected;     /* the reading chosen */
	uint16_t mask;          /* the detected channel numbers, 0..n-1 */
	uint16_t seen;          /* of which received since detection */
	uint16_t pos[16];       /* latest position per channel number, 0..2047 */
	uint64_t last_good_us;
	bool have_good;
	/* read-only to the caller */
	struct rc_stats stats;
};

/* Pulse input when pulse_input, else byte input. */
void rc_dsm_init(struct rc_dsm *d, bool pulse_input);

/*
 * Pulse input: the pin was low for low_us and then high for high_us, and that high
 * level ended at t_us. Returns 1 and fills *out when the pair completed a good
 * frame (out->timestamp_us: when its last stop bit ended), else 0.
 */
int rc_dsm_pulse(struct rc_dsm *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		 struct rc_frame *out);

/*
 * Byte input: n bytes read from the UART at t_us (taken to have arrived back to
 * back, the last at t_us). Returns the number of frames output (0, 1, rarely
 * 2); *out holds the last and is untouched when 0.
 */
int rc_dsm_bytes(struct rc_dsm *d, const uint8_t *bytes, size_t n, uint64_t t_us,
		 struct rc_frame *out);

/* 0 while detecting, else 10 or 11. */
unsigned int rc_dsm_resolution(const struct rc_dsm *d);

#endif
