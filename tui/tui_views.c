// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's lists that are not the flow table: the jobs view (the
 * flows folded by job, tui_jobs.c's arithmetic) and the probes view (the
 * probe table's rows, tui_probes.c's lines). Drawn with tui_paint.c's
 * helpers (tui_view.h); numbers come from the model.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "tui_view.h"

/* A culprit or victim share as the jobs view shows it: "90.0%", "-" undefined. */
static const char *share_pct(double v, char buf[16])
{
	if (isnan(v))
		return strcpy(buf, "-");
	snprintf(buf, 16, "%.1f%%", 100 * v);
	return buf;
}

/* The flows (as the flows view keeps them: the filter, rates or totals)
 * folded by job, most congested first (rt_jobagg_sorted). */
void tui_draw_jobs(struct tui *t, int y, int h)
{
	double secs = tui_cur_secs(t);
	size_t n = rt_jobagg_sorted(&t->jobs);
	char line[512], safe[RT_JOB_KEY_LEN * 4], ranks[128], c[5][16], ps[16], sh[2][16];

	snprintf(line, sizeof(line), "%-40s %6s %9s %9s %9s %9s %9s %7s %7s %9s %s", "JOB", "FLOWS",
		 secs > 0 ? "PKT/s" : "PKTS", secs > 0 ? "CE/s" : "CE", secs > 0 ? "CNP/s" : "CNP",
		 secs > 0 ? "NAK/s" : "NAK", secs > 0 ? "RNR/s" : "RNR", "CULPRIT", "VICTIM",
		 secs > 0 ? "PAUSED%" : "PAUSED s", "RANKS");
	tui_table_head(t, &y, &h, line);
	if (!n) {
		tui_put(y, 1, !t->have_snap ? "waiting for the first snapshot..." :
			  t->filter[0] ? "no flow matches the filter (Esc in / clears it)" : "no RoCEv2 flows seen yet");
		return;
	}
	if (t->top >= (int)n)
		t->top = (int)n - 1;
	for (int r = 0; r < h && (size_t)(t->top + r) < n; r++) {
		struct rt_jobsum *g = t->jobs.order[t->top + r];
		size_t off;

		if (secs > 0)
			snprintf(ps, sizeof(ps), "%.1f", rt_share_pct(g->paused, secs));
		else
			snprintf(ps, sizeof(ps), "%.4f", g->paused);
		rt_fmt_ranks(g->ranks, g->nranks, ranks, sizeof(ranks) - 24);
		off = strlen(ranks);
		if (g->ranks_over)
			snprintf(ranks + off, sizeof(ranks) - off, " +%llu", (unsigned long long)g->ranks_over);
		snprintf(line, sizeof(line), "%-40s %6llu %9s %9s %9s %9s %9s %7s %7s %9s %s",
			 rt_fmt_safe(g->key, safe, sizeof(safe)), (unsigned long long)g->flows,
			 tui_num(g->pkts, secs, c[0], 16), tui_num(g->ce, secs, c[1], 16), tui_num(g->cnp, secs, c[2], 16),
			 tui_num(g->nak, secs, c[3], 16), tui_num(g->rnr, secs, c[4], 16),
			 share_pct(rt_jobsum_culprit(&t->jobs, g), sh[0]), share_pct(rt_jobsum_victim(g), sh[1]),
			 ps, ranks[0] ? ranks : "-");
		tui_put_attr(y + r, 0, line, g->ce || g->cnp || g->nak || g->paused > 0 ? tui_sev_attr(t, 1) : 0);
	}
}

/* The probe mesh's rows (user/core/probe_row.h) as the snapshot has them:
 * one per peer, path and size, in the mesh's order; a row with a finding in
 * yellow, a path that is down in red. */
void tui_draw_probes(struct tui *t, int y, int h)
{
	const struct rt_snapshot *s = &t->data.snap;
	char line[512];

	tui_probe_head(t->totals, line, sizeof(line));
	tui_table_head(t, &y, &h, line);
	if (!s->nprobes) {
		tui_put(y, 1, !t->have_snap ? "waiting for the first snapshot..." : "no probes: run with --probe");
		return;
	}
	if (t->top >= (int)s->nprobes)
		t->top = (int)s->nprobes - 1;
	for (int r = 0; r < h && (size_t)(t->top + r) < s->nprobes; r++) {
		const struct rt_probe_row *p = &s->probes[t->top + r];

		tui_probe_line(p, t->totals, line, sizeof(line));
		tui_put_attr(y + r, 0, line, tui_sev_attr(t, tui_probe_sev(p)));
	}
}
