/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * UDP sockets for MAVLink links and HIL. Non-blocking. IPv4 and IPv6.
 * A socket belongs to one thread (the uart thread). Functions return a byte
 * count or 0 on success and -errno on failure.
 */
#ifndef FULMAR_UDP_H
#define FULMAR_UDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct udp_sock;

struct udp_addr {
	struct sockaddr_storage ss;
	socklen_t len;            /* 0: no address */
};

/* Resolves a numeric host ("0.0.0.0", "127.0.0.1", "::1") and port; no DNS. */
int udp_addr_parse(const char *host, uint16_t port, struct udp_addr *out);
/* "host:port" or "[v6]:port" for messages. */
void udp_addr_format(const struct udp_addr *a, char *buf, size_t len);

/* Bound to local (port 0 picks one); NULL local binds an ephemeral port on any address. */
int udp_open(const struct udp_addr *local, struct udp_sock **out);
/* The address the socket is bound to (to learn a picked port). */
int udp_local_addr(const struct udp_sock *s, struct udp_addr *out);
int udp_sendto(struct udp_sock *s, const struct udp_addr *to, const void *buf, size_t len);
/* One datagram if one is waiting (0 when none); a datagram longer than len is cut and counted as -EMSGSIZE. */
int udp_recvfrom(struct udp_sock *s, void *buf, size_t len, struct udp_addr *from);
int udp_fd(const struct udp_sock *s);
/* NULL is a no-op. */
void udp_close(struct udp_sock *s);

#endif
