// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The findings engine's cost per interval beside the delta's (the baseline,
 * measured in the same run on the same snapshots): N flows, a quarter of them
 * CE-marked (congestion findings open on each), towards N/16 destinations
 * (incast on each), one priority paused (victims). Prints the time per
 * interval of rt_delta_compute() and of rt_findings_eval(), and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "findings.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(struct rt_snapshot *s, size_t n, int k)
{
	struct rt_ifdir *x;

	rt_snapshot_clear(s);
	rt_snapshot_add_iface(s, 1, "eth0", "bench");
	s->time_ns = s->mono_ns = 1700000000000000000ULL + (unsigned long long)k * 1000000000ULL;
	for (size_t i = 0; i < n; i++) {
		struct rt_flow *f = rt_snapshot_add_flow(s);
		__u64 p = (__u64)k * 100;

		f->k.ifindex = 1;
		f->k.family = 4;
		f->k.src[0] = 10;
		f->k.src[1] = (__u8)(i >> 16);
		f->k.src[2] = (__u8)(i >> 8);
		f->k.src[3] = (__u8)i;
		f->k.dst[0] = 11;
		f->k.dst[3] = (__u8)(i % (n / 16 + 1));
		f->k.dqpn = (__u32)i;
		f->v.pkts = p;
		f->v.ecn[RT_ECN_ECT0] = p;
		if (i % 4 == 0) {
			f->v.ecn[RT_ECN_CE] = p / 4;
			f->v.ecn[RT_ECN_ECT0] = p - p / 4;
		}
		f->v.dscp = (__u8)(i % 2 ? 26 : 10);
		f->v.pcp = RT_PCP_NONE;
		f->v.last_ns = s->mono_ns;
		f->throttles = -1;
	}
	x = rt_snapshot_ifdir(s, 1, RT_DIR_EGRESS);
	x->v.pfc_frames[3] = (__u64)k * 100;
	x->v.pfc_quanta[3] = (__u64)k * 100 * 0xffff;
	rt_snapshot_sort(s);
}

int main(void)
{
	static const size_t sizes[] = { 1000, 10000, 50000 };
	struct rt_find_cfg cfg;

	rt_find_cfg_defaults(&cfg);
	cfg.speed_mbps = 100000;
	printf("%8s %14s %14s %8s %8s\n", "flows", "delta us/int", "findings us/int", "ratio", "open");
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z];
		struct rt_snapshot s[2];
		struct rt_delta d = { 0 };
		struct rt_findings F;
		double td = 0, tf = 0, t0;
		size_t cnt[3];
		int k, iters = 8;

		rt_snapshot_init(&s[0]);
		rt_snapshot_init(&s[1]);
		rt_findings_init(&F, &cfg, &rt_rules);
		fill(&s[0], n, 1);
		for (k = 2; k < 2 + iters; k++) {
			struct rt_snapshot *prev = &s[k % 2], *cur = &s[(k + 1) % 2];

			fill(cur, n, k);
			t0 = now();
			if (rt_delta_compute(&d, prev, cur))
				return 1;
			td += now() - t0;
			t0 = now();
			if (rt_findings_eval(&F, cur, &d))
				return 1;
			tf += now() - t0;
		}
		rt_findings_count(&F, cnt);
		printf("%8zu %14.0f %14.0f %8.2f %8zu\n", n, td / iters * 1e6, tf / iters * 1e6, tf / td,
		       cnt[0] + cnt[1] + cnt[2]);
		rt_findings_free(&F);
		rt_delta_free(&d);
		rt_snapshot_free(&s[0]);
		rt_snapshot_free(&s[1]);
	}
	return 0;
}
