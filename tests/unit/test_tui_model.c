// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pure parts of the live view: comparators, the averages ring, rows,
 * sorting, filtering, host pairs and the column layout. Expected numbers are
 * worked out by hand from the inputs written here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "../../tui/tui_model.h"

static void test_spaceship(void)
{
	CHECK_EQ(tui_spaceship_u64(0, ~0ULL) == -1, 1);
	CHECK_EQ(tui_spaceship_u64(~0ULL, 0), 1);
	CHECK_EQ(tui_spaceship_u64(5, 5), 0);
	/* a - b would overflow an int for these */
	CHECK_EQ(tui_spaceship_u64(0x80000000ULL, 1), 1);
	CHECK_EQ(tui_spaceship_dbl(1e300, -1e300), 1);
	CHECK_EQ(tui_spaceship_dbl(-1e300, 1e300) == -1, 1);
	CHECK_EQ(tui_spaceship_dbl(NAN, 0) == -1, 1);
	CHECK_EQ(tui_spaceship_dbl(0, NAN), 1);
	CHECK_EQ(tui_spaceship_dbl(NAN, NAN), 0);
	TEST_END("tui_spaceship");
}

static struct rt_flow_val val(__u64 pkts, __u64 bytes, __u64 ce, __u64 cnp, __u64 nak)
{
	struct rt_flow_val v;

	memset(&v, 0, sizeof(v));
	v.pkts = pkts;
	v.bytes = bytes;
	v.ecn[RT_ECN_CE] = ce;
	v.cnp = cnp;
	v.nak_seq = nak;
	return v;
}

static void test_ring(void)
{
	struct tui_hist h;
	__u64 sum[TM_N];
	struct rt_flow_val v;
	double secs;
	int i;

	memset(&h, 0, sizeof(h));
	/* 1 s intervals ending at t = 1..60, interval i has i packets, i/2 CE */
	for (i = 1; i <= 60; i++) {
		v = val((__u64)i, 100ULL * i, (__u64)i / 2, 1, 0);
		tui_hist_push(&h, i, 1.0, &v);
	}
	CHECK_EQ(h.n, TUI_HIST);
	CHECK_EQ(tui_hist_at(&h, 0)->c[TM_PKTS], 60);
	CHECK_EQ(tui_hist_at(&h, TUI_HIST - 1)->c[TM_PKTS], 60 - TUI_HIST + 1);
	CHECK(tui_hist_at(&h, TUI_HIST) == NULL, "past the end");

	memset(sum, 0, sizeof(sum));
	secs = tui_hist_sum(&h, 60, 2, sum);	/* intervals 59 and 60 */
	CHECK_EQ((long)(secs * 1000), 2000);
	CHECK_EQ(sum[TM_PKTS], 119);
	CHECK_EQ(sum[TM_BYTES], 11900);
	CHECK_EQ(sum[TM_CE], 29 + 30);
	CHECK_EQ(sum[TM_CNP], 2);

	memset(sum, 0, sizeof(sum));
	secs = tui_hist_sum(&h, 60, 10, sum);	/* 51..60 */
	CHECK_EQ((long)(secs * 1000), 10000);
	CHECK_EQ(sum[TM_PKTS], 555);

	memset(sum, 0, sizeof(sum));
	secs = tui_hist_sum(&h, 60, 40, sum);	/* 21..60 */
	CHECK_EQ((long)(secs * 1000), 40000);
	CHECK_EQ(sum[TM_PKTS], (21 + 60) * 40 / 2);

	/* the window is longer than the history: what there is */
	memset(sum, 0, sizeof(sum));
	secs = tui_hist_sum(&h, 60, 1000, sum);
	CHECK_EQ((long)(secs * 1000), TUI_HIST * 1000);

	/* a window shorter than one interval still counts the newest sample */
	memset(&h, 0, sizeof(h));
	v = val(50, 0, 5, 0, 0);
	tui_hist_push(&h, 5, 5.0, &v);
	memset(sum, 0, sizeof(sum));
	secs = tui_hist_sum(&h, 5, 2, sum);
	CHECK_EQ((long)secs, 5);
	CHECK_EQ(sum[TM_PKTS], 50);
	TEST_END("tui_averages_ring");
}

/* A snapshot of n flows at time t (s); counts scaled by k. */
static void mk_snap(struct rt_snapshot *s, double t, __u64 k)
{
	struct rt_flow *f;

	rt_snapshot_clear(s);
	s->time_ns = (__u64)(t * 1e9);
	s->mono_ns = (__u64)(t * 1e9);
	rt_snapshot_add_iface(s, 7, "veth0", "native");
	/* 10.0.0.1 > 10.0.0.2 QP 0x10: 10k pkts, k CE */
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 7; f->k.family = 4; f->k.dqpn = 0x10;
	memcpy(f->k.src, "\x0a\x00\x00\x01", 4); memcpy(f->k.dst, "\x0a\x00\x00\x02", 4);
	f->v = val(10 * k, 1000 * k, k, 0, 0);
	f->v.first_ns = 90000000000ULL;		/* first seen at t=90 s */
	f->v.last_ns = s->mono_ns - 500000000ULL;
	/* 10.0.0.1 > 10.0.0.2 QP 0x20: 30k pkts */
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 7; f->k.family = 4; f->k.dqpn = 0x20;
	memcpy(f->k.src, "\x0a\x00\x00\x01", 4); memcpy(f->k.dst, "\x0a\x00\x00\x02", 4);
	f->v = val(30 * k, 3000 * k, 0, 0, 0);
	f->v.first_ns = 95000000000ULL;		/* first seen at t=95 s */
	f->v.last_ns = s->mono_ns;
	/* 10.0.0.2 > 10.0.0.1 QP 0x30: 2k CNPs, k NAKs, egress */
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 7; f->k.family = 4; f->k.dqpn = 0x30; f->k.dir = RT_DIR_EGRESS;
	memcpy(f->k.src, "\x0a\x00\x00\x02", 4); memcpy(f->k.dst, "\x0a\x00\x00\x01", 4);
	f->v = val(3 * k, 200 * k, 0, 2 * k, k);
	memcpy(f->comm, "ib_write_bw", 12);
	f->pid = 4242;
	f->v.last_ns = s->mono_ns;
	rt_snapshot_sort(s);
}

static int find_qp(const struct tui_row *r, int n, __u32 qp)
{
	for (int i = 0; i < n; i++)
		if (r[i].f->k.dqpn == qp)
			return i;
	return -1;
}

/* The rows' QPs (their low bytes) in order after sorting by column c:
 * 0x102030 for QPs 0x10, 0x20, 0x30. */
static unsigned sort_order(struct tui_row *rows, int n, enum tui_colid c, int invert)
{
	unsigned o = 0;

	tui_rows_sort(rows, (size_t)n, c, invert);
	for (int i = 0; i < n; i++)
		o = o << 8 | (rows[i].f->k.dqpn & 0xff);
	return o;
}

/* The flow rows a filter keeps of test_rows' three flows, and the first
 * one's QP where the test knows it (-1: not checked). */
static const struct {
	const char *filter;
	int n, dqpn;
} filters[] = {
	/* filter: QP in decimal or hex, address substring, interface, process */
	{ "32", 1, 0x20 },
	{ "0x30", 1, 0x30 },
	{ "10.0.0.2", 3, -1 },
	{ "10.0.0.9", 0, -1 },
	{ "veth0", 3, -1 },
	{ "write_bw", 1, -1 },
	/* the filter language (user/core/filter.h) on the interval's counts */
	{ "cnp", 1, 0x30 },
	{ "ce and not cnp", 1, 0x10 },
	{ "src 10.0.0.1 and (qp 0x20 or qp 16 or qp 48)", 2, -1 },
	{ "host 10.0.0.0/24 and not if veth0", 0, -1 },
	{ "qp", 0, -1 },	/* does not parse: nothing */
};

static void check_filters(struct tui_data *t, struct tui_row **rows, size_t *cap)
{
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		int n = tui_flow_rows(t, 0, filters[i].filter, rows, cap);

		CHECK(n == filters[i].n, "'%s' keeps %d rows, expected %d", filters[i].filter, n, filters[i].n);
		if (n > 0 && filters[i].dqpn >= 0)
			CHECK((*rows)[0].f->k.dqpn == (__u32)filters[i].dqpn, "'%s': QP 0x%x first, expected 0x%x",
			      filters[i].filter, (*rows)[0].f->k.dqpn, filters[i].dqpn);
	}
}

static void test_rows(void)
{
	struct rt_snapshot a, b, c;
	struct rt_delta d = { 0 };
	struct tui_data t;
	struct tui_row *rows = NULL;
	size_t cap = 0;
	char buf[64];
	int n, i;

	rt_snapshot_init(&a);
	rt_snapshot_init(&b);
	rt_snapshot_init(&c);
	tui_data_init(&t);
	mk_snap(&a, 100, 1);	/* totals at t=100: k=1 */
	mk_snap(&b, 102, 5);	/* at t=102: k=5, so the interval adds k=4 over 2 s */
	CHECK_EQ(rt_delta_compute(&d, NULL, &a), 0);
	d.secs = 2;
	CHECK_EQ(tui_data_take(&t, &a, &d), 0);
	CHECK_EQ(rt_delta_compute(&d, &a, &b), 0);
	CHECK_EQ(tui_data_take(&t, &b, &d), 0);
	/* the loop reuses its buffers: our copy must not care */
	mk_snap(&b, 1, 999);
	memset(d.flows, 0xff, d.nflows * sizeof(*d.flows));

	n = tui_flow_rows(&t, 0, "", &rows, &cap);
	CHECK_EQ(n, 3);
	i = find_qp(rows, n, 0x10);
	CHECK(i >= 0, "QP 0x10");
	CHECK_EQ(rows[i].d.pkts, 40);
	CHECK_EQ((long)(tui_row_num(&rows[i], C_PKTS) * 1000), 20000);	/* 40 over 2 s */
	CHECK_EQ((long)(tui_row_num(&rows[i], C_CE) * 1000), 100);	/* 4 of 40 */
	/* IDLE: last seen 0.5 s before the snapshot; AGE: first seen at 90 s, now 102 s */
	CHECK_EQ(rows[i].idle_ns, 500000000ULL);
	CHECK_EQ(rows[i].age_ns, 12000000000ULL);
	tui_row_cell(&rows[i], C_IDLE, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0.5s"), "IDLE cell '%s'", buf);
	tui_row_cell(&rows[i], C_AGE, buf, sizeof(buf));
	CHECK(!strcmp(buf, "12s"), "AGE cell '%s'", buf);
	CHECK(!strcmp(tui_cols[C_IDLE].title, "IDLE") && !strcmp(tui_cols[C_AGE].title, "AGE"),
	      "titles %s %s", tui_cols[C_IDLE].title, tui_cols[C_AGE].title);
	/* a flow with no first-seen time (0) has no age to show */
	i = find_qp(rows, n, 0x30);
	CHECK_EQ(rows[i].age_ns, 0);
	tui_row_cell(&rows[i], C_AGE, buf, sizeof(buf));
	CHECK(!strcmp(buf, "-"), "unknown AGE cell '%s'", buf);
	i = find_qp(rows, n, 0x10);
	tui_row_cell(&rows[i], C_CE, buf, sizeof(buf));
	CHECK(!strcmp(buf, "10.00"), "CE cell '%s'", buf);
	tui_row_cell(&rows[i], C_DQPN, buf, sizeof(buf));
	CHECK(!strcmp(buf, "16"), "QP cell '%s'", buf);
	tui_row_cell(&rows[i], C_SRC, buf, sizeof(buf));
	CHECK(!strcmp(buf, "10.0.0.1"), "SRC cell '%s'", buf);
	/* 2^62 bytes in 2 s (1.8e10 Gb/s) still fits the Gb/s column */
	rows[i].d.bytes = 1ULL << 62;
	tui_row_cell(&rows[i], C_GBPS, buf, sizeof(buf));
	CHECK(strlen(buf) <= (size_t)tui_cols[C_GBPS].maxw, "Gb/s cell '%s' wider than %d", buf,
	      tui_cols[C_GBPS].maxw);
	rows[i].d.bytes = 40 * 1000;	/* 0.00016 Gb/s: three decimals as before */
	tui_row_cell(&rows[i], C_GBPS, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0.000"), "Gb/s cell '%s'", buf);
	/* 2 s: the last interval only, 40 pkts in 2 s; 10 s: both intervals,
	 * 5 CE of 50 pkts = 10 % */
	CHECK_EQ(rows[i].avg_ok, 1);
	CHECK_EQ((long)(rows[i].avg[0][0] * 1000), 20000);
	CHECK_EQ((long)(rows[i].avg[1][2] * 1000), 10000);

	/* totals: counts since the start (k = 5) */
	n = tui_flow_rows(&t, 1, NULL, &rows, &cap);
	i = find_qp(rows, n, 0x30);
	CHECK_EQ(rows[i].d.cnp, 10);
	tui_row_cell(&rows[i], C_CNP, buf, sizeof(buf));
	CHECK(!strcmp(buf, "10"), "CNP count cell '%s'", buf);
	tui_row_cell(&rows[i], C_PROC, buf, sizeof(buf));
	CHECK(!strcmp(buf, "ib_write_bw/4242"), "process cell '%s'", buf);

	/* sorting, rates: pkts 0x20 (60) > 0x10 (20) > 0x30 (6) */
	n = tui_flow_rows(&t, 0, "", &rows, &cap);
	CHECK_EQ(sort_order(rows, n, C_PKTS, 0), 0x201030);
	CHECK_EQ(sort_order(rows, n, C_PKTS, 1), 0x301020);
	/* congestion: 0x30 (8 CNP + 4 NAK) > 0x10 (4 CE) > 0x20 */
	CHECK_EQ(sort_order(rows, n, C_CONG, 0), 0x301020);
	/* text ascending first: src 10.0.0.1 twice (ties by key: QP 0x10 first), then .2 */
	CHECK_EQ(sort_order(rows, n, C_SRC, 0), 0x102030);
	CHECK_EQ(sort_order(rows, n, C_DQPN, 1), 0x302010);
	/* comparators are antisymmetric and total */
	for (int c = 0; c < C_NCOLS; c++)
		for (int x = 0; x < n; x++)
			for (int y = 0; y < n; y++)
				CHECK(tui_row_cmp(&rows[x], &rows[y], c, 0) ==
				      -tui_row_cmp(&rows[y], &rows[x], c, 0) &&
				      (x == y) == (tui_row_cmp(&rows[x], &rows[y], c, 0) == 0),
				      "column %d rows %d %d", c, x, y);

	check_filters(&t, &rows, &cap);
	CHECK_EQ(tui_pair_rows(&t, 0, "qp 0x10", &rows, &cap), 1);
	CHECK_EQ(rows[0].nflows, 1);

	/* host pairs: 10.0.0.1 > .2 has 2 QPs (80 pkts in 2 s), .2 > .1 one */
	n = tui_pair_rows(&t, 0, "", &rows, &cap);
	CHECK_EQ(n, 2);
	i = rows[0].nflows == 2 ? 0 : 1;
	CHECK_EQ(rows[i].nflows, 2);
	CHECK_EQ(rows[i].d.pkts, 160);
	CHECK_EQ(rows[i].d.ecn[RT_ECN_CE], 4);
	/* the pair is as idle as its busiest QP (0x20: 0 s), as old as its oldest (0x10: 12 s) */
	CHECK_EQ(rows[i].idle_ns, 0);
	CHECK_EQ(rows[i].age_ns, 12000000000ULL);
	CHECK_EQ((long)(rows[i].avg[0][0] * 1000), 80000);
	CHECK_EQ(rows[1 - i].d.cnp, 8);

	/* a seek back (older snapshot) starts the histories over */
	mk_snap(&c, 50, 1);
	CHECK_EQ(rt_delta_compute(&d, NULL, &c), 0);
	d.secs = 0;
	CHECK_EQ(tui_data_take(&t, &c, &d), 0);
	CHECK_EQ(tui_hists_get(&t.hists, 0)->n, 0);
	CHECK_EQ(t.first_time_ns, 50000000000ULL);

	free(rows);
	tui_data_free(&t);
	rt_delta_free(&d);
	rt_snapshot_free(&a);
	rt_snapshot_free(&b);
	rt_snapshot_free(&c);
	TEST_END("tui_rows_sort_filter_pairs");
}

static void test_layout(void)
{
	/* widths 15 15 8 6 6 5, priorities 1 1 2 3 9 4 */
	const short minw[] = { 15, 15, 8, 6, 6, 5 };
	const short want[] = { 20, 15, 8, 6, 6, 5 };
	const unsigned char prio[] = { 1, 1, 2, 3, 9, 4 };
	int x[6], w[6], n, total;

	/* all fit: 55 + 5 spaces = 60; 10 to spare: the first grows by 5 */
	n = tui_layout(minw, want, prio, 6, 70, x, w);
	CHECK_EQ(n, 6);
	CHECK_EQ(w[0], 20);
	CHECK_EQ(x[1], 21);
	CHECK_EQ(x[5], 21 + 16 + 9 + 7 + 7);
	/* 50 columns: drop prio 9 (6 wide) -> 53, then prio 4 (5 wide) -> 47 */
	n = tui_layout(minw, want, prio, 6, 50, x, w);
	CHECK_EQ(n, 4);
	CHECK_EQ(w[4], 0);
	CHECK_EQ(w[5], 0);
	CHECK_EQ(w[0], 18);		/* 3 to spare */
	total = x[3] + w[3];
	CHECK(total <= 50, "ends at %d", total);
	/* 20 columns: only what fits (one address) */
	n = tui_layout(minw, want, prio, 6, 20, x, w);
	CHECK_EQ(n, 1);
	CHECK_EQ(w[0], 20);
	for (int width = 10; width < 120; width++) {
		tui_layout(minw, want, prio, 6, width, x, w);
		for (int i = 0; i < 6; i++)
			CHECK(!w[i] || x[i] + w[i] <= width, "width %d column %d ends at %d", width, i, x[i] + w[i]);
	}
	/* the real flow columns at 80: SRC DST DQPN DIR PKTS Gb/s CE CNP NAK */
	{
		short mn[32], wt[32];
		unsigned char pr[32];
		int xs[32], ws[32], k = 0;
		const char *want_titles[] = { "SRC", "DST", "DQPN", "DIR", "PKT/s", "Gb/s", "CE%", "CNP/s", "NAK/s" };
		int seen = 0;

		for (size_t i = 0; i < tui_nflow_cols; i++) {
			const struct tui_col *c = &tui_cols[tui_flow_cols[i]];

			if (c->flags & (TUI_COL_AVG | TUI_COL_PROC))
				continue;
			mn[k] = c->width;
			wt[k] = c->width;
			pr[k] = c->prio;
			k++;
		}
		tui_layout(mn, wt, pr, k, 80, xs, ws);
		for (int i = 0, j = 0; i < k; i++) {
			const struct tui_col *c = NULL;
			int m = 0;

			for (size_t q = 0; q < tui_nflow_cols; q++) {
				if (tui_cols[tui_flow_cols[q]].flags & (TUI_COL_AVG | TUI_COL_PROC))
					continue;
				if (m++ == i)
					c = &tui_cols[tui_flow_cols[q]];
			}
			if (!ws[i])
				continue;
			CHECK(j < 9 && !strcmp(c->title, want_titles[j]), "column %d is %s", j, c->title);
			j++;
			seen = j;
		}
		CHECK_EQ(seen, 9);
	}
	TEST_END("tui_layout");
}

static void test_misc(void)
{
	const double v[] = { 0, 5, 10 };
	char buf[64];

	tui_sparkline(v, 3, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "_=#"), "ascii sparkline '%s'", buf);
	tui_sparkline(v, 3, 1, buf, sizeof(buf));
	CHECK(!strcmp(buf, "\u2581\u2585\u2588"), "utf-8 sparkline '%s'", buf);
	CHECK_EQ((long)(tui_interval_step(1, 1) * 10), 20);
	CHECK_EQ((long)(tui_interval_step(1, 0) * 10), 5);
	CHECK_EQ((long)(tui_interval_step(0.7, 1) * 10), 10);
	CHECK_EQ((long)(tui_interval_step(60, 1)), 60);
	CHECK_EQ((long)(tui_interval_step(0.1, 0) * 10), 1);
	CHECK_EQ(tui_col_by_name("ce"), C_CE);
	CHECK_EQ(tui_col_by_name("congestion"), C_CONG);
	CHECK_EQ(tui_col_by_name("bytes"), C_GBPS);
	CHECK_EQ(tui_col_by_name("nope"), -1);
	TEST_END("tui_sparkline_interval_names");
}

/* every unit test's main lists its tests */
int main(void)
{
	test_spaceship();
	test_ring();
	test_rows();
	test_layout();
	test_misc();
	return TEST_EXIT();
}
