// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report, the printer: every table written once, through the one
 * printing layer (user/core/print.h), so the text for people and the JSON
 * for machines come from the same calls and hold the same numbers.
 *
 * Paused time per priority is quanta * 512 bit times at the link speed:
 * --link-speed when given, else the interface's speed in sysfs when this
 * host has an interface of that name, else 100 Gb/s, and the report says
 * which ("given", "sysfs", "assumed").
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmt.h"
#include "report_impl.h"

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

/* A flow's (or the totals') counters: JSON members (the text tables choose
 * their own columns). */
static void counters(struct rt_printer *p, const struct rt_flow_val *v)
{
	rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, v->pkts);
	rt_pr_u64(p, RT_PR_JSON, "bytes", NULL, v->bytes);
	rt_pr_u64(p, RT_PR_JSON, "not_ect", NULL, v->ecn[RT_ECN_NOT_ECT]);
	rt_pr_u64(p, RT_PR_JSON, "ect0", NULL, v->ecn[RT_ECN_ECT0]);
	rt_pr_u64(p, RT_PR_JSON, "ect1", NULL, v->ecn[RT_ECN_ECT1]);
	rt_pr_u64(p, RT_PR_JSON, "ce", NULL, v->ecn[RT_ECN_CE]);
	rt_pr_u64(p, RT_PR_JSON, "cnp", NULL, v->cnp);
	rt_pr_u64(p, RT_PR_JSON, "ack", NULL, v->ack);
	rt_pr_u64(p, RT_PR_JSON, "nak", NULL, rt_nak(v));
	rt_pr_u64(p, RT_PR_JSON, "nak_seq", NULL, v->nak_seq);
	rt_pr_u64(p, RT_PR_JSON, "nak_other", NULL, v->nak_other);
	rt_pr_u64(p, RT_PR_JSON, "rnr_nak", NULL, v->rnr_nak);
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

/* A flow's identity and counters: JSON members; in text, fmt of its one-line name. */
static void flow(struct rt_printer *p, const struct report *r, const struct agg_flow *f, const char *fmt)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], b[256];

	rt_pr_str(p, RT_PR_TEXT, NULL, fmt, flow_text(r, &f->k, b, sizeof(b)));
	rt_pr_str(p, RT_PR_JSON, "ifname", NULL, ifname_of(r, f->k.ifindex));
	rt_pr_str(p, RT_PR_JSON, "dir", NULL, rt_dir_name(f->k.dir));
	rt_pr_str(p, RT_PR_JSON, "src", NULL, rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)));
	rt_pr_str(p, RT_PR_JSON, "dst", NULL, rt_fmt_addr(f->k.family, f->k.dst, a2, sizeof(a2)));
	rt_pr_u64(p, RT_PR_JSON, "dqpn", NULL, f->k.dqpn);
	if (f->k.mirror) {
		char m[RT_MIRROR_STRLEN];

		rt_pr_str(p, RT_PR_JSON, "mirror", NULL, rt_fmt_mirror(&f->k, m, sizeof(m)));
	}
	counters(p, &f->v);
	if (f->pid || f->lqpn) {
		rt_pr_u64(p, RT_PR_JSON, "lqpn", NULL, f->lqpn);
		rt_pr_u64(p, RT_PR_JSON, "pid", NULL, f->pid);
		rt_pr_str(p, RT_PR_JSON, "comm", NULL, f->comm);
	}
}

static void top_flows(struct rt_printer *p, struct report *r, const char *title, const char *key,
		      int (*cmp)(const void *, const void *), __u64 (*val)(const struct agg_flow *))
{
	size_t i;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), cmp);
	rt_pr_open_arr(p, key);
	rt_pr_text(p, "\n%s\n  %-62s %10s %8s %8s %8s %8s\n", title, "FLOW", "PKTS", "CE", "CNP", "NAK", "RNR");
	for (i = 0; i < r->n && (!r->top || shown < r->top); i++) {
		const struct agg_flow *f = r->flows[i];

		if (!val(f))
			break;
		shown++;
		rt_pr_open_obj(p, NULL);
		flow(p, r, f, "  %-62s");
		rt_pr_u64(p, RT_PR_TEXT, NULL, " %10llu", f->v.pkts);
		rt_pr_u64(p, RT_PR_TEXT, NULL, " %8llu", f->v.ecn[RT_ECN_CE]);
		rt_pr_u64(p, RT_PR_TEXT, NULL, " %8llu", f->v.cnp);
		rt_pr_u64(p, RT_PR_TEXT, NULL, " %8llu", rt_nak(&f->v));
		rt_pr_u64(p, RT_PR_TEXT, NULL, " %8llu\n", f->v.rnr_nak);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none)\n");
}

static __u64 v_ce(const struct agg_flow *f) { return f->v.ecn[RT_ECN_CE]; }
static __u64 v_cnp(const struct agg_flow *f) { return f->v.cnp; }
static __u64 v_nak(const struct agg_flow *f) { return rt_nak(&f->v) + f->v.rnr_nak; }

static void moments(struct rt_printer *p, struct report *r)
{
	struct moment *m = malloc((r->nm ? r->nm : 1) * sizeof(*m));
	char b[64];
	size_t i;
	int pass, shown;

	if (!m)
		return;
	for (pass = 0; pass < 2; pass++) {
		memcpy(m, r->m, r->nm * sizeof(*m));
		qsort(m, r->nm, sizeof(*m), pass ? rt_report_m_by_pfc : rt_report_m_by_ce);
		rt_pr_open_arr(p, pass ? "pfc_peaks" : "ce_peaks");
		rt_pr_text(p, "\n%s\n  %-27s %10s %10s %10s %10s %12s\n",
			   pass ? "Moments of most PFC pauses (interval end)" :
				  "Moments of highest CE rate (interval end)",
			   "TIME", "SECONDS", "CE", "CE/s", "PAUSES", "QUANTA");
		for (i = 0, shown = 0; i < r->nm && (!r->top || shown < r->top); i++) {
			const struct moment *x = &m[i];

			if (pass ? x->pfc == x->xon && !x->quanta : !x->ce)
				break;
			shown++;
			rt_pr_open_obj(p, NULL);
			rt_pr_dbl(p, RT_PR_JSON, "time", NULL, x->time_ns / 1e9);
			rt_pr_str(p, RT_PR_ANY, "utc", "  %-27s", fmt_time(x->time_ns, b, sizeof(b)));
			rt_pr_dbl(p, RT_PR_ANY, "seconds", " %10.3f", x->secs);
			rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, x->pkts);
			rt_pr_u64(p, RT_PR_ANY, "ce", " %10llu", x->ce);
			rt_pr_dbl(p, RT_PR_ANY, "ce_per_s", " %10.1f", x->secs > 0 ? x->ce / x->secs : 0);
			rt_pr_u64(p, RT_PR_JSON, "cnp", NULL, x->cnp);
			rt_pr_u64(p, RT_PR_JSON, "nak", NULL, x->nak);
			rt_pr_u64(p, RT_PR_ANY, "pause_frames", " %10llu", x->pfc - x->xon);
			rt_pr_u64(p, RT_PR_JSON, "xon_frames", NULL, x->xon);
			rt_pr_u64(p, RT_PR_ANY, "quanta", " %12llu\n", x->quanta);
			rt_pr_close_obj(p);
		}
		rt_pr_close_arr(p);
		if (!shown)
			rt_pr_text(p, "  (none)\n");
	}
	free(m);
}

static void pauses(struct rt_printer *p, struct report *r)
{
	char pn[8];
	size_t i;
	int prio, any = 0;

	rt_pr_open_obj(p, "pfc");
	rt_pr_u64(p, RT_PR_ANY, "link_speed_mbps",
		  "\nPaused time per priority (quanta of 512 bit times at %llu Mb/s, ", r->speed_mbps);
	rt_pr_str(p, RT_PR_ANY, "link_speed_from", "%s)\n", r->speed_from);
	rt_pr_text(p, "  %-16s %-8s %-4s %10s %10s %14s %12s\n", "IFACE", "DIR", "PRIO", "FRAMES",
		   "XON", "QUANTA", "SECONDS");
	rt_pr_open_arr(p, "priorities");
	for (i = 0; i < r->nifs; i++) {
		const struct agg_if *a = &r->ifs[i];

		for (prio = 0; prio < RT_NPRIO; prio++) {
			if (!a->v.pfc_frames[prio])
				continue;
			any = 1;
			rt_prio_name((unsigned)prio, pn, sizeof(pn));
			rt_pr_open_obj(p, NULL);
			rt_pr_str(p, RT_PR_ANY, "ifname", "  %-16s", a->name);
			rt_pr_str(p, RT_PR_ANY, "dir", " %-8s", rt_dir_name(a->k.dir));
			rt_pr_str(p, RT_PR_ANY, "prio", " %-4s", pn);
			rt_pr_u64(p, RT_PR_ANY, "frames", " %10llu", a->v.pfc_frames[prio]);
			rt_pr_u64(p, RT_PR_ANY, "xon", " %10llu", a->v.pfc_xon[prio]);
			rt_pr_u64(p, RT_PR_ANY, "quanta", " %14llu", a->v.pfc_quanta[prio]);
			rt_pr_dbl(p, RT_PR_ANY, "seconds", " %12.6f\n",
				  rt_pause_seconds(a->v.pfc_quanta[prio], r->speed_mbps));
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
	rt_pr_close_obj(p);
	if (!any)
		rt_pr_text(p, "  (none)\n");
}

static void host_pairs(struct rt_printer *p, struct report *r)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], hs[100];
	size_t i;

	rt_pr_open_arr(p, "host_pairs");
	rt_pr_text(p, "\nHost pairs by congestion (CE + CNP + NAK + RNR)\n  %-40s %6s %10s %12s %8s %8s %8s %8s\n",
		   "HOSTS", "FLOWS", "PKTS", "BYTES", "CE", "CNP", "NAK", "RNR");
	for (i = 0; i < r->npairs && (!r->top || i < (size_t)r->top); i++) {
		const struct pair *q = r->pairs[i];

		rt_fmt_addr(q->hp.family, q->hp.a, a1, sizeof(a1));
		rt_fmt_addr(q->hp.family, q->hp.b, a2, sizeof(a2));
		snprintf(hs, sizeof(hs), "%s <-> %s", a1, a2);
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_TEXT, NULL, "  %-40s", hs);
		rt_pr_str(p, RT_PR_JSON, "a", NULL, a1);
		rt_pr_str(p, RT_PR_JSON, "b", NULL, a2);
		rt_pr_u64(p, RT_PR_ANY, "flows", " %6llu", q->flows);
		rt_pr_u64(p, RT_PR_ANY, "pkts", " %10llu", q->v.pkts);
		rt_pr_u64(p, RT_PR_ANY, "bytes", " %12llu", q->v.bytes);
		rt_pr_u64(p, RT_PR_ANY, "ce", " %8llu", q->v.ecn[RT_ECN_CE]);
		rt_pr_u64(p, RT_PR_ANY, "cnp", " %8llu", q->v.cnp);
		rt_pr_u64(p, RT_PR_ANY, "nak", " %8llu", rt_nak(&q->v));
		rt_pr_u64(p, RT_PR_ANY, "rnr_nak", " %8llu\n", q->v.rnr_nak);
		rt_pr_u64(p, RT_PR_JSON, "score", NULL, rt_congestion(&q->v));
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (!r->npairs)
		rt_pr_text(p, "  (none)\n");
}

/* How a CNP flow was tied to its data flow; recordings made before the
 * attribution was kept say "recorded". */
static const char *attr_name(__u8 a)
{
	return a == RT_ATTR_NONE || a > RT_ATTR_HOSTPAIR ? "recorded" : rt_attr_names(a)->key;
}

/* Which data flows the CNPs throttled. */
static void throttled(struct rt_printer *p, struct report *r)
{
	char b[256];
	size_t i, j;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), rt_report_by_cnp);
	rt_pr_open_arr(p, "cnp_targets");
	rt_pr_text(p, "\nData flows slowed by CNPs\n");
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
				    memcmp(f->k.dst, c->k.src, 16) || !rt_report_data_pkts(f))
					continue;
				/* The same data seen on both sides of a link: one flow, two rows. */
				if (prev && prev->k.dqpn == f->k.dqpn)
					continue;
				cands++;
				prev = f;
			}
		}
		rt_pr_open_obj(p, NULL);
		rt_pr_u64(p, RT_PR_TEXT, NULL, "  %llu CNPs on ", c->v.cnp);
		rt_pr_open_obj(p, "cnp_flow");
		flow(p, r, c, "%s\n");
		rt_pr_close_obj(p);
		rt_pr_str(p, RT_PR_JSON, "attribution", NULL, how ? how : "unattributed");
		rt_pr_u64(p, RT_PR_JSON, "candidates", NULL, c->has_target ? 1 : cands);
		if (t) {
			rt_pr_text(p, "    throttle %s  (%llu pkts, %llu CE; by %s)\n",
				   flow_text(r, &t->k, b, sizeof(b)), (unsigned long long)t->v.pkts,
				   (unsigned long long)t->v.ecn[RT_ECN_CE], how);
			rt_pr_open_obj(p, "data_flow");
			flow(p, r, t, NULL);
			rt_pr_close_obj(p);
		} else {
			rt_pr_text(p, "    unattributed: %u data flows go the other way on this host pair\n", cands);
		}
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none)\n");
}

/* The NIC's counters that moved over the file, congestion counters first. */
static void nic_counters(struct rt_printer *p, struct report *r)
{
	char t[64];
	int pass, shown = 0;

	rt_pr_open_arr(p, "nic");
	rt_pr_text(p, "\nNIC counters that moved (* congestion; total over the file, busiest interval)\n");
	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->nports; i++) {
			const struct agg_port *a = &r->ports[i];

			if ((a->c.congestion ? 0 : 1) != pass || !a->delta)
				continue;
			if (r->top && shown >= r->top * 4)
				break;
			shown++;
			rt_pr_open_obj(p, NULL);
			rt_pr_str(p, RT_PR_JSON, "device", NULL, a->c.dev);
			rt_pr_str(p, RT_PR_TEXT, NULL, "  %-10s", a->c.dev[0] ? a->c.dev : "-");
			rt_pr_u64(p, RT_PR_ANY, "port", " %2llu", a->c.port);
			rt_pr_str(p, RT_PR_JSON, "netdev", NULL, a->c.netdev);
			rt_pr_str(p, RT_PR_TEXT, NULL, " %-10s", a->c.netdev[0] ? a->c.netdev : "-");
			rt_pr_str(p, RT_PR_TEXT, NULL, " %s", a->c.congestion ? "*" : " ");
			rt_pr_str(p, RT_PR_ANY, "counter", "%-34s", a->c.name);
			rt_pr_str(p, RT_PR_JSON, "scope", NULL, rt_scope_name(a->c.scope));
			if (a->c.scope == RT_SCOPE_QP)	/* a counter bound to QPs: its lowest QP */
				rt_pr_u64(p, RT_PR_JSON, "lqpn", NULL, a->c.qpn);
			rt_pr_u64(p, RT_PR_JSON, "congestion", NULL, a->c.congestion);
			rt_pr_u64(p, RT_PR_ANY, "delta", " %14llu", a->delta);
			rt_pr_u64(p, RT_PR_JSON, "last", NULL, a->c.value);
			rt_pr_u64(p, RT_PR_ANY, "peak_delta", "  peak %llu", a->peak_d);
			if (a->peak_secs > 0)
				rt_pr_dbl(p, RT_PR_TEXT, NULL, " (%.1f/s)", a->peak_d / a->peak_secs);
			rt_pr_dbl(p, RT_PR_JSON, "peak_time", NULL, a->peak_t / 1e9);
			rt_pr_str(p, RT_PR_TEXT, NULL, " at %s", fmt_time(a->peak_t, t, sizeof(t)));
			if (a->c.scope == RT_SCOPE_QP)
				rt_pr_u64(p, RT_PR_TEXT, NULL, "  qp %llu", a->c.qpn);
			rt_pr_text(p, "\n");
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none: no NIC counters in this file, or none moved)\n");
}

void rt_report_print(struct report *r, struct rt_printer *p)
{
	__u64 span = r->last_ns - r->first_ns + r->step_ns;
	__u64 start = r->first_ns - r->step_ns;
	char t1[64], t2[64], safe[4096];

	rt_pr_start(p);
	rt_pr_str(p, RT_PR_JSON, "file", NULL, r->path);
	rt_pr_str(p, RT_PR_TEXT, NULL, "rocetop report: %s", rt_fmt_safe(r->path, safe, sizeof(safe)));
	rt_pr_str(p, RT_PR_ANY, "kind", " (%s)\n", r->kind);
	rt_pr_u64(p, RT_PR_JSON, "intervals", NULL, r->nm);
	rt_pr_dbl(p, RT_PR_JSON, "start", NULL, start / 1e9);
	rt_pr_dbl(p, RT_PR_JSON, "end", NULL, r->last_ns / 1e9);
	rt_pr_str(p, RT_PR_ANY, "start_utc", "time      %s", fmt_time(start, t1, sizeof(t1)));
	rt_pr_str(p, RT_PR_ANY, "end_utc", " .. %s", fmt_time(r->last_ns, t2, sizeof(t2)));
	rt_pr_dbl(p, RT_PR_ANY, "duration", " (%.3f s, ", span / 1e9);
	rt_pr_u64(p, RT_PR_TEXT, NULL, "%llu intervals)\n", r->nm);

	rt_pr_open_obj(p, "totals");
	rt_pr_u64(p, RT_PR_ANY, "flows", "RoCE      %llu flows", r->n);
	counters(p, &r->tot);
	rt_pr_text(p, ", %llu pkts, %llu bytes; CE %llu (%.2f%%), CNP %llu, ACK %llu, NAK %llu (seq %llu, other %llu), RNR NAK %llu\n",
		   (unsigned long long)r->tot.pkts, (unsigned long long)r->tot.bytes,
		   (unsigned long long)r->tot.ecn[RT_ECN_CE], rt_ce_pct(&r->tot),
		   (unsigned long long)r->tot.cnp, (unsigned long long)r->tot.ack,
		   (unsigned long long)rt_nak(&r->tot), (unsigned long long)r->tot.nak_seq,
		   (unsigned long long)r->tot.nak_other, (unsigned long long)r->tot.rnr_nak);
	rt_pr_u64(p, RT_PR_ANY, "frames", "frames    %llu", r->itot.pkts);
	rt_pr_u64(p, RT_PR_ANY, "roce_frames", ": RoCE %llu", r->itot.roce);
	rt_pr_u64(p, RT_PR_ANY, "not_roce", ", other %llu", r->itot.not_roce);
	rt_pr_u64(p, RT_PR_ANY, "pause_frames", ", pause %llu", r->itot.mac_ctrl);
	rt_pr_u64(p, RT_PR_ANY, "truncated", ", truncated %llu", r->itot.truncated);
	rt_pr_u64(p, RT_PR_ANY, "malformed", ", malformed %llu", r->itot.malformed);
	rt_pr_u64(p, RT_PR_ANY, "table_full", ", table full %llu", r->itot.flow_full);
	rt_pr_u64(p, RT_PR_JSON, "mirrored", NULL, r->itot.mirrored);
	rt_pr_u64(p, RT_PR_ANY, "evicted", "; flows evicted %llu\n", r->evicted);
	if (r->itot.mirrored)
		rt_pr_text(p, "mirror    %llu mirror copies decapsulated (ERSPAN, GRE, VXLAN); their flows "
			   "say which session\n", (unsigned long long)r->itot.mirrored);
	rt_pr_u64(p, RT_PR_JSON, "sflow_estimated_pkts_left_out", NULL, r->est_pkts);
	rt_pr_u64(p, RT_PR_JSON, "sflow_samples_left_out", NULL, r->est_samples);
	if (r->est_samples)
		rt_pr_text(p, "sFlow     ~%llu pkts estimated from %llu samples are not in this report's flows "
			   "(the switch ports are in switchports.csv of a replay: rocetop -r FILE --csv DIR)\n",
			   (unsigned long long)r->est_pkts, (unsigned long long)r->est_samples);
	rt_pr_close_obj(p);

	rt_pr_open_obj(p, "top");
	top_flows(p, r, "Top flows by CE", "ce", rt_report_by_ce, v_ce);
	top_flows(p, r, "Top flows by CNP", "cnp", rt_report_by_cnp, v_cnp);
	top_flows(p, r, "Top flows by NAK (incl. RNR)", "nak", rt_report_by_nak, v_nak);
	rt_pr_close_obj(p);
	rt_pr_open_obj(p, "moments");
	moments(p, r);
	rt_pr_close_obj(p);
	pauses(p, r);
	host_pairs(p, r);
	throttled(p, r);
	nic_counters(p, r);
	rt_pr_end(p);
}
