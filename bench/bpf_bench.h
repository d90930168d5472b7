/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF benches (bench/xdp_bench.c, tc_bench.c, xdp_ab.c) share beyond
 * the frames (bench/frames.h): the rounds' arguments and rocetop's object
 * loaded as the live source loads it, beside the pass-only XDP program.
 * Include after live_maps.h, rocetop.skel.h and bench_pass.skel.h.
 */
#ifndef ROCETOP_BENCH_BPF_BENCH_H
#define ROCETOP_BENCH_BPF_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* -r ROUNDS (1 to max) and -n REPEAT (positive): 0, or -1 after saying so. */
static inline int bench_rounds_ok(const char *who, int rounds, int max, __u32 repeat)
{
	if (rounds >= 1 && rounds <= max && repeat >= 1)
		return 0;
	fprintf(stderr, "%s: -r takes 1 to %d rounds, -n a positive repeat count\n", who, max);
	return -1;
}

/* rocetop.bpf.o as the live source loads it (the flow table sized for 16384
 * flows a CPU), libbpf's messages off; NULL after saying why. */
static inline struct rocetop_bpf *bench_load_rocetop(const char *who)
{
	struct rocetop_bpf *rt;

	libbpf_set_print(silent);
	rt = rt_skel_load_test(0, 1, NULL);
	if (!rt)
		fprintf(stderr, "%s: cannot load rocetop.bpf.o (%s); run as root on a "
			"kernel with BPF\n", who, strerror(errno));
	return rt;
}

/* The start of xdp_bench and tc_bench: the rounds' arguments checked,
 * rocetop.bpf.o and the pass-only XDP program loaded into *rt and *bp;
 * 0, or -1 after saying why (the caller destroys what was loaded). */
static inline int bench_start(const char *who, int rounds, int max, __u32 repeat,
			      struct rocetop_bpf **rt, struct bench_pass_bpf **bp)
{
	if (bench_rounds_ok(who, rounds, max, repeat))
		return -1;
	*rt = bench_load_rocetop(who);
	if (!*rt)
		return -1;
	*bp = bench_pass_bpf__open_and_load();
	if (!*bp) {
		fprintf(stderr, "%s: cannot load bench_pass.bpf.o (%s)\n", who, strerror(errno));
		return -1;
	}
	return 0;
}

/* What bench_start loaded, destroyed (either may be NULL). */
static inline void bench_stop(struct rocetop_bpf *rt, struct bench_pass_bpf *bp)
{
	bench_pass_bpf__destroy(bp);
	rocetop_bpf__destroy(rt);
}

#endif
