// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flows folded by job, pod, unit or process (jobagg.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "jobagg.h"

void rt_jobagg_init(struct rt_jobagg *a, int group)
{
	memset(a, 0, sizeof(*a));
	a->group = group;
	a->byid_stale = 1;
	rt_htab_init(&a->t, sizeof(struct rt_jobsum), RT_JOB_KEY_LEN, 0);
}

/* A sum just made (g, given its id) into byid, unless the table grew on the
 * way (cap_before: its size before), which moved every sum: then byid is
 * stale and the next close rebuilds it. 0 or -ENOMEM. */
static int byid_sum(struct rt_jobagg *a, struct rt_jobsum *g, size_t cap_before)
{
	if (a->t.cap != cap_before)
		a->byid_stale = 1;
	if (a->byid_stale)
		return 0;
	if (rt_grow_to((void **)&a->byid, &a->byid_cap, a->nids, sizeof(*a->byid)))
		return -ENOMEM;
	a->byid[g->id] = g;
	return 0;
}

static void free_ranks(struct rt_jobagg *a)
{
	for (size_t i = 0; i < a->t.cap; i++)
		if (a->t.used[i])
			free(((struct rt_jobsum *)rt_htab_at(&a->t, i))->ranks);
}

void rt_jobagg_clear(struct rt_jobagg *a)
{
	free_ranks(a);
	rt_htab_clear(&a->t);
	a->last = NULL;
	a->marks = 0;
	a->nids = 0;
	a->byid_stale = 1;
	a->npts = a->nties = 0;
}

void rt_jobagg_free(struct rt_jobagg *a)
{
	free_ranks(a);
	rt_htab_free(&a->t);
	free(a->order);
	free(a->pts);
	free(a->ties);
	free(a->byid);
	memset(a, 0, sizeof(*a));
}

static int add_rank(struct rt_jobsum *g, __s32 rank)
{
	__s32 *r;

	if (rank < 0)
		return 0;
	for (size_t i = 0; i < g->nranks; i++)
		if (g->ranks[i] == rank)
			return 0;
	if (g->nranks == RT_JOBAGG_RANKS) {
		g->ranks_over++;
		return 0;
	}
	if (!(r = rt_append((void **)&g->ranks, &g->nranks, &g->ranks_cap, sizeof(*r))))
		return -ENOMEM;
	*r = rank;
	return 0;
}

/* Flow f's part in the open interval's points (jobagg.h): its data packets
 * and CE at its destination, and the CNPs it carries at the destination of
 * the data flow they throttle. 0 or -ENOMEM. */
static int blame_add(struct rt_jobagg *a, const struct rt_snapshot *s, const struct rt_flow *f,
		     const struct rt_flow_val *v, __u32 id)
{
	const struct rt_flow *t;
	__u64 data = rt_data_pkts(v);

	if (f->k.origin != RT_ORIGIN_WIRE && (f->k.origin != RT_ORIGIN_NIC || !f->k.family))
		return 0;
	if (data) {
		struct rt_blame_pt *p = rt_append((void **)&a->pts, &a->npts, &a->pts_cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		p->family = f->k.family;
		memcpy(p->dst, f->k.dst, 16);
		p->id = id;
		p->nic = f->k.origin == RT_ORIGIN_NIC;
		p->data = data;
		p->ce = v->ecn[RT_ECN_CE];
	}
	if (v->cnp && f->throttles >= 0 && (size_t)f->throttles < s->nflows) {
		struct rt_blame_tie *c = rt_append((void **)&a->ties, &a->nties, &a->ties_cap, sizeof(*c));

		if (!c)
			return -ENOMEM;
		t = &s->flows[f->throttles];
		c->family = t->k.family;
		memcpy(c->dst, t->k.dst, 16);
		rt_job_group_key(rt_snapshot_job(s, t), a->group, t->pid, t->comm, c->key, sizeof(c->key));
		c->cnp = v->cnp;
	}
	return 0;
}

int rt_jobagg_add(struct rt_jobagg *a, const struct rt_snapshot *s, const struct rt_flow *f,
		  const struct rt_flow_val *v)
{
	const struct rt_job *j = rt_snapshot_job(s, f);
	char key[RT_JOB_KEY_LEN] = { 0 };
	size_t cap = a->t.cap;
	struct rt_jobsum *g;
	int fresh;

	rt_job_group_key(j, a->group, f->pid, f->comm, key, sizeof(key));
	g = rt_htab_get(&a->t, key, rt_job_key_hash(key), &fresh);
	if (!g)
		return -ENOMEM;
	if (fresh) {
		g->kind = j ? j->kind : RT_JOB_NONE;
		g->id = a->nids++;
		if (byid_sum(a, g, cap))
			return -ENOMEM;
	}
	if (blame_add(a, s, f, v, g->id))
		return -ENOMEM;
	a->last = g;
	g->flows++;
	g->pkts += v->pkts;
	g->bytes += v->bytes;
	g->ce += v->ecn[RT_ECN_CE];
	g->cnp += v->cnp;
	g->nak += rt_nak(v);
	g->rnr += v->rnr_nak;
	/* "-" folds flows of no job (or of another kind): their ranks mean nothing together */
	return strcmp(key, "-") ? add_rank(g, j ? j->rank : -1) : 0;
}

static int by_weight(const void *x, const void *y)
{
	const struct rt_jobsum *a = *(const struct rt_jobsum *const *)x;
	const struct rt_jobsum *b = *(const struct rt_jobsum *const *)y;

	if (a->ce != b->ce)
		return a->ce < b->ce ? 1 : -1;
	if (a->cnp != b->cnp)
		return a->cnp < b->cnp ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->key, b->key);
}

static int pts_same_point(const struct rt_blame_pt *a, const struct rt_blame_pt *b)
{
	return a->family == b->family && !memcmp(a->dst, b->dst, 16);
}

static int pt_cmp(const void *x, const void *y)
{
	const struct rt_blame_pt *a = x, *b = y;
	int c = memcmp(a, b, offsetof(struct rt_blame_pt, id));

	return c ? c : RT_SPACESHIP(a->id, b->id);
}

/* The ties' CNPs as points of the sums they name (none: RT_BLAME_NONE). */
static int ties_resolve(struct rt_jobagg *a)
{
	for (size_t i = 0; i < a->nties; i++) {
		const struct rt_blame_tie *c = &a->ties[i];
		const struct rt_jobsum *g = rt_htab_find(&a->t, c->key, rt_job_key_hash(c->key));
		struct rt_blame_pt *p = rt_append((void **)&a->pts, &a->npts, &a->pts_cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		p->family = c->family;
		memcpy(p->dst, c->dst, 16);
		p->id = g ? g->id : RT_BLAME_NONE;
		p->cnp = c->cnp;
	}
	a->nties = 0;
	return 0;
}

/* One point's parts pts[0..n) (sorted by id): M(p) and each sum's blame. */
static void blame_point(struct rt_jobagg *a, const struct rt_blame_pt *pts, size_t n)
{
	__u64 load = 0, ce = 0, cnp = 0, m;
	__u32 nic = 1;
	size_t i, j;

	for (i = 0; i < n; i++)
		nic &= pts[i].nic;	/* any wire part: the NIC's left out */
	for (i = 0; i < n; i++)
		if (pts[i].nic == nic)
			load += pts[i].data, ce += pts[i].ce, cnp += pts[i].cnp;
	m = ce ? ce : cnp;
	if (!load || !m)
		return;
	a->marks += (double)m;
	for (i = 0; i < n; i = j) {
		__u64 lj = 0, mj = 0;
		double share;
		struct rt_jobsum *g;

		for (j = i; j < n && pts[j].id == pts[i].id; j++)
			if (pts[j].nic == nic)
				lj += pts[j].data, mj += ce ? pts[j].ce : pts[j].cnp;
		if (pts[i].id == RT_BLAME_NONE || pts[i].id >= a->nids || !(g = a->byid[pts[i].id]))
			continue;
		share = (double)lj / (double)load;
		g->culprit += (double)m * share;
		g->victim += (double)mj * (1 - share);
		g->got += (double)mj;
	}
}

int rt_jobagg_close(struct rt_jobagg *a)
{
	size_t i, j;

	if (ties_resolve(a))
		return -ENOMEM;
	if (!a->npts)
		return 0;
	if (a->byid_stale) {
		if (rt_grow_to((void **)&a->byid, &a->byid_cap, a->nids ? a->nids : 1, sizeof(*a->byid)))
			return -ENOMEM;
		memset(a->byid, 0, a->nids * sizeof(*a->byid));
		for (i = 0; i < a->t.cap; i++)
			if (a->t.used[i]) {
				struct rt_jobsum *g = rt_htab_at(&a->t, i);

				if (g->id < a->nids)
					a->byid[g->id] = g;
			}
		a->byid_stale = 0;
	}
	qsort(a->pts, a->npts, sizeof(*a->pts), pt_cmp);
	for (i = 0; i < a->npts; i = j) {
		for (j = i + 1; j < a->npts && pts_same_point(&a->pts[i], &a->pts[j]); j++)
			;
		blame_point(a, a->pts + i, j - i);
	}
	a->npts = 0;
	return 0;
}

double rt_jobsum_culprit(const struct rt_jobagg *a, const struct rt_jobsum *g)
{
	return a->marks > 0 ? g->culprit / a->marks : NAN;
}

double rt_jobsum_victim(const struct rt_jobsum *g)
{
	return g->got > 0 ? g->victim / g->got : NAN;
}

size_t rt_jobagg_sorted(struct rt_jobagg *a)
{
	size_t n = 0;

	if (rt_jobagg_close(a))
		return 0;

	if (rt_grow_to((void **)&a->order, &a->order_cap, a->t.n ? a->t.n : 1, sizeof(*a->order)))
		return 0;
	for (size_t i = 0; i < a->t.cap; i++)
		if (a->t.used[i])
			a->order[n++] = rt_htab_at(&a->t, i);
	qsort(a->order, n, sizeof(*a->order), by_weight);
	return n;
}

int rt_jobagg_merge(struct rt_jobagg *dst, const struct rt_jobagg *src)
{
	if (rt_jobagg_close(dst))
		return -ENOMEM;
	dst->marks += src->marks;	/* src's own open interval: its caller closes it */
	for (size_t i = 0; i < src->t.cap; i++) {
		const struct rt_jobsum *g = rt_htab_at(&src->t, i);
		size_t cap = dst->t.cap;
		struct rt_jobsum *o;
		int fresh;

		if (!src->t.used[i])
			continue;
		if (!(o = rt_htab_get(&dst->t, g->key, rt_job_key_hash(g->key), &fresh)))
			return -ENOMEM;
		if (fresh) {
			o->kind = g->kind;
			o->id = dst->nids++;
			if (byid_sum(dst, o, cap))
				return -ENOMEM;
		}
		o->culprit += g->culprit, o->victim += g->victim, o->got += g->got;
		o->flows += g->flows, o->pkts += g->pkts, o->bytes += g->bytes, o->ce += g->ce;
		o->cnp += g->cnp, o->nak += g->nak, o->rnr += g->rnr, o->ranks_over += g->ranks_over;
		if (g->paused > o->paused)
			o->paused = g->paused;
		for (size_t k = 0; k < g->nranks; k++)
			if (add_rank(o, g->ranks[k]))
				return -ENOMEM;
	}
	return 0;
}

int rt_jobagg_any(const struct rt_jobagg *a)
{
	for (size_t i = 0; i < a->t.cap; i++)
		if (a->t.used[i] && strcmp(((const struct rt_jobsum *)rt_htab_at(&a->t, i))->key, "-"))
			return 1;
	return 0;
}
