/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sources of user/sources/ (user/core/source.h says what a source is);
 * the sFlow collector is sflow.h. Each constructor takes a config of its own,
 * filled at the top from the command line (user/cmd/src_cfg.c), and returns
 * NULL after saying why (through the log).
 */
#ifndef RT_SOURCES_H
#define RT_SOURCES_H

#include <stddef.h>
#include <linux/types.h>
#include "source.h"

/* Interfaces a live source watches at most (one BPF ifstats slot each). */
#define RT_LIVE_MAX_IFACES 16

/* What the live source reads of the command line. */
struct rt_live_cfg {
	const char *const *ifaces;	/* -i: nifaces names, at most RT_LIVE_MAX_IFACES */
	int nifaces;
	int incremental;	/* the table updated in place: no NIC counters, no sFlow merged */
	double flow_timeout;	/* --flow-timeout seconds, 0 = never evict */
	__u32 max_flows;	/* --max-flows: the kernel flow table's size */
	__u64 speed_mbps;	/* --link-speed; 0: the interface's own (ethtool) */
	int xdp_mode;		/* 0 auto (native, then generic), 1 native, 2 generic */
	int no_ingress;		/* --no-ingress: TC only */
	int no_egress;		/* --no-egress: XDP only */
	int bpf_split;		/* --bpf-split: the split BPF programs */
	int tc_filter;		/* --tc-filter: egress through a TC filter, not tcx */
	int collector;		/* --collector: XDP drops the mirror copies it counted */
};

/* What the file sources (a capture, a recording) read of the command line. */
struct rt_file_cfg {
	const char *path;	/* -r FILE ("-": standard input) */
	double interval;	/* --interval seconds of capture time per snapshot */
	__u32 max_flows;	/* --max-flows ... */
	int max_flows_set;	/* ... given: a capture keeps to it too */
	double flow_timeout;	/* --flow-timeout seconds of capture time */
	__u64 speed_mbps;	/* --link-speed for a capture's paused time; 0: none given */
	int view;		/* the live view may draw on the terminal (neither --batch nor -D) */
};

/* Live BPF maps on the interfaces of c (live.c). */
struct rt_source *rt_live_source_new(const struct rt_live_cfg *c);
/* The kernel flow table of a live source, mapped (live_maps.h; benchmarks
 * fill it). */
struct rt_ftab;
const struct rt_ftab *rt_live_flowtab(struct rt_source *src);
/* Its XDP program (tests run frames through it with BPF_PROG_TEST_RUN). */
int rt_live_xdp_fd(struct rt_source *src);
/* A file: a rocetop recording or a capture, told apart by its magic (file.c). */
struct rt_source *rt_file_source_new(const struct rt_file_cfg *c);
/*
 * The two behind it: a capture (pcap.c) and a recording (record_source.c).
 * fd < 0: open c->path (a regular file, rewound by reopening). fd >= 0:
 * a stream (a pipe, -r -) whose first nhead bytes, head, were already read to
 * tell the format; the source owns fd.
 */
struct rt_source *rt_pcap_source_new(const struct rt_file_cfg *c, int fd, const void *head, size_t nhead);
struct rt_source *rt_rec_source_new(const struct rt_file_cfg *c, int fd, const void *head, size_t nhead);

#endif
