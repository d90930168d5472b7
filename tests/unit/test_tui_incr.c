// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's incremental parts (tui/tui_sort.c, tui/tui_hist.c, tui/tui_model.c):
 *  - ordering only the page shown (tui_rows_order, tui_rows_rank) against
 *    glibc's qsort of every row (tui_rows_sort), on rows with many ties,
 *    every sort column, both directions, pages anywhere;
 *  - histories kept packed, only for the flows that moved (tui_hists_push,
 *    tui_hists_get, tui_hists_sums) against histories the test keeps
 *    itself, written the old way (a sample of every count for every flow in
 *    every interval, as struct tui_sample), through 150 intervals of churn
 *    on the loop's persistent table: flows appear, go idle for longer than
 *    the history, move again, are removed and come back; counts above 2^32
 *    and every count of the history (packets, bytes, CE, CNPs, NAKs, RNR
 *    NAKs). The averages (tui_hists_sums) and the detail view's sparkline
 *    values (tui_detail_series) are checked against sums and quotients the
 *    test makes from its own samples; a flow idle for 2 x TUI_HIST
 *    intervals must hold no sample bytes;
 *  - the view's data taken the fast way (the same flows as the last
 *    snapshot: only the changed ones copied) against a second view that
 *    always takes the whole way, and every flow's counts (tui_flow_d)
 *    against the loop's delta expanded to every row (rt_delta_expand) and a
 *    delta of the whole copy from nothing (rt_delta_compute), as the view
 *    kept them before;
 *  - the column widths and the owner / mirror columns decided without a
 *    walk (tui_rows_want_t, tui_rows_have) against the walk over every row,
 *    with an IPv6 flow, a mirrored one and an owner that comes and goes.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "derive.h"
#include "tui_model.h"

static void key_of(struct rt_flow_key *k, unsigned int i)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = 1;
	k->family = 4;
	k->src[0] = 10;
	k->src[2] = (__u8)(i >> 8);
	k->src[3] = (__u8)i;
	k->dst[0] = 10;
	k->dst[1] = 9;
	k->dqpn = 0x100 + i;
}

/* The churn's flows: one over IPv6, one inside mirror copies. */
static void churn_key(struct rt_flow_key *k, unsigned int i)
{
	key_of(k, i);
	if (i == 257) {		/* 39 characters written out */
		k->family = 6;
		for (int b = 0; b < 16; b++)
			k->src[b] = (__u8)(0xf1 + b);
	}
	if (i == 263)
		k->mirror = 1;
}

static int flow_qcmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(&((const struct rt_flow *)a)->k, &((const struct rt_flow *)b)->k);
}

static void test_order(void)
{
	enum { N = 1500 };
	static struct rt_flow flows[N];
	static struct tui_row rows[N], sorted[N];
	static __u32 ord[N];
	const char *names[] = { "lan0", "lan1", "wan" };

	srand(7);
	for (int i = 0; i < N; i++) {
		key_of(&flows[i].k, (unsigned int)i);
		flows[i].k.dir = (__u8)(rand() % 2);
		flows[i].v.dscp = (__u8)(rand() % 3);
		flows[i].v.last_ns = (__u64)(rand() % 5);
	}
	/* rows of a view's copy: idx is the flow's place in key order */
	qsort(flows, N, sizeof(flows[0]), flow_qcmp);
	for (int i = 0; i < N; i++) {
		struct tui_row *r = &rows[i];

		memset(r, 0, sizeof(*r));
		r->f = &flows[i];
		r->idx = i;
		r->secs = 1;
		r->nflows = 1;
		r->ifname = names[rand() % 3];
		/* mostly zero, as in an interval where few flows moved: ties everywhere */
		if (rand() % 4 == 0) {
			r->d.pkts = (__u64)(rand() % 50);
			r->d.bytes = r->d.pkts * 1000;
			r->d.ecn[RT_ECN_CE] = (__u64)(rand() % 3);
			r->d.cnp = (__u64)(rand() % 2);
		}
		r->idle_ns = (__u64)(rand() % 4) * 1000;
		for (int w = 0; w < TUI_NWIN; w++)
			r->avg[w][1] = (double)(rand() % 3);
	}
	for (int c = 0; c < C_NCOLS; c++)
		for (int inv = 0; inv < 2; inv++) {
			size_t pages[][2] = { { 0, 40 }, { 0, 1 }, { 700, 740 }, { N - 40, N }, { N - 1, N },
					      { 33, 34 }, { 0, N }, { 1000, 1200 } };

			memcpy(sorted, rows, sizeof(rows));
			tui_rows_sort(sorted, N, (enum tui_colid)c, inv);
			for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
				size_t lo = pages[p][0], hi = pages[p][1], bad = 0;

				for (int i = 0; i < N; i++)
					ord[i] = (__u32)i;
				tui_rows_order(ord, rows, N, lo, hi, (enum tui_colid)c, inv);
				for (size_t i = lo; i < hi; i++)
					bad += rows[ord[i]].f != sorted[i].f;
				CHECK(!bad, "column %d invert %d page %zu..%zu: %zu rows out of place", c, inv, lo,
				      hi, bad);
			}
			/* the rank of a row is its place in the full sort */
			for (int i = 0; i < N; i += 97) {
				size_t rk = tui_rows_rank(rows, N, (size_t)i, (enum tui_colid)c, inv);

				CHECK(rk < N && sorted[rk].f == rows[i].f, "column %d invert %d rank of %d: %zu",
				      c, inv, i, rk);
			}
		}
	TEST_END("tui_rows_order_page_against_qsort");
}

/* The view's data taken the fast way (only the flows that changed) equals
 * the same taken the whole way (a sorted copy, every flow's deltas). */
static int same_data(const struct tui_data *a, const struct tui_data *b)
{
	int bad = 0;

	if (a->snap.nflows != b->snap.nflows || a->nivd != b->nivd || a->nivr != b->nivr || a->hists.n != b->hists.n ||
	    a->snap.nifs != b->snap.nifs || a->nv6 != b->nv6 || a->nowned != b->nowned || a->nmirror != b->nmirror ||
	    a->one_if != b->one_if)
		return 1;
	for (size_t i = 0; i < a->nivr; i++)
		bad += a->ivr[i] != b->ivr[i] || a->ivix[a->ivr[i]] != b->ivix[b->ivr[i]];
	for (size_t i = 0; i < a->nivd; i++)	/* the interval's changed flows */
		bad += a->ivd[i].f - a->snap.flows != b->ivd[i].f - b->snap.flows ||
		       memcmp(&a->ivd[i].d, &b->ivd[i].d, sizeof(a->ivd[i].d)) ||
		       a->ivd[i].samples != b->ivd[i].samples;
	for (size_t i = 0; i < a->snap.nflows; i++) {
		const struct rt_flow *x = &a->snap.flows[i], *y = &b->snap.flows[i];
		const struct tui_hrec *p = &a->hists.rec[i], *q = &b->hists.rec[i];

		bad += memcmp(&x->k, &y->k, sizeof(x->k)) || memcmp(&x->v, &y->v, sizeof(x->v)) ||
		       x->lqpn != y->lqpn || x->rqpn != y->rqpn || x->pid != y->pid ||
		       strcmp(x->comm, y->comm) || x->throttles != y->throttles || x->samples != y->samples;
		for (int tot = 0; tot < 2; tot++) {
			struct rt_flow_val da, db;

			tui_flow_d(a, tot, i, &da);
			tui_flow_d(b, tot, i, &db);
			bad += memcmp(&da, &db, sizeof(da)) != 0;
		}
		bad += p->start != q->start || p->len != q->len || (p->len && (p->last != q->last || p->first != q->first)) ||
		       (p->len && memcmp(tui_hrec_bytes(p), tui_hrec_bytes(q), p->len));
	}
	bad += memcmp(&a->iv.flow_tot, &b->iv.flow_tot, sizeof(a->iv.flow_tot)) ||
	       memcmp(&a->since.flow_tot, &b->since.flow_tot, sizeof(a->since.flow_tot)) ||
	       memcmp(&a->iv.est_tot, &b->iv.est_tot, sizeof(a->iv.est_tot)) ||
	       memcmp(&a->since.est_tot, &b->since.est_tot, sizeof(a->since.est_tot));
	return bad;
}

/* The test's own history of a flow: a sample in every interval, as the view did before. */
struct model {
	int live;		/* in the table */
	int n;			/* samples, at most TUI_HIST */
	__u64 tot;		/* its packets so far */
	struct tui_sample s[TUI_HIST];	/* [0] newest */
};

static void model_push(struct model *m, double t_end, double secs, const __u64 c[TM_N])
{
	memmove(&m->s[1], &m->s[0], (TUI_HIST - 1) * sizeof(m->s[0]));
	memset(&m->s[0], 0, sizeof(m->s[0]));
	m->s[0].t_end = t_end;
	m->s[0].secs = secs;
	memcpy(m->s[0].c, c, sizeof(m->s[0].c));
	if (m->n < TUI_HIST)
		m->n++;
}

/* What one flow's interval adds (the test's own numbers): packets, and from
 * them every other count; one flow in nine counts above 2^32 now and then. */
static void make_counts(unsigned int i, __u64 c[TM_N])
{
	__u64 p = 1 + (__u64)(rand() % 20);

	if (i % 9 == 4 && rand() % 3 == 0)
		p += (1ULL << 33) + (__u64)rand();
	c[TM_PKTS] = p;
	c[TM_BYTES] = p * 100 + (__u64)(rand() % 64);
	c[TM_CE] = p / 3;
	c[TM_CNP] = i % 4 == 1 ? (__u64)(rand() % 3) : 0;
	c[TM_NAK] = i % 5 == 2 ? (__u64)(rand() % 2) : 0;
	c[TM_RNR] = i % 7 == 3 ? (__u64)(rand() % 2) : 0;
}

static void test_hists_churn(void)
{
	enum { NF = 300, NIV = 150 };
	static struct model M[NF];
	static __u64 add[NF][TM_N];
	static int idle_since[NF];
	struct rt_snapshot cur, prev;
	struct rt_delta d = { 0 }, ex = { 0 }, sc = { 0 };
	struct tui_data t, ref;
	struct tui_row *rows = NULL;
	size_t rcap = 0;
	int bad_old = 0, bad_want = 0, has_own = 0, has_v6 = 0;
	int bad_same = 0, bad_n = 0, bad_s = 0, bad_sum = 0, bad_avg = 0, bad_spark = 0, bad_mem = 0, checked = 0;
	int big = 0, idle_long = 0, back = 0;

	rt_snapshot_init(&cur);
	rt_snapshot_init(&prev);
	tui_data_init(&t);
	tui_data_init(&ref);
	ref.no_fast = 1;
	CHECK_EQ(rt_snapshot_make_table(&cur), 0);
	srand(11);
	for (int iv = 0; iv < NIV; iv++) {
		double now = 1000 + iv * 1.5, secs = iv ? 1.5 : 0;
		/* the last intervals: no flow comes or goes, so the view takes
		 * only the changed ones (the fast way) */
		int calm = iv >= NIV - 20;

		rt_snapshot_next_interval(&cur);
		memset(add, 0, sizeof(add));
		for (int i = 0; i < NF; i++) {
			struct rt_flow_key k;
			struct rt_flow *f;
			int fresh, r = rand() % 100;

			churn_key(&k, (unsigned int)i);
			/* flows 0-49 stay idle from interval 10 to 130 (longer than two histories) */
			if (i < 50 && iv >= 10 && iv < 130)
				continue;
			if (calm && !M[i].live)
				continue;
			if (M[i].live && r < 2 && !calm && i != 271) {	/* removed: its history starts over */
				idle_since[i] = iv;
				for (size_t row = 0; row < cur.nflows; row++)
					if (!rt_flow_key_cmp(&cur.flows[row].k, &k)) {
						rt_snapshot_remove(&cur, row);
						break;
					}
				memset(&M[i], 0, sizeof(M[i]));
				continue;
			}
			if (!M[i].live && r >= 30)	/* comes (back) now and then */
				continue;
			if (M[i].live && r >= 15 && i != 271)	/* most live flows do not move */
				continue;
			f = rt_snapshot_flow(&cur, &k, &fresh);
			CHECK(f != NULL, "row");
			if (!f)
				continue;
			make_counts((unsigned int)i, add[i]);
			big += add[i][TM_PKTS] > 0xffffffffULL;
			if (fresh)
				M[i].live = 1;
			else if (iv - idle_since[i] > TUI_HIST)
				back++;		/* moves again after more than a history of nothing */
			idle_since[i] = iv;
			M[i].tot += add[i][TM_PKTS];
			rt_snapshot_touch(&cur, f);	/* before the counters move */
			f->v.pkts = M[i].tot;
			f->v.bytes += add[i][TM_BYTES];
			f->v.ecn[RT_ECN_CE] += add[i][TM_CE];
			f->v.cnp += add[i][TM_CNP];
			f->v.nak_seq += add[i][TM_NAK];
			f->v.rnr_nak += add[i][TM_RNR];
			f->v.last_ns = (__u64)(now * 1e9);
			if (i == 271)	/* an owner every other interval (the view's PROCESS) */
				snprintf(f->comm, sizeof(f->comm), "%s", iv % 2 ? "" : "ib_write_bw");
		}
		cur.time_ns = cur.mono_ns = (__u64)(now * 1e9);
		CHECK_EQ(rt_delta_changes(&d, iv ? &prev : NULL, &cur), 0);
		d.secs = secs;
		/* the CE of a flow's interval is the sum of its adds' thirds */
		CHECK_EQ(tui_data_take(&t, &cur, &d), 0);
		CHECK_EQ(tui_data_take(&ref, &cur, &d), 0);
		bad_same += same_data(&t, &ref) != 0;
		{	/* the widths and the owner / mirror columns without a walk
			 * where the flows say, against the walk over every row */
			static const enum tui_colid wc[] = { C_SRC, C_DST, C_IFACE, C_PROC, C_MIRROR };
			int nr = tui_flow_rows(&t, 0, "", &rows, &rcap), owned, mir, eo = 0, em = 0;

			CHECK(nr >= 0, "rows");
			for (int r = 0; r < nr; r++) {
				eo |= rows[r].f->comm[0] != 0;
				em |= rows[r].f->k.mirror != 0;
			}
			tui_rows_have(&t, rows, (size_t)nr, &owned, &mir);
			bad_want += owned != eo || mir != em;
			has_own += eo;
			has_v6 += t.nv6 > 0;
			for (size_t c = 0; c < sizeof(wc) / sizeof(wc[0]); c++)
				for (int minw = 1; minw <= 15; minw += 14)
					bad_want += tui_rows_want_t(&t, rows, (size_t)nr, wc[c], minw, 39) !=
						    tui_rows_want(rows, (size_t)nr, wc[c], minw, 39);
		}
		/* every flow's counts as the old view had them: the loop's delta
		 * expanded to every row, and a delta of the whole copy from nothing */
		CHECK_EQ(rt_delta_expand(&ex, &d, &ref.snap), 0);
		CHECK_EQ(rt_delta_compute(&sc, NULL, &ref.snap), 0);
		for (size_t row = 0; row < ref.snap.nflows; row++) {
			struct rt_flow_val a, b;

			tui_flow_d(&ref, 0, row, &a);
			tui_flow_d(&ref, 1, row, &b);
			bad_old += memcmp(&a, &ex.flows[row].d, sizeof(a)) || memcmp(&b, &sc.flows[row].d, sizeof(b));
		}
		for (int c = 0; c < (int)(offsetof(struct rt_flow_val, first_ns) / 8); c++) {
			bad_old += ((const __u64 *)&ref.iv.flow_tot)[c] != ((const __u64 *)&ex.flow_tot)[c];
			bad_old += ((const __u64 *)&ref.since.flow_tot)[c] != ((const __u64 *)&sc.flow_tot)[c];
		}
		CHECK_EQ(rt_snapshot_copy_small(&prev, &cur), 0);
		for (int i = 0; i < NF; i++)
			if (M[i].live && secs > 0)
				model_push(&M[i], now, secs, add[i]);
		/* every flow of the view's copy against the model */
		CHECK_EQ(t.snap.nflows, cur.nflows);
		for (size_t row = 0; row < t.snap.nflows; row++) {
			unsigned int i = t.snap.flows[row].k.dqpn - 0x100;
			const struct tui_hist *h = tui_hists_get(&t.hists, row);
			struct model *m = &M[i];

			checked++;
			if (!h || (int)h->n != m->n) {
				bad_n++;
				continue;
			}
			for (int j = 0; j < m->n; j++) {
				const struct tui_sample *s = tui_hist_at(h, (unsigned int)j);

				if (s->t_end != m->s[j].t_end || s->secs != m->s[j].secs ||
				    memcmp(s->c, m->s[j].c, sizeof(s->c)))
					bad_s++;
			}
			{	/* the packed sums, every window and count, against the test's */
				__u64 psum[TUI_NWIN][TM_N] = { { 0 } };
				double pcov[TUI_NWIN];

				tui_hists_sums(&t.hists, row, psum, pcov);
				for (int w = 0; w < TUI_NWIN; w++) {
					__u64 sum[TM_N] = { 0 }, msum[TM_N] = { 0 };
					double cov = tui_hist_sum(h, now, tui_windows[w], sum), mcov = 0;

					for (int j = 0; j < m->n; j++) {
						if (j > 0 && m->s[j].t_end - m->s[j].secs < now - tui_windows[w] - 1e-3)
							break;
						for (int c = 0; c < TM_N; c++)
							msum[c] += m->s[j].c[c];
						mcov += m->s[j].secs;
					}
					if (memcmp(sum, msum, sizeof(sum)) || cov != mcov)
						bad_sum++;
					if (memcmp(psum[w], msum, sizeof(msum)) || pcov[w] != mcov)
						bad_avg++;
				}
			}
			for (int metric = 0; metric < 2; metric++) {	/* the sparklines */
				double v[TUI_HIST], max, mmax = 0;
				int k = tui_detail_series(h, metric, TUI_HIST, v, &max);

				if (k != m->n) {
					bad_spark++;
					continue;
				}
				for (int j = 0; j < k; j++) {	/* v oldest first */
					const struct tui_sample *s = &m->s[m->n - 1 - j];
					double e = metric == 0 ? rt_pct((double)s->c[TM_CE], (double)s->c[TM_PKTS])
							       : (double)s->c[TM_CNP] / s->secs;

					bad_spark += v[j] != e;
					if (e > mmax)
						mmax = e;
				}
				bad_spark += max != mmax;
			}
			/* idle for two histories: no samples kept */
			if (iv - idle_since[i] >= 2 * TUI_HIST) {
				idle_long++;
				bad_mem += t.hists.rec[row].len != 0 || t.hists.rec[row].cap != 0;
			}
		}
	}
	CHECK(big > 20, "counts above 2^32: %d", big);
	CHECK(idle_long > 500, "flows idle for two histories checked: %d", idle_long);
	CHECK(back > 20, "flows back after more than a history: %d", back);
	CHECK(t.nfast >= 18 && ref.nfast == 0, "taken the fast way: %ld (the oracle: %ld)", t.nfast, ref.nfast);
	CHECK_EQ(bad_same, 0);
	CHECK_EQ(bad_old, 0);
	CHECK_EQ(bad_want, 0);
	CHECK(has_own > 10 && has_own < NIV && has_v6 > 10 && has_v6 < NIV, "intervals with owners %d, with IPv6 %d", has_own,
	      has_v6);
	CHECK_EQ(bad_avg, 0);
	CHECK_EQ(bad_spark, 0);
	CHECK_EQ(bad_mem, 0);
	CHECK(checked > NIV * 50, "flows checked: %d", checked);
	CHECK_EQ(bad_n, 0);
	CHECK_EQ(bad_s, 0);
	CHECK_EQ(bad_sum, 0);
	tui_data_free(&t);
	tui_data_free(&ref);
	free(rows);
	rt_delta_free(&d);
	rt_delta_free(&ex);
	rt_delta_free(&sc);
	rt_snapshot_free(&cur);
	rt_snapshot_free(&prev);
	TEST_END("tui_hists_written_for_moved_flows_only");
}

int main(void)
{
	test_order();
	test_hists_churn();
	return TEST_EXIT();
}
