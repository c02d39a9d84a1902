// SPDX-License-Identifier: GPL-3.0-or-later
/* UDP sockets, with real datagrams over the loopback interface. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "fulmar/udp.h"

static void wait_readable(struct udp_sock *s)
{
	struct pollfd pfd = { .fd = udp_fd(s), .events = POLLIN };

	assert_int_equal(poll(&pfd, 1, 1000), 1);
}

static struct udp_sock *open_on(const char *host)
{
	struct udp_addr a;
	struct udp_sock *s = NULL;

	assert_int_equal(udp_addr_parse(host, 0, &a), 0);
	assert_int_equal(udp_open(&a, &s), 0);
	return s;
}

static uint16_t port_of(const struct udp_addr *a)
{
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

/* Whether this kernel can bind ::1 at all; the v6 tests skip when it cannot. */
static bool have_ipv6_loopback(void)
{
	struct udp_addr a;
	struct udp_sock *s = NULL;

	if (udp_addr_parse("::1", 0, &a) != 0 || udp_open(&a, &s) != 0)
		return false;
	udp_close(s);
	return true;
}

static void test_udp_addresses_format_as_host_colon_port(void **state)
{
	struct udp_addr a;
	char buf[64];

	assert_int_equal(udp_addr_parse("127.0.0.1", 14550, &a), 0);
	assert_int_equal(a.ss.ss_family, AF_INET);
	udp_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "127.0.0.1:14550");

	assert_int_equal(udp_addr_parse("::1", 14550, &a), 0);
	assert_int_equal(a.ss.ss_family, AF_INET6);
	udp_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "[::1]:14550");

	a.len = 0;
	udp_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "(none)");
	/* A short buffer gets a cut, terminated string. */
	assert_int_equal(udp_addr_parse("192.168.100.200", 65535, &a), 0);
	udp_addr_format(&a, buf, 8);
	assert_string_equal(buf, "192.168");
}

static void test_udp_names_and_malformed_addresses_give_einval(void **state)
{
	static const char *const bad[] = {
		"localhost", "", "256.0.0.1", "1.2.3.4.5", "::g", "[::1]", "127.0.0.1:14550",
	};
	struct udp_addr a = { .len = 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(udp_addr_parse(bad[i], 14550, &a), -EINVAL);
	assert_int_equal(udp_addr_parse(NULL, 14550, &a), -EINVAL);
	assert_int_equal(a.len, 0);
}

static void test_udp_port_0_picks_a_port_that_local_addr_reports(void **state)
{
	struct udp_sock *s = open_on("127.0.0.1");
	struct udp_addr a;

	assert_int_equal(udp_local_addr(s, &a), 0);
	assert_int_equal(a.ss.ss_family, AF_INET);
	assert_true(port_of(&a) != 0);
	udp_close(s);

	/* No local address: any IPv4 address, a picked port. */
	s = NULL;
	assert_int_equal(udp_open(NULL, &s), 0);
	assert_int_equal(udp_local_addr(s, &a), 0);
	char buf[64];
	udp_addr_format(&a, buf, sizeof(buf));
	assert_true(strncmp(buf, "0.0.0.0:", 8) == 0);
	assert_true(port_of(&a) != 0);
	udp_close(s);
}

static void send_and_receive(const char *host)
{
	struct udp_sock *rx = open_on(host), *tx = open_on(host);
	struct udp_addr rx_addr, tx_addr, from;
	const char msg[] = "\xfd\x09\x00\x00\x00\x01\x01heartbeat";
	char buf[64];

	assert_int_equal(udp_local_addr(rx, &rx_addr), 0);
	assert_int_equal(udp_local_addr(tx, &tx_addr), 0);
	assert_int_equal(udp_sendto(tx, &rx_addr, msg, sizeof(msg)), (int)sizeof(msg));
	wait_readable(rx);
	assert_int_equal(udp_recvfrom(rx, buf, sizeof(buf), &from), (int)sizeof(msg));
	assert_memory_equal(buf, msg, sizeof(msg));
	assert_int_equal(from.len, tx_addr.len);
	assert_memory_equal(&from.ss, &tx_addr.ss, tx_addr.len);
	/* One datagram per call; the queue is empty now. */
	assert_int_equal(udp_recvfrom(rx, buf, sizeof(buf), &from), 0);
	udp_close(rx);
	udp_close(tx);
}

static void test_udp_datagram_arrives_with_its_sender_over_ipv4(void **state)
{
	send_and_receive("127.0.0.1");
}

static void test_udp_datagram_arrives_with_its_sender_over_ipv6(void **state)
{
	if (!have_ipv6_loopback()) {
		print_message("SKIP: no IPv6 loopback (::1) on this machine\n");
		skip();
	}
	send_and_receive("::1");
}

static void test_udp_receive_with_nothing_waiting_gives_0(void **state)
{
	struct udp_sock *s = open_on("127.0.0.1");
	char buf[8];

	assert_int_equal(udp_recvfrom(s, buf, sizeof(buf), NULL), 0);
	udp_close(s);
}

static void test_udp_datagram_longer_than_the_buffer_gives_emsgsize_and_is_consumed(void **state)
{
	struct udp_sock *rx = open_on("127.0.0.1"), *tx = open_on("127.0.0.1");
	struct udp_addr rx_addr, from = { .len = 0 };
	char big[100], buf[10];

	memset(big, 'x', sizeof(big));
	assert_int_equal(udp_local_addr(rx, &rx_addr), 0);
	assert_int_equal(udp_sendto(tx, &rx_addr, big, sizeof(big)), (int)sizeof(big));
	assert_int_equal(udp_sendto(tx, &rx_addr, "ok", 2), 2);
	wait_readable(rx);
	assert_int_equal(udp_recvfrom(rx, buf, sizeof(buf), &from), -EMSGSIZE);
	assert_int_equal(from.len, 0);
	wait_readable(rx);
	assert_int_equal(udp_recvfrom(rx, buf, sizeof(buf), &from), 2);
	assert_memory_equal(buf, "ok", 2);
	udp_close(rx);
	udp_close(tx);
}

static void test_udp_send_without_a_destination_gives_edestaddrreq(void **state)
{
	struct udp_sock *s = open_on("127.0.0.1");
	const struct udp_addr none = { .len = 0 };

	assert_int_equal(udp_sendto(s, &none, "x", 1), -EDESTADDRREQ);
	udp_close(s);
}

static void test_udp_bind_to_an_address_this_host_lacks_fails(void **state)
{
	struct udp_addr a;
	struct udp_sock *s = NULL;

	/* TEST-NET-1 (RFC 5737) is never assigned to a host. */
	assert_int_equal(udp_addr_parse("192.0.2.1", 0, &a), 0);
	assert_int_equal(udp_open(&a, &s), -EADDRNOTAVAIL);
	assert_null(s);
}

static void test_udp_close_of_null_is_a_no_op(void **state)
{
	udp_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_addresses_format_as_host_colon_port),
		cmocka_unit_test(test_udp_names_and_malformed_addresses_give_einval),
		cmocka_unit_test(test_udp_port_0_picks_a_port_that_local_addr_reports),
		cmocka_unit_test(test_udp_datagram_arrives_with_its_sender_over_ipv4),
		cmocka_unit_test(test_udp_datagram_arrives_with_its_sender_over_ipv6),
		cmocka_unit_test(test_udp_receive_with_nothing_waiting_gives_0),
		cmocka_unit_test(test_udp_datagram_longer_than_the_buffer_gives_emsgsize_and_is_consumed),
		cmocka_unit_test(test_udp_send_without_a_destination_gives_edestaddrreq),
		cmocka_unit_test(test_udp_bind_to_an_address_this_host_lacks_fails),
		cmocka_unit_test(test_udp_close_of_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
