// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's life: made, cleared, moved to the next interval, copied and
 * sorted. Its tables' own jobs are in snapshot_*.c (snapshot_int.h lists them). */
#include <errno.h>
#include <stdarg.h>
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

/* like table_free above and findings.c's, snapshot_delta.c's, report_viz.c's frees: each its own arrays */
void rt_snapshot_free(struct rt_snapshot *s)
{
	free(s->flows);
	free(s->ifs);
	free(s->ports);
	free(s->swports);
	free(s->swdrops);
	free(s->sfagents);
	free(s->jobs);
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
	s->nflows = s->nifs = s->nports = s->nifaces = s->nnotes = 0;
	s->nswports = s->nswdrops = s->nsfagents = s->njobs = 0;
	s->time_ns = s->mono_ns = s->evicted = 0;
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
	int err;

	if (dst->tab) {	/* a table is only ever filled through its own calls */
		rt_snapshot_clear(dst);
		return rt_snapshot_apply(dst, src, 1);
	}
	err = rt_grow_to((void **)&mem.flows, &mem.flows_cap, src->nflows, sizeof(*mem.flows));
	if (!err)
		err = rt_grow_to((void **)&mem.ifs, &mem.ifs_cap, src->nifs, sizeof(*mem.ifs));
	if (!err)
		err = rt_grow_to((void **)&mem.ports, &mem.ports_cap, src->nports, sizeof(*mem.ports));
	if (!err)
		err = rt_grow_to((void **)&mem.swports, &mem.swports_cap, src->nswports, sizeof(*mem.swports));
	if (!err)
		err = rt_grow_to((void **)&mem.swdrops, &mem.swdrops_cap, src->nswdrops, sizeof(*mem.swdrops));
	if (!err)
		err = rt_grow_to((void **)&mem.sfagents, &mem.sfagents_cap, src->nsfagents,
				 sizeof(*mem.sfagents));
	if (!err)
		err = rt_grow_to((void **)&mem.jobs, &mem.jobs_cap, src->njobs, sizeof(*mem.jobs));
	if (!err)
		*dst = *src;
	dst->jobs = mem.jobs;
	dst->jobs_cap = mem.jobs_cap;
	dst->swports = mem.swports;
	dst->swports_cap = mem.swports_cap;
	dst->swdrops = mem.swdrops;
	dst->swdrops_cap = mem.swdrops_cap;
	dst->sfagents = mem.sfagents;
	dst->sfagents_cap = mem.sfagents_cap;
	dst->flows = mem.flows;
	dst->flows_cap = mem.flows_cap;
	dst->ifs = mem.ifs;
	dst->ifs_cap = mem.ifs_cap;
	dst->ports = mem.ports;
	dst->ports_cap = mem.ports_cap;
	dst->tab = NULL;
	if (err)
		return err;
	if (src->nflows)
		memcpy(dst->flows, src->flows, src->nflows * sizeof(*dst->flows));
	if (src->nifs)
		memcpy(dst->ifs, src->ifs, src->nifs * sizeof(*dst->ifs));
	if (src->nports)
		memcpy(dst->ports, src->ports, src->nports * sizeof(*dst->ports));
	if (src->nswports)
		memcpy(dst->swports, src->swports, src->nswports * sizeof(*dst->swports));
	if (src->nswdrops)
		memcpy(dst->swdrops, src->swdrops, src->nswdrops * sizeof(*dst->swdrops));
	if (src->nsfagents)
		memcpy(dst->sfagents, src->sfagents, src->nsfagents * sizeof(*dst->sfagents));
	if (src->njobs)
		memcpy(dst->jobs, src->jobs, src->njobs * sizeof(*dst->jobs));
	return 0;
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
