// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's state between frames, without curses: the rows of the
 * flow and host-pair tables built from the model (tui_rows.c) for the view,
 * filter and totals shown, ordered by the sort key only as far as a page is
 * shown (tui_sort.c's selection), the selection kept on its flow across
 * rebuilds; the sort menu's columns; the findings listed, ranked and
 * filtered; the finding detail's finding. Both the drawing (tui_draw.c and
 * the files it calls) and the keys (tui_keys.c) read it; it calls neither.
 */
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "tui_state.h"

const char *const tui_view_names[V_NVIEWS] = { "flows", "host pairs", "PFC", "NIC ports", "switch ports",
						  "findings", "jobs", "probes", "detail",
						  "finding" };

int tui_view_is_table(int v)
{
	return v == V_FLOWS || v == V_PAIRS;
}

const struct rt_delta *tui_cur_delta(const struct tui *t)
{
	return t->totals ? &t->data.since : &t->data.iv;
}

double tui_cur_secs(const struct tui *t)
{
	return t->totals ? 0 : t->data.iv.secs;
}

/* Every row in order: ord sorted whole. */
static void tui_rows_sort_ord(struct tui *t)
{
	tui_rows_order(t->ord, t->rows, t->nrows, 0, t->nrows, t->sort, t->invert);
	t->ofull = 1;
}

/* Order rows [lo, hi) of the table (tui_sort.c's selection, not a sort of all). */
void tui_rows_order_page(struct tui *t, size_t lo, size_t hi)
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
		tui_rows_order_page(t, i, i + (t->table_h > 0 ? (size_t)t->table_h : 1));
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
