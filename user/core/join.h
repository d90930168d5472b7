/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The join of flows with the local QP table (user/core/join.c), for any source:
 * live snapshots get it from the NIC code (user/nic/nic.c); file sources call
 * rt_join(s, NULL) to get CNP attribution from ACKs and host pairs.
 */
#ifndef RT_JOIN_H
#define RT_JOIN_H

#include "snapshot.h"

struct rt_qp_table;	/* qp.h: QPs from rdma netlink */

/*
 * Give each flow of s its local QP, pid and comm from qps (may be NULL), and
 * tie each flow carrying CNPs to the data flow it throttles, in ARCHITECTURE.md's
 * order: the netlink QP table (RT_ATTR_NETLINK), QPs learnt from the ACKs on
 * the same host pair (RT_ATTR_ACK), otherwise the host pair (RT_ATTR_HOSTPAIR,
 * throttles -1). s must be sorted (throttles is an index into s->flows);
 * flows that carry no CNP get attr RT_ATTR_NONE and throttles -1.
 */
void rt_join(struct rt_snapshot *s, const struct rt_qp_table *qps);
/*
 * The same over a persistent table whose last join used a QP table equal to
 * qps (qps_changed 0): only the rows that changed in this interval get their
 * owner again, and only the CNP rows near them are attributed again, so the
 * join touches what changed. qps_changed 1 (or a plain snapshot): rt_join.
 */
void rt_join_changed(struct rt_snapshot *s, const struct rt_qp_table *qps, int qps_changed);

#endif
