// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's keys: htop's key -> action table (which also writes the
 * help screen), actions that say what to redraw, the filter and search line,
 * the sort menu and the mouse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "filter.h"
#include "log.h"
#include "tui_view.h"

/* ------------------------------------------------------------------ tui_actions */

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
	t->edit_fresh = 1;	/* typing replaces it, Backspace edits it */
	return RD_DRAW;
}

static int set_view(struct tui *t, int v)
{
	tui_remember_sel(t);
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
	if (key == '6' || key == 'F')
		return set_view(t, V_FINDINGS);
	if (key == '7' || key == 'J')
		return set_view(t, V_JOBS);
	if (key == '8' || key == 'P')
		return set_view(t, V_PROBES);
	/* Tab, F5: the next of the eight views */
	return set_view(t, t->view >= V_PROBES ? V_FLOWS : t->view + 1);
}

static void set_filter(struct tui *t, const char *text);

/* Enter in a finding's detail without flows: the view of its subject. */
static int jump_to_subject(struct tui *t, const struct rt_finding *f)
{
	const struct rt_subject *sj = &f->subj;
	char a[RT_ADDR_STRLEN], expr[RT_JOB_KEY_LEN + 8];
	size_t i;

	t->top = 0;
	if (sj->has & RT_SUBJ_JOB) {
		snprintf(expr, sizeof(expr), "job %s", sj->job);
		set_filter(t, expr);
		t->view = V_JOBS;
		snprintf(t->msg, sizeof(t->msg), "%.24s: the jobs view on %.80s", f->rule, expr);
	} else if (sj->has & RT_SUBJ_DQPN) {
		struct rt_flow_key k = { 0 };

		for (i = 0; i < t->data.snap.nifaces; i++)
			if (!strcmp(t->data.snap.ifaces[i].name, sj->ifname))
				k.ifindex = t->data.snap.ifaces[i].ifindex;
		k.dir = sj->dir;
		k.family = sj->family;
		memcpy(k.src, sj->src, 16);
		memcpy(k.dst, sj->dst, 16);
		k.dqpn = sj->dqpn;
		set_filter(t, "");
		t->view = V_FLOWS;
		t->sel_key = k;
		t->have_sel_key = 1;
		snprintf(t->msg, sizeof(t->msg), "%s: the flow selected", f->rule);
	} else if (sj->has & RT_SUBJ_DST) {
		snprintf(expr, sizeof(expr), "dst %s", rt_fmt_addr(sj->family, sj->dst, a, sizeof(a)));
		set_filter(t, expr);
		t->view = V_FLOWS;
		snprintf(t->msg, sizeof(t->msg), "%s: flows filtered on %.64s", f->rule, expr);
	} else if (sj->has & RT_SUBJ_PRIO) {
		t->view = V_PFC;
		snprintf(t->msg, sizeof(t->msg), "%s: priority %u on %s", f->rule, sj->prio, sj->ifname);
	} else if (sj->has & RT_SUBJ_AGENT) {
		t->view = V_SWPORTS;
		snprintf(t->msg, sizeof(t->msg), "%s: switch %s port %u", f->rule, sj->agent, sj->port);
	} else {
		t->view = V_PORTS;
		snprintf(t->msg, sizeof(t->msg), "%s: %s on %s", f->rule, sj->counter, sj->device);
	}
	return RD_ROWS;
}

/* Enter on a finding: its detail. */
static int open_finding(struct tui *t)
{
	static size_t idx[MAX_FROWS];
	size_t n = tui_findings_order(t, idx, MAX_FROWS);

	if (!n || t->fsel < 0 || (size_t)t->fsel >= n)
		return RD_NONE;
	t->fd = t->fnd->tab[idx[t->fsel]];
	t->fd_id = t->fd.id;
	t->fd_sel = 0;
	t->view = V_FDETAIL;
	t->msg[0] = '\0';
	return RD_DRAW;
}

/* Enter in a finding's detail: the selected flow's detail (Esc comes back
 * here), or without flows the subject's view. */
static int open_involved(struct tui *t)
{
	const struct rt_finding *f = tui_fdetail(t);
	const struct rt_find_flow *x;

	if (!f)
		return RD_NONE;
	if (!f->nflows)
		return jump_to_subject(t, f);
	x = &f->flows[t->fd_sel < f->nflows ? t->fd_sel : 0];
	t->sel_key = x->k;
	t->have_sel_key = 1;
	t->view = V_DETAIL;
	t->detail_back = V_FDETAIL;
	return RD_ROWS;
}

/* Out of a flow's detail: to the view it was opened from. */
static int detail_back(struct tui *t)
{
	if (t->detail_back == V_FDETAIL) {
		t->view = V_FDETAIL;
		t->msg[0] = '\0';
		return RD_ROWS;
	}
	return set_view(t, V_FLOWS);
}

static int act_detail(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	if (t->view == V_DETAIL)
		return detail_back(t);
	if (t->view == V_FINDINGS)
		return open_finding(t);
	if (t->view == V_FDETAIL)
		return open_involved(t);
	if (t->view != V_FLOWS || !t->nrows)
		return RD_NONE;
	tui_remember_sel(t);
	t->view = V_DETAIL;
	t->detail_back = V_FLOWS;
	return RD_DRAW;
}

static int act_escape(struct tui *t, struct rt_ctl *ctl, int key)
{
	(void)ctl; (void)key;
	if (t->view == V_DETAIL)
		return detail_back(t);
	if (t->view == V_FDETAIL)
		return set_view(t, V_FINDINGS);
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
	if (!tui_view_is_table(t->view))
		set_view(t, V_FLOWS);
	n = tui_sort_candidates(t, c);
	t->menu_sel = 0;
	for (int i = 0; i < n; i++)
		if (c[i] == t->sort)
			t->menu_sel = i;
	t->mode = M_SORTMENU;
	return RD_ROWS;
}

/*
 * < and >: the sort moves to the column on the left or right, round a ring
 * of congestion (the default, which has no column of its own) and the
 * columns on screen, so either key comes back to where it started.
 */
static int act_sort_move(struct tui *t, struct rt_ctl *ctl, int key)
{
	enum tui_colid ring[MAXCOLS + 1];
	int i, cur = -1, n = 0;
	int back = key == '<' || key == ',';

	(void)ctl;
	if (!tui_view_is_table(t->view))
		return RD_NONE;
	ring[n++] = C_CONG;
	for (i = 0; i < t->ncols; i++)
		if (t->colw[i] && t->cols[i] != C_CONG)
			ring[n++] = t->cols[i];
	for (i = 0; i < n; i++)
		if (ring[i] == t->sort)
			cur = i;
	if (cur < 0)	/* a column not on screen: start from the ring's far end */
		cur = back ? 0 : n - 1;
	t->sort = ring[(cur + (back ? n - 1 : 1)) % n];
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

/* Move *pos by the key: a line, a page, to 0 or by end (past the last:
 * the caller cuts it back); never below 0. */
static void move_by_key(int *pos, int key, int page, int end)
{
	switch (key) {
	case KEY_UP: (*pos)--; break;
	case KEY_DOWN: (*pos)++; break;
	case KEY_PPAGE: *pos -= page; break;
	case KEY_NPAGE: *pos += page; break;
	case KEY_HOME: *pos = 0; break;
	case KEY_END: *pos += end; break;
	}
	if (*pos < 0)
		*pos = 0;
}

static int act_move(struct tui *t, struct rt_ctl *ctl, int key)
{
	int page = t->table_h > 1 ? t->table_h : 1;
	int n = tui_view_is_table(t->view) ? (int)t->nrows : 1 << 20;

	(void)ctl;
	if (tui_view_is_table(t->view)) {
		move_by_key(&t->sel, key, page, n);
		if (t->sel >= n)
			t->sel = n - 1;
		if (t->sel < 0)
			t->sel = 0;
		tui_remember_sel(t);
	} else if (t->view == V_FINDINGS) {	/* a selection, the list scrolls to it */
		move_by_key(&t->fsel, key, page, 1 << 20);
	} else if (t->view == V_FDETAIL) {	/* the finding's flows (drawing bounds it) */
		move_by_key(&t->fd_sel, key, page, RT_FIND_FLOWS);
	} else {	/* the other views scroll */
		move_by_key(&t->top, key, page, 1000);
		if (t->view == V_PORTS && t->top >= (int)t->data.iv.nports)
			t->top = t->data.iv.nports ? (int)t->data.iv.nports - 1 : 0;
		if (t->view == V_SWPORTS && t->top >= (int)t->data.iv.nswports)
			t->top = t->data.iv.nswports ? (int)t->data.iv.nswports - 1 : 0;
		if (t->view == V_PROBES && t->top >= (int)t->data.snap.nprobes)
			t->top = t->data.snap.nprobes ? (int)t->data.snap.nprobes - 1 : 0;
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
	t->msg_seek = 1;
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

const struct tui_action tui_actions[] = {
	{ 'q', act_quit, "q F10", "quit" },
	{ KEY_F(10), act_quit, NULL, NULL },
	{ ' ', act_pause, "space", "pause / resume taking snapshots" },
	{ '+', act_interval, "+ -", "longer / shorter interval" },
	{ '=', act_interval, NULL, NULL },
	{ '-', act_interval, NULL, NULL },
	{ 'h', act_help, "h ? F1", "this help" },
	{ '?', act_help, NULL, NULL },
	{ KEY_F(1), act_help, NULL, NULL },
	{ '/', act_filter, "/ F4", "filter: host ADDR, src, dst, qp N, if NAME, proc, pid, prio, ce, cnp, nak,\n"
		"rnr, paused; and, or, not, ( ); a bare word: a substring (Enter applies, Esc clears)" },
	{ KEY_F(4), act_filter, NULL, NULL },
	{ KEY_F(3), act_filter, "F3", "search: select the next row that matches" },
	{ '1', act_view, "1 2 3 4 5", "views: flows, host pairs, PFC, NIC ports, switch ports (sFlow)" },
	{ '2', act_view, NULL, NULL },
	{ '3', act_view, NULL, NULL },
	{ '4', act_view, NULL, NULL },
	{ '5', act_view, NULL, NULL },
	{ 'F', act_view, "F 6", "findings, ranked as the report ranks them; Enter: a finding's detail" },
	{ '6', act_view, NULL, NULL },
	{ 'J', act_view, "J 7", "jobs: the flows by job (as --group-by job), most congested first, with the\n"
		"ranks seen and the longest pause of the interfaces and priorities their flows cross" },
	{ '7', act_view, NULL, NULL },
	{ 'P', act_view, "P 8", "probes: the probe mesh's paths (--probe): sent, lost, RTT p50 and p99, the\n"
		"network's and the responder's p50, the finding; t: sent and lost since the start" },
	{ '8', act_view, NULL, NULL },
	{ '\t', act_view, "Tab F5", "next view" },
	{ KEY_F(5), act_view, NULL, NULL },
	{ '\n', act_detail, "Enter d", "detail of the selected flow (history, reverse flows) or finding;\n"
		"in a finding's detail: the selected involved flow's detail" },
	{ '\r', act_detail, NULL, NULL },
	{ KEY_ENTER, act_detail, NULL, NULL },
	{ 'd', act_detail, NULL, NULL },
	{ 27, act_escape, "Esc", "back from a detail (a flow's: to the finding it came from)" },
	{ KEY_F(6), act_sort_menu, "F6", "sort menu" },
	{ '<', act_sort_move, "< >", "sort by the column to the left / right, round" },
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

/* The filter typed in: kept when it parses (an error keeps the old one and
 * says why in the status line). */
static void set_filter(struct tui *t, const char *text)
{
	struct rt_filter *F;

	if (rt_filter_parse(text, &F, t->msg, sizeof(t->msg)))
		return;
	rt_filter_free(t->flt);
	t->flt = F;
	snprintf(t->filter, sizeof(t->filter), "%s", text);
	t->msg[0] = '\0';
	t->sel = 0;
	t->have_sel_key = 0;
	tui_filter_refusal(t, t->msg, sizeof(t->msg));
}

/* F3: select the next row that matches, in the rows' order. */
static void search(struct tui *t)
{
	struct rt_filter *F;

	if (!t->nrows || !t->edit[0] || rt_filter_parse(t->edit, &F, t->msg, sizeof(t->msg)))
		return;
	tui_rows_order_all(t);
	for (size_t i = 1; i <= t->nrows; i++) {
		size_t j = ((size_t)t->sel + i) % t->nrows;
		const struct tui_row *r = &t->rows[t->ord[j]];

		if (rt_filter_flow(F, &t->data.snap, r->f, &r->d, t->totals ? NULL : &t->data.iv)) {
			t->sel = (int)j;
			tui_remember_sel(t);
			break;
		}
	}
	rt_filter_free(F);
}

static int edit_key(struct tui *t, int key)
{
	if (key == 27) {		/* Esc: filter cleared, search cancelled */
		if (t->mode == M_FILTER)
			set_filter(t, "");
		t->mode = M_NORMAL;
		return RD_ROWS;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (t->mode == M_FILTER)
			set_filter(t, t->edit);
		else
			search(t);
		t->mode = M_NORMAL;
		return RD_ROWS;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		t->edit_fresh = 0;
		if (t->editlen)
			t->edit[--t->editlen] = '\0';
		return RD_DRAW;
	}
	if (key == KEY_RESIZE)
		return RD_DRAW;
	if (key >= 32 && key < 127 && t->edit_fresh) {
		t->edit_fresh = 0;
		t->editlen = 0;
		t->edit[0] = '\0';
	}
	if (key >= 32 && key < 127 && t->editlen < sizeof(t->edit) - 1) {
		t->edit[t->editlen++] = (char)key;
		t->edit[t->editlen] = '\0';
	}
	return RD_DRAW;
}

static int menu_key(struct tui *t, int key)
{
	enum tui_colid c[C_NCOLS + 1];
	int n = tui_sort_candidates(t, c);

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

		if (tui_view_is_table(t->view)) {
			t->sel += step;
			if (t->sel >= (int)t->nrows)
				t->sel = (int)t->nrows - 1;
			if (t->sel < 0)
				t->sel = 0;
			tui_remember_sel(t);
		}
		return RD_DRAW;
	}
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) || !tui_view_is_table(t->view))
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
		tui_remember_sel(t);
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
	for (const struct tui_action *a = tui_actions; a->key; a++)
		if (a->key == key)
			return a->fn(t, ctl, key);
	return RD_NONE;
}

/* Read every pending key; returns how many were read. */
int tui_drain_keys(struct tui *t, struct rt_ctl *ctl, int *redraw)
{
	int key, n = 0, rd = RD_NONE;

	while (!ctl->quit && (key = getch()) != ERR) {
		int r = dispatch(t, ctl, key);

		n++;
		/* new rows at once: the next key (Home, Enter) acts on them */
		if ((r & RD_ROWS) == RD_ROWS)
			tui_rebuild_rows(t);
		rd |= r;
	}
	*redraw = !ctl->quit && rd;
	return n;
}

void tui_mirror_ctl(struct tui *t, const struct rt_ctl *ctl, int *changed)
{
	if (t->seen.paused != ctl->paused || t->seen.interval != ctl->interval ||
	    t->seen.speed != ctl->speed || t->seen.is_file != ctl->is_file ||
	    t->seen.at_end != ctl->at_end)
		*changed = 1;
	t->seen = *ctl;
}
