// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The time series and episodes behind report --html and --perfetto
 * (report_viz.h): which flows, pauses and switch ports are drawn, the sink
 * of the second run that fills their points, and the ranked episodes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "print.h"
#include "report_viz.h"
#include "table.h"
#include "sink.h"
#include "source.h"

#define SPACESHIP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

const char *const rt_viz_rate_names[RT_VIZ_NRATES] = {
	"CE marks/s", "CNPs/s", "NAKs/s", "RNR NAKs/s", "packets/s",
};

static struct rt_viz_pt *pts_new(const struct rt_viz_host *h)
{
	return calloc(h->np ? h->np : 1, sizeof(struct rt_viz_pt));
}

const char *rt_viz_flow_name(const struct rt_rep *r, const struct rt_flow_key *k, char *buf, size_t len)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], m[RT_MIRROR_STRLEN];

	snprintf(buf, len, "%s %s %s -> %s qp %u%s%s", rt_rep_ifname(r, k->ifindex), rt_dir_name(k->dir),
		 rt_fmt_addr(k->family, k->src, a1, sizeof(a1)), rt_fmt_addr(k->family, k->dst, a2, sizeof(a2)),
		 k->dqpn, k->mirror ? " in " : "", rt_fmt_mirror(k, m, sizeof(m)));
	return buf;
}

/* The flows drawn: by congestion (CE, CNP, NAK, RNR NAK), then packets
 * (the victims of a pause storm carry no congestion counts). */
static int by_congestion(const void *x, const void *y)
{
	const struct rt_rep_flow *a = *(struct rt_rep_flow *const *)x, *b = *(struct rt_rep_flow *const *)y;
	int c = rt_val_cmp_congestion(&a->v, &b->v);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

/* Add flow f of h's report to the flows drawn (once); its index or -1. */
static int flow_add(struct rt_viz_host *h, const struct rt_rep_flow *f)
{
	struct rt_viz_flow *x;
	size_t i;
	int j;

	for (i = 0; i < h->nflows; i++)
		if (!rt_flow_key_cmp(&h->flows[i].k, &f->k))
			return (int)i;
	if (rt_grow_for((void **)&h->flows, &h->flows_cap, h->nflows + 1, sizeof(*h->flows)))
		return -1;
	x = &h->flows[h->nflows];
	memset(x, 0, sizeof(*x));
	x->k = f->k;
	x->v = f->v;
	x->cnp_host = x->cnp_flow = -1;
	rt_viz_flow_name(&h->run->agg, &f->k, x->name, sizeof(x->name));
	for (j = 0; j < RT_VIZ_NRATES; j++)
		if (!(x->s[j] = pts_new(h)))
			return -1;
	return (int)h->nflows++;
}

static int pauses_init(struct rt_viz_host *h)
{
	const struct rt_rep *r = &h->run->agg;
	size_t i;
	int p;

	h->pauses = calloc(r->nifs * RT_NPRIO + 1, sizeof(*h->pauses));
	if (!h->pauses)
		return -ENOMEM;
	for (i = 0; i < r->nifs; i++)
		for (p = 0; p < RT_NPRIO; p++) {
			struct rt_viz_pause *x = &h->pauses[h->npauses];

			if (!r->ifs[i].v.pfc_frames[p])
				continue;
			x->k = r->ifs[i].k;
			x->prio = p;
			x->paused = r->ifs[i].paused[p];
			snprintf(x->name, sizeof(x->name), "%s %s prio %d", r->ifs[i].name,
				 rt_dir_name(x->k.dir), p);
			if (!(x->s = pts_new(h)))
				return -ENOMEM;
			h->npauses++;
		}
	return 0;
}

int rt_viz_host_init(struct rt_viz_host *h, const struct rt_rep_run *run, const char *label, int top,
		     size_t points)
{
	const struct rt_rep *r = &run->agg;
	struct rt_rep_flow **fl;
	size_t i, want = top > 0 && top < RT_VIZ_FLOWS_MAX ? (size_t)top : RT_VIZ_FLOWS_MAX;
	int j;

	memset(h, 0, sizeof(*h));
	h->run = run;
	h->label = label;
	h->k = r->intervals > points ? (r->intervals + points - 1) / points : 1;
	h->np = r->intervals ? (r->intervals + h->k - 1) / h->k : 1;
	h->t0 = calloc(h->np, sizeof(*h->t0));
	h->secs = calloc(h->np, sizeof(*h->secs));
	if (!h->t0 || !h->secs)
		return -ENOMEM;
	for (j = 0; j < RT_VIZ_NRATES; j++)
		if (!(h->tot[j] = pts_new(h)))
			return -ENOMEM;
	fl = malloc((r->n + 1) * sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	memcpy(fl, r->flows, r->n * sizeof(*fl));
	qsort(fl, r->n, sizeof(*fl), by_congestion);
	for (i = 0; i < r->n && h->nflows < want && (rt_congestion(&fl[i]->v) || fl[i]->v.pkts); i++)
		if (flow_add(h, fl[i]) < 0) {
			free(fl);
			return -ENOMEM;
		}
	free(fl);
	h->nflows_top = h->nflows;
	return pauses_init(h);
}

/* The CNP flow c of host i: its target, on i itself or another host. */
static int link_one(struct rt_viz_host *hs, int n, int i, struct rt_viz_flow *c_out, const struct rt_rep_flow *c)
{
	const struct rt_rep_flow *t = rt_rep_flow_of(&hs[i].run->agg, &c->target);
	__u64 w = RT_REP_CNP_WINDOW_NS;
	int j = i, x;

	for (j = 0; j < n; j++)
		w = hs[j].run->agg.step_ns > w ? hs[j].run->agg.step_ns : w;
	/* another host's: active at about the same time (report_agg.h) */
	for (j = t ? i : 0; !t && j < n; j++)
		if (j != i && (t = rt_rep_data_flow_near(&hs[j].run->agg, c, w)))
			break;
	if (!t)
		return 0;
	x = flow_add(&hs[j], t);
	if (x < 0)
		return -ENOMEM;
	c_out->cnp_host = j;
	c_out->cnp_flow = x;
	return 0;
}

const char *rt_viz_clock_text(const struct rt_viz_host *hs, int i, char *buf, size_t len)
{
	const struct rt_viz_host *h = &hs[i];

	if (!i)
		snprintf(buf, len, "the reference");
	else if (h->offset_known && h->offset_same)
		snprintf(buf, len, "%+.3f s: the same host as %s (applied)", (double)-h->offset_ns / 1e9,
			 h->offset_against ? h->offset_against : "?");
	else if (h->offset_known)
		snprintf(buf, len, "%+.3f s against %s from %u shared flows (applied)", (double)-h->offset_ns / 1e9,
			 h->offset_against ? h->offset_against : "?", h->offset_flows);
	else
		snprintf(buf, len, "not estimated: %s (its times as it recorded them)",
			 h->offset_why ? h->offset_why : "no flow shared with another host");
	return buf;
}

int rt_viz_link(struct rt_viz_host *hs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < hs[i].nflows_top; j++) {
			const struct rt_rep_flow *c = rt_rep_flow_of(&hs[i].run->agg, &hs[i].flows[j].k);
			struct rt_viz_flow tmp = { .cnp_host = -1, .cnp_flow = -1 };

			if (!c || !c->v.cnp || !c->has_target)
				continue;
			if (link_one(hs, n, i, &tmp, c))
				return -ENOMEM;
			/* flow_add may have moved hs[i].flows */
			hs[i].flows[j].cnp_host = tmp.cnp_host;
			hs[i].flows[j].cnp_flow = tmp.cnp_flow;
		}
	}
	return 0;
}

void rt_viz_host_free(struct rt_viz_host *h)
{
	size_t i;
	int j;

	for (j = 0; j < RT_VIZ_NRATES; j++)
		free(h->tot[j]);
	for (i = 0; i < h->nflows; i++)
		for (j = 0; j < RT_VIZ_NRATES; j++)
			free(h->flows[i].s[j]);
	for (i = 0; i < h->npauses; i++)
		free(h->pauses[i].s);
	for (i = 0; i < h->nports; i++) {
		free(h->ports[i].depth);
		free(h->ports[i].drops);
	}
	free(h->flows);
	free(h->pauses);
	free(h->ports);
	free(h->t0);
	free(h->secs);
	free(h->ord);
	free(h->acc);
	memset(h, 0, sizeof(*h));
}

double rt_viz_mean(const struct rt_viz_host *h, const struct rt_viz_pt *s, size_t i)
{
	return h->secs[i] > 0 ? s[i].amt / h->secs[i] : 0;
}

/* ---- the second run ---- */

/* One interval's amount into point b (fresh: its first interval). */
static void pt_add(struct rt_viz_pt *s, size_t b, int fresh, double amt, double secs)
{
	float v = (float)(secs > 0 ? amt / secs : 0);

	if (fresh || v < s[b].min)
		s[b].min = v;
	if (fresh || v > s[b].max)
		s[b].max = v;
	s[b].amt += amt;
}

static int ord_cmp(const void *x, const void *y, void *arg)
{
	const struct rt_viz_host *h = arg;

	return rt_flow_key_cmp(&h->flows[*(const __u32 *)x].k, &h->flows[*(const __u32 *)y].k);
}

static int collect_init(struct rt_viz_host *h)
{
	__u32 i;

	h->ord = calloc(h->nflows + 1, sizeof(*h->ord));
	h->acc = calloc(h->nflows * RT_VIZ_NRATES + h->npauses + 1, sizeof(*h->acc));
	if (!h->ord || !h->acc)
		return -ENOMEM;
	for (i = 0; i < h->nflows; i++)
		h->ord[i] = i;
	qsort_r(h->ord, h->nflows, sizeof(*h->ord), ord_cmp, h);
	return 0;
}

static int flow_find(const struct rt_viz_host *h, const struct rt_flow_key *k)
{
	size_t lo = 0, hi = h->nflows;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = rt_flow_key_cmp(&h->flows[h->ord[mid]].k, k);

		if (!c)
			return (int)h->ord[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static struct rt_viz_port *port_get(struct rt_viz_host *h, const struct rt_swport *p)
{
	struct rt_viz_port *x;
	size_t i;

	for (i = 0; i < h->nports; i++)
		if (h->ports[i].ifindex == p->ifindex && h->ports[i].dir == p->dir)
			return &h->ports[i];
	if (rt_grow_for((void **)&h->ports, &h->ports_cap, h->nports + 1, sizeof(*h->ports)))
		return NULL;
	x = &h->ports[h->nports];
	memset(x, 0, sizeof(*x));
	x->ifindex = p->ifindex;
	x->dir = p->dir;
	rt_fmt_safe(p->name, x->name, sizeof(x->name) - 10);
	snprintf(x->name + strlen(x->name), 10, " %s", rt_dir_name(p->dir));
	x->depth = pts_new(h);
	x->drops = pts_new(h);
	if (!x->depth || !x->drops)
		return NULL;
	h->nports++;
	return x;
}

/* The interval's paused seconds per drawn priority, into h->acc after the flows. */
static void take_pauses(struct rt_viz_host *h, const struct rt_snapshot *s, const struct rt_delta *d)
{
	double *acc = h->acc + h->nflows * RT_VIZ_NRATES;
	size_t i, j;

	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *x = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;

		for (j = 0; j < h->npauses; j++) {
			const struct rt_viz_pause *q = &h->pauses[j];

			if (q->k.ifindex != x->k.ifindex || q->k.dir != x->k.dir || !rt_paused_any(v, q->prio))
				continue;
			/* as the report's aggregation takes it (report_agg.c) */
			acc[j] += rt_paused_secs(s, x, v, q->prio, d->secs, h->run->agg.speed_given);
		}
	}
}

static int take_ports(struct rt_viz_host *h, size_t b, int fresh, const struct rt_delta *d, double secs)
{
	size_t i;
	int *seen;

	if (!h->nports && !d->nswports)
		return 0;
	seen = calloc(h->nports + d->nswports + 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < d->nswports; i++) {
		const struct rt_swport_delta *x = &d->swports[i];
		struct rt_viz_port *p = port_get(h, x->p);

		if (!p) {
			free(seen);
			return -ENOMEM;
		}
		seen[p - h->ports] = 1;
		/* a port first seen in the middle of a point keeps the 0 of its
		 * earlier intervals there as its least value */
		pt_add(p->depth, b, fresh, x->p->max_depth * secs, secs);
		pt_add(p->drops, b, fresh, (double)x->d.drops, secs);
	}
	for (i = 0; i < h->nports; i++)
		if (!seen[i]) {
			pt_add(h->ports[i].depth, b, fresh, 0, secs);
			pt_add(h->ports[i].drops, b, fresh, 0, secs);
		}
	free(seen);
	return 0;
}

static int take(struct rt_viz_host *h, const struct rt_snapshot *s, const struct rt_delta *d, double secs)
{
	size_t b = (size_t)(h->seen / h->k), i;
	int fresh = h->seen % h->k == 0, j, err;
	const struct rt_flow_val *t = &d->flow_tot;

	if (b >= h->np)
		return 0;	/* more intervals than the first run counted: none */
	if (fresh) {
		h->nb = b + 1;
		h->t0[b] = h->seen ? h->last_ns : s->time_ns - (__u64)(secs * 1e9 + 0.5);
	}
	h->last_ns = s->time_ns;
	h->secs[b] += secs;
	memset(h->acc, 0, (h->nflows * RT_VIZ_NRATES + h->npauses) * sizeof(*h->acc));
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow_val *v = &d->flows[i].d;
		int x;

		if (d->flows[i].f->estimate || (x = flow_find(h, &d->flows[i].f->k)) < 0)
			continue;
		h->acc[x * RT_VIZ_NRATES + RT_VIZ_CE] += (double)v->ecn[RT_ECN_CE];
		h->acc[x * RT_VIZ_NRATES + RT_VIZ_CNP] += (double)v->cnp;
		h->acc[x * RT_VIZ_NRATES + RT_VIZ_NAK] += (double)rt_nak(v);
		h->acc[x * RT_VIZ_NRATES + RT_VIZ_RNR] += (double)v->rnr_nak;
		h->acc[x * RT_VIZ_NRATES + RT_VIZ_PKTS] += (double)v->pkts;
	}
	take_pauses(h, s, d);
	pt_add(h->tot[RT_VIZ_CE], b, fresh, (double)t->ecn[RT_ECN_CE], secs);
	pt_add(h->tot[RT_VIZ_CNP], b, fresh, (double)t->cnp, secs);
	pt_add(h->tot[RT_VIZ_NAK], b, fresh, (double)rt_nak(t), secs);
	pt_add(h->tot[RT_VIZ_RNR], b, fresh, (double)t->rnr_nak, secs);
	pt_add(h->tot[RT_VIZ_PKTS], b, fresh, (double)t->pkts, secs);
	for (i = 0; i < h->nflows; i++)
		for (j = 0; j < RT_VIZ_NRATES; j++)
			pt_add(h->flows[i].s[j], b, fresh, h->acc[i * RT_VIZ_NRATES + j], secs);
	for (i = 0; i < h->npauses; i++)
		pt_add(h->pauses[i].s, b, fresh, h->acc[h->nflows * RT_VIZ_NRATES + i], secs);
	err = take_ports(h, b, fresh, d, secs);
	h->seen++;
	return err;
}

struct vsink {
	struct rt_sink s;
	struct rt_viz_host **hs;
	int n, *started, have;
};

static void vsink_start(struct rt_sink *s, const struct rt_source *src)
{
	struct vsink *k = s->priv;

	(void)src;
	*k->started = 1;
}

static int vsink_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct vsink *k = s->priv;
	double secs = d->secs;
	int i, err = 0;

	/* Each interval's length is the loop's (user/core/loop.c), a
	 * recording's first included: as report_agg.c takes it, so that the
	 * drawing starts where the report does. */
	for (i = 0; i < k->n && !err; i++) {
		if (!k->have)
			err = collect_init(k->hs[i]);
		if (!err)
			err = take(k->hs[i], cur, d, secs);
	}
	k->have = 1;
	return err;
}

static void vsink_close(struct rt_sink *s)
{
	free(s->priv);
}

/* same shape as rules.c's context allocation: each fills its own struct */
struct rt_sink *rt_viz_sink_new(struct rt_viz_host **hs, int n, int *started)
{
	struct vsink *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->hs = hs;
	k->n = n;
	k->started = started;
	rt_sink_init(&k->s, "report", vsink_emit, vsink_close, k);
	k->s.start = vsink_start;
	return &k->s;
}

/* ---- episodes ---- */

static int ep_cmp(const void *x, const void *y)
{
	const struct rt_viz_ep *a = x, *b = y;
	int c = SPACESHIP(b->f->sev, a->f->sev);

	if (!c)
		c = SPACESHIP(b->f->end_ns - b->f->start_ns, a->f->end_ns - a->f->start_ns);
	if (!c)
		c = SPACESHIP(a->f->start_ns, b->f->start_ns);
	if (!c)
		c = SPACESHIP(a->host, b->host);
	return c ? c : SPACESHIP(a->f->id, b->f->id);
}

int rt_viz_episodes(const struct rt_viz_host *hs, int n, struct rt_viz_ep **out, size_t *nout)
{
	size_t total = 0, i, m = 0;
	int h;

	for (h = 0; h < n; h++)
		total += hs[h].run->flog.n;
	*out = calloc(total + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (h = 0; h < n; h++)
		for (i = 0; i < hs[h].run->flog.n; i++) {
			(*out)[m].f = &hs[h].run->flog.f[i];
			(*out)[m++].host = h;
		}
	qsort(*out, m, sizeof(**out), ep_cmp);
	*nout = m;
	return 0;
}

/* ---- JSON ---- */

void rt_viz_json_str(FILE *f, const char *s)
{
	char buf[8192];
	const char *p;

	for (p = rt_pr_json_str(s ? s : "", buf, sizeof(buf)); *p; p++) {
		if (*p == '<')
			fputs("\\u003c", f);
		else
			fputc(*p, f);
	}
}

void rt_viz_json_num(FILE *f, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == 0)
		fputc('0', f);
	else
		fprintf(f, "%.4g", v);
}

void rt_viz_json_exact(FILE *f, double v)
{
	fprintf(f, "%.17g", isfinite(v) ? v : 0.0);
}
