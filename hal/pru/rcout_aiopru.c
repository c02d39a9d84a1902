// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 12 PWM outputs from the AioPRU firmware on PRU1 (BBBMINI; see hal_pru.h),
 * through a block at the start of PRU1's data RAM, all 32-bit words, times in
 * ticks of the 200 MHz PRU-ICSS clock (200 per us):
 *
 *   0          enable mask, bit n = channel n
 *   4 + 8n     channel n's high time
 *   8 + 8n     channel n's period
 *
 * What the firmware does with it (RcAioPRU.p), which shapes everything below:
 *   - each channel runs on events against the PRU-ICSS's IEP counter. At a
 *     rising event it reads the high time and sets the next event that far
 *     on, and drives the pin high only if the high time is not 0 and the
 *     channel's bit is set in the enable mask. At a falling event it drives
 *     the pin low and sets the next event (period - high time) on, both read
 *     again then.
 *   - so the enable bit is looked at only at a rising edge: clearing it lets
 *     the pulse in progress end at its width and sends no more. A width
 *     changed during a pulse stretches or shortens that one period by the
 *     change, and cuts no pulse.
 *   - a high time of 0 sends no pulse, and the channel then looks at its
 *     words on every pass of the loop; with a high time but the enable bit
 *     clear it looks again a high time later. So a channel switched on starts
 *     within one width of the write. The width is written before the enable
 *     bit, so that the bit never meets a stale width.
 *   - a high time at or above the period makes period - high wrap: the pin
 *     then stays low for one pass of the loop only. A width must be below its
 *     channel's period, or it is refused.
 *   - the firmware answers nothing: no read-back, no acknowledgement, no sign
 *     that it runs. rcout_read gives what the block asks of it.
 *   - its start-up sets every period to 20 ms, every high time to 0 and the
 *     mask to 0. A firmware restarted under us turns everything off and
 *     forgets the rates: a write that finds the mask not as we left it, or
 *     the period of the channel it switches on changed, puts the periods and
 *     the mask back.
 *   - this version has no failsafe: if fulmard dies without closing, the
 *     outputs go on at their last widths (the variant with a failsafe word is
 *     not supported, hal_pru.h).
 * ArduPilot's host code switches a channel off with "mask &= !bit", a logical
 * not, which clears the whole mask; here a channel goes off alone.
 *
 * Channel n is the firmware's channel n + 1. Its BBBMINI build drives them on
 * these pins of PRU1's output register R30 (RcAioPRU.p's BBBMINI pin table;
 * the cape's overlay BB-BBBMINI-00A0.dts muxes each pad in mode 5,
 * pr1_pru1_pru_r30_N; the cape's hardware.md and netlist put them on P8):
 *
 *   ch   header  R30 bit  pad         ch   header  R30 bit  pad
 *   0    P8.28   10       0x0e8       6    P8.42   5        0x0b4
 *   1    P8.27   8        0x0e0       7    P8.41   4        0x0b0
 *   2    P8.30   11       0x0ec       8    P8.44   3        0x0ac
 *   3    P8.29   9        0x0e4       9    P8.43   2        0x0a8
 *   4    P8.40   7        0x0bc       10   P8.46   1        0x0a4
 *   5    P8.39   6        0x0b8       11   P8.45   0        0x0a0
 *
 * The BeagleBone Blue's build of the same program drives channels 0..7 only,
 * on other R30 bits; there 8..11 are words nobody reads, and
 * rcout_aiopru_blue_open offers 8 outputs.
 */
#include "pru/hal_pru.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#define ALL_ONES 0xFFFFFFFFu

#define OFF_ENABLE 0u
#define OFF_HIGH(ch) (4u + 8u * (size_t)(ch))
#define OFF_PERIOD(ch) (8u + 8u * (size_t)(ch))

#define TICKS_PER_US 200u
#define TICKS_PER_S 200000000u
#define RATE_DEFAULT_HZ 50u

struct rcout_aiopru {
	struct rcout out;           /* first: the HAL hands out &out */
	struct mmio *win;
	size_t off;
	uint32_t enable;            /* the mask as we last wrote it */
	uint32_t period[RCOUT_AIOPRU_CHANNELS];  /* ticks */
	uint32_t high[RCOUT_AIOPRU_CHANNELS];    /* ticks of the width written; 0 when off */
};

static struct rcout_aiopru *rcout_aiopru_of(struct rcout *out)
{
	return (struct rcout_aiopru *)(void *)out;
}

static uint32_t blk_read(struct rcout_aiopru *r, size_t off)
{
	return mmio_read32(r->win, r->off + off);
}

static void blk_write(struct rcout_aiopru *r, size_t off, uint32_t v)
{
	mmio_write32(r->win, r->off + off, v);
}

/* After the firmware's start-up under us: our periods and mask again. */
static void rcout_aiopru_restore(struct rcout_aiopru *r)
{
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++)
		blk_write(r, OFF_PERIOD(ch), r->period[ch]);
	blk_write(r, OFF_ENABLE, r->enable);
}

static int rcout_aiopru_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	struct rcout_aiopru *r = rcout_aiopru_of(out);
	uint32_t ticks = TICKS_PER_S / rate_hz;

	/* All or nothing: a channel whose width would not fit holds the rest back. */
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++)
		if ((mask & (1u << ch)) && r->high[ch] >= ticks)
			return -EINVAL;
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++) {
		if (!(mask & (1u << ch)))
			continue;
		r->period[ch] = ticks;
		blk_write(r, OFF_PERIOD(ch), ticks);
	}
	return 0;
}

static int rcout_aiopru_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct rcout_aiopru *r = rcout_aiopru_of(out);
	uint32_t bit = 1u << ch;

	if (pulse_us == 0) {
		if (!(r->enable & bit) && r->high[ch] == 0)
			return 0;
		/* The bit first: the pulse in progress ends at its width, no other starts. */
		r->enable &= ~bit;
		blk_write(r, OFF_ENABLE, r->enable);
		r->high[ch] = 0;
		blk_write(r, OFF_HIGH(ch), 0);
		return 0;
	}
	uint32_t ticks = (uint32_t)pulse_us * TICKS_PER_US;
	if (ticks >= r->period[ch])
		return -EINVAL;
	blk_write(r, OFF_HIGH(ch), ticks);
	r->high[ch] = ticks;
	bool restarted = blk_read(r, OFF_ENABLE) != r->enable;
	if (!(r->enable & bit)) {
		/* Rare (a channel switched on), so a second read: a restart with the mask empty. */
		restarted = restarted || blk_read(r, OFF_PERIOD(ch)) != r->period[ch];
		r->enable |= bit;
		if (!restarted)
			blk_write(r, OFF_ENABLE, r->enable);
	}
	if (restarted)
		rcout_aiopru_restore(r);
	return 0;
}

static int rcout_aiopru_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	struct rcout_aiopru *r = rcout_aiopru_of(out);

	uint32_t enable = blk_read(r, OFF_ENABLE);
	if (enable == ALL_ONES)
		return -EIO;
	if (!(enable & (1u << ch))) {
		*pulse_us = 0;
		return 0;
	}
	uint32_t us = (blk_read(r, OFF_HIGH(ch)) + TICKS_PER_US / 2) / TICKS_PER_US;
	if (us > UINT16_MAX)
		return -EIO;
	*pulse_us = (uint16_t)us;
	return 0;
}

/* The mask first, as for one channel: pulses in progress end at their widths. */
static void rcout_aiopru_all_off(struct rcout_aiopru *r)
{
	r->enable = 0;
	blk_write(r, OFF_ENABLE, 0);
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++) {
		r->high[ch] = 0;
		blk_write(r, OFF_HIGH(ch), 0);
	}
}

static void rcout_aiopru_close(struct rcout *out)
{
	struct rcout_aiopru *r = rcout_aiopru_of(out);

	rcout_aiopru_all_off(r);
	free(r);
}

static const struct rcout_ops rcout_aiopru_ops = {
	.set_rate = rcout_aiopru_set_rate,
	.write = rcout_aiopru_write,
	.read = rcout_aiopru_read,
	.close = rcout_aiopru_close,
};

int rcout_aiopru_open(struct mmio *win, size_t off, struct rcout **out)
{
	size_t len = mmio_len(win);

	/* Whether PRU1 runs cannot be asked from this window (hal_pru.h). */
	if (off % 4 != 0 || off > len || len - off < RCOUT_AIOPRU_BYTES)
		return -EINVAL;
	if (mmio_read32(win, off + OFF_ENABLE) == ALL_ONES &&
	    mmio_read32(win, off + OFF_PERIOD(0)) == ALL_ONES)
		return -ENXIO;
	/*
	 * Nothing writes a period of 0: the firmware's start-up writes 20 ms,
	 * we write a rate's. A 0 is a block no AioPRU firmware has set up, or
	 * the failsafe variant's just after its start-up (its channel n + 1's
	 * width, 0, is where channel n's period is here).
	 */
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++)
		if (mmio_read32(win, off + OFF_PERIOD(ch)) == 0)
			return -EPROTO;

	struct rcout_aiopru *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->out.ops = &rcout_aiopru_ops;
	r->out.channels = RCOUT_AIOPRU_CHANNELS;
	r->win = win;
	r->off = off;
	/* Outputs a previous run left on go off before anything else. */
	rcout_aiopru_all_off(r);
	for (unsigned int ch = 0; ch < RCOUT_AIOPRU_CHANNELS; ch++) {
		r->period[ch] = TICKS_PER_S / RATE_DEFAULT_HZ;
		blk_write(r, OFF_PERIOD(ch), r->period[ch]);
	}
	*out = &r->out;
	return 0;
}

int rcout_aiopru_blue_open(struct mmio *win, size_t off, struct rcout **out)
{
	struct rcout *o;
	int rc = rcout_aiopru_open(win, off, &o);

	if (rc)
		return rc;
	static_assert(RCOUT_AIOPRU_BLUE_CHANNELS <= RCOUT_AIOPRU_CHANNELS, "a part of the block");
	o->channels = RCOUT_AIOPRU_BLUE_CHANNELS;
	*out = o;
	return 0;
}
