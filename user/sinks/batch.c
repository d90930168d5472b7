// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --batch: plain text, one table per interval, like `top -b`. Names from
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
#include "log.h"
#include "nic.h"
#include "sink.h"
#include "sflow_decode.h"

/* --sort for --batch: the columns it prints (opts.c checks the name). */
enum { S_CONGESTION, S_PKTS, S_BYTES, S_CE, S_CNP, S_NAK, S_RNR };
static int sort_by = S_CONGESTION;	/* qsort has no context argument */

struct batch {
	int top;
	struct rt_flow_delta **order;
	size_t cap;
};

/* The --sort column of a flow's interval, larger first. */
static double sort_value(const struct rt_flow_delta *f)
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

/* By --sort (larger first), then derive.h's congestion ordering. */
static int order(const struct rt_flow_delta *x, const struct rt_flow_delta *y)
{
	if (sort_by != S_CONGESTION) {
		double vx = sort_value(x), vy = sort_value(y);

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return rt_delta_cmp_congestion(x, y);
}

static int cmp_order(const void *a, const void *b)
{
	return order(*(const struct rt_flow_delta *const *)a, *(const struct rt_flow_delta *const *)b);
}

static int less_congested(const struct rt_flow_delta *a, const struct rt_flow_delta *b)
{
	return order(a, b) > 0;
}

static void sift_down(struct rt_flow_delta **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		/* The root is the least congested row kept. */
		if (l < n && less_congested(h[l], h[m]))
			m = l;
		if (r < n && less_congested(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		struct rt_flow_delta *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* The k most congested active flows into out (unordered), in O(n log k):
 * only --top rows are printed, so sorting them all is wasted. */
static size_t top_k(struct rt_flow_delta **out, const struct rt_delta *d, size_t k, size_t *active)
{
	size_t i, n = 0;

	*active = 0;
	for (i = 0; i < d->nflows; i++) {
		struct rt_flow_delta *f = &d->flows[i];

		if (!f->d.pkts)
			continue;
		(*active)++;
		if (n < k) {
			out[n++] = f;
			if (n == k)
				for (size_t j = k / 2; j-- > 0;)
					sift_down(out, n, j);
		} else if (less_congested(out[0], f)) {
			out[0] = f;
			sift_down(out, n, 0);
		}
	}
	return n;
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
static void print_ports(const struct rt_delta *d, double secs)
{
	size_t i, shown = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < d->nports; i++) {
			const struct rt_port_ctr *c = d->ports[i].c;

			if ((c->congestion ? 0 : 1) != pass || (!d->ports[i].d && !(c->congestion && c->value)))
				continue;
			if (!shown++)
				printf("NIC counters\n  %-12s %-4s %-10s %-34s %14s %12s  %s\n", "DEVICE",
				       "PORT", "NETDEV", "COUNTER", "VALUE", "PER SEC", "SOURCE");
			char dv[sizeof(c->dev)], nd[sizeof(c->netdev)], nm[sizeof(c->name)];

			printf("  %-12s %-4u %-10s %-34s %14llu %12.1f  %s",
			       c->dev[0] ? rt_fmt_safe(c->dev, dv, sizeof(dv)) : "-", c->port,
			       c->netdev[0] ? rt_fmt_safe(c->netdev, nd, sizeof(nd)) : "-",
			       rt_fmt_safe(c->name, nm, sizeof(nm)),
			       (unsigned long long)c->value, rate(d->ports[i].d, secs),
			       rt_scope_name(c->scope));
			if (c->scope == RT_SCOPE_QP)	/* the counter's (lowest) QP */
				printf(" %u%s", c->qpn, c->nqps > 1 ? "+" : "");
			printf("\n");
		}
	}
}

/* sFlow: what each agent sent, the switch ports, the drops (estimates marked ~). */
static void print_sflow(const struct rt_snapshot *cur, const struct rt_delta *d, double secs)
{
	const struct rt_flow_val *e = &d->est_tot;
	char c1[16], c2[16];
	size_t i, shown = 0;

	if (!d->nsfagents)
		return;
	printf("sFlow estimates: RoCE ~%s pkts/s ~%.3f Gb/s  CE ~%.2f%%  CNP ~%s/s  (not in the exact totals above)\n",
	       rt_fmt_si(rate(e->pkts, secs), c1, sizeof(c1)), rate(e->bytes, secs) * 8 / 1e9,
	       rt_ce_pct(e), rt_fmt_si(rate(e->cnp, secs), c2, sizeof(c2)));
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = &d->sfagents[i].d;

		printf("sFlow agent %s: %llu datagrams, %llu lost, %llu with errors, %llu rejected, "
		       "%llu flow samples, %llu drop notifications, %llu counter samples\n",
		       d->sfagents[i].a->agent, (unsigned long long)a->datagrams, (unsigned long long)a->lost,
		       (unsigned long long)a->errors, (unsigned long long)a->rejected,
		       (unsigned long long)a->samples, (unsigned long long)a->drop_samples,
		       (unsigned long long)a->ctr_samples);
	}
	for (i = 0; i < d->nswports; i++) {
		const struct rt_swport_delta *x = &d->swports[i];
		const struct rt_swport_ctr *v = &x->d;

		if (!v->samples && !v->drops)
			continue;
		if (!shown++)
			printf("Switch ports (sFlow)\n  %-22s %-7s %7s %9s %8s %6s %9s %9s %10s %6s\n", "PORT", "DIR",
			       "SAMPLES", "~PKTS/s", "~Gb/s", "~CE%", "MAXQ B", "MEANQ B", "MAXDLY ns", "DROPS");
		printf("  %-22s %-7s %7llu %9s %8.3f %6.2f", x->p->name, rt_dir_name(x->p->dir),
		       (unsigned long long)v->samples, rt_fmt_si(rate(v->est_pkts, secs), c1, sizeof(c1)),
		       rate(v->est_bytes, secs) * 8 / 1e9, rt_pct((double)v->est_ce, (double)v->est_pkts));
		if (v->depth_n)
			printf(" %9u %9.0f", x->p->max_depth, (double)v->depth_sum / (double)v->depth_n);
		else
			printf(" %9s %9s", "-", "-");
		if (v->transit_n)
			printf(" %10u", x->p->max_transit);
		else
			printf(" %10s", "-");
		printf(" %6llu\n", (unsigned long long)v->drops);
	}
	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *p = d->swdrops[i].p;
		const char *name = rt_sf_drop_reason(p->reason);

		if (d->swdrops[i].drops)
			printf("drops at %s: %llu %s (%u)\n", rt_snapshot_ifname(cur, p->ifindex),
			       (unsigned long long)d->swdrops[i].drops, name ? name : "?", p->reason);
	}
}

/* The open findings, most severe first, after the header. */
static void print_findings(const struct rt_findings *F)
{
	char c1[16], subj[512];
	size_t cnt[3], i;
	int sev;

	if (!F)
		return;
	rt_findings_count(F, cnt);
	printf("findings %zu open: %zu critical, %zu warning, %zu info\n", cnt[0] + cnt[1] + cnt[2],
	       cnt[RT_SEV_CRITICAL], cnt[RT_SEV_WARNING], cnt[RT_SEV_INFO]);
	for (sev = RT_SEV_CRITICAL; sev >= RT_SEV_INFO; sev--)
		for (i = 0; i < F->n; i++) {
			const struct rt_finding *f = &F->tab[i];

			if (!f->open || f->sev != sev)
				continue;
			printf("  %-8s %-18s since %s  %s: %s\n", rt_sev_name(f->sev), f->rule,
			       rt_fmt_clock(f->start_ns, c1, sizeof(c1)),
			       rt_subject_text(&f->subj, subj, sizeof(subj)), f->evidence);
		}
}

static int batch_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct batch *b = s->priv;
	const struct rt_flow_val *t = &d->flow_tot;
	const struct rt_if_val *it = &d->if_tot;
	double secs = d->secs;
	char c1[16], c2[16], c3[16], a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN];
	char safe[sizeof(cur->notes[0])], ifs[IF_NAMESIZE];
	size_t i, n, active = 0;

	printf("rocetop %s  source %s  interval %.2f s\n", rt_fmt_clock(cur->time_ns, c1, sizeof(c1)),
	       rt_fmt_safe(cur->source, safe, sizeof(safe)), secs);
	printf("RoCE %s pkts/s %.3f Gb/s  CE %.2f%%  CNP %s/s  NAK %s/s  RNR %s/s  flows %zu  evicted %llu\n",
	       rt_fmt_si(rate(t->pkts, secs), c1, sizeof(c1)), rate(t->bytes, secs) * 8 / 1e9,
	       rt_ce_pct(t),
	       rt_fmt_si(rate(t->cnp, secs), c2, sizeof(c2)),
	       rt_fmt_si(rate(rt_nak(t), secs), c3, sizeof(c3)), rt_fmt_si(rate(t->rnr_nak, secs), a1, sizeof(a1)),
	       cur->nflows, (unsigned long long)cur->evicted);
	printf("frames %llu  roce %llu  other %llu  pause %llu  truncated %llu  malformed %llu  table-full %llu",
	       (unsigned long long)it->pkts, (unsigned long long)it->roce,
	       (unsigned long long)it->not_roce, (unsigned long long)it->mac_ctrl,
	       (unsigned long long)it->truncated, (unsigned long long)it->malformed,
	       (unsigned long long)it->flow_full);
	if (it->mirrored)	/* mirror copies decapsulated (--collector ports) */
		printf("  mirrored %llu", (unsigned long long)it->mirrored);
	printf("\n");
	print_findings(d->findings);
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *r = d->ifs[i].s;
		const char *ifn = rt_snapshot_ifname(cur, r->k.ifindex);
		__u64 speed = rt_link_speed_mbps(ifn);

		ifn = rt_fmt_safe(ifn, ifs, sizeof(ifs));

		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			const struct rt_if_val *v = &d->ifs[i].d;
			double paused;

			if (!v->pfc_frames[p])
				continue;
			paused = rt_pause_seconds(v->pfc_quanta[p], speed);
			printf("PFC %s %s prio %s: %llu frames, %llu xon, %llu quanta",
			       ifn, rt_dir_name(r->k.dir), rt_prio_name(p, c1, sizeof(c1)),
			       (unsigned long long)v->pfc_frames[p], (unsigned long long)v->pfc_xon[p],
			       (unsigned long long)v->pfc_quanta[p]);
			if (speed && secs > 0)
				printf(", paused ~%.1f%% at %llu Mb/s", rt_share_pct(paused, secs),
				       (unsigned long long)speed);
			printf("\n");
		}
	}
	for (i = 0; i < cur->nnotes; i++)
		printf("note: %s\n", rt_fmt_safe(cur->notes[i], safe, sizeof(safe)));
	print_ports(d, secs);
	print_sflow(cur, d, secs);

	if (rt_grow_to((void **)&b->order, &b->cap, d->nflows, sizeof(*b->order)))
		return -ENOMEM;
	n = b->top ? top_k(b->order, d, (size_t)b->top, &active) : all_active(b->order, d);
	if (!b->top)
		active = n;
	if (n > 1)
		qsort(b->order, n, sizeof(*b->order), cmp_order);
	printf("\n%-10s %-7s %-15s %-15s %8s %4s %4s %9s %8s %6s %8s %8s %8s  %s\n", "IFACE", "DIR",
	       "SRC", "DST", "DQPN", "PRIO", "DSCP", "PKTS/s", "Gb/s", "CE%", "CNP/s", "NAK/s", "RNR/s",
	       "MIRROR");
	for (i = 0; i < n && (!b->top || i < (size_t)b->top); i++) {
		const struct rt_flow_delta *fd = b->order[i];
		const struct rt_flow *f = fd->f;
		const char *est = f->estimate ? "~" : "";	/* sFlow: estimates */
		char prio[8], pk[24], mirror[RT_MIRROR_STRLEN];

		if (f->v.pcp == RT_PCP_NONE)
			snprintf(prio, sizeof(prio), "-");
		else
			snprintf(prio, sizeof(prio), "%u", f->v.pcp);
		if (!f->k.mirror)
			snprintf(mirror, sizeof(mirror), "-");
		else
			rt_fmt_mirror(&f->k, mirror, sizeof(mirror));
		snprintf(pk, sizeof(pk), "%s%s", est, rt_fmt_si(rate(fd->d.pkts, secs), c1, sizeof(c1)));
		printf("%-10s %-7s %-15s %-15s %8u %4s %4u %9s %8.3f %6.2f %8s %8s %8.1f  %s\n",
		       rt_fmt_safe(rt_snapshot_ifname(cur, f->k.ifindex), ifs, sizeof(ifs)),
		       f->k.origin == RT_ORIGIN_NIC ? (f->k.dir == RT_DIR_INGRESS ? "nic-in" : "nic-out") :
		       rt_dir_name(f->k.dir),
		       rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)),
		       rt_fmt_addr(f->k.family, f->k.dst, a2, sizeof(a2)), f->k.dqpn, prio, f->v.dscp,
		       pk, rate(fd->d.bytes, secs) * 8 / 1e9,
		       rt_ce_pct(&fd->d), rt_fmt_si(rate(fd->d.cnp, secs), c2, sizeof(c2)),
		       rt_fmt_si(rate(rt_nak(&fd->d), secs), c3, sizeof(c3)), rate(fd->d.rnr_nak, secs),
		       mirror);
	}
	if (active > i)
		printf("... %zu more flows (--top 0 shows all)\n", active - i);
	printf("\n");
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		int err = errno ? errno : EIO;

		pr_warn("writing the --batch output to standard output failed: %s.\n", strerror(err));
		return -err;
	}
	return 0;
}

static void batch_close(struct rt_sink *s)
{
	struct batch *b = s->priv;

	fflush(stdout);
	free(b->order);
	free(b);
	free(s);
}

struct rt_sink *rt_batch_sink_new(const struct rt_opts *o)
{
	struct rt_sink *s = calloc(1, sizeof(*s));
	struct batch *b = calloc(1, sizeof(*b));

	if (!s || !b) {
		free(s);
		free(b);
		pr_warn("out of memory.\n");
		return NULL;
	}
	b->top = o->top;
	if (o->sort) {
		static const char *const names[] = { "congestion", "pkts", "bytes", "ce", "cnp", "nak", "rnr" };
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcasecmp(o->sort, names[k]) || (k == S_BYTES && (!strcasecmp(o->sort, "gbps") ||
									       !strcasecmp(o->sort, "gb"))))
				sort_by = (int)k;
	}
	s->name = "batch";
	s->emit = batch_emit;
	s->close = batch_close;
	s->input_fd = -1;
	s->priv = b;
	return s;
}
