/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe mesh's table, as every output reads it: one row per peer, path
 * and probe size for an interval, with what its probes saw and the finding
 * the interval supports. The mesh itself (sending, answering, timing,
 * judging) is user/probe/'s; it fills these rows into each snapshot of a
 * live run (--probe), and recordings carry them (user/core/record.c's
 * "probe" struct), so the batch text, CSV, TUI, Prometheus, report, HTML
 * and Perfetto all read one table. Plain fixed-width fields: a recording
 * stores the struct as it is.
 */
#ifndef RT_PROBE_ROW_H
#define RT_PROBE_ROW_H

#include <linux/types.h>

/* A path's finding in an interval (user/probe/probe_stats.c judges it). */
enum rt_probe_finding {
	RT_PF_NONE = 0,
	RT_PF_PATH_DOWN,	/* every probe on the path lost over the window */
	RT_PF_PATH_LOSS,	/* probes lost beyond the threshold */
	RT_PF_PATH_LATENCY,	/* network time above the threshold or far above the baseline */
	RT_PF_HOST_STALL,	/* the responder's time high while the network's is normal */
	RT_PF__N
};

/* How a probe's times were taken. */
enum { RT_PROBE_CLOCK_SYSTEM = 1, RT_PROBE_CLOCK_DEVICE = 2 };

/* Where a peer came from (bits). */
enum { RT_PROBE_FROM_LIST = 1, RT_PROBE_FROM_QP = 2 };

struct rt_probe_row {
	char  peer[64];		/* the peer's name: as listed, or its address */
	char  addr[48];		/* its address (IPv4 of its RoCEv2 GID) */
	__u32 flow_label;	/* the path's GRH flow label */
	__u16 udp_sport;	/* the UDP source port its frames carry (0: not known) */
	__u8  path;		/* the path's index at the peer */
	__u8  clock;		/* RT_PROBE_CLOCK_* */
	__u32 size;		/* bytes of a probe */
	__u8  finding;		/* enum rt_probe_finding, this interval */
	__u8  from;		/* RT_PROBE_FROM_* */
	__u8  ready;		/* the peer's answerer is known (resolved) */
	__u8  pad;
	__u32 pad2;
	__u64 sent, answered, lost;		/* this interval */
	__u64 sent_total, answered_total, lost_total;	/* since the start */
	double rtt_p50_us, rtt_p99_us;		/* the round trip; -1: no sample */
	double net_p50_us, resp_p50_us;		/* its network part and the responder's */
	double net_base_us;			/* the path's usual network time (0: none yet) */
	char  why[160];		/* the finding's evidence, one sentence ("" with none) */
};

const char *rt_probe_finding_name(enum rt_probe_finding f);
/* "system", "device" or "-". */
const char *rt_probe_clock_name(int clock);

#endif
