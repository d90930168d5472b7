/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Flows folded by job, pod, unit or process (job.h's enum rt_group): one sum
 * per key of the interval's counters, the flows and the ranks behind it. The
 * batch's --group-by, the report's jobs table and the exporter's per-job
 * family all fold through here, so they agree.
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
	__s32 *ranks;			/* distinct ranks seen, unsorted */
	size_t nranks, ranks_cap;
};

struct rt_jobagg {
	int group;
	struct rt_htab t;		/* struct rt_jobsum by key */
	struct rt_jobsum *last;		/* the sum the last rt_jobagg_add added to */
	struct rt_jobsum **order;	/* rt_jobagg_sorted()'s */
	size_t order_cap;
};

void rt_jobagg_init(struct rt_jobagg *a, int group);
/* Empty the sums (memory kept). */
void rt_jobagg_clear(struct rt_jobagg *a);
void rt_jobagg_free(struct rt_jobagg *a);
/* Flow f of snapshot s with the interval's counters v added: 0 or -ENOMEM. */
int rt_jobagg_add(struct rt_jobagg *a, const struct rt_snapshot *s, const struct rt_flow *f,
		  const struct rt_flow_val *v);
/* src's sums added to dst's (the same key: one job's ranks across hosts). 0 or -ENOMEM. */
int rt_jobagg_merge(struct rt_jobagg *dst, const struct rt_jobagg *src);
/* Whether any sum names a job (a key other than "-"). */
int rt_jobagg_any(const struct rt_jobagg *a);
/* The sums, most CE-marked packets first (then CNPs, bytes, key): how many,
 * in a->order; 0 without memory too. */
size_t rt_jobagg_sorted(struct rt_jobagg *a);

#endif
