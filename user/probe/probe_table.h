/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe mesh as a part of a run (probe_table.c): its peers (listed, from
 * --probe-peers, and those the QP table names), the mesh on verbs
 * (probe_verbs.h), its loop (in a thread of its own for the live view, or
 * the caller's for `rocetop probe`) and, once an interval, its rows for the
 * snapshot (user/core/probe_row.h), judged and with the findings' evidence.
 */
#ifndef RT_PROBE_TABLE_H
#define RT_PROBE_TABLE_H

#include "probe_verbs.h"
#include "snapshot.h"

#define RT_PROBE_MAX_PEERS	1024

struct rt_probe_table;

/* A table for at most max_peers peers (1..RT_PROBE_MAX_PEERS); NULL without memory (said). */
struct rt_probe_table *rt_probe_table_new(const struct rt_probe_cfg *cfg, const struct rt_probe_thresholds *th,
					  int max_peers);
void rt_probe_table_free(struct rt_probe_table *t);
/*
 * A peer: addr an IPv4 address, name optional, from RT_PROBE_FROM_*, where
 * names the place it was read (" (FILE line N)") for the error. 0 (a peer
 * already there takes the new from bit), -EINVAL after saying why, -E2BIG
 * with the table full (said once).
 */
int rt_probe_table_add(struct rt_probe_table *t, const char *addr, const char *name, int from, const char *where);
/* --probe-peers FILE: a peer a line, its address and an optional name; '#'
 * starts a comment. 0 or -errno after saying why. */
int rt_probe_table_read_peers(struct rt_probe_table *t, const char *path);
/* A peer only the QP table names rests (is not probed, has no row) once no
 * QP has named it for secs (0: never); it is probed again when one does. */
void rt_probe_table_forget_after(struct rt_probe_table *t, double secs);
int rt_probe_table_npeers(const struct rt_probe_table *t);
/* Sizes as --probe-sizes gives them ("64,mtu"), into cfg. 0 or -EINVAL (said). */
int rt_probe_parse_sizes(const char *list, struct rt_probe_cfg *cfg);

/* The mesh up (devices, rdma_cm): 0, or -1 after saying why. */
int rt_probe_table_start(struct rt_probe_table *t);
struct rt_probe_mesh *rt_probe_table_mesh(struct rt_probe_table *t);
/* Its loop in a thread of its own (after start): 0 or -errno (said). */
int rt_probe_table_thread(struct rt_probe_table *t);
/* The caller's loop instead: one wake (now, stall: probe_verbs.h), sending with send. */
void rt_probe_table_step(struct rt_probe_table *t, uint64_t now, uint64_t stall, int send);

/* The peers this host's QPs talk to (the remote addresses of the QP table's
 * connected QPs, IPv4), added as they come. */
struct rt_qp_table;
void rt_probe_table_from_qps(struct rt_probe_table *t, const struct rt_qp_table *q);

/*
 * Close the interval: a row per peer, path and size into snap (those of
 * peers whose answerer is known), each judged; a note for peers not found.
 * A peer all of whose paths are down is looked up again (its answerer may
 * have restarted). 0 or -ENOMEM.
 */
int rt_probe_table_rows(struct rt_probe_table *t, struct rt_snapshot *snap);

#endif
