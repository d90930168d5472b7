/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The local QP table: the QPs of every RDMA device and their owners, as the
 * NIC code reads them from rdma netlink (user/nic/nic_netlink.c) and the join
 * gives them to flows (user/core/join.c).
 */
#ifndef RT_QP_H
#define RT_QP_H

#include <stddef.h>
#include <net/if.h>
#include <linux/types.h>

struct rt_qp {
	char  dev[32];
	__u32 dev_index;
	__u32 port;		/* 0: not bound to a port yet */
	char  netdev[IF_NAMESIZE];	/* of dev/port where known, else "" */
	__u32 lqpn;
	__u32 rqpn;		/* RC/UC only, else 0 */
	__u8  type;		/* enum ib_qp_type: 2 RC, 3 UC, 4 UD, ... */
	__u8  state;		/* enum ib_qp_state: 3 RTS, ... */
	__u8  has_rqpn;
	__u8  family;		/* 4 or 6 when the addresses are known (from a CM ID), else 0 */
	__u8  src[16];		/* local address */
	__u8  dst[16];		/* remote address */
	__u32 pid;		/* 0 for a kernel QP */
	char  comm[16];		/* process name, or the kernel owner's name */
	__u8  gone;		/* not in the latest dump: kept for the interval it went in */
	__u32 job;		/* its owner's row in the snapshot's jobs[] + 1, 0: none (job.h) */
};

#define RT_QP_MAX_DEVS 64

struct rt_qp_table {
	struct rt_qp *q;
	size_t n, cap;
	/* Devices from an RDMA_NLDEV_CMD_GET dump: the resource dumps are per device. */
	__u32 dev_index[RT_QP_MAX_DEVS];
	__u32 dev_nports[RT_QP_MAX_DEVS];	/* its PORT_INDEX: the number of ports */
	char  dev_name[RT_QP_MAX_DEVS][32];
	size_t ndevs;
	/* CM IDs with both addresses and no QP: its QP not made yet, or gone
	 * before the ID (rdma_cm's disconnect goes out as the ID is destroyed,
	 * after the QP). lqpn 0; only connection management flows look here. */
	struct rt_qp *cm;
	size_t ncm, cmcap;
};

#endif
