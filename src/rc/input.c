// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/input.h"

#include <string.h>

void rc_input_init(struct rc_input *in)
{
	memset(in, 0, sizeof(*in));
	rc_ppm_init(&in->ppm);
	rc_sbus_init(&in->sbus, true);
	rc_dsm_init(&in->dsm, true);
	in->locked = RC_PROTOCOL_NONE;
}

static bool lock_timed_out(const struct rc_input *in, uint64_t now_us)
{
	/* Unsigned: a clock running backwards looks like a timeout, never UB. */
	return now_us - in->last_frame_us[in->locked] > RC_INPUT_LOCK_TIMEOUT_US;
}

/* A good frame of protocol p; returns true when it is to be output. */
static bool good_frame(struct rc_input *in, enum rc_protocol p, const struct rc_frame *f)
{
	if (in->streak[p] > 0 && f->timestamp_us - in->last_frame_us[p] <= RC_INPUT_FRAME_GAP_MAX_US) {
		if (in->streak[p] < UINT8_MAX)
			in->streak[p]++;
	} else {
		in->streak[p] = 1;
	}
	in->last_frame_us[p] = f->timestamp_us;
	if (in->locked == RC_PROTOCOL_NONE && in->streak[p] >= RC_INPUT_LOCK_FRAMES) {
		in->locked = p;
		in->locks++;
	}
	return in->locked == p;
}

int rc_input_pulse(struct rc_input *in, uint32_t low_us, uint32_t high_us, uint64_t t_us,
		   struct rc_frame *out)
{
	struct rc_frame f;
	int got = 0;

	if (in->locked != RC_PROTOCOL_NONE && lock_timed_out(in, t_us))
		in->locked = RC_PROTOCOL_NONE;

	/* Every decoder sees every pair, so each stays in step with the pin. */
	if (rc_ppm_pulse(&in->ppm, low_us, high_us, t_us, &f) && good_frame(in, RC_PROTOCOL_PPM, &f)) {
		*out = f;
		got = 1;
	}
	if (rc_sbus_pulse(&in->sbus, low_us, high_us, t_us, &f) && good_frame(in, RC_PROTOCOL_SBUS, &f)) {
		*out = f;
		got = 1;
	}
	if (rc_dsm_pulse(&in->dsm, low_us, high_us, t_us, &f) && good_frame(in, RC_PROTOCOL_DSM, &f)) {
		*out = f;
		got = 1;
	}
	return got;
}

enum rc_protocol rc_input_protocol(const struct rc_input *in, uint64_t now_us)
{
	if (in->locked == RC_PROTOCOL_NONE || lock_timed_out(in, now_us))
		return RC_PROTOCOL_NONE;
	return in->locked;
}

const struct rc_stats *rc_input_stats(const struct rc_input *in, enum rc_protocol protocol)
{
	switch (protocol) {
	case RC_PROTOCOL_PPM: return &in->ppm.stats;
	case RC_PROTOCOL_SBUS: return &in->sbus.stats;
	case RC_PROTOCOL_DSM: return &in->dsm.stats;
	case RC_PROTOCOL_NONE:
	case RC_PROTOCOL_HIL:
	case RC_PROTOCOL_RCIO:
	case RC_PROTOCOL_COUNT: break;
	}
	return NULL;
}
