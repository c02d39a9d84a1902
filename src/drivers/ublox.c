// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/ublox.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "drivers/gps_fix.h"
#include "drivers/nmea.h"
#include "fulmar/spi.h"
#include "fulmar/uart.h"
#include "util/ring.h"

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

/*
 * ---- as a board device (driver.h): a u-blox on a UART, or on SPI ----
 * The uart thread runs the set-up above and reads NAV-PVT (NMEA while no
 * NAV-PVT comes: a receiver that cannot be set up). On SPI (the Navio) the
 * timer thread, which owns the bus, clocks 64 bytes at 100 Hz and the bytes
 * cross to the uart thread in SPSC rings behind a struct uart, so the same
 * code reads both.
 */

#define GPS_READ 256
#define SPI_CHUNK 64
#define SPI_RING 2048              /* bytes each way */
#define SPI_IDLE 0xff              /* what a u-blox clocks out with nothing to say */

struct ublox_dev {
	struct uart *uart;             /* the port, or &pipe */
	bool on_spi;
	struct ublox_setup setup;
	bool setup_over;
	bool nav_pvt;                  /* NAV-PVT comes (else NMEA) */
	struct ubx_parser ubx;
	struct nmea_parser nmea;
	uint64_t now_us;               /* of the read being parsed */
	struct drv_inst *d;
	/* On SPI: the receiver's byte stream as a struct uart. */
	struct uart pipe;
	struct ring rx;                /* timer -> uart */
	struct ring tx;                /* uart -> timer */
	uint8_t rx_storage[SPI_RING];
	uint8_t tx_storage[SPI_RING];
};

static struct ublox_dev *pipe_dev(struct uart *u)
{
	return (struct ublox_dev *)(void *)((char *)u - offsetof(struct ublox_dev, pipe));
}

static int pipe_read(struct uart *u, uint8_t *buf, size_t len)
{
	return (int)ring_read(&pipe_dev(u)->rx, buf, len);
}

static int pipe_write(struct uart *u, const uint8_t *buf, size_t len)
{
	return (int)ring_write(&pipe_dev(u)->tx, buf, len);
}

static int pipe_set_baud(struct uart *u, uint32_t baud)
{
	(void)u;
	(void)baud;  /* SPI has no baud rate: the clock is the board's */
	return 0;
}

static void pipe_close(struct uart *u)
{
	(void)u;
}

static const struct uart_ops pipe_ops = {
	.read = pipe_read,
	.write = pipe_write,
	.set_baud = pipe_set_baud,
	.close = pipe_close,
};

/*
 * Timer thread: one full-duplex chunk. What the uart thread queued goes out
 * (idle bytes after it); what comes in goes to the uart thread unless the
 * whole chunk is idle (the receiver had nothing to say). Idle bytes inside a
 * chunk with data stay: 0xFF is also a data byte, and the UBX and NMEA parsers
 * skip what is not a frame.
 */
static void ublox_spi_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct ublox_dev *g = d->priv;
	uint8_t tx[SPI_CHUNK], rx[SPI_CHUNK];
	(void)now_us;
	size_t n = ring_read(&g->tx, tx, sizeof(tx));
	memset(tx + n, SPI_IDLE, sizeof(tx) - n);
	if (spi_transfer(d->handle, tx, rx, sizeof(rx))) {
		drv_error(d->slot);
		return;
	}
	size_t i = 0;
	while (i < sizeof(rx) && rx[i] == SPI_IDLE)
		i++;
	if (i == sizeof(rx))
		return;
	size_t w = ring_write(&g->rx, rx, sizeof(rx));
	if (w < sizeof(rx))
		ring_count_dropped(&g->rx, sizeof(rx) - w);
}

static void gps_publish(struct ublox_dev *g, struct gps_fix *fix)
{
	fix->t_us = g->now_us;
	if (drv_publish(g->d, SENSOR_GPS, fix) == 0) {
		drv_ok(g->d->slot, g->now_us, 1);
		drv_running(g->d->slot, true);
	} else {
		drv_error(g->d->slot);
	}
}

static void gps_on_frame(void *ctx, const struct ubx_frame *f)
{
	struct ublox_dev *g = ctx;
	if (!g->setup_over)
		ublox_setup_on_frame(&g->setup, f);
	if (f->cls == UBX_CLASS_NAV && f->id == UBX_ID_NAV_PVT) {
		struct gps_fix fix;
		if (ubx_decode_nav_pvt(f->payload, f->len, &fix) == 0) {
			g->nav_pvt = true;
			gps_publish(g, &fix);
		} else {
			drv_error(g->d->slot);
		}
	}
}

static void gps_setup_step(struct ublox_dev *g, uint64_t now_us)
{
	for (int guard = 0; guard < 8 && !g->setup_over; guard++) {
		struct ublox_out out;
		enum ublox_action a = ublox_setup_step(&g->setup, now_us, &out);
		switch (a) {
		case UBLOX_SEND:
			/*
			 * CFG-PRT describes a UART port; on SPI the receiver's defaults
			 * (UBX and NMEA both ways) stand, and there is no rate to change.
			 */
			if (g->on_spi && out.len > 3 && out.frame[2] == UBX_CLASS_CFG &&
			    out.frame[3] == UBX_ID_CFG_PRT)
				break;
			if (uart_write(g->uart, out.frame, out.len) != (int)out.len)
				drv_error(g->d->slot);
			break;
		case UBLOX_SET_BAUD:
			if (uart_set_baud(g->uart, out.baud))
				drv_error(g->d->slot);
			break;
		case UBLOX_DONE:
		case UBLOX_FAILED:
			/* Either way the receiver's messages are read: NAV-PVT or NMEA. */
			g->setup_over = true;
			return;
		case UBLOX_WAIT:
			return;
		}
	}
}

static void ublox_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct ublox_dev *g = d->priv;
	uint8_t buf[GPS_READ];
	g->now_us = now_us;
	for (int reads = 0; reads < 8; reads++) {
		int n = uart_read(g->uart, buf, sizeof(buf));
		if (n < 0) {
			drv_error(d->slot);
			break;
		}
		if (n == 0)
			break;
		ubx_parser_feed(&g->ubx, buf, (size_t)n, gps_on_frame, g);
		/* NMEA only while no NAV-PVT has come: a receiver that cannot be set up. */
		if (nmea_parser_feed(&g->nmea, buf, (size_t)n, now_us) > 0 && !g->nav_pvt) {
			struct gps_fix fix = *nmea_parser_fix(&g->nmea);
			gps_publish(g, &fix);
		}
		if ((size_t)n < sizeof(buf))
			break;
	}
	gps_setup_step(g, now_us);
}

static int ublox_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct ublox_dev *g = d->priv;
	struct ublox_setup_config cfg = { .baud = d->desc->drv.baud };
	g->d = d;
	if (d->desc->kind == BOARD_DEV_SPI) {
		g->pipe.ops = &pipe_ops;
		ring_init(&g->rx, g->rx_storage, SPI_RING, 1);
		ring_init(&g->tx, g->tx_storage, SPI_RING, 1);
		g->uart = &g->pipe;
		g->on_spi = true;
		cfg.start_baud = cfg.baud = 115200;
		cfg.port = 4;  /* the receiver's SPI port */
	} else {
		g->uart = d->handle;
		cfg.start_baud = d->desc->u.uart.cfg.baud;
	}
	if (ublox_setup_init(&g->setup, &cfg)) {
		snprintf(err, err_len, "%s: u-blox settings refused", d->desc->name);
		return -EINVAL;
	}
	ubx_parser_init(&g->ubx);
	nmea_parser_init(&g->nmea);
	return 0;
}

static size_t ublox_dev_tasks(struct drv_inst *d, struct sched_task out[2])
{
	size_t n = 0;
	if (((struct ublox_dev *)d->priv)->on_spi)
		n = drv_task(d, out, 0, "spi", SCHED_TIMER, 100, ublox_spi_task);
	return drv_task(d, out, (unsigned int)n, NULL, SCHED_UART, 0, ublox_task);
}

bool ublox_dev_nav_pvt(const struct drv_inst *d)
{
	return ((const struct ublox_dev *)d->priv)->nav_pvt;
}

const struct driver ublox_driver = {
	.name = "u-blox", .buses = DRV_BUS(BOARD_DEV_UART) | DRV_BUS(BOARD_DEV_SPI), .role = "GPS",
	.pass = 1, .priv_size = sizeof(struct ublox_dev), .probe = ublox_dev_probe,
	.bits = DRV_SENSOR_GPS, .stale_us = DRV_GPS_STALE_US, .tasks = ublox_dev_tasks,
};
