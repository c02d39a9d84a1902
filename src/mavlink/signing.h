/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink 2 message signing: a 48-bit signature, the first six bytes of
 * SHA-256(key + header + payload + CRC + link id + timestamp), and replay
 * protection per (system, component, link) stream. Timestamps count 10 us
 * since 2015-01-01 00:00 UTC and are passed in: pure, no clocks.
 * One signing state per daemon, used by the thread that runs the links.
 */
#ifndef FULMAR_MAVLINK_SIGNING_H
#define FULMAR_MAVLINK_SIGNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink/frame.h"

#define MAVLINK_KEY_LEN 32
#define MAVLINK_SIGNING_STREAMS 32
/* Seconds between 1970-01-01 and 2015-01-01, the epoch of signing timestamps. */
#define MAVLINK_SIGNING_EPOCH_UNIX 1420070400u
/* A stream seen for the first time may be this far behind our clock (one minute). */
#define MAVLINK_SIGNING_NEW_STREAM_WINDOW 6000000u

struct mavlink_signing_stream {
	uint8_t sysid, compid, link_id;
	uint64_t timestamp;       /* the last accepted */
};

struct mavlink_signing_stats {
	uint64_t accepted;
	uint64_t bad_signature;
	uint64_t replayed;        /* a timestamp not after the stream's last, or too old */
	uint64_t unsigned_refused;
	uint64_t streams_full;    /* a new stream when the table was full */
};

struct mavlink_signing {
	bool enabled;             /* a key is installed */
	uint8_t key[MAVLINK_KEY_LEN];
	uint64_t timestamp;       /* ours: the last one used or accepted */
	struct mavlink_signing_stream streams[MAVLINK_SIGNING_STREAMS];
	unsigned int n_streams;
	struct mavlink_signing_stats stats;
};

/* No key: nothing is signed, everything accepted. */
void mavlink_signing_init(struct mavlink_signing *s);
/*
 * Installs a key; an all-zero key turns signing off (as SETUP_SIGNING says).
 * now_ts: our timestamp; ours never goes backwards.
 */
void mavlink_signing_set_key(struct mavlink_signing *s, const uint8_t key[MAVLINK_KEY_LEN],
			     uint64_t now_ts);
/* The signing timestamp of a Unix time in microseconds. */
uint64_t mavlink_signing_timestamp(uint64_t unix_us);

/*
 * Signs a MAVLink 2 frame of len bytes in buf (as mavlink_encode wrote it, with
 * room for 13 more): sets the signed flag and so recomputes the CRC, then
 * appends link id, timestamp and signature. Returns the new length, or len
 * unchanged when signing is off or the frame is MAVLink 1.
 */
size_t mavlink_sign(struct mavlink_signing *s, uint8_t *buf, size_t len, uint8_t link_id,
		    uint64_t now_ts);

enum mavlink_verdict {
	MAVLINK_ACCEPT = 1,
	MAVLINK_REJECT_SIGNATURE,
	MAVLINK_REJECT_REPLAY,
	MAVLINK_REJECT_UNSIGNED,
};

/*
 * Whether a received frame may be used. Without a key every frame is accepted
 * (signed ones unverified). With a key: signed frames must carry a good
 * signature and a timestamp after their stream's last (and, for a stream not
 * seen before, no more than a minute behind ours); unsigned frames are refused
 * except RADIO_STATUS, which telemetry radios inject unsigned.
 */
enum mavlink_verdict mavlink_signing_check(struct mavlink_signing *s,
					   const struct mavlink_frame *f, uint64_t now_ts);

#endif
