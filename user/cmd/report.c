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
#include "fmt.h"
#include "log.h"
#include "num.h"
#include "opts.h"
#include "source.h"

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

_Static_assert(offsetof(struct agg_flow, k) == 0, "struct rt_htab wants the key first");

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

/* A host pair, both directions together (RT_HP_EITHER in derive.h). */
struct pair {
	struct rt_hostpair hp;
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
	size_t n;			/* flows: tab.n */
	struct agg_if ifs[2 * RT_MAX_IFACES];
	size_t nifs;
	struct moment *m;
	size_t nm, mcap;
	__u64 first_ns, last_ns, step_ns, evicted;
	struct rt_flow_val tot;
	struct rt_if_val itot;
	struct agg_flow **flows;	/* tab's used entries */
	struct rt_htab pairtab;		/* struct pair by host pair */
	struct pair **pairs;		/* pairtab's entries, ranked */
	size_t npairs;
	struct agg_port *ports;	/* sorted like a snapshot's ports table */
	size_t nports, pcap;
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
			memcpy(a->comm, f->comm, sizeof(a->comm));
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
		snprintf(ai->name, sizeof(ai->name), "%s", rt_snapshot_ifname(s, x->k.ifindex));
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

static int by_ce(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(b->v.ecn[RT_ECN_CE], a->v.ecn[RT_ECN_CE]);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int by_cnp(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(b->v.cnp, a->v.cnp);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int by_nak(const void *x, const void *y)
{
	const struct agg_flow *a = *(struct agg_flow *const *)x, *b = *(struct agg_flow *const *)y;
	int c = RT_SPACESHIP(rt_nak(&b->v) + b->v.rnr_nak, rt_nak(&a->v) + a->v.rnr_nak);

	return c ? c : rt_flow_key_cmp(&a->k, &b->k);
}

static int m_by_ce(const void *x, const void *y)
{
	const struct moment *a = x, *b = y;
	double ra = a->secs > 0 ? a->ce / a->secs : 0, rb = b->secs > 0 ? b->ce / b->secs : 0;
	int c = RT_SPACESHIP(rb, ra);

	return c ? c : RT_SPACESHIP(a->time_ns, b->time_ns);
}

static int m_by_pfc(const void *x, const void *y)
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

static void jstr(const char *s)
{
	fputc('"', stdout);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			fputc(c, stdout);
	}
	fputc('"', stdout);
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
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN];

	snprintf(buf, len, "%s %s %s -> %s qp %u", ifname_of(r, k->ifindex), rt_dir_name(k->dir),
		 rt_fmt_addr(k->family, k->src, a1, sizeof(a1)),
		 rt_fmt_addr(k->family, k->dst, a2, sizeof(a2)), k->dqpn);
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
		const struct pair *p = r->pairs[i];
		char hs[100];

		rt_fmt_addr(p->hp.family, p->hp.a, a1, sizeof(a1));
		rt_fmt_addr(p->hp.family, p->hp.b, a2, sizeof(a2));
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
			ju("score", rt_congestion(&p->v));
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

/* How a CNP flow was tied to its data flow; recordings made before the
 * attribution was kept say "recorded". */
static const char *attr_name(__u8 a)
{
	return a == RT_ATTR_NONE || a > RT_ATTR_HOSTPAIR ? "recorded" : rt_attr_names(a)->key;
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
			t = rt_htab_find(&r->tab, &c->target, rt_flow_key_hash(&c->target));
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
			printf(" at %s\n", fmt_time(a->peak_t, t, sizeof(t)));
		}
	}
	if (r->json)
		jclose(']');
	else if (!shown)
		printf("  (none: no NIC counters in this file, or none moved)\n");
}

static void print_report(struct report *r)
{
	__u64 span = r->last_ns - r->first_ns + r->step_ns;
	__u64 start = r->first_ns - r->step_ns;
	char t1[64], t2[64];

	if (r->json) {
		jfirst = 1;
		jopen(NULL, '{');
		js("file", r->path);
		js("kind", r->kind);
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
		ju("evicted", r->evicted);
		jclose('}');
	} else {
		printf("rocetop report: %s (%s)\n", r->path, r->kind);
		printf("time      %s .. %s (%.3f s, %zu intervals)\n", fmt_time(start, t1, sizeof(t1)),
		       fmt_time(r->last_ns, t2, sizeof(t2)), span / 1e9, r->nm);
		printf("RoCE      %llu flows, %llu pkts, %llu bytes; CE %llu (%.2f%%), CNP %llu, ACK %llu, NAK %llu (seq %llu, other %llu), RNR NAK %llu\n",
		       (unsigned long long)r->n, (unsigned long long)r->tot.pkts,
		       (unsigned long long)r->tot.bytes, (unsigned long long)r->tot.ecn[RT_ECN_CE],
		       rt_ce_pct(&r->tot),
		       (unsigned long long)r->tot.cnp, (unsigned long long)r->tot.ack,
		       (unsigned long long)rt_nak(&r->tot), (unsigned long long)r->tot.nak_seq,
		       (unsigned long long)r->tot.nak_other, (unsigned long long)r->tot.rnr_nak);
		printf("frames    %llu: RoCE %llu, other %llu, pause %llu, truncated %llu, malformed %llu, table full %llu; flows evicted %llu\n",
		       (unsigned long long)r->itot.pkts, (unsigned long long)r->itot.roce,
		       (unsigned long long)r->itot.not_roce, (unsigned long long)r->itot.mac_ctrl,
		       (unsigned long long)r->itot.truncated, (unsigned long long)r->itot.malformed,
		       (unsigned long long)r->itot.flow_full, (unsigned long long)r->evicted);
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
		fputc('\n', stdout);
	}
}

static const char report_usage[] =
"Usage: rocetop report FILE [--json] [--interval S] [--top N] [--link-speed SPEED]\n"
"Summarise a rocetop recording or a pcap/pcapng capture: duration and totals,\n"
"the top flows by CE, CNP and NAK, the moments of peak CE rate and PFC pauses,\n"
"paused time per priority, host pairs ranked, and the data flows CNPs throttled.\n"
"  --json            machine-readable output\n"
"  -d, --interval S  captures: length of the intervals in seconds (default 1)\n"
"  --top N           rows per table (default 10, 0: all)\n"
"  --link-speed S    link speed for paused time, e.g. 25G, 100G, 400G, 40000M\n"
"                    (default: the interface's speed in sysfs, else 100G)\n"
"  --max-flows N     flow table size for captures (default 16384)\n";

int rt_report_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'd' },
		{ "top", required_argument, NULL, 't' },
		{ "link-speed", required_argument, NULL, 's' },
		{ "max-flows", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { 0 };
	struct rt_snapshot snaps[2];
	struct rt_delta d = { 0 };
	struct rt_source *src = NULL;
	struct rt_opts o;
	int c, cur = 0, have = 0, err = 0, rc = 1;
	__u32 i, k;
	double v;

	rt_htab_init(&r.tab, sizeof(struct agg_flow), sizeof(struct rt_flow_key), 0);
	rt_htab_init(&r.pairtab, sizeof(struct pair), sizeof(struct rt_hostpair), 0);
	rt_opts_defaults(&o);
	o.daemon = 1;	/* no view: keeps the capture reader's progress meter honest */
	r.top = 10;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'j': r.json = 1; break;
		case 'd':
			if (rt_parse_num(optarg, RT_NUM_SECONDS, 0.001, 86400, &o.interval)) {
				pr_warn("--interval '%s' is not valid: give seconds between 0.001 and 86400.\n", optarg);
				return 2;
			}
			break;
		case 't':
			if (rt_parse_num(optarg, RT_NUM_INT, 0, INT_MAX, &v)) {
				pr_warn("--top '%s' is not valid: give a number of rows, 0 for all.\n", optarg);
				return 2;
			}
			r.top = (int)v;
			break;
		case 's':
			if (rt_parse_num(optarg, RT_NUM_SPEED, 1, 1e7, &v)) {
				pr_warn("--link-speed '%s' is not valid: give a speed such as 25G, 100G or 40000M.\n", optarg);
				return 2;
			}
			r.speed_mbps = (__u64)v;
			r.speed_from = "given";
			break;
		case 'm':
			if (rt_parse_num(optarg, RT_NUM_INT, 16, 1 << 24, &v)) {
				pr_warn("--max-flows '%s' is not valid: give a number between 16 and 16777216.\n", optarg);
				return 2;
			}
			o.max_flows = (__u32)v;
			break;
		case 'h': fputs(report_usage, stdout); return 0;
		default:
			fputs(report_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		pr_warn("report takes one file: rocetop report FILE [--json].\n");
		return 2;
	}
	o.read_file = r.path = argv[optind];
	src = rt_file_source_new(&o);
	if (!src)
		return 1;
	r.kind = strcmp(src->name, "recording") ? "capture" : "recording";
	rt_snapshot_init(&snaps[0]);
	rt_snapshot_init(&snaps[1]);
	for (;;) {
		struct rt_snapshot *next = &snaps[have ? !cur : cur];

		rt_snapshot_clear(next);
		err = src->collect(src, next);
		if (err <= 0)
			break;
		if (rt_delta_compute(&d, have ? &snaps[cur] : NULL, next)) {
			err = -ENOMEM;
			break;
		}
		if (!have)
			d.secs = strcmp(r.kind, "capture") ? 0 : o.interval;
		cur = have ? !cur : cur;
		have = 1;
		if ((err = take(&r, next, &d)) || (err = take_ports(&r, next, &d)))
			break;
		rt_flow_val_add(&r.tot, &d.flow_tot);
		rt_if_val_add(&r.itot, &d.if_tot);
	}
	if (err < 0) {
		pr_warn("cannot finish the report of %s: %s.\n", r.path, strerror(-err));
		goto out;
	}
	if (!r.nm) {
		pr_warn("%s holds no interval to report on.\n", r.path);
		goto out;
	}
	/* A first recorded interval's length is unknown: take the next one's. */
	if (r.nm > 1 && r.m[0].secs == 0)
		r.m[0].secs = r.step_ns / 1e9;
	if (!strcmp(r.kind, "capture") && r.nm == 1)
		r.step_ns = (__u64)(o.interval * 1e9);
	if (!r.speed_mbps) {
		for (i = 0; i < r.nifs && !r.speed_mbps; i++)
			r.speed_mbps = rt_link_speed_mbps(r.ifs[i].name);
		r.speed_from = r.speed_mbps ? "sysfs" : "assumed";
		if (!r.speed_mbps)
			r.speed_mbps = 100000;
	}
	r.n = r.tab.n;
	r.flows = calloc(r.n ? r.n : 1, sizeof(*r.flows));
	if (r.flows)
		for (i = 0, k = 0; i < r.tab.cap; i++)
			if (r.tab.used[i])
				r.flows[k++] = rt_htab_at(&r.tab, i);
	if (!r.flows || build_pairs(&r)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	print_report(&r);
	rc = fflush(stdout) ? 1 : 0;
out:
	src->close(src);
	rt_snapshot_free(&snaps[0]);
	rt_snapshot_free(&snaps[1]);
	rt_delta_free(&d);
	rt_htab_free(&r.tab);
	rt_htab_free(&r.pairtab);
	free(r.m);
	free(r.flows);
	free(r.pairs);
	free(r.ports);
	return rc;
}
