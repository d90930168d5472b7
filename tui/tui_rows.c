// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live view's columns and the rows of its flow and host-pair tables,
 * those the filter (user/core/filter.h) keeps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filter.h"
#include "fmt.h"
#include "tui_model.h"

/* ---------------------------------------------------------------- columns */

const struct tui_col tui_cols[C_NCOLS] = {
	[C_IFACE] = { "IFACE", "IFACE", "iface", 6, 24, 7, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DIR]   = { "DIR", "DIR", "dir", 3, 3, 5, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_SRC]   = { "SRC", "SRC", "src", 15, 39, 1, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DST]   = { "DST", "DST", "dst", 15, 39, 1, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DQPN]  = { "DQPN", "DQPN", "dqpn", 8, 8, 2, TUI_COL_TEXT },
	[C_PRIO]  = { "DSCP/P", "DSCP/P", "prio", 6, 6, 8, 0 },
	[C_FLOWS] = { "QPS", "QPS", "flows", 4, 4, 4, 0 },
	[C_PKTS]  = { "PKT/s", "PKTS", "pkts", 6, 7, 3, 0 },
	[C_GBPS]  = { "Gb/s", "BYTES", "bytes", 6, 7, 6, 0 },
	[C_CE]    = { "CE%", "CE", "ce", 6, 6, 2, 0 },
	[C_CNP]   = { "CNP/s", "CNP", "cnp", 6, 6, 3, 0 },
	[C_NAK]   = { "NAK/s", "NAK", "nak", 6, 6, 4, 0 },
	[C_RNR]   = { "RNR/s", "RNR", "rnr", 6, 6, 6, 0 },
	[C_GB2]   = { "Gb2s", "Gb2s", "gb2s", 6, 6, 9, TUI_COL_AVG },
	[C_GB10]  = { "Gb10s", "Gb10s", "gb10s", 6, 6, 9, TUI_COL_AVG },
	[C_GB40]  = { "Gb40s", "Gb40s", "gb40s", 6, 6, 9, TUI_COL_AVG },
	[C_CE2]   = { "CE2s", "CE2s", "ce2s", 6, 6, 5, TUI_COL_AVG },
	[C_CE10]  = { "CE10s", "CE10s", "ce10s", 6, 6, 5, TUI_COL_AVG },
	[C_CE40]  = { "CE40s", "CE40s", "ce40s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP2]  = { "CNP2s", "CNP2s", "cnp2s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP10] = { "CNP10s", "CNP10s", "cnp10s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP40] = { "CNP40s", "CNP40s", "cnp40s", 6, 6, 5, TUI_COL_AVG },
	[C_IDLE]  = { "IDLE", "IDLE", "idle", 5, 5, 8, 0 },
	[C_AGE]   = { "AGE", "AGE", "age", 5, 5, 9, 0 },
	[C_PROC]  = { "PROCESS", "PROCESS", "process", 7, 24, 9, TUI_COL_LEFT | TUI_COL_TEXT | TUI_COL_PROC },
	[C_JOB]   = { "JOB", "JOB", "job", 3, 32, 9, TUI_COL_LEFT | TUI_COL_TEXT | TUI_COL_JOB },
	[C_MIRROR] = { "MIRROR", "MIRROR", "mirror", 6, 22, 7,
		       TUI_COL_LEFT | TUI_COL_TEXT | TUI_COL_MIRROR },
	[C_CONG]  = { "", "", "congestion", 0, 0, 0, TUI_COL_HIDDEN },
};

const enum tui_colid tui_flow_cols[] = {
	C_SRC, C_DST, C_DQPN, C_DIR, C_IFACE, C_PRIO, C_PKTS, C_GBPS, C_CE, C_CNP, C_NAK, C_RNR,
	C_GB2, C_GB10, C_GB40, C_CE2, C_CE10, C_CE40, C_CNP2, C_CNP10, C_CNP40, C_IDLE, C_AGE, C_PROC,
	C_JOB,		/* only when some flow's owner has a job */
	C_MIRROR,	/* only when some flow came inside a mirror copy */
};

const size_t tui_nflow_cols = sizeof(tui_flow_cols) / sizeof(tui_flow_cols[0]);

const enum tui_colid tui_pair_cols[] = {
	C_SRC, C_DST, C_FLOWS, C_PKTS, C_GBPS, C_CE, C_CNP, C_NAK, C_RNR,
	C_GB2, C_GB10, C_GB40, C_CE2, C_CE10, C_CE40, C_CNP2, C_CNP10, C_CNP40, C_IDLE, C_AGE,
};

const size_t tui_npair_cols = sizeof(tui_pair_cols) / sizeof(tui_pair_cols[0]);

int tui_col_by_name(const char *name)
{
	for (int c = 0; c < C_NCOLS; c++)
		if (!strcasecmp(name, tui_cols[c].name))
			return c;
	if (!strcasecmp(name, "gbps") || !strcasecmp(name, "gb"))
		return C_GBPS;
	if (!strcasecmp(name, "qp"))
		return C_DQPN;
	return -1;
}

/* ---------------------------------------------------------------- rows */

static int grow_rows(struct tui_row **rows, size_t *cap, size_t n)
{
	return rt_grow_to((void **)rows, cap, n ? n : 1, sizeof(**rows));
}

static void fill_avgs(struct tui_row *r, const __u64 sum[TUI_NWIN][TM_N], const double secs[TUI_NWIN])
{
	for (int w = 0; w < TUI_NWIN; w++) {
		const __u64 *c = sum[w];
		double s = secs[w];

		r->avg[w][0] = s > 0 ? c[TM_PKTS] / s : 0;
		r->avg[w][1] = s > 0 ? c[TM_BYTES] * 8.0 / s : 0;
		r->avg[w][2] = rt_pct((double)c[TM_CE], (double)c[TM_PKTS]);
		r->avg[w][3] = s > 0 ? c[TM_CNP] / s : 0;
	}
	r->avg_ok = secs[0] > 0;
}

/* Time from `then` to the snapshot, on the flows' clock; 0 for "not known". */
static __u64 since(const struct rt_snapshot *s, __u64 then)
{
	return then && s->mono_ns > then ? s->mono_ns - then : 0;
}

void tui_row_avgs(const struct tui_data *t, struct tui_row *r)
{
	__u64 sum[TUI_NWIN][TM_N] = { { 0 } };
	double secs[TUI_NWIN];

	if (!r->avg_todo)
		return;
	r->avg_todo = 0;
	tui_hists_sums(&t->hists, (size_t)r->idx, sum, secs);
	fill_avgs(r, (const __u64 (*)[TM_N])sum, secs);
}

int tui_flow_rows_ex(const struct tui_data *t, int totals, const char *filter, int avgs,
		     struct tui_row **rows, size_t *cap)
{
	size_t i, n = 0;
	const char *last_name = NULL;
	__u32 last_if = 0;
	int n_if = 0;

	struct rt_filter *F = NULL;
	char err[160];

	if (grow_rows(rows, cap, t->snap.nflows))
		return -ENOMEM;
	if (rt_filter_parse(filter, &F, err, sizeof(err)))
		return 0;	/* the view said why when it was typed */
	for (i = 0; i < t->snap.nflows; i++) {
		const struct rt_flow *f = &t->snap.flows[i];
		struct tui_row *r = &(*rows)[n];

		/* rates: flows silent over the interval still show (IDLE tells how long) */
		memset(r, 0, sizeof(*r));
		tui_flow_d(t, totals, i, &r->d);
		if (F && !rt_filter_flow(F, &t->snap, f, &r->d, totals ? NULL : &t->iv))
			continue;
		n++;
		r->f = f;
		r->job = rt_snapshot_job(&t->snap, f);
		r->idx = (int)i;
		r->secs = totals ? 0 : t->iv.secs;
		r->idle_ns = since(&t->snap, f->v.last_ns);
		r->age_ns = since(&t->snap, f->v.first_ns);
		r->nflows = 1;
		if (!n_if || f->k.ifindex != last_if) {	/* rows of one interface come in runs */
			last_name = rt_snapshot_ifname(&t->snap, f->k.ifindex);
			last_if = f->k.ifindex;
			n_if = 1;
		}
		r->ifname = last_name;
		r->avg_todo = 1;
		if (avgs)
			tui_row_avgs(t, r);
	}
	rt_filter_free(F);
	return (int)n;
}

int tui_flow_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap)
{
	return tui_flow_rows_ex(t, totals, filter, 1, rows, cap);
}

/* Host pairs in the RT_HP_DIRECTED scope of derive.h: src -> dst over
 * interfaces and directions. */
static int pair_key_cmp(const struct rt_flow *a, const struct rt_flow *b)
{
	struct rt_hostpair x, y;

	rt_hostpair_of(&x, &a->k, RT_HP_DIRECTED);
	rt_hostpair_of(&y, &b->k, RT_HP_DIRECTED);
	return rt_hostpair_cmp(&x, &y);
}

static int pair_qcmp(const void *a, const void *b)
{
	const struct tui_row *x = a, *y = b;
	int r = pair_key_cmp(x->f, y->f);

	return r ? r : tui_spaceship_u64((__u64)x->idx, (__u64)y->idx);
}

int tui_pair_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap)
{
	int n = tui_flow_rows_ex(t, totals, filter, 0, rows, cap);
	int i, out = 0;

	if (n <= 0)
		return n;
	qsort(*rows, (size_t)n, sizeof(**rows), pair_qcmp);
	for (i = 0; i < n;) {
		struct tui_row acc = (*rows)[i];
		__u64 sum[TUI_NWIN][TM_N] = { { 0 } };
		double secs[TUI_NWIN] = { 0 };
		int j;

		acc.avg_todo = 0;
		acc.nflows = 0;
		memset(&acc.d, 0, sizeof(acc.d));
		for (j = i; j < n && !pair_key_cmp((*rows)[j].f, acc.f); j++) {
			const struct tui_row *m = &(*rows)[j];

			double ms[TUI_NWIN];

			struct rt_flow_val md;

			tui_flow_d(t, totals, (size_t)m->idx, &md);
			rt_flow_val_add(&acc.d, &md);
			acc.nflows++;
			if (m->idle_ns < acc.idle_ns)	/* the pair is as idle as its busiest flow */
				acc.idle_ns = m->idle_ns;
			if (m->age_ns > acc.age_ns)	/* and as old as its oldest */
				acc.age_ns = m->age_ns;
			tui_hists_sums(&t->hists, (size_t)m->idx, sum, ms);
			for (int w = 0; w < TUI_NWIN; w++)
				if (ms[w] > secs[w])
					secs[w] = ms[w];
		}
		fill_avgs(&acc, (const __u64 (*)[TM_N])sum, secs);
		(*rows)[out++] = acc;
		i = j;
	}
	return out;
}
