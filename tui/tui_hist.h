/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view's per-flow histories (tui_hist.c): each flow's deltas,
 * packed, behind the 2 s / 10 s / 40 s averages (iftop's) and the detail's
 * sparklines. Below the model (tui_model.h includes it), above nothing of
 * the view.
 */
#ifndef RT_TUI_HIST_H
#define RT_TUI_HIST_H

#include <stddef.h>
#include "snapshot.h"

/* ---- history of one flow's deltas, for averages and sparklines ---- */

#define TUI_HIST 48		/* intervals kept per flow */
#define TUI_NWIN 3		/* averaging windows */
extern const double tui_windows[TUI_NWIN];	/* 2, 10, 40 seconds */

enum tui_metric { TM_PKTS, TM_BYTES, TM_CE, TM_CNP, TM_NAK, TM_RNR, TM_N };

/* A sample as the detail view and tui_hist_sum read it. */
struct tui_sample {
	double t_end;		/* seconds (snapshot time) at the end of the interval */
	double secs;		/* length of the interval */
	__u64 c[TM_N];
};

/* One flow's history written out in full (tui_hists_get), newest at head - 1. */
struct tui_hist {
	unsigned int head;	/* next slot to write */
	unsigned int n;		/* samples held, at most TUI_HIST */
	struct tui_sample s[TUI_HIST];
};

/*
 * One flow's history as kept: a sample for every interval since the flow
 * came (at most TUI_HIST), of which only those that counted something are
 * stored, packed (tui_hist.c), oldest first; the intervals' times
 * are tui_hists' ring_t / ring_s, the same for every flow. A flow that has
 * not moved within the last TUI_HIST intervals keeps no bytes at all.
 * Interval numbers are counted modulo 2^32 (13 years of 0.1 s intervals).
 */
struct tui_hrec {
	union {			/* the samples kept, packed (tui_hist.c): */
		__u8 *p;	/* cap bytes allocated, oldest first, */
		__u8 in[8];	/* or, while cap is 0, len bytes here */
	};
	__u32 start;		/* its first sample is interval start + 1 */
	__u32 first, last;	/* the intervals of the oldest and newest sample kept (when len) */
	__u16 len, cap;		/* bytes of p used, allocated */
};

static inline const __u8 *tui_hrec_bytes(const struct tui_hrec *r)
{
	return r->cap ? r->p : r->in;
}

/*
 * Histories of the flows of the view's snapshot: flows[i]'s is rec[i]. Per
 * snapshot: tui_hists_interval (a new interval, or a seek back), then
 * tui_hists_remap (the histories carried over to the new snapshot's flows),
 * tui_hists_push for each flow that moved, tui_hists_done.
 */
struct tui_hists {
	struct tui_hrec *rec, *rec2;
	size_t n, cap, cap2;
	size_t sweep;		/* tui_hists_done's place in its sweep of rec */
	double last_t;
	__u32 niv;		/* intervals pushed since the start */
	int pushed;		/* the last snapshot ended an interval */
	double ring_t[TUI_HIST], ring_s[TUI_HIST];	/* interval v's end and length: [v % TUI_HIST] */
	/* at the last snapshot, window w sums the win_n[w] newest samples of a
	 * flow that has that many, which cover cov[win_n[w]] seconds (cov[m]:
	 * the m newest intervals) */
	unsigned int win_n[TUI_NWIN];
	double cov[TUI_HIST + 1];
	struct tui_hist *dec;	/* what tui_hists_get writes out */
};

void tui_hist_push(struct tui_hist *h, double t_end, double secs, const struct rt_flow_val *d);
/* The i-th newest sample (0 = newest), or NULL. */
const struct tui_sample *tui_hist_at(const struct tui_hist *h, unsigned int i);
/*
 * Add to sum[] the counts of the samples that started within the last `window`
 * seconds before `now` (the newest sample always counts); returns the seconds
 * they cover (0 without samples).
 */
double tui_hist_sum(const struct tui_hist *h, double now, double window, __u64 sum[TM_N]);

/* A snapshot at `now` ending an interval of secs (0: none, the first one). A
 * snapshot older than the last one (a seek back) starts every history over. */
void tui_hists_interval(struct tui_hists *H, double now, double secs);
/* The next snapshot's n flows: flow i's history is the last snapshot's flow
 * from[i] - 1 (from[i] 0: a new flow; from NULL: the same flows); the
 * histories of the flows not named go. 0 or -ENOMEM. */
int tui_hists_remap(struct tui_hists *H, size_t n, const __u32 *from);
/* Flow i moved by d in the interval. 0 or -ENOMEM. */
int tui_hists_push(struct tui_hists *H, size_t i, const struct rt_flow_val *d);
/* After the pushes: the windows of the averages, and a part of the sweep that
 * frees the samples of flows idle for TUI_HIST intervals. */
void tui_hists_done(struct tui_hists *H);
/* Flow i's sums over each window of tui_windows, added to sum[w] (as
 * tui_hist_sum would over its history at the last snapshot), and the
 * seconds they cover in secs[w]. */
void tui_hists_sums(const struct tui_hists *H, size_t i, __u64 sum[TUI_NWIN][TM_N], double secs[TUI_NWIN]);
/* Flow i's history written out in full, or NULL: valid until the next call. */
const struct tui_hist *tui_hists_get(const struct tui_hists *H, size_t i);
void tui_hists_free(struct tui_hists *H);

#endif
