// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's life: made, cleared, moved to the next interval, copied and
 * sorted. Its tables' own jobs are in snapshot_*.c (snapshot_int.h lists them). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"

void rt_snapshot_init(struct rt_snapshot *s)
{
	memset(s, 0, sizeof(*s));
}

static void table_free(struct rt_flow_table *t)
{
	if (!t)
		return;
	free(t->slot);
	free(t->hot);
	free(t->st);
	free(t->ap);
	free(t->changed);
	free(t->cd);
	free(t->cnp);
	free(t->pslot);
	free(t->jq);
	free(t->sk);
	free(t->korder);
	free(t->knew);
	free(t->kpos);
	free(t->gend);
	free(t->pos);
	free(t);
}

/* A snapshot's arrays, each with its count and room: what rt_snapshot_free
 * frees and rt_snapshot_copy grows, hands back to their owner and fills. */
#define ARR(a) { offsetof(struct rt_snapshot, a), offsetof(struct rt_snapshot, n##a), \
		 offsetof(struct rt_snapshot, a##_cap), sizeof(*((struct rt_snapshot *)0)->a) }
static const struct snap_arr {
	size_t arr, n, cap, size;
} snap_arrs[] = {
	ARR(flows), ARR(ifs), ARR(ports), ARR(swports), ARR(swdrops), ARR(sfagents), ARR(jobs), ARR(probes),
};
#undef ARR

#define AT(s, off, type) ((type *)((char *)(s) + (off)))
#define FOR_ARR(a) for (a = snap_arrs; a < snap_arrs + sizeof(snap_arrs) / sizeof(*a); a++)

void rt_snapshot_free(struct rt_snapshot *s)
{
	const struct snap_arr *a;

	FOR_ARR(a)
		free(*AT(s, a->arr, void *));
	table_free(s->tab);
	rt_snapshot_init(s);
}

static void table_empty(struct rt_flow_table *t)
{
	if (t->slot)
		memset(t->slot, 0, t->nslot * sizeof(*t->slot));
	if (t->pslot)
		memset(t->pslot, 0, t->npslot * sizeof(*t->pslot));
	t->npairs = 0;
	t->njq = 0;
	t->nchanged = t->ncnp = 0;
	t->delta_taken = 0;
	t->lru_head = t->lru_tail = 0;
	t->gen++;
	t->ko_valid = 0;
	t->nkorder = t->nknew = t->ndead = 0;
	t->marked = 0;
}

void rt_snapshot_clear(struct rt_snapshot *s)
{
	s->nflows = s->nifs = s->nports = s->nifaces = s->nnotes = s->ncfgs = 0;
	s->nswports = s->nswdrops = s->nsfagents = s->njobs = s->nprobes = 0;
	s->time_ns = s->mono_ns = s->evicted = s->interval_ns = 0;
	s->source[0] = '\0';
	if (s->tab)
		table_empty(s->tab);
}

int rt_snapshot_make_table(struct rt_snapshot *s)
{
	if (!s->tab) {
		s->tab = calloc(1, sizeof(*s->tab));
		if (!s->tab)
			return -ENOMEM;
		s->tab->gen = 1;
		s->tab->spread = 2;
	}
	rt_snapshot_clear(s);
	return 0;
}

/* The bounds of last_ns over the rows touched in this interval (all on the
 * changed list), for rt_snapshot_expire (struct rt_gend). */
static void gen_close(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	__u64 lo = ~0ULL, hi = 0;

	for (size_t i = 0; i < t->nchanged; i++) {
		/* after rt_delta_changes the changed list holds its permutation:
		 * the rows are then the delta's */
		__u64 x = t->delta_taken ? t->cd[i].f->v.last_ns : s->flows[t->changed[i]].v.last_ns;

		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	t->gend[t->gen & (RT_GEND - 1)] = (struct rt_gend){ .tag = t->gen, .lo = lo, .hi = hi };
}

void rt_snapshot_next_interval(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t n = s->nflows;

	/* Everything rt_snapshot_clear() empties, but the flows. */
	s->tab = NULL;
	rt_snapshot_clear(s);
	s->tab = t;
	s->nflows = n;
	if (t) {
		if (t->gend)
			gen_close(s);
		t->nchanged = 0;
		t->delta_taken = 0;
		if (!++t->gen)	/* 0 would match rows never touched */
			t->gen = 1;
	}
}

int rt_snapshot_copy_small(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	struct rt_snapshot tmp = *src;
	struct rt_flow_table *t = dst->tab;
	struct rt_flow *flows = dst->flows;
	size_t n = dst->nflows, cap = dst->flows_cap;
	int err;

	tmp.nflows = 0;
	tmp.tab = NULL;
	dst->tab = NULL;
	err = rt_snapshot_copy(dst, &tmp);
	dst->tab = t;
	dst->flows = flows;
	dst->nflows = n;
	dst->flows_cap = cap;
	return err;
}

struct rt_flow *rt_snapshot_add_flow(struct rt_snapshot *s)
{
	struct rt_flow *f = rt_append((void **)&s->flows, &s->nflows, &s->flows_cap, sizeof(*f));

	if (f)
		f->throttles = -1;
	return f;
}

struct rt_job *rt_snapshot_add_job(struct rt_snapshot *s)
{
	struct rt_job *j = rt_append((void **)&s->jobs, &s->njobs, &s->jobs_cap, sizeof(*j));

	if (j)
		j->rank = j->size = j->local_rank = -1;
	return j;
}

struct rt_probe_row *rt_snapshot_add_probe(struct rt_snapshot *s)
{
	struct rt_probe_row *p = rt_append((void **)&s->probes, &s->nprobes, &s->probes_cap, sizeof(*p));

	if (p)
		p->rtt_p50_us = p->rtt_p99_us = p->net_p50_us = p->resp_p50_us = -1;
	return p;
}

void rt_snapshot_note(struct rt_snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nnotes == RT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
}


int rt_snapshot_copy(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	struct rt_snapshot mem = *dst;	/* dst's arrays, grown to fit src */
	const struct snap_arr *a;
	int err = 0;

	if (dst->tab) {	/* a table is only ever filled through its own calls */
		rt_snapshot_clear(dst);
		return rt_snapshot_apply(dst, src, 1);
	}
	FOR_ARR(a)
		if (!err)
			err = rt_grow_to(AT(&mem, a->arr, void *), AT(&mem, a->cap, size_t),
					 *AT(src, a->n, const size_t), a->size);
	if (!err)
		*dst = *src;
	dst->tab = NULL;
	FOR_ARR(a) {
		*AT(dst, a->arr, void *) = *AT(&mem, a->arr, void *);
		*AT(dst, a->cap, size_t) = *AT(&mem, a->cap, size_t);
		if (!err && *AT(src, a->n, const size_t))
			memcpy(*AT(dst, a->arr, void *), *AT(src, a->arr, void *const),
			       *AT(src, a->n, const size_t) * a->size);
	}
	return err;
}

int rt_flow_key_cmp(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	return memcmp(a, b, sizeof(*a));
}

static int flow_cmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(&((const struct rt_flow *)a)->k, &((const struct rt_flow *)b)->k);
}

static int ifdir_cmp(const void *a, const void *b)
{
	const struct rt_if_key *x = &((const struct rt_ifdir *)a)->k;
	const struct rt_if_key *y = &((const struct rt_ifdir *)b)->k;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return (int)x->dir - (int)y->dir;
}

static int port_qcmp(const void *a, const void *b)
{
	return rt_port_ctr_cmp(a, b);
}

void rt_snapshot_sort(struct rt_snapshot *s)
{
	if (s->nflows > 1 && !s->tab)
		qsort(s->flows, s->nflows, sizeof(*s->flows), flow_cmp);
	if (s->nifs > 1)
		qsort(s->ifs, s->nifs, sizeof(*s->ifs), ifdir_cmp);
	if (s->nports > 1)
		qsort(s->ports, s->nports, sizeof(*s->ports), port_qcmp);
}
