// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * RDMA devices and ports through rdma-core's libibverbs: the device list, each
 * port's link layer and state, and the netdev behind its RoCE v2 GID
 * (ibv_query_gid_ex gives the GID type and the netdev's ifindex). Counters are
 * not here: verbs has none for a port; they come from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <infiniband/verbs.h>
#include "nic.h"

static const char *state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	default: return "NOP";
	}
}

static void port_netdev(struct ibv_context *ctx, __u32 port, int gid_tbl_len, char *out)
{
	struct ibv_gid_entry e;
	unsigned int fallback = 0;
	char name[IF_NAMESIZE];

	for (int i = 0; i < gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0))
			continue;	/* an unused entry */
		if (!e.ndev_ifindex)
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			if (if_indextoname(e.ndev_ifindex, name))
				snprintf(out, IF_NAMESIZE, "%s", name);
			return;
		}
		if (!fallback)
			fallback = e.ndev_ifindex;
	}
	if (fallback && if_indextoname(fallback, name))
		snprintf(out, IF_NAMESIZE, "%s", name);
}

int rt_verbs_discover(struct rt_rdma_ports *ps, char *why, size_t whylen)
{
	struct ibv_device **list;
	int n = 0, nfail = 0;

	why[0] = '\0';
	list = ibv_get_device_list(&n);
	if (!list) {
		snprintf(why, whylen, "verbs: %s", strerror(errno));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		const char *dev = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;

		if (!ctx || ibv_query_device(ctx, &da)) {
			/* sysfs will still show its counters */
			if (!nfail++)
				snprintf(why, whylen, "verbs cannot open %s: %s", dev, strerror(errno));
			if (ctx)
				ibv_close_device(ctx);
			continue;
		}
		for (__u32 p = 1; p <= da.phys_port_cnt; p++) {
			struct ibv_port_attr pa;
			struct rt_rdma_port *rp;

			if (ibv_query_port(ctx, (uint8_t)p, &pa))
				continue;
			rp = rt_rdma_ports_add(ps);
			if (!rp)
				break;
			snprintf(rp->dev, sizeof(rp->dev), "%s", dev);
			rp->port = p;
			rp->from_verbs = 1;
			snprintf(rp->link_layer, sizeof(rp->link_layer), "%s",
				 pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
			snprintf(rp->state, sizeof(rp->state), "%s", state_name(pa.state));
			if (pa.link_layer == IBV_LINK_LAYER_ETHERNET)
				port_netdev(ctx, p, pa.gid_tbl_len, rp->netdev);
		}
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return n;
}
