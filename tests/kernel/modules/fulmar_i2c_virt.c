// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A virtual I2C adapter for fulmar's kernel-in-the-loop tests. Unlike i2c-stub
 * (SMBus only) it takes plain I2C messages, so I2C_RDWR from i2c-dev reaches
 * it; SMBus requests are emulated on top by the I2C core, as on most real
 * controllers.
 *
 * Each address in addrs= is a chip with 256 byte-wide registers: a write
 * message's first byte sets the register pointer and later bytes are stored
 * from there, a read message returns bytes from the pointer, which
 * increments. The pointer goes back to 0 at every STOP (the end of one
 * master_xfer), so a register read only returns that register when the
 * write of its number and the read are one combined transaction with a
 * repeated start. A missing address fails with -EREMOTEIO, the errno
 * designware and bcm2835 give for an address NACK.
 *
 * xfers and last_nmsgs (read-only parameters) let a test see how its
 * requests were framed.
 */
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/string.h>

#define VIRT_MAX_CHIPS 4
#define VIRT_WHO_AM_I 0x75

static unsigned short addrs[VIRT_MAX_CHIPS] = { 0x68 };
static int n_addrs = 1;
module_param_array(addrs, ushort, &n_addrs, 0444);
MODULE_PARM_DESC(addrs, "7-bit addresses that answer (up to 4, default 0x68)");

static unsigned int xfers;
module_param(xfers, uint, 0444);
MODULE_PARM_DESC(xfers, "transactions (START..STOP) so far");

static unsigned int last_nmsgs;
module_param(last_nmsgs, uint, 0444);
MODULE_PARM_DESC(last_nmsgs, "messages in the last transaction");

struct virt_chip {
	u8 regs[256];
	u8 ptr;
};

static struct virt_chip chips[VIRT_MAX_CHIPS];

static struct virt_chip *virt_find(u16 addr, u16 flags)
{
	int i;

	if (flags & I2C_M_TEN)
		return NULL;
	for (i = 0; i < n_addrs; i++)
		if (addrs[i] == addr)
			return &chips[i];
	return NULL;
}

/* Called with the adapter's bus lock held, so the counters need no lock of their own. */
static int virt_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	int i, ret = num;
	u16 j;

	xfers++;
	last_nmsgs = num;
	for (i = 0; i < num; i++) {
		struct i2c_msg *m = &msgs[i];
		struct virt_chip *c = virt_find(m->addr, m->flags);

		if (!c) {
			ret = -EREMOTEIO;
			break;
		}
		if (m->flags & I2C_M_RD) {
			for (j = 0; j < m->len; j++)
				m->buf[j] = c->regs[c->ptr++];
		} else if (m->len) {
			c->ptr = m->buf[0];
			for (j = 1; j < m->len; j++)
				c->regs[c->ptr++] = m->buf[j];
		}
	}
	for (i = 0; i < n_addrs; i++)
		chips[i].ptr = 0;
	return ret;
}

static u32 virt_func(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm virt_algo = {
	.master_xfer = virt_xfer,
	.functionality = virt_func,
};

static struct i2c_adapter virt_adapter = {
	.owner = THIS_MODULE,
	.algo = &virt_algo,
	.name = "fulmar i2c virt",
};

static int __init virt_init(void)
{
	int i, r;

	for (i = 0; i < n_addrs; i++) {
		if (addrs[i] > 0x7f)
			return -EINVAL;
		/* A known pattern (reg ^ 0xa5) and an MPU-style WHO_AM_I that is the address. */
		for (r = 0; r < 256; r++)
			chips[i].regs[r] = (u8)(r ^ 0xa5);
		chips[i].regs[VIRT_WHO_AM_I] = (u8)addrs[i];
	}
	return i2c_add_adapter(&virt_adapter);
}

static void __exit virt_exit(void)
{
	i2c_del_adapter(&virt_adapter);
}

module_init(virt_init);
module_exit(virt_exit);
MODULE_DESCRIPTION("fulmar test: virtual I2C adapter with register-file chips");
MODULE_LICENSE("GPL");
