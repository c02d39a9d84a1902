// SPDX-License-Identifier: GPL-3.0-or-later
#include "rcin_e2e.h"

#include <setjmp.h>
#include <stdarg.h>

#include <cmocka.h>

struct rc_wave wave;
struct rc_frame frames[E2E_MAX_FRAMES];

const uint16_t ppm_ch[8] = {1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800};
const uint16_t sbus_ch[16] = {1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080,
			      1090, 1100, 1110, 1120, 1130, 1140, 1150, 1160};

void assert_channels(const struct rc_frame *f, enum rc_protocol proto, const uint16_t *ch,
		     unsigned int n)
{
	assert_int_equal(f->protocol, proto);
	/* SBUS adds its two digital channels to the 16. */
	assert_int_equal(f->channel_count, proto == RC_PROTOCOL_SBUS ? n + 2 : n);
	for (unsigned int k = 0; k < n; k++)
		assert_in_range(f->channels_us[k], ch[k] - 1u, ch[k] + 1u);
}

void wave_end(void)
{
	rc_wave_level(&wave, true, 50000);
	rc_wave_level(&wave, false, 50000);
	rc_wave_level(&wave, true, 50000);
}

void wave_ppm(bool pulse_high)
{
	rc_wave_init(&wave);
	rc_wave_level(&wave, !pulse_high, 30000000);
	for (int k = 0; k < 30; k++)
		rc_wave_ppm_frame(&wave, ppm_ch, 8, 400, 22500, pulse_high);
	wave_end();
}

void wave_sbus(void)
{
	uint8_t bytes[25];

	rc_wave_init(&wave);
	rc_wave_uart_idle(&wave, &rc_wave_sbus_uart, 5000);
	rc_wave_sbus_frame(bytes, sbus_ch, 0);
	for (int k = 0; k < 30; k++) {
		rc_wave_uart_bytes(&wave, &rc_wave_sbus_uart, bytes, 25);
		rc_wave_uart_idle(&wave, &rc_wave_sbus_uart, 14000 - 3000);
	}
	wave_end();
}

void decode(struct rc_input *dec, const struct rcin_pulse *p, int n, uint64_t now,
	    uint64_t *last_t, size_t *nf)
{
	for (int k = 0; k < n; k++) {
		struct rc_frame f;
		assert_true(p[k].t_us >= *last_t && p[k].t_us <= now);
		*last_t = p[k].t_us;
		if (rc_input_pulse(dec, p[k].low_us, p[k].high_us, p[k].t_us, &f)) {
			assert_true(*nf < E2E_MAX_FRAMES);
			frames[(*nf)++] = f;
		}
	}
}
