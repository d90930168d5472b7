// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names of sFlow's drop reason codes: see sf_drop.h. */
#include <stddef.h>
#include "sf_drop.h"

/* The codes sFlow's dropped-packet extension names (host-sflow's list). */
static const char *const drop_low[16] = {
	"net_unreachable", "host_unreachable", "protocol_unreachable", "port_unreachable",
	"frag_needed", "src_route_failed", "dst_net_unknown", "dst_host_unknown",
	"src_host_isolated", "dst_net_prohibited", "dst_host_prohibited",
	"dst_net_tos_unreachable", "dst_host_tos_unreacheable", "comm_admin_prohibited",
	"host_precedence_violation", "precedence_cutoff",
};

static const char *const drop_256[] = {
	"unknown", "ttl_exceeded", "acl", "no_buffer_space", "red", "traffic_shaping",
	"pkt_too_big", "src_mac_is_multicast", "vlan_tag_mismatch", "ingress_vlan_filter",
	"ingress_spanning_tree_filter", "port_list_is_empty", "port_loopback_filter",
	"blackhole_route", "non_ip", "uc_dip_over_mc_dmac", "dip_is_loopback_address",
	"sip_is_mc", "sip_is_loopback_address", "ip_header_corrupted", "ipv4_sip_is_limited_bc",
	"ipv6_mc_dip_reserved_scope", "ipv6_mc_dip_interface_local_scope", "unresolved_neigh",
	"mc_reverse_path_forwarding", "non_routable_packet", "decap_error", "overlay_smac_is_mc",
	"unknown_l2", "unknown_l3", "unknown_l3_exception", "unknown_buffer", "unknown_tunnel",
	"unknown_l4", "sip_is_unspecified", "mlag_port_isolation", "blackhole_arp_neigh",
	"src_mac_is_dmac", "dmac_is_reserved", "sip_is_class_e", "mc_dmac_mismatch", "sip_is_dip",
	"dip_is_local_network", "dip_is_link_local", "overlay_smac_is_dmac", "egress_vlan_filter",
	"uc_reverse_path_forwarding", "split_horizon", "locked_port", "dmac_filter",
	"blackhole_nexthop",
};

const char *rt_sf_drop_reason(__u32 code)
{
	if (code < 16)
		return drop_low[code];
	if (code >= 256 && code - 256 < sizeof(drop_256) / sizeof(drop_256[0]))
		return drop_256[code - 256];
	return NULL;
}
