/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a flight board is: a table of devices, each with its wiring (a const
 * config) and the backend that opens it. Exactly one boards/<name>.c is linked
 * into fulmard; it defines board_get(). The daemon opens the table generically,
 * so a board is data, and a new board is a new file.
 */
#ifndef FULMAR_BOARD_H
#define FULMAR_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/analog.h"
#include "fulmar/gpio.h"
#include "fulmar/i2c.h"
#include "fulmar/mmio.h"
#include "fulmar/spi.h"
#include "fulmar/sysfs.h"
#include "fulmar/uart.h"

enum board_dev_kind {
	BOARD_DEV_SPI = 1,
	BOARD_DEV_I2C,
	BOARD_DEV_GPIO,
	BOARD_DEV_UART,
	BOARD_DEV_ANALOG,
	BOARD_DEV_MMIO,
	BOARD_DEV_SYSFS,          /* a kernel module's attribute files (fulmar/sysfs.h) */
};

struct driver;
struct rcin;
struct rcout;

/*
 * A driver's settings for one device; plain data in the board table. Each
 * driver reads the fields it has (src/drivers/driver.h); left 0, a field
 * takes the driver's usual value.
 */
struct board_driver {
	/*
	 * enum rotation of src/drivers/rotation.h (chip axes to body axes) for
	 * IMUs and magnetometers; 0 is taken as ROTATION_NONE.
	 */
	int rotation;
	uint32_t rate_hz;         /* IMU sample rate; 0: the board's imu_rate_hz */
	uint32_t baud;            /* a GPS on a UART: the rate to move it to; 0: the driver's */
	bool aux_mag;             /* an IMU with a compass behind it: read that too */
	uint32_t setup_speed_hz;  /* SPI chips with a slow set-up clock; 0: the driver's */
	/* Name of the GPIO device that is this SPI chip's select (driven around each transfer). */
	const char *chip_select;
	/* Servo controllers: the output-enable GPIO device, an external clock (0: internal), first output. */
	const char *output_enable;
	uint32_t ext_clock_hz;
	uint8_t channel_offset;
	uint16_t pwm_hz;          /* servo outputs: pulse rate; 0: the driver's */
	/* Battery: the board's figure used while the parameter is left at 0 (V or A per volt). */
	float scale;
	/*
	 * Pulse-capture RC input and MMIO servo outputs: the backend's constructor (hal/pru,
	 * hal/zynq, hal/linux rcin_gpio), named by the board file so that only the
	 * backends a board uses are linked. mmio ones take the window and the byte
	 * offset of the registers in it.
	 */
	int (*rcin_mmio)(struct mmio *win, size_t off, struct rcin **out);
	int (*rcin_gpio)(struct gpio_line *line, struct rcin **out);
	int (*rcout_mmio)(struct mmio *win, size_t off, struct rcout **out);
	size_t mmio_off;
	/*
	 * Servo outputs on a kernel PWM chip (a BOARD_DEV_SYSFS entry, its
	 * directory the chip's): the backend's constructor and its refresh,
	 * which the main thread calls at least every 10 ms
	 * (hal/linux/rcout_pwm_sysfs.h), and how many channels to open.
	 */
	int (*rcout_sysfs)(const char *chip_dir, unsigned int channels, struct rcout **out,
			   char *err, size_t err_len);
	int (*rcout_refresh)(struct rcout *out, uint64_t now_us);
	uint8_t channels;
	/*
	 * A rangefinder entry: ArduPilot's RNGFND1_TYPE number of the sensor it
	 * places (7 LightWare I2C, 15 LIDAR-Lite v3, 20 Benewake TFmini). Such
	 * an entry is opened and started only when RNGFND1_TYPE says that
	 * type, after the parameters load (src/daemon/devices.h,
	 * devices_open_rangefinder); 0: not a rangefinder entry.
	 */
	uint8_t rngfnd_type;
};

struct board_dev {
	const char *name;         /* unique on the board: "imu", "baro", "rcin", "gps", "buzzer" */
	const char *what;         /* for people: "IMU on SPI0 CS1", with the chip's name */
	enum board_dev_kind kind;
	/*
	 * Non-NULL when fulmar has no backend or driver for this part yet: says what
	 * is missing. fulmard refuses to start on a board with such a part rather
	 * than fly without it.
	 */
	const char *missing;
	bool optional;            /* opened only when the configuration gives it a path */
	/*
	 * What runs on it (src/drivers/driver.h), with its settings. NULL: the
	 * device is no driver's own, only a helper another entry names (a
	 * chip-select line, an output enable, a power switch) or a link the
	 * services open (telemetry).
	 */
	const struct driver *driver;
	struct board_driver drv;
	union {
		struct {
			struct spi_config cfg;
			int (*open)(const struct spi_config *cfg, struct spi_dev **out);
		} spi;
		struct {
			struct i2c_config cfg;
			uint8_t addr;  /* 7-bit address of the chip this entry stands for */
			int (*open)(const struct i2c_config *cfg, struct i2c_bus **out);
		} i2c;
		struct {
			struct gpio_config cfg;
			int (*open)(const struct gpio_config *cfg, struct gpio_line **out);
		} gpio;
		struct {
			struct uart_config cfg;
			int (*open)(const struct uart_config *cfg, struct uart **out);
		} uart;
		struct {
			struct analog_config cfg;
			int (*open)(const struct analog_config *cfg, struct analog_in **out);
		} analog;
		struct {
			struct sysfs_config cfg;
			int (*open)(const struct sysfs_config *cfg, struct sysfs_dir **out);
		} sysfs;
		struct {
			struct mmio_config cfg;
			int (*open)(const struct mmio_config *cfg, const char *sysfs_root,
				    struct mmio **out);
		} mmio;
	} u;
};

struct board {
	const char *name;         /* as in -Dboard= */
	const char *description;
	const struct board_dev *devs;
	unsigned int n_devs;
	uint32_t imu_rate_hz;     /* rate the IMU is sampled at on the timer thread */
	uint32_t main_rate_hz;    /* default main-loop rate */
	/* Said once at start-up when set: what this board does not do yet. */
	const char *notice;
	/*
	 * A board whose sensors and outputs are a simulator's: the HIL link it
	 * uses when the command line names none ("udp:127.0.0.1:14560"). NULL on
	 * boards with their own sensors (they fly HIL only with --hil).
	 */
	const char *hil_default;
};

/* Defined by the one linked boards/<name>.c. */
const struct board *board_get(void);

/*
 * In a boards/<name>.c, after its table `devs`: the board (the rest of struct
 * board's fields as designated initialisers) and board_get().
 */
#define BOARD_DEFINE(...) \
	static const struct board the_board = { \
		.devs = devs, .n_devs = sizeof(devs) / sizeof(devs[0]), __VA_ARGS__ \
	}; \
	const struct board *board_get(void) { return &the_board; } \
	_Static_assert(sizeof(devs) > 0, "a board has devices")

#endif
