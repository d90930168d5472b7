// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/table_bench: the tables behind the cost per interval, in user space
 * alone (no kernel read, no files), CPU time, medians of 5 runs.
 *
 * 1. The hash tables: rt_htab (user/core/table.h, the report's, exporter's
 *    and sFlow's tables) and the persistent flow table's index
 *    (rt_snapshot_flow: hashes in the slots, rows read only on a match)
 *    insert N flow keys, then look each up in another order, against a
 *    baseline measured in the same run: a sorted array (qsort, bsearch).
 * 2. The persistent flow table (user/core/snapshot.h) as an incremental
 *    source drives it (pcap.c today, a live source handing over only the
 *    flows that changed): per interval k of N flows are counted in place
 *    (rt_snapshot_flow + touch), then rt_join, rt_delta_changes and the
 *    --batch and --csv sinks' emits. This is the user-space part of an
 *    interval beyond the kernel read, beside the per-interval targets
 *    (which also hold the read: bench/collect_cpu measures that).
 * 3. Sinks that rank (--batch --top, the TUI's screen, Prometheus top-K)
 *    select K of n changed flows (rt_delta_top) against sorting all n.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "derive.h"
#include "join.h"
#include "log.h"
#include "cpu.h"
#include "flows.h"
#include "sink.h"
#include "sinks.h"
#include "snapshot.h"
#include "table.h"

#define RUNS 5

/* ---- 1. insert and look up N keys ---- */

struct ent {
	struct rt_flow_key k;
	__u64 pkts;
};

static int ent_cmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(a, b);
}

/* ns per operation into ins[3] and look[3]: rt_htab, the flow table, sorted array. */
static int htab_case(__u32 n, double ins[3], double look[3])
{
	struct rt_flow_key *keys = malloc(n * sizeof(*keys));
	__u32 *order = malloc(n * sizeof(*order));
	double s[3][2][RUNS];
	__u64 sum = 0;

	if (!keys || !order)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++) {
		bench_flow_key(&keys[i], i);
		order[i] = i;
	}
	srand(1);
	for (__u32 i = n - 1; i > 0; i--) {	/* lookups in a shuffled order */
		__u32 j = (__u32)rand() % (i + 1), x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (int run = 0; run < RUNS; run++) {
		struct rt_htab t;
		struct rt_snapshot o;
		struct ent *arr = malloc(n * sizeof(*arr));
		double t0;

		if (!arr)
			return -ENOMEM;
		rt_htab_init(&t, sizeof(struct ent), sizeof(struct rt_flow_key), 0);
		rt_snapshot_init(&o);
		if (rt_snapshot_make_table(&o))
			return -ENOMEM;
		o.tab->no_lru = 1;
		/* the three alternate, so a noisy moment spreads over them */
		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			struct ent *e = rt_htab_get(&t, &keys[i], rt_flow_key_hash(&keys[i]), NULL);

			if (!e)
				return -ENOMEM;
			e->pkts++;
		}
		s[0][0][run] = cpu_ms() - t0;
		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			int fresh;
			struct rt_flow *f = rt_snapshot_flow(&o, &keys[i], &fresh);

			if (!f)
				return -ENOMEM;
			f->v.pkts++;
		}
		s[1][0][run] = cpu_ms() - t0;
		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			arr[i].k = keys[i];
			arr[i].pkts = 1;
		}
		qsort(arr, n, sizeof(*arr), ent_cmp);
		s[2][0][run] = cpu_ms() - t0;

		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			const struct rt_flow_key *k = &keys[order[i]];
			const struct ent *e = rt_htab_find(&t, k, rt_flow_key_hash(k));

			sum += e ? e->pkts : 1000;
		}
		s[0][1][run] = cpu_ms() - t0;
		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			const struct rt_flow_key *k = &keys[order[i]];
			int fresh;
			const struct rt_flow *f = rt_snapshot_flow(&o, k, &fresh);

			sum += f && !fresh ? f->v.pkts : 1000;
		}
		s[1][1][run] = cpu_ms() - t0;
		t0 = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			const struct ent *e = bsearch(&keys[order[i]], arr, n, sizeof(*arr), ent_cmp);

			sum += e ? e->pkts : 1000;
		}
		s[2][1][run] = cpu_ms() - t0;
		rt_htab_free(&t);
		rt_snapshot_free(&o);
		free(arr);
	}
	if (sum != (__u64)n * 3 * RUNS)
		fprintf(stderr, "table_bench: a lookup missed (%llu)\n", (unsigned long long)sum);
	for (int m = 0; m < 3; m++) {
		ins[m] = median(s[m][0], RUNS) * 1e6 / n;
		look[m] = median(s[m][1], RUNS) * 1e6 / n;
	}
	free(keys);
	free(order);
	return 0;
}

/* ---- 2. an interval of the in-place path ---- */

enum { I_COUNT, I_JOIN, I_DELTA, I_BATCH, I_CSV, I_TOTAL, NI };
static const char *iname[NI] = { "count", "join", "delta", "batch", "csv", "total" };

static void count_one(struct rt_flow_val *v, __u32 i, __u64 now)
{
	__u64 n = 100 + i % 37;

	v->pkts += n;
	v->bytes += n * 1078;
	v->ecn[RT_ECN_ECT0] += n - n / 8;
	v->ecn[RT_ECN_CE] += n / 8;
	if (i % 5 == 0)
		v->cnp += n / 16;
	v->ack += n / 16;
	if (!v->first_ns)
		v->first_ns = now;
	v->last_ns = now;
	v->sport = (__u16)(49152 + (i & 0x3fff));
	v->dscp = 26;
	v->pcp = RT_PCP_NONE;
	v->opcode = 0x0a;
}

static int interval_case(__u32 n, __u32 every, double med[NI], size_t *changed)
{
	char dir[] = "/tmp/rtb-table.XXXXXX";
	struct rt_snapshot prev, cur;
	struct rt_delta d = { 0 };
	struct rt_sink *batch, *csv;
	double s[NI][RUNS + 1];
	int err = -1;

	if (!mkdtemp(dir))
		return -1;
	batch = rt_batch_sink_new(&(struct rt_batch_cfg){ .top = 20 });
	csv = rt_csv_sink_new(&(struct rt_csv_cfg){ .dir = dir });
	rt_snapshot_init(&prev);
	rt_snapshot_init(&cur);
	if (!batch || !csv || rt_snapshot_make_table(&cur))
		goto out;
	for (int k = 0; k <= RUNS; k++) {	/* k = 0: the first interval, all new */
		__u64 now = (__u64)(k + 1) * 1000000000ULL;
		double t[NI + 1];

		rt_snapshot_next_interval(&cur);
		t[0] = cpu_ms();
		for (__u32 i = 0; i < n; i++) {
			struct rt_flow *f;

			if (!bench_flow_moves(i, every, k))
				continue;
			f = bench_flow_touch(&cur, i);
			if (!f)
				goto out;
			count_one(&f->v, i, now);
		}
		cur.time_ns = cur.mono_ns = now;
		rt_snapshot_add_iface(&cur, 1, "bench0", "file");
		t[1] = cpu_ms();
		rt_join(&cur, NULL);
		t[2] = cpu_ms();
		if (rt_delta_changes(&d, k ? &prev : NULL, &cur))
			goto out;
		d.secs = 1;
		t[3] = cpu_ms();
		if (batch->emit(batch, &cur, &d))
			goto out;
		t[4] = cpu_ms();
		if (csv->emit(csv, &cur, &d))
			goto out;
		t[5] = cpu_ms();
		for (int p = 0; p < I_TOTAL; p++)
			s[p][k] = t[p + 1] - t[p];
		s[I_TOTAL][k] = t[5] - t[0];
		*changed = d.nflows;
		if (rt_snapshot_copy_small(&prev, &cur))
			goto out;
	}
	for (int p = 0; p < NI; p++)
		med[p] = median(s[p] + 1, RUNS);	/* the first interval is the warm-up */
	err = 0;
out:
	if (csv)
		csv->close(csv);
	if (batch)
		batch->close(batch);
	rt_delta_free(&d);
	rt_snapshot_free(&prev);
	rt_snapshot_free(&cur);
	rm_csv(dir);
	return err;
}

/* ---- 3. top K of n ---- */

static int top_case(__u32 n, __u32 k, double *sel_ms, double *sort_ms)
{
	struct rt_flow *rows = calloc(n, sizeof(*rows));
	struct rt_flow_delta *a = calloc(n, sizeof(*a));
	const struct rt_flow_delta **v = calloc(n, sizeof(*v));
	double s1[RUNS], s2[RUNS];

	if (!rows || !a || !v)
		return -ENOMEM;
	srand(2);
	for (__u32 i = 0; i < n; i++) {
		bench_flow_key(&rows[i].k, i);
		a[i].f = &rows[i];
		a[i].d.pkts = 1000 + (__u64)(rand() % 100000);
		a[i].d.ecn[RT_ECN_CE] = (__u64)(rand() % 1000);
		a[i].d.cnp = (__u64)(rand() % 100);
	}
	for (int run = 0; run < RUNS; run++) {
		double t0;

		for (__u32 i = 0; i < n; i++)
			v[i] = &a[i];
		t0 = cpu_ms();
		rt_delta_top(v, n, k, rt_delta_cmp_congestion);
		s1[run] = cpu_ms() - t0;
		for (__u32 i = 0; i < n; i++)
			v[i] = &a[i];
		t0 = cpu_ms();
		qsort(v, n, sizeof(*v), rt_delta_qcmp_congestion);
		s2[run] = cpu_ms() - t0;
	}
	*sel_ms = median(s1, RUNS);
	*sort_ms = median(s2, RUNS);
	free(rows);
	free(a);
	free(v);
	return 0;
}

int main(void)
{
	static const __u32 sizes[] = { 10000, 100000, 1000000 };
	static const struct { __u32 flows, every; double target; } cases[] = {
		{ 10000, 1, 5 }, { 100000, 1, 60 }, { 100000, 100, 15 },
	};
	enum { NS = sizeof(sizes) / sizeof(sizes[0]), NC = sizeof(cases) / sizeof(cases[0]) };
	double ins[NS][3], look[NS][3], iv[NC][NI], sel[2], srt[2];
	size_t changed[NC];
	struct rusage ru;
	int saved;

	rt_verbosity = RT_LOG_WARN;
	/* The batch sink writes to stdout: /dev/null while it runs, ours after. */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || !freopen("/dev/null", "w", stdout)) {
		fprintf(stderr, "table_bench: cannot redirect standard output to /dev/null\n");
		return 1;
	}
	for (int i = 0; i < NS; i++)
		if (htab_case(sizes[i], ins[i], look[i]))
			return 1;
	for (int i = 0; i < NC; i++)
		if (interval_case(cases[i].flows, cases[i].every, iv[i], &changed[i])) {
			fprintf(stderr, "table_bench: an interval failed\n");
			return 1;
		}
	if (top_case(100000, 20, &sel[0], &srt[0]) || top_case(1000000, 20, &sel[1], &srt[1]))
		return 1;
	getrusage(RUSAGE_SELF, &ru);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);

	printf("Hash tables, flow keys (48 bytes) in a shuffled order, ns per key, CPU time, median of %d;\n"
	       "baseline in the same run: a sorted array (fill + qsort; bsearch). htab = rt_htab,\n"
	       "flowtab = the persistent flow table's index (rt_snapshot_flow); x = baseline / table\n",
	       RUNS);
	printf("%-8s %9s %9s %9s %7s %7s  %9s %9s %9s %7s %7s\n", "KEYS", "ins htab", "flowtab", "sorted",
	       "x htab", "x flow", "get htab", "flowtab", "bsearch", "x htab", "x flow");
	for (int i = 0; i < NS; i++)
		printf("%-8u %9.1f %9.1f %9.1f %6.2fx %6.2fx  %9.1f %9.1f %9.1f %6.2fx %6.2fx\n", sizes[i],
		       ins[i][0], ins[i][1], ins[i][2], ins[i][2] / ins[i][0], ins[i][2] / ins[i][1],
		       look[i][0], look[i][1], look[i][2], look[i][2] / look[i][0], look[i][2] / look[i][1]);

	printf("\nOne interval of the in-place path (an incremental source counts the changed flows into\n"
	       "the persistent table; rt_join, rt_delta_changes, --batch and --csv emits), CPU ms, median of %d.\n"
	       "No kernel read: this is the user-space part; the interval targets hold the read too (collect_cpu)\n",
	       RUNS);
	printf("%-7s %-8s", "FLOWS", "CHANGED");
	for (int p = 0; p < NI; p++)
		printf(" %9s", iname[p]);
	printf("  TARGET (whole interval)\n");
	for (int i = 0; i < NC; i++) {
		printf("%-7u %-8zu", cases[i].flows, changed[i]);
		for (int p = 0; p < NI; p++)
			printf(" %6.2f ms", iv[i][p]);
		printf("  <= %g ms%s\n", cases[i].target, iv[i][I_TOTAL] <= cases[i].target ? "" : "  (user part alone above it)");
	}
	printf("\nTop 20 by congestion: rt_delta_top against qsort of all, CPU ms, median of %d:\n", RUNS);
	printf("  100000 flows: %.2f ms against %.2f ms (%.1fx faster)\n", sel[0], srt[0], srt[0] / (sel[0] > 0 ? sel[0] : 1e-3));
	printf("  1000000 flows: %.2f ms against %.2f ms (%.1fx faster)\n", sel[1], srt[1], srt[1] / (sel[1] > 0 ? sel[1] : 1e-3));
	printf("\npeak RSS of this bench: %.1f MB\n", ru.ru_maxrss / 1024.0);
	return 0;
}
