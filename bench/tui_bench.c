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
 *          columns' widths (tui_rows_want_t): what tui_state.c does per
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

/* One case's state: the loop's table and delta, the view and its rows. */
struct tb_case {
	struct rt_snapshot prev, cur;
	struct rt_delta d;
	struct tui_data td, tw;	/* the view; the same taken the whole way every time */
	struct tui_row *rows;
	size_t cap;
	__u32 *ord;
	__u32 n;
	int sink;		/* results summed, so no call is optimised away */
};

/* Interval k as the loop takes it: the flows that move this time touched and
 * counted in the table, then the changed-only delta. */
static int step_flows(struct tb_case *c, __u32 every, int k)
{
	__u64 now = (__u64)(k + 1) * 1000000000ULL;

	rt_snapshot_next_interval(&c->cur);
	for (__u32 i = 0; i < c->n; i++) {
		struct rt_flow *f;

		if (!bench_flow_moves(i, every, k))
			continue;
		f = bench_flow_touch(&c->cur, i);
		if (!f)
			return -1;
		count_one(&f->v, i, now);
	}
	c->cur.time_ns = c->cur.mono_ns = now;
	rt_snapshot_add_iface(&c->cur, 1, "bench0", "native");
	if (rt_delta_changes(&c->d, k ? &c->prev : NULL, &c->cur))
		return -1;
	c->d.secs = 1;
	return 0;
}

/* The view's take, the fast way and (M_CPU) the whole way, in turns. */
static int time_takes(struct tb_case *c, int mode, int k, double s[T_N][RUNS + 1])
{
	for (int pass = 0; pass < 2; pass++) {
		int whole = (pass + k) % 2;
		double t0;

		if (whole && mode != M_CPU)
			continue;
		t0 = cpu_ms();
		if (tui_data_take(whole ? &c->tw : &c->td, &c->cur, &c->d))
			return -1;
		s[whole ? T_TAKEW : T_TAKE][k] = cpu_ms() - t0;
	}
	return 0;
}

/* The page as the view now builds it: rows, the selected row's rank, the
 * page's partial order, its averages, the column widths. */
static int page_now(struct tb_case *c)
{
	size_t sel = 5 % (c->n ? c->n : 1);
	int owned, mirror;
	int nr = tui_flow_rows_ex(&c->td, 0, "", 0, &c->rows, &c->cap);

	if (nr < 0)
		return -1;
	for (int i = 0; i < nr; i++)
		c->ord[i] = (__u32)i;
	c->sink += (int)tui_rows_rank(c->rows, (size_t)nr, sel, C_CONG, 0);
	tui_rows_order(c->ord, c->rows, (size_t)nr, 0, PAGE, C_CONG, 0);
	for (int i = 0; i < PAGE && i < nr; i++)
		tui_row_avgs(&c->td, &c->rows[c->ord[i]]);
	tui_rows_have(&c->td, c->rows, (size_t)nr, &owned, &mirror);
	c->sink += owned + mirror;
	for (size_t w = 0; w < sizeof(wcols) / sizeof(wcols[0]); w++)
		c->sink += tui_rows_want_t(&c->td, c->rows, (size_t)nr, wcols[w], tui_cols[wcols[w]].width,
					   tui_cols[wcols[w]].maxw);
	return 0;
}

/* The page the old way: every row built with its averages, all sorted, every cell's width. */
static int page_full(struct tb_case *c)
{
	int nr = tui_flow_rows(&c->td, 0, "", &c->rows, &c->cap);

	if (nr < 0)
		return -1;
	tui_rows_sort(c->rows, (size_t)nr, C_CONG, 0);
	for (size_t w = 0; w < 3; w++)	/* as before: addresses, interfaces */
		c->sink += want_all(c->rows, (size_t)nr, wcols[w], tui_cols[wcols[w]].width,
				    tui_cols[wcols[w]].maxw);
	return 0;
}

/* The two ways, in turns, on the same data (M_VIEW: the new one alone). */
static int time_pages(struct tb_case *c, int mode, int k, double s[T_N][RUNS + 1])
{
	for (int pass = 0; pass < 2; pass++) {
		int full = (pass + k) % 2;
		double t1;

		if (full && mode == M_VIEW)
			continue;
		t1 = cpu_ms();
		if (full ? page_full(c) : page_now(c))
			return -1;
		s[full ? T_FULL : T_PAGE][k] = cpu_ms() - t1;
	}
	return 0;
}

static int run_case(__u32 n, __u32 every, int mode, double med[T_N], size_t *changed)
{
	struct tb_case c = { .n = n };
	double s[T_N][RUNS + 1];
	int err = -1;

	c.ord = malloc((n ? n : 1) * sizeof(*c.ord));
	rt_snapshot_init(&c.prev);
	rt_snapshot_init(&c.cur);
	tui_data_init(&c.td);
	tui_data_init(&c.tw);
	c.tw.no_fast = 1;
	if (!c.ord || rt_snapshot_make_table(&c.cur))
		goto out;
	for (int k = 0; k <= RUNS; k++) {	/* k = 0: the first interval, all new */
		if (step_flows(&c, every, k))
			goto out;
		*changed = c.d.nflows;
		if (mode != M_LOOP && (time_takes(&c, mode, k, s) || time_pages(&c, mode, k, s)))
			goto out;
		if (rt_snapshot_copy_small(&c.prev, &c.cur))
			goto out;
	}
	for (int p = 0; p < T_N; p++)
		med[p] = mode == M_CPU ? median(s[p] + 1, RUNS) : 0;	/* the first interval is the warm-up */
	err = c.sink < 0;
out:
	free(c.rows);
	free(c.ord);
	tui_data_free(&c.td);
	tui_data_free(&c.tw);
	rt_delta_free(&c.d);
	rt_snapshot_free(&c.prev);
	rt_snapshot_free(&c.cur);
	return err;
}

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
	(void)argc;
	(void)argv;
	printf("tui_bench: the live view's CPU per refresh (tui/tui_model.c), ms, median of %d intervals; "
	       "load average %.2f\n", RUNS, load_avg());
	printf("  take = tui_data_take; whole = baseline, same run: the take the whole way (a sorted copy,\n"
	       "  every flow's histories carried over), as every snapshot was taken before; page = rows, selection's rank, a %d-row page ordered "
	       "(tui_rows_order), widths;\n  full = baseline, same run: every row's averages, "
	       "every row sorted (qsort_r), every address formatted\n", PAGE);
	printf("%-26s %8s %8s %8s %8s %9s %10s %12s %9s %9s %8s\n", "case", "changed", "take", "whole",
	       "page", "full", "refresh", "full/page", "loop MB", "+view MB", "B/flow");
	for (size_t i = 0; i < BENCH_NCASES; i++) {
		const struct bench_case *c = &bench_cases[i];
		double m[T_N + 2], loop[T_N + 2], view[T_N + 2];

		if (run_child(c->flows, c->every, M_CPU, m) ||
		    run_child(c->flows, c->every, M_LOOP, loop) ||
		    run_child(c->flows, c->every, M_VIEW, view)) {
			fprintf(stderr, "tui_bench: a case could not run (out of memory?)\n");
			return 1;
		}
		printf("%-26s %8.0f %8.2f %8.2f %8.2f %9.2f %10.2f %11.1fx %9.1f %9.1f %8.0f\n", c->what,
		       m[T_N], m[T_TAKE], m[T_TAKEW], m[T_PAGE], m[T_FULL], m[T_TAKE] + m[T_PAGE],
		       m[T_PAGE] > 0 ? m[T_FULL] / m[T_PAGE] : 0, loop[T_N + 1] / 1024,
		       (view[T_N + 1] - loop[T_N + 1]) / 1024,
		       (view[T_N + 1] - loop[T_N + 1]) * 1024 / c->flows);
	}
	printf("refresh = take + page, what one snapshot costs the view (per-interval work\n"
	       "follows what changed; targets for the whole interval: 100k flows 1%% changing <= 15 ms,\n"
	       "100k all changing <= 60 ms, 10k all changing <= 5 ms)\n"
	       "loop MB = peak RSS of the loop alone (table, delta, previous snapshot); +view MB = what the\n"
	       "view adds to it (peak RSS with the view less the loop's); B/flow = +view over the flows\n"
	       "(target: <= 300 B/flow at 100k flows 1%% changing, as low as exact data allows when all change)\n");
	return 0;
}
