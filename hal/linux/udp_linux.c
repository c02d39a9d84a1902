// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Non-blocking UDP sockets. Addresses are numeric only: a name lookup could
 * block the uart thread for seconds on a link with no DNS server.
 */
#include "fulmar/udp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct udp_sock {
	int fd;
};

int udp_addr_parse(const char *host, uint16_t port, struct udp_addr *out)
{
	const struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
	};
	struct addrinfo *res;
	char service[8];

	/* Without a host getaddrinfo would hand back the loopback address. */
	if (!host)
		return -EINVAL;
	snprintf(service, sizeof(service), "%u", (unsigned int)port);
	int rc = getaddrinfo(host, service, &hints, &res);
	if (rc == EAI_SYSTEM)
		return -errno;
	if (rc == EAI_MEMORY)
		return -ENOMEM;
	if (rc != 0)
		return -EINVAL;
	if (res->ai_addrlen > sizeof(out->ss)) {
		freeaddrinfo(res);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

void udp_addr_format(const struct udp_addr *a, char *buf, size_t len)
{
	char host[NI_MAXHOST];
	uint16_t port;

	if (len == 0)
		return;
	if (a->len == 0 || getnameinfo((const struct sockaddr *)&a->ss, a->len, host,
				       sizeof(host), NULL, 0, NI_NUMERICHOST) != 0) {
		snprintf(buf, len, "(none)");
		return;
	}
	if (a->ss.ss_family == AF_INET6) {
		port = ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, (unsigned int)port);
	} else {
		port = ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
		snprintf(buf, len, "%s:%u", host, (unsigned int)port);
	}
}

int udp_open(const struct udp_addr *local, struct udp_sock **out)
{
	struct udp_addr any;
	int err;

	if (!local) {
		err = udp_addr_parse("0.0.0.0", 0, &any);
		if (err)
			return err;
		local = &any;
	}
	struct udp_sock *s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = socket(local->ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		err = -errno;
		goto err_free;
	}
	/*
	 * No SO_REUSEADDR: UDP has no TIME_WAIT for it to skip, and with it a
	 * second fulmard could bind the same port and silently take half the
	 * link's datagrams. A port in use is an error the user sees.
	 */
	if (bind(s->fd, (const struct sockaddr *)&local->ss, local->len) < 0) {
		err = -errno;
		goto err_close;
	}
	*out = s;
	return 0;

err_close:
	close(s->fd);
err_free:
	free(s);
	return err;
}

int udp_local_addr(const struct udp_sock *s, struct udp_addr *out)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(s->fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	out->ss = ss;
	out->len = len;
	return 0;
}

int udp_sendto(struct udp_sock *s, const struct udp_addr *to, const void *buf, size_t len)
{
	if (to->len == 0)
		return -EDESTADDRREQ;
	/* Larger than any datagram; the kernel would say the same. */
	if (len > 65535)
		return -EMSGSIZE;
	ssize_t n = sendto(s->fd, buf, len, 0, (const struct sockaddr *)&to->ss, to->len);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return (int)n;
}

int udp_recvfrom(struct udp_sock *s, void *buf, size_t len, struct udp_addr *from)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	/* With MSG_TRUNC the result is the datagram's full length, even when cut. */
	ssize_t n = recvfrom(s->fd, buf, len, MSG_TRUNC, (struct sockaddr *)&ss, &sl);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if ((size_t)n > len)
		return -EMSGSIZE;
	if (from) {
		from->ss = ss;
		from->len = sl;
	}
	return (int)n;
}

int udp_fd(const struct udp_sock *s)
{
	return s->fd;
}

void udp_close(struct udp_sock *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}
