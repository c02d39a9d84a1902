// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Not a test: the benchmark program behind tools/bench-imu. The timer
 * thread's IMU read path as board_io runs it - mpu_poll() (its two SPI
 * kernel calls through the HAL's spi_transfer_batch, FIFO decode, scaling,
 * rotation) and sensors_push_imu() into the hub's ring - against an emulated
 * MPU9250 behind struct spi_ops, or against a real spidev node (then the
 * chip must be there: an MPU9250 or MPU6000 wired to it).
 *
 * The emulated chip's own work is measured apart (a shim around its ops
 * times every call into it), since on a board that time is spent in the
 * kernel's spidev and on the wire instead.
 *
 *   bench_imu [-n POLLS] [-d /dev/spidevB.C]
 * Prints one line per figure. bench_workload() is the function callgrind
 * counts (tools/bench-imu); emul_chip_call() is the chip's share.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/spi/spidev.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../emul/emul_mpu.h"
#include "daemon/sensors.h"
#include "drivers/mpu.h"
#include "fulmar/clock.h"
#include "fulmar/spi.h"
#include "linux/hal_linux.h"

struct timed_chip {
	struct spi_dev dev;           /* first: the driver sees this */
	struct spi_dev *chip;
	uint64_t ns;                  /* inside the chip's ops */
	uint64_t calls;
	uint32_t speed_hz;            /* the handle's default clock */
	double wire_ns;               /* what the bytes would take on the wire */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Kept out of line so callgrind can count it alone. */
__attribute__((noinline)) int emul_chip_call(struct spi_dev *chip, const struct spi_xfer *x,
					     size_t n);
__attribute__((noinline)) int emul_chip_call(struct spi_dev *chip, const struct spi_xfer *x,
					     size_t n)
{
	return chip->ops->transfer_batch(chip, x, n);
}

static int timed_batch(struct spi_dev *dev, const struct spi_xfer *x, size_t n)
{
	struct timed_chip *t = (struct timed_chip *)(void *)dev;
	for (size_t i = 0; i < n; i++) {
		uint32_t hz = x[i].speed_hz ? x[i].speed_hz : t->speed_hz;
		t->wire_ns += (double)x[i].len * 8.0 * 1e9 / (double)(hz ? hz : 1000000u);
	}
	uint64_t t0 = now_ns();
	int rc = emul_chip_call(t->chip, x, n);
	t->ns += now_ns() - t0;
	t->calls++;
	return rc;
}

static int timed_speed(struct spi_dev *dev, uint32_t hz)
{
	struct timed_chip *t = (struct timed_chip *)(void *)dev;
	t->speed_hz = hz;
	return t->chip->ops->set_speed ? t->chip->ops->set_speed(t->chip, hz) : 0;
}

static void timed_close(struct spi_dev *dev)
{
	(void)dev;
}

static const struct spi_ops timed_ops = { timed_batch, timed_speed, timed_close };

static struct emul_mpu emul;
static struct timed_chip timed;
static struct mpu mpu;
static struct sensor_hub hub;
static struct imu_sample buf[MPU_MAX_FRAMES];
static uint64_t vt_us = 1000000;      /* the emulated chip's clock */
static bool use_emul = true;

static uint64_t bench_now_us(void)
{
	return use_emul ? vt_us : clock_mono_ns() / 1000u;
}

static void bench_step(void)
{
	if (use_emul) {
		vt_us += 1000;
		emul_mpu_advance(&emul, vt_us);
	} else {
		clock_sleep_until_ns(clock_mono_ns() + 1000000u);
	}
}

/* polls mpu_poll calls, one per (emulated) millisecond; returns samples pushed. */
__attribute__((noinline)) uint64_t bench_workload(uint64_t polls, uint64_t *busy_ns);
__attribute__((noinline)) uint64_t bench_workload(uint64_t polls, uint64_t *busy_ns)
{
	uint64_t pushed = 0, ns = 0;
	struct imu_sample drain[64];
	for (uint64_t i = 0; i < polls; i++) {
		bench_step();
		uint64_t t0 = now_ns();
		int n = mpu_poll(&mpu, bench_now_us(), buf, MPU_MAX_FRAMES);
		for (int k = 0; k < n; k++)
			pushed += sensors_push_imu(&hub, &buf[k]) == 0;
		ns += now_ns() - t0;
		/* main's side, outside the timing */
		while (sensors_read_imu(&hub, drain, 64) > 0)
			;
	}
	*busy_ns = ns;
	return pushed;
}

int main(int argc, char **argv)
{
	uint64_t polls = 200000;
	const char *dev = NULL;
	int c;
	while ((c = getopt(argc, argv, "n:d:")) != -1) {
		if (c == 'n')
			polls = strtoull(optarg, NULL, 10);
		else if (c == 'd')
			dev = optarg;
		else
			return 2;
	}
	struct spi_dev *spi;
	static struct spi_config cfg = { .mode = 0, .speed_hz = 20000000 };
	if (dev) {
		use_emul = false;
		cfg.path = dev;
		int rc = spi_linux_open(&cfg, &spi);
		if (rc) {
			fprintf(stderr, "bench_imu: %s: %s\n", dev, strerror(-rc));
			return 1;
		}
	} else {
		emul_mpu_init(&emul, 0x71);
		emul.dither = true;
		timed.dev.ops = &timed_ops;
		timed.chip = &emul.dev;
		spi = &timed.dev;
	}
	sensors_init(&hub, 1000, 400, NULL, NULL);
	struct mpu_config mc = { .spi = spi, .setup_speed_hz = 1000000, .read_speed_hz = 20000000,
				 .rotation = ROTATION_ROLL_180_YAW_270 };
	if (mpu_init(&mpu, &mc))
		return 1;
	for (int i = 0; i < 5000 && !mpu_is_running(&mpu); i++) {
		bench_step();
		if (mpu_poll(&mpu, bench_now_us(), buf, MPU_MAX_FRAMES) == -ENODEV) {
			fprintf(stderr, "bench_imu: no MPU answers on %s\n", dev ? dev : "the emulation");
			return 1;
		}
	}
	if (!mpu_is_running(&mpu)) {
		fprintf(stderr, "bench_imu: the MPU did not finish its set-up\n");
		return 1;
	}
	timed.ns = timed.calls = 0;
	timed.wire_ns = 0;
	uint64_t busy_ns;
	uint64_t pushed = bench_workload(polls, &busy_ns);
	double per_poll = (double)busy_ns / (double)polls;
	double chip = dev ? 0.0 : (double)timed.ns / (double)polls;
	double calls = dev ? 2.0 : (double)timed.calls / (double)polls;
	printf("polls: %llu, samples pushed: %llu, SPI kernel calls per poll: %.2f\n",
	       (unsigned long long)polls, (unsigned long long)pushed, calls);
	printf("time per poll (1 sample): %.0f ns%s\n", per_poll,
	       dev ? " (real spidev, wire time included)" : " (emulated chip included)");
	if (!dev) {
		printf("  of which the emulated chip: %.0f ns; driver + HAL + ring: %.0f ns\n", chip,
		       per_poll - chip);
		printf("sustainable at 25%% of one core: %.0f polls/s (%.0f SPI transactions/s), "
		       "driver path alone %.0f polls/s\n", 0.25e9 / per_poll,
		       0.25e9 / per_poll * calls, 0.25e9 / (per_poll - chip));
	} else {
		printf("sustainable at 25%% of one core: %.0f polls/s (%.0f SPI transactions/s)\n",
		       0.25e9 / per_poll, 0.25e9 / per_poll * calls);
	}
	if (!dev)
		printf("SPI wire time per poll at the driver's clocks (20 MHz data, 1 MHz "
		       "configuration check): %.0f ns (not CPU time where the controller uses DMA "
		       "or interrupts)\n", timed.wire_ns / (double)polls);
	/* The floor of a kernel call: an SPI_IOC_MESSAGE that /dev/null refuses (ENOTTY). */
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		struct spi_ioc_transfer tr = { 0 };
		uint64_t t0 = now_ns();
		for (int i = 0; i < 100000; i++)
			(void)!ioctl(fd, SPI_IOC_MESSAGE(1), &tr);
		double sys_ns = (double)(now_ns() - t0) / 100000.0;
		close(fd);
		double est = per_poll - chip + calls * sys_ns;
		printf("kernel call floor (ioctl refused by /dev/null): %.0f ns; driver path + %.0f "
		       "such calls: %.0f ns per poll -> at most %.0f polls/s at 25%% of a core "
		       "before spidev's own work\n", sys_ns, calls, est, 0.25e9 / est);
	}
	printf("hub: %llu accepted, %llu dropped\n",
	       (unsigned long long)sensors_accepted(&hub, SENSOR_IMU),
	       (unsigned long long)sensors_imu_dropped(&hub));
	return pushed ? 0 : 1;
}
