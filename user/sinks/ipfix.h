/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --ipfix [udp:|tcp:]HOST:PORT: the collector's address, and the transport
 * under the IPFIX sink (user/sinks/ipfix.c). A UDP socket sends each message
 * as one datagram; a TCP connection is made without blocking, messages wait
 * in a bounded queue while it connects, and a connection the collector closed
 * is made again (at most once a second), the caller starting a new IPFIX
 * session (templates first) on it. A message counts as sent once all its
 * bytes were written to the socket; what a lost connection or the end of the
 * run leaves in the queue counts as dropped.
 */
#ifndef RT_IPFIX_H
#define RT_IPFIX_H

#include <stddef.h>
#include <sys/socket.h>
#include <linux/types.h>

struct rt_ipfix_dest {
	int tcp;			/* 0 UDP, 1 TCP */
	struct sockaddr_storage ss;
	socklen_t len;
	char where[96];			/* "udp:127.0.0.1:4739", for messages */
};

/* Parse [udp:|tcp:]HOST:PORT ([IPv6]:PORT; HOST a name or an address).
 * 0, -EINVAL, or -ENXIO for a name that does not resolve; says nothing. */
int rt_ipfix_parse(const char *spec, struct rt_ipfix_dest *d);

enum { RT_IPX_DOWN, RT_IPX_CONNECTING, RT_IPX_UP };

/* A collector is back once a connection to it lasted this long: one that
 * accepts and closes at once is said once, not every reconnection. */
#define RT_IPX_STABLE_NS	5000000000ULL

struct rt_ipfix_conn {
	struct rt_ipfix_dest dest;
	int fd;
	int state;			/* RT_IPX_* */
	unsigned char *q;		/* TCP: bytes not sent yet, whole messages */
	size_t qoff, qlen, qcap;
	size_t *qend;			/* TCP: where each queued message ends in q */
	size_t qn, qdone, qend_cap;	/* messages queued; of them, written whole */
	__u64 up_ns;			/* TCP: when the connection came up */
	__u64 next_try_ns;		/* TCP: no new connect before (CLOCK_MONOTONIC) */
	__u64 sessions;			/* connections made (UDP: 1) */
	__u64 msgs, dropped;		/* messages written whole to the socket; the others */
	int said;			/* the collector's trouble was said (once until it is back:
					 * a connection that lasted RT_IPX_STABLE_NS) */
};

void rt_ipfix_conn_init(struct rt_ipfix_conn *c, const struct rt_ipfix_dest *d);
/* Connect if down and it is time to try again: 1 a new transport session
 * began (send templates first), 0 nothing new, <0 out of memory. */
int rt_ipfix_conn_tick(struct rt_ipfix_conn *c);
/* Send one whole message (or queue it while the TCP connection is made). */
void rt_ipfix_conn_send(struct rt_ipfix_conn *c, const void *msg, size_t len);
/* Send what waits for up to ms milliseconds, then close. */
void rt_ipfix_conn_close(struct rt_ipfix_conn *c, int ms);

#endif
