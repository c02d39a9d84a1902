// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/devices.h"
#include "linux/hal_linux.h"

static const struct board_dev devs[] = {
	{ .name = "gps", .what = "u-blox", .kind = BOARD_DEV_UART,
	  .u.uart = { .cfg = { .path = "/nonexistent/ttyGPS", .baud = 38400 },
		      .open = uart_linux_open } },
	{ .name = "telem", .what = "radio", .kind = BOARD_DEV_UART, .optional = true,
	  .u.uart = { .cfg = { .path = "/nonexistent/ttyTELEM", .baud = 57600 },
		      .open = uart_linux_open } },
	{ .name = "buzzer", .what = "buzzer", .kind = BOARD_DEV_GPIO, .optional = true,
	  .u.gpio = { .cfg = { .chip = "gpiochip0", .offset = 3, .dir = GPIO_DIR_OUTPUT },
		      .open = gpio_linux_open } },
	{ .name = "pwm", .what = "PL PWM", .kind = BOARD_DEV_MMIO, .optional = true,
	  .u.mmio = { .cfg = { .mem_path = "/dev/mem", .phys_base = 0x43C00000, .len = 4096 },
		      .open = mmio_linux_open } },
};
static const struct board board = {
	.name = "testboard", .devs = devs, .n_devs = 4, .main_rate_hz = 400,
};

static struct config cfg;
static struct devices d;
static char err[1024];

static int parse(const char *text)
{
	config_defaults(&cfg, &board);
	return config_parse(&cfg, text, "t.conf", &board, err, sizeof(err));
}

/* A pseudo-terminal's master, its slave ready to open as a serial device. */
static int pty_master(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	return master;
}

static void test_devices_unreadable_path_names_the_device_and_path(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, false, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "gps (u-blox): /nonexistent/ttyGPS: No such file or directory");
}

static void test_devices_override_opens_the_configured_path_and_skips_optional_ones(void **state)
{
	int master = pty_master();
	char text[256];
	snprintf(text, sizeof(text), "[devices]\ngps = %s\n", ptsname(master));
	assert_int_equal(parse(text), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, false, err, sizeof(err)), 0);
	struct uart *gps = devices_find(&d, "gps", BOARD_DEV_UART);
	assert_non_null(gps);
	assert_null(devices_find(&d, "telem", BOARD_DEV_UART));   /* optional, not configured */
	assert_null(devices_find(&d, "gps", BOARD_DEV_SPI));      /* wrong kind */
	assert_int_equal(uart_write(gps, (const uint8_t *)"$GP", 3), 3);
	devices_close(&d);
	close(master);
}

/* A board with rangefinder entries, each tagged with its RNGFND1_TYPE; none
 * of their default paths exists here. */
static const struct board_dev rf_devs[] = {
	{ .name = "rngfnd_ll", .what = "LIDAR-Lite v3", .kind = BOARD_DEV_I2C,
	  .u.i2c = { .cfg = { .path = "/nonexistent/i2c-1" }, .addr = 0x62, .open = i2c_linux_open },
	  .drv = { .rngfnd_type = 15 } },
	{ .name = "rngfnd_tf", .what = "TFmini", .kind = BOARD_DEV_UART,
	  .u.uart = { .cfg = { .path = "/nonexistent/ttyTF", .baud = 115200 },
		      .open = uart_linux_open },
	  .drv = { .rngfnd_type = 20 } },
};
static const struct board rf_board = {
	.name = "rfboard", .devs = rf_devs, .n_devs = 2, .main_rate_hz = 400,
};

static void test_devices_rangefinder_entries_open_only_for_their_rngfnd1_type(void **state)
{
	config_defaults(&cfg, &rf_board);
	assert_int_equal(config_parse(&cfg, "", "t.conf", &rf_board, err, sizeof(err)), 0);
	/* not opened with the rest: their paths do not exist, and that is no error */
	assert_int_equal(devices_open(&d, &rf_board, &cfg, false, err, sizeof(err)), 0);
	assert_null(devices_find(&d, "rngfnd_tf", BOARD_DEV_UART));
	const char *name = NULL;
	assert_int_equal(devices_open_rangefinder(&d, 0, 0, &name, err, sizeof(err)), 0);
	assert_int_equal(devices_open_rangefinder(&d, 7, 0, &name, err, sizeof(err)), 0);
	assert_int_equal(devices_open_rangefinder(&d, 10, 0, &name, err, sizeof(err)), 0);
	assert_null(name);
	/* the picked one opens, and its failure names it and the type */
	assert_int_equal(devices_open_rangefinder(&d, 3, 0x63, &name, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "rngfnd_ll (LIDAR-Lite v3, RNGFND1_TYPE 3): /nonexistent/i2c-1: "
			    "No such file or directory");
	assert_int_equal(d.dev[0].desc.u.i2c.addr, 0x63);   /* RNGFND1_ADDR moved it */
	devices_close(&d);
	/* [devices] moves it like any device */
	int master = pty_master();
	char text[256];
	snprintf(text, sizeof(text), "[devices]\nrngfnd_tf = %s\n", ptsname(master));
	config_defaults(&cfg, &rf_board);
	assert_int_equal(config_parse(&cfg, text, "t.conf", &rf_board, err, sizeof(err)), 0);
	assert_int_equal(devices_open(&d, &rf_board, &cfg, false, err, sizeof(err)), 0);
	assert_null(devices_find(&d, "rngfnd_tf", BOARD_DEV_UART));   /* not before the type */
	assert_int_equal(devices_open_rangefinder(&d, 20, 0, &name, err, sizeof(err)), 1);
	assert_string_equal(name, "rngfnd_tf");
	assert_non_null(devices_find(&d, "rngfnd_tf", BOARD_DEV_UART));
	assert_false(d.dev[1].disabled);
	assert_true(d.dev[0].disabled);
	devices_close(&d);
	close(master);
	/* ... or says none: then RNGFND1_TYPE does not start it */
	config_defaults(&cfg, &rf_board);
	assert_int_equal(config_parse(&cfg, "[devices]\nrngfnd_ll = none\n", "t.conf", &rf_board,
				      err, sizeof(err)), 0);
	assert_int_equal(devices_open(&d, &rf_board, &cfg, false, err, sizeof(err)), 0);
	assert_int_equal(devices_open_rangefinder(&d, 15, 0, &name, err, sizeof(err)), 0);
	devices_close(&d);
	char info[1024];
	devices_describe(&rf_board, info, sizeof(info));
	assert_non_null(strstr(info, "TFmini [optional] [RNGFND1_TYPE 20]"));
}

static void test_devices_hil_opens_only_the_configured_ones(void **state)
{
	/* gps is required and its default path does not exist: in HIL it stays closed */
	assert_int_equal(parse(""), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, true, err, sizeof(err)), 0);
	assert_null(devices_find(&d, "gps", BOARD_DEV_UART));
	devices_close(&d);
	/* a device the configuration names is opened, and its failure is an error */
	assert_int_equal(parse("[devices]\ntelem = /nonexistent/ttyTELEM\n"), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, true, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/ttyTELEM: No such file or directory"));
	int master = pty_master();
	char text[256];
	snprintf(text, sizeof(text), "[devices]\ntelem = %s\n", ptsname(master));
	assert_int_equal(parse(text), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, true, err, sizeof(err)), 0);
	assert_non_null(devices_find(&d, "telem", BOARD_DEV_UART));
	assert_null(devices_find(&d, "gps", BOARD_DEV_UART));
	devices_close(&d);
	close(master);
}

static void test_devices_malformed_override_names_the_config_line(void **state)
{
	assert_int_equal(parse("[devices]\nbuzzer = gpiochip0\n"), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: 'gpiochip0' for gpio device 'buzzer' is not "
				 "CHIP:LINE, e.g. gpiochip0:4");
	assert_int_equal(parse("[devices]\npwm = /dev/mem@0x43C00010\n"), 0);
	assert_int_equal(devices_open(&d, &board, &cfg, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: '/dev/mem@0x43C00010' for mmio device 'pwm'"));
}

static void test_devices_optional_device_opened_when_configured_fails_clearly(void **state)
{
	int master = pty_master();
	char text[256];
	snprintf(text, sizeof(text), "[devices]\ngps = %s\nbuzzer = nosuchchip:3\n", ptsname(master));
	assert_int_equal(parse(text), 0);
	int rc = devices_open(&d, &board, &cfg, false, err, sizeof(err));
	assert_true(rc < 0);
	assert_non_null(strstr(err, "buzzer (buzzer): nosuchchip line 3: "));
	close(master);
}

static void test_devices_missing_lists_every_part_without_a_driver(void **state)
{
	static const struct board_dev parts[] = {
		{ .name = "imu", .what = "MPU9250", .kind = BOARD_DEV_SPI, .missing = "no driver" },
		{ .name = "telem", .what = "radio", .kind = BOARD_DEV_UART },
		{ .name = "rcin", .what = "PRU", .kind = BOARD_DEV_MMIO, .missing = "no PRU backend" },
	};
	static const struct board b = { .name = "b", .devs = parts, .n_devs = 3 };
	char buf[256];
	assert_int_equal(devices_missing(&b, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "imu (MPU9250): no driver; rcin (PRU): no PRU backend");
	assert_int_equal(devices_missing(&board, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_unreadable_path_names_the_device_and_path),
		cmocka_unit_test(test_devices_override_opens_the_configured_path_and_skips_optional_ones),
		cmocka_unit_test(test_devices_hil_opens_only_the_configured_ones),
		cmocka_unit_test(test_devices_rangefinder_entries_open_only_for_their_rngfnd1_type),
		cmocka_unit_test(test_devices_malformed_override_names_the_config_line),
		cmocka_unit_test(test_devices_optional_device_opened_when_configured_fails_clearly),
		cmocka_unit_test(test_devices_missing_lists_every_part_without_a_driver),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
