/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * RC receiver protocol decoders: PPM-sum, SBUS and Spektrum DSM, decoded from
 * the pulse widths seen on one RC input pin or from the bytes of a UART. This
 * header holds what the decoders share: the decoded frame, the protocols, the
 * counters of rejected frames and the limits every output respects.
 *
 * Functional core: the decoders do no I/O, read no clock, keep no globals and
 * allocate nothing. Each decoder's state is a struct its caller owns and
 * initialises (rc_ppm, rc_sbus, rc_dsm, or rc_input for all three on one pin);
 * time and input are arguments.
 *
 * Thread: all functions of src/rc are called from the rcin thread only, and a
 * decoder struct belongs to that thread. It hands each new struct rc_frame to
 * the rest of the daemon through a seqlocked topic; the counters in struct
 * rc_stats are plain integers that only the rcin thread writes, so another
 * thread that wants them gets a copy published the same way.
 *
 * Units: widths and durations in microseconds; times in microseconds of
 * CLOCK_MONOTONIC, stamped by the backend where the pulse or byte was captured.
 * The decoders only ever subtract times, with unsigned wrap-around: a clock
 * that jumps back makes frames look old, never undefined.
 *
 * Output safety (the promise the failsafe logic builds on): every frame a
 * decoder outputs has 1..RC_MAX_CHANNELS channels, and every channel value lies
 * in RC_CHANNEL_MIN_US..RC_CHANNEL_MAX_US. A frame whose structure is wrong
 * (a bad start, stop or parity bit, a wrong length, a missing header, a pulse
 * that is neither a channel nor a sync, an unexpected DSM channel number) is
 * rejected whole and counted; nothing of it is output. A value that the
 * protocol encodes correctly but that lies outside the safe range is clamped
 * into it: PPM pulses of 700..800 and 2200..2300 us are the only values that
 * are clamped in practice, since the SBUS (875..2154 us) and DSM (903..2097 us)
 * scales cannot leave the range.
 */
#ifndef FULMAR_RC_RC_H
#define FULMAR_RC_RC_H

#include <stdbool.h>
#include <stdint.h>

/* SBUS: 16 proportional channels and 2 digital ones. */
#define RC_MAX_CHANNELS 18

/*
 * Pulse input learns that a frame is whole only at the edge after it: after the
 * sync (PPM) or the idle gap (SBUS, DSM) that follows it. A frame whose end lies
 * more than this before that edge (the signal stopped after it, and only a later
 * edge showed it whole) is stale: it is dropped and counted, not output late.
 */
#define RC_STALE_US 50000

/* Every output channel value lies within these (inclusive). */
#define RC_CHANNEL_MIN_US 800
#define RC_CHANNEL_MAX_US 2200

enum rc_protocol {
	RC_PROTOCOL_NONE = 0,  /* no frame, or (rc_input) no protocol locked */
	RC_PROTOCOL_PPM,
	RC_PROTOCOL_SBUS,
	RC_PROTOCOL_DSM,
	RC_PROTOCOL_HIL,       /* channels from a simulator (MAVLink HIL_RC_INPUTS_RAW) */
	RC_PROTOCOL_RCIO,      /* decoded by the Navio2's co-processor (PPM or SBUS; it does not say) */
	RC_PROTOCOL_COUNT
};

/* Why a frame was rejected; indexes rc_stats.rejected. */
enum rc_reject {
	RC_REJECT_FRAMING,   /* a start or stop bit wrong, or a glitch (a level shorter than
	                        half a bit, a zero width) inside a frame */
	RC_REJECT_PARITY,    /* SBUS: even parity wrong in a byte of the frame */
	RC_REJECT_LENGTH,    /* too few or too many bytes or pulses between two gaps */
	RC_REJECT_HEADER,    /* SBUS: the first byte after a gap is not 0x0F */
	RC_REJECT_RANGE,     /* PPM: a pulse that is neither a channel nor a sync */
	RC_REJECT_CHANNELS,  /* PPM: the channel count changed for one frame; DSM: a repeated
	                        channel number, or one outside the detected channel set */
	RC_REJECT_COUNT
};

/*
 * One decoded frame. Channels are in the order the receiver sends them, except
 * DSM, whose first three (throttle, roll, pitch) are reordered to the roll,
 * pitch, throttle, yaw order of PPM and SBUS receivers; see dsm.h.
 */
struct rc_frame {
	uint64_t timestamp_us;                 /* when the frame's last bit or pulse ended on the
	                                          wire (pulse input), or when its last byte arrived
	                                          (byte input) */
	uint16_t channels_us[RC_MAX_CHANNELS]; /* [0, channel_count): RC_CHANNEL_MIN_US..MAX_US;
	                                          the rest 0 */
	uint8_t channel_count;                 /* 1..RC_MAX_CHANNELS */
	enum rc_protocol protocol;
	bool failsafe;    /* the receiver says it has lost the transmitter (SBUS failsafe bit):
	                     the channel values are the receiver's failsafe values */
	bool frame_lost;  /* the receiver missed a radio frame and repeats the previous values
	                     (SBUS frame-lost bit; set with failsafe too). Alone it is a dropped
	                     frame, not a lost link: do not failsafe on it. */
};

/* Counters of one decoder, written by the rcin thread only; they wrap at 2^32. */
struct rc_stats {
	uint32_t frames;                     /* frames output, failsafe ones included */
	uint32_t failsafe_frames;            /* of which with the failsafe flag */
	uint32_t lost_frames;                /* of which with the frame-lost flag */
	uint32_t stale_frames;               /* dropped as stale (RC_STALE_US) */
	uint32_t rejected[RC_REJECT_COUNT];  /* frames rejected, by reason. A frame counts once
	                                        it has begun (a byte after a gap, a channel pulse
	                                        after a sync), so another protocol's signal on the
	                                        same pin is mostly ignored, not counted. */
};

/* "none", "PPM", "SBUS", "DSM"; "?" for anything else. A static string. */
const char *rc_protocol_name(enum rc_protocol protocol);
/* "framing", "parity", "length", "header", "range", "channels"; "?" otherwise. */
const char *rc_reject_name(enum rc_reject reason);

/* Sum of all rejected frames. */
uint32_t rc_stats_rejected(const struct rc_stats *stats);

/*
 * A pilot's stick from a frame, as the vehicles read them: a centred stick
 * (channel ch, 0-based) -1..1 over 1500 +-400 us, the throttle (channel 3)
 * 0..1 over 1100..1900 us; 0 when the frame has no such channel.
 */
static inline float rc_stick(const struct rc_frame *rc, unsigned int ch)
{
	if (ch >= rc->channel_count)
		return 0.0f;
	float v = ((float)rc->channels_us[ch] - 1500.0f) / 400.0f;
	return v < -1.0f ? -1.0f : v > 1.0f ? 1.0f : v;
}

static inline float rc_throttle_stick(const struct rc_frame *rc)
{
	if (rc->channel_count < 3)
		return 0.0f;
	float v = ((float)rc->channels_us[2] - 1100.0f) / 800.0f;
	return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

#endif
