/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Flows folded by job, pod, unit or process (job.h's enum rt_group): one sum
 * per key of the interval's counters, the flows and the ranks behind it. The
 * batch's --group-by, the report's jobs table and the exporter's per-job
 * family all fold through here, so they agree.
 *
 * Who is hurt, and by whom: each key's culprit and victim shares (rocetop(8),
 * JOBS). A marking point p is a destination (family, dst) of data packets
 * (packets that are not CNPs, ACKs or NAKs). The flows of the wire count; at
 * a p no wire flow reaches, the NIC's per-QP counters' flows (whose QP has
 * addresses) do, so a host whose NIC hides RoCE from the kernel has shares
 * too, and no packet counts twice. In one interval:
 *   L_J(p)  data packets of J's flows into p; L(p) those of every flow into p
 *           (flows of no job too: they are someone's load);
 *   M_J(p)  the congestion J's flows into p got: their CE-marked packets; at a
 *           p where no flow shows CE (a sender: its egress sees packets before
 *           the switch marks them) the CNPs the join ties to J's data flows
 *           into p (rt_flow.throttles). Never both for one p: a receiver that
 *           sees CE and sends CNPs counts the CE only. M(p) = sum_J M_J(p).
 *   CULPRIT_J = sum_p M(p) L_J(p)/L(p) / sum_p M(p): of all the congestion
 *           seen, the share J's own load stands for;
 *   VICTIM_J  = sum_p M_J(p) (1 - L_J(p)/L(p)) / sum_p M_J(p): of the
 *           congestion J got, the share others' load stands for.
 * Undefined (NAN) without congestion (culprit) or without congestion got
 * (victim). A p without data packets in the interval blames no one and is
 * left out. Over several intervals (a report, Prometheus' totals) the sums
 * run over every interval's points: load at one place at different times
 * does not share the blame. Culprit shares over every key sum to 1.
 */
#ifndef RT_JOBAGG_H
#define RT_JOBAGG_H

#include "job.h"
#include "snapshot.h"
#include "table.h"

#define RT_JOBAGG_RANKS	1024	/* distinct ranks kept per key (a bound; more are counted) */

struct rt_jobsum {
	char  key[RT_JOB_KEY_LEN];	/* the hash key: rt_job_group_key() */
	__u8  kind;			/* enum rt_job_kind of its first flow */
	__u64 flows, pkts, bytes, ce, cnp, nak, rnr;
	__u64 ranks_over;		/* ranks past RT_JOBAGG_RANKS */
	double paused;			/* the caller's: seconds paused on its flows' way (merge: the longer) */
	double culprit;			/* sum_p M(p) L_J(p)/L(p) (above) */
	double victim, got;		/* sum_p M_J(p) (1 - L_J(p)/L(p)), sum_p M_J(p) */
	__u32 id;			/* its index in rt_jobagg's open interval */
	__s32 *ranks;			/* distinct ranks seen, unsorted */
	size_t nranks, ranks_cap;
};

/* One flow's part at a marking point in the open interval (jobagg.c). */
struct rt_blame_pt {
	__u8  family;
	__u8  dst[16];
	__u32 id;			/* its sum's id, RT_BLAME_NONE: a CNP tied to no sum */
	__u32 nic;			/* from the NIC's per-QP counters */
	__u64 data, ce, cnp;
};
#define RT_BLAME_NONE	0xffffffffu

/* CNPs tied to a data flow, whose sum is found when the interval closes. */
struct rt_blame_tie {
	__u8  family;
	__u8  dst[16];
	char  key[RT_JOB_KEY_LEN];	/* the data flow's key */
	__u64 cnp;
};

struct rt_jobagg {
	int group;
	struct rt_htab t;		/* struct rt_jobsum by key */
	struct rt_jobsum *last;		/* the sum the last rt_jobagg_add added to */
	struct rt_jobsum **order;	/* rt_jobagg_sorted()'s */
	size_t order_cap;
	double marks;			/* sum_p M(p) over the closed intervals */
	__u32 nids;			/* ids given (the sums' count since the last clear) */
	struct rt_blame_pt *pts;	/* the open interval's points */
	size_t npts, pts_cap;
	struct rt_blame_tie *ties;
	size_t nties, ties_cap;
	/* Each sum by its id, kept as sums are made (byid_sum); rebuilt by a
	 * scan of the table only after the table moved its entries (grew) or
	 * was cleared: closing an interval costs its points, not the table. */
	struct rt_jobsum **byid;
	size_t byid_cap;
	int byid_stale;
};

void rt_jobagg_init(struct rt_jobagg *a, int group);
/* Empty the sums (memory kept). */
void rt_jobagg_clear(struct rt_jobagg *a);
void rt_jobagg_free(struct rt_jobagg *a);
/* Flow f of snapshot s with the interval's counters v added: 0 or -ENOMEM. */
int rt_jobagg_add(struct rt_jobagg *a, const struct rt_snapshot *s, const struct rt_flow *f,
		  const struct rt_flow_val *v);
/*
 * The end of an interval: its points' blame added to the sums' culprit and
 * victim figures (and a->marks). rt_jobagg_sorted and rt_jobagg_merge close
 * an open interval first; a caller that adds several intervals closes each.
 * 0 or -ENOMEM.
 */
int rt_jobagg_close(struct rt_jobagg *a);
/* The shares (0..1), NAN when undefined (above). */
double rt_jobsum_culprit(const struct rt_jobagg *a, const struct rt_jobsum *g);
double rt_jobsum_victim(const struct rt_jobsum *g);
/* src's sums added to dst's (the same key: one job's ranks across hosts). 0 or -ENOMEM. */
int rt_jobagg_merge(struct rt_jobagg *dst, const struct rt_jobagg *src);
/* Whether any sum names a job (a key other than "-"). */
int rt_jobagg_any(const struct rt_jobagg *a);
/* The sums, most CE-marked packets first (then CNPs, bytes, key): how many,
 * in a->order; 0 without memory too. */
size_t rt_jobagg_sorted(struct rt_jobagg *a);

#endif
