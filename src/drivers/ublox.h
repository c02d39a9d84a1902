/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Start-up configuration of a u-blox receiver over UBX, as a pure state
 * machine: it says what to send and when to change the serial rate; the
 * caller (the uart thread) does the I/O, feeds every UBX frame it receives
 * back in, and passes its clock in. Nothing blocks.
 *
 * The sequence:
 *  1. CFG-PRT at the rate the port is at now (9600 after a cold start):
 *     UART at the target rate, UBX and NMEA in and out. No ACK is waited
 *     for: it would come at the new rate, if at all. After the bytes had
 *     time to leave, UBLOX_SET_BAUD tells the caller to switch its port.
 *  2. CFG-MSG NAV-PVT once per solution. A NAK means a receiver older than
 *     protocol 14 (no NAV-PVT): the sequence stops there with NMEA left on,
 *     and ublox_setup_has_nav_pvt() is false, so the caller reads NMEA.
 *  3. CFG-MSG rate 0 for the NMEA GGA, GLL, GSA, GSV, RMC and VTG sentences
 *     (a NAK, from a receiver without one of them, is counted and passed).
 *  4. CFG-RATE: a solution every rate_ms (100 to 200 ms: 10 to 5 Hz).
 * Each step but the first waits for its ACK-ACK; a timeout resends it (3
 * tries); a step that never gets an answer starts the whole sequence over
 * from CFG-PRT (the receiver may have been at another rate), up to 3 rounds.
 */
#ifndef FULMAR_DRIVERS_UBLOX_H
#define FULMAR_DRIVERS_UBLOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/ubx.h"

#define UBLOX_MAX_FRAME 32

struct ublox_setup_config {
	uint32_t start_baud;      /* the port's rate now; 0: 9600 */
	uint32_t baud;            /* target rate; 0: 115200 */
	uint16_t rate_ms;         /* solution interval, 100..200; 0: 200 */
	uint8_t port;             /* receiver UART the GPS is wired to; 0: 1 */
};

enum ublox_action {
	UBLOX_WAIT = 1,           /* nothing to do until next_us or a frame arrives */
	UBLOX_SEND,               /* write frame[0 .. len) to the port */
	UBLOX_SET_BAUD,           /* switch the port to baud */
	UBLOX_DONE,
	UBLOX_FAILED,             /* the receiver never acknowledged: read NMEA, or give up */
};

struct ublox_out {
	uint8_t frame[UBLOX_MAX_FRAME];
	size_t len;
	uint32_t baud;
	uint64_t next_us;         /* UBLOX_WAIT: when to call again at the latest */
};

struct ublox_setup_stats {
	uint32_t acks;
	uint32_t naks;
	uint32_t timeouts;
	uint32_t rounds;          /* times the sequence started from CFG-PRT */
};

struct ublox_setup {
	struct ublox_setup_config cfg;
	int step;
	int phase;
	uint8_t tries;
	bool nav_pvt;
	bool done;
	bool failed;
	uint64_t deadline_us;
	uint8_t wait_cls;
	uint8_t wait_id;
	int answer;               /* 0 none, 1 ACK, -1 NAK */
	struct ublox_setup_stats stats;
};

/* -EINVAL for a rate_ms outside 100..200 (or 0). */
int ublox_setup_init(struct ublox_setup *s, const struct ublox_setup_config *cfg);
/*
 * What the caller does next. Call again after doing it, when a frame
 * arrived, or at out->next_us.
 */
enum ublox_action ublox_setup_step(struct ublox_setup *s, uint64_t now_us, struct ublox_out *out);
/* Every UBX frame received while setting up (ACK-ACK and ACK-NAK matter). */
void ublox_setup_on_frame(struct ublox_setup *s, const struct ubx_frame *f);
/* After UBLOX_DONE: whether NAV-PVT is coming (else: use NMEA). */
bool ublox_setup_has_nav_pvt(const struct ublox_setup *s);
const struct ublox_setup_stats *ublox_setup_stats(const struct ublox_setup *s);

struct drv_inst;
/* Whether a board device driven by ublox_driver gets NAV-PVT (else NMEA). */
bool ublox_dev_nav_pvt(const struct drv_inst *d);

#endif
