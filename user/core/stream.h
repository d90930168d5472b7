/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A source's snapshots, one interval at a time, with what changed: the one
 * place the main loop, the report, benchmarks and fuzzers step a source.
 * cur is the persistent flow table of snapshot.h; delta names the flows that
 * changed in the interval, in key order.
 */
#ifndef RT_STREAM_H
#define RT_STREAM_H

#include "snapshot.h"
#include "source.h"

struct rt_doc_findings;
struct rt_qp_table;

/*
 * The NIC's view of a live source's host, built above the core (user/nic/nic.h:
 * rt_nic_view()): collect adds the NIC's counters and flows to each snapshot
 * after the source's collect and merge, and joins them with its QP table.
 * For the loop: failed says --qp-counters bound nothing (-errno: the run
 * ends), doctor gives the doctor's last checks of the host (NULL: none yet).
 */
struct rt_nic_view {
	void *nic;			/* NULL: no NIC */
	void (*collect)(void *nic, struct rt_snapshot *snap);
	int (*failed)(const void *nic);
	const struct rt_doc_findings *(*doctor)(const void *nic);
	const struct rt_qp_table *qps;	/* the QP table as last read (the probe mesh's peers) */
};

struct rt_stream {
	struct rt_source *src;
	struct rt_nic_view nic;		/* .nic NULL: no NIC counters */
	struct rt_snapshot cur;		/* the table the sinks see */
	struct rt_snapshot prev;	/* the previous interval's ifdirs, ports, times */
	struct rt_snapshot scratch;	/* whole snapshots of non-incremental sources */
	struct rt_delta delta;
	int have_prev;
	/*
	 * Optional: adds another source's rows (sFlow) to each snapshot after
	 * collect, before the NIC's counters and the join; 1 or a negative errno.
	 * Given a plain snapshot for whole-snapshot sources; an incremental
	 * source's table must be updated through snapshot.h's table calls.
	 */
	int (*merge)(void *arg, struct rt_snapshot *snap);
	void *merge_arg;
	/* Optional: adds the probe mesh's rows (probe_row.h) to the table once
	 * the source's, sFlow's and the NIC's are in; 0 or a negative errno. */
	int (*probes)(void *arg, struct rt_snapshot *snap);
	void *probes_arg;
};

/* 0 or -ENOMEM. src and the NIC (nic may be NULL: none) stay the caller's. */
int rt_stream_init(struct rt_stream *st, struct rt_source *src, const struct rt_nic_view *nic);
/* The next interval into st->cur and st->delta: 1, 0 at the end, or a negative errno. */
int rt_stream_step(struct rt_stream *st);
/* Forget everything (after the source was rewound). */
void rt_stream_restart(struct rt_stream *st);
void rt_stream_free(struct rt_stream *st);

#endif
