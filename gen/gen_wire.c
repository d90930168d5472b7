/* rocetop-gen: building RoCEv2, PFC and 802.3x frames byte by byte. */
#include <string.h>
#include <zlib.h>

#include "gen.h"

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * RoCEv2 ICRC over IPv4: CRC32 of 8 bytes of 0xFF (the masked pseudo LRH),
 * the IP header with ToS, TTL and checksum set to all ones, the UDP header
 * with its checksum set to all ones, the BTH with byte 4 (FECN/BECN/resv)
 * set to all ones, then everything up to the ICRC unchanged.
 * ip points at the IPv4 header (20 bytes, no options); len runs to the ICRC.
 */
uint32_t gen_icrc(const uint8_t *ip, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t hdr[20 + 8 + 12];
	uLong crc = crc32(0L, Z_NULL, 0);

	memcpy(hdr, ip, sizeof(hdr));
	hdr[1] = 0xff;             /* ToS: DSCP + ECN */
	hdr[8] = 0xff;             /* TTL */
	hdr[10] = hdr[11] = 0xff;  /* IP checksum */
	hdr[20 + 6] = hdr[20 + 7] = 0xff; /* UDP checksum */
	hdr[28 + 4] = 0xff;        /* BTH FECN/BECN/resv6 */
	crc = crc32(crc, ones, sizeof(ones));
	crc = crc32(crc, hdr, sizeof(hdr));
	crc = crc32(crc, ip + sizeof(hdr), (uInt)(len - sizeof(hdr)));
	return (uint32_t)crc;
}

int gen_frame_kind_from_aeth(uint8_t syndrome)
{
	switch ((syndrome >> 5) & 3) {
	case 0: return K_ACK;
	case 1: return K_RNR;
	case 3: return (syndrome & 0x1f) == 0 ? K_NAK_SEQ : K_NAK_OTHER;
	default: return K_NAK_OTHER; /* reserved type: count as a NAK of another kind */
	}
}

static size_t build_mac_control(const struct gen_frame *f, uint8_t *b)
{
	static const uint8_t pause_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	memset(b, 0, 60);
	memcpy(b, pause_dst, 6);
	memcpy(b + 6, f->smac, 6);
	put16(b + 12, 0x8808);
	if (f->kind == K_PFC) {
		put16(b + 14, 0x0101);
		put16(b + 16, f->pfc_vec & 0xff);
		for (int i = 0; i < 8; i++)
			put16(b + 18 + 2 * i, f->pfc_time[i]);
	} else {
		put16(b + 14, 0x0001);
		put16(b + 16, f->pause_time);
	}
	return 60; /* minimum frame without FCS */
}

/* Build the frame into buf (GEN_MAX_FRAME bytes); returns its length. */
size_t gen_build(const struct gen_frame *f, uint8_t *buf)
{
	uint8_t *b = buf, *ip, *udp, *bth, *p;
	size_t l4len, iplen, len;
	uint32_t icrc;

	if (f->kind == K_PFC || f->kind == K_PAUSE)
		return build_mac_control(f, buf);

	memcpy(b, f->dmac, 6);
	memcpy(b + 6, f->smac, 6);
	b += 12;
	if (f->vlan >= 0) {
		put16(b, 0x8100);
		put16(b + 2, (uint32_t)((f->prio & 7) << 13) | (f->vlan & 0xfff));
		b += 4;
	}
	put16(b, 0x0800);
	b += 2;

	ip = b;
	udp = ip + 20;
	bth = udp + 8;
	p = bth + 12;
	bth[0] = f->opcode;
	bth[1] = (uint8_t)((f->se ? 0x80 : 0) | ((-f->paylen & 3) << 4)); /* PadCnt, TVer 0 */
	put16(bth + 2, 0xffff);                                           /* default P_Key */
	bth[4] = (uint8_t)((f->fecn ? 0x80 : 0) | (f->becn ? 0x40 : 0));
	put24(bth + 5, f->dqpn & 0xffffff);
	bth[8] = f->ackreq ? 0x80 : 0;
	put24(bth + 9, f->psn & 0xffffff);
	if (f->reth) {
		put32(p, (uint32_t)(f->va >> 32));
		put32(p + 4, (uint32_t)f->va);
		put32(p + 8, f->rkey);
		put32(p + 12, f->dmalen);
		p += 16;
	}
	if (f->aeth) {
		p[0] = f->syndrome;
		put24(p + 1, f->msn & 0xffffff);
		p += 4;
	}
	for (int i = 0; i < f->paylen; i++)
		p[i] = (uint8_t)(f->payfill + i);
	p += f->paylen;

	l4len = (size_t)(p - udp) + 4;
	iplen = l4len + 20;
	ip[0] = 0x45;
	ip[1] = (uint8_t)((f->dscp << 2) | (f->ecn & 3));
	put16(ip + 2, (uint32_t)iplen);
	put16(ip + 4, f->ip_id);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	put16(ip + 10, 0);
	put32(ip + 12, f->sip);
	put32(ip + 16, f->dip);
	put16(ip + 10, ip_checksum(ip, 20));
	put16(udp, f->sport);
	put16(udp + 2, GEN_ROCE_PORT);
	put16(udp + 4, (uint32_t)l4len);
	put16(udp + 6, 0); /* RoCEv2 allows a zero UDP checksum */

	icrc = gen_icrc(ip, (size_t)(p - ip));
	/* the ICRC goes on the wire least significant byte first */
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
	p += 4;
	len = (size_t)(p - buf);
	if (len < 60) { /* cannot happen for our RoCE frames, but stay a legal frame */
		memset(p, 0, 60 - len);
		len = 60;
	}
	return len;
}

/*
 * A switch's mirror copy of the frame in[0..len): outer Ethernet (smac ->
 * dmac), IPv4 10.78.0.1 -> 10.78.0.2, then
 *   GEN_MIRROR_ERSPAN2: GRE with a sequence number (protocol 0x88BE) and the
 *                       8-byte ERSPAN type II header (version 1, session);
 *   GEN_MIRROR_ERSPAN3: GRE with a sequence number (0x22EB) and the 12-byte
 *                       ERSPAN type III header (version 2, session, a
 *                       timestamp, D = egress, frame type 0: Ethernet);
 *   GEN_MIRROR_VXLAN:   UDP to port 4789 (source port from the inner frame's
 *                       bytes, as switches hash for RSS) and VXLAN (I, VNI).
 * The frame follows whole, without its FCS. Returns the copy's length.
 */
size_t gen_wrap_mirror(int type, uint32_t session, int egress, uint32_t seq, const uint8_t *smac,
		       const uint8_t *dmac, const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t *ip = out + 14, *p = ip + 20;
	size_t hl;

	memcpy(out, dmac, 6);
	memcpy(out + 6, smac, 6);
	put16(out + 12, 0x0800);
	if (type == GEN_MIRROR_VXLAN) {
		uint32_t h = crc32(0L, in, (uInt)(len < 64 ? len : 64));

		put16(p, 49152 + (h & 0x3fff));
		put16(p + 2, 4789);
		put16(p + 4, (uint32_t)(8 + 8 + len));
		put16(p + 6, 0);	/* no UDP checksum, as VXLAN over IPv4 allows */
		p[8] = 0x08;		/* I: the VNI is valid */
		memset(p + 9, 0, 3);
		put24(p + 12, session);
		p[15] = 0;
		hl = 16;
	} else {
		put16(p, 0x1000);	/* S: a sequence number follows */
		put16(p + 2, type == GEN_MIRROR_ERSPAN2 ? 0x88be : 0x22eb);
		put32(p + 4, seq);
		if (type == GEN_MIRROR_ERSPAN2) {
			put16(p + 8, 0x1000);		/* version 1, VLAN 0 */
			put16(p + 10, session & 0x3ff);	/* COS, En, T 0 */
			put32(p + 12, 0);		/* reserved, index 0 */
			hl = 16;
		} else {
			put16(p + 8, 0x2000);		/* version 2, VLAN 0 */
			put16(p + 10, session & 0x3ff);	/* COS, BSO, T 0 */
			put32(p + 12, seq);		/* timestamp */
			put16(p + 16, 0);		/* SGT */
			p[18] = 0;			/* P, FT 0 (Ethernet), HW ID high */
			p[19] = (uint8_t)((egress ? 1 : 0) << 3);	/* D; Gra, O 0 */
			hl = 20;
		}
	}
	memcpy(p + hl, in, len);
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint32_t)(20 + hl + len));
	put16(ip + 4, seq & 0xffff);
	put16(ip + 6, 0x4000);		/* DF */
	ip[8] = 64;
	ip[9] = type == GEN_MIRROR_VXLAN ? 17 : 47;
	put16(ip + 10, 0);
	put32(ip + 12, 0x0a4e0001);	/* 10.78.0.1 */
	put32(ip + 16, 0x0a4e0002);	/* 10.78.0.2 */
	put16(ip + 10, ip_checksum(ip, 20));
	return 14 + 20 + hl + len;
}
