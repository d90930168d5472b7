// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report's printing: one file's report, or several hosts' merged on
 * the first host's clock, in text for people or JSON for machines, both
 * from the same calls of one printer (user/core/print.h). No I/O but the
 * FILE it is given.
 *
 * Totals are summed from the per-interval deltas (so flows evicted in a live
 * recording still count). Paused time per priority is the union of the pause
 * intervals (bpf/pause.h, through rt_paused_secs in user/core/derive.h), each
 * frame's quanta * 512 bit times at the link speed rt_link_speed
 * (user/core/linkspeed.h) decides: --link-speed when given, else the speed the recording keeps for
 * the interface, else 100 Gb/s (said once); never the reading host's
 * interface of that name. The report says which ("--link-speed", "ethtool",
 * "given" at record time, "assumed").
 *
 * CNPs name the sender's QP, so they sit in the reverse direction of the data
 * flow they slow, as the join (user/core/join.c, run on every source) tied
 * them: netlink QP table, then ACKs on the same host pair; CNPs it could not
 * tie stay unattributed, with the number of data flows going the other way
 * on their host pair.
 *
 * Several hosts are put on the first host's clock: each host's offset is
 * estimated from the flows it shares with another (report_clock.c) and
 * taken off every time of its run before anything is printed. A CNP flow
 * is matched to a data flow of another host only when their active times
 * (first to last packet, on that one clock) come within RT_REP_CNP_WINDOW_NS
 * (report_agg.h) of each other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "derive.h"
#include "findings.h"
#include "fmt.h"
#include "linkspeed.h"
#include "print.h"
#include "record.h"
#include "report_agg.h"
#include "report_po.h"
#include "report_print.h"

/* ---- printing: text and JSON from the same calls (print.h) ---- */

/* --tune: what to change, from the settings the recording carries and its
 * numbers (user/sinks/tune.c; rocetop(8) TUNING). */
static void tuning(struct rt_printer *p, struct rt_rep_file *R)
{
	struct rt_tune_rec rec[RT_TUNE_MAX];
	size_t n = rt_tune_rules(&R->run.tune, rec, RT_TUNE_MAX);

	rt_pr_text(p, "\nTuning (%zu recommendation%s)\n", n, n == 1 ? "" : "s");
	rt_pr_u64(p, RT_PR_JSON, "tuning_settings", NULL, R->run.tune.ncfg);
	if (!R->run.tune.ncfg)
		rt_pr_text(p, "  the recording carries no congestion settings (recorded without an RDMA port, "
			   "or by an older rocetop): only what the traffic alone shows\n");
	else if (!n)
		rt_pr_text(p, "  nothing to change: no setting this recording shows at fault\n");
	rt_tune_print(p, rec, n);
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

/* The text formats of a row of counters; NULL: the value is JSON's only. */
struct ctr_fmt {
	const char *pkts, *bytes, *ce, *ce_pct, *cnp, *ack, *nak, *nak_seq, *nak_other, *rnr;
};

static const struct ctr_fmt json_only;
static const struct ctr_fmt flow_row = {
	.pkts = " %10llu", .ce = " %8llu", .cnp = " %8llu", .nak = " %8llu", .rnr = " %8llu\n",
};

/* A flow's (or the totals') counters. */
static void counters(struct rt_printer *p, const struct rt_flow_val *v, const struct ctr_fmt *t)
{
	rt_pr_u64(p, RT_PR_ANY, "pkts", t->pkts, v->pkts);
	rt_pr_u64(p, RT_PR_ANY, "bytes", t->bytes, v->bytes);
	rt_pr_u64(p, RT_PR_JSON, "not_ect", NULL, v->ecn[RT_ECN_NOT_ECT]);
	rt_pr_u64(p, RT_PR_JSON, "ect0", NULL, v->ecn[RT_ECN_ECT0]);
	rt_pr_u64(p, RT_PR_JSON, "ect1", NULL, v->ecn[RT_ECN_ECT1]);
	rt_pr_u64(p, RT_PR_ANY, "ce", t->ce, v->ecn[RT_ECN_CE]);
	rt_pr_dbl(p, RT_PR_TEXT, NULL, t->ce_pct, rt_ce_pct(v));
	rt_pr_u64(p, RT_PR_ANY, "cnp", t->cnp, v->cnp);
	rt_pr_u64(p, RT_PR_ANY, "ack", t->ack, v->ack);
	rt_pr_u64(p, RT_PR_ANY, "nak", t->nak, rt_nak(v));
	rt_pr_u64(p, RT_PR_ANY, "nak_seq", t->nak_seq, v->nak_seq);
	rt_pr_u64(p, RT_PR_ANY, "nak_other", t->nak_other, v->nak_other);
	rt_pr_u64(p, RT_PR_ANY, "rnr_nak", t->rnr, v->rnr_nak);
}

static const char *flow_text(const struct rt_rep *r, const struct rt_flow_key *k, char *buf,
			     size_t len)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], m[RT_MIRROR_STRLEN];

	snprintf(buf, len, "%s %s %s -> %s qp %u%s%s", rt_rep_ifname(r, k->ifindex), rt_dir_name(k->dir),
		 rt_fmt_addr(k->family, k->src, a1, sizeof(a1)),
		 rt_fmt_addr(k->family, k->dst, a2, sizeof(a2)), k->dqpn, k->mirror ? " in " : "",
		 rt_fmt_mirror(k, m, sizeof(m)));
	return buf;
}

/* A flow: in text its one-line name (text_fmt, NULL for none) and the row
 * counters t; in JSON its key, every counter and its owner. */
static void flow_out(struct rt_printer *p, const struct rt_rep *r, const struct rt_rep_flow *f,
		     const char *text_fmt, const struct ctr_fmt *t)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], b[256];

	rt_pr_str(p, RT_PR_TEXT, NULL, text_fmt, text_fmt ? flow_text(r, &f->k, b, sizeof(b)) : "");
	rt_pr_str(p, RT_PR_JSON, "ifname", NULL, rt_rep_ifname(r, f->k.ifindex));
	rt_pr_str(p, RT_PR_JSON, "dir", NULL, rt_dir_name(f->k.dir));
	rt_pr_str(p, RT_PR_JSON, "src", NULL, rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)));
	rt_pr_str(p, RT_PR_JSON, "dst", NULL, rt_fmt_addr(f->k.family, f->k.dst, a2, sizeof(a2)));
	rt_pr_u64(p, RT_PR_JSON, "dqpn", NULL, f->k.dqpn);
	if (f->k.mirror) {
		char m[RT_MIRROR_STRLEN];

		rt_pr_str(p, RT_PR_JSON, "mirror", NULL, rt_fmt_mirror(&f->k, m, sizeof(m)));
	}
	counters(p, &f->v, t);
	if (f->pid || f->lqpn) {
		rt_pr_u64(p, RT_PR_JSON, "lqpn", NULL, f->lqpn);
		rt_pr_u64(p, RT_PR_JSON, "pid", NULL, f->pid);
		rt_pr_str(p, RT_PR_JSON, "comm", NULL, f->comm);
	}
}

/* A flow as a JSON object under key (nothing in text). */
static void flow_obj(struct rt_printer *p, const char *key, const struct rt_rep *r,
		     const struct rt_rep_flow *f)
{
	rt_pr_open_obj(p, key);
	flow_out(p, r, f, NULL, &json_only);
	rt_pr_close_obj(p);
}

static void top_flows(struct rt_printer *p, struct rt_rep_file *R, const char *title, const char *key,
		      int (*cmp)(const void *, const void *), __u64 (*val)(const struct rt_rep_flow *))
{
	struct rt_rep *r = R->a;
	size_t i;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), cmp);
	rt_pr_open_arr(p, key);
	rt_pr_text(p, "\n%s\n  %-62s %10s %8s %8s %8s %8s\n", title, "FLOW", "PKTS", "CE", "CNP",
		   "NAK", "RNR");
	for (i = 0; i < r->n && (!R->top || shown < R->top); i++) {
		const struct rt_rep_flow *f = r->flows[i];

		if (!val(f))
			break;
		shown++;
		rt_pr_open_obj(p, NULL);
		flow_out(p, r, f, "  %-62s", &flow_row);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none)\n");
}

static __u64 v_ce(const struct rt_rep_flow *f) { return f->v.ecn[RT_ECN_CE]; }
static __u64 v_cnp(const struct rt_rep_flow *f) { return f->v.cnp; }
static __u64 v_nak(const struct rt_rep_flow *f) { return rt_nak(&f->v) + f->v.rnr_nak; }

static void moments(struct rt_printer *p, struct rt_rep_file *R, struct rt_rep_top *t, const char *key,
		    const char *title)
{
	const struct rt_rep_moment *m = rt_rep_top_sorted(t);
	char b[64], si[16];
	size_t i;
	int shown = 0;

	rt_pr_open_arr(p, key);
	rt_pr_text(p, "\n%s\n  %-27s %10s %10s %10s %10s %12s\n", title, "TIME", "LENGTH", "CE",
		   "CE/s", "PAUSES", "QUANTA");
	for (i = 0; i < t->n && (!R->top || shown < R->top); i++) {
		const struct rt_rep_moment *x = &m[i];

		shown++;
		rt_pr_open_obj(p, NULL);
		rt_pr_dbl(p, RT_PR_JSON, "time", NULL, x->time_ns / 1e9);
		rt_pr_str(p, RT_PR_ANY, "utc", "  %-27s", fmt_time(x->time_ns, b, sizeof(b)));
		rt_pr_dbl(p, RT_PR_JSON, "seconds", NULL, x->secs);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %10s", RT_DUR(x->secs));
		rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, x->pkts);
		rt_pr_u64(p, RT_PR_ANY, "ce", " %10llu", x->ce);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %10s", rt_fmt_si(x->secs > 0 ? x->ce / x->secs : 0, si, sizeof(si)));
		rt_pr_dbl(p, RT_PR_JSON, "ce_per_s", NULL, x->secs > 0 ? x->ce / x->secs : 0);
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
	/* Only with --top 0 past RT_REP_MOMENTS_ALL: the report keeps that many. */
	if (t->left_out && !R->top) {
		rt_pr_u64(p, RT_PR_JSON, key[0] == 'c' ? "ce_peaks_not_kept" : "pfc_peaks_not_kept", NULL,
			  t->left_out);
		rt_pr_text(p, "  (%llu more not kept: the report keeps the %d highest)\n",
			   (unsigned long long)t->left_out, RT_REP_MOMENTS_ALL);
	}
}

/* What the recording says made it, and of each interface (user/core/record.h). */
static void recorded(struct rt_printer *p, const struct rt_rep_file *R)
{
	const struct rt_rep *r = R->a;
	char safe[1100], pfc[32];
	size_t i, n;
	int b;

	if (strcmp(R->run.kind, "recording"))
		return;
	rt_pr_open_obj(p, "recorded");
	rt_pr_str(p, RT_PR_ANY, "rocetop", "recorded  by rocetop %s",
		  R->run.version[0] ? rt_fmt_safe(R->run.version, safe, sizeof(safe)) : "(not said)");
	rt_pr_str(p, RT_PR_ANY, "kernel", ", kernel %s",
		  R->run.kernel[0] ? rt_fmt_safe(R->run.kernel, safe, sizeof(safe)) : "(not said)");
	rt_pr_str(p, RT_PR_ANY, "options", ", options: %s\n",
		  R->run.options[0] ? rt_fmt_safe(R->run.options, safe, sizeof(safe)) : "(not said)");
	rt_pr_open_arr(p, "interfaces");
	for (i = 0; i < r->nifaces; i++) {
		const struct rt_iface *f = &r->ifaces[i];

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "ifname", "interface %s:", rt_fmt_safe(f->name, safe, sizeof(safe)));
		rt_pr_u64(p, RT_PR_JSON, "link_speed_mbps", NULL, f->speed_mbps);
		rt_pr_str(p, RT_PR_JSON, "link_speed_from", NULL, f->speed_from);
		if (f->speed_mbps)
			rt_pr_text(p, " %llu Mb/s (%s)", (unsigned long long)f->speed_mbps, f->speed_from);
		else
			rt_pr_text(p, " link speed not recorded%s (give it with --link-speed SPEED)",
				   strcmp(f->speed_from, "mirror") ? "" : ": a mirror collector");
		rt_pr_u64(p, RT_PR_JSON, "mtu", NULL, f->mtu);
		if (f->mtu)
			rt_pr_text(p, ", MTU %u", f->mtu);
		for (b = 0, n = 0, pfc[0] = 0; b < 8 && f->pfc_known; b++)
			if (f->pfc_en & (1u << b))
				n += (size_t)snprintf(pfc + n, sizeof(pfc) - n, "%s%d", n ? "," : "", b);
		if (f->pfc_known)
			rt_pr_str(p, RT_PR_ANY, "pfc_enabled", ", PFC on %s", n ? pfc : "none");
		rt_pr_text(p, "\n");
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_close_obj(p);
}

static void pauses(struct rt_printer *p, struct rt_rep_file *R)
{
	const struct rt_rep *r = R->a;
	char pn[8];
	size_t i;
	int prio, any = 0;

	/* Each interval's quanta at its link speed (rt_link_speed): --link-speed,
	 * else what the recording says of the interface, else 100G assumed. */
	for (i = 0; i < r->nifs && !R->speed_mbps; i++)
		if (r->ifs[i].speed_mbps) {
			R->speed_mbps = r->ifs[i].speed_mbps;
			R->speed_from = r->ifs[i].speed_from;
		}
	if (!R->speed_mbps)
		R->speed_mbps = RT_SPEED_ASSUMED_MBPS;
	rt_pr_open_obj(p, "pfc");
	rt_pr_u64(p, RT_PR_ANY, "link_speed_mbps",
		  "\nPaused time per priority (the union of the pause intervals, quanta of 512 bit times at %llu Mb/s",
		  R->speed_mbps);
	rt_pr_str(p, RT_PR_ANY, "link_speed_from", ", %s)\n", R->speed_from ? R->speed_from : "assumed");
	rt_pr_u64(p, RT_PR_JSON, "paused_estimated", NULL, (unsigned long long)r->paused_est);
	if (r->paused_est)
		rt_pr_text(p, "  estimated: the recording has no measured paused time (made before rocetop measured it), so\n"
			   "  each interval's quanta at the link speed, capped at the interval, stand for it\n");
	rt_pr_text(p, "  %-16s %-8s %-4s %10s %10s %14s %12s %s\n", "IFACE", "DIR", "PRIO", "FRAMES",
		   "XON", "QUANTA", "PAUSED", "SPEED");
	rt_pr_open_arr(p, "priorities");
	for (i = 0; i < r->nifs; i++) {
		const struct rt_rep_if *a = &r->ifs[i];

		for (prio = 0; prio < RT_NPRIO; prio++) {
			if (!rt_paused_any(&a->v, (unsigned int)prio))
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
			rt_pr_dbl(p, RT_PR_JSON, "seconds", NULL, a->paused[prio]);
			rt_pr_str(p, RT_PR_TEXT, NULL, " %12s", RT_DUR(a->paused[prio]));
			rt_pr_u64(p, RT_PR_ANY, "link_speed_mbps", " %llu Mb/s", a->speed_mbps);
			rt_pr_str(p, RT_PR_ANY, "link_speed_from", " (%s)\n", a->speed_from);
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
	rt_pr_close_obj(p);
	if (!any)
		rt_pr_text(p, "  (none)\n");
}

static void host_pairs(struct rt_printer *p, const struct rt_rep_pair *pairs, size_t npairs, int top)
{
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], hs[100];
	size_t i;

	rt_pr_open_arr(p, "host_pairs");
	rt_pr_text(p, "\nHost pairs by congestion (CE + CNP + NAK + RNR)\n  %-40s %6s %10s %12s %8s %8s %8s %8s\n",
		   "HOSTS", "FLOWS", "PKTS", "BYTES", "CE", "CNP", "NAK", "RNR");
	for (i = 0; i < npairs && (!top || i < (size_t)top); i++) {
		const struct rt_rep_pair *q = &pairs[i];

		rt_fmt_addr(q->family, q->a, a1, sizeof(a1));
		rt_fmt_addr(q->family, q->b, a2, sizeof(a2));
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
	if (!npairs)
		rt_pr_text(p, "  (none)\n");
}

/* The flows folded by job (user/core/jobagg.h), most CE first: only when a flow had a job. */
static void jobs_table(struct rt_printer *p, struct rt_jobagg *a, int top)
{
	char ranks[256], safe[RT_JOB_KEY_LEN * 4];
	size_t i, n;

	if (!rt_jobagg_any(a))
		return;
	n = rt_jobagg_sorted(a);
	rt_pr_open_arr(p, "jobs");
	rt_pr_text(p, "\nJobs by congestion (\"-\": flows of no known job)\n  %-40s %6s %10s %12s %8s %8s %8s "
		   "%8s %7s %7s  %s\n", "JOB", "FLOWS", "PKTS", "BYTES", "CE", "CNP", "NAK", "RNR", "CULPRIT",
		   "VICTIM", "RANKS");
	for (i = 0; i < n && (!top || i < (size_t)top); i++) {
		struct rt_jobsum *g = a->order[i];
		const char *rk = rt_fmt_ranks(g->ranks, g->nranks, ranks, sizeof(ranks));

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_TEXT, NULL, "  %-40s", rt_fmt_safe(g->key, safe, sizeof(safe)));
		rt_pr_str(p, RT_PR_JSON, "job", NULL, g->key);
		rt_pr_u64(p, RT_PR_ANY, "flows", " %6llu", g->flows);
		rt_pr_u64(p, RT_PR_ANY, "pkts", " %10llu", g->pkts);
		rt_pr_u64(p, RT_PR_ANY, "bytes", " %12llu", g->bytes);
		rt_pr_u64(p, RT_PR_ANY, "ce", " %8llu", g->ce);
		rt_pr_u64(p, RT_PR_ANY, "cnp", " %8llu", g->cnp);
		rt_pr_u64(p, RT_PR_ANY, "nak", " %8llu", g->nak);
		rt_pr_u64(p, RT_PR_ANY, "rnr_nak", " %8llu", g->rnr);
		rt_pr_share(p, "culprit_share", " %7s", rt_jobsum_culprit(a, g));
		rt_pr_share(p, "victim_share", " %7s", rt_jobsum_victim(g));
		rt_pr_str(p, RT_PR_ANY, "ranks", "  %s\n", *rk ? rk : "-");
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
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
static void throttled(struct rt_printer *p, struct rt_rep_file *R)
{
	struct rt_rep *r = R->a;
	char b1[256], b2[256];
	size_t i;
	int shown = 0;

	qsort(r->flows, r->n, sizeof(*r->flows), rt_rep_by_cnp);
	rt_pr_open_arr(p, "cnp_targets");
	rt_pr_text(p, "\nData flows slowed by CNPs\n");
	for (i = 0; i < r->n && (!R->top || shown < R->top); i++) {
		const struct rt_rep_flow *c = r->flows[i], *t = NULL;
		const char *how = c->has_target ? attr_name(c->attr) : "unattributed";
		/* Unattributed: how many data flows go the other way (src = the
		 * CNP's dst) on this host pair, for the reader to weigh. */
		__u32 cands = c->has_target ? 1 : rt_rep_cnp_candidates(r, c);

		if (!c->v.cnp)
			break;
		shown++;
		if (c->has_target)
			t = rt_rep_flow_of(r, &c->target);
		rt_pr_open_obj(p, NULL);
		flow_obj(p, "cnp_flow", r, c);
		rt_pr_str(p, RT_PR_JSON, "attribution", NULL, how);
		rt_pr_u64(p, RT_PR_JSON, "candidates", NULL, cands);
		if (t)
			flow_obj(p, "data_flow", r, t);
		rt_pr_close_obj(p);
		rt_pr_u64(p, RT_PR_TEXT, NULL, "  %llu CNPs on", c->v.cnp);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %s\n", flow_text(r, &c->k, b1, sizeof(b1)));
		if (t)
			rt_pr_text(p, "    throttle %s  (%llu pkts, %llu CE; by %s)\n",
				   flow_text(r, &t->k, b2, sizeof(b2)), (unsigned long long)t->v.pkts,
				   (unsigned long long)t->v.ecn[RT_ECN_CE], how);
		else
			rt_pr_text(p, "    unattributed: %u data flows go the other way on this host pair\n",
				   c->has_target ? 0 : cands);
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none)\n");
}

/* The NIC's counters that moved over the file, congestion counters first. */
static void nic_counters(struct rt_printer *p, struct rt_rep_file *R)
{
	const struct rt_rep *r = R->a;
	char t[64], si[16];
	int pass, shown = 0;

	rt_pr_open_arr(p, "nic");
	rt_pr_text(p, "\nNIC counters that moved (* congestion; total over the file, busiest interval)\n");
	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->nports; i++) {
			const struct rt_rep_port *a = &r->ports[i];
			int qp = a->c.scope == RT_SCOPE_QP;	/* a counter bound to QPs: its lowest QP */

			if ((a->c.congestion ? 0 : 1) != pass || !a->delta)
				continue;
			if (R->top && shown >= R->top * 4)
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
			if (qp)
				rt_pr_u64(p, RT_PR_JSON, "lqpn", NULL, a->c.qpn);
			rt_pr_u64(p, RT_PR_JSON, "congestion", NULL, a->c.congestion);
			rt_pr_u64(p, RT_PR_ANY, "delta", " %14llu", a->delta);
			rt_pr_u64(p, RT_PR_JSON, "last", NULL, a->c.value);
			rt_pr_u64(p, RT_PR_ANY, "peak_delta", "  peak %llu", a->peak_d);
			if (a->peak_secs > 0)
				rt_pr_str(p, RT_PR_TEXT, NULL, " (%s/s)", rt_fmt_si(a->peak_d / a->peak_secs, si, sizeof(si)));
			rt_pr_dbl(p, RT_PR_JSON, "peak_time", NULL, a->peak_t / 1e9);
			rt_pr_str(p, RT_PR_TEXT, NULL, " at %s", fmt_time(a->peak_t, t, sizeof(t)));
			if (qp)
				rt_pr_u64(p, RT_PR_TEXT, NULL, "  qp %llu", a->c.qpn);
			rt_pr_text(p, "\n");
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none: no NIC counters in this file, or none moved)\n");
}

/* One finding: text line(s), or a JSON object with rule, severity, start,
 * end, subject (an object), evidence and next (and host when several files). */
static void finding_out(struct rt_printer *p, int multi, const struct rt_finding *f)
{
	char t1[64], t2[64], subj[600];

	fmt_time(f->start_ns, t1, sizeof(t1));
	fmt_time(f->end_ns, t2, sizeof(t2));
	rt_pr_open_obj(p, NULL);
	rt_pr_text(p, "  %s .. %s  %-8s %-18s", t1, t2 + 11, rt_sev_name(f->sev), f->rule);
	rt_pr_str(p, RT_PR_JSON, "rule", NULL, f->rule);
	rt_pr_str(p, RT_PR_JSON, "severity", NULL, rt_sev_name(f->sev));
	rt_pr_dbl(p, RT_PR_JSON, "start", NULL, f->start_ns / 1e9);
	rt_pr_dbl(p, RT_PR_JSON, "end", NULL, f->end_ns / 1e9);
	rt_pr_dbl(p, RT_PR_JSON, "peak", NULL, f->peak);
	rt_pr_str(p, RT_PR_JSON, "peak_unit", NULL, f->peak_unit ? f->peak_unit : "");
	if (multi)	/* text: after the rule; JSON: last */
		rt_pr_str(p, RT_PR_TEXT, NULL, " [%s]", f->host);
	rt_pr_json_raw(p, "subject", rt_subject_json(&f->subj, subj, sizeof(subj)));
	rt_pr_str(p, RT_PR_TEXT, NULL, " %s\n", rt_subject_text(&f->subj, subj, sizeof(subj)));
	rt_pr_str(p, RT_PR_ANY, "evidence", "      %s\n", f->evidence);
	if (f->involved[0]) {
		rt_pr_str(p, RT_PR_ANY, "involved", "      involved: %s", f->involved);
		rt_pr_text(p, f->involved_more ? "; and more\n" : "\n");
	}
	rt_pr_str(p, RT_PR_ANY, "next", "      next: %s\n", f->next);
	if (multi)
		rt_pr_str(p, RT_PR_JSON, "host", NULL, f->host);
	rt_pr_close_obj(p);
}

static int by_rank(const void *x, const void *y)
{
	return rt_finding_rank_cmp(*(const struct rt_finding *const *)x, *(const struct rt_finding *const *)y);
}

/*
 * One file's findings: its episodes ranked (severity, then length, then peak),
 * the first `limit` shown (0: all) and the rest counted ("and N more"). The
 * timeline of several files (multi) keeps every finding in time order.
 */
static void findings_out(struct rt_printer *p, int multi, const struct rt_flog *L, int limit)
{
	const struct rt_finding **r = NULL;
	size_t i, shown = L->n;

	if (!multi && L->n && (r = calloc(L->n, sizeof(*r)))) {
		for (i = 0; i < L->n; i++)
			r[i] = &L->f[i];
		qsort(r, L->n, sizeof(*r), by_rank);
		if (limit && shown > (size_t)limit)
			shown = (size_t)limit;
	}
	rt_pr_open_arr(p, "findings");
	if (r)
		rt_pr_text(p, "\nFindings (%zu), most severe first, then the longest\n", L->n);
	else
		rt_pr_text(p, "\nFindings (%zu), in time order\n", L->n);
	for (i = 0; i < shown; i++)
		finding_out(p, multi, r ? r[i] : &L->f[i]);
	rt_pr_close_arr(p);
	if (!multi)
		rt_pr_u64(p, RT_PR_JSON, "findings_more", NULL, (unsigned long long)(L->n - shown));
	if (L->n > shown)
		rt_pr_u64(p, RT_PR_TEXT, NULL, "  and %llu more\n", (unsigned long long)(L->n - shown));
	if (!L->n)
		rt_pr_text(p, "  (none: no rule matched)\n");
	free(r);
}

/* One file's report: the members of its JSON object, or its text. */
static void print_report(struct rt_printer *p, struct rt_rep_file *R)
{
	const struct rt_rep *r = R->a;
	__u64 first_len = r->first_len_ns ? r->first_len_ns : r->step_ns;
	__u64 span = r->last_ns - r->first_ns + first_len;
	__u64 start = r->first_ns - first_len;
	char t1[64], t2[64], safe[4096], sh[256];
	static const struct ctr_fmt totals = {
		.pkts = ", %llu pkts", .bytes = ", %llu bytes", .ce = "; CE %llu", .ce_pct = " (%.2f%%)",
		.cnp = ", CNP %llu", .ack = ", ACK %llu", .nak = ", NAK %llu", .nak_seq = " (seq %llu",
		.nak_other = ", other %llu)", .rnr = ", RNR NAK %llu\n",
	};

	/* Strings from the file: printable in text, escaped in JSON. */
	rt_pr_str(p, RT_PR_TEXT, NULL, "rocetop report: %s", rt_fmt_safe(R->path, safe, sizeof(safe)));
	rt_pr_str(p, RT_PR_JSON, "file", NULL, R->path);
	rt_pr_str(p, RT_PR_ANY, "kind", " (%s", R->run.kind);
	rt_pr_str(p, RT_PR_TEXT, NULL, ", host %s)\n", rt_fmt_safe(R->run.host, sh, sizeof(sh)));
	rt_pr_str(p, RT_PR_JSON, "host", NULL, R->run.host);
	recorded(p, R);
	fmt_time(start, t1, sizeof(t1));
	fmt_time(r->last_ns, t2, sizeof(t2));
	rt_pr_u64(p, RT_PR_JSON, "intervals", NULL, r->intervals);
	rt_pr_dbl(p, RT_PR_JSON, "start", NULL, start / 1e9);
	rt_pr_dbl(p, RT_PR_JSON, "end", NULL, r->last_ns / 1e9);
	rt_pr_dbl(p, RT_PR_JSON, "duration", NULL, span / 1e9);
	rt_pr_str(p, RT_PR_JSON, "start_utc", NULL, t1);
	rt_pr_str(p, RT_PR_JSON, "end_utc", NULL, t2);
	rt_pr_text(p, "time      %s .. %s (%s, %llu intervals)\n", t1, t2, RT_DUR(span / 1e9),
		   (unsigned long long)r->intervals);
	rt_pr_open_obj(p, "totals");
	rt_pr_u64(p, RT_PR_ANY, "flows", "RoCE      %llu flows", r->n);
	counters(p, &r->tot, &totals);
	rt_pr_u64(p, RT_PR_ANY, "frames", "frames    %llu", r->itot.pkts);
	rt_pr_u64(p, RT_PR_ANY, "roce_frames", ": RoCE %llu", r->itot.roce);
	rt_pr_u64(p, RT_PR_ANY, "not_roce", ", other %llu", r->itot.not_roce);
	rt_pr_u64(p, RT_PR_ANY, "pause_frames", ", pause %llu", r->itot.mac_ctrl);
	rt_pr_u64(p, RT_PR_ANY, "truncated", ", truncated %llu", r->itot.truncated);
	rt_pr_u64(p, RT_PR_ANY, "malformed", ", malformed %llu", r->itot.malformed);
	rt_pr_u64(p, RT_PR_ANY, "table_full", ", table full %llu", r->itot.flow_full);
	rt_pr_u64(p, RT_PR_JSON, "mirrored", NULL, r->itot.mirrored);
	rt_pr_u64(p, RT_PR_ANY, "evicted", "; flows evicted %llu\n", r->evicted);
	rt_pr_u64(p, RT_PR_JSON, "sflow_estimated_pkts_left_out", NULL, r->est_pkts);
	rt_pr_u64(p, RT_PR_JSON, "sflow_samples_left_out", NULL, r->est_samples);
	rt_pr_close_obj(p);
	if (r->itot.mirrored)
		rt_pr_u64(p, RT_PR_TEXT, NULL, "mirror    %llu mirror copies decapsulated (ERSPAN, GRE, VXLAN); "
			  "their flows say which session\n", r->itot.mirrored);
	if (r->est_samples)
		rt_pr_text(p, "sFlow     ~%llu pkts estimated from %llu samples are not in this report's flows "
			   "(the switch ports are in switchports.csv of a replay: rocetop -r FILE --csv DIR)\n",
			   (unsigned long long)r->est_pkts, (unsigned long long)r->est_samples);
	/* Several files: the text has one timeline of every file's findings
	 * before them; JSON keeps each file's too. */
	rt_pr_mute(p, R->multi ? RT_PR_TEXT : 0);
	findings_out(p, 0, &R->run.flog, R->episodes);
	rt_pr_mute(p, 0);
	rt_pr_open_obj(p, "top");
	top_flows(p, R, "Top flows by CE", "ce", rt_rep_by_ce, v_ce);
	top_flows(p, R, "Top flows by CNP", "cnp", rt_rep_by_cnp, v_cnp);
	top_flows(p, R, "Top flows by NAK (incl. RNR)", "nak", rt_rep_by_nak, v_nak);
	rt_pr_close_obj(p);
	rt_pr_open_obj(p, "moments");
	moments(p, R, &R->a->ce_peaks, "ce_peaks", "Moments of highest CE rate (interval end)");
	moments(p, R, &R->a->pfc_peaks, "pfc_peaks", "Moments of most PFC pauses (interval end)");
	rt_pr_close_obj(p);
	pauses(p, R);
	host_pairs(p, r->pairs, r->npairs, R->top);
	jobs_table(p, &R->a->jobs, R->top);
	throttled(p, R);
	nic_counters(p, R);
	rt_rep_probes_print(p, &R->run.probes, &R->run.flog);
	if (R->tune)
		tuning(p, R);
}

/* ---- several files: one timeline across hosts ---- */

/* CNPs seen on one host tied to the data flows they throttle on another. */
static void cnp_matches(struct rt_printer *p, struct rt_rep_file *rs, int n, int top)
{
	char b1[256], b2[256];
	int i, j, shown = 0;
	size_t k;
	__u64 w = RT_REP_CNP_WINDOW_NS;

	for (i = 0; i < n; i++)
		w = rs[i].a->step_ns > w ? rs[i].a->step_ns : w;
	rt_pr_text(p, "\nCNPs on one host matched to the data flows they throttle on another\n");
	rt_pr_dbl(p, RT_PR_JSON, "cnp_window_s", NULL, (double)w / 1e9);
	rt_pr_str(p, RT_PR_TEXT, NULL, "  (active within %s of each other on the first host's clock)\n",
		  RT_DUR((double)w / 1e9));
	rt_pr_open_arr(p, "cnp_matches");
	for (i = 0; i < n; i++) {
		struct rt_rep *a = rs[i].a;

		qsort(a->flows, a->n, sizeof(*a->flows), rt_rep_by_cnp);
		for (k = 0; k < a->n; k++) {
			const struct rt_rep_flow *c = a->flows[k];

			if (!c->v.cnp)
				break;
			if (!c->has_target)
				continue;
			for (j = 0; j < n; j++) {
				const struct rt_rep_flow *dfl;

				/* another host only: one host's own files never match each other */
				if (j == i || (rs[i].host0[0] && !strcmp(rs[i].host0, rs[j].host0)) ||
				    !(dfl = rt_rep_data_flow_near(rs[j].a, c, w)))
					continue;
				if (top && shown >= top)
					break;
				shown++;
				rt_pr_open_obj(p, NULL);
				rt_pr_str(p, RT_PR_ANY, "cnp_host", "  [%s]", rs[i].run.host);
				rt_pr_u64(p, RT_PR_TEXT, NULL, " %llu CNPs on", c->v.cnp);
				rt_pr_str(p, RT_PR_TEXT, NULL, " %s\n", flow_text(a, &c->k, b1, sizeof(b1)));
				flow_obj(p, "cnp_flow", a, c);
				rt_pr_str(p, RT_PR_ANY, "data_host", "      throttle [%s]", rs[j].run.host);
				rt_pr_str(p, RT_PR_TEXT, NULL, " %s:", flow_text(rs[j].a, &dfl->k, b2, sizeof(b2)));
				rt_pr_u64(p, RT_PR_TEXT, NULL, " %llu data packets", rt_rep_data_pkts(dfl));
				rt_pr_u64(p, RT_PR_TEXT, NULL, ", CE %llu\n", dfl->v.ecn[RT_ECN_CE]);
				flow_obj(p, "data_flow", rs[j].a, dfl);
				rt_pr_close_obj(p);
			}
		}
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "  (none: no CNP flow's target was seen on another host at that time)\n");
}

/* Why a host's clock was not estimated. */
const char *rt_rep_clock_why(const struct rt_rep_clock *c)
{
	return c->shares ? "no chain of shared flows to the first host" : "no flow shared with another host";
}

/* Each host's clock against the first's, and whether it was applied. */
static void clocks_out(struct rt_printer *p, struct rt_rep_file *rs, int n)
{
	int i;

	rt_pr_text(p, "\nClocks: every time below is on [%s]'s clock\n", rs[0].run.host);
	rt_pr_open_arr(p, "clock_offsets");
	for (i = 0; i < n; i++) {
		const struct rt_rep_clock *c = &rs[i].clock;

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "host", "  clock offset of [%s]:", rs[i].run.host);
		rt_pr_bool(p, RT_PR_JSON, "reference", NULL, i == 0);
		rt_pr_bool(p, RT_PR_JSON, "estimated", NULL, c->known);
		rt_pr_bool(p, RT_PR_JSON, "applied", NULL, c->known && i);
		rt_pr_dbl(p, RT_PR_JSON, "offset_s", NULL, (double)c->offset_ns / 1e9);
		if (i == 0) {
			rt_pr_text(p, " the reference\n");
		} else if (c->known && c->same_host) {
			rt_pr_dbl(p, RT_PR_TEXT, NULL, " %+.3f s", (double)c->offset_ns / 1e9);
			rt_pr_str(p, RT_PR_ANY, "same_host_as", ": the same host as [%s] (applied)\n",
				  rs[c->against].run.host);
		} else if (c->known) {
			rt_pr_dbl(p, RT_PR_TEXT, NULL, " %+.3f s", (double)c->offset_ns / 1e9);
			rt_pr_u64(p, RT_PR_ANY, "flows", " from %llu shared flows", c->flows);
			rt_pr_str(p, RT_PR_ANY, "against", " with [%s] (applied;", rs[c->against].run.host);
			rt_pr_dbl(p, RT_PR_ANY, "min_s", " their differences %+.6f", (double)c->lo_ns / 1e9);
			rt_pr_dbl(p, RT_PR_ANY, "max_s", " to %+.6f s)\n", (double)c->hi_ns / 1e9);
		} else {
			rt_pr_str(p, RT_PR_ANY, "why", " not estimated: %s (its times as it recorded them)\n",
				  rt_rep_clock_why(c));
		}
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
}

/* Several hosts on the first one's clock: estimated, then every time of
 * each run moved. 0 or -ENOMEM. */
int rt_rep_clocks_apply(struct rt_rep_file *rs, int n)
{
	const struct rt_rep **as = calloc((size_t)n, sizeof(*as));
	const char **h0 = calloc((size_t)n, sizeof(*h0));
	struct rt_rep_clock *c = calloc((size_t)n, sizeof(*c));
	int i, err = as && h0 && c ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++) {
		as[i] = rs[i].a;
		h0[i] = rs[i].host0;
	}
	if (!err)
		err = rt_rep_clocks(as, h0, n, c);
	for (i = 0; !err && i < n; i++) {
		rs[i].clock = c[i];
		if (c[i].known && c[i].offset_ns)
			rt_rep_shift(&rs[i].run, -c[i].offset_ns);
	}
	free(as);
	free(h0);
	free(c);
	return err;
}

/* How far host i's clock can be off the reference's: the spread of the
 * differences it was measured from, along its chain (0: one host's files). */
__u64 rt_rep_clock_margin(const struct rt_rep_file *rs, int n, int i)
{
	__u64 m = 0;
	int k;

	for (k = 0; k < n && i > 0 && rs[i].clock.known; k++, i = rs[i].clock.against) {
		const struct rt_rep_clock *c = &rs[i].clock;
		__s64 up = c->hi_ns - c->offset_ns, down = c->offset_ns - c->lo_ns;

		/* live recordings stamp flows per interval: one more step */
		if (!c->same_host)
			m += (__u64)(up > down ? up : down) + rs[i].a->step_ns;
		if (c->against < 0)
			break;
	}
	return m;
}

/* Where the pause storms started, over every host (report_po.c). */
static int pause_origin(struct rt_printer *p, struct rt_rep_file *rs, int n)
{
	struct rt_po_host *h = calloc((size_t)n, sizeof(*h));
	int i, err;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		h[i].label = rs[i].run.host;
		h[i].peps = rs[i].a->peps;
		h[i].npeps = rs[i].a->npeps;
		h[i].left = rs[i].a->peps_left;
		h[i].clock_known = rs[i].clock.known || i == 0;
		h[i].margin_ns = rt_rep_clock_margin(rs, n, i);
	}
	err = rt_report_po(p, h, n);
	free(h);
	return err;
}

/* One rank of a job on one host: its flows' congestion (CE + CNP + NAK + RNR). */
struct rank_row {
	char job[RT_JOB_KEY_LEN];
	int rank, host;
	__u64 score;
};

static int rank_row_cmp(const void *x, const void *y)
{
	const struct rank_row *a = x, *b = y;
	int c = strcmp(a->job, b->job);

	if (c)
		return c;
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;	/* the slowest first */
	return a->rank - b->rank;
}

/* The ranks of every job over the files' aggregates (rt_rep.ranks), sorted
 * by job, the most congested first: how many in *out (NULL without memory). */
static size_t rank_rows(struct rt_rep_file *rs, int n, struct rank_row **out)
{
	size_t k = 0, cap = 0;

	*out = NULL;
	for (int i = 0; i < n; i++) {
		const struct rt_htab *t = &rs[i].a->ranks.t;

		for (size_t s = 0; s < t->cap; s++) {
			const struct rt_jobsum *g = rt_htab_at(t, s);
			const char *hash = t->used[s] ? strrchr(g->key, '#') : NULL;
			struct rank_row *r;

			if (!hash || hash[1] == '-')
				continue;	/* no job, or no rank */
			if (!(r = rt_append((void **)out, &k, &cap, sizeof(*r))))
				return 0;
			snprintf(r->job, sizeof(r->job), "%.*s", (int)(hash - g->key), g->key);
			r->rank = atoi(hash + 1);
			r->host = i;
			r->score = g->ce + g->cnp + g->nak + g->rnr;
		}
	}
	if (k > 1)
		qsort(*out, k, sizeof(**out), rank_row_cmp);
	return k;
}

/* Per job: its slowest rank (the most congested: CE + CNP + NAK + RNR of its
 * flows) and host, beside the median over its ranks. */
static void rank_spread(struct rt_printer *p, struct rt_rep_file *rs, int n)
{
	struct rank_row *r;
	size_t k = rank_rows(rs, n, &r), i, j;
	char safe[RT_JOB_KEY_LEN * 4];

	if (!k) {
		free(r);
		return;
	}
	rt_pr_open_arr(p, "job_ranks");
	rt_pr_text(p, "\nThe slowest rank of each job (congestion: CE + CNP + NAK + RNR of its flows)\n"
		   "  %-40s %6s %6s %-20s %12s %12s\n", "JOB", "RANKS", "RANK", "HOST", "CONGESTION", "MEDIAN");
	for (i = 0; i < k; i = j) {
		__u64 med;

		for (j = i; j < k && !strcmp(r[j].job, r[i].job); j++)
			;
		/* r[i..j) from the most congested down: the median in the middle */
		med = (j - i) % 2 ? r[i + (j - i) / 2].score :
		      (r[i + (j - i) / 2 - 1].score + r[i + (j - i) / 2].score) / 2;
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_TEXT, NULL, "  %-40s", rt_fmt_safe(r[i].job, safe, sizeof(safe)));
		rt_pr_str(p, RT_PR_JSON, "job", NULL, r[i].job);
		rt_pr_u64(p, RT_PR_ANY, "ranks", " %6llu", (unsigned long long)(j - i));
		rt_pr_u64(p, RT_PR_ANY, "slowest_rank", " %6llu", (unsigned long long)r[i].rank);
		rt_pr_str(p, RT_PR_ANY, "host", " %-20s", rt_fmt_safe(rs[r[i].host].run.host, safe, sizeof(safe)));
		rt_pr_u64(p, RT_PR_ANY, "congestion", " %12llu", (unsigned long long)r[i].score);
		rt_pr_u64(p, RT_PR_ANY, "median", " %12llu\n", (unsigned long long)med);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	free(r);
}

/* A job's flows and ranks over every host's file. */
static void jobs_merged(struct rt_printer *p, struct rt_rep_file *rs, int n, int top)
{
	struct rt_jobagg all;
	int i;

	rt_jobagg_init(&all, RT_GROUP_JOB);
	for (i = 0; i < n; i++)
		if (rt_jobagg_merge(&all, &rs[i].a->jobs))
			break;
	if (i == n && rt_jobagg_any(&all)) {
		rt_pr_open_obj(p, "all_jobs");
		rt_pr_text(p, "\nOver all %d files:", n);
		jobs_table(p, &all, top);
		rank_spread(p, rs, n);
		rt_pr_close_obj(p);
	}
	rt_jobagg_free(&all);
}

static int print_merged(struct rt_printer *p, struct rt_rep_file *rs, int n, int top)
{
	const struct rt_rep **as = calloc((size_t)n, sizeof(*as));
	struct rt_rep_pair *pairs = NULL;
	struct rt_flog L = { 0 };
	size_t npairs = 0;
	int i;

	if (!as)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		size_t j;

		as[i] = rs[i].a;
		for (j = 0; j < rs[i].run.flog.n; j++) {
			if (rt_grow_for((void **)&L.f, &L.cap, L.n + 1, sizeof(*L.f)))
				break;
			L.f[L.n++] = rs[i].run.flog.f[j];
		}
	}
	rt_flog_sort(&L);
	rt_pr_start(p);
	rt_pr_text(p, "rocetop report: %d files, one timeline\n", n);
	rt_pr_open_arr(p, "hosts");
	for (i = 0; i < n; i++) {
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "host", "  [%s]", rs[i].run.host);
		rt_pr_str(p, RT_PR_ANY, "file", " %s", rs[i].path);
		rt_pr_str(p, RT_PR_TEXT, NULL, " (%s)\n", rs[i].run.kind);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	clocks_out(p, rs, n);
	pause_origin(p, rs, n);
	findings_out(p, 1, &L, 0);
	cnp_matches(p, rs, n, top);
	/* Host pairs over every file, each file's flows counted once. */
	if (rt_rep_pairs_merge(as, n, &pairs, &npairs) == 0) {
		rt_pr_text(p, "\nOver all %d files:", n);
		host_pairs(p, pairs, npairs, top);
	}
	jobs_merged(p, rs, n, top);
	rt_pr_open_arr(p, "files");
	for (i = 0; i < n; i++) {
		rt_pr_str(p, RT_PR_TEXT, NULL, "\n==== [%s]", rs[i].run.host);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %s ====\n", rs[i].path);
		rt_pr_open_obj(p, NULL);
		print_report(p, &rs[i]);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_end(p);
	free(pairs);
	free(as);
	rt_flog_free(&L);
	return 0;
}

/* The report of rs on f, text or JSON; 0 or -ENOMEM. */
int rt_rep_print_all(FILE *f, struct rt_rep_file *rs, int nrep, int json, int top)
{
	struct rt_printer pr;

	rt_pr_init(&pr, f, json);
	if (nrep > 1)
		return print_merged(&pr, rs, nrep, top);
	rt_pr_start(&pr);
	print_report(&pr, &rs[0]);
	rt_pr_end(&pr);
	return 0;
}
