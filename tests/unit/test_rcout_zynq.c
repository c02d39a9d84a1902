// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * 8 PWM outputs through the Zynq PL PWM block, with the real backend
 * (hal/zynq/rcout_zynq.c) and the public rcout calls. The PL's registers are
 * plain read/write words, so a memfd mapped through the real mmio backend
 * (hal/linux/mmio_linux.c, "/proc/self/fd/N" at 0) stands in for them, and
 * the test reads them as the PL would from a mapping of its own. Windows
 * that read all ones or forget what is written are a struct mmio of the
 * test's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/hal_linux.h"
#include "zynq/hal_zynq.h"

#define WIN_LEN 0x1000
#define PWM_OFF 0x100          /* anywhere in the window: the board says where */

struct pl_regs {
	int fd;
	struct mmio *win;           /* the backend's, through mmio_linux */
	volatile uint32_t *pl;      /* the PL's side */
};

static int setup(void **state)
{
	struct pl_regs *r = calloc(1, sizeof(*r));
	char path[64];

	assert_non_null(r);
	r->fd = memfd_create("fulmar-zynq-pwm", MFD_CLOEXEC);
	assert_true(r->fd >= 0);
	assert_int_equal(ftruncate(r->fd, WIN_LEN), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->fd);
	const struct mmio_config cfg = { .mem_path = path, .phys_base = 0, .len = WIN_LEN };
	assert_int_equal(mmio_linux_open(&cfg, "/sys", &r->win), 0);
	r->pl = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	assert_true(r->pl != MAP_FAILED);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct pl_regs *r = *state;

	munmap((void *)r->pl, WIN_LEN);
	mmio_close(r->win);
	close(r->fd);
	free(r);
	return 0;
}

static uint32_t period_reg(struct pl_regs *r, unsigned int ch)
{
	return r->pl[(PWM_OFF + 8 * ch) / 4];
}

static uint32_t high_reg(struct pl_regs *r, unsigned int ch)
{
	return r->pl[(PWM_OFF + 8 * ch + 4) / 4];
}

static struct rcout *open_out(struct pl_regs *r)
{
	struct rcout *out = NULL;

	assert_int_equal(rcout_zynq_open(r->win, PWM_OFF, &out), 0);
	assert_non_null(out);
	return out;
}

/* A window of the test's own: all ones, or words that forget what is written. */
struct odd_regs {
	struct mmio m;
	uint32_t value;
};

static uint32_t odd_read32(struct mmio *m, size_t off)
{
	(void)off;
	return ((struct odd_regs *)m)->value;
}

static void odd_write32(struct mmio *m, size_t off, uint32_t value)
{
	(void)m;
	(void)off;
	(void)value;
}

static void odd_close(struct mmio *m)
{
	(void)m;
}

static const struct mmio_ops odd_ops = {
	.read32 = odd_read32,
	.write32 = odd_write32,
	.close = odd_close,
};

static void test_rcout_zynq_open_refuses_windows_with_no_pwm_block(void **state)
{
	struct pl_regs *r = *state;
	struct odd_regs ones = { .m = { .ops = &odd_ops, .len = WIN_LEN }, .value = 0xFFFFFFFFu };
	struct odd_regs deaf = { .m = { .ops = &odd_ops, .len = WIN_LEN }, .value = 0 };
	struct rcout *out = NULL;

	assert_int_equal(rcout_zynq_open(r->win, WIN_LEN - 32, &out), -EINVAL);
	assert_int_equal(rcout_zynq_open(r->win, 6, &out), -EINVAL);
	assert_int_equal(rcout_zynq_open(&ones.m, 0, &out), -ENXIO);
	assert_int_equal(rcout_zynq_open(&deaf.m, 0, &out), -EIO);
	assert_null(out);
}

static void test_rcout_zynq_starts_8_channels_at_50hz_with_no_pulses(void **state)
{
	struct pl_regs *r = *state;

	for (unsigned int ch = 0; ch < 8; ch++)
		r->pl[(PWM_OFF + 8 * ch + 4) / 4] = 150000;  /* left by a previous run */
	struct rcout *out = open_out(r);

	assert_int_equal(rcout_channels(out), 8);
	for (unsigned int ch = 0; ch < 8; ch++) {
		uint16_t us = 1;
		assert_int_equal(period_reg(r, ch), 2000000);
		assert_int_equal(high_reg(r, ch), 0);
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 0);
	}
	/* The registers around the block are not touched. */
	assert_int_equal(r->pl[PWM_OFF / 4 - 1], 0);
	assert_int_equal(r->pl[(PWM_OFF + 64) / 4], 0);
	rcout_close(out);
}

static void test_rcout_zynq_writes_high_ticks_at_100_per_us(void **state)
{
	struct pl_regs *r = *state;
	struct rcout *out = open_out(r);
	uint16_t us;

	for (unsigned int ch = 0; ch < 8; ch++)
		assert_int_equal(rcout_write(out, ch, (uint16_t)(1000 + 100 * ch)), 0);
	for (unsigned int ch = 0; ch < 8; ch++) {
		assert_int_equal(high_reg(r, ch), 100 * (1000 + 100 * ch));
		assert_int_equal(rcout_read(out, ch, &us), 0);
		assert_int_equal(us, 1000 + 100 * ch);
	}
	assert_int_equal(rcout_write(out, 3, 0), 0);
	assert_int_equal(high_reg(r, 3), 0);
	assert_int_equal(rcout_write(out, 8, 1500), -EINVAL);
	assert_int_equal(rcout_write(out, 0, 499), -EINVAL);
	assert_int_equal(rcout_write(out, 0, 2501), -EINVAL);
	rcout_close(out);
}

static void test_rcout_zynq_sets_the_period_of_the_channels_in_the_mask(void **state)
{
	struct pl_regs *r = *state;
	struct rcout *out = open_out(r);

	assert_int_equal(rcout_set_rate(out, 0x0F, 400), 0);
	for (unsigned int ch = 0; ch < 8; ch++)
		assert_int_equal(period_reg(r, ch), ch < 4 ? 250000 : 2000000);
	assert_int_equal(rcout_set_rate(out, 0xFFFFFFFFu, 490), 0);
	for (unsigned int ch = 0; ch < 8; ch++)
		assert_int_equal(period_reg(r, ch), 100000000 / 490);
	rcout_close(out);
}

static void test_rcout_zynq_refuses_a_width_that_does_not_fit_its_period(void **state)
{
	struct pl_regs *r = *state;
	struct rcout *out = open_out(r);

	assert_int_equal(rcout_set_rate(out, 0x01, 490), 0);
	/* 490 Hz is 2040.8 us. */
	assert_int_equal(rcout_write(out, 0, 2040), 0);
	assert_int_equal(rcout_write(out, 0, 2041), -EINVAL);
	assert_int_equal(high_reg(r, 0), 204000);
	/* A rate under which a channel's width would not fit changes nothing. */
	assert_int_equal(rcout_write(out, 1, 1900), 0);
	assert_int_equal(rcout_set_rate(out, 0x03, 500), -EINVAL);
	assert_int_equal(period_reg(r, 0), 100000000 / 490);
	assert_int_equal(period_reg(r, 1), 2000000);
	assert_int_equal(rcout_write(out, 0, 1500), 0);
	assert_int_equal(rcout_set_rate(out, 0x03, 500), 0);
	assert_int_equal(period_reg(r, 1), 200000);
	rcout_close(out);
}

static void test_rcout_zynq_close_stops_the_pulses(void **state)
{
	struct pl_regs *r = *state;
	struct rcout *out = open_out(r);

	for (unsigned int ch = 0; ch < 8; ch++)
		assert_int_equal(rcout_write(out, ch, 1500), 0);
	rcout_close(out);
	for (unsigned int ch = 0; ch < 8; ch++)
		assert_int_equal(high_reg(r, ch), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rcout_zynq_open_refuses_windows_with_no_pwm_block,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_zynq_starts_8_channels_at_50hz_with_no_pulses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_zynq_writes_high_ticks_at_100_per_us,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_zynq_sets_the_period_of_the_channels_in_the_mask,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_zynq_refuses_a_width_that_does_not_fit_its_period,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rcout_zynq_close_stops_the_pulses,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
