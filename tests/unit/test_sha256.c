// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/sha256.h"

static void hex(const uint8_t *d, char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void digest_of(const void *data, size_t len, char out[65])
{
	struct sha256 s;
	uint8_t d[32];
	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, d);
	hex(d, out);
}

/* FIPS 180-4 / NIST CSRC example values. */
static void test_sha256_matches_the_published_examples(void **state)
{
	char h[65];
	digest_of("", 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	digest_of("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	digest_of(two, strlen(two), h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_of_a_million_a_fed_in_odd_pieces(void **state)
{
	static uint8_t a[1000000];
	memset(a, 'a', sizeof(a));
	struct sha256 s;
	uint8_t d[32];
	char h[65];
	sha256_init(&s);
	size_t off = 0, step = 1;
	while (off < sizeof(a)) {
		size_t n = step < sizeof(a) - off ? step : sizeof(a) - off;
		sha256_update(&s, a + off, n);
		off += n;
		step = step * 7 % 191 + 1;  /* pieces that straddle block edges */
	}
	sha256_final(&s, d);
	hex(d, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_sha256_lengths_around_the_padding_edge(void **state)
{
	/* 55, 56 and 64 bytes put the length in the same block, the next, and after a full one. */
	static const struct { size_t n; const char *want; } cases[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
	};
	uint8_t a[64];
	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < 3; i++) {
		char h[65];
		digest_of(a, cases[i].n, h);
		assert_string_equal(h, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_matches_the_published_examples),
		cmocka_unit_test(test_sha256_of_a_million_a_fed_in_odd_pieces),
		cmocka_unit_test(test_sha256_lengths_around_the_padding_edge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
