/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Serial ports (GPS, telemetry radio, SBUS receivers). Non-blocking: reads
 * return what is there, writes take what fits. A handle belongs to one thread
 * (the uart thread). Functions return a byte count or 0 on success, -errno on
 * failure.
 */
#ifndef FULMAR_UART_H
#define FULMAR_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uart;

enum uart_parity {
	UART_PARITY_NONE = 1,
	UART_PARITY_EVEN,
	UART_PARITY_ODD,
};

struct uart_config {
	const char *path;          /* "/dev/ttyO4", "/dev/ttyAMA0", a pty */
	uint32_t baud;             /* any rate the driver can make: 57600, 100000 (SBUS), 921600 */
	uint8_t data_bits;         /* 5..8; 0 means 8 */
	enum uart_parity parity;   /* 0 is taken as none */
	uint8_t stop_bits;         /* 1 or 2; 0 means 1 */
	bool rtscts;               /* hardware flow control */
};

/* Up to len bytes that have arrived; 0 when none. */
int uart_read(struct uart *u, uint8_t *buf, size_t len);
/* Queues up to len bytes; returns how many were taken (0 when the driver's buffer is full). */
int uart_write(struct uart *u, const uint8_t *buf, size_t len);
/* Changes the rate (a GPS receiver's set-up moves it from 9600 to 115200). */
int uart_set_baud(struct uart *u, uint32_t baud);
/* A file descriptor that polls readable when bytes arrived, or -errno. */
int uart_fd(struct uart *u);
/* NULL is a no-op. */
void uart_close(struct uart *u);

/* For backends only. */
struct uart_ops {
	int (*read)(struct uart *u, uint8_t *buf, size_t len);
	int (*write)(struct uart *u, const uint8_t *buf, size_t len);
	int (*set_baud)(struct uart *u, uint32_t baud);  /* optional */
	int (*fd)(struct uart *u);                       /* optional */
	void (*close)(struct uart *u);
};

struct uart {
	const struct uart_ops *ops;
};

#endif
