// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC input from the BeagleBone PRU: the rcinpru0 firmware on PRU0 busy-polls
 * the RC pin (P8_15, R31 bit 15) and, at each change, appends one entry to a
 * ring in PRU shared RAM:
 *
 *   word 0        u16 ring_head (bits 0..15), u16 ring_tail (bits 16..31)
 *   word 1 + i    entry i: u16 pin_value (bits 0..15), u16 delta_t (16..31)
 *
 * (little-endian on both the PRU and the ARM). From the firmware's source
 * (Tools/Linux_HAL_Essentials/pru/rcinpru/rcinpru0.c):
 *   - an entry holds the level that has just ENDED and how long it lasted:
 *     pin_value 1 is a high level. The 2015 ARM code took pin_value 1 for the
 *     low time, i.e. it read the pin inverted; we take the firmware's meaning,
 *     so low_us really is the time the pin was low. PPM-sum, which adds the
 *     two, cannot tell; SBUS and DSM from pulses can.
 *   - delta_t is microseconds (the IEP counter at 200 MHz / 200) truncated to
 *     16 bits: a level over 65.535 ms (a pin idle before a receiver starts) is
 *     reported modulo 65536 us. The firmware divides the free-running 32-bit
 *     counter before subtracting, so once every 2^32 / 200 MHz = 21.47 s one
 *     level comes out 20972 us too long (2^32 mod (200 * 65536) us, in the
 *     16-bit field). Nothing on this side can tell those from real levels.
 *   - the firmware writes the entry, then the tail. It starts with tail = 20
 *     and never reads head: when the ARM falls 300 entries behind, it
 *     overwrites unread entries and the ring looks emptier than it is.
 *
 * pru_ring.c reads the ring, as it reads rcin_aiopru.c's; what is rcinpru0's
 * is here: an entry is one level, and the tail is the entry it writes next.
 */
#include "pru/hal_pru.h"

#include <errno.h>

#include "pru_ring.h"

#define ALL_ONES 0xFFFFFFFFu

/* One 32-bit read: the level (anything but 0 or 1 is corrupt) and its microseconds. */
static void rcin_pru_decode(struct mmio *win, size_t off, struct rcin_level *lev, int32_t *carry)
{
	uint32_t e = mmio_read32(win, off);
	uint16_t pin = (uint16_t)(e & 0xFFFFu);

	(void)carry;
	lev->level = pin > 1 ? 2 : (uint8_t)pin;
	lev->dur_us = e >> 16;
}

static const struct pru_ring_fmt rcin_pru_fmt = {
	.entry_bytes = 4,
	.entry_levels = 1,
	.tail_newest = 0,
	.decode = rcin_pru_decode,
};

int rcin_pru_open(struct mmio *win, size_t off, struct rcin **out)
{
	return pru_ring_open(win, off, &rcin_pru_fmt, out);
}

int pru_check_running(struct mmio *win, size_t ctrl_off)
{
	size_t len = mmio_len(win);

	if (ctrl_off % 4 != 0 || ctrl_off > len || len - ctrl_off < 4)
		return -EINVAL;
	uint32_t control = mmio_read32(win, ctrl_off);
	if (control == ALL_ONES)
		return -ENXIO;
	/* AM335x TRM, PRU-ICSS PRU_CTRL CONTROL register: bit 15 RUNSTATE. */
	return (control & (1u << 15)) ? 0 : -EHOSTDOWN;
}
