/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pure parts of the live view, kept apart from ncurses so that they can be
 * unit-tested: the copy of the last snapshot and its deltas, the per-flow
 * histories (packed) behind the 2 s / 10 s / 40 s averages (iftop's), the rows of
 * the flow and host-pair tables, column descriptors, comparators that cannot
 * overflow (htop's SPACESHIP_NUMBER), the filter, and the column layout.
 */
#ifndef RT_TUI_MODEL_H
#define RT_TUI_MODEL_H

#include <stddef.h>
#include "jobagg.h"
#include "snapshot.h"
#include "tui_hist.h"

/* ---- comparators: -1, 0, 1 without subtracting (no overflow) ---- */

static inline int tui_spaceship_u64(__u64 a, __u64 b)
{
	return (a > b) - (a < b);
}

/* NaN sorts below every number, and equal to another NaN. */
static inline int tui_spaceship_dbl(double a, double b)
{
	int na = a != a, nb = b != b;

	if (na || nb)
		return nb - na;
	return (a > b) - (a < b);
}

/* ---- the view's copy of the data ---- */

#define TUI_IVIX_OWN	0xffffffffu

struct tui_data {
	struct rt_snapshot snap;	/* copy of the last snapshot */
	/* Its deltas over the interval and since the start (rt_delta_compute
	 * from nothing): the small tables (ifs, ports, sFlow's), pointing into
	 * snap, and the flows' totals (counters only: first_ns, last_ns 0);
	 * no flows (nflows 0): a flow's counts are tui_flow_d's. */
	struct rt_delta iv;
	struct rt_delta since;
	struct tui_hists hists;
	/* The flows that changed in the interval: the loop's delta of those
	 * whose delta is not their whole counters (pointing into snap); for
	 * each flow of snap its entry there + 1, TUI_IVIX_OWN (its delta is its
	 * counters: a new flow), or 0 (no change); the places set (ivr) */
	struct rt_flow_delta *ivd;
	size_t nivd, ivd_cap;
	__u32 *ivix, *ivr;
	size_t nivix, ivix_cap, nivr, ivr_cap;
	/* tui_data_take's own: flows' places in the last snapshot (or the
	 * changed flows' in the copy); the counters since the start summed
	 * over flows (and estimates) */
	__u32 *from;
	size_t from_cap;
	size_t nv6, nowned, nmirror;	/* flows of snap over IPv6, with an owner, mirrored */
	int one_if;			/* all of them on one interface, of one origin */
	struct rt_flow_val stot, sest;
	int table_ok;			/* the last snapshot was a table's, taken whole or fast */
	int no_fast;			/* tests: always the whole way (the oracle) */
	long nfast;			/* snapshots taken the fast way */
	__u64 first_time_ns;		/* time of the first snapshot shown */
	long nsnaps;
};

void tui_data_init(struct tui_data *t);
void tui_data_free(struct tui_data *t);
/* Copy cur and d (the loop reuses both), fill `since` and the histories.
 * When the flows are the same as the last snapshot's (none came or went),
 * only the k that changed are copied: O(k log(N / k)), not O(N). */
int tui_data_take(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d);

/* Flow i of t->snap: its counts over the interval (totals 0; zero counters
 * for a flow that did not change, its other fields as the flow's), or since
 * the start, as a delta of the whole table would have them. */
void tui_flow_d(const struct tui_data *t, int totals, size_t i, struct rt_flow_val *out);

/* ---- rows of the flow and host-pair tables ---- */

struct tui_row {
	const struct rt_flow *f;	/* flows: the flow; pairs: the first flow of the pair */
	struct rt_flow_val d;		/* counts: over the interval, or since the start */
	double secs;			/* rates over this many seconds; 0: show counts */
	__u64 idle_ns;			/* since the last packet (IDLE) */
	__u64 age_ns;			/* since the first packet (AGE); pairs: the oldest flow's */
	double avg[TUI_NWIN][4];	/* pkts/s, bits/s, CE %, CNPs/s over each window */
	int avg_ok;
	int avg_todo;			/* avg not filled yet (tui_row_avgs) */
	unsigned int nflows;		/* pairs: flows aggregated */
	int idx;			/* flows: index in snap.flows */
	const char *ifname;
	const struct rt_job *job;	/* flows: the owner's job (snap's jobs), NULL: none */
};

enum tui_colid {
	C_IFACE, C_DIR, C_SRC, C_DST, C_DQPN, C_PRIO, C_FLOWS, C_PKTS, C_GBPS, C_CE, C_CNP, C_NAK,
	C_RNR,
	C_GB2, C_GB10, C_GB40, C_CE2, C_CE10, C_CE40, C_CNP2, C_CNP10, C_CNP40,
	C_IDLE, C_AGE, C_PROC, C_JOB, C_MIRROR,
	C_CONG,		/* not shown: CE + CNP + NAKs, the default order (as --batch) */
	C_NCOLS
};

#define TUI_COL_LEFT	0x1	/* left-aligned text */
#define TUI_COL_AVG	0x2	/* shown only with averages on */
#define TUI_COL_PROC	0x4	/* shown only when some flow has an owner */
#define TUI_COL_TEXT	0x8	/* sorts ascending first */
#define TUI_COL_HIDDEN	0x10	/* a sort key without a column */
#define TUI_COL_MIRROR	0x20	/* shown only when some flow came inside a mirror copy */
#define TUI_COL_JOB	0x40	/* shown only when some flow's owner has a job */

struct tui_col {
	const char *title;	/* rates */
	const char *ttitle;	/* totals since the start */
	const char *name;	/* --sort and the sort menu */
	short width;		/* minimum */
	short maxw;		/* what it may grow to with room to spare */
	unsigned char prio;	/* dropped first when the screen is narrow: highest */
	unsigned char flags;
};

extern const struct tui_col tui_cols[C_NCOLS];
extern const enum tui_colid tui_flow_cols[];
extern const size_t tui_nflow_cols;
extern const enum tui_colid tui_pair_cols[];
extern const size_t tui_npair_cols;

/* A column by its sort name ("ce", "cnp", "src", ...), or -1. */
int tui_col_by_name(const char *name);

/* Fill rows (flows of the data that pass the filter, an expression of
 * user/core/filter.h judged on the counts shown; one that does not parse
 * passes nothing); returns the count or -ENOMEM.
 * totals: counts since the start instead of rates over the interval. */
int tui_flow_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap);
/* The same; avgs 0: the averages (and h) are left for tui_row_avgs, which
 * only the rows shown need, unless the order is by an average. */
int tui_flow_rows_ex(const struct tui_data *t, int totals, const char *filter, int avgs,
		     struct tui_row **rows, size_t *cap);
/* Fill a row's averages if tui_flow_rows_ex left them. */
void tui_row_avgs(const struct tui_data *t, struct tui_row *r);
/* Rows per host pair (source, destination), over QPs, directions, interfaces. */
int tui_pair_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap);

/* Order of two rows by column c; invert flips it. Ties: the flow key. */
int tui_row_cmp(const struct tui_row *a, const struct tui_row *b, enum tui_colid c, int invert);
void tui_rows_sort(struct tui_row *rows, size_t n, enum tui_colid c, int invert);
/*
 * Ordering only what is shown (top-K selection for one page): ord holds a
 * permutation of 0..n-1 (rows' indexes); afterwards ord[lo..hi) name, in
 * order, the rows that tui_rows_sort would put at lo..hi, and the others lie
 * on their side of the page in no order. Expected O(n + m log m) comparisons
 * for a page of m rows, not O(n log n). For rows of tui_flow_rows or
 * tui_pair_rows: ties are broken by idx, which follows the key order there.
 */
void tui_rows_order(__u32 *ord, const struct tui_row *rows, size_t n, size_t lo, size_t hi,
		    enum tui_colid c, int invert);
/* The place rows[i] has in that order: O(n) comparisons. */
size_t tui_rows_rank(const struct tui_row *rows, size_t n, size_t i, enum tui_colid c, int invert);
/*
 * What column c of the flow or pair tables wants to grow to (at most maxw,
 * at least minw): its longest cell over the n rows, in any order. Cells that
 * cannot be longer than minw (IPv4 addresses, rows without an owner or a
 * mirror session) are not formatted.
 */
int tui_rows_want(const struct tui_row *rows, size_t n, enum tui_colid c, int minw, int maxw);
/* tui_rows_want for rows of t's flows or pairs: without a walk where t's
 * flows already say (no IPv6 address, no owner, no mirror session). */
int tui_rows_want_t(const struct tui_data *t, const struct tui_row *rows, size_t n, enum tui_colid c,
		    int minw, int maxw);
/* Whether some row has an owner (PROCESS), some a mirror session (MIRROR):
 * no walk when no flow of t has one. */
void tui_rows_have(const struct tui_data *t, const struct tui_row *rows, size_t n, int *owned, int *mirror);
/* Numeric value of a column (rates, or counts when secs == 0; tui_cells.c). */
double tui_row_num(const struct tui_row *r, enum tui_colid c);
/* The text of a cell. */
void tui_row_cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len);

/*
 * Lay out n columns in `width` characters, one space between them: drop the
 * columns of highest prio until the minimum widths fit, then grow columns
 * towards want[] (left to right). Sets w[i] (0: hidden) and x[i]; returns the
 * number of columns shown.
 */
int tui_layout(const short *minw, const short *want, const unsigned char *prio, int n, int width,
	       int *x, int *w);

/* Sparkline of values (oldest first) into buf, one cell per value, scaled to max. */
void tui_sparkline(const double *v, int n, int utf8, char *buf, size_t len);

/* Interval ladder for + and -. */
double tui_interval_step(double cur, int up);

/* ---- the arithmetic of the header and the detail view ---- */

/* One priority's PFC over every interface and direction of a delta. */
struct tui_pfc_prio {
	__u64 frames, xon;
	double paused;	/* seconds paused, summed over interfaces (rt_link_speed) */
	double share;	/* the largest paused share of the interval on one of them, %;
			 * -1 without frames; 0 over totals (secs 0) */
};

/* PFC per priority of D (secs: the interval, 0 for totals since the start);
 * speed_given: --link-speed, else each interface's speed in s (rt_link_speed). */
void tui_pfc_prios(const struct rt_snapshot *s, const struct rt_delta *D, double secs,
		   __u64 speed_given, struct tui_pfc_prio out[RT_NPRIO]);

/* ---- the jobs view (tui_jobs.c) ---- */

/* Seconds interface ifname was paused on priority prio in D, in either
 * direction: the longest of the wire's pause quanta (at the link speed,
 * rt_link_speed with speed_given) and the NIC's rx/tx_prioN_pause_duration
 * (with totals, D the counts since the start: the NIC's count as it stands,
 * as the header shows the NIC's counters). */
double tui_paused_secs(const struct rt_snapshot *s, const struct rt_delta *D, int totals, __u64 speed_given,
		       const char *ifname, unsigned int prio);
/* The n flow rows of s folded into a by job (a's group: rt_jobagg, as
 * --group-by folds), each sum's paused the longest tui_paused_secs of the
 * interfaces and priorities its flows cross. a is cleared first. 0 or -ENOMEM. */
int tui_jobs_fold(const struct rt_snapshot *s, const struct rt_delta *D, int totals, __u64 speed_given,
		  const struct tui_row *rows, size_t n, struct rt_jobagg *a);

/* A NIC congestion counter for the header, summed over ports and devices. */
struct tui_nic_sum {
	const char *name;	/* the DCQCN counters by short names, the others as the driver names them */
	__u64 v;		/* the interval's increase, or with totals the value */
};

/* The NIC's congestion counters of D: np_ecn_marked_roce_packets,
 * np_cnp_sent, rp_cnp_handled, out_of_sequence and packet_seq_err first
 * where present, then the others (those that moved, unless totals), each
 * name once. Returns how many went into out (at most max). */
size_t tui_nic_sums(const struct rt_delta *D, int totals, struct tui_nic_sum *out, size_t max);

/* ---- the probes view (tui_probes.c) ---- */

/* Its heading, and the line of a probe row: peer, path, flow label, UDP
 * source port, size, the interval's sent and lost (since the start with
 * totals), RTT p50 and p99, network and responder p50 (whole us, "-" with no
 * sample), clock, finding. */
void tui_probe_head(int totals, char *line, size_t len);
void tui_probe_line(const struct rt_probe_row *r, int totals, char *line, size_t len);
/* How loud the row is drawn: 0, 1 (a finding), 2 (path-down). */
int tui_probe_sev(const struct rt_probe_row *r);

/* The detail view's table of one flow: pkts/s, Gb/s, CE %, CNPs/s, NAKs/s. */
enum tui_dmetric { TUI_DM_PKTS, TUI_DM_GBPS, TUI_DM_CE, TUI_DM_CNP, TUI_DM_NAK, TUI_DM_N };

struct tui_detail {
	/* [metric][0]: the last interval; [metric][1 + w]: window w of
	 * tui_windows; NAN where no time was covered */
	double v[TUI_DM_N][1 + TUI_NWIN];
	__u64 total[TUI_DM_N];	/* since the start: pkts, bytes, CE, CNPs, NAKs */
};

/* The detail of flow idx of t's snapshot. */
void tui_detail_rates(const struct tui_data *t, size_t idx, struct tui_detail *out);
/* A sparkline's values, oldest first, from the n newest samples of h:
 * metric 0 is CE %, 1 CNPs/s, 2 packets/s (a flow PFC stopped falls to 0).
 * Returns how many; *max the largest. */
int tui_detail_series(const struct tui_hist *h, int metric, int n, double *v, double *max);

#endif
