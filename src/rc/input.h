/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The RC pin front end: every (low, high) pulse pair from the pin goes to the
 * PPM-sum, SBUS and DSM decoders in parallel, and the first protocol to lock
 * wins, so the user plugs any of these receivers into the one RC input.
 *
 * Lock: a protocol locks after RC_INPUT_LOCK_FRAMES good frames in a row, each
 * within RC_INPUT_FRAME_GAP_MAX_US of the one before. While a protocol is locked
 * only its frames are output; the others keep decoding (and counting) in the
 * background. The lock is lost when the locked protocol has had no good frame
 * for RC_INPUT_LOCK_TIMEOUT_US; the next protocol to complete its run of frames
 * then wins, the same one or another (a receiver swapped, or a second one on the
 * pin). Losing the lock is not a failsafe decision: the consumer sees frames stop
 * and decides from their timestamps.
 *
 * Why garbage cannot take control: a frame must pass its protocol's checks
 * (start, stop and parity bits, length, header, channel numbers, pulse widths,
 * see ppm.h, sbus.h, dsm.h), and three must do so in a row, in time, before
 * anything is output; and every value output lies in RC_CHANNEL_MIN_US..MAX_US.
 *
 * Thread, ownership and units: see rc.h.
 */
#ifndef FULMAR_RC_INPUT_H
#define FULMAR_RC_INPUT_H

#include <stdint.h>

#include "rc/dsm.h"
#include "rc/ppm.h"
#include "rc/rc.h"
#include "rc/sbus.h"

#define RC_INPUT_LOCK_FRAMES 3
#define RC_INPUT_FRAME_GAP_MAX_US 100000
#define RC_INPUT_LOCK_TIMEOUT_US 200000

struct rc_input {
	/* The decoders, with their counters (ppm.stats, sbus.stats, dsm.stats),
	 * read-only to the caller. */
	struct rc_ppm ppm;
	struct rc_sbus sbus;
	struct rc_dsm dsm;
	/* private */
	enum rc_protocol locked;
	uint8_t streak[RC_PROTOCOL_COUNT];          /* good frames in a row */
	uint64_t last_frame_us[RC_PROTOCOL_COUNT];  /* of the last good frame */
	/* read-only to the caller */
	uint32_t locks;  /* times a protocol has won the lock */
};

void rc_input_init(struct rc_input *in);

/*
 * One pulse pair: the pin was low for low_us and then high for high_us, and the
 * high level ended at t_us (so t_us is the time of a falling edge). Backends
 * that capture durations only (PRU, Zynq) add them up for t_us. Returns 1 and
 * fills *out with a frame of the locked protocol when this pair completed one,
 * else 0 and leaves *out alone.
 */
int rc_input_pulse(struct rc_input *in, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		   struct rc_frame *out);

/* The locked protocol at now_us, or RC_PROTOCOL_NONE when searching. */
enum rc_protocol rc_input_protocol(const struct rc_input *in, uint64_t now_us);

/* The counters of one protocol's decoder; NULL for RC_PROTOCOL_NONE or out of range. */
const struct rc_stats *rc_input_stats(const struct rc_input *in, enum rc_protocol protocol);

#endif
