// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Deltas: counters between two snapshots (wraps and resets), whole or from
 * a table's changed rows. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"
#include "snapshot_int.h"

__u64 rt_ctr_delta(__u64 prev, __u64 cur, unsigned int bits)
{
	__u64 wrapped;

	if (cur >= prev)
		return cur - prev;
	/* Went down: a wrap of a 32-bit counter or a reset (driver reload, table
	 * flush), by the rule man/rocetop.8 states under NIC COUNTERS. A value
	 * above 32 bits cannot have wrapped at 32 bits. */
	if (bits == 64 || prev > 0xffffffffULL)
		return cur;
	wrapped = (0x100000000ULL - prev) + cur;
	if (bits == RT_BITS_32)
		return wrapped;
	/* Width unknown: a wrap when it was in the upper half and the wrapped
	 * increase is plausible (at most 2^31); a reset otherwise. */
	if (prev >= 0x80000000ULL && wrapped <= 0x80000000ULL)
		return wrapped;
	return cur;
}

/* rt_ctr_delta(prev, cur, RT_BITS_64), inline: going down is a reset. */
static inline __u64 ctr_delta64(__u64 prev, __u64 cur)
{
	return cur >= prev ? cur - prev : cur;
}

/* rt_flow_val_delta, inline for the per-row loops of rt_delta_changes:
 * the counters' increases, then the last-seen attributes copied from cur.
 * d may be prev (a changed row's counters turned into their increase in
 * place, no copy of them made first): each counter is read before its own
 * slot is written. */
static inline void flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
				  const struct rt_flow_val *cur)
{
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;
	size_t ncnt = offsetof(struct rt_flow_val, first_ns) / 8;

#pragma GCC unroll 16
	for (size_t i = 0; i < ncnt; i++)
		o[i] = ctr_delta64(p[i], c[i]);
	__builtin_memcpy(o + ncnt, c + ncnt, sizeof(*d) - ncnt * 8);
}

void rt_flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
		       const struct rt_flow_val *cur)
{
	flow_val_delta(d, prev, cur);
}

void rt_if_val_delta(struct rt_if_val *d, const struct rt_if_val *prev, const struct rt_if_val *cur)
{
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;

	FOR_EACH_U64(struct rt_if_val, i)
		o[i] = rt_ctr_delta(p[i], c[i], 64);
}

static inline void flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;
	size_t ncnt = offsetof(struct rt_flow_val, first_ns) / 8;

#pragma GCC unroll 16	/* a known count: straight code, no loop, per changed row */
	for (size_t i = 0; i < ncnt; i++)
		o[i] += a[i];
	if (v->pkts && (!sum->first_ns || v->first_ns < sum->first_ns))
		sum->first_ns = v->first_ns;
	if (v->last_ns > sum->last_ns)
		sum->last_ns = v->last_ns;
}

void rt_flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v)
{
	flow_val_add(sum, v);
}

void rt_if_val_add(struct rt_if_val *sum, const struct rt_if_val *v)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;

	FOR_EACH_U64(struct rt_if_val, i)
		o[i] += a[i];
}

/* ifdirs and ports of cur against prev (NULL: everything since the start). */
int rt_delta_reserve(struct rt_delta *d, size_t nifs, size_t nports, size_t nswports, size_t nswdrops,
		     size_t nsfagents)
{
	if (rt_grow_to((void **)&d->ifs, &d->ifs_cap, nifs, sizeof(*d->ifs)) ||
	    rt_grow_to((void **)&d->ports, &d->ports_cap, nports, sizeof(*d->ports)) ||
	    rt_grow_to((void **)&d->swports, &d->swports_cap, nswports, sizeof(*d->swports)) ||
	    rt_grow_to((void **)&d->swdrops, &d->swdrops_cap, nswdrops, sizeof(*d->swdrops)) ||
	    rt_grow_to((void **)&d->sfagents, &d->sfagents_cap, nsfagents, sizeof(*d->sfagents)))
		return -ENOMEM;
	return 0;
}

static int small_delta(struct rt_delta *d, const struct rt_snapshot *prev,
		       const struct rt_snapshot *cur)
{
	static const struct rt_if_val zi;
	size_t i, j;

	if (rt_delta_reserve(d, cur->nifs, cur->nports, cur->nswports, cur->nswdrops, cur->nsfagents))
		return -ENOMEM;
	d->secs = prev && cur->time_ns > prev->time_ns ? (cur->time_ns - prev->time_ns) / 1e9 : 0;
	memset(&d->if_tot, 0, sizeof(d->if_tot));
	memset(&d->est_tot, 0, sizeof(d->est_tot));
	d->evicted = prev ? rt_ctr_delta(prev->evicted, cur->evicted, 64) : cur->evicted;

	for (i = 0; i < cur->nifs; i++) {
		const struct rt_if_val *pv = &zi;
		__u64 pev = 0;

		for (j = 0; prev && j < prev->nifs; j++)
			if (prev->ifs[j].k.ifindex == cur->ifs[i].k.ifindex &&
			    prev->ifs[j].k.dir == cur->ifs[i].k.dir) {
				pv = &prev->ifs[j].v;
				pev = prev->ifs[j].evicted;
				break;
			}
		d->ifs[i].s = &cur->ifs[i];
		rt_if_val_delta(&d->ifs[i].d, pv, &cur->ifs[i].v);
		d->ifs[i].evicted = rt_ctr_delta(pev, cur->ifs[i].evicted, 64);
		rt_if_val_add(&d->if_tot, &d->ifs[i].d);
	}
	d->nifs = cur->nifs;

	for (i = 0, j = 0; i < cur->nports; i++) {
		const struct rt_port_ctr *c = &cur->ports[i];
		int r = 1;

		while (prev && j < prev->nports && (r = rt_port_ctr_cmp(&prev->ports[j], c)) < 0)
			j++;
		d->ports[i].c = c;
		/* A counter seen for the first time has no interval to speak of. */
		d->ports[i].d = prev && j < prev->nports && r == 0 ?
			rt_ctr_delta(prev->ports[j].value, c->value, c->bits) : 0;
	}
	d->nports = cur->nports;
	sf_delta(d, prev, cur);
	return 0;
}

int rt_delta_compute(struct rt_delta *d, const struct rt_snapshot *prev,
		     const struct rt_snapshot *cur)
{
	static const struct rt_flow_val zf;
	size_t i, j;

	if (!d->flows_cap)	/* a table's (rt_delta_changes): not ours to grow */
		d->flows = NULL;
	if (rt_grow_to((void **)&d->flows, &d->flows_cap, cur->nflows, sizeof(*d->flows)) ||
	    small_delta(d, prev, cur))
		return -ENOMEM;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));

	/* Merge-join on the sorted keys; a flow new in cur counts from zero. */
	for (i = 0, j = 0; i < cur->nflows; i++) {
		const struct rt_flow *f = &cur->flows[i];
		const struct rt_flow_val *pv = &zf;
		__u64 psamples = 0;
		int r = 1;

		while (prev && j < prev->nflows &&
		       (r = rt_flow_key_cmp(&prev->flows[j].k, &f->k)) < 0)
			j++;
		if (prev && j < prev->nflows && r == 0) {
			pv = &prev->flows[j].v;
			psamples = prev->flows[j].samples;
		}
		d->flows[i].f = f;
		rt_flow_val_delta(&d->flows[i].d, pv, &f->v);
		d->flows[i].samples = rt_ctr_delta(psamples, f->samples, 64);
		rt_flow_val_add(f->estimate ? &d->est_tot : &d->flow_tot, &d->flows[i].d);
	}
	d->nflows = cur->nflows;
	return 0;
}

/* At least this many changed rows, and a quarter of the table or more: the
 * table's kept key order, walked whole, is cheaper than sorting them. */
#define RT_KEY_ORDER_WALK	1024

/*
 * Put a[] in the order perm[] gives (a[j] becomes what a[perm[j]] was), in
 * place, one cycle of the permutation at a time; perm is used up.
 */
static void permute(struct rt_flow_delta *a, __u32 *perm, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rt_flow_delta tmp;
		size_t j = i;

		if (perm[i] == i)
			continue;
		tmp = a[i];
		for (;;) {
			size_t k = perm[j];

			perm[j] = (__u32)j;
			if (k == i) {
				a[j] = tmp;
				break;
			}
			a[j] = a[k];
			j = k;
		}
	}
}

int rt_delta_changes(struct rt_delta *d, const struct rt_snapshot *prev, struct rt_snapshot *cur)
{
	struct rt_flow_table *t = cur->tab;
	const __u32 *order = NULL;
	__u32 *perm;
	size_t i, n = t->nchanged;

	if (small_delta(d, prev, cur))
		return -ENOMEM;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));
	/* Each changed row's delta, where its first touch left the old counters. */
	for (i = 0; i < n; i++) {
		struct rt_flow_delta *e = &t->cd[i];
		const struct rt_flow *f = &cur->flows[t->changed[i]];

		e->f = f;
		flow_val_delta(&e->d, &e->d, &f->v);
		e->samples = ctr_delta64(e->samples, f->samples);
		flow_val_add(f->estimate ? &d->est_tot : &d->flow_tot, &e->d);
	}
	/* Their places in key order, kept where the changed rows were (each
	 * is cd[i].f now: delta_taken says so to whatever reads the list
	 * before the next interval). */
	perm = t->changed;
	t->delta_taken = 1;
	if (n >= RT_KEY_ORDER_WALK && n * 4 >= cur->nflows)
		order = rt_snapshot_key_order(cur);
	if (order) {	/* the changed rows, met in key order */
		size_t j = 0;

		for (i = 0; i < cur->nflows && j < n; i++) {
			if (i + 16 < cur->nflows)
				__builtin_prefetch(&t->hot[order[i + 16]]);
			if (t->hot[order[i]].gen == t->gen)
				perm[j++] = t->hot[order[i]].cpos;
		}
		if (j != n)	/* cannot be: every changed row is in the order */
			order = NULL;
	}
	if (!order) {
		if (rt_grow_to((void **)&t->sk, &t->sk_cap, n, sizeof(*t->sk)))
			return -ENOMEM;
		/* Key order from the keys copied out as words: no row read per comparison. */
		for (i = 0; i < n; i++)
			rt_sortkey_make(&t->sk[i], &t->cd[i].f->k, i);
		rt_sortkeys_sort(t->sk, n);
		for (i = 0; i < n; i++)
			perm[i] = (__u32)t->sk[i].row;
	}
	permute(t->cd, perm, n);
	if (d->flows_cap)
		free(d->flows);
	d->flows = t->cd;
	d->flows_cap = 0;
	d->nflows = n;
	return 0;
}

int rt_delta_expand(struct rt_delta *full, const struct rt_delta *d, const struct rt_snapshot *all)
{
	size_t i, j = 0;

	if (rt_grow_to((void **)&full->flows, &full->flows_cap, all->nflows, sizeof(*full->flows)))
		return -ENOMEM;
	memset(&full->flow_tot, 0, sizeof(full->flow_tot));
	memset(&full->est_tot, 0, sizeof(full->est_tot));
	for (i = 0; i < all->nflows; i++) {
		const struct rt_flow *f = &all->flows[i];

		while (j < d->nflows && rt_flow_key_cmp(&d->flows[j].f->k, &f->k) < 0)
			j++;
		full->flows[i].f = f;
		if (j < d->nflows && !rt_flow_key_cmp(&d->flows[j].f->k, &f->k)) {
			full->flows[i].d = d->flows[j].d;
			full->flows[i].samples = d->flows[j].samples;
		} else {
			rt_flow_val_delta(&full->flows[i].d, &f->v, &f->v);
			full->flows[i].samples = 0;
		}
		rt_flow_val_add(f->estimate ? &full->est_tot : &full->flow_tot, &full->flows[i].d);
	}
	full->nflows = all->nflows;
	return 0;
}

/* the delta's own tables, freed as rt_snapshot_free frees the snapshot's */
void rt_delta_free(struct rt_delta *d)
{
	if (d->flows_cap)
		free(d->flows);
	free(d->ifs);
	free(d->ports);
	free(d->swports);
	free(d->swdrops);
	free(d->sfagents);
	memset(d, 0, sizeof(*d));
}
