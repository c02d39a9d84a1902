// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/ublox.h"

#include <errno.h>
#include <string.h>

#define ACK_TIMEOUT_US 300000u
#define TRIES 3
#define ROUNDS 3
/* After the last byte at the old rate: the receiver needs a moment to switch too. */
#define BAUD_SETTLE_US 20000u

/* The NMEA sentences a u-blox sends by default (class 0xF0): GGA, GLL, GSA, GSV, RMC, VTG. */
static const uint8_t nmea_ids[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05 };

enum ublox_step {
	STEP_PRT = 0,
	STEP_NAV_PVT,
	STEP_NMEA_OFF,            /* one per entry of nmea_ids */
	STEP_RATE = STEP_NMEA_OFF + (int)sizeof(nmea_ids),
	STEP_END,
};

enum ublox_phase {
	PHASE_SEND = 1,
	PHASE_AWAIT_ACK,
	PHASE_DRAIN,              /* CFG-PRT sent at the old rate */
};

int ublox_setup_init(struct ublox_setup *s, const struct ublox_setup_config *cfg)
{
	if (cfg->rate_ms && (cfg->rate_ms < 100 || cfg->rate_ms > 200))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!s->cfg.start_baud)
		s->cfg.start_baud = 9600;
	if (!s->cfg.baud)
		s->cfg.baud = 115200;
	if (!s->cfg.rate_ms)
		s->cfg.rate_ms = 200;
	if (!s->cfg.port)
		s->cfg.port = 1;
	s->step = STEP_PRT;
	s->phase = PHASE_SEND;
	s->stats.rounds = 1;
	return 0;
}

static size_t ublox_build_step(struct ublox_setup *s, uint8_t *out)
{
	switch (s->step) {
	case STEP_PRT:
		return ubx_build_cfg_prt_uart(out, UBLOX_MAX_FRAME, s->cfg.port, s->cfg.baud,
					      UBX_PROTO_UBX | UBX_PROTO_NMEA,
					      UBX_PROTO_UBX | UBX_PROTO_NMEA);
	case STEP_NAV_PVT:
		return ubx_build_cfg_msg(out, UBLOX_MAX_FRAME, UBX_CLASS_NAV, UBX_ID_NAV_PVT, 1);
	case STEP_RATE:
		return ubx_build_cfg_rate(out, UBLOX_MAX_FRAME, s->cfg.rate_ms, 1, 1);
	}
	return ubx_build_cfg_msg(out, UBLOX_MAX_FRAME, UBX_CLASS_NMEA,
				 nmea_ids[s->step - STEP_NMEA_OFF], 0);
}

static void ublox_next_step(struct ublox_setup *s)
{
	s->step++;
	s->phase = PHASE_SEND;
	s->tries = 0;
	if (s->step == STEP_END)
		s->done = true;
}

static enum ublox_action ublox_send(struct ublox_setup *s, uint64_t now_us, struct ublox_out *out)
{
	out->len = ublox_build_step(s, out->frame);
	s->tries++;
	if (s->step == STEP_PRT) {
		/* 10 bits per byte at the old rate, then a margin. */
		uint64_t tx_us = (uint64_t)out->len * 10u * 1000000u / s->cfg.start_baud;
		s->phase = PHASE_DRAIN;
		s->deadline_us = now_us + tx_us + BAUD_SETTLE_US;
	} else {
		s->phase = PHASE_AWAIT_ACK;
		s->wait_cls = out->frame[2];
		s->wait_id = out->frame[3];
		s->answer = 0;
		s->deadline_us = now_us + ACK_TIMEOUT_US;
	}
	return UBLOX_SEND;
}

static enum ublox_action ublox_wait(struct ublox_setup *s, struct ublox_out *out)
{
	out->next_us = s->deadline_us;
	return UBLOX_WAIT;
}

enum ublox_action ublox_setup_step(struct ublox_setup *s, uint64_t now_us, struct ublox_out *out)
{
	if (s->failed)
		return UBLOX_FAILED;
	if (s->done)
		return UBLOX_DONE;

	switch (s->phase) {
	case PHASE_SEND:
		return ublox_send(s, now_us, out);
	case PHASE_DRAIN:
		if (now_us < s->deadline_us)
			return ublox_wait(s, out);
		out->baud = s->cfg.baud;
		ublox_next_step(s);
		return UBLOX_SET_BAUD;
	case PHASE_AWAIT_ACK:
		break;
	}

	if (s->answer > 0) {
		ublox_next_step(s);
		return ublox_setup_step(s, now_us, out);
	}
	if (s->answer < 0) {
		if (s->step == STEP_NAV_PVT) {
			/* No NAV-PVT on this receiver: leave NMEA on and stop here. */
			s->done = true;
			return UBLOX_DONE;
		}
		ublox_next_step(s);
		return ublox_setup_step(s, now_us, out);
	}
	if (now_us < s->deadline_us)
		return ublox_wait(s, out);

	s->stats.timeouts++;
	if (s->tries < TRIES)
		return ublox_send(s, now_us, out);
	/* Nothing understood us: maybe the rate change never happened. From the top, at the start rate. */
	if (s->stats.rounds >= ROUNDS) {
		s->failed = true;
		return UBLOX_FAILED;
	}
	s->stats.rounds++;
	s->step = STEP_PRT;
	s->phase = PHASE_SEND;
	s->tries = 0;
	s->nav_pvt = false;
	out->baud = s->cfg.start_baud;
	return UBLOX_SET_BAUD;
}

void ublox_setup_on_frame(struct ublox_setup *s, const struct ubx_frame *f)
{
	if (s->phase != PHASE_AWAIT_ACK || f->cls != UBX_CLASS_ACK || f->len != 2)
		return;
	if (f->payload[0] != s->wait_cls || f->payload[1] != s->wait_id)
		return;
	if (f->id == UBX_ID_ACK_ACK) {
		s->stats.acks++;
		s->answer = 1;
		if (s->step == STEP_NAV_PVT)
			s->nav_pvt = true;
	} else if (f->id == UBX_ID_ACK_NAK) {
		s->stats.naks++;
		s->answer = -1;
	}
}

bool ublox_setup_has_nav_pvt(const struct ublox_setup *s)
{
	return s->nav_pvt;
}

const struct ublox_setup_stats *ublox_setup_stats(const struct ublox_setup *s)
{
	return &s->stats;
}
