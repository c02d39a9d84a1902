/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Checksums. Pure functions. */
#ifndef FULMAR_UTIL_CRC_H
#define FULMAR_UTIL_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC-16/MCRF4XX (the "X.25" checksum of MAVLink): polynomial 0x1021
 * reflected, no final XOR. Start with CRC_X25_INIT and feed data in pieces.
 */
#define CRC_X25_INIT 0xFFFFu
uint16_t crc_x25(uint16_t crc, const void *data, size_t len);
/* Its table (exposed for tests). */
extern const uint16_t crc_x25_table[256];

#endif
