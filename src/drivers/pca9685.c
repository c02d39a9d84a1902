// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Registers and sequences: PCA9685 product data sheet (NXP, rev. 4):
 * 7.3.1 MODE1 (restart, EXTCLK), 7.3.3 LED output and PWM control,
 * 7.3.5 PRE_SCALE.
 */
#include "drivers/pca9685.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/rcout.h"
#include "util/topic.h"

#define REG_MODE1 0x00
#define REG_MODE2 0x01
#define REG_LED0_ON_L 0x06
#define REG_ALL_LED_ON_L 0xfa
#define REG_PRE_SCALE 0xfe

#define MODE1_RESTART 0x80
#define MODE1_EXTCLK 0x40
#define MODE1_AI 0x20
#define MODE1_SLEEP 0x10
#define MODE2_OUTDRV 0x04        /* totem-pole outputs */
#define LED_FULL 0x10            /* bit 4 of LEDn_ON_H / LEDn_OFF_H */

#define PRESCALE_MIN 3
#define PRESCALE_MAX 255
#define COUNTS_MAX 4095u

/* The oscillator needs 500 us after SLEEP is cleared (7.3.1.1). */
#define OSC_WAIT_US 500u
#define RETRY_US 10000u
#define SETUP_TRIES 5

enum pca9685_state {
	PCA_STATE_SLEEP = 1,
	PCA_STATE_PRESCALE,
	PCA_STATE_WAKE,
	PCA_STATE_RESTART,
	PCA_STATE_VERIFY,
	PCA_STATE_READY,
	PCA_STATE_FAILED,
};

uint32_t pca9685_prescale_for(uint32_t osc_hz, uint32_t freq_hz)
{
	uint64_t d = 4096ull * freq_hz;

	return (uint32_t)((osc_hz + d - 1) / d) - 1;
}

uint16_t pca9685_us_to_counts(uint32_t osc_hz, uint8_t prescale, uint32_t pulse_us)
{
	uint64_t den = (uint64_t)(prescale + 1u) * 1000000u;
	uint64_t counts = ((uint64_t)pulse_us * osc_hz + den / 2) / den;

	return (uint16_t)(counts > COUNTS_MAX ? COUNTS_MAX : counts);
}

int pca9685_init(struct pca9685 *p, const struct pca9685_config *cfg)
{
	if (!cfg->bus || cfg->channel_offset >= PCA9685_CHANNELS)
		return -EINVAL;
	uint32_t clock = cfg->ext_clock_hz ? cfg->ext_clock_hz
			 : (cfg->osc_hz ? cfg->osc_hz : PCA9685_INTERNAL_OSC_HZ);
	uint32_t freq = cfg->freq_hz ? cfg->freq_hz : 50;
	uint32_t prescale = pca9685_prescale_for(clock, freq);
	if (prescale < PRESCALE_MIN || prescale > PRESCALE_MAX)
		return -EINVAL;

	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->cfg.freq_hz = (uint16_t)freq;
	if (!p->cfg.addr)
		p->cfg.addr = PCA9685_I2C_ADDR;
	p->clock_hz = clock;
	p->prescale = (uint8_t)prescale;
	p->mode1 = MODE1_AI | (cfg->ext_clock_hz ? MODE1_EXTCLK : 0);
	p->state = PCA_STATE_SLEEP;
	p->stats.setups = 1;
	return 0;
}

static int pca_write(struct pca9685 *p, const uint8_t *tx, size_t len)
{
	int err = i2c_write(p->cfg.bus, p->cfg.addr, tx, len);

	if (err)
		p->stats.bus_errors++;
	return err;
}

static int pca_write_reg(struct pca9685 *p, uint8_t reg, uint8_t val)
{
	const uint8_t tx[2] = { reg, val };

	return pca_write(p, tx, 2);
}

static int pca_set_oe(struct pca9685 *p, bool on)
{
	if (!p->cfg.output_enable)
		return 0;
	int err = gpio_set(p->cfg.output_enable, on ? 1 : 0);
	if (err)
		p->stats.gpio_errors++;
	return err;
}

static int pca_step_sleep(struct pca9685 *p)
{
	/* Outputs off at the pin first, then every channel full-off (ALL_LED_OFF_H bit 4). */
	const uint8_t all_off[5] = { REG_ALL_LED_ON_L, 0, 0, 0, LED_FULL };
	int err = pca_set_oe(p, false);

	if (!err)
		err = pca_write_reg(p, REG_MODE1, (uint8_t)(p->mode1 & ~MODE1_EXTCLK) | MODE1_SLEEP);
	if (!err)
		err = pca_write(p, all_off, sizeof(all_off));
	return err;
}

static int pca_step_prescale(struct pca9685 *p)
{
	int err = pca_write_reg(p, REG_PRE_SCALE, p->prescale);

	/* EXTCLK: set SLEEP, then SLEEP and EXTCLK together (7.3.1, EXTCLK bit). */
	if (!err && p->cfg.ext_clock_hz)
		err = pca_write_reg(p, REG_MODE1, MODE1_SLEEP | MODE1_EXTCLK | MODE1_AI);
	if (!err)
		err = pca_write_reg(p, REG_MODE2, MODE2_OUTDRV);
	return err;
}

static int pca_step_verify(struct pca9685 *p, uint64_t now_us)
{
	uint8_t reg = REG_PRE_SCALE, prescale;
	int err = i2c_write_read(p->cfg.bus, p->cfg.addr, &reg, 1, &prescale, 1);

	if (err) {
		p->stats.bus_errors++;
		return err;
	}
	if (prescale != p->prescale) {
		/* Written while awake, or the chip was reset under us: from the top. */
		p->stats.config_errors++;
		if (++p->attempts >= SETUP_TRIES) {
			p->state = PCA_STATE_FAILED;
			return -ENODEV;
		}
		p->state = PCA_STATE_SLEEP;
		p->next_us = now_us;
		p->stats.setups++;
		return 0;
	}
	err = pca_set_oe(p, true);
	if (err)
		return err;
	p->attempts = 0;
	p->state = PCA_STATE_READY;
	return 1;
}

int pca9685_poll(struct pca9685 *p, uint64_t now_us)
{
	int err = 0, next = p->state;
	uint32_t wait_us = 0;

	if (p->state == PCA_STATE_READY)
		return 1;
	if (p->state == PCA_STATE_FAILED)
		return -ENODEV;
	if (now_us < p->next_us)
		return 0;
	switch (p->state) {
	case PCA_STATE_SLEEP:
		err = pca_step_sleep(p);
		next = PCA_STATE_PRESCALE;
		break;
	case PCA_STATE_PRESCALE:
		err = pca_step_prescale(p);
		next = PCA_STATE_WAKE;
		break;
	case PCA_STATE_WAKE:
		err = pca_write_reg(p, REG_MODE1, p->mode1);
		next = PCA_STATE_RESTART;
		wait_us = OSC_WAIT_US;
		break;
	case PCA_STATE_RESTART:
		/* Restarts PWM channels that ran before the sleep (7.3.1.1); harmless otherwise. */
		err = pca_write_reg(p, REG_MODE1, p->mode1 | MODE1_RESTART);
		next = PCA_STATE_VERIFY;
		break;
	case PCA_STATE_VERIFY:
		err = pca_step_verify(p, now_us);
		if (err < 0)
			p->next_us = now_us + RETRY_US;
		return err;
	}
	if (err) {
		p->next_us = now_us + RETRY_US;
		return err;
	}
	p->state = next;
	p->next_us = now_us + wait_us;
	return 0;
}

bool pca9685_is_ready(const struct pca9685 *p)
{
	return p->state == PCA_STATE_READY;
}

uint64_t pca9685_next_poll_us(const struct pca9685 *p)
{
	return p->next_us;
}

/* The four LEDn bytes of one channel: on at 0, off after counts, or full-off for 0 us. */
static void pca_channel_bytes(const struct pca9685 *p, uint16_t pulse_us, uint8_t out[4])
{
	uint16_t counts = pulse_us ? pca9685_us_to_counts(p->clock_hz, p->prescale, pulse_us) : 0;

	out[0] = 0;
	out[1] = 0;
	/* ON and OFF equal is not allowed (7.3.4): a pulse too short for one count is full-off. */
	out[2] = (uint8_t)counts;
	out[3] = counts ? (uint8_t)(counts >> 8) : LED_FULL;
}

int pca9685_write_range_us(struct pca9685 *p, unsigned int first, const uint16_t *pulse_us,
			   size_t n)
{
	uint8_t tx[1 + 4 * PCA9685_CHANNELS];

	if (p->state != PCA_STATE_READY)
		return -EAGAIN;
	if (n == 0 || first + n + p->cfg.channel_offset > PCA9685_CHANNELS)
		return -EINVAL;
	tx[0] = (uint8_t)(REG_LED0_ON_L + 4 * (first + p->cfg.channel_offset));
	for (size_t i = 0; i < n; i++)
		pca_channel_bytes(p, pulse_us[i], &tx[1 + 4 * i]);
	int err = pca_write(p, tx, 1 + 4 * n);
	if (!err)
		p->stats.writes++;
	return err;
}

int pca9685_write_us(struct pca9685 *p, unsigned int ch, uint16_t pulse_us)
{
	uint8_t bytes[4], tx[3];

	if (p->state != PCA_STATE_READY)
		return -EAGAIN;
	if (ch + p->cfg.channel_offset >= PCA9685_CHANNELS)
		return -EINVAL;
	/* LEDn_ON stays 0 from set-up: only the two OFF bytes go out (fewer bytes on the bus). */
	pca_channel_bytes(p, pulse_us, bytes);
	tx[0] = (uint8_t)(REG_LED0_ON_L + 4 * (ch + p->cfg.channel_offset) + 2);
	tx[1] = bytes[2];
	tx[2] = bytes[3];
	int err = pca_write(p, tx, 3);
	if (!err)
		p->stats.writes++;
	return err;
}

int pca9685_set_outputs_enabled(struct pca9685 *p, bool on)
{
	return pca_set_oe(p, on);
}

float pca9685_freq_hz(const struct pca9685 *p)
{
	return (float)p->clock_hz / (4096.0f * (float)(p->prescale + 1));
}

uint8_t pca9685_prescale(const struct pca9685 *p)
{
	return p->prescale;
}

const struct pca9685_stats *pca9685_stats(const struct pca9685 *p)
{
	return &p->stats;
}

/*
 * ---- as a board device (driver.h): servo outputs on I2C ----
 * Main publishes the pulse widths in a seqlocked topic; the timer thread,
 * which owns the I2C bus (on the Navio it shares it with the barometer),
 * writes the chip.
 */

#define PCA_DEFAULT_HZ 50

struct pca_out {
	struct rcout base;                          /* first: flight code sees this */
	struct pca9685 chip;
	struct pca9685_config cfg;                  /* as probed (read-only after) */
	uint16_t rate_hz;                           /* main's: the rate asked for last */
	_Atomic uint16_t rate_req_hz;               /* main -> timer: the prescaler wanted */
	uint16_t chip_hz;                           /* timer's: the rate the chip was set up at */
	bool rerating;                              /* timer's: set-up running again for it */
	uint16_t want[PCA9685_CHANNELS];            /* main's */
	struct topic topic;                         /* main -> timer: want[] */
	_Atomic uint32_t words[TOPIC_WORDS(uint16_t[PCA9685_CHANNELS])];
	uint16_t pending[PCA9685_CHANNELS];         /* timer's copy of the topic */
	uint32_t seen_gen;                          /* timer */
	unsigned int next_ch;                       /* timer: round robin */
	_Atomic uint16_t written[PCA9685_CHANNELS]; /* what the chip was given (timer) */
};

/*
 * One prescaler for all 16 outputs: a new rate is every channel's, whatever
 * the mask. It is set while every output is off (start-up, before arming):
 * the timer thread runs the chip's set-up again for it (sleep, prescaler,
 * restart), which turns every channel off. -EBUSY while a channel produces
 * pulses, -EINVAL for a rate the prescaler cannot make.
 */
static int pca_out_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	struct pca_out *p = (struct pca_out *)(void *)out;
	(void)mask;
	if (rate_hz == p->rate_hz)
		return 0;
	struct pca9685 check;
	struct pca9685_config cfg = p->cfg;
	cfg.freq_hz = rate_hz;
	if (!rate_hz || pca9685_init(&check, &cfg))
		return -EINVAL;
	for (unsigned int ch = 0; ch < out->channels; ch++)
		if (p->want[ch])
			return -EBUSY;
	p->rate_hz = rate_hz;
	atomic_store_explicit(&p->rate_req_hz, rate_hz, memory_order_release);
	return 0;
}

static int pca_out_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct pca_out *p = (struct pca_out *)(void *)out;
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
	struct pca_out *p = (struct pca_out *)(void *)out;
	if (ch >= out->channels)
		return -EINVAL;
	*pulse_us = atomic_load_explicit(&p->written[ch], memory_order_relaxed);
	return 0;
}

static void pca_out_close(struct rcout *out)
{
	(void)out;  /* the device's close turns the chip's outputs off */
}

static const struct rcout_ops pca_out_ops = {
	.set_rate = pca_out_set_rate,
	.write = pca_out_write,
	.read = pca_out_read,
	.close = pca_out_close,
};

static int pca_dev_probe(struct drv_inst *d, char *err, size_t err_len)
{
	struct pca_out *p = d->priv;
	const struct board_driver *s = &d->desc->drv;
	struct gpio_line *oe = NULL;
	if (s->output_enable) {
		oe = d->host->find(d->host->ctx, s->output_enable, BOARD_DEV_GPIO);
		if (!oe) {
			snprintf(err, err_len, "%s (%s): its output enable '%s' is not an open GPIO "
				 "device", d->desc->name, d->desc->what, s->output_enable);
			return -EINVAL;
		}
	}
	p->rate_hz = s->pwm_hz ? s->pwm_hz : PCA_DEFAULT_HZ;
	p->chip_hz = p->rate_hz;
	atomic_init(&p->rate_req_hz, p->rate_hz);
	struct pca9685_config cfg = { .bus = d->handle, .addr = d->desc->u.i2c.addr,
				      .ext_clock_hz = s->ext_clock_hz,
				      .channel_offset = s->channel_offset, .freq_hz = p->rate_hz,
				      .output_enable = oe };
	if (pca9685_init(&p->chip, &cfg)) {
		snprintf(err, err_len, "%s: PCA9685 settings refused", d->desc->name);
		return -EINVAL;
	}
	p->cfg = cfg;
	p->base.ops = &pca_out_ops;
	p->base.channels = PCA9685_CHANNELS - s->channel_offset;
	topic_init(&p->topic, p->words, sizeof(p->want));
	for (unsigned int ch = 0; ch < PCA9685_CHANNELS; ch++)
		atomic_init(&p->written[ch], 0);
	return 0;
}

static int pca_dev_setup(struct drv_inst *d, uint64_t now_us)
{
	return pca9685_poll(&((struct pca_out *)d->priv)->chip, now_us);
}

static uint64_t pca_dev_next(const struct drv_inst *d)
{
	return pca9685_next_poll_us(&((const struct pca_out *)d->priv)->chip);
}

static void pca_dev_detail(const struct drv_inst *d, char *buf, size_t len)
{
	(void)d;
	snprintf(buf, len, " (prescaler read-back)");
}

/*
 * Timer thread, every wake: at most one changed channel per wake (a 3-byte
 * write, about 0.4 ms at 100 kHz), round robin, so a wake never holds the
 * bus longer than that. Eight changing channels are all rewritten every 8 ms,
 * faster than the 20 ms PWM period.
 */
/* Timer thread: the chip's set-up run again for a new rate (pca_out_set_rate).
 * True while it runs (the channels wait). */
static bool pca_rerate(struct drv_inst *d, struct pca_out *p, uint64_t now_us)
{
	uint16_t want = atomic_load_explicit(&p->rate_req_hz, memory_order_acquire);
	if (want == p->chip_hz && !p->rerating)
		return false;
	if (!p->rerating) {
		struct pca9685_config cfg = p->cfg;
		cfg.freq_hz = want;
		struct pca9685_stats kept = p->chip.stats;
		if (pca9685_init(&p->chip, &cfg)) {
			p->chip_hz = want;   /* checked by set_rate: cannot happen */
			drv_error(d->slot);
			return false;
		}
		p->chip.stats = kept;
		p->rerating = true;
	}
	int rc = pca9685_poll(&p->chip, now_us);
	if (rc < 0) {
		drv_error(d->slot);
		return true;
	}
	if (rc == 1) {
		/* set-up leaves every channel off: what main wants is written anew */
		p->rerating = false;
		p->chip_hz = want;
		for (unsigned int ch = 0; ch < PCA9685_CHANNELS; ch++)
			atomic_store_explicit(&p->written[ch], 0, memory_order_relaxed);
	}
	return true;
}

static void pca_task(void *ctx, uint64_t now_us)
{
	struct drv_inst *d = ctx;
	struct pca_out *p = d->priv;
	if (pca_rerate(d, p, now_us))
		return;
	uint32_t gen = topic_generation(&p->topic);
	if (gen != p->seen_gen)
		p->seen_gen = topic_read(&p->topic, p->pending);
	unsigned int n = p->base.channels;
	for (unsigned int k = 0; k < n; k++) {
		unsigned int ch = (p->next_ch + k) % n;
		if (p->pending[ch] == atomic_load_explicit(&p->written[ch], memory_order_relaxed))
			continue;
		p->next_ch = (ch + 1) % n;
		if (pca9685_write_us(&p->chip, ch, p->pending[ch])) {
			drv_error(d->slot);
			return;
		}
		atomic_store_explicit(&p->written[ch], p->pending[ch], memory_order_relaxed);
		drv_ok(d->slot, now_us, 1);
		return;
	}
	/* Nothing changed: the chip keeps producing; count it as alive. */
	drv_alive(d->slot, now_us);
}

static size_t pca_dev_tasks(struct drv_inst *d, struct sched_task out[2])
{
	return drv_task(d, out, 0, NULL, SCHED_TIMER, 0, pca_task);
}

static struct rcout *pca_dev_outputs(struct drv_inst *d)
{
	return &((struct pca_out *)d->priv)->base;
}

/* Outputs off: every channel full-off, then the output-enable line. */
static void pca_dev_close(struct drv_inst *d)
{
	struct pca_out *p = d->priv;
	if (!pca9685_is_ready(&p->chip))
		return;
	for (unsigned int ch = 0; ch < p->base.channels; ch++)
		pca9685_write_us(&p->chip, ch, 0);
	pca9685_set_outputs_enabled(&p->chip, false);
}

const struct driver pca9685_driver = {
	.name = "PCA9685", .buses = DRV_BUS(BOARD_DEV_I2C), .role = "servo output", .pass = 1,
	.priv_size = sizeof(struct pca_out),
	.probe = pca_dev_probe, .setup = pca_dev_setup, .next_us = pca_dev_next,
	.setup_detail = pca_dev_detail,
	.bits = DRV_SENSOR_MOTOR_OUTPUTS, .stale_us = DRV_SLOW_STALE_US, .running_at_start = true,
	.tasks = pca_dev_tasks, .outputs = pca_dev_outputs, .close = pca_dev_close,
};
