// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ncurses live view, in htop's shape: column descriptors (tui_model.c), a
 * key -> action table whose actions say what to redraw, comparators that
 * cannot overflow, and one erase + draw + refresh per change so that ncurses
 * sends only the differences (never clear() per frame).
 */
#include <errno.h>
#include <locale.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include "fmt.h"
#include "log.h"
#include "nic.h"
#include "sink.h"
#include "tui_model.h"

enum view { V_FLOWS, V_PAIRS, V_PFC, V_PORTS, V_SWPORTS, V_DETAIL, V_NVIEWS };
static const char *const view_names[V_NVIEWS] = { "flows", "host pairs", "PFC", "NIC ports", "switch ports",
						  "detail" };

enum mode { M_NORMAL, M_FILTER, M_SEARCH, M_SORTMENU, M_HELP };

/* What an action asks for: nothing, a redraw, or new rows (sort, filter) first. */
enum redraw { RD_NONE = 0, RD_DRAW = 1, RD_ROWS = 3 };

enum { CP_RED = 1, CP_YELLOW, CP_BAR, CP_SORT, CP_GREEN, CP_MAGENTA };

#define MAXCOLS 32

struct tui {
	struct tui_data data;
	struct tui_row *rows;
	size_t nrows, rows_cap;
	int view, mode;
	enum tui_colid sort;
	int invert, totals, avgs, utf8, color;
	char filter[64], edit[64];
	size_t editlen;
	int sel, top;
	struct rt_flow_key sel_key;
	int have_sel_key;
	int menu_sel;
	/* where the last frame put things, for the mouse */
	int hdr_y, table_y, table_h;
	int ncols;
	enum tui_colid cols[MAXCOLS];
	int colx[MAXCOLS], colw[MAXCOLS];
	/* the loop's controls as last seen */
	struct rt_ctl seen;
	char msg[160];
	int have_snap;
	double file_interval;	/* capture time per snapshot of a file (-d) */
};

static int tui_active;

static void tui_atexit(void)
{
	if (tui_active && !isendwin())
		endwin();
}

/* ------------------------------------------------------------------ helpers */

static int view_is_table(int v)
{
	return v == V_FLOWS || v == V_PAIRS;
}

static const struct rt_delta *cur_delta(const struct tui *t)
{
	return t->totals ? &t->data.since : &t->data.iv;
}

static double cur_secs(const struct tui *t)
{
	return t->totals ? 0 : t->data.iv.secs;
}

static const char *num(double v, double secs, char *buf, size_t len)
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

/* Print at most to the right edge. */
static void put(int y, int x, const char *s)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, s, COLS - x);
}

static void put_attr(int y, int x, const char *s, attr_t a)
{
	attron(a);
	put(y, x, s);
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

static attr_t sev_attr(const struct tui *t, int sev)
{
	if (sev == 2)
		return cp(t, CP_RED, A_BOLD) | (t->color ? A_BOLD : 0);
	if (sev == 1)
		return cp(t, CP_YELLOW, 0);
	return 0;
}

/* ------------------------------------------------------------------ rows */

static void remember_sel(struct tui *t)
{
	if (t->sel >= 0 && (size_t)t->sel < t->nrows) {
		t->sel_key = t->rows[t->sel].f->k;
		t->have_sel_key = 1;
	}
}

static void rebuild_rows(struct tui *t)
{
	int n = 0;

	if (!t->have_snap) {
		t->nrows = 0;
		return;
	}
	if (t->view == V_PAIRS)
		n = tui_pair_rows(&t->data, t->totals, t->filter, &t->rows, &t->rows_cap);
	else
		n = tui_flow_rows(&t->data, t->totals, t->filter, &t->rows, &t->rows_cap);
	t->nrows = n > 0 ? (size_t)n : 0;
	tui_rows_sort(t->rows, t->nrows, t->sort, t->invert);
	if (t->have_sel_key) {		/* the selection follows its flow */
		for (size_t i = 0; i < t->nrows; i++) {
			const struct rt_flow_key *k = &t->rows[i].f->k;

			if (t->view == V_PAIRS ?
			    !memcmp(k->src, t->sel_key.src, 16) && !memcmp(k->dst, t->sel_key.dst, 16) :
			    !rt_flow_key_cmp(k, &t->sel_key)) {
				t->sel = (int)i;
				break;
			}
		}
	}
	if (t->sel >= (int)t->nrows)
		t->sel = (int)t->nrows - 1;
	if (t->sel < 0)
		t->sel = 0;
}

/* ------------------------------------------------------------------ header */

static void draw_header(struct tui *t, int *yp)
{
	const struct rt_snapshot *s = &t->data.snap;
	const struct rt_delta *D = cur_delta(t);
	const struct rt_flow_val *ft = &D->flow_tot;
	const struct rt_if_val *it = &D->if_tot;
	double secs = cur_secs(t);
	char line[512], a[32], b[32], c[32], e[32], g[32], h[32];
	int y = *yp, off;

	/* 1: time, source, interval, state */
	off = snprintf(line, sizeof(line), "rocetop %s  every %gs",
		       t->have_snap ? rt_fmt_clock(s->time_ns, a, sizeof(a)) : "--:--:--", t->seen.interval);
	if (t->seen.is_file && t->have_snap)
		off += snprintf(line + off, sizeof(line) - off, "  pos %.1fs x%g%s",
				(s->time_ns - t->data.first_time_ns) / 1e9, t->seen.speed,
				t->seen.at_end ? " [END]" : "");
	if (t->seen.paused)
		off += snprintf(line + off, sizeof(line) - off, "  [PAUSED]");
	if (t->totals)
		off += snprintf(line + off, sizeof(line) - off, "  [TOTALS]");
	/* the source last: a long path is what the width cuts */
	snprintf(line + off, sizeof(line) - off, "  view %s  %s", view_names[t->view],
		 t->have_snap ? s->source : "(waiting for the first snapshot)");
	put_attr(y++, 0, line, A_BOLD);

	/* 2: wire totals and rates */
	if (secs > 0)
		snprintf(line, sizeof(line),
			 "wire  RoCE %s pkt/s %.3f Gb/s  CE %.2f%% (%s/s)  CNP %s/s  NAK %s/s  RNR %s/s",
			 num(ft->pkts, secs, a, sizeof(a)), ft->bytes * 8 / 1e9 / secs,
			 rt_ce_pct(ft),
			 num(ft->ecn[RT_ECN_CE], secs, b, sizeof(b)), num(ft->cnp, secs, c, sizeof(c)),
			 num(rt_nak(ft), secs, e, sizeof(e)), num(ft->rnr_nak, secs, g, sizeof(g)));
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
				 num(et->pkts, secs, a, sizeof(a)), rt_ce_pct(et));
		else
			snprintf(line + n, sizeof(line) - n, "   sFlow ~%llu pkts CE ~%.2f%%",
				 (unsigned long long)et->pkts, rt_ce_pct(et));
	}
	put(y++, 0, line);

	/* 3: table and parser */
	snprintf(line, sizeof(line),
		 "flows %zu  evicted %s  frames %s%s  errors: trunc %s malformed %s full %s v6ext %s",
		 s->nflows, num(D->evicted, 0, a, sizeof(a)), num(it->pkts, secs, b, sizeof(b)),
		 secs > 0 ? "/s" : "",
		 num(it->truncated, 0, c, sizeof(c)), num(it->malformed, 0, e, sizeof(e)),
		 num(it->flow_full, 0, g, sizeof(g)), num(it->v6_unparsed, 0, h, sizeof(h)));
	put(y++, 0, line);

	/* 4: PFC per priority, with the paused share of time where the speed is known */
	off = snprintf(line, sizeof(line), "PFC  ");
	{
		struct tui_pfc_prio pf[RT_NPRIO];
		int any = 0;

		tui_pfc_prios(s, D, secs, rt_link_speed_mbps, pf);
		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			if (!pf[p].frames)
				continue;
			any = 1;
			off = appendf(line, sizeof(line), off, "p%s %s%s xon %s ",
				      rt_prio_name(p, a, sizeof(a)), num(pf[p].frames, secs, b, sizeof(b)),
				      secs > 0 ? "/s" : "", num(pf[p].xon, secs, c, sizeof(c)));
			if (pf[p].share < 0)
				off = appendf(line, sizeof(line), off, "paused ? (speed unknown)  ");
			else if (secs > 0)
				off = appendf(line, sizeof(line), off, "paused ~%.1f%%  ", pf[p].share);
			else
				off = appendf(line, sizeof(line), off, "paused ~%.3fs  ", pf[p].paused);
		}
		if (!any)
			appendf(line, sizeof(line), off, "no pause frames");
	}
	put(y++, 0, line);

	/* 5: the NIC's congestion counters, beside the wire's: summed over ports,
	 * the DCQCN ones first, then the others that moved */
	{
		struct tui_nic_sum ns[64];
		size_t n = tui_nic_sums(D, t->totals, ns, sizeof(ns) / sizeof(ns[0]));

		off = snprintf(line, sizeof(line), "nic   ");
		for (size_t i = 0; i < n; i++)
			off = appendf(line, sizeof(line), off, "%s %s%s  ", ns[i].name,
				      num(ns[i].v, secs, a, sizeof(a)), secs > 0 ? "/s" : "");
		if (n)
			put(y++, 0, line);
	}
	*yp = y;
}

/* ------------------------------------------------------------------ tables */

static void draw_flow_table(struct tui *t, int y, int h)
{
	const enum tui_colid *list = t->view == V_PAIRS ? tui_pair_cols : tui_flow_cols;
	size_t nlist = t->view == V_PAIRS ? tui_npair_cols : tui_nflow_cols;
	short minw[MAXCOLS], want[MAXCOLS];
	unsigned char prio[MAXCOLS];
	int has_proc = 0, x[MAXCOLS], w[MAXCOLS], n = 0;
	char cell[64], line[1024];
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].f->comm[0])
			has_proc = 1;
	for (i = 0; i < nlist && n < MAXCOLS; i++) {
		const struct tui_col *c = &tui_cols[list[i]];

		if ((c->flags & TUI_COL_AVG) && !t->avgs)
			continue;
		if ((c->flags & TUI_COL_PROC) && !has_proc)
			continue;
		t->cols[n] = list[i];
		minw[n] = c->width;
		want[n] = c->maxw;
		prio[n] = c->prio;
		/* address columns grow to the longest address shown */
		if (list[i] == C_SRC || list[i] == C_DST || list[i] == C_IFACE || list[i] == C_PROC) {
			short m = c->width;

			for (size_t r = 0; r < t->nrows; r++) {
				tui_row_cell(&t->rows[r], list[i], cell, sizeof(cell));
				if ((short)strlen(cell) > m)
					m = (short)strlen(cell);
			}
			want[n] = m < c->maxw ? m : c->maxw;
		}
		n++;
	}
	tui_layout(minw, want, prio, n, COLS, x, w);
	t->ncols = n;
	memcpy(t->colx, x, sizeof(x[0]) * n);
	memcpy(t->colw, w, sizeof(w[0]) * n);

	/* the column titles: one bar, the sort column marked */
	t->hdr_y = y;
	memset(line, ' ', COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1);
	line[COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1] = '\0';
	attron(cp(t, CP_BAR, A_REVERSE));
	put(y, 0, line);
	for (int j = 0; j < n; j++) {
		const struct tui_col *c = &tui_cols[t->cols[j]];
		const char *title = t->totals ? c->ttitle : c->title;

		if (!w[j])
			continue;
		snprintf(cell, sizeof(cell), c->flags & TUI_COL_LEFT ? "%-*.*s" : "%*.*s", w[j], w[j], title);
		if (t->cols[j] == t->sort) {
			attron(cp(t, CP_SORT, A_BOLD));
			put(y, x[j], cell);
			attroff(cp(t, CP_SORT, A_BOLD));
			attron(cp(t, CP_BAR, A_REVERSE));
		} else {
			put(y, x[j], cell);
		}
	}
	attroff(cp(t, CP_BAR, A_REVERSE));
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
		put(y, 1, !t->have_snap ? "waiting for the first snapshot..." :
			  t->filter[0] ? "no flow matches the filter (Esc in / clears it)" :
			  "no RoCEv2 flows seen yet");
		return;
	}
	for (int r = 0; r < h && (size_t)(t->top + r) < t->nrows; r++) {
		const struct tui_row *row = &t->rows[t->top + r];
		attr_t a = sev_attr(t, severity(&row->d));
		int off = 0;

		if (t->top + r == t->sel)
			a |= A_REVERSE;
		for (int j = 0; j < n && off < (int)sizeof(line) - 1; j++) {
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
		put_attr(y + r, 0, line, a);
	}
}

static void draw_pfc(struct tui *t, int y, int h)
{
	const struct rt_delta *D = cur_delta(t);
	const struct rt_delta *S = &t->data.since;
	double secs = cur_secs(t);
	char line[512], a[16], b[16], c[16], e[16];
	int r = 0, shown = 0;

	snprintf(line, sizeof(line), "%-12s %-4s %-4s %9s %9s %11s %9s %12s", "IFACE", "DIR", "PRIO",
		 secs > 0 ? "FRAMES/s" : "FRAMES", secs > 0 ? "XON/s" : "XON",
		 secs > 0 ? "QUANTA/s" : "QUANTA", secs > 0 ? "PAUSED%" : "PAUSED s", "TOTAL FRAMES");
	put_attr(y++, 0, line, cp(t, CP_BAR, A_REVERSE));
	h--;
	t->table_y = y;
	t->table_h = h;
	for (size_t i = 0; i < D->nifs; i++) {
		const struct rt_if_val *v = &D->ifs[i].d;
		const struct rt_if_val *tot = i < S->nifs ? &S->ifs[i].d : v;
		const char *ifn = rt_snapshot_ifname(&t->data.snap, D->ifs[i].s->k.ifindex);
		__u64 sp = rt_link_speed_mbps(ifn);

		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			double ps;

			if (!tot->pfc_frames[p])
				continue;
			if (shown++ < t->top || r >= h)
				continue;
			ps = rt_pause_seconds(v->pfc_quanta[p], sp);
			if (!sp)
				snprintf(e, sizeof(e), "?");
			else if (secs > 0)
				snprintf(e, sizeof(e), "%.1f", rt_share_pct(ps, secs));
			else
				snprintf(e, sizeof(e), "%.4f", ps);
			snprintf(line, sizeof(line), "%-12s %-4s %-4s %9s %9s %11s %9s %12llu", ifn,
				 D->ifs[i].s->k.dir == RT_DIR_EGRESS ? "out" : "in",
				 rt_prio_name(p, a, sizeof(a)), num(v->pfc_frames[p], secs, b, sizeof(b)),
				 num(v->pfc_xon[p], secs, c, sizeof(c)),
				 num(v->pfc_quanta[p], secs, line + 400, 16), e,
				 (unsigned long long)tot->pfc_frames[p]);
			put_attr(y + r++, 0, line, v->pfc_frames[p] ? sev_attr(t, 1) : 0);
		}
	}
	if (!shown)
		put(y, 1, "no pause frames seen (on hardware RoCE NICs see view 4: the NIC's counters)");
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
	put_attr(y++, 0, line, cp(t, CP_BAR, A_REVERSE));
	h--;
	t->table_y = y;
	t->table_h = h;
	if (!D->nports) {
		put(y, 1, "no NIC counters (no RDMA device, --no-nic, or a file without them)");
		return;
	}
	/* The congestion counters first, each group in the snapshot's order. */
	size_t ncong = 0;

	for (size_t i = 0; i < D->nports; i++)
		ncong += D->ports[i].c->congestion != 0;
	for (size_t row = (size_t)t->top; row < D->nports && r < h; row++) {
		size_t i = port_at(D, row, ncong);
		const struct rt_port_ctr *c = D->ports[i].c;
		char name[72];

		snprintf(name, sizeof(name), "%s%s", c->congestion ? "*" : " ", c->name);
		snprintf(line, sizeof(line), "%-8.8s %2u %-8.8s %-7s %-*.*s %13llu %9s",
			 c->dev[0] ? c->dev : "-", c->port, c->netdev[0] ? c->netdev : "-",
			 rt_scope_names(c->scope)->label, cw, cw, name, (unsigned long long)c->value,
			 secs > 0 ? rt_fmt_si(D->ports[i].d / secs, a, sizeof(a)) : "-");
		put_attr(y + r++, 0, line, c->congestion && D->ports[i].d ? sev_attr(t, 1) : 0);
	}
}

/* Switch ports, worst first: the deepest queue, then CE %, then drops. */
static const struct rt_delta *swsort_d;

static double sw_ce(const struct rt_swport_delta *x)
{
	return rt_pct((double)x->d.est_ce, (double)x->d.est_pkts);
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
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static void draw_swports(struct tui *t, int y, int h)
{
	const struct rt_delta *D = &t->data.iv;
	double secs = D->secs;
	char line[512], a[16], cn[16], qi[16], mq[16], aq[16], md[16];
	size_t *order, n = D->nswports;
	int r = 0;

	snprintf(line, sizeof(line), "%-24s %-4s %7s %8s %7s %6s %6s %9s %9s %9s %6s %5s", "SWITCH PORT (sFlow)",
		 "DIR", "SAMPLES", "~PKT/s", "~Gb/s", "~CE%", "~CNP/s", "MAXQ B", "MEANQ B", "MAXDLY us", "DROPS",
		 "QUEUE");
	put_attr(y++, 0, line, cp(t, CP_BAR, A_REVERSE));
	h--;
	t->table_y = y;
	t->table_h = h;
	if (!n) {
		put(y, 1, "no switch ports: collect sFlow with --sflow PORT (rocetop lab --sflow shows one)");
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
		snprintf(line, sizeof(line), "%-24.24s %-4s %7llu %8s %7.3f %6.2f %6s %9s %9s %9s %6llu %5s",
			 x->p->name, x->p->dir == RT_DIR_EGRESS ? "out" : "in", (unsigned long long)v->samples,
			 secs > 0 ? rt_fmt_si(v->est_pkts / secs, a, sizeof(a)) : "-",
			 secs > 0 ? v->est_bytes * 8 / 1e9 / secs : 0.0, sw_ce(x),
			 secs > 0 ? rt_fmt_si(v->est_cnp / secs, cn, sizeof(cn)) : "-", mq, aq, md,
			 (unsigned long long)v->drops, qi);
		put_attr(y + r++, 0, line, v->drops || sw_ce(x) >= 10 ? sev_attr(t, 2) : v->est_ce ? sev_attr(t, 1) : 0);
	}
	free(order);
	for (size_t i = 0; i < D->nsfagents && r < h; i++) {
		const struct rt_sfagent *ag = &D->sfagents[i].d;

		snprintf(line, sizeof(line), "agent %s: %llu datagrams, %llu lost, %llu with errors, %llu rejected",
			 D->sfagents[i].a->agent, (unsigned long long)ag->datagrams, (unsigned long long)ag->lost,
			 (unsigned long long)ag->errors, (unsigned long long)ag->rejected);
		put_attr(y + r++, 0, line, ag->lost || ag->errors ? sev_attr(t, 1) : 0);
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

	snprintf(line, len, "%-15s > %-15s 0x%06x %-3s %-8s pkts %s CNP %s NAK %s %s",
		 rt_fmt_addr(f->k.family, f->k.src, s1, sizeof(s1)),
		 rt_fmt_addr(f->k.family, f->k.dst, s2, sizeof(s2)), f->k.dqpn,
		 f->k.dir == RT_DIR_EGRESS ? "out" : "in", rt_snapshot_ifname(&t->data.snap, f->k.ifindex),
		 num(d->pkts, secs, a, sizeof(a)), num(d->cnp, secs, b, sizeof(b)),
		 num(rt_nak(d), secs, c, sizeof(c)), secs > 0 ? "(/s)" : "(since start)");
}

static void draw_detail(struct tui *t, int y, int h)
{
	const struct rt_delta *D = cur_delta(t);
	double secs = cur_secs(t);
	const struct rt_flow *f;
	const struct tui_hist *hist;
	char line[512], s1[RT_ADDR_STRLEN], s2[RT_ADDR_STRLEN], a[16];
	int idx = -1, ymax = y + h;
	double v[TUI_HIST];
	int nspark;

	t->table_y = y;
	t->table_h = 0;
	f = t->have_sel_key ? find_flow(t, &t->sel_key, &idx) : NULL;
	if (!f) {
		put(y, 1, "the selected flow is gone (Esc: back to the flows)");
		return;
	}
	hist = (size_t)idx < t->data.hists.n ? &t->data.hists.h[idx] : NULL;

	snprintf(line, sizeof(line), "flow %s > %s  QP 0x%06x  %s on %s   (Esc/d: back)",
		 rt_fmt_addr(f->k.family, f->k.src, s1, sizeof(s1)),
		 rt_fmt_addr(f->k.family, f->k.dst, s2, sizeof(s2)), f->k.dqpn, rt_dir_name(f->k.dir),
		 rt_snapshot_ifname(&t->data.snap, f->k.ifindex));
	put_attr(y++, 0, line, A_BOLD);
	{
		char prio[8];

		if (f->v.pcp == RT_PCP_NONE)
			snprintf(prio, sizeof(prio), "-");
		else
			snprintf(prio, sizeof(prio), "%u", f->v.pcp);
		snprintf(line, sizeof(line),
			 "DSCP %u  PCP %s  UDP sport %u  last opcode 0x%02x  first seen %.1fs ago  last %.1fs ago",
			 f->v.dscp, prio, f->v.sport, f->v.opcode,
			 t->data.snap.mono_ns > f->v.first_ns ? (t->data.snap.mono_ns - f->v.first_ns) / 1e9 : 0.0,
			 t->data.snap.mono_ns > f->v.last_ns ? (t->data.snap.mono_ns - f->v.last_ns) / 1e9 : 0.0);
		put(y++, 0, line);
	}
	if (f->estimate) {
		snprintf(line, sizeof(line),
			 "~ estimates from %llu sFlow samples: each stands for its sampling rate in packets",
			 (unsigned long long)f->samples);
		put_attr(y++, 0, line, A_BOLD);
	}
	if (f->comm[0] || f->lqpn || f->rqpn) {
		snprintf(line, sizeof(line), "owner %s pid %u  local QP 0x%06x  remote QP 0x%06x",
			 f->comm[0] ? f->comm : "-", f->pid, f->lqpn, f->rqpn);
		put(y++, 0, line);
	}
	{	/* the counters now, averaged, and since the start (tui_model.c) */
		static const char *const names[TUI_DM_N] = { "pkts/s", "Gb/s", "CE %", "CNPs/s", "NAKs/s" };
		const struct rt_flow_val *tot = &t->data.since.flows[idx].d;
		struct tui_detail dt;

		tui_detail_rates(&t->data, (size_t)idx, &dt);
		snprintf(line, sizeof(line), "%-8s %10s %10s %10s %10s %12s", "", "now", "2s", "10s", "40s",
			 "since start");
		put_attr(y++, 0, line, A_UNDERLINE);
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
			put(y++, 0, line);
		}
		snprintf(line, sizeof(line), "RNR NAKs %llu  ACKs %llu  ECT0 %llu  ECT1 %llu  not-ECT %llu (since start)",
			 (unsigned long long)tot->rnr_nak, (unsigned long long)tot->ack,
			 (unsigned long long)tot->ecn[RT_ECN_ECT0], (unsigned long long)tot->ecn[RT_ECN_ECT1],
			 (unsigned long long)tot->ecn[RT_ECN_NOT_ECT]);
		if (y < ymax)
			put(y++, 0, line);
	}
	/* sparklines, oldest on the left */
	nspark = COLS - 24;
	if (nspark > TUI_HIST)
		nspark = TUI_HIST;
	if (nspark < 0)
		nspark = 0;
	for (int m = 0; m < 2 && y < ymax; m++) {
		char spark[TUI_HIST * 4 + 1];
		double max;
		int n = tui_detail_series(hist, m, nspark, v, &max);

		tui_sparkline(v, n, t->utf8, spark, sizeof(spark));
		snprintf(line, sizeof(line), "%-7s max %6s ", m == 0 ? "CE %" : "CNPs/s",
			 m == 0 ? (snprintf(a, sizeof(a), "%.1f", max), a) : rt_fmt_si(max, a, sizeof(a)));
		put(y, 0, line);
		attron(sev_attr(t, m == 0 && max >= 10 ? 2 : max > 0 ? 1 : 0));
		put(y++, (int)strlen(line), spark);
		attroff(sev_attr(t, m == 0 && max >= 10 ? 2 : max > 0 ? 1 : 0));
	}
	/* sFlow: the switch ports where this queue pair was sampled, and their queues */
	{
		int shown = 0;

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
				put_attr(y++, 0, "sampled by sFlow at switch ports (estimates)", A_UNDERLINE);
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
			put(y++, 2, line);
		}
	}
	/* the reverse direction: the CNPs (and ACK/NAKs) that answer this flow */
	if (y < ymax)
		put_attr(y++, 0, "reverse flows (destination > source on the same interface: their CNPs throttle this one)",
			 A_UNDERLINE);
	{
		int shown = 0;

		for (size_t i = 0; i < t->data.snap.nflows && y < ymax; i++) {
			const struct rt_flow *r = &t->data.snap.flows[i];

			if (r->k.ifindex != f->k.ifindex || r->k.family != f->k.family ||
			    memcmp(r->k.src, f->k.dst, 16) || memcmp(r->k.dst, f->k.src, 16))
				continue;
			flow_line(t, r, &D->flows[i].d, secs, line, sizeof(line));
			if (r->throttles == idx) {
				size_t off = strlen(line);

				snprintf(line + off, sizeof(line) - off, "  throttles this flow (%s)",
					 rt_attr_names(r->attr)->label);
			}
			put_attr(y++, 2, line, sev_attr(t, severity(&D->flows[i].d)));
			shown++;
		}
		/* CNP flows the attribution tied to this one elsewhere */
		for (size_t i = 0; i < t->data.snap.nflows && y < ymax; i++) {
			const struct rt_flow *r = &t->data.snap.flows[i];

			if (r->throttles != idx || (r->k.ifindex == f->k.ifindex &&
						    !memcmp(r->k.src, f->k.dst, 16) && !memcmp(r->k.dst, f->k.src, 16)))
				continue;
			flow_line(t, r, &D->flows[i].d, secs, line, sizeof(line));
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "  throttles this flow (%s)",
				 rt_attr_names(r->attr)->label);
			put(y++, 2, line);
			shown++;
		}
		if (f->throttles >= 0 && (size_t)f->throttles < t->data.snap.nflows && y < ymax) {
			const struct rt_flow *r = &t->data.snap.flows[f->throttles];

			put(y++, 0, "this CNP flow throttles:");
			if (y < ymax) {
				flow_line(t, r, &D->flows[f->throttles].d, secs, line, sizeof(line));
				put(y++, 2, line);
			}
			shown++;
		}
		if (!shown && y < ymax)
			put(y++, 2, "none seen");
	}
}

/* ------------------------------------------------------------------ overlays */

struct action {
	int key;
	int (*fn)(struct tui *t, struct rt_ctl *ctl, int key);
	const char *keys;	/* for the help screen; NULL: an alias, not listed again */
	const char *help;
};
static const struct action actions[];

static void draw_help(struct tui *t)
{
	int y = 1;

	erase();
	put_attr(0, 0, "rocetop keys (any key returns)", A_BOLD);
	for (const struct action *a = actions; a->key && y < LINES - 1; a++) {
		char line[160];

		if (!a->keys)
			continue;
		snprintf(line, sizeof(line), "  %-16s %s", a->keys, a->help);
		put(y++, 0, line);
	}
	if (y < LINES - 1)
		put(y++, 0, "  mouse            click a column title to sort by it (again: invert), a row to select");
	if (y < LINES - 1)
		put(y++, 0, "  wire: counted by rocetop's BPF programs on the wire; nic: the RDMA NIC's counters");
	(void)t;
}

static int sort_candidates(const struct tui *t, enum tui_colid *out)
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
	int n = sort_candidates(t, c), y0 = t->hdr_y > 0 ? t->hdr_y : 1;

	put_attr(y0, 0, " Sort by        ", cp(t, CP_BAR, A_REVERSE));
	for (int i = 0; i < n && y0 + 1 + i < LINES - 1; i++) {
		char line[20];

		snprintf(line, sizeof(line), " %-14s ", tui_cols[c[i]].name);
		put_attr(y0 + 1 + i, 0, line, i == t->menu_sel ? A_REVERSE :
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
		put_attr(LINES - 2, 0, line, A_BOLD);
	} else {
		int off = 0;

		line[0] = '\0';
		if (t->filter[0])
			off += snprintf(line + off, sizeof(line) - off, "[filter: %s] ", t->filter);
		if (view_is_table(t->view))
			off += snprintf(line + off, sizeof(line) - off, "sort %s %s  rows %zu  ",
					tui_cols[t->sort].name, t->invert ? "inverted" : "", t->nrows);
		if (t->msg[0])
			off += snprintf(line + off, sizeof(line) - off, "%s  ", t->msg);
		for (size_t i = 0; i < t->data.snap.nnotes && off < (int)sizeof(line) - 1; i++)
			off += snprintf(line + off, sizeof(line) - off, "note: %s  ", t->data.snap.notes[i]);
		if (last && off < (int)sizeof(line) - 1)
			snprintf(line + off, sizeof(line) - off, "log: %s", last);
		put(LINES - 2, 0, line);
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
			put_attr(LINES - 1, x, fk[i][0], A_BOLD);
			x += (int)strlen(fk[i][0]);
			snprintf(line, sizeof(line), "%-7s", fk[i][1]);
			put_attr(LINES - 1, x, line, cp(t, CP_BAR, A_REVERSE));
			x += (int)strlen(line);
		}
	}
}

static void draw(struct tui *t)
{
	int y = 0, h;

	erase();
	if (LINES < 12 || COLS < 40) {
		put(0, 0, "rocetop: the terminal is too small (40x12 at least)");
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
	case V_DETAIL: draw_detail(t, y, h); break;
	}
	draw_status(t);
	if (t->mode == M_SORTMENU)
		draw_sort_menu(t);
	refresh();		/* ncurses sends only what changed */
}

/* ------------------------------------------------------------------ actions */

static int act_quit(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)t; (void)key;
	ctl->quit = 1;
	return RD_NONE;
}

static int act_pause(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)key;
	ctl->paused = !ctl->paused;
	t->seen.paused = ctl->paused;
	return RD_DRAW;
}

static int act_interval(struct tui *t, struct rt_ctl *ctl, int key)
{
	ctl->interval = tui_interval_step(ctl->interval, key == '+' || key == '=');
	t->seen.interval = ctl->interval;
	snprintf(t->msg, sizeof(t->msg), "interval %gs", ctl->interval);
	return RD_DRAW;
}

static int act_help(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	t->mode = M_HELP;
	return RD_DRAW;
}

static int act_filter(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl;
	t->mode = key == KEY_F(3) ? M_SEARCH : M_FILTER;
	snprintf(t->edit, sizeof(t->edit), "%s", t->mode == M_FILTER ? t->filter : "");
	t->editlen = strlen(t->edit);
	return RD_DRAW;
}

static int set_view(struct tui *t, int v)
{
	remember_sel(t);
	t->view = v;
	t->top = 0;
	t->msg[0] = '\0';
	return RD_ROWS;
}

static int act_view(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl;
	if (key >= '1' && key <= '5')
		return set_view(t, key - '1');
	/* Tab, F5: the next of the five views */
	return set_view(t, t->view >= V_SWPORTS ? V_FLOWS : t->view + 1);
}

static int act_detail(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	if (t->view == V_DETAIL)
		return set_view(t, V_FLOWS);
	if (t->view != V_FLOWS || !t->nrows)
		return RD_NONE;
	remember_sel(t);
	t->view = V_DETAIL;
	return RD_DRAW;
}

static int act_escape(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	if (t->view == V_DETAIL)
		return set_view(t, V_FLOWS);
	if (t->msg[0]) {
		t->msg[0] = '\0';
		return RD_DRAW;
	}
	return RD_NONE;
}

static int act_sort_menu(struct tui *t, struct rt_ctl *ctl, int key)
{
	enum tui_colid c[C_NCOLS + 1];
	int n;

	(void)ctl; (void)key;
	if (!view_is_table(t->view))
		set_view(t, V_FLOWS);
	n = sort_candidates(t, c);
	t->menu_sel = 0;
	for (int i = 0; i < n; i++)
		if (c[i] == t->sort)
			t->menu_sel = i;
	t->mode = M_SORTMENU;
	return RD_ROWS;
}

/* < and >: the sort moves to the previous or next visible column. */
static int act_sort_move(struct tui *t, struct rt_ctl *ctl, int key)
{
	int i, cur = -1, n = 0;
	int vis[MAXCOLS];

	(void)ctl;
	if (!view_is_table(t->view))
		return RD_NONE;
	for (i = 0; i < t->ncols; i++)
		if (t->colw[i])
			vis[n++] = i;
	if (!n)
		return RD_NONE;
	for (i = 0; i < n; i++)
		if (t->cols[vis[i]] == t->sort)
			cur = i;
	if (cur < 0)
		cur = key == '<' || key == ',' ? n : -1;
	cur += key == '<' || key == ',' ? -1 : 1;
	if (cur < 0)
		cur = 0;
	if (cur >= n)
		cur = n - 1;
	t->sort = t->cols[vis[cur]];
	t->invert = 0;
	return RD_ROWS;
}

static int act_invert(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	t->invert = !t->invert;
	return RD_ROWS;
}

static int act_toggle(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl;
	if (key == 'a')
		t->avgs = !t->avgs;
	else
		t->totals = !t->totals;
	return RD_ROWS;
}

static int act_move(struct tui *t, struct rt_ctl *ctl, int key)
{
	int page = t->table_h > 1 ? t->table_h : 1;
	int n = view_is_table(t->view) ? (int)t->nrows : 1 << 20;

	(void)ctl;
	if (view_is_table(t->view)) {
		switch (key) {
		case KEY_UP: t->sel--; break;
		case KEY_DOWN: t->sel++; break;
		case KEY_PPAGE: t->sel -= page; break;
		case KEY_NPAGE: t->sel += page; break;
		case KEY_HOME: t->sel = 0; break;
		case KEY_END: t->sel = n - 1; break;
		}
		if (t->sel >= n)
			t->sel = n - 1;
		if (t->sel < 0)
			t->sel = 0;
		remember_sel(t);
	} else {	/* the other views scroll */
		switch (key) {
		case KEY_UP: t->top--; break;
		case KEY_DOWN: t->top++; break;
		case KEY_PPAGE: t->top -= page; break;
		case KEY_NPAGE: t->top += page; break;
		case KEY_HOME: t->top = 0; break;
		case KEY_END: t->top += 1000; break;
		}
		if (t->top < 0)
			t->top = 0;
		if (t->view == V_PORTS && t->top >= (int)t->data.iv.nports)
			t->top = t->data.iv.nports ? (int)t->data.iv.nports - 1 : 0;
		if (t->view == V_SWPORTS && t->top >= (int)t->data.iv.nswports)
			t->top = t->data.iv.nswports ? (int)t->data.iv.nswports - 1 : 0;
	}
	return RD_DRAW;
}

static double position(const struct tui *t)
{
	return (t->data.snap.time_ns - t->data.first_time_ns) / 1e9;
}

static int need_file(struct tui *t, struct rt_ctl *ctl)
{
	if (ctl->is_file)
		return 1;
	snprintf(t->msg, sizeof(t->msg), "seeking and speed work on files (-r)");
	return 0;
}

static int act_step(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)key;
	if (!ctl->paused) {
		snprintf(t->msg, sizeof(t->msg), "step works while paused (space)");
		return RD_DRAW;
	}
	ctl->step++;
	return RD_NONE;
}

static int act_seek(struct tui *t, struct rt_ctl *ctl, int key)
{
	double to;

	if (!need_file(t, ctl))
		return RD_DRAW;
	if (key == 'g')
		to = 0;
	else
		/* presses before the loop got to the last one add up */
		to = (ctl->seek_to > 0 ? ctl->seek_to : position(t)) +
		     (key == ']' ? 10 : -10) * t->file_interval;
	/* seek_to > 0 asks the loop to rewind; the start is the smallest such time */
	ctl->seek_to = to > 1e-6 ? to : 1e-6;
	snprintf(t->msg, sizeof(t->msg), "seek to %.1fs", to > 0 ? to : 0);
	return RD_DRAW;
}

static int act_speed(struct tui *t, struct rt_ctl *ctl, int key)
{
	if (!need_file(t, ctl))
		return RD_DRAW;
	ctl->speed *= key == '}' ? 2 : 0.5;
	if (ctl->speed < 1.0 / 64)
		ctl->speed = 1.0 / 64;
	if (ctl->speed > 1024)
		ctl->speed = 1024;
	t->seen.speed = ctl->speed;
	return RD_DRAW;
}

static int act_redraw(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)t; (void)ctl;
	if (key == 12)		/* Ctrl-L: repaint everything, as every curses program */
		clearok(curscr, TRUE);
	return RD_DRAW;
}

static const struct action actions[] = {
	{ 'q', act_quit, "q F10", "quit" },
	{ KEY_F(10), act_quit, NULL, NULL },
	{ ' ', act_pause, "space", "pause / resume taking snapshots" },
	{ '+', act_interval, "+ -", "longer / shorter interval" },
	{ '=', act_interval, NULL, NULL },
	{ '-', act_interval, NULL, NULL },
	{ 'h', act_help, "h ? F1", "this help" },
	{ '?', act_help, NULL, NULL },
	{ KEY_F(1), act_help, NULL, NULL },
	{ '/', act_filter, "/ F4", "filter on address, interface, process or QP (Enter applies, Esc clears)" },
	{ KEY_F(4), act_filter, NULL, NULL },
	{ KEY_F(3), act_filter, "F3", "search: select the next row that matches" },
	{ '1', act_view, "1 2 3 4 5", "views: flows, host pairs, PFC, NIC ports, switch ports (sFlow)" },
	{ '2', act_view, NULL, NULL },
	{ '3', act_view, NULL, NULL },
	{ '4', act_view, NULL, NULL },
	{ '5', act_view, NULL, NULL },
	{ '\t', act_view, "Tab F5", "next view" },
	{ KEY_F(5), act_view, NULL, NULL },
	{ '\n', act_detail, "Enter d", "detail of the selected flow: history, reverse flows" },
	{ '\r', act_detail, NULL, NULL },
	{ KEY_ENTER, act_detail, NULL, NULL },
	{ 'd', act_detail, NULL, NULL },
	{ 27, act_escape, "Esc", "back from the detail" },
	{ KEY_F(6), act_sort_menu, "F6", "sort menu" },
	{ '<', act_sort_move, "< >", "sort by the column to the left / right" },
	{ '>', act_sort_move, NULL, NULL },
	{ ',', act_sort_move, NULL, NULL },
	{ 'I', act_invert, "I", "invert the sort order" },
	{ 'a', act_toggle, "a", "2 s / 10 s / 40 s averages beside the instant rates" },
	{ 't', act_toggle, "t", "totals since the start instead of rates" },
	{ KEY_UP, act_move, "arrows PgUp PgDn", "move; Home / End: first / last" },
	{ KEY_DOWN, act_move, NULL, NULL },
	{ KEY_PPAGE, act_move, NULL, NULL },
	{ KEY_NPAGE, act_move, NULL, NULL },
	{ KEY_HOME, act_move, NULL, NULL },
	{ KEY_END, act_move, NULL, NULL },
	{ '.', act_step, ". s", "while paused: one more snapshot" },
	{ 's', act_step, NULL, NULL },
	{ '[', act_seek, "[ ] g", "files: back / forward 10 intervals, to the start" },
	{ ']', act_seek, NULL, NULL },
	{ 'g', act_seek, NULL, NULL },
	{ '{', act_speed, "{ }", "files: half / double replay speed" },
	{ '}', act_speed, NULL, NULL },
	{ 12, act_redraw, "Ctrl-L", "repaint the screen" },
	{ KEY_RESIZE, act_redraw, NULL, NULL },
	{ 0, NULL, NULL, NULL },
};

/* ------------------------------------------------------------------ input */

static int edit_key(struct tui *t, int key)
{
	if (key == 27) {		/* Esc: filter cleared, search cancelled */
		if (t->mode == M_FILTER)
			t->filter[0] = '\0';
		t->mode = M_NORMAL;
		return RD_ROWS;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (t->mode == M_FILTER) {
			snprintf(t->filter, sizeof(t->filter), "%s", t->edit);
			t->sel = 0;
			t->have_sel_key = 0;
		} else if (t->nrows && t->edit[0]) {
			for (size_t i = 1; i <= t->nrows; i++) {
				size_t j = ((size_t)t->sel + i) % t->nrows;

				if (tui_flow_match(&t->data.snap, t->rows[j].f, t->edit)) {
					t->sel = (int)j;
					remember_sel(t);
					break;
				}
			}
		}
		t->mode = M_NORMAL;
		return RD_ROWS;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (t->editlen)
			t->edit[--t->editlen] = '\0';
		return RD_DRAW;
	}
	if (key == KEY_RESIZE)
		return RD_DRAW;
	if (key >= 32 && key < 127 && t->editlen < sizeof(t->edit) - 1) {
		t->edit[t->editlen++] = (char)key;
		t->edit[t->editlen] = '\0';
	}
	return RD_DRAW;
}

static int menu_key(struct tui *t, int key)
{
	enum tui_colid c[C_NCOLS + 1];
	int n = sort_candidates(t, c);

	switch (key) {
	case KEY_UP: if (t->menu_sel > 0) t->menu_sel--; return RD_DRAW;
	case KEY_DOWN: if (t->menu_sel < n - 1) t->menu_sel++; return RD_DRAW;
	case KEY_HOME: t->menu_sel = 0; return RD_DRAW;
	case KEY_END: t->menu_sel = n - 1; return RD_DRAW;
	case '\n': case '\r': case KEY_ENTER:
		t->sort = c[t->menu_sel];
		t->invert = 0;
		t->mode = M_NORMAL;
		return RD_ROWS;
	case 27: case 'q': case KEY_F(6): case KEY_F(10):
		t->mode = M_NORMAL;
		return RD_DRAW;
	default:
		return key == KEY_RESIZE ? RD_DRAW : RD_NONE;
	}
}

static int mouse_key(struct tui *t)
{
	MEVENT ev;

	if (getmouse(&ev) != OK || t->mode != M_NORMAL)
		return RD_NONE;
#ifdef BUTTON5_PRESSED
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		int step = ev.bstate & BUTTON4_PRESSED ? -3 : 3;

		if (view_is_table(t->view)) {
			t->sel += step;
			if (t->sel >= (int)t->nrows)
				t->sel = (int)t->nrows - 1;
			if (t->sel < 0)
				t->sel = 0;
			remember_sel(t);
		}
		return RD_DRAW;
	}
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) || !view_is_table(t->view))
		return RD_NONE;
	if (ev.y == t->hdr_y) {		/* a column title: sort by it, again: invert */
		for (int i = 0; i < t->ncols; i++) {
			if (!t->colw[i] || ev.x < t->colx[i] || ev.x >= t->colx[i] + t->colw[i] + 1)
				continue;
			if (t->sort == t->cols[i]) {
				t->invert = !t->invert;
			} else {
				t->sort = t->cols[i];
				t->invert = 0;
			}
			return RD_ROWS;
		}
		return RD_NONE;
	}
	if (ev.y >= t->table_y && ev.y < t->table_y + t->table_h &&
	    t->top + ev.y - t->table_y < (int)t->nrows) {
		t->sel = t->top + ev.y - t->table_y;
		remember_sel(t);
		return RD_DRAW;
	}
	return RD_NONE;
}

static int dispatch(struct tui *t, struct rt_ctl *ctl, int key)
{
	switch (t->mode) {
	case M_FILTER:
	case M_SEARCH:
		return edit_key(t, key);
	case M_SORTMENU:
		return menu_key(t, key);
	case M_HELP:
		if (key != KEY_RESIZE && key != KEY_MOUSE)
			t->mode = M_NORMAL;
		return RD_DRAW;
	default:
		break;
	}
	if (key == KEY_MOUSE)
		return mouse_key(t);
	for (const struct action *a = actions; a->key; a++)
		if (a->key == key)
			return a->fn(t, ctl, key);
	return RD_NONE;
}

/* Read every pending key; returns how many were read. */
static int drain_keys(struct tui *t, struct rt_ctl *ctl)
{
	int key, n = 0, rd = RD_NONE;

	while (!ctl->quit && (key = getch()) != ERR) {
		int r = dispatch(t, ctl, key);

		n++;
		/* new rows at once: the next key (Home, Enter) acts on them */
		if ((r & RD_ROWS) == RD_ROWS)
			rebuild_rows(t);
		rd |= r;
	}
	if (ctl->quit)
		return n;
	if (rd)
		draw(t);
	return n;
}

static void mirror_ctl(struct tui *t, const struct rt_ctl *ctl, int *changed)
{
	if (t->seen.paused != ctl->paused || t->seen.interval != ctl->interval ||
	    t->seen.speed != ctl->speed || t->seen.is_file != ctl->is_file ||
	    t->seen.at_end != ctl->at_end)
		*changed = 1;
	t->seen = *ctl;
}

static int tui_on_input(struct rt_sink *s, struct rt_ctl *ctl)
{
	struct tui *t = s->priv;
	int changed = 0;

	mirror_ctl(t, ctl, &changed);
	if (!drain_keys(t, ctl)) {
		/* readable but no key: the terminal went away */
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
			ctl->quit = 1;
	}
	return 0;
}

/* Also catches KEY_RESIZE: SIGWINCH interrupts the loop's poll without input. */
static void tui_on_idle(struct rt_sink *s, struct rt_ctl *ctl)
{
	struct tui *t = s->priv;
	int changed = 0;

	mirror_ctl(t, ctl, &changed);
	drain_keys(t, ctl);
	if (changed)
		draw(t);
}

static int tui_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct tui *t = s->priv;

	if (tui_data_take(&t->data, cur, d))
		return -ENOMEM;
	t->have_snap = 1;
	rebuild_rows(t);
	draw(t);
	return 0;
}

static void tui_close(struct rt_sink *s)
{
	struct tui *t = s->priv;
	const char *last;

	if (tui_active && !isendwin())
		endwin();
	tui_active = 0;
	rt_log_hold(0);
	last = rt_log_last();
	if (last)	/* what rocetop said last while the screen was ours */
		fprintf(stderr, "rocetop: %s\n", last);
	tui_data_free(&t->data);
	free(t->rows);
	free(t);
	free(s);
}

struct rt_sink *rt_tui_sink_new(const struct rt_opts *o)
{
	struct rt_sink *s = calloc(1, sizeof(*s));
	struct tui *t = calloc(1, sizeof(*t));
	static int registered;
	const char *nc = getenv("NO_COLOR");

	if (!s || !t) {
		free(s);
		free(t);
		pr_warn("out of memory.\n");
		return NULL;
	}
	tui_data_init(&t->data);
	t->sort = C_CONG;
	if (o->sort) {
		int c = tui_col_by_name(o->sort);

		if (c < 0)
			pr_warn("--sort %s: no such column; sorting by congestion.\n", o->sort);
		else
			t->sort = (enum tui_colid)c;
	}
	if (o->filter)
		snprintf(t->filter, sizeof(t->filter), "%s", o->filter);
	t->seen.interval = o->interval;
	t->seen.speed = o->speed;
	t->file_interval = o->interval;

	setlocale(LC_ALL, "");
	t->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!initscr()) {
		pr_warn("cannot start the full-screen view (TERM=%s); try --batch.\n",
			getenv("TERM") ? getenv("TERM") : "");
		free(t);
		free(s);
		return NULL;
	}
	tui_active = 1;
	if (!registered++)
		atexit(tui_atexit);
	rt_log_hold(1);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(0);
	/* NO_COLOR set to anything: no colours (attributes such as bold stay) */
	if (!nc && has_colors()) {
		t->color = 1;
		start_color();
		use_default_colors();
		init_pair(CP_RED, COLOR_RED, -1);
		init_pair(CP_YELLOW, COLOR_YELLOW, -1);
		init_pair(CP_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(CP_SORT, COLOR_BLACK, COLOR_GREEN);
		init_pair(CP_GREEN, COLOR_GREEN, -1);
		init_pair(CP_MAGENTA, COLOR_MAGENTA, -1);
	}
	draw(t);

	s->name = "tui";
	s->emit = tui_emit;
	s->close = tui_close;
	s->input_fd = STDIN_FILENO;
	s->on_input = tui_on_input;
	s->on_idle = tui_on_idle;
	s->priv = t;
	return s;
}
