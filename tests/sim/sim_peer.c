// SPDX-License-Identifier: GPL-3.0-or-later
/* A scripted autopilot for fulmar-sim's program tests: it speaks the HIL
 * wire of docs/hil.md over UDP or an inherited serial descriptor (a pty),
 * answers every batch of HIL_SENSOR with controls that depend only on the
 * simulator's time (so two runs give the same flight), checks what it
 * receives, and can misbehave on cue. It prints one summary line and exits 1
 * when the stream broke the contract.
 *
 *   sim_peer (--udp HOST:PORT | --fd N) [--profile cruise|dive|idle]
 *            [--silent-after N] [--misbehave] [--restart-at N] [--idle S]
 *            [--lose-answer N]
 *
 * A frame that comes again (fulmar-sim's --resend-s: it heard no answer) is
 * answered again, as fulmard does; --lose-answer N loses the answer to frame
 * N (0-based) on the way, once, to make it so.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mavlink/frame.h"
#include "mavlink/mavlink_msgs.h"
#include "util/crc.h"

struct peer {
	int fd;
	bool udp;
	struct sockaddr_storage sim;
	socklen_t sim_len;
	struct mavlink_parser parser;
	uint8_t seq;
	const char *profile;
	long silent_after, restart_at, lose_answer;
	bool lost;                 /* --lose-answer's answer is lost */
	uint64_t repeats;          /* HIL_SENSOR of frames that came again */
	bool misbehave;
	double idle_s;
	/* what came */
	uint64_t sensors, gps, rc, batt, state, other, answers, resets;
	uint64_t last_sensor_us, first_sensor_us, answered_us;
	uint64_t first_wall_ns, last_wall_ns;
	uint64_t errors;
	bool new_sensor;
	uint16_t rc_ch8;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void broken(struct peer *p, const char *what, uint64_t a, uint64_t b)
{
	if (p->errors++ < 10)
		fprintf(stderr, "peer: %s (%llu, %llu)\n", what, (unsigned long long)a, (unsigned long long)b);
}

static void send_bytes(struct peer *p, const uint8_t *b, size_t n)
{
	if (p->udp) {
		if (sendto(p->fd, b, n, 0, (struct sockaddr *)&p->sim, p->sim_len) < 0)
			perror("peer: sendto");
		return;
	}
	while (n > 0) {
		ssize_t k = write(p->fd, b, n);
		if (k < 0 && errno == EAGAIN) {
			struct pollfd pf = { p->fd, POLLOUT, 0 };
			poll(&pf, 1, 100);
			continue;
		}
		if (k < 0) {
			perror("peer: write");
			return;
		}
		b += k;
		n -= (size_t)k;
	}
}

static size_t frame(struct peer *p, uint32_t msgid, const uint8_t *payload, uint8_t *out)
{
	struct mavlink_header h = { 2, p->seq++, 1, 1, msgid };
	return mavlink_encode(&h, payload, out);
}

static void heartbeat(struct peer *p)
{
	struct mavlink_heartbeat hb = { .type = 1, .autopilot = 3, .mavlink_version = 3 };
	uint8_t pl[MAVLINK_MSG_HEARTBEAT_MAX_LEN], out[MAVLINK_MAX_FRAME_LEN];
	mavlink_heartbeat_pack(&hb, pl);
	send_bytes(p, out, frame(p, MAVLINK_MSG_ID_HEARTBEAT, pl, out));
}

static size_t controls_frame(struct peer *p, uint64_t t_us, const float *c, uint8_t *out)
{
	struct mavlink_hil_actuator_controls m;
	uint8_t pl[MAVLINK_MSG_HIL_ACTUATOR_CONTROLS_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_usec = t_us;
	memcpy(m.controls, c, sizeof(m.controls));
	m.mode = 128;
	m.flags = 1;
	mavlink_hil_actuator_controls_pack(&m, pl);
	return frame(p, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, pl, out);
}

/* Controls as a function of the simulator's time only. */
static void controls_for(const struct peer *p, uint64_t t_us, float c[16])
{
	double t = (double)t_us * 1e-6;
	/* docs/hil.md: 0 aileron, 1 elevator, 2 rudder, 3 throttle 0..1 */
	memset(c, 0, 16 * sizeof(float));
	if (strcmp(p->profile, "cruise") == 0) {
		c[0] = (float)(0.15 * sin(t));
		c[1] = 0.0625f;
		c[3] = 0.75f;
	} else if (strcmp(p->profile, "dive") == 0) {
		c[1] = -1.0f;
		c[3] = 1.0f;
	}
}

static void answer(struct peer *p)
{
	uint8_t out[4 * MAVLINK_MAX_FRAME_LEN];
	float c[16];
	size_t n = 0;
	long a = (long)p->answers;
	if (p->misbehave && a == 50) {
		static const uint8_t junk[] = "\x01\x02 not mavlink at all \xfe\x02\x00";
		send_bytes(p, junk, sizeof(junk) - 1);
	}
	if (p->misbehave && a == 60) {
		float bad[16] = { NAN };
		n = controls_frame(p, p->last_sensor_us, bad, out);
		send_bytes(p, out, n);
	}
	if (p->misbehave && a == 65) {
		controls_for(p, 0, c);
		c[3] = -0.8f;   /* a throttle as -1..1, as the old wire had it */
		n = controls_frame(p, p->last_sensor_us, c, out);
		send_bytes(p, out, n);
	}
	if (p->misbehave && a == 70 && p->answered_us > 0) {
		controls_for(p, 0, c);
		send_bytes(p, out, controls_frame(p, p->answered_us - 1000, c, out));
	}
	if (p->misbehave && a == 80) {
		controls_for(p, 0, c);
		send_bytes(p, out, controls_frame(p, p->last_sensor_us + 1000000, c, out));
	}
	if (p->misbehave && a == 90) {
		/* A frame too long for its message, with a right CRC. */
		controls_for(p, 0, c);
		n = controls_frame(p, p->last_sensor_us, c, out);
		uint8_t big[MAVLINK_MAX_FRAME_LEN];
		size_t len = 90;
		memset(big, 0, sizeof(big));
		memcpy(big, out, MAVLINK_V2_HEADER_LEN + out[1]);
		big[1] = (uint8_t)len;
		uint16_t crc = crc_x25(CRC_X25_INIT, big + 1, MAVLINK_V2_HEADER_LEN - 1 + len);
		const struct mavlink_msg_info *info = mavlink_msg_info(MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS);
		crc = crc_x25(crc, &info->crc_extra, 1);
		big[MAVLINK_V2_HEADER_LEN + len] = (uint8_t)crc;
		big[MAVLINK_V2_HEADER_LEN + len + 1] = (uint8_t)(crc >> 8);
		send_bytes(p, big, MAVLINK_V2_HEADER_LEN + len + 2);
	}
	controls_for(p, p->last_sensor_us, c);
	n = controls_frame(p, p->last_sensor_us, c, out);
	bool lose = a == p->lose_answer && !p->lost;
	if (lose)
		p->lost = true;    /* never sent: the simulator hears nothing */
	else
		send_bytes(p, out, n);
	p->answers++;
	/* Only what the simulator heard: the frame lost stays to be answered again. */
	if (!lose)
		p->answered_us = p->last_sensor_us;
}

static void take(struct peer *p, const struct mavlink_frame *f)
{
	const uint8_t *pl = mavlink_payload(f);
	switch (f->msgid) {
	case MAVLINK_MSG_ID_HIL_SENSOR: {
		struct mavlink_hil_sensor m;
		mavlink_hil_sensor_unpack(pl, f->len, &m);
		uint64_t now = mono_ns();
		if (!p->sensors) {
			p->first_sensor_us = m.time_usec;
			p->first_wall_ns = now;
			if (!(m.fields_updated & 0x80000000u))
				broken(p, "the first HIL_SENSOR has no reset bit", m.fields_updated, 0);
		} else {
			if (m.fields_updated & 0x80000000u)
				broken(p, "reset bit after the first HIL_SENSOR", m.time_usec, 0);
			if (m.time_usec <= p->last_sensor_us && m.time_usec > p->answered_us) {
				/* The frame answered last, again: answered again. */
				p->repeats++;
				p->new_sensor = true;
				break;
			}
			if (m.time_usec <= p->last_sensor_us)
				broken(p, "HIL_SENSOR time not increasing", m.time_usec, p->last_sensor_us);
		}
		if ((m.fields_updated & 0x3f) != 0x3f && (m.fields_updated & 0x3f) != 0)
			broken(p, "accel/gyro bits partly set", m.fields_updated, 0);
		if (!isfinite(m.xacc) || !isfinite(m.abs_pressure))
			broken(p, "non-finite HIL_SENSOR", 0, 0);
		p->last_wall_ns = now;
		p->last_sensor_us = m.time_usec;
		p->sensors++;
		if (m.fields_updated & 0x80000000u)
			p->resets++;
		p->new_sensor = true;
		break;
	}
	case MAVLINK_MSG_ID_HIL_GPS: {
		struct mavlink_hil_gps m;
		mavlink_hil_gps_unpack(pl, f->len, &m);
		if (m.time_usec <= p->last_sensor_us && m.time_usec <= p->answered_us)
			broken(p, "HIL_GPS not before its step's HIL_SENSOR", m.time_usec, p->last_sensor_us);
		p->gps++;
		break;
	}
	case MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW: {
		struct mavlink_hil_rc_inputs_raw m;
		mavlink_hil_rc_inputs_raw_unpack(pl, f->len, &m);
		p->rc_ch8 = m.chan8_raw;
		p->rc++;
		break;
	}
	case MAVLINK_MSG_ID_BATTERY_STATUS: p->batt++; break;
	case MAVLINK_MSG_ID_HIL_STATE_QUATERNION: p->state++; break;
	default: p->other++; break;
	}
}

static int open_udp(struct peer *p, const char *spec)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	if (!colon || (size_t)(colon - spec) >= sizeof(host))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	memcpy(&p->sim, ai->ai_addr, ai->ai_addrlen);
	p->sim_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	p->udp = true;
	return p->fd < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct peer peer;
	struct peer *p = &peer;
	p->fd = -1;
	p->profile = "cruise";
	p->silent_after = -1;
	p->restart_at = -1;
	p->lose_answer = -1;
	p->idle_s = 2.0;
	static const struct option lo[] = {
		{ "udp", required_argument, NULL, 'u' },     { "fd", required_argument, NULL, 'f' },
		{ "profile", required_argument, NULL, 'p' }, { "silent-after", required_argument, NULL, 's' },
		{ "misbehave", no_argument, NULL, 'm' },     { "restart-at", required_argument, NULL, 'r' },
		{ "idle", required_argument, NULL, 'i' },    { "lose-answer", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	const char *udp = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'u': udp = optarg; break;
		case 'f': p->fd = atoi(optarg); break;
		case 'p': p->profile = optarg; break;
		case 's': p->silent_after = atol(optarg); break;
		case 'm': p->misbehave = true; break;
		case 'r': p->restart_at = atol(optarg); break;
		case 'i': p->idle_s = atof(optarg); break;
		case 'l': p->lose_answer = atol(optarg); break;
		default: return 2;
		}
	}
	if (udp ? open_udp(p, udp) : (p->fd < 0 ? -1 : 0)) {
		fprintf(stderr, "peer: need --udp HOST:PORT or --fd N\n");
		return 2;
	}
	mavlink_parser_init(&p->parser);
	uint64_t start = mono_ns(), last_rx = start, last_hb = 0;
	bool heard = false;
	/*
	 * Over UDP, the next frame is looked for without sleeping for up to
	 * SPIN_NS first, as fulmard does in lock-step, so that tools/bench-sim
	 * times the simulator rather than this process's wake-ups. Only while it
	 * pays: after a frame the spin missed, once in SPIN_RETRY frames.
	 */
	enum { SPIN_NS = 200000, SPIN_RETRY = 64 };
	bool spin = p->udp;
	unsigned int since_miss = 0;
	for (;;) {
		uint64_t now = mono_ns();
		if (!heard && now - last_hb > 1000000000ull) {
			heartbeat(p);   /* until the simulator answers: docs/hil.md */
			last_hb = now;
		}
		if (now - last_rx > (uint64_t)(p->idle_s * 1e9) && (heard || now - start > 20000000000ull))
			break;
		struct pollfd pf = { p->fd, POLLIN, 0 };
		uint8_t buf[8192];
		ssize_t n = -1;
		if (spin) {
			uint64_t until = mono_ns() + SPIN_NS;
			while ((n = read(p->fd, buf, sizeof(buf))) < 0 && errno == EAGAIN &&
			       mono_ns() < until)
				;
			spin = n >= 0;
			since_miss = 0;
		} else if (p->udp && ++since_miss == SPIN_RETRY) {
			spin = true;
		}
		if (n < 0) {
			int r = poll(&pf, 1, 50);
			if (r < 0 && errno != EINTR)
				break;
			if (r <= 0)
				continue;
			n = read(p->fd, buf, sizeof(buf));
		}
		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (!p->udp && n < 0 && errno == EIO)
				break;   /* the simulator closed the pty */
			continue;
		}
		last_rx = mono_ns();
		heard = true;
		size_t off = 0;
		bool got;
		struct mavlink_frame f;
		do {
			off += mavlink_parse(&p->parser, buf + off, (size_t)n - off, &f, &got);
			if (got)
				take(p, &f);
		} while (got || off < (size_t)n);
		/* Answer once nothing more is waiting, as fulmard does in lock-step. */
		pf.revents = 0;
		if (poll(&pf, 1, 0) > 0 && !p->udp)
			continue;
		if (!p->new_sensor)
			continue;
		p->new_sensor = false;
		if (p->silent_after >= 0 && (long)p->answers >= p->silent_after)
			continue;
		if (p->restart_at >= 0 && (long)p->answers == p->restart_at) {
			/* A new process: a new socket, a heartbeat, and it never saw the frame. */
			close(p->fd);
			p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
			p->restart_at = -1;
			heartbeat(p);
			continue;
		}
		answer(p);
	}
	double wall = (double)(p->last_wall_ns - p->first_wall_ns) * 1e-9;
	double sim = (double)(p->last_sensor_us - p->first_sensor_us) * 1e-6;
	printf("peer: sensors=%llu gps=%llu rc=%llu batt=%llu state=%llu other=%llu answers=%llu resets=%llu "
	       "first_us=%llu last_us=%llu sim_s=%.3f wall_s=%.3f rc_ch8=%u errors=%llu parse_bad=%llu "
	       "repeats=%llu\n",
	       (unsigned long long)p->sensors, (unsigned long long)p->gps, (unsigned long long)p->rc,
	       (unsigned long long)p->batt, (unsigned long long)p->state, (unsigned long long)p->other,
	       (unsigned long long)p->answers, (unsigned long long)p->resets,
	       (unsigned long long)p->first_sensor_us, (unsigned long long)p->last_sensor_us, sim, wall,
	       p->rc_ch8, (unsigned long long)p->errors,
	       (unsigned long long)(p->parser.stats.bad_crc + p->parser.stats.bad_len +
				    p->parser.stats.skipped_bytes),
	       (unsigned long long)p->repeats);
	return p->errors ? 1 : 0;
}
