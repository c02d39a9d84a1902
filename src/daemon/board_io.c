// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "board"
#include "daemon/board_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "daemon/flight.h"
#include "drivers/rotation.h"
#include "fulmar/analog.h"
#include "fulmar/clock.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/mmio.h"
#include "fulmar/spi.h"
#include "fulmar/uart.h"
#include "param/param.h"
#include "util/log.h"

#define RCIN_BATCH 64
#define GPS_READ 256
#define RC_UART_READ 64
#define PCA_DEFAULT_HZ 50
#define UBLOX_SPI_IDLE 0xff        /* what a u-blox clocks out with nothing to say */

/* The AK8963 inside an MPU9250 has its own axes (ak8963.h). */
#define AK8963_IN_MPU9250 ROTATION_ROLL_180_YAW_90

static inline void slot_ok(struct board_io_slot *s, uint64_t now_us, uint64_t n)
{
	atomic_fetch_add_explicit(&s->samples, n, memory_order_relaxed);
	atomic_store_explicit(&s->last_ok_us, now_us, memory_order_relaxed);
}

static inline void slot_error(struct board_io_slot *s)
{
	atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
}

static inline void slot_running(struct board_io_slot *s, bool on)
{
	atomic_store_explicit(&s->running, on, memory_order_relaxed);
}

/* ---- SPI behind a GPIO chip select ---------------------------------------------------- */

static int spi_cs_batch(struct spi_dev *dev, const struct spi_xfer *xfers, size_t n)
{
	struct board_io_spi_cs *c = (struct board_io_spi_cs *)(void *)dev;
	size_t start = 0;
	/* A segment with cs_change ends a group: the select goes up after it. */
	while (start < n) {
		size_t end = start;
		while (end + 1 < n && !xfers[end].cs_change)
			end++;
		struct spi_xfer group[SPI_MAX_XFERS];
		size_t len = end - start + 1;
		memcpy(group, &xfers[start], len * sizeof(group[0]));
		group[len - 1].cs_change = false;
		int rc = gpio_set(c->cs, 1);
		if (rc) {
			c->gpio_errors++;
			return rc;
		}
		rc = spi_transfer_batch(c->bus, group, len);
		int rc2 = gpio_set(c->cs, 0);
		if (rc2)
			c->gpio_errors++;
		if (rc)
			return rc;
		if (rc2)
			return rc2;
		start = end + 1;
	}
	return 0;
}

static int spi_cs_set_speed(struct spi_dev *dev, uint32_t speed_hz)
{
	struct board_io_spi_cs *c = (struct board_io_spi_cs *)(void *)dev;
	return spi_set_speed(c->bus, speed_hz);
}

static void spi_cs_close(struct spi_dev *dev)
{
	(void)dev;  /* the bus and the line are the devices table's */
}

static const struct spi_ops spi_cs_ops = {
	.transfer_batch = spi_cs_batch,
	.set_speed = spi_cs_set_speed,
	.close = spi_cs_close,
};

/* ---- u-blox on SPI as a struct uart ---------------------------------------------------- */

static int spi_uart_read(struct uart *u, uint8_t *buf, size_t len)
{
	struct board_io_spi_uart *s = (struct board_io_spi_uart *)(void *)u;
	return (int)ring_read(&s->rx, buf, len);
}

static int spi_uart_write(struct uart *u, const uint8_t *buf, size_t len)
{
	struct board_io_spi_uart *s = (struct board_io_spi_uart *)(void *)u;
	return (int)ring_write(&s->tx, buf, len);
}

static int spi_uart_set_baud(struct uart *u, uint32_t baud)
{
	(void)u;
	(void)baud;  /* SPI has no baud rate: the clock is the board's */
	return 0;
}

static void spi_uart_close(struct uart *u)
{
	(void)u;
}

static const struct uart_ops spi_uart_ops = {
	.read = spi_uart_read,
	.write = spi_uart_write,
	.set_baud = spi_uart_set_baud,
	.close = spi_uart_close,
};

/*
 * Timer thread: one full-duplex chunk. What the uart thread queued goes out
 * (idle bytes after it); what comes in goes to the uart thread unless the
 * whole chunk is idle (the receiver had nothing to say). Idle bytes inside a
 * chunk with data stay: 0xFF is also a data byte, and the UBX and NMEA parsers
 * skip what is not a frame.
 */
static void spi_gps_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct board_io_spi_uart *s = &b->spi_uart;
	uint8_t tx[BOARD_IO_SPI_GPS_CHUNK], rx[BOARD_IO_SPI_GPS_CHUNK];
	size_t n = ring_read(&s->tx, tx, sizeof(tx));
	memset(tx + n, UBLOX_SPI_IDLE, sizeof(tx) - n);
	if (spi_transfer(s->spi, tx, rx, sizeof(rx))) {
		slot_error(b->gps_slot);
		return;
	}
	(void)now_us;
	size_t i = 0;
	while (i < sizeof(rx) && rx[i] == UBLOX_SPI_IDLE)
		i++;
	if (i == sizeof(rx))
		return;
	size_t w = ring_write(&s->rx, rx, sizeof(rx));
	if (w < sizeof(rx))
		ring_count_dropped(&s->rx, sizeof(rx) - w);
}

/* ---- PCA9685 outputs: main publishes, the timer thread writes ------------------------ */

static struct board_io_pca_out *pca_out_of(struct rcout *out)
{
	return (struct board_io_pca_out *)(void *)out;
}

static int pca_out_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	/* One prescaler for all 16 outputs, set at start-up. */
	(void)mask;
	return rate_hz == pca_out_of(out)->rate_hz ? 0 : -ENOTSUP;
}

static int pca_out_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct board_io_pca_out *p = pca_out_of(out);
	if (ch >= out->channels)
		return -EINVAL;
	if (pulse_us != 0 && (pulse_us < 500 || pulse_us > 2500 ||
			      (uint32_t)pulse_us >= 1000000u / p->rate_hz))
		return -EINVAL;
	if (p->want[ch] != pulse_us) {
		p->want[ch] = pulse_us;
		topic_publish(&p->topic, p->want);
	}
	return 0;
}

static int pca_out_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	struct board_io_pca_out *p = pca_out_of(out);
	if (ch >= out->channels)
		return -EINVAL;
	*pulse_us = atomic_load_explicit(&p->written[ch], memory_order_relaxed);
	return 0;
}

static void pca_out_close(struct rcout *out)
{
	(void)out;  /* board_io_close turns the chip's outputs off */
}

static const struct rcout_ops pca_out_ops = {
	.set_rate = pca_out_set_rate,
	.write = pca_out_write,
	.read = pca_out_read,
	.close = pca_out_close,
};

/*
 * Timer thread, every wake: at most one changed channel per wake (a 3-byte
 * write, about 0.4 ms at 100 kHz), round robin, so a wake never holds I2C-1
 * longer than that. Eight changing channels are all rewritten every 8 ms,
 * faster than the 20 ms PWM period.
 */
static void pca_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct board_io_pca_out *p = &b->pca_out;
	uint32_t gen = topic_generation(&p->topic);
	if (gen != p->seen_gen)
		p->seen_gen = topic_read(&p->topic, p->pending);
	unsigned int n = p->base.channels;
	for (unsigned int k = 0; k < n; k++) {
		unsigned int ch = (p->next_ch + k) % n;
		if (p->pending[ch] == atomic_load_explicit(&p->written[ch], memory_order_relaxed))
			continue;
		p->next_ch = (ch + 1) % n;
		if (pca9685_write_us(p->chip, ch, p->pending[ch])) {
			slot_error(b->pca_slot);
			return;
		}
		atomic_store_explicit(&p->written[ch], p->pending[ch], memory_order_relaxed);
		slot_ok(b->pca_slot, now_us, 1);
		return;
	}
	/* Nothing changed: the chip keeps producing; count it as alive. */
	atomic_store_explicit(&b->pca_slot->last_ok_us, now_us, memory_order_relaxed);
}

/* ---- timer-thread sensors ------------------------------------------------------------- */

static void imu_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct mpu *m = &b->imu[0];
	struct board_io_slot *s = b->imu_slot[0];
	int n = mpu_poll(m, now_us, b->imu_buf, MPU_MAX_FRAMES);
	if (n < 0) {
		slot_error(s);
	} else if (n > 0) {
		uint64_t ok = 0;
		for (int i = 0; i < n; i++)
			ok += sensors_push_imu(b->hub, &b->imu_buf[i]) == 0;
		if (ok)
			slot_ok(s, now_us, ok);
		if (ok < (uint64_t)n)
			atomic_fetch_add_explicit(&s->errors, (uint64_t)n - ok, memory_order_relaxed);
	}
	slot_running(s, mpu_is_running(m));
	if (b->mag_aux_slot) {
		struct mag_sample mag;
		uint32_t c = mpu_mag_sample(m, &mag);
		if (c != b->mag_aux_seen) {
			b->mag_aux_seen = c;
			if (sensors_publish_mag(b->hub, &mag) == 0)
				slot_ok(b->mag_aux_slot, now_us, 1);
			else
				slot_error(b->mag_aux_slot);
		}
		slot_running(b->mag_aux_slot, mpu_mag_is_running(m));
	}
}

/* A second IMU is read and watched (its FIFO must not overflow), not fused. */
static void imu2_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct imu_sample buf[MPU_MAX_FRAMES];
	int n = mpu_poll(&b->imu[1], now_us, buf, MPU_MAX_FRAMES);
	if (n < 0)
		slot_error(b->imu_slot[1]);
	else if (n > 0)
		slot_ok(b->imu_slot[1], now_us, (uint64_t)n);
	slot_running(b->imu_slot[1], mpu_is_running(&b->imu[1]));
}

static void baro_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	if (now_us < ms5611_next_poll_us(&b->baro))
		return;
	struct baro_sample s;
	int rc = ms5611_poll(&b->baro, now_us, &s);
	if (rc < 0)
		slot_error(b->baro_slot);
	else if (rc > 0 && sensors_publish_baro(b->hub, &s) == 0)
		slot_ok(b->baro_slot, now_us, 1);
	else if (rc > 0)
		slot_error(b->baro_slot);
	slot_running(b->baro_slot, ms5611_is_running(&b->baro));
}

static void mag_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct mag_sample s;
	if (b->hmc_slot) {
		int rc = hmc5883l_poll(&b->hmc, now_us, &s);
		if (rc < 0)
			slot_error(b->hmc_slot);
		else if (rc > 0 && sensors_publish_mag(b->hub, &s) == 0)
			slot_ok(b->hmc_slot, now_us, 1);
		slot_running(b->hmc_slot, hmc5883l_is_running(&b->hmc));
	}
	if (b->ak_slot) {
		int rc = ak8963_poll(&b->ak, now_us, &s);
		if (rc < 0)
			slot_error(b->ak_slot);
		else if (rc > 0 && sensors_publish_mag(b->hub, &s) == 0)
			slot_ok(b->ak_slot, now_us, 1);
		slot_running(b->ak_slot, ak8963_is_running(&b->ak));
	}
}

static void pitot_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct airspeed_sample s;
	int rc = ms4525_poll(&b->pitot, now_us, &s);
	if (rc < 0) {
		slot_error(b->pitot_slot);
	} else if (rc > 0 && sensors_publish_airspeed(b->hub, &s) == 0) {
		slot_ok(b->pitot_slot, now_us, 1);
		slot_running(b->pitot_slot, true);
	}
}

/* ---- uart thread: GPS ------------------------------------------------------------------ */

static void gps_publish(struct board_io_gps *g, struct gps_fix *fix)
{
	fix->t_us = g->now_us;
	if (sensors_publish_gps(g->hub, fix) == 0) {
		slot_ok(g->slot, g->now_us, 1);
		slot_running(g->slot, true);
	} else {
		slot_error(g->slot);
	}
}

static void gps_on_frame(void *ctx, const struct ubx_frame *f)
{
	struct board_io_gps *g = ctx;
	if (!g->setup_over)
		ublox_setup_on_frame(&g->setup, f);
	if (f->cls == UBX_CLASS_NAV && f->id == UBX_ID_NAV_PVT) {
		struct gps_fix fix;
		if (ubx_decode_nav_pvt(f->payload, f->len, &fix) == 0) {
			g->nav_pvt = true;
			gps_publish(g, &fix);
		} else {
			slot_error(g->slot);
		}
	}
}

static void gps_setup_step(struct board_io_gps *g, uint64_t now_us)
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
				slot_error(g->slot);
			break;
		case UBLOX_SET_BAUD:
			if (uart_set_baud(g->uart, out.baud))
				slot_error(g->slot);
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

static void gps_task(void *ctx, uint64_t now_us)
{
	struct board_io_gps *g = ctx;
	uint8_t buf[GPS_READ];
	g->now_us = now_us;
	for (int reads = 0; reads < 8; reads++) {
		int n = uart_read(g->uart, buf, sizeof(buf));
		if (n < 0) {
			slot_error(g->slot);
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

/* ---- rcin thread ----------------------------------------------------------------------- */

static void rc_out(struct board_io *b, const struct rc_frame *f, uint64_t now_us)
{
	if (sensors_publish_rc(b->hub, f) == 0) {
		slot_ok(b->rc_slot, now_us, 1);
		slot_running(b->rc_slot, true);
	} else {
		slot_error(b->rc_slot);
	}
}

static void rcin_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	struct rcin_pulse p[RCIN_BATCH];
	for (int reads = 0; reads < 16; reads++) {
		int n = rcin_read(b->rcin, p, RCIN_BATCH, now_us);
		if (n < 0) {
			slot_error(b->rc_slot);
			return;
		}
		for (int i = 0; i < n; i++) {
			struct rc_frame f;
			if (rc_input_pulse(&b->rc, p[i].low_us, p[i].high_us, p[i].t_us, &f))
				rc_out(b, &f, now_us);
		}
		if (n < RCIN_BATCH)
			return;
	}
}

static void rc_uart_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	uint8_t buf[RC_UART_READ];
	for (int reads = 0; reads < 8; reads++) {
		int n = uart_read(b->rc_uart, buf, sizeof(buf));
		if (n < 0) {
			slot_error(b->rc_slot);
			return;
		}
		if (n == 0)
			return;
		struct rc_frame f;
		int k = b->rc_uart_kind == BOARD_DRV_RCIN_SBUS ?
			rc_sbus_bytes(&b->rc_sbus, buf, (size_t)n, now_us, &f) :
			rc_dsm_bytes(&b->rc_dsm, buf, (size_t)n, now_us, &f);
		if (k > 0)
			rc_out(b, &f, now_us);
	}
}

/* ---- io thread: battery ------------------------------------------------------------------ */

static float param_or(int idx, float board_figure)
{
	float v = idx >= 0 ? param_get(idx) : 0.0f;
	return v > 0.0f ? v : board_figure;
}

static void battery_task(void *ctx, uint64_t now_us)
{
	struct board_io *b = ctx;
	double mv;
	if (analog_read(b->batt_v, &mv)) {
		slot_error(b->batt_slot);
		return;
	}
	struct battery_sample s = { .t_us = now_us, .current_a = NAN, .consumed_mah = NAN };
	s.voltage_v = (float)(mv / 1000.0) * param_or(b->p_volt_mult, b->batt_v_board);
	if (b->batt_i) {
		double mv_i;
		if (analog_read(b->batt_i, &mv_i) == 0) {
			float off = b->p_amp_offset >= 0 ? param_get(b->p_amp_offset) : 0.0f;
			float a = ((float)(mv_i / 1000.0) - off) *
				  param_or(b->p_amp_pervlt, b->batt_i_board);
			s.current_a = a;
			if (b->batt_last_us && now_us > b->batt_last_us)
				b->consumed_mah += a * (float)(now_us - b->batt_last_us) / 3.6e6f;
			b->batt_last_us = now_us;
			s.consumed_mah = b->consumed_mah;
		} else {
			slot_error(b->batt_slot);
		}
	}
	if (sensors_publish_battery(b->hub, &s) == 0) {
		slot_ok(b->batt_slot, now_us, 1);
		slot_running(b->batt_slot, true);
	} else {
		slot_error(b->batt_slot);
	}
}

/* ---- tone thread: buzzer tunes --------------------------------------------------------------- */

/* On, off, on, ... durations in ms, 0-terminated. */
static const uint16_t tune_startup[] = { 100, 50, 100, 50, 300, 0 };
static const uint16_t tune_disarm[] = { 100, 100, 100, 0 };
static const uint16_t tune_arm[] = { 500, 0 };
static const uint16_t tune_low_battery[] = { 50, 50, 50, 50, 50, 50, 50, 0 };
static const uint16_t tune_failsafe[] = { 200, 200, 200, 200, 200, 0 };

static const uint16_t *const tunes[BOARD_IO_TUNE_COUNT] = {
	[BOARD_IO_TUNE_STARTUP] = tune_startup,
	[BOARD_IO_TUNE_DISARM] = tune_disarm,
	[BOARD_IO_TUNE_ARM] = tune_arm,
	[BOARD_IO_TUNE_LOW_BATTERY] = tune_low_battery,
	[BOARD_IO_TUNE_FAILSAFE] = tune_failsafe,
};

#define TONE_LOW_BATTERY_US 3000000u
#define TONE_RC_LOST_US 1500000u
#define TONE_REPEAT_LOW_US 5000000u
#define TONE_REPEAT_FAILSAFE_US 2000000u

static void tone_set(struct board_io_tone *t, bool on)
{
	if (gpio_set(t->line, on ? 1 : 0))
		t->gpio_errors++;
}

static void tone_start(struct board_io_tone *t, enum board_io_tune tune, uint64_t now_us)
{
	t->playing = tune;
	t->step = 0;
	t->step_end_us = now_us + (uint64_t)tunes[tune][0] * 1000u;
	t->plays[tune]++;
	t->again_us[tune] = now_us + (tune == BOARD_IO_TUNE_LOW_BATTERY ? TONE_REPEAT_LOW_US :
				      TONE_REPEAT_FAILSAFE_US);
	tone_set(t, true);
}

/* A tune starts over anything less urgent; otherwise it is dropped (or retried, if it repeats). */
static void tone_want(struct board_io_tone *t, enum board_io_tune tune, uint64_t now_us)
{
	if (t->playing == BOARD_IO_TUNE_NONE || tune >= t->playing)
		tone_start(t, tune, now_us);
}

/* Tone thread, 100 Hz. */
static void tone_task(void *ctx, uint64_t now_us)
{
	struct board_io_tone *t = ctx;
	if (!t->started) {
		t->started = true;
		tone_want(t, BOARD_IO_TUNE_STARTUP, now_us);
	}
	bool armed = t->armed_fn ? t->armed_fn() : false;
	if (armed != t->armed) {
		t->armed = armed;
		tone_want(t, armed ? BOARD_IO_TUNE_ARM : BOARD_IO_TUNE_DISARM, now_us);
	}
	struct battery_sample bat;
	float low_v = t->p_low_volt >= 0 ? param_get(t->p_low_volt) : 0.0f;
	bool under = low_v > 0.0f && sensors_latest(t->hub, SENSOR_BATTERY, &bat) &&
		     bat.voltage_v < low_v;
	if (!under)
		t->low_since_us = 0;
	else if (!t->low_since_us)
		t->low_since_us = now_us;
	t->low = under && now_us - t->low_since_us >= TONE_LOW_BATTERY_US;
	struct rc_frame rc;
	t->failsafe = sensors_latest(t->hub, SENSOR_RC, &rc) &&
		      (rc.failsafe || now_us - rc.timestamp_us > TONE_RC_LOST_US);
	if (t->failsafe && t->playing != BOARD_IO_TUNE_FAILSAFE &&
	    now_us >= t->again_us[BOARD_IO_TUNE_FAILSAFE])
		tone_want(t, BOARD_IO_TUNE_FAILSAFE, now_us);
	else if (t->low && t->playing != BOARD_IO_TUNE_LOW_BATTERY &&
		 now_us >= t->again_us[BOARD_IO_TUNE_LOW_BATTERY])
		tone_want(t, BOARD_IO_TUNE_LOW_BATTERY, now_us);

	if (t->playing == BOARD_IO_TUNE_NONE || now_us < t->step_end_us)
		return;
	const uint16_t *pat = tunes[t->playing];
	if (pat[t->step + 1] == 0) {
		tone_set(t, false);
		t->playing = BOARD_IO_TUNE_NONE;
		return;
	}
	t->step++;
	tone_set(t, t->step % 2 == 0);
	t->step_end_us = now_us + (uint64_t)pat[t->step] * 1000u;
}

void board_io_set_armed_source(struct board_io *b, bool (*armed)(void))
{
	b->tone.armed_fn = armed;
}

/* ---- start-up ------------------------------------------------------------------------------- */

static uint64_t mono_now_us(void *ctx)
{
	(void)ctx;
	return clock_mono_ns() / 1000u;
}

static void mono_sleep_until_us(void *ctx, uint64_t t_us)
{
	(void)ctx;
	clock_sleep_until_ns(t_us * 1000u);
}

static const struct board_io_clock mono_clock = { mono_now_us, mono_sleep_until_us, NULL };

static struct board_io_slot *add_slot(struct board_io *b, const struct device *dev,
				      uint32_t bits, uint32_t stale_us)
{
	if (b->n_slots >= BOARD_IO_MAX_SLOTS)
		return NULL;
	struct board_io_slot *s = &b->slot[b->n_slots++];
	s->dev = dev;
	s->label = dev->desc.name;
	s->kind = dev->desc.drv.kind;
	s->bits = bits;
	s->stale_us = stale_us;
	atomic_init(&s->samples, 0);
	atomic_init(&s->errors, 0);
	atomic_init(&s->last_ok_us, 0);
	atomic_init(&s->running, false);
	return s;
}

static const char *kind_chip(enum board_driver_kind k)
{
	switch (k) {
	case BOARD_DRV_MPU6000: return "MPU6000";
	case BOARD_DRV_MPU9250: return "MPU9250";
	case BOARD_DRV_MS5611: return "MS5611";
	case BOARD_DRV_HMC5883L: return "HMC5883L";
	case BOARD_DRV_AK8963: return "AK8963";
	case BOARD_DRV_MS4525: return "MS4525DO";
	case BOARD_DRV_PCA9685: return "PCA9685";
	default: return "chip";
	}
}

#define FAIL(...) do { snprintf(err, err_len, __VA_ARGS__); return rc; } while (0)

/* The SPI handle a chip uses: the device's, or the device's behind its chip-select line. */
static int chip_spi(struct board_io *b, const struct device *dev, struct spi_dev **out,
		    char *err, size_t err_len)
{
	int rc = -EINVAL;
	const char *cs_name = dev->desc.drv.chip_select;
	if (!cs_name) {
		*out = dev->handle;
		return 0;
	}
	struct gpio_line *cs = devices_find(b->devs, cs_name, BOARD_DEV_GPIO);
	if (!cs)
		FAIL("%s (%s): its chip select '%s' is not an open GPIO device", dev->desc.name,
		     dev->desc.what, cs_name);
	rc = -E2BIG;
	if (b->n_cs >= sizeof(b->cs) / sizeof(b->cs[0]))
		FAIL("%s: too many chip-select lines", dev->desc.name);
	struct board_io_spi_cs *c = &b->cs[b->n_cs++];
	c->dev.ops = &spi_cs_ops;
	c->bus = dev->handle;
	c->cs = cs;
	*out = &c->dev;
	return 0;
}

/*
 * Runs a set-up to its end on the start-up clock: poll() returns 1 when done,
 * 0 to go on, -errno on a transfer error (retried), or a final error.
 */
struct setup_run {
	int (*poll)(struct board_io *b, void *chip, uint64_t now_us);
	uint64_t (*next_us)(const void *chip);
};

static int run_setup(struct board_io *b, const struct board_io_clock *clk, void *chip,
		     const struct setup_run *r, int *last_err)
{
	uint64_t t0 = clk->now_us(clk->ctx);
	*last_err = 0;
	for (;;) {
		uint64_t now = clk->now_us(clk->ctx);
		int rc = r->poll(b, chip, now);
		if (rc > 0)
			return 0;
		if (rc == -ENODEV || rc == -EBADMSG)
			return rc;
		if (rc < 0)
			*last_err = rc;
		if (now - t0 > BOARD_IO_SETUP_TIMEOUT_US)
			return -ETIMEDOUT;
		uint64_t next = r->next_us ? r->next_us(chip) : 0;
		if (next < now + 100)
			next = now + 100;
		if (next > now + 10000)
			next = now + 10000;
		clk->sleep_until_us(clk->ctx, next);
	}
}

static int mpu_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	int n = mpu_poll(chip, now_us, b->imu_buf, MPU_MAX_FRAMES);
	if (n < 0)
		return n;
	return mpu_is_running(chip) ? 1 : 0;
}

static uint64_t mpu_setup_next(const void *chip)
{
	return mpu_next_poll_us(chip);
}

/* The AK8963 behind an MPU9250 comes up after the IMU; a missing one is said, not fatal. */
static int mpu_mag_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	int n = mpu_poll(chip, now_us, b->imu_buf, MPU_MAX_FRAMES);
	if (n < 0 && n != -EIO)
		return n;
	if (mpu_mag_is_running(chip))
		return 1;
	return mpu_stats(chip)->mag_errors ? -ENODEV : 0;
}

static int ms5611_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	(void)b;
	struct baro_sample s;
	int rc = ms5611_poll(chip, now_us, &s);
	if (rc < 0)
		return rc;
	return ms5611_is_running(chip) ? 1 : 0;
}

static uint64_t ms5611_setup_next(const void *chip)
{
	return ms5611_next_poll_us(chip);
}

static int hmc_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	(void)b;
	struct mag_sample s;
	int rc = hmc5883l_poll(chip, now_us, &s);
	if (rc < 0)
		return rc;
	return hmc5883l_is_running(chip) ? 1 : 0;
}

static uint64_t hmc_setup_next(const void *chip)
{
	return hmc5883l_next_poll_us(chip);
}

static int ak_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	(void)b;
	struct mag_sample s;
	int rc = ak8963_poll(chip, now_us, &s);
	if (rc < 0)
		return rc;
	return ak8963_is_running(chip) ? 1 : 0;
}

static uint64_t ak_setup_next(const void *chip)
{
	return ak8963_next_poll_us(chip);
}

static int ms4525_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	(void)b;
	struct airspeed_sample s;
	int rc = ms4525_poll(chip, now_us, &s);
	if (rc == -EIO)
		return 0;  /* the sensor's own fault bits: it answers */
	return rc;
}

static uint64_t ms4525_setup_next(const void *chip)
{
	return ms4525_next_poll_us(chip);
}

static int pca_setup_poll(struct board_io *b, void *chip, uint64_t now_us)
{
	(void)b;
	return pca9685_poll(chip, now_us);
}

static uint64_t pca_setup_next(const void *chip)
{
	return pca9685_next_poll_us(chip);
}

static int setup_error(const struct device *dev, int rc, int last_err, const char *detail,
		       char *err, size_t err_len)
{
	const char *chip = kind_chip(dev->desc.drv.kind);
	if (rc == -ENODEV)
		snprintf(err, err_len, "%s (%s): no %s answers%s", dev->desc.name, dev->desc.what,
			 chip, detail);
	else if (rc == -EBADMSG)
		snprintf(err, err_len, "%s (%s): the %s's PROM fails its CRC", dev->desc.name,
			 dev->desc.what, chip);
	else
		snprintf(err, err_len, "%s (%s): the %s did not finish its set-up in %u s%s%s",
			 dev->desc.name, dev->desc.what, chip, BOARD_IO_SETUP_TIMEOUT_US / 1000000u,
			 last_err ? ": " : "", last_err ? strerror(-last_err) : "");
	return rc == -ETIMEDOUT ? -ETIMEDOUT : -ENODEV;
}

static int open_mpu(struct board_io *b, const struct device *dev, const struct board_io_clock *clk,
		    char *err, size_t err_len)
{
	const struct board_driver *drv = &dev->desc.drv;
	int rc = -E2BIG;
	if (b->n_imu >= 2)
		FAIL("%s: more than two IMUs on the board", dev->desc.name);
	unsigned int i = b->n_imu;
	struct spi_dev *spi;
	rc = chip_spi(b, dev, &spi, err, err_len);
	if (rc)
		return rc;
	enum rotation rot = drv->rotation ? (enum rotation)drv->rotation : ROTATION_NONE;
	bool aux = drv->aux_ak8963 && drv->kind == BOARD_DRV_MPU9250 && i == 0;
	struct mpu_config cfg = {
		.spi = spi,
		.setup_speed_hz = drv->setup_speed_hz,
		.read_speed_hz = dev->desc.u.spi.cfg.speed_hz,
		.rotation = rot,
		.rate_hz = (uint16_t)(drv->rate_hz ? drv->rate_hz : b->devs->board->imu_rate_hz),
		.aux_ak8963 = aux,
		.mag_rotation = aux ? rotation_compose(AK8963_IN_MPU9250, rot) : 0,
	};
	rc = mpu_init(&b->imu[i], &cfg);
	if (rc)
		FAIL("%s (%s): IMU settings refused (rotation %d, rate %u Hz)", dev->desc.name,
		     dev->desc.what, drv->rotation, cfg.rate_hz);
	static const struct setup_run run = { mpu_setup_poll, mpu_setup_next };
	int last = 0;
	rc = run_setup(b, clk, &b->imu[i], &run, &last);
	if (rc) {
		char detail[64] = "";
		if (rc == -ENODEV)
			snprintf(detail, sizeof(detail), " to WHO_AM_I (read 0x%02x)",
				 b->imu[i].who_am_i);
		return setup_error(dev, rc, last, detail, err, err_len);
	}
	enum mpu_chip want = drv->kind == BOARD_DRV_MPU6000 ? MPU_CHIP_MPU6000 : MPU_CHIP_MPU9250;
	if (mpu_chip(&b->imu[i]) != want)
		log_warn("%s (%s): WHO_AM_I 0x%02x is another MPU than the board says; driving it",
			 dev->desc.name, dev->desc.what, b->imu[i].who_am_i);
	b->imu_slot[i] = add_slot(b, dev, i == 0 ? BOARD_IO_SENSOR_GYRO | BOARD_IO_SENSOR_ACCEL :
					       BOARD_IO_SENSOR_GYRO2 | BOARD_IO_SENSOR_ACCEL2,
				  BOARD_IO_IMU_STALE_US);
	slot_running(b->imu_slot[i], true);
	b->n_imu++;
	if (aux) {
		static const struct setup_run mrun = { mpu_mag_setup_poll, mpu_setup_next };
		rc = run_setup(b, clk, &b->imu[i], &mrun, &last);
		if (rc) {
			log_warn("%s (%s): its AK8963 magnetometer does not answer; flying without",
				 dev->desc.name, dev->desc.what);
		} else {
			b->mag_aux_slot = add_slot(b, dev, BOARD_IO_SENSOR_MAG,
						   BOARD_IO_SLOW_STALE_US);
			b->mag_aux_slot->label = "imu.mag";
			slot_running(b->mag_aux_slot, true);
		}
	}
	return 0;
}

static int open_i2c_chip(struct board_io *b, const struct device *dev,
			 const struct board_io_clock *clk, char *err, size_t err_len)
{
	const struct board_driver *drv = &dev->desc.drv;
	struct i2c_bus *bus = dev->handle;
	uint8_t addr = dev->desc.u.i2c.addr;
	enum rotation rot = drv->rotation ? (enum rotation)drv->rotation : ROTATION_NONE;
	int rc = -EINVAL, last = 0;
	switch (drv->kind) {
	case BOARD_DRV_HMC5883L: {
		struct hmc5883l_config cfg = { .bus = bus, .addr = addr, .rotation = rot };
		if (b->hmc_slot || hmc5883l_init(&b->hmc, &cfg))
			FAIL("%s: a second HMC5883L, or settings refused", dev->desc.name);
		static const struct setup_run run = { hmc_setup_poll, hmc_setup_next };
		rc = run_setup(b, clk, &b->hmc, &run, &last);
		if (rc)
			return setup_error(dev, rc, last, " (identification)", err, err_len);
		b->hmc_slot = add_slot(b, dev, b->mag_aux_slot ? BOARD_IO_SENSOR_MAG2 :
						 BOARD_IO_SENSOR_MAG, BOARD_IO_SLOW_STALE_US);
		slot_running(b->hmc_slot, true);
		return 0;
	}
	case BOARD_DRV_AK8963: {
		struct ak8963_config cfg = { .bus = bus, .addr = addr, .rotation = rot };
		if (b->ak_slot || ak8963_init(&b->ak, &cfg))
			FAIL("%s: a second AK8963, or settings refused", dev->desc.name);
		static const struct setup_run run = { ak_setup_poll, ak_setup_next };
		rc = run_setup(b, clk, &b->ak, &run, &last);
		if (rc)
			return setup_error(dev, rc, last, " (WIA)", err, err_len);
		b->ak_slot = add_slot(b, dev, b->mag_aux_slot || b->hmc_slot ?
					      BOARD_IO_SENSOR_MAG2 : BOARD_IO_SENSOR_MAG,
				      BOARD_IO_SLOW_STALE_US);
		slot_running(b->ak_slot, true);
		return 0;
	}
	case BOARD_DRV_MS4525: {
		struct ms4525_config cfg = { .bus = bus, .addr = addr };
		if (b->pitot_slot || ms4525_init(&b->pitot, &cfg))
			FAIL("%s: a second pitot, or settings refused", dev->desc.name);
		static const struct setup_run run = { ms4525_setup_poll, ms4525_setup_next };
		rc = run_setup(b, clk, &b->pitot, &run, &last);
		if (rc)
			return setup_error(dev, rc, last, "", err, err_len);
		b->pitot_slot = add_slot(b, dev, BOARD_IO_SENSOR_DIFF_PRESSURE,
					 BOARD_IO_SLOW_STALE_US);
		slot_running(b->pitot_slot, true);
		return 0;
	}
	case BOARD_DRV_PCA9685: {
		struct gpio_line *oe = NULL;
		if (drv->output_enable) {
			oe = devices_find(b->devs, drv->output_enable, BOARD_DEV_GPIO);
			if (!oe)
				FAIL("%s (%s): its output enable '%s' is not an open GPIO device",
				     dev->desc.name, dev->desc.what, drv->output_enable);
		}
		uint16_t hz = drv->pwm_hz ? drv->pwm_hz : PCA_DEFAULT_HZ;
		struct pca9685_config cfg = { .bus = bus, .addr = addr,
					      .ext_clock_hz = drv->ext_clock_hz,
					      .channel_offset = drv->channel_offset, .freq_hz = hz,
					      .output_enable = oe };
		if (b->pca_slot || b->rcout || pca9685_init(&b->pca, &cfg))
			FAIL("%s: a second servo output, or settings refused", dev->desc.name);
		static const struct setup_run run = { pca_setup_poll, pca_setup_next };
		rc = run_setup(b, clk, &b->pca, &run, &last);
		if (rc)
			return setup_error(dev, rc, last, " (prescaler read-back)", err, err_len);
		b->pca_slot = add_slot(b, dev, BOARD_IO_SENSOR_MOTOR_OUTPUTS, BOARD_IO_SLOW_STALE_US);
		slot_running(b->pca_slot, true);
		struct board_io_pca_out *p = &b->pca_out;
		p->base.ops = &pca_out_ops;
		p->base.channels = PCA9685_CHANNELS - drv->channel_offset;
		p->chip = &b->pca;
		p->rate_hz = hz;
		topic_init(&p->topic, p->words, sizeof(p->want));
		for (unsigned int ch = 0; ch < BOARD_IO_PCA_CHANNELS; ch++)
			atomic_init(&p->written[ch], 0);
		b->rcout = &p->base;
		return 0;
	}
	default:
		FAIL("%s (%s): driver %d does not sit on I2C", dev->desc.name, dev->desc.what,
		     drv->kind);
	}
}

static int open_baro(struct board_io *b, const struct device *dev, const struct board_io_clock *clk,
		     char *err, size_t err_len)
{
	struct ms5611_config cfg = { 0 };
	int rc = -EINVAL, last = 0;
	if (b->baro_slot)
		FAIL("%s: a second barometer", dev->desc.name);
	if (dev->desc.kind == BOARD_DEV_SPI) {
		cfg.bus.kind = CHIP_BUS_SPI;
		rc = chip_spi(b, dev, &cfg.bus.spi, err, err_len);
		if (rc)
			return rc;
	} else {
		cfg.bus.kind = CHIP_BUS_I2C;
		cfg.bus.i2c = dev->handle;
		cfg.bus.i2c_addr = dev->desc.u.i2c.addr ? dev->desc.u.i2c.addr : MS5611_I2C_ADDR;
	}
	rc = ms5611_init(&b->baro, &cfg);
	if (rc)
		FAIL("%s: barometer settings refused", dev->desc.name);
	static const struct setup_run run = { ms5611_setup_poll, ms5611_setup_next };
	rc = run_setup(b, clk, &b->baro, &run, &last);
	if (rc)
		return setup_error(dev, rc, last, " (reset and PROM read)", err, err_len);
	b->baro_slot = add_slot(b, dev, BOARD_IO_SENSOR_ABS_PRESSURE, BOARD_IO_SLOW_STALE_US);
	slot_running(b->baro_slot, true);
	return 0;
}

static int open_gps(struct board_io *b, const struct device *dev, char *err, size_t err_len)
{
	int rc = -EINVAL;
	struct board_io_gps *g = &b->gps;
	if (b->gps_slot)
		FAIL("%s: a second GPS", dev->desc.name);
	struct ublox_setup_config cfg = { .baud = dev->desc.drv.baud };
	if (dev->desc.kind == BOARD_DEV_SPI) {
		struct board_io_spi_uart *s = &b->spi_uart;
		s->u.ops = &spi_uart_ops;
		s->spi = dev->handle;
		ring_init(&s->rx, s->rx_storage, BOARD_IO_SPI_GPS_RING, 1);
		ring_init(&s->tx, s->tx_storage, BOARD_IO_SPI_GPS_RING, 1);
		g->uart = &s->u;
		g->on_spi = true;
		cfg.start_baud = cfg.baud = 115200;
		cfg.port = 4;  /* the receiver's SPI port */
	} else if (dev->desc.kind == BOARD_DEV_UART) {
		g->uart = dev->handle;
		cfg.start_baud = dev->desc.u.uart.cfg.baud;
	} else {
		FAIL("%s (%s): a u-blox on neither a UART nor SPI", dev->desc.name, dev->desc.what);
	}
	rc = ublox_setup_init(&g->setup, &cfg);
	if (rc)
		FAIL("%s: u-blox settings refused", dev->desc.name);
	ubx_parser_init(&g->ubx);
	nmea_parser_init(&g->nmea);
	g->hub = b->hub;
	b->gps_slot = add_slot(b, dev, BOARD_IO_SENSOR_GPS, BOARD_IO_GPS_STALE_US);
	g->slot = b->gps_slot;
	return 0;
}

static int open_rcin(struct board_io *b, const struct device *dev, char *err, size_t err_len)
{
	const struct board_driver *drv = &dev->desc.drv;
	int rc = -EINVAL;
	if (b->rc_slot)
		FAIL("%s: a second RC input", dev->desc.name);
	switch (drv->kind) {
	case BOARD_DRV_RCIN:
		if (dev->desc.kind == BOARD_DEV_MMIO && drv->rcin_mmio)
			rc = drv->rcin_mmio(dev->handle, drv->mmio_off, &b->rcin);
		else if (dev->desc.kind == BOARD_DEV_GPIO && drv->rcin_gpio)
			rc = drv->rcin_gpio(dev->handle, &b->rcin);
		if (rc)
			FAIL("%s (%s): RC capture: %s", dev->desc.name, dev->desc.what,
			     strerror(-rc));
		rc_input_init(&b->rc);
		break;
	case BOARD_DRV_RCIN_SBUS:
	case BOARD_DRV_RCIN_DSM:
		if (dev->desc.kind != BOARD_DEV_UART)
			FAIL("%s (%s): SBUS/DSM bytes need a UART", dev->desc.name, dev->desc.what);
		b->rc_uart = dev->handle;
		b->rc_uart_kind = drv->kind;
		rc_sbus_init(&b->rc_sbus, false);
		rc_dsm_init(&b->rc_dsm, false);
		break;
	default:
		FAIL("%s: not an RC input", dev->desc.name);
	}
	b->rc_slot = add_slot(b, dev, BOARD_IO_SENSOR_RC_RECEIVER, BOARD_IO_SLOW_STALE_US);
	return 0;
}

static int open_rcout(struct board_io *b, const struct device *dev, char *err, size_t err_len)
{
	const struct board_driver *drv = &dev->desc.drv;
	int rc = -EINVAL;
	if (b->rcout)
		FAIL("%s: a second servo output", dev->desc.name);
	if (dev->desc.kind != BOARD_DEV_MMIO || !drv->rcout_mmio)
		FAIL("%s (%s): servo outputs need an MMIO window and a backend", dev->desc.name,
		     dev->desc.what);
	rc = drv->rcout_mmio(dev->handle, drv->mmio_off, &b->rcout_mmio);
	if (rc)
		FAIL("%s (%s): servo outputs: %s", dev->desc.name, dev->desc.what, strerror(-rc));
	if (drv->pwm_hz)
		rcout_set_rate(b->rcout_mmio, UINT32_MAX, drv->pwm_hz);
	b->rcout = b->rcout_mmio;
	b->rcout_slot = add_slot(b, dev, BOARD_IO_SENSOR_MOTOR_OUTPUTS, 0);
	slot_running(b->rcout_slot, true);
	return 0;
}

static int open_battery(struct board_io *b, const struct device *dev, char *err, size_t err_len)
{
	int rc = -EINVAL;
	if (dev->desc.drv.kind == BOARD_DRV_BATT_VOLT) {
		if (b->batt_v)
			FAIL("%s: a second battery voltage", dev->desc.name);
		b->batt_v = dev->handle;
		b->batt_v_board = dev->desc.drv.scale > 0.0f ? dev->desc.drv.scale : 1.0f;
		b->batt_slot = add_slot(b, dev, BOARD_IO_SENSOR_BATTERY, BOARD_IO_SLOW_STALE_US);
	} else {
		if (b->batt_i)
			FAIL("%s: a second battery current", dev->desc.name);
		b->batt_i = dev->handle;
		b->batt_i_board = dev->desc.drv.scale > 0.0f ? dev->desc.drv.scale : 1.0f;
	}
	return 0;
}

int board_io_open(struct board_io *b, struct devices *devs, struct sensor_hub *hub,
		  const struct board_io_clock *clk, char *err, size_t err_len)
{
	memset(b, 0, sizeof(*b));
	b->devs = devs;
	b->hub = hub;
	if (!clk)
		clk = &mono_clock;
	b->p_volt_mult = param_find("BATT_VOLT_MULT");
	b->p_amp_pervlt = param_find("BATT_AMP_PERVLT");
	b->p_amp_offset = param_find("BATT_AMP_OFFSET");
	int rc = 0;
	/* IMUs first: the magnetometer bits depend on whether one carries an AK8963. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (unsigned int i = 0; i < devs->n && !rc; i++) {
			const struct device *dev = &devs->dev[i];
			enum board_driver_kind k = dev->desc.drv.kind;
			bool is_imu = k == BOARD_DRV_MPU6000 || k == BOARD_DRV_MPU9250;
			if (k == BOARD_DRV_NONE || dev->disabled || !dev->handle ||
			    is_imu != (pass == 0))
				continue;
			if (b->n_slots >= BOARD_IO_MAX_SLOTS - 1) {
				snprintf(err, err_len, "board %s: more than %d driven devices",
					 devs->board->name, BOARD_IO_MAX_SLOTS - 1);
				rc = -E2BIG;
				break;
			}
			switch (k) {
			case BOARD_DRV_MPU6000:
			case BOARD_DRV_MPU9250:
				rc = open_mpu(b, dev, clk, err, err_len);
				break;
			case BOARD_DRV_MS5611:
				rc = open_baro(b, dev, clk, err, err_len);
				break;
			case BOARD_DRV_HMC5883L:
			case BOARD_DRV_AK8963:
			case BOARD_DRV_MS4525:
			case BOARD_DRV_PCA9685:
				rc = dev->desc.kind == BOARD_DEV_I2C ?
				     open_i2c_chip(b, dev, clk, err, err_len) : -EINVAL;
				if (rc == -EINVAL && dev->desc.kind != BOARD_DEV_I2C)
					snprintf(err, err_len, "%s (%s): the %s sits on I2C",
						 dev->desc.name, dev->desc.what,
						 kind_chip(k));
				break;
			case BOARD_DRV_UBLOX:
				rc = open_gps(b, dev, err, err_len);
				break;
			case BOARD_DRV_RCIN:
			case BOARD_DRV_RCIN_SBUS:
			case BOARD_DRV_RCIN_DSM:
				rc = open_rcin(b, dev, err, err_len);
				break;
			case BOARD_DRV_RCOUT:
				rc = open_rcout(b, dev, err, err_len);
				break;
			case BOARD_DRV_BATT_VOLT:
			case BOARD_DRV_BATT_CURR:
				rc = open_battery(b, dev, err, err_len);
				break;
			case BOARD_DRV_BUZZER:
				if (dev->desc.kind != BOARD_DEV_GPIO || b->tone.line) {
					snprintf(err, err_len, "%s (%s): a buzzer is one GPIO line",
						 dev->desc.name, dev->desc.what);
					rc = -EINVAL;
					break;
				}
				b->tone.line = dev->handle;
				b->tone.hub = hub;
				b->tone.armed_fn = flight_armed;
				b->tone.p_low_volt = param_find("FS_BATT_VOLTAGE");
				break;
			case BOARD_DRV_NONE:
			case BOARD_DRV_COUNT:
				break;
			}
		}
	}
	if (!rc && b->batt_i && !b->batt_v) {
		snprintf(err, err_len, "board %s: a battery current input without a voltage one",
			 devs->board->name);
		rc = -EINVAL;
	}
	if (rc) {
		b->opened = true;
		board_io_close(b);
		return rc;
	}
	b->opened = true;
	return 0;
}

size_t board_io_tasks(struct board_io *b, struct sched_task *out, size_t max)
{
	struct sched_task t[16];
	size_t n = 0;
	if (b->n_imu > 0)
		t[n++] = (struct sched_task){ "imu", SCHED_TIMER, 0, imu_task, b };
	if (b->n_imu > 1)
		t[n++] = (struct sched_task){ "imu2", SCHED_TIMER, 200, imu2_task, b };
	if (b->baro_slot)
		t[n++] = (struct sched_task){ "baro", SCHED_TIMER, 0, baro_task, b };
	if (b->hmc_slot || b->ak_slot)
		t[n++] = (struct sched_task){ "mag", SCHED_TIMER, 100, mag_task, b };
	if (b->pitot_slot)
		t[n++] = (struct sched_task){ "airspeed", SCHED_TIMER, 100, pitot_task, b };
	if (b->pca_slot)
		t[n++] = (struct sched_task){ "pwm-out", SCHED_TIMER, 0, pca_task, b };
	if (b->gps_slot && b->gps.on_spi)
		t[n++] = (struct sched_task){ "gps-spi", SCHED_TIMER, 100, spi_gps_task, b };
	if (b->gps_slot)
		t[n++] = (struct sched_task){ "gps", SCHED_UART, 0, gps_task, &b->gps };
	if (b->rcin)
		t[n++] = (struct sched_task){ "rcin", SCHED_RCIN, 0, rcin_task, b };
	if (b->rc_uart)
		t[n++] = (struct sched_task){ "rcin-uart", SCHED_RCIN, 0, rc_uart_task, b };
	if (b->batt_v)
		t[n++] = (struct sched_task){ "battery", SCHED_IO, 10, battery_task, b };
	if (b->tone.line)
		t[n++] = (struct sched_task){ "tone", SCHED_TONE, 0, tone_task, &b->tone };
	if (n > max)
		n = max;
	memcpy(out, t, n * sizeof(t[0]));
	return n;
}

int board_io_add_tasks(struct board_io *b, struct sched *s)
{
	struct sched_task t[16];
	size_t n = board_io_tasks(b, t, 16);
	for (size_t i = 0; i < n; i++) {
		int rc = sched_add_task(s, &t[i]);
		if (rc)
			return rc;
	}
	return 0;
}

struct rcout *board_io_rcout(struct board_io *b)
{
	return b->rcout;
}

void board_io_close(struct board_io *b)
{
	if (!b->opened)
		return;
	if (b->pca_slot) {
		/* Outputs off: every channel full-off, then the output-enable line. */
		for (unsigned int ch = 0; ch < b->pca_out.base.channels; ch++)
			pca9685_write_us(&b->pca, ch, 0);
		pca9685_set_outputs_enabled(&b->pca, false);
	}
	rcout_close(b->rcout_mmio);
	rcin_close(b->rcin);
	if (b->tone.line)
		gpio_set(b->tone.line, 0);
	b->rcout_mmio = NULL;
	b->rcout = NULL;
	b->rcin = NULL;
	b->opened = false;
}

/* ---- status ----------------------------------------------------------------------------- */

static bool slot_healthy(const struct board_io_slot *s, uint64_t now_us)
{
	if (!atomic_load_explicit(&s->running, memory_order_relaxed))
		return false;
	if (!s->stale_us)
		return true;
	uint64_t t = atomic_load_explicit(&s->last_ok_us, memory_order_relaxed);
	return t != 0 && (now_us <= t || now_us - t <= s->stale_us);
}

void board_io_sensor_bits(const struct board_io *b, uint64_t now_us, uint32_t *present,
			  uint32_t *enabled, uint32_t *healthy)
{
	uint32_t p = 0, h = 0, bad = 0;
	for (unsigned int i = 0; i < b->n_slots; i++) {
		const struct board_io_slot *s = &b->slot[i];
		p |= s->bits;
		if (slot_healthy(s, now_us))
			h |= s->bits;
		else
			bad |= s->bits;
	}
	*present = p;
	*enabled = p;
	*healthy = h & ~bad;
}

size_t board_io_status(const struct board_io *b, uint64_t now_us, struct board_io_status *out,
		       size_t max)
{
	size_t n = 0;
	for (unsigned int i = 0; i < b->n_slots && n < max; i++, n++) {
		const struct board_io_slot *s = &b->slot[i];
		out[n] = (struct board_io_status){
			.name = s->label,
			.what = s->dev->desc.what,
			.kind = s->kind,
			.samples = atomic_load_explicit(&s->samples, memory_order_relaxed),
			.errors = atomic_load_explicit(&s->errors, memory_order_relaxed),
			.last_ok_us = atomic_load_explicit(&s->last_ok_us, memory_order_relaxed),
			.running = atomic_load_explicit(&s->running, memory_order_relaxed),
			.healthy = slot_healthy(s, now_us),
		};
	}
	return n;
}
