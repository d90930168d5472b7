// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/nic_bench: CPU per interval of rt_stream_step() for a live source
 * with the NIC's counters merged in (the common case on a hardware host),
 * user space alone, CPU ms, medians of RUNS intervals.
 *
 * The NIC is a fixture tree laid out like a real host's (tests/fixtures/
 * hwhost/healthy: sysfs hw_counters, ethtool, the rdma netlink QP table and
 * per-QP counters), read every interval as on a real host. The wire's flows
 * come from a source of this bench that hands the stream what the live
 * source would: N flows, k of them moving per interval, some carrying CNPs
 * so the join has work. Two streams, stepped in turns on the same counts:
 *   table  the path of stream.c now: the source updates the changed rows of
 *          the persistent table in place, the NIC updates its flows there and
 *          joins only what changed (nic.c, join.c: rt_join_changed);
 *   whole  baseline, same run: the path before: every flow into a whole
 *          snapshot, the NIC's flows and join on all of it, then folded into
 *          the table (rt_snapshot_apply).
 * The per-interval targets (whole interval, sinks included): 100k flows,
 * 1% changing <= 15 ms; 100k all changing <= 60 ms; 10k all changing <= 5 ms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu.h"
#include "flows.h"
#include "nic.h"
#include "source.h"
#include "stream.h"

#define RUNS 5
#define FIXTURE "tests/fixtures/hwhost/healthy"

struct wire {
	__u32 n;
	struct rt_flow_val *v;		/* the kernel's counters, as read */
	__u32 *moved;			/* flows counted since the last read */
	size_t nmoved;
	__u64 now;
};

/* What the live source does: the changed slots into the table, or everything into a whole snapshot. */
static int wire_collect(struct rt_source *src, struct rt_snapshot *s)
{
	struct wire *w = src->priv;

	s->time_ns = s->mono_ns = w->now;
	snprintf(s->source, sizeof(s->source), "bench");
	rt_snapshot_add_iface(s, 1, "eth2", "native");
	if (src->incremental) {
		for (size_t j = 0; j < w->nmoved; j++) {
			struct rt_flow_key k;
			struct rt_flow *f;
			int fresh;

			bench_flow_key(&k, w->moved[j]);
			if (!(f = rt_snapshot_flow(s, &k, &fresh)))
				return -ENOMEM;
			rt_snapshot_touch(s, f);	/* before the counters move */
			f->v = w->v[w->moved[j]];
		}
	} else {
		for (__u32 i = 0; i < w->n; i++) {
			struct rt_flow *f = rt_snapshot_add_flow(s);

			if (!f)
				return -ENOMEM;
			bench_flow_key(&f->k, i);
			f->v = w->v[i];
		}
	}
	return 1;
}

static void wire_count(struct wire *w, __u32 every, int k)
{
	w->nmoved = 0;
	w->now = (__u64)(k + 1) * 1000000000ULL;
	for (__u32 i = 0; i < w->n; i++) {
		struct rt_flow_val *v = &w->v[i];

		if (!bench_flow_moves(i, every, k))
			continue;
		v->pkts += 100 + i % 7;
		v->bytes += (100 + i % 7) * 1024;
		v->ecn[RT_ECN_ECT0] += 90;
		v->ecn[RT_ECN_CE] += i % 13 == 0 ? 10 : 0;
		v->cnp += i % 100 == 0 ? 3 : 0;	/* 1 flow in 100 carries CNPs */
		if (!v->first_ns)
			v->first_ns = w->now;
		v->last_ns = w->now;
		w->moved[w->nmoved++] = i;
	}
}

enum { W_TABLE, W_WHOLE, W_N };

static int run_case(__u32 n, __u32 every, double med[W_N], size_t *changed, size_t *nic_flows)
{
	struct rt_source src[W_N];
	struct wire w = { .n = n };
	struct rt_stream st[W_N];
	struct rt_nic *nic[W_N] = { NULL, NULL };
	struct rt_nic_cfg c = { .sysfs_root = FIXTURE };
	double s[W_N][RUNS + 1];
	int err = -1;

	memset(st, 0, sizeof(st));
	w.v = calloc(n, sizeof(*w.v));
	w.moved = calloc(n, sizeof(*w.moved));
	if (!w.v || !w.moved)
		goto out;
	for (int p = 0; p < W_N; p++) {
		struct rt_nic_view view;

		memset(&src[p], 0, sizeof(src[p]));
		src[p].name = "bench-live";
		src[p].live = 1;
		src[p].collect = wire_collect;
		src[p].priv = &w;
		if (!(nic[p] = rt_nic_new(&c)))
			goto out;
		view = rt_nic_view(nic[p]);
		if (rt_stream_init(&st[p], &src[p], &view))
			goto out;
	}
	/* The whole-snapshot path: stream.c reads a live source with a NIC into
	 * the table in place, so the baseline's source is not called live (which
	 * changes nothing else in the step with a NIC). */
	src[W_WHOLE].live = 0;
	for (int k = 0; k <= RUNS; k++) {	/* k = 0: the first interval, all new */
		wire_count(&w, every, k);
		for (int q = 0; q < W_N; q++) {
			int p = (q + k) % W_N;	/* in turns */
			double t0 = cpu_ms();

			if (rt_stream_step(&st[p]) != 1)
				goto out;
			s[p][k] = cpu_ms() - t0;
		}
		*changed = st[W_TABLE].delta.nflows;
		/* both paths must agree on what changed */
		if (st[W_TABLE].delta.nflows != st[W_WHOLE].delta.nflows ||
		    st[W_TABLE].cur.nflows != st[W_WHOLE].cur.nflows) {
			fprintf(stderr, "nic_bench: the two paths differ: %zu / %zu changed, %zu / %zu flows\n",
				st[W_TABLE].delta.nflows, st[W_WHOLE].delta.nflows, st[W_TABLE].cur.nflows,
				st[W_WHOLE].cur.nflows);
			goto out;
		}
	}
	*nic_flows = 0;
	for (size_t i = 0; i < st[W_TABLE].cur.nflows; i++)
		*nic_flows += st[W_TABLE].cur.flows[i].k.origin == RT_ORIGIN_NIC;
	for (int p = 0; p < W_N; p++)
		med[p] = median(s[p] + 1, RUNS);	/* the first interval is the warm-up */
	err = 0;
out:
	for (int p = 0; p < W_N; p++) {
		rt_stream_free(&st[p]);
		rt_nic_free(nic[p]);
	}
	free(w.v);
	free(w.moved);
	return err;
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (access(FIXTURE, R_OK) && chdir(".."))	/* run from the tree's top or bench/ */
		return 1;
	if (access(FIXTURE, R_OK)) {
		fprintf(stderr, "nic_bench: %s not found: run it from the source tree's top\n", FIXTURE);
		return 1;
	}
	printf("nic_bench: rt_stream_step() of a live source with the NIC's counters (%s),\n"
	       "CPU ms per interval, median of %d; load average %.2f\n"
	       "  table = the flows updated in place, the NIC's flows and join on what changed (now);\n"
	       "  whole = baseline, same run: a whole snapshot, the NIC's join on all of it, folded in\n",
	       FIXTURE, RUNS, load_avg());
	printf("%-26s %8s %6s %9s %9s %11s\n", "case", "changed", "nic", "table", "whole", "whole/table");
	for (size_t i = 0; i < BENCH_NCASES; i++) {
		const struct bench_case *c = &bench_cases[i];
		double m[W_N];
		size_t changed = 0, nicf = 0;

		if (run_case(c->flows, c->every, m, &changed, &nicf)) {
			fprintf(stderr, "nic_bench: could not run %s\n", c->what);
			return 1;
		}
		printf("%-26s %8zu %6zu %9.2f %9.2f %10.1fx\n", c->what, changed, nicf, m[W_TABLE],
		       m[W_WHOLE], m[W_TABLE] > 0 ? m[W_WHOLE] / m[W_TABLE] : 0);
	}
	printf("the step only (collect, NIC, join, delta); bench/collect_cpu adds the kernel read and the\n"
	       "sinks. The targets for a whole interval: 100k flows 1%% changing <= 15 ms,\n"
	       "100k all changing <= 60 ms, 10k all changing <= 5 ms.\n");
	return 0;
}
