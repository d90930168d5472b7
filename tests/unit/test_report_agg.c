// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report's aggregation (user/report/report_agg.c) on hand-built
 * intervals: the bounded moments against a full sort of every interval
 * done here, a recording's first interval, totals with sFlow estimates left
 * out, host pairs and their merge, the CNP questions. Expected values are
 * worked out in the comments.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "report_agg.h"
#include "fixture.h"

/* A flow of interface 7. */
static struct rt_flow_key key(const char *src, const char *dst, __u8 dir, __u32 qp)
{
	return key4(src, dst, 7, dir, qp);
}

/* One interval at t seconds, secs long: flows with their increases, one
 * interface with pause frames. */
struct ivl {
	struct rt_snapshot s;
	struct rt_delta d;
	struct rt_flow f[4];
	struct rt_flow_delta fd[4];
	struct rt_ifdir ifd;
	struct rt_ifdir_delta id;
};

static void ivl_init(struct ivl *x, double t, double secs)
{
	memset(x, 0, sizeof(*x));
	rt_snapshot_init(&x->s);
	x->s.time_ns = (__u64)(t * 1e9);
	x->d.secs = secs;
	x->d.flows = x->fd;
	x->d.ifs = &x->id;
	x->ifd.k.ifindex = 7;
	x->id.s = &x->ifd;
}

static struct rt_flow_delta *ivl_flow(struct ivl *x, struct rt_flow_key k, __u64 pkts, __u64 ce)
{
	struct rt_flow_delta *e = &x->fd[x->d.nflows];

	x->f[x->d.nflows].k = k;
	x->f[x->d.nflows].throttles = -1;
	e->f = &x->f[x->d.nflows++];
	e->d.pkts = pkts;
	e->d.ecn[RT_ECN_CE] = ce;
	x->d.flow_tot.pkts += pkts;
	x->d.flow_tot.ecn[RT_ECN_CE] += ce;
	return e;
}

static void ivl_pause(struct ivl *x, __u64 frames, __u64 xon, __u64 quanta)
{
	x->d.nifs = 1;
	x->id.d.pfc_frames[3] = frames;
	x->id.d.pfc_xon[3] = xon;
	x->id.d.pfc_quanta[3] = quanta;
}

/* What the test expects: every interval, sorted here. */
struct mom { __u64 t, ce, pause, quanta; };

static int mom_by_ce(const void *a, const void *b)
{
	const struct mom *x = a, *y = b;	/* all intervals 1 s long: rate = CE */

	if (x->ce != y->ce)
		return x->ce > y->ce ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int mom_by_pause(const void *a, const void *b)
{
	const struct mom *x = a, *y = b;

	if (x->pause != y->pause)
		return x->pause > y->pause ? -1 : 1;
	if (x->quanta != y->quanta)
		return x->quanta > y->quanta ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static void test_moments_topk(void)
{
	enum { N = 5000, K = 7 };
	static struct mom all[N];
	struct rt_rep r;
	struct rt_flow_key k = key("10.0.0.1", "10.0.0.2", 0, 5);
	unsigned int seed = 12345;
	size_t i, nce = 0, npause = 0;
	const struct rt_rep_moment *m;

	CHECK_EQ(rt_rep_init(&r, K), 0);
	for (i = 0; i < N; i++) {
		struct ivl x;

		/* CE 0..40 with many ties, pauses 0..9 less XON 0..2, quanta 0..3 */
		seed = seed * 1103515245 + 12345;
		all[i].t = 1000 + i;
		all[i].ce = (seed >> 16) % 41;
		all[i].pause = (seed >> 8) % 10;
		all[i].quanta = (seed >> 4) % 4;
		ivl_init(&x, (double)all[i].t, 1.0);
		ivl_flow(&x, k, 100, all[i].ce);
		ivl_pause(&x, all[i].pause + 2, 2, all[i].quanta);
		CHECK_EQ(rt_rep_take(&r, &x.s, &x.d), 0);
		nce += all[i].ce != 0;
		npause += all[i].pause || all[i].quanta;
	}
	CHECK_EQ(rt_rep_finish(&r, 0), 0);
	CHECK_EQ(r.intervals, N);
	CHECK_EQ(r.tot.pkts, 100 * N);
	/* The 7 best of every interval, as a full sort puts them. */
	qsort(all, N, sizeof(all[0]), mom_by_ce);
	m = rt_rep_top_sorted(&r.ce_peaks);
	CHECK_EQ(r.ce_peaks.n, K);
	for (i = 0; i < K; i++) {
		CHECK_EQ(m[i].time_ns, all[i].t * 1000000000ULL);
		CHECK_EQ(m[i].ce, all[i].ce);
	}
	CHECK_EQ(r.ce_peaks.left_out, nce - K);
	qsort(all, N, sizeof(all[0]), mom_by_pause);
	m = rt_rep_top_sorted(&r.pfc_peaks);
	for (i = 0; i < K; i++) {
		CHECK_EQ(m[i].time_ns, all[i].t * 1000000000ULL);
		CHECK_EQ(m[i].pfc - m[i].xon, all[i].pause);
		CHECK_EQ(m[i].quanta, all[i].quanta);
	}
	CHECK_EQ(r.pfc_peaks.left_out, npause - K);
	rt_rep_free(&r);
	TEST_END("report_agg_moments_topk_equals_full_sort");
}

/* A recording's first interval (secs 0) takes the second's length: 10 CE
 * over 0.5 s (20/s) outranks 8 CE over 0.5 s (16/s) at t = 2.5. */
static void test_first_interval(void)
{
	struct rt_rep r;
	struct rt_flow_key k = key("10.0.0.1", "10.0.0.2", 0, 5);
	struct ivl a, b;
	const struct rt_rep_moment *m;

	rt_rep_init(&r, 10);
	ivl_init(&a, 2.0, 0);
	ivl_flow(&a, k, 10, 10);
	ivl_init(&b, 2.5, 0.5);
	ivl_flow(&b, k, 8, 8);
	rt_rep_take(&r, &a.s, &a.d);
	rt_rep_take(&r, &b.s, &b.d);
	CHECK_EQ(rt_rep_finish(&r, 0), 0);
	CHECK_EQ(r.step_ns, 500000000);
	m = rt_rep_top_sorted(&r.ce_peaks);
	CHECK_EQ(r.ce_peaks.n, 2);
	CHECK_EQ(m[0].time_ns, 2000000000);
	CHECK(m[0].secs == 0.5, "first moment %.3f s, want 0.5", m[0].secs);
	CHECK_EQ(m[1].time_ns, 2500000000ULL);
	rt_rep_free(&r);

	/* One interval of a capture: its length is the grid's. */
	rt_rep_init(&r, 10);
	ivl_init(&a, 3.0, 0.25);
	ivl_flow(&a, k, 4, 1);
	rt_rep_take(&r, &a.s, &a.d);
	CHECK_EQ(rt_rep_finish(&r, 0.25), 0);
	CHECK_EQ(r.step_ns, 250000000);
	CHECK_EQ(r.ce_peaks.n, 1);
	rt_rep_free(&r);
	TEST_END("report_agg_first_interval");
}

/* Flows, estimates, host pairs, CNP questions over two intervals. */
static void test_flows_pairs(void)
{
	struct rt_flow_key d1 = key("10.0.0.1", "10.0.0.2", 0, 5);	/* data a -> b */
	struct rt_flow_key d2 = key("10.0.0.1", "10.0.0.2", 1, 6);	/* data a -> b, other qp */
	struct rt_flow_key c1 = key("10.0.0.2", "10.0.0.1", 1, 9);	/* CNPs b -> a, unattributed */
	struct rt_flow_key o1 = key("10.0.0.3", "10.0.0.4", 0, 1);	/* another pair */
	struct rt_rep r, r2;
	struct ivl x, y;
	struct rt_flow_delta *e;
	const struct rt_rep_flow *f;
	const struct rt_rep *both[2];
	struct rt_rep_pair *mp;
	size_t nmp;

	rt_rep_init(&r, 10);
	ivl_init(&x, 1, 1);
	ivl_flow(&x, d1, 100, 3);
	ivl_flow(&x, d2, 50, 0);
	e = ivl_flow(&x, c1, 4, 0);
	e->d.cnp = 4;
	e = ivl_flow(&x, o1, 1000, 0);	/* an sFlow estimate: left out */
	x.f[3].estimate = 1;
	e->samples = 10;
	x.d.flow_tot.pkts -= 1000;	/* flow_tot sums the exact flows only */
	ivl_init(&y, 2, 1);
	ivl_flow(&y, d1, 20, 1);
	rt_rep_take(&r, &x.s, &x.d);
	rt_rep_take(&r, &y.s, &y.d);
	CHECK_EQ(rt_rep_finish(&r, 0), 0);
	CHECK_EQ(r.n, 3);		/* d1, d2, c1 */
	CHECK_EQ(r.est_pkts, 1000);
	CHECK_EQ(r.est_samples, 10);
	CHECK_EQ(r.tot.pkts, 174);	/* 100 + 50 + 4 + 20 */
	f = rt_rep_flow_of(&r, &d1);
	CHECK(f != NULL, "d1 kept");
	if (f) {
		CHECK_EQ(f->v.pkts, 120);
		CHECK_EQ(f->v.ecn[RT_ECN_CE], 4);
	}
	CHECK(rt_rep_flow_of(&r, &o1) == NULL, "the estimate has no row");
	/* One pair, both directions: 3 flows, 174 packets. */
	CHECK_EQ(r.npairs, 1);
	CHECK_EQ(r.pairs[0].flows, 3);
	CHECK_EQ(r.pairs[0].v.pkts, 174);
	/* The CNP flow (b -> a) has two data flows going the other way, with two QPs. */
	f = rt_rep_flow_of(&r, &c1);
	CHECK(f && rt_rep_cnp_candidates(&r, f) == 2, "two candidates");
	CHECK(rt_rep_data_flow(&r, &d2) == rt_rep_flow_of(&r, &d2), "d2 is a data flow");
	CHECK(rt_rep_data_flow(&r, &c1) == NULL, "a CNP flow carries no data");

	/* A second file with the same pair (8 pkts) and another (5): merged,
	 * the busier pair first (score 4 CE + 4 CNP against 0). */
	rt_rep_init(&r2, 10);
	ivl_init(&x, 1, 1);
	ivl_flow(&x, d1, 8, 0);
	ivl_flow(&x, o1, 5, 0);
	rt_rep_take(&r2, &x.s, &x.d);
	rt_rep_finish(&r2, 0);
	both[0] = &r;
	both[1] = &r2;
	CHECK_EQ(rt_rep_pairs_merge(both, 2, &mp, &nmp), 0);
	CHECK_EQ(nmp, 2);
	if (nmp == 2) {
		CHECK_EQ(mp[0].flows, 4);
		CHECK_EQ(mp[0].v.pkts, 182);
		CHECK_EQ(mp[1].v.pkts, 5);
	}
	free(mp);
	rt_rep_free(&r);
	rt_rep_free(&r2);
	TEST_END("report_agg_flows_pairs_estimates");
}

/* A host's flows for rt_rep_clocks: (qp, first s, last s, packets), from
 * 10.0.0.1 to 10.0.0.2. */
struct hflow { __u32 qp; double first, last; __u64 pkts; };

static void host_of(struct rt_rep *r, struct rt_rep_flow *fl, struct rt_rep_flow **fp,
		    const struct hflow *h, size_t n)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->step_ns = r->max_step_ns = 1000000000ULL;
	for (i = 0; i < n; i++) {
		memset(&fl[i], 0, sizeof(fl[i]));
		fl[i].k = key("10.0.0.1", "10.0.0.2", RT_DIR_INGRESS, h[i].qp);
		fl[i].v.pkts = h[i].pkts;
		fl[i].first_wall = (__u64)(h[i].first * 1e9);
		fl[i].last_wall = (__u64)(h[i].last * 1e9);
		fp[i] = &fl[i];
	}
	r->flows = fp;
	r->n = n;
}

/*
 * Host 1 runs 2.5 s (qp 5) and 2.6 s (qp 6) ahead of host 0: the median of
 * the four differences (first and last of each) is 2.55 s. Its qp 7 (twice
 * the packets) and qp 8 (ten times as long) are other flows that happen to
 * share the key: taken, they would move the median (300 s away). Host 2
 * shares qp 9 with host 1 only, 1 s behind it: 1.55 s ahead of host 0. Host
 * 3 shares nothing. Host 4 is host 0's own other file: on its clock (0),
 * though its qp 5 against host 1's would say -0.45 s.
 */
static void test_clocks(void)
{
	static const struct hflow h0[] = { { 5, 100, 110, 1000 }, { 6, 100.5, 105, 500 }, { 7, 200, 201, 10 },
					   { 8, 400, 401, 100 }, { 12, 100, 110, 1000 } };
	static const struct hflow h1[] = { { 5, 102.5, 112.5, 1000 }, { 6, 103.1, 107.6, 490 },
					   { 7, 500, 501, 20 }, { 8, 700, 709, 100 }, { 9, 300, 301, 50 } };
	static const struct hflow h2[] = { { 9, 299, 300, 50 } };
	static const struct hflow h3[] = { { 11, 100, 110, 1000 } };
	static const struct hflow h4[] = { { 12, 100, 110, 1000 }, { 5, 99.5, 109.5, 1000 } };
	const struct hflow *hs[] = { h0, h1, h2, h3, h4 };
	const size_t nh[] = { 5, 5, 1, 1, 2 };
	const char *host0[] = { "x", "", "", "", "x" };
	struct rt_rep r[5], *rp[5];
	struct rt_rep_flow fl[5][5], *fp[5][5];
	struct rt_rep_clock c[5];
	int i;

	for (i = 0; i < 5; i++) {
		host_of(&r[i], fl[i], fp[i], hs[i], nh[i]);
		rp[i] = &r[i];
	}
	CHECK(rt_rep_clocks((const struct rt_rep *const *)rp, host0, 5, c) == 0, "clocks");
	CHECK(c[0].known && c[0].offset_ns == 0, "host 0: the reference");
	CHECK(c[1].known && c[1].offset_ns == 2550000000LL && c[1].flows == 2 && c[1].against == 0,
	      "host 1: +2.55 s from 2 flows, got %lld from %u", (long long)c[1].offset_ns, c[1].flows);
	CHECK(c[1].lo_ns == 2500000000LL && c[1].hi_ns == 2600000000LL, "host 1: differences 2.5 to 2.6 s");
	CHECK(c[2].known && c[2].offset_ns == 1550000000LL && c[2].flows == 1 && c[2].against == 1,
	      "host 2: +1.55 s through host 1, got %lld", (long long)c[2].offset_ns);
	CHECK(!c[3].known && !c[3].shares && c[3].against == -1, "host 3: not estimated, shares nothing");
	CHECK(c[4].known && c[4].same_host && c[4].against == 0 && c[4].offset_ns == 0,
	      "host 4: host 0's own file, on its clock, got %lld", (long long)c[4].offset_ns);
	TEST_END("report_clocks");
}

/*
 * A live recording stamps a flow with its snapshots' times: host 1's last
 * snapshot of qp 20 came 0.75 s late (-d 0.2, a loaded host), so the flow
 * seems to last 4.75 s there against 4.0 s on host 0, more than 10% plus
 * -d apart. Within 10% plus host 1's longest interval (0.95 s), it is the
 * same flow: host 1's clock is placed, +0.2 s from its first and +0.95 s
 * from its last (the mean of the two).
 */
static void test_clocks_late(void)
{
	static const struct hflow h0[] = { { 20, 100.0, 104.0, 400 } };
	static const struct hflow h1[] = { { 20, 100.2, 104.95, 400 } };
	struct rt_rep r[2], *rp[2] = { &r[0], &r[1] };
	struct rt_rep_flow fl[2][1], *fp[2][1];
	const char *host0[] = { "", "" };
	struct rt_rep_clock c[2];

	host_of(&r[0], fl[0], fp[0], h0, 1);
	host_of(&r[1], fl[1], fp[1], h1, 1);
	r[0].step_ns = r[1].step_ns = r[0].max_step_ns = 200000000ULL;
	r[1].max_step_ns = 950000000ULL;
	CHECK(rt_rep_clocks((const struct rt_rep *const *)rp, host0, 2, c) == 0, "clocks");
	CHECK(c[1].known && c[1].flows == 1 && c[1].offset_ns == 575000000LL,
	      "host 1: placed by qp 20 despite its late snapshot, got known %d, %u flows, %lld ns", c[1].known,
	      c[1].flows, (long long)c[1].offset_ns);
	r[1].max_step_ns = 200000000ULL;
	CHECK(rt_rep_clocks((const struct rt_rep *const *)rp, host0, 2, c) == 0, "clocks");
	CHECK(!c[1].known, "host 1: with every interval 0.2 s long, 4.75 s is not 4.0 s");
	TEST_END("report_clocks_late");
}

/* A live recording's flow times are on the monotonic clock: on the wall
 * clock they are the snapshot's time less how long before its mono_ns they
 * were (a snapshot at 1000 s wall, 50 s monotonic; packets at 48 and 49.5 s
 * monotonic, then 50.5 s in the next at 1001 s, 51 s). rt_rep_shift moves them. */
static void test_wall(void)
{
	struct rt_rep_run run;
	struct rt_flow_key k = key("10.0.0.1", "10.0.0.2", 0, 5);
	struct rt_flow_delta *e;
	struct ivl a, b;

	memset(&run, 0, sizeof(run));
	rt_rep_init(&run.agg, 10);
	ivl_init(&a, 1000, 1);
	a.s.mono_ns = 50000000000ULL;
	e = ivl_flow(&a, k, 10, 0);
	e->d.first_ns = 48000000000ULL;
	e->d.last_ns = 49500000000ULL;
	ivl_init(&b, 1001, 1);
	b.s.mono_ns = 51000000000ULL;
	e = ivl_flow(&b, k, 1, 0);
	e->d.first_ns = 48000000000ULL;
	e->d.last_ns = 50500000000ULL;
	rt_rep_take(&run.agg, &a.s, &a.d);
	rt_rep_take(&run.agg, &b.s, &b.d);
	CHECK_EQ(rt_rep_finish(&run.agg, 0), 0);
	CHECK_EQ(run.agg.flows[0]->first_wall, 998000000000ULL);
	CHECK_EQ(run.agg.flows[0]->last_wall, 1000500000000ULL);
	rt_rep_shift(&run, -2500000000LL);
	CHECK_EQ(run.agg.flows[0]->first_wall, 995500000000ULL);
	CHECK_EQ(run.agg.first_ns, 997500000000ULL);
	CHECK_EQ(run.agg.last_ns, 998500000000ULL);
	rt_rep_free(&run.agg);
	TEST_END("report_flow_wall_clock");
}

/* A CNP flow's target on another host: only when active about then. */
static void test_cnp_window(void)
{
	static const struct hflow d[] = { { 5, 100, 110, 1000 } };
	struct rt_rep r;
	struct rt_rep_flow fl[1], *fp[1], c;

	host_of(&r, fl, fp, d, 1);
	memset(&c, 0, sizeof(c));
	c.target = fl[0].k;
	c.first_wall = 111500000000ULL;	/* 1.5 s after the data's last packet */
	c.last_wall = 115000000000ULL;
	CHECK(rt_rep_data_flow_near(&r, &c, 1000000000ULL) == NULL, "1.5 s apart: not within 1 s");
	CHECK(rt_rep_data_flow_near(&r, &c, 2000000000ULL) == &fl[0], "1.5 s apart: within 2 s");
	c.first_wall = 90000000000ULL;	/* overlapping */
	CHECK(rt_rep_data_flow_near(&r, &c, 0) == &fl[0], "overlapping: matched with no window");
	TEST_END("report_cnp_window");
}

int main(void)
{
	test_moments_topk();
	test_first_interval();
	test_flows_pairs();
	test_clocks();
	test_clocks_late();
	test_wall();
	test_cnp_window();
	return TEST_EXIT();
}
