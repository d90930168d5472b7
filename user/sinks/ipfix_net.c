// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The IPFIX sink's transport (ipfix.h): the collector's address, a UDP
 * socket or a TCP connection that never blocks the loop. Sockets are made in
 * the namespace rocetop started in (user/core/endpoint.h), so rocetop lab
 * exports to the host's collector.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "endpoint.h"
#include "ipfix.h"
#include "log.h"
#include "table.h"

#define IPX_QUEUE_MAX	(16u << 20)	/* TCP: bytes kept while the collector is slow */
#define IPX_RETRY_NS	1000000000ULL	/* TCP: one connect a second while down */

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int rt_ipfix_parse(const char *spec, struct rt_ipfix_dest *d)
{
	char host[256];
	const char *port, *colon, *hs;
	struct addrinfo hints = { 0 }, *res = NULL;
	char *end, addr[INET6_ADDRSTRLEN];
	size_t hlen;
	long p;

	memset(d, 0, sizeof(*d));
	if (!spec)
		return -EINVAL;
	if (!strncmp(spec, "tcp:", 4) || !strncmp(spec, "udp:", 4)) {
		d->tcp = spec[0] == 't';
		spec += 4;
	}
	if (spec[0] == '[') {
		colon = strchr(spec, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		hs = spec + 1;
		hlen = (size_t)(colon - hs);
		port = colon + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
			return -EINVAL;	/* no port, or IPv6 without brackets */
		hs = spec;
		hlen = (size_t)(colon - spec);
		port = colon + 1;
	}
	if (!hlen || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, hs, hlen);
	host[hlen] = 0;
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 1 || p > 65535)
		return -EINVAL;
	hints.ai_socktype = d->tcp ? SOCK_STREAM : SOCK_DGRAM;
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -ENXIO;		/* a well-formed name that does not resolve */
	memcpy(&d->ss, res->ai_addr, res->ai_addrlen);
	d->len = res->ai_addrlen;
	freeaddrinfo(res);
	if (d->ss.ss_family == AF_INET) {
		((struct sockaddr_in *)&d->ss)->sin_port = htons((unsigned short)p);
		inet_ntop(AF_INET, &((struct sockaddr_in *)&d->ss)->sin_addr, addr, sizeof(addr));
		snprintf(d->where, sizeof(d->where), "%s:%s:%ld", d->tcp ? "tcp" : "udp", addr, p);
	} else if (d->ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&d->ss)->sin6_port = htons((unsigned short)p);
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&d->ss)->sin6_addr, addr, sizeof(addr));
		snprintf(d->where, sizeof(d->where), "%s:[%s]:%ld", d->tcp ? "tcp" : "udp", addr, p);
	} else {
		return -EINVAL;
	}
	return 0;
}

void rt_ipfix_conn_init(struct rt_ipfix_conn *c, const struct rt_ipfix_dest *d)
{
	memset(c, 0, sizeof(*c));
	c->dest = *d;
	c->fd = -1;
}

/* The collector is gone: say so once, drop what waits, try again later. */
static void conn_down(struct rt_ipfix_conn *c, const char *what, int err)
{
	if (!c->said)
		pr_warn("IPFIX collector %s: %s (%s); records are dropped until it is back, rocetop goes on.\n",
			c->dest.where, what, strerror(err));
	c->said = 1;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = RT_IPX_DOWN;
	c->dropped += c->qn - c->qdone;	/* queued, or cut short: not sent */
	c->qoff = c->qlen = c->qn = c->qdone = 0;
	c->next_try_ns = mono_ns() + IPX_RETRY_NS;
}

static void conn_up(struct rt_ipfix_conn *c)
{
	c->state = RT_IPX_UP;
	c->up_ns = mono_ns();
}

/* Back: a connection that lasted RT_IPX_STABLE_NS (ipfix.h). */
static void conn_stable(struct rt_ipfix_conn *c)
{
	if (c->said && c->state == RT_IPX_UP && c->dest.tcp && mono_ns() - c->up_ns >= RT_IPX_STABLE_NS) {
		pr_info("IPFIX collector %s: connected again.\n", c->dest.where);
		c->said = 0;
	}
}

/* TCP: send what waits, as far as the socket takes it now. */
static void conn_flush(struct rt_ipfix_conn *c)
{
	while (c->state == RT_IPX_UP && c->qoff < c->qlen) {
		ssize_t n = send(c->fd, c->q + c->qoff, c->qlen - c->qoff, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			conn_down(c, "the connection closed", n < 0 ? errno : EPIPE);
			return;
		}
		c->qoff += (size_t)n;
		while (c->qdone < c->qn && c->qend[c->qdone] <= c->qoff) {
			c->qdone++;
			c->msgs++;
		}
	}
	if (c->qoff == c->qlen)
		c->qoff = c->qlen = c->qn = c->qdone = 0;
}

/* TCP: has the connect begun earlier finished? */
static void conn_check(struct rt_ipfix_conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLOUT };
	socklen_t l = sizeof(int);
	int e = 0;

	if (poll(&p, 1, 0) <= 0)
		return;
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l) || e) {
		conn_down(c, "cannot connect", e ? e : errno);
		return;
	}
	conn_up(c);
}

static int conn_open(struct rt_ipfix_conn *c)
{
	int type = c->dest.tcp ? SOCK_STREAM | SOCK_NONBLOCK : SOCK_DGRAM;

	c->fd = rt_endpoint_socket(c->dest.ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		conn_down(c, "cannot make a socket", errno);
		return 0;
	}
	c->sessions++;
	if (!connect(c->fd, (struct sockaddr *)&c->dest.ss, c->dest.len)) {
		conn_up(c);
		return 1;
	}
	if (c->dest.tcp && errno == EINPROGRESS) {
		c->state = RT_IPX_CONNECTING;
		return 1;
	}
	conn_down(c, "cannot connect", errno);
	return 0;
}

int rt_ipfix_conn_tick(struct rt_ipfix_conn *c)
{
	if (c->state == RT_IPX_CONNECTING)
		conn_check(c);
	if (c->state == RT_IPX_UP && c->dest.tcp)
		conn_flush(c);
	conn_stable(c);
	if (c->state != RT_IPX_DOWN || (c->sessions && mono_ns() < c->next_try_ns))
		return 0;
	return conn_open(c);
}

static void conn_queue(struct rt_ipfix_conn *c, const void *msg, size_t len)
{
	if (c->qlen + len > IPX_QUEUE_MAX) {
		c->dropped++;
		return;
	}
	if (c->qlen + len > c->qcap) {
		size_t cap = c->qcap ? c->qcap : 65536;
		unsigned char *q;

		while (cap < c->qlen + len)
			cap *= 2;
		q = realloc(c->q, cap);
		if (!q) {
			c->dropped++;
			return;
		}
		c->q = q;
		c->qcap = cap;
	}
	if (rt_grow_for((void **)&c->qend, &c->qend_cap, c->qn + 1, sizeof(*c->qend))) {
		c->dropped++;
		return;
	}
	memcpy(c->q + c->qlen, msg, len);
	c->qlen += len;
	c->qend[c->qn++] = c->qlen;	/* counted as sent once written whole */
}

/* The errors a connected UDP socket keeps from an ICMP answer to an earlier
 * datagram (port, host or network unreachable), reported by the next call. */
static int icmp_error(int e)
{
	return e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == EHOSTDOWN;
}

void rt_ipfix_conn_send(struct rt_ipfix_conn *c, const void *msg, size_t len)
{
	if (c->state == RT_IPX_DOWN) {
		c->dropped++;
		return;
	}
	if (c->dest.tcp) {
		conn_queue(c, msg, len);
		if (c->state == RT_IPX_UP)
			conn_flush(c);
		return;
	}
	/* UDP: an ICMP error (a port unreachable while the collector was
	 * away) is about an earlier datagram, yet the connected socket reports
	 * it on this send, which then sends nothing: said once a run, and this
	 * message sent once more, the error taken. Any other error loses this
	 * datagram only; said once a run, the count at the end
	 * (rt_ipfix_conn_close). */
	if (send(c->fd, msg, len, MSG_NOSIGNAL) < 0) {
		int e = errno;

		if (!c->said)
			pr_warn("IPFIX collector %s: %s (%s); rocetop goes on and keeps sending.\n",
				c->dest.where, icmp_error(e) ? "an earlier message was refused" : "cannot send",
				strerror(e));
		c->said = 1;
		if (!icmp_error(e) || send(c->fd, msg, len, MSG_NOSIGNAL) < 0) {
			c->dropped++;
			return;
		}
	}
	c->msgs++;
}

void rt_ipfix_conn_close(struct rt_ipfix_conn *c, int ms)
{
	__u64 until = mono_ns() + (__u64)ms * 1000000ULL;

	while (c->dest.tcp && c->state != RT_IPX_DOWN && c->qlen && mono_ns() < until) {
		struct pollfd p = { .fd = c->fd, .events = POLLOUT };

		poll(&p, 1, 50);
		if (c->state == RT_IPX_CONNECTING)
			conn_check(c);
		conn_flush(c);
	}
	c->dropped += c->qn - c->qdone;	/* left in the queue at the end */
	if (c->dropped)
		pr_warn("IPFIX collector %s: %llu of %llu messages were not sent (%llu were).\n", c->dest.where,
			(unsigned long long)c->dropped, (unsigned long long)(c->dropped + c->msgs),
			(unsigned long long)c->msgs);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->q);
	free(c->qend);
	c->q = NULL;
	c->qend = NULL;
	c->qlen = c->qoff = c->qcap = c->qn = c->qdone = c->qend_cap = 0;
}
