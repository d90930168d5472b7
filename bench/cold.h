/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel flow table measured at the fill it runs at, with its slots cold
 * (bench/xdp_bench.c, bench/xdp_ab.c): a test run repeats one frame, so its
 * slot is hot after the first; here every run is a single one on another
 * flow's frame. The table of the CPU the bench is pinned to (its region,
 * bpf/rocetop.h) is filled to 40% of its slots, then 80% (the fill at the
 * default --max-flows: N flows take N x 5/4 slots); at each, the known flows
 * are run once each, in a scattered order, three times over (between two
 * frames of a flow the others pass, so its slot and tags have left the
 * caches near the core), and then NEW flows never seen, each once. Each run
 * of rocetop's program (one, or two builds side by side, taking turns on
 * which goes first) follows a run of the pass-only program on the same
 * frame; a figure is the median of rocetop's runs less the median of the
 * pass-only runs (both carry the test run's timer).
 */
#ifndef ROCETOP_BENCH_COLD_H
#define ROCETOP_BENCH_COLD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frames.h"

#define COLD_GOAL_KNOWN 20	/* ns added, a known flow at 80% fill */
#define COLD_GOAL_NEW 100	/* ns more than a known flow, a new flow's first frame */
#define COLD_PASSES 3		/* runs of each known flow */
#define COLD_NEW 256		/* new flows measured at each fill */
#define COLD_NFILL 2
#define COLD_HOT 256		/* known flows run COLD_REPEAT times each */
#define COLD_REPEAT 2000

static const int cold_fill_pct[COLD_NFILL] = { 40, 80 };

/* Figures at one fill, per program: ns added over the pass-only program
 * for a known flow whose slot is hot (each of COLD_HOT flows run
 * COLD_REPEAT times: median and 90th percentile over the flows), for a
 * known flow whose slot is cold and for a new flow's first frame (medians
 * of single runs); with two programs, the medians of B - A run by run. */
struct cold_fill {
	__u32 flows;
	long hot[2], hot90[2], known[2], newf[2];
	long dhot, dknown, dnew;
};

/* Flow i's frame: an ECT(0) RDMA WRITE to QP 0x400000 + i (the fixed
 * frames of bench/frames.h use QPs below 0x1000). */
static inline void cold_frame(struct frame *f, __u32 i)
{
	roce(f, "cold", 0x6a, 0x0a, 0x400000 + i, 64);
}

/* The pass-only run, then each of the nprog programs, the first one
 * chosen by turn; durations into pass[at], t[p][at]. 0, or -1. */
static inline int cold_run(const int *fd, int nprog, int pass_fd, const struct frame *f, int turn,
			   long *pass, long *t[2], size_t at)
{
	long b = run_xdp(pass_fd, f, 1);

	if (b < 0)
		return -1;
	pass[at] = b;
	for (int n = 0; n < nprog; n++) {
		int p = (n + turn) % nprog;
		long d = run_xdp(fd[p], f, 1);

		if (d < 0)
			return -1;
		t[p][at] = d;
	}
	return 0;
}

/* The median of t[1][i] - t[0][i] over i < n; 0 for one program (or no
 * memory). */
static inline long cold_diff(long *t[2], int nprog, size_t n)
{
	long *d, m;

	if (nprog < 2 || !(d = calloc(n, sizeof(long))))
		return 0;
	for (size_t i = 0; i < n; i++)
		d[i] = t[1][i] - t[0][i];
	m = median(d, (int)n);
	free(d);
	return m;
}

/* COLD_HOT of the known flows [0, n), spread over them, each run
 * COLD_REPEAT times by the pass-only program and then each program: the
 * hot figures into *c. 0, or -1. */
static inline int cold_hot(const int *fd, int nprog, int pass_fd, __u32 n, struct cold_fill *c)
{
	long t0[COLD_HOT], t1[COLD_HOT], *t[2] = { t0, t1 };
	struct frame f;

	for (int i = 0; i < COLD_HOT; i++) {
		long b;

		cold_frame(&f, (__u32)((__u64)i * n / COLD_HOT));
		b = run_xdp(pass_fd, &f, COLD_REPEAT);
		if (b < 0)
			return -1;
		for (int k = 0; k < nprog; k++) {
			int p = (k + i) % nprog;

			t[p][i] = run_xdp(fd[p], &f, COLD_REPEAT);
			if (t[p][i] < 0)
				return -1;
			t[p][i] -= b;
		}
	}
	c->dhot = cold_diff(t, nprog, COLD_HOT);	/* before the sorts part the pairs */
	for (int p = 0; p < nprog; p++) {
		c->hot[p] = median(t[p], COLD_HOT);	/* sorted now */
		c->hot90[p] = t[p][COLD_HOT * 9 / 10];
	}
	return 0;
}

/* Flows [from, to) run once through every program, untimed: the fill. */
static inline int cold_fill_to(const int *fd, int nprog, __u32 from, __u32 to)
{
	struct frame f;

	for (__u32 i = from; i < to; i++) {
		cold_frame(&f, i);
		for (int p = 0; p < nprog; p++)
			if (run_xdp(fd[p], &f, 1) < 0)
				return -1;
	}
	return 0;
}

static inline __u32 cold_gcd(__u32 a, __u32 b)
{
	while (b) {
		__u32 r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* The known flows [0, n) COLD_PASSES times over in a scattered order
 * (a stride prime to n), then COLD_NEW new flows from id next; the
 * medians into *c. 0, or -1. */
static inline int cold_measure(const int *fd, int nprog, int pass_fd, __u32 n, __u32 next,
			       struct cold_fill *c)
{
	size_t nk = (size_t)n * COLD_PASSES, cap = nk > COLD_NEW ? nk : COLD_NEW, at = 0;
	long *pass = calloc(cap, sizeof(long)), *t[2] = { calloc(cap, sizeof(long)),
							  calloc(cap, sizeof(long)) };
	__u32 stride = 40503;
	struct frame f;
	int rc = -1;

	if (!pass || !t[0] || !t[1])
		goto out;
	while (cold_gcd(stride, n) != 1)
		stride++;
	for (int k = 0; k < COLD_PASSES; k++)
		for (__u32 j = 0; j < n; j++, at++) {
			cold_frame(&f, (__u32)(((__u64)j * stride + (__u64)k * 7919) % n));
			if (cold_run(fd, nprog, pass_fd, &f, (int)(at & 1), pass, t, at))
				goto out;
		}
	c->dknown = cold_diff(t, nprog, nk);	/* before the medians sort t[] */
	{
		long pm = median(pass, (int)nk);

		for (int p = 0; p < nprog; p++)
			c->known[p] = median(t[p], (int)nk) - pm;
	}
	for (at = 0; at < COLD_NEW; at++) {
		cold_frame(&f, next + (__u32)at);
		if (cold_run(fd, nprog, pass_fd, &f, (int)(at & 1), pass, t, at))
			goto out;
	}
	c->dnew = cold_diff(t, nprog, COLD_NEW);
	{
		long pm = median(pass, COLD_NEW);

		for (int p = 0; p < nprog; p++)
			c->newf[p] = median(t[p], COLD_NEW) - pm;
	}
	c->flows = n;
	rc = 0;
out:
	free(pass);
	free(t[0]);
	free(t[1]);
	return rc;
}

/*
 * Both fills of a region of rslots slots, each program's table filled the
 * same way: c[0] at 40%, c[1] at 80%. The new flows measured at one fill
 * stay in the table and count toward the next. 0, or -1 after saying so.
 */
static inline int cold_bench(const char *who, const int *fd, int nprog, int pass_fd, __u32 rslots,
			     struct cold_fill c[COLD_NFILL])
{
	__u32 filled = 0, next = 0x200000;

	memset(c, 0, COLD_NFILL * sizeof(*c));

	for (int i = 0; i < COLD_NFILL; i++) {
		__u32 n = (__u32)((__u64)rslots * (__u32)cold_fill_pct[i] / 100);

		n -= i ? COLD_NEW : 0;	/* the new flows of the fill before are in */
		if (cold_fill_to(fd, nprog, filled, n) || cold_hot(fd, nprog, pass_fd, n, &c[i]) ||
		    cold_measure(fd, nprog, pass_fd, n, next, &c[i])) {
			fprintf(stderr, "%s: a test run at %d%% fill failed\n", who, cold_fill_pct[i]);
			return -1;
		}
		filled = n;
		next += COLD_NEW;
	}
	return 0;
}

/* The table of the figures for nprog programs named name[], the goals
 * beside; with two, B - A run by run. */
static inline void cold_print(const struct cold_fill c[COLD_NFILL], int nprog, const char *const *name)
{
	printf("\nThe flow table at its fill (ns added over the pass-only program: known flows\n"
	       "with the slot hot, %d flows run %d times each, median and p90 over the flows;\n"
	       "with the slot cold, single runs, each on another flow's frame, the known flows\n"
	       "%d times over in a scattered order; then %d new flows' first frames, single runs;\n"
	       "medians. Goals: a known flow <= %d ns at 80%% fill, a new flow's first frame\n"
	       "<= %d ns more than a known flow's, its slot cold)\n\n",
	       COLD_HOT, COLD_REPEAT, COLD_PASSES, COLD_NEW, COLD_GOAL_KNOWN, COLD_GOAL_NEW);
	printf("%-5s %-6s %6s %6s %6s %9s %7s %9s\n", "fill", "build", "flows", "hot", "p90",
	       "cold", "new", "new-cold");
	for (int i = 0; i < COLD_NFILL; i++) {
		for (int p = 0; p < nprog; p++)
			printf("%3d%%  %-6s %6u %6ld %6ld %9ld %7ld %9ld\n", cold_fill_pct[i], name[p],
			       c[i].flows, c[i].hot[p], c[i].hot90[p], c[i].known[p], c[i].newf[p],
			       c[i].newf[p] - c[i].known[p]);
		if (nprog > 1)
			printf("%3d%%  %-6s %6s %+6ld %6s %+9ld %+7ld\n", cold_fill_pct[i], "B - A", "",
			       c[i].dhot, "", c[i].dknown, c[i].dnew);
	}
	for (int p = 0; p < nprog; p++) {
		const struct cold_fill *f = &c[COLD_NFILL - 1];

		printf("%s at 80%%: known, hot %ld ns (goal <= %d: %s); new %ld ns more than a "
		       "known cold (goal <= %d: %s)\n", name[p], f->hot[p], COLD_GOAL_KNOWN,
		       f->hot[p] <= COLD_GOAL_KNOWN ? "met" : "NOT met", f->newf[p] - f->known[p],
		       COLD_GOAL_NEW, f->newf[p] - f->known[p] <= COLD_GOAL_NEW ? "met" : "NOT met");
	}
}

#endif
