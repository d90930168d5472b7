// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pure parts of the live view (tui_model.h), apart from ncurses: here the
 * view's copy of the data, taken from each snapshot and delta, and the
 * refresh interval's steps; tui_hist.c the per-flow histories, tui_rows.c the
 * columns, filter and rows, tui_sort.c their order, tui_cells.c cells and
 * layout, tui_panels.c the header's and detail's arithmetic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"

void tui_data_init(struct tui_data *t)
{
	memset(t, 0, sizeof(*t));
	rt_snapshot_init(&t->snap);
}

void tui_data_free(struct tui_data *t)
{
	rt_snapshot_free(&t->snap);
	rt_delta_free(&t->iv);
	rt_delta_free(&t->since);
	tui_hists_free(&t->hists);
	free(t->from);
	free(t->ivd);
	free(t->ivr);
	free(t->ivix);
}

/* Where key k is among fl[from..n) (in key order), or n: galloping from
 * `from`, so a walk over keys in order costs O(log gap) a key. */
static size_t find_from(const struct rt_flow *fl, size_t n, size_t from, const struct rt_flow_key *k)
{
	size_t lo = from, hi = from, step = 1;

	if (from < n && !rt_flow_key_cmp(&fl[from].k, k))	/* the next one: every flow changed */
		return from;
	while (hi < n && rt_flow_key_cmp(&fl[hi].k, k) < 0) {
		lo = hi + 1;
		hi = from + step;
		step *= 2;
	}
	hi = hi < n ? hi + 1 : n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt_flow_key_cmp(&fl[mid].k, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !rt_flow_key_cmp(&fl[lo].k, k) ? lo : n;
}

/* The counters of v added to (sign 1) or taken from (sign -1) sum, modulo
 * 2^64 as the sums themselves are. */
static void val_count(struct rt_flow_val *sum, const struct rt_flow_val *v, int sign)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;

	for (size_t i = 0; i < offsetof(struct rt_flow_val, first_ns) / 8; i++)
		o[i] += sign > 0 ? a[i] : -a[i];
}

/* Totals over flows keep counters only: the view shows no first or last
 * time of a total, and those could not follow the flows that changed. */
static void tot_counters(struct rt_flow_val *v)
{
	struct rt_flow_val c = { 0 };

	val_count(&c, v, 1);
	*v = c;
}

/*
 * The snapshot has the same flows as the view's copy, only d's changed:
 * their places in the copy (key order) into t->from. 1: so; 0: not so (a
 * flow came or went, or the last snapshot was not taken this way), nothing
 * changed; -ENOMEM.
 */
static int take_plan(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t n = t->snap.nflows, at = 0;

	if (!cur->tab || !t->table_ok || cur->nflows != n || t->nivix != n ||
	    t->hists.n != n || cur->time_ns / 1e9 < t->hists.last_t)
		return 0;
	if (rt_grow_to((void **)&t->from, &t->from_cap, d->nflows ? d->nflows : 1, sizeof(*t->from)))
		return -ENOMEM;
	for (size_t i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		size_t r = find_from(t->snap.flows, n, at, &f->k);

		if (r == n)	/* a new flow (and then one went) */
			return 0;
		t->from[i] = (__u32)r;
		at = r + 1;
		/* a CNP flow's data flow by its place in the copy */
		if (f->throttles >= 0 && (size_t)f->throttles < n &&
		    find_from(t->snap.flows, n, 0, &cur->flows[f->throttles].k) == n)
			return 0;
	}
	return 1;
}

void tui_flow_d(const struct tui_data *t, int totals, size_t i, struct rt_flow_val *out)
{
	const struct rt_flow *f = &t->snap.flows[i];

	if (totals)	/* as rt_delta_compute from nothing: the counters themselves */
		*out = f->v;
	else if (i < t->nivix && t->ivix[i] == TUI_IVIX_OWN)
		*out = f->v;	/* counted from nothing in the interval (a new flow) */
	else if (i < t->nivix && t->ivix[i])
		*out = t->ivd[t->ivix[i] - 1].d;
	else {		/* as rt_delta_expand: the counters 0 (v - v), the rest the flow's */
		*out = f->v;
		memset(out, 0, offsetof(struct rt_flow_val, first_ns));
	}
}

/* The interval's changed flows (d's, in key order) at places at[i] of the
 * copy (at NULL: d's entries are the copy's flows in order). */
static int set_changed(struct tui_data *t, const struct rt_delta *d, const __u32 *at)
{
	size_t n = t->snap.nflows;

	size_t nd = 0;

	for (size_t i = 0; i < t->nivr; i++)	/* the last interval's: zero again */
		t->ivix[t->ivr[i]] = 0;
	t->nivd = t->nivr = 0;
	for (size_t i = 0; i < d->nflows; i++)	/* those counted from something */
		nd += memcmp(&d->flows[i].d, &d->flows[i].f->v, offsetof(struct rt_flow_val, first_ns)) != 0;
	if (rt_grow_to((void **)&t->ivd, &t->ivd_cap, nd ? nd : 1, sizeof(*t->ivd)) ||
	    rt_grow_to((void **)&t->ivr, &t->ivr_cap, d->nflows ? d->nflows : 1, sizeof(*t->ivr)))
		return -ENOMEM;
	for (size_t i = 0; i < d->nflows; i++) {
		size_t r = at ? at[i] : i;

		if (r >= n)
			continue;
		t->ivr[t->nivr++] = (__u32)r;
		/* a delta equal to the flow's own counters (its other fields are
		 * the flow's too, rt_flow_val_delta) is not copied: the first
		 * interval's flows, all new, cost no copy of their counts */
		if (!memcmp(&d->flows[i].d, &d->flows[i].f->v, offsetof(struct rt_flow_val, first_ns))) {
			t->ivix[r] = TUI_IVIX_OWN;
		} else {
			t->ivd[t->nivd] = d->flows[i];
			t->ivd[t->nivd].f = &t->snap.flows[r];
			t->ivix[r] = (__u32)++t->nivd;
		}
		if (tui_hists_push(&t->hists, r, &d->flows[i].d))
			return -ENOMEM;
	}
	t->iv.flow_tot = d->flow_tot;
	t->iv.est_tot = d->est_tot;
	return 0;
}

/* The fast way (take_plan said so): O(k log(N / k)) for k changed flows. */
static int take_changed(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t n = t->snap.nflows, i;

	if (rt_snapshot_copy_small(&t->snap, cur))
		return -ENOMEM;
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		struct rt_flow *o = &t->snap.flows[t->from[i]];

		val_count(o->estimate ? &t->sest : &t->stot, &o->v, -1);
		val_count(f->estimate ? &t->sest : &t->stot, &f->v, 1);
		t->nowned += (f->comm[0] != 0) - (o->comm[0] != 0);	/* keys stay: v6, mirror too */
		*o = *f;
		if (o->throttles >= 0 && (size_t)o->throttles < n)
			o->throttles = (__s32)find_from(t->snap.flows, n, 0, &cur->flows[o->throttles].k);
	}
	return set_changed(t, d, t->from);
}

/* The whole way: a sorted copy, the histories carried over, O(N). */
static int take_all(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	const __u32 *ko = NULL;
	size_t i, j, n = cur->nflows;

	/* The histories follow their flows from the last snapshot (in key
	 * order) to cur's (in key order: the table's kept order). */
	if (cur->tab && n && !(ko = rt_snapshot_key_order(cur)))
		return -ENOMEM;
	if (rt_grow_to((void **)&t->from, &t->from_cap, n ? n : 1, sizeof(*t->from)))
		return -ENOMEM;
	for (i = j = 0; i < n; i++) {
		const struct rt_flow_key *k = &cur->flows[ko ? ko[i] : i].k;
		int r = 1;

		while (j < t->snap.nflows && (r = rt_flow_key_cmp(&t->snap.flows[j].k, k)) < 0)
			j++;
		t->from[i] = j < t->snap.nflows && r == 0 ? (__u32)++j : 0;
	}
	if (tui_hists_remap(&t->hists, n, t->from))
		return -ENOMEM;

	/* The view shows every flow: a copy in key order. */
	t->table_ok = 0;
	t->nivd = t->nivr = 0;
	if ((cur->tab ? rt_snapshot_copy_sorted(&t->snap, cur) : rt_snapshot_copy(&t->snap, cur)) ||
	    rt_grow_to((void **)&t->ivix, &t->ivix_cap, n ? n : 1, sizeof(*t->ivix)))
		return -ENOMEM;
	memset(t->ivix, 0, (n ? n : 1) * sizeof(*t->ivix));
	t->nivix = n;
	if (cur->tab) {	/* d's flows are rows of cur: their places in key order */
		for (i = 0; i < d->nflows; i++) {
			size_t row = (size_t)(d->flows[i].f - cur->flows);

			t->from[i] = row < n ? cur->tab->kpos[row] : (__u32)n;
		}
	}
	if (set_changed(t, d, cur->tab ? t->from : NULL))
		return -ENOMEM;
	memset(&t->stot, 0, sizeof(t->stot));
	memset(&t->sest, 0, sizeof(t->sest));
	t->nv6 = t->nowned = t->nmirror = 0;
	t->one_if = 1;
	for (i = 0; i < n; i++) {
		const struct rt_flow *f = &t->snap.flows[i];

		t->one_if &= f->k.ifindex == t->snap.flows[0].k.ifindex &&
			     f->k.origin == t->snap.flows[0].k.origin;

		val_count(f->estimate ? &t->sest : &t->stot, &f->v, 1);
		t->nv6 += f->k.family == 6;
		t->nowned += f->comm[0] != 0;
		t->nmirror += f->k.mirror != 0;
	}
	t->table_ok = cur->tab != NULL;
	return 0;
}

int tui_data_take(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_delta *iv = &t->iv;
	size_t i;
	int r = t->no_fast ? 0 : take_plan(t, cur, d);

	if (r < 0)
		return r;
	tui_hists_interval(&t->hists, cur->time_ns / 1e9, d->secs);
	t->nfast += r;
	r = r ? take_changed(t, cur, d) : take_all(t, cur, d);
	if (r) {
		t->table_ok = 0;	/* the next one the whole way */
		return r;
	}
	tot_counters(&iv->flow_tot);
	tot_counters(&iv->est_tot);
	{	/* since the start: the small tables from nothing; the flows'
		 * counts are the flows' own (tui_flow_d), their sums kept */
		struct rt_snapshot sm = t->snap;

		sm.nflows = 0;
		sm.tab = NULL;
		if (rt_delta_compute(&t->since, NULL, &sm))
			return -ENOMEM;
		t->since.flow_tot = t->stot;
		t->since.est_tot = t->sest;
	}
	if (rt_delta_reserve(iv, d->nifs, d->nports, d->nswports, d->nswdrops, d->nsfagents))
		return -ENOMEM;
	for (i = 0; i < d->nifs && i < t->snap.nifs; i++) {
		iv->ifs[i].s = &t->snap.ifs[i];
		iv->ifs[i].d = d->ifs[i].d;
	}
	iv->nifs = i;
	for (i = 0; i < d->nports && i < t->snap.nports; i++) {
		iv->ports[i].c = &t->snap.ports[i];
		iv->ports[i].d = d->ports[i].d;
	}
	iv->nports = i;
	/* sFlow's tables, the same way */
	for (i = 0; i < d->nswports && i < t->snap.nswports; i++) {
		iv->swports[i] = d->swports[i];
		iv->swports[i].p = &t->snap.swports[i];
	}
	iv->nswports = i;
	for (i = 0; i < d->nswdrops && i < t->snap.nswdrops; i++) {
		iv->swdrops[i] = d->swdrops[i];
		iv->swdrops[i].p = &t->snap.swdrops[i];
	}
	iv->nswdrops = i;
	for (i = 0; i < d->nsfagents && i < t->snap.nsfagents; i++) {
		iv->sfagents[i] = d->sfagents[i];
		iv->sfagents[i].a = &t->snap.sfagents[i];
	}
	iv->nsfagents = i;
	iv->secs = d->secs;
	iv->if_tot = d->if_tot;
	iv->evicted = d->evicted;
	if (!t->nsnaps++ || t->snap.time_ns < t->first_time_ns)
		t->first_time_ns = t->snap.time_ns;
	tui_hists_done(&t->hists);
	return 0;
}

double tui_interval_step(double cur, int up)
{
	static const double ladder[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 };
	const int n = sizeof(ladder) / sizeof(ladder[0]);
	int i;

	if (up) {
		for (i = 0; i < n; i++)
			if (ladder[i] > cur + 1e-9)
				return ladder[i];
		return ladder[n - 1];
	}
	for (i = n - 1; i >= 0; i--)
		if (ladder[i] < cur - 1e-9)
			return ladder[i];
	return ladder[0];
}
