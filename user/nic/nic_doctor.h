/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A RoCE host's congestion configuration (user/nic/nic_doctor.c), read (DCB
 * netlink, sysfs ECN switches, mlx5 debugfs cc_params, rdma_cm configfs,
 * MTUs, PFC and CNP counters) and judged into findings (their type is
 * user/core/doc_findings.h): for `rocetop doctor` (user/cmd/doctor.c), the
 * live view's header (user/nic/nic.c) and the findings' doctor rule.
 */
#ifndef RT_NIC_DOCTOR_H
#define RT_NIC_DOCTOR_H

#include <stddef.h>
#include <net/if.h>
#include <linux/types.h>
#include "doc_findings.h"
#include "hostcfg.h"
#include "nic.h"

#define RT_DOC_MAX_NETDEVS	16
#define RT_DOC_MAX_PARAMS	40

/* What one RDMA netdev (or -i interface) is configured to do. -1: unknown. */
struct rt_doc_netdev {
	char  netdev[IF_NAMESIZE];
	char  dev[32];		/* RDMA device, "" for a plain netdev */
	__u32 port;
	char  driver[32];
	char  pci[32];		/* bus address behind the netdev, "" unknown */
	int   mtu;		/* the netdev's */
	int   active_mtu;	/* the RDMA port's (256..4096) */
	struct rt_dcb dcb;
	int   dcb_err;		/* 0, or why there is no DCB answer (-errno) */
	int   np_en[8], rp_en[8];	/* ecn/roce_np|roce_rp/enable/N */
	char  roce_mode[32];	/* rdma_cm default_roce_mode, "" unknown */
	int   roce_tos;		/* rdma_cm default_roce_tos */
	int   cm_default;	/* rdma_cm is there but the device's defaults were never set */
	struct { char name[48]; long long v; } cc[RT_DOC_MAX_PARAMS];	/* debugfs cc_params */
	size_t ncc;
	int   has_ethtool;
	__u64 rx_pause[8], tx_pause[8];	/* ethtool rx/tx_prioN_pause */
	int   has_cnp;		/* the port's hw_counters were read */
	/* The port's optional counters (rdma netlink STAT_GET_STATUS). */
	struct { char name[32]; __u8 enabled; } opt[16];
	size_t nopt;
	int   opt_err;		/* 0, or why they are unknown (-errno) */
	__u64 np_cnp_sent, rp_cnp_handled, rp_cnp_ignored;
	__u64 np_ecn_marked;	/* hw_counters np_ecn_marked_roce_packets (0 where absent) */
	int   pfc_tout;		/* ethtool pfc-prevention-tout: ms, 0xffff auto, 0 off; -1 unknown */
	char  trust[8];		/* /sys/class/net/IF/qos/trust ("pcp", "dscp"), "" where none */
};

struct rt_doc_host {
	struct rt_doc_netdev nd[RT_DOC_MAX_NETDEVS];
	size_t n;
	char  note[200];	/* why there is little or nothing to judge */
};

/* Read the host below root ("" or NULL: the real one), only netdev only if
 * given (then also when it is no RDMA netdev). 0 or -ENOMEM. */
int rt_doctor_read(const char *root, const char *only, struct rt_doc_host *h);

/*
 * Judge the host: now as read, before as read some time earlier (NULL: no
 * growth to judge, counters then judged by their values), seen_prios a bit
 * mask of the priorities RoCE traffic was seen on (wire PCP/DSCP; 0: none
 * known). Pure.
 */
void rt_doctor_check(const struct rt_doc_host *before, const struct rt_doc_host *now,
		     unsigned int seen_prios, struct rt_doc_findings *out);

/* One netdev's settings as a snapshot and a recording carry them. */
void rt_doctor_hostcfg(const struct rt_doc_netdev *d, struct rt_hostcfg *c);

/* A bit mask of priorities as "3,4" ("none" for 0). */
void rt_doc_prio_list(unsigned int mask, char *buf, size_t len);

#endif
