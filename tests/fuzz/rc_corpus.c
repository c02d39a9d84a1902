// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Writes the seed corpora of the RC fuzz targets, in the formats of fuzz_rc.h,
 * from the encoders the unit tests use: rc_corpus DIR (DIR = tests/fuzz/corpus).
 * A few small files per target, each a valid stream the fuzzer mutates from.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rc_wave.h"

static struct rc_wave w;
static struct rc_pair pairs[20000];
static uint8_t buf[65536];
static const char *dir;

static const uint16_t ch[16] = { 1500, 1100, 1900, 1300, 1000, 2000, 1234, 1777,
				 1000, 2000, 1501, 1499, 1200, 1800, 1400, 1600 };

static void put(const char *target, const char *name, const uint8_t *data, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, target);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	printf("%s: %zu bytes\n", path, n);
}

/* The wave as pulse pairs, after a time-base byte. */
static void put_pulses(const char *name)
{
	uint32_t seed = 1;
	size_t np = rc_wave_pairs(&w, 0, 0, &seed, pairs, 20000);
	size_t n = 0;
	buf[n++] = 0x10;
	for (size_t i = 0; i < np && n + 4 <= sizeof(buf); i++) {
		uint32_t v[2] = { pairs[i].low_us, pairs[i].high_us };
		for (int k = 0; k < 2; k++) {
			uint16_t x = v[k] >= 0xffff ? 0xffff : (uint16_t)v[k];
			buf[n++] = (uint8_t)x;
			buf[n++] = (uint8_t)(x >> 8);
		}
	}
	put("rc_pulses", name, buf, n);
}

static void ppm(int frames)
{
	for (int k = 0; k < frames; k++)
		rc_wave_ppm_frame(&w, ch, 8, 400, 22500, false);
	rc_wave_level(&w, false, 400000);
}

static void sbus(int frames, uint8_t flags)
{
	uint8_t bytes[25];
	rc_wave_sbus_frame(bytes, ch, flags);
	rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 3000);
	for (int k = 0; k < frames; k++) {
		rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, bytes, 25);
		rc_wave_uart_idle(&w, &rc_wave_sbus_uart, 4000);
	}
	rc_wave_uart_bytes(&w, &rc_wave_sbus_uart, bytes, 1);
}

static void dsm(int frames, unsigned int n, unsigned int res)
{
	rc_wave_uart_idle(&w, &rc_wave_dsm_uart, 3000);
	for (int k = 0; k < frames; k++) {
		uint8_t bytes[16];
		rc_wave_dsm_frame(bytes, ch, n, res, (unsigned int)k & 1);
		rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, bytes, 16);
		rc_wave_uart_idle(&w, &rc_wave_dsm_uart, 3000);
	}
	uint8_t zero = 0;
	rc_wave_uart_bytes(&w, &rc_wave_dsm_uart, &zero, 1);
}

/* Byte records: each frame read in chunks of chunk bytes after an idle of code idle. */
static size_t records(size_t n, const uint8_t *frame, size_t len, size_t chunk, uint8_t idle)
{
	for (size_t at = 0; at < len; at += chunk) {
		size_t c = len - at < chunk ? len - at : chunk;
		buf[n++] = (uint8_t)((at == 0 ? idle : 0) << 5 | c);
		memcpy(buf + n, frame + at, c);
		n += c;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: rc_corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}

	rc_wave_init(&w);
	ppm(6);
	put_pulses("ppm");
	rc_wave_init(&w);
	sbus(5, 0);
	put_pulses("sbus");
	rc_wave_init(&w);
	sbus(5, 0x0c);
	put_pulses("sbus_failsafe");
	rc_wave_init(&w);
	dsm(10, 12, 11);
	put_pulses("dsm11");
	rc_wave_init(&w);
	dsm(10, 6, 10);
	put_pulses("dsm10");
	rc_wave_init(&w);
	ppm(6);
	rc_wave_level(&w, true, 250000000);
	sbus(5, 0);
	put_pulses("ppm_then_sbus");

	uint8_t frame[25];
	size_t n = 0;
	rc_wave_sbus_frame(frame, ch, 0);
	for (int k = 0; k < 4; k++)
		n = records(n, frame, 25, 25, 6);
	put("rc_sbus_bytes", "frames", buf, n);
	n = 0;
	for (int k = 0; k < 4; k++) {
		rc_wave_sbus_frame(frame, ch, (uint8_t)(k << 2));
		n = records(n, frame, 25, 7, 6);
	}
	put("rc_sbus_bytes", "flags_split", buf, n);

	n = 0;
	for (int k = 0; k < 8; k++) {
		rc_wave_dsm_frame(frame, ch, 12, 11, (unsigned int)k & 1);
		n = records(n, frame, 16, 16, 6);
	}
	put("rc_dsm_bytes", "dsm11_12ch", buf, n);
	n = 0;
	for (int k = 0; k < 8; k++) {
		rc_wave_dsm_frame(frame, ch, 7, 10, 0);
		n = records(n, frame, 16, 5, 6);
	}
	put("rc_dsm_bytes", "dsm10_split", buf, n);
	return 0;
}
