// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "links"
#include "daemon/links.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/hal_linux.h"
#include "mavlink/gcs.h"
#include "mavlink/mavlink_msgs.h"
#include "util/log.h"

/* Datagrams stay under a common Ethernet MTU so no link needs IP fragments. */
#define LINK_UDP_DATAGRAM 1400

int link_spec_parse(const char *text, struct link_spec *out)
{
	struct link_spec s;
	memset(&s, 0, sizeof(s));
	char buf[256];
	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	char *kind = buf, *rest = strchr(buf, ':');
	if (!rest)
		return -EINVAL;
	*rest++ = '\0';
	char *end;
	if (strcmp(kind, "udp-server") == 0 || strcmp(kind, "udp-client") == 0) {
		s.kind = kind[4] == 's' ? LINK_UDP_SERVER : LINK_UDP_CLIENT;
		char *colon = strrchr(rest, ':');
		if (!colon || colon == rest)
			return -EINVAL;
		*colon = '\0';
		unsigned long port = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port > 65535 || (port == 0 && s.kind == LINK_UDP_CLIENT))
			return -EINVAL;
		/* [v6]:port */
		if (rest[0] == '[' && colon[-1] == ']') {
			rest++;
			colon[-1] = '\0';
		}
		if (strlen(rest) >= sizeof(s.host))
			return -EINVAL;
		strcpy(s.host, rest);
		s.port = (uint16_t)port;
		struct udp_addr probe;
		if (udp_addr_parse(s.host, s.port, &probe))
			return -EINVAL;
	} else if (strcmp(kind, "serial") == 0) {
		s.kind = LINK_SERIAL;
		char *c1 = strchr(rest, ':');
		if (!c1 || c1 == rest)
			return -EINVAL;
		*c1 = '\0';
		char *opt = strchr(c1 + 1, ':');
		if (opt)
			*opt++ = '\0';
		unsigned long baud = strtoul(c1 + 1, &end, 10);
		if (end == c1 + 1 || *end || baud == 0 || baud > 12000000)
			return -EINVAL;
		if (opt && strcmp(opt, "rtscts") != 0)
			return -EINVAL;
		if (strlen(rest) >= sizeof(s.path))
			return -EINVAL;
		strcpy(s.path, rest);
		s.baud = (uint32_t)baud;
		s.rtscts = opt != NULL;
	} else {
		return -EINVAL;
	}
	*out = s;
	return 0;
}

void link_spec_format(const struct link_spec *s, char *buf, size_t len)
{
	switch (s->kind) {
	case LINK_UDP_SERVER:
	case LINK_UDP_CLIENT:
		snprintf(buf, len, "%s %s%s%s:%u", s->kind == LINK_UDP_SERVER ? "udp-server" : "udp-client",
			 strchr(s->host, ':') ? "[" : "", s->host, strchr(s->host, ':') ? "]" : "",
			 s->port);
		return;
	case LINK_SERIAL:
		snprintf(buf, len, "serial %s at %u%s", s->path, s->baud, s->rtscts ? " rtscts" : "");
		return;
	}
	snprintf(buf, len, "?");
}

static int open_link(struct link *l)
{
	const struct link_spec *s = &l->spec;
	struct udp_addr a;
	int rc;
	switch (s->kind) {
	case LINK_UDP_SERVER:
		rc = udp_addr_parse(s->host, s->port, &a);
		return rc ? rc : udp_open(&a, &l->udp);
	case LINK_UDP_CLIENT:
		rc = udp_addr_parse(s->host, s->port, &l->peer);
		if (rc)
			return rc;
		l->has_peer = true;
		/* An ephemeral local port of the peer's family. */
		rc = udp_addr_parse(strchr(s->host, ':') ? "::" : "0.0.0.0", 0, &a);
		return rc ? rc : udp_open(&a, &l->udp);
	case LINK_SERIAL:
		l->uart_cfg = (struct uart_config){ .path = s->path, .baud = s->baud,
						    .rtscts = s->rtscts };
		return uart_linux_open(&l->uart_cfg, &l->uart);
	}
	return -EINVAL;
}

int links_open(struct links *ls, const struct link_spec *specs, unsigned int n,
	       uint8_t sysid, uint8_t compid, char *err, size_t err_len)
{
	memset(ls, 0, sizeof(*ls));
	if (n > LINKS_MAX) {
		snprintf(err, err_len, "more than %d MAVLink links", LINKS_MAX);
		return -E2BIG;
	}
	ls->sysid = sysid;
	ls->compid = compid;
	router_init(&ls->router, sysid, compid);
	mavlink_signing_init(&ls->signing);
	mavlink_signing_init(&ls->tx_signing);
	topic_init(&ls->key_topic, ls->key_store, sizeof(struct links_key));
	topic_init(&ls->summary_topic, ls->summary_store, sizeof(struct links_summary));
	ring_init(&ls->rx, ls->rx_store, LINKS_RX_FRAMES, sizeof(ls->rx_store[0]));
	for (unsigned int i = 0; i < n; i++) {
		struct link *l = &ls->link[i];
		l->spec = specs[i];
		mavlink_parser_init(&l->parser);
		ring_init(&l->tx, l->tx_store, LINK_TX_BYTES, 1);
		int rc = open_link(l);
		if (rc) {
			char what[256];
			link_spec_format(&l->spec, what, sizeof(what));
			snprintf(err, err_len, "MAVLink link %u (%s): %s", i, what, strerror(-rc));
			ls->n = i;
			links_close(ls);
			return rc;
		}
		ls->n = i + 1;
	}
	return 0;
}

void links_close(struct links *ls)
{
	for (unsigned int i = 0; i < ls->n; i++) {
		udp_close(ls->link[i].udp);
		uart_close(ls->link[i].uart);
		ls->link[i].udp = NULL;
		ls->link[i].uart = NULL;
	}
	ls->n = 0;
}

/* --- the uart thread ------------------------------------------------------ */

/* Queues a forwarded frame on another link, whole or not at all. */
static void forward(struct link *to, const struct mavlink_frame *f)
{
	if (to->out_len + f->raw_len > sizeof(to->out)) {
		to->stats.fwd_dropped++;
		return;
	}
	memcpy(to->out + to->out_len, f->raw, f->raw_len);
	to->out_len += f->raw_len;
}

static void count_gap(struct link *l, const struct mavlink_frame *f)
{
	l->stats.seq_gaps += mavlink_seq_lost(&l->rx_seq, f);
}

static void take_bytes(struct links *ls, unsigned int idx, const uint8_t *data, size_t len,
		       uint64_t now_us)
{
	struct link *l = &ls->link[idx];
	static struct links_rx rx;  /* uart thread only; too big for its stack */
	l->stats.rx_bytes += len;
	size_t off = 0;
	bool got;
	do {
		off += mavlink_parse(&l->parser, data + off, len - off, &rx.frame, &got);
		if (!got)
			continue;
		count_gap(l, &rx.frame);
		/* Signing timestamps run on wall time; the link thread has only
		 * monotonic time here, so new streams are not aged (ts 0). */
		if (mavlink_signing_check(&ls->signing, &rx.frame, 0) != MAVLINK_ACCEPT) {
			l->stats.rejected++;
			continue;
		}
		bool local;
		uint32_t mask = router_route(&ls->router, &rx.frame, idx, &local);
		for (unsigned int j = 0; j < ls->n; j++)
			if (mask & (UINT32_C(1) << j))
				forward(&ls->link[j], &rx.frame);
		if (local) {
			rx.link = (uint8_t)idx;
			/* A full ring counts the drop itself. */
			ring_write(&ls->rx, &rx, 1);
		}
	} while (got || off < len);
	(void)now_us;
}

static void read_link(struct links *ls, unsigned int idx, uint64_t now_us)
{
	struct link *l = &ls->link[idx];
	uint8_t buf[2048];
	/* Bounded per wake, so a flood on one link cannot starve the others. */
	for (int i = 0; i < 16; i++) {
		int n;
		if (l->udp) {
			struct udp_addr from;
			n = udp_recvfrom(l->udp, buf, sizeof(buf), &from);
			if (n == -EMSGSIZE)
				continue;  /* no MAVLink datagram is that long: counted by the parser as nothing */
			if (n > 0 && l->spec.kind == LINK_UDP_SERVER) {
				l->peer = from;
				l->has_peer = true;
			}
		} else {
			n = uart_read(l->uart, buf, sizeof(buf));
		}
		if (n <= 0)
			return;
		take_bytes(ls, idx, buf, (size_t)n, now_us);
	}
}

/*
 * How many bytes at the start of b are whole MAVLink frames that fit in cap:
 * a UDP datagram carries whole frames only (a ground station that reads
 * datagram by datagram never sees half a frame). The buffer holds nothing but
 * frames, queued whole by send_one and the router.
 */
static size_t whole_frames(const uint8_t *b, size_t len, size_t cap)
{
	size_t off = 0;
	while (off + 2 <= len) {
		size_t flen;
		if (b[off] == MAVLINK_STX_V2)
			flen = MAVLINK_V2_HEADER_LEN + b[off + 1] + 2 +
			       (off + 2 < len && (b[off + 2] & MAVLINK_IFLAG_SIGNED) ?
				MAVLINK_SIGNATURE_LEN : 0);
		else
			flen = MAVLINK_V1_HEADER_LEN + b[off + 1] + 2;
		if (off + flen > len || off + flen > cap)
			break;
		off += flen;
	}
	return off;
}

static void write_link(struct link *l)
{
	for (;;) {
		size_t cap = l->udp ? LINK_UDP_DATAGRAM : sizeof(l->out);
		if (l->out_len < cap)
			l->out_len += ring_read(&l->tx, l->out + l->out_len, cap - l->out_len);
		if (l->out_len == 0)
			return;
		int n;
		if (l->udp) {
			if (!l->has_peer) {
				/* A UDP server answers whoever talked to it: nobody has yet. */
				l->stats.no_peer += l->out_len;
				l->out_len = 0;
				continue;
			}
			size_t len = whole_frames(l->out, l->out_len, LINK_UDP_DATAGRAM);
			if (len == 0) {
				if (l->out_len < MAVLINK_MAX_FRAME_LEN)
					return;  /* the rest of a frame is still in the ring */
				len = l->out_len;  /* not frames: cannot happen; do not stall */
			}
			n = udp_sendto(l->udp, &l->peer, l->out, len);
			if (n < 0) {
				/* The peer went away (ECONNREFUSED) or the network did: the bytes go. */
				l->stats.send_errors++;
				n = (int)len;
			}
		} else {
			n = uart_write(l->uart, l->out, l->out_len);
			if (n < 0) {
				l->stats.send_errors++;
				n = (int)l->out_len;
			}
			if (n == 0)
				return;  /* the port is full: the rest waits for the next wake */
		}
		l->stats.tx_bytes += (uint64_t)n;
		memmove(l->out, l->out + n, l->out_len - (size_t)n);
		l->out_len -= (size_t)n;
	}
}

void links_poll(void *ctx, uint64_t now_us)
{
	struct links *ls = ctx;
	if (topic_generation(&ls->key_topic) != ls->key_seen) {
		struct links_key k;
		ls->key_seen = topic_read(&ls->key_topic, &k);
		mavlink_signing_set_key(&ls->signing, k.key, k.timestamp);
	}
	for (unsigned int i = 0; i < ls->n; i++)
		read_link(ls, i, now_us);
	for (unsigned int i = 0; i < ls->n; i++)
		write_link(&ls->link[i]);

	struct links_summary sum = { 0 };
	for (unsigned int i = 0; i < ls->n; i++) {
		const struct link *l = &ls->link[i];
		const struct mavlink_parse_stats *ps = &l->parser.stats;
		sum.frames += ps->frames;
		sum.errors += ps->bad_crc + ps->bad_len + ps->bad_flags + l->stats.rejected;
		sum.gaps += l->stats.seq_gaps;
	}
	topic_publish(&ls->summary_topic, &sum);
}

void links_read_summary(const struct links *ls, struct links_summary *out)
{
	if (topic_read(&ls->summary_topic, out) == 0)
		*out = (struct links_summary){ 0 };
}

/* --- the main thread ------------------------------------------------------ */

static void send_one(struct links *ls, struct link *l, uint32_t msgid, const uint8_t *payload)
{
	uint8_t frame[MAVLINK_MAX_FRAME_LEN];
	struct mavlink_header h = { 2, l->seq, ls->sysid, ls->compid, msgid };
	size_t n = mavlink_encode(&h, payload, frame);
	if (n == 0)
		return;
	n = mavlink_sign(&ls->tx_signing, frame, n, (uint8_t)(l - ls->link), 0);
	if (ring_free(&l->tx) < n) {
		/* A slow or vanished ground station costs telemetry, never the loop. */
		l->tx_frames_dropped++;
		ring_count_dropped(&l->tx, n);
		return;
	}
	ring_write(&l->tx, frame, n);
	l->seq++;
}

void links_send(void *ctx, int link, uint32_t msgid, const uint8_t *payload)
{
	struct links *ls = ctx;
	if (link == GCS_LINK_ALL) {
		for (unsigned int i = 0; i < ls->n; i++)
			send_one(ls, &ls->link[i], msgid, payload);
	} else if (link >= 0 && (unsigned int)link < ls->n) {
		send_one(ls, &ls->link[link], msgid, payload);
	}
}

size_t links_tx_room(const struct links *ls, int link)
{
	if (link < 0 || (unsigned int)link >= ls->n)
		return 0;
	return ring_free(&ls->link[link].tx);
}

void links_set_key(struct links *ls, const uint8_t key[MAVLINK_KEY_LEN], uint64_t ts)
{
	struct links_key k = { .timestamp = ts };
	memcpy(k.key, key, MAVLINK_KEY_LEN);
	mavlink_signing_set_key(&ls->tx_signing, key, ts);
	topic_publish(&ls->key_topic, &k);
}

void links_signing_clock(struct links *ls, uint64_t ts)
{
	if (ts > ls->tx_signing.timestamp)
		ls->tx_signing.timestamp = ts;
}

bool links_receive(struct links *ls, struct links_rx *out)
{
	return ring_read(&ls->rx, out, 1) == 1;
}
