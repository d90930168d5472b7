// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's table views: the flow and host-pair tables (their columns
 * laid out over the width, the titles with the sort column marked, the rows
 * the state orders, tui_state.c), PFC per priority, the NIC ports, the
 * switch ports worst first, and the findings list. Each draws from row y in
 * h lines and records where its rows went, for the mouse.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "filter.h"
#include "fmt.h"
#include "linkspeed.h"
#include "tui_view.h"

/* The flow or pair table's columns: those that apply now, laid out over the
 * width (t->cols, t->colx, t->colw, t->ncols). */
static void table_columns(struct tui *t)
{
	const enum tui_colid *list = t->view == V_PAIRS ? tui_pair_cols : tui_flow_cols;
	size_t nlist = t->view == V_PAIRS ? tui_npair_cols : tui_nflow_cols;
	short minw[MAXCOLS], want[MAXCOLS];
	unsigned char prio[MAXCOLS];
	int has_proc, has_mirror, has_job = 0, x[MAXCOLS], w[MAXCOLS], n = 0;
	size_t i;

	tui_rows_have(&t->data, t->rows, t->nrows, &has_proc, &has_mirror);
	for (i = 0; i < t->nrows && !has_job && t->view != V_PAIRS; i++)
		has_job = t->rows[i].job != NULL;
	for (i = 0; i < nlist && n < MAXCOLS; i++) {
		const struct tui_col *c = &tui_cols[list[i]];

		if ((c->flags & TUI_COL_AVG) && !t->avgs)
			continue;
		if ((c->flags & TUI_COL_PROC) && !has_proc)
			continue;
		if ((c->flags & TUI_COL_MIRROR) && !has_mirror)
			continue;
		if ((c->flags & TUI_COL_JOB) && !has_job)
			continue;
		t->cols[n] = list[i];
		minw[n] = c->width;
		want[n] = c->maxw;
		prio[n] = c->prio;
		/* address columns grow to the longest address shown */
		if (list[i] == C_SRC || list[i] == C_DST || list[i] == C_IFACE || list[i] == C_PROC ||
		    list[i] == C_MIRROR || list[i] == C_JOB) {
			want[n] = (short)tui_rows_want_t(&t->data, t->rows, t->nrows, list[i], c->width, c->maxw);
		}
		n++;
	}
	tui_layout(minw, want, prio, n, COLS, x, w);
	t->ncols = n;
	memcpy(t->colx, x, sizeof(x[0]) * n);
	memcpy(t->colw, w, sizeof(w[0]) * n);
}

/* the column titles: one bar, the sort column marked */
static void table_titles(struct tui *t, int y)
{
	const int *x = t->colx, *w = t->colw;
	char cell[64], line[1024];

	t->hdr_y = y;
	memset(line, ' ', COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1);
	line[COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1] = '\0';
	attron(tui_cp(t, CP_BAR, A_REVERSE));
	tui_put(y, 0, line);
	for (int j = 0; j < t->ncols; j++) {
		const struct tui_col *c = &tui_cols[t->cols[j]];
		const char *title = t->totals ? c->ttitle : c->title;

		if (!w[j])
			continue;
		snprintf(cell, sizeof(cell), c->flags & TUI_COL_LEFT ? "%-*.*s" : "%*.*s", w[j], w[j], title);
		if (t->cols[j] == t->sort) {
			attron(tui_cp(t, CP_SORT, A_BOLD));
			tui_put(y, x[j], cell);
			attroff(tui_cp(t, CP_SORT, A_BOLD));
			attron(tui_cp(t, CP_BAR, A_REVERSE));
		} else {
			tui_put(y, x[j], cell);
		}
	}
	attroff(tui_cp(t, CP_BAR, A_REVERSE));
}

/* Row r of the table (the selection's in reverse), its cells in the columns. */
static void table_row(struct tui *t, int y, int r)
{
	const struct tui_row *row = tui_row_at(t, (size_t)(t->top + r));
	const int *w = t->colw;
	attr_t a = tui_sev_attr(t, tui_severity(&row->d));
	char cell[64], line[1024];
	int off = 0;

	if (t->top + r == t->sel)
		a |= A_REVERSE;
	for (int j = 0; j < t->ncols && off < (int)sizeof(line) - 1; j++) {
		const struct tui_col *c = &tui_cols[t->cols[j]];

		if (!w[j])
			continue;
		tui_row_cell(row, t->cols[j], cell, sizeof(cell));
		off += snprintf(line + off, sizeof(line) - off,
				c->flags & TUI_COL_LEFT ? "%s%-*.*s" : "%s%*.*s",
				off ? " " : "", w[j], w[j], cell);
	}
	if (t->top + r == t->sel)	/* the selection bar spans the width */
		while (off < COLS && off < (int)sizeof(line) - 1)
			line[off++] = ' ';
	line[off < (int)sizeof(line) ? off : (int)sizeof(line) - 1] = '\0';
	tui_put_attr(y + r, 0, line, a);
}

void tui_draw_flow_table(struct tui *t, int y, int h)
{
	table_columns(t);
	table_titles(t, y);
	y++;
	h--;

	t->table_y = y;
	t->table_h = h;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top > (int)t->nrows - h)
		t->top = (int)t->nrows - h;
	if (t->top < 0)
		t->top = 0;
	if (!t->nrows) {
		tui_put(y, 1, !t->have_snap ? "waiting for the first snapshot..." :
			  t->filter[0] ? "no flow matches the filter (Esc in / clears it)" :
			  "no RoCEv2 flows seen yet");
		return;
	}
	/* only this page of rows is put in order (top-K selection) */
	tui_rows_order_page(t, (size_t)t->top, (size_t)t->top + (size_t)(h > 0 ? h : 0));
	for (int r = 0; r < h && (size_t)(t->top + r) < t->nrows; r++)
		table_row(t, y, r);
}

void tui_draw_pfc(struct tui *t, int y, int h)
{
	const struct rt_delta *D = tui_cur_delta(t);
	const struct rt_delta *S = &t->data.since;
	double secs = tui_cur_secs(t);
	char line[512], a[16], b[16], c[16], e[16];
	int r = 0, shown = 0;

	snprintf(line, sizeof(line), "%-12s %-4s %-4s %9s %9s %11s %9s %12s", "IFACE", "DIR", "PRIO",
		 secs > 0 ? "FRAMES/s" : "FRAMES", secs > 0 ? "XON/s" : "XON",
		 secs > 0 ? "QUANTA/s" : "QUANTA", secs > 0 ? "PAUSED%" : "PAUSED s", "TOTAL FRAMES");
	tui_table_head(t, &y, &h, line);
	for (size_t i = 0; i < D->nifs; i++) {
		const struct rt_if_val *v = &D->ifs[i].d;
		const struct rt_if_val *tot = i < S->nifs ? &S->ifs[i].d : v;
		const char *ifn = rt_snapshot_ifname(&t->data.snap, D->ifs[i].s->k.ifindex);

		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			double ps;

			if (!rt_paused_any(tot, p))
				continue;
			if (shown++ < t->top || r >= h)
				continue;
			ps = rt_paused_secs(&t->data.snap, D->ifs[i].s, v, p, secs, t->speed_given);
			if (secs > 0)
				snprintf(e, sizeof(e), "%.1f", rt_share_pct(ps, secs));
			else
				snprintf(e, sizeof(e), "%.4f", ps);
			snprintf(line, sizeof(line), "%-12s %-4s %-4s %9s %9s %11s %9s %12llu", ifn,
				 D->ifs[i].s->k.dir == RT_DIR_EGRESS ? "out" : "in",
				 rt_prio_name(p, a, sizeof(a)), tui_num(v->pfc_frames[p], secs, b, sizeof(b)),
				 tui_num(v->pfc_xon[p], secs, c, sizeof(c)),
				 tui_num(v->pfc_quanta[p], secs, line + 400, 16), e,
				 (unsigned long long)tot->pfc_frames[p]);
			tui_put_attr(y + r++, 0, line, v->pfc_frames[p] ? tui_sev_attr(t, 1) : 0);
		}
	}
	if (!shown)
		tui_put(y, 1, "no pause frames seen (on hardware RoCE NICs see view 4: the NIC's counters)");
}

/* Index in D->ports of the row-th row when congestion counters (ncong of
 * them) come first: a stable partition, without a buffer. */
static size_t port_at(const struct rt_delta *D, size_t row, size_t ncong)
{
	int cong = row < ncong;
	size_t want = cong ? row : row - ncong, seen = 0;

	for (size_t i = 0; i < D->nports; i++) {
		if ((D->ports[i].c->congestion != 0) != cong)
			continue;
		if (seen++ == want)
			return i;
	}
	return 0;
}

void tui_draw_ports(struct tui *t, int y, int h)
{
	const struct rt_delta *D = &t->data.iv;
	double secs = t->data.iv.secs;
	char line[512], a[16];
	int r = 0, cw = COLS - 53;

	/* the counter's name takes what the numbers leave */
	if (cw < 16)
		cw = 16;
	if (cw > 40)
		cw = 40;
	snprintf(line, sizeof(line), "%-8s %2s %-8s %-7s %-*s %13s %9s", "DEVICE", "PT", "NETDEV", "FROM",
		 cw, "COUNTER (* congestion)", "VALUE", "PER SEC");
	tui_table_head(t, &y, &h, line);
	if (tui_filter_refusal(t, line, sizeof(line))) {
		tui_put(y, 1, line);
		return;
	}
	if (!D->nports) {
		tui_put(y, 1, "no NIC counters (no RDMA device, --no-nic, or a file without them)");
		return;
	}
	/* The congestion counters first, each group in the snapshot's order. */
	size_t ncong = 0;

	for (size_t i = 0; i < D->nports; i++)
		ncong += D->ports[i].c->congestion != 0;
	for (size_t row = 0, skip = (size_t)t->top; row < D->nports && r < h; row++) {
		size_t i = port_at(D, row, ncong);
		const struct rt_port_ctr *c = D->ports[i].c;
		struct rt_fsubj fs = { .kind = RT_FK_PORT, .port = c, .paused = -1 };
		char name[72];

		if (!rt_filter_match(t->flt, &fs) || (skip && skip--))
			continue;
		snprintf(name, sizeof(name), "%s%s", c->congestion ? "*" : " ", c->name);
		snprintf(line, sizeof(line), "%-8.8s %2u %-8.8s %-7s %-*.*s %13llu %9s",
			 c->dev[0] ? c->dev : "-", c->port, c->netdev[0] ? c->netdev : "-",
			 rt_scope_names(c->scope)->label, cw, cw, name, (unsigned long long)c->value,
			 secs > 0 ? rt_fmt_si(D->ports[i].d / secs, a, sizeof(a)) : "-");
		tui_put_attr(y + r++, 0, line, c->congestion && D->ports[i].d ? tui_sev_attr(t, 1) : 0);
	}
}

/* Switch ports, worst first: the deepest queue, then CE %, then drops, then
 * the port's own discards and errors. */
static const struct rt_delta *swsort_d;

static double sw_ce(const struct rt_swport_delta *x)
{
	return rt_pct((double)x->d.est_ce, (double)x->d.est_pkts);
}

/* The port's own discards and errors (counter samples) in the row's direction. */
static __u64 sw_disc(const struct rt_swport_delta *x)
{
	return x->p->dir == RT_DIR_EGRESS ? x->out_discards : x->in_discards;
}

static __u64 sw_err(const struct rt_swport_delta *x)
{
	return x->p->dir == RT_DIR_EGRESS ? x->out_errors : x->in_errors;
}

static int sw_cmp(const void *a, const void *b)
{
	const struct rt_swport_delta *x = &swsort_d->swports[*(const size_t *)a];
	const struct rt_swport_delta *y = &swsort_d->swports[*(const size_t *)b];
	double cx = sw_ce(x), cy = sw_ce(y);

	if (x->p->max_depth != y->p->max_depth)
		return x->p->max_depth > y->p->max_depth ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (x->d.drops != y->d.drops)
		return x->d.drops > y->d.drops ? -1 : 1;
	if (sw_disc(x) + sw_err(x) != sw_disc(y) + sw_err(y))
		return sw_disc(x) + sw_err(x) > sw_disc(y) + sw_err(y) ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

void tui_draw_swports(struct tui *t, int y, int h)
{
	const struct rt_delta *D = &t->data.iv;
	double secs = D->secs;
	char line[512], a[16], cn[16], qi[16], mq[16], aq[16], md[16], di[24], er[24];
	size_t *order, n = D->nswports;
	int r = 0;

	snprintf(line, sizeof(line), "%-24s %-4s %7s %8s %7s %6s %6s %9s %9s %9s %6s %5s %8s %6s",
		 "SWITCH PORT (sFlow)", "DIR", "SAMPLES", "~PKT/s", "~Gb/s", "~CE%", "~CNP/s", "MAXQ B", "MEANQ B",
		 "MAXDLY us", "DROPS", "QUEUE", "DISCARDS", "ERRORS");
	tui_table_head(t, &y, &h, line);
	if (!n) {
		tui_put(y, 1, "no switch ports: collect sFlow with --sflow PORT (rocetop lab --sflow shows one)");
		return;
	}
	order = malloc(n * sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	swsort_d = D;
	qsort(order, n, sizeof(*order), sw_cmp);
	for (size_t row = (size_t)t->top; row < n && r < h; row++) {
		const struct rt_swport_delta *x = &D->swports[order[row]];
		const struct rt_swport_ctr *v = &x->d;

		if (v->depth_n) {
			snprintf(mq, sizeof(mq), "%u", x->p->max_depth);
			snprintf(aq, sizeof(aq), "%.0f", (double)v->depth_sum / (double)v->depth_n);
		} else {
			snprintf(mq, sizeof(mq), "-");
			snprintf(aq, sizeof(aq), "-");
		}
		if (x->p->has_queue)
			snprintf(qi, sizeof(qi), "%u", x->p->queue);
		else
			snprintf(qi, sizeof(qi), "-");
		if (v->transit_n)
			snprintf(md, sizeof(md), "%.1f", x->p->max_transit / 1e3);
		else
			snprintf(md, sizeof(md), "-");
		snprintf(di, sizeof(di), x->p->has_ifctr ? "%llu" : "-", (unsigned long long)sw_disc(x));
		snprintf(er, sizeof(er), x->p->has_ifctr ? "%llu" : "-", (unsigned long long)sw_err(x));
		snprintf(line, sizeof(line), "%-24.24s %-4s %7llu %8s %7.3f %6.2f %6s %9s %9s %9s %6llu %5s %8s %6s",
			 x->p->name, x->p->dir == RT_DIR_EGRESS ? "out" : "in", (unsigned long long)v->samples,
			 secs > 0 ? rt_fmt_si(v->est_pkts / secs, a, sizeof(a)) : "-",
			 secs > 0 ? v->est_bytes * 8 / 1e9 / secs : 0.0, sw_ce(x),
			 secs > 0 ? rt_fmt_si(v->est_cnp / secs, cn, sizeof(cn)) : "-", mq, aq, md,
			 (unsigned long long)v->drops, qi, di, er);
		tui_put_attr(y + r++, 0, line, v->drops || sw_ce(x) >= 10 || sw_disc(x) || sw_err(x) ? tui_sev_attr(t, 2) :
			 v->est_ce ? tui_sev_attr(t, 1) : 0);
	}
	free(order);
	for (size_t i = 0; i < D->nsfagents && r < h; i++) {
		const struct rt_sfagent *ag = &D->sfagents[i].d;

		snprintf(line, sizeof(line),
			 "agent %s: %llu datagrams, %llu lost, %llu with errors, %llu rejected, %llu samples bounded",
			 D->sfagents[i].a->agent, (unsigned long long)ag->datagrams, (unsigned long long)ag->lost,
			 (unsigned long long)ag->errors, (unsigned long long)ag->rejected,
			 (unsigned long long)ag->bad_samples);
		tui_put_attr(y + r++, 0, line, ag->lost || ag->errors || ag->bad_samples ? tui_sev_attr(t, 1) : 0);
	}
}

/* Narrower than this, the findings view names each subject in its fewest
 * words ("10.0.0.1>10.0.0.2 qp 48", "rcv0 egress p3"), so the flow or
 * priority shows before the evidence; wider, with its keys. */
#define TUI_FINDINGS_WIDE 120

void tui_draw_findings(struct tui *t, int y, int h)
{
	static size_t idx[MAX_FROWS];
	size_t n = tui_findings_order(t, idx, MAX_FROWS), i;
	char line[1024], a[16], b[16], subj[256];

	snprintf(line, sizeof(line), "%-8s %-18s %-8s %-8s %s", "SEVERITY", "RULE", "START", "END",
		 "SUBJECT: EVIDENCE   (Enter: the finding's detail)");
	tui_table_head(t, &y, &h, line);
	if (!t->fnd) {
		tui_put(y, 0, "  (no findings engine on this source)");
		return;
	}
	if (!n) {
		tui_put(y, 0, t->flt ? "  (none that the filter keeps)" : "  (none: no rule has matched)");
		return;
	}
	if (t->fsel >= (int)n)
		t->fsel = (int)n - 1;
	if (t->fsel < 0)
		t->fsel = 0;
	if (t->fsel < t->top)
		t->top = t->fsel;
	if (t->fsel >= t->top + h)
		t->top = t->fsel - h + 1;
	for (i = (size_t)t->top; i < n && (int)(i - (size_t)t->top) < h; i++) {
		const struct rt_finding *f = &t->fnd->tab[idx[i]];
		attr_t at = f->open ? (f->sev == RT_SEV_CRITICAL ? tui_sev_attr(t, 2) :
				       f->sev == RT_SEV_WARNING ? tui_sev_attr(t, 1) : 0) : A_DIM;

		snprintf(line, sizeof(line), "%-8s %-18s %-8s %-8s %s: %s", rt_sev_name(f->sev), f->rule,
			 rt_fmt_clock(f->start_ns, a, sizeof(a)), f->open ? "open" : rt_fmt_clock(f->end_ns, b, sizeof(b)),
			 COLS < TUI_FINDINGS_WIDE ? rt_subject_short(&f->subj, subj, sizeof(subj))
						  : rt_subject_text(&f->subj, subj, sizeof(subj)), f->evidence);
		if ((int)i == t->fsel)
			at = A_REVERSE | (at & A_BOLD);
		tui_put_attr(y++, 0, line, at);
	}
}

