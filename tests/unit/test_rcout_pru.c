// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 12 PWM outputs through the BeagleBone PRU's command block, with the real
 * backend (hal/pru/rcout_pru.c), the real mmio backend (a memfd mapped as
 * "/proc/self/fd/N" at physical 0, the way a board maps /dev/mem) and the
 * public rcout calls. A second thread plays the pwmpru1 firmware on a mapping
 * of its own, pass for pass as its main loop does, quirks included: a bit
 * cleared in enmask does not stop its output, only enmask == (1 << i) stops
 * output i; widths are taken only for bits set in enmask; every pass ends
 * with the reply magic, hilo_read and enmask_read; while outputs are on, it
 * waits for the next toggle (here: up to TOGGLE_WAIT_US) unless the command
 * magic asks it to look now.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "mmio_spy.h"
#include "pru/hal_pru.h"

#define WIN_LEN 0x3000         /* the PRU-ICSS's 12 KB of shared RAM */
#define CMD_OFF 0x0            /* pwmpru1 keeps its block at its start */
#define CH RCOUT_PRU_CHANNELS

#define W_MAGIC 0
#define W_ENMASK 1
#define W_PERIODHI(bit) (3 + 2 * (bit))
#define W_HILO_READ(bit) (27 + 2 * (bit))
#define W_ENMASK_READ 51
#define CMD_MAGIC 0xF00FBAAFu
#define REPLY_MAGIC 0xBAAFF00Fu
#define TOGGLE_WAIT_US 15000

static const unsigned int chan_bit[CH] = {10, 8, 11, 9, 7, 6, 5, 4, 3, 2, 1, 0};

struct pwm_fw {
	volatile uint32_t *blk;     /* the PRU's view of the block */
	pthread_t th;
	bool running;
	atomic_bool stop;
	atomic_bool halted;         /* the PRU stopped: no passes */
	atomic_uint passes;
	/* The firmware's own state, read by the test only after wait_passes(). */
	atomic_uint enmask;
	atomic_uint hi[CH];         /* by PRU bit */
	atomic_uint lo[CH];
	atomic_uint enables, disables, spikes;
};

struct pru_ram {
	struct emul_memwin mem;     /* the backend's window (win) and the PRU's side (ram) */
	struct pwm_fw fw;
};

/* One pass of pwmpru1's main loop over the command block. */
static void fw_pass(struct pwm_fw *f)
{
	uint32_t msk = blk_get(f->blk, W_ENMASK);
	uint32_t en = atomic_load(&f->enmask);

	for (unsigned int i = 0; i < CH; i++) {
		uint32_t bit = 1u << i;
		bool on_now = false;
		if ((msk & bit) && !(en & bit)) {
			en |= bit;
			on_now = true;
			atomic_fetch_add(&f->enables, 1);
		}
		if ((msk & bit) && (msk & ~bit) == 0) {
			en &= ~bit;
			atomic_fetch_add(&f->disables, 1);
			if (on_now)
				atomic_fetch_add(&f->spikes, 1);
		}
		if (msk & bit) {
			uint32_t hi = blk_get(f->blk, W_PERIODHI(i) + 1);
			atomic_store(&f->hi[i], hi);
			atomic_store(&f->lo[i], blk_get(f->blk, W_PERIODHI(i)) - hi);
		}
		blk_put(f->blk, W_HILO_READ(i), 0);
		blk_put(f->blk, W_HILO_READ(i) + 1, atomic_load(&f->hi[i]));
	}
	atomic_store(&f->enmask, en);
	blk_put(f->blk, W_MAGIC, REPLY_MAGIC);
	blk_put(f->blk, W_ENMASK_READ, en);
}

/* A pass every 20 us or so: prompt, as PRU1's own core is, without taking a CPU. */
static void fw_nap(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
}

static void *fw_run(void *arg)
{
	struct pwm_fw *f = arg;

	/* Start-up: all off, 100 us defaults, enmask cleared, a reply. */
	for (unsigned int i = 0; i < CH; i++) {
		atomic_store(&f->hi[i], 20000);
		atomic_store(&f->lo[i], 20000);
	}
	blk_put(f->blk, W_ENMASK, 0);
	blk_put(f->blk, W_MAGIC, REPLY_MAGIC);
	while (!atomic_load(&f->stop)) {
		if (atomic_load(&f->halted)) {
			fw_nap();
			continue;
		}
		fw_pass(f);
		atomic_fetch_add(&f->passes, 1);
		/* With outputs on it waits for the next toggle, or a command. */
		if (atomic_load(&f->enmask) != 0) {
			uint64_t until = mono_us() + TOGGLE_WAIT_US;
			while (blk_get(f->blk, W_MAGIC) != CMD_MAGIC && mono_us() < until &&
			       !atomic_load(&f->stop))
				fw_nap();
		} else {
			fw_nap();
		}
	}
	return NULL;
}

static void fw_start(struct pru_ram *r)
{
	unsigned int p0 = atomic_load(&r->fw.passes);

	assert_int_equal(pthread_create(&r->fw.th, NULL, fw_run, &r->fw), 0);
	/*
	 * PRU1 is a core of its own that answers within microseconds; the driver
	 * gives it RCOUT_PRU_ANSWER_US (20 ms). A thread standing in for it at
	 * normal priority can wait longer than that for a CPU on a busy host (seen
	 * with the load average at 7), so it runs at SCHED_FIFO where that is
	 * allowed (as root, as CI runs); it naps 20 us a pass, taking little.
	 */
	pthread_setschedparam(r->fw.th, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 });
	r->fw.running = true;
	/* Its start-up is done once it has made a pass. */
	while (atomic_load(&r->fw.passes) == p0)
		sched_yield();
}

static void fw_stop(struct pru_ram *r)
{
	if (!r->fw.running)
		return;
	atomic_store(&r->fw.stop, true);
	assert_int_equal(pthread_join(r->fw.th, NULL), 0);
	r->fw.running = false;
}

/* Until the firmware has made n more passes (so it has seen what was written). */
static void wait_passes(struct pru_ram *r, unsigned int n)
{
	unsigned int p0 = atomic_load(&r->fw.passes);
	uint64_t give_up = mono_us() + 5000000;

	/* Ask it to look, as a waiting firmware would otherwise sleep a period. */
	while (atomic_load(&r->fw.passes) - p0 < n) {
		if (blk_get(r->fw.blk, W_MAGIC) == REPLY_MAGIC)
			blk_put(r->fw.blk, W_MAGIC, CMD_MAGIC);
		assert_true(mono_us() < give_up);
		sched_yield();
	}
}

static int setup(void **state)
{
	struct pru_ram *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(emul_memwin_open(&r->mem, WIN_LEN), 0);
	r->fw.blk = r->mem.ram + CMD_OFF / 4;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct pru_ram *r = *state;

	fw_stop(r);
	emul_memwin_close(&r->mem);
	free(r);
	return 0;
}

static struct rcout *open_out(struct pru_ram *r)
{
	struct rcout *out = NULL;

	assert_int_equal(rcout_pru_open(r->mem.win, CMD_OFF, &out), 0);
	assert_non_null(out);
	return out;
}

static uint32_t fw_enmask(struct pru_ram *r)
{
	return atomic_load(&r->fw.enmask);
}

static void test_rcout_pru_open_refuses_a_block_outside_the_window(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	assert_int_equal(rcout_pru_open(r->mem.win, WIN_LEN - RCOUT_PRU_BYTES + 4, &out), -EINVAL);
	assert_int_equal(rcout_pru_open(r->mem.win, 2, &out), -EINVAL);
	assert_null(out);
}

static void test_rcout_pru_open_refuses_a_window_of_all_ones(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	memset((void *)r->fw.blk, 0xFF, RCOUT_PRU_BYTES);
	assert_int_equal(rcout_pru_open(r->mem.win, CMD_OFF, &out), -ENXIO);
	assert_null(out);
}

static void test_rcout_pru_open_says_timedout_when_no_firmware_answers(void **state)
{
	struct pru_ram *r = *state;
	struct rcout *out = NULL;

	uint64_t t0 = mono_us();
	assert_int_equal(rcout_pru_open(r->mem.win, CMD_OFF, &out), -ETIMEDOUT);
	uint64_t took = mono_us() - t0;
	assert_null(out);
	assert_true(took >= RCOUT_PRU_ANSWER_US);
	/* A hang check, not a timing one: generous for a busy host. */
	assert_true(took < 10000000);
	/* It left a command for the firmware to answer. */
	assert_int_equal(blk_get(r->fw.blk, W_MAGIC), CMD_MAGIC);
}

static void test_rcout_pru_starts_all_12_off_at_50hz_even_after_a_previous_run(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	/* A previous run left outputs 3 and 7 on (and a single bit would stop one). */
	blk_put(r->fw.blk, W_ENMASK, (1u << 3) | (1u << 7));
	wait_passes(r, 2);
	assert_int_equal(fw_enmask(r), (1u << 3) | (1u << 7));

	struct rcout *out = open_out(r);
	wait_passes(r, 2);
	assert_int_equal(rcout_channels(out), 12);
	assert_int_equal(fw_enmask(r), 0);
	for (unsigned int bit = 0; bit < CH; bit++)
		assert_int_equal(blk_get(r->fw.blk, W_PERIODHI(bit)), 200000000 / 50);
	for (unsigned int ch = 0; ch < CH; ch++) {
		uint16_t us = 1;
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 0);
	}
	rcout_close(out);
}

static void test_rcout_pru_writes_each_channel_to_its_pru_bit(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	struct rcout *out = open_out(r);
	for (unsigned int ch = 0; ch < CH; ch++)
		assert_int_equal(rcout_write(out, ch, (uint16_t)(1000 + 50 * ch)), 0);
	wait_passes(r, 2);
	assert_int_equal(fw_enmask(r), 0xFFF);
	for (unsigned int ch = 0; ch < CH; ch++) {
		unsigned int bit = chan_bit[ch];
		uint16_t us = 0;
		assert_int_equal(atomic_load(&r->fw.hi[bit]), 200 * (1000 + 50 * ch));
		assert_int_equal(atomic_load(&r->fw.lo[bit]), 4000000 - 200 * (1000 + 50 * ch));
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 1000 + 50 * ch);
	}
	assert_int_equal(atomic_load(&r->fw.spikes), 0);
	rcout_close(out);
}

static void test_rcout_pru_keeps_a_single_output_on(void **state)
{
	struct pru_ram *r = *state;
	uint16_t us = 0;

	fw_start(r);
	struct rcout *out = open_out(r);
	unsigned int dis0 = atomic_load(&r->fw.disables);
	assert_int_equal(rcout_write(out, 4, 1500), 0);
	wait_passes(r, 20);
	/* Without a second bit in enmask the firmware would stop it on every pass. */
	assert_int_equal(fw_enmask(r), 1u << chan_bit[4]);
	assert_int_equal(atomic_load(&r->fw.disables), dis0);
	assert_int_equal(rcout_read(out, 4, &us), 0);
	assert_int_equal(us, 1500);
	rcout_close(out);
}

static void test_rcout_pru_turns_one_output_off_and_leaves_the_others(void **state)
{
	struct pru_ram *r = *state;
	uint16_t us = 0;

	fw_start(r);
	struct rcout *out = open_out(r);
	for (unsigned int ch = 0; ch < 4; ch++)
		assert_int_equal(rcout_write(out, ch, 1500), 0);
	wait_passes(r, 2);
	assert_int_equal(rcout_write(out, 1, 0), 0);
	/* Off when the call returns: the firmware confirmed it. */
	assert_int_equal(fw_enmask(r) & (1u << chan_bit[1]), 0);
	assert_int_equal(rcout_read(out, 1, &us), 0);
	assert_int_equal(us, 0);
	wait_passes(r, 2);
	for (unsigned int ch = 0; ch < 4; ch++) {
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, ch == 1 ? 0 : 1500);
	}
	/* The others take new widths again once the mask is back. */
	assert_int_equal(rcout_write(out, 2, 1200), 0);
	wait_passes(r, 2);
	assert_int_equal(atomic_load(&r->fw.hi[chan_bit[2]]), 200 * 1200);
	/* Off again is nothing to do; on again works. */
	assert_int_equal(rcout_write(out, 1, 0), 0);
	assert_int_equal(rcout_write(out, 1, 1700), 0);
	wait_passes(r, 2);
	assert_int_equal(rcout_read(out, 1, &us), 0);
	assert_int_equal(us, 1700);
	rcout_close(out);
}

static void test_rcout_pru_sets_periods_at_200_ticks_per_us(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	struct rcout *out = open_out(r);
	assert_int_equal(rcout_set_rate(out, 0x3, 400), 0);
	assert_int_equal(rcout_write(out, 0, 1000), 0);
	wait_passes(r, 2);
	assert_int_equal(blk_get(r->fw.blk, W_PERIODHI(chan_bit[0])), 500000);
	assert_int_equal(blk_get(r->fw.blk, W_PERIODHI(chan_bit[1])), 500000);
	assert_int_equal(blk_get(r->fw.blk, W_PERIODHI(chan_bit[2])), 4000000);
	assert_int_equal(atomic_load(&r->fw.lo[chan_bit[0]]), 500000 - 200000);
	rcout_close(out);
}

static void test_rcout_pru_refuses_a_width_that_does_not_fit_its_period(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	struct rcout *out = open_out(r);
	assert_int_equal(rcout_set_rate(out, 0x1, 490), 0);
	/* 490 Hz is 2040.8 us: the firmware's low time would underflow. */
	assert_int_equal(rcout_write(out, 0, 2041), -EINVAL);
	assert_int_equal(rcout_write(out, 0, 2040), 0);
	assert_int_equal(rcout_set_rate(out, 0x1, 500), -EINVAL);
	assert_int_equal(blk_get(r->fw.blk, W_PERIODHI(chan_bit[0])), 200000000 / 490);
	/* An output that is off does not hold a rate back. */
	assert_int_equal(rcout_write(out, 0, 0), 0);
	assert_int_equal(rcout_set_rate(out, 0x1, 500), 0);
	rcout_close(out);
}

static void test_rcout_pru_close_turns_every_output_off(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	struct rcout *out = open_out(r);
	for (unsigned int ch = 0; ch < CH; ch += 2)
		assert_int_equal(rcout_write(out, ch, 1100), 0);
	wait_passes(r, 2);
	assert_int_equal(__builtin_popcount(fw_enmask(r)), 6);
	rcout_close(out);
	assert_int_equal(fw_enmask(r), 0);
	assert_int_equal(blk_get(r->fw.blk, W_ENMASK), 0);
}

static void test_rcout_pru_puts_the_mask_back_after_a_firmware_restart(void **state)
{
	struct pru_ram *r = *state;
	uint16_t us = 0;

	fw_start(r);
	struct rcout *out = open_out(r);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 5, 1600), 0);
	wait_passes(r, 2);
	/* pwmpru1 restarted: all off, enmask cleared. */
	fw_stop(r);
	atomic_store(&r->fw.stop, false);
	atomic_store(&r->fw.enmask, 0);
	fw_start(r);
	wait_passes(r, 2);
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(rcout_write(out, 0, 1550), 0);
	wait_passes(r, 2);
	assert_int_equal(fw_enmask(r), (1u << chan_bit[0]) | (1u << chan_bit[5]));
	assert_int_equal(rcout_read(out, 0, &us), 0);
	assert_int_equal(us, 1550);
	rcout_close(out);
}

static void test_rcout_pru_gives_up_at_once_on_a_firmware_that_stopped(void **state)
{
	struct pru_ram *r = *state;

	fw_start(r);
	struct rcout *out = open_out(r);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_write(out, 1, 1500), 0);
	wait_passes(r, 2);
	atomic_store(&r->fw.halted, true);

	uint64_t t0 = mono_us();
	assert_int_equal(rcout_write(out, 0, 0), -ETIMEDOUT);
	uint64_t first = mono_us() - t0;
	assert_true(first >= RCOUT_PRU_ANSWER_US);
	/* Again: no second wait for a firmware known to be silent. */
	t0 = mono_us();
	assert_int_equal(rcout_write(out, 0, 0), -ETIMEDOUT);
	assert_true(mono_us() - t0 < RCOUT_PRU_ANSWER_US);

	/* It comes back and answers the command left for it: the next request goes through. */
	atomic_store(&r->fw.halted, false);
	while (blk_get(r->fw.blk, W_MAGIC) != REPLY_MAGIC)
		sched_yield();
	assert_int_equal(rcout_write(out, 0, 0), 0);
	assert_int_equal(fw_enmask(r), 1u << chan_bit[1]);
	rcout_close(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_rcout_pru_open_refuses_a_block_outside_the_window),
		T(test_rcout_pru_open_refuses_a_window_of_all_ones),
		T(test_rcout_pru_open_says_timedout_when_no_firmware_answers),
		T(test_rcout_pru_starts_all_12_off_at_50hz_even_after_a_previous_run),
		T(test_rcout_pru_writes_each_channel_to_its_pru_bit),
		T(test_rcout_pru_keeps_a_single_output_on),
		T(test_rcout_pru_turns_one_output_off_and_leaves_the_others),
		T(test_rcout_pru_sets_periods_at_200_ticks_per_us),
		T(test_rcout_pru_refuses_a_width_that_does_not_fit_its_period),
		T(test_rcout_pru_close_turns_every_output_off),
		T(test_rcout_pru_puts_the_mask_back_after_a_firmware_restart),
		T(test_rcout_pru_gives_up_at_once_on_a_firmware_that_stopped),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
