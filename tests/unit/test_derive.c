// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The derived views at their homes: user/core/derive.c (ranking, CE %, host
 * pairs, enum names), user/core/table.c (rt_grow_to, rt_append, the
 * open-addressed table) and user/lib/num.c (the number parser). Expected
 * values are worked out by hand in the comments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "derive.h"
#include "num.h"
#include "table.h"
#include "fixture.h"

static void test_percent(void)
{
	struct rt_flow_val v = { 0 };

	CHECK(rt_ce_pct(&v) == 0.0, "no packets: 0 %%");
	v.pkts = 8;
	v.ecn[RT_ECN_CE] = 2;
	CHECK(rt_ce_pct(&v) == 25.0, "2 CE of 8 = 25 %%, got %g", rt_ce_pct(&v));
	v.ecn[RT_ECN_CE] = 8;
	CHECK(rt_ce_pct(&v) == 100.0, "all marked");
	CHECK(rt_pct(1, 3) > 33.33 && rt_pct(1, 3) < 33.34, "1 of 3");
	CHECK(rt_pct(5, 0) == 0.0, "of nothing: 0");
	/* paused 1.5 s of a 1 s interval (quanta add up past it) caps at 100 % */
	CHECK(rt_share_pct(1.5, 1.0) == 100.0, "capped");
	CHECK(rt_share_pct(0.25, 1.0) == 25.0, "a quarter");
	CHECK(rt_share_pct(1, 0) == 0.0, "no interval");
	TEST_END("derive_percent");
}

static void test_ranking(void)
{
	struct rt_flow f[4];
	struct rt_flow_delta d[4], *p[4];
	int i;

	memset(f, 0, sizeof(f));
	memset(d, 0, sizeof(d));
	for (i = 0; i < 4; i++) {
		f[i].k = key4("10.0.0.1", "10.0.0.2", 1, 0, 100 + (__u32)i);
		d[i].f = &f[i];
		p[i] = &d[i];
	}
	/* score = CE + CNP + NAK seq + NAK other + RNR */
	d[0].d.ecn[RT_ECN_CE] = 1; d[0].d.cnp = 1; d[0].d.pkts = 10;	/* 2 */
	d[1].d.nak_seq = 1; d[1].d.nak_other = 1; d[1].d.rnr_nak = 1; d[1].d.pkts = 5;	/* 3 */
	d[2].d.ecn[RT_ECN_CE] = 2; d[2].d.pkts = 50;			/* 2, busier than d[0] */
	d[3].d.ecn[RT_ECN_CE] = 2; d[3].d.pkts = 50;			/* ties d[2] this interval */
	f[3].v.cnp = 7;							/* but 7 more since the start */
	CHECK_EQ(rt_congestion(&d[1].d), 3);
	CHECK_EQ(rt_nak(&d[1].d), 2);
	qsort(p, 4, sizeof(p[0]), rt_delta_qcmp_congestion);
	/* 3 first; then the 2s by packets (50 > 10), the 50s by overall congestion */
	CHECK(p[0] == &d[1] && p[1] == &d[3] && p[2] == &d[2] && p[3] == &d[0],
	      "order %ld %ld %ld %ld", (long)(p[0] - d), (long)(p[1] - d), (long)(p[2] - d), (long)(p[3] - d));
	/* full ties fall back to the key: dqpn 100 < 101 */
	memset(&d[0].d, 0, sizeof(d[0].d));
	memset(&d[1].d, 0, sizeof(d[1].d));
	CHECK(rt_delta_cmp_congestion(&d[0], &d[1]) < 0, "key order on ties");
	CHECK(rt_delta_cmp_congestion(&d[1], &d[1]) == 0, "equal to itself");
	TEST_END("derive_ranking");
}

/* Packets, the most first (or the fewest when *(int *)arg), then derive.h's order. */
static int by_pkts(const struct rt_flow_delta *a, const struct rt_flow_delta *b, void *arg)
{
	int c = a->d.pkts < b->d.pkts ? 1 : a->d.pkts > b->d.pkts ? -1 : 0;

	if (*(const int *)arg)
		c = -c;
	return c ? c : rt_delta_cmp_congestion(a, b);
}

static int by_pkts_q(const void *a, const void *b, void *arg)
{
	return by_pkts(*(const struct rt_flow_delta *const *)a, *(const struct rt_flow_delta *const *)b, arg);
}

/*
 * rt_delta_top against the oracle: qsort of a copy of all n, first K. Random
 * deltas with many ties (small ranges), so the key's tie-break is exercised.
 */
static void test_top(void)
{
	enum { N = 2000 };
	static struct rt_flow rows[N];
	static struct rt_flow_delta d[N];
	static const struct rt_flow_delta *v[N], *all[N];
	static const size_t ks[] = { 0, 1, 2, 7, 20, 100, 1999, 2000, 2500 };
	unsigned int seed = 12345;

	for (int round = 0; round < 20; round++) {
		size_t n = round == 0 ? 0 : round == 1 ? 1 : (size_t)(rand_r(&seed) % N) + 1;

		for (size_t i = 0; i < n; i++) {
			memset(&rows[i], 0, sizeof(rows[i]));
			rows[i].k.ifindex = 1 + (__u32)(rand_r(&seed) % 3);
			rows[i].k.family = 4;
			rows[i].k.dqpn = (__u32)(rand_r(&seed) % 64);
			rows[i].k.src[3] = (__u8)i;
			rows[i].k.src[2] = (__u8)(i >> 8);
			rows[i].v.ecn[RT_ECN_CE] = (__u64)(rand_r(&seed) % 5);
			memset(&d[i], 0, sizeof(d[i]));
			d[i].f = &rows[i];
			d[i].d.pkts = (__u64)(rand_r(&seed) % 10);
			d[i].d.ecn[RT_ECN_CE] = (__u64)(rand_r(&seed) % 4);
			d[i].d.cnp = (__u64)(rand_r(&seed) % 3);
			d[i].d.nak_seq = (__u64)(rand_r(&seed) % 2);
			v[i] = all[i] = &d[i];
		}
		qsort(all, n, sizeof(*all), rt_delta_qcmp_congestion);
		for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
			size_t k = ks[j], want = k < n ? k : n, got, bad = 0;

			for (size_t i = 0; i < n; i++)
				v[i] = &d[(i * 7919) % n];	/* shuffled: 7919 is a prime above N */
			got = rt_delta_top(v, n, k, rt_delta_cmp_congestion);
			for (size_t i = 0; i < want; i++)
				bad += v[i] != all[i];
			CHECK(got == want && !bad, "top %zu of %zu: %zu returned, %zu differ from qsort's first %zu",
			      k, n, got, bad, want);
		}
		/* With an order that takes an argument (--batch --sort): by packets,
		 * the fewest first when the argument says so, against qsort_r's. */
		for (int fewest = 0; fewest < 2; fewest++) {
			qsort_r(all, n, sizeof(*all), by_pkts_q, &fewest);
			for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
				size_t k = ks[j], want = k < n ? k : n, got, bad = 0;

				for (size_t i = 0; i < n; i++)
					v[i] = &d[(i * 7919) % n];
				got = rt_delta_top_r(v, n, k, by_pkts, &fewest);
				for (size_t i = 0; i < want; i++)
					bad += v[i] != all[i];
				CHECK(got == want && !bad, "top %zu of %zu by packets (fewest first: %d): %zu returned, "
				      "%zu differ from qsort_r's first %zu", k, n, fewest, got, bad, want);
			}
		}
	}
}

static void test_hostpair(void)
{
	struct rt_flow_key ab = key4("10.0.0.1", "10.0.0.2", 3, RT_DIR_INGRESS, 17);
	struct rt_flow_key ab2 = key4("10.0.0.1", "10.0.0.2", 4, RT_DIR_EGRESS, 99);
	struct rt_flow_key ba = key4("10.0.0.2", "10.0.0.1", 3, RT_DIR_INGRESS, 18);
	struct rt_hostpair x, y;

	/* per interface: the same hosts on two interfaces are two pairs */
	rt_hostpair_of(&x, &ab, RT_HP_IFACE);
	rt_hostpair_of(&y, &ab2, RT_HP_IFACE);
	CHECK_EQ(x.ifindex, 3);
	CHECK(rt_hostpair_cmp(&x, &y) < 0, "ifindex 3 before 4");
	/* directed: one pair over interfaces and QPs, but not the reverse */
	rt_hostpair_of(&x, &ab, RT_HP_DIRECTED);
	rt_hostpair_of(&y, &ab2, RT_HP_DIRECTED);
	CHECK(!rt_hostpair_cmp(&x, &y) && rt_hostpair_hash(&x) == rt_hostpair_hash(&y), "directed: same pair");
	CHECK_EQ(x.ifindex, 0);
	rt_hostpair_of(&y, &ba, RT_HP_DIRECTED);
	CHECK(rt_hostpair_cmp(&x, &y) < 0, "10.0.0.1 > .2 before .2 > .1");
	/* either way: both directions are one pair, lower address first */
	rt_hostpair_of(&x, &ab, RT_HP_EITHER);
	rt_hostpair_of(&y, &ba, RT_HP_EITHER);
	CHECK(!rt_hostpair_cmp(&x, &y) && rt_hostpair_hash(&x) == rt_hostpair_hash(&y), "either: same pair");
	CHECK(y.a[3] == 1 && y.b[3] == 2, "a = 10.0.0.1, b = 10.0.0.2");
	TEST_END("derive_hostpair");
}

static void test_names(void)
{
	CHECK(!strcmp(rt_scope_name(RT_SCOPE_HW_PORT), "hw_counters"), "scope key");
	CHECK(!strcmp(rt_scope_names(RT_SCOPE_HW_DEV)->key, "device_hw_counters"), "dev key");
	CHECK(!strcmp(rt_scope_names(RT_SCOPE_HW_PORT)->label, "hw_port"), "scope label");
	CHECK(!strcmp(rt_scope_name(200), "unknown"), "out of range");
	CHECK(!strcmp(rt_attr_names(RT_ATTR_HOSTPAIR)->key, "host-pair"), "attr key");
	CHECK(!strcmp(rt_attr_names(RT_ATTR_NETLINK)->label, "rdma netlink"), "attr label");
	CHECK(!strcmp(rt_attr_names(99)->label, ""), "attr out of range");
	CHECK(!strcmp(rt_ecn_name(RT_ECN_ECT0), "ect0") && !strcmp(rt_ecn_name(RT_ECN_CE), "ce") &&
	      !strcmp(rt_ecn_name(RT_ECN_ECT1), "ect1") && !strcmp(rt_ecn_name(RT_ECN_NOT_ECT), "not_ect"),
	      "ecn keys");
	CHECK(!strcmp(rt_dir_name(RT_DIR_EGRESS), "egress") && !strcmp(rt_dir_name(RT_DIR_INGRESS), "ingress"),
	      "directions");
	TEST_END("derive_names");
}

struct ent {
	__u32 k;
	__u32 v;
};

static void test_table(void)
{
	struct rt_htab t;
	struct ent *e;
	int fresh, i, bad = 0;
	__u32 k;
	size_t n = 0, cap = 0, used = 0;
	int *arr = NULL;

	rt_htab_init(&t, sizeof(struct ent), sizeof(__u32), 3000);
	/* 3000 keys with a hash that collides in fours: they probe and survive growth */
	for (k = 0; k < 3000; k++) {
		e = rt_htab_get(&t, &k, k / 4, &fresh);
		if (!e || !fresh || e->k != k || e->v != 0)
			bad++;
		else
			e->v = k * 3;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(t.n, 3000);
	CHECK_EQ(t.cap, 8192);	/* 1024 -> 2048 -> 4096 -> 8192: at most half full */
	for (k = 0; k < 3000; k++) {
		e = rt_htab_find(&t, &k, k / 4);
		if (!e || e->v != k * 3)
			bad++;
	}
	CHECK_EQ(bad, 0);
	k = 1;
	e = rt_htab_get(&t, &k, 0, &fresh);
	CHECK(e && !fresh && e->v == 3, "found again, not inserted");
	k = 5000;
	errno = 0;
	CHECK(!rt_htab_get(&t, &k, k / 4, &fresh) && errno == ENOSPC, "full at max");
	CHECK(!rt_htab_find(&t, &k, k / 4), "absent");
	for (size_t s = 0; s < t.cap; s++)
		used += t.used[s];
	CHECK_EQ(used, 3000);
	rt_htab_clear(&t);
	CHECK(t.n == 0 && !rt_htab_find(&t, &k, 0), "cleared");
	rt_htab_free(&t);

	for (i = 0; i < 100; i++) {
		int *x = rt_append((void **)&arr, &n, &cap, sizeof(*arr));

		if (!x || *x)
			bad++;
		else
			*x = i;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(n, 100);
	CHECK_EQ(cap, 128);	/* 16, 32, 64, 128 */
	CHECK(arr[0] == 0 && arr[99] == 99, "kept");
	CHECK_EQ(rt_grow_to((void **)&arr, &cap, 50, sizeof(*arr)), 0);
	CHECK_EQ(cap, 128);	/* never shrinks */
	CHECK_EQ(rt_grow_to((void **)&arr, &cap, 1000, sizeof(*arr)), 0);
	CHECK_EQ(cap, 1000);	/* exactly what was asked */
	CHECK(arr[99] == 99, "kept after growing");
	free(arr);
	TEST_END("table");
}

static double num(const char *s, enum rt_num_kind k, double lo, double hi)
{
	double v = -12345;

	if (rt_parse_num(s, k, lo, hi, &v))
		return NAN;
	return v;
}

static void test_num(void)
{
	/* the cases' table itself: rows alike in shape, one per input */
	static const struct {
		const char *s;
		enum rt_num_kind k;
		double lo, hi, want;	/* want NAN: refused */
		const char *what;
	} cases[] = {
		{ "0.5", RT_NUM_REAL, 0, 10, 0.5, "real" },
		{ "0.5x", RT_NUM_REAL, 0, 10, NAN, "trailing junk" },
		{ "", RT_NUM_REAL, 0, 10, NAN, "empty" },
		{ "nan", RT_NUM_REAL, -1e9, 1e9, NAN, "nan" },
		{ "inf", RT_NUM_REAL, 0, INFINITY, NAN, "inf" },
		{ "11", RT_NUM_REAL, 0, 10, NAN, "above" },
		{ "42", RT_NUM_INT, 0, 100, 42, "int" },
		{ "4.2", RT_NUM_INT, 0, 100, NAN, "not whole" },
		{ "99999999999999999999", RT_NUM_INT, 0, 1e30, NAN, "overflow" },
		{ "100M", RT_NUM_SIZE, 4096, 1e15, 100e6, "100M" },
		{ "4k", RT_NUM_SIZE, 4096, 1e15, NAN, "4k is below 4096" },
		{ "2G", RT_NUM_SIZE, 4096, 1e15, 2e9, "2G" },
		{ "8192", RT_NUM_SIZE, 4096, 1e15, 8192, "bytes" },
		{ "1MB", RT_NUM_SIZE, 4096, 1e15, NAN, "MB is not a unit here" },
		/* speeds in Mb/s; a bare number is Gb/s */
		{ "25G", RT_NUM_SPEED, 1, 1e7, 25000, "25G" },
		{ "100", RT_NUM_SPEED, 1, 1e7, 100000, "bare 100 = 100G" },
		{ "40000M", RT_NUM_SPEED, 1, 1e7, 40000, "40000M" },
		{ "1T", RT_NUM_SPEED, 1, 1e7, 1e6, "1T" },
		{ "400Gb/s", RT_NUM_SPEED, 1, 1e7, 400000, "400Gb/s" },
		{ "10Gbit", RT_NUM_SPEED, 1, 1e7, 10000, "10Gbit" },
		{ "10Gbps", RT_NUM_SPEED, 1, 1e7, NAN, "bps" },
		{ "0", RT_NUM_SPEED, 1, 1e7, NAN, "zero" },
		/* durations in seconds */
		{ "2", RT_NUM_SECONDS, 0, 86400, 2, "2 s" },
		{ "250ms", RT_NUM_SECONDS, 0, 86400, 0.25, "250 ms" },
		{ "2m", RT_NUM_SECONDS, 0, 86400, 120, "2 min" },
		{ "1h", RT_NUM_SECONDS, 0, 86400, 3600, "1 h" },
		{ "1.5s", RT_NUM_SECONDS, 0, 86400, 1.5, "1.5 s" },
		{ "2d", RT_NUM_SECONDS, 0, 1e9, NAN, "days are not a unit" },
		{ "5ms", RT_NUM_SECONDS, 0.01, 86400, NAN, "below the range after the unit" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double got = num(cases[i].s, cases[i].k, cases[i].lo, cases[i].hi);

		CHECK(isnan(cases[i].want) ? isnan(got) : got == cases[i].want, "%s: '%s' gave %g",
		      cases[i].what, cases[i].s, got);
	}
	TEST_END("num");
}

int main(void)
{
	test_percent();
	test_ranking();
	test_top();
	test_hostpair();
	test_names();
	test_table();
	test_num();
	return TEST_EXIT();
}
