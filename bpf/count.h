/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a parsed frame adds to the counters. Plain C shared by the BPF programs
 * and the user-space packet sources (pcap files), like parse.h.
 */
#ifndef ROCETOP_COUNT_H
#define ROCETOP_COUNT_H

#include "parse.h"

static __always_inline void rt_flow_key_init(struct rt_flow_key *k, const struct rt_pkt *p,
					     __u32 ifindex, __u8 dir)
{
	k->ifindex = ifindex;
	k->dir = dir;
	k->family = p->family;
	k->origin = 0;
	k->mirror = p->mirror;
	k->mirror_id = p->mirror_id | (p->mirror_dir ? RT_MIRROR_EGRESS : 0);
	__builtin_memcpy(k->src, p->src, sizeof(k->src));
	__builtin_memcpy(k->dst, p->dst, sizeof(k->dst));
	k->dqpn = p->dqpn;
}

/*
 * Per interface and direction: every frame lands in exactly one outcome. A
 * mirror copy counts its outer length in bytes, the inner frame's outcome,
 * and once in mirrored.
 */
static __always_inline void rt_count_if(struct rt_if_val *v, const struct rt_pkt *p, __u64 len)
{
	int i;

	v->pkts++;
	v->bytes += len;
	if (p->mirror)
		v->mirrored++;
	switch (p->kind) {
	case RT_K_ROCE:
		v->roce++;
		break;
	case RT_K_PFC:
		v->mac_ctrl++;
#pragma unroll
		for (i = 0; i < 8; i++) {
			if (!(p->pfc_cev & (1 << i)))
				continue;
			v->pfc_frames[i]++;
			v->pfc_quanta[i] += p->pause[i];
			if (!p->pause[i])
				v->pfc_xon[i]++;
		}
		break;
	case RT_K_PAUSE:
		v->mac_ctrl++;
		v->pfc_frames[RT_PRIO_GLOBAL]++;
		v->pfc_quanta[RT_PRIO_GLOBAL] += p->pause[0];
		if (!p->pause[0])
			v->pfc_xon[RT_PRIO_GLOBAL]++;
		break;
	case RT_K_TRUNC:
		v->truncated++;
		break;
	case RT_K_MALFORMED:
		v->malformed++;
		break;
	default:
		v->not_roce++;
		if (p->v6_unparsed)
			v->v6_unparsed++;
		break;
	}
}

/*
 * A RoCEv2 frame into its flow's counters and last-packet fields, without
 * pkts (a slot has none: rt_ft_pkts) and first_ns/last_ns, for both value
 * types: struct rt_ft_val (the kernel flow table, which keeps no time; user
 * space stamps the slots that changed, user/sources/live_maps.c) and struct
 * rt_flow_val (rt_count_flow_counters adds its pkts). len is the frame's
 * length; for a mirror copy the flow counts the inner frame's, as on the
 * mirrored wire.
 */
#define RT_COUNT_FLOW_BODY(v, p, len)						\
	do {									\
		__u8 type_;							\
										\
		(v)->bytes += (p)->mirror ? (p)->inner_len : (len);		\
		(v)->ecn[(p)->tos & 3]++;					\
		(v)->sport = (p)->sport;					\
		(v)->dscp = (p)->tos >> 2;					\
		(v)->pcp = (p)->pcp;						\
		(v)->opcode = (p)->opcode;					\
		(v)->dscps |= 1ULL << ((p)->tos >> 2);				\
		(v)->prios |= (__u8)(1u << ((p)->pcp != RT_PCP_NONE ?		\
					    ((p)->pcp & 7) : (p)->tos >> 5));	\
		if ((p)->opcode == RT_OP_CNP) {					\
			(v)->cnp++;						\
			break;							\
		}								\
		if (!(p)->has_aeth || ((p)->opcode != RT_OP_RC_ACK &&		\
				       (p)->opcode != RT_OP_RC_ATOMIC_ACK))	\
			break;							\
		type_ = ((p)->syndrome >> 5) & 3;				\
		if (type_ == 0)							\
			(v)->ack++;						\
		else if (type_ == 1)						\
			(v)->rnr_nak++;						\
		else if (type_ == 3) {						\
			if (((p)->syndrome & 0x1f) == 0)			\
				(v)->nak_seq++;					\
			else							\
				(v)->nak_other++;				\
		}								\
	} while (0)

static __always_inline void rt_count_ft(struct rt_ft_val *v, const struct rt_pkt *p, __u64 len)
{
	RT_COUNT_FLOW_BODY(v, p, len);
}

static __always_inline void rt_count_flow_counters(struct rt_flow_val *v, const struct rt_pkt *p,
						   __u64 len)
{
	v->pkts++;	/* a slot has no pkts: rt_ft_pkts() */
	RT_COUNT_FLOW_BODY(v, p, len);
}

/* The same with the frame's time (files: capture time) in first_ns/last_ns. */
static __always_inline void rt_count_flow(struct rt_flow_val *v, const struct rt_pkt *p,
					  __u64 len, __u64 now)
{
	if (!v->pkts)
		v->first_ns = now;
	v->last_ns = now;
	rt_count_flow_counters(v, p, len);
}

#endif /* ROCETOP_COUNT_H */
