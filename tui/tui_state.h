/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view's state (struct tui), without curses: the view, mode and
 * sort shown, the rows and their order, the selection, the filter, the
 * findings, and where the last frame put things. tui_state.c keeps the rows
 * and the findings listed; the drawing (tui_view.h) and the keys
 * (tui_keys.c) both read and change it. Below it is the pure, unit-tested
 * model (tui_model.h).
 */
#ifndef RT_TUI_STATE_H
#define RT_TUI_STATE_H

#include "sink.h"
#include "tui_model.h"
#include "findings.h"

enum view { V_FLOWS, V_PAIRS, V_PFC, V_PORTS, V_SWPORTS, V_FINDINGS, V_JOBS, V_PROBES, V_DETAIL, V_FDETAIL,
	    V_NVIEWS };
extern const char *const tui_view_names[V_NVIEWS];

enum mode { M_NORMAL, M_FILTER, M_SEARCH, M_SORTMENU, M_HELP };

/* What an action asks for: nothing, a redraw, or new rows (sort, filter) first. */
enum redraw { RD_NONE = 0, RD_DRAW = 1, RD_ROWS = 3 };

enum { CP_RED = 1, CP_YELLOW, CP_BAR, CP_SORT, CP_GREEN, CP_MAGENTA };

#define MAXCOLS 32

struct tui;
struct rt_ctl;
/* A key and its action; the action says what to redraw (enum redraw). The
 * table also writes the help screen. */
struct tui_action {
	int key;
	int (*fn)(struct tui *t, struct rt_ctl *ctl, int key);
	const char *keys;	/* for the help screen; NULL: an alias, not listed again */
	const char *help;
};

struct tui {
	struct tui_data data;
	__u64 speed_given;		/* --link-speed (rt_link_speed decides) */
	struct tui_row *rows;		/* in the order they were built: see ord */
	size_t nrows, rows_cap;
	/* The rows' order by the sort key, only as far as it is shown (top-K
	 * selection, tui_rows_order): rows[ord[i]] is row i of the table for
	 * olo <= i < ohi, or for every i when ofull. tui_row_at() orders more. */
	__u32 *ord;
	size_t ord_cap, olo, ohi;
	int ofull;
	int view, mode;
	enum tui_colid sort;
	int invert, totals, avgs, utf8, color;
	char filter[256], edit[256];
	struct rt_filter *flt;		/* filter parsed (NULL: none) */
	size_t editlen;
	int edit_fresh;		/* the old filter shown: the first key typed replaces it */
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
	int msg_seek;		/* msg says a seek: gone with the snapshot the seek brings */
	int have_snap;
	double file_interval;	/* capture time per snapshot of a file (-d) */
	const struct rt_findings *fnd;	/* the loop's findings (user/core/findings.h) */
	int fsel;		/* the selected row of the findings view */
	/* the finding detail: the finding (by id, as it last stood), the
	 * selected one of its flows, and the view Esc goes back to from a
	 * flow's detail */
	__u32 fd_id;
	struct rt_finding fd;
	int fd_sel;
	int detail_back;
	struct rt_jobagg jobs;		/* the jobs view's: the flow rows folded by job */
	/* the keys' table (tui_keys.c's tui_actions), which the help screen
	 * lists: handed in by tui.c, so that the drawing calls no key code */
	const struct tui_action *actions;
};

#define MAX_FROWS 1024	/* rows of the findings view */

/* tui_state.c */
int tui_view_is_table(int v);
/* The delta shown: since the start with totals, else the interval's. */
const struct rt_delta *tui_cur_delta(const struct tui *t);
/* The interval's length (0 with totals). */
double tui_cur_secs(const struct tui *t);
void tui_remember_sel(struct tui *t);
void tui_rebuild_rows(struct tui *t);
/* Row i of the table in the sort order (i < nrows), ordering a page about it
 * if it is not yet in place; its averages filled. */
struct tui_row *tui_row_at(struct tui *t, size_t i);
/* Order rows [lo, hi) of the table (tui_sort.c's selection, not a sort of all). */
void tui_rows_order_page(struct tui *t, size_t lo, size_t hi);
/* Put every row in order (a search walks them all). */
void tui_rows_order_all(struct tui *t);
int tui_sort_candidates(const struct tui *t, enum tui_colid *out);
/* The findings to list that pass the filter, as indexes into t->fnd->tab,
 * ranked as the report ranks them (rt_finding_rank_cmp). */
size_t tui_findings_order(const struct tui *t, size_t *idx, size_t cap);
/* The finding detail's finding, refreshed from the engine (NULL: none). */
const struct rt_finding *tui_fdetail(struct tui *t);
/* 1 and a sentence when the view shown cannot apply the filter. */
int tui_filter_refusal(const struct tui *t, char *buf, size_t len);

#endif
