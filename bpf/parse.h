/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one packet parser of rocetop: plain C, no BPF helpers, no libc. It is
 * compiled into the XDP and TC programs and into user space (pcap files, unit
 * tests, fuzzing), so live and offline counts agree by construction.
 *
 * Every read is bounded by data_end (what can be read) and every length a
 * header announces is checked against frame_len (what the frame holds; with
 * XDP multi-buffer frames this is larger than data_end - data).
 *
 * Mirror copies are decapsulated, one level deep: GRE (over IPv4 or IPv6, with
 * or without checksum, key and sequence number) carrying ERSPAN type I (0x88BE
 * without a sequence number), type II (0x88BE with one), type III (0x22EB,
 * with or without its platform sub-header) or a bridged Ethernet frame
 * (0x6558), and VXLAN (UDP port 4789). The inner
 * Ethernet frame is then parsed like a frame on the wire, bounded by the end of
 * the outer IP packet (GRE) or UDP datagram (VXLAN); p->mirror says who
 * mirrored it. A second level of encapsulation, an unknown ERSPAN version and
 * GRE with routing present are RT_K_OTHER and never looked into.
 */
#ifndef ROCETOP_PARSE_H
#define ROCETOP_PARSE_H

#include "rocetop.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * rt_parse() is inlined everywhere. The BPF programs call it from one place
 * each and keep its struct rt_pkt in memory (bpf/rocetop.bpf.c,
 * RT_PKT_IN_MEMORY).
 */
#define RT_PARSE_FN static __always_inline

/* Where c is in the frame that starts at data. For BPF the subtraction is
 * written out as 64-bit instructions, so the compiler can neither fold it
 * into one the verifier refuses (a scalar minus a packet pointer) nor, with
 * -mcpu=v3, make it 32-bit pointer arithmetic, which the verifier refuses
 * too. */
static __always_inline __u64 rt_off(const __u8 *c, const __u8 *data)
{
#ifdef __bpf__
	__u64 r;

	asm volatile("%0 = %1; %0 -= %2" : "=&r"(r) : "r"(c), "r"(data));
	return r;
#else
	return (__u64)(c - data);
#endif
}

enum rt_kind {
	RT_K_OTHER = 0,		/* well formed, not RoCEv2, not a pause frame */
	RT_K_ROCE,		/* RoCEv2: UDP 4791 with a BTH */
	RT_K_PFC,		/* 802.1Qbb priority flow control, opcode 0x0101 */
	RT_K_PAUSE,		/* 802.3x pause, opcode 0x0001 */
	RT_K_TRUNC,		/* ends before a header it announces */
	RT_K_MALFORMED,		/* a header with impossible values */
	RT_K_ENCAP_,		/* internal: a mirror encapsulation, inner frame next */
};

#define ETH_P_8021Q_	0x8100
#define ETH_P_8021AD_	0x88a8
#define ETH_P_IP_	0x0800
#define ETH_P_IPV6_	0x86dd
#define ETH_P_MACCTRL_	0x8808
#define ETH_P_TEB_	0x6558	/* GRE: transparent Ethernet bridging */
#define ETH_P_ERSPAN2_	0x88be	/* GRE: ERSPAN type II (type I without GRE's S bit) */
#define ETH_P_ERSPAN3_	0x22eb	/* GRE: ERSPAN type III */

#define RT_IPPROTO_GRE	47
#define RT_VXLAN_PORT	4789
#define RT_VXLAN_LEN	8
#define RT_ERSPAN2_LEN	8
#define RT_ERSPAN3_LEN	12
#define RT_ERSPAN3_PLAT	8	/* the optional platform sub-header (O bit) */
/* How far into a frame an inner frame may start (outer headers). */
#define RT_MAX_INNER_OFF 0x3fff

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
	__u8  fecn;		/* fecn, becn, ackreq, psn: user space only (the */
	__u8  becn;		/* BPF programs never read them; 0 there) */
	__u8  ackreq;
	__u8  v6_unparsed;	/* IPv6 extension header not walked */
	__u16 sport;
	__u16 pfc_cev;		/* PFC class-enable vector (low 8 bits) */
	__u32 dqpn;
	__u32 psn;
	__u16 pause[8];		/* PFC pause times; 802.3x time in pause[0] */
	__u8  src[16];
	__u8  dst[16];
	/* a mirror copy: who mirrored it, and the inner frame (offsets in the frame) */
	__u8  mirror;		/* RT_MIRROR_*, RT_MIRROR_NONE seen directly */
	__u8  mirror_dir;	/* ERSPAN III: RT_DIR_INGRESS or RT_DIR_EGRESS */
	__u16 pad_;
	__u32 mirror_id;	/* ERSPAN session ID or VXLAN VNI */
	__u32 inner_off;	/* where the inner Ethernet frame starts */
	__u32 inner_len;	/* its length */
} __attribute__((aligned(8)));	/* src, dst: whole 8-byte words (rt_copy_addr) */

/*
 * Big-endian fields of the frame. The BPF target cannot load a field it does
 * not know to be aligned other than byte by byte (two loads, a shift, an or
 * and a mask for 16 bits), so for BPF the load is written out (RT_LD_): one
 * load and a byte swap. The verifier allows unaligned packet loads where the
 * kernel has CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS (x86, arm64, ppc64, s390,
 * ...; ARCHITECTURE.md, "Cost per frame"). rt_be32_24: the 24-bit field in
 * the last three of the four bytes at b.
 */
#ifdef __bpf__
#define RT_LD_(w, v, b, o) asm volatile("%0 = *(" w " *)(%1 + " #o ")" : "=r"(v) : "r"(b))

static __always_inline __u16 rt_be16(const __u8 *b)
{
	__u64 v;

	RT_LD_("u16", v, b, 0);
	return __builtin_bswap16((__u16)v);
}

static __always_inline __u32 rt_be32_24(const __u8 *b)
{
	__u64 v;

	RT_LD_("u32", v, b, 0);
	return __builtin_bswap32((__u32)v) & 0xffffff;
}
#else
static __always_inline __u16 rt_be16(const __u8 *b)
{
	return (__u16)((b[0] << 8) | b[1]);
}

static __always_inline __u32 rt_be32_24(const __u8 *b)
{
	return ((__u32)b[1] << 16) | ((__u32)b[2] << 8) | b[3];
}
#endif

/*
 * n bytes (4 or 16) of an address at b in the frame into dst, a 16-byte,
 * 8-byte aligned field of struct rt_pkt, as two whole 8-byte words (an IPv4
 * address zero-extended): the flow key reads the address back in 8-byte
 * words, and a word read back from narrower stores waits for them to reach
 * the cache instead of being forwarded from the store. The BPF target would copy an
 * unaligned source byte by byte, so its loads are written out (RT_LD_).
 */
static __always_inline void rt_copy_addr(__u8 *dst, const __u8 *b, int n)
{
	__u64 w[2] = { 0, 0 };

#ifdef __bpf__
	if (n == 4) {
		__u64 v;

		RT_LD_("u32", v, b, 0);
		w[0] = v;
	} else {
		RT_LD_("u64", w[0], b, 0);
		RT_LD_("u64", w[1], b, 8);
	}
#else
	__builtin_memcpy(w, b, (unsigned int)n);
#endif
	__builtin_memcpy(dst, &w[0], 8);
	__builtin_memcpy(dst + 8, &w[1], 8);	/* all 16 bytes: see parse_pass() */
}

static __always_inline int rt_aeth_opcode(__u8 op)
{
	return op == RT_OP_RC_RDMA_READ_RESP_FIRST || op == RT_OP_RC_RDMA_READ_RESP_LAST ||
	       op == RT_OP_RC_RDMA_READ_RESP_ONLY || op == RT_OP_RC_ACK ||
	       op == RT_OP_RC_ATOMIC_ACK;
}

/* MAC control: PFC or 802.3x. c points after the ethertype, room is what the
 * frame holds from there (less than end - c inside a mirror copy). */
static __always_inline int rt_parse_macctrl(const __u8 *c, const __u8 *end, __u64 room,
					    struct rt_pkt *p)
{
	__u64 op;
	int i;

	if (c + 2 > end || room < 2)
		return RT_K_TRUNC;
	op = rt_be16(c);
	if (op == 0x0101) {
		if (c + 20 > end || room < 20)
			return RT_K_TRUNC;
		p->pfc_cev = c[3];	/* the high byte is reserved */
#pragma unroll
		for (i = 0; i < 8; i++)
			p->pause[i] = rt_be16(c + 4 + 2 * i);
		return RT_K_PFC;
	}
	if (op == 0x0001) {
		if (c + 4 > end || room < 4)
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
static __always_inline int rt_parse_udp(const __u8 *data, const __u8 *c, const __u8 *end,
					__u64 l4len, struct rt_pkt *p, int inner)
{
	__u64 ulen, dport, op;

	if (c + 8 > end)
		return RT_K_TRUNC;
	dport = rt_be16(c + 2);
	if (dport == RT_VXLAN_PORT) {
		/* VXLAN (RFC 7348): flags (I = 0x08), 3 reserved, VNI, 1 reserved */
		if (inner)
			return RT_K_OTHER;	/* a mirror inside a mirror */
		ulen = rt_be16(c + 4);
		if (ulen > l4len || ulen < 8)
			return RT_K_MALFORMED;
		if (ulen < 8 + RT_VXLAN_LEN)
			return RT_K_TRUNC;
		if (c + 8 + RT_VXLAN_LEN > end)
			return RT_K_TRUNC;
		if (!(c[8] & 0x08))
			return RT_K_OTHER;
		p->mirror = RT_MIRROR_VXLAN;
		p->mirror_id = rt_be32_24(c + 11);
		p->inner_off = rt_off(c, data) + 8 + RT_VXLAN_LEN;
		p->inner_len = ulen - 8 - RT_VXLAN_LEN;
		return RT_K_ENCAP_;
	}
	if (dport != ROCEV2_UDP_PORT)
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
	op = c[0];
	p->opcode = (__u8)op;
	p->dqpn = rt_be32_24(c + 4);
#ifndef __bpf__	/* what the BPF programs never read, they need not be given */
	p->fecn = c[4] >> 7;
	p->becn = (c[4] >> 6) & 1;
	p->ackreq = c[8] >> 7;
	p->psn = rt_be32_24(c + 8);
#endif
	if (rt_aeth_opcode((__u8)op)) {	/* op: not p->opcode read back */
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

/*
 * GRE (RFC 2784, RFC 2890) carrying a mirror copy. c points at the GRE header,
 * l4len is what the IP header gives to it and what follows (the inner frame
 * ends there). ERSPAN type II and III as Linux (net/erspan.h) and the switch
 * vendors lay them out: version in the top 4 bits, the 10-bit session ID in
 * the low bits of bytes 2-3; type III has the direction (D) and the platform
 * sub-header (O) bits in byte 11 and the frame type (0: Ethernet) in byte 10.
 * Protocol 0x88BE is type II only with GRE's sequence number (S bit): without
 * it, it is type I (older Cisco and Huawei gear, and Wireshark reads it so),
 * which has no ERSPAN header at all, the Ethernet frame right after GRE's.
 */
static __always_inline int rt_parse_gre(const __u8 *data, const __u8 *c, const __u8 *end,
					__u64 l4len, struct rt_pkt *p)
{
	__u8 mirror = RT_MIRROR_GRE, mdir = 0;
	__u64 hl, id = 0;
	__u64 fl, proto;
	const __u8 *e;

	if (c + 4 > end || l4len < 4)
		return RT_K_TRUNC;
	fl = rt_be16(c);
	proto = rt_be16(c + 2);
	if ((fl & 0x4000) || (fl & 7))	/* routing present, or not version 0 */
		return RT_K_OTHER;
	/* 4 bytes, and 4 more for each of checksum and reserved (C, bit 15),
	 * key (K, bit 13) and sequence number (S, bit 12): each bit shifted to
	 * bit 2, no branch */
	hl = 4 + ((fl >> 13) & 4) + ((fl >> 11) & 4) + ((fl >> 10) & 4);
	e = c + hl;
	if (proto == ETH_P_ERSPAN2_ && !(fl & 0x1000)) {
		/* type I: no sequence number, no ERSPAN header, the frame follows */
		if (hl > l4len || e > end)
			return RT_K_TRUNC;
		mirror = RT_MIRROR_ERSPAN1;
	} else if (proto == ETH_P_ERSPAN2_) {
		if (e + RT_ERSPAN2_LEN > end || hl + RT_ERSPAN2_LEN > l4len)
			return RT_K_TRUNC;
		if ((e[0] >> 4) != 1)
			return RT_K_OTHER;	/* not ERSPAN version 1 (type II) */
		mirror = RT_MIRROR_ERSPAN2;
		id = rt_be16(e + 2) & 0x3ff;
		hl += RT_ERSPAN2_LEN;	/* within l4len and the frame (above) */
	} else if (proto == ETH_P_ERSPAN3_) {
		if (e + RT_ERSPAN3_LEN > end || hl + RT_ERSPAN3_LEN > l4len)
			return RT_K_TRUNC;
		if ((e[0] >> 4) != 2)
			return RT_K_OTHER;	/* not ERSPAN version 2 (type III) */
		if ((e[10] >> 2) & 0x1f)
			return RT_K_OTHER;	/* frame type: not Ethernet */
		mirror = RT_MIRROR_ERSPAN3;
		id = rt_be16(e + 2) & 0x3ff;
		mdir = (e[11] >> 3) & 1;
		hl += RT_ERSPAN3_LEN;
		if (e[11] & 1) {
			hl += RT_ERSPAN3_PLAT;
			if (hl > l4len || c + hl > end)
				return RT_K_TRUNC;
		}
	} else if (proto != ETH_P_TEB_) {
		return RT_K_OTHER;
	} else if (hl > l4len || c + hl > end) {
		return RT_K_TRUNC;
	}
	p->mirror = mirror;
	p->mirror_dir = mdir;
	p->mirror_id = id;
	p->inner_off = rt_off(c, data) + hl;
	p->inner_len = l4len - hl;
	return RT_K_ENCAP_;
}

/*
 * IPv4 at c (off into the frame). short_hdr: the caller has seen that the
 * 20-byte header is in the frame, version 4 and no options (rt_parse_eth's
 * usual frame), so those checks are not made again.
 */
static __always_inline int rt_parse_ipv4(const __u8 *data, const __u8 *c, const __u8 *end,
					 __u64 off, __u64 frame_len, struct rt_pkt *p, int inner,
					 int short_hdr)
{
	__u64 hl = 20, tot;
	int kind;

	if (!short_hdr) {
		if (c + 20 > end)
			return RT_K_TRUNC;
		if ((c[0] >> 4) != 4 || (c[0] & 0x0f) < 5)
			return RT_K_MALFORMED;
		hl = (c[0] & 0x0f) * 4;
	}
	tot = rt_be16(c + 2);
	if (tot < hl)
		return RT_K_MALFORMED;
	if (off + tot > frame_len)
		return RT_K_TRUNC;
	p->family = 4;
	p->tos = c[1];
	if (rt_be16(c + 6) & 0x3fff)	/* a fragment: no UDP header to trust */
		kind = RT_K_OTHER;
	else if (c[9] != 17 && (c[9] != RT_IPPROTO_GRE || inner))
		kind = RT_K_OTHER;
	else if (!short_hdr && c + hl > end)
		kind = RT_K_TRUNC;
	else if (c[9] == 17)
		kind = rt_parse_udp(data, c + hl, end, tot - hl, p, inner);
	else
		kind = rt_parse_gre(data, c + hl, end, tot - hl, p);
	if (kind == RT_K_ENCAP_)
		return kind;	/* a mirror copy's own addresses: never the flow's */
	rt_copy_addr(p->src, c + 12, 4);
	rt_copy_addr(p->dst, c + 16, 4);
	return kind;
}

static __always_inline int rt_parse_ipv6(const __u8 *data, const __u8 *c, const __u8 *end,
					 __u64 off, __u64 frame_len, struct rt_pkt *p, int inner)
{
	const __u8 *ip = c;
	__u64 l4len, hl;
	__u8 nh;
	int i, kind;

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
	c += 40;
#pragma unroll
	for (i = 0; i < RT_MAX_V6_EXT; i++) {
		if (nh == 0 || nh == 43 || nh == 60) {	/* hop-by-hop, routing, destination */
			if (c + 8 > end) {
				kind = RT_K_TRUNC;
				goto out;
			}
			hl = ((__u64)c[1] + 1) * 8;
			if (hl > l4len) {
				kind = RT_K_MALFORMED;
				goto out;
			}
		} else if (nh == 44) {			/* fragment */
			if (c + 8 > end) {
				kind = RT_K_TRUNC;
				goto out;
			}
			if (l4len < 8) {
				kind = RT_K_MALFORMED;
				goto out;
			}
			if ((rt_be16(c + 2) & 0xfff9) != 0) {	/* offset or more-fragments */
				kind = RT_K_OTHER;
				goto out;
			}
			hl = 8;
		} else {
			break;
		}
		nh = c[0];
		l4len -= hl;
		c += hl;
	}
	if (nh == 17) {
		kind = rt_parse_udp(data, c, end, l4len, p, inner);
	} else if (nh == RT_IPPROTO_GRE && !inner) {
		kind = rt_parse_gre(data, c, end, l4len, p);
	} else {
		if (nh == 0 || nh == 43 || nh == 60 || nh == 44 || nh == 51 || nh == 50 ||
		    nh == 135 || nh == 139 || nh == 140 || nh == 253 || nh == 254)
			p->v6_unparsed = 1;
		kind = RT_K_OTHER;
	}
out:
	if (kind == RT_K_ENCAP_)
		return kind;	/* a mirror copy's own addresses: never the flow's */
	rt_copy_addr(p->src, ip + 8, 16);
	rt_copy_addr(p->dst, ip + 24, 16);
	return kind;
}

/*
 * One Ethernet frame: the frame on the wire (inner 0, off 0) or the frame inside
 * a mirror copy (inner 1), which starts at off and ends at frame_len.
 */
static __always_inline int rt_parse_eth(const __u8 *data, __u64 off, const __u8 *end,
					__u64 frame_len, struct rt_pkt *p, int inner)
{
	const __u8 *c = data + off;
	__u64 proto;
	int i;

	p->pcp = RT_PCP_NONE;
	/* The usual frame first: untagged IPv4 without options, both headers
	 * in what can be read and in the frame. One check of the bounds for
	 * both, and the IPv4 header's own three checks known to pass; then
	 * what the path below does with such a frame. */
	if (c + 34 <= end && off + 34 <= frame_len && rt_be16(c + 12) == ETH_P_IP_ &&
	    c[14] == 0x45)
		return rt_parse_ipv4(data, c + 14, end, off + 14, frame_len, p, inner, 1);
	if (c + 14 > end || off + 14 > frame_len)
		return RT_K_TRUNC;
	proto = rt_be16(c + 12);
	c += 14;
	off += 14;
#pragma unroll
	for (i = 0; i < RT_MAX_VLAN; i++) {
		if (proto != ETH_P_8021Q_ && proto != ETH_P_8021AD_)
			break;
		if (c + 4 > end || off + 4 > frame_len)
			return RT_K_TRUNC;
		if (i == 0)
			p->pcp = c[0] >> 5;
		proto = rt_be16(c + 2);
		p->nvlan++;
		c += 4;
		off += 4;
	}
	if (proto == ETH_P_IP_)
		return rt_parse_ipv4(data, c, end, off, frame_len, p, inner, 0);
	if (proto == ETH_P_IPV6_)
		return rt_parse_ipv6(data, c, end, off, frame_len, p, inner);
	if (proto == ETH_P_MACCTRL_)
		return rt_parse_macctrl(c, end, frame_len - off, p);
	return RT_K_OTHER;
}

/*
 * Parse one frame. data..data_end is what can be read, frame_len the length of
 * the whole frame. p must be zeroed by the caller (the BPF programs zero only
 * the fields the parser may leave unwritten: bpf/rocetop.bpf.c, parse_pass).
 * Returns p->kind.
 */
RT_PARSE_FN int rt_parse(const void *data, const void *data_end, __u64 frame_len,
			 struct rt_pkt *p)
{
	const __u8 *d = (const __u8 *)data, *end = (const __u8 *)data_end;
	__u64 flen = frame_len;
	__u64 off = 0;
	int depth, kind = RT_K_OTHER;

	/* One pass per level: the frame, then the frame inside a mirror copy. A
	 * loop rather than two inlined copies keeps the BPF stack small. */
#pragma clang loop unroll(disable)
	for (depth = 0; depth < 2; depth++) {
		kind = rt_parse_eth(d, off, end, flen, p, depth);
		if (kind != RT_K_ENCAP_)
			break;
		if (depth)		/* unreachable: the inner pass finds none */
			kind = RT_K_OTHER;
		/* forget the outer headers: the inner frame is the one counted.
		 * They wrote nvlan, pcp, family, tos and v6_unparsed, all in the
		 * first 16 bytes, and nothing else there (no address either) */
		off = p->inner_off;
		flen = (__u64)p->inner_off + p->inner_len;
		__builtin_memset(p, 0, 16);
		if (off > RT_MAX_INNER_OFF) {
			kind = RT_K_OTHER;
			break;
		}
	}
	p->kind = (__u8)kind;
	return kind;
}

#endif /* ROCETOP_PARSE_H */
