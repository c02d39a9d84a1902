/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256 (FIPS 180-4), for MAVLink 2 message signing. Pure, caller's storage. */
#ifndef FULMAR_UTIL_SHA256_H
#define FULMAR_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

struct sha256 {
	uint32_t h[8];
	uint64_t total;        /* bytes fed so far */
	uint8_t block[64];
	size_t used;           /* bytes in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_LEN]);

#endif
