/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one packet parser of rocetop: plain C, no BPF helpers, no libc. It is
 * compiled into the XDP and TC programs and into user space (pcap files, unit
 * tests, fuzzing), so live and offline counts agree by construction.
 *
 * Every read is bounded by data_end (what can be read) and every length a
 * header announces is checked against frame_len (what the frame holds; with
 * XDP multi-buffer frames this is larger than data_end - data).
 */
#ifndef ROCETOP_PARSE_H
#define ROCETOP_PARSE_H

#include "rocetop.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

enum rt_kind {
	RT_K_OTHER = 0,		/* well formed, not RoCEv2, not a pause frame */
	RT_K_ROCE,		/* RoCEv2: UDP 4791 with a BTH */
	RT_K_PFC,		/* 802.1Qbb priority flow control, opcode 0x0101 */
	RT_K_PAUSE,		/* 802.3x pause, opcode 0x0001 */
	RT_K_TRUNC,		/* ends before a header it announces */
	RT_K_MALFORMED,		/* a header with impossible values */
};

#define ETH_P_8021Q_	0x8100
#define ETH_P_8021AD_	0x88a8
#define ETH_P_IP_	0x0800
#define ETH_P_IPV6_	0x86dd
#define ETH_P_MACCTRL_	0x8808

#define RT_MAX_VLAN	2
#define RT_MAX_V6_EXT	4

/* BTH opcodes */
#define RT_OP_CNP		0x81
#define RT_OP_RC_RDMA_READ_RESP_FIRST	0x0d
#define RT_OP_RC_RDMA_READ_RESP_LAST	0x0f
#define RT_OP_RC_RDMA_READ_RESP_ONLY	0x10
#define RT_OP_RC_ACK		0x11
#define RT_OP_RC_ATOMIC_ACK	0x12

#define RT_BTH_LEN	12
#define RT_AETH_LEN	4
#define RT_ICRC_LEN	4

struct rt_pkt {
	__u8  kind;		/* enum rt_kind */
	__u8  nvlan;
	__u8  pcp;		/* outer tag, RT_PCP_NONE untagged */
	__u8  family;		/* 4 or 6 for IP frames */
	__u8  tos;		/* IPv4 TOS or IPv6 traffic class: DSCP << 2 | ECN */
	__u8  opcode;
	__u8  syndrome;		/* AETH syndrome when has_aeth */
	__u8  has_aeth;
	__u8  fecn;
	__u8  becn;
	__u8  ackreq;
	__u8  v6_unparsed;	/* IPv6 extension header not walked */
	__u16 sport;
	__u16 pfc_cev;		/* PFC class-enable vector (low 8 bits) */
	__u32 dqpn;
	__u32 psn;
	__u16 pause[8];		/* PFC pause times; 802.3x time in pause[0] */
	__u8  src[16];
	__u8  dst[16];
};

static __always_inline __u16 rt_be16(const __u8 *b)
{
	return (__u16)((b[0] << 8) | b[1]);
}

static __always_inline __u32 rt_be24(const __u8 *b)
{
	return ((__u32)b[0] << 16) | ((__u32)b[1] << 8) | b[2];
}

static __always_inline int rt_aeth_opcode(__u8 op)
{
	return op == RT_OP_RC_RDMA_READ_RESP_FIRST || op == RT_OP_RC_RDMA_READ_RESP_LAST ||
	       op == RT_OP_RC_RDMA_READ_RESP_ONLY || op == RT_OP_RC_ACK ||
	       op == RT_OP_RC_ATOMIC_ACK;
}

/* MAC control: PFC or 802.3x. c points after the ethertype. */
static __always_inline int rt_parse_macctrl(const __u8 *c, const __u8 *end, struct rt_pkt *p)
{
	__u16 op;
	int i;

	if (c + 2 > end)
		return RT_K_TRUNC;
	op = rt_be16(c);
	if (op == 0x0101) {
		if (c + 20 > end)
			return RT_K_TRUNC;
		p->pfc_cev = c[3];	/* the high byte is reserved */
#pragma unroll
		for (i = 0; i < 8; i++)
			p->pause[i] = rt_be16(c + 4 + 2 * i);
		return RT_K_PFC;
	}
	if (op == 0x0001) {
		if (c + 4 > end)
			return RT_K_TRUNC;
		p->pause[0] = rt_be16(c + 2);
		return RT_K_PAUSE;
	}
	return RT_K_OTHER;
}

/*
 * UDP, then BTH and AETH. c points at the UDP header, l4len is the length the
 * IP header gives to what follows it.
 */
static __always_inline int rt_parse_udp(const __u8 *c, const __u8 *end, __u32 l4len,
					struct rt_pkt *p)
{
	__u16 ulen;

	if (c + 8 > end)
		return RT_K_TRUNC;
	if (rt_be16(c + 2) != ROCEV2_UDP_PORT)
		return RT_K_OTHER;
	p->sport = rt_be16(c);
	ulen = rt_be16(c + 4);
	if (ulen > l4len || ulen < 8 + RT_BTH_LEN + RT_ICRC_LEN)
		return RT_K_MALFORMED;
	c += 8;
	if (c + RT_BTH_LEN > end)
		return RT_K_TRUNC;
	if (c[1] & 0x0f)	/* TVer must be 0 */
		return RT_K_MALFORMED;
	p->opcode = c[0];
	p->fecn = c[4] >> 7;
	p->becn = (c[4] >> 6) & 1;
	p->dqpn = rt_be24(c + 5);
	p->ackreq = c[8] >> 7;
	p->psn = rt_be24(c + 9);
	if (rt_aeth_opcode(p->opcode)) {
		if (ulen < 8 + RT_BTH_LEN + RT_AETH_LEN + RT_ICRC_LEN)
			return RT_K_MALFORMED;
		c += RT_BTH_LEN;
		if (c + RT_AETH_LEN > end)
			return RT_K_TRUNC;
		p->syndrome = c[0];
		p->has_aeth = 1;
	}
	return RT_K_ROCE;
}

static __always_inline int rt_parse_ipv4(const __u8 *c, const __u8 *end, __u32 off,
					 __u64 frame_len, struct rt_pkt *p)
{
	__u32 hl, tot;
	int i;

	if (c + 20 > end)
		return RT_K_TRUNC;
	if ((c[0] >> 4) != 4 || (c[0] & 0x0f) < 5)
		return RT_K_MALFORMED;
	hl = (c[0] & 0x0f) * 4;
	tot = rt_be16(c + 2);
	if (tot < hl)
		return RT_K_MALFORMED;
	if (off + tot > frame_len)
		return RT_K_TRUNC;
	p->family = 4;
	p->tos = c[1];
#pragma unroll
	for (i = 0; i < 4; i++) {
		p->src[i] = c[12 + i];
		p->dst[i] = c[16 + i];
	}
	if (rt_be16(c + 6) & 0x3fff)	/* a fragment: no UDP header to trust */
		return RT_K_OTHER;
	if (c[9] != 17)
		return RT_K_OTHER;
	if (c + hl > end)
		return RT_K_TRUNC;
	return rt_parse_udp(c + hl, end, tot - hl, p);
}

static __always_inline int rt_parse_ipv6(const __u8 *c, const __u8 *end, __u32 off,
					 __u64 frame_len, struct rt_pkt *p)
{
	__u32 l4len, hl;
	__u8 nh;
	int i;

	if (c + 40 > end)
		return RT_K_TRUNC;
	if ((c[0] >> 4) != 6)
		return RT_K_MALFORMED;
	l4len = rt_be16(c + 4);
	if (off + 40 + l4len > frame_len)
		return RT_K_TRUNC;
	p->family = 6;
	p->tos = (__u8)(((c[0] & 0x0f) << 4) | (c[1] >> 4));
	nh = c[6];
#pragma unroll
	for (i = 0; i < 16; i++) {
		p->src[i] = c[8 + i];
		p->dst[i] = c[24 + i];
	}
	c += 40;
#pragma unroll
	for (i = 0; i < RT_MAX_V6_EXT; i++) {
		if (nh == 0 || nh == 43 || nh == 60) {	/* hop-by-hop, routing, destination */
			if (c + 8 > end)
				return RT_K_TRUNC;
			hl = ((__u32)c[1] + 1) * 8;
			if (hl > l4len)
				return RT_K_MALFORMED;
		} else if (nh == 44) {			/* fragment */
			if (c + 8 > end)
				return RT_K_TRUNC;
			if (l4len < 8)
				return RT_K_MALFORMED;
			if ((rt_be16(c + 2) & 0xfff9) != 0)	/* offset or more-fragments */
				return RT_K_OTHER;
			hl = 8;
		} else {
			break;
		}
		nh = c[0];
		l4len -= hl;
		c += hl;
	}
	if (nh == 17)
		return rt_parse_udp(c, end, l4len, p);
	if (nh == 0 || nh == 43 || nh == 60 || nh == 44 || nh == 51 || nh == 50 ||
	    nh == 135 || nh == 139 || nh == 140 || nh == 253 || nh == 254)
		p->v6_unparsed = 1;
	return RT_K_OTHER;
}

/*
 * Parse one frame. data..data_end is what can be read, frame_len the length of
 * the whole frame. p must be zeroed by the caller. Returns p->kind.
 */
static __always_inline int rt_parse(const void *data, const void *data_end, __u64 frame_len,
				    struct rt_pkt *p)
{
	const __u8 *c = (const __u8 *)data, *end = (const __u8 *)data_end;
	__u16 proto;
	int i, kind;

	p->pcp = RT_PCP_NONE;
	if (c + 14 > end) {
		kind = RT_K_TRUNC;
		goto out;
	}
	proto = rt_be16(c + 12);
	c += 14;
#pragma unroll
	for (i = 0; i < RT_MAX_VLAN; i++) {
		if (proto != ETH_P_8021Q_ && proto != ETH_P_8021AD_)
			break;
		if (c + 4 > end) {
			kind = RT_K_TRUNC;
			goto out;
		}
		if (i == 0)
			p->pcp = c[0] >> 5;
		proto = rt_be16(c + 2);
		p->nvlan++;
		c += 4;
	}
	if (proto == ETH_P_IP_)
		kind = rt_parse_ipv4(c, end, (__u32)(c - (const __u8 *)data), frame_len, p);
	else if (proto == ETH_P_IPV6_)
		kind = rt_parse_ipv6(c, end, (__u32)(c - (const __u8 *)data), frame_len, p);
	else if (proto == ETH_P_MACCTRL_)
		kind = rt_parse_macctrl(c, end, p);
	else
		kind = RT_K_OTHER;
out:
	p->kind = (__u8)kind;
	return kind;
}

#endif /* ROCETOP_PARSE_H */
