// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The spidev backend (hal/linux/spi_linux.c) against the kernel's spidev on
 * our virtual controller (tests/kernel/modules/fulmar_spi_virt.c) inside the
 * kernel-test guest. Chip select 0 is an MPU-style register file: the first
 * byte after chip select falls is the register number with bit 7 set for a
 * read. The controller publishes what the last message looked like (mode,
 * clock, word size, chip-select frames) as module parameters, so the tests
 * see what our backend actually asked the kernel for.
 */
#include <linux/spi/spidev.h>
#include <sys/ioctl.h>

#include "ktest.h"
#include "linux/hal_linux.h"

#define READ_BIT 0x80
#define WHO_AM_I 0x75
#define PARAMS "/sys/module/fulmar_spi_virt/parameters/"

static const char *spidev_path = "/dev/spidev0.0";

static long ctl(const char *name)
{
	char path[128];
	long v = -1;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	return ktest_read_long(path, &v) == 0 ? v : -1;
}

/* The device's mode as spidev holds it, read on a file of our own. */
static long spidev_mode32(void)
{
	uint32_t mode = 0;
	int fd = open(spidev_path, O_RDWR);

	if (fd < 0)
		return -errno;
	long rc = ioctl(fd, SPI_IOC_RD_MODE32, &mode) < 0 ? -errno : (long)mode;
	close(fd);
	return rc;
}

/*
 * Mode and clock from the board table reach the controller, and bits an
 * earlier user of the device left set (CS_HIGH, LSB_FIRST) are cleared.
 */
static void test_spi_open_sets_mode_and_speed_and_clears_stale_mode_bits(void)
{
	const struct spi_config cfg = { .path = spidev_path, .mode = 3, .speed_hz = 1000000 };
	struct spi_dev *dev;
	uint8_t tx[2] = { WHO_AM_I | READ_BIT, 0 }, rx[2];
	int fd = open(spidev_path, O_RDWR);
	uint32_t stale = SPI_MODE_1 | SPI_CS_HIGH | SPI_LSB_FIRST;

	KT_CHECK(fd >= 0, "open %s: %s", spidev_path, strerror(errno));
	KT_CHECK(ioctl(fd, SPI_IOC_WR_MODE32, &stale) == 0, "stale mode: %s", strerror(errno));
	close(fd);

	KT_CHECK_OK(spi_linux_open(&cfg, &dev));
	KT_CHECK(spidev_mode32() == SPI_MODE_3, "spidev mode 0x%lx, want 0x3", spidev_mode32());
	KT_CHECK_OK(spi_transfer(dev, tx, rx, 2));
	KT_CHECK(rx[1] == 0x68, "WHO_AM_I 0x%02x", rx[1]);
	KT_CHECK(ctl("last_mode") == SPI_MODE_3, "controller saw mode 0x%lx", ctl("last_mode"));
	KT_CHECK(ctl("last_speed_hz") == 1000000, "controller saw %ld Hz", ctl("last_speed_hz"));
	KT_CHECK(ctl("last_bits") == 8, "controller saw %ld-bit words", ctl("last_bits"));
	spi_close(dev);

	const struct spi_config cfg0 = { .path = spidev_path, .mode = 0, .speed_hz = 8000000 };
	KT_CHECK_OK(spi_linux_open(&cfg0, &dev));
	KT_CHECK_OK(spi_transfer(dev, tx, rx, 2));
	KT_CHECK(ctl("last_mode") == SPI_MODE_0, "controller saw mode 0x%lx", ctl("last_mode"));
	KT_CHECK(ctl("last_speed_hz") == 8000000, "controller saw %ld Hz", ctl("last_speed_hz"));
	spi_close(dev);
}

/* Registers written without the read bit read back with it, in single transfers. */
static void test_spi_register_write_then_read_with_the_read_bit(void)
{
	const struct spi_config cfg = { .path = spidev_path, .mode = 3, .speed_hz = 1000000 };
	struct spi_dev *dev;
	const uint8_t wr[4] = { 0x10, 0xde, 0xad, 0xbe };
	const uint8_t rd[4] = { 0x10 | READ_BIT, 0, 0, 0 };
	uint8_t rx[4];

	KT_CHECK_OK(spi_linux_open(&cfg, &dev));
	long before = ctl("messages");
	KT_CHECK_OK(spi_transfer(dev, wr, NULL, sizeof(wr)));
	memset(rx, 0, sizeof(rx));
	KT_CHECK_OK(spi_transfer(dev, rd, rx, sizeof(rd)));
	KT_CHECK(rx[1] == 0xde && rx[2] == 0xad && rx[3] == 0xbe,
		 "read back %02x %02x %02x", rx[1], rx[2], rx[3]);
	KT_CHECK(ctl("messages") == before + 2, "2 transfers took %ld messages",
		 ctl("messages") - before);
	KT_CHECK(ctl("last_frames") == 1 && ctl("last_len") == 4, "frames %ld len %ld",
		 ctl("last_frames"), ctl("last_len"));
	spi_close(dev);
}

/*
 * A batch is one SPI_IOC_MESSAGE: chip select stays low across segments (a
 * register number in one segment, its data in the next) and rises only
 * where a segment says cs_change. Three register accesses, one message.
 */
static void test_spi_batch_is_one_message_with_chip_select_frames(void)
{
	const struct spi_config cfg = { .path = spidev_path, .mode = 3, .speed_hz = 1000000 };
	struct spi_dev *dev;
	const uint8_t w_reg = 0x20, w_data[4] = { 1, 2, 3, 4 };
	const uint8_t r_reg = 0x20 | READ_BIT, who_reg = WHO_AM_I | READ_BIT;
	uint8_t r_data[4] = { 0 }, who = 0;
	const struct spi_xfer batch[] = {
		{ .tx = &w_reg, .len = 1 },
		{ .tx = w_data, .len = 4, .cs_change = true },
		{ .tx = &r_reg, .len = 1 },
		{ .rx = r_data, .len = 4, .cs_change = true },
		{ .tx = &who_reg, .len = 1 },
		{ .rx = &who, .len = 1 },
	};

	KT_CHECK_OK(spi_linux_open(&cfg, &dev));
	long before = ctl("messages");
	KT_CHECK_OK(spi_transfer_batch(dev, batch, sizeof(batch) / sizeof(batch[0])));
	KT_CHECK(ctl("messages") == before + 1, "batch took %ld messages", ctl("messages") - before);
	KT_CHECK(ctl("last_frames") == 3, "batch had %ld chip-select frames", ctl("last_frames"));
	KT_CHECK(ctl("last_len") == 12, "batch moved %ld bytes", ctl("last_len"));
	KT_CHECK(memcmp(r_data, w_data, 4) == 0, "read back %02x %02x %02x %02x", r_data[0],
		 r_data[1], r_data[2], r_data[3]);
	KT_CHECK(who == 0x68, "WHO_AM_I 0x%02x", who);
	spi_close(dev);
}

/* spi_set_speed and a segment's own clock reach the controller; 0 Hz is refused. */
static void test_spi_speed_changes_reach_the_controller(void)
{
	const struct spi_config cfg = { .path = spidev_path, .mode = 0, .speed_hz = 1000000 };
	struct spi_dev *dev;
	uint8_t tx[2] = { WHO_AM_I | READ_BIT, 0 }, rx[2];

	KT_CHECK_OK(spi_linux_open(&cfg, &dev));
	KT_CHECK_OK(spi_set_speed(dev, 500000));
	KT_CHECK_OK(spi_transfer(dev, tx, rx, 2));
	KT_CHECK(ctl("last_speed_hz") == 500000, "controller saw %ld Hz", ctl("last_speed_hz"));
	const struct spi_xfer slow[] = { { .tx = tx, .rx = rx, .len = 2, .speed_hz = 250000 } };
	KT_CHECK_OK(spi_transfer_batch(dev, slow, 1));
	KT_CHECK(ctl("last_speed_hz") == 250000, "controller saw %ld Hz", ctl("last_speed_hz"));
	KT_CHECK(spi_set_speed(dev, 0) == -EINVAL, "0 Hz accepted");
	KT_CHECK_OK(spi_transfer(dev, tx, rx, 2));
	KT_CHECK(ctl("last_speed_hz") == 500000, "a refused speed changed the clock to %ld Hz",
		 ctl("last_speed_hz"));
	spi_close(dev);
}

/* A word size the controller cannot do fails at open, with the kernel's errno. */
static void test_spi_unsupported_word_size_fails_at_open(void)
{
	const struct spi_config cfg = {
		.path = spidev_path, .mode = 0, .bits_per_word = 16, .speed_hz = 1000000,
	};
	struct spi_dev *dev;

	int rc = spi_linux_open(&cfg, &dev);
	KT_CHECK(rc == -EINVAL, "16-bit words on an 8-bit-only controller: %d", rc);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		spidev_path = argv[1];
	KT_RUN(test_spi_open_sets_mode_and_speed_and_clears_stale_mode_bits);
	KT_RUN(test_spi_register_write_then_read_with_the_read_bit);
	KT_RUN(test_spi_batch_is_one_message_with_chip_select_frames);
	KT_RUN(test_spi_speed_changes_reach_the_controller);
	KT_RUN(test_spi_unsupported_word_size_fails_at_open);
	return ktest_done();
}
