// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/jobagg_bench: what the culprit and victim shares (user/core/jobagg.h)
 * cost each interval, in user space alone, CPU time, medians of 5 runs.
 *
 * An interval of N flows of 64 jobs (and some of none) into 256 marking
 * points, one in ten CE-marked. The baseline, measured in the same run, is
 * the fold by job alone: rt_jobagg_add of every flow (which also notes each
 * flow's part at its point), then rt_jobagg_clear. Against it: the same with
 * rt_jobagg_close, which works the shares out. Printed per flow, with the
 * ratio, and the points' memory at N flows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "jobagg.h"

#define RUNS	5
#define JOBS	64
#define POINTS	256

/* n flows of JOBS jobs (every 9th of none) into POINTS destinations. */
static int build(struct rt_snapshot *s, __u32 n)
{
	for (int j = 0; j < JOBS; j++) {
		struct rt_job *jb = rt_snapshot_add_job(s);

		if (!jb)
			return -1;
		jb->kind = RT_JOB_SLURM, jb->rank = j % 8, jb->size = 8;
		snprintf(jb->job, sizeof(jb->job), "%d", 4000 + j);
	}
	for (__u32 i = 0; i < n; i++) {
		struct rt_flow *f = rt_snapshot_add_flow(s);

		if (!f)
			return -1;
		f->k.family = 4, f->k.dir = RT_DIR_INGRESS, f->k.dqpn = i;
		f->k.src[0] = 10, f->k.src[1] = (__u8)(i >> 16), f->k.src[2] = (__u8)(i >> 8), f->k.src[3] = (__u8)i;
		f->k.dst[0] = 11, f->k.dst[3] = (__u8)(i % POINTS);
		f->v.pkts = 100 + i % 50;
		f->v.ecn[RT_ECN_CE] = i % 10 ? 0 : 10;
		f->v.ecn[RT_ECN_ECT0] = f->v.pkts - f->v.ecn[RT_ECN_CE];
		f->throttles = -1;
		f->job = i % 9 ? 1 + i % JOBS : 0;
	}
	return 0;
}

/* CPU ms of one interval's fold of s, with the shares (close) or without. */
static double interval(struct rt_jobagg *a, const struct rt_snapshot *s, int shares)
{
	double t0 = cpu_ms();

	for (size_t i = 0; i < s->nflows; i++)
		if (rt_jobagg_add(a, s, &s->flows[i], &s->flows[i].v))
			return -1;
	if (shares && rt_jobagg_close(a))
		return -1;
	rt_jobagg_clear(a);
	return cpu_ms() - t0;
}

static int one(__u32 n)
{
	double base[RUNS], with[RUNS];
	struct rt_snapshot s;
	struct rt_jobagg a;
	size_t mem;

	rt_snapshot_init(&s);
	rt_jobagg_init(&a, RT_GROUP_JOB);
	if (build(&s, n))
		return -1;
	interval(&a, &s, 1);	/* warm: the tables at their size */
	for (int r = 0; r < RUNS; r++) {	/* alternating, so a noisy moment spreads over both */
		base[r] = interval(&a, &s, 0);
		with[r] = interval(&a, &s, 1);
		if (base[r] < 0 || with[r] < 0)
			return -1;
	}
	mem = a.pts_cap * sizeof(*a.pts) + a.ties_cap * sizeof(*a.ties) + a.byid_cap * sizeof(*a.byid);
	double b = median(base, RUNS), w = median(with, RUNS);

	printf("%7u flows: fold by job %6.1f ns/flow, with the shares %6.1f ns/flow (x%.2f); "
	       "the points' memory %.1f KiB (%.0f B a flow)\n", n, b * 1e6 / n, w * 1e6 / n, b > 0 ? w / b : 0,
	       mem / 1024.0, (double)mem / n);
	rt_jobagg_free(&a);
	rt_snapshot_free(&s);
	return 0;
}

int main(void)
{
	static const __u32 sizes[] = { 1000, 10000, 100000 };

	printf("culprit and victim shares per interval (%d jobs, %d points, 1 flow in 10 CE-marked), "
	       "median of %d, load %.1f\n", JOBS, POINTS, RUNS, load_avg());
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (one(sizes[i])) {
			fprintf(stderr, "jobagg_bench: out of memory\n");
			return 1;
		}
	return 0;
}
