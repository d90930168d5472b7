// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report's aggregation (report_agg.h): totals summed from the
 * per-interval deltas (so flows evicted in a live recording still count),
 * per flow, per interface and direction, per NIC counter, and the two
 * bounded tables of moments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "report_agg.h"

#define SPACESHIP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* ---- the moments: two bounded top-K selections ---- */

int rt_rep_moment_by_ce(const void *x, const void *y)
{
	const struct rt_rep_moment *a = x, *b = y;
	double ra = a->secs > 0 ? a->ce / a->secs : 0, rb = b->secs > 0 ? b->ce / b->secs : 0;
	int c = SPACESHIP(rb, ra);

	return c ? c : SPACESHIP(a->time_ns, b->time_ns);
}

int rt_rep_moment_by_pfc(const void *x, const void *y)
{
	const struct rt_rep_moment *a = x, *b = y;
	int c = SPACESHIP(b->pfc - b->xon, a->pfc - a->xon);

	if (!c)
		c = SPACESHIP(b->quanta, a->quanta);
	return c ? c : SPACESHIP(a->time_ns, b->time_ns);
}

/* Only these are ever printed: an interval with CE, one with pauses. */
static int has_ce(const struct rt_rep_moment *m) { return m->ce != 0; }
static int has_pause(const struct rt_rep_moment *m) { return m->pfc != m->xon || m->quanta; }

static int top_init(struct rt_rep_top *t, size_t k, int (*cmp)(const void *, const void *),
		    int (*qualifies)(const struct rt_rep_moment *))
{
	memset(t, 0, sizeof(*t));
	t->k = k;
	t->cmp = cmp;
	t->qualifies = qualifies;
	t->m = calloc(k, sizeof(*t->m));
	return t->m ? 0 : -ENOMEM;
}

/* The heap keeps the worst kept moment at the root: a parent ranks after
 * (cmp > 0) its children. */
static void sift_down(struct rt_rep_top *t, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		struct rt_rep_moment tmp;

		if (l < t->n && t->cmp(&t->m[l], &t->m[w]) > 0)
			w = l;
		if (r < t->n && t->cmp(&t->m[r], &t->m[w]) > 0)
			w = r;
		if (w == i)
			return;
		tmp = t->m[i];
		t->m[i] = t->m[w];
		t->m[w] = tmp;
		i = w;
	}
}

static void top_add(struct rt_rep_top *t, const struct rt_rep_moment *m)
{
	size_t i;

	if (!t->qualifies(m))
		return;
	if (t->n < t->k) {
		i = t->n++;
		t->m[i] = *m;
		while (i > 0 && t->cmp(&t->m[(i - 1) / 2], &t->m[i]) < 0) {
			struct rt_rep_moment tmp = t->m[i];

			t->m[i] = t->m[(i - 1) / 2];
			t->m[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
		return;
	}
	t->left_out++;
	if (t->cmp(m, &t->m[0]) < 0) {	/* better than the worst kept */
		t->m[0] = *m;
		sift_down(t, 0);
	}
}

const struct rt_rep_moment *rt_rep_top_sorted(struct rt_rep_top *t)
{
	qsort(t->m, t->n, sizeof(*t->m), t->cmp);
	return t->m;
}

static void moment_add(struct rt_rep *r, const struct rt_rep_moment *m)
{
	top_add(&r->ce_peaks, m);
	top_add(&r->pfc_peaks, m);
}

int rt_rep_init(struct rt_rep *r, int top)
{
	size_t k = top > 0 && top < RT_REP_MOMENTS_ALL ? (size_t)top : RT_REP_MOMENTS_ALL;

	memset(r, 0, sizeof(*r));
	rt_htab_init(&r->tab, sizeof(struct rt_rep_flow), sizeof(struct rt_flow_key), 0);
	rt_jobagg_init(&r->jobs, RT_GROUP_JOB);
	rt_jobagg_init(&r->ranks, RT_GROUP_RANK);
	if (top_init(&r->ce_peaks, k, rt_rep_moment_by_ce, has_ce) ||
	    top_init(&r->pfc_peaks, k, rt_rep_moment_by_pfc, has_pause))
		return -ENOMEM;
	return 0;
}

void rt_rep_free(struct rt_rep *r)
{
	rt_htab_free(&r->tab);
	rt_jobagg_free(&r->jobs);
	rt_jobagg_free(&r->ranks);
	free(r->ce_peaks.m);
	free(r->pfc_peaks.m);
	free(r->flows);
	free(r->pairs);
	free(r->ports);
	free(r->peps);
	memset(r, 0, sizeof(*r));
}

/* ---- one interval ---- */

static int take_ports(struct rt_rep *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	size_t i;
	int fresh;

	for (i = 0; i < d->nports; i++) {
		struct rt_rep_port *a = rt_port_table_get((void **)&r->ports, &r->nports, &r->pcap,
							  sizeof(*r->ports), d->ports[i].c, &fresh);

		if (!a)
			return -ENOMEM;
		a->c = *d->ports[i].c;
		rt_fmt_safe(d->ports[i].c->dev, a->c.dev, sizeof(a->c.dev));
		rt_fmt_safe(d->ports[i].c->netdev, a->c.netdev, sizeof(a->c.netdev));
		rt_fmt_safe(d->ports[i].c->name, a->c.name, sizeof(a->c.name));
		a->delta += d->ports[i].d;
		if (d->ports[i].d > a->peak_d) {
			a->peak_d = d->ports[i].d;
			a->peak_t = s->time_ns;
			a->peak_secs = d->secs;
		}
	}
	return 0;
}

/* A flow's time (on the clock of mono_ns) on the wall clock of time_ns. */
static __u64 wall_of(const struct rt_snapshot *s, __u64 t)
{
	__u64 ago = s->mono_ns > t ? s->mono_ns - t : 0;

	return s->time_ns > ago ? s->time_ns - ago : 0;
}

static void take_flow(struct rt_rep_flow *a, const struct rt_snapshot *s, const struct rt_flow *f,
		      const struct rt_flow_val *v)
{
	rt_flow_val_add(&a->v, v);
	if (v->pkts) {
		__u64 fw = wall_of(s, v->first_ns), lw = wall_of(s, v->last_ns);

		if (!a->first_wall || fw < a->first_wall)
			a->first_wall = fw;
		if (lw > a->last_wall)
			a->last_wall = lw;
		a->v.sport = v->sport;
		a->v.dscp = v->dscp;
		a->v.pcp = v->pcp;
		a->v.opcode = v->opcode;
	}
	a->v.dscps |= v->dscps;
	a->v.prios |= v->prios;
	if (f->lqpn || f->pid) {
		a->lqpn = f->lqpn;
		a->rqpn = f->rqpn;
		a->pid = f->pid;
		/* Text from the file: printable only (no terminal escapes). */
		rt_fmt_safe(f->comm, a->comm, sizeof(a->comm));
	}
	if (f->throttles >= 0 && (size_t)f->throttles < s->nflows) {
		a->has_target = 1;
		a->target = s->flows[f->throttles].k;
		a->attr = f->attr;
	}
}

static struct rt_rep_if *if_get(struct rt_rep *r, const struct rt_if_key *k)
{
	struct rt_rep_if *ai = NULL;
	size_t j;

	for (j = 0; j < r->nifs; j++)
		if (r->ifs[j].k.ifindex == k->ifindex && r->ifs[j].k.dir == k->dir)
			ai = &r->ifs[j];
	if (ai || r->nifs == sizeof(r->ifs) / sizeof(r->ifs[0]))
		return ai;
	ai = &r->ifs[r->nifs++];
	memset(ai, 0, sizeof(*ai));
	ai->k = *k;
	return ai;
}

int rt_rep_take(struct rt_rep *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	struct rt_rep_moment m = { .time_ns = s->time_ns, .secs = d->secs };
	size_t i;
	int p;

	r->intervals++;
	if (r->intervals == 1) {
		r->first_ns = s->time_ns;
		r->first_len_ns = d->secs > 0 && s->interval_ns ? s->interval_ns : 0;
	} else if (r->intervals == 2)
		r->step_ns = s->time_ns > r->first_ns ? s->time_ns - r->first_ns : 0;
	if (r->intervals > 1 && s->time_ns > r->last_ns && s->time_ns - r->last_ns > r->max_step_ns)
		r->max_step_ns = s->time_ns - r->last_ns;
	r->last_ns = s->time_ns;
	r->evicted += d->evicted;
	if (s->nifaces) {
		memcpy(r->ifaces, s->ifaces, s->nifaces * sizeof(s->ifaces[0]));
		r->nifaces = s->nifaces;
	}
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		struct rt_rep_flow *a;

		if (!v->pkts && f->throttles < 0)
			continue;
		if (f->estimate) {	/* never mixed into the exact figures */
			r->est_pkts += v->pkts;
			r->est_samples += d->flows[i].samples;
			continue;
		}
		a = rt_htab_get(&r->tab, &f->k, rt_flow_key_hash(&f->k), NULL);
		if (!a)
			return -ENOMEM;
		take_flow(a, s, f, v);
		if (v->pkts && (rt_jobagg_add(&r->jobs, s, f, v) || rt_jobagg_add(&r->ranks, s, f, v)))
			return -ENOMEM;
		m.pkts += v->pkts;
		m.ce += v->ecn[RT_ECN_CE];
		m.cnp += v->cnp;
		m.nak += rt_nak(v);
	}
	/* the interval's marking points (jobagg.h): blame within an interval only */
	if (rt_jobagg_close(&r->jobs) || rt_jobagg_close(&r->ranks))
		return -ENOMEM;
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *x = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;
		struct rt_rep_if *ai = if_get(r, &x->k);
		const char *from = NULL;

		if (!ai)
			continue;
		rt_fmt_safe(rt_snapshot_ifname(s, x->k.ifindex), ai->name, sizeof(ai->name));
		rt_if_val_add(&ai->v, v);
		for (p = 0; p < RT_NPRIO; p++) {
			if (v->pfc_frames[p] && !from) {	/* the speed where there are pauses */
				ai->speed_mbps = rt_link_speed(s, rt_snapshot_ifname(s, x->k.ifindex), r->speed_given,
							       &from);
				snprintf(ai->speed_from, sizeof(ai->speed_from), "%s", from);
			}
			if (rt_paused_any(v, p))
				ai->paused[p] += rt_paused_secs(s, x, v, p, d->secs, r->speed_given);
			if (v->pfc_frames[p] && x->paused_est)
				r->paused_est = 1;
			m.pfc += v->pfc_frames[p];
			m.xon += v->pfc_xon[p];
			m.quanta += v->pfc_quanta[p];
		}
	}
	rt_flow_val_add(&r->tot, &d->flow_tot);
	rt_if_val_add(&r->itot, &d->if_tot);
	/* The first interval's length may be known only from the second's time. */
	if (r->intervals == 1) {
		r->first = m;
		r->first_pending = 1;
	} else {
		if (r->first_pending) {
			if (r->first.secs == 0)
				r->first.secs = r->step_ns / 1e9;
			moment_add(r, &r->first);
			r->first_pending = 0;
		}
		moment_add(r, &m);
	}
	if (rt_rep_peps_take(r, s, d))
		return -ENOMEM;
	return take_ports(r, s, d);
}

/* ---- the end of the file ---- */

int rt_rep_by_ce(const void *x, const void *y)
{
	const struct rt_rep_flow *a = *(struct rt_rep_flow *const *)x, *b = *(struct rt_rep_flow *const *)y;
	int c = SPACESHIP(b->v.ecn[RT_ECN_CE], a->v.ecn[RT_ECN_CE]);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_rep_by_cnp(const void *x, const void *y)
{
	const struct rt_rep_flow *a = *(struct rt_rep_flow *const *)x, *b = *(struct rt_rep_flow *const *)y;
	int c = SPACESHIP(b->v.cnp, a->v.cnp);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_rep_by_nak(const void *x, const void *y)
{
	const struct rt_rep_flow *a = *(struct rt_rep_flow *const *)x, *b = *(struct rt_rep_flow *const *)y;
	int c = SPACESHIP(rt_nak(&b->v) + b->v.rnr_nak, rt_nak(&a->v) + a->v.rnr_nak);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_rep_pair_cmp(const void *x, const void *y)
{
	const struct rt_rep_pair *a = x, *b = y;
	int c = rt_val_cmp_congestion(&a->v, &b->v);

	if (!c)
		c = memcmp(a->a, b->a, 16);
	return c ? c : memcmp(a->b, b->b, 16);
}

/* Pairs through the one table: host pair -> index in *pairs. */
struct pair_idx {
	struct rt_hostpair k;
	size_t j;
};

static struct rt_rep_pair *pair_get(struct rt_htab *idx, struct rt_rep_pair *pairs, size_t *npairs,
				    const struct rt_hostpair *hp)
{
	struct pair_idx *e;
	int fresh;

	e = rt_htab_get(idx, hp, rt_hostpair_hash(hp), &fresh);
	if (!e)
		return NULL;
	if (fresh) {
		e->j = (*npairs)++;
		pairs[e->j].family = hp->family;
		memcpy(pairs[e->j].a, hp->a, 16);
		memcpy(pairs[e->j].b, hp->b, 16);
	}
	return &pairs[e->j];
}

static int build_pairs(struct rt_rep *r)
{
	struct rt_htab idx;
	size_t i;
	int err = 0;

	r->pairs = calloc(r->n ? r->n : 1, sizeof(*r->pairs));
	if (!r->pairs)
		return -ENOMEM;
	rt_htab_init(&idx, sizeof(struct pair_idx), sizeof(struct rt_hostpair), 0);
	for (i = 0; i < r->n; i++) {
		const struct rt_rep_flow *f = r->flows[i];
		struct rt_hostpair hp;
		struct rt_rep_pair *p;

		rt_hostpair_of(&hp, &f->k, RT_HP_EITHER);
		p = pair_get(&idx, r->pairs, &r->npairs, &hp);
		if (!p) {
			err = -ENOMEM;
			break;
		}
		rt_flow_val_add(&p->v, &f->v);
		p->flows++;
	}
	rt_htab_free(&idx);
	qsort(r->pairs, r->npairs, sizeof(*r->pairs), rt_rep_pair_cmp);
	return err;
}

int rt_rep_finish(struct rt_rep *r, double capture_secs)
{
	size_t i, k;

	if (r->first_pending) {
		moment_add(r, &r->first);
		r->first_pending = 0;
	}
	if (capture_secs > 0 && r->intervals == 1)
		r->step_ns = (__u64)(capture_secs * 1e9);
	if (r->first_len_ns > r->max_step_ns)
		r->max_step_ns = r->first_len_ns;
	if (r->step_ns > r->max_step_ns)
		r->max_step_ns = r->step_ns;
	rt_rep_peps_finish(r);
	r->n = r->tab.n;
	r->flows = calloc(r->n ? r->n : 1, sizeof(*r->flows));
	if (!r->flows)
		return -ENOMEM;
	for (i = 0, k = 0; i < r->tab.cap; i++)
		if (r->tab.used[i])
			r->flows[k++] = rt_htab_at(&r->tab, i);
	return build_pairs(r);
}

int rt_rep_pairs_merge(const struct rt_rep *const *rs, int n, struct rt_rep_pair **out, size_t *nout)
{
	struct rt_rep_pair *all;
	struct rt_htab idx;
	size_t np = 0, i;
	int k, err = 0;

	*out = NULL;
	*nout = 0;
	for (k = 0; k < n; k++)
		np += rs[k]->npairs;
	all = calloc(np ? np : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	rt_htab_init(&idx, sizeof(struct pair_idx), sizeof(struct rt_hostpair), 0);
	for (k = 0; k < n && !err; k++)
		for (i = 0; i < rs[k]->npairs; i++) {
			const struct rt_rep_pair *p = &rs[k]->pairs[i];
			struct rt_hostpair hp = { .family = p->family };
			struct rt_rep_pair *q;

			memcpy(hp.a, p->a, 16);
			memcpy(hp.b, p->b, 16);
			q = pair_get(&idx, all, nout, &hp);
			if (!q) {
				err = -ENOMEM;
				break;
			}
			rt_flow_val_add(&q->v, &p->v);
			q->flows += p->flows;
		}
	rt_htab_free(&idx);
	if (err) {
		free(all);
		*nout = 0;
		return err;
	}
	qsort(all, *nout, sizeof(*all), rt_rep_pair_cmp);
	*out = all;
	return 0;
}

/* ---- questions the printer asks ---- */

__u64 rt_rep_data_pkts(const struct rt_rep_flow *f)
{
	__u64 other = f->v.cnp + f->v.ack + rt_nak(&f->v) + f->v.rnr_nak;

	return f->v.pkts > other ? f->v.pkts - other : 0;
}

const char *rt_rep_ifname(const struct rt_rep *r, __u32 ifindex)
{
	size_t i;

	for (i = 0; i < r->nifs; i++)
		if (r->ifs[i].k.ifindex == ifindex)
			return r->ifs[i].name;
	return "?";
}

const struct rt_rep_flow *rt_rep_flow_of(const struct rt_rep *r, const struct rt_flow_key *k)
{
	/* rt_flow_key_cmp() compares the key's bytes, as the table does. */
	return rt_htab_find(&r->tab, k, rt_flow_key_hash(k));
}

const struct rt_rep_flow *rt_rep_data_flow(const struct rt_rep *r, const struct rt_flow_key *k)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct rt_rep_flow *f = r->flows[i];

		if (f->k.family == k->family && f->k.dqpn == k->dqpn && !memcmp(f->k.src, k->src, 16) &&
		    !memcmp(f->k.dst, k->dst, 16) && rt_rep_data_pkts(f))
			return f;
	}
	return NULL;
}

const struct rt_rep_flow *rt_rep_data_flow_near(const struct rt_rep *r, const struct rt_rep_flow *c,
						__u64 window_ns)
{
	const struct rt_flow_key *k = &c->target;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct rt_rep_flow *f = r->flows[i];

		if (f->k.family != k->family || f->k.dqpn != k->dqpn || memcmp(f->k.src, k->src, 16) ||
		    memcmp(f->k.dst, k->dst, 16) || !rt_rep_data_pkts(f))
			continue;
		/* active times overlap, give or take the window */
		if (f->first_wall <= c->last_wall + window_ns && c->first_wall <= f->last_wall + window_ns)
			return f;
	}
	return NULL;
}

__u32 rt_rep_cnp_candidates(const struct rt_rep *r, const struct rt_rep_flow *c)
{
	const struct rt_rep_flow *prev = NULL;
	__u32 cands = 0;
	size_t j;

	for (j = 0; j < r->n; j++) {
		const struct rt_rep_flow *f = r->flows[j];

		if (f->k.family != c->k.family || memcmp(f->k.src, c->k.dst, 16) ||
		    memcmp(f->k.dst, c->k.src, 16) || !rt_rep_data_pkts(f))
			continue;
		/* The same data seen on both sides of a link: one flow, two rows. */
		if (prev && prev->k.dqpn == f->k.dqpn)
			continue;
		cands++;
		prev = f;
	}
	return cands;
}
