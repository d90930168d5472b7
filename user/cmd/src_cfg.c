// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The command line's fields each source and the NIC read, copied into their
 * own configs (src_cfg.h); the pointers stay the command line's (its strings
 * and lists live as long as the run).
 */
#include "src_cfg.h"

_Static_assert(RT_MAX_SRC_IFACES <= RT_LIVE_MAX_IFACES, "every -i interface fits the live source");
_Static_assert(RT_MAX_SRC_IFACES <= RT_NIC_MAX_IFACES, "every -i interface fits the NIC's view");
_Static_assert(RT_MAX_SFLOW_ALLOW <= RT_SFLOW_MAX_ALLOW, "every --sflow-allow fits the collector");

struct rt_live_cfg rt_live_cfg_of(const struct rt_opts *o)
{
	return (struct rt_live_cfg){
		.ifaces = o->ifaces,
		.nifaces = o->nifaces,
		/* With the NIC's counters or sFlow merged in, rt_stream_step
		 * (user/core/stream.c) makes the table incremental itself. */
		.incremental = o->no_nic && !o->sflow && !o->have_sflow_fd,
		.flow_timeout = o->flow_timeout,
		.max_flows = o->max_flows,
		.speed_mbps = o->find.speed_mbps,
		.xdp_mode = o->xdp_mode,
		.no_ingress = o->no_ingress,
		.no_egress = o->no_egress,
		.bpf_split = o->bpf_split,
		.tc_filter = o->tc_filter,
		.collector = o->collector,
	};
}

struct rt_file_cfg rt_file_cfg_of(const struct rt_opts *o)
{
	return (struct rt_file_cfg){
		.path = o->read_file,
		.interval = o->interval,
		.max_flows = o->max_flows,
		.max_flows_set = o->max_flows_set,
		.flow_timeout = o->flow_timeout,
		.speed_mbps = o->find.speed_mbps,
		.view = !o->batch && !o->daemon,
	};
}

struct rt_sflow_cfg rt_sflow_cfg_of(const struct rt_opts *o)
{
	return (struct rt_sflow_cfg){
		.spec = o->sflow,
		.fd = o->sflow_fd,
		.have_fd = o->have_sflow_fd,
		.allow = o->sflow_allow,
		.nallow = o->nsflow_allow,
		.max_flows = o->max_flows,
		.flow_timeout = o->flow_timeout,
	};
}

struct rt_nic_cfg rt_nic_cfg_of(const struct rt_opts *o)
{
	return (struct rt_nic_cfg){
		.sysfs_root = o->sysfs_root,
		.ifaces = o->ifaces,
		.nifaces = o->nifaces,
		.qp_counters = o->qp_counters,
	};
}
