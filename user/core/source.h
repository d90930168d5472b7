/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A source produces snapshots: live BPF maps on interfaces, a pcap/pcapng
 * capture, or a rocetop recording.
 */
#ifndef RT_SOURCE_H
#define RT_SOURCE_H

#include "opts.h"
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
};

struct rt_source *rt_live_source_new(const struct rt_opts *o);		/* user/sources/live.c */
/* The kernel flow table of a live source, mapped (user/sources/live_maps.h;
 * benchmarks fill it). */
struct rt_ftab;
const struct rt_ftab *rt_live_flowtab(struct rt_source *src);
/* Its XDP program (tests run frames through it with BPF_PROG_TEST_RUN). */
int rt_live_xdp_fd(struct rt_source *src);
/* A file: a rocetop recording or a capture, told apart by its magic. */
struct rt_source *rt_file_source_new(const struct rt_opts *o);		/* user/sources/file.c */

/* The NIC's own counters, joined into a snapshot after collect (user/nic/nic.c). */
struct rt_nic;
struct rt_nic *rt_nic_new(const struct rt_opts *o);
void rt_nic_collect(struct rt_nic *n, struct rt_snapshot *snap);
void rt_nic_free(struct rt_nic *n);
/* --qp-counters could bind nothing (said in one sentence): -errno, else 0. */
int rt_nic_failed(const struct rt_nic *n);
/* At the end of a run: -errno (said in one sentence) when --qp-counters read
 * no per-QP counter at all, else 0. */
int rt_nic_end(struct rt_nic *n);
/* The doctor's last checks of this host (NULL before the first, or without
 * RDMA ports), kept until its next run: the findings' doctor rule reads them. */
struct rt_doc_findings;
const struct rt_doc_findings *rt_nic_doctor(const struct rt_nic *n);

/* Subcommands. */
int rt_report_main(int argc, char **argv);		/* user/cmd/report.c */
int rt_lab_main(int argc, char **argv);			/* user/cmd/lab.c */

#endif
