/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An emulated Benewake TFmini behind struct uart_ops: every period_us it
 * queues a 9-byte frame (0x59 0x59, distance and strength little-endian,
 * mode, spare, checksum) built from the fields below; the test can also put
 * any bytes on the line (garbage, a frame with a bad checksum) or make it
 * silent. What the host writes is ignored. Its own frame builder,
 * independent of src/drivers. Single-threaded; the test moves its clock.
 */
#ifndef FULMAR_TESTS_EMUL_TFMINI_H
#define FULMAR_TESTS_EMUL_TFMINI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/uart.h"

struct emul_tfmini {
	struct uart uart;             /* first: the host sees this */
	uint16_t distance_cm;
	uint16_t strength;
	bool silent;
	uint32_t period_us;
	uint64_t next_us;
	uint8_t out[4096];
	size_t out_len;
	uint32_t frames_sent;
};

void emul_tfmini_init(struct emul_tfmini *e);
void emul_tfmini_advance(struct emul_tfmini *e, uint64_t now_us);
/* Bytes on the line as they are (garbage, a broken frame). */
void emul_tfmini_inject(struct emul_tfmini *e, const uint8_t *b, size_t n);
/* A frame of these values; checksum_delta != 0 spoils its checksum. */
void emul_tfmini_frame(struct emul_tfmini *e, uint16_t cm, uint16_t strength, int checksum_delta);

#endif
