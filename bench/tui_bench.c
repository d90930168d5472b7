// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/tui_bench: the live view's CPU per refresh (tui/tui_model.c), in
 * user space alone, CPU ms, medians of RUNS intervals.
 *
 * N flows live in the loop's persistent table; per interval k of them move
 * (all, or 1 %), then rt_delta_changes, then what the view does with a
 * snapshot (follow what changed, order only what is shown):
 *   take   tui_data_take: the view's copy, its deltas, the totals since
 *          the start and the histories (written for the k flows that moved
 *          only); when no flow came or went, only the k are copied;
 *   whole  baseline, same run: a second view taking every snapshot the
 *          whole way (tui_data.no_fast: a sorted copy, the histories
 *          carried over by key, O(N)), in turns with the first;
 *   page   the rows (averages left for the rows shown), the selected flow's
 *          rank, one 40-row page put in order (tui_rows_order), its
 *          averages, whether rows have owners or mirror sessions
 *          (tui_rows_have), the address, interface, owner and mirror
 *          columns' widths (tui_rows_want_t): what tui_draw.c does per
 *          refresh;
 *   full   baseline, same run, same rows: what the view did before, every
 *          row's averages, every row sorted (tui_rows_sort, qsort_r) and
 *          every address cell formatted for the widths.
 * The refresh is take + page; the ratio full / page is the ordering's gain.
 *
 * Memory (the view's own, beyond the collector's): each case runs
 * three times, each in a child process of its own: the loop alone (the
 * table, its delta and the previous snapshot, no view), the loop with the
 * view (take + page, not the full baseline, whose qsort_r takes a buffer of
 * its own), and the CPU run above. The view's bytes per flow are the peak
 * RSS (VmHWM) with the view less the loop's alone, over the flows.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "flows.h"
#include "snapshot.h"
#include "tui_model.h"

#define RUNS 5
#define PAGE 40

static void count_one(struct rt_flow_val *v, __u32 i, __u64 now)
{
	v->pkts += 100 + i % 7;
	v->bytes += (100 + i % 7) * 1024;
	v->ecn[RT_ECN_ECT0] += 90;
	v->ecn[RT_ECN_CE] += i % 13 == 0 ? 10 : 0;
	v->cnp += i % 17 == 0 ? 3 : 0;
	if (!v->first_ns)
		v->first_ns = now;
	v->last_ns = now;
}

/* The old way's widths: every row's cells formatted. */
static int want_all(const struct tui_row *rows, size_t n, enum tui_colid c, int minw, int maxw)
{
	char cell[64];
	int m = minw;

	for (size_t r = 0; r < n; r++) {
		tui_row_cell(&rows[r], c, cell, sizeof(cell));
		if ((int)strlen(cell) > m)
			m = (int)strlen(cell);
	}
	return m < maxw ? m : maxw;
}

static const enum tui_colid wcols[] = { C_SRC, C_DST, C_IFACE, C_PROC, C_MIRROR };

enum { T_TAKE, T_PAGE, T_FULL, T_TAKEW, T_N };
enum { M_CPU, M_LOOP, M_VIEW };	/* both ways timed; the loop alone; the loop and the view */

/* The process's peak RSS, kB (0 when unknown). */
static double peak_kb(void)
{
	char line[256];
	double kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lf", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int run_case(__u32 n, __u32 every, int mode, double med[T_N], size_t *changed)
{
	struct rt_snapshot prev, cur;
	struct rt_delta d = { 0 };
	struct tui_data td, tw;	/* the view; the same taken the whole way every time */
	struct tui_row *rows = NULL;
	size_t cap = 0;
	__u32 *ord = malloc((n ? n : 1) * sizeof(*ord));
	double s[T_N][RUNS + 1];
	int err = -1, sink = 0;

	rt_snapshot_init(&prev);
	rt_snapshot_init(&cur);
	tui_data_init(&td);
	tui_data_init(&tw);
	tw.no_fast = 1;
	if (!ord || rt_snapshot_make_table(&cur))
		goto out;
	for (int k = 0; k <= RUNS; k++) {	/* k = 0: the first interval, all new */
		__u64 now = (__u64)(k + 1) * 1000000000ULL;
		double t0, t1;
		int nr;

		rt_snapshot_next_interval(&cur);
		for (__u32 i = 0; i < n; i++) {
			struct rt_flow_key key;
			struct rt_flow *f;
			int fresh;

			if (k && every > 1 && i % every != (__u32)k % every)
				continue;
			bench_flow_key(&key, i);
			f = rt_snapshot_flow(&cur, &key, &fresh);
			if (!f)
				goto out;
			rt_snapshot_touch(&cur, f);	/* before the counters move */
			count_one(&f->v, i, now);
		}
		cur.time_ns = cur.mono_ns = now;
		rt_snapshot_add_iface(&cur, 1, "bench0", "native");
		if (rt_delta_changes(&d, k ? &prev : NULL, &cur))
			goto out;
		d.secs = 1;
		*changed = d.nflows;

		if (mode == M_LOOP) {
			if (rt_snapshot_copy_small(&prev, &cur))
				goto out;
			continue;
		}
		/* the take both ways, in turns */
		for (int pass = 0; pass < 2; pass++) {
			int whole = (pass + k) % 2;

			if (whole && mode != M_CPU)
				continue;
			t0 = cpu_ms();
			if (tui_data_take(whole ? &tw : &td, &cur, &d))
				goto out;
			s[whole ? T_TAKEW : T_TAKE][k] = cpu_ms() - t0;
		}

		/* the two ways, in turns, on the same data */
		for (int pass = 0; pass < 2; pass++) {
			int full = (pass + k) % 2;

			if (full && mode == M_VIEW)
				continue;

			t1 = cpu_ms();
			if (!full) {
				size_t sel = 5 % (n ? n : 1);

				nr = tui_flow_rows_ex(&td, 0, "", 0, &rows, &cap);
				if (nr < 0)
					goto out;
				for (int i = 0; i < nr; i++)
					ord[i] = (__u32)i;
				sink += (int)tui_rows_rank(rows, (size_t)nr, sel, C_CONG, 0);
				tui_rows_order(ord, rows, (size_t)nr, 0, PAGE, C_CONG, 0);
				for (int i = 0; i < PAGE && i < nr; i++)
					tui_row_avgs(&td, &rows[ord[i]]);
				{
					int owned, mirror;

					tui_rows_have(&td, rows, (size_t)nr, &owned, &mirror);
					sink += owned + mirror;
				}
				for (size_t c = 0; c < sizeof(wcols) / sizeof(wcols[0]); c++)
					sink += tui_rows_want_t(&td, rows, (size_t)nr, wcols[c], tui_cols[wcols[c]].width,
								tui_cols[wcols[c]].maxw);
				s[T_PAGE][k] = cpu_ms() - t1;
			} else {
				nr = tui_flow_rows(&td, 0, "", &rows, &cap);
				if (nr < 0)
					goto out;
				tui_rows_sort(rows, (size_t)nr, C_CONG, 0);
				for (size_t c = 0; c < 3; c++)	/* as before: addresses, interfaces */
					sink += want_all(rows, (size_t)nr, wcols[c], tui_cols[wcols[c]].width,
							 tui_cols[wcols[c]].maxw);
				s[T_FULL][k] = cpu_ms() - t1;
			}
		}
		if (rt_snapshot_copy_small(&prev, &cur))
			goto out;
	}
	for (int p = 0; p < T_N; p++)
		med[p] = mode == M_CPU ? median(s[p] + 1, RUNS) : 0;	/* the first interval is the warm-up */
	err = sink < 0;
out:
	free(rows);
	free(ord);
	tui_data_free(&td);
	tui_data_free(&tw);
	rt_delta_free(&d);
	rt_snapshot_free(&prev);
	rt_snapshot_free(&cur);
	return err;
}

/* run_case in a child of its own: its figures and its peak RSS (kB) into out. */
static int run_child(__u32 n, __u32 every, int mode, double out[T_N + 2])
{
	int fd[2], st = 0;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		double r[T_N + 2] = { 0 };
		size_t changed = 0;
		int err;

		close(fd[0]);
		err = run_case(n, every, mode, r, &changed);
		r[T_N] = (double)changed;
		r[T_N + 1] = peak_kb();
		if (write(fd[1], r, sizeof(r)) != (ssize_t)sizeof(r))
			err = 1;
		_exit(err ? 1 : 0);
	}
	close(fd[1]);
	if (read(fd[0], out, sizeof(double) * (T_N + 2)) != (ssize_t)(sizeof(double) * (T_N + 2)))
		st = -1;
	close(fd[0]);
	{
		int ws;

		if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws))
			st = -1;
	}
	return st;
}

int main(int argc, char **argv)
{
	static const struct { __u32 flows, every; const char *what; } cases[] = {
		{ 10000, 1, "10k flows, all changing" },
		{ 10000, 100, "10k flows, 1% changing" },
		{ 100000, 100, "100k flows, 1% changing" },
		{ 100000, 1, "100k flows, all changing" },
	};
	double la[3] = { 0 };
	FILE *f = fopen("/proc/loadavg", "r");

	(void)argc;
	(void)argv;
	if (f) {
		if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
			la[0] = -1;
		fclose(f);
	}
	printf("tui_bench: the live view's CPU per refresh (tui/tui_model.c), ms, median of %d intervals; "
	       "load average %.2f\n", RUNS, la[0]);
	printf("  take = tui_data_take; whole = baseline, same run: the take the whole way (a sorted copy,\n"
	       "  every flow's histories carried over), as every snapshot was taken before; page = rows, selection's rank, a %d-row page ordered "
	       "(tui_rows_order), widths;\n  full = baseline, same run: every row's averages, "
	       "every row sorted (qsort_r), every address formatted\n", PAGE);
	printf("%-26s %8s %8s %8s %8s %9s %10s %12s %9s %9s %8s\n", "case", "changed", "take", "whole",
	       "page", "full", "refresh", "full/page", "loop MB", "+view MB", "B/flow");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double m[T_N + 2], loop[T_N + 2], view[T_N + 2];

		if (run_child(cases[i].flows, cases[i].every, M_CPU, m) ||
		    run_child(cases[i].flows, cases[i].every, M_LOOP, loop) ||
		    run_child(cases[i].flows, cases[i].every, M_VIEW, view)) {
			fprintf(stderr, "tui_bench: a case could not run (out of memory?)\n");
			return 1;
		}
		printf("%-26s %8.0f %8.2f %8.2f %8.2f %9.2f %10.2f %11.1fx %9.1f %9.1f %8.0f\n", cases[i].what,
		       m[T_N], m[T_TAKE], m[T_TAKEW], m[T_PAGE], m[T_FULL], m[T_TAKE] + m[T_PAGE],
		       m[T_PAGE] > 0 ? m[T_FULL] / m[T_PAGE] : 0, loop[T_N + 1] / 1024,
		       (view[T_N + 1] - loop[T_N + 1]) / 1024,
		       (view[T_N + 1] - loop[T_N + 1]) * 1024 / cases[i].flows);
	}
	printf("refresh = take + page, what one snapshot costs the view (per-interval work\n"
	       "follows what changed; targets for the whole interval: 100k flows 1%% changing <= 15 ms,\n"
	       "100k all changing <= 60 ms, 10k all changing <= 5 ms)\n"
	       "loop MB = peak RSS of the loop alone (table, delta, previous snapshot); +view MB = what the\n"
	       "view adds to it (peak RSS with the view less the loop's); B/flow = +view over the flows\n"
	       "(target: <= 300 B/flow at 100k flows 1%% changing, as low as exact data allows when all change)\n");
	return 0;
}
