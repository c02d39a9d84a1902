// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The termios backend against a pseudo-terminal: the backend opens the pty's
 * slave side as its port, the test plays the far end on the master side. The
 * settings are read back with the kernel's own struct termios2 (this file
 * uses <asm/termbits.h> rather than glibc's <termios.h>), which also checks
 * the backend's copy of that struct against the kernel header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "linux/hal_linux.h"

struct pty {
	int master;
	char slave[64];
};

static void pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	assert_true(p->master >= 0);
	assert_int_equal(grantpt(p->master), 0);
	assert_int_equal(unlockpt(p->master), 0);
	assert_int_equal(ptsname_r(p->master, p->slave, sizeof(p->slave)), 0);
}

/* qemu-user, which runs the armhf tests, passes no termios2 request through (ENOSYS). */
static bool have_termios2(void)
{
	struct pty p;
	struct termios2 t;

	pty_open(&p);
	bool ok = ioctl(p.master, TCGETS2, &t) == 0 || errno != ENOSYS;
	close(p.master);
	if (!ok)
		print_message("no termios2 ioctls here (user-mode emulation?)\n");
	return ok;
}

static struct termios2 settings_of(struct uart *u)
{
	struct termios2 t;

	assert_int_equal(ioctl(uart_fd(u), TCGETS2, &t), 0);
	return t;
}

/* Reads until len bytes arrived or a second passed without any. */
static size_t read_fd(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (got < len && poll(&pfd, 1, 1000) == 1) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static size_t read_uart(struct uart *u, uint8_t *buf, size_t len)
{
	size_t got = 0;
	struct pollfd pfd = { .fd = uart_fd(u), .events = POLLIN };

	while (got < len && poll(&pfd, 1, 1000) == 1) {
		int n = uart_read(u, buf + got, len - got);
		assert_true(n >= 0);
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void test_uart_bytes_cross_in_both_directions_untouched(void **state)
{
	struct pty p;
	struct uart *u = NULL;
	uint8_t out[256], in[256];

	pty_open(&p);
	const struct uart_config cfg = { .path = p.slave, .baud = 115200 };
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	/* Every byte value, so CR, LF, XON, XOFF and ^C must pass as data too. */
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)i;

	assert_int_equal(write(p.master, out, sizeof(out)), (ssize_t)sizeof(out));
	assert_int_equal(read_uart(u, in, sizeof(in)), sizeof(in));
	assert_memory_equal(in, out, sizeof(out));

	assert_int_equal(uart_write(u, out, sizeof(out)), (int)sizeof(out));
	assert_int_equal(read_fd(p.master, in, sizeof(in)), sizeof(in));
	assert_memory_equal(in, out, sizeof(out));
	uart_close(u);
	close(p.master);
}

static void test_uart_read_with_nothing_waiting_gives_0(void **state)
{
	struct pty p;
	struct uart *u = NULL;
	uint8_t b;

	pty_open(&p);
	const struct uart_config cfg = { .path = p.slave, .baud = 57600 };
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	assert_int_equal(uart_read(u, &b, 1), 0);
	uart_close(u);
	close(p.master);
}

static void test_uart_write_takes_what_fits_and_then_gives_0(void **state)
{
	struct pty p;
	struct uart *u = NULL;
	static uint8_t chunk[4096];
	size_t total = 0;
	int n;

	pty_open(&p);
	const struct uart_config cfg = { .path = p.slave, .baud = 921600 };
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	/* Nobody reads the master side, so the pty's buffer fills up. */
	while ((n = uart_write(u, chunk, sizeof(chunk))) > 0 && total < (64u << 20))
		total += (size_t)n;
	assert_int_equal(n, 0);
	assert_true(total > 0);
	uart_close(u);
	close(p.master);
}

/*
 * A pty takes any frame but keeps only some of it: its driver forces CS8 and
 * clears PARENB (drivers/tty/pty.c, pty_set_termios), so data bits and parity
 * cannot be read back here; the kernel-in-the-loop tests check them on a UART.
 */
static void test_uart_open_in_7o1_at_a_standard_rate_leaves_the_port_raw(void **state)
{
	struct pty p;
	struct uart *u = NULL;

	if (!have_termios2()) {
		print_message("SKIP: this kernel (or qemu-user) has no TCGETS2 on a pty\n");
		skip();
	}
	pty_open(&p);
	const struct uart_config cfg = {
		.path = p.slave, .baud = 57600, .data_bits = 7,
		.parity = UART_PARITY_ODD, .stop_bits = 1,
	};
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	struct termios2 t = settings_of(u);
	assert_int_equal(t.c_cflag & CBAUD, B57600);
	assert_int_equal(t.c_ospeed, 57600);
	assert_int_equal(t.c_cflag & (CSTOPB | CRTSCTS), 0);
	assert_int_equal(t.c_cflag & (CREAD | CLOCAL), CREAD | CLOCAL);
	assert_int_equal(t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0);
	assert_int_equal(t.c_iflag & (IXON | ICRNL | INPCK | ISTRIP), 0);
	assert_int_equal(t.c_oflag & OPOST, 0);
	assert_int_equal(t.c_cc[VMIN], 0);
	assert_int_equal(t.c_cc[VTIME], 0);
	uart_close(u);
	close(p.master);
}

static void test_uart_sbus_100000_8e2_gets_its_rate_and_stop_bits_through_termios2(void **state)
{
	struct pty p;
	struct uart *u = NULL;

	if (!have_termios2()) {
		print_message("SKIP: this kernel (or qemu-user) has no TCGETS2 on a pty\n");
		skip();
	}
	pty_open(&p);
	const struct uart_config cfg = {
		.path = p.slave, .baud = 100000, .data_bits = 8,
		.parity = UART_PARITY_EVEN, .stop_bits = 2,
	};
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	struct termios2 t = settings_of(u);
	assert_int_equal(t.c_cflag & CBAUD, BOTHER);
	assert_int_equal(t.c_ospeed, 100000);
	assert_int_equal(t.c_ispeed, 100000);
	assert_int_equal(t.c_cflag & CSTOPB, CSTOPB);
	assert_int_equal(t.c_lflag & ICANON, 0);
	uart_close(u);
	close(p.master);
}

static void test_uart_set_baud_moves_between_standard_and_custom_rates(void **state)
{
	struct pty p;
	struct uart *u = NULL;

	if (!have_termios2()) {
		print_message("SKIP: this kernel (or qemu-user) has no TCGETS2 on a pty\n");
		skip();
	}
	pty_open(&p);
	const struct uart_config cfg = {
		.path = p.slave, .baud = 9600, .stop_bits = 2, .rtscts = true,
	};
	assert_int_equal(uart_linux_open(&cfg, &u), 0);
	assert_int_equal(settings_of(u).c_cflag & CRTSCTS, CRTSCTS);

	assert_int_equal(uart_set_baud(u, 250000), 0);
	struct termios2 t = settings_of(u);
	assert_int_equal(t.c_cflag & CBAUD, BOTHER);
	assert_int_equal(t.c_ospeed, 250000);
	/* The frame settings survive a rate change. */
	assert_int_equal(t.c_cflag & (CRTSCTS | CSTOPB), CRTSCTS | CSTOPB);
	assert_int_equal(t.c_lflag & ICANON, 0);

	assert_int_equal(uart_set_baud(u, 115200), 0);
	t = settings_of(u);
	assert_int_equal(t.c_cflag & CBAUD, B115200);
	assert_int_equal(t.c_ospeed, 115200);
	assert_int_equal(t.c_cflag & (CRTSCTS | CSTOPB), CRTSCTS | CSTOPB);
	assert_int_equal(uart_set_baud(u, 0), -EINVAL);
	uart_close(u);
	close(p.master);
}

static void test_uart_open_rejects_frames_it_cannot_make(void **state)
{
	struct pty p;
	struct uart *u = NULL;

	pty_open(&p);
	const struct uart_config bad[] = {
		{ .path = p.slave, .baud = 0 },
		{ .path = p.slave, .baud = 9600, .data_bits = 4 },
		{ .path = p.slave, .baud = 9600, .data_bits = 9 },
		{ .path = p.slave, .baud = 9600, .stop_bits = 3 },
		{ .path = p.slave, .baud = 9600, .parity = (enum uart_parity)7 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uart_linux_open(&bad[i], &u), -EINVAL);
	assert_null(u);
	close(p.master);
}

static void test_uart_open_of_missing_path_gives_enoent(void **state)
{
	const struct uart_config cfg = { .path = "/dev/ttyFULMAR-none", .baud = 9600 };
	struct uart *u = NULL;

	assert_int_equal(uart_linux_open(&cfg, &u), -ENOENT);
	assert_null(u);
}

static void test_uart_open_of_a_file_that_is_not_a_tty_gives_enotty(void **state)
{
	char path[] = "/tmp/fulmar-nottty-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct uart_config cfg = { .path = path, .baud = 9600 };
	struct uart *u = NULL;

	assert_int_equal(uart_linux_open(&cfg, &u), -ENOTTY);
	cfg.path = "/dev/null";
	assert_int_equal(uart_linux_open(&cfg, &u), -ENOTTY);
	assert_null(u);
	unlink(path);
}

static void test_uart_close_of_null_is_a_no_op(void **state)
{
	uart_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uart_bytes_cross_in_both_directions_untouched),
		cmocka_unit_test(test_uart_read_with_nothing_waiting_gives_0),
		cmocka_unit_test(test_uart_write_takes_what_fits_and_then_gives_0),
		cmocka_unit_test(test_uart_open_in_7o1_at_a_standard_rate_leaves_the_port_raw),
		cmocka_unit_test(test_uart_sbus_100000_8e2_gets_its_rate_and_stop_bits_through_termios2),
		cmocka_unit_test(test_uart_set_baud_moves_between_standard_and_custom_rates),
		cmocka_unit_test(test_uart_open_rejects_frames_it_cannot_make),
		cmocka_unit_test(test_uart_open_of_missing_path_gives_enoent),
		cmocka_unit_test(test_uart_open_of_a_file_that_is_not_a_tty_gives_enotty),
		cmocka_unit_test(test_uart_close_of_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
