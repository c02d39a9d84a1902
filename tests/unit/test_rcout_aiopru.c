// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 12 PWM outputs through the AioPRU firmware's block, with the real backend
 * (hal/pru/rcout_aiopru.c), the real mmio backend (PRU1's data RAM as a
 * memfd mapped as "/proc/self/fd/N" at physical 0, the way a board maps
 * /dev/mem) and the public rcout calls. The firmware answers nothing, so
 * every call is checked against the block's words, all 25 of them, and the
 * backend's writes against the block's bounds (a spy). A second thread plays
 * RcAioPRU.p's PWM loop on a mapping of its own, on a simulated IEP counter
 * (5 ns ticks, passes of its loop PASS_TICKS apart, run SIM_SPEEDUP times
 * faster than real time): per channel, at a rising event it reads the high
 * time and raises the pin only if that is not 0 and the enable bit is set;
 * at a falling event it lowers the pin and reads the high time and the
 * period for the next rising event. It counts the pulses it makes, their
 * widths and periods.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "mmio_spy.h"
#include "pru/hal_pru.h"

#define WIN_LEN 0x2000         /* PRU1's 8 KB of data RAM */
#define BLK_OFF 0x0            /* RcAioPRU.p keeps its block at its start */
#define CH RCOUT_AIOPRU_CHANNELS

#define W_ENABLE 0
#define W_HIGH(ch) (1 + 2 * (ch))
#define W_PERIOD(ch) (2 + 2 * (ch))
#define BLK_WORDS (1 + 2 * CH)
#define TICKS_PER_US 200u
#define TICKS_20MS 4000000u    /* the firmware's default period, and 50 Hz */

#define PASS_TICKS 200         /* a pass of the firmware's loop: about 1 us */
#define JUMP_PASSES 100        /* passes skipped at most when nothing is due */
#define SIM_SPEEDUP 4

struct pwm_fw {
	volatile uint32_t *blk;     /* the PRU's view of the block */
	pthread_t th;
	bool running;
	atomic_bool stop;
	atomic_bool restart;        /* run the start-up again */
	atomic_int hold_ch;         /* -1, or pause after this channel's next rise */
	atomic_bool held;
	atomic_uint passes;
	_Atomic uint64_t sim_us;    /* the firmware's time, for the test */
	/* What came out, per channel; widths and periods in ticks. */
	atomic_uint rises[CH];
	atomic_uint falls[CH];
	atomic_uint last_high[CH];
	atomic_uint last_period[CH];
	atomic_uint wraps[CH];      /* falls that found high >= period */
	/* For the main-loop test: widths outside 1000..2000 us in steps of 100. */
	atomic_bool check_widths;
	atomic_uint odd_widths;
	/* The firmware's own state, on its thread only. */
	uint64_t sim_ticks;
	uint32_t time;
	uint32_t next[CH];
	uint32_t rise_at[CH];
	bool pin[CH];
	bool idle[CH];              /* found a high time of 0: looks again every pass */
};

struct pru_ram {
	struct emul_memwin mem;     /* the backend's window (win) and the PRU's side (ram) */
	struct spy spy;             /* the backend writes only the block */
	struct pwm_fw fw;
};

/* --- the firmware's side ------------------------------------------------- */

/* RcAioPRU.p's start-up, for the block: all off, no pulse, 20 ms periods. */
static void fw_init_block(struct pwm_fw *f)
{
	blk_put(f->blk, W_ENABLE, 0);
	for (unsigned int ch = 0; ch < CH; ch++) {
		blk_put(f->blk, W_HIGH(ch), 0);
		blk_put(f->blk, W_PERIOD(ch), TICKS_20MS);
	}
}

/* The whole start-up: the block, the pins low, the staggered first events. */
static void fw_init(struct pwm_fw *f)
{
	fw_init_block(f);
	f->time = 0;
	for (unsigned int ch = 0; ch < CH; ch++) {
		f->next[ch] = 1000u * (ch + 1);
		f->pin[ch] = false;
		f->idle[ch] = false;
	}
}

static void fw_event(struct pwm_fw *f, unsigned int ch, uint32_t enable)
{
	/* "next - time" at or above 0xF0000000: the event's time has passed. */
	if (f->next[ch] - f->time < 0xF0000000u)
		return;
	f->next[ch] = f->time;
	if (f->pin[ch]) {
		uint32_t high = blk_get(f->blk, W_HIGH(ch)), period = blk_get(f->blk, W_PERIOD(ch));
		if (high >= period)
			atomic_fetch_add(&f->wraps[ch], 1);
		f->next[ch] += period - high;
		f->pin[ch] = false;
		uint32_t width = f->time - f->rise_at[ch];
		atomic_store(&f->last_high[ch], width);
		if (atomic_load(&f->check_widths)) {
			uint32_t us = (width - 1) / TICKS_PER_US;
			if (us < 1000 || us > 2000 || us % 100 != 0)
				atomic_fetch_add(&f->odd_widths, 1);
		}
		atomic_fetch_add(&f->falls[ch], 1);
		return;
	}
	uint32_t high = blk_get(f->blk, W_HIGH(ch));
	f->next[ch] += high;
	f->idle[ch] = high == 0;
	if (high == 0 || !(enable & (1u << ch)))
		return;
	f->pin[ch] = true;
	if (atomic_load(&f->rises[ch]) > 0)
		atomic_store(&f->last_period[ch], f->time - f->rise_at[ch]);
	f->rise_at[ch] = f->time;
	atomic_fetch_add(&f->rises[ch], 1);
	if (atomic_load(&f->hold_ch) == (int)ch)
		atomic_store(&f->held, true);
}

/* One pass of the main loop, then on to the next pass anything is due at. */
static void fw_pass(struct pwm_fw *f)
{
	uint32_t enable = blk_get(f->blk, W_ENABLE);
	uint32_t passes = JUMP_PASSES;

	for (unsigned int ch = 0; ch < CH; ch++)
		fw_event(f, ch, enable);
	atomic_fetch_add(&f->passes, 1);
	/* A channel with no width looks every pass; skipping some changes nothing else. */
	for (unsigned int ch = 0; ch < CH; ch++) {
		if (f->idle[ch] && !f->pin[ch])
			continue;
		uint32_t d = f->next[ch] - f->time;
		uint32_t k = d >= 0xF0000000u ? 1 : d / PASS_TICKS + 1;
		if (k < passes)
			passes = k;
	}
	f->time += passes * PASS_TICKS;
	f->sim_ticks += (uint64_t)passes * PASS_TICKS;
	atomic_store(&f->sim_us, f->sim_ticks / TICKS_PER_US);
}

static void *fw_run(void *arg)
{
	struct pwm_fw *f = arg;
	uint64_t t0 = mono_us();

	fw_init(f);
	f->sim_ticks = 0;
	while (!atomic_load(&f->stop)) {
		if (atomic_load(&f->restart)) {
			fw_init(f);
			atomic_store(&f->restart, false);
		}
		uint64_t target = (mono_us() - t0) * SIM_SPEEDUP * TICKS_PER_US;
		while (f->sim_ticks < target && !atomic_load(&f->held) && !atomic_load(&f->stop))
			fw_pass(f);
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
	return NULL;
}

static void fw_start(struct pru_ram *r)
{
	unsigned int p0 = atomic_load(&r->fw.passes);

	atomic_store(&r->fw.hold_ch, -1);
	assert_int_equal(pthread_create(&r->fw.th, NULL, fw_run, &r->fw), 0);
	r->fw.running = true;
	/* Its start-up is done once it has made a pass. */
	while (atomic_load(&r->fw.passes) == p0)
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
}

static void fw_stop(struct pru_ram *r)
{
	if (!r->fw.running)
		return;
	atomic_store(&r->fw.stop, true);
	assert_int_equal(pthread_join(r->fw.th, NULL), 0);
	r->fw.running = false;
}

static void wait_for(atomic_uint *counter, unsigned int n)
{
	uint64_t give_up = mono_us() + 5000000;

	while (atomic_load(counter) < n) {
		assert_true(mono_us() < give_up);
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
}

/* Until channel ch has made n more pulses, start and end. */
static void wait_pulses(struct pru_ram *r, unsigned int ch, unsigned int n)
{
	wait_for(&r->fw.falls[ch], atomic_load(&r->fw.rises[ch]) + n);
}

/* 50 ms of the firmware's time: more than any period, every channel has had an event. */
static void wait_a_while(struct pru_ram *r)
{
	uint64_t give_up = mono_us() + 5000000;
	uint64_t until = atomic_load(&r->fw.sim_us) + 50000;

	while (atomic_load(&r->fw.sim_us) < until) {
		assert_true(mono_us() < give_up);
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
}

static unsigned int rises(struct pru_ram *r, unsigned int ch)
{
	return atomic_load(&r->fw.rises[ch]);
}

/* The pulse is (width, width + one pass]; the period (period, period + two passes]. */
static void assert_pulses(struct pru_ram *r, unsigned int ch, uint32_t width_us, uint32_t period)
{
	uint32_t w = atomic_load(&r->fw.last_high[ch]), p = atomic_load(&r->fw.last_period[ch]);

	assert_in_range(w, width_us * TICKS_PER_US + 1, width_us * TICKS_PER_US + PASS_TICKS);
	assert_in_range(p, period + 1, period + 2 * PASS_TICKS);
}

/* --- the block as the backend should leave it ----------------------------- */

struct want {
	uint32_t enable;
	uint32_t high[CH];          /* ticks */
	uint32_t period[CH];
};

static void want_open(struct want *w)
{
	w->enable = 0;
	for (unsigned int ch = 0; ch < CH; ch++) {
		w->high[ch] = 0;
		w->period[ch] = TICKS_20MS;
	}
}

static void assert_block(struct pru_ram *r, const struct want *w)
{
	assert_int_equal(blk_get(r->fw.blk, W_ENABLE), w->enable);
	for (unsigned int ch = 0; ch < CH; ch++) {
		assert_int_equal(blk_get(r->fw.blk, W_HIGH(ch)), w->high[ch]);
		assert_int_equal(blk_get(r->fw.blk, W_PERIOD(ch)), w->period[ch]);
	}
	assert_int_equal(r->spy.outside, 0);
}

/* --- fixture ------------------------------------------------------------- */

static int setup(void **state)
{
	struct pru_ram *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(emul_memwin_open(&r->mem, WIN_LEN), 0);
	r->fw.blk = r->mem.ram + BLK_OFF / 4;
	spy_init(&r->spy, r->mem.win);
	r->spy.limit = BLK_OFF + RCOUT_AIOPRU_BYTES;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct pru_ram *r = *state;

	fw_stop(r);
	assert_int_equal(r->spy.outside, 0);
	emul_memwin_close(&r->mem);
	free(r);
	return 0;
}

static struct rcout *open_out(struct pru_ram *r)
{
	struct rcout *out = NULL;

	assert_int_equal(rcout_aiopru_open(&r->spy.m, BLK_OFF, &out), 0);
	assert_non_null(out);
	return out;
}

/* The firmware running, the backend open on it, and w the block open leaves. */
static struct rcout *open_running(struct pru_ram *r, struct want *w)
{
	fw_start(r);
	want_open(w);
	return open_out(r);
}

/* RcAioPRU.p restarted: all off, no widths, 20 ms periods. */
static void fw_restart(struct pru_ram *r)
{
	atomic_store(&r->fw.restart, true);
	while (atomic_load(&r->fw.restart))
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
}

/* Once the pulses under way have ended, no other starts. */
static void assert_no_pulse_starts(struct pru_ram *r)
{
	unsigned int before[CH];

	wait_a_while(r);
	for (unsigned int ch = 0; ch < CH; ch++)
		before[ch] = rises(r, ch);
	wait_a_while(r);
	for (unsigned int ch = 0; ch < CH; ch++) {
		assert_int_equal(rises(r, ch), before[ch]);
		assert_int_equal(atomic_load(&r->fw.falls[ch]), before[ch]);
	}
}

/* --- tests ---------------------------------------------------------------- */

static void test_rcout_aiopru_open_refuses_a_block_outside_the_window(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	fw_init_block(&r->fw);
	assert_int_equal(rcout_aiopru_open(r->mem.win, WIN_LEN - RCOUT_AIOPRU_BYTES + 4, &out), -EINVAL);
	assert_int_equal(rcout_aiopru_open(r->mem.win, 2, &out), -EINVAL);
	assert_int_equal(rcout_aiopru_open(r->mem.win, WIN_LEN + 4096, &out), -EINVAL);
	assert_null(out);
}

static void test_rcout_aiopru_open_refuses_a_window_of_all_ones(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	memset((void *)r->mem.ram, 0xFF, WIN_LEN);
	assert_int_equal(rcout_aiopru_open(&r->spy.m, BLK_OFF, &out), -ENXIO);
	assert_null(out);
	assert_int_equal(r->spy.writes, 0);
}

static void test_rcout_aiopru_open_refuses_a_block_no_firmware_has_set_up(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	/* Zeros: no start-up has written its 20 ms periods. */
	assert_int_equal(rcout_aiopru_open(&r->spy.m, BLK_OFF, &out), -EPROTO);
	/* The failsafe variant just started: mask, failsafe word, then {0 width, 20 ms} x 12. */
	blk_put(r->fw.blk, 0, 0);
	blk_put(r->fw.blk, 1, 0);
	for (unsigned int ch = 0; ch < CH; ch++) {
		blk_put(r->fw.blk, 2 + 2 * ch, 0);
		blk_put(r->fw.blk, 3 + 2 * ch, TICKS_20MS);
	}
	assert_int_equal(rcout_aiopru_open(&r->spy.m, BLK_OFF, &out), -EPROTO);
	/* One period of 0 is enough. */
	fw_init_block(&r->fw);
	blk_put(r->fw.blk, W_PERIOD(11), 0);
	assert_int_equal(rcout_aiopru_open(&r->spy.m, BLK_OFF, &out), -EPROTO);
	assert_null(out);
	assert_int_equal(r->spy.writes, 0);
}

static void test_rcout_aiopru_starts_all_12_off_at_50hz_even_after_a_previous_run(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	fw_start(r);
	/* A previous run left every output on, at 1500 us and 400 Hz. */
	for (unsigned int ch = 0; ch < CH; ch++) {
		blk_put(r->fw.blk, W_HIGH(ch), 1500 * TICKS_PER_US);
		blk_put(r->fw.blk, W_PERIOD(ch), 500000);
	}
	blk_put(r->fw.blk, W_ENABLE, 0xFFF);
	for (unsigned int ch = 0; ch < CH; ch++)
		wait_pulses(r, ch, 2);

	struct rcout *out = open_out(r);
	want_open(&w);
	assert_block(r, &w);
	assert_int_equal(rcout_channels(out), 12);
	assert_no_pulse_starts(r);
	for (unsigned int ch = 0; ch < CH; ch++) {
		uint16_t us = 1;
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 0);
	}
	rcout_close(out);
}

static void test_rcout_aiopru_writes_each_channel_to_its_words_and_it_pulses(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	struct rcout *out = open_running(r, &w);
	for (unsigned int ch = 0; ch < CH; ch++) {
		uint16_t us = (uint16_t)(1000 + 50 * ch);
		assert_int_equal(rcout_write(out, ch, us), 0);
		w.high[ch] = us * TICKS_PER_US;
		w.enable |= 1u << ch;
		assert_block(r, &w);
	}
	for (unsigned int ch = 0; ch < CH; ch++) {
		uint16_t us = 0;
		wait_pulses(r, ch, 2);
		assert_pulses(r, ch, 1000 + 50 * ch, TICKS_20MS);
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 1000 + 50 * ch);
	}
	/* A new width: the words, then the pulses. */
	assert_int_equal(rcout_write(out, 3, 1234), 0);
	w.high[3] = 1234 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 3, 2);
	assert_pulses(r, 3, 1234, TICKS_20MS);
	assert_int_equal(atomic_load(&r->fw.wraps[3]), 0);
	rcout_close(out);
}

static void test_rcout_aiopru_switches_one_channel_off_and_leaves_the_others(void **state)
{
	struct pru_ram *r = *state;
	struct want w;
	uint16_t us = 0;

	struct rcout *out = open_running(r, &w);
	for (unsigned int ch = 0; ch < CH; ch++) {
		assert_int_equal(rcout_write(out, ch, 1500), 0);
		w.high[ch] = 1500 * TICKS_PER_US;
	}
	w.enable = 0xFFF;
	assert_block(r, &w);
	/* ArduPilot's "&= !bit" would clear the whole mask here. */
	assert_int_equal(rcout_write(out, 5, 0), 0);
	w.enable &= ~(1u << 5);
	w.high[5] = 0;
	assert_block(r, &w);
	wait_a_while(r);
	unsigned int five = rises(r, 5);
	for (unsigned int ch = 0; ch < CH; ch++)
		if (ch != 5)
			wait_pulses(r, ch, 2);
	assert_int_equal(rises(r, 5), five);
	assert_int_equal(rcout_read(out, 5, &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(rcout_read(out, 4, &us), 0);
	assert_int_equal(us, 1500);
	/* Off again is nothing to do; on again works. */
	unsigned int writes = r->spy.writes;
	assert_int_equal(rcout_write(out, 5, 0), 0);
	assert_int_equal(r->spy.writes, writes);
	assert_int_equal(rcout_write(out, 5, 1700), 0);
	w.enable |= 1u << 5;
	w.high[5] = 1700 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 5, 2);
	assert_pulses(r, 5, 1700, TICKS_20MS);
	rcout_close(out);
}

static void test_rcout_aiopru_lets_the_pulse_under_way_end_at_its_width(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	struct rcout *out = open_running(r, &w);
	assert_int_equal(rcout_write(out, 2, 2000), 0);
	wait_pulses(r, 2, 1);
	/* Caught just after a rising edge: the pin is high for 2000 us more. */
	atomic_store(&r->fw.hold_ch, 2);
	while (!atomic_load(&r->fw.held))
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	unsigned int n = rises(r, 2);
	assert_int_equal(rcout_write(out, 2, 0), 0);
	assert_block(r, &w);
	atomic_store(&r->fw.hold_ch, -1);
	atomic_store(&r->fw.held, false);
	wait_for(&r->fw.falls[2], n);
	uint32_t width = atomic_load(&r->fw.last_high[2]);
	assert_in_range(width, 2000 * TICKS_PER_US + 1, 2000 * TICKS_PER_US + PASS_TICKS);
	wait_a_while(r);
	assert_int_equal(rises(r, 2), n);
	rcout_close(out);
}

static void test_rcout_aiopru_sets_periods_per_channel_at_200_ticks_per_us(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	struct rcout *out = open_running(r, &w);
	assert_int_equal(rcout_set_rate(out, 0x3, 400), 0);
	w.period[0] = w.period[1] = 500000;
	assert_block(r, &w);
	/* Mask bits past the 12 channels are nobody's. */
	assert_int_equal(rcout_set_rate(out, 0xFFFFF000u | (1u << 11), 333), 0);
	w.period[11] = 200000000 / 333;
	assert_block(r, &w);
	assert_int_equal(rcout_write(out, 0, 1000), 0);
	assert_int_equal(rcout_write(out, 2, 1000), 0);
	assert_int_equal(rcout_write(out, 11, 1000), 0);
	w.enable = (1u << 0) | (1u << 2) | (1u << 11);
	w.high[0] = w.high[2] = w.high[11] = 1000 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 0, 3);
	wait_pulses(r, 2, 2);
	wait_pulses(r, 11, 2);
	assert_pulses(r, 0, 1000, 500000);
	assert_pulses(r, 2, 1000, TICKS_20MS);
	assert_pulses(r, 11, 1000, 200000000 / 333);
	rcout_close(out);
}

static void test_rcout_aiopru_refuses_a_width_that_does_not_fit_its_period(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	struct rcout *out = open_running(r, &w);
	assert_int_equal(rcout_set_rate(out, 0x1, 490), 0);
	w.period[0] = 200000000 / 490;
	/* 490 Hz is 2040.8 us: the firmware's period - high would wrap. */
	assert_int_equal(rcout_write(out, 0, 2041), -EINVAL);
	assert_block(r, &w);
	assert_int_equal(rcout_write(out, 0, 2040), 0);
	w.enable = 1;
	w.high[0] = 2040 * TICKS_PER_US;
	assert_block(r, &w);
	/* 500 Hz is 2000 us: refused, for every channel in the mask. */
	assert_int_equal(rcout_set_rate(out, 0x3, 500), -EINVAL);
	assert_block(r, &w);
	/* A width of the whole period would wrap too. */
	assert_int_equal(rcout_set_rate(out, 0x4, 500), 0);
	w.period[2] = 400000;
	assert_int_equal(rcout_write(out, 2, 2000), -EINVAL);
	assert_block(r, &w);
	assert_int_equal(rcout_write(out, 2, 1999), 0);
	w.enable |= 1u << 2;
	w.high[2] = 1999 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 0, 2);
	assert_pulses(r, 0, 2040, 200000000 / 490);
	assert_int_equal(atomic_load(&r->fw.wraps[0]), 0);
	/* A channel that is off does not hold a rate back. */
	assert_int_equal(rcout_write(out, 0, 0), 0);
	w.enable &= ~1u;
	w.high[0] = 0;
	assert_int_equal(rcout_set_rate(out, 0x3, 500), 0);
	w.period[0] = w.period[1] = 400000;
	assert_block(r, &w);
	rcout_close(out);
}

static void test_rcout_aiopru_close_turns_every_output_off(void **state)
{
	struct pru_ram *r = *state;
	struct want w;

	fw_start(r);
	struct rcout *out = open_out(r);
	assert_int_equal(rcout_set_rate(out, 0xF, 400), 0);
	for (unsigned int ch = 0; ch < CH; ch += 2)
		assert_int_equal(rcout_write(out, ch, 1100), 0);
	for (unsigned int ch = 0; ch < CH; ch += 2)
		wait_pulses(r, ch, 1);
	rcout_close(out);
	/* Mask and widths 0; the rates stay, which the next open sets anyway. */
	want_open(&w);
	w.period[0] = w.period[1] = w.period[2] = w.period[3] = 500000;
	assert_block(r, &w);
	assert_no_pulse_starts(r);
}

static void test_rcout_aiopru_puts_rates_and_mask_back_after_a_firmware_restart(void **state)
{
	struct pru_ram *r = *state;
	struct want w;
	uint16_t us = 0;

	struct rcout *out = open_running(r, &w);
	assert_int_equal(rcout_set_rate(out, 0x3, 400), 0);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 5, 1600), 0);
	w.period[0] = w.period[1] = 500000;
	w.enable = (1u << 0) | (1u << 5);
	w.high[0] = 1500 * TICKS_PER_US;
	w.high[5] = 1600 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 0, 2);

	fw_restart(r);
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 0);
	/* The next width puts the rates and the mask back; channel 5 waits for its own. */
	assert_int_equal(rcout_write(out, 0, 1550), 0);
	w.high[0] = 1550 * TICKS_PER_US;
	w.high[5] = 0;
	assert_block(r, &w);
	wait_pulses(r, 0, 2);
	assert_pulses(r, 0, 1550, 500000);
	assert_int_equal(rcout_write(out, 5, 1650), 0);
	w.high[5] = 1650 * TICKS_PER_US;
	assert_block(r, &w);
	assert_int_equal(rcout_read(out, 5, &us), 0);
	assert_int_equal(us, 1650);

	/* With everything off, the channel switched on finds its period gone. */
	assert_int_equal(rcout_write(out, 0, 0), 0);
	assert_int_equal(rcout_write(out, 5, 0), 0);
	fw_restart(r);
	assert_int_equal(rcout_write(out, 1, 1000), 0);
	want_open(&w);
	w.period[0] = w.period[1] = 500000;
	w.enable = 1u << 1;
	w.high[1] = 1000 * TICKS_PER_US;
	assert_block(r, &w);
	wait_pulses(r, 1, 2);
	assert_pulses(r, 1, 1000, 500000);
	rcout_close(out);
}

static void test_rcout_aiopru_main_loop_at_400hz_never_makes_a_pulse_it_did_not_ask_for(void **state)
{
	struct pru_ram *r = *state;
	uint32_t seed = 12345;

	fw_start(r);
	atomic_store(&r->fw.check_widths, true);
	struct rcout *out = open_out(r);
	/*
	 * The main loop's pattern, 250 ms of it: every channel written every
	 * 2.5 ms with widths of 1000..2000 us, channels switched off and on,
	 * the first four's rate moved between 50 and 400 Hz, while the
	 * firmware runs.
	 */
	uint64_t tick = mono_us();
	for (int loop = 0; loop < 100; loop++) {
		for (unsigned int ch = 0; ch < CH; ch++) {
			seed = seed * 1103515245u + 12345u;
			uint16_t us = (uint16_t)(1000 + 100 * ((seed >> 16) % 11));
			if ((seed >> 8) % 29 == 0)
				us = 0;
			assert_int_equal(rcout_write(out, ch, us), 0);
		}
		if (loop % 20 == 10)
			assert_int_equal(rcout_set_rate(out, 0xF, loop % 40 == 10 ? 400 : 50), 0);
		tick += 2500;
		sleep_until_us(tick);
	}
	unsigned int pulses = 0;
	for (unsigned int ch = 0; ch < CH; ch++) {
		pulses += atomic_load(&r->fw.falls[ch]);
		assert_int_equal(atomic_load(&r->fw.wraps[ch]), 0);
	}
	print_message("main loop: %u pulses, %u of them not a width written\n", pulses,
		      atomic_load(&r->fw.odd_widths));
	assert_true(pulses > 0);
	assert_int_equal(atomic_load(&r->fw.odd_widths), 0);
	rcout_close(out);
}

/* The Blue's firmware build: the same block, channels 1..8 only. */
static void test_rcout_aiopru_blue_offers_its_8_outputs_and_no_ninth(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	fw_start(r);
	assert_int_equal(rcout_aiopru_blue_open(&r->spy.m, BLK_OFF, &out), 0);
	assert_int_equal(rcout_channels(out), RCOUT_AIOPRU_BLUE_CHANNELS);
	assert_int_equal(rcout_write(out, 7, 1500), 0);
	assert_int_equal(rcout_write(out, 8, 1500), -EINVAL);
	wait_pulses(r, 7, 2);
	assert_int_equal(blk_get(r->fw.blk, W_ENABLE), 1u << 7);
	rcout_close(out);
	assert_int_equal(blk_get(r->fw.blk, W_ENABLE), 0u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_rcout_aiopru_open_refuses_a_block_outside_the_window),
		T(test_rcout_aiopru_open_refuses_a_window_of_all_ones),
		T(test_rcout_aiopru_open_refuses_a_block_no_firmware_has_set_up),
		T(test_rcout_aiopru_starts_all_12_off_at_50hz_even_after_a_previous_run),
		T(test_rcout_aiopru_writes_each_channel_to_its_words_and_it_pulses),
		T(test_rcout_aiopru_switches_one_channel_off_and_leaves_the_others),
		T(test_rcout_aiopru_lets_the_pulse_under_way_end_at_its_width),
		T(test_rcout_aiopru_sets_periods_per_channel_at_200_ticks_per_us),
		T(test_rcout_aiopru_refuses_a_width_that_does_not_fit_its_period),
		T(test_rcout_aiopru_close_turns_every_output_off),
		T(test_rcout_aiopru_puts_rates_and_mask_back_after_a_firmware_restart),
		T(test_rcout_aiopru_main_loop_at_400hz_never_makes_a_pulse_it_did_not_ask_for),
		T(test_rcout_aiopru_blue_offers_its_8_outputs_and_no_ninth),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
