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
#include "sf_drop.h"

#define MAX_HOSTPAIRS	65536	/* host-pair accumulators kept */
/* Host pairs exported: the most congested (then busiest) since start. With
 * eleven series a pair, every pair of a big fabric would be hundreds of
 * thousands of series (721,109 at 100k flows); this bounds them at 2,816. */
#define EXPORT_HOSTPAIRS	256
/* Jobs (user/core/job.h): accumulators kept, and exported (the most
 * congested since start): eleven series each and two shares, at most 832. */
#define MAX_JOBS	4096
#define EXPORT_JOBS	64
#define MAX_FINDING_SERIES 200	/* open findings exported one series each */
#define RT_STR_(x)	#x
#define RT_STR(x)	RT_STR_(x)

/* The labels of a switch port (sFlow): agent and port, and its direction
 * when dir is not NULL. */
static void swport_labels(char *set, size_t len, const char *agent, unsigned int port, const char *dir)
{
	char pn[16];

	set[0] = 0;
	snprintf(pn, sizeof(pn), "%u", port);
	prom_label(set, len, "agent", agent);
	prom_label(set, len, "port", pn);
	if (dir)
		prom_label(set, len, "direction", dir);
}

/* Host-pair accumulators: flow deltas summed per host pair in the
 * RT_HP_IFACE scope (derive.h): the series carry interface and direction. */
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

#define LSET 512

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

/* Counters of struct rt_if_val, each a family: one table, one loop. */
struct if_fam {
	const char *name, *unit, *help;
	size_t off;	/* offsetof(struct rt_if_val, ...): a __u64, or __u64[RT_NPRIO] */
};

#define IF_CTR(v, off) ((const __u64 *)((const char *)(v) + (off)))
#define IF_ROWS (RT_MAX_IFACES * 2 + 1)

/* The labels of an interface and direction row of cur->ifs. */
static void if_labels(const struct rt_snapshot *cur, size_t i, char *set, size_t len)
{
	set[0] = 0;
	prom_label(set, len, "interface", rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex));
	prom_label(set, len, "direction", rt_dir_name(cur->ifs[i].k.dir));
}

/* set with the priority label added, into more. */
static void prio_labels(const char *set, unsigned int p, char *more, size_t len)
{
	char pn[8];

	snprintf(more, len, "%s", set);
	prom_label(more, len, "priority", rt_prio_name(p, pn, sizeof(pn)));
}

/* Each row's link speed for the paused time; known[i]: not assumed. Returns the rows. */
static size_t if_speeds(struct rt_prom_render *r, const struct rt_snapshot *cur, __u64 *speed, int *known)
{
	size_t i, n = cur->nifs;
	const char *from;
	unsigned int p;

	if (n > IF_ROWS - 1)
		n = IF_ROWS - 1;
	for (i = 0; i < n; i++) {
		const char *ifn = rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex);
		int frames = 0;

		for (p = 0; p < RT_NPRIO; p++)
			frames |= cur->ifs[i].v.pfc_frames[p] != 0;
		/* said (if assumed) only where pause frames make it matter */
		speed[i] = frames ? rt_link_speed(cur, ifn, r->speed_given, &from) :
				    rt_link_speed_quiet(cur, ifn, r->speed_given, &from);
		known[i] = strcmp(from, "assumed") != 0;
	}
	return n;
}

/* Whether each watched interface is there, its frame counters and the parser's outcomes. */
static void render_if_counters(struct out *w, const struct rt_snapshot *cur, size_t n)
{
	static const char *const outcome[] = {
		"roce", "not_roce", "truncated", "malformed", "pause", "table_full", "v6_unparsed",
	};
	static const struct if_fam if_fams[] = {
		{ "rocetop_interface_frames", NULL, "Frames the BPF programs saw, per interface and direction.",
		  offsetof(struct rt_if_val, pkts) },
		{ "rocetop_interface_bytes", "bytes", "Bytes of the frames the BPF programs saw.",
		  offsetof(struct rt_if_val, bytes) },
		{ "rocetop_interface_mirrored_frames", NULL,
		  "Mirror copies (GRE + ERSPAN II/III, GRE TEB, VXLAN) decapsulated; the frames inside are counted as if seen on the mirrored wire.",
		  offsetof(struct rt_if_val, mirrored) },
	};
	char set[LSET], more[LSET + 64];
	size_t i, f;
	unsigned int o;

	/* A watched interface deleted (live.c's link watcher) is 0 until it returns. */
	prom_family(w, "rocetop_interface_up", M_GAUGE, NULL,
	       "1 while a watched interface exists and is attached, 0 after it was deleted (until it returns).");
	for (i = 0; i < cur->nifaces; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "interface", cur->ifaces[i].name);
		prom_sample_u(w, "rocetop_interface_up", M_GAUGE, set, strcmp(cur->ifaces[i].mode, "gone") != 0);
	}
	/* One family per counter of the interface and direction. */
	for (f = 0; f < sizeof(if_fams) / sizeof(if_fams[0]); f++) {
		prom_family(w, if_fams[f].name, M_COUNTER, if_fams[f].unit, if_fams[f].help);
		for (i = 0; i < n; i++) {
			if_labels(cur, i, set, sizeof(set));
			prom_sample_u(w, if_fams[f].name, M_COUNTER, set, *IF_CTR(&cur->ifs[i].v, if_fams[f].off));
		}
	}
	prom_family(w, "rocetop_parser_frames", M_COUNTER, NULL,
	       "Frames by parser outcome: roce, not_roce, truncated, malformed, pause (PFC and 802.3x), table_full (flow table full), v6_unparsed.");
	for (i = 0; i < n; i++) {
		const struct rt_if_val *v = &cur->ifs[i].v;
		const __u64 val[] = { v->roce, v->not_roce, v->truncated, v->malformed, v->mac_ctrl,
				      v->flow_full, v->v6_unparsed };

		if_labels(cur, i, set, sizeof(set));
		for (o = 0; o < sizeof(val) / sizeof(val[0]); o++) {
			snprintf(more, sizeof(more), "%s", set);
			prom_label(more, sizeof(more), "outcome", outcome[o]);
			prom_sample_u(w, "rocetop_parser_frames", M_COUNTER, more, val[o]);
		}
	}
}

/* PFC per priority, the paused time it asked and the link speeds it was reckoned at. */
static void render_pfc(struct out *w, const struct rt_snapshot *cur, size_t n, const __u64 *speed,
		       const int *known, __u64 speed_given)
{
	static const struct if_fam pfc_fams[] = {
		{ "rocetop_pfc_frames", NULL,
		  "PFC frames with the priority enabled, XON included (priority all: 802.3x global pause).",
		  offsetof(struct rt_if_val, pfc_frames) },
		{ "rocetop_pfc_xon_frames", NULL, "PFC frames of the priority with a pause time of 0 (XON, resume).",
		  offsetof(struct rt_if_val, pfc_xon) },
		{ "rocetop_pfc_pause_quanta", NULL, "Sum of the PFC pause times asked, in quanta of 512 bit times.",
		  offsetof(struct rt_if_val, pfc_quanta) },
	};
	char set[LSET], more[LSET + 64];
	size_t i, f;
	unsigned int p;

	/* One family per counter of the priority, on each interface and direction. */
	for (f = 0; f < sizeof(pfc_fams) / sizeof(pfc_fams[0]); f++) {
		prom_family(w, pfc_fams[f].name, M_COUNTER, pfc_fams[f].unit, pfc_fams[f].help);
		for (i = 0; i < n; i++) {
			if_labels(cur, i, set, sizeof(set));
			for (p = 0; p < RT_NPRIO; p++) {
				prio_labels(set, p, more, sizeof(more));
				prom_sample_u(w, pfc_fams[f].name, M_COUNTER, more, IF_CTR(&cur->ifs[i].v, pfc_fams[f].off)[p]);
			}
		}
	}
	prom_family(w, "rocetop_pfc_paused_seconds", M_COUNTER, "seconds",
	       "Time paused by PFC frames: the union of the pause intervals, each quanta x 512 bit times at the link speed (--link-speed, else the interface's, else 100G assumed) from its frame, a later frame restarting it, XON ending it.");
	for (i = 0; i < n; i++) {
		if_labels(cur, i, set, sizeof(set));
		for (p = 0; p < RT_NPRIO; p++) {
			prio_labels(set, p, more, sizeof(more));
			prom_sample_d(w, "rocetop_pfc_paused_seconds", M_COUNTER, more,
				 rt_paused_secs(cur, &cur->ifs[i], &cur->ifs[i].v, p, 0, speed_given));
		}
	}
	prom_family(w, "rocetop_link_speed_bytes_per_second", M_GAUGE, "bytes_per_second",
	       "Link speed of the interface where it is known.");
	for (i = 0; i < n; i++) {
		if (!known[i] || (i && cur->ifs[i - 1].k.ifindex == cur->ifs[i].k.ifindex && known[i - 1]))
			continue;
		set[0] = 0;
		prom_label(set, sizeof(set), "interface", rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex));
		prom_sample_u(w, "rocetop_link_speed_bytes_per_second", M_GAUGE, set, speed[i] * 1000000ULL / 8);
	}
}

static void render_ifaces(struct rt_prom_render *r, struct out *w, const struct rt_snapshot *cur)
{
	__u64 speed[IF_ROWS];
	int known[IF_ROWS];	/* not assumed */
	size_t n = if_speeds(r, cur, speed, known);

	render_if_counters(w, cur, n);
	render_pfc(w, cur, n, speed, known, r->speed_given);
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

/* A finding's subject as labels: only the fields its rule gives (findings.h). */
static void subject_labels(const struct rt_subject *s, char *set, size_t len)
{
	char a[RT_ADDR_STRLEN], n[16];

	if (s->has & RT_SUBJ_IFNAME)
		prom_label(set, len, "interface", s->ifname);
	if (s->has & RT_SUBJ_DIR)
		prom_label(set, len, "direction", rt_dir_name(s->dir));
	if (s->has & RT_SUBJ_PRIO)
		prom_label(set, len, "priority", rt_prio_name(s->prio, n, sizeof(n)));
	if (s->has & RT_SUBJ_SRC)
		prom_label(set, len, "src", rt_fmt_addr(s->family, s->src, a, sizeof(a)));
	if (s->has & RT_SUBJ_DST)
		prom_label(set, len, "dst", rt_fmt_addr(s->family, s->dst, a, sizeof(a)));
	if (s->has & RT_SUBJ_DQPN) {
		snprintf(n, sizeof(n), "%u", s->dqpn);
		prom_label(set, len, "dqpn", n);
	}
	if (s->has & RT_SUBJ_AGENT)
		prom_label(set, len, "agent", s->agent);
	if (s->has & RT_SUBJ_PORT) {
		snprintf(n, sizeof(n), "%u", s->port);
		prom_label(set, len, "port", n);
	}
	if (s->has & RT_SUBJ_DEVICE)
		prom_label(set, len, "device", s->device);
	if (s->has & RT_SUBJ_COUNTER)
		prom_label(set, len, "counter", s->counter);
	if (s->has & RT_SUBJ_JOB) {	/* as rocetop_job_* name it */
		const char *colon = strchr(s->job, ':');
		char kind[16];

		snprintf(kind, sizeof(kind), "%.*s", colon ? (int)(colon - s->job) : 0, s->job);
		prom_label(set, len, "job_kind", kind);
		prom_label(set, len, "job_name", colon ? colon + 1 : s->job);
	}
}

/*
 * One series per open finding, for alerting on its subject: at most
 * MAX_FINDING_SERIES, the most severe first, then the oldest; the open
 * findings left out are counted.
 */
static void render_open_findings(struct out *w, const struct rt_findings *F)
{
	char set[LSET];
	size_t j, shown = 0, open = 0;
	int sev;

	prom_family(w, "rocetop_finding", M_GAUGE, NULL,
	       "1 for each open finding, labelled by rule, severity and subject (interface, direction, priority, src, dst, dqpn, agent, port, device, counter as the rule gives them); at most " RT_STR(MAX_FINDING_SERIES) ", the most severe first.");
	for (sev = RT_SEV_CRITICAL; sev >= RT_SEV_INFO; sev--)
		for (j = 0; j < F->n; j++) {
			const struct rt_finding *f = &F->tab[j];

			if (!f->open || f->sev != sev)
				continue;
			open++;
			if (shown == MAX_FINDING_SERIES)
				continue;
			shown++;
			set[0] = 0;
			prom_label(set, sizeof(set), "rule", f->rule);
			prom_label(set, sizeof(set), "severity", rt_sev_name(f->sev));
			subject_labels(&f->subj, set, sizeof(set));
			prom_sample_u(w, "rocetop_finding", M_GAUGE, set, 1);
		}
	prom_family(w, "rocetop_findings_unexported", M_GAUGE, NULL,
	       "Open findings left out of rocetop_finding now, beyond its bound of " RT_STR(MAX_FINDING_SERIES) " series.");
	prom_sample_u(w, "rocetop_findings_unexported", M_GAUGE, "", open - shown);
}

/* Findings: open ones by rule and severity, and opened since the start by rule. */
static void render_findings(struct out *w, const struct rt_findings *F)
{
	const struct rt_ruleset *R = F->rules;	/* the rules the engine ran */
	char set[LSET];
	size_t i, j;
	int sev;

	prom_family(w, "rocetop_findings_open", M_GAUGE, NULL,
	       "Findings open now, by rule and severity (see rocetop(8), FINDINGS).");
	for (i = 0; R && i < R->n; i++)
		for (sev = RT_SEV_INFO; sev <= RT_SEV_CRITICAL; sev++) {
			__u64 n = 0;

			for (j = 0; j < F->n; j++)
				n += F->tab[j].open && F->tab[j].sev == sev && !strcmp(F->tab[j].rule, R->rules[i].name);
			set[0] = 0;
			prom_label(set, sizeof(set), "rule", R->rules[i].name);
			prom_label(set, sizeof(set), "severity", rt_sev_name(sev));
			prom_sample_u(w, "rocetop_findings_open", M_GAUGE, set, n);
		}
	prom_family(w, "rocetop_findings_opened", M_COUNTER, NULL, "Findings opened since the start, by rule.");
	for (i = 0; R && i < R->n; i++) {
		__u64 n = 0;

		for (j = 0; j < F->nrules; j++)
			if (!strcmp(F->per_rule[j].rule, R->rules[i].name))
				n = F->per_rule[j].opened;
		set[0] = 0;
		prom_label(set, sizeof(set), "rule", R->rules[i].name);
		prom_sample_u(w, "rocetop_findings_opened", M_COUNTER, set, n);
	}
	render_open_findings(w, F);
}

/*
 * sFlow: per switch port and direction (bounded by the collector's port
 * table), the drops per port and reason, and what each agent sent. The
 * est_ families are estimates (each sample stands for its sampling rate).
 */
static void sflow_ports(struct out *w, const struct rt_delta *d)
{
	/* the counters' table: one row each, alike in shape only */
	static const struct {
		const char *name;
		size_t off;
		const char *help;
	} ctr[] = {
		{ "rocetop_sflow_port_samples", offsetof(struct rt_swport_ctr, samples),
		  "sFlow flow samples taken at the switch port in the direction." },
		{ "rocetop_sflow_port_est_packets", offsetof(struct rt_swport_ctr, est_pkts),
		  "Packets through the switch port, estimated from sFlow: the sum of the samples' sampling rates." },
		{ "rocetop_sflow_port_est_bytes", offsetof(struct rt_swport_ctr, est_bytes),
		  "Bytes through the switch port, estimated from sFlow (rate x frame length, no FCS)." },
		{ "rocetop_sflow_port_est_ce_packets", offsetof(struct rt_swport_ctr, est_ce),
		  "CE-marked RoCEv2 packets through the switch port, estimated from sFlow." },
		{ "rocetop_sflow_port_est_cnp_packets", offsetof(struct rt_swport_ctr, est_cnp),
		  "RoCEv2 CNPs through the switch port, estimated from sFlow." },
		{ "rocetop_sflow_port_drop_notifications", offsetof(struct rt_swport_ctr, drops),
		  "sFlow dropped-packet notifications of the switch port." },
	};
	/* the largest queue depth (bytes), then transit delay (ns, shown in seconds) */
	static const struct { const char *name, *unit, *help; } gauge[2] = {
		{ "rocetop_sflow_port_queue_max_bytes", "bytes",
		  "Largest egress queue depth (sFlow 1040) sampled at the switch port in the last interval." },
		{ "rocetop_sflow_port_transit_delay_max_seconds", "seconds",
		  "Largest transit delay (sFlow 1039) sampled at the switch port in the last interval." },
	};
	char set[LSET];
	size_t i, k;

	for (k = 0; k < sizeof(ctr) / sizeof(ctr[0]); k++) {
		prom_family(w, ctr[k].name, M_COUNTER, NULL, ctr[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			swport_labels(set, sizeof(set), p->agent, p->port, rt_dir_name(p->dir));
			prom_sample_u(w, ctr[k].name, M_COUNTER, set, *(const __u64 *)((const char *)&p->c + ctr[k].off));
		}
	}
	for (k = 0; k < 2; k++) {
		prom_family(w, gauge[k].name, M_GAUGE, gauge[k].unit, gauge[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			if (!(k ? d->swports[i].d.transit_n : d->swports[i].d.depth_n))
				continue;	/* none sampled in the interval */
			swport_labels(set, sizeof(set), p->agent, p->port, rt_dir_name(p->dir));
			if (k)
				prom_sample_d(w, gauge[k].name, M_GAUGE, set, p->max_transit / 1e9);
			else
				prom_sample_u(w, gauge[k].name, M_GAUGE, set, p->max_depth);
		}
	}
}

/* The switch's own interface counters (counter samples), once per port. */
static void sflow_ifctr(struct out *w, const struct rt_delta *d)
{
	static const struct {
		const char *name, *help;
		enum mtype type;
	} ifc[] = {
		{ "rocetop_sflow_port_speed_bytes_per_second",
		  "The switch port's speed, from its sFlow counter samples (ifSpeed / 8).", M_GAUGE },
		{ "rocetop_sflow_port_interface_discards",
		  "The switch port's discarded packets (ifInDiscards, ifOutDiscards) as its agent counts them.", M_COUNTER },
		{ "rocetop_sflow_port_interface_errors",
		  "The switch port's packets in error (ifInErrors, ifOutErrors) as its agent counts them.", M_COUNTER },
	};
	char set[LSET], more[LSET];
	size_t i, k;

	for (k = 0; k < sizeof(ifc) / sizeof(ifc[0]); k++) {
		prom_family(w, ifc[k].name, ifc[k].type, k ? NULL : "bytes_per_second", ifc[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			if (!p->has_ifctr || (i && d->swports[i - 1].p->ifindex == p->ifindex))
				continue;
			swport_labels(set, sizeof(set), p->agent, p->port, NULL);
			if (k == 0) {
				prom_sample_u(w, ifc[k].name, M_GAUGE, set, p->speed_bps / 8);
				continue;
			}
			for (int side = 0; side < 2; side++) {
				snprintf(more, sizeof(more), "%s", set);
				prom_label(more, sizeof(more), "side", side ? "out" : "in");
				prom_sample_u(w, ifc[k].name, M_COUNTER, more,
					 k == 1 ? (side ? p->out_discards : p->in_discards)
						: (side ? p->out_errors : p->in_errors));
			}
		}
	}
}

/* Drops by port and reason, and what each agent sent. */
static void sflow_agents(struct out *w, const struct rt_delta *d)
{
	char set[LSET];
	size_t i, k;

	prom_family(w, "rocetop_sflow_drops", M_COUNTER, NULL,
	       "sFlow dropped-packet notifications by switch port and reason (the name sFlow gives the code).");
	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *p = d->swdrops[i].p;
		const char *name = rt_sf_drop_reason(p->reason);
		char code[16];

		swport_labels(set, sizeof(set), p->agent, p->port, NULL);
		snprintf(code, sizeof(code), "%u", p->reason);
		prom_label(set, sizeof(set), "reason", name ? name : "unknown_code");
		prom_label(set, sizeof(set), "reason_code", code);
		prom_sample_u(w, "rocetop_sflow_drops", M_COUNTER, set, p->drops);
	}
	prom_family(w, "rocetop_sflow_datagrams", M_COUNTER, NULL,
	       "sFlow datagrams by agent and outcome: decoded (errors included), lost (sequence gaps), error (the rest of the datagram skipped), rejected (not allowed, or not sFlow v5).");
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = d->sfagents[i].a;
		const __u64 v[4] = { a->datagrams, a->lost, a->errors, a->rejected };
		static const char *const outcome[4] = { "decoded", "lost", "error", "rejected" };

		for (k = 0; k < 4; k++) {
			set[0] = 0;
			prom_label(set, sizeof(set), "agent", a->agent);
			prom_label(set, sizeof(set), "outcome", outcome[k]);
			prom_sample_u(w, "rocetop_sflow_datagrams", M_COUNTER, set, v[k]);
		}
	}
	prom_family(w, "rocetop_sflow_bad_samples", M_COUNTER, NULL,
	       "sFlow flow samples whose frame length (over 64 KiB) or sampling rate (above the sample pool) cannot be true, by agent: bounded before use.");
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = d->sfagents[i].a;

		set[0] = 0;
		prom_label(set, sizeof(set), "agent", a->agent);
		prom_sample_u(w, "rocetop_sflow_bad_samples", M_COUNTER, set, a->bad_samples);
	}
}

static void render_sflow(struct out *w, const struct rt_delta *d)
{
	if (!d->nsfagents)
		return;
	sflow_ports(w, d);
	sflow_ifctr(w, d);
	sflow_agents(w, d);
}

/* The process_* families as the Prometheus client libraries name them. */
static void render_process(struct out *w, const struct rt_prom_self *s)
{
	prom_family(w, "process_cpu_seconds", M_COUNTER, "seconds", "Total user and system CPU time spent in seconds.");
	prom_sample_d(w, "process_cpu_seconds", M_COUNTER, "", s->cpu_secs);
	prom_family(w, "process_resident_memory_bytes", M_GAUGE, "bytes", "Resident memory size in bytes.");
	prom_sample_u(w, "process_resident_memory_bytes", M_GAUGE, "", s->rss_bytes);
	prom_family(w, "process_virtual_memory_bytes", M_GAUGE, "bytes", "Virtual memory size in bytes.");
	prom_sample_u(w, "process_virtual_memory_bytes", M_GAUGE, "", s->vsize_bytes);
	prom_family(w, "process_open_fds", M_GAUGE, NULL, "Number of open file descriptors.");
	prom_sample_u(w, "process_open_fds", M_GAUGE, "", s->open_fds);
	if (s->max_fds) {
		prom_family(w, "process_max_fds", M_GAUGE, NULL, "Maximum number of open file descriptors.");
		prom_sample_u(w, "process_max_fds", M_GAUGE, "", s->max_fds);
	}
	prom_family(w, "process_start_time_seconds", M_GAUGE, "seconds",
	       "Start time of the process since unix epoch in seconds.");
	prom_sample_d(w, "process_start_time_seconds", M_GAUGE, "", s->start_time);
}

/* The collector's costs, and the BPF programs' run count and time. */
static void render_self(struct out *w, const struct rt_prom_self *s, const struct rt_delta *d)
{
	char set[LSET], id[16];
	size_t i;

	prom_family(w, "rocetop_collect_duration_seconds", M_GAUGE, "seconds",
	       "Time the last snapshot took to collect (the kernel's maps, NIC counters, sFlow).");
	prom_sample_d(w, "rocetop_collect_duration_seconds", M_GAUGE, "", d->collect_secs);
	prom_family(w, "rocetop_snapshots_missed", M_COUNTER, NULL,
	       "Intervals whose snapshot was not taken because the previous one was still being taken or shown.");
	prom_sample_u(w, "rocetop_snapshots_missed", M_COUNTER, "", d->missed);
	if (!s->valid)
		return;
	render_process(w, s);
	prom_family(w, "rocetop_bpf_stats_enabled", M_GAUGE, NULL,
	       "kernel.bpf_stats_enabled: 1 while the kernel counts the BPF programs' runs and run time.");
	prom_sample_u(w, "rocetop_bpf_stats_enabled", M_GAUGE, "", s->bpf_stats == 1);
	prom_family(w, "rocetop_bpf_prog_runs", M_COUNTER, NULL,
	       "Runs of each BPF program rocetop holds (bpf_prog_info run_cnt), counted while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < s->nprogs; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "prog", s->progs[i].name);
		snprintf(id, sizeof(id), "%u", s->progs[i].id);
		prom_label(set, sizeof(set), "id", id);
		prom_sample_u(w, "rocetop_bpf_prog_runs", M_COUNTER, set, s->progs[i].run_cnt);
	}
	prom_family(w, "rocetop_bpf_prog_run_seconds", M_COUNTER, "seconds",
	       "Time each BPF program rocetop holds ran (bpf_prog_info run_time_ns), counted while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < s->nprogs; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "prog", s->progs[i].name);
		snprintf(id, sizeof(id), "%u", s->progs[i].id);
		prom_label(set, sizeof(set), "id", id);
		prom_sample_d(w, "rocetop_bpf_prog_run_seconds", M_COUNTER, set, s->progs[i].run_ns / 1e9);
	}
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
		render_ifaces(r, &w, cur);
		err = render_flows(r, &w, cur, d);
		if (!err && (cur->njobs || r->jobs.n))	/* hosts without jobs: no job families */
			err = render_jobs(r, &w, cur, d);
		if (!err)
			err = render_ports(r, &w, d);
		if (!err && d->findings)
			render_findings(&w, d->findings);
		if (!err)
			render_sflow(&w, d);
		if (!err && cur->nprobes)	/* runs without --probe: no probe families */
			err = rt_prom_render_probes(&w, cur, &r->probe_order, &r->probe_cap);
		if (!err)
			render_self(&w, &r->self, d);
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
