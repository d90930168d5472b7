/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NIC view's state, shared by its two files: nic.c (ports, counters,
 * ethtool, the QP table, the doctor's line, the join) and nic_qpc.c
 * (--qp-counters and the per-QP counters as the NIC's own flows). Private to them.
 */
#ifndef RT_NIC_INT_H
#define RT_NIC_INT_H

#include <limits.h>
#include "nic.h"

struct rt_doc_host;

struct qpc_acc {
	__u32 dev_index, counter_id;
	char name[64];			/* zero-padded: the key ends here */
	__u64 last, total;
	int seen;
};

struct rt_nic {
	char root[PATH_MAX];		/* "" for the real host; this interval's (rt_nic_collect) */
	char root_given[PATH_MAX];	/* --sysfs-root as given */
	const char *ifaces[RT_NIC_MAX_IFACES];
	int nifaces;
	struct rt_rdma_ports verbs;	/* found once by libibverbs */
	int verbs_ndev;
	char verbs_why[128];
	struct rt_rdma_ports ports;	/* this interval's: verbs + sysfs */
	struct rt_qp_table qps;
	struct rt_ethtool_stats st;
	int told_netlink;
	struct rt_qpc_table qpc;	/* this interval's per-QP counters */
	struct rt_nl_io io;
	int qp_counters;		/* --qp-counters: 1, =cc: 2 */
	int qpc_tried;			/* binding asked for once */
	char qpc_why[200];		/* what --qp-counters could not do */
	struct rt_qpc_ctl *ctl;
	/* --qp-counters' outcome: qpc_fail < 0 when no port binds QPs by type
	 * (the run ends, non-zero); once binding is on, the QPs there were then
	 * (the kernel binds only QPs made after), whether a bound counter was
	 * ever read, and QPs made since that got none (rxe binds none at all). */
	int qpc_fail, qpc_read;
	__u64 *qpc_old;			/* dev_index << 32 | lqpn, sorted */
	size_t nqpc_old;
	size_t qpc_new;			/* user QPs made since, none bound */
	char qpc_ports[96];		/* "rxe0/1" ..., the ports binding by type */
	/* Per bound counter and name: the NIC flows count from rocetop's start,
	 * as wire flows do, so each keeps the raw value last seen and a total. */
	/* What each bound counter counted since first seen, keyed by device,
	 * counter and name (the first bytes of struct qpc_acc). */
	struct rt_htab acc;
	const struct rt_qp **qp_by;	/* n->qps by device and lqpn, this interval */
	size_t nqp_by, qp_by_cap;
	/* What the width table and the congestion list say of a QP counter's
	 * name, for the driver memo_drv: a bound counter has a handful of names. */
	char memo_drv[64];
	struct { char name[64]; __u8 bits, congestion; } memo[32];
	size_t nmemo;
	char *nl;			/* a fixture's netlink answer */
	size_t nl_cap;
	/* The doctor's checks (user/nic/nic_doctor.c), every DOC_EVERY (nic.c) intervals:
	 * the first failing one is a line of the view's header. */
	struct rt_doc_host *doc[2];
	struct rt_doc_findings *doc_out;
	const struct rt_doc_host *doc_last;	/* the last reading, for the snapshots' settings */
	unsigned int doc_tick;
	char doc_line[160];
	/* Over the loop's persistent table (stream.c): the NIC flows' keys of
	 * this interval and of the last (the rows of counters gone are removed),
	 * and the QP table of the last join (the same one again: only the rows
	 * that changed are joined, join.c). */
	struct rt_flow_key *nk, *nk_prev;
	size_t nnk, nk_cap, nnk_prev, nk_prev_cap;
	struct rt_qp *qps_last;
	size_t nqps_last, qps_last_cap;
	/* The last dump as the kernel gave it: its QPs gone from the next
	 * dump are kept for that interval (rt_qp_table_keep_gone). */
	struct rt_qp *qps_dump;
	size_t nqps_dump;
	struct rt_qp *cm_dump, *cm_last;	/* the same of its CM IDs without a QP */
	size_t ncm_dump, ncm_last, cm_last_cap;
	int joined;
	struct rt_jobs *jobs;		/* the owners' jobs, NULL: none (rt_nic_set_jobs) */
};

/* A file of the fixture tree's rdma-netlink/ directory, whole, into n->nl
 * (grown as needed, up to 256 MiB); its length, or -errno. */
long rt_nic_read_nl_file(struct rt_nic *n, const char *name);

/* nic_qpc.c. --qp-counters: once, when the ports and devices are known. */
void rt_nic_qpc_enable(struct rt_nic *n, struct rt_snapshot *snap);
/* Whether the QPs made since binding got a counter (said once if not). */
void rt_nic_qpc_check_bound(struct rt_nic *n, struct rt_snapshot *snap);
/* The counters bound to QPs: rows of snap->ports and the NIC's flows. */
void rt_nic_collect_qpc(struct rt_nic *n, struct rt_snapshot *snap);
/* The loop's table: the rows of NIC flows no longer counted leave it. */
void rt_nic_flows_gone(struct rt_nic *n, struct rt_snapshot *snap);
/* Whether the QP table differs from the last join's (kept for the next). */
int rt_nic_qps_changed(struct rt_nic *n);

#endif
