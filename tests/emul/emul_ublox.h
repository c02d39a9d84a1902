/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated u-blox receiver behind struct uart_ops: it hears what the host
 * writes at the host's baud rate (bytes still on the wire when the host
 * changes rate are lost; bytes at a rate other than the receiver's are
 * noise to it, and so is what it sends to a host at the wrong rate), obeys
 * CFG-PRT (rate change), CFG-MSG and CFG-RATE with ACK-ACK or ACK-NAK, and
 * every measurement period sends NAV-PVT and the NMEA sentences that are
 * on (GGA and RMC with real content, GSA/GSV/GLL/VTG as filler), built from
 * the fields below. Its own UBX reader and NMEA writer, independent of
 * src/drivers. Single-threaded; the test moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_UBLOX_H
#define FULMAR_TESTS_EMUL_UBLOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/uart.h"

struct emul_ublox_fix {
	int32_t lat_e7, lon_e7;
	int32_t height_mm, hmsl_mm;
	int32_t vel_mm_s[3];
	uint8_t fix_type;             /* NAV-PVT fixType */
	bool fix_ok;
	uint8_t num_sv;
};

struct emul_ublox {
	struct uart uart;             /* first: the host sees this */
	uint32_t host_baud;
	uint32_t rx_baud;             /* the receiver's port rate */
	uint64_t now_us;

	/* Host to receiver: bytes on the wire, each with the time it arrives and its rate. */
	uint8_t wire[1024];
	uint64_t wire_at_us[1024];
	uint32_t wire_baud[1024];
	size_t wire_len;
	uint64_t wire_free_us;        /* when the host's line is idle again */

	uint8_t cmd[300];             /* the receiver's UBX reader */
	size_t cmd_len;

	uint8_t out[16384];           /* receiver to host, not yet read */
	size_t out_len;
	uint32_t noise;               /* state of the noise generator */

	bool has_nav_pvt;             /* false: an old receiver that NAKs it */
	bool silent;                  /* answers nothing at all */
	uint8_t nak_nmea_id;          /* this NMEA id is NAKed (0xff: none) */
	uint8_t nav_pvt_rate;
	uint8_t nmea_rate[6];         /* GGA, GLL, GSA, GSV, RMC, VTG */
	uint16_t meas_ms;
	uint64_t next_meas_us;
	struct emul_ublox_fix fix;

	uint32_t cfg_prt, cfg_msg, cfg_rate;
	uint32_t noise_in;            /* bytes it could not understand */
	uint32_t lost_in_rate_change; /* host bytes cut off by a rate change */
	uint32_t nav_pvt_sent;
};

void emul_ublox_init(struct emul_ublox *e, uint32_t rx_baud);
void emul_ublox_advance(struct emul_ublox *e, uint64_t now_us);

#endif
