/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The synthetic flows of the user-space table benches (bench/table_bench.c,
 * bench/tui_bench.c, bench/nic_bench.c; bench/collect_cpu.c gives each a
 * destination of its own): flow i is IPv4 10.x.y.z -> 10.200.0.0
 * on ifindex 1 (a host pair of its own), a QP of its own, ingress or egress
 * by i's low bit. One copy, so the benches build the same table.
 */
#ifndef ROCETOP_BENCH_FLOWS_H
#define ROCETOP_BENCH_FLOWS_H

#include <string.h>
#include "rocetop.h"
#include "snapshot.h"

static inline void bench_flow_key(struct rt_flow_key *k, __u32 i)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = 1;
	k->family = 4;
	k->dir = i & 1;
	k->src[0] = 10;
	k->src[1] = (__u8)(i >> 16);
	k->src[2] = (__u8)(i >> 8);
	k->src[3] = (__u8)i;
	k->dst[0] = 10;
	k->dst[1] = 200;
	k->dqpn = 0x100 + (i & 0xffff);
}

/* The cases of the per-interval benches (nic_bench, tui_bench), measured
 * against the same targets for a whole interval: so many flows, one in
 * EVERY changing each interval. */
static const struct bench_case {
	__u32 flows, every;
	const char *what;
} bench_cases[] = {
	{ 10000, 1, "10k flows, all changing" },
	{ 10000, 100, "10k flows, 1% changing" },
	{ 100000, 100, "100k flows, 1% changing" },
	{ 100000, 1, "100k flows, all changing" },
};
#define BENCH_NCASES (sizeof(bench_cases) / sizeof(bench_cases[0]))

/* Whether flow i moves in interval k when one flow in EVERY does (all do in
 * the first interval, k 0). */
static inline int bench_flow_moves(__u32 i, __u32 every, int k)
{
	return !k || every <= 1 || i % every == (__u32)k % every;
}

/* Flow i's row in the persistent table s, touched as a source touches it
 * (before its counters move); NULL when the table cannot grow. */
static inline struct rt_flow *bench_flow_touch(struct rt_snapshot *s, __u32 i)
{
	struct rt_flow_key key;
	struct rt_flow *f;
	int fresh;

	bench_flow_key(&key, i);
	f = rt_snapshot_flow(s, &key, &fresh);
	if (f)
		rt_snapshot_touch(s, f);
	return f;
}

#endif
