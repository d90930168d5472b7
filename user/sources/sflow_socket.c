// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where the sFlow collector (sflow.c) listens: --sflow's [ADDR:]PORT read
 * and checked (with --sflow-allow's senders), and the UDP socket bound to it,
 * made in the endpoints' home namespace (user/core/endpoint.h) unless asked
 * for here. sflow.h declares both.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "endpoint.h"
#include "log.h"
#include "prefix.h"
#include "sflow.h"

/* --sflow's [ADDR:]PORT into an address to bind; 0 or -EINVAL after saying why. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss_, socklen_t *sl_, int *bare)
{
#define ss (*ss_)
#define sl (*sl_)
	char host[128] = "", *end;
	const char *colon = strrchr(spec, ':');
	long port;

	memset(&ss, 0, sizeof(ss));
	errno = 0;
	port = strtol(colon ? colon + 1 : spec, &end, 10);
	if (errno || end == (colon ? colon + 1 : spec) || *end || port < 1 || port > 65535) {
		pr_warn("--sflow '%s' is not valid: give a UDP port (6343) or ADDR:PORT.\n", spec);
		return -EINVAL;
	}
	if (colon) {
		size_t n = (size_t)(colon - spec);

		if (n >= sizeof(host)) {
			pr_warn("--sflow '%s': the address is too long.\n", spec);
			return -EINVAL;
		}
		memcpy(host, spec, n);
		host[n] = '\0';
		if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
			memmove(host, host + 1, n - 2);
			host[n - 2] = '\0';
		}
	}
	if (!host[0]) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((__u16)port);
		sl = sizeof(*s6);
	} else if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((__u16)port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((__u16)port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		pr_warn("--sflow '%s': '%s' is not an IPv4 or IPv6 address.\n", spec, host);
		return -EINVAL;
	}
	*bare = !host[0];
	return 0;
#undef ss
#undef sl
}

int rt_sflow_check_cfg(const struct rt_sflow_cfg *c)
{
	struct sockaddr_storage ss;
	struct rt_prefix pfx;
	socklen_t sl;
	int bare, i;

	if (c->spec && parse_spec(c->spec, &ss, &sl, &bare))
		return -EINVAL;
	for (i = 0; i < c->nallow; i++)
		if (rt_prefix_parse(c->allow[i], &pfx)) {
			pr_warn("--sflow-allow '%s' is not valid: give an address or ADDR/BITS (10.0.0.0/8, fd00::/8).\n",
				c->allow[i]);
			return -EINVAL;
		}
	return 0;
}

int rt_sflow_socket(const char *spec, int here)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, zero = 0, rcv = 8 << 20, bare;

	if (parse_spec(spec, &ss, &sl, &bare))
		return -EINVAL;
	fd = here ? socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) :
		    rt_endpoint_socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 && bare) {
		/* No IPv6 on this host: every IPv4 address, then. */
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		__u16 port = ((struct sockaddr_in6 *)&ss)->sin6_port;

		memset(&ss, 0, sizeof(ss));
		s4->sin_family = AF_INET;
		s4->sin_port = port;
		sl = sizeof(*s4);
		fd = here ? socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) :
			    rt_endpoint_socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (fd < 0) {
		pr_warn("cannot open a UDP socket for --sflow: %s.\n", strerror(errno));
		return -errno;
	}
	if (ss.ss_family == AF_INET6 && bare)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/* Room for bursts between two reads; beyond rmem_max only as root. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		int e = errno;

		pr_warn("cannot listen for sFlow on %s: %s%s.\n", spec, strerror(e),
			e == EADDRINUSE ? " (another collector has the port; give another with --sflow PORT)" : "");
		close(fd);
		return -e;
	}
	return fd;
}
