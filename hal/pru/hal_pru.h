/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The BeagleBone PRU backends, for two firmwares: the PXF/Erle cape's
 * ("rcinpru0" on PRU0 records the RC pin's edges into a ring in PRU shared
 * RAM, "pwmpru1" on PRU1 drives 12 PWM outputs from a command block at the
 * start of PRU shared RAM), here first, and the BBBMINI's AioPRU (further
 * down, with its own sources).
 * Sources: the firmware in ArduPilot's Tools/Linux_HAL_Essentials/pru/
 * {rcinpru,pwmpru} (rcinpru0.c, pwmpru1.c and their prucomm.h, which give both
 * structures), ArduPilot's host side libraries/AP_HAL_Linux/RCInput_PRU.cpp and
 * RCOutput_PRU.cpp, and for the PRU-ICSS memory map the AM335x Technical
 * Reference Manual (TI SPRUH73), PRU-ICSS chapter, with the same offsets in
 * the PXF overlay Tools/Linux_HAL_Essentials/devicetree/pxf/BB-BONE-PRU-05-00A0.dts;
 * docs/boards.md, "Where the wiring facts come from", summarises them.
 *
 * Constructors of backends, seen by board files and tests only. Each takes a
 * register window the caller has opened (mmio_linux_open from the board table:
 * a UIO map or /dev/mem) and the byte offset of the firmware's structure in
 * it, so one window over the whole PRU-ICSS serves as well as one per
 * structure. Offsets in the PRU-ICSS (physical 0x4A300000 on the AM335x):
 *   RC input ring      0x12000 (0x4A312000)  - rcinpru0's DPRAM_SHARED
 *   PWM command block  0x10000 (0x4A310000)  - pwmpru1's DPRAM_SHARED, the
 *                      start of the 12 KB shared RAM (not PRU0's data RAM)
 *   PRU0 control       0x22000, PRU1 control 0x24000
 * The window is not owned: it must stay open until the handle is closed, and
 * closing the handle leaves it open. Each returns 0 and writes *out, or
 * returns -errno and leaves *out alone.
 *
 * What cannot be told from here: on the AM335x a window into a PRU-ICSS whose
 * clocks are off (no firmware loader has enabled it) does not read as
 * anything; the access raises SIGBUS and kills the process. Opening the
 * windows through UIO (uio_pruss enables the PRU-ICSS when its device is
 * opened) or starting the firmware through remoteproc before fulmard avoids it.
 */
#ifndef FULMAR_HAL_PRU_H
#define FULMAR_HAL_PRU_H

#include <stddef.h>

#include "fulmar/mmio.h"
#include "fulmar/rcin.h"
#include "fulmar/rcout.h"

/* The RC input ring: {u16 head, u16 tail} then 300 x {u16 pin_value, u16 delta_t}. */
#define RCIN_PRU_RING_ENTRIES 300
#define RCIN_PRU_BYTES (4 + 4 * RCIN_PRU_RING_ENTRIES)

/*
 * RC input from the ring at byte offset off of win. The rcin thread must
 * read it before the PRU records 300 more levels: the firmware never looks at
 * head and overwrites what was not read, unseen (see rcin_pru.c). 300 levels
 * are 3 ms of SBUS at its worst (a rcin thread at 1 kHz keeps up), over
 * 300 ms of PPM.
 * Returns -EINVAL when the ring does not fit the window, -ENXIO when the
 * window reads all ones (nothing there), -EPROTO when the tail index is
 * impossible (>= 300: not the rcinpru0 ring). A ring the firmware has never
 * written (tail 0, no edges yet) cannot be told from a quiet pin.
 */
int rcin_pru_open(struct mmio *win, size_t off, struct rcin **out);

/* The PWM command block: magic, enmask, offmsk, periodhi[12][2], hilo_read[12][2], enmask_read. */
#define RCOUT_PRU_CHANNELS 12
#define RCOUT_PRU_BYTES (4 * (3 + 2 * 2 * RCOUT_PRU_CHANNELS + 1))
/* How long open and a channel switched off wait for the firmware to answer. */
#define RCOUT_PRU_ANSWER_US 20000

/*
 * 12 outputs through the command block at byte offset off of win, all at
 * 50 Hz and off. Returns -EINVAL when the block does not fit the window,
 * -ENXIO when the window reads all ones, -ETIMEDOUT when the firmware does not
 * answer a command within RCOUT_PRU_ANSWER_US (not loaded, halted).
 * rcout_write(ch, 0) waits (at most that long, once: see rcout_pru.c) for the
 * firmware to confirm the channel is off, and gives -ETIMEDOUT if it does not.
 */
int rcout_pru_open(struct mmio *win, size_t off, struct rcout **out);

/*
 * The AioPRU firmware ("RC AllInOnePRU", for the BBBMINI cape and the
 * BeagleBone Blue): one program on PRU1 that times the RC input pin with the
 * PRU-ICSS's eCAP module and drives up to 12 PWM outputs, 5 ns ticks (the
 * 200 MHz PRU-ICSS clock) for both. Sources: the firmware's own source,
 * ArduPilot's Tools/Linux_HAL_Essentials/pru/aiopru/RcAioPRU.p (its RAM
 * offsets, eCAP set-up, ring and PWM loop), ArduPilot's host side
 * libraries/AP_HAL_Linux/RCInput_AioPRU.h/.cpp and RCOutput_AioPRU.h/.cpp
 * (the same structures seen from the ARM, and the physical addresses), and
 * the AM335x Technical Reference Manual (TI SPRUH73): PRU1's 8 KB data RAM
 * is at PRU-ICSS + 0x2000. docs/bbbmini-facts.md gathers them, with commits.
 * Offsets in PRU1's data RAM (physical 0x4A302000):
 *   PWM block   0x0000 (0x4A302000)  enable mask, then {high, period} x 12
 *   RC ring     0x1000 (0x4A303000)  {u16 head, u16 tail}, then 300 x {high, low}
 * (ArduPilot's PocketBeagle build reads its ring at 0x4A301000 instead).
 *
 * fulmar does not load this firmware: it must be running on PRU1, loaded by
 * remoteproc or the cape's tooling, before fulmard starts. (ArduPilot's
 * RCOutput_AioPRU resets PRU1, copies the program into PRU1's instruction RAM
 * itself and starts it.) Neither backend can tell a running firmware from a
 * halted one: it answers nothing, and a halted PRU1's RAM reads as its last
 * state. A board whose window covers the whole PRU-ICSS can ask
 * pru_check_running(win, 0x24000) (PRU1's control register) first. The
 * constructors cannot: they are told where their structure is in the window,
 * not where the window is in the PRU-ICSS, and the windows a board gives
 * them (PRU1's data RAM, as ArduPilot maps it) do not reach that register.
 *
 * Not supported: a variant of RcAioPRU.p with a failsafe word at 0x4 (the
 * firmware clears the enable mask unless the host sets that word's bit 0
 * every second), which moves every channel's words 4 bytes on. Only an open
 * ArduPilot pull request drives it; ArduPilot's own host code, and these
 * backends, use the layout without it. rcout_aiopru_open refuses that
 * variant's block as freshly started (its widths, 0, sit where the periods are
 * here), not once a host has written widths into it.
 */

/* The RC ring: {u16 head, u16 tail} then 300 x {u32 high ticks, u32 low ticks}. */
#define RCIN_AIOPRU_RING_ENTRIES 300
#define RCIN_AIOPRU_BYTES (4 + 8 * RCIN_AIOPRU_RING_ENTRIES)

/*
 * RC input from the AioPRU ring at byte offset off of win. An entry is a high
 * level and the low after it, written at the rising edge that ends the low;
 * the rcin thread must read the ring before 300 more rising edges come (the
 * firmware never looks at head and overwrites what was not read, unseen: see
 * rcin_aiopru.c): 5 ms of DSM or 6 ms of SBUS at their fastest, over 0.3 s
 * of PPM. A level longer than 2^32 ticks (21.47 s) is reported modulo that.
 * Returns -EINVAL when the ring does not fit the window, -ENXIO when the
 * window reads all ones, -EPROTO when the tail index is impossible (>= 300:
 * not the AioPRU ring). What the ring holds at open is skipped.
 */
int rcin_aiopru_open(struct mmio *win, size_t off, struct rcin **out);

/* The PWM block: u32 enable mask, then 12 x {u32 high ticks, u32 period ticks}. */
#define RCOUT_AIOPRU_CHANNELS 12
#define RCOUT_AIOPRU_BYTES (4 + 8 * RCOUT_AIOPRU_CHANNELS)

/*
 * 12 outputs through the AioPRU block at byte offset off of win, all at
 * 50 Hz and off. Returns -EINVAL when the block does not fit the window,
 * -ENXIO when the window reads all ones, -EPROTO when a period reads 0 (no
 * AioPRU firmware has set the block up: its start-up writes 20 ms to all 12;
 * or the failsafe variant above). Nothing waits for the firmware: a width
 * written is taken at the channel's next rising edge, a channel switched off
 * ends the pulse in progress at its width. rcout_read gives what the block
 * asks of the firmware (which reports nothing back). The firmware has no
 * failsafe: outputs a dead fulmard did not close go on at their last widths.
 */
int rcout_aiopru_open(struct mmio *win, size_t off, struct rcout **out);

/*
 * The BeagleBone Blue's build of the same firmware (RcAioPRU.p assembled
 * with BBBLUE) generates channels 1..8 only: the same block, 8 outputs. The
 * words of channels 9..12 are still set at open (off, 50 Hz) and cleared at
 * close, and never enabled. Returns as rcout_aiopru_open.
 */
#define RCOUT_AIOPRU_BLUE_CHANNELS 8
int rcout_aiopru_blue_open(struct mmio *win, size_t off, struct rcout **out);

/*
 * Whether a PRU runs, from its control register at byte offset ctrl_off of
 * win (its CONTROL.RUNSTATE, bit 15): 0 when it does, -EHOSTDOWN when it is
 * halted, -ENXIO when the window reads all ones, -EINVAL when the register is
 * outside the window. The only way to tell a halted RC input firmware from a
 * quiet pin.
 */
int pru_check_running(struct mmio *win, size_t ctrl_off);

#endif
