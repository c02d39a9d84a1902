// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The i2c-dev backend. This machine has no I2C adapter, so beyond what the real
 * kernel answers (a missing node, a file that is not i2c-dev), the adapter is
 * faked for one temporary file: ioctl is interposed, requests on that file are
 * answered here the way drivers/i2c/i2c-dev.c would answer them with one chip
 * (a 256-register file at 0x68, register pointer auto-incrementing, like
 * i2c-stub), and every other request goes to the kernel. The real drivers are
 * exercised by the kernel-in-the-loop tests.
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
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_node.h"
#include "linux/hal_linux.h"

#define CHIP_ADDR 0x68

static struct {
	unsigned long funcs;        /* what I2C_FUNCS reports */
	int missing_errno;          /* what a transfer to another address fails with */
	uint8_t regs[256];
	uint8_t ptr;
	long slave;                 /* last I2C_SLAVE */
	unsigned int rdwr_calls;
	struct i2c_msg msgs[2];     /* of the last I2C_RDWR */
	unsigned int nmsgs;
	unsigned int smbus_calls;
	struct i2c_smbus_ioctl_data smbus;  /* the last I2C_SMBUS */
} fake;
static struct fake_node node;

static int fake_fail(int e)
{
	errno = e;
	return -1;
}

/* A write sets the register pointer and stores the rest; a read streams from the pointer. */
static void chip_msg(const struct i2c_msg *m)
{
	for (uint16_t i = 0; i < m->len; i++) {
		if (m->flags & I2C_M_RD)
			m->buf[i] = fake.regs[fake.ptr++];
		else if (i == 0)
			fake.ptr = m->buf[0];
		else
			fake.regs[fake.ptr++] = m->buf[i];
	}
}

static int fake_rdwr(const struct i2c_rdwr_ioctl_data *d)
{
	fake.rdwr_calls++;
	if (!(fake.funcs & I2C_FUNC_I2C))
		return fake_fail(EOPNOTSUPP);
	if (d->nmsgs == 0 || d->nmsgs > 2)
		return fake_fail(EINVAL);
	memcpy(fake.msgs, d->msgs, d->nmsgs * sizeof(d->msgs[0]));
	fake.nmsgs = d->nmsgs;
	if (d->msgs[0].addr != CHIP_ADDR)
		return fake_fail(fake.missing_errno);
	for (unsigned int i = 0; i < d->nmsgs; i++)
		chip_msg(&d->msgs[i]);
	return (int)d->nmsgs;
}

static int fake_smbus(const struct i2c_smbus_ioctl_data *a)
{
	union i2c_smbus_data *d = a->data;

	fake.smbus_calls++;
	fake.smbus = *a;
	if (fake.slave != CHIP_ADDR)
		return fake_fail(fake.missing_errno);
	fake.ptr = a->command;
	if (a->size == I2C_SMBUS_BYTE && a->read_write == I2C_SMBUS_WRITE)
		return 0;
	if (a->size == I2C_SMBUS_BYTE)
		d->byte = fake.regs[fake.ptr];
	else if (a->size == I2C_SMBUS_BYTE_DATA && a->read_write == I2C_SMBUS_READ)
		d->byte = fake.regs[fake.ptr];
	else if (a->size == I2C_SMBUS_BYTE_DATA)
		fake.regs[fake.ptr] = d->byte;
	else if (a->size != I2C_SMBUS_I2C_BLOCK_DATA || d->block[0] > I2C_SMBUS_BLOCK_MAX)
		return fake_fail(EINVAL);
	else if (a->read_write == I2C_SMBUS_READ)
		for (unsigned int i = 1; i <= d->block[0]; i++)
			d->block[i] = fake.regs[fake.ptr++];
	else
		for (unsigned int i = 1; i <= d->block[0]; i++)
			fake.regs[fake.ptr++] = d->block[i];
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (!fake_node_is(&node, fd))
		return fake_node_kernel_ioctl(fd, req, arg);
	switch (req) {
	case I2C_FUNCS:
		*(unsigned long *)arg = fake.funcs;
		return 0;
	case I2C_SLAVE:
		fake.slave = (long)(uintptr_t)arg;
		return 0;
	case I2C_RDWR:
		return fake_rdwr(arg);
	case I2C_SMBUS:
		return fake_smbus(arg);
	default:
		return fake_fail(ENOTTY);
	}
}

static int setup(void **state)
{
	if (fake_node_create(&node, "i2c") < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	fake_node_remove(&node);
	return 0;
}

/* A fresh adapter with funcs and a chip whose register r holds r. */
static struct i2c_bus *open_fake(unsigned long funcs)
{
	static const struct i2c_config cfg = { .path = node.path };
	struct i2c_bus *bus = NULL;

	fake.funcs = funcs;
	fake.missing_errno = ENXIO;
	fake.slave = -1;
	fake.rdwr_calls = fake.smbus_calls = 0;
	for (unsigned int r = 0; r < 256; r++)
		fake.regs[r] = (uint8_t)r;
	assert_int_equal(i2c_linux_open(&cfg, &bus), 0);
	return bus;
}

static void test_i2c_open_of_missing_device_gives_enoent(void **state)
{
	const struct i2c_config cfg = { .path = "/dev/i2c-fulmar-none" };
	struct i2c_bus *bus = NULL;

	assert_int_equal(i2c_linux_open(&cfg, &bus), -ENOENT);
	assert_null(bus);
}

static void test_i2c_open_of_a_file_that_is_not_i2c_dev_gives_the_kernels_enotty(void **state)
{
	char path[] = "/tmp/fulmar-noti2c-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct i2c_config cfg = { .path = "/dev/null" };
	struct i2c_bus *bus = NULL;

	assert_int_equal(i2c_linux_open(&cfg, &bus), fake_node_kernel_answer(cfg.path, I2C_FUNCS));
	cfg.path = path;
	assert_int_equal(i2c_linux_open(&cfg, &bus), fake_node_kernel_answer(cfg.path, I2C_FUNCS));
	assert_null(bus);
	unlink(path);
}

static void test_i2c_register_read_is_one_combined_transfer_with_repeated_start(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_I2C);
	const uint8_t reg = 0x3b;
	uint8_t rx[6];

	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, &reg, 1, rx, sizeof(rx)), 0);
	assert_int_equal(fake.rdwr_calls, 1);
	assert_int_equal(fake.nmsgs, 2);
	assert_int_equal(fake.msgs[0].addr, CHIP_ADDR);
	assert_int_equal(fake.msgs[0].flags, 0);
	assert_int_equal(fake.msgs[0].len, 1);
	assert_int_equal(fake.msgs[1].addr, CHIP_ADDR);
	assert_int_equal(fake.msgs[1].flags, I2C_M_RD);
	assert_int_equal(fake.msgs[1].len, 6);
	for (unsigned int i = 0; i < sizeof(rx); i++)
		assert_int_equal(rx[i], 0x3b + i);
	i2c_close(bus);
}

static void test_i2c_plain_write_and_read_are_single_messages(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_I2C);
	const uint8_t tx[3] = { 0x10, 0xaa, 0xbb };
	uint8_t rx[2];

	assert_int_equal(i2c_write(bus, CHIP_ADDR, tx, sizeof(tx)), 0);
	assert_int_equal(fake.nmsgs, 1);
	assert_int_equal(fake.msgs[0].flags, 0);
	assert_int_equal(fake.regs[0x11], 0xbb);
	fake.ptr = 0x10;
	assert_int_equal(i2c_read(bus, CHIP_ADDR, rx, sizeof(rx)), 0);
	assert_int_equal(fake.nmsgs, 1);
	assert_int_equal(fake.msgs[0].flags, I2C_M_RD);
	assert_int_equal(rx[0], 0xaa);
	assert_int_equal(rx[1], 0xbb);
	i2c_close(bus);
}

static void test_i2c_missing_chip_gives_enxio_also_when_the_driver_says_eremoteio(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL);
	uint8_t b = 0;

	assert_int_equal(i2c_write_read(bus, 0x50, &b, 1, &b, 1), -ENXIO);
	fake.missing_errno = EREMOTEIO;
	assert_int_equal(i2c_write_read(bus, 0x50, &b, 1, &b, 1), -ENXIO);
	fake.missing_errno = ETIMEDOUT;
	assert_int_equal(i2c_write_read(bus, 0x50, &b, 1, &b, 1), -ETIMEDOUT);
	i2c_close(bus);
}

static void test_i2c_lengths_beyond_the_kernel_limit_and_bad_addresses_give_einval(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_I2C);
	static uint8_t big[8193];

	assert_int_equal(i2c_write(bus, CHIP_ADDR, big, sizeof(big)), -EINVAL);
	assert_int_equal(i2c_read(bus, CHIP_ADDR, big, sizeof(big)), -EINVAL);
	assert_int_equal(i2c_write(bus, 0x80, big, 1), -EINVAL);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, big, 0), -EINVAL);
	assert_int_equal(fake.rdwr_calls, 0);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, big, 8192), 0);
	i2c_close(bus);
}

static void test_i2c_smbus_only_adapter_reads_registers_with_smbus_commands(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_SMBUS_EMUL);
	const uint8_t reg = 0x75;
	uint8_t rx[32];

	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, &reg, 1, rx, 1), 0);
	assert_int_equal(fake.slave, CHIP_ADDR);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_BYTE_DATA);
	assert_int_equal(fake.smbus.read_write, I2C_SMBUS_READ);
	assert_int_equal(fake.smbus.command, 0x75);
	assert_int_equal(rx[0], 0x75);

	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, &reg, 1, rx, 32), 0);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_I2C_BLOCK_DATA);
	assert_int_equal(rx[31], 0x75 + 31);

	assert_int_equal(i2c_read(bus, CHIP_ADDR, rx, 1), 0);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_BYTE);
	assert_int_equal(fake.rdwr_calls, 0);
	i2c_close(bus);
}

static void test_i2c_smbus_only_adapter_writes_with_byte_and_block_commands(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_SMBUS_EMUL);
	const uint8_t tx[33] = { 0x20, 1, 2, 3, 4, [32] = 0x55 };

	assert_int_equal(i2c_write(bus, CHIP_ADDR, tx, 1), 0);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_BYTE);
	assert_int_equal(fake.smbus.command, 0x20);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, tx, 2), 0);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_BYTE_DATA);
	assert_int_equal(fake.regs[0x20], 1);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, tx, 33), 0);
	assert_int_equal(fake.smbus.size, I2C_SMBUS_I2C_BLOCK_DATA);
	assert_int_equal(fake.regs[0x23], 4);
	assert_int_equal(fake.regs[0x20 + 31], 0x55);
	assert_int_equal(fake.rdwr_calls, 0);
	i2c_close(bus);
}

static void test_i2c_smbus_only_adapter_refuses_what_smbus_cannot_express(void **state)
{
	struct i2c_bus *bus = open_fake(I2C_FUNC_SMBUS_EMUL);
	static uint8_t buf[64];

	/* Longer than an SMBus block. */
	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, buf, 1, buf, 33), -EINVAL);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, buf, 34), -EINVAL);
	/* A two-byte register address, and a plain multi-byte read. */
	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, buf, 2, buf, 1), -EOPNOTSUPP);
	assert_int_equal(i2c_read(bus, CHIP_ADDR, buf, 2), -EOPNOTSUPP);
	assert_int_equal(fake.smbus_calls, 0);
	i2c_close(bus);

	bus = open_fake(I2C_FUNC_SMBUS_BYTE_DATA);
	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, buf, 1, buf, 2), -EOPNOTSUPP);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, buf, 3), -EOPNOTSUPP);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, buf, 1), -EOPNOTSUPP);
	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, buf, 1, buf, 1), 0);
	i2c_close(bus);

	bus = open_fake(0);
	assert_int_equal(i2c_write(bus, CHIP_ADDR, buf, 2), -EOPNOTSUPP);
	assert_int_equal(i2c_write_read(bus, CHIP_ADDR, buf, 1, buf, 1), -EOPNOTSUPP);
	i2c_close(bus);
}

static void test_i2c_close_of_null_is_a_no_op(void **state)
{
	i2c_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i2c_open_of_missing_device_gives_enoent),
		cmocka_unit_test(test_i2c_open_of_a_file_that_is_not_i2c_dev_gives_the_kernels_enotty),
		cmocka_unit_test(test_i2c_register_read_is_one_combined_transfer_with_repeated_start),
		cmocka_unit_test(test_i2c_plain_write_and_read_are_single_messages),
		cmocka_unit_test(test_i2c_missing_chip_gives_enxio_also_when_the_driver_says_eremoteio),
		cmocka_unit_test(test_i2c_lengths_beyond_the_kernel_limit_and_bad_addresses_give_einval),
		cmocka_unit_test(test_i2c_smbus_only_adapter_reads_registers_with_smbus_commands),
		cmocka_unit_test(test_i2c_smbus_only_adapter_writes_with_byte_and_block_commands),
		cmocka_unit_test(test_i2c_smbus_only_adapter_refuses_what_smbus_cannot_express),
		cmocka_unit_test(test_i2c_close_of_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
