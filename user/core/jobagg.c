// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flows folded by job, pod, unit or process (jobagg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "jobagg.h"

void rt_jobagg_init(struct rt_jobagg *a, int group)
{
	memset(a, 0, sizeof(*a));
	a->group = group;
	rt_htab_init(&a->t, sizeof(struct rt_jobsum), RT_JOB_KEY_LEN, 0);
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
}

void rt_jobagg_free(struct rt_jobagg *a)
{
	free_ranks(a);
	rt_htab_free(&a->t);
	free(a->order);
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

int rt_jobagg_add(struct rt_jobagg *a, const struct rt_snapshot *s, const struct rt_flow *f,
		  const struct rt_flow_val *v)
{
	const struct rt_job *j = rt_snapshot_job(s, f);
	char key[RT_JOB_KEY_LEN] = { 0 };
	struct rt_jobsum *g;
	int fresh;

	rt_job_group_key(j, a->group, f->pid, f->comm, key, sizeof(key));
	g = rt_htab_get(&a->t, key, rt_hash_bytes(key, sizeof(key)), &fresh);
	if (!g)
		return -ENOMEM;
	if (fresh)
		g->kind = j ? j->kind : RT_JOB_NONE;
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

size_t rt_jobagg_sorted(struct rt_jobagg *a)
{
	size_t n = 0;

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
	for (size_t i = 0; i < src->t.cap; i++) {
		const struct rt_jobsum *g = rt_htab_at(&src->t, i);
		struct rt_jobsum *o;
		int fresh;

		if (!src->t.used[i])
			continue;
		if (!(o = rt_htab_get(&dst->t, g->key, rt_hash_bytes(g->key, sizeof(g->key)), &fresh)))
			return -ENOMEM;
		if (fresh)
			o->kind = g->kind;
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
