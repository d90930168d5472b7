// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report FILE: an offline summary of a recording or a capture, for
 * tuning runs and post-mortems. Text for people, --json for machines; both
 * print the same numbers.
 *
 * Totals are summed from the per-interval deltas (so flows evicted in a live
 * recording still count). Paused time per priority is quanta * 512 bit times
 * at the link speed: --link-speed when given, else the interface's speed in
 * sysfs when this host has an interface of that name, else 100 Gb/s, and the
 * report says which ("given", "sysfs", "assumed").
 *
 * CNPs name the sender's QP, so they sit in the reverse direction of the data
 * flow they slow, as the join (user/join.c, run on every source) tied them:
 * netlink QP table, then ACKs on the same host pair; CNPs it could not tie
 * stay unattributed, with the number of data flows going the other way on
 * their host pair.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "derive.h"
#include "findings.h"
#include "fmt.h"
#include "log.h"
#include "print.h"
#include "num.h"
#include "cli.h"
#include "nic.h"
#include "opts.h"
#include "source.h"
#include "stream.h"

#define NAME_LEN IF_NAMESIZE

struct agg_flow {
	struct rt_flow_key k;
	struct rt_flow_val v;	/* counters summed over the intervals; attributes the last */
	__u32 lqpn, rqpn, pid;
	char comm[16];
	__u8 attr;
	int has_target;
	struct rt_flow_key target;	/* what its CNPs throttle, when known */
};

struct agg_if {
	struct rt_if_key k;
	struct rt_if_val v;
	char name[NAME_LEN];
};

struct moment {
	__u64 time_ns;
	double secs;
	__u64 pkts, ce, cnp, nak, pfc, xon, quanta;
};

struct pair {
	__u8 family;
	__u8 a[16], b[16];	/* a < b */
	struct rt_flow_val v;
	__u32 flows;
};

/* A NIC counter over the whole file: deltas from rt_delta_compute (wraps and
 * resets already handled), the last value, and its busiest interval. */
struct agg_port {
	struct rt_port_ctr c;	/* identity and the last value */
	__u64 delta;
	__u64 peak_d, peak_t;
	double peak_secs;
};

struct report {
	const char *path;
	const char *kind;
	int json, top;
	__u64 speed_mbps;
	const char *speed_from;
	struct rt_htab tab;		/* struct agg_flow by flow key */
	size_t n;			/* flows: tab.n once the file is read */
	struct agg_if ifs[2 * RT_MAX_IFACES];
	size_t nifs;
	struct moment *m;
	size_t nm, mcap;
	__u64 first_ns, last_ns, step_ns, evicted;
	__u64 est_pkts, est_samples;	/* sFlow estimates: left out of the exact figures */
	struct rt_flow_val tot;
	struct rt_if_val itot;
	struct agg_flow **flows;	/* tab's used entries */
	struct pair *pairs;
	size_t npairs;
	struct agg_port *ports;	/* sorted like a snapshot's ports table */
	size_t nports, pcap;
	char host[64];		/* the recording's host, else the file's name */
	struct rt_flog flog;	/* the findings over the file */
	int multi;		/* one of several files: name hosts */
};

_Static_assert(offsetof(struct agg_port, c) == 0, "rt_port_table_get wants the counter first");

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

/* The aggregate of a flow: the one open-addressed table (user/core/table.h). */
static struct agg_flow *agg_get(struct report *r, const struct rt_flow_key *k)
{
	if (!r->tab.esz)
		rt_htab_init(&r->tab, sizeof(struct agg_flow), sizeof(struct rt_flow_key), 0);
	return rt_htab_get(&r->tab, k, rt_flow_key_hash(k), NULL);
}

static int take(struct report *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	struct moment *m;
	size_t i;
	int p;

	if (r->nm == r->mcap) {
		size_t nc = r->mcap ? r->mcap * 2 : 256;
		struct moment *nm = realloc(r->m, nc * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		r->m = nm;
		r->mcap = nc;
	}
	m = &r->m[r->nm++];
	memset(m, 0, sizeof(*m));
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

#define SPACESHIP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int by_ce(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = SPACESHIP(b->v.ecn[RT_ECN_CE], a->v.ecn[RT_ECN_CE]);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int by_cnp(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = SPACESHIP(b->v.cnp, a->v.cnp);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int by_nak(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = SPACESHIP(rt_nak(&b->v) + b->v.rnr_nak, rt_nak(&a->v) + a->v.rnr_nak);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int m_by_ce(const void *x, const void *y)
{
	const struct moment *a = x, *b = y;
	double ra = a->secs > 0 ? a->ce / a->secs : 0, rb = b->secs > 0 ? b->ce / b->secs : 0;
	int c = SPACESHIP(rb, ra);

	return c ? c : SPACESHIP(a->time_ns, b->time_ns);
}

static int m_by_pfc(const void *x, const void *y)
{
	const struct moment *a = x, *b = y;
	int c = SPACESHIP(b->pfc - b->xon, a->pfc - a->xon);

	if (!c)
		c = SPACESHIP(b->quanta, a->quanta);
	return c ? c : SPACESHIP(a->time_ns, b->time_ns);
}

static __u64 score(const struct rt_flow_val *v)
{
	return rt_congestion(v);
}

static int pair_cmp(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	int c = SPACESHIP(score(&b->v), score(&a->v));

	if (!c)
		c = SPACESHIP(b->v.pkts, a->v.pkts);
	if (!c)
		c = memcmp(a->a, b->a, 16);
	return c ? c : memcmp(a->b, b->b, 16);
}

static int build_pairs(struct report *r)
{
	__u32 i;
	size_t j;

	r->pairs = calloc(r->n ? r->n : 1, sizeof(*r->pairs));
	if (!r->pairs)
		return -ENOMEM;
	/* THE host pair of derive.h, both directions together (RT_HP_EITHER),
	 * found through the one table: host pair -> index in pairs */
	struct pidx { struct rt_hostpair k; size_t j; } *e;
	struct rt_htab idx;
	int fresh;

	rt_htab_init(&idx, sizeof(struct pidx), sizeof(struct rt_hostpair), 0);
	for (i = 0; i < r->n; i++) {
		const struct agg_flow *f = r->flows[i];
		struct rt_hostpair hp;
		struct pair *p;

		rt_hostpair_of(&hp, &f->k, RT_HP_EITHER);
		e = rt_htab_get(&idx, &hp, rt_hostpair_hash(&hp), &fresh);
		if (!e) {
			rt_htab_free(&idx);
			return -ENOMEM;
		}
		if (fresh) {
			e->j = r->npairs++;
			p = &r->pairs[e->j];
			p->family = hp.family;
			memcpy(p->a, hp.a, 16);
			memcpy(p->b, hp.b, 16);
		}
		p = &r->pairs[e->j];
		rt_flow_val_add(&p->v, &f->v);
		p->flows++;
	}
	rt_htab_free(&idx);
	(void)j;
	qsort(r->pairs, r->npairs, sizeof(*r->pairs), pair_cmp);
	return 0;
}

/* A data flow: RoCE packets other than CNPs and acknowledgements. */
static __u64 data_pkts(const struct agg_flow *f)
{
	__u64 other = f->v.cnp + f->v.ack + rt_nak(&f->v) + f->v.rnr_nak;

	return f->v.pkts > other ? f->v.pkts - other : 0;
}

/* ---- printing: one set of helpers for text and JSON ---- */

static int jfirst;

static void jsep(void)
{
	if (!jfirst)
		fputc(',', stdout);
	jfirst = 0;
}

/* A JSON string: the printer's escaping (print.h), on stdout. */
static void jstr(const char *s)
{
	rt_pr_json_string(stdout, s);
}

static void jkey(const char *k)
{
	jsep();
	jstr(k);
	fputc(':', stdout);
}

static void ju(const char *k, unsigned long long v)
{
	jkey(k);
	printf("%llu", v);
}

static void jd(const char *k, double v)
{
	jkey(k);
	printf("%.17g", isfinite(v) ? v : 0.0);
}

static void js(const char *k, const char *v)
{
	jkey(k);
	jstr(v);
}

static void jopen(const char *k, char c)
{
	if (k)
		jkey(k);
	else
		jsep();
	fputc(c, stdout);
	jfirst = 1;
}

static void jclose(char c)
{
	fputc(c, stdout);
	jfirst = 0;
}

static const char *fmt_time(__u64 ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;
	char b[32];

	gmtime_r(&t, &tm);
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03u UTC", b, (unsigned)(ns % 1000000000ULL / 1000000));
	return buf;
}

static const char *ifname_of(const struct report *r, __u32 ifindex)
{
	size_t i;

	for (i = 0; i < r->nifs; i++)
		if (r->ifs[i].k.ifindex == ifindex)
			return r->ifs[i].name;
	return "?";
}

/* A flow's (or the totals') counters as JSON members. */
static void json_counters(const struct rt_flow_val *v)
{
	ju("pkts", v->pkts);
	ju("bytes", v->bytes);
	ju("not_ect", v->ecn[RT_ECN_NOT_ECT]);
	ju("ect0", v->ecn[RT_ECN_ECT0]);
	ju("ect1", v->ecn[RT_ECN_ECT1]);
	ju("ce", v->ecn[RT_ECN_CE]);
	ju("cnp", v->cnp);
	ju("ack", v->ack);
	ju("nak", rt_nak(v));
	ju("nak_seq", v->nak_seq);
	ju("nak_other", v->nak_other);
	ju("rnr_nak", v->rnr_nak);
}

static void flow_json(const struct report *r, const struct agg_flow *f)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN];

	js("ifname", ifname_of(r, f->k.ifindex));
	js("dir", rt_dir_name(f->k.dir));
	js("src", rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)));
	js("dst", rt_fmt_addr(f->k.family, f->k.dst, a2, sizeof(a2)));
	ju("dqpn", f->k.dqpn);
	if (f->k.mirror) {
		char m[RT_MIRROR_STRLEN];

		js("mirror", rt_fmt_mirror(&f->k, m, sizeof(m)));
	}
	json_counters(&f->v);
	if (f->pid || f->lqpn) {
		ju("lqpn", f->lqpn);
		ju("pid", f->pid);
		js("comm", f->comm);
	}
}

static const char *flow_text(const struct report *r, const struct rt_flow_key *k, char *buf,
			     size_t len)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], m[RT_MIRROR_STRLEN];

	snprintf(buf, len, "%s %s %s -> %s qp %u%s%s", ifname_of(r, k->ifindex), rt_dir_name(k->dir),
		 rt_fmt_addr(k->family, k->src, a1, sizeof(a1)),
		 rt_fmt_addr(k->family, k->dst, a2, sizeof(a2)), k->dqpn, k->mirror ? " in " : "",
		 rt_fmt_mirror(k, m, sizeof(m)));
	return buf;
}

static void top_flows(struct report *r, const char *title, const char *key,
		      int (*cmp)(const void *, const void *), __u64 (*val)(const struct agg_flow *))
{
	char b[256];
	__u32 i;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), cmp);
	if (r->json)
		jopen(key, '[');
	else
		printf("\n%s\n  %-62s %10s %8s %8s %8s %8s\n", title, "FLOW", "PKTS", "CE", "CNP",
		       "NAK", "RNR");
	for (i = 0; i < r->n && (!r->top || shown < r->top); i++) {
		const struct agg_flow *f = r->flows[i];

		if (!val(f))
			break;
		shown++;
		if (r->json) {
			jopen(NULL, '{');
			flow_json(r, f);
			jclose('}');
			continue;
		}
		printf("  %-62s %10llu %8llu %8llu %8llu %8llu\n", flow_text(r, &f->k, b, sizeof(b)),
		       (unsigned long long)f->v.pkts, (unsigned long long)f->v.ecn[RT_ECN_CE],
		       (unsigned long long)f->v.cnp, (unsigned long long)rt_nak(&f->v),
		       (unsigned long long)f->v.rnr_nak);
	}
	if (r->json)
		jclose(']');
	else if (!shown)
		printf("  (none)\n");
}

static __u64 v_ce(const struct agg_flow *f) { return f->v.ecn[RT_ECN_CE]; }
static __u64 v_cnp(const struct agg_flow *f) { return f->v.cnp; }
static __u64 v_nak(const struct agg_flow *f) { return rt_nak(&f->v) + f->v.rnr_nak; }

static void moments(struct report *r)
{
	struct moment *m = malloc((r->nm ? r->nm : 1) * sizeof(*m));
	char b[64];
	size_t i;
	int pass, shown;

	if (!m)
		return;
	for (pass = 0; pass < 2; pass++) {
		memcpy(m, r->m, r->nm * sizeof(*m));
		qsort(m, r->nm, sizeof(*m), pass ? m_by_pfc : m_by_ce);
		if (r->json)
			jopen(pass ? "pfc_peaks" : "ce_peaks", '[');
		else
			printf("\n%s\n  %-27s %10s %10s %10s %10s %12s\n",
			       pass ? "Moments of most PFC pauses (interval end)" :
				      "Moments of highest CE rate (interval end)",
			       "TIME", "SECONDS", "CE", "CE/s", "PAUSES", "QUANTA");
		for (i = 0, shown = 0; i < r->nm && (!r->top || shown < r->top); i++) {
			const struct moment *x = &m[i];

			if (pass ? x->pfc == x->xon && !x->quanta : !x->ce)
				break;
			shown++;
			if (r->json) {
				jopen(NULL, '{');
				jd("time", x->time_ns / 1e9);
				js("utc", fmt_time(x->time_ns, b, sizeof(b)));
				jd("seconds", x->secs);
				ju("pkts", x->pkts);
				ju("ce", x->ce);
				jd("ce_per_s", x->secs > 0 ? x->ce / x->secs : 0);
				ju("cnp", x->cnp);
				ju("nak", x->nak);
				ju("pause_frames", x->pfc - x->xon);
				ju("xon_frames", x->xon);
				ju("quanta", x->quanta);
				jclose('}');
			} else {
				printf("  %-27s %10.3f %10llu %10.1f %10llu %12llu\n",
				       fmt_time(x->time_ns, b, sizeof(b)), x->secs,
				       (unsigned long long)x->ce, x->secs > 0 ? x->ce / x->secs : 0,
				       (unsigned long long)(x->pfc - x->xon),
				       (unsigned long long)x->quanta);
			}
		}
		if (r->json)
			jclose(']');
		else if (!shown)
			printf("  (none)\n");
	}
	free(m);
}

static void pauses(struct report *r)
{
	char pn[8];
	size_t i;
	int p, any = 0;

	if (r->json) {
		jopen("pfc", '{');
		ju("link_speed_mbps", r->speed_mbps);
		js("link_speed_from", r->speed_from);
		jopen("priorities", '[');
	} else {
		printf("\nPaused time per priority (quanta of 512 bit times at %llu Mb/s, %s)\n",
		       (unsigned long long)r->speed_mbps, r->speed_from);
		printf("  %-16s %-8s %-4s %10s %10s %14s %12s\n", "IFACE", "DIR", "PRIO", "FRAMES",
		       "XON", "QUANTA", "SECONDS");
	}
	for (i = 0; i < r->nifs; i++) {
		const struct agg_if *a = &r->ifs[i];

		for (p = 0; p < RT_NPRIO; p++) {
			double secs = rt_pause_seconds(a->v.pfc_quanta[p], r->speed_mbps);

			if (!a->v.pfc_frames[p])
				continue;
			any = 1;
			rt_prio_name((unsigned)p, pn, sizeof(pn));
			if (r->json) {
				jopen(NULL, '{');
				js("ifname", a->name);
				js("dir", rt_dir_name(a->k.dir));
				js("prio", pn);
				ju("frames", a->v.pfc_frames[p]);
				ju("xon", a->v.pfc_xon[p]);
				ju("quanta", a->v.pfc_quanta[p]);
				jd("seconds", secs);
				jclose('}');
			} else {
				printf("  %-16s %-8s %-4s %10llu %10llu %14llu %12.6f\n", a->name,
				       rt_dir_name(a->k.dir), pn,
				       (unsigned long long)a->v.pfc_frames[p],
				       (unsigned long long)a->v.pfc_xon[p],
				       (unsigned long long)a->v.pfc_quanta[p], secs);
			}
		}
	}
	if (r->json) {
		jclose(']');
		jclose('}');
	} else if (!any) {
		printf("  (none)\n");
	}
}

static void host_pairs(struct report *r)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN];
	size_t i;

	if (r->json)
		jopen("host_pairs", '[');
	else
		printf("\nHost pairs by congestion (CE + CNP + NAK + RNR)\n  %-40s %6s %10s %12s %8s %8s %8s %8s\n",
		       "HOSTS", "FLOWS", "PKTS", "BYTES", "CE", "CNP", "NAK", "RNR");
	for (i = 0; i < r->npairs && (!r->top || i < (size_t)r->top); i++) {
		const struct pair *p = &r->pairs[i];
		char hs[100];

		rt_fmt_addr(p->family, p->a, a1, sizeof(a1));
		rt_fmt_addr(p->family, p->b, a2, sizeof(a2));
		if (r->json) {
			jopen(NULL, '{');
			js("a", a1);
			js("b", a2);
			ju("flows", p->flows);
			ju("pkts", p->v.pkts);
			ju("bytes", p->v.bytes);
			ju("ce", p->v.ecn[RT_ECN_CE]);
			ju("cnp", p->v.cnp);
			ju("nak", rt_nak(&p->v));
			ju("rnr_nak", p->v.rnr_nak);
			ju("score", score(&p->v));
			jclose('}');
			continue;
		}
		snprintf(hs, sizeof(hs), "%s <-> %s", a1, a2);
		printf("  %-40s %6u %10llu %12llu %8llu %8llu %8llu %8llu\n", hs, p->flows,
		       (unsigned long long)p->v.pkts, (unsigned long long)p->v.bytes,
		       (unsigned long long)p->v.ecn[RT_ECN_CE], (unsigned long long)p->v.cnp,
		       (unsigned long long)rt_nak(&p->v), (unsigned long long)p->v.rnr_nak);
	}
	if (r->json)
		jclose(']');
	else if (!r->npairs)
		printf("  (none)\n");
}

static const char *attr_name(__u8 a)
{
	switch (a) {
	case RT_ATTR_NETLINK: return "netlink";
	case RT_ATTR_ACK: return "ack";
	case RT_ATTR_HOSTPAIR: return "host-pair";
	}
	return "recorded";
}

/* Which data flows the CNPs throttled. */
static void throttled(struct report *r)
{
	char b1[256], b2[256];
	__u32 i, j;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), by_cnp);
	if (r->json)
		jopen("cnp_targets", '[');
	else
		printf("\nData flows slowed by CNPs\n");
	for (i = 0; i < r->n && (!r->top || shown < r->top); i++) {
		const struct agg_flow *c = r->flows[i], *t = NULL;
		const char *how = NULL;
		__u32 cands = 0;

		if (!c->v.cnp)
			break;
		shown++;
		if (c->has_target) {
			how = attr_name(c->attr);
			for (j = 0; j < r->n; j++)
				if (!rt_flow_key_cmp(&r->flows[j]->k, &c->target))
					t = r->flows[j];
		} else {
			/* Unattributed: how many data flows go the other way (src = the
			 * CNP's dst) on this host pair, for the reader to weigh. */
			const struct agg_flow *prev = NULL;

			for (j = 0; j < r->n; j++) {
				const struct agg_flow *f = r->flows[j];

				if (f->k.family != c->k.family || memcmp(f->k.src, c->k.dst, 16) ||
				    memcmp(f->k.dst, c->k.src, 16) || !data_pkts(f))
					continue;
				/* The same data seen on both sides of a link: one flow, two rows. */
				if (prev && prev->k.dqpn == f->k.dqpn)
					continue;
				cands++;
				prev = f;
			}
		}
		if (r->json) {
			jopen(NULL, '{');
			jopen("cnp_flow", '{');
			flow_json(r, c);
			jclose('}');
			js("attribution", how ? how : "unattributed");
			ju("candidates", c->has_target ? 1 : cands);
			if (t) {
				jopen("data_flow", '{');
				flow_json(r, t);
				jclose('}');
			}
			jclose('}');
			continue;
		}
		flow_text(r, &c->k, b1, sizeof(b1));
		if (t)
			printf("  %llu CNPs on %s\n    throttle %s  (%llu pkts, %llu CE; by %s)\n",
			       (unsigned long long)c->v.cnp, b1, flow_text(r, &t->k, b2, sizeof(b2)),
			       (unsigned long long)t->v.pkts, (unsigned long long)t->v.ecn[RT_ECN_CE],
			       how);
		else
			printf("  %llu CNPs on %s\n    unattributed: %u data flows go the other way on this host pair\n",
			       (unsigned long long)c->v.cnp, b1, cands);
	}
	if (r->json)
		jclose(']');
	else if (!shown)
		printf("  (none)\n");
}

/* The NIC's counters that moved over the file, congestion counters first. */
static void nic_counters(struct report *r)
{
	char t[64];
	int pass, shown = 0;

	if (r->json)
		jopen("nic", '[');
	else
		printf("\nNIC counters that moved (* congestion; total over the file, busiest interval)\n");
	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->nports; i++) {
			const struct agg_port *a = &r->ports[i];

			if ((a->c.congestion ? 0 : 1) != pass || !a->delta)
				continue;
			if (r->top && shown >= r->top * 4)
				break;
			shown++;
			if (r->json) {
				jopen(NULL, '{');
				js("device", a->c.dev);
				ju("port", a->c.port);
				js("netdev", a->c.netdev);
				js("counter", a->c.name);
				js("scope", rt_scope_name(a->c.scope));
				if (a->c.scope == RT_SCOPE_QP)	/* a counter bound to QPs: its lowest QP */
					ju("lqpn", a->c.qpn);
				ju("congestion", a->c.congestion);
				ju("delta", a->delta);
				ju("last", a->c.value);
				ju("peak_delta", a->peak_d);
				jd("peak_time", a->peak_t / 1e9);
				jclose('}');
				continue;
			}
			printf("  %-10s %2u %-10s %c%-34s %14llu  peak %llu",
			       a->c.dev[0] ? a->c.dev : "-", a->c.port, a->c.netdev[0] ? a->c.netdev : "-",
			       a->c.congestion ? '*' : ' ', a->c.name, (unsigned long long)a->delta,
			       (unsigned long long)a->peak_d);
			if (a->peak_secs > 0)
				printf(" (%.1f/s)", a->peak_d / a->peak_secs);
			printf(" at %s", fmt_time(a->peak_t, t, sizeof(t)));
			if (a->c.scope == RT_SCOPE_QP)
				printf("  qp %u", a->c.qpn);
			printf("\n");
		}
	}
	if (r->json)
		jclose(']');
	else if (!shown)
		printf("  (none: no NIC counters in this file, or none moved)\n");
}

/* One finding: text line(s) or a JSON object with rule, severity, start,
 * end, subject (an object), evidence and next (and host when several files). */
static void finding_out(int json, int multi, const struct rt_finding *f)
{
	char t1[64], t2[64], subj[600];

	if (json) {
		jopen(NULL, '{');
		js("rule", f->rule);
		js("severity", rt_sev_name(f->sev));
		jd("start", f->start_ns / 1e9);
		jd("end", f->end_ns / 1e9);
		jkey("subject");
		fputs(rt_subject_json(&f->subj, subj, sizeof(subj)), stdout);
		js("evidence", f->evidence);
		js("next", f->next);
		if (multi)
			js("host", f->host);
		jclose('}');
		return;
	}
	fmt_time(f->start_ns, t1, sizeof(t1));
	fmt_time(f->end_ns, t2, sizeof(t2));
	printf("  %s .. %s  %-8s %-18s", t1, t2 + 11, rt_sev_name(f->sev), f->rule);
	if (multi)
		printf(" [%s]", f->host);
	printf(" %s\n      %s\n      next: %s\n", rt_subject_text(&f->subj, subj, sizeof(subj)),
	       f->evidence, f->next);
}

static void findings_out(int json, int multi, const struct rt_flog *L)
{
	size_t i;

	if (json)
		jopen("findings", '[');
	else
		printf("\nFindings (%zu), in time order\n", L->n);
	for (i = 0; i < L->n; i++)
		finding_out(json, multi, &L->f[i]);
	if (json)
		jclose(']');
	else if (!L->n)
		printf("  (none: no rule matched)\n");
}

static void print_report(struct report *r)
{
	__u64 span = r->last_ns - r->first_ns + r->step_ns;
	__u64 start = r->first_ns - r->step_ns;
	char t1[64], t2[64];

	if (r->json) {
		if (!r->multi)
			jfirst = 1;
		jopen(NULL, '{');
		js("file", r->path);
		js("kind", r->kind);
		js("host", r->host);
		ju("intervals", r->nm);
		jd("start", start / 1e9);
		jd("end", r->last_ns / 1e9);
		jd("duration", span / 1e9);
		js("start_utc", fmt_time(start, t1, sizeof(t1)));
		js("end_utc", fmt_time(r->last_ns, t2, sizeof(t2)));
		jopen("totals", '{');
		ju("flows", r->n);
		json_counters(&r->tot);
		ju("frames", r->itot.pkts);
		ju("roce_frames", r->itot.roce);
		ju("not_roce", r->itot.not_roce);
		ju("pause_frames", r->itot.mac_ctrl);
		ju("truncated", r->itot.truncated);
		ju("malformed", r->itot.malformed);
		ju("table_full", r->itot.flow_full);
		ju("mirrored", r->itot.mirrored);
		ju("evicted", r->evicted);
		ju("sflow_estimated_pkts_left_out", r->est_pkts);
		ju("sflow_samples_left_out", r->est_samples);
		jclose('}');
		findings_out(1, 0, &r->flog);
	} else {
		char safe[4096], sh[256];

		printf("rocetop report: %s (%s, host %s)\n", rt_fmt_safe(r->path, safe, sizeof(safe)), r->kind,
		       rt_fmt_safe(r->host, sh, sizeof(sh)));
		printf("time      %s .. %s (%.3f s, %zu intervals)\n", fmt_time(start, t1, sizeof(t1)),
		       fmt_time(r->last_ns, t2, sizeof(t2)), span / 1e9, r->nm);
		printf("RoCE      %llu flows, %llu pkts, %llu bytes; CE %llu (%.2f%%), CNP %llu, ACK %llu, NAK %llu (seq %llu, other %llu), RNR NAK %llu\n",
		       (unsigned long long)r->n, (unsigned long long)r->tot.pkts,
		       (unsigned long long)r->tot.bytes, (unsigned long long)r->tot.ecn[RT_ECN_CE],
		       r->tot.pkts ? 100.0 * r->tot.ecn[RT_ECN_CE] / r->tot.pkts : 0.0,
		       (unsigned long long)r->tot.cnp, (unsigned long long)r->tot.ack,
		       (unsigned long long)rt_nak(&r->tot), (unsigned long long)r->tot.nak_seq,
		       (unsigned long long)r->tot.nak_other, (unsigned long long)r->tot.rnr_nak);
		printf("frames    %llu: RoCE %llu, other %llu, pause %llu, truncated %llu, malformed %llu, table full %llu; flows evicted %llu\n",
		       (unsigned long long)r->itot.pkts, (unsigned long long)r->itot.roce,
		       (unsigned long long)r->itot.not_roce, (unsigned long long)r->itot.mac_ctrl,
		       (unsigned long long)r->itot.truncated, (unsigned long long)r->itot.malformed,
		       (unsigned long long)r->itot.flow_full, (unsigned long long)r->evicted);
		if (r->itot.mirrored)
			printf("mirror    %llu mirror copies decapsulated (ERSPAN, GRE, VXLAN); their flows "
			       "say which session\n", (unsigned long long)r->itot.mirrored);
		if (r->est_samples)
			printf("sFlow     ~%llu pkts estimated from %llu samples are not in this report's flows "
			       "(the switch ports are in switchports.csv of a replay: rocetop -r FILE --csv DIR)\n",
			       (unsigned long long)r->est_pkts, (unsigned long long)r->est_samples);
		if (!r->multi)
			findings_out(0, 0, &r->flog);
	}
	if (r->json)
		jopen("top", '{');
	top_flows(r, "Top flows by CE", "ce", by_ce, v_ce);
	top_flows(r, "Top flows by CNP", "cnp", by_cnp, v_cnp);
	top_flows(r, "Top flows by NAK (incl. RNR)", "nak", by_nak, v_nak);
	if (r->json) {
		jclose('}');
		jopen("moments", '{');
	}
	moments(r);
	if (r->json)
		jclose('}');
	pauses(r);
	host_pairs(r);
	throttled(r);
	nic_counters(r);
	if (r->json) {
		jclose('}');
		if (!r->multi)
			fputc('\n', stdout);
	}
}

/* ---- several files: one timeline across hosts ---- */

/* A data flow on another host with the addresses and QP a CNP flow throttles. */
static const struct agg_flow *find_data_flow(const struct report *r, const struct rt_flow_key *k)
{
	__u32 i;

	for (i = 0; i < r->n; i++) {
		const struct agg_flow *f = r->flows[i];

		if (f->k.family == k->family && f->k.dqpn == k->dqpn && !memcmp(f->k.src, k->src, 16) &&
		    !memcmp(f->k.dst, k->dst, 16) && data_pkts(f))
			return f;
	}
	return NULL;
}

/* CNPs seen on one host tied to the data flows they throttle on another. */
static void cnp_matches(struct report *rs, int n, int json, int top)
{
	char b1[256], b2[256];
	int i, j, shown = 0;
	__u32 k;

	if (json)
		jopen("cnp_matches", '[');
	else
		printf("\nCNPs on one host matched to the data flows they throttle on another\n");
	for (i = 0; i < n; i++) {
		struct report *a = &rs[i];

		qsort(a->flows, a->n, sizeof(*a->flows), by_cnp);
		for (k = 0; k < a->n; k++) {
			const struct agg_flow *c = a->flows[k];

			if (!c->v.cnp)
				break;
			if (!c->has_target)
				continue;
			for (j = 0; j < n; j++) {
				const struct agg_flow *dfl;

				if (j == i || !(dfl = find_data_flow(&rs[j], &c->target)))
					continue;
				if (top && shown >= top)
					break;
				shown++;
				if (json) {
					jopen(NULL, '{');
					js("cnp_host", a->host);
					jopen("cnp_flow", '{');
					flow_json(a, c);
					jclose('}');
					js("data_host", rs[j].host);
					jopen("data_flow", '{');
					flow_json(&rs[j], dfl);
					jclose('}');
					jclose('}');
					continue;
				}
				printf("  [%s] %llu CNPs on %s\n      throttle [%s] %s: %llu data packets, CE %llu\n",
				       a->host, (unsigned long long)c->v.cnp, flow_text(a, &c->k, b1, sizeof(b1)),
				       rs[j].host, flow_text(&rs[j], &dfl->k, b2, sizeof(b2)),
				       (unsigned long long)data_pkts(dfl), (unsigned long long)dfl->v.ecn[RT_ECN_CE]);
			}
		}
	}
	if (json)
		jclose(']');
	else if (!shown)
		printf("  (none: no CNP flow's target was seen on another host)\n");
}

/* Host pairs over every file, each file's flows counted once. */
static int merged_pairs(struct report *rs, int n, int json, int top)
{
	struct report all = { 0 };
	size_t np = 0, i;
	int k, err = 0;

	for (k = 0; k < n; k++)
		np += rs[k].npairs;
	all.pairs = calloc(np ? np : 1, sizeof(*all.pairs));
	if (!all.pairs)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		for (i = 0; i < rs[k].npairs; i++) {
			const struct pair *p = &rs[k].pairs[i];
			size_t j;

			for (j = 0; j < all.npairs; j++)
				if (all.pairs[j].family == p->family && !memcmp(all.pairs[j].a, p->a, 16) &&
				    !memcmp(all.pairs[j].b, p->b, 16))
					break;
			if (j == all.npairs)
				all.pairs[all.npairs++] = (struct pair){ .family = p->family };
			memcpy(all.pairs[j].a, p->a, 16);
			memcpy(all.pairs[j].b, p->b, 16);
			rt_flow_val_add(&all.pairs[j].v, &p->v);
			all.pairs[j].flows += p->flows;
		}
	qsort(all.pairs, all.npairs, sizeof(*all.pairs), pair_cmp);
	all.json = json;
	all.top = top;
	if (!json)
		printf("\nOver all %d files:", n);
	host_pairs(&all);
	free(all.pairs);
	return err;
}

static void print_merged(struct report *rs, int n, int json, int top)
{
	struct rt_flog L = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < rs[i].flog.n; j++) {
			if (rt_grow_to((void **)&L.f, &L.cap, L.n + 1, sizeof(*L.f)))
				break;
			L.f[L.n++] = rs[i].flog.f[j];
		}
	}
	rt_flog_sort(&L);
	if (json) {
		jfirst = 1;
		jopen(NULL, '{');
		jopen("hosts", '[');
		for (i = 0; i < n; i++) {
			jopen(NULL, '{');
			js("host", rs[i].host);
			js("file", rs[i].path);
			jclose('}');
		}
		jclose(']');
	} else {
		printf("rocetop report: %d files, one timeline\n", n);
		for (i = 0; i < n; i++)
			printf("  [%s] %s (%s)\n", rs[i].host, rs[i].path, rs[i].kind);
	}
	findings_out(json, 1, &L);
	cnp_matches(rs, n, json, top);
	merged_pairs(rs, n, json, top);
	if (json)
		jopen("files", '[');
	for (i = 0; i < n; i++) {
		if (!json)
			printf("\n==== [%s] %s ====\n", rs[i].host, rs[i].path);
		print_report(&rs[i]);
	}
	if (json) {
		jclose(']');
		jclose('}');
		fputc('\n', stdout);
	}
	rt_flog_free(&L);
}

enum { R_JSON = 256, R_TOP, R_LINK_SPEED, R_MAX_FLOWS, R_THRESHOLD };

static const struct rt_opt report_opts[] = {
	{ R_JSON, "json", NULL, "machine-readable output" },
	{ 'd', "interval", "S", "captures: length of the intervals in seconds (default 1)" },
	{ R_TOP, "top", "N", "rows per table (default 10, 0: all)" },
	{ R_LINK_SPEED, "link-speed", "S", "link speed for paused time, e.g. 25G, 100G, 400G, 40000M\n"
					  "(default: the interface's speed in sysfs, else 100G)" },
	{ R_MAX_FLOWS, "max-flows", "N", "keep at most N flows of a capture (default: all)" },
	{ R_THRESHOLD, "threshold", "NAME=VALUE", "a rule's threshold (the names: rocetop -h)" },
	{ 'h', "help", NULL, "this text" },
	RT_OPT_END,
};

static const struct rt_cli report_cli = {
	.prog = "rocetop report",
	.usage =
"Usage: rocetop report FILE [FILE ...] [--json] [--interval S] [--top N] [--link-speed SPEED]\n"
"Summarise rocetop recordings or pcap/pcapng captures: the findings as a\n"
"timeline first, then duration and totals, the top flows by CE, CNP and NAK,\n"
"the moments of peak CE rate and PFC pauses, paused time per priority, host\n"
"pairs ranked, and the data flows CNPs throttled. Several files (recordings\n"
"from several hosts) merge into one timeline naming each host, with CNPs on\n"
"one host matched to the data flows they throttle on another.\n",
	.opts = report_opts,
	.width = 20,
	.long_indent = 2,
};

struct report_args {
	struct rt_opts *o;
	struct rt_find_cfg *cfg;
	int json, top;
	__u64 speed;
	const char *speed_from;
};

/* One option of report's command line: 0, 1 (help shown) or -EINVAL. */
static int report_opt(void *ctx, int id, const char *arg)
{
	struct report_args *a = ctx;
	double v;

	switch (id) {
	case R_JSON:
		a->json = 1;
		return 0;
	case 'd':
		if (rt_parse_num(arg, RT_NUM_SECONDS, 0.001, 86400, &a->o->interval)) {
			pr_warn("--interval '%s' is not valid: give seconds between 0.001 and 86400.\n", arg);
			return -EINVAL;
		}
		return 0;
	case R_TOP:
		if (rt_parse_num(arg, RT_NUM_INT, 0, INT_MAX, &v)) {
			pr_warn("--top '%s' is not valid: give a number of rows, 0 for all.\n", arg);
			return -EINVAL;
		}
		a->top = (int)v;
		return 0;
	case R_LINK_SPEED:
		if (rt_parse_speed(arg, &a->speed)) {
			pr_warn("--link-speed '%s' is not valid: give a speed such as 25G, 100G or 40000M.\n", arg);
			return -EINVAL;
		}
		a->speed_from = "given";
		return 0;
	case R_MAX_FLOWS:
		if (rt_parse_num(arg, RT_NUM_INT, 16, 1 << 24, &v)) {
			pr_warn("--max-flows '%s' is not valid: give a number between 16 and 16777216.\n", arg);
			return -EINVAL;
		}
		a->o->max_flows = (__u32)v;
		a->o->max_flows_set = 1;
		return 0;
	case R_THRESHOLD:
		return rt_find_cfg_set(a->cfg, arg) ? -EINVAL : 0;
	case 'h':
		rt_cli_help(&report_cli, stdout);
		return 1;
	}
	return -EINVAL;
}

/* Read one file into r; 0, or 1 after saying why. */
static int load_file(struct report *r, struct rt_opts *o, const struct rt_find_cfg *cfg)
{
	struct rt_snapshot snaps[2];
	struct rt_stream st = { 0 };
	struct rt_findings F;
	struct rt_source *src;
	int have = 0, err = 0, rc = 1;
	double first_secs = 0;
	__u32 i, k;
	const char *base;

	o->read_file = r->path;
	src = rt_file_source_new(o);
	if (!src)
		return 1;
	r->kind = strcmp(src->name, "recording") ? "capture" : "recording";
	base = strrchr(r->path, '/');
	snprintf(r->host, sizeof(r->host), "%s", src->host && src->host[0] ? src->host : base ? base + 1 : r->path);
	rt_findings_init(&F, cfg);
	snprintf(F.host, sizeof(F.host), "%s", r->host);
	if (r->speed_mbps)
		F.cfg.speed_mbps = r->speed_mbps;
	rt_snapshot_init(&snaps[0]);
	rt_snapshot_init(&snaps[1]);
	/* A recording's first interval has no known length: the rules take the
	 * second's (its snapshots are one interval apart). */
	if (!strcmp(r->kind, "recording") && src->rewind) {
		if (src->collect(src, &snaps[0]) > 0 && src->collect(src, &snaps[1]) > 0 &&
		    snaps[1].time_ns > snaps[0].time_ns)
			first_secs = (snaps[1].time_ns - snaps[0].time_ns) / 1e9;
		rt_snapshot_clear(&snaps[0]);
		rt_snapshot_clear(&snaps[1]);
		if (src->rewind(src)) {
			pr_warn("cannot read %s again from its start.\n", r->path);
			goto out;
		}
	}
	if (rt_stream_init(&st, src, NULL)) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		err = rt_stream_step(&st);
		if (err <= 0)
			break;
		if (!have)
			st.delta.secs = strcmp(r->kind, "capture") ? 0 : o->interval;
		have = 1;
		if ((err = take(r, &st.cur, &st.delta)) || (err = take_ports(r, &st.cur, &st.delta)))
			break;
		if (st.delta.secs == 0)
			st.delta.secs = first_secs;
		if ((err = rt_findings_eval(&F, &st.cur, &st.delta)) || (err = rt_flog_take(&r->flog, &F)))
			break;
		rt_flow_val_add(&r->tot, &st.delta.flow_tot);
		rt_if_val_add(&r->itot, &st.delta.if_tot);
	}
	rt_findings_finish(&F);
	if (!err)
		err = rt_flog_take(&r->flog, &F);
	rt_flog_sort(&r->flog);
	if (err < 0) {
		pr_warn("cannot finish the report of %s: %s.\n", r->path, strerror(-err));
		goto out;
	}
	if (!r->nm) {
		pr_warn("%s holds no interval to report on.\n", r->path);
		goto out;
	}
	/* A first recorded interval's length is unknown: take the next one's. */
	if (r->nm > 1 && r->m[0].secs == 0)
		r->m[0].secs = r->step_ns / 1e9;
	if (!strcmp(r->kind, "capture") && r->nm == 1)
		r->step_ns = (__u64)(o->interval * 1e9);
	if (!r->speed_mbps) {
		for (i = 0; i < r->nifs && !r->speed_mbps; i++)
			r->speed_mbps = rt_link_speed_mbps(r->ifs[i].name);
		r->speed_from = r->speed_mbps ? "sysfs" : "assumed";
		if (!r->speed_mbps)
			r->speed_mbps = 100000;
	}
	r->n = r->tab.n;
	r->flows = calloc(r->n ? r->n : 1, sizeof(*r->flows));
	if (r->flows)
		for (i = 0, k = 0; i < r->tab.cap; i++)
			if (r->tab.used[i])
				r->flows[k++] = rt_htab_at(&r->tab, i);
	if (!r->flows || build_pairs(r)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	rc = 0;
out:
	src->close(src);
	rt_snapshot_free(&snaps[0]);
	rt_snapshot_free(&snaps[1]);
	rt_stream_free(&st);
	rt_findings_free(&F);
	return rc;
}

static void report_free(struct report *r)
{
	rt_htab_free(&r->tab);
	free(r->m);
	free(r->flows);
	free(r->pairs);
	free(r->ports);
	rt_flog_free(&r->flog);
}

int rt_report_main(int argc, char **argv)
{
	struct report *rs = NULL;
	struct rt_find_cfg cfg;
	struct rt_opts o;
	struct report_args ra = { .o = &o, .cfg = &cfg, .top = 10 };
	int nfiles, i, rc = 1, first, err;
	int json;
	int top;
	__u64 speed;
	const char *speed_from;

	rt_opts_defaults(&o);
	rt_find_cfg_defaults(&cfg);
	o.daemon = 1;	/* no view: keeps the capture reader's progress meter honest */
	err = rt_cli_parse(&report_cli, argc, argv, report_opt, &ra, &first);
	if (err)
		return err > 0 ? 0 : 2;
	json = ra.json;
	top = ra.top;
	speed = ra.speed;
	speed_from = ra.speed_from;
	optind = first;
	nfiles = argc - optind;
	if (nfiles < 1) {
		pr_warn("report takes one file or more: rocetop report FILE [FILE ...] [--json].\n");
		return 2;
	}
	rs = calloc((size_t)nfiles, sizeof(*rs));
	if (!rs) {
		pr_warn("out of memory.\n");
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		rs[i].path = argv[optind + i];
		rs[i].json = json;
		rs[i].top = top;
		rs[i].speed_mbps = speed;
		rs[i].speed_from = speed_from;
		rs[i].multi = nfiles > 1;
		if (load_file(&rs[i], &o, &cfg))
			goto out;
	}
	/* Two files from one host keep apart by their file names. */
	for (i = 1; i < nfiles; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(rs[i].host, rs[j].host)) {
				const char *b = strrchr(rs[i].path, '/');
				size_t k;

				snprintf(rs[i].host, sizeof(rs[i].host), "%s", b ? b + 1 : rs[i].path);
				for (k = 0; k < rs[i].flog.n; k++)
					snprintf(rs[i].flog.f[k].host, sizeof(rs[i].flog.f[k].host), "%s", rs[i].host);
				break;
			}
	if (nfiles == 1)
		print_report(&rs[0]);
	else
		print_merged(rs, nfiles, json, top);
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		pr_warn("writing the report to standard output failed: %s.\n", strerror(errno ? errno : EIO));
		rc = 1;
	} else {
		rc = 0;
	}
out:
	for (i = 0; i < nfiles; i++)
		report_free(&rs[i]);
	free(rs);
	return rc;
}
