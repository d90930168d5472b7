// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-packet cost of rocetop's egress program (rt_tc, attached as tcx egress)
 * beside its XDP program (rt_xdp), in the same run, on the same frames
 * (bench/frames.h, the frames of bench/xdp_bench.c). Each program runs through
 * BPF_PROG_TEST_RUN with a large repeat count (the kernel reports the mean ns
 * per repetition) beside a pass-only program of its own type:
 * bench_pass.bpf.o's XDP_PASS program for rt_xdp, bench_pass_tc.bpf.o's
 * TC_ACT_UNSPEC program for rt_tc. A tc program is test-run as the kernel runs
 * it for tcx: an skb built around the frame (its Ethernet header at data, the
 * whole frame linear) and an __sk_buff context. The four programs are loaded
 * once; then many short rounds on one CPU, each running every frame kind in
 * turn through the four (ABBA order from one round to the next). "added" is a
 * program's ns minus its pass-only baseline's in the same round; the figures
 * are medians over the rounds, with the interquartile range (IQR) of the
 * rounds' tc/xdp ratio.
 *
 * Target: the tc program's added cost at most 1.2 times the XDP program's, for
 * a RoCE data frame of an existing flow (issue: the egress path measured and
 * cut). A benchmark, not a test: a missed target does not fail; being unable
 * to run does (exit 1).
 *
 * Usage: tc_bench [BUILD] [-n REPEAT] [-r ROUNDS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../bpf/parse.h"
#pragma GCC diagnostic pop
#include "frames.h"
#include "live_maps.h"
#include "rocetop.skel.h"
#include "bench_pass.skel.h"
#include "bpf_bench.h"
#include "bench_pass_tc.skel.h"

#define TARGET_RATIO 1.2
#define MAX_RUNS 401

/* The same for a tc program: an skb on lo (ifindex 1), as egress sees it. */
static long run_tc(int fd, const struct frame *f, __u32 repeat)
{
	struct __sk_buff ctx = { .ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = f->b, .data_size_in = f->len,
		.ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if ((int)o.retval != TC_ACT_UNSPEC)
		return -EPROTO;
	return (long)o.duration;
}

/* xdp pass, xdp rocetop, tc pass, tc rocetop: their ns per round, and
 * rocetop's added ns over the pass-only program of its type */
static long v[NFRAMES][4][MAX_RUNS], add[NFRAMES][2][MAX_RUNS], ratio[NFRAMES][MAX_RUNS];

static long run_one(int k, int fd, const struct frame *f, __u32 repeat)
{
	return (k < 2 ? run_xdp : run_tc)(fd, f, repeat);
}

/* A warm-up, then the rounds: per frame the four programs in turn (ABBA). */
static int run_rounds(const int fd[4], const struct frame *fr, __u32 repeat, int runs)
{
	/* warm up: inserts the flows (one per direction), faults the code in */
	for (int p = 0; p < NFRAMES; p++)
		for (int k = 0; k < 4; k++)
			if (run_one(k, fd[k], &fr[p], 1000) < 0) {
				fprintf(stderr, "tc_bench: test run of %s failed\n", fr[p].name);
				return -1;
			}
	for (int r = 0; r < runs; r++)
		for (int p = 0; p < NFRAMES; p++) {
			for (int k = 0; k < 4; k++) {
				/* odd rounds in the reverse order: ABBA */
				int j = r % 2 ? 3 - k : k;

				v[p][j][r] = run_one(j, fd[j], &fr[p], repeat);
				if (v[p][j][r] < 0) {
					fprintf(stderr, "tc_bench: test run of %s failed: %s\n",
						fr[p].name, strerror((int)-v[p][j][r]));
					return -1;
				}
			}
			add[p][0][r] = v[p][1][r] - v[p][0][r];
			add[p][1][r] = v[p][3][r] - v[p][2][r];
			/* in hundredths; a round whose xdp added is not positive counts high */
			ratio[p][r] = add[p][0][r] > 0 ? 100 * add[p][1][r] / add[p][0][r] : 100000;
		}
	return 0;
}

/* The table of medians; the RoCE data frame's tc/xdp ratio against its target. */
static void print_rounds(const struct frame *fr, __u32 repeat, int runs)
{
	double ratio0 = 0;

	printf("Egress (tc) program cost per packet beside the XDP program's (BPF_PROG_TEST_RUN,\n"
	       "repeat %u, %d rounds; each against a pass-only program of its type, the four in\n"
	       "turn per frame and round; medians over the rounds, IQR of the rounds' ratio;\n"
	       "flows already in the map; one CPU)\n\n", repeat, runs);
	printf("%-26s %8s %8s %8s %8s %7s %7s\n", "packet", "xdp pass", "xdp add", "tc pass",
	       "tc add", "tc/xdp", "IQR");
	for (int p = 0; p < NFRAMES; p++) {
		long m[4], iqr, ir;
		double rt_;

		for (int k = 0; k < 4; k++)
			m[k] = quartiles(k < 2 ? v[p][2 * k] : add[p][k - 2], runs, &iqr);
		rt_ = (double)quartiles(ratio[p], runs, &ir) / 100.0;
		if (p == 0)
			ratio0 = rt_;
		printf("%-26s %8ld %8ld %8ld %8ld %7.2f %7.2f\n", fr[p].name, m[0], m[2], m[1], m[3],
		       rt_, (double)ir / 100.0);
	}
	printf("\ntarget: tc added / xdp added at most %.1f for a RoCE data frame (%s): %.2f, %s\n",
	       TARGET_RATIO, fr[0].name, ratio0, ratio0 <= TARGET_RATIO ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
	struct rocetop_bpf *rt = NULL;
	struct bench_pass_bpf *bp = NULL;
	struct bench_pass_tc_bpf *bt = NULL;
	struct frame fr[NFRAMES];
	__u32 repeat = 100000;
	int runs = 61, rc = 1, fd[4];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			repeat = (__u32)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			runs = atoi(argv[++i]);
	}
	if (bench_start("tc_bench", runs, MAX_RUNS, repeat, &rt, &bp))
		goto out;
	bt = bench_pass_tc_bpf__open_and_load();
	if (!bt) {
		fprintf(stderr, "tc_bench: cannot load bench_pass_tc.bpf.o (%s)\n", strerror(errno));
		goto out;
	}
	fd[0] = bpf_program__fd(bp->progs.rt_pass);
	fd[1] = bpf_program__fd(rt->progs.rt_xdp);
	fd[2] = bpf_program__fd(bt->progs.rt_pass_tc);
	fd[3] = bpf_program__fd(rt->progs.rt_tc);
	pin_cpu();
	bench_frames(fr);
	if (bench_frames_check("tc_bench", fr) || run_rounds(fd, fr, repeat, runs))
		goto out;
	print_rounds(fr, repeat, runs);
	rc = 0;
out:
	bench_pass_tc_bpf__destroy(bt);
	bench_stop(rt, bp);
	return rc;
}
