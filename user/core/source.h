/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A source produces snapshots: live BPF maps on interfaces, a pcap/pcapng
 * capture, or a rocetop recording.
 */
#ifndef RT_SOURCE_H
#define RT_SOURCE_H

#include "snapshot.h"

struct rt_source {
	const char *name;
	int live;	/* 1: paced by the interval timer; 0: a file, as fast as the sinks take it */
	/*
	 * 0: collect() fills a cleared plain snapshot with every flow, in any
	 * order (the stream folds it into its table: O(N));
	 * 1: collect() is handed the persistent table (snapshot.h) after
	 * rt_snapshot_next_interval() and updates the rows that changed.
	 */
	int incremental;
	__u32 max_flows;	/* incremental: the table's bound, 0 = none */
	/*
	 * Fill snap with the next snapshot: for live sources the counters now,
	 * for files the state at the end of the next interval of capture time.
	 * Returns 1 for a snapshot, 0 at the end, or a negative errno after
	 * saying why.
	 */
	int (*collect)(struct rt_source *s, struct rt_snapshot *snap);
	/* Files: start again from the beginning (for seeking); may be NULL. */
	int (*rewind)(struct rt_source *s);
	void (*close)(struct rt_source *s);
	void *priv;
	const char *host;	/* recordings: the host that recorded it, or "" / NULL */
	/* recordings: the rocetop version, kernel and options that made it ("" in
	 * older ones); NULL for other sources */
	const char *version, *kernel, *options;
	/* Live sources: CLOCK_MONOTONIC when counting began (the BPF programs
	 * attached), so that the first snapshot is rated over all it counted,
	 * not over one interval when it came late; 0: one interval. */
	__u64 start_mono_ns;
};

/* The constructors of sources are above the core: user/sources/sources.h
 * (live, file), user/sources/sflow.h; user/cmd/run.c chooses one. */

#endif
