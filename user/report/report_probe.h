/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rocetop report's probes: the probe mesh's rows of a run (probe_row.h, as a
 * recording carries them) added up per peer, path and probe size, and each
 * peer's network time and lost probes per interval for the timelines
 * (report_probe.c, no I/O but its printing through user/core/print.h).
 * Memory is bounded: RT_REP_PROBE_ROWS rows, RT_REP_PROBE_PEERS peers, and
 * at most RT_REP_PROBE_KEEP kept values a row or points a peer (beyond it,
 * every other one is dropped and one in twice as many kept: evenly thinned).
 */
#ifndef RT_REPORT_PROBE_H
#define RT_REPORT_PROBE_H

#include "snapshot.h"

#define RT_REP_PROBE_ROWS	1024
#define RT_REP_PROBE_PEERS	256
#define RT_REP_PROBE_KEEP	4096

/* One peer, path and size over the run. */
struct rt_rep_probe {
	char peer[64], addr[48];
	__u32 flow_label, size;
	__u16 udp_sport;
	__u8 path, clock;
	__u64 sent, answered, lost;
	__u64 intervals;			/* intervals it had a row in */
	__u32 nfinding[RT_PF__N];		/* intervals judged each finding */
	/* the intervals' p50s kept (-1s left out): 3 per kept interval */
	double *p50;				/* rtt, net, resp of each kept interval */
	size_t nkept, stride, seen, p50_cap;
};

/* One point of a peer's timeline: an interval (or several, thinned). */
struct rt_rep_probe_pt {
	__u64 time_ns;
	double net_p50_us;		/* the greatest of its rows' (-1: none) */
	__u64 sent, lost;
};

struct rt_rep_probe_peer {
	char peer[64], addr[48];
	struct rt_rep_probe_pt *pts;
	size_t n, stride, seen, cap;
};

struct rt_rep_probes {
	struct rt_rep_probe *rows;
	size_t n, cap;
	struct rt_rep_probe_peer *peers;
	size_t npeers, peers_cap;
	__u64 rows_left;		/* rows of peers, paths or sizes past the bounds */
};

/* One interval's rows (time_ns: the snapshot's). 0 or -ENOMEM. */
int rt_rep_probes_take(struct rt_rep_probes *P, const struct rt_snapshot *s);
void rt_rep_probes_free(struct rt_rep_probes *P);
/* The median of a row's kept p50s: which 0 rtt, 1 network, 2 responder; -1 none. */
double rt_rep_probe_p50(const struct rt_rep_probe *r, int which);
/* Add ns to every time (several hosts on one clock). */
void rt_rep_probes_shift(struct rt_rep_probes *P, __s64 ns);

struct rt_printer;
struct rt_flog;
/* The report's probes section: a row per peer, path and size, then the
 * probe findings' episodes (from L). */
void rt_rep_probes_print(struct rt_printer *p, const struct rt_rep_probes *P, const struct rt_flog *L);

#endif
