/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What rocetop report draws (--html, report_html.c) and traces (--perfetto,
 * report_trace.c): the report's own aggregation says which flows matter and
 * what they add up to; a second run over the same files (the one loop, with
 * the sink made here) keeps their time series.
 *
 * A series has at most a fixed number of points: a file of more intervals
 * puts k consecutive intervals in a point, k = ceil(intervals / points), and
 * a point keeps the least and the greatest value of its intervals beside
 * their amount, so a one-interval spike survives in a day of seconds. The
 * amount of a point is exact: a count (CE marks, CNPs, NAKs, RNR NAKs,
 * packets), or
 * the seconds paused at the report's link speed, so the points of a series
 * add up to the report's totals. Memory: the points, not the intervals.
 *
 * Episodes: what the report's findings are today (every finding of every
 * host's run, struct rt_flog), ranked by severity, then length, then start.
 * Both writers take them from rt_viz_episodes() alone.
 */
#ifndef RT_REPORT_VIZ_H
#define RT_REPORT_VIZ_H

#include <stdio.h>
#include "report_agg.h"

#define RT_VIZ_HTML_POINTS	2000	/* points per series in the HTML */
#define RT_VIZ_TRACE_POINTS	20000	/* counter events per track in the trace */
#define RT_VIZ_FLOWS_MAX	20	/* top flows drawn per host (--top 0: up to this) */

enum { RT_VIZ_CE, RT_VIZ_CNP, RT_VIZ_NAK, RT_VIZ_RNR, RT_VIZ_PKTS, RT_VIZ_NRATES };

extern const char *const rt_viz_rate_names[RT_VIZ_NRATES];	/* "CE marks/s", ... */

/* One point: its intervals' least and greatest value and their amount. */
struct rt_viz_pt {
	float min, max;
	double amt;		/* a count, paused seconds, or value x seconds */
};

/* A flow drawn: its totals (the report's) and its rates. */
struct rt_viz_flow {
	struct rt_flow_key k;
	struct rt_flow_val v;
	char name[224];		/* "rcv0 ingress 10.0.0.1 -> 10.0.0.2 qp 17" */
	int cnp_host, cnp_flow;	/* the data flow its CNPs throttle, or -1 */
	struct rt_viz_pt *s[RT_VIZ_NRATES];
};

/* An interface, direction and priority that paused. */
struct rt_viz_pause {
	struct rt_if_key k;
	int prio;
	char name[IF_NAMESIZE + 24];	/* "rcv0 ingress prio 3" */
	double paused;		/* the report's seconds */
	struct rt_viz_pt *s;	/* seconds paused per point (value: the fraction) */
};

/* An sFlow switch port and direction. */
struct rt_viz_port {
	__u32 ifindex;
	__u8 dir;
	char name[80];
	struct rt_viz_pt *depth;	/* the greatest queue depth, bytes */
	struct rt_viz_pt *drops;	/* drop notifications */
};

struct rt_viz_host {
	const char *label;
	const struct rt_rep_run *run;	/* the report's run of this host */
	/* Its clock: offset_ns is added to the times of the second run (the
	 * series) to put them on the first host's clock; the report's own times
	 * (its run: findings, start, end) are on that clock already. */
	__s64 offset_ns;
	int offset_known;		/* 0: not estimated (offset 0), for offset_why */
	__u32 offset_flows;		/* the shared flows it rests on */
	int offset_same;		/* another file of the host offset_against */
	const char *offset_against;	/* the host it was measured against (NULL: none) */
	const char *offset_why;		/* why not estimated */
	__u64 offset_margin_ns;		/* how far the offset can be off (the pause origin's margin) */
	__u64 k;			/* intervals per point */
	size_t np, nb;			/* points allocated, points filled */
	__u64 *t0;			/* a point's start (the end of the interval before), ns */
	__u64 last_ns;			/* the end of the last interval */
	double *secs;			/* its length */
	struct rt_viz_pt *tot[RT_VIZ_NRATES];
	struct rt_viz_flow *flows;
	size_t nflows, nflows_top;	/* the top ones first, then the CNP targets */
	size_t flows_cap, ports_cap;	/* allocated (rt_grow_for) */
	struct rt_viz_pause *pauses;
	size_t npauses;
	struct rt_viz_port *ports;
	size_t nports;
	/* collecting */
	__u32 *ord;			/* flows in key order */
	double *acc;			/* this interval's amounts: flows x rates, pauses */
	__u64 seen;
};

/* Prepare h for run's file(s) (after rt_rep_finish): top: flows drawn, 0 for
 * RT_VIZ_FLOWS_MAX; points: RT_VIZ_*_POINTS. 0 or -ENOMEM. */
int rt_viz_host_init(struct rt_viz_host *h, const struct rt_rep_run *run, const char *label, int top,
		     size_t points);
/* The data flows that the hosts' CNP flows throttle, added to the hosts that
 * carry them (another host's too). 0 or -ENOMEM. */
int rt_viz_link(struct rt_viz_host *hs, int n);
void rt_viz_host_free(struct rt_viz_host *h);
/* The sink of the second run: fills hs[0..n) (the same file's hosts at their
 * resolutions) and sets *started when the source opens. NULL without memory. */
struct rt_sink *rt_viz_sink_new(struct rt_viz_host **hs, int n, int *started);

/* A point's value: the amount over its seconds. */
double rt_viz_mean(const struct rt_viz_host *h, const struct rt_viz_pt *s, size_t i);
/* A point's end: the next one's start, the last interval's end for the last. */
static inline __u64 rt_viz_end(const struct rt_viz_host *h, size_t i)
{
	return i + 1 < h->nb ? h->t0[i + 1] : h->last_ns;
}

struct rt_viz_ep {
	const struct rt_finding *f;
	int host;
};

/* Every host's episodes, ranked; *out is the caller's to free. 0 or -ENOMEM. */
int rt_viz_episodes(const struct rt_viz_host *hs, int n, struct rt_viz_ep **out, size_t *nout);
/* The time a host's times take on the shared axis. */
static inline __u64 rt_viz_time(const struct rt_viz_host *h, __u64 ns)
{
	return (__u64)((__s64)ns + h->offset_ns);
}

/* The writers: 0, or -errno after a write error. report_json: the report's
 * own --json document, shown as it is. */
int rt_report_html_write(FILE *f, const struct rt_viz_host *hs, int n, const char *report_json);
int rt_report_trace_write(FILE *f, const struct rt_viz_host *hs, int n);

/* JSON for the writers: a string escaped, '<' as \u003c (so no "</script"
 * ends an inline block); a number with 4 digits; a number exactly. */
void rt_viz_json_str(FILE *f, const char *s);
void rt_viz_json_num(FILE *f, double v);
void rt_viz_json_exact(FILE *f, double v);
/* Host i's clock in a sentence: "the reference", "+2.500 s against A from
 * 12 shared flows (applied)" or "not estimated: ... (...)". */
const char *rt_viz_clock_text(const struct rt_viz_host *hs, int i, char *buf, size_t len);
/* A flow's one-line name. */
const char *rt_viz_flow_name(const struct rt_rep *r, const struct rt_flow_key *k, char *buf, size_t len);

#endif
