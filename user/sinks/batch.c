// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --batch: plain text, one table per interval, like `top -b` (with --probe,
 * the probe mesh's rows after the flows). Names from
 * files pass through rt_fmt_safe() (no terminal escapes); a failed write
 * (a full disk, a closed pipe) is said and ends the run with status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <net/if.h>
#include "findings.h"
#include "fmt.h"
#include "jobagg.h"
#include "derive.h"
#include "linkspeed.h"
#include "log.h"
#include "print.h"
#include "sf_drop.h"
#include "sink.h"
#include "sinks.h"
#include "source.h"

/* --sort for --batch: the columns it prints (user/cmd/main_opts.c checks the name). */
enum { S_CONGESTION, S_PKTS, S_BYTES, S_CE, S_CNP, S_NAK, S_RNR };

struct batch {
	struct rt_printer pr;	/* text, or one JSON object per line (--json) */
	int top;
	int sort_by;		/* --sort: S_CONGESTION, S_PKTS, ... */
	__u64 speed_given;	/* --link-speed */
	struct rt_flow_delta **order;
	size_t cap;
	struct rt_jobagg groups;	/* --group-by: the interval's flows folded */
	int live;		/* the source: its end is a run's, not a file's */
	int probe;		/* --probe: the JSON lines carry "probes", empty or not */
};

/* The --sort column of a flow's interval, larger first. */
static double sort_value(const struct rt_flow_delta *f, int sort_by)
{
	switch (sort_by) {
	case S_PKTS: return (double)f->d.pkts;
	case S_BYTES: return (double)f->d.bytes;
	case S_CE: return rt_ce_pct(&f->d);
	case S_CNP: return (double)f->d.cnp;
	case S_NAK: return (double)rt_nak(&f->d);
	case S_RNR: return (double)f->d.rnr_nak;
	}
	return 0;
}

/* By --sort (larger first: *(int *)arg), then derive.h's congestion ordering. */
static int order(const struct rt_flow_delta *x, const struct rt_flow_delta *y, void *arg)
{
	int sort_by = *(const int *)arg;

	if (sort_by != S_CONGESTION) {
		double vx = sort_value(x, sort_by), vy = sort_value(y, sort_by);

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return rt_delta_cmp_congestion(x, y);
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	return order(*(const struct rt_flow_delta *const *)a, *(const struct rt_flow_delta *const *)b, arg);
}

static size_t all_active(struct rt_flow_delta **out, const struct rt_delta *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nflows; i++)
		if (d->flows[i].d.pkts)
			out[n++] = &d->flows[i];
	return n;
}

static double rate(__u64 n, double secs)
{
	return secs > 0 ? n / secs : (double)n;
}

/* The NIC's counters that moved, congestion counters first; each row says
 * where its number came from. */
static void print_ports(struct rt_printer *p, const struct rt_delta *d, double secs)
{
	size_t i, shown = 0;
	int pass;

	rt_pr_open_arr(p, "nic");
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < d->nports; i++) {
			const struct rt_port_ctr *c = d->ports[i].c;
			char dv[sizeof(c->dev)], nd[sizeof(c->netdev) + 16], nm[sizeof(c->name)];

			if ((c->congestion ? 0 : 1) != pass || (!d->ports[i].d && !(c->congestion && c->value)))
				continue;
			if (!shown++)
				rt_pr_text(p, "NIC counters\n  %-12s %-4s %-15s %-34s %14s %12s  %s\n", "DEVICE",
					   "PORT", "NETDEV", "COUNTER", "VALUE", "PER SEC", "SOURCE");
			rt_pr_open_obj(p, NULL);
			rt_pr_str(p, RT_PR_ANY, "device", "  %-12s",
				  c->dev[0] ? rt_fmt_safe(c->dev, dv, sizeof(dv)) : "-");
			rt_pr_u64(p, RT_PR_ANY, "port", " %-4llu", c->port);
			rt_pr_str(p, RT_PR_TEXT, NULL, " %-15s",
				  c->netdev[0] ? rt_fmt_ifname_col(c->netdev, nd, sizeof(nd)) : "-");
			rt_pr_str(p, RT_PR_JSON, "netdev", NULL, c->netdev[0] ? c->netdev : "-");
			rt_pr_str(p, RT_PR_ANY, "counter", " %-34s", rt_fmt_safe(c->name, nm, sizeof(nm)));
			rt_pr_u64(p, RT_PR_ANY, "value", " %14llu", (unsigned long long)c->value);
			rt_pr_u64(p, RT_PR_JSON, "delta", NULL, (unsigned long long)d->ports[i].d);
			rt_pr_dbl(p, RT_PR_ANY, "per_s", " %12.1f", rate(d->ports[i].d, secs));
			rt_pr_str(p, RT_PR_ANY, "scope", "  %s", rt_scope_name(c->scope));
			if (c->scope == RT_SCOPE_QP) {	/* the counter's (lowest) QP */
				rt_pr_u64(p, RT_PR_ANY, "qpn", " %llu", c->qpn);
				rt_pr_u64(p, RT_PR_JSON, "nqps", NULL, c->nqps);
				if (c->nqps > 1)
					rt_pr_text(p, "+");
			}
			rt_pr_text(p, "\n");
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
}

/* A switch port's own counters (its counter samples) in the row's direction:
 * discards and errors of the interval, exact; "-" before its first sample. */
static void print_swport_ifctr(struct rt_printer *p, const struct rt_swport_delta *x)
{
	int out = x->p->dir == RT_DIR_EGRESS;

	rt_pr_u64(p, RT_PR_JSON, "counter_samples", NULL, (unsigned long long)x->ctr_samples);
	if (!x->p->has_ifctr) {
		rt_pr_text(p, " %9s %7s\n", "-", "-");
		return;
	}
	rt_pr_u64(p, RT_PR_ANY, "discards", " %9llu", (unsigned long long)(out ? x->out_discards : x->in_discards));
	rt_pr_u64(p, RT_PR_ANY, "errors", " %7llu\n", (unsigned long long)(out ? x->out_errors : x->in_errors));
}

/* sFlow: what each agent sent, the switch ports, the drops (estimates marked ~). */
static void print_sflow(struct rt_printer *p, const struct rt_snapshot *cur, const struct rt_delta *d,
			double secs)
{
	const struct rt_flow_val *e = &d->est_tot;
	char c1[16];
	size_t i, shown = 0;

	if (!d->nsfagents)
		return;
	rt_pr_open_obj(p, "sflow");
	rt_pr_open_obj(p, "estimates");
	rt_pr_str(p, RT_PR_TEXT, NULL, "sFlow estimates: RoCE ~%s pkts/s",
		  rt_fmt_si(rate(e->pkts, secs), c1, sizeof(c1)));
	rt_pr_dbl(p, RT_PR_JSON, "pkts_per_s", NULL, rate(e->pkts, secs));
	rt_pr_dbl(p, RT_PR_ANY, "gbps", " ~%.3f Gb/s", rate(e->bytes, secs) * 8 / 1e9);
	rt_pr_dbl(p, RT_PR_ANY, "ce_pct", "  CE ~%.2f%%", rt_ce_pct(e));
	rt_pr_str(p, RT_PR_TEXT, NULL, "  CNP ~%s/s", rt_fmt_si(rate(e->cnp, secs), c1, sizeof(c1)));
	rt_pr_dbl(p, RT_PR_JSON, "cnp_per_s", NULL, rate(e->cnp, secs));
	rt_pr_text(p, "  (not in the exact totals above)\n");
	rt_pr_close_obj(p);
	rt_pr_open_arr(p, "agents");
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = &d->sfagents[i].d;

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "agent", "sFlow agent %s:", d->sfagents[i].a->agent);
		rt_pr_u64(p, RT_PR_ANY, "datagrams", " %llu datagrams", (unsigned long long)a->datagrams);
		rt_pr_u64(p, RT_PR_ANY, "lost", ", %llu lost", (unsigned long long)a->lost);
		rt_pr_u64(p, RT_PR_ANY, "errors", ", %llu with errors", (unsigned long long)a->errors);
		rt_pr_u64(p, RT_PR_ANY, "rejected", ", %llu rejected", (unsigned long long)a->rejected);
		rt_pr_u64(p, RT_PR_ANY, "flow_samples", ", %llu flow samples", (unsigned long long)a->samples);
		rt_pr_u64(p, RT_PR_ANY, "drop_notifications", ", %llu drop notifications",
			  (unsigned long long)a->drop_samples);
		rt_pr_u64(p, RT_PR_ANY, "counter_samples", ", %llu counter samples",
			  (unsigned long long)a->ctr_samples);
		rt_pr_u64(p, RT_PR_ANY, "bad_samples", ", %llu bounded (impossible frame length or rate)\n",
			  (unsigned long long)a->bad_samples);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_open_arr(p, "switch_ports");
	for (i = 0; i < d->nswports; i++) {
		const struct rt_swport_delta *x = &d->swports[i];
		const struct rt_swport_ctr *v = &x->d;

		if (!v->samples && !v->drops && !x->ctr_samples)
			continue;
		if (!shown++)
			rt_pr_text(p, "Switch ports (sFlow)\n  %-22s %-7s %7s %9s %8s %6s %9s %9s %10s %6s %9s %7s\n",
				   "PORT", "DIR", "SAMPLES", "~PKTS/s", "~Gb/s", "~CE%", "MAXQ B", "MEANQ B", "MAXDLY ns",
				   "DROPS", "DISCARDS", "ERRORS");
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "port", "  %-22s", x->p->name);
		rt_pr_str(p, RT_PR_ANY, "dir", " %-7s", rt_dir_name(x->p->dir));
		rt_pr_u64(p, RT_PR_ANY, "samples", " %7llu", (unsigned long long)v->samples);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %9s", rt_fmt_si(rate(v->est_pkts, secs), c1, sizeof(c1)));
		rt_pr_dbl(p, RT_PR_JSON, "pkts_per_s", NULL, rate(v->est_pkts, secs));
		rt_pr_str(p, RT_PR_TEXT, NULL, " %8s", rt_fmt_gbps(rate(v->est_bytes, secs) * 8 / 1e9, 8, c1, sizeof(c1)));
		rt_pr_dbl(p, RT_PR_JSON, "gbps", NULL, rate(v->est_bytes, secs) * 8 / 1e9);
		rt_pr_dbl(p, RT_PR_ANY, "ce_pct", " %6.2f", rt_pct((double)v->est_ce, (double)v->est_pkts));
		if (v->depth_n) {
			rt_pr_u64(p, RT_PR_ANY, "max_queue_bytes", " %9llu", x->p->max_depth);
			rt_pr_dbl(p, RT_PR_ANY, "mean_queue_bytes", " %9.0f", (double)v->depth_sum / (double)v->depth_n);
		} else {
			rt_pr_text(p, " %9s %9s", "-", "-");
		}
		if (v->transit_n)
			rt_pr_u64(p, RT_PR_ANY, "max_delay_ns", " %10llu", x->p->max_transit);
		else
			rt_pr_text(p, " %10s", "-");
		rt_pr_u64(p, RT_PR_ANY, "drops", " %6llu", (unsigned long long)v->drops);
		print_swport_ifctr(p, x);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_open_arr(p, "drops");
	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *w = d->swdrops[i].p;
		const char *name = rt_sf_drop_reason(w->reason);

		if (!d->swdrops[i].drops)
			continue;
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "ifname", "drops at %s:", rt_snapshot_ifname(cur, w->ifindex));
		rt_pr_u64(p, RT_PR_ANY, "drops", " %llu", (unsigned long long)d->swdrops[i].drops);
		rt_pr_str(p, RT_PR_ANY, "reason", " %s", name ? name : "?");
		rt_pr_u64(p, RT_PR_ANY, "reason_code", " (%llu)\n", w->reason);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_close_obj(p);
}

/* The rates of v over secs, of a flow's row or of the totals: packets (est
 * before them in text), Gb/s, CE %, CNP, NAK and RNR NAK per second; in
 * text each in its format of fmt[0..5], in JSON by their keys. */
static void print_rates(struct rt_printer *p, const struct rt_flow_val *v, double secs,
			const char *est, const char *const fmt[6])
{
	static const char *const key[] = { "cnp_per_s", "nak_per_s", "rnr_per_s" };
	double per_s[] = { rate(v->cnp, secs), rate(rt_nak(v), secs), rate(v->rnr_nak, secs) };
	char c1[16], pk[24];

	snprintf(pk, sizeof(pk), "%s%s", est, rt_fmt_si(rate(v->pkts, secs), c1, sizeof(c1)));
	rt_pr_str(p, RT_PR_TEXT, NULL, fmt[0], pk);
	rt_pr_dbl(p, RT_PR_JSON, "pkts_per_s", NULL, rate(v->pkts, secs));
	rt_pr_str(p, RT_PR_TEXT, NULL, fmt[1], rt_fmt_gbps(rate(v->bytes, secs) * 8 / 1e9, 8, c1, sizeof(c1)));
	rt_pr_dbl(p, RT_PR_JSON, "gbps", NULL, rate(v->bytes, secs) * 8 / 1e9);
	rt_pr_dbl(p, RT_PR_ANY, "ce_pct", fmt[2], rt_ce_pct(v));
	for (int k = 0; k < 3; k++) {
		rt_pr_str(p, RT_PR_TEXT, NULL, fmt[3 + k], rt_fmt_si(per_s[k], c1, sizeof(c1)));
		rt_pr_dbl(p, RT_PR_JSON, key[k], NULL, per_s[k]);
	}
}

/* One flow's row: the text's rates, and in JSON its exact counts beside them. */
/* The owner's job: "  slurm:4711.0 rank 3/8" (text), keys job_kind, job,
 * step, rank, size, local_rank (JSON; none without a job, no rank key
 * without a rank). */
static void print_job(struct rt_printer *p, const struct rt_job *j)
{
	char lab[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16], safe[sizeof(lab) * 4];

	if (!j || j->kind == RT_JOB_NONE)
		return;
	rt_pr_str(p, RT_PR_TEXT, NULL, "  %s", rt_fmt_safe(rt_job_label(j, lab, sizeof(lab)), safe,
							  sizeof(safe)));
	rt_pr_str(p, RT_PR_JSON, "job_kind", NULL, rt_job_kind_name(j->kind));
	rt_pr_str(p, RT_PR_JSON, "job", NULL, j->job);
	rt_pr_str(p, RT_PR_JSON, "step", NULL, j->step);
	if (j->rank >= 0)
		rt_pr_u64(p, RT_PR_ANY, "rank", " rank %llu", (unsigned long long)j->rank);
	if (j->size >= 0)
		rt_pr_u64(p, RT_PR_ANY, "size", "/%llu", (unsigned long long)j->size);
	if (j->local_rank >= 0)
		rt_pr_u64(p, RT_PR_JSON, "local_rank", NULL, (unsigned long long)j->local_rank);
}

/* A JSON array of a set's bits, lowest first (nothing in text). */
static void print_bits(struct rt_printer *p, const char *key, __u64 bits)
{
	rt_pr_open_arr(p, key);
	for (; bits; bits &= bits - 1)
		rt_pr_u64(p, RT_PR_JSON, NULL, NULL, (unsigned long long)__builtin_ctzll(bits));
	rt_pr_close_arr(p);
}

/* The priorities and DSCPs of every packet of the flow (user/core/derive.h):
 * text "3,6" and "26,48"; JSON the lowest of each ("prio", "dscp") and the
 * sets ("prios", "dscps"). pcp is the last packet's, absent when untagged. */
static void print_prios(struct rt_printer *p, const struct rt_flow *f)
{
	char b[RT_BITS_STRLEN];

	rt_pr_str(p, RT_PR_TEXT, NULL, " %4s", rt_fmt_bits(rt_flow_prios(f), b, sizeof(b)));
	rt_pr_u64(p, RT_PR_JSON, "prio", NULL, rt_flow_prio(f));
	if (f->v.pcp != RT_PCP_NONE)
		rt_pr_u64(p, RT_PR_JSON, "pcp", NULL, f->v.pcp);
	rt_pr_str(p, RT_PR_TEXT, NULL, " %4s", rt_fmt_bits(rt_flow_dscps(f), b, sizeof(b)));
	rt_pr_u64(p, RT_PR_JSON, "dscp", NULL, rt_flow_dscp(f));
	print_bits(p, "prios", rt_flow_prios(f));
	print_bits(p, "dscps", rt_flow_dscps(f));
}

static void print_flow(struct rt_printer *p, const struct rt_snapshot *cur, const struct rt_flow_delta *fd,
		       double secs)
{
	const struct rt_flow *f = fd->f;
	const struct rt_flow_val *v = &fd->d;
	const char *est = f->estimate ? "~" : "";	/* sFlow: estimates */
	char a1[RT_ADDR_STRLEN], ifs[64], mirror[RT_MIRROR_STRLEN];
	const char *ifn = rt_snapshot_ifname(cur, f->k.ifindex);

	rt_pr_open_obj(p, NULL);
	rt_pr_str(p, RT_PR_TEXT, NULL, "%-15s", rt_fmt_ifname_col(ifn, ifs, sizeof(ifs)));
	rt_pr_str(p, RT_PR_JSON, "ifname", NULL, ifn);
	rt_pr_str(p, RT_PR_ANY, "dir", " %-7s",
		  f->k.origin == RT_ORIGIN_NIC ? (f->k.dir == RT_DIR_INGRESS ? "nic-in" : "nic-out") :
		  rt_dir_name(f->k.dir));
	rt_pr_str(p, RT_PR_ANY, "src", " %-15s", rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)));
	rt_pr_str(p, RT_PR_ANY, "dst", " %-15s", rt_fmt_addr(f->k.family, f->k.dst, a1, sizeof(a1)));
	rt_pr_u64(p, RT_PR_ANY, "dqpn", " %8llu", f->k.dqpn);
	print_prios(p, f);
	rt_pr_bool(p, RT_PR_JSON, "estimate", NULL, f->estimate);
	rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, (unsigned long long)v->pkts);
	rt_pr_u64(p, RT_PR_JSON, "bytes", NULL, (unsigned long long)v->bytes);
	rt_pr_u64(p, RT_PR_JSON, "not_ect", NULL, (unsigned long long)v->ecn[RT_ECN_NOT_ECT]);
	rt_pr_u64(p, RT_PR_JSON, "ect0", NULL, (unsigned long long)v->ecn[RT_ECN_ECT0]);
	rt_pr_u64(p, RT_PR_JSON, "ect1", NULL, (unsigned long long)v->ecn[RT_ECN_ECT1]);
	rt_pr_u64(p, RT_PR_JSON, "ce", NULL, (unsigned long long)v->ecn[RT_ECN_CE]);
	rt_pr_u64(p, RT_PR_JSON, "cnp", NULL, (unsigned long long)v->cnp);
	rt_pr_u64(p, RT_PR_JSON, "ack", NULL, (unsigned long long)v->ack);
	rt_pr_u64(p, RT_PR_JSON, "nak", NULL, (unsigned long long)rt_nak(v));
	rt_pr_u64(p, RT_PR_JSON, "nak_seq", NULL, (unsigned long long)v->nak_seq);
	rt_pr_u64(p, RT_PR_JSON, "nak_other", NULL, (unsigned long long)v->nak_other);
	rt_pr_u64(p, RT_PR_JSON, "rnr_nak", NULL, (unsigned long long)v->rnr_nak);
	print_rates(p, v, secs, est, (const char *const[]){ " %9s", " %8s", " %6.2f", " %8s", " %8s", " %8s" });
	if (f->k.mirror) {
		rt_fmt_mirror(&f->k, mirror, sizeof(mirror));
		rt_pr_str(p, RT_PR_ANY, "mirror", "  %s", mirror);
	} else {
		rt_pr_text(p, "  -");	/* JSON: no mirror key for the host's own traffic */
	}
	print_job(p, rt_snapshot_job(cur, f));
	rt_pr_text(p, "\n");
	rt_pr_close_obj(p);
}

/* Whether --batch shows an event: an episode's open, a change of its
 * severity and its close; an update of its figure alone goes to findings.csv. */
static int event_shown(const struct rt_fev *e)
{
	return e->event != RT_FEV_UPDATE || e->prev_sev != e->f.sev;
}

/* One event: what happened, then the finding as it stood, its next step whole. */
static void print_event(struct rt_printer *p, const struct rt_fev *e)
{
	const struct rt_finding *f = &e->f;
	char c1[16], c2[16], subj[512];

	rt_pr_open_obj(p, NULL);
	rt_pr_str(p, RT_PR_ANY, "event", "  %-6s", rt_fev_name(e->event));
	rt_pr_str(p, RT_PR_ANY, "severity", " %-8s", rt_sev_name(f->sev));
	if (e->event == RT_FEV_UPDATE)
		rt_pr_str(p, RT_PR_ANY, "was", " (was %s)", rt_sev_name(e->prev_sev));
	rt_pr_str(p, RT_PR_ANY, "rule", " %-18s", f->rule);
	rt_pr_str(p, RT_PR_TEXT, NULL, " since %s", rt_fmt_clock(f->start_ns, c1, sizeof(c1)));
	rt_pr_dbl(p, RT_PR_JSON, "since", NULL, f->start_ns / 1e9);
	if (e->event == RT_FEV_CLOSE) {
		rt_pr_str(p, RT_PR_TEXT, NULL, " until %s", rt_fmt_clock(f->end_ns, c2, sizeof(c2)));
		rt_pr_dbl(p, RT_PR_JSON, "until", NULL, f->end_ns / 1e9);
	}
	rt_pr_str(p, RT_PR_ANY, "subject", "  %s", rt_subject_text(&f->subj, subj, sizeof(subj)));
	rt_pr_str(p, RT_PR_ANY, "evidence", ": %s\n", f->evidence);
	if (f->involved[0]) {
		rt_pr_str(p, RT_PR_ANY, "involved", "           involved: %s", f->involved);
		rt_pr_text(p, f->involved_more ? "; and more\n" : "\n");
	}
	rt_pr_str(p, RT_PR_ANY, "next", "           next: %s\n", f->next);
	rt_pr_close_obj(p);
}

/*
 * After the header: how many findings are open by severity, then the
 * interval's events (an episode opening, changing severity, closing), so a
 * steady condition is printed when it starts and when it ends, not every
 * interval.
 */
static void print_findings(struct rt_printer *p, const struct rt_findings *F)
{
	size_t cnt[3], i;

	if (!F)
		return;
	rt_findings_count(F, cnt);
	rt_pr_open_obj(p, "findings");
	rt_pr_u64(p, RT_PR_ANY, "open", "findings %llu open:", (unsigned long long)(cnt[0] + cnt[1] + cnt[2]));
	rt_pr_u64(p, RT_PR_ANY, "critical", " %llu critical,", (unsigned long long)cnt[RT_SEV_CRITICAL]);
	rt_pr_u64(p, RT_PR_ANY, "warning", " %llu warning,", (unsigned long long)cnt[RT_SEV_WARNING]);
	rt_pr_u64(p, RT_PR_ANY, "info", " %llu info\n", (unsigned long long)cnt[RT_SEV_INFO]);
	rt_pr_open_arr(p, "events");
	for (i = 0; i < F->nev; i++)
		if (event_shown(&F->ev[i]))
			print_event(p, &F->ev[i]);
	rt_pr_close_arr(p);
	rt_pr_close_obj(p);
}

/* The interval's totals over flows: counts (JSON) and rates. */
static void print_totals(struct rt_printer *p, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	const struct rt_flow_val *t = &d->flow_tot;

	rt_pr_open_obj(p, "totals");
	rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, (unsigned long long)t->pkts);
	rt_pr_u64(p, RT_PR_JSON, "bytes", NULL, (unsigned long long)t->bytes);
	rt_pr_u64(p, RT_PR_JSON, "ce", NULL, (unsigned long long)t->ecn[RT_ECN_CE]);
	rt_pr_u64(p, RT_PR_JSON, "cnp", NULL, (unsigned long long)t->cnp);
	rt_pr_u64(p, RT_PR_JSON, "nak", NULL, (unsigned long long)rt_nak(t));
	rt_pr_u64(p, RT_PR_JSON, "rnr_nak", NULL, (unsigned long long)t->rnr_nak);
	print_rates(p, t, d->secs, "", (const char *const[]){ "RoCE %s pkts/s", " %s Gb/s", "  CE %.2f%%",
							      "  CNP %s/s", "  NAK %s/s", "  RNR %s/s" });
	rt_pr_u64(p, RT_PR_ANY, "flows", "  flows %llu", (unsigned long long)cur->nflows);
	rt_pr_u64(p, RT_PR_ANY, "evicted", "  evicted %llu\n", (unsigned long long)cur->evicted);
	rt_pr_close_obj(p);
}

/* What the parser made of the interfaces' frames. */
static void print_frames(struct rt_printer *p, const struct rt_if_val *it)
{
	rt_pr_open_obj(p, "frames");
	rt_pr_u64(p, RT_PR_ANY, "frames", "frames %llu", (unsigned long long)it->pkts);
	rt_pr_u64(p, RT_PR_ANY, "roce", "  roce %llu", (unsigned long long)it->roce);
	rt_pr_u64(p, RT_PR_ANY, "not_roce", "  other %llu", (unsigned long long)it->not_roce);
	rt_pr_u64(p, RT_PR_ANY, "pause", "  pause %llu", (unsigned long long)it->mac_ctrl);
	rt_pr_u64(p, RT_PR_ANY, "truncated", "  truncated %llu", (unsigned long long)it->truncated);
	rt_pr_u64(p, RT_PR_ANY, "malformed", "  malformed %llu", (unsigned long long)it->malformed);
	rt_pr_u64(p, RT_PR_ANY, "table_full", "  table-full %llu", (unsigned long long)it->flow_full);
	if (it->mirrored)	/* mirror copies decapsulated (--collector ports) */
		rt_pr_u64(p, RT_PR_TEXT, NULL, "  mirrored %llu", (unsigned long long)it->mirrored);
	rt_pr_u64(p, RT_PR_JSON, "mirrored", NULL, (unsigned long long)it->mirrored);
	rt_pr_text(p, "\n");
	rt_pr_close_obj(p);
}

/* PFC per interface, direction and priority that paused, with the time paused
 * at the link's speed. */
static void print_pfc(struct batch *b, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_printer *p = &b->pr;
	double secs = d->secs;
	char c1[16], ifs[IF_NAMESIZE];
	size_t i;

	rt_pr_open_arr(p, "pfc");
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *r = d->ifs[i].s;
		const char *ifn = rt_snapshot_ifname(cur, r->k.ifindex);
		const char *from = NULL, *rawn = ifn;
		__u64 speed = 0;	/* decided at the first pause frame */

		ifn = rt_fmt_safe(ifn, ifs, sizeof(ifs));
		for (unsigned int q = 0; q < RT_NPRIO; q++) {
			const struct rt_if_val *v = &d->ifs[i].d;
			double paused;

			if (!rt_paused_any(v, q))
				continue;
			if (!speed)
				speed = rt_link_speed(cur, rawn, b->speed_given, &from);
			paused = rt_paused_secs(cur, r, v, q, secs, b->speed_given);
			rt_pr_open_obj(p, NULL);
			rt_pr_str(p, RT_PR_ANY, "ifname", "PFC %s", ifn);
			rt_pr_str(p, RT_PR_ANY, "dir", " %s", rt_dir_name(r->k.dir));
			rt_pr_str(p, RT_PR_ANY, "prio", " prio %s:", rt_prio_name(q, c1, sizeof(c1)));
			rt_pr_u64(p, RT_PR_ANY, "frames", " %llu frames", (unsigned long long)v->pfc_frames[q]);
			rt_pr_u64(p, RT_PR_ANY, "xon", ", %llu xon", (unsigned long long)v->pfc_xon[q]);
			rt_pr_u64(p, RT_PR_ANY, "quanta", ", %llu quanta", (unsigned long long)v->pfc_quanta[q]);
			rt_pr_dbl(p, RT_PR_JSON, "paused_s", NULL, paused);
			rt_pr_str(p, RT_PR_TEXT, NULL, ", paused %s", RT_DUR(paused));
			if (secs > 0)
				rt_pr_dbl(p, RT_PR_ANY, "paused_pct", " (~%.1f%%)", rt_share_pct(paused, secs));
			rt_pr_u64(p, RT_PR_ANY, "link_mbps", " at %llu Mb/s", (unsigned long long)speed);
			rt_pr_str(p, RT_PR_ANY, "link_speed_from", " (%s)", from);
			rt_pr_text(p, "\n");
			rt_pr_close_obj(p);
		}
	}
	rt_pr_close_arr(p);
}

/* The flows, busiest first: --top of them, or all. 0 or -ENOMEM. */
static int print_flows(struct batch *b, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_printer *p = &b->pr;
	size_t i, n, active = 0;

	if (rt_grow_to((void **)&b->order, &b->cap, d->nflows, sizeof(*b->order)))
		return -ENOMEM;
	/* Only --top rows are printed: those are selected, not everything sorted. */
	active = all_active(b->order, d);
	if (b->top)
		n = rt_delta_top_r((const struct rt_flow_delta **)b->order, active, (size_t)b->top, order,
				   &b->sort_by);
	else if ((n = active) > 1)
		qsort_r(b->order, n, sizeof(*b->order), cmp_order, &b->sort_by);
	rt_pr_text(p, "\n%-15s %-7s %-15s %-15s %8s %4s %4s %9s %8s %6s %8s %8s %8s  %s\n", "IFACE", "DIR",
		   "SRC", "DST", "DQPN", "PRIO", "DSCP", "PKTS/s", "Gb/s", "CE%", "CNP/s", "NAK/s", "RNR/s",
		   "MIRROR  JOB");
	rt_pr_open_arr(p, "flows");
	for (i = 0; i < n && (!b->top || i < (size_t)b->top); i++)
		print_flow(p, cur, b->order[i], d->secs);
	rt_pr_close_arr(p);
	if (active > i)
		rt_pr_u64(p, RT_PR_TEXT, NULL, "... %llu more flows (--top 0 shows all)\n",
			  (unsigned long long)(active - i));
	rt_pr_u64(p, RT_PR_JSON, "flows_more", NULL, (unsigned long long)(active - i));
	rt_pr_text(p, "\n");
	return 0;
}

/* --group-by: the interval's flows folded by job, pod, unit or process,
 * most CE-marked first; every group (--top does not cut them). 0 or -ENOMEM. */
static int print_groups(struct batch *b, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_printer *p = &b->pr;
	size_t i, n;
	char c1[16], ranks[256], safe[RT_JOB_KEY_LEN * 4];

	rt_jobagg_clear(&b->groups);
	for (i = 0; i < d->nflows; i++)
		if (d->flows[i].d.pkts && rt_jobagg_add(&b->groups, cur, d->flows[i].f, &d->flows[i].d))
			return -ENOMEM;
	n = rt_jobagg_sorted(&b->groups);
	rt_pr_str(p, RT_PR_TEXT, NULL, "\n%-40s", rt_group_name(b->groups.group));
	rt_pr_text(p, " %6s %9s %8s %6s %8s %8s %8s %7s %7s  %s\n", "FLOWS", "PKTS/s", "Gb/s", "CE%", "CNP/s",
		   "NAK/s", "RNR/s", "CULPRIT", "VICTIM", "RANKS");
	rt_pr_str(p, RT_PR_JSON, "group_by", NULL, rt_group_name(b->groups.group));
	rt_pr_open_arr(p, "groups");
	for (i = 0; i < n; i++) {
		struct rt_jobsum *g = b->groups.order[i];
		const char *rk = rt_fmt_ranks(g->ranks, g->nranks, ranks, sizeof(ranks));

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "key", "%-40s", rt_fmt_safe(g->key, safe, sizeof(safe)));
		rt_pr_u64(p, RT_PR_ANY, "flows", " %6llu", (unsigned long long)g->flows);
		rt_pr_u64(p, RT_PR_JSON, "pkts", NULL, (unsigned long long)g->pkts);
		rt_pr_u64(p, RT_PR_JSON, "bytes", NULL, (unsigned long long)g->bytes);
		rt_pr_u64(p, RT_PR_JSON, "ce", NULL, (unsigned long long)g->ce);
		rt_pr_u64(p, RT_PR_JSON, "cnp", NULL, (unsigned long long)g->cnp);
		rt_pr_u64(p, RT_PR_JSON, "nak", NULL, (unsigned long long)g->nak);
		rt_pr_u64(p, RT_PR_JSON, "rnr", NULL, (unsigned long long)g->rnr);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %9s", rt_fmt_si(rate(g->pkts, d->secs), c1, sizeof(c1)));
		rt_pr_str(p, RT_PR_TEXT, NULL, " %8s", rt_fmt_gbps(rate(g->bytes, d->secs) * 8 / 1e9, 8, c1,
								   sizeof(c1)));
		rt_pr_dbl(p, RT_PR_ANY, "ce_pct", " %6.2f", rt_pct((double)g->ce, (double)g->pkts));
		rt_pr_str(p, RT_PR_TEXT, NULL, " %8s", rt_fmt_si(rate(g->cnp, d->secs), c1, sizeof(c1)));
		rt_pr_str(p, RT_PR_TEXT, NULL, " %8s", rt_fmt_si(rate(g->nak, d->secs), c1, sizeof(c1)));
		rt_pr_str(p, RT_PR_TEXT, NULL, " %8s", rt_fmt_si(rate(g->rnr, d->secs), c1, sizeof(c1)));
		rt_pr_share(p, "culprit_share", " %7s", rt_jobsum_culprit(&b->groups, g));
		rt_pr_share(p, "victim_share", " %7s", rt_jobsum_victim(g));
		rt_pr_str(p, RT_PR_ANY, "ranks", "  %s\n", *rk ? rk : "-");
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_text(p, "\n");
	return 0;
}

/* A probe's time in microseconds as `rocetop probe` prints it: whole
 * microseconds in text and JSON, "-" in text and null in JSON with no sample. */
static void print_us(struct rt_printer *p, const char *key, const char *fmt, double v)
{
	char b[32];

	if (v < 0) {
		rt_pr_str(p, RT_PR_TEXT, NULL, fmt, "-");
		rt_pr_json_raw(p, key, "null");
		return;
	}
	snprintf(b, sizeof(b), "%.0f", v);
	rt_pr_str(p, RT_PR_TEXT, NULL, fmt, b);
	rt_pr_json_raw(p, key, b);
}

/*
 * The probe mesh's rows of the interval (user/core/probe_row.h), after the
 * flows: the columns and JSON keys of `rocetop probe` (user/cmd/probe.c), the
 * counts of this interval. The table when there are rows; the JSON array
 * under --probe always, so that "no probe yet" is an empty array.
 */
static void print_probes(struct batch *b, const struct rt_snapshot *cur)
{
	struct rt_printer *p = &b->pr;
	char safe[sizeof(cur->probes[0].peer)];

	if (!cur->nprobes && !b->probe)
		return;
	if (cur->nprobes)
		rt_pr_text(p, "PROBES\n%-16s %4s %7s %6s %5s %6s %5s %8s %8s %8s %8s %-6s %s\n", "PEER", "PATH",
			   "LABEL", "SPORT", "SIZE", "SENT", "LOST", "RTT50us", "RTT99us", "NET50us", "RESP50us",
			   "CLOCK", "FINDING");
	rt_pr_open_arr(p, "probes");
	for (size_t i = 0; i < cur->nprobes; i++) {
		const struct rt_probe_row *r = &cur->probes[i];

		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_TEXT, NULL, "%-16.16s", rt_fmt_safe(r->peer, safe, sizeof(safe)));
		rt_pr_str(p, RT_PR_JSON, "peer", NULL, r->peer);
		rt_pr_str(p, RT_PR_JSON, "addr", NULL, r->addr);
		rt_pr_u64(p, RT_PR_ANY, "path", " %4llu", r->path);
		rt_pr_u64(p, RT_PR_ANY, "flow_label", " %7llu", r->flow_label);
		rt_pr_u64(p, RT_PR_ANY, "udp_sport", " %6llu", r->udp_sport);
		rt_pr_u64(p, RT_PR_ANY, "size", " %5llu", r->size);
		rt_pr_u64(p, RT_PR_ANY, "sent", " %6llu", (unsigned long long)r->sent);
		rt_pr_u64(p, RT_PR_JSON, "answered", NULL, (unsigned long long)r->answered);
		rt_pr_u64(p, RT_PR_ANY, "lost", " %5llu", (unsigned long long)r->lost);
		print_us(p, "rtt_p50_us", " %8s", r->rtt_p50_us);
		print_us(p, "rtt_p99_us", " %8s", r->rtt_p99_us);
		print_us(p, "net_p50_us", " %8s", r->net_p50_us);
		print_us(p, "resp_p50_us", " %8s", r->resp_p50_us);
		rt_pr_str(p, RT_PR_ANY, "clock", " %-6s", rt_probe_clock_name(r->clock));
		if (r->finding)
			rt_pr_str(p, RT_PR_ANY, "finding", " %s", rt_probe_finding_name(r->finding));
		else
			rt_pr_json_raw(p, "finding", "null");
		rt_pr_text(p, "\n");
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (cur->nprobes)
		rt_pr_text(p, "\n");
}

static int batch_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct batch *b = s->priv;
	struct rt_printer *p = &b->pr;
	double secs = d->secs;
	char c1[16], safe[sizeof(cur->notes[0])];
	size_t i;
	int err;

	rt_pr_start(p);
	rt_pr_str(p, RT_PR_TEXT, NULL, "rocetop %s", rt_fmt_clock(cur->time_ns, c1, sizeof(c1)));
	rt_pr_dbl(p, RT_PR_JSON, "time", NULL, cur->time_ns / 1e9);
	rt_pr_str(p, RT_PR_ANY, "source", "  source %s", rt_fmt_safe(cur->source, safe, sizeof(safe)));
	rt_pr_dbl(p, RT_PR_JSON, "interval", NULL, secs);
	rt_pr_str(p, RT_PR_TEXT, NULL, "  interval %s\n", RT_DUR(secs));
	print_totals(p, cur, d);
	print_frames(p, &d->if_tot);
	print_findings(p, d->findings);
	print_pfc(b, cur, d);

	rt_pr_open_arr(p, "notes");
	for (i = 0; i < cur->nnotes; i++)
		rt_pr_str(p, RT_PR_ANY, NULL, "note: %s\n", rt_fmt_safe(cur->notes[i], safe, sizeof(safe)));
	rt_pr_close_arr(p);
	print_ports(p, d, secs);
	print_sflow(p, cur, d, secs);
	err = b->groups.group ? print_groups(b, cur, d) : print_flows(b, cur, d);
	if (err)
		return err;
	print_probes(b, cur);
	rt_pr_end(p);
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		err = errno ? errno : EIO;
		pr_warn("writing the --batch output to standard output failed: %s.\n", strerror(err));
		return -err;
	}
	return 0;
}

/* The file ended: the episodes it left open, closed at its end, in a last
 * block (JSON: a last line with "end": true). */
static void batch_end(struct rt_sink *s, const struct rt_findings *F)
{
	struct batch *b = s->priv;
	struct rt_printer *p = &b->pr;
	char c1[16];

	if (!F->nev)
		return;
	rt_pr_start(p);
	rt_pr_text(p, "rocetop %s  end of %s\n", rt_fmt_clock(F->t_end, c1, sizeof(c1)), b->live ? "run" : "file");
	rt_pr_dbl(p, RT_PR_JSON, "time", NULL, F->t_end / 1e9);
	rt_pr_bool(p, RT_PR_JSON, "end", NULL, 1);
	print_findings(p, F);
	rt_pr_text(p, "\n");
	rt_pr_end(p);
	fflush(stdout);
}

static void batch_start(struct rt_sink *s, const struct rt_source *src)
{
	((struct batch *)s->priv)->live = src->live;
}

static void batch_close(struct rt_sink *s)
{
	struct batch *b = s->priv;

	fflush(stdout);
	free(b->order);
	rt_jobagg_free(&b->groups);
	rt_sink_free(s);
}

/* same shape as the other sinks' close and constructor: user/core/sink.c does the shared part */
struct rt_sink *rt_batch_sink_new(const struct rt_batch_cfg *c)
{
	struct rt_sink *s = rt_sink_new("batch", sizeof(struct batch), batch_emit, batch_close);
	struct batch *b;

	if (!s)
		return NULL;
	s->on_end = batch_end;
	s->start = batch_start;
	b = s->priv;
	b->top = c->top;
	b->probe = c->probe;
	b->speed_given = c->speed_mbps;
	rt_pr_init(&b->pr, stdout, c->json);
	rt_jobagg_init(&b->groups, c->group_by);
	if (c->sort) {
		static const char *const names[] = { "congestion", "pkts", "bytes", "ce", "cnp", "nak", "rnr" };
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcasecmp(c->sort, names[k]) || (k == S_BYTES && (!strcasecmp(c->sort, "gbps") ||
									       !strcasecmp(c->sort, "gb"))))
				b->sort_by = (int)k;
	}
	return s;
}
