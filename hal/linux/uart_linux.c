// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Serial ports through termios, raw and non-blocking. Rates with a Bxxx
 * constant go through cfsetospeed; any other rate (SBUS at 100000, 250000)
 * through the kernel's termios2 interface with BOTHER.
 */
#include "linux/hal_linux.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/*
 * struct termios2, its ioctls and BOTHER as in the kernel's
 * include/uapi/asm-generic/termbits.h and ioctls.h: the layout of x86, arm,
 * arm64 and riscv. <asm/termbits.h> cannot be included here because it and
 * glibc's <termios.h> both define struct termios and NCCS. A layout that did
 * not match would change the request number, and the kernel would refuse it
 * with ENOTTY rather than misread it.
 */
struct uart_termios2 {
	tcflag_t c_iflag;
	tcflag_t c_oflag;
	tcflag_t c_cflag;
	tcflag_t c_lflag;
	cc_t c_line;
	cc_t c_cc[19];
	speed_t c_ispeed;
	speed_t c_ospeed;
};
static_assert(sizeof(struct uart_termios2) == 44, "kernel struct termios2 layout");

#define UART_TCGETS2 _IOR('T', 0x2A, struct uart_termios2)
#define UART_TCSETS2 _IOW('T', 0x2B, struct uart_termios2)
#define UART_BOTHER 0x00001000u

struct uart_linux {
	struct uart u;
	int fd;
};

static speed_t uart_linux_speed_code(uint32_t baud)
{
	static const struct {
		uint32_t baud;
		speed_t code;
	} codes[] = {
		{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
		{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1500000, B1500000 }, { 2000000, B2000000 },
		{ 3000000, B3000000 }, { 4000000, B4000000 },
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (codes[i].baud == baud)
			return codes[i].code;
	}
	return B0;
}

static int uart_linux_set_custom_rate(int fd, uint32_t baud)
{
	struct uart_termios2 t2;

	if (ioctl(fd, UART_TCGETS2, &t2) < 0)
		return -errno;
	/* CIBAUD zero: the input rate follows the output rate. */
	t2.c_cflag &= ~(tcflag_t)(CBAUD | CIBAUD);
	t2.c_cflag |= UART_BOTHER;
	t2.c_ispeed = baud;
	t2.c_ospeed = baud;
	if (ioctl(fd, UART_TCSETS2, &t2) < 0)
		return -errno;
	return 0;
}

/* Writes tio with the rate set; a custom rate goes on top of it through termios2. */
static int uart_linux_apply(int fd, struct termios *tio, uint32_t baud)
{
	speed_t code = uart_linux_speed_code(baud);

	if (baud == 0)
		return -EINVAL;
	if (code != B0 && (cfsetispeed(tio, code) < 0 || cfsetospeed(tio, code) < 0))
		return -errno;
	if (tcsetattr(fd, TCSANOW, tio) < 0)
		return -errno;
	if (code == B0)
		return uart_linux_set_custom_rate(fd, baud);
	return 0;
}

static int uart_linux_read(struct uart *u, uint8_t *buf, size_t len)
{
	struct uart_linux *s = (struct uart_linux *)u;
	ssize_t n = read(s->fd, buf, len > INT_MAX ? INT_MAX : len);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return (int)n;
}

static int uart_linux_write(struct uart *u, const uint8_t *buf, size_t len)
{
	struct uart_linux *s = (struct uart_linux *)u;
	ssize_t n = write(s->fd, buf, len > INT_MAX ? INT_MAX : len);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return (int)n;
}

static int uart_linux_set_baud(struct uart *u, uint32_t baud)
{
	struct uart_linux *s = (struct uart_linux *)u;
	struct termios tio;

	if (tcgetattr(s->fd, &tio) < 0)
		return -errno;
	return uart_linux_apply(s->fd, &tio, baud);
}

static int uart_linux_fd(struct uart *u)
{
	return ((struct uart_linux *)u)->fd;
}

static void uart_linux_close(struct uart *u)
{
	struct uart_linux *s = (struct uart_linux *)u;

	close(s->fd);
	free(s);
}

static const struct uart_ops uart_linux_ops = {
	.read = uart_linux_read,
	.write = uart_linux_write,
	.set_baud = uart_linux_set_baud,
	.fd = uart_linux_fd,
	.close = uart_linux_close,
};

/* The c_cflag bits for data bits, parity and stop bits, or 0 for a config we cannot make. */
static tcflag_t uart_linux_frame_flags(const struct uart_config *cfg)
{
	static const tcflag_t sizes[] = { CS5, CS6, CS7, CS8 };
	unsigned int data_bits = cfg->data_bits ? cfg->data_bits : 8;
	unsigned int stop_bits = cfg->stop_bits ? cfg->stop_bits : 1;
	tcflag_t flags;

	if (data_bits < 5 || data_bits > 8 || stop_bits > 2)
		return 0;
	/* CS5 is 0, so CREAD keeps a valid result non-zero. */
	flags = sizes[data_bits - 5] | CREAD | CLOCAL;
	if (stop_bits == 2)
		flags |= CSTOPB;
	switch (cfg->parity ? cfg->parity : UART_PARITY_NONE) {
	case UART_PARITY_NONE:
		break;
	case UART_PARITY_EVEN:
		flags |= PARENB;
		break;
	case UART_PARITY_ODD:
		flags |= PARENB | PARODD;
		break;
	default:
		return 0;
	}
	if (cfg->rtscts)
		flags |= CRTSCTS;
	return flags;
}

int uart_linux_open(const struct uart_config *cfg, struct uart **out)
{
	tcflag_t frame = uart_linux_frame_flags(cfg);
	struct termios tio;
	int err;

	if (frame == 0 || cfg->baud == 0)
		return -EINVAL;
	struct uart_linux *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->u.ops = &uart_linux_ops;

	/* O_NONBLOCK also keeps open from waiting for carrier on a modem line. */
	s->fd = open(cfg->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		err = -errno;
		goto err_free;
	}
	if (tcgetattr(s->fd, &tio) < 0) {
		err = -errno;
		goto err_close;
	}
	/*
	 * Raw bytes both ways. Parity is generated on output but not checked on
	 * input (no INPCK): the protocol parsers' checksums decide, and a byte
	 * with a parity error still arrives as itself rather than as 0.
	 */
	cfmakeraw(&tio);
	tio.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | PARODD | CSTOPB | CRTSCTS);
	tio.c_cflag |= frame;
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	err = uart_linux_apply(s->fd, &tio, cfg->baud);
	if (err)
		goto err_close;
	*out = &s->u;
	return 0;

err_close:
	close(s->fd);
err_free:
	free(s);
	return err;
}
