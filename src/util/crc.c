// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/crc.h"

uint16_t crc_x25(uint16_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++) {
		uint8_t t = (uint8_t)(p[i] ^ (crc & 0xFF));
		t ^= (uint8_t)(t << 4);
		crc = (uint16_t)((crc >> 8) ^ ((uint16_t)t << 8) ^ ((uint16_t)t << 3) ^ (t >> 4));
	}
	return crc;
}
