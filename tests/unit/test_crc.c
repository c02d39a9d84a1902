// SPDX-License-Identifier: GPL-3.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/crc.h"

/* The byte-wise step the table stands for, written out. */
static uint16_t step(uint16_t crc, uint8_t byte)
{
	uint8_t t = (uint8_t)(byte ^ (crc & 0xFFu));
	t ^= (uint8_t)(t << 4);
	return (uint16_t)((crc >> 8) ^ ((uint16_t)t << 8) ^ ((uint16_t)t << 3) ^ (t >> 4));
}

static void test_crc_x25_of_the_standard_check_string(void **state)
{
	(void)state;
	/* CRC-16/MCRF4XX's published check value. */
	assert_int_equal(crc_x25(CRC_X25_INIT, "123456789", 9), 0x6F91);
	assert_int_equal(crc_x25(CRC_X25_INIT, "", 0), CRC_X25_INIT);
}

static void test_crc_x25_table_is_the_bytewise_step(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 256; i++)
		assert_int_equal(crc_x25_table[i], step(0, (uint8_t)i));
	/* And over every low byte of the running CRC, for a few high bytes. */
	for (unsigned int hi = 0; hi < 256; hi += 51)
		for (unsigned int lo = 0; lo < 256; lo++)
			for (unsigned int b = 0; b < 256; b += 17) {
				uint16_t crc = (uint16_t)(hi << 8 | lo);
				uint8_t byte = (uint8_t)b;
				assert_int_equal(crc_x25(crc, &byte, 1), step(crc, byte));
			}
}

static void test_crc_x25_in_pieces_is_the_crc_of_the_whole(void **state)
{
	(void)state;
	uint8_t data[300];
	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 37u + 11u);
	uint16_t whole = crc_x25(CRC_X25_INIT, data, sizeof(data));
	for (size_t cut = 0; cut <= sizeof(data); cut += 7)
		assert_int_equal(crc_x25(crc_x25(CRC_X25_INIT, data, cut), data + cut, sizeof(data) - cut),
				 whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_x25_of_the_standard_check_string),
		cmocka_unit_test(test_crc_x25_table_is_the_bytewise_step),
		cmocka_unit_test(test_crc_x25_in_pieces_is_the_crc_of_the_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
