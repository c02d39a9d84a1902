// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A virtual SPI controller for fulmar's kernel-in-the-loop tests. Chip select
 * 0 is a 128-register chip that speaks the MPU6000/9250 protocol (datasheet
 * "SPI interface": the first byte after chip select falls is the register
 * number, bit 7 set for a read; the bytes after it read or write consecutive
 * registers). spidev is bound to it, so it appears as /dev/spidev<bus>.0.
 *
 * Chip select falls at the start of each message and again after a
 * transfer with cs_change, so a register number sent in one SPI_IOC_MESSAGE
 * and data clocked in another land in different frames, as on a real chip.
 *
 * The read-only parameters say what the last message looked like (mode,
 * clock, word size, frames) so a test can check what its backend asked for.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>

#define VIRT_NREGS 128
#define VIRT_WHO_AM_I 0x75
#define VIRT_MAX_HZ 20000000

static int bus_num;
module_param(bus_num, int, 0444);
MODULE_PARM_DESC(bus_num, "SPI bus number (default 0: /dev/spidev0.0)");

static unsigned int messages, last_mode, last_speed_hz, last_bits, last_frames, last_len;
module_param(messages, uint, 0444);
module_param(last_mode, uint, 0444);
module_param(last_speed_hz, uint, 0444);
module_param(last_bits, uint, 0444);
module_param(last_frames, uint, 0444);
module_param(last_len, uint, 0444);

static u8 regs[VIRT_NREGS];
static struct platform_device *virt_pdev;
static struct spi_controller *virt_ctlr;

/* The SPI core runs one message at a time per controller: no lock is needed. */
static int virt_transfer_one_message(struct spi_controller *ctlr, struct spi_message *msg)
{
	struct spi_transfer *t;
	bool frame_start = true, rd = false;
	u8 reg = 0;
	unsigned int i;

	messages++;
	last_mode = msg->spi->mode;
	last_frames = 1;
	last_len = 0;
	list_for_each_entry(t, &msg->transfers, transfer_list) {
		const u8 *tx = t->tx_buf;
		u8 *rx = t->rx_buf;

		/* The last transfer's clock: the tests set them all alike or look at the last. */
		last_speed_hz = t->speed_hz;
		last_bits = t->bits_per_word;
		for (i = 0; i < t->len; i++) {
			u8 in = tx ? tx[i] : 0, out = 0;

			if (frame_start) {
				reg = in & 0x7f;
				rd = in & 0x80;
				frame_start = false;
			} else {
				if (rd)
					out = regs[reg];
				else
					regs[reg] = in;
				reg = (reg + 1) % VIRT_NREGS;
			}
			if (rx)
				rx[i] = out;
		}
		msg->actual_length += t->len;
		last_len += t->len;
		if (t->cs_change && !list_is_last(&t->transfer_list, &msg->transfers)) {
			frame_start = true;
			last_frames++;
		}
	}
	msg->status = 0;
	spi_finalize_current_message(ctlr);
	return 0;
}

static int __init virt_init(void)
{
	struct spi_device *spi;
	int i, ret;

	for (i = 0; i < VIRT_NREGS; i++)
		regs[i] = (u8)(i ^ 0x5a);
	regs[VIRT_WHO_AM_I] = 0x68;

	virt_pdev = platform_device_register_simple("fulmar-spi-virt", -1, NULL, 0);
	if (IS_ERR(virt_pdev))
		return PTR_ERR(virt_pdev);
	virt_ctlr = spi_alloc_master(&virt_pdev->dev, 0);
	if (!virt_ctlr) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	virt_ctlr->bus_num = bus_num;
	virt_ctlr->num_chipselect = 1;
	virt_ctlr->mode_bits = SPI_CPOL | SPI_CPHA | SPI_CS_HIGH | SPI_LSB_FIRST;
	virt_ctlr->bits_per_word_mask = SPI_BPW_MASK(8);
	virt_ctlr->min_speed_hz = 100000;
	virt_ctlr->max_speed_hz = VIRT_MAX_HZ;
	virt_ctlr->transfer_one_message = virt_transfer_one_message;
	ret = spi_register_controller(virt_ctlr);
	if (ret)
		goto err_put;

	spi = spi_alloc_device(virt_ctlr);
	if (!spi) {
		ret = -ENOMEM;
		goto err_unregister;
	}
	spi->max_speed_hz = VIRT_MAX_HZ;
	strscpy(spi->modalias, "fulmar-virt-imu", sizeof(spi->modalias));
	/* 6.1's spidev has no id for a generic device: bind it by override. */
	spi->driver_override = kstrdup("spidev", GFP_KERNEL);
	if (!spi->driver_override) {
		spi_dev_put(spi);
		ret = -ENOMEM;
		goto err_unregister;
	}
	ret = spi_add_device(spi);
	if (ret) {
		spi_dev_put(spi);
		goto err_unregister;
	}
	return 0;

err_unregister:
	spi_unregister_controller(virt_ctlr);
	goto err_pdev;
err_put:
	spi_controller_put(virt_ctlr);
err_pdev:
	platform_device_unregister(virt_pdev);
	return ret;
}

static void __exit virt_exit(void)
{
	spi_unregister_controller(virt_ctlr);
	platform_device_unregister(virt_pdev);
}

module_init(virt_init);
module_exit(virt_exit);
MODULE_DESCRIPTION("fulmar test: virtual SPI controller with an MPU-style register file");
MODULE_LICENSE("GPL");
