// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live view's row order: comparators over a column's value (tui_cells.c),
 * the sort, the ordering of one page only, and the widths the rows want. */
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "tui_model.h"

static int addr_cmp(__u8 fa, const __u8 *a, __u8 fb, const __u8 *b)
{
	int r = tui_spaceship_u64(fa, fb);

	return r ? r : memcmp(a, b, 16);
}

/* tui_row_cmp without its last word (the flow key): 0 on a tie. */
static int row_cmp_value(const struct tui_row *a, const struct tui_row *b, enum tui_colid c, int invert)
{
	int r;

	switch (c) {
	case C_IFACE: r = strcmp(a->ifname ? a->ifname : "", b->ifname ? b->ifname : ""); break;
	case C_DIR: r = tui_spaceship_u64(a->f->k.dir, b->f->k.dir); break;
	case C_SRC: r = addr_cmp(a->f->k.family, a->f->k.src, b->f->k.family, b->f->k.src); break;
	case C_DST: r = addr_cmp(a->f->k.family, a->f->k.dst, b->f->k.family, b->f->k.dst); break;
	case C_MIRROR: {
		char ma[RT_MIRROR_STRLEN], mb[RT_MIRROR_STRLEN];

		r = strcmp(rt_fmt_mirror(&a->f->k, ma, sizeof(ma)), rt_fmt_mirror(&b->f->k, mb, sizeof(mb)));
		break;
	}
	case C_JOB: {
		char ja[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16], jb[sizeof(ja)];

		r = strcmp(rt_job_label(a->job, ja, sizeof(ja)), rt_job_label(b->job, jb, sizeof(jb)));
		if (!r)
			r = tui_spaceship_u64((__u64)(a->job ? a->job->rank + 1 : 0),
					      (__u64)(b->job ? b->job->rank + 1 : 0));
		break;
	}
	case C_PROC: r = strcmp(a->f->comm, b->f->comm);
		if (!r)
			r = tui_spaceship_u64(a->f->pid, b->f->pid);
		break;
	case C_CONG:
		r = tui_spaceship_u64(rt_congestion(&a->d), rt_congestion(&b->d));
		if (!r)
			r = tui_spaceship_u64(a->d.pkts, b->d.pkts);
		break;
	default: r = tui_spaceship_dbl(tui_row_num(a, c), tui_row_num(b, c)); break;
	}
	r = r < 0 ? -1 : r > 0;
	/* Numbers: biggest first; text: A to Z first. I flips either. */
	if (!(tui_cols[c].flags & TUI_COL_TEXT))
		r = -r;
	if (invert)
		r = -r;
	return r;
}

int tui_row_cmp(const struct tui_row *a, const struct tui_row *b, enum tui_colid c, int invert)
{
	int r = row_cmp_value(a, b, c, invert);

	if (!r)
		r = rt_flow_key_cmp(&a->f->k, &b->f->k);
	return r < 0 ? -1 : r > 0;
}

/* A row's value by a numeric column: C_CONG's two counts, or the number. */
struct row_key {
	__u64 a, b;
	double x;
};

static void row_key(const struct tui_row *r, enum tui_colid c, struct row_key *k)
{
	if (c == C_CONG) {
		k->a = rt_congestion(&r->d);
		k->b = r->d.pkts;
		k->x = 0;
	} else {
		k->a = k->b = 0;
		k->x = tui_row_num(r, c);
	}
}

struct sort_ctx {
	enum tui_colid c;
	int invert;
	struct row_key *keys;	/* NULL: compare the rows */
};

static int row_qcmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *ctx = arg;

	return tui_row_cmp(a, b, ctx->c, ctx->invert);
}

void tui_rows_sort(struct tui_row *rows, size_t n, enum tui_colid c, int invert)
{
	struct sort_ctx ctx = { c, invert, NULL };

	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_qcmp, &ctx);
}

/*
 * tui_row_cmp for rows built by tui_flow_rows / tui_pair_rows: their idx (the
 * flow's place in the view's copy, which is in key order; a pair's first
 * flow) orders them as their keys do, so ties are broken without reading
 * keys. In an interval where few flows moved, most rows tie on the value.
 */
static int ord_cmp(const struct tui_row *rows, __u32 a, __u32 b, const struct sort_ctx *cx)
{
	int r;

	if (cx->keys) {	/* row_cmp_value on the kept values */
		const struct row_key *x = &cx->keys[a], *y = &cx->keys[b];

		if (cx->c == C_CONG) {
			r = tui_spaceship_u64(x->a, y->a);
			if (!r)
				r = tui_spaceship_u64(x->b, y->b);
		} else {
			r = tui_spaceship_dbl(x->x, y->x);
		}
		r = -r;		/* numbers: biggest first */
		if (cx->invert)
			r = -r;
	} else {
		r = row_cmp_value(&rows[a], &rows[b], cx->c, cx->invert);
	}

	if (!r)
		r = tui_spaceship_u64((__u64)rows[a].idx, (__u64)rows[b].idx);
	return r;
}

struct ord_ctx {
	const struct tui_row *rows;
	const struct sort_ctx *cx;
};

static int ord_qcmp(const void *a, const void *b, void *arg)
{
	const struct ord_ctx *o = arg;

	return ord_cmp(o->rows, *(const __u32 *)a, *(const __u32 *)b, o->cx);
}

static void ord_swap(__u32 *o, size_t a, size_t b)
{
	__u32 t = o[a];

	o[a] = o[b];
	o[b] = t;
}

/* Quicksort of ord[l..r) that goes only into the parts overlapping [lo, hi);
 * past a depth of about 2 log2 n it sorts the part whole (qsort_r). */
static void order_part(__u32 *o, const struct tui_row *rows, size_t l, size_t r, size_t lo, size_t hi,
		       const struct sort_ctx *cx, int depth)
{
	while (r - l > 12 && l < hi && r > lo) {
		size_t m = l + (r - l) / 2, i, p;

		if (depth-- <= 0) {
			struct ord_ctx oc = { rows, cx };

			qsort_r(o + l, r - l, sizeof(*o), ord_qcmp, &oc);
			return;
		}
		/* median of three as the pivot, kept at r - 1 */
		if (ord_cmp(rows, o[m], o[l], cx) < 0)
			ord_swap(o, m, l);
		if (ord_cmp(rows, o[r - 1], o[l], cx) < 0)
			ord_swap(o, r - 1, l);
		if (ord_cmp(rows, o[m], o[r - 1], cx) < 0)
			ord_swap(o, m, r - 1);
		for (i = p = l; i < r - 1; i++)
			if (ord_cmp(rows, o[i], o[r - 1], cx) < 0)
				ord_swap(o, i, p++);
		ord_swap(o, p, r - 1);
		/* [l, p) before the pivot at p, (p, r) after it: go on into the
		 * sides that overlap the page, the smaller one by recursion */
		if (p > lo && p + 1 < hi) {
			if (p - l < r - p - 1) {
				order_part(o, rows, l, p, lo, hi, cx, depth);
				l = p + 1;
			} else {
				order_part(o, rows, p + 1, r, lo, hi, cx, depth);
				r = p;
			}
		} else if (p > lo) {
			r = p;
		} else if (p + 1 < hi) {
			l = p + 1;
		} else {
			return;		/* the page is the pivot alone */
		}
	}
	if (l < hi && r > lo)	/* a few left: insertion sort */
		for (size_t i = l + 1; i < r; i++)
			for (size_t j = i; j > l && ord_cmp(rows, o[j], o[j - 1], cx) < 0; j--)
				ord_swap(o, j, j - 1);
}

void tui_rows_order(__u32 *ord, const struct tui_row *rows, size_t n, size_t lo, size_t hi,
		    enum tui_colid c, int invert)
{
	struct sort_ctx cx = { c, invert, NULL };
	int depth = 8;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (hi > n)
		hi = n;
	if (lo >= hi)
		return;
	/* numbers: each row's value once, in an array that stays in cache,
	 * compared as row_cmp_value compares the rows */
	if (!(tui_cols[c].flags & TUI_COL_TEXT) && n > 64 && (cx.keys = malloc(n * sizeof(*cx.keys)))) {
		for (size_t i = 0; i < n; i++)
			row_key(&rows[i], c, &cx.keys[i]);
	}
	order_part(ord, rows, 0, n, lo, hi, &cx, depth);
	free(cx.keys);
}

size_t tui_rows_rank(const struct tui_row *rows, size_t n, size_t i, enum tui_colid c, int invert)
{
	size_t rank = 0;

	struct sort_ctx cx = { c, invert, NULL };

	for (size_t j = 0; j < n; j++)
		if (j != i && ord_cmp(rows, (__u32)j, (__u32)i, &cx) < 0)
			rank++;
	return rank;
}

int tui_rows_want(const struct tui_row *rows, size_t n, enum tui_colid c, int minw, int maxw)
{
	const char *last_if = NULL;
	int m = minw, last_origin = -1;
	char cell[64];

	for (size_t r = 0; r < n && m < maxw; r++) {
		const struct tui_row *row = &rows[r];
		const struct rt_flow *f = row->f;

		switch (c) {
		case C_SRC:
		case C_DST:	/* a dotted quad is at most 15 characters */
			if (f->k.family != 6 && minw >= 15)
				continue;
			break;
		case C_IFACE:	/* rows of one interface in a run */
			if (row->ifname == last_if && f->k.origin == last_origin)
				continue;
			last_if = row->ifname;
			last_origin = f->k.origin;
			break;
		case C_PROC:	/* "-" or "nic" without an owner */
			if (!f->comm[0] && minw >= 3)
				continue;
			break;
		case C_MIRROR:	/* "-" when not mirrored */
			if (!f->k.mirror && minw >= 1)
				continue;
			break;
		default:
			break;
		}
		tui_row_cell(row, c, cell, sizeof(cell));
		if ((int)strlen(cell) > m)
			m = (int)strlen(cell);
	}
	return m < maxw ? m : maxw;
}

int tui_rows_want_t(const struct tui_data *t, const struct tui_row *rows, size_t n, enum tui_colid c,
		    int minw, int maxw)
{
	/* rows of t's flows: none can be longer than minw when no flow is */
	if (((c == C_SRC || c == C_DST) && !t->nv6 && minw >= 15) || (c == C_PROC && !t->nowned && minw >= 3) ||
	    (c == C_MIRROR && !t->nmirror && minw >= 1))
		return minw < maxw ? minw : maxw;
	if (c == C_IFACE && t->one_if && n)	/* every flow's interface is the first row's */
		return tui_rows_want(rows, 1, c, minw, maxw);
	return tui_rows_want(rows, n, c, minw, maxw);
}

void tui_rows_have(const struct tui_data *t, const struct tui_row *rows, size_t n, int *owned, int *mirror)
{
	*owned = *mirror = 0;
	for (size_t i = 0; i < n && ((t->nowned && !*owned) || (t->nmirror && !*mirror)); i++) {
		if (rows[i].f->comm[0])
			*owned = 1;
		if (rows[i].f->k.mirror)
			*mirror = 1;
	}
}
