/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink links: UDP server (answers whoever talks to it), UDP client (a fixed
 * ground station), serial (telemetry radio). The uart thread owns the sockets
 * and ports: it reads, parses, checks signatures, routes between links, and
 * writes; the main thread hands it messages through a byte ring per link and
 * takes the frames meant for this autopilot from one frame ring. Neither
 * side ever waits for the other; what does not fit is dropped and counted.
 */
#ifndef FULMAR_DAEMON_LINKS_H
#define FULMAR_DAEMON_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/uart.h"
#include "fulmar/udp.h"
#include "mavlink/frame.h"
#include "mavlink/router.h"
#include "mavlink/signing.h"
#include "util/ring.h"
#include "util/topic.h"

#define LINKS_MAX 8
#define LINK_TX_BYTES 16384          /* main -> uart, per link */
#define LINK_OUT_BYTES 2048          /* the uart thread's staging buffer, per link */
#define LINKS_RX_FRAMES 64           /* uart -> main */

enum link_kind {
	LINK_UDP_SERVER = 1,
	LINK_UDP_CLIENT,
	LINK_SERIAL,
};

struct link_spec {
	enum link_kind kind;
	char host[64];               /* UDP: numeric address */
	uint16_t port;
	char path[128];              /* serial device */
	uint32_t baud;
	bool rtscts;
};

/*
 * "udp-server:HOST:PORT", "udp-client:HOST:PORT" or "serial:PATH:BAUD[:rtscts]".
 * Returns 0 or -EINVAL.
 */
int link_spec_parse(const char *text, struct link_spec *out);
/* The spec back as text, for messages. */
void link_spec_format(const struct link_spec *s, char *buf, size_t len);

struct link_stats {
	uint64_t rx_bytes, tx_bytes;        /* uart thread */
	uint64_t send_errors;               /* uart thread: a failed sendto/write */
	uint64_t no_peer;                   /* uart thread: bytes for a UDP server nobody has talked to */
	uint64_t fwd_dropped;               /* uart thread: forwarded frames without room */
	uint64_t seq_gaps;                  /* uart thread: frames missing by sequence number */
	uint64_t rejected;                  /* uart thread: refused by signing */
};

struct link {
	struct link_spec spec;
	struct uart_config uart_cfg;        /* outlives the port, as the HAL asks */
	struct udp_sock *udp;
	struct uart *uart;
	struct udp_addr peer;
	bool has_peer;
	struct mavlink_parser parser;
	struct mavlink_seq_track rx_seq;      /* uart thread: frames lost, per sender */
	struct ring tx;                     /* main -> uart */
	uint8_t tx_store[LINK_TX_BYTES];
	uint8_t out[LINK_OUT_BYTES];        /* uart thread: bytes on their way out */
	size_t out_len;
	uint8_t seq;                        /* main thread: our sequence number on this link */
	uint64_t tx_frames_dropped;         /* main thread: a message that did not fit the ring */
	struct link_stats stats;
};

struct links_rx {
	uint8_t link;
	struct mavlink_frame frame;
};

/* The signing key as the main thread hands it to the uart thread. */
struct links_key {
	uint8_t key[MAVLINK_KEY_LEN];  /* all zero: signing off */
	uint64_t timestamp;            /* our signing clock when it was set */
};

/* What the links have seen, all links together; the uart thread publishes it each poll. */
struct links_summary {
	uint64_t frames;          /* good frames in */
	uint64_t errors;          /* refused: CRC, length, flags, signature */
	uint64_t gaps;            /* frames missing by sequence number */
};

struct links {
	struct link link[LINKS_MAX];
	unsigned int n;
	uint8_t sysid, compid;
	struct router router;               /* uart thread */
	struct mavlink_signing signing;     /* uart thread: checks what arrives */
	struct mavlink_signing tx_signing;  /* main thread: signs what we send */
	struct topic key_topic;             /* main -> uart */
	_Atomic uint32_t key_store[TOPIC_WORDS(struct links_key)];
	uint32_t key_seen;                  /* uart thread: generation taken */
	struct topic summary_topic;         /* uart -> main */
	_Atomic uint32_t summary_store[TOPIC_WORDS(struct links_summary)];
	struct ring rx;                     /* uart -> main */
	struct links_rx rx_store[LINKS_RX_FRAMES];
};

/*
 * Opens the links (start-up, leader thread). Returns 0, or -errno with one line
 * naming the link in err; then none stays open.
 */
int links_open(struct links *ls, const struct link_spec *specs, unsigned int n,
	       uint8_t sysid, uint8_t compid, char *err, size_t err_len);
void links_close(struct links *ls);

/* uart thread task: moves bytes in and out of every link. */
void links_poll(void *ctx, uint64_t now_us);

/* main thread: frames a packed message for one link or all (GCS_LINK_ALL, -1). */
void links_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload);
/* main thread: bytes free in a link's ring to the uart thread (0: no such link). */
size_t links_tx_room(const struct links *ls, int link);
/*
 * Main thread (or start-up): signing with key from now on (all zero: off).
 * ts: the signing clock now (mavlink_signing_timestamp of the wall clock).
 */
void links_set_key(struct links *ls, const uint8_t key[MAVLINK_KEY_LEN], uint64_t ts);
/* Main thread: keeps the signing clock up with the wall clock. */
void links_signing_clock(struct links *ls, uint64_t ts);
/* Any thread: the totals the uart thread last published. */
void links_read_summary(const struct links *ls, struct links_summary *out);
/* main thread: the next frame meant for us, false when none. */
bool links_receive(struct links *ls, struct links_rx *out);

#endif
