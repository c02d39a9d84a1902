// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The spidev backend. This machine has no SPI controller, so beyond what the
 * real kernel answers (a missing node, a file that is not spidev), the spidev
 * side is faked for one temporary file: ioctl is interposed, requests on that
 * file are answered here the way drivers/spi/spidev.c answers them, and every
 * other request goes to the kernel. The real driver is exercised by the
 * kernel-in-the-loop tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/spi/spidev.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_node.h"
#include "linux/hal_linux.h"

/* The fake spidev's state: what the backend told it. */
static struct {
	uint8_t mode;
	uint8_t bits;
	uint32_t speed_hz;
	unsigned int messages;               /* SPI_IOC_MESSAGE requests seen */
	size_t n;                            /* segments in the last one */
	struct spi_ioc_transfer last[32];
} fake;
static struct fake_node node;

/* The kernel returns the bytes moved; MISO of this fake is MOSI inverted. */
static int fake_message(const struct spi_ioc_transfer *tr, size_t n)
{
	uint32_t total = 0;

	if (n == 0 || n > sizeof(fake.last) / sizeof(fake.last[0])) {
		errno = EINVAL;
		return -1;
	}
	fake.messages++;
	fake.n = n;
	memcpy(fake.last, tr, n * sizeof(*tr));
	for (size_t i = 0; i < n; i++)
		total += tr[i].len;
	/* spidev's default bufsiz: a longer message is refused whole. */
	if (total > 4096) {
		errno = EMSGSIZE;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *tx = (const uint8_t *)(uintptr_t)tr[i].tx_buf;
		uint8_t *rx = (uint8_t *)(uintptr_t)tr[i].rx_buf;
		for (uint32_t k = 0; rx && k < tr[i].len; k++)
			rx[k] = (uint8_t)~(tx ? tx[k] : 0);
	}
	return (int)total;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (!fake_node_is(&node, fd))
		return fake_node_kernel_ioctl(fd, req, arg);
	if (req == SPI_IOC_WR_MODE) {
		fake.mode = *(uint8_t *)arg;
		return 0;
	}
	if (req == SPI_IOC_WR_BITS_PER_WORD) {
		fake.bits = *(uint8_t *)arg;
		return 0;
	}
	if (req == SPI_IOC_WR_MAX_SPEED_HZ) {
		fake.speed_hz = *(uint32_t *)arg;
		return 0;
	}
	if (_IOC_TYPE(req) == SPI_IOC_MAGIC && _IOC_NR(req) == 0 && _IOC_DIR(req) == _IOC_WRITE)
		return fake_message(arg, _IOC_SIZE(req) / sizeof(struct spi_ioc_transfer));
	errno = ENOTTY;
	return -1;
}

static int setup(void **state)
{
	if (fake_node_create(&node, "spidev") < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	fake_node_remove(&node);
	return 0;
}

static const struct spi_config fake_cfg = {
	.path = node.path, .mode = 3, .bits_per_word = 0, .speed_hz = 1000000,
};

static void test_spi_open_of_missing_device_gives_enoent(void **state)
{
	const struct spi_config cfg = { .path = "/dev/spidev-fulmar-none", .speed_hz = 1000000 };
	struct spi_dev *dev = NULL;

	assert_int_equal(spi_linux_open(&cfg, &dev), -ENOENT);
	assert_null(dev);
}

static void test_spi_open_of_a_file_that_is_not_spidev_gives_the_kernels_enotty(void **state)
{
	char path[] = "/tmp/fulmar-notspi-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct spi_config cfg = { .path = "/dev/null", .speed_hz = 1000000 };
	struct spi_dev *dev = NULL;

	assert_int_equal(spi_linux_open(&cfg, &dev), fake_node_kernel_answer(cfg.path, SPI_IOC_WR_MODE));
	cfg.path = path;
	assert_int_equal(spi_linux_open(&cfg, &dev), fake_node_kernel_answer(cfg.path, SPI_IOC_WR_MODE));
	assert_null(dev);
	unlink(path);
}

static void test_spi_open_rejects_a_mode_above_3_and_a_zero_speed(void **state)
{
	struct spi_config cfg = fake_cfg;
	struct spi_dev *dev = NULL;

	cfg.mode = 4;
	assert_int_equal(spi_linux_open(&cfg, &dev), -EINVAL);
	cfg.mode = 0;
	cfg.speed_hz = 0;
	assert_int_equal(spi_linux_open(&cfg, &dev), -EINVAL);
	assert_null(dev);
}

static void test_spi_open_sets_mode_word_size_and_speed(void **state)
{
	struct spi_dev *dev = NULL;

	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	assert_int_equal(fake.mode, 3);
	assert_int_equal(fake.bits, 8);
	assert_int_equal(fake.speed_hz, 1000000);
	spi_close(dev);
}

static void test_spi_batch_goes_to_the_kernel_as_one_message(void **state)
{
	struct spi_dev *dev = NULL;
	const uint8_t reg[1] = { 0x3b | 0x80 };
	uint8_t data[6];
	uint8_t tx[2] = { 0x0f, 0xf0 };
	uint8_t rx[2];
	const struct spi_xfer x[3] = {
		{ .tx = reg, .len = 1 },
		{ .rx = data, .len = 6, .speed_hz = 20000000, .cs_change = true },
		{ .tx = tx, .rx = rx, .len = 2 },
	};

	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	unsigned int before = fake.messages;
	assert_int_equal(spi_transfer_batch(dev, x, 3), 0);
	assert_int_equal(fake.messages, before + 1);
	assert_int_equal(fake.n, 3);

	assert_ptr_equal((void *)(uintptr_t)fake.last[0].tx_buf, reg);
	assert_int_equal(fake.last[0].rx_buf, 0);
	assert_int_equal(fake.last[0].len, 1);
	assert_int_equal(fake.last[0].speed_hz, 1000000);
	assert_int_equal(fake.last[0].bits_per_word, 8);
	assert_int_equal(fake.last[0].cs_change, 0);

	assert_int_equal(fake.last[1].tx_buf, 0);
	assert_ptr_equal((void *)(uintptr_t)fake.last[1].rx_buf, data);
	assert_int_equal(fake.last[1].speed_hz, 20000000);
	assert_int_equal(fake.last[1].cs_change, 1);

	for (size_t i = 0; i < sizeof(data); i++)
		assert_int_equal(data[i], 0xff);
	assert_int_equal(rx[0], 0xf0);
	assert_int_equal(rx[1], 0x0f);
	spi_close(dev);
}

static void test_spi_transfer_is_a_batch_of_one(void **state)
{
	struct spi_dev *dev = NULL;
	const uint8_t tx[3] = { 1, 2, 3 };
	uint8_t rx[3];

	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	assert_int_equal(spi_transfer(dev, tx, rx, 3), 0);
	assert_int_equal(fake.n, 1);
	assert_int_equal(fake.last[0].len, 3);
	assert_int_equal(rx[2], 0xfc);
	/* A write with nothing to read back. */
	assert_int_equal(spi_transfer(dev, tx, NULL, 3), 0);
	assert_int_equal(fake.last[0].rx_buf, 0);
	spi_close(dev);
}

static void test_spi_batch_of_more_than_16_segments_gives_einval(void **state)
{
	struct spi_dev *dev = NULL;
	uint8_t b[17];
	struct spi_xfer x[17];

	for (size_t i = 0; i < 17; i++)
		x[i] = (struct spi_xfer){ .tx = &b[i], .rx = &b[i], .len = 1 };
	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	unsigned int before = fake.messages;
	assert_int_equal(spi_transfer_batch(dev, x, 17), -EINVAL);
	assert_int_equal(spi_transfer_batch(dev, x, 0), -EINVAL);
	assert_int_equal(fake.messages, before);
	assert_int_equal(spi_transfer_batch(dev, x, 16), 0);
	assert_int_equal(fake.n, 16);
	spi_close(dev);
}

static void test_spi_set_speed_becomes_the_default_for_later_segments(void **state)
{
	struct spi_dev *dev = NULL;
	uint8_t b[2] = { 0 };

	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	assert_int_equal(spi_set_speed(dev, 11000000), 0);
	assert_int_equal(fake.speed_hz, 11000000);
	assert_int_equal(spi_transfer(dev, b, b, 2), 0);
	assert_int_equal(fake.last[0].speed_hz, 11000000);
	assert_int_equal(spi_set_speed(dev, 0), -EINVAL);
	spi_close(dev);
}

static void test_spi_kernel_refusal_comes_back_as_negative_errno(void **state)
{
	struct spi_dev *dev = NULL;
	static uint8_t big[5000];

	assert_int_equal(spi_linux_open(&fake_cfg, &dev), 0);
	assert_int_equal(spi_transfer(dev, big, big, sizeof(big)), -EMSGSIZE);
	spi_close(dev);
}

static void test_spi_close_of_null_is_a_no_op(void **state)
{
	spi_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spi_open_of_missing_device_gives_enoent),
		cmocka_unit_test(test_spi_open_of_a_file_that_is_not_spidev_gives_the_kernels_enotty),
		cmocka_unit_test(test_spi_open_rejects_a_mode_above_3_and_a_zero_speed),
		cmocka_unit_test(test_spi_open_sets_mode_word_size_and_speed),
		cmocka_unit_test(test_spi_batch_goes_to_the_kernel_as_one_message),
		cmocka_unit_test(test_spi_transfer_is_a_batch_of_one),
		cmocka_unit_test(test_spi_batch_of_more_than_16_segments_gives_einval),
		cmocka_unit_test(test_spi_set_speed_becomes_the_default_for_later_segments),
		cmocka_unit_test(test_spi_kernel_refusal_comes_back_as_negative_errno),
		cmocka_unit_test(test_spi_close_of_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
