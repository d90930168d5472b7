// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop's kernel side: count RoCEv2 congestion signals per flow and PFC per
 * priority. XDP sees ingress, a tcx program sees egress. Both only observe:
 * they never redirect or rewrite a packet, and never drop one, with one
 * exception asked for by name: on a dedicated mirror port (rocetop
 * --collector, rt_collector set) XDP drops the mirror copies it has counted.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include "count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Sizes are set by the loader (--max-flows) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rt_flow_key);
	__type(value, struct rt_flow_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_IF_SLOTS * 2);
	__type(key, __u32);
	__type(value, struct rt_if_val);
} ifstats SEC(".maps");

/* ifindex -> ifstats slot of each watched interface, filled by the loader and
 * changed while running when a watched interface is deleted and comes back
 * with a new ifindex (user/sources/live.c's link watcher). One lookup: the
 * verifier has no loop over slots to walk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RT_SLOT_OTHER);
	__type(key, __u32);
	__type(value, __u32);
} slots SEC(".maps");

/* Set by the loader before load (--collector): XDP drops counted mirror copies. */
const volatile __u8 rt_collector = 0;

static const struct rt_flow_val zero_flow;

static __always_inline __u32 if_slot(__u32 ifindex)
{
	__u32 *slot = bpf_map_lookup_elem(&slots, &ifindex);

	return slot && *slot < RT_SLOT_OTHER ? *slot : RT_SLOT_OTHER;
}

/*
 * vlan_tci: an 802.1Q tag the kernel keeps beside the packet rather than in it
 * (VLAN offload: a tag inserted by the 8021q driver on egress), with
 * RT_VLAN_OFFLOADED set; 0 when there is none. Such a tag is the outer one on
 * the wire: its PCP is the frame's priority and its 4 bytes are in the frame.
 */
#define RT_VLAN_OFFLOADED 0x10000

/* Returns 1 when the frame was a mirror copy (counted in mirrored), else 0. */
static __always_inline int handle(const void *data, const void *data_end, __u64 len,
				  __u32 ifindex, __u8 dir, __u32 vlan_tci)
{
	struct rt_pkt p = {};
	__u32 slot = if_slot(ifindex) * 2 + dir;
	struct rt_if_val *iv;
	struct rt_flow_key fk;
	struct rt_flow_val *fv;

	rt_parse(data, data_end, len, &p);
	if (vlan_tci & RT_VLAN_OFFLOADED) {
		if (!p.mirror) {	/* a mirror copy's priority is its inner frame's */
			p.pcp = (vlan_tci >> 13) & 7;
			p.nvlan++;
		}
		len += 4;
	}

	if (p.kind == RT_K_ROCE) {
		rt_flow_key_init(&fk, &p, ifindex, dir);
		fv = bpf_map_lookup_elem(&flows, &fk);
		if (!fv) {
			bpf_map_update_elem(&flows, &fk, &zero_flow, BPF_NOEXIST);
			fv = bpf_map_lookup_elem(&flows, &fk);
		}
		if (fv)
			rt_count_flow(fv, &p, len, bpf_ktime_get_coarse_ns());
	} else {
		fv = NULL;
	}

	iv = bpf_map_lookup_elem(&ifstats, &slot);
	if (!iv)
		return 0;
	rt_count_if(iv, &p, len);
	if (p.kind == RT_K_ROCE && !fv)
		iv->flow_full++;
	return p.mirror != RT_MIRROR_NONE;
}

SEC("xdp.frags")
int rt_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (handle(data, data_end, bpf_xdp_get_buff_len(ctx), ctx->ingress_ifindex,
		   RT_DIR_INGRESS, 0) && rt_collector)
		return XDP_DROP;	/* a counted mirror copy on a collector port */
	return XDP_PASS;
}

/*
 * How much of an skb the egress program makes linear when its headers are not
 * all there: the deepest headers the parser reads, a mirror copy over IPv6
 * (outer Ethernet, 2 tags, IPv6, GRE with every field, ERSPAN III with its
 * platform sub-header, inner Ethernet, 2 tags, IPv6, UDP, BTH, AETH: 184
 * bytes), rounded up.
 */
#define RT_TC_PULL 192

SEC("tc")
int rt_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u32 len = skb->len;

	/*
	 * The headers of an egress skb are nearly always in its linear part, and
	 * the parser reads them there. When the linear part is shorter than the
	 * frame and than any header chain, parse it first: only when the parser
	 * runs out of bytes there (a frame whose headers continue in a fragment)
	 * is the skb made linear, which moves no byte of the packet's content. A
	 * TCP segment from the stack (headers linear, payload in page fragments,
	 * the skb a clone) is never pulled: pulling would copy its head on every
	 * segment (bench/lab.sh measures that case).
	 */
	if ((long)data_end - (long)data < (long)len &&
	    (long)data_end - (long)data < RT_TC_PULL) {
		struct rt_pkt probe = {};

		if (rt_parse(data, data_end, len, &probe) == RT_K_TRUNC) {
			bpf_skb_pull_data(skb, len < RT_TC_PULL ? len : RT_TC_PULL);
			data = (void *)(long)skb->data;
			data_end = (void *)(long)skb->data_end;
		}
	}
	handle(data, data_end, len, skb->ifindex, RT_DIR_EGRESS,
	       skb->vlan_present ? RT_VLAN_OFFLOADED | skb->vlan_tci : 0);
	return TC_ACT_UNSPEC;	/* tcx: go on to the next program, then the default */
}
