// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * I2C over i2c-dev. Plain I2C adapters get one I2C_RDWR per call, so a register
 * read is write + repeated start + read. SMBus-only adapters (some SoC
 * controllers, i2c-stub) cannot do that; the transfers sensor drivers use
 * (register read, register write) map onto SMBus commands instead.
 */
#include "linux/hal_linux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* i2c-dev refuses longer I2C_RDWR messages (drivers/i2c/i2c-dev.c). */
#define I2C_LINUX_MAX_MSG_LEN 8192u

struct i2c_linux {
	struct i2c_bus bus;
	int fd;
	unsigned long funcs;  /* I2C_FUNC_* of the adapter */
	int smbus_addr;       /* address set with I2C_SLAVE, -1 before the first */
};

/*
 * Many controllers (bcm2835, designware) report a missing device's NACK as
 * EREMOTEIO; the contract promises ENXIO for it.
 */
static int i2c_linux_errno(void)
{
	return errno == EREMOTEIO ? -ENXIO : -errno;
}

static int i2c_linux_rdwr(struct i2c_linux *b, uint8_t addr, const uint8_t *tx, size_t tx_len,
			  uint8_t *rx, size_t rx_len)
{
	struct i2c_msg msgs[2];
	struct i2c_rdwr_ioctl_data data = { .msgs = msgs, .nmsgs = 0 };

	if (tx_len > I2C_LINUX_MAX_MSG_LEN || rx_len > I2C_LINUX_MAX_MSG_LEN)
		return -EINVAL;
	if (tx_len) {
		/* The kernel only reads a write message's buffer; i2c_msg has no const. */
		msgs[data.nmsgs++] = (struct i2c_msg){
			.addr = addr, .flags = 0, .len = (uint16_t)tx_len,
			.buf = (uint8_t *)(uintptr_t)tx,
		};
	}
	if (rx_len) {
		msgs[data.nmsgs++] = (struct i2c_msg){
			.addr = addr, .flags = I2C_M_RD, .len = (uint16_t)rx_len, .buf = rx,
		};
	}
	int n = ioctl(b->fd, I2C_RDWR, &data);
	if (n < 0)
		return i2c_linux_errno();
	return (unsigned int)n == data.nmsgs ? 0 : -EIO;
}

static int i2c_linux_smbus(struct i2c_linux *b, uint8_t addr, uint8_t read_write, uint8_t command,
			   uint32_t size, union i2c_smbus_data *data)
{
	struct i2c_smbus_ioctl_data args = {
		.read_write = read_write, .command = command, .size = size, .data = data,
	};

	/* SMBus transfers go to the address set on the file, not one per call. */
	if (b->smbus_addr != addr) {
		if (ioctl(b->fd, I2C_SLAVE, (unsigned long)addr) < 0)
			return -errno;
		b->smbus_addr = addr;
	}
	if (ioctl(b->fd, I2C_SMBUS, &args) < 0)
		return i2c_linux_errno();
	return 0;
}

static int i2c_linux_smbus_read(struct i2c_linux *b, uint8_t addr, const uint8_t *tx,
				size_t tx_len, uint8_t *rx, size_t rx_len)
{
	union i2c_smbus_data data;
	int err;

	if (tx_len == 0 && rx_len == 1 && (b->funcs & I2C_FUNC_SMBUS_READ_BYTE)) {
		err = i2c_linux_smbus(b, addr, I2C_SMBUS_READ, 0, I2C_SMBUS_BYTE, &data);
		if (!err)
			rx[0] = data.byte;
		return err;
	}
	if (tx_len != 1)
		return -EOPNOTSUPP;
	if (rx_len == 1 && (b->funcs & I2C_FUNC_SMBUS_READ_BYTE_DATA)) {
		err = i2c_linux_smbus(b, addr, I2C_SMBUS_READ, tx[0], I2C_SMBUS_BYTE_DATA, &data);
		if (!err)
			rx[0] = data.byte;
		return err;
	}
	if (!(b->funcs & I2C_FUNC_SMBUS_READ_I2C_BLOCK))
		return -EOPNOTSUPP;
	if (rx_len > I2C_SMBUS_BLOCK_MAX)
		return -EINVAL;
	data.block[0] = (uint8_t)rx_len;
	err = i2c_linux_smbus(b, addr, I2C_SMBUS_READ, tx[0], I2C_SMBUS_I2C_BLOCK_DATA, &data);
	if (err)
		return err;
	if (data.block[0] < rx_len)
		return -EIO;
	memcpy(rx, &data.block[1], rx_len);
	return 0;
}

static int i2c_linux_smbus_write(struct i2c_linux *b, uint8_t addr, const uint8_t *tx,
				 size_t tx_len)
{
	union i2c_smbus_data data;

	if (tx_len == 1 && (b->funcs & I2C_FUNC_SMBUS_WRITE_BYTE))
		return i2c_linux_smbus(b, addr, I2C_SMBUS_WRITE, tx[0], I2C_SMBUS_BYTE, NULL);
	if (tx_len == 2 && (b->funcs & I2C_FUNC_SMBUS_WRITE_BYTE_DATA)) {
		data.byte = tx[1];
		return i2c_linux_smbus(b, addr, I2C_SMBUS_WRITE, tx[0], I2C_SMBUS_BYTE_DATA, &data);
	}
	if (tx_len < 2 || !(b->funcs & I2C_FUNC_SMBUS_WRITE_I2C_BLOCK))
		return -EOPNOTSUPP;
	if (tx_len - 1 > I2C_SMBUS_BLOCK_MAX)
		return -EINVAL;
	data.block[0] = (uint8_t)(tx_len - 1);
	memcpy(&data.block[1], &tx[1], tx_len - 1);
	return i2c_linux_smbus(b, addr, I2C_SMBUS_WRITE, tx[0], I2C_SMBUS_I2C_BLOCK_DATA, &data);
}

static int i2c_linux_write_read(struct i2c_bus *bus, uint8_t addr, const uint8_t *tx,
				size_t tx_len, uint8_t *rx, size_t rx_len)
{
	struct i2c_linux *b = (struct i2c_linux *)bus;

	/* 7-bit addresses only; a transfer of nothing is a caller's mistake. */
	if (addr > 0x7f || (tx_len == 0 && rx_len == 0))
		return -EINVAL;
	if (b->funcs & I2C_FUNC_I2C)
		return i2c_linux_rdwr(b, addr, tx, tx_len, rx, rx_len);
	if (rx_len)
		return i2c_linux_smbus_read(b, addr, tx, tx_len, rx, rx_len);
	return i2c_linux_smbus_write(b, addr, tx, tx_len);
}

static void i2c_linux_close(struct i2c_bus *bus)
{
	struct i2c_linux *b = (struct i2c_linux *)bus;

	close(b->fd);
	free(b);
}

static const struct i2c_ops i2c_linux_ops = {
	.write_read = i2c_linux_write_read,
	.close = i2c_linux_close,
};

int i2c_linux_open(const struct i2c_config *cfg, struct i2c_bus **out)
{
	int err;
	struct i2c_linux *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->bus.ops = &i2c_linux_ops;
	b->smbus_addr = -1;

	b->fd = open(cfg->path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0) {
		err = -errno;
		goto err_free;
	}
	if (ioctl(b->fd, I2C_FUNCS, &b->funcs) < 0) {
		err = -errno;
		goto err_close;
	}
	*out = &b->bus;
	return 0;

err_close:
	close(b->fd);
err_free:
	free(b);
	return err;
}
