/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the capture backends' end-to-end tests share: a receiver's waveform
 * (PPM-sum or SBUS, from rc_wave), the decoders fed with the pulse pairs a
 * backend hands out, and the check of the channels that come back.
 */
#ifndef FULMAR_TEST_RCIN_E2E_H
#define FULMAR_TEST_RCIN_E2E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/rcin.h"
#include "rc/input.h"
#include "rc_wave.h"

#define E2E_MAX_FRAMES 200

extern struct rc_wave wave;
extern struct rc_frame frames[E2E_MAX_FRAMES];
extern const uint16_t ppm_ch[8];
extern const uint16_t sbus_ch[16];

/* The frame carries these channels (to within 1 us), as protocol proto gives them. */
void assert_channels(const struct rc_frame *f, enum rc_protocol proto, const uint16_t *ch,
		     unsigned int n);
/* A few short levels, so that the last long one is ended by an edge. */
void wave_end(void);
/* 30 PPM frames of ppm_ch after a long idle level. */
void wave_ppm(bool pulse_high);
/* 30 SBUS frames of sbus_ch at 14 ms. */
void wave_sbus(void);
/*
 * Gives n pairs to the decoders, checking their stamps go forward and not
 * past now; frames go to frames[*nf...].
 */
void decode(struct rc_input *dec, const struct rcin_pulse *p, int n, uint64_t now,
	    uint64_t *last_t, size_t *nf);

#endif
