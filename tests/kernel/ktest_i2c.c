// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The i2c-dev backend (hal/linux/i2c_linux.c) against two real adapters
 * inside the kernel-test guest:
 *  - "fulmar i2c virt" (tests/kernel/modules): plain I2C, so our backend uses
 *    I2C_RDWR. Its chip at 0x68 forgets the register pointer at every STOP,
 *    so a register read returns the right bytes only as one combined
 *    write-then-read transaction, and it counts transactions.
 *  - i2c-stub: SMBus only (no I2C_FUNC_I2C), so our backend falls back to
 *    SMBus commands. Its chip at 0x1e is checked through raw SMBus ioctls,
 *    independently of the backend.
 */
#include <dirent.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <sys/ioctl.h>

#include "ktest.h"
#include "linux/hal_linux.h"

#define VIRT_ADDR 0x68
#define VIRT_WHO_AM_I 0x75
#define STUB_ADDR 0x1e
#define VIRT_PARAMS "/sys/module/fulmar_i2c_virt/parameters/"

static char virt_path[32];
static char stub_path[32];

/* /dev/i2c-N of the adapter called name, into path; 0 or -ENODEV. */
static int find_adapter(const char *name, char *path, size_t size)
{
	DIR *d = opendir("/sys/bus/i2c/devices");
	struct dirent *e;
	int rc = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char attr[300], buf[64];
		unsigned int n;

		if (sscanf(e->d_name, "i2c-%u", &n) != 1)
			continue;
		snprintf(attr, sizeof(attr), "/sys/bus/i2c/devices/%s/name", e->d_name);
		if (ktest_read(attr, buf, sizeof(buf)) >= 0 && strcmp(buf, name) == 0) {
			snprintf(path, size, "/dev/i2c-%u", n);
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

static long virt_param(const char *name)
{
	char path[128];
	long v = -1;

	snprintf(path, sizeof(path), VIRT_PARAMS "%s", name);
	return ktest_read_long(path, &v) == 0 ? v : -1;
}

/* A raw SMBus ioctl on a file of our own: the check that does not go through the backend. */
static int stub_raw(int fd, char read_write, uint8_t command, uint32_t size,
		    union i2c_smbus_data *data)
{
	struct i2c_smbus_ioctl_data args = {
		.read_write = read_write, .command = command, .size = size, .data = data,
	};
	return ioctl(fd, I2C_SMBUS, &args) < 0 ? -errno : 0;
}

static void test_i2c_adapters_are_there(void)
{
	KT_CHECK_OK(find_adapter("fulmar i2c virt", virt_path, sizeof(virt_path)));
	KT_CHECK_OK(find_adapter("SMBus stub driver", stub_path, sizeof(stub_path)));
	printf("#   virt %s, stub %s\n", virt_path, stub_path);
}

/*
 * The harness can tell: a register number written in one transaction and
 * read in another reads register 0, as a chip that resets its pointer at
 * STOP does. (Raw I2C_RDWR, not the backend.)
 */
static void test_i2c_virt_chip_resets_its_pointer_at_stop(void)
{
	int fd = open(virt_path, O_RDWR);
	uint8_t reg = VIRT_WHO_AM_I, val = 0;
	struct i2c_msg w = { .addr = VIRT_ADDR, .len = 1, .buf = &reg };
	struct i2c_msg r = { .addr = VIRT_ADDR, .flags = I2C_M_RD, .len = 1, .buf = &val };
	struct i2c_rdwr_ioctl_data dw = { .msgs = &w, .nmsgs = 1 };
	struct i2c_rdwr_ioctl_data dr = { .msgs = &r, .nmsgs = 1 };

	KT_CHECK(fd >= 0, "open %s: %s", virt_path, strerror(errno));
	KT_CHECK(ioctl(fd, I2C_RDWR, &dw) == 1, "write: %s", strerror(errno));
	KT_CHECK(ioctl(fd, I2C_RDWR, &dr) == 1, "read: %s", strerror(errno));
	KT_CHECK(val == (0x00 ^ 0xa5), "split read gave 0x%02x, not register 0", val);
	close(fd);
}

/* WHO_AM_I the way every sensor driver reads it: one write-then-read transaction. */
static void test_i2c_register_read_is_one_combined_transaction(void)
{
	struct i2c_bus *bus;
	uint8_t reg = VIRT_WHO_AM_I, val = 0;

	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = virt_path }, &bus));
	long before = virt_param("xfers");
	KT_CHECK_OK(i2c_write_read(bus, VIRT_ADDR, &reg, 1, &val, 1));
	KT_CHECK(val == VIRT_ADDR, "WHO_AM_I read 0x%02x, want 0x%02x", val, VIRT_ADDR);
	KT_CHECK(virt_param("xfers") == before + 1, "took %ld transactions",
		 virt_param("xfers") - before);
	KT_CHECK(virt_param("last_nmsgs") == 2, "transaction had %ld messages",
		 virt_param("last_nmsgs"));
	i2c_close(bus);
}

/* Bursts longer than SMBus can carry (32 bytes): only I2C_RDWR moves them. */
static void test_i2c_burst_write_and_read_back_beyond_smbus_limits(void)
{
	struct i2c_bus *bus;
	uint8_t tx[1 + 64], rx[64];
	const uint8_t reg = 0x20;

	for (size_t i = 0; i < 64; i++)
		tx[1 + i] = (uint8_t)(0x40 + 3 * i);
	tx[0] = reg;
	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = virt_path }, &bus));
	long before = virt_param("xfers");
	KT_CHECK_OK(i2c_write(bus, VIRT_ADDR, tx, sizeof(tx)));
	KT_CHECK(virt_param("last_nmsgs") == 1, "write went as %ld messages",
		 virt_param("last_nmsgs"));
	memset(rx, 0, sizeof(rx));
	KT_CHECK_OK(i2c_write_read(bus, VIRT_ADDR, &reg, 1, rx, sizeof(rx)));
	KT_CHECK(memcmp(rx, tx + 1, sizeof(rx)) == 0, "burst read back differs");
	KT_CHECK(virt_param("xfers") == before + 2, "2 calls took %ld transactions",
		 virt_param("xfers") - before);
	i2c_close(bus);
}

/* A read with no register number first: one read message from where the chip points (0). */
static void test_i2c_plain_read_is_a_single_read_message(void)
{
	struct i2c_bus *bus;
	uint8_t rx[2] = { 0, 0 };

	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = virt_path }, &bus));
	KT_CHECK_OK(i2c_read(bus, VIRT_ADDR, rx, 2));
	KT_CHECK(rx[0] == (0x00 ^ 0xa5) && rx[1] == (0x01 ^ 0xa5), "read 0x%02x 0x%02x", rx[0],
		 rx[1]);
	KT_CHECK(virt_param("last_nmsgs") == 1, "%ld messages", virt_param("last_nmsgs"));
	i2c_close(bus);
}

/* Nobody at the address: the adapter's EREMOTEIO comes back as the contract's ENXIO, at once. */
static void test_i2c_missing_address_gives_enxio_not_a_hang(void)
{
	struct i2c_bus *bus;
	uint8_t reg = 0, val;

	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = virt_path }, &bus));
	uint64_t t0 = ktest_now_ns();
	int rc = i2c_write_read(bus, 0x50, &reg, 1, &val, 1);
	KT_CHECK(rc == -ENXIO, "write_read to 0x50: %d (%s)", rc, strerror(-rc));
	rc = i2c_write(bus, 0x50, &reg, 1);
	KT_CHECK(rc == -ENXIO, "write to 0x50: %d (%s)", rc, strerror(-rc));
	KT_CHECK(ktest_now_ns() - t0 < UINT64_C(5000000000), "took over 5 s (a hang?)");
	/* The bus still works afterwards. */
	reg = VIRT_WHO_AM_I;
	KT_CHECK_OK(i2c_write_read(bus, VIRT_ADDR, &reg, 1, &val, 1));
	KT_CHECK(val == VIRT_ADDR, "WHO_AM_I after a NACK: 0x%02x", val);
	i2c_close(bus);
}

/* SMBus-only adapter: register reads of 1 and of n bytes come back as the chip holds them. */
static void test_i2c_smbus_only_adapter_reads_registers_through_smbus(void)
{
	struct i2c_bus *bus;
	union i2c_smbus_data d;
	uint8_t reg = 0x10, rx[6];
	int fd = open(stub_path, O_RDWR);

	KT_CHECK(fd >= 0, "open %s: %s", stub_path, strerror(errno));
	KT_CHECK(ioctl(fd, I2C_SLAVE, STUB_ADDR) == 0, "I2C_SLAVE: %s", strerror(errno));
	for (int i = 0; i < 6; i++) {
		d.byte = (uint8_t)(0xc0 + i);
		KT_CHECK_OK(stub_raw(fd, I2C_SMBUS_WRITE, (uint8_t)(reg + i), I2C_SMBUS_BYTE_DATA, &d));
	}
	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = stub_path }, &bus));
	KT_CHECK_OK(i2c_write_read(bus, STUB_ADDR, &reg, 1, rx, 1));
	KT_CHECK(rx[0] == 0xc0, "byte read 0x%02x", rx[0]);
	memset(rx, 0, sizeof(rx));
	KT_CHECK_OK(i2c_write_read(bus, STUB_ADDR, &reg, 1, rx, 6));
	for (int i = 0; i < 6; i++)
		KT_CHECK(rx[i] == 0xc0 + i, "block read byte %d is 0x%02x", i, rx[i]);
	i2c_close(bus);
	close(fd);
}

/* SMBus-only adapter: register writes of 1 and of n bytes land in the chip. */
static void test_i2c_smbus_only_adapter_writes_registers_through_smbus(void)
{
	struct i2c_bus *bus;
	union i2c_smbus_data d;
	const uint8_t one[] = { 0x30, 0x5c };
	const uint8_t burst[] = { 0x40, 0x11, 0x22, 0x33, 0x44 };
	int fd = open(stub_path, O_RDWR);

	KT_CHECK(fd >= 0, "open %s: %s", stub_path, strerror(errno));
	KT_CHECK(ioctl(fd, I2C_SLAVE, STUB_ADDR) == 0, "I2C_SLAVE: %s", strerror(errno));
	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = stub_path }, &bus));
	KT_CHECK_OK(i2c_write(bus, STUB_ADDR, one, sizeof(one)));
	KT_CHECK_OK(stub_raw(fd, I2C_SMBUS_READ, 0x30, I2C_SMBUS_BYTE_DATA, &d));
	KT_CHECK(d.byte == 0x5c, "register 0x30 holds 0x%02x", d.byte);
	KT_CHECK_OK(i2c_write(bus, STUB_ADDR, burst, sizeof(burst)));
	for (int i = 0; i < 4; i++) {
		KT_CHECK_OK(stub_raw(fd, I2C_SMBUS_READ, (uint8_t)(0x40 + i), I2C_SMBUS_BYTE_DATA, &d));
		KT_CHECK(d.byte == burst[1 + i], "register 0x%02x holds 0x%02x", 0x40 + i, d.byte);
	}
	i2c_close(bus);
	close(fd);
}

/* What SMBus cannot frame is refused up front, never half done. */
static void test_i2c_smbus_only_adapter_refuses_what_smbus_cannot_frame(void)
{
	struct i2c_bus *bus;
	uint8_t reg = 0x10, rx[40];

	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = stub_path }, &bus));
	int rc = i2c_write_read(bus, STUB_ADDR, &reg, 1, rx, sizeof(rx));
	KT_CHECK(rc == -EINVAL, "40-byte SMBus read: %d", rc);
	rc = i2c_read(bus, STUB_ADDR, rx, 2);
	KT_CHECK(rc == -EOPNOTSUPP, "2-byte read without a register: %d", rc);
	i2c_close(bus);
}

/*
 * Nobody at the address on the SMBus-only adapter: an error at once. i2c-stub
 * answers ENODEV where SMBus controllers (i801, piix4) answer ENXIO; both are
 * a clean "not there".
 */
static void test_i2c_smbus_missing_address_fails_fast(void)
{
	struct i2c_bus *bus;
	uint8_t reg = 0, val;

	KT_CHECK_OK(i2c_linux_open(&(const struct i2c_config){ .path = stub_path }, &bus));
	uint64_t t0 = ktest_now_ns();
	int rc = i2c_write_read(bus, STUB_ADDR + 1, &reg, 1, &val, 1);
	printf("#   i2c-stub, no chip at 0x%02x: %d (%s)\n", STUB_ADDR + 1, rc, strerror(-rc));
	KT_CHECK(rc == -ENXIO || rc == -EIO || rc == -ENODEV, "got %d", rc);
	KT_CHECK(ktest_now_ns() - t0 < UINT64_C(5000000000), "took over 5 s (a hang?)");
	i2c_close(bus);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	KT_RUN(test_i2c_adapters_are_there);
	if (ktest.failed)
		return ktest_done();
	KT_RUN(test_i2c_virt_chip_resets_its_pointer_at_stop);
	KT_RUN(test_i2c_register_read_is_one_combined_transaction);
	KT_RUN(test_i2c_burst_write_and_read_back_beyond_smbus_limits);
	KT_RUN(test_i2c_plain_read_is_a_single_read_message);
	KT_RUN(test_i2c_missing_address_gives_enxio_not_a_hang);
	KT_RUN(test_i2c_smbus_only_adapter_reads_registers_through_smbus);
	KT_RUN(test_i2c_smbus_only_adapter_writes_registers_through_smbus);
	KT_RUN(test_i2c_smbus_only_adapter_refuses_what_smbus_cannot_frame);
	KT_RUN(test_i2c_smbus_missing_address_fails_fast);
	return ktest_done();
}
