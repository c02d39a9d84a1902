// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The libgpiod GPIO backend (hal/linux, the one meson picked) against the
 * kernel's GPIO character device on gpio-sim, inside the kernel-test guest.
 * Each test makes its own simulated chip through configfs, so a failed test
 * leaves nothing requested that the next one needs. The simulator side is
 * sysfs: writing sim_gpioN/pull drives an input line the way a signal would,
 * reading sim_gpioN/value shows what an output line drives.
 *
 * Timing accuracy is not tested here: the guest's clock counts qemu's
 * instructions (ktest.sh), which says nothing of a real pin's latency or
 * jitter. This proves that edges and kernel timestamps travel through the
 * real interface.
 */
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "fulmar/rcin.h"
#include "ktest.h"
#include "rc/input.h"
#include "linux/hal_linux.h"

#define SIM_CONFIGFS "/sys/kernel/config/gpio-sim"

struct sim {
	char name[32];          /* configfs device and the chip's label */
	char dev[32];           /* platform device: "gpio-sim.0" */
	char chip[32];          /* "gpiochip0" */
	bool live;
};

static int sim_path(const struct sim *s, unsigned int offset, const char *attr, char *path,
		    size_t size)
{
	int n = snprintf(path, size, "/sys/devices/platform/%s/%s/sim_gpio%u/%s", s->dev, s->chip,
			 offset, attr);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* A live chip of num_lines lines labelled name; 0 or -errno. */
static int sim_create(struct sim *s, const char *name, unsigned int num_lines)
{
	char path[192];
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s", name);
	if (mkdir(path, 0755) < 0)
		return -errno;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/bank0", name);
	if (mkdir(path, 0755) < 0)
		return -errno;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/bank0/num_lines", name);
	if ((rc = ktest_writef(path, "%u", num_lines)) < 0)
		return rc;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/bank0/label", name);
	if ((rc = ktest_write(path, name)) < 0)
		return rc;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/live", name);
	if ((rc = ktest_write(path, "1")) < 0)
		return rc;
	s->live = true;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/dev_name", name);
	if ((rc = ktest_read(path, s->dev, sizeof(s->dev))) < 0)
		return rc;
	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/bank0/chip_name", name);
	if ((rc = ktest_read(path, s->chip, sizeof(s->chip))) < 0)
		return rc;
	return 0;
}

static int sim_set_live(struct sim *s, bool live)
{
	char path[192];

	snprintf(path, sizeof(path), SIM_CONFIGFS "/%s/live", s->name);
	int rc = ktest_write(path, live ? "1" : "0");
	if (rc == 0)
		s->live = live;
	return rc;
}

/* Drive an input line from the outside, as a receiver's signal would. */
static int sim_pull(const struct sim *s, unsigned int offset, int up)
{
	char path[192];
	int rc = sim_path(s, offset, "pull", path, sizeof(path));

	return rc ? rc : ktest_write(path, up ? "pull-up" : "pull-down");
}

/* The level on the line as the simulator sees it: 0, 1 or -errno. */
static int sim_value(const struct sim *s, unsigned int offset)
{
	char path[192], buf[8];
	int rc = sim_path(s, offset, "value", path, sizeof(path));

	if (rc == 0)
		rc = ktest_read(path, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	return buf[0] == '1';
}

/* Waits up to timeout_ms for the event fd to be readable: 1, 0 on timeout, or -errno. */
static int wait_readable(struct gpio_line *line, int timeout_ms)
{
	struct pollfd pfd = { .fd = gpio_event_fd(line), .events = POLLIN };

	if (pfd.fd < 0)
		return pfd.fd;
	int rc = poll(&pfd, 1, timeout_ms);
	if (rc < 0)
		return -errno;
	return rc > 0 && (pfd.revents & POLLIN);
}

/*
 * Both edges, one at a time: each arrives once, in order, alternating, and
 * carries a CLOCK_MONOTONIC kernel stamp taken between the moment we drove
 * the line and the moment poll said it was there.
 */
static void test_gpio_edges_arrive_in_order_with_monotonic_kernel_timestamps(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-edges", .offset = 2, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_BOTH,
	};
	struct gpio_line *line;
	struct sim s;
	uint64_t last_ns = 0;
	uint32_t last_seqno = 0;

	KT_CHECK_OK(sim_create(&s, "ktest-edges", 4));
	/* Looked up by label, as board tables may name a chip. */
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK(gpio_event_fd(line) >= 0, "no event fd");
	struct gpio_event ev[4];
	KT_CHECK(gpio_read_events(line, ev, 4) == 0, "events queued before any edge");

	for (int i = 0; i < 12; i++) {
		bool rising = i % 2 == 0;
		uint64_t before = ktest_now_ns();
		KT_CHECK_OK(sim_pull(&s, 2, rising));
		KT_CHECK(wait_readable(line, 2000) == 1, "edge %d never became readable", i);
		uint64_t seen = ktest_now_ns();
		int n = gpio_read_events(line, ev, 4);
		KT_CHECK(n == 1, "edge %d: read %d events, want 1", i, n);
		KT_CHECK(ev[0].rising == rising, "edge %d: rising=%d, want %d", i, ev[0].rising,
			 rising);
		KT_CHECK(ev[0].t_ns >= before && ev[0].t_ns <= seen,
			 "edge %d: stamp %llu ns outside [%llu, %llu]: not CLOCK_MONOTONIC?", i,
			 (unsigned long long)ev[0].t_ns, (unsigned long long)before,
			 (unsigned long long)seen);
		KT_CHECK(ev[0].t_ns > last_ns, "edge %d: stamp went backwards", i);
		/* libgpiod 1.x cannot see the kernel's sequence numbers: 0; 2.x: consecutive. */
		KT_CHECK(ev[0].seqno == 0 || ev[0].seqno == last_seqno + 1,
			 "edge %d: seqno %u after %u", i, ev[0].seqno, last_seqno);
		last_ns = ev[0].t_ns;
		last_seqno = ev[0].seqno;
	}
	KT_CHECK(gpio_read_events(line, ev, 4) == 0, "more events than edges");
	gpio_close(line);
	sim_set_live(&s, false);
}

/* Ten edges driven back to back, read afterwards: all there, oldest first. */
static void test_gpio_edges_queued_while_nobody_reads_come_out_oldest_first(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-burst", .offset = 0, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_BOTH,
	};
	struct gpio_line *line;
	struct sim s;
	uint64_t driven_ns[10];
	struct gpio_event ev[16];

	KT_CHECK_OK(sim_create(&s, "ktest-burst", 1));
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	for (int i = 0; i < 10; i++) {
		driven_ns[i] = ktest_now_ns();
		KT_CHECK_OK(sim_pull(&s, 0, i % 2 == 0));
	}
	/* The simulator raises its interrupts from irq_work: give the last one a moment. */
	uint64_t deadline = ktest_now_ns() + UINT64_C(2000000000);
	int n = 0;
	while (n < 10 && ktest_now_ns() < deadline) {
		KT_CHECK(wait_readable(line, 100) >= 0, "poll failed");
		int got = gpio_read_events(line, ev + n, 16 - (size_t)n);
		KT_CHECK(got >= 0, "read_events: %d (%s)", got, strerror(-got));
		n += got;
	}
	KT_CHECK(n == 10, "read %d events for 10 edges", n);
	for (int i = 0; i < 10; i++) {
		KT_CHECK(ev[i].rising == (i % 2 == 0), "event %d has the wrong direction", i);
		KT_CHECK(ev[i].t_ns >= driven_ns[i], "event %d stamped before its edge", i);
		KT_CHECK(i == 0 || ev[i].t_ns > ev[i - 1].t_ns, "event %d out of order", i);
	}
	gpio_close(line);
	sim_set_live(&s, false);
}

/* The edge in the board table is the edge the kernel is asked for. */
static void test_gpio_falling_edge_request_sees_only_falling_edges(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-falling", .offset = 1, .dir = GPIO_DIR_INPUT,
		.edge = GPIO_EDGE_FALLING,
	};
	const struct gpio_config rising_cfg = {
		.chip = "ktest-falling", .offset = 0, .dir = GPIO_DIR_INPUT,
		.edge = GPIO_EDGE_RISING,
	};
	struct gpio_line *line, *rising_line;
	struct sim s;
	struct gpio_event ev[8];

	KT_CHECK_OK(sim_create(&s, "ktest-falling", 2));
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK_OK(gpio_linux_open(&rising_cfg, &rising_line));
	for (int i = 0; i < 3; i++) {
		KT_CHECK_OK(sim_pull(&s, 1, 1));
		KT_CHECK_OK(sim_pull(&s, 0, 1));
		KT_CHECK_OK(sim_pull(&s, 1, 0));
		KT_CHECK_OK(sim_pull(&s, 0, 0));
	}
	/* Both lines had 6 edges; each must report exactly its 3. */
	int n = 0;
	for (int tries = 0; n < 3 && tries < 20; tries++) {
		KT_CHECK(wait_readable(line, 100) >= 0, "poll failed");
		int got = gpio_read_events(line, ev + n, 8 - (size_t)n);
		KT_CHECK(got >= 0, "read_events: %d", got);
		n += got;
	}
	KT_CHECK(n == 3, "falling-edge line reported %d events for 3 falling edges", n);
	for (int i = 0; i < n; i++)
		KT_CHECK(!ev[i].rising, "falling-edge line reported a rising edge");
	n = 0;
	for (int tries = 0; n < 3 && tries < 20; tries++) {
		KT_CHECK(wait_readable(rising_line, 100) >= 0, "poll failed");
		int got = gpio_read_events(rising_line, ev + n, 8 - (size_t)n);
		KT_CHECK(got >= 0, "read_events: %d", got);
		n += got;
	}
	KT_CHECK(n == 3, "rising-edge line reported %d events for 3 rising edges", n);
	for (int i = 0; i < n; i++)
		KT_CHECK(ev[i].rising, "rising-edge line reported a falling edge");
	/* Settle, then nothing more may be queued on either. */
	struct timespec settle = { .tv_nsec = 50000000 };
	nanosleep(&settle, NULL);
	KT_CHECK(gpio_read_events(line, ev, 8) == 0, "extra events on the falling-edge line");
	KT_CHECK(gpio_read_events(rising_line, ev, 8) == 0, "extra events on the rising line");
	gpio_close(rising_line);
	gpio_close(line);
	sim_set_live(&s, false);
}

/* The bias in the board table reaches the pin: the simulator follows the pull we ask for. */
static void test_gpio_input_bias_pulls_the_line(void)
{
	struct gpio_config cfg = {
		.chip = "ktest-bias", .offset = 0, .dir = GPIO_DIR_INPUT,
		.bias = GPIO_BIAS_PULL_UP,
	};
	struct gpio_line *line;
	struct sim s;

	KT_CHECK_OK(sim_create(&s, "ktest-bias", 1));
	KT_CHECK(sim_value(&s, 0) == 0, "gpio-sim lines start pulled down");
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK(gpio_get(line) == 1, "pull-up input reads %d", gpio_get(line));
	KT_CHECK(sim_value(&s, 0) == 1, "simulator does not see the pull-up");
	gpio_close(line);

	cfg.bias = GPIO_BIAS_PULL_DOWN;
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK(gpio_get(line) == 0, "pull-down input reads %d", gpio_get(line));
	KT_CHECK(sim_value(&s, 0) == 0, "simulator does not see the pull-down");
	gpio_close(line);
	sim_set_live(&s, false);
}

/* active_low inverts the level we read and the direction of the edges we see. */
static void test_gpio_active_low_input_inverts_level_and_edges(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-actlow", .offset = 0, .dir = GPIO_DIR_INPUT,
		.edge = GPIO_EDGE_BOTH, .active_low = true,
	};
	struct gpio_line *line;
	struct sim s;
	struct gpio_event ev[2];

	KT_CHECK_OK(sim_create(&s, "ktest-actlow", 1));
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK(gpio_get(line) == 1, "active-low input at physical 0 reads %d", gpio_get(line));
	KT_CHECK_OK(sim_pull(&s, 0, 1));
	KT_CHECK(wait_readable(line, 2000) == 1, "no edge");
	KT_CHECK(gpio_read_events(line, ev, 2) == 1, "one edge expected");
	KT_CHECK(!ev[0].rising, "physical rise of an active-low line is a logical fall");
	KT_CHECK(gpio_get(line) == 0, "active-low input at physical 1 reads %d", gpio_get(line));
	gpio_close(line);
	sim_set_live(&s, false);
}

/* The buzzer: what we drive is what the pin shows, toggled repeatedly. */
static void test_gpio_buzzer_output_toggles_and_reads_back_on_the_sim_side(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-buzzer", .offset = 3, .dir = GPIO_DIR_OUTPUT, .initial_value = 0,
		.consumer = "buzzer",
	};
	const struct gpio_config inverted_cfg = {
		.chip = "ktest-buzzer", .offset = 1, .dir = GPIO_DIR_OUTPUT, .initial_value = 1,
		.active_low = true,
	};
	struct gpio_line *line, *inverted;
	struct sim s;

	KT_CHECK_OK(sim_create(&s, "ktest-buzzer", 4));
	/* The simulator pulls up, so a line left as an input would read 1. */
	KT_CHECK_OK(sim_pull(&s, 3, 1));
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK(sim_value(&s, 3) == 0, "initial value 0 not driven");
	for (int i = 0; i < 10; i++) {
		int v = i % 2 == 0;
		KT_CHECK_OK(gpio_set(line, v));
		KT_CHECK(sim_value(&s, 3) == v, "toggle %d: pin is %d, want %d", i, sim_value(&s, 3),
			 v);
		KT_CHECK(gpio_get(line) == v, "toggle %d: gpio_get says %d", i, gpio_get(line));
	}
	KT_CHECK_OK(gpio_linux_open(&inverted_cfg, &inverted));
	KT_CHECK(sim_value(&s, 1) == 0, "active-low output at logical 1 drives physical 0");
	KT_CHECK_OK(gpio_set(inverted, 0));
	KT_CHECK(sim_value(&s, 1) == 1, "active-low output at logical 0 drives physical 1");
	gpio_close(inverted);
	gpio_close(line);
	sim_set_live(&s, false);
}

/*
 * A chip that disappears under open lines (gpio-sim's live = 0, as an unbound
 * or unplugged GPIO expander): every call returns an error, none hangs, and
 * close still releases what we hold; reopening says the chip is gone.
 */
static void test_gpio_line_that_goes_away_gives_a_clean_error(void)
{
	const struct gpio_config edge_cfg = {
		.chip = "ktest-gone", .offset = 0, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_BOTH,
	};
	const struct gpio_config out_cfg = {
		.chip = "ktest-gone", .offset = 1, .dir = GPIO_DIR_OUTPUT,
	};
	struct gpio_line *edge, *out;
	struct gpio_event ev[2];
	struct sim s;

	KT_CHECK_OK(sim_create(&s, "ktest-gone", 2));
	KT_CHECK_OK(gpio_linux_open(&edge_cfg, &edge));
	KT_CHECK_OK(gpio_linux_open(&out_cfg, &out));
	KT_CHECK_OK(sim_set_live(&s, false));

	uint64_t t0 = ktest_now_ns();
	struct pollfd pfd = { .fd = gpio_event_fd(edge), .events = POLLIN };
	KT_CHECK(poll(&pfd, 1, 2000) == 1, "poll on a removed line's event fd did not return");
	KT_CHECK(pfd.revents & (POLLERR | POLLHUP), "revents 0x%x", (unsigned int)pfd.revents);
	int rc = gpio_read_events(edge, ev, 2);
	printf("#   after removal: read_events %d (%s)", rc, strerror(-rc));
	KT_CHECK(rc < 0, "read_events on a removed line returned %d", rc);
	rc = gpio_get(edge);
	printf(", get %d (%s)", rc, strerror(-rc));
	KT_CHECK(rc < 0, "get on a removed line returned %d", rc);
	rc = gpio_set(out, 1);
	printf(", set %d (%s)", rc, strerror(-rc));
	KT_CHECK(rc < 0, "set on a removed line returned %d", rc);
	rc = gpio_get(out);
	printf(", get output %d (%s)\n", rc, strerror(-rc));
	KT_CHECK(rc < 0, "get on a removed output returned %d", rc);
	gpio_close(out);
	gpio_close(edge);
	/*
	 * Guest time counts instructions (ktest.sh), which host load cannot
	 * stretch, and these calls take well under a millisecond of it: 5 s
	 * catches hangs, whatever else runs on the host.
	 */
	uint64_t took_ns = ktest_now_ns() - t0;
	printf("#   error paths took %llu us\n", (unsigned long long)(took_ns / 1000));
	KT_CHECK(took_ns < UINT64_C(5000000000), "error paths took over 5 s");

	struct gpio_line *again;
	rc = gpio_linux_open(&edge_cfg, &again);
	KT_CHECK(rc == -ENOENT || rc == -ENODEV, "reopening a removed chip: %d (%s)", rc,
		 strerror(-rc));
}

static void sleep_until_ns(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000u),
			       .tv_nsec = (long)(t_ns % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#define PPM_CHANNELS 8
#define PPM_FRAMES 8
#define PPM_PULSE_US 400    /* the low pulse that starts each channel and the sync */
#define PPM_SYNC_US 8000

/* Every pulse pair the capture backend handed over, and the frames the decoders made. */
struct ppm_capture {
	struct rcin_pulse pulse[PPM_FRAMES * (PPM_CHANNELS + 1) + 1];
	size_t count;
	struct rc_input in;
	struct rc_frame frame[PPM_FRAMES];
	size_t frame_sync[PPM_FRAMES];  /* pulse[] index of the sync that ended each frame */
	int frames;
};

/* Hands every pulse pair captured so far to the decoders; 0 or -errno. */
static int ppm_drain(struct rcin *rc, struct ppm_capture *c)
{
	size_t room = sizeof(c->pulse) / sizeof(c->pulse[0]) - c->count;

	if (room == 0)
		return -ENOSPC;
	int n = rcin_read(rc, c->pulse + c->count, room, ktest_now_ns() / 1000);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++, c->count++) {
		const struct rcin_pulse *p = &c->pulse[c->count];
		struct rc_frame f;
		if (rc_input_pulse(&c->in, p->low_us, p->high_us, p->t_us, &f) != 1)
			continue;
		if (c->frames == PPM_FRAMES)
			return -EOVERFLOW;
		c->frame[c->frames] = f;
		c->frame_sync[c->frames++] = c->count;
	}
	return 0;
}

/*
 * Drives the line through PPM_FRAMES frames of want[] and a sync each, with
 * absolute sleeps, handing what was captured to the decoders after each
 * channel; 0 or -errno.
 */
static int ppm_send(const struct sim *s, const uint16_t *want, struct rcin *rc,
		    struct ppm_capture *c)
{
	uint64_t t = ktest_now_ns() + 2000000;
	int err;

	for (int frame = 0; frame < PPM_FRAMES; frame++) {
		for (int ch = 0; ch <= PPM_CHANNELS; ch++) {
			/* Low for the pulse, then high for the rest of the channel (or of the sync). */
			uint64_t width_us = ch < PPM_CHANNELS ? want[ch] : PPM_SYNC_US;
			sleep_until_ns(t);
			if ((err = sim_pull(s, 0, 0)) < 0)
				return err;
			t += PPM_PULSE_US * 1000;
			sleep_until_ns(t);
			if ((err = sim_pull(s, 0, 1)) < 0)
				return err;
			t += (width_us - PPM_PULSE_US) * 1000;
			if ((err = ppm_drain(rc, c)) < 0)
				return err;
		}
	}
	/* The falling edge that ends the last sync, and with it the last frame. */
	sleep_until_ns(t);
	if ((err = sim_pull(s, 0, 0)) < 0)
		return err;
	sleep_until_ns(t + 1000000);
	return ppm_drain(rc, c);
}

/* For a failure report: every interval the kernel stamped, falling edge to falling edge. */
static void ppm_print_stamped(const struct ppm_capture *c)
{
	printf("#   the kernel stamped (us):");
	for (size_t i = 0; i < c->count; i++)
		printf("%s %u", i % (PPM_CHANNELS + 1) == 0 ? "\n#    " : "",
		       c->pulse[i].low_us + c->pulse[i].high_us);
	printf("\n");
}

/*
 * A PPM-sum receiver on the pin: the line is driven through a waveform of
 * eight channels and a sync gap, and its kernel-stamped edges go through our
 * libgpiod backend and the GPIO capture backend into the RC decoders, which
 * must lock on PPM and give back the eight channels.
 *
 * The guest paces the edges on its own clock, which counts instructions
 * (ktest.sh runs qemu with -icount), so host load cannot move them: on the
 * host's clock a descheduled qemu put milliseconds between edges meant to be
 * 400 us apart, and the decoder never locked. What remains is the guest's own
 * work between a timer's expiry and the edge: at SCHED_FIFO no kernel thread
 * runs there (rcu_preempt, woken by a tick, was seen to take 40 us), which
 * leaves a tick's interrupt and softirq: about 20 us at most in our runs.
 *
 * Two checks on every decoded frame, each tolerance with its reason:
 *  - each channel is exactly the interval the kernel stamped for it (falling
 *    edge to falling edge): nothing between the kernel and the decoder may
 *    add, drop or round a microsecond;
 *  - each stamped interval is within half the waveform's smallest spacing of
 *    two channel values of the one sent, so it can only be that channel: a
 *    lost, extra or mispaired edge shows, the pacing's error does not.
 * Exact pulse timing is the host unit tests' business.
 */
static void test_gpio_ppm_waveform_reaches_the_rc_decoder(void)
{
	const struct gpio_config cfg = {
		.chip = "ktest-ppm", .offset = 0, .dir = GPIO_DIR_INPUT, .edge = GPIO_EDGE_BOTH,
	};
	/* 150 us apart, and far enough inside RC_CHANNEL_MIN/MAX_US that none is clamped. */
	static const uint16_t want[PPM_CHANNELS] = {
		1000, 1150, 1300, 1450, 1600, 1750, 1900, 2050,
	};
	const struct sched_param rt = { .sched_priority = 1 };
	const struct sched_param normal = { .sched_priority = 0 };
	static struct ppm_capture c;
	struct gpio_line *line;
	struct rcin *rc;
	struct sim s;

	int tolerance_us = INT_MAX;
	for (int i = 0; i < PPM_CHANNELS; i++)
		for (int j = i + 1; j < PPM_CHANNELS; j++)
			if (abs(want[i] - want[j]) / 2 < tolerance_us)
				tolerance_us = abs(want[i] - want[j]) / 2;
	memset(&c, 0, sizeof(c));
	rc_input_init(&c.in);

	KT_CHECK_OK(sim_create(&s, "ktest-ppm", 1));
	KT_CHECK_OK(gpio_linux_open(&cfg, &line));
	KT_CHECK_OK(rcin_gpio_open(line, &rc));
	KT_CHECK(sched_setscheduler(0, SCHED_FIFO, &rt) == 0, "SCHED_FIFO: %s", strerror(errno));
	int sent = ppm_send(&s, want, rc, &c);
	int restored = sched_setscheduler(0, SCHED_OTHER, &normal) == 0 ? 0 : -errno;
	KT_CHECK_OK(sent);
	KT_CHECK_OK(restored);

	if (c.frames < 2)
		ppm_print_stamped(&c);
	KT_CHECK(c.frames >= 2, "%d PPM frames decoded from %d sent", c.frames, PPM_FRAMES);
	int worst_us = 0;
	for (int k = 0; k < c.frames; k++) {
		const struct rc_frame *f = &c.frame[k];
		KT_CHECK(f->protocol == RC_PROTOCOL_PPM, "frame %d: protocol %d, want PPM", k + 1,
			 f->protocol);
		KT_CHECK(f->channel_count == PPM_CHANNELS, "frame %d: %u channels, want %d", k + 1,
			 f->channel_count, PPM_CHANNELS);
		const struct rcin_pulse *ch = &c.pulse[c.frame_sync[k] - PPM_CHANNELS];
		for (int i = 0; i < PPM_CHANNELS; i++) {
			uint32_t stamped_us = ch[i].low_us + ch[i].high_us;
			KT_CHECK(f->channels_us[i] == stamped_us,
				 "frame %d channel %d: decoded %u us, the kernel stamped %u us", k + 1,
				 i + 1, f->channels_us[i], stamped_us);
			int off_us = abs((int)stamped_us - (int)want[i]);
			worst_us = off_us > worst_us ? off_us : worst_us;
			KT_CHECK(off_us <= tolerance_us,
				 "frame %d channel %d: %u us stamped for %u us sent (tolerance %d us)",
				 k + 1, i + 1, stamped_us, want[i], tolerance_us);
		}
	}
	printf("# %d PPM frames decoded, worst channel error %d us (tolerance %d us)\n", c.frames,
	       worst_us, tolerance_us);
	rcin_close(rc);
	gpio_close(line);
	sim_set_live(&s, false);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	KT_RUN(test_gpio_edges_arrive_in_order_with_monotonic_kernel_timestamps);
	KT_RUN(test_gpio_edges_queued_while_nobody_reads_come_out_oldest_first);
	KT_RUN(test_gpio_falling_edge_request_sees_only_falling_edges);
	KT_RUN(test_gpio_input_bias_pulls_the_line);
	KT_RUN(test_gpio_active_low_input_inverts_level_and_edges);
	KT_RUN(test_gpio_buzzer_output_toggles_and_reads_back_on_the_sim_side);
	KT_RUN(test_gpio_ppm_waveform_reaches_the_rc_decoder);
	KT_RUN(test_gpio_line_that_goes_away_gives_a_clean_error);
	return ktest_done();
}
