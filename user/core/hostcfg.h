/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A host's congestion settings as `rocetop doctor` reads them (the reading is
 * user/nic/nic_doctor.c's), one row per RDMA netdev, carried by every
 * snapshot of a live run and by recordings (user/core/record.c's "cfg"
 * struct) so that `rocetop report --tune` (user/sinks/tune.c) can read a
 * recording against the settings it was made under. Plain fixed-width fields:
 * a recording stores the struct as it is. -1 (or "") is "not read".
 */
#ifndef RT_HOSTCFG_H
#define RT_HOSTCFG_H

#include <linux/types.h>

#define RT_MAX_CFGS	8

/* The DCQCN parameters kept (mlx5 debugfs cc_params), in this order. */
enum rt_cc_param {
	RT_CC_NP_CNP_DSCP, RT_CC_NP_CNP_PRIO, RT_CC_NP_MIN_TIME_BETWEEN_CNPS,
	RT_CC_RP_AI_RATE, RT_CC_RP_HAI_RATE, RT_CC_RP_MIN_DEC_FAC, RT_CC_RP_MIN_RATE,
	RT_CC_RP_GD, RT_CC_RP_TIME_RESET, RT_CC_RP_BYTE_RESET, RT_CC_RP_CLAMP_TGT_RATE,
	RT_CC_RP_RATE_REDUCE_MONITOR_PERIOD, RT_CC__N
};

/* Their names as the cc_params directory has them (RT_CC__N entries). */
extern const char *const rt_cc_param_names[RT_CC__N];

struct rt_hostcfg {
	char  netdev[16];
	char  dev[32];		/* RDMA device, "" for a plain netdev */
	char  pci[32];		/* its PCI address (the cc_params directory), "" unknown */
	__u32 port;
	__s32 mtu;		/* the netdev's */
	__s32 active_mtu;	/* the RDMA port's (256..4096) */
	__u8  pfc_known;	/* DCB answered: pfc_en holds */
	__u8  pfc_en;		/* bit N: PFC on priority N */
	__u8  app_known;	/* DCB answered: dscp_prio holds */
	__u8  trusts_dscp;	/* the NIC classifies by DSCP (qos/trust, else the APP table) */
	__u8  dscp_prio[64];	/* DCB APP table: DSCP -> priority, 0xff: no entry */
	__s8  np_en[8], rp_en[8];	/* ecn/roce_np|roce_rp/enable/N */
	__s32 pfc_tout;		/* ethtool pfc-prevention-tout: ms, 0xffff auto, 0 off */
	__s32 roce_tos;		/* rdma_cm default_roce_tos */
	__s32 roce_prio;	/* the priority rdma_cm's traffic takes (doctor's reading) */
	__u32 pad;		/* not recorded */
	__s64 cc[RT_CC__N];	/* enum rt_cc_param */
};

_Static_assert(sizeof(struct rt_hostcfg) == 288, "struct rt_hostcfg has no hidden padding");

/* An empty row: every setting unknown. */
void rt_hostcfg_init(struct rt_hostcfg *c);
/* The priority a DSCP takes on this host (the APP table, else the
 * DSCP >> 3 default of mlx5), -1 when the host classifies by PCP or DCB is
 * not known. */
int rt_hostcfg_dscp_prio(const struct rt_hostcfg *c, unsigned int dscp);
/* The largest RoCE MTU a netdev MTU allows (the kernel's iboe_get_mtu), -1 none. */
int rt_roce_mtu_for(int netdev_mtu);

#endif
