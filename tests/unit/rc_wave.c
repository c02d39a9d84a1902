// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc_wave.h"

#include <assert.h>
#include <string.h>

#include "rc/rc.h"

const struct rc_wave_uart rc_wave_sbus_uart = {
	.baud = 100000, .parity_even = true, .stop_bits = 2, .inverted = true,
};
const struct rc_wave_uart rc_wave_dsm_uart = {
	.baud = 115200, .parity_even = false, .stop_bits = 1, .inverted = false,
};

void rc_wave_init(struct rc_wave *w)
{
	w->n = 0;
}

void rc_wave_level(struct rc_wave *w, bool high, uint64_t dur_ns)
{
	if (dur_ns == 0)
		return;
	if (w->n > 0 && w->high[w->n - 1] == high) {
		w->dur_ns[w->n - 1] += dur_ns;
		return;
	}
	assert(w->n < RC_WAVE_MAX_LEVELS);
	w->high[w->n] = high;
	w->dur_ns[w->n] = dur_ns;
	w->n++;
}

void rc_wave_flip(struct rc_wave *w, size_t i)
{
	assert(i < w->n);
	size_t first = i > 0 ? i - 1 : i;
	size_t last = i + 1 < w->n ? i + 1 : i;
	uint64_t sum = 0;
	for (size_t k = first; k <= last; k++)
		sum += w->dur_ns[k];
	bool level = !w->high[i];
	/* Levels first..last become one level; shift the rest down. */
	size_t gone = last - first;
	w->high[first] = level;
	w->dur_ns[first] = sum;
	memmove(&w->high[first + 1], &w->high[last + 1], (w->n - last - 1) * sizeof(w->high[0]));
	memmove(&w->dur_ns[first + 1], &w->dur_ns[last + 1], (w->n - last - 1) * sizeof(w->dur_ns[0]));
	w->n -= gone;
}

uint64_t rc_wave_duration_ns(const struct rc_wave *w)
{
	uint64_t sum = 0;
	for (size_t k = 0; k < w->n; k++)
		sum += w->dur_ns[k];
	return sum;
}

void rc_wave_ppm_frame(struct rc_wave *w, const uint16_t *ch_us, unsigned int n, uint32_t pulse_us,
		       uint32_t frame_us, bool pulse_high)
{
	uint32_t used = 0;
	for (unsigned int i = 0; i < n; i++) {
		rc_wave_level(w, pulse_high, pulse_us * 1000ull);
		rc_wave_level(w, !pulse_high, (uint64_t)(ch_us[i] - pulse_us) * 1000u);
		used += ch_us[i];
	}
	/* The sync: the last pulse, then the other level to the end of the frame. */
	assert(frame_us > used + pulse_us);
	rc_wave_level(w, pulse_high, pulse_us * 1000ull);
	rc_wave_level(w, !pulse_high, (uint64_t)(frame_us - used - pulse_us) * 1000u);
}

static void uart_bit(struct rc_wave *w, const struct rc_wave_uart *u, bool bit)
{
	rc_wave_level(w, bit != u->inverted, (1000000000ull + u->baud / 2) / u->baud);
}

void rc_wave_uart_bytes(struct rc_wave *w, const struct rc_wave_uart *u, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uart_bit(w, u, false);
		for (int b = 0; b < 8; b++)
			uart_bit(w, u, (bytes[i] >> b) & 1);
		if (u->parity_even)
			uart_bit(w, u, ((__builtin_popcount(bytes[i]) & 1) != 0) != u->bad_parity);
		for (unsigned int s = 0; s < u->stop_bits; s++)
			uart_bit(w, u, !(s == 0 && u->bad_stop));
	}
}

void rc_wave_uart_idle(struct rc_wave *w, const struct rc_wave_uart *u, uint32_t us)
{
	rc_wave_level(w, !u->inverted, us * 1000ull);
}

uint16_t rc_wave_sbus_raw(uint16_t us)
{
	/* us = 875 + raw * 5/8 */
	int raw = ((int)us - 875) * 8;
	raw = raw >= 0 ? (raw + 2) / 5 : 0;
	return (uint16_t)(raw > 2047 ? 2047 : raw);
}

void rc_wave_sbus_frame(uint8_t out[25], const uint16_t ch_us[16], uint8_t flags)
{
	memset(out, 0, 25);
	out[0] = 0x0f;
	unsigned int bit = 0;
	for (int ch = 0; ch < 16; ch++) {
		uint16_t raw = rc_wave_sbus_raw(ch_us[ch]);
		for (int b = 0; b < 11; b++, bit++)
			if (raw & (1u << b))
				out[1 + bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
	out[23] = flags;
	out[24] = 0x00;
}

uint16_t rc_wave_dsm_pos(uint16_t us, unsigned int res)
{
	/* us = 903 + p * 7/12 at 11 bits; 10-bit positions count double. */
	int scale = res == 10 ? 6 : 12;
	int max = res == 10 ? 1023 : 2047;
	int p = ((int)us - 903) * scale;
	p = p >= 0 ? (p + 3) / 7 : 0;
	return (uint16_t)(p > max ? max : p);
}

/* Output index of DSM channel number ch (the decoder's reordering). */
static unsigned int dsm_output_index(unsigned int ch)
{
	return ch == 0 ? 2 : ch == 1 ? 0 : ch == 2 ? 1 : ch;
}

void rc_wave_dsm_frame(uint8_t out[16], const uint16_t *ch_us, unsigned int n, unsigned int res,
		       unsigned int part)
{
	uint16_t words[7];
	unsigned int k = 0;
	if (n <= 7) {
		for (unsigned int ch = 0; ch < n; ch++)
			words[k++] = (uint16_t)(ch << (res == 10 ? 10 : 11) | rc_wave_dsm_pos(ch_us[dsm_output_index(ch)], res));
		while (k < 7)
			words[k++] = 0xffff;
	} else {
		assert(res == 11 && n <= 14);
		unsigned int first = part == 0 ? 0 : 7;
		for (unsigned int ch = first; ch < n && k < 7; ch++)
			words[k++] = (uint16_t)(ch << 11 | rc_wave_dsm_pos(ch_us[dsm_output_index(ch)], 11));
		for (unsigned int ch = 0; k < 7; ch++)
			words[k++] = (uint16_t)(ch << 11 | rc_wave_dsm_pos(ch_us[dsm_output_index(ch)], 11));
		if (part == 1)
			words[0] |= 0x8000;
	}
	out[0] = 0x00;  /* fades */
	out[1] = res == 10 ? 0x01 : 0xb2;  /* system: DSM2 1024 22 ms, or DSMX 2048 11 ms */
	for (unsigned int i = 0; i < 7; i++) {
		uint16_t word = words[(i + 3 + part) % 7];
		out[2 + 2 * i] = (uint8_t)(word >> 8);
		out[3 + 2 * i] = (uint8_t)word;
	}
}

uint32_t rc_wave_rand(uint32_t *seed)
{
	uint32_t x = *seed;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*seed = x;
	return x;
}

size_t rc_wave_pairs(const struct rc_wave *w, uint64_t t0_us, uint32_t jitter_us, uint32_t *seed,
		     struct rc_pair *out, size_t max)
{
	size_t count = 0;
	uint64_t t_ns = t0_us * 1000u;
	int64_t prev_edge = (int64_t)t0_us;  /* the start of level k, in us after jitter */
	int64_t low_start = 0, low_end = 0;
	bool have_low = false;

	for (size_t k = 0; k < w->n && count < max; k++) {
		t_ns += w->dur_ns[k];
		int64_t edge = (int64_t)((t_ns + 500) / 1000);
		if (jitter_us > 0)
			edge += (int64_t)(rc_wave_rand(seed) % (2 * jitter_us + 1)) - (int64_t)jitter_us;
		if (edge <= prev_edge)
			edge = prev_edge + 1;
		if (!w->high[k]) {
			low_start = prev_edge;
			low_end = edge;
			have_low = true;
		} else if (have_low) {
			out[count].low_us = (uint32_t)(low_end - low_start);
			out[count].high_us = (uint32_t)(edge - low_end);
			out[count].t_us = (uint64_t)edge;
			count++;
			have_low = false;
		}
		prev_edge = edge;
	}
	return count;
}

bool rc_wave_frame_is_safe(const struct rc_frame *f)
{
	if (f->channel_count < 1 || f->channel_count > RC_MAX_CHANNELS)
		return false;
	if (f->protocol <= RC_PROTOCOL_NONE || f->protocol >= RC_PROTOCOL_COUNT)
		return false;
	for (unsigned int i = 0; i < RC_MAX_CHANNELS; i++) {
		uint16_t v = f->channels_us[i];
		if (i < f->channel_count ? v < RC_CHANNEL_MIN_US || v > RC_CHANNEL_MAX_US : v != 0)
			return false;
	}
	return true;
}
