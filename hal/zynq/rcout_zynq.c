// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 8 PWM outputs from the Zynq PL PWM block: channel ch is two 32-bit
 * registers at 8 * ch, {period, high}, in ticks of a 100 MHz clock
 * (ArduPilot's RCOutput_ZYNQ; docs/boards.md). The block has no enable: a
 * channel with high 0 sends no pulses (assumed from the design: ArduPilot
 * never writes 0 and leaves the registers as the PL resets them, so this is
 * not confirmed on hardware). Each write is one register, so the PL never
 * sees half of a change; a width at or above its period is refused, as the
 * output would then never go low.
 */
#include "zynq/hal_zynq.h"

#include <errno.h>
#include <stdlib.h>

#define TICKS_PER_US 100u
#define TICKS_PER_S 100000000u
#define RATE_DEFAULT_HZ 50u
#define ALL_ONES 0xFFFFFFFFu
#define OFF_PERIOD(ch) (8u * (size_t)(ch))
#define OFF_HIGH(ch) (8u * (size_t)(ch) + 4u)

struct rcout_zynq {
	struct rcout out;           /* first: the HAL hands out &out */
	struct mmio *win;
	size_t off;
	uint32_t period[RCOUT_ZYNQ_CHANNELS];  /* ticks */
	uint32_t high[RCOUT_ZYNQ_CHANNELS];    /* ticks; 0: off */
};

static struct rcout_zynq *rcout_zynq_of(struct rcout *out)
{
	return (struct rcout_zynq *)(void *)out;
}

static void reg_write(struct rcout_zynq *z, size_t off, uint32_t v)
{
	mmio_write32(z->win, z->off + off, v);
}

static int rcout_zynq_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	struct rcout_zynq *z = rcout_zynq_of(out);
	uint32_t ticks = TICKS_PER_S / rate_hz;

	for (unsigned int ch = 0; ch < RCOUT_ZYNQ_CHANNELS; ch++)
		if ((mask & (1u << ch)) && z->high[ch] >= ticks)
			return -EINVAL;
	for (unsigned int ch = 0; ch < RCOUT_ZYNQ_CHANNELS; ch++) {
		if (!(mask & (1u << ch)))
			continue;
		z->period[ch] = ticks;
		reg_write(z, OFF_PERIOD(ch), ticks);
	}
	return 0;
}

static int rcout_zynq_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	struct rcout_zynq *z = rcout_zynq_of(out);
	uint32_t ticks = (uint32_t)pulse_us * TICKS_PER_US;

	if (ticks >= z->period[ch])
		return -EINVAL;
	z->high[ch] = ticks;
	reg_write(z, OFF_HIGH(ch), ticks);
	return 0;
}

static int rcout_zynq_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	struct rcout_zynq *z = rcout_zynq_of(out);

	uint32_t high = mmio_read32(z->win, z->off + OFF_HIGH(ch));
	if (high == ALL_ONES)
		return -EIO;
	uint32_t us = (high + TICKS_PER_US / 2) / TICKS_PER_US;
	if (us > UINT16_MAX)
		return -EIO;
	*pulse_us = (uint16_t)us;
	return 0;
}

static void rcout_zynq_close(struct rcout *out)
{
	struct rcout_zynq *z = rcout_zynq_of(out);

	for (unsigned int ch = 0; ch < RCOUT_ZYNQ_CHANNELS; ch++)
		reg_write(z, OFF_HIGH(ch), 0);
	free(z);
}

static const struct rcout_ops rcout_zynq_ops = {
	.set_rate = rcout_zynq_set_rate,
	.write = rcout_zynq_write,
	.read = rcout_zynq_read,
	.close = rcout_zynq_close,
};

int rcout_zynq_open(struct mmio *win, size_t off, struct rcout **out)
{
	size_t len = mmio_len(win);
	int err;

	if (off % 4 != 0 || off > len || len - off < RCOUT_ZYNQ_BYTES)
		return -EINVAL;
	if (mmio_read32(win, off + OFF_PERIOD(0)) == ALL_ONES &&
	    mmio_read32(win, off + OFF_HIGH(0)) == ALL_ONES)
		return -ENXIO;

	struct rcout_zynq *z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->out.ops = &rcout_zynq_ops;
	z->out.channels = RCOUT_ZYNQ_CHANNELS;
	z->win = win;
	z->off = off;
	/* Pulses off before the period changes under them. */
	for (unsigned int ch = 0; ch < RCOUT_ZYNQ_CHANNELS; ch++) {
		z->period[ch] = TICKS_PER_S / RATE_DEFAULT_HZ;
		reg_write(z, OFF_HIGH(ch), 0);
		reg_write(z, OFF_PERIOD(ch), z->period[ch]);
	}
	for (unsigned int ch = 0; ch < RCOUT_ZYNQ_CHANNELS; ch++) {
		if (mmio_read32(win, off + OFF_PERIOD(ch)) != z->period[ch] ||
		    mmio_read32(win, off + OFF_HIGH(ch)) != 0) {
			err = -EIO;
			goto err_free;
		}
	}
	*out = &z->out;
	return 0;

err_free:
	free(z);
	return err;
}
