/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rocetop report's aggregation: what one file adds up to, interval by
 * interval, with no I/O (tests/unit/test_report_agg.c). The report's sink
 * (user/report/report_sink.c) feeds it the loop's snapshots and deltas;
 * user/report/report_print.c prints it through user/core/print.h.
 *
 * Memory follows the flows, interfaces and NIC counters of the file, not
 * its length: the moments (the intervals of highest CE rate and of most PFC
 * pauses) are kept as two bounded top-K selections, not one row per
 * interval. The selections are exact: each keeps the K best under the same
 * total order the report prints in (ties broken by time), so the K printed
 * are the K a full sort would print.
 */
#ifndef RT_REPORT_AGG_H
#define RT_REPORT_AGG_H

#include <net/if.h>
#include "snapshot.h"
#include "jobagg.h"
#include "table.h"

/* Moments kept per table when every row is asked for (--top 0). */
#define RT_REP_MOMENTS_ALL 1024

struct rt_rep_flow {
	struct rt_flow_key k;		/* first: the table's key */
	struct rt_flow_val v;		/* counters summed over the intervals; attributes the last */
	__u32 lqpn, rqpn, pid;
	char comm[16];
	__u8 attr;
	int has_target;
	struct rt_flow_key target;	/* what its CNPs throttle, when known */
	/* Its first and last packet on the wall clock (the snapshot's time_ns
	 * less how long before its mono_ns v.first_ns and v.last_ns were);
	 * 0: no packet. rt_rep_shift() puts them on another host's clock. */
	__u64 first_wall, last_wall;
};

struct rt_rep_if {
	struct rt_if_key k;
	struct rt_if_val v;
	char name[IF_NAMESIZE];		/* printable (rt_fmt_safe) */
	double paused[RT_NPRIO];	/* seconds, each interval's quanta at its rt_link_speed */
	__u64 speed_mbps;		/* the last interval's rt_link_speed, and where from */
	char speed_from[16];
};

/* One interval's sums, at its end. */
struct rt_rep_moment {
	__u64 time_ns;
	double secs;
	__u64 pkts, ce, cnp, nak, pfc, xon, quanta;
};

/* The K best moments under cmp (a bounded heap, worst at the root). */
struct rt_rep_top {
	struct rt_rep_moment *m;
	size_t n, k;
	__u64 left_out;			/* moments that qualified but were not kept */
	int (*cmp)(const void *, const void *);	/* < 0: the first ranks higher */
	int (*qualifies)(const struct rt_rep_moment *);
};

/* A host pair, both directions together (derive.h's RT_HP_EITHER). */
struct rt_rep_pair {
	__u8 family;
	__u8 a[16], b[16];		/* a < b */
	struct rt_flow_val v;
	__u32 flows;
};

/* A NIC counter over the whole file: deltas from rt_delta_compute (wraps and
 * resets already handled), the last value, and its busiest interval. */
struct rt_rep_port {
	struct rt_port_ctr c;		/* first (rt_port_table_get): identity and the last value */
	__u64 delta;
	__u64 peak_d, peak_t;
	double peak_secs;
};

/*
 * A run of consecutive intervals in which one interface sent (egress) or
 * received (ingress) PFC pause frames with a non-zero time on a priority:
 * counted by rocetop's programs, or by the NIC (tx/rx_prioN_pause). What
 * the pause origin (report_origin.c) orders. Times on the wall clock: the
 * first pauses were counted in (start_ns, first_ns], the last by end_ns.
 */
struct rt_rep_pep {
	char name[IF_NAMESIZE];		/* the interface, or the NIC counter's netdev (printable) */
	__u8 dir, prio, nic;		/* nic: from the NIC's counters */
	__u64 start_ns, first_ns, end_ns;
	__u64 frames;			/* pause frames with a non-zero time (the NIC's: all) */
	__u64 last_iv;			/* the interval (rt_rep.intervals) that last added to it */
};

/* Pause episodes kept per file; later ones are counted in peps_left. */
#define RT_REP_PEPS_MAX 4096

struct rt_rep {
	struct rt_htab tab;		/* struct rt_rep_flow by flow key */
	struct rt_jobagg jobs;		/* the exact flows folded by job, over the file */
	struct rt_jobagg ranks;		/* ... and by job and rank */
	struct rt_rep_if ifs[2 * RT_MAX_IFACES];
	size_t nifs;
	__u64 speed_given;		/* --link-speed, 0: rt_link_speed decides */
	int paused_est;			/* paused time estimated from quanta somewhere (an old recording) */
	struct rt_iface ifaces[RT_MAX_IFACES];	/* the last snapshot's: what the source said of them */
	size_t nifaces;
	struct rt_rep_top ce_peaks, pfc_peaks;
	struct rt_rep_moment first;	/* held until the interval's length is known */
	int first_pending;
	__u64 intervals;
	__u64 first_ns, last_ns, step_ns, evicted;
	__u64 max_step_ns;	/* the longest time from one interval's end to the next's
				 * (a late snapshot's): what a live flow's per-interval
				 * times may be off by (report_clock.c) */
	__u64 first_len_ns;	/* the first interval's length where the file says it
				 * (a recording's rt_snapshot.interval_ns), else 0: step_ns */
	__u64 est_pkts, est_samples;	/* sFlow estimates: left out of the exact figures */
	struct rt_flow_val tot;
	struct rt_if_val itot;
	struct rt_rep_port *ports;	/* sorted like a snapshot's ports table */
	size_t nports, pcap;
	struct rt_rep_pep *peps;	/* pause episodes, in the order they began */
	size_t npeps, peps_cap;
	__u64 peps_left, prev_ns;	/* prev_ns: the last snapshot's time */
	/* after rt_rep_finish() */
	size_t n;			/* flows */
	struct rt_rep_flow **flows;	/* the table's entries, in its slot order */
	struct rt_rep_pair *pairs;	/* ranked by pair_cmp */
	size_t npairs;
};

/* top: moments per table (0: all, up to RT_REP_MOMENTS_ALL). 0 or -ENOMEM. */
int rt_rep_init(struct rt_rep *r, int top);
void rt_rep_free(struct rt_rep *r);
/*
 * One interval: cur and d as a sink gets them. d->secs is the interval's
 * length as the report counts it; 0 when not known (a recording's first
 * interval), which then takes the second interval's. 0 or -ENOMEM.
 */
int rt_rep_take(struct rt_rep *r, const struct rt_snapshot *cur, const struct rt_delta *d);
/* End of the file: the first moment placed, flows listed, host pairs ranked.
 * capture_secs > 0: a capture's interval, the step of a one-interval file. */
int rt_rep_finish(struct rt_rep *r, double capture_secs);
/* A top-K table's moments, best first (sorted in place). */
const struct rt_rep_moment *rt_rep_top_sorted(struct rt_rep_top *t);

/* Rankings of flows (arrays of struct rt_rep_flow *), ties by key. */
int rt_rep_by_ce(const void *x, const void *y);
int rt_rep_by_cnp(const void *x, const void *y);
int rt_rep_by_nak(const void *x, const void *y);
/* Host pairs by congestion (rt_congestion), then packets, then addresses. */
int rt_rep_pair_cmp(const void *x, const void *y);
/* Moments by CE rate, and by pause frames (less XON) then quanta; ties by time. */
int rt_rep_moment_by_ce(const void *x, const void *y);
int rt_rep_moment_by_pfc(const void *x, const void *y);

/* RoCE packets of a flow other than CNPs and acknowledgements. */
__u64 rt_rep_data_pkts(const struct rt_rep_flow *f);
/* The name of an interface seen in the file, "?" when none. */
const char *rt_rep_ifname(const struct rt_rep *r, __u32 ifindex);
/* The flow with this key (after finish), or NULL. */
const struct rt_rep_flow *rt_rep_flow_of(const struct rt_rep *r, const struct rt_flow_key *k);
/* A data flow with the addresses and QP of k (a CNP flow's target seen from
 * another host), the first in r->flows' current order; or NULL. */
const struct rt_rep_flow *rt_rep_data_flow(const struct rt_rep *r, const struct rt_flow_key *k);
/* The same, active (first_wall..last_wall) within window_ns of c's active
 * time: the data flow a CNP flow c throttles, when both are on one clock.
 * The window between hosts: RT_REP_CNP_WINDOW_NS, or the longest interval
 * of the files if longer (a live recording stamps its flows per interval). */
#define RT_REP_CNP_WINDOW_NS	1000000000ULL
const struct rt_rep_flow *rt_rep_data_flow_near(const struct rt_rep *r, const struct rt_rep_flow *c,
						__u64 window_ns);
/* An unattributed CNP flow: the data flows going the other way on its host
 * pair (the same data seen on both sides of a link counted once). */
__u32 rt_rep_cnp_candidates(const struct rt_rep *r, const struct rt_rep_flow *c);
/* Host pairs of several files merged (each file's flows counted once),
 * ranked; *out is the caller's to free. 0 or -ENOMEM. */
int rt_rep_pairs_merge(const struct rt_rep *const *rs, int n, struct rt_rep_pair **out, size_t *nout);

/* ---- the report as a sink of the one loop (report_sink.c) ---- */

#include "findings.h"
#include "report_probe.h"
#include "sink.h"
#include "tune.h"

/* What one file's run leaves for the printer. */
struct rt_rep_run {
	struct rt_rep agg;
	struct rt_flog flog;		/* every finding over the file, in time order */
	struct rt_tune tune;		/* what --tune reads (tune.h) */
	struct rt_rep_probes probes;	/* the probe mesh's rows added up (report_probe.h) */
	char host[64];			/* the recording's host, else the file's name */
	char version[200], kernel[200];	/* what the recording says made it ("": not said) */
	char options[1024];
	const char *kind;		/* "recording" or "capture" */
	int started;			/* the source opened (the loop started the sink) */
	int err;			/* 0, or what finishing the findings met (-ENOMEM) */
};

struct rt_rep_sink_cfg {
	const char *path;
	int top;			/* moments kept per table (rt_rep_init) */
	struct rt_find_cfg find;	/* thresholds; find.speed_mbps as given */
	/* --filter: the flows aggregated and the findings kept (the rules
	 * judge every flow); NULL: all */
	const struct rt_filter *filter;
};

/* A sink that fills *out (initialised here; rt_rep_run_free() frees it).
 * Its close finishes the findings. NULL after saying why. */
struct rt_filter;
struct rt_sink *rt_report_sink_new(struct rt_rep_run *out, const struct rt_rep_sink_cfg *cfg);
void rt_rep_run_free(struct rt_rep_run *run);

/* The sink the loop gets for each file of a rotated set: it hands every
 * interval to the report's sink, which stays open from the first file to the
 * last (its findings go on across the files), and gives the first interval
 * of each later file its length: since the previous file's last snapshot,
 * from which its counters count (record.c).
 */
struct rt_rep_chain {
	struct rt_sink s;		/* hand &s to the loop */
	struct rt_sink *inner;		/* the report's sink */
	__u64 last_ns;
	int fresh;
	const char *file, *prev;	/* the file being read, the one before */
};
void rt_rep_chain_init(struct rt_rep_chain *ch, struct rt_sink *inner);
/* Before each file: its name and the one read before it (NULL: none). */
void rt_rep_chain_next(struct rt_rep_chain *ch, const char *file, const char *prev);

/* ---- several hosts on one clock (report_clock.c) ---- */

/* A host's clock against the reference host's (the first). */
struct rt_rep_clock {
	int known;			/* 0: no chain of shared flows to the reference */
	__s64 offset_ns;		/* its clock less the reference's (its times - offset: the reference's) */
	int against;			/* the host it was measured against (-1: none) */
	__u32 flows;			/* the shared flows that measurement rests on */
	__s64 lo_ns, hi_ns;		/* the least and greatest difference among them */
	int shares;			/* the other hosts it shares a flow (or its name) with */
	int same_host;			/* measured as another file of the host `against` (one clock) */
};

/* The clock offsets of n hosts' aggregations (after rt_rep_finish) against
 * rs[0], from the flows each pair of hosts shares (the same source,
 * destination and QP, with about as many packets over about as long):
 * the median of the differences of their first and last packets' times.
 * host0[i]: the host a recording names ("": not named); two files of one
 * named host are on one clock (offset 0 between them, before any measure).
 * out[0] is the reference (known, 0).
 * 0 or -ENOMEM. */
int rt_rep_clocks(const struct rt_rep *const *rs, const char *const *host0, int n, struct rt_rep_clock *out);
/* Add ns to every time of a run: its aggregation and its findings. */
void rt_rep_shift(struct rt_rep_run *run, __s64 ns);

/* ---- the pause episodes and where a storm started (report_origin.c) ---- */

/* One interval's pauses into r's episodes (rt_rep_take). 0 or -ENOMEM. */
int rt_rep_peps_take(struct rt_rep *r, const struct rt_snapshot *s, const struct rt_delta *d);
/* The file's end: a first interval's unknown start, step_ns before its end. */
void rt_rep_peps_finish(struct rt_rep *r);

/* One host (one report) as the origin sees it: its episodes on the
 * reference clock, and how far that clock can be off (0: the reference's
 * own, or another file of its host). */
struct rt_po_host {
	const char *label;
	const struct rt_rep_pep *peps;
	size_t npeps;
	__u64 left;			/* episodes the file had beyond RT_REP_PEPS_MAX */
	int clock_known;
	__u64 margin_ns;
};

enum rt_po_role {
	RT_PO_ORIGIN,		/* sent pauses before it received any (or none) */
	RT_PO_SPREAD,		/* received pauses, then sent some */
	RT_PO_PAUSED,		/* received pauses, sent none */
	RT_PO_UNSURE,		/* first sent and first received within one interval */
	RT_PO_UNPLACED,		/* its clock is not aligned with the reference's */
};

/* A host's part in one priority's storm. */
struct rt_po_node {
	int host;			/* index of its struct rt_po_host */
	enum rt_po_role role;
	const struct rt_rep_pep *tx, *rx;	/* its first episode sending, receiving (NULL: none) */
	__u64 tx_frames, rx_frames;	/* the pause frames on those interfaces over the file */
	int parent;			/* the node it received its first pauses from, -1: none */
	int linked;			/* the parent sent as many frames as it received, at that time */
	char from_if[48];		/* linked: the parent's interfaces that did ("a|b": as many on each) */
};

#define RT_PO_MAX_NODES 64

struct rt_po_prio {
	__u8 prio;
	struct rt_po_node node[RT_PO_MAX_NODES];	/* in the order of their first episode */
	int n, norigins, nunsure, nunplaced;
	int decided;			/* one origin, every host placed */
};

/*
 * Each priority with pauses in any host's episodes, its hosts' roles and
 * the tree (parents): out[] up to RT_NPRIO entries, in priority order.
 * Returns how many.
 */
int rt_po_build(const struct rt_po_host *h, int nh, struct rt_po_prio *out);

#endif
