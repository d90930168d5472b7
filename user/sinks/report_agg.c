// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report, the aggregation: a sink of the one loop (user/core/loop.c)
 * that sums each interval's deltas per flow, interface, NIC counter and
 * moment. Totals are summed from the per-interval deltas (so flows evicted in
 * a live recording still count).
 *
 * CNPs name the sender's QP, so they sit in the reverse direction of the data
 * flow they slow, as the join (user/core/join.c) tied them: netlink QP
 * table, then ACKs on the same host pair; CNPs it could not tie stay
 * unattributed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "nic.h"
#include "report_impl.h"
#include "source.h"

/* Find or insert (keeping the order) the aggregate of a NIC counter. */
static struct agg_port *port_get(struct report *r, const struct rt_port_ctr *c)
{
	int fresh;

	return rt_port_table_get((void **)&r->ports, &r->nports, &r->pcap, sizeof(*r->ports), c, &fresh);
}

static int take_ports(struct report *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	size_t i;

	for (i = 0; i < d->nports; i++) {
		struct agg_port *a = port_get(r, d->ports[i].c);

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

static struct agg_flow *agg_get(struct report *r, const struct rt_flow_key *k)
{
	return rt_htab_get(&r->tab, k, rt_flow_key_hash(k), NULL);
}

static int take(struct report *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	struct moment *m;
	size_t i;
	int p;

	m = rt_append((void **)&r->m, &r->nm, &r->mcap, sizeof(*r->m));
	if (!m)
		return -ENOMEM;
	m->time_ns = s->time_ns;
	m->secs = d->secs;
	if (r->nm == 1)
		r->first_ns = s->time_ns;
	else if (r->nm == 2)
		r->step_ns = s->time_ns > r->first_ns ? s->time_ns - r->first_ns : 0;
	r->last_ns = s->time_ns;
	r->evicted += d->evicted;
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		struct agg_flow *a;

		if (!v->pkts && f->throttles < 0)
			continue;
		if (f->estimate) {	/* never mixed into the exact figures */
			r->est_pkts += v->pkts;
			r->est_samples += d->flows[i].samples;
			continue;
		}
		a = agg_get(r, &f->k);
		if (!a)
			return -ENOMEM;
		rt_flow_val_add(&a->v, v);
		if (v->pkts) {
			a->v.sport = v->sport;
			a->v.dscp = v->dscp;
			a->v.pcp = v->pcp;
			a->v.opcode = v->opcode;
		}
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
		m->pkts += v->pkts;
		m->ce += v->ecn[RT_ECN_CE];
		m->cnp += v->cnp;
		m->nak += rt_nak(v);
	}
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *x = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;
		struct agg_if *ai = NULL;
		size_t j;

		for (j = 0; j < r->nifs; j++)
			if (r->ifs[j].k.ifindex == x->k.ifindex && r->ifs[j].k.dir == x->k.dir)
				ai = &r->ifs[j];
		if (!ai) {
			if (r->nifs == sizeof(r->ifs) / sizeof(r->ifs[0]))
				continue;
			ai = &r->ifs[r->nifs++];
			memset(ai, 0, sizeof(*ai));
			ai->k = x->k;
		}
		rt_fmt_safe(rt_snapshot_ifname(s, x->k.ifindex), ai->name, sizeof(ai->name));
		rt_if_val_add(&ai->v, v);
		for (p = 0; p < RT_NPRIO; p++) {
			m->pfc += v->pfc_frames[p];
			m->xon += v->pfc_xon[p];
			m->quanta += v->pfc_quanta[p];
		}
	}
	return 0;
}

/* ---- ranking ---- */

int rt_report_by_ce(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(b->v.ecn[RT_ECN_CE], a->v.ecn[RT_ECN_CE]);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_report_by_cnp(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(b->v.cnp, a->v.cnp);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_report_by_nak(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(rt_nak(&b->v) + b->v.rnr_nak, rt_nak(&a->v) + a->v.rnr_nak);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

int rt_report_m_by_ce(const void *x, const void *y)
{
	const struct moment *a = x, *b = y;
	double ra = a->secs > 0 ? a->ce / a->secs : 0, rb = b->secs > 0 ? b->ce / b->secs : 0;
	int c = RT_SPACESHIP(rb, ra);

	return c ? c : RT_SPACESHIP(a->time_ns, b->time_ns);
}

int rt_report_m_by_pfc(const void *x, const void *y)
{
	const struct moment *a = x, *b = y;
	int c = RT_SPACESHIP(b->pfc - b->xon, a->pfc - a->xon);

	if (!c)
		c = RT_SPACESHIP(b->quanta, a->quanta);
	return c ? c : RT_SPACESHIP(a->time_ns, b->time_ns);
}

static int pair_cmp(const void *x, const void *y)
{
	const struct pair *a = *(const struct pair *const *)x, *b = *(const struct pair *const *)y;
	int c = RT_SPACESHIP(rt_congestion(&b->v), rt_congestion(&a->v));

	if (!c)
		c = RT_SPACESHIP(b->v.pkts, a->v.pkts);
	if (!c)
		c = memcmp(a->hp.a, b->hp.a, 16);
	return c ? c : memcmp(a->hp.b, b->hp.b, 16);
}

static int build_pairs(struct report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct agg_flow *f = r->flows[i];
		struct rt_hostpair hp;
		struct pair *p;

		rt_hostpair_of(&hp, &f->k, RT_HP_EITHER);
		p = rt_htab_get(&r->pairtab, &hp, rt_hostpair_hash(&hp), NULL);
		if (!p)
			return -ENOMEM;
		rt_flow_val_add(&p->v, &f->v);
		p->flows++;
	}
	r->pairs = calloc(r->pairtab.n ? r->pairtab.n : 1, sizeof(*r->pairs));
	if (!r->pairs)
		return -ENOMEM;
	for (i = 0; i < r->pairtab.cap; i++)
		if (r->pairtab.used[i])
			r->pairs[n++] = rt_htab_at(&r->pairtab, i);
	r->npairs = n;
	qsort(r->pairs, r->npairs, sizeof(*r->pairs), pair_cmp);
	return 0;
}

__u64 rt_report_data_pkts(const struct agg_flow *f)
{
	__u64 other = f->v.cnp + f->v.ack + rt_nak(&f->v) + f->v.rnr_nak;

	return f->v.pkts > other ? f->v.pkts - other : 0;
}

/* ---- the sink ---- */

static int report_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct report *r = s->priv;
	struct rt_delta first;
	int err;

	/* A recording's first interval has no known length (the loop rates it
	 * over one interval): count it as 0 s, and take the next one's later. */
	if (!r->emitted && !strcmp(r->kind, "recording")) {
		first = *d;
		first.secs = 0;
		d = &first;
	}
	r->emitted++;
	if ((err = take(r, cur, d)) || (err = take_ports(r, cur, d)))
		return err;
	rt_flow_val_add(&r->tot, &d->flow_tot);
	rt_if_val_add(&r->itot, &d->if_tot);
	return 0;
}

static void report_close(struct rt_sink *s)
{
	(void)s;	/* the report outlives the loop: rt_report_free() */
}

/* The file is a recording or a capture: the source says which. */
static void report_start(struct rt_sink *s, const struct rt_source *src)
{
	struct report *r = s->priv;

	r->kind = strcmp(src->name, "recording") ? "capture" : "recording";
}

struct report *rt_report_new(const char *path, int top, __u64 speed_mbps)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->path = path;
	r->kind = "capture";
	r->top = top;
	r->speed_mbps = speed_mbps;
	r->speed_from = "given";
	rt_htab_init(&r->tab, sizeof(struct agg_flow), sizeof(struct rt_flow_key), 0);
	rt_htab_init(&r->pairtab, sizeof(struct pair), sizeof(struct rt_hostpair), 0);
	r->sink.name = "report";
	r->sink.emit = report_emit;
	r->sink.close = report_close;
	r->sink.start = report_start;
	r->sink.input_fd = -1;
	r->sink.priv = r;
	return r;
}

struct rt_sink *rt_report_sink(struct report *r)
{
	return &r->sink;
}

size_t rt_report_intervals(const struct report *r)
{
	return r->nm;
}

int rt_report_finish(struct report *r, double capture_interval)
{
	size_t i, k;

	/* A first recorded interval's length is unknown: take the next one's. */
	if (r->nm > 1 && r->m[0].secs == 0)
		r->m[0].secs = r->step_ns / 1e9;
	if (!strcmp(r->kind, "capture") && r->nm == 1)
		r->step_ns = (__u64)(capture_interval * 1e9);
	if (!r->speed_mbps) {
		for (i = 0; i < r->nifs && !r->speed_mbps; i++)
			r->speed_mbps = rt_link_speed_mbps(r->ifs[i].name);
		r->speed_from = r->speed_mbps ? "sysfs" : "assumed";
		if (!r->speed_mbps)
			r->speed_mbps = 100000;
	}
	r->n = r->tab.n;
	r->flows = calloc(r->n ? r->n : 1, sizeof(*r->flows));
	if (!r->flows)
		return -ENOMEM;
	for (i = 0, k = 0; i < r->tab.cap; i++)
		if (r->tab.used[i])
			r->flows[k++] = rt_htab_at(&r->tab, i);
	return build_pairs(r);
}

void rt_report_free(struct report *r)
{
	if (!r)
		return;
	rt_htab_free(&r->tab);
	rt_htab_free(&r->pairtab);
	free(r->m);
	free(r->flows);
	free(r->pairs);
	free(r->ports);
	free(r);
}
