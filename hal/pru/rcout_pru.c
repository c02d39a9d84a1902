// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 12 PWM outputs from the BeagleBone PRU: the pwmpru1 firmware on PRU1 drives
 * R30 bits 0..11 (P8_27..P8_46) from a command block at the start of PRU
 * shared RAM, all 32-bit words, ticks of the 200 MHz PRU clock (200 per us):
 *
 *   0    magic        the ARM writes 0xF00FBAAF, the firmware 0xBAAFF00F
 *   4    enmask       PRU bits the ARM wants on
 *   8    offmsk       unused by the firmware
 *   12   periodhi[12][2]   [bit][0] period ticks, [bit][1] high ticks
 *   108  hilo_read[12][2]  firmware: [bit][0] next toggle time, [bit][1] high ticks
 *   204  enmask_read  firmware: the PRU bits it has on
 *
 * Logical channel ch is PRU bit chan_bit[ch] (the PXF's wiring).
 *
 * What the firmware does (Tools/Linux_HAL_Essentials/pru/pwmpru/pwmpru1.c),
 * which shapes everything below:
 *   - it reads the whole block on every pass of its loop, and a pass comes at
 *     every toggle of any output, at once when it finds magic == 0xF00FBAAF,
 *     and continuously while no output is on; it writes 0xBAAFF00F, hilo_read
 *     and enmask_read at the end of each pass. Writing the command magic is
 *     thus a "look now", and the reply magic says a pass has run.
 *   - a bit set in enmask that is not on yet turns the output on (it starts
 *     high); the period and high time are taken only for bits set in enmask.
 *   - a bit cleared in enmask does NOT turn the output off: the output goes on
 *     at its last width and ignores new ones. The firmware turns bit i off
 *     only in a pass that finds enmask == exactly (1 << i). (The 2015 ARM code
 *     cleared bits with "&= !bit", which zeroes the whole mask, and so never
 *     turned anything off either.) Hence:
 *       * enmask always carries ENMASK_GUARD, a bit no output uses (the
 *         firmware looks at bits 0..11 only), so that an enmask with a single
 *         output on never switches that output off by accident - without it
 *         one output alone would be switched on and off on every pass;
 *       * turning an output off is: enmask = (1 << i), wait until enmask_read
 *         shows it off, put the mask back. Until the mask is back the firmware
 *         switches that output on and off again within each pass (a spike of
 *         a few PRU cycles, tens of ns, on that pin); every other output runs
 *         on at its width meanwhile, taking no new ones.
 *   - high ticks of 0 do not stop the pulses (the output toggles twice at
 *     once and stays high), and high >= period underflows the low time, so a
 *     width must be below the period: 0 us goes through enmask, and a width
 *     that does not fit the channel's period is refused.
 *   - it clears enmask when it starts: a firmware restarted under us turns
 *     every output off (enmask_read says so) until the next width written
 *     puts the mask back.
 */
#include "pru/hal_pru.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define CMD_MAGIC 0xF00FBAAFu
#define REPLY_MAGIC 0xBAAFF00Fu
#define ALL_ONES 0xFFFFFFFFu

#define OFF_MAGIC 0u
#define OFF_ENMASK 4u
#define OFF_PERIODHI(bit) (12u + 8u * (size_t)(bit))
#define OFF_HILO_READ(bit) (108u + 8u * (size_t)(bit))
#define OFF_ENMASK_READ 204u

#define TICKS_PER_US 200u
#define TICKS_PER_S 200000000u
#define RATE_DEFAULT_HZ 50u
#define BITS_USED 0xFFFu
#define ENMASK_GUARD (1u << 31)

static const uint8_t chan_bit[RCOUT_PRU_CHANNELS] = {10, 8, 11, 9, 7, 6, 5, 4, 3, 2, 1, 0};

struct rcout_pru {
	struct rcout out;           /* first: the HAL hands out &out */
	struct mmio *win;
	size_t off;
	uint32_t enmask;            /* PRU bits we want on (without the guard) */
	uint32_t period[RCOUT_PRU_CHANNELS];  /* ticks, by logical channel */
	uint32_t high[RCOUT_PRU_CHANNELS];    /* ticks of the last width written */
	bool silent;                /* the firmware did not answer the last time we waited */
};

static struct rcout_pru *rcout_pru_of(struct rcout *out)
{
	return (struct rcout_pru *)(void *)out;
}

static uint32_t cmd_read(struct rcout_pru *r, size_t off)
{
	return mmio_read32(r->win, r->off + off);
}

static void cmd_write(struct rcout_pru *r, size_t off, uint32_t v)
{
	mmio_write32(r->win, r->off + off, v);
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * Waits until the block word at off, masked, equals want, asking the firmware
 * to look again whenever it has answered (our command magic can be overwritten
 * by the reply of a pass already under way). After a wait in vain the
 * firmware is taken for silent: later waits give up at once, leaving a
 * command behind, until a reply to it shows the firmware back. So a dead PRU
 * costs the caller RCOUT_PRU_ANSWER_US once, not on every call.
 */
static int rcout_pru_wait(struct rcout_pru *r, size_t off, uint32_t mask, uint32_t want,
			  uint32_t budget_us)
{
	if (r->silent) {
		if (cmd_read(r, OFF_MAGIC) != REPLY_MAGIC) {
			cmd_write(r, OFF_MAGIC, CMD_MAGIC);
			return -ETIMEDOUT;
		}
		r->silent = false;
	}
	uint64_t deadline = mono_us() + budget_us;
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	for (;;) {
		bool late = mono_us() > deadline;
		/* Looked at after the clock: a waiter pre-empted past the deadline
		 * still takes an answer that came meanwhile. */
		if ((cmd_read(r, off) & mask) == want)
			return 0;
		if (late) {
			r->silent = true;
			return -ETIMEDOUT;
		}
		if (cmd_read(r, OFF_MAGIC) == REPLY_MAGIC)
			cmd_write(r, OFF_MAGIC, CMD_MAGIC);
		sched_yield();
	}
}

/* Turns PRU bit off through the firmware's single-bit enmask (see above). */
static int rcout_pru_bit_off(struct rcout_pru *r, unsigned int bit, uint32_t budget_us)
{
	cmd_write(r, OFF_ENMASK, 1u << bit);
	int rc = rcout_pru_wait(r, OFF_ENMASK_READ, 1u << bit, 0, budget_us);
	if (rc == 0)
		r->enmask &= ~(1u << bit);
	cmd_write(r, OFF_ENMASK, r->enmask | ENMASK_GUARD);
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	return rc;
}

static int rcout_pru_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	struct rcout_pru *r = rcout_pru_of(out);
	uint32_t ticks = TICKS_PER_S / rate_hz;

	for (unsigned int ch = 0; ch < RCOUT_PRU_CHANNELS; ch++)
		if ((mask & (1u << ch)) && (r->enmask & (1u << chan_bit[ch])) &&
		    r->high[ch] >= ticks)
			return -EINVAL;
	for (unsigned int ch = 0; ch < RCOUT_PRU_CHANNELS; ch++) {
		if (!(mask & (1u << ch)))
			continue;
		r->period[ch] = ticks;
		cmd_write(r, OFF_PERIODHI(chan_bit[ch]), ticks);
	}
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	return 0;
}

static int rcout_pru_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct rcout_pru *r = rcout_pru_of(out);
	unsigned int bit = chan_bit[ch];

	if (pulse_us == 0) {
		if (!(r->enmask & (1u << bit)))
			return 0;
		return rcout_pru_bit_off(r, bit, RCOUT_PRU_ANSWER_US);
	}
	uint32_t ticks = (uint32_t)pulse_us * TICKS_PER_US;
	if (ticks >= r->period[ch])
		return -EINVAL;
	/* The width before the enable: the pass that turns it on takes both. */
	cmd_write(r, OFF_PERIODHI(bit) + 4, ticks);
	r->high[ch] = ticks;
	r->enmask |= 1u << bit;
	/* Also puts back a mask that a restarted firmware cleared. */
	if (cmd_read(r, OFF_ENMASK) != (r->enmask | ENMASK_GUARD))
		cmd_write(r, OFF_ENMASK, r->enmask | ENMASK_GUARD);
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	return 0;
}

static int rcout_pru_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	struct rcout_pru *r = rcout_pru_of(out);
	unsigned int bit = chan_bit[ch];

	uint32_t on = cmd_read(r, OFF_ENMASK_READ);
	if (on == ALL_ONES)
		return -EIO;
	if (!(on & (1u << bit))) {
		*pulse_us = 0;
		return 0;
	}
	uint32_t us = (cmd_read(r, OFF_HILO_READ(bit) + 4) + TICKS_PER_US / 2) / TICKS_PER_US;
	if (us > UINT16_MAX)
		return -EIO;
	*pulse_us = (uint16_t)us;
	return 0;
}

/* Every output the firmware has on, off; then an empty mask. */
static int rcout_pru_all_off(struct rcout_pru *r, uint32_t budget_us)
{
	int rc = 0;

	r->enmask = cmd_read(r, OFF_ENMASK_READ) & BITS_USED;
	for (unsigned int bit = 0; bit < RCOUT_PRU_CHANNELS; bit++) {
		if (!(r->enmask & (1u << bit)))
			continue;
		int err = rcout_pru_bit_off(r, bit, budget_us);
		if (err && !rc)
			rc = err;
	}
	return rc;
}

static void rcout_pru_close(struct rcout *out)
{
	struct rcout_pru *r = rcout_pru_of(out);

	rcout_pru_all_off(r, RCOUT_PRU_ANSWER_US);
	cmd_write(r, OFF_ENMASK, 0);
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	free(r);
}

static const struct rcout_ops rcout_pru_ops = {
	.set_rate = rcout_pru_set_rate,
	.write = rcout_pru_write,
	.read = rcout_pru_read,
	.close = rcout_pru_close,
};

int rcout_pru_open(struct mmio *win, size_t off, struct rcout **out)
{
	size_t len = mmio_len(win);
	int err;

	if (off % 4 != 0 || off > len || len - off < RCOUT_PRU_BYTES)
		return -EINVAL;
	if (mmio_read32(win, off + OFF_MAGIC) == ALL_ONES &&
	    mmio_read32(win, off + OFF_ENMASK_READ) == ALL_ONES)
		return -ENXIO;

	struct rcout_pru *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->out.ops = &rcout_pru_ops;
	r->out.channels = RCOUT_PRU_CHANNELS;
	r->win = win;
	r->off = off;

	/* Any reply after our command says a firmware runs. */
	err = rcout_pru_wait(r, OFF_MAGIC, ALL_ONES, REPLY_MAGIC, RCOUT_PRU_ANSWER_US);
	if (err)
		goto err_free;
	/* Outputs a previous run left on go off before anything else. */
	err = rcout_pru_all_off(r, RCOUT_PRU_ANSWER_US);
	if (err)
		goto err_free;
	for (unsigned int ch = 0; ch < RCOUT_PRU_CHANNELS; ch++) {
		r->period[ch] = TICKS_PER_S / RATE_DEFAULT_HZ;
		cmd_write(r, OFF_PERIODHI(chan_bit[ch]), r->period[ch]);
	}
	cmd_write(r, OFF_ENMASK, ENMASK_GUARD);
	cmd_write(r, OFF_MAGIC, CMD_MAGIC);
	*out = &r->out;
	return 0;

err_free:
	free(r);
	return err;
}
