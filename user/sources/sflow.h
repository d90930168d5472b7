/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sFlow collector (--sflow): a UDP socket read in batches with recvmmsg,
 * datagrams decoded by sflow_decode.c, sampled headers counted by the one
 * parser (bpf/parse.h, bpf/count.h) as estimates, and the switch-port, drops
 * and agent tables. The main loop polls its socket and merges it into each
 * snapshot after the source's collect (ARCHITECTURE.md, "sFlow").
 */
#ifndef RT_SFLOW_H
#define RT_SFLOW_H

#include <sys/socket.h>
#include "snapshot.h"
#include "source.h"

struct rt_sflow;

/* Senders --sflow-allow may name at most. */
#define RT_SFLOW_MAX_ALLOW 16

/* What the collector reads of the command line. */
struct rt_sflow_cfg {
	const char *spec;		/* --sflow [ADDR:]PORT; NULL: no socket of its own */
	int fd;				/* a socket opened already (rt_sflow_socket) ... */
	int have_fd;			/* ... when this is set */
	const char *const *allow;	/* --sflow-allow CIDR: nallow, at most RT_SFLOW_MAX_ALLOW */
	int nallow;
	__u32 max_flows;		/* --max-flows: flows kept (0: 16384) */
	double flow_timeout;		/* --flow-timeout seconds; idle entries forgotten, 0: never */
};

/*
 * Open and bind the UDP socket for --sflow [ADDR:]PORT (sflow_socket.c) (a bare port listens
 * on every IPv6 and IPv4 address). Returns the socket or a negative errno
 * after saying why. here = 0: a port the user asked for, made in the
 * endpoints' home namespace (user/core/endpoint.h: where rocetop started,
 * even inside rocetop lab); here = 1: in the current namespace (the lab's own
 * stream, which its generator sends inside the lab).
 */
int rt_sflow_socket(const char *spec, int here);
/* The command line's --sflow and --sflow-allow, checked: 0 or -EINVAL after saying why. */
int rt_sflow_check_cfg(const struct rt_sflow_cfg *c);

/* The collector over c->fd when c->have_fd, else a socket it opens for
 * c->spec (none without it: datagrams are handed to it); NULL after saying why. */
struct rt_sflow *rt_sflow_new(const struct rt_sflow_cfg *c);
int rt_sflow_fd(const struct rt_sflow *sf);
/* Read and decode what waits on the socket, at most a bounded batch so an
 * interval keeps its cadence under a flood. Returns datagrams read. */
int rt_sflow_read(struct rt_sflow *sf);
/* One datagram, as if it came from `from` (tests and benchmarks). */
void rt_sflow_datagram(struct rt_sflow *sf, const void *buf, size_t len,
		       const struct sockaddr *from, __u64 now_ns);
/* The time of a collector without a socket (a capture's, pcap_sflow.h): what
 * its next collect forgets idle entries by. */
void rt_sflow_clock(struct rt_sflow *sf, __u64 now_ns);
/* Add the collector's flows, switch ports, drops and agents to snap (sorted). */
int rt_sflow_collect(struct rt_sflow *sf, struct rt_snapshot *snap);
void rt_sflow_free(struct rt_sflow *sf);

/* A source with no data of its own, for --sflow alone: time and a name. */
struct rt_source *rt_sflow_clock_source_new(const struct rt_sflow_cfg *c);

#endif
