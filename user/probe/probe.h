/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe mesh (rocetop probe): each host answers rocetop's probes on one UD
 * QP per RDMA device and port, and sends its own to its peers, several paths
 * (source QPs and flow labels, so several ECMP paths) and sizes per peer. A
 * probe's round trip splits into the responder's own time (the responder says
 * it in its answer) and the network's (the rest), so that a slow answer says
 * whether the fabric or the peer host is at fault.
 *
 * This header is the engine's whole interface: the wire format (probe_wire.c),
 * the table of paths, their statistics and the findings drawn from them
 * (probe_stats.c); the rows every output reads are user/core/probe_row.h's and the verbs side (probe_verbs.c).
 */
#ifndef RT_PROBE_H
#define RT_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include "probe_row.h"

/* ---- the wire: a probe and its answer, UD payloads ---- */

#define RT_PROBE_MAGIC		0x52545042u	/* "RTPB" */
#define RT_PROBE_VERSION	1
#define RT_PROBE_REQ		1
#define RT_PROBE_ANS		2
#define RT_PROBE_HDR		48	/* bytes: the smallest probe */
#define RT_PROBE_MAX		4096	/* bytes: the largest (the largest RoCE MTU) */
#define RT_PROBE_QKEY		0x00524f43u	/* the default Q_Key ("ROC") */

/* A probe's header, as the host sees it (big-endian on the wire). */
struct rt_probe_msg {
	uint8_t type;		/* RT_PROBE_REQ or RT_PROBE_ANS */
	uint8_t clock;		/* the answer's: how the responder timed itself, RT_PROBE_CLOCK_* */
	uint16_t path;		/* the prober's path index */
	uint32_t size;		/* bytes of the probe as sent (header and padding) */
	uint64_t seq;		/* the prober's sequence number */
	uint64_t t_tx_ns;	/* the prober's send time (its own clock, echoed) */
	uint64_t resp_ns;	/* the answer's: the responder's time from receive to answer */
	uint64_t stall_ns;	/* the answer's: of resp_ns, the time the responder was kept from running */
};

/* Why a received payload is not a probe to answer (0: it is). */
enum rt_probe_bad {
	RT_PROBE_OK = 0,
	RT_PROBE_SHORT,		/* shorter than a header */
	RT_PROBE_NOT_OURS,	/* another magic or version */
	RT_PROBE_BAD_TYPE,	/* not the type expected */
	RT_PROBE_BAD_SIZE,	/* its size field is not the bytes received, or over the largest */
	RT_PROBE_NBAD
};

/* Write m's header into buf (len >= RT_PROBE_HDR); the rest of buf is not touched. */
void rt_probe_encode(const struct rt_probe_msg *m, void *buf, size_t len);
/* Read a payload of len bytes; expect RT_PROBE_REQ or RT_PROBE_ANS. */
enum rt_probe_bad rt_probe_decode(const void *buf, size_t len, int expect, struct rt_probe_msg *m);
const char *rt_probe_bad_name(enum rt_probe_bad b);

/* The UDP source port a RoCEv2 frame carries for a flow label (the IB spec's
 * rule, which mlx5 follows), and for Soft-RoCE, which takes it from the
 * sending QP's number. */
uint16_t rt_probe_sport_flow_label(uint32_t flow_label);
uint16_t rt_probe_sport_rxe(uint32_t qpn);

/* ---- the table: peers, their paths, and what each path's probes saw ---- */

#define RT_PROBE_MAX_PATHS	4	/* paths per peer */
#define RT_PROBE_MAX_SIZES	4	/* sizes per path */
#define RT_PROBE_NSAMPLES	128	/* round trips kept per path and size in an interval */

struct rt_probe_samples {
	uint32_t n;			/* samples taken in the interval (those kept: at most RT_PROBE_NSAMPLES) */
	uint32_t rtt_us[RT_PROBE_NSAMPLES];
	uint32_t net_us[RT_PROBE_NSAMPLES];
	uint32_t resp_us[RT_PROBE_NSAMPLES];
};

/* One path and size of one peer. */
struct rt_probe_cell {
	uint64_t sent, answered, lost, late;	/* since the start */
	uint64_t i_sent, i_answered, i_lost;	/* this interval */
	struct rt_probe_samples s;		/* this interval's answered probes */
	/* the judge's state: the recent window's counts and the network baseline */
	uint32_t w_ans[32], w_lost[32];		/* per interval, a ring over the window */
	uint32_t nroll;				/* intervals closed */
	double net_base_us;			/* the path's usual network time (mean of normal p50s) */
	int base_n;				/* intervals in the baseline */
};

struct rt_probe_peer {
	char name[64];			/* as given, or the address */
	struct sockaddr_storage addr;
	char addr_text[48];
	int npaths;
	uint32_t flow_label[RT_PROBE_MAX_PATHS];
	uint16_t sport[RT_PROBE_MAX_PATHS];	/* the UDP source port the frames carry (0: unknown) */
	int ready;			/* its answerer's QP is known */
	uint32_t remote_qpn;
	struct rt_probe_cell cell[RT_PROBE_MAX_PATHS][RT_PROBE_MAX_SIZES];
	void *verbs;			/* probe_verbs.c's state for this peer */
};

/* What a path's statistics are in one interval (rt_probe_cell_stats). */
struct rt_probe_stats {
	uint64_t sent, lost, answered;
	double loss;			/* lost / (answered + lost) of the interval; 0 with none */
	double rtt_p50, rtt_p99, net_p50, resp_p50;	/* us; -1 with no sample */
};

/* The p-quantile (0..1) of n values, nearest rank; sorts v. -1 for n == 0. */
double rt_probe_quantile(uint32_t *v, uint32_t n, double p);
/*
 * The loops wake every RT_PROBE_TICK_NS at least (a timerfd) and at once for a
 * completion: a wake gap ns after the one before, past the tick and a slack
 * of RT_PROBE_SLACK_NS for the timer, means the process was kept from
 * running for the gap less the tick (at least): its stall.
 */
#define RT_PROBE_TICK_NS	5000000ull
#define RT_PROBE_SLACK_NS	1000000ull
uint64_t rt_probe_stall_of(uint64_t gap_ns);
/* The interval's statistics of a cell (sorts its samples). */
void rt_probe_cell_stats(struct rt_probe_cell *c, struct rt_probe_stats *st);
/* A probe's answer, in ns: its round trip, the responder's time and the part
 * of it the responder was kept from running (the answer says both), and the
 * time this prober was kept from running before it saw the answer. */
void rt_probe_cell_answer(struct rt_probe_cell *c, uint64_t rtt_ns, uint64_t resp_ns,
			  uint64_t own_stall_ns);
/* Close the interval: the window advances, the baseline takes the interval's
 * network time unless f (its finding) says the path was not normal, the
 * interval's counts are zeroed. */
void rt_probe_cell_roll(struct rt_probe_cell *c, const struct rt_probe_stats *st,
			enum rt_probe_finding f, int window);

/* ---- the findings the probes support ---- */

struct rt_probe_thresholds {
	int window;		/* intervals the loss is judged over (1..32) */
	double loss;		/* share of probes lost that is a path-loss */
	int loss_min;		/* and at least this many lost */
	double net_us;		/* network p50 over this is a path-latency ... */
	double net_factor;	/* ... or over factor x the path's baseline (and net_over_us more) */
	double net_over_us;
	double resp_us;		/* responder p50 over this, with a normal network, is a host-stall */
};

#define RT_PROBE_THRESHOLDS_DEFAULT { .window = 10, .loss = 0.005, .loss_min = 2, \
	.net_us = 2000, .net_factor = 3, .net_over_us = 500, .resp_us = 1000 }

/* What one cell's interval says (after rt_probe_cell_stats, before the roll).
 * why gets the evidence in one sentence. */
enum rt_probe_finding rt_probe_judge(const struct rt_probe_cell *c, const struct rt_probe_stats *st,
				     const struct rt_probe_thresholds *t, char *why, size_t whylen);

#endif
