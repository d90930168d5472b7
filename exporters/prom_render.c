// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Prometheus exposition: one snapshot and its delta rendered into the
 * text format 0.0.4 and OpenMetrics 1.0, with no I/O (exporters/prom_http.c
 * serves what this writes; tests/unit/test_prom.c checks it).
 *
 * Values are totals since the start, never deltas. A flow evicted from the
 * kernel's table vanishes from the top K (fine for Prometheus); the host-pair
 * totals are summed here from the per-interval deltas so that they stay
 * monotonic when their flows are evicted. Names: exporters/README.md.
 *
 * This file keeps the renderer's state across intervals (the host-pair, job
 * and NIC-counter accumulators), writes the families that read it (build
 * and interval meta, host pairs, top-K flows, jobs, NIC counters) and puts
 * the document together; the families that need no state are written by
 * the files beside it (exporters/prom_out.h names them).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "findings.h"
#include "jobagg.h"
#include "fmt.h"
#include "derive.h"
#include "linkspeed.h"
#include "log.h"
#include "prom.h"
#include "prom_out.h"

#define MAX_HOSTPAIRS	65536	/* host-pair accumulators kept */
/* Host pairs exported: the most congested (then busiest) since start. With
 * eleven series a pair, every pair of a big fabric would be hundreds of
 * thousands of series (721,109 at 100k flows); this bounds them at 2,816. */
#define EXPORT_HOSTPAIRS	256
/* Jobs (user/core/job.h): accumulators kept, and exported (the most
 * congested since start): eleven series each and two shares, at most 832. */
#define MAX_JOBS	4096
#define EXPORT_JOBS	64

/* Host-pair accumulators: flow deltas summed per host pair in the
 * RT_HP_IFACE scope scope (derive.h): the series carry interface and direction. */
struct hp {
	struct rt_hostpair k;	/* first: the table's key */
	struct rt_flow_val v;
};

/* A job's accumulator: the deltas of its flows since start (key "kind:job"). */
struct pjob {
	char key[RT_JOB_KEY_LEN];	/* first: the table's key */
	__u8 kind;
	struct rt_flow_val v;
};

struct rt_prom_render {
	int top_k;
	__u64 speed_given;	/* --link-speed (rt_link_speed decides) */
	__u64 intervals;
	double last_render_secs;
	struct rt_htab hp;		/* struct hp, at most MAX_HOSTPAIRS */
	int hp_full_warned;
	const struct rt_flow_delta **order;
	size_t order_cap;
	struct rt_flow_delta *idle;	/* unchanged flows filling the top K */
	__u32 *heap;
	void **hp_order;		/* struct hp * (top_rows) */
	size_t hp_order_cap;
	size_t hp_tracked;		/* host pairs with totals; at most EXPORT_HOSTPAIRS exported */
	struct rt_htab jobs;		/* struct pjob, at most MAX_JOBS */
	int jobs_full_warned;
	void **job_order;		/* struct pjob * (top_rows) */
	size_t job_order_cap, jobs_tracked;
	struct rt_jobagg blame;		/* the interval's flows by job: the shares (jobagg.h) */
	struct rt_prom_self self;	/* the exporter's own figures, if valid */
	/* NIC counters as exported: sorted like a snapshot's ports table. */
	struct nic_acc *nic;
	size_t nic_n, nic_cap;
	size_t *probe_order, probe_cap;	/* the probe rows exported (prom_probe.c) */
};

/*
 * A NIC counter's exported total: the driver's value when first seen, then
 * the sum of each interval's increase as rt_delta_compute gives it (32-bit
 * wraps and driver resets accounted for), so the series never goes down and
 * rate() sees every increment, including across a wrap.
 */
struct nic_acc {
	struct rt_port_ctr id;
	__u64 total;
};

_Static_assert(offsetof(struct nic_acc, id) == 0, "rt_port_table_get wants the counter first");

static struct nic_acc *nic_get(struct rt_prom_render *r, const struct rt_port_ctr *c, int *fresh)
{
	return rt_port_table_get((void **)&r->nic, &r->nic_n, &r->nic_cap, sizeof(*r->nic), c, fresh);
}

struct rt_prom_render *rt_prom_render_new(int top_k, __u64 speed_given)
{
	struct rt_prom_render *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->top_k = top_k < 0 ? 0 : top_k;
	r->speed_given = speed_given;
	rt_htab_init(&r->hp, sizeof(struct hp), sizeof(struct rt_hostpair), MAX_HOSTPAIRS);
	rt_htab_init(&r->jobs, sizeof(struct pjob), RT_JOB_KEY_LEN, MAX_JOBS);
	rt_jobagg_init(&r->blame, RT_GROUP_JOB);
	return r;
}

/* its own arrays, freed as table_free (user/core/snapshot.c) frees its own */
void rt_prom_render_free(struct rt_prom_render *r)
{
	if (!r)
		return;
	rt_htab_free(&r->hp);
	rt_htab_free(&r->jobs);
	rt_jobagg_free(&r->blame);
	free(r->job_order);
	free(r->order);
	free(r->idle);
	free(r->heap);
	free(r->hp_order);
	free(r->nic);
	free(r->probe_order);
	free(r);
}

void rt_prom_render_self(struct rt_prom_render *r, const struct rt_prom_self *s)
{
	if (s)
		r->self = *s;
	else
		r->self.valid = 0;
}

static struct hp *hp_get(struct rt_prom_render *r, const struct rt_hostpair *k)
{
	struct hp *h = rt_htab_get(&r->hp, k, rt_hostpair_hash(k), NULL);

	if (!h && errno == ENOSPC && !r->hp_full_warned++)
		pr_warn("more than %d host pairs: new ones are left out of the Prometheus metrics.\n",
			MAX_HOSTPAIRS);
	return h;
}

/* More congestion first, then more packets, then the key (a stable order). */
static int cmp_hp_rank(const void *a, const void *b)
{
	const struct hp *x = *(struct hp *const *)a, *y = *(struct hp *const *)b;
	int c = rt_val_cmp_congestion(&x->v, &y->v);

	return c ? c : rt_hostpair_cmp(&x->k, &y->k);
}

static int cmp_hp(const void *a, const void *b)
{
	return rt_hostpair_cmp(&(*(struct hp *const *)a)->k, &(*(struct hp *const *)b)->k);
}

/*
 * The rows of t in *order (grown to fit): at most keep of them, the first
 * by rank when t holds more, in key order. *tracked gets how many t holds.
 * How many are kept, or -ENOMEM. The host pairs and the jobs are bounded so.
 */
static long top_rows(const struct rt_htab *t, void ***order, size_t *cap, size_t keep, size_t *tracked,
		     int (*rank)(const void *, const void *), int (*key)(const void *, const void *))
{
	size_t i, n;

	if (rt_grow_to((void **)order, cap, t->n ? t->n : 1, sizeof(**order)))
		return -ENOMEM;
	for (i = 0, n = 0; i < t->cap; i++)
		if (t->used[i])
			(*order)[n++] = rt_htab_at(t, i);
	*tracked = n;
	if (n > keep) {
		qsort(*order, n, sizeof(**order), rank);
		n = keep;
	}
	if (n > 1)
		qsort(*order, n, sizeof(**order), key);
	return (long)n;
}

static int cmp_top_key(const void *a, const void *b)
{
	return rt_flow_key_cmp(&(*(const struct rt_flow_delta *const *)a)->f->k,
			       &(*(const struct rt_flow_delta *const *)b)->f->k);
}

/* Label order of the ecn label: not_ect, ect0, ect1, ce. */
static const int ecn_order[4] = { RT_ECN_NOT_ECT, RT_ECN_ECT0, RT_ECN_ECT1, RT_ECN_CE };

/* The per-host-pair and per-flow families share their shape: rows of rt_flow_val. */
struct rowset {
	size_t n;
	const struct rt_flow_val *(*val)(void *ctx, size_t i);
	void (*labels)(void *ctx, size_t i, char *set, size_t len);
	void *ctx;
};

/* One counter family's samples: each row's 64-bit counters at offs[0..n) of
 * its rt_flow_val, with the label lname=values[k] (none when lname is NULL). */
static void rows_u64(struct out *w, const char *name, const struct rowset *rs,
		     const char *lname, const char *const *values, const size_t *offs, int n)
{
	char set[LSET], more[LSET + 64];

	for (size_t i = 0; i < rs->n; i++) {
		const char *v = (const char *)rs->val(rs->ctx, i);

		set[0] = 0;
		rs->labels(rs->ctx, i, set, sizeof(set));
		for (int k = 0; k < n; k++) {
			snprintf(more, sizeof(more), "%s", set);
			if (lname)
				prom_label(more, sizeof(more), lname, values[k]);
			prom_sample_u(w, name, M_COUNTER, more, *(const __u64 *)(v + offs[k]));
		}
	}
}

#define V(f) offsetof(struct rt_flow_val, f)

static void flow_families(struct out *w, const char *prefix, const char *what, const struct rowset *rs)
{
	/* each family's suffix, unit, help (%s: what), label and counters */
	const struct {
		const char *suffix, *unit, *help, *lname;
		int n;
		const char *values[4];
		size_t offs[4];
	} fams[] = {
		{ "packets", NULL, "RoCEv2 packets %s, since rocetop started.", NULL, 1, { NULL }, { V(pkts) } },
		{ "bytes", "bytes", "Bytes of RoCEv2 frames %s (Ethernet header included, no FCS).", NULL, 1,
		  { NULL }, { V(bytes) } },
		{ "ecn_packets", NULL, "RoCEv2 packets %s by ECN codepoint (ce: congestion experienced).", "ecn", 4,
		  { rt_ecn_name(ecn_order[0]), rt_ecn_name(ecn_order[1]), rt_ecn_name(ecn_order[2]),
		    rt_ecn_name(ecn_order[3]) },
		  { V(ecn[ecn_order[0]]), V(ecn[ecn_order[1]]), V(ecn[ecn_order[2]]), V(ecn[ecn_order[3]]) } },
		{ "cnps", NULL, "Congestion notification packets (BTH opcode 0x81) %s.", NULL, 1, { NULL }, { V(cnp) } },
		{ "acks", NULL, "ACKs (AETH ACK syndrome) %s.", NULL, 1, { NULL }, { V(ack) } },
		{ "naks", NULL, "NAKs %s by reason (psn_sequence: PSN sequence error, other).", "reason", 2,
		  { "psn_sequence", "other" }, { V(nak_seq), V(nak_other) } },
		{ "rnr_naks", NULL, "Receiver-not-ready NAKs %s.", NULL, 1, { NULL }, { V(rnr_nak) } },
	};
	char name[96], help[256];

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, fams[f].suffix);
		snprintf(help, sizeof(help), fams[f].help, what);
		prom_family(w, name, M_COUNTER, fams[f].unit, help);
		rows_u64(w, name, rs, fams[f].lname, fams[f].values, fams[f].offs, fams[f].n);
	}
}

#undef V

struct render_ctx {
	struct rt_prom_render *r;
	const struct rt_snapshot *cur;
	size_t n;
};

static void addr_labels(const struct rt_snapshot *cur, __u32 ifindex, __u8 dir, __u8 fam,
			const __u8 *src, const __u8 *dst, char *set, size_t len)
{
	char a[RT_ADDR_STRLEN];

	prom_label(set, len, "interface", rt_snapshot_ifname(cur, ifindex));
	prom_label(set, len, "direction", rt_dir_name(dir));
	prom_label(set, len, "src", rt_fmt_addr(fam, src, a, sizeof(a)));
	prom_label(set, len, "dst", rt_fmt_addr(fam, dst, a, sizeof(a)));
}

/* The mirror label of a flow that came inside a mirror copy (flows.csv's mirror
 * column); none for a flow seen directly. */
static void mirror_label(char *set, size_t len, __u8 mirror, __u32 id)
{
	struct rt_flow_key k = { .mirror = mirror, .mirror_id = id };
	char m[RT_MIRROR_STRLEN];

	if (mirror)
		prom_label(set, len, "mirror", rt_fmt_mirror(&k, m, sizeof(m)));
}

static const struct rt_flow_val *hp_val(void *ctx, size_t i)
{
	return &((const struct hp *)((struct render_ctx *)ctx)->r->hp_order[i])->v;
}

static void hp_labels(void *ctx, size_t i, char *set, size_t len)
{
	struct render_ctx *c = ctx;
	const struct rt_hostpair *k = &((const struct hp *)c->r->hp_order[i])->k;

	addr_labels(c->cur, k->ifindex, k->dir, k->family, k->a, k->b, set, len);
	mirror_label(set, len, k->mirror, k->mirror_id);
}

static const struct rt_flow_val *top_val(void *ctx, size_t i)
{
	return &((struct render_ctx *)ctx)->r->order[i]->f->v;
}

static void top_labels(void *ctx, size_t i, char *set, size_t len)
{
	struct render_ctx *c = ctx;
	const struct rt_flow *f = c->r->order[i]->f;
	char q[16];

	addr_labels(c->cur, f->k.ifindex, f->k.dir, f->k.family, f->k.src, f->k.dst, set, len);
	snprintf(q, sizeof(q), "%u", f->k.dqpn);
	prom_label(set, len, "dqpn", q);
	mirror_label(set, len, f->k.mirror, f->k.mirror_id);
	/* Flows from the NIC's per-QP counters are marked; wire flows keep their labels. */
	if (f->k.origin == RT_ORIGIN_NIC)
		prom_label(set, len, "origin", "nic");
}

static void render_meta(struct rt_prom_render *r, struct out *w, const struct rt_snapshot *cur,
			const struct rt_delta *d)
{
	char set[LSET] = "";

	prom_label(set, sizeof(set), "version", RT_VERSION);
	prom_family(w, "rocetop_build", M_INFO, NULL, "rocetop's version; the value is always 1.");
	prom_sample_u(w, "rocetop_build", M_INFO, set, 1);
	prom_family(w, "rocetop_intervals", M_COUNTER, NULL, "Snapshots taken and rendered since rocetop started.");
	prom_sample_u(w, "rocetop_intervals", M_COUNTER, "", r->intervals);
	if (!cur)
		return;
	prom_family(w, "rocetop_last_snapshot_timestamp_seconds", M_GAUGE, "seconds",
	       "Time of the snapshot these metrics come from, seconds since the epoch.");
	prom_sample_d(w, "rocetop_last_snapshot_timestamp_seconds", M_GAUGE, "", cur->time_ns / 1e9);
	prom_family(w, "rocetop_interval_seconds", M_GAUGE, "seconds", "Length of the last interval.");
	prom_sample_d(w, "rocetop_interval_seconds", M_GAUGE, "", d ? d->secs : 0);
	prom_family(w, "rocetop_render_duration_seconds", M_GAUGE, "seconds",
	       "Time the previous interval's exposition took to render (scrapes only copy it).");
	prom_sample_d(w, "rocetop_render_duration_seconds", M_GAUGE, "", r->last_render_secs);
	prom_family(w, "rocetop_flows", M_GAUGE, NULL, "Flows in the flow table now.");
	prom_sample_u(w, "rocetop_flows", M_GAUGE, "", cur->nflows);
	prom_family(w, "rocetop_flows_evicted", M_COUNTER, NULL, "Flows removed from the flow table for idleness.");
	prom_sample_u(w, "rocetop_flows_evicted", M_COUNTER, "", cur->evicted);
}

/* How idle flows rank in cmp_top: total congestion, then key. */
static int idle_cmp(const struct rt_flow *x, const struct rt_flow *y)
{
	__u64 cx = rt_congestion(&x->v), cy = rt_congestion(&y->v);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return rt_flow_key_cmp(&x->k, &y->k);
}

static void heap_down(const struct rt_flow *f, __u32 *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, w = i;

		if (l < n && idle_cmp(&f[h[l]], &f[h[w]]) > 0)
			w = l;
		if (l + 1 < n && idle_cmp(&f[h[l + 1]], &f[h[w]]) > 0)
			w = l + 1;
		if (w == i)
			return;
		__u32 t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

/*
 * The loop's delta names only the flows that changed (snapshot.h); when fewer
 * than K of them moved, the top K's other seats go to the unchanged exact flows as
 * cmp_top ranks them (zero this interval: by total congestion, then key),
 * picked with a heap of K in one pass over the table. Returns how many.
 */
static size_t idle_fill(struct rt_prom_render *r, const struct rt_snapshot *cur, size_t want)
{
	size_t i, n = 0;

	if (!want)
		return 0;
	for (i = 0; i < cur->nflows; i++) {
		if (rt_snapshot_changed(cur, i) || cur->flows[i].estimate)
			continue;
		if (n < want) {
			r->heap[n++] = (__u32)i;
			if (n == want)
				for (size_t j = n / 2; j-- > 0;)
					heap_down(cur->flows, r->heap, n, j);
		} else if (idle_cmp(&cur->flows[i], &cur->flows[r->heap[0]]) < 0) {
			r->heap[0] = (__u32)i;
			heap_down(cur->flows, r->heap, n, 0);
		}
	}
	for (i = 0; i < n; i++) {
		const struct rt_flow *f = &cur->flows[r->heap[i]];

		r->idle[i].f = f;
		rt_flow_val_delta(&r->idle[i].d, &f->v, &f->v);
	}
	return n;
}

static int render_flows(struct rt_prom_render *r, struct out *w, const struct rt_snapshot *cur,
			const struct rt_delta *d)
{
	struct render_ctx c = { .r = r, .cur = cur };
	struct rowset rs = { .ctx = &c };
	size_t i, n, active, nidle;
	long top;

	/* host pairs: add this interval's deltas */
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		struct rt_hostpair k;
		struct hp *h;

		if (!d->flows[i].d.pkts && !rt_congestion(&d->flows[i].d) && !d->flows[i].d.ack)
			continue;
		if (f->estimate)	/* sFlow estimates have families of their own */
			continue;
		rt_hostpair_of(&k, &f->k, RT_HP_IFACE);
		h = hp_get(r, &k);
		if (h)
			rt_flow_val_add(&h->v, &d->flows[i].d);
	}
	top = top_rows(&r->hp, &r->hp_order, &r->hp_order_cap, EXPORT_HOSTPAIRS, &r->hp_tracked,
		       cmp_hp_rank, cmp_hp);
	if (top < 0)
		return (int)top;
	rs.n = n = (size_t)top;
	rs.val = hp_val;
	rs.labels = hp_labels;
	flow_families(w, "rocetop_hostpair", "between the host pair (all queue pairs)", &rs);
	prom_family(w, "rocetop_hostpairs_unexported", M_GAUGE, NULL,
	       "Host pairs with totals left out of rocetop_hostpair_*, beyond the " RT_STR(EXPORT_HOSTPAIRS)
	       " with the most congestion, then packets.");
	prom_sample_u(w, "rocetop_hostpairs_unexported", M_GAUGE, "", r->hp_tracked - n);

	/* top K flows of this interval, their totals */
	active = 0;
	for (i = 0; i < d->nflows; i++)
		if (!d->flows[i].f->estimate && (d->flows[i].d.pkts || rt_congestion(&d->flows[i].d)))
			active++;
	if (!r->idle && r->top_k) {
		r->idle = calloc((size_t)r->top_k, sizeof(*r->idle));
		r->heap = calloc((size_t)r->top_k, sizeof(*r->heap));
		if (!r->idle || !r->heap)
			return -ENOMEM;
	}
	nidle = cur->tab && active < (size_t)r->top_k ? idle_fill(r, cur, (size_t)r->top_k - active) : 0;
	if (rt_grow_to((void **)&r->order, &r->order_cap, d->nflows + nidle, sizeof(*r->order)))
		return -ENOMEM;
	for (i = 0, n = 0; i < d->nflows; i++)
		if (!d->flows[i].f->estimate)
			r->order[n++] = &d->flows[i];
	for (i = 0; i < nidle; i++)
		r->order[n++] = &r->idle[i];
	/* the top K by derive.h's congestion ordering: selected in O(n log K),
	 * not every changed flow sorted */
	n = rt_delta_top(r->order, n, (size_t)r->top_k, rt_delta_cmp_congestion);
	/* in key order, so a flow's series keep their place while the ranking moves */
	if (n > 1)
		qsort(r->order, n, sizeof(*r->order), cmp_top_key);
	rs.n = n;
	rs.val = top_val;
	rs.labels = top_labels;
	flow_families(w, "rocetop_flow", "of the flow (one QP, one direction, one interface; top K by congestion this interval)", &rs);
	return 0;
}

static const struct rt_flow_val *job_val(void *ctx, size_t i)
{
	return &((const struct pjob *)((struct render_ctx *)ctx)->r->job_order[i])->v;
}

static void job_labels(void *ctx, size_t i, char *set, size_t len)
{
	const struct pjob *j = ((struct render_ctx *)ctx)->r->job_order[i];
	const char *colon = strchr(j->key, ':');

	prom_label(set, len, "job_kind", rt_job_kind_name(j->kind));
	prom_label(set, len, "job_name", colon ? colon + 1 : j->key);
}

static int cmp_job_rank(const void *a, const void *b)
{
	const struct pjob *x = *(struct pjob *const *)a, *y = *(struct pjob *const *)b;
	int c = RT_SPACESHIP(rt_congestion(&y->v), rt_congestion(&x->v));

	if (!c)
		c = RT_SPACESHIP(y->v.pkts, x->v.pkts);
	return c ? c : strcmp(x->key, y->key);
}

static int cmp_job_key(const void *a, const void *b)
{
	return strcmp((*(struct pjob *const *)a)->key, (*(struct pjob *const *)b)->key);
}

/*
 * The exported jobs' culprit and victim shares of the interval (jobagg.h:
 * every flow's load counts, flows of no job too); a job without a defined
 * share this interval has no sample.
 */
static int render_job_shares(struct rt_prom_render *r, struct out *w, const struct rt_snapshot *cur,
			     const struct rt_delta *d, size_t n)
{
	struct render_ctx c = { .r = r, .cur = cur };
	char set[512];

	rt_jobagg_clear(&r->blame);
	for (size_t i = 0; i < d->nflows; i++)
		if (d->flows[i].d.pkts && !d->flows[i].f->estimate &&
		    rt_jobagg_add(&r->blame, cur, d->flows[i].f, &d->flows[i].d))
			return -ENOMEM;
	if (rt_jobagg_close(&r->blame))
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "rocetop_job_victim_ratio" : "rocetop_job_culprit_ratio";

		prom_family(w, name, M_GAUGE, "ratio", k ?
		       "Of the congestion the job's flows got in the last interval, the share other flows' load at the same destinations stands for (rocetop(8), JOBS)." :
		       "Of all the congestion seen in the last interval, the share the job's load stands for (rocetop(8), JOBS).");
		for (size_t i = 0; i < n; i++) {
			const struct pjob *j = r->job_order[i];
			const struct rt_jobsum *g = rt_htab_find(&r->blame.t, j->key,
								 rt_job_key_hash(j->key));
			double v = !g ? NAN : k ? rt_jobsum_victim(g) : rt_jobsum_culprit(&r->blame, g);

			if (isnan(v))
				continue;
			set[0] = '\0';
			job_labels(&c, i, set, sizeof(set));
			prom_sample_d(w, name, M_GAUGE, set, v);
		}
	}
	return 0;
}

/* The flows' owners' jobs (the snapshot's jobs table): their flows' deltas
 * summed since start, the EXPORT_JOBS most congested exported. */
static int render_jobs(struct rt_prom_render *r, struct out *w, const struct rt_snapshot *cur,
		       const struct rt_delta *d)
{
	struct render_ctx c = { .r = r, .cur = cur };
	struct rowset rs = { .ctx = &c, .val = job_val, .labels = job_labels };
	size_t i, n;
	long top;

	for (i = 0; i < d->nflows; i++) {
		const struct rt_job *j = rt_snapshot_job(cur, d->flows[i].f);
		char key[RT_JOB_KEY_LEN] = { 0 };
		struct pjob *p;

		if (!j || j->kind == RT_JOB_NONE || d->flows[i].f->estimate)
			continue;
		rt_job_group_key(j, RT_GROUP_JOB, 0, "", key, sizeof(key));
		p = rt_htab_get(&r->jobs, key, rt_job_key_hash(key), NULL);
		if (!p) {
			if (errno == ENOSPC && !r->jobs_full_warned++)
				pr_warn("more than %d jobs: new ones are left out of the Prometheus metrics.\n",
					MAX_JOBS);
			continue;
		}
		p->kind = j->kind;
		rt_flow_val_add(&p->v, &d->flows[i].d);
	}
	/* exported as the host pairs are (above), under the jobs' own names and bound */
	top = top_rows(&r->jobs, &r->job_order, &r->job_order_cap, EXPORT_JOBS, &r->jobs_tracked,
		       cmp_job_rank, cmp_job_key);
	if (top < 0)
		return (int)top;
	rs.n = n = (size_t)top;
	flow_families(w, "rocetop_job", "of the job's flows (its processes' queue pairs)", &rs);
	if (render_job_shares(r, w, cur, d, n))
		return -ENOMEM;
	prom_family(w, "rocetop_jobs_unexported", M_GAUGE, NULL,
	       "Jobs with totals left out of rocetop_job_*, beyond the " RT_STR(EXPORT_JOBS)
	       " with the most congestion, then packets.");
	prom_sample_u(w, "rocetop_jobs_unexported", M_GAUGE, "", r->jobs_tracked - n);
	return 0;
}

static int render_ports(struct rt_prom_render *r, struct out *w, const struct rt_delta *d)
{
	char set[LSET], pn[16];
	size_t i;

	prom_family(w, "rocetop_nic_stat", M_COUNTER, NULL,
	       "RDMA NIC counters (sysfs hw_counters, counters, ethtool), by device, port, netdev, counter and scope: the driver's value when first seen, then growing by each interval's increase, 32-bit wraps and driver resets accounted for.");
	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *p = d->ports[i].c;
		struct nic_acc *a;
		int fresh;

		/* Counters bound to QPs are as many as the QPs: they reach Prometheus
		 * as flows of origin "nic", bounded by --prom-flows. */
		if (p->scope == RT_SCOPE_QP)
			continue;
		a = nic_get(r, p, &fresh);
		if (!a)
			return -ENOMEM;
		a->total = fresh ? p->value : a->total + d->ports[i].d;

		set[0] = 0;
		snprintf(pn, sizeof(pn), "%u", p->port);
		prom_label(set, sizeof(set), "device", p->dev);
		prom_label(set, sizeof(set), "port", pn);
		prom_label(set, sizeof(set), "netdev", p->netdev);
		prom_label(set, sizeof(set), "counter", p->name);
		prom_label(set, sizeof(set), "scope", rt_scope_name(p->scope));
		prom_sample_u(w, "rocetop_nic_stat", M_COUNTER, set, a->total);
	}
	return 0;
}

static double mono_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int rt_prom_render(struct rt_prom_render *r, const struct rt_snapshot *cur, const struct rt_delta *d,
		   char **text, size_t *text_len, char **om, size_t *om_len)
{
	struct out w = { 0 };
	double t0 = mono_secs();
	int err = 0;

	if (cur && d)
		r->intervals++;
	render_meta(r, &w, cur, d);
	if (cur && d) {
		rt_prom_render_ifaces(&w, cur, r->speed_given);
		err = render_flows(r, &w, cur, d);
		if (!err && (cur->njobs || r->jobs.n))	/* hosts without jobs: no job families */
			err = render_jobs(r, &w, cur, d);
		if (!err)
			err = render_ports(r, &w, d);
		if (!err && d->findings)
			rt_prom_render_findings(&w, d->findings);
		if (!err)
			rt_prom_render_sflow(&w, d);
		if (!err && cur->nprobes)	/* runs without --probe: no probe families */
			err = rt_prom_render_probes(&w, cur, &r->probe_order, &r->probe_cap);
		if (!err)
			rt_prom_render_self_figures(&w, &r->self, d);
	}
	prom_printf(&w.o, "# EOF\n");
	/* make sure both are allocated even when empty */
	prom_printf(&w.t, "%s", "");
	if (!err)
		err = w.t.err ? w.t.err : w.o.err;
	if (err) {
		free(w.t.p);
		free(w.o.p);
		return err;
	}
	if (cur && d)
		r->last_render_secs = mono_secs() - t0;
	*text = w.t.p;
	*text_len = w.t.len;
	*om = w.o.p;
	*om_len = w.o.len;
	return 0;
}
