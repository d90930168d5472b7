/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report's insides, shared by its two halves: the aggregation
 * (user/sinks/report_agg.c, a sink of the one loop) and the printer
 * (user/sinks/report_print.c, text and JSON through user/core/print.h).
 */
#ifndef RT_REPORT_IMPL_H
#define RT_REPORT_IMPL_H

#include <stddef.h>
#include "derive.h"
#include "report.h"
#include "sink.h"

#define NAME_LEN IF_NAMESIZE

struct agg_flow {
	struct rt_flow_key k;
	struct rt_flow_val v;	/* counters summed over the intervals; attributes the last */
	__u32 lqpn, rqpn, pid;
	char comm[16];
	__u8 attr;
	int has_target;
	struct rt_flow_key target;	/* what its CNPs throttle, when known */
};

_Static_assert(offsetof(struct agg_flow, k) == 0, "struct rt_htab wants the key first");

struct agg_if {
	struct rt_if_key k;
	struct rt_if_val v;
	char name[NAME_LEN];
};

struct moment {
	__u64 time_ns;
	double secs;
	__u64 pkts, ce, cnp, nak, pfc, xon, quanta;
};

/* A host pair, both directions together (RT_HP_EITHER in derive.h). */
struct pair {
	struct rt_hostpair hp;
	struct rt_flow_val v;
	__u32 flows;
};

/* A NIC counter over the whole file: deltas from rt_delta_compute (wraps and
 * resets already handled), the last value, and its busiest interval. */
struct agg_port {
	struct rt_port_ctr c;	/* identity and the last value */
	__u64 delta;
	__u64 peak_d, peak_t;
	double peak_secs;
};

struct report {
	const char *path;
	const char *kind;		/* "capture" or "recording" */
	int top;
	__u64 speed_mbps;
	const char *speed_from;
	struct rt_htab tab;		/* struct agg_flow by flow key */
	size_t n;			/* flows: tab.n */
	struct agg_if ifs[2 * RT_MAX_IFACES];
	size_t nifs;
	struct moment *m;
	size_t nm, mcap;
	__u64 first_ns, last_ns, step_ns, evicted;
	__u64 est_pkts, est_samples;	/* sFlow estimates: left out of the exact figures */
	struct rt_flow_val tot;
	struct rt_if_val itot;
	struct agg_flow **flows;	/* tab's used entries */
	struct rt_htab pairtab;		/* struct pair by host pair */
	struct pair **pairs;		/* pairtab's entries, ranked */
	size_t npairs;
	struct agg_port *ports;	/* sorted like a snapshot's ports table */
	size_t nports, pcap;
	int emitted;			/* intervals taken */
	struct rt_sink sink;
};

_Static_assert(offsetof(struct agg_port, c) == 0, "rt_port_table_get wants the counter first");


/* Rankings, most first; ties by flow key or time. */
int rt_report_by_ce(const void *x, const void *y);
int rt_report_by_cnp(const void *x, const void *y);
int rt_report_by_nak(const void *x, const void *y);
int rt_report_m_by_ce(const void *x, const void *y);
int rt_report_m_by_pfc(const void *x, const void *y);
/* A data flow's packets: RoCE packets other than CNPs and acknowledgements. */
__u64 rt_report_data_pkts(const struct agg_flow *f);

#endif
