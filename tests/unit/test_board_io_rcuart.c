// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RC receivers on a UART (SBUS at 100000 8E2 through the board's inverter,
 * Spektrum satellites at 115200 8N1), on a board of the test's own: board_io's
 * RC input task reads the port and the byte decoders of src/rc turn it into
 * frames in the hub. The port is an emulated UART that releases its bytes as
 * the clock passes their time on the wire.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rc_wave.h"
#include "drivers/drivers.h"
#include "test_board_io_harness.h"

static struct board_dev devs[] = {
	{
		.name = "rc", .what = "RC receiver on a UART", .kind = BOARD_DEV_UART,
		.driver = &sbus_driver,
		.u.uart = { .cfg = { .path = "/dev/ttyS1", .baud = 100000 } },
	},
};

static const struct board rc_board = {
	.name = "rcuart-test", .description = "a receiver", .devs = devs, .n_devs = 1,
	.imu_rate_hz = 1000, .main_rate_hz = 400,
};

const struct board *board_get(void)
{
	return &rc_board;
}

/* Bytes with the time their last bit leaves the receiver. */
struct wire_uart {
	struct uart u;                /* first */
	uint8_t b[8192];
	uint64_t at_us[8192];
	size_t n, next;
	uint64_t now_us;
};

static int wire_read(struct uart *u, uint8_t *buf, size_t len)
{
	struct wire_uart *w = (struct wire_uart *)(void *)u;
	size_t k = 0;

	while (k < len && w->next < w->n && w->at_us[w->next] <= w->now_us)
		buf[k++] = w->b[w->next++];
	return (int)k;
}

static int wire_write(struct uart *u, const uint8_t *buf, size_t len)
{
	(void)u;
	(void)buf;
	return (int)len;
}

static void wire_close(struct uart *u)
{
	(void)u;
}

static const struct uart_ops wire_ops = { .read = wire_read, .write = wire_write,
					  .close = wire_close };

struct fix {
	struct bio_fixture f;
	struct wire_uart rx;
};

static void advance(void *ctx, uint64_t now_us)
{
	((struct fix *)ctx)->rx.now_us = now_us;
}

static void *handle(void *ctx, const char *name)
{
	return strcmp(name, "rc") == 0 ? &((struct fix *)ctx)->rx.u : NULL;
}

static struct fix *fix_new(const struct driver *drv)
{
	struct fix *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	devs[0].driver = drv;
	x->rx.u.ops = &wire_ops;
	x->f.now_us = 5000000;
	x->f.advance = advance;
	x->f.ctx = x;
	bio_devices(&x->f, handle, x);
	assert_int_equal(bio_open(&x->f), 0);
	assert_true(bio_has_task(&x->f, "rc"));
	return x;
}

/* frames of len bytes every period_us, each byte byte_us after the one before. */
static void send_frames(struct fix *x, const uint8_t *frame, size_t len, unsigned int frames,
		 uint32_t period_us, uint32_t byte_us)
{
	uint64_t t = x->f.now_us + 1000;
	for (unsigned int k = 0; k < frames; k++) {
		for (size_t i = 0; i < len; i++) {
			x->rx.b[x->rx.n] = frame[i];
			x->rx.at_us[x->rx.n++] = t + (i + 1) * byte_us;
		}
		t += period_us;
	}
}

/*
 * SBUS frames are told apart by the 2 ms gap before them, which byte input
 * sees only when the port is read as the bytes come: at the default rcin rate
 * (200 Hz) a read that splits a frame loses it. A board with an SBUS UART
 * runs the rcin thread at 1 kHz ([thread.rcin] rate_hz = 1000).
 */
static void test_board_io_rcuart_decodes_sbus_bytes_into_the_hub(void **state)
{
	(void)state;
	struct fix *x = fix_new(&sbus_driver);
	static const uint16_t ch[16] = { 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700,
					 1800, 1900, 2000, 1500, 1500, 1500, 1500, 1500 };
	uint8_t frame[25];

	rc_wave_sbus_frame(frame, ch, 0);
	x->f.rcin_hz = 1000;
	send_frames(x, frame, 25, 20, 14000, 120);
	bio_run(&x->f, 20 * 14000 + 20000);
	struct rc_frame fr;
	assert_true(sensors_latest(&x->f.hub, SENSOR_RC, &fr) > 0);
	assert_int_equal(fr.protocol, RC_PROTOCOL_SBUS);
	for (int i = 0; i < 16; i++)
		assert_in_range(fr.channels_us[i], ch[i] - 1u, ch[i] + 1u);
	assert_true(sensors_accepted(&x->f.hub, SENSOR_RC) >= 15);
	board_io_close(&x->f.bio);
	free(x);
}

static void test_board_io_rcuart_decodes_dsm_bytes_into_the_hub(void **state)
{
	(void)state;
	struct fix *x = fix_new(&dsm_driver);
	static const uint16_t ch[6] = { 1500, 1400, 1100, 1600, 1900, 1200 };
	uint8_t frame[16];

	rc_wave_dsm_frame(frame, ch, 6, 11, 0);
	send_frames(x, frame, 16, 30, 11000, 87);
	bio_run(&x->f, 30 * 11000 + 20000);
	struct rc_frame fr;
	assert_true(sensors_latest(&x->f.hub, SENSOR_RC, &fr) > 0);
	assert_int_equal(fr.protocol, RC_PROTOCOL_DSM);
	for (int i = 0; i < 6; i++)
		assert_in_range(fr.channels_us[i], ch[i] - 2u, ch[i] + 2u);
	board_io_close(&x->f.bio);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board_io_rcuart_decodes_sbus_bytes_into_the_hub),
		cmocka_unit_test(test_board_io_rcuart_decodes_dsm_bytes_into_the_hub),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
