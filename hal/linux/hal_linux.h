/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Constructors of the Linux backends. Seen by board files (and tests) only;
 * everything else uses the interfaces in include/fulmar/. Each returns 0 and
 * writes *out, or returns -errno and leaves *out alone. The config is not
 * copied: it must outlive the handle (board tables are static const).
 */
#ifndef FULMAR_HAL_LINUX_H
#define FULMAR_HAL_LINUX_H

#include <stdint.h>

#include "fulmar/analog.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/mmio.h"
#include "fulmar/rcin.h"
#include "fulmar/spi.h"
#include "fulmar/sysfs.h"
#include "fulmar/uart.h"

int spi_linux_open(const struct spi_config *cfg, struct spi_dev **out);
int i2c_linux_open(const struct i2c_config *cfg, struct i2c_bus **out);
int gpio_linux_open(const struct gpio_config *cfg, struct gpio_line **out);
int uart_linux_open(const struct uart_config *cfg, struct uart **out);
int analog_iio_open(const struct analog_config *cfg, struct analog_in **out);
/*
 * analog_iio_open on the libiio context at uri: "local:" (what NULL means and
 * analog_iio_open uses), "ip:host[:port]" for an iiod on a HIL rig, or
 * "xml:/path" (lists devices but cannot read them: tests only). Both give
 * -ENODEV when the device, the input channel or its "raw" is not there.
 */
int analog_iio_open_uri(const char *uri, const struct analog_config *cfg, struct analog_in **out);
/*
 * A sysfs directory of a kernel module's attribute files (fulmar/sysfs.h):
 * -ENODEV when the directory is not there (the module is not loaded).
 */
int sysfs_linux_open(const struct sysfs_config *cfg, struct sysfs_dir **out);

/*
 * An analog input that a kernel module gives as one file of decimal
 * millivolts, cfg->device the directory and cfg->channel the file
 * ("/sys/kernel/rcio/adc", "ch2"; analog_sysfs.c). -ENODEV when the file is
 * not there. analog_read gives millivolts, or -errno from the read,
 * or -EBADMSG for text that is not a whole number in 0..ANALOG_SYSFS_MAX_MV.
 */
#define ANALOG_SYSFS_MAX_MV 65535       /* the co-processor's ADC registers are 16 bits */
struct analog_sysfs_stats {
	uint64_t read_errors;           /* the file was gone or would not read */
	uint64_t garbage;               /* it held something other than a number in range */
};
int analog_sysfs_open(const struct analog_config *cfg, struct analog_in **out);
/* Its counts (only ever grow); in must come from analog_sysfs_open. Valid until analog_close. */
const struct analog_sysfs_stats *analog_sysfs_stats(const struct analog_in *in);

/* sysfs_root is "/sys" except in tests, which lay out a UIO tree of their own. */
int mmio_linux_open(const struct mmio_config *cfg, const char *sysfs_root, struct mmio **out);
/*
 * RC input from an edge input line (opened with GPIO_EDGE_BOTH; see
 * rcin_gpio.c). The line is not owned: it must stay open until the handle is
 * closed, and closing the handle leaves it open. -ENOTSUP when the line's
 * backend has no edge events.
 */
int rcin_gpio_open(struct gpio_line *line, struct rcin **out);

/*
 * Board-table shorthands for devices on the Linux backends above (a field
 * left 0 takes the driver's usual value: an SPI speed, an I2C address).
 */
#define LINUX_SPI(p, spi_mode, speed) \
	.kind = BOARD_DEV_SPI, \
	.u.spi = { .cfg = { .path = (p), .mode = (spi_mode), .speed_hz = (speed) }, \
		   .open = spi_linux_open }
#define LINUX_I2C(p, address) \
	.kind = BOARD_DEV_I2C, \
	.u.i2c = { .cfg = { .path = (p) }, .addr = (address), .open = i2c_linux_open }
#define LINUX_UART(p, rate) \
	.kind = BOARD_DEV_UART, \
	.u.uart = { .cfg = { .path = (p), .baud = (rate) }, .open = uart_linux_open }
/* An output line and the (logical) value it is requested with. */
#define LINUX_GPIO_OUT(chip_name, line, low_active, initial) \
	.kind = BOARD_DEV_GPIO, \
	.u.gpio = { .cfg = { .chip = (chip_name), .offset = (line), .dir = GPIO_DIR_OUTPUT, \
			     .active_low = (low_active), .initial_value = (initial) }, \
		    .open = gpio_linux_open }
#define LINUX_GPIO_IN(chip_name, line, edges) \
	.kind = BOARD_DEV_GPIO, \
	.u.gpio = { .cfg = { .chip = (chip_name), .offset = (line), .dir = GPIO_DIR_INPUT, \
			     .edge = (edges) }, \
		    .open = gpio_linux_open }
#define IIO_ANALOG(dev, ch) \
	.kind = BOARD_DEV_ANALOG, \
	.u.analog = { .cfg = { .device = (dev), .channel = (ch) }, .open = analog_iio_open }
/* An ADC whose driver gives no scale: the board's millivolts per count. */
#define IIO_ANALOG_RAW(dev, ch, mv_per_count) \
	.kind = BOARD_DEV_ANALOG, \
	.u.analog = { .cfg = { .device = (dev), .channel = (ch), .raw_mv_per_count = (mv_per_count) }, \
		      .open = analog_iio_open }
#define LINUX_SYSFS(p) \
	.kind = BOARD_DEV_SYSFS, .u.sysfs = { .cfg = { .path = (p) }, .open = sysfs_linux_open }
#define SYSFS_ANALOG(dir, file) \
	.kind = BOARD_DEV_ANALOG, \
	.u.analog = { .cfg = { .device = (dir), .channel = (file) }, .open = analog_sysfs_open }
#define LINUX_MMIO(base, length) \
	.kind = BOARD_DEV_MMIO, \
	.u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = (base), .len = (length) }, \
		    .open = mmio_linux_open }

#endif
