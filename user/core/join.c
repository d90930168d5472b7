// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The join: each flow gets its local QP and owner from the rdma netlink QP
 * table, and each flow carrying CNPs is tied to the data flow it throttles.
 *
 * A CNP goes from the notification point (the data's receiver, S) to the
 * reaction point (the data's sender, D), and its destination QP Q is the
 * sender's QP. The data flow it slows is the reverse direction, D -> S, whose
 * destination QP is Q's peer. In ARCHITECTURE.md's order:
 *  1. netlink: on the RP host the CNP comes in and Q is a local QP, whose rqpn
 *     is the data flow's dqpn; on the NP host the CNP goes out and Q is the
 *     rqpn of a local QP, whose lqpn is the data flow's dqpn;
 *  2. ACKs: the responder S acknowledges to the same QP Q, so a flow S -> D to
 *     Q that carries ACKs shows Q is a requester QP sending data D -> S; when
 *     exactly one data QP flows D -> S, that is the one;
 *  3. otherwise the CNPs stay with the host pair, unattributed.
 * throttles is an index into flows[] of the same snapshot. Over a persistent
 * table (snapshot.h) only the rows that carried a CNP are attributed, the
 * owners are looked up for every row only with a QP table, and a row whose
 * join fields change counts as changed in the interval.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "join.h"
#include "qp.h"

static int is_data(const struct rt_flow_val *v)
{
	return v->pkts > v->cnp + v->ack + v->nak_seq + v->nak_other + v->rnr_nak;
}

static int acks(const struct rt_flow_val *v)
{
	return v->ack + v->nak_seq + v->nak_other + v->rnr_nak > 0;
}

static int qp_matches(const struct rt_snapshot *s, const struct rt_flow *f, const struct rt_qp *q)
{
	const char *ifn;

	if (f->k.dir == RT_DIR_INGRESS) {
		if (q->lqpn != f->k.dqpn)
			return 0;
		if (q->family && (q->family != f->k.family || memcmp(q->src, f->k.dst, 16) ||
				  memcmp(q->dst, f->k.src, 16)))
			return 0;
	} else {
		if (!q->has_rqpn || q->rqpn != f->k.dqpn)
			return 0;
		if (q->family && (q->family != f->k.family || memcmp(q->src, f->k.src, 16) ||
				  memcmp(q->dst, f->k.dst, 16)))
			return 0;
	}
	ifn = rt_snapshot_ifname(s, f->k.ifindex);
	if (q->netdev[0] && strcmp(ifn, "?") && strcmp(ifn, q->netdev))
		return 0;
	return 1;
}

/*
 * The QP table indexed by QP number: the entries' indices sorted by lqpn, and
 * those with an rqpn sorted by rqpn, so a flow's candidates are found by a
 * binary search instead of a walk over every QP (which made the join
 * O(flows x QPs) with a NIC). Built once per rt_join call.
 */
struct qpx {
	const struct rt_qp_table *t;	/* NULL: no QP table */
	__u32 *by_l, *by_r;		/* NULL (no memory): walk them all */
	size_t nr;
};

static int by_lqpn(const void *a, const void *b, void *arg)
{
	const struct rt_qp *q = arg;
	__u32 x = q[*(const __u32 *)a].lqpn, y = q[*(const __u32 *)b].lqpn;

	return x < y ? -1 : x > y;
}

static int by_rqpn(const void *a, const void *b, void *arg)
{
	const struct rt_qp *q = arg;
	__u32 x = q[*(const __u32 *)a].rqpn, y = q[*(const __u32 *)b].rqpn;

	return x < y ? -1 : x > y;
}

static void qpx_build(struct qpx *x, const struct rt_qp_table *qps)
{
	memset(x, 0, sizeof(*x));
	if (!qps || !qps->n)
		return;
	x->t = qps;
	x->by_l = malloc(qps->n * 2 * sizeof(*x->by_l));
	if (!x->by_l)
		return;
	x->by_r = x->by_l + qps->n;
	for (size_t i = 0; i < qps->n; i++) {
		x->by_l[i] = (__u32)i;
		if (qps->q[i].has_rqpn)
			x->by_r[x->nr++] = (__u32)i;
	}
	qsort_r(x->by_l, qps->n, sizeof(*x->by_l), by_lqpn, qps->q);
	qsort_r(x->by_r, x->nr, sizeof(*x->by_r), by_rqpn, qps->q);
}

static void qpx_free(struct qpx *x)
{
	free(x->by_l);
}

/* The first place in idx[0..n) whose QP has number >= qpn (lqpn, or rqpn). */
static size_t qpx_lower(const struct rt_qp *q, const __u32 *idx, size_t n, __u32 qpn, int rq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		__u32 v = rq ? q[idx[mid]].rqpn : q[idx[mid]].lqpn;

		if (v < qpn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Connection management: MADs to QP1 (the GSI QP, UD), the rdma_cm handshake
 * that sets up a connection, sent and answered by the kernel's QP1 on behalf
 * of the process that called rdma_cm. Such a flow is labelled "rdma_cm", with
 * the QP the handshake sets up and its process where a CM ID of the QP table
 * has the flow's addresses (one QP, or several of one process: QP1 and the
 * process), else where a CM ID without a QP has them (before its QP is made,
 * after it is destroyed: QP1 and the process), else QP1 and no process;
 * never the kernel's ib_core that sends it.
 */
#define RT_QP_GSI	1

static const struct rt_qp *cm_owner(const struct rt_qp_table *qps, const struct rt_flow *f,
				    struct rt_qp *out)
{
	const __u8 *local = f->k.dir == RT_DIR_INGRESS ? f->k.dst : f->k.src;
	const __u8 *remote = f->k.dir == RT_DIR_INGRESS ? f->k.src : f->k.dst;
	const struct rt_qp *one = NULL;
	int n = 0, one_pid = 1;

	for (size_t i = 0; i < qps->n; i++) {
		const struct rt_qp *q = &qps->q[i];

		if (q->lqpn == RT_QP_GSI || q->family != f->k.family || memcmp(q->src, local, 16) ||
		    memcmp(q->dst, remote, 16))
			continue;
		if (one && q->pid != one->pid)
			one_pid = 0;
		if (!one)
			one = q;
		n++;
	}
	/* No QP of these addresses: a CM ID whose QP is not made yet or is
	 * already destroyed (its disconnect) still names the process. */
	for (size_t i = 0; !n && i < qps->ncm; i++) {
		const struct rt_qp *q = &qps->cm[i];

		if (q->family != f->k.family || memcmp(q->src, local, 16) || memcmp(q->dst, remote, 16))
			continue;
		if (one && q->pid != one->pid)
			one_pid = 0;
		if (!one)
			one = q;
	}
	if (!n && one) {
		memset(out, 0, sizeof(*out));
		out->lqpn = RT_QP_GSI;
		snprintf(out->comm, sizeof(out->comm), "rdma_cm");
		if (one_pid) {
			out->pid = one->pid;
			out->job = one->job;
		}
		return out;
	}
	memset(out, 0, sizeof(*out));
	out->lqpn = RT_QP_GSI;
	snprintf(out->comm, sizeof(out->comm), "rdma_cm");
	if (n == 1) {
		out->lqpn = one->lqpn;
		out->rqpn = one->rqpn;
	}
	if (n && one_pid) {
		out->pid = one->pid;
		out->job = one->job;
	}
	return out;
}

/* The one local QP a flow belongs to, or NULL (none, or more than one that
 * the addresses cannot tell apart); for a connection management flow, its
 * label written into *cm. */
static const struct rt_qp *owner(const struct rt_snapshot *s, const struct rt_flow *f,
				 const struct qpx *x, struct rt_qp *cm)
{
	const struct rt_qp *any = NULL, *addr = NULL;
	const struct rt_qp_table *qps = x ? x->t : NULL;
	int nany = 0, naddr = 0, rq = f->k.dir != RT_DIR_INGRESS;
	const __u32 *idx = NULL;
	size_t i, n;

	if (!qps)
		return NULL;
	if (f->k.dqpn == RT_QP_GSI)
		return cm_owner(qps, f, cm);
	/* Ingress: our QP is the flow's dqpn; egress: its peer is (qp_matches). */
	if (x->by_l) {
		idx = rq ? x->by_r : x->by_l;
		n = rq ? x->nr : qps->n;
		i = qpx_lower(qps->q, idx, n, f->k.dqpn, rq);
	} else {
		i = 0;
		n = qps->n;
	}
	for (; i < n; i++) {
		const struct rt_qp *q = &qps->q[idx ? idx[i] : i];

		if (idx && (rq ? q->rqpn : q->lqpn) != f->k.dqpn)
			break;	/* past the QPs of that number */
		if (!qp_matches(s, f, q))
			continue;
		nany++;
		any = q;
		if (q->family) {
			naddr++;
			addr = q;
		}
	}
	if (nany == 1)
		return any;
	return naddr == 1 ? addr : NULL;
}

/*
 * The rows from src to dst of family fam after row i (-1: the first): the
 * table's host-pair list, or a scan of a plain snapshot. -1 at the end.
 */
static long pair_next(const struct rt_snapshot *s, long i, __u8 fam, const __u8 *src,
		      const __u8 *dst)
{
	if (s->tab)
		return (long)(i < 0 ? rt_snapshot_pair_head(s, fam, src, dst) : s->tab->st[i].pnext) - 1;
	for (i++; (size_t)i < s->nflows; i++) {
		const struct rt_flow_key *k = &s->flows[i].k;

		if (k->family == fam && !memcmp(k->src, src, 16) && !memcmp(k->dst, dst, 16))
			return i;
	}
	return -1;
}

/*
 * The data flow src -> dst (the reverse of the CNP flow c). dqpn >= 0 asks for
 * that QP; dqpn < 0 for the only data QP on the pair (-1 if several). A flow
 * on c's interface in the other direction is preferred: the same QP may be
 * seen on several interfaces of a test bed.
 */
static int find_data(const struct rt_snapshot *s, const struct rt_flow *c, long long dqpn)
{
	int best = -1, best_score = -1;
	long long seen = -1;

	for (long i = pair_next(s, -1, c->k.family, c->k.dst, c->k.src); i >= 0;
	     i = pair_next(s, i, c->k.family, c->k.dst, c->k.src)) {
		const struct rt_flow *f = &s->flows[i];
		int score;

		if (f->k.origin != RT_ORIGIN_WIRE || !is_data(&f->v))
			continue;
		if (dqpn >= 0 && f->k.dqpn != dqpn)
			continue;
		if (dqpn < 0) {
			if (seen >= 0 && seen != f->k.dqpn)
				return -1;	/* two data QPs on the pair: ambiguous */
			seen = f->k.dqpn;
		}
		score = (f->k.ifindex == c->k.ifindex) * 2 + (f->k.dir != c->k.dir);
		/* ties go to the smaller key: the same in any order of flows[] */
		if (score > best_score ||
		    (score == best_score && rt_flow_key_cmp(&f->k, &s->flows[best].k) < 0)) {
			best_score = score;
			best = (int)i;
		}
	}
	return best;
}

/* Whether the responder's ACKs to QP c->k.dqpn are seen: on c itself or on
 * any other interface. */
static int acked(const struct rt_snapshot *s, const struct rt_flow *c)
{
	/* over a table, c's own pair is its chain: no probe of the index */
	long i = s->tab ? (long)rt_snapshot_pair_first(s, (size_t)(c - s->flows)) - 1 :
			  pair_next(s, -1, c->k.family, c->k.src, c->k.dst);

	for (; i >= 0; i = pair_next(s, i, c->k.family, c->k.src, c->k.dst)) {
		const struct rt_flow *f = &s->flows[i];

		if (f->k.origin == RT_ORIGIN_WIRE && f->k.dqpn == c->k.dqpn && acks(&f->v))
			return 1;
	}
	return 0;
}

/* The CNP flow c's target: RT_ATTR_* into *attr, the row or -1 returned. */
static int attribute(const struct rt_snapshot *s, const struct rt_flow *c,
		     const struct qpx *qps, __u8 *attr)
{
	struct rt_qp cm;
	const struct rt_qp *q = owner(s, c, qps, &cm);
	int d;

	if (q && (c->k.dir == RT_DIR_EGRESS || q->has_rqpn)) {
		/* RP host (CNP in): the data goes to Q's peer, q->rqpn.
		 * NP host (CNP out): the data comes to our QP, q->lqpn. */
		d = find_data(s, c, c->k.dir == RT_DIR_INGRESS ? q->rqpn : q->lqpn);
		if (d >= 0) {
			*attr = RT_ATTR_NETLINK;
			return d;
		}
	}
	if (acked(s, c) && (d = find_data(s, c, -1)) >= 0) {
		*attr = RT_ATTR_ACK;
		return d;
	}
	*attr = RT_ATTR_HOSTPAIR;
	return -1;
}

/* Queue the CNP rows of the chain from row id - 1 (0: none) for the join. */
static void queue_rows(struct rt_snapshot *s, __u32 id)
{
	for (; id; id = s->tab->st[id - 1].pnext)
		if (s->tab->st[id - 1].cnp_pos)
			rt_snapshot_join_queue(s, id - 1);
}

/* Queue the CNP rows of the pair src -> dst for the join. */
static void queue_pair(struct rt_snapshot *s, __u8 fam, const __u8 *src, const __u8 *dst)
{
	queue_rows(s, rt_snapshot_pair_head_cnp(s, fam, src, dst));
}

/* The owner's fields (its QPs, process and job) into a flow row. */
static void copy_owner(struct rt_flow *f, const struct rt_qp *q)
{
	f->lqpn = q->lqpn;
	f->rqpn = q->rqpn;
	f->pid = q->pid;
	f->job = q->job;
	memcpy(f->comm, q->comm, sizeof(f->comm));
}

/*
 * Over a persistent table: a CNP row's attribution depends on itself, the
 * rows of its host pair (ACKs) and of the reverse pair (data), so only CNP
 * rows on the pairs of this interval's changed rows (or of rows that went,
 * queued by rt_snapshot_remove) are looked at again; all of them with a QP
 * table, whose owners can change under any row.
 */
/* A wire row's owner from the QP table (none: its fields cleared, as a row
 * of a fresh snapshot has them); the row counts as changed if they moved. */
static void set_owner(struct rt_snapshot *s, struct rt_flow *f, const struct qpx *qps)
{
	static const struct rt_qp none;
	const struct rt_qp *q;
	struct rt_qp cm;

	if (f->k.origin != RT_ORIGIN_WIRE)
		return;		/* the NIC's own flows come with their QP */
	q = owner(s, f, qps, &cm);
	if (!q)
		q = &none;
	if (f->lqpn == q->lqpn && f->rqpn == q->rqpn && f->pid == q->pid && f->job == q->job &&
	    !memcmp(f->comm, q->comm, sizeof(f->comm)))
		return;
	copy_owner(f, q);
	rt_snapshot_touch(s, f);
}

/* How many CNP rows ahead the join asks for the reverse pair's slot. */
#define RT_JOIN_AHEAD	8

/* all: the QP table may have changed, every row's owner (have: there is a
 * QP table, perhaps empty, whose owners the rows must show) and CNP is
 * looked at again; 0: the same table as at the last join, only the changed
 * rows' owners (an owner depends on the row's key and the table alone). */
static void join_table(struct rt_snapshot *s, const struct qpx *qps, int all, int have)
{
	struct rt_flow_table *t = s->tab;
	size_t i, nch;

	for (i = 0; i < t->nchanged; i++) {
		const struct rt_flow *f = &s->flows[t->changed[i]];

		if (f->v.cnp && f->k.origin == RT_ORIGIN_WIRE)
			rt_snapshot_note_cnp(s, f);
	}
	if (have && all) {
		for (i = 0; i < s->nflows; i++)
			set_owner(s, &s->flows[i], qps);
		for (i = 0; i < t->ncnp; i++)
			rt_snapshot_join_queue(s, t->cnp[i]);
	} else if (qps->t || t->ncnp) {
		/* rows that set_owner touches join the changed list: not again */
		nch = t->nchanged;
		for (i = 0; qps->t && i < nch; i++)
			set_owner(s, &s->flows[t->changed[i]], qps);
		for (i = 0; t->ncnp && i < t->nchanged; i++) {
			const struct rt_flow_key *k = &s->flows[t->changed[i]].k;
			__u32 near = t->st[t->changed[i]].cnp_near;

			/* only pairs that ever carried a CNP have rows to queue;
			 * the row's own pair is its chain (a row with cnp_pos
			 * always has its pair marked RT_PSLOT_CNP, so the chain
			 * holds the same CNP rows as the marked pair's) */
			if (near & RT_NEAR_PAIR)
				queue_rows(s, rt_snapshot_pair_first(s, t->changed[i]));
			if (near & RT_NEAR_REV)
				queue_pair(s, k->family, k->dst, k->src);
		}
	}
	for (i = 0; i < t->njq; i++) {
		struct rt_flow *c = &s->flows[t->jq[i]];
		__u8 attr = RT_ATTR_NONE;
		int d = -1;

		if (i + RT_JOIN_AHEAD < t->njq) {	/* find_data's probe, in cache by then */
			const struct rt_flow_key *ak = &s->flows[t->jq[i + RT_JOIN_AHEAD]].k;

			rt_snapshot_prefetch_pair(s, ak->family, ak->dst, ak->src);
		}

		if (c->v.cnp && c->k.origin == RT_ORIGIN_WIRE)
			d = attribute(s, c, qps, &attr);
		if (c->attr != attr || c->throttles != d) {
			c->attr = attr;
			c->throttles = d;
			rt_snapshot_touch(s, c);
		}
	}
	t->njq = 0;
	if (!++t->jgen || t->jgen + 1 == 0)	/* jmark == jgen + 1: queued */
		t->jgen = 1;
}

void rt_join(struct rt_snapshot *s, const struct rt_qp_table *qpt)
{
	struct qpx qx, *qps = &qx;
	size_t i;

	qpx_build(&qx, qpt);
	if (s->tab) {
		join_table(s, qps, 1, qpt != NULL);
		qpx_free(&qx);
		return;
	}

	for (i = 0; i < s->nflows; i++) {
		struct rt_flow *f = &s->flows[i];
		const struct rt_qp *q;
		struct rt_qp cm;

		f->attr = RT_ATTR_NONE;
		f->throttles = -1;
		if (f->k.origin != RT_ORIGIN_WIRE)
			continue;	/* the NIC's own flows come with their QP */
		if (!(q = owner(s, f, qps, &cm)))
			continue;
		copy_owner(f, q);
	}

	for (i = 0; i < s->nflows; i++) {
		struct rt_flow *c = &s->flows[i];

		if (c->v.cnp && c->k.origin == RT_ORIGIN_WIRE)
			c->throttles = attribute(s, c, qps, &c->attr);
	}
	qpx_free(&qx);
}

void rt_join_changed(struct rt_snapshot *s, const struct rt_qp_table *qpt, int qps_changed)
{
	struct qpx qx;

	if (!s->tab || qps_changed) {
		rt_join(s, qpt);
		return;
	}
	qpx_build(&qx, qpt);
	join_table(s, &qx, 0, qpt != NULL);
	qpx_free(&qx);
}
