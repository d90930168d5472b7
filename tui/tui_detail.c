// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's detail views: one flow's as a column of panels (what the
 * flow is, its counters now, averaged and since the start, sparklines, the
 * switch ports sFlow sampled it at, the reverse direction's CNPs and ACKs),
 * and one finding's in full (times, peak, subject, evidence and next step
 * wrapped, the flows, QPs, processes and ports involved, a list to select).
 * The numbers are the model's (tui_panels.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "tui_view.h"

static const struct rt_flow *find_flow(const struct tui *t, const struct rt_flow_key *k, int *idx)
{
	for (size_t i = 0; i < t->data.snap.nflows; i++)
		if (!rt_flow_key_cmp(&t->data.snap.flows[i].k, k)) {
			*idx = (int)i;
			return &t->data.snap.flows[i];
		}
	return NULL;
}

static void flow_line(const struct tui *t, const struct rt_flow *f, const struct rt_flow_val *d,
		      double secs, char *line, size_t len)
{
	char s1[RT_ADDR_STRLEN], s2[RT_ADDR_STRLEN], a[16], b[16], c[16];

	snprintf(line, len, "%-15s > %-15s %8u %-3s %-8s pkts %s CNP %s NAK %s %s",
		 rt_fmt_addr(f->k.family, f->k.src, s1, sizeof(s1)),
		 rt_fmt_addr(f->k.family, f->k.dst, s2, sizeof(s2)), f->k.dqpn,
		 f->k.dir == RT_DIR_EGRESS ? "out" : "in", rt_snapshot_ifname(&t->data.snap, f->k.ifindex),
		 tui_num(d->pkts, secs, a, sizeof(a)), tui_num(d->cnp, secs, b, sizeof(b)),
		 tui_num(rt_nak(d), secs, c, sizeof(c)), secs > 0 ? "(/s)" : "(since start)");
}

/*
 * The detail view of one flow is a column of panels: each draws from row y,
 * stops before ymax (all but the first), and returns the row after it. f is
 * the flow, row idx of the view's snapshot.
 */
/* what the flow is: its key, its header fields, its owner */
static int panel_about(struct tui *t, const struct rt_flow *f, int idx, int y, int ymax)
{
	char line[512], s1[RT_ADDR_STRLEN], s2[RT_ADDR_STRLEN];

	(void)idx;
	(void)ymax;
	snprintf(line, sizeof(line), "flow %s > %s  QP %u  %s on %s   (Esc/d: back)",
		 rt_fmt_addr(f->k.family, f->k.src, s1, sizeof(s1)),
		 rt_fmt_addr(f->k.family, f->k.dst, s2, sizeof(s2)), f->k.dqpn, rt_dir_name(f->k.dir),
		 rt_snapshot_ifname(&t->data.snap, f->k.ifindex));
	tui_put_attr(y++, 0, line, A_BOLD);
	{
		char prio[8], ds[RT_BITS_STRLEN], ps[RT_BITS_STRLEN];

		if (f->v.pcp == RT_PCP_NONE)
			snprintf(prio, sizeof(prio), "-");
		else
			snprintf(prio, sizeof(prio), "%u", f->v.pcp);
		snprintf(line, sizeof(line), "DSCP %s  priority %s  PCP %s  UDP sport %u  first seen %s ago  last %s ago",
			 rt_fmt_bits(rt_flow_dscps(f), ds, sizeof(ds)), rt_fmt_bits(rt_flow_prios(f), ps, sizeof(ps)),
			 prio, f->v.sport,
			 RT_DUR(t->data.snap.mono_ns > f->v.first_ns ? (t->data.snap.mono_ns - f->v.first_ns) / 1e9 : 0.0),
			 RT_DUR(t->data.snap.mono_ns > f->v.last_ns ? (t->data.snap.mono_ns - f->v.last_ns) / 1e9 : 0.0));
		tui_put(y++, 0, line);
		snprintf(line, sizeof(line), "last opcode %s (0x%02x)",
			 rt_opcode_name(f->v.opcode, s1, sizeof(s1)), f->v.opcode);
		tui_put(y++, 0, line);
	}
	if (f->estimate) {
		snprintf(line, sizeof(line),
			 "~ estimates from %llu sFlow samples: each stands for its sampling rate in packets",
			 (unsigned long long)f->samples);
		tui_put_attr(y++, 0, line, A_BOLD);
	}
	if (f->comm[0] || f->lqpn || f->rqpn) {
		snprintf(line, sizeof(line), "owner %s pid %u  local QP %u  remote QP %u",
			 f->comm[0] ? f->comm : "-", f->pid, f->lqpn, f->rqpn);
		tui_put(y++, 0, line);
	}
	return y;
}

/* the counters now, averaged, and since the start (tui_panels.c) */
static int panel_counters(struct tui *t, const struct rt_flow *f, int idx, int y, int ymax)
{
	static const char *const names[TUI_DM_N] = { "pkts/s", "Gb/s", "CE %", "CNPs/s", "NAKs/s" };
	struct rt_flow_val totv;
	const struct rt_flow_val *tot = &totv;
	struct tui_detail dt;
	char line[512], a[16];

	(void)f;
	tui_flow_d(&t->data, 1, (size_t)idx, &totv);
	tui_detail_rates(&t->data, (size_t)idx, &dt);
	snprintf(line, sizeof(line), "%-8s %10s %10s %10s %10s %12s", "", "now", "2s", "10s", "40s",
		 "since start");
	tui_put_attr(y++, 0, line, A_UNDERLINE);
	for (int m = 0; m < TUI_DM_N && y < ymax; m++) {
		char cols[1 + TUI_NWIN][16];

		for (int w = 0; w < 1 + TUI_NWIN; w++) {
			double val = dt.v[m][w];

			if (isnan(val))
				snprintf(cols[w], 16, "-");
			else if (m == TUI_DM_GBPS || m == TUI_DM_CE)
				snprintf(cols[w], 16, m == TUI_DM_GBPS ? "%.3f" : "%.2f", val);
			else
				rt_fmt_si(val, cols[w], 16);
		}
		if (m == TUI_DM_CE)
			snprintf(a, sizeof(a), "%.2f%% %llu", rt_ce_pct(tot),
				 (unsigned long long)dt.total[m]);
		else if (m == TUI_DM_GBPS)
			snprintf(a, sizeof(a), "%sB", rt_fmt_si(dt.total[m], line, 16));
		else
			snprintf(a, sizeof(a), "%llu", (unsigned long long)dt.total[m]);
		snprintf(line, sizeof(line), "%-8s %10s %10s %10s %10s %12s", names[m], cols[0], cols[1],
			 cols[2], cols[3], a);
		tui_put(y++, 0, line);
	}
	snprintf(line, sizeof(line), "RNR NAKs %llu  ACKs %llu  ECT0 %llu  ECT1 %llu  not-ECT %llu (since start)",
		 (unsigned long long)tot->rnr_nak, (unsigned long long)tot->ack,
		 (unsigned long long)tot->ecn[RT_ECN_ECT0], (unsigned long long)tot->ecn[RT_ECN_ECT1],
		 (unsigned long long)tot->ecn[RT_ECN_NOT_ECT]);
	if (y < ymax)
		tui_put(y++, 0, line);
	return y;
}

/* sparklines, oldest on the left */
static int panel_sparklines(struct tui *t, const struct rt_flow *f, int idx, int y, int ymax)
{
	const struct tui_hist *hist = tui_hists_get(&t->data.hists, (size_t)idx);
	char line[512], a[16];
	double v[TUI_HIST];
	int nspark;

	(void)f;
	nspark = COLS - 24;
	if (nspark > TUI_HIST)
		nspark = TUI_HIST;
	if (nspark < 0)
		nspark = 0;
	/* packets/s first, uncoloured: a stall shows as its gaps */
	for (int i = 0, m; i < 3 && y < ymax; i++) {
		static const int order[3] = { 2, 0, 1 };
		static const char *const names[3] = { "CE %", "CNPs/s", "pkts/s" };
		char spark[TUI_HIST * 4 + 1];
		double max;
		int n, sev;

		m = order[i];
		n = tui_detail_series(hist, m, nspark, v, &max);
		sev = m == 2 ? 0 : m == 0 && max >= 10 ? 2 : max > 0 ? 1 : 0;
		tui_sparkline(v, n, t->utf8, spark, sizeof(spark));
		snprintf(line, sizeof(line), "%-7s max %6s ", names[m],
			 m == 0 ? (snprintf(a, sizeof(a), "%.1f", max), a) : rt_fmt_si(max, a, sizeof(a)));
		tui_put(y, 0, line);
		attron(tui_sev_attr(t, sev));
		tui_put_glyphs(y++, (int)strlen(line), spark);
		attroff(tui_sev_attr(t, sev));
	}
	return y;
}

/* sFlow: the switch ports where this queue pair was sampled, and their queues */
static int panel_sflow(struct tui *t, const struct rt_flow *f, int idx, int y, int ymax)
{
	char line[512];
	int shown = 0;

	(void)idx;
	for (size_t i = 0; i < t->data.snap.nflows && y < ymax; i++) {
		const struct rt_flow *o = &t->data.snap.flows[i];
		const struct rt_swport *p = NULL;

		if (!o->estimate || o->k.family != f->k.family || o->k.dqpn != f->k.dqpn ||
		    memcmp(o->k.src, f->k.src, 16) || memcmp(o->k.dst, f->k.dst, 16))
			continue;
		for (size_t k = 0; k < t->data.snap.nswports; k++)
			if (t->data.snap.swports[k].ifindex == o->k.ifindex &&
			    t->data.snap.swports[k].dir == o->k.dir)
				p = &t->data.snap.swports[k];
		if (!shown++)
			tui_put_attr(y++, 0, "sampled by sFlow at switch ports (estimates)", A_UNDERLINE);
		if (y >= ymax)
			break;
		snprintf(line, sizeof(line), "%s %s: %llu samples ~%llu pkts since start",
			 rt_snapshot_ifname(&t->data.snap, o->k.ifindex), rt_dir_name(o->k.dir),
			 (unsigned long long)o->samples, (unsigned long long)o->v.pkts);
		if (p && p->c.depth_n)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 "  queue: largest %u B this interval, mean %.0f B since start",
				 p->max_depth, (double)p->c.depth_sum / (double)p->c.depth_n);
		if (o->sw_drops)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 "  dropped there: %llu notifications", (unsigned long long)o->sw_drops);
		if (p && p->c.drops)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "  port drops %llu",
				 (unsigned long long)p->c.drops);
		tui_put(y++, 2, line);
	}
	return y;
}

/* the reverse direction: the CNPs (and ACK/NAKs) that answer this flow */
static int panel_reverse(struct tui *t, const struct rt_flow *f, int idx, int y, int ymax)
{
	double secs = tui_cur_secs(t);
	char line[512];
	int shown = 0;

	if (y < ymax)
		tui_put_attr(y++, 0, "reverse flows (destination > source on the same interface: their CNPs throttle this one)",
			 A_UNDERLINE);
	for (size_t i = 0; i < t->data.snap.nflows && y < ymax; i++) {
		const struct rt_flow *r = &t->data.snap.flows[i];
		struct rt_flow_val rd;

		if (r->k.ifindex != f->k.ifindex || r->k.family != f->k.family ||
		    memcmp(r->k.src, f->k.dst, 16) || memcmp(r->k.dst, f->k.src, 16))
			continue;
		tui_flow_d(&t->data, t->totals, i, &rd);
		flow_line(t, r, &rd, secs, line, sizeof(line));
		if (r->throttles == idx) {
			size_t off = strlen(line);

			snprintf(line + off, sizeof(line) - off, "  throttles this flow (%s)",
				 rt_attr_names(r->attr)->label);
		}
		tui_put_attr(y++, 2, line, tui_sev_attr(t, tui_severity(&rd)));
		shown++;
	}
	/* CNP flows the attribution tied to this one elsewhere */
	for (size_t i = 0; i < t->data.snap.nflows && y < ymax; i++) {
		const struct rt_flow *r = &t->data.snap.flows[i];
		struct rt_flow_val rd;

		if (r->throttles != idx || (r->k.ifindex == f->k.ifindex &&
					    !memcmp(r->k.src, f->k.dst, 16) && !memcmp(r->k.dst, f->k.src, 16)))
			continue;
		tui_flow_d(&t->data, t->totals, i, &rd);
		flow_line(t, r, &rd, secs, line, sizeof(line));
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "  throttles this flow (%s)",
			 rt_attr_names(r->attr)->label);
		tui_put(y++, 2, line);
		shown++;
	}
	if (f->throttles >= 0 && (size_t)f->throttles < t->data.snap.nflows && y < ymax) {
		const struct rt_flow *r = &t->data.snap.flows[f->throttles];

		tui_put(y++, 0, "this CNP flow throttles:");
		if (y < ymax) {
			struct rt_flow_val rd;

			tui_flow_d(&t->data, t->totals, (size_t)f->throttles, &rd);
			flow_line(t, r, &rd, secs, line, sizeof(line));
			tui_put(y++, 2, line);
		}
		shown++;
	}
	if (!shown && y < ymax)
		tui_put(y++, 2, "none seen");
	return y;
}

void tui_draw_detail(struct tui *t, int y, int h)
{
	static int (*const panels[])(struct tui *t, const struct rt_flow *f, int idx, int y,
				     int ymax) = {
		panel_about, panel_counters, panel_sparklines, panel_sflow, panel_reverse,
	};
	const struct rt_flow *f;
	int idx = -1, ymax = y + h;

	t->table_y = y;
	t->table_h = 0;
	f = t->have_sel_key ? find_flow(t, &t->sel_key, &idx) : NULL;
	if (!f) {
		tui_put(y, 1, t->detail_back == V_FDETAIL ? "the flow is no longer in the table (Esc: back to the finding)" :
			  "the selected flow is gone (Esc: back to the flows)");
		return;
	}
	for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++)
		y = panels[i](t, f, idx, y, ymax);
}

/* text after a label, wrapped at spaces to the screen's width (a word longer
 * than the width is cut across lines), every line under the first one's
 * start; the next y. */
static int put_wrapped(int y, int ymax, const char *label, const char *text)
{
	int x = (int)strlen(label), w = COLS - x - 1;
	size_t n = strlen(text), at = 0;

	if (w < 10)
		w = 10;
	tui_put(y, 0, label);
	while (y < ymax) {
		char part[1024];
		size_t len = n - at, cut;

		if (len > (size_t)w) {
			for (cut = (size_t)w; cut > 0 && text[at + cut] != ' '; cut--)
				;
			len = cut ? cut : (size_t)w;
		}
		if (len >= sizeof(part))
			len = sizeof(part) - 1;
		memcpy(part, text + at, len);
		part[len] = '\0';
		tui_put(y++, x, part);
		at += len;
		while (text[at] == ' ')
			at++;
		if (at >= n)
			break;
	}
	return y;
}

/* The QPs, processes and ports a finding names, each once. */
static void fdetail_names(const struct rt_finding *f, char *qps, char *procs, char *ports, size_t len)
{
	int oq = 0, op = 0, oo = 0;

	qps[0] = procs[0] = ports[0] = '\0';
	for (size_t i = 0; i < f->nflows; i++) {
		const struct rt_find_flow *x = &f->flows[i];
		char one[64];

		oq = tui_appendf(qps, len, oq, "%s%u", oq ? ", " : "", x->k.dqpn);
		if (x->lqpn)
			oq = tui_appendf(qps, len, oq, " (local %u, remote %u)", x->lqpn, x->rqpn);
		snprintf(one, sizeof(one), "%.16s (pid %u)", x->comm, x->pid);
		if (x->pid && !strstr(procs, one))
			op = tui_appendf(procs, len, op, "%s%s", op ? ", " : "", one);
		if (!strstr(ports, x->ifname))
			oo = tui_appendf(ports, len, oo, "%s%s", oo ? ", " : "", x->ifname);
	}
	if (f->subj.has & RT_SUBJ_IFNAME && !strstr(ports, f->subj.ifname))
		oo = tui_appendf(ports, len, oo, "%s%s", oo ? ", " : "", f->subj.ifname);
	if (f->subj.has & RT_SUBJ_DEVICE)
		oo = tui_appendf(ports, len, oo, "%s%s port %u", oo ? ", " : "", f->subj.device, f->subj.port);
	if (f->subj.has & RT_SUBJ_AGENT)
		tui_appendf(ports, len, oo, "%sswitch %s port %u", oo ? ", " : "", f->subj.agent, f->subj.port);
}

/* One involved flow's line. */
static void fdetail_flow(const struct tui *t, const struct rt_find_flow *x, char *line, size_t len)
{
	char a[RT_ADDR_STRLEN], b[RT_ADDR_STRLEN];
	int off, gone = 1;

	for (size_t i = 0; i < t->data.snap.nflows && gone; i++)
		gone = rt_flow_key_cmp(&t->data.snap.flows[i].k, &x->k) != 0;
	off = snprintf(line, len, "  %s -> %s QP %u  %s %s  prio %u", rt_fmt_addr(x->k.family, x->k.src, a, sizeof(a)),
		       rt_fmt_addr(x->k.family, x->k.dst, b, sizeof(b)), x->k.dqpn, x->ifname,
		       rt_dir_name(x->k.dir), x->prio);
	if (x->pid)
		off = tui_appendf(line, len, off, "  %.16s pid %u", x->comm, x->pid);
	if (gone)
		tui_appendf(line, len, off, "  (gone from the table)");
}

/* A finding in full: times, peak, subject, evidence, next step (wrapped,
 * never cut), the flows, QPs, processes and ports involved; the flows are a
 * list to select, Enter going to the selected one's detail. */
void tui_draw_fdetail(struct tui *t, int y, int h)
{
	const struct rt_finding *f = tui_fdetail(t);
	char line[1024], a[16], b[16], qps[512], procs[512], ports[512], pk[RT_PEAK_STRLEN];
	int ymax = y + h;

	t->table_y = y;
	t->table_h = 0;
	if (!f) {
		tui_put(y, 1, "the finding is gone (Esc: back to the findings)");
		return;
	}
	snprintf(line, sizeof(line), "%s %s  %s", rt_sev_name(f->sev), f->rule, f->open ? "open" : "closed");
	tui_put_attr(y++, 0, line, f->sev == RT_SEV_CRITICAL ? tui_sev_attr(t, 2) : f->sev == RT_SEV_WARNING ? tui_sev_attr(t, 1) : A_BOLD);
	snprintf(line, sizeof(line), "start %s  end %s%s  (%s)  peak %s", rt_fmt_clock(f->start_ns, a, sizeof(a)),
		 rt_fmt_clock(f->end_ns, b, sizeof(b)), f->open ? " so far" : "", RT_DUR((f->end_ns - f->start_ns) / 1e9),
		 rt_fmt_peak(f->peak, f->peak_unit, pk, sizeof(pk)));
	tui_put(y++, 0, line);
	y = put_wrapped(y, ymax, "subject   ", rt_subject_text(&f->subj, line, sizeof(line)));
	y = put_wrapped(y, ymax, "evidence  ", f->evidence);
	y = put_wrapped(y, ymax, "next step ", f->next);
	if (f->involved[0]) {
		snprintf(line, sizeof(line), "%s%s", f->involved, f->involved_more ? "; and more" : "");
		y = put_wrapped(y, ymax, "involved  ", line);
	}
	fdetail_names(f, qps, procs, ports, sizeof(qps));
	y = put_wrapped(y, ymax, "QPs       ", qps[0] ? qps : "-");
	y = put_wrapped(y, ymax, "processes ", procs[0] ? procs : "-");
	y = put_wrapped(y, ymax, "ports     ", ports[0] ? ports : "-");
	snprintf(line, sizeof(line), "Flows (%u)   %s", f->nflows,
		 f->nflows ? "arrows select, Enter: the flow's detail" : "none kept: Enter goes to the subject's view");
	if (y < ymax)
		tui_put_attr(++y, 0, line, A_BOLD);
	y++;
	if (t->fd_sel >= f->nflows)
		t->fd_sel = f->nflows ? f->nflows - 1 : 0;
	for (int i = 0; i < f->nflows && y < ymax; i++) {
		fdetail_flow(t, &f->flows[i], line, sizeof(line));
		tui_put_attr(y++, 0, line, i == t->fd_sel ? A_REVERSE : 0);
	}
}
