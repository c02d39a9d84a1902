/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SBUS decoder (Futaba S.BUS and the receivers that copy it): a UART at 100000
 * baud, 8 data bits, even parity, 2 stop bits, with the line inverted (idle low).
 * A frame is 25 bytes, sent every 7 or 14 ms: the header 0x0F, 16 channels of 11
 * bits packed LSB first in 22 bytes, a flags byte (bit 0 digital channel 17,
 * bit 1 digital channel 18, bit 2 frame lost, bit 3 failsafe) and an end byte
 * (0x00, or an SBUS2 telemetry slot marker; not checked, since receivers differ).
 *
 * Two inputs, one per decoder instance (do not mix them on one struct):
 *  - rc_sbus_pulse(): the widths of the pin's levels, decoded by a soft UART
 *    (rc_input does this for an RC pin shared with PPM and DSM);
 *  - rc_sbus_bytes(): bytes from a UART set to 100000 8E2 behind an inverter.
 * A frame begins with the first byte after an idle time of RC_SBUS_GAP_US
 * (or straight after a whole frame, for byte input) and must start with 0x0F.
 *
 * Output: 18 channels: 16 proportional ones, us = 875 + raw * 0.625 (raw 200..1800
 * is 1000..2000 us; raw 0..2047 gives 875..2154 us), then the two digital ones,
 * 1000 us off and 2000 us on. The failsafe bit sets rc_frame.failsafe (and the
 * frame counts in stats.failsafe_frames); the frame-lost bit alone only sets
 * rc_frame.frame_lost: one radio frame was missed, the link is not lost.
 *
 * Thread, ownership and units: see rc.h.
 */
#ifndef FULMAR_RC_SBUS_H
#define FULMAR_RC_SBUS_H

#include <stddef.h>
#include <stdint.h>

#include "rc/rc.h"
#include "rc/serial.h"

#define RC_SBUS_BAUD 100000
#define RC_SBUS_FRAME_LEN 25
#define RC_SBUS_HEADER 0x0f
#define RC_SBUS_CHANNELS 18
/* Idle time that separates frames: frames are at least 4 ms apart (7 ms frames
 * take 3 ms on the wire), and a receiver sends a frame's bytes back to back. */
#define RC_SBUS_GAP_US 2000

#define RC_SBUS_FLAG_CH17 0x01
#define RC_SBUS_FLAG_CH18 0x02
#define RC_SBUS_FLAG_FRAME_LOST 0x04
#define RC_SBUS_FLAG_FAILSAFE 0x08

struct rc_sbus {
	struct rc_serial serial;  /* private */
	struct rc_stats stats;    /* read-only to the caller */
};

/* Pulse input when pulse_input, else byte input. */
void rc_sbus_init(struct rc_sbus *d, bool pulse_input);

/*
 * Pulse input: the pin was low for low_us and then high for high_us, and that high
 * level ended at t_us. Returns 1 and fills *out when the pair completed a good
 * frame (out->timestamp_us: when its last stop bit ended), else 0 and leaves *out
 * alone.
 */
int rc_sbus_pulse(struct rc_sbus *d, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		  struct rc_frame *out);

/*
 * Byte input: n bytes read from the UART at t_us (taken to have arrived back to
 * back, the last at t_us; read them as they come, since a late read hides the gap
 * before a frame and may cost that frame). Returns the number of good frames
 * completed (0, 1, rarely 2); *out holds the last, stamped with its last byte's
 * arrival time, and is untouched when 0.
 */
int rc_sbus_bytes(struct rc_sbus *d, const uint8_t *bytes, size_t n, uint64_t t_us,
		  struct rc_frame *out);

#endif
