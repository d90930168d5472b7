// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's drawing: the header, the tables, the detail, the overlays.
 * Numbers come from the model (tui_model.h); this file only lays them out,
 * in one erase + draw + refresh per change so that ncurses sends only the
 * differences (never clear() per frame).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "fmt.h"
#include "derive.h"
#include "linkspeed.h"
#include "log.h"
#include "tui_view.h"

const char *const tui_view_names[V_NVIEWS] = { "flows", "host pairs", "PFC", "NIC ports", "switch ports",
						  "findings", "jobs", "probes", "detail",
						  "finding" };

/* ------------------------------------------------------------------ helpers */

int tui_view_is_table(int v)
{
	return v == V_FLOWS || v == V_PAIRS;
}

static const struct rt_delta *cur_delta(const struct tui *t)
{
	return t->totals ? &t->data.since : &t->data.iv;
}

double tui_cur_secs(const struct tui *t)
{
	return t->totals ? 0 : t->data.iv.secs;
}

const char *tui_num(double v, double secs, char *buf, size_t len)
{
	if (secs > 0)
		return rt_fmt_si(v / secs, buf, len);
	snprintf(buf, len, "%.0f", v);
	return buf;
}

/* snprintf at line + off, never past the end; the new offset. */
static int appendf(char *line, size_t len, int off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int appendf(char *line, size_t len, int off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off < 0 || (size_t)off >= len - 1)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(line + off, len - (size_t)off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return off;
	return (size_t)(off + n) >= len ? (int)len - 1 : off + n;
}

/*
 * The one way text reaches the screen (escape sequences stay out). Lines are built
 * from untrusted names (a recording's source, interfaces, notes, ports, comm,
 * sFlow agents, mirror sessions, findings about them), so every line goes
 * through rt_fmt_safe, printable ASCII only: an ESC, a C1 control or a byte of
 * invalid UTF-8 in a file shows as '?' and never reaches the terminal. The
 * only other call into curses' text output is put_glyphs() below.
 * tests/tui/test_tui_escape.sh checks both the bytes written and the screen.
 */
void tui_put(int y, int x, const char *s)
{
	char safe[1024];

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, rt_fmt_safe(s, safe, sizeof(safe)), COLS - x);
}

/* The sparkline's block characters (UTF-8 built by tui_sparkline from
 * numbers, never from a name): the one text not passed through tui_put(). */
static void put_glyphs(int y, int x, const char *spark)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, spark, COLS - x);
}

void tui_put_attr(int y, int x, const char *s, attr_t a)
{
	attron(a);
	tui_put(y, x, s);
	attroff(a);
}

static attr_t cp(const struct tui *t, int pair, attr_t fallback)
{
	return t->color ? COLOR_PAIR(pair) : fallback;
}

/* 0 calm, 1 some congestion, 2 severe: CE >= 10 % or any NAK. */
static int severity(const struct rt_flow_val *d)
{
	double ce = rt_ce_pct(d);

	if (ce >= 10 || rt_nak(d))
		return 2;
	if (ce > 0 || d->cnp || d->rnr_nak)
		return 1;
	return 0;
}

attr_t tui_sev_attr(const struct tui *t, int sev)
{
	if (sev == 2)
		return cp(t, CP_RED, A_BOLD) | (t->color ? A_BOLD : 0);
	if (sev == 1)
		return cp(t, CP_YELLOW, 0);
	return 0;
}

/* ------------------------------------------------------------------ rows */

/* Every row in order: ord sorted whole. */
static void tui_rows_sort_ord(struct tui *t)
{
	tui_rows_order(t->ord, t->rows, t->nrows, 0, t->nrows, t->sort, t->invert);
	t->ofull = 1;
}

/* Order rows [lo, hi) of the table (tui_sort.c's selection, not a sort of all). */
static void order_page(struct tui *t, size_t lo, size_t hi)
{
	if (hi > t->nrows)
		hi = t->nrows;
	if (t->ofull || (lo >= t->olo && hi <= t->ohi))
		return;
	tui_rows_order(t->ord, t->rows, t->nrows, lo, hi, t->sort, t->invert);
	t->olo = lo;
	t->ohi = hi;
}

struct tui_row *tui_row_at(struct tui *t, size_t i)
{
	struct tui_row *r;

	if (!t->ofull && (i < t->olo || i >= t->ohi))
		order_page(t, i, i + (t->table_h > 0 ? (size_t)t->table_h : 1));
	r = &t->rows[t->ord[i]];
	tui_row_avgs(&t->data, r);
	return r;
}

void tui_rows_order_all(struct tui *t)
{
	if (!t->ofull)
		tui_rows_sort_ord(t);
}

void tui_remember_sel(struct tui *t)
{
	if (t->sel >= 0 && (size_t)t->sel < t->nrows) {
		t->sel_key = tui_row_at(t, (size_t)t->sel)->f->k;
		t->have_sel_key = 1;
	}
}

void tui_rebuild_rows(struct tui *t)
{
	int n = 0, avgs = (tui_cols[t->sort].flags & TUI_COL_AVG) != 0;

	t->olo = t->ohi = 0;
	t->ofull = 0;
	if (!t->have_snap) {
		t->nrows = 0;
		return;
	}
	/* averages only for the rows shown (tui_row_at), unless they are the order */
	if (t->view == V_PAIRS)
		n = tui_pair_rows(&t->data, t->totals, t->filter, &t->rows, &t->rows_cap);
	else
		n = tui_flow_rows_ex(&t->data, t->totals, t->filter, avgs, &t->rows, &t->rows_cap);
	t->nrows = n > 0 ? (size_t)n : 0;
	if (t->view == V_JOBS && tui_jobs_fold(&t->data.snap, t->totals ? &t->data.since : &t->data.iv,
					       t->totals, t->speed_given, t->rows, t->nrows, &t->jobs))
		rt_jobagg_clear(&t->jobs);	/* nothing rather than a part */
	if (rt_grow_to((void **)&t->ord, &t->ord_cap, t->nrows ? t->nrows : 1, sizeof(*t->ord))) {
		t->nrows = 0;	/* nothing to show rather than rows out of order */
		return;
	}
	for (size_t i = 0; i < t->nrows; i++)
		t->ord[i] = (__u32)i;
	if (t->have_sel_key) {		/* the selection follows its flow: its rank */
		size_t best = t->nrows;

		/* flows: the rows follow the copy's key order (idx): two binary searches */
		for (size_t lo = 0, hi = t->view == V_PAIRS ? 0 : t->data.snap.nflows; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;
			int c = rt_flow_key_cmp(&t->data.snap.flows[mid].k, &t->sel_key);

			if (c < 0) {
				lo = mid + 1;
			} else if (c > 0) {
				hi = mid;
			} else {
				size_t a = 0, b = t->nrows;

				while (a < b) {
					size_t m = a + (b - a) / 2;

					if ((size_t)t->rows[m].idx < mid)
						a = m + 1;
					else
						b = m;
				}
				if (a < t->nrows && (size_t)t->rows[a].idx == mid)
					best = a;
				break;
			}
		}
		/* pairs: the selected pair's row, by a walk */
		for (size_t i = 0; t->view == V_PAIRS && i < t->nrows; i++) {
			const struct rt_flow_key *k = &t->rows[i].f->k;

			if (!memcmp(k->src, t->sel_key.src, 16) && !memcmp(k->dst, t->sel_key.dst, 16)) {
				if (best == t->nrows ||
				    tui_row_cmp(&t->rows[i], &t->rows[best], t->sort, t->invert) < 0)
					best = i;
			}
		}
		if (best < t->nrows)
			t->sel = (int)tui_rows_rank(t->rows, t->nrows, best, t->sort, t->invert);
	}
	if (t->sel >= (int)t->nrows)
		t->sel = (int)t->nrows - 1;
	if (t->sel < 0)
		t->sel = 0;
}

/* ------------------------------------------------------------------ header */

/*
 * The header is a column of meters (htop's): each puts its line at row y, or
 * none, and says how many rows it took.
 */

/* 1: time, source, interval, state */
static int meter_title(struct tui *t, int y)
{
	const struct rt_snapshot *s = &t->data.snap;
	char line[512], a[32];
	int off;

	off = snprintf(line, sizeof(line), "rocetop %s  every %s",
		       t->have_snap ? rt_fmt_clock(s->time_ns, a, sizeof(a)) : "--:--:--", RT_DUR(t->seen.interval));
	if (t->seen.is_file && t->have_snap)
		off += snprintf(line + off, sizeof(line) - off, "  pos %s x%g%s",
				RT_DUR((s->time_ns - t->data.first_time_ns) / 1e9), t->seen.speed,
				t->seen.at_end ? " [END]" : "");
	if (t->seen.paused)
		off += snprintf(line + off, sizeof(line) - off, "  [PAUSED]");
	if (t->totals)
		off += snprintf(line + off, sizeof(line) - off, "  [TOTALS]");
	/* the source last: a long path is what the width cuts */
	snprintf(line + off, sizeof(line) - off, "  view %s  %s", tui_view_names[t->view],
		 t->have_snap ? s->source : "(waiting for the first snapshot)");
	tui_put_attr(y, 0, line, A_BOLD);
	return 1;
}

/* findings: open ones by severity, and the most severe, newest one */
static int meter_findings(struct tui *t, int y)
{
	const struct rt_finding *nf;
	size_t cnt[3];
	char line[512], a[32], subj[256];
	int off;

	if (!t->fnd)
		return 0;
	nf = rt_findings_newest(t->fnd);
	rt_findings_count(t->fnd, cnt);
	off = snprintf(line, sizeof(line), "findings  %zu critical  %zu warning  %zu info",
		       cnt[RT_SEV_CRITICAL], cnt[RT_SEV_WARNING], cnt[RT_SEV_INFO]);
	if (nf)
		snprintf(line + off, sizeof(line) - off, "   newest: %s %s since %s  %s  (F: all)",
			 rt_sev_name(nf->sev), nf->rule, rt_fmt_clock(nf->start_ns, a, sizeof(a)),
			 rt_subject_text(&nf->subj, subj, sizeof(subj)));
	tui_put_attr(y, 0, line, !nf ? 0 : nf->sev == RT_SEV_CRITICAL ? tui_sev_attr(t, 2) :
			     nf->sev == RT_SEV_WARNING ? tui_sev_attr(t, 1) : 0);
	return 1;
}

/* 2: wire totals and rates */
static int meter_wire(struct tui *t, int y)
{
	const struct rt_delta *D = cur_delta(t);
	const struct rt_flow_val *ft = &D->flow_tot;
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32], e[32], g[32];

	if (secs > 0)
		snprintf(line, sizeof(line),
			 "wire  RoCE %s pkt/s %.3f Gb/s  CE %.2f%% (%s/s)  CNP %s/s  NAK %s/s  RNR %s/s",
			 tui_num(ft->pkts, secs, a, sizeof(a)), ft->bytes * 8 / 1e9 / secs,
			 rt_ce_pct(ft),
			 tui_num(ft->ecn[RT_ECN_CE], secs, b, sizeof(b)), tui_num(ft->cnp, secs, c, sizeof(c)),
			 tui_num(rt_nak(ft), secs, e, sizeof(e)), tui_num(ft->rnr_nak, secs, g, sizeof(g)));
	else
		snprintf(line, sizeof(line),
			 "wire  RoCE %llu pkts %sB  CE %.2f%% (%llu)  CNP %llu  NAK %llu  RNR %llu",
			 (unsigned long long)ft->pkts, rt_fmt_si(ft->bytes, a, sizeof(a)),
			 rt_ce_pct(ft),
			 (unsigned long long)ft->ecn[RT_ECN_CE], (unsigned long long)ft->cnp,
			 (unsigned long long)rt_nak(ft), (unsigned long long)ft->rnr_nak);
	if (D->est_tot.pkts) {	/* sFlow: estimates, apart from the exact totals */
		size_t n = strlen(line);
		const struct rt_flow_val *et = &D->est_tot;

		if (secs > 0)
			snprintf(line + n, sizeof(line) - n, "   sFlow ~%s pkt/s CE ~%.2f%%",
				 tui_num(et->pkts, secs, a, sizeof(a)), rt_ce_pct(et));
		else
			snprintf(line + n, sizeof(line) - n, "   sFlow ~%llu pkts CE ~%.2f%%",
				 (unsigned long long)et->pkts, rt_ce_pct(et));
	}
	tui_put(y, 0, line);
	return 1;
}

/* 3: table and parser */
static int meter_table(struct tui *t, int y)
{
	const struct rt_delta *D = cur_delta(t);
	const struct rt_if_val *it = &D->if_tot;
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32], e[32], g[32], h[32];

	snprintf(line, sizeof(line),
		 "flows %zu  evicted %s  frames %s%s  errors: trunc %s malformed %s full %s v6ext %s",
		 t->data.snap.nflows, tui_num(D->evicted, 0, a, sizeof(a)), tui_num(it->pkts, secs, b, sizeof(b)),
		 secs > 0 ? "/s" : "",
		 tui_num(it->truncated, 0, c, sizeof(c)), tui_num(it->malformed, 0, e, sizeof(e)),
		 tui_num(it->flow_full, 0, g, sizeof(g)), tui_num(it->v6_unparsed, 0, h, sizeof(h)));
	tui_put(y, 0, line);
	return 1;
}

/* 4: PFC per priority, with the paused share of time where the speed is known */
static int meter_pfc(struct tui *t, int y)
{
	struct tui_pfc_prio pf[RT_NPRIO];
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32];
	int off = snprintf(line, sizeof(line), "PFC  "), any = 0;

	tui_pfc_prios(&t->data.snap, cur_delta(t), secs, t->speed_given, pf);
	for (unsigned int p = 0; p < RT_NPRIO; p++) {
		if (!pf[p].frames)
			continue;
		any = 1;
		off = appendf(line, sizeof(line), off, "p%s %s%s xon %s ",
			      rt_prio_name(p, a, sizeof(a)), tui_num(pf[p].frames, secs, b, sizeof(b)),
			      secs > 0 ? "/s" : "", tui_num(pf[p].xon, secs, c, sizeof(c)));
		if (pf[p].share < 0)
			off = appendf(line, sizeof(line), off, "paused ? (speed unknown)  ");
		else if (secs > 0)
			off = appendf(line, sizeof(line), off, "paused ~%.1f%%  ", pf[p].share);
		else
			off = appendf(line, sizeof(line), off, "paused ~%.3fs  ", pf[p].paused);
	}
	if (!any)
		appendf(line, sizeof(line), off, "no pause frames");
	tui_put(y, 0, line);
	return 1;
}

/* 5: the NIC's congestion counters, beside the wire's: summed over ports,
 * the DCQCN ones first, then the others that moved */
static int meter_nic(struct tui *t, int y)
{
	struct tui_nic_sum ns[64];
	size_t n = tui_nic_sums(cur_delta(t), t->totals, ns, sizeof(ns) / sizeof(ns[0]));
	double secs = tui_cur_secs(t);
	char line[512], a[32];
	int off;

	if (!n)
		return 0;
	off = snprintf(line, sizeof(line), "nic   ");
	for (size_t i = 0; i < n; i++)
		off = appendf(line, sizeof(line), off, "%s %s%s  ", ns[i].name,
			      tui_num(ns[i].v, secs, a, sizeof(a)), secs > 0 ? "/s" : "");
	tui_put(y, 0, line);
	return 1;
}

/* 6: what `rocetop doctor` finds wrong with the host's configuration
 * (user/nic/nic_doctor.c): its first failing check, when there is one */
static int meter_doctor(struct tui *t, int y)
{
	for (size_t i = 0; i < t->data.snap.nnotes; i++)
		if (!strncmp(t->data.snap.notes[i], "doctor: ", 8)) {
			tui_put_attr(y, 0, t->data.snap.notes[i], tui_sev_attr(t, 1));
			return 1;
		}
	return 0;
}

static void draw_header(struct tui *t, int *yp)
{
	static int (*const meters[])(struct tui *t, int y) = {
		meter_title, meter_findings, meter_wire, meter_table, meter_pfc, meter_nic,
		meter_doctor,
	};

	for (size_t i = 0; i < sizeof(meters) / sizeof(meters[0]); i++)
		*yp += meters[i](t, *yp);
}

/* ------------------------------------------------------------------ tables */

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
	attron(cp(t, CP_BAR, A_REVERSE));
	tui_put(y, 0, line);
	for (int j = 0; j < t->ncols; j++) {
		const struct tui_col *c = &tui_cols[t->cols[j]];
		const char *title = t->totals ? c->ttitle : c->title;

		if (!w[j])
			continue;
		snprintf(cell, sizeof(cell), c->flags & TUI_COL_LEFT ? "%-*.*s" : "%*.*s", w[j], w[j], title);
		if (t->cols[j] == t->sort) {
			attron(cp(t, CP_SORT, A_BOLD));
			tui_put(y, x[j], cell);
			attroff(cp(t, CP_SORT, A_BOLD));
			attron(cp(t, CP_BAR, A_REVERSE));
		} else {
			tui_put(y, x[j], cell);
		}
	}
	attroff(cp(t, CP_BAR, A_REVERSE));
}

/* Row r of the table (the selection's in reverse), its cells in the columns. */
static void table_row(struct tui *t, int y, int r)
{
	const struct tui_row *row = tui_row_at(t, (size_t)(t->top + r));
	const int *w = t->colw;
	attr_t a = tui_sev_attr(t, severity(&row->d));
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

static void draw_flow_table(struct tui *t, int y, int h)
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
	order_page(t, (size_t)t->top, (size_t)t->top + (size_t)(h > 0 ? h : 0));
	for (int r = 0; r < h && (size_t)(t->top + r) < t->nrows; r++)
		table_row(t, y, r);
}

/* A table's header bar on line *y: the table is the *h - 1 lines below it. */
void tui_table_head(struct tui *t, int *y, int *h, const char *line)
{
	tui_put_attr((*y)++, 0, line, cp(t, CP_BAR, A_REVERSE));
	(*h)--;
	t->table_y = *y;
	t->table_h = *h;
}

static void draw_pfc(struct tui *t, int y, int h)
{
	const struct rt_delta *D = cur_delta(t);
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

static void draw_ports(struct tui *t, int y, int h)
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

static void draw_swports(struct tui *t, int y, int h)
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
		put_glyphs(y++, (int)strlen(line), spark);
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
		tui_put_attr(y++, 2, line, tui_sev_attr(t, severity(&rd)));
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

static void draw_detail(struct tui *t, int y, int h)
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

/* ------------------------------------------------------------------ overlays */


static void draw_help(struct tui *t)
{
	int y = 1;

	erase();
	tui_put_attr(0, 0, "rocetop keys (any key returns)", A_BOLD);
	for (const struct tui_action *a = tui_actions; a->key && y < LINES - 1; a++) {
		const char *h = a->help, *nl;
		char line[200];

		if (!a->keys)
			continue;
		for (int first = 1; h && y < LINES - 1; first = 0, h = nl ? nl + 1 : NULL) {
			nl = strchr(h, '\n');
			snprintf(line, sizeof(line), "  %-16s %.*s", first ? a->keys : "",
				 (int)(nl ? nl - h : (int)strlen(h)), h);
			tui_put(y++, 0, line);
		}
	}
	if (y < LINES - 1)
		tui_put(y++, 0, "  mouse            click a column title to sort by it (again: invert), a row to select");
	if (y < LINES - 1)
		tui_put(y++, 0, "  wire: counted by rocetop's BPF programs on the wire; nic: the RDMA NIC's counters");
	(void)t;
}

int tui_sort_candidates(const struct tui *t, enum tui_colid *out)
{
	const enum tui_colid *list = t->view == V_PAIRS ? tui_pair_cols : tui_flow_cols;
	size_t nlist = t->view == V_PAIRS ? tui_npair_cols : tui_nflow_cols;
	int n = 0;

	out[n++] = C_CONG;
	for (size_t i = 0; i < nlist; i++)
		if (t->avgs || !(tui_cols[list[i]].flags & TUI_COL_AVG))
			out[n++] = list[i];
	return n;
}

static void draw_sort_menu(struct tui *t)
{
	enum tui_colid c[C_NCOLS + 1];
	int n = tui_sort_candidates(t, c), y0 = t->hdr_y > 0 ? t->hdr_y : 1;

	tui_put_attr(y0, 0, " Sort by        ", cp(t, CP_BAR, A_REVERSE));
	for (int i = 0; i < n && y0 + 1 + i < LINES - 1; i++) {
		char line[20];

		snprintf(line, sizeof(line), " %-14s ", tui_cols[c[i]].name);
		tui_put_attr(y0 + 1 + i, 0, line, i == t->menu_sel ? A_REVERSE :
					       c[i] == t->sort ? A_BOLD : A_NORMAL);
	}
}

static void draw_status(struct tui *t)
{
	char line[512];
	const char *last = rt_log_last();

	if (t->mode == M_FILTER || t->mode == M_SEARCH) {
		snprintf(line, sizeof(line), "%s: %s_   (Enter applies, Esc %s)",
			 t->mode == M_FILTER ? "Filter" : "Search", t->edit,
			 t->mode == M_FILTER ? "clears" : "cancels");
		tui_put_attr(LINES - 2, 0, line, A_BOLD);
	} else {
		int off = 0;

		line[0] = '\0';
		if (t->filter[0])
			off += snprintf(line + off, sizeof(line) - off, "[filter: %s] ", t->filter);
		if (tui_view_is_table(t->view))
			off += snprintf(line + off, sizeof(line) - off, "sort %s %s  rows %zu  ",
					tui_cols[t->sort].name, t->invert ? "inverted" : "", t->nrows);
		if (t->msg[0])
			off += snprintf(line + off, sizeof(line) - off, "%s  ", t->msg);
		for (size_t i = 0; i < t->data.snap.nnotes && off < (int)sizeof(line) - 1; i++)
			off += snprintf(line + off, sizeof(line) - off, "note: %s  ", t->data.snap.notes[i]);
		if (last && off < (int)sizeof(line) - 1)
			snprintf(line + off, sizeof(line) - off, "log: %s", last);
		tui_put(LINES - 2, 0, line);
	}
	{
		static const char *const fk[][2] = {
			{ "F1", "Help" }, { "F3", "Search" }, { "F4", "Filter" }, { "F5", "View" },
			{ "F6", "SortBy" }, { "a", "Avg" }, { "t", "Totals" }, { "Spc", "Pause" },
			{ "F10", "Quit" },
		};
		int x = 0;

		move(LINES - 1, 0);
		for (size_t i = 0; i < sizeof(fk) / sizeof(fk[0]) && x < COLS; i++) {
			tui_put_attr(LINES - 1, x, fk[i][0], A_BOLD);
			x += (int)strlen(fk[i][0]);
			snprintf(line, sizeof(line), "%-7s", fk[i][1]);
			tui_put_attr(LINES - 1, x, line, cp(t, CP_BAR, A_REVERSE));
			x += (int)strlen(line);
		}
	}
}

/* The findings to list, ranked as the report ranks them. */
static const struct rt_finding *forder_tab;

static int forder_cmp(const void *x, const void *y)
{
	return rt_finding_rank_cmp(&forder_tab[*(const size_t *)x], &forder_tab[*(const size_t *)y]);
}

size_t tui_findings_order(const struct tui *t, size_t *idx, size_t cap)
{
	const struct rt_findings *F = t->fnd;
	size_t n = 0, i;

	if (!F)
		return 0;
	for (i = 0; i < F->n && n < cap; i++)
		if (rt_finding_filter(t->flt, &F->tab[i]))
			idx[n++] = i;
	forder_tab = F->tab;
	qsort(idx, n, sizeof(*idx), forder_cmp);
	return n;
}

int tui_filter_refusal(const struct tui *t, char *buf, size_t len)
{
	return t->view == V_PORTS && rt_filter_check(t->flt, RT_FK_PORT, "the NIC ports view", buf, len);
}

const struct rt_finding *tui_fdetail(struct tui *t)
{
	const struct rt_findings *F = t->fnd;

	for (size_t i = 0; F && i < F->n; i++)
		if (F->tab[i].id == t->fd_id) {
			t->fd = F->tab[i];
			break;
		}
	return t->fd.rule[0] && t->fd.id == t->fd_id ? &t->fd : NULL;
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

		oq = appendf(qps, len, oq, "%s%u", oq ? ", " : "", x->k.dqpn);
		if (x->lqpn)
			oq = appendf(qps, len, oq, " (local %u, remote %u)", x->lqpn, x->rqpn);
		snprintf(one, sizeof(one), "%.16s (pid %u)", x->comm, x->pid);
		if (x->pid && !strstr(procs, one))
			op = appendf(procs, len, op, "%s%s", op ? ", " : "", one);
		if (!strstr(ports, x->ifname))
			oo = appendf(ports, len, oo, "%s%s", oo ? ", " : "", x->ifname);
	}
	if (f->subj.has & RT_SUBJ_IFNAME && !strstr(ports, f->subj.ifname))
		oo = appendf(ports, len, oo, "%s%s", oo ? ", " : "", f->subj.ifname);
	if (f->subj.has & RT_SUBJ_DEVICE)
		oo = appendf(ports, len, oo, "%s%s port %u", oo ? ", " : "", f->subj.device, f->subj.port);
	if (f->subj.has & RT_SUBJ_AGENT)
		appendf(ports, len, oo, "%sswitch %s port %u", oo ? ", " : "", f->subj.agent, f->subj.port);
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
		off = appendf(line, len, off, "  %.16s pid %u", x->comm, x->pid);
	if (gone)
		appendf(line, len, off, "  (gone from the table)");
}

/* A finding in full: times, peak, subject, evidence, next step (wrapped,
 * never cut), the flows, QPs, processes and ports involved; the flows are a
 * list to select, Enter going to the selected one's detail. */
static void draw_fdetail(struct tui *t, int y, int h)
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

/* Narrower than this, the findings view names each subject in its fewest
 * words ("10.0.0.1>10.0.0.2 qp 48", "rcv0 egress p3"), so the flow or
 * priority shows before the evidence; wider, with its keys. */
#define TUI_FINDINGS_WIDE 120

static void draw_findings(struct tui *t, int y, int h)
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


void tui_draw(struct tui *t)
{
	int y = 0, h;

	erase();
	if (LINES < 12 || COLS < 40) {
		tui_put(0, 0, "rocetop: the terminal is too small (40x12 at least)");
		refresh();
		return;
	}
	if (t->mode == M_HELP) {
		draw_help(t);
		refresh();
		return;
	}
	draw_header(t, &y);
	h = LINES - 2 - y;
	switch (t->view) {
	case V_FLOWS:
	case V_PAIRS: draw_flow_table(t, y, h); break;
	case V_PFC: draw_pfc(t, y, h); break;
	case V_PORTS: draw_ports(t, y, h); break;
	case V_SWPORTS: draw_swports(t, y, h); break;
	case V_FINDINGS: draw_findings(t, y, h); break;
	case V_JOBS: tui_draw_jobs(t, y, h); break;
	case V_PROBES: tui_draw_probes(t, y, h); break;
	case V_DETAIL: draw_detail(t, y, h); break;
	case V_FDETAIL: draw_fdetail(t, y, h); break;
	}
	draw_status(t);
	if (t->mode == M_SORTMENU)
		draw_sort_menu(t);
	refresh();		/* ncurses sends only what changed */
}
