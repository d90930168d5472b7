// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's frame: one erase + draw + refresh per change so that
 * ncurses sends only the differences (never clear() per frame). It puts the
 * header's meters (tui_meters.c), the view shown (tui_tables.c,
 * tui_detail.c, tui_views.c), the status and function-key lines, and the
 * overlays: the help screen (from the keys' table, which tui.c hands it in
 * struct tui) and the sort menu.
 */
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "tui_view.h"

static void draw_help(struct tui *t)
{
	int y = 1;

	erase();
	tui_put_attr(0, 0, "rocetop keys (any key returns)", A_BOLD);
	for (const struct tui_action *a = t->actions; a && a->key && y < LINES - 1; a++) {
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
}

static void draw_sort_menu(struct tui *t)
{
	enum tui_colid c[C_NCOLS + 1];
	int n = tui_sort_candidates(t, c), y0 = t->hdr_y > 0 ? t->hdr_y : 1;

	tui_put_attr(y0, 0, " Sort by        ", tui_cp(t, CP_BAR, A_REVERSE));
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
			tui_put_attr(LINES - 1, x, line, tui_cp(t, CP_BAR, A_REVERSE));
			x += (int)strlen(line);
		}
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
	tui_draw_header(t, &y);
	h = LINES - 2 - y;
	switch (t->view) {
	case V_FLOWS:
	case V_PAIRS: tui_draw_flow_table(t, y, h); break;
	case V_PFC: tui_draw_pfc(t, y, h); break;
	case V_PORTS: tui_draw_ports(t, y, h); break;
	case V_SWPORTS: tui_draw_swports(t, y, h); break;
	case V_FINDINGS: tui_draw_findings(t, y, h); break;
	case V_JOBS: tui_draw_jobs(t, y, h); break;
	case V_PROBES: tui_draw_probes(t, y, h); break;
	case V_DETAIL: tui_draw_detail(t, y, h); break;
	case V_FDETAIL: tui_draw_fdetail(t, y, h); break;
	}
	draw_status(t);
	if (t->mode == M_SORTMENU)
		draw_sort_menu(t);
	refresh();		/* ncurses sends only what changed */
}
