/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every view derives from a snapshot or a delta, defined once: the
 * congestion score and the ranking by it, CE %, paused share, the host pair,
 * and the names of the snapshot's enums. The TUI, batch, CSV, the report and
 * the Prometheus exporter all take these from here (ARCHITECTURE.md, "Where
 * each concept lives").
 */
#ifndef RT_DERIVE_H
#define RT_DERIVE_H

#include "snapshot.h"

/* ---- congestion and ranking ---- */

/* Congestion score of a flow's counters: CE + CNP + NAKs (sequence, other, RNR). */
static inline __u64 rt_congestion(const struct rt_flow_val *d)
{
	return d->ecn[RT_ECN_CE] + d->cnp + d->nak_seq + d->nak_other + d->rnr_nak;
}

/*
 * A packet's priority is its 802.1Q PCP, else its DSCP / 8 (the findings'
 * rule). A flow may carry several (its ACKs and NAKs on the data's priority,
 * its CNPs on the CNP priority): the sets of every packet since the flow
 * began, bit p for priority p and bit d for DSCP d. A recording made before
 * the sets holds only the last packet's, which then stands for the set.
 */
static inline __u8 rt_flow_prios(const struct rt_flow *f)
{
	if (f->v.prios)
		return f->v.prios;
	return (__u8)(1u << (f->v.pcp != RT_PCP_NONE ? f->v.pcp & 7 : f->v.dscp >> 3));
}

static inline __u64 rt_flow_dscps(const struct rt_flow *f)
{
	return f->v.dscps ? f->v.dscps : 1ULL << (f->v.dscp & 63);
}

/* A flow's priority where one is needed: the lowest it carries, which does
 * not depend on which of its packets came last. */
static inline __u8 rt_flow_prio(const struct rt_flow *f)
{
	return (__u8)__builtin_ctz(rt_flow_prios(f));
}

/* ... and its lowest DSCP. */
static inline __u8 rt_flow_dscp(const struct rt_flow *f)
{
	return (__u8)__builtin_ctzll(rt_flow_dscps(f));
}

static inline __u64 rt_nak(const struct rt_flow_val *v)
{
	return v->nak_seq + v->nak_other;
}

/* Data packets: those that are not CNPs, ACKs or NAKs. */
static inline __u64 rt_data_pkts(const struct rt_flow_val *v)
{
	__u64 other = v->cnp + v->ack + v->nak_seq + v->nak_other + v->rnr_nak;

	return v->pkts > other ? v->pkts - other : 0;
}

/* A three-way comparison that cannot overflow. */
#define RT_SPACESHIP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* Two sets of counters in congestion order: more congestion first, then more
 * packets (the victims of a pause storm carry no congestion counts); 0 on a
 * tie, which each caller breaks by its own key. */
static inline int rt_val_cmp_congestion(const struct rt_flow_val *a, const struct rt_flow_val *b)
{
	int c = RT_SPACESHIP(rt_congestion(b), rt_congestion(a));

	return c ? c : RT_SPACESHIP(b->pkts, a->pkts);
}

/*
 * The congestion ordering of flow deltas, most congested first: congestion
 * this interval, then packets this interval, then congestion since the
 * start, then the flow key. --batch's table and the exporter's top K use it.
 */
int rt_delta_cmp_congestion(const struct rt_flow_delta *a, const struct rt_flow_delta *b);
/* The same for qsort over an array of pointers to flow deltas. */
int rt_delta_qcmp_congestion(const void *a, const void *b);
/*
 * Top K without sorting everything: rearrange v[0..n) so that v[0..min(n,k))
 * are the first k of v in cmp's order, sorted; the rest follow in no order.
 * O(n log k): views that show K rows of n (--batch --top, Prometheus) rank
 * only those. Returns min(n, k).
 */
size_t rt_delta_top(const struct rt_flow_delta **v, size_t n, size_t k,
		    int (*cmp)(const struct rt_flow_delta *, const struct rt_flow_delta *));
/* The same with an order that takes arg (a view's --sort column), as qsort_r's does. */
size_t rt_delta_top_r(const struct rt_flow_delta **v, size_t n, size_t k,
		      int (*cmp)(const struct rt_flow_delta *, const struct rt_flow_delta *, void *), void *arg);

/* ---- percentages ---- */

/* part of whole in percent; 0 when whole is 0. */
static inline double rt_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* CE %: the share of the packets that were CE-marked; 0 without packets. */
static inline double rt_ce_pct(const struct rt_flow_val *v)
{
	return rt_pct((double)v->ecn[RT_ECN_CE], (double)v->pkts);
}

/* part of whole in percent, 0 when whole is 0; part is capped at whole
 * (paused time can add up to more than the interval). */
static inline double rt_share_pct(double part, double whole)
{
	if (!(whole > 0))
		return 0.0;
	return 100.0 * (part > whole ? whole : part) / whole;
}

/* ---- paused time ---- */

/*
 * Seconds interface row x (of snapshot s) was paused on priority prio in v:
 * x's delta over an interval of secs seconds, or its totals (secs: the time
 * they span, 0 when unknown). The one function every output takes paused
 * time from (rocetop(8) PAUSED TIME): the union of the pause intervals the
 * source measured (rt_if_val.pfc_paused_ns, bpf/pause.h); in a recording
 * from before that (x->paused_est), estimated as the quanta at the link
 * speed (rt_link_speed with given, --link-speed), capped at secs.
 */
double rt_paused_secs(const struct rt_snapshot *s, const struct rt_ifdir *x, const struct rt_if_val *v,
		      unsigned int prio, double secs, __u64 given);

/* Whether v says anything of prio's pauses: frames, or time paused (a pause
 * that began in an earlier interval). */
static inline int rt_paused_any(const struct rt_if_val *v, unsigned int prio)
{
	return v->pfc_frames[prio] || v->pfc_paused_ns[prio];
}

/* ---- the host pair ---- */

/*
 * THE host pair key: the two hosts of a flow, with the interface and
 * direction when a view keeps them apart. One struct, one comparison, one
 * hash; what a view folds together is its scope, named here:
 *  RT_HP_IFACE     (interface, direction, src -> dst, mirror session): the
 *                  exporter, whose series carry interface, direction and
 *                  mirror labels (host pairs inside a mirror stay apart);
 *  RT_HP_DIRECTED  (src -> dst) over interfaces and directions: the TUI's
 *                  host-pair view, where each row has a direction;
 *  RT_HP_EITHER    {a, b} unordered, a < b: the report, where a
 *                  conversation's data and its CNPs/ACKs belong together.
 * Fields a scope folds are zero, so comparing and hashing work for all.
 */
enum rt_hp_scope {
	RT_HP_IFACE = 0,
	RT_HP_DIRECTED,
	RT_HP_EITHER,
};

struct rt_hostpair {
	__u32 ifindex;		/* RT_HP_IFACE only */
	__u8  dir;		/* RT_HP_IFACE only */
	__u8  family;		/* 4 or 6 */
	__u8  mirror;		/* RT_HP_IFACE only: RT_MIRROR_* of the copies it came in */
	__u8  pad;
	__u8  a[16];		/* the source (RT_HP_EITHER: the lower address) */
	__u8  b[16];		/* the destination (RT_HP_EITHER: the higher) */
	__u32 mirror_id;	/* RT_HP_IFACE only: the mirror session */
};

void rt_hostpair_of(struct rt_hostpair *hp, const struct rt_flow_key *k, enum rt_hp_scope scope);
/* Order: interface, direction, family, a, b, mirror, session. */
int rt_hostpair_cmp(const struct rt_hostpair *x, const struct rt_hostpair *y);
__u32 rt_hostpair_hash(const struct rt_hostpair *hp);

/* ---- names of the snapshot's enums ---- */

/*
 * Each enum has one table: a stable key (files, JSON, metrics labels,
 * command lines) and a label for people (the TUI, text reports) where a
 * screen wants something shorter or longer.
 */
struct rt_name {
	const char *key;
	const char *label;
};

const struct rt_name *rt_scope_names(__u8 scope);	/* enum rt_port_scope */
const struct rt_name *rt_attr_names(__u8 attr);		/* enum rt_attr */
const struct rt_name *rt_ecn_names(unsigned int ecn);	/* RT_ECN_* */
const char *rt_scope_name(__u8 scope);			/* its key */
const char *rt_dir_name(__u8 dir);			/* "ingress" / "egress" */
const char *rt_ecn_name(unsigned int ecn);		/* "not_ect", "ect0", "ect1", "ce" */
/* A BTH opcode as Wireshark names it, the transport short: "RC RDMA WRITE
 * Middle", "UD SEND only", "CNP"; "0x15" for one no transport has. */
const char *rt_opcode_name(__u8 op, char *buf, size_t len);

#endif
