// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sFlow v5 decoder and collector on datagrams built here byte by byte
 * from the layouts of sflow.org's sFlow v5 specification and its drops and
 * transit/queue extensions (field by field below, every value chosen here).
 * The expected values are the ones written in; tests/sflow/test_sflow_tshark.sh
 * also has tshark dissect the same datagrams (test_sflow --pcap FILE --dump FILE).
 *
 * Then every datagram cut at every byte and every length or count field made
 * too large: an error, the samples before the damage kept, no read past the
 * datagram (the datagram sits at the end of its own allocation, so ASan in
 * `make SANITIZE=1` sees any over-read).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "count.h"
#pragma GCC diagnostic pop
#include "../lib/xdr.h"
#include "check.h"
#include "fmt.h"
#include "prom.h"
#include "sflow.h"
#include "sf_drop.h"
#include "sflow_decode.h"
#include "source.h"
#include "stream.h"

/* ---- a datagram builder: 32-bit XDR words, nested lengths ---- */

struct b {
	__u8 d[4096];
	size_t n;
	size_t open[8];	/* offsets of length words to fill */
	int nopen;
	/* where the length/count words are, to corrupt them */
	size_t lens[64];
	int nlens;
};

static void w32(struct b *b, __u32 v)
{
	xdr_w32(b->d, &b->n, v);
}

static void w64(struct b *b, __u64 v)
{
	w32(b, (__u32)(v >> 32));
	w32(b, (__u32)v);
}

/* A count word the test may later make too large. */
static void wcount(struct b *b, __u32 v)
{
	b->lens[b->nlens++] = b->n;
	w32(b, v);
}

/* type, then a length filled by end() */
static void begin(struct b *b, __u32 type)
{
	w32(b, type);
	b->lens[b->nlens++] = b->n;
	b->open[b->nopen++] = b->n;
	w32(b, 0);
}

static void end(struct b *b)
{
	size_t at = b->open[--b->nopen];
	__u32 len = (__u32)(b->n - at - 4);

	b->d[at] = (__u8)(len >> 24);
	b->d[at + 1] = (__u8)(len >> 16);
	b->d[at + 2] = (__u8)(len >> 8);
	b->d[at + 3] = (__u8)len;
}

static void wbytes(struct b *b, const void *p, size_t n)
{
	memcpy(b->d + b->n, p, n);
	b->n += n;
	while (b->n % 4)
		b->d[b->n++] = 0;
}

static void header_v4(struct b *b, const char *agent, __u32 sub, __u32 seq, __u32 nsamples)
{
	struct in_addr a;

	inet_pton(AF_INET, agent, &a);
	w32(b, 5);		/* version */
	w32(b, 1);		/* agent address type: IPv4 */
	memcpy(b->d + b->n, &a, 4);
	b->n += 4;
	w32(b, sub);
	w32(b, seq);
	w32(b, 123456);		/* uptime ms */
	wcount(b, nsamples);
}

/* A RoCEv2 RDMA WRITE ONLY frame: VLAN 100 PCP 3, DSCP 26 + CE, 10.0.0.1 ->
 * 10.0.0.2, sport 49152, dest QP 0x123, PSN 7; 1102 bytes on the wire (no FCS). */
#define FRAME_LEN 1102
static __u32 frame_qp = 0x123;	/* the dest QP of roce_frame() */

static size_t roce_frame(__u8 *f, __u8 opcode, __u8 ecn)
{
	static const __u8 eth[] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x81, 0x00, 0x60, 100, 0x08, 0x00 };
	__u16 iplen = FRAME_LEN - 18, udplen = FRAME_LEN - 18 - 20;
	__u8 *ip = f + sizeof(eth), *udp = ip + 20, *bth = udp + 8;

	memset(f, 0, FRAME_LEN);
	memcpy(f, eth, sizeof(eth));
	ip[0] = 0x45;
	ip[1] = (__u8)(26 << 2 | ecn);
	ip[2] = (__u8)(iplen >> 8);
	ip[3] = (__u8)iplen;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10, ip[15] = 1;
	ip[16] = 10, ip[19] = 2;
	udp[0] = 0xc0, udp[1] = 0x00;		/* 49152 */
	udp[2] = 0x12, udp[3] = 0xb7;		/* 4791 */
	udp[4] = (__u8)(udplen >> 8);
	udp[5] = (__u8)udplen;
	bth[0] = opcode;
	bth[2] = 0xff, bth[3] = 0xff;		/* P_Key */
	bth[5] = (__u8)(frame_qp >> 16), bth[6] = (__u8)(frame_qp >> 8), bth[7] = (__u8)frame_qp;
	bth[11] = 7;
	return FRAME_LEN;
}

#define HDR_LEN 128

/* tshark 4.0 knows neither 1036/1039/1040 nor format 5, and does not skip a
 * record it does not know by its length: the datagrams it dissects leave them out. */
static int for_tshark;

/* Flow records of one sampled frame: header, switch, queue, transit, depth, and
 * one record of another enterprise that must be skipped. */
static void flow_records(struct b *b, __u8 opcode, __u8 ecn, __u32 depth, __u32 transit)
{
	__u8 f[FRAME_LEN];

	roce_frame(f, opcode, ecn);
	wcount(b, for_tshark ? 2 : 6);
	begin(b, 1);		/* raw packet header */
	w32(b, 1);		/* Ethernet */
	w32(b, FRAME_LEN + 4);	/* with the FCS */
	w32(b, 4);		/* the FCS stripped */
	wcount(b, HDR_LEN);
	wbytes(b, f, HDR_LEN);
	end(b);
	begin(b, 1001);		/* extended switch */
	w32(b, 100), w32(b, 3), w32(b, 200), w32(b, 5);
	end(b);
	if (for_tshark)
		return;
	begin(b, 1036);
	w32(b, 3);
	end(b);
	begin(b, 1039);
	w32(b, transit);
	end(b);
	begin(b, 1040);
	w32(b, depth);
	end(b);
	begin(b, (4413u << 12) | 7);	/* an enterprise's record */
	w32(b, 0xdeadbeef), w32(b, 1);
	end(b);
}

/* Datagram A: IPv4 agent 192.0.2.1, a compact flow sample (egress on port 5,
 * rate 1000), a compact counter sample of port 5 (records 1 and 2), and an
 * expanded flow sample (ingress on port 7, rate 512). */
static void dgram_a(struct b *b, __u32 seq)
{
	memset(b, 0, sizeof(*b));
	header_v4(b, "192.0.2.1", 0, seq, 3);
	begin(b, 1);			/* flow sample, compact */
	w32(b, 41);			/* sequence */
	w32(b, 0 << 24 | 5);		/* source: ifIndex 5 */
	w32(b, 1000);			/* rate */
	w32(b, 70000);			/* pool */
	w32(b, 2);			/* drops */
	w32(b, 3);			/* input ifIndex 3 */
	w32(b, 5);			/* output ifIndex 5: egress */
	flow_records(b, 0x0a, 3, 65000, 42000);
	end(b);
	begin(b, 2);			/* counter sample, compact */
	w32(b, 9);
	w32(b, 5);
	wcount(b, 2);
	begin(b, 1);
	w32(b, 5), w32(b, 6), w64(b, 100000000000ULL), w32(b, 1), w32(b, 3);
	w64(b, 1111111111111ULL);
	w32(b, 11), w32(b, 12), w32(b, 13), w32(b, 14), w32(b, 15), w32(b, 16);
	w64(b, 2222222222222ULL);
	w32(b, 21), w32(b, 22), w32(b, 23), w32(b, 24), w32(b, 25), w32(b, 0);
	end(b);
	begin(b, 2);
	for (__u32 k = 0; k < 13; k++)
		w32(b, 100 + k);
	end(b);
	end(b);
	begin(b, 3);			/* flow sample, expanded */
	w32(b, 42);
	w32(b, 0), w32(b, 7);		/* class 0, index 7 */
	w32(b, 512);
	w32(b, 90000);
	w32(b, 0);
	w32(b, 0), w32(b, 7);		/* input: ifIndex 7: ingress */
	w32(b, 0), w32(b, 9);
	flow_records(b, 0x81, 1, 1000, 500);
	end(b);
}

/* Datagram B: IPv6 agent 2001:db8::9, sub-agent 2: a drop notification (port
 * 5, reason 259 no_buffer_space, with the dropped frame's header) and an
 * expanded counter sample. */
static void dgram_b(struct b *b, __u32 seq)
{
	struct in6_addr a;
	__u8 f[FRAME_LEN];

	memset(b, 0, sizeof(*b));
	inet_pton(AF_INET6, "2001:db8::9", &a);
	w32(b, 5);
	w32(b, 2);
	memcpy(b->d + b->n, &a, 16);
	b->n += 16;
	w32(b, 2), w32(b, seq), w32(b, 99);
	wcount(b, for_tshark ? 1 : 2);
	if (for_tshark)
		goto counters;
	begin(b, 5);
	w32(b, 77);			/* sequence */
	w32(b, 0), w32(b, 5);		/* source */
	w32(b, 0);			/* drops */
	w32(b, 3), w32(b, 5);		/* input, output */
	w32(b, 259);			/* no_buffer_space */
	wcount(b, 1);
	begin(b, 1);
	w32(b, 1), w32(b, FRAME_LEN + 4), w32(b, 4);
	wcount(b, 64);
	roce_frame(f, 0x0a, 2);
	wbytes(b, f, 64);
	end(b);
	end(b);
counters:
	begin(b, 4);			/* counter sample, expanded */
	w32(b, 10), w32(b, 0), w32(b, 5);
	wcount(b, 1);
	begin(b, 1);
	w32(b, 5), w32(b, 6), w64(b, 25000000000ULL), w32(b, 1), w32(b, 3);
	w64(b, 5), w32(b, 0), w32(b, 0), w32(b, 0), w32(b, 0), w32(b, 0), w32(b, 0);
	w64(b, 6), w32(b, 0), w32(b, 0), w32(b, 0), w32(b, 31), w32(b, 0), w32(b, 0);
	end(b);
	end(b);
}

/* ---- what the decoder hands on ---- */

struct got {
	struct rt_sf_flow f[8];
	__u8 hdr[8][16];	/* the first bytes of each header (the datagram is freed after) */
	struct rt_sf_ctr c[8];
	int nf, nc;
	FILE *dump;
};

static void got_flow(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_flow *f)
{
	struct got *g = arg;

	(void)d;
	if (g->nf < 8) {
		if (f->has_hdr && f->hdr_len >= 16)
			memcpy(g->hdr[g->nf], f->hdr, 16);
		g->f[g->nf++] = *f;
	}
	if (g->dump) {
		struct rt_pkt p;

		/* The sampled header through the one parser, as the collector does. */
		memset(&p, 0, sizeof(p));
		rt_parse(f->hdr, f->hdr + f->hdr_len, f->frame_len - f->stripped, &p);
		fprintf(g->dump, "flow format=%u seq=%u index=%u rate=%u pool=%u input=%u output=%u hdr_len=%u frame_len=%u in_vlan=%u in_prio=%u out_vlan=%u out_prio=%u dqpn=%u ecn=%u dscp=%u\n",
			f->format, f->seq, f->ds_index, f->rate, f->pool, f->input, f->output,
			f->hdr_len, f->frame_len, f->in_vlan, f->in_prio, f->out_vlan, f->out_prio,
			p.dqpn, p.tos & 3, p.tos >> 2);
	}
}

static void got_ctr(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_ctr *c)
{
	struct got *g = arg;

	(void)d;
	if (g->nc < 8)
		g->c[g->nc++] = *c;
	if (g->dump)
		fprintf(g->dump, "ctr format=%u seq=%u index=%u speed=%llu in_octets=%llu out_octets=%llu in_discards=%u out_discards=%u eth=%u eth0=%u eth12=%u\n",
			c->format, c->seq, c->ds_index, (unsigned long long)c->if_speed,
			(unsigned long long)c->in_octets, (unsigned long long)c->out_octets,
			c->in_discards, c->out_discards, c->has_eth, c->has_eth ? c->eth[0] : 0, c->has_eth ? c->eth[12] : 0);
}

/* Decode from a buffer of exactly len bytes, so any over-read leaves it. */
static int decode(const __u8 *p, size_t len, struct rt_sf_dgram *d, struct got *g)
{
	__u8 *copy = malloc(len ? len : 1);
	struct rt_sf_cb cb = { got_flow, got_ctr, g };
	int r;

	memcpy(copy, p, len);
	memset(g->f, 0, sizeof(g->f));
	g->nf = g->nc = 0;
	r = rt_sf_decode(copy, len, d, &cb, NULL);
	free(copy);
	return r;
}

static void test_fields(void)
{
	struct rt_sf_dgram d;
	struct got g = { 0 };
	struct b b;

	dgram_a(&b, 1000);
	CHECK_EQ(decode(b.d, b.n, &d, &g), RT_SF_OK);
	CHECK_EQ(d.version, 5);
	CHECK_EQ(d.agent_family, 4);
	CHECK(!memcmp(d.agent, "\xc0\x00\x02\x01", 4), "agent 192.0.2.1");
	CHECK_EQ(d.seq, 1000);
	CHECK_EQ(d.nsamples, 3);
	CHECK_EQ(g.nf, 2);
	CHECK_EQ(g.nc, 1);
	CHECK_EQ(g.f[0].format, 1);
	CHECK_EQ(g.f[0].seq, 41);
	CHECK_EQ(g.f[0].ds_index, 5);
	CHECK_EQ(g.f[0].rate, 1000);
	CHECK_EQ(g.f[0].pool, 70000);
	CHECK_EQ(g.f[0].dropped, 2);
	CHECK_EQ(g.f[0].input, 3);
	CHECK_EQ(g.f[0].output, 5);
	CHECK_EQ(g.f[0].hdr_proto, 1);
	CHECK_EQ(g.f[0].frame_len, FRAME_LEN + 4);
	CHECK_EQ(g.f[0].stripped, 4);
	CHECK_EQ(g.f[0].hdr_len, HDR_LEN);
	CHECK(g.hdr[0][12] == 0x81 && g.hdr[0][13] == 0x00 && g.hdr[0][14] == 0x60, "the header's bytes");
	CHECK_EQ(g.f[0].in_vlan, 100);
	CHECK_EQ(g.f[0].in_prio, 3);
	CHECK_EQ(g.f[0].out_vlan, 200);
	CHECK_EQ(g.f[0].out_prio, 5);
	CHECK_EQ(g.f[0].has_queue, 1);
	CHECK_EQ(g.f[0].queue, 3);
	CHECK_EQ(g.f[0].transit_ns, 42000);
	CHECK_EQ(g.f[0].depth, 65000);
	CHECK_EQ(g.c[0].format, 2);
	CHECK_EQ(g.c[0].ds_index, 5);
	CHECK_EQ(g.c[0].if_speed, 100000000000ULL);
	CHECK_EQ(g.c[0].in_octets, 1111111111111ULL);
	CHECK_EQ(g.c[0].in_discards, 14);
	CHECK_EQ(g.c[0].in_errors, 15);
	CHECK_EQ(g.c[0].out_octets, 2222222222222ULL);
	CHECK_EQ(g.c[0].out_discards, 24);
	CHECK_EQ(g.c[0].out_errors, 25);
	CHECK_EQ(g.c[0].has_eth, 1);
	CHECK_EQ(g.c[0].eth[0], 100);
	CHECK_EQ(g.c[0].eth[12], 112);
	CHECK_EQ(g.f[1].format, 3);
	CHECK_EQ(g.f[1].ds_index, 7);
	CHECK_EQ(g.f[1].rate, 512);
	CHECK_EQ(g.f[1].input, 7);
	CHECK_EQ(g.f[1].output, 9);
	CHECK_EQ(g.f[1].depth, 1000);
	CHECK_EQ(g.f[1].transit_ns, 500);

	dgram_b(&b, 5);
	CHECK_EQ(decode(b.d, b.n, &d, &g), RT_SF_OK);
	/* same shape as the flow sample's checks above: this datagram's own decoded fields */
	CHECK_EQ(d.agent_family, 6);
	CHECK_EQ(d.sub_agent, 2);
	CHECK_EQ(g.nf, 1);
	CHECK_EQ(g.f[0].format, 5);
	CHECK_EQ(g.f[0].reason, 259);
	CHECK_EQ(g.f[0].input, 3);
	CHECK_EQ(g.f[0].output, 5);
	CHECK_EQ(g.f[0].hdr_len, 64);
	CHECK_EQ(g.nc, 1);
	CHECK_EQ(g.c[0].format, 4);
	CHECK_EQ(g.c[0].if_speed, 25000000000ULL);
	CHECK_EQ(g.c[0].out_discards, 31);
	CHECK(!strcmp(rt_sf_drop_reason(259), "no_buffer_space"), "259 is no_buffer_space");
	CHECK(!strcmp(rt_sf_drop_reason(0), "net_unreachable"), "0 is net_unreachable");
	CHECK(rt_sf_drop_reason(100) == NULL, "100 has no name");
	TEST_END("sflow_decode_fields");
}

static void test_bad(void)
{
	struct rt_sf_dgram d;
	struct got g = { 0 };
	struct b b, bad;
	int cut_errors = 0, cuts = 0, over_errors = 0, overs = 0;

	/* Another version, another protocol, nothing. */
	dgram_a(&b, 1);
	b.d[3] = 4;
	CHECK_EQ(decode(b.d, b.n, &d, &g), RT_SF_E_VERSION);
	CHECK_EQ(decode((const __u8 *)"GET / HTTP/1.1\r\n", 16, &d, &g), RT_SF_E_VERSION);
	CHECK_EQ(decode(b.d, 0, &d, &g), RT_SF_E_SHORT);
	dgram_a(&b, 1);
	b.d[7] = 3;	/* agent address type 3 */
	CHECK_EQ(decode(b.d, b.n, &d, &g), RT_SF_E_AGENT);
	/* Bytes after the samples announced. */
	dgram_a(&b, 1);
	w32(&b, 0);
	CHECK_EQ(decode(b.d, b.n, &d, &g), RT_SF_E_TRAILING);
	CHECK_EQ(g.nf, 2);

	/* Cut at every byte: never OK, never more samples than fit. */
	for (int which = 0; which < 2; which++) {
		if (which)
			dgram_b(&b, 1);
		else
			dgram_a(&b, 1);
		for (size_t n = 0; n < b.n; n++) {
			int r = decode(b.d, n, &d, &g);

			cuts++;
			cut_errors += r != RT_SF_OK;
		}
	}
	CHECK_EQ(cut_errors, cuts);

	/* Every length and count word too large (by one word, and by far). */
	for (int which = 0; which < 2; which++) {
		if (which)
			dgram_b(&b, 1);
		else
			dgram_a(&b, 1);
		for (int k = 0; k < b.nlens; k++) {
			for (int big = 0; big < 2; big++) {
				size_t at = b.lens[k];
				__u32 v = (__u32)b.d[at] << 24 | (__u32)b.d[at + 1] << 16 |
					  (__u32)b.d[at + 2] << 8 | b.d[at + 3];
				int r;

				bad = b;
				v = big ? 0xfffffff0u : v + 4;
				bad.d[at] = (__u8)(v >> 24);
				bad.d[at + 1] = (__u8)(v >> 16);
				bad.d[at + 2] = (__u8)(v >> 8);
				bad.d[at + 3] = (__u8)v;
				r = decode(bad.d, bad.n, &d, &g);
				overs++;
				if (r != RT_SF_OK)
					over_errors++;
				else
					printf("  length word %d at %zu made %u decoded without error\n", k, at, v);
			}
		}
	}
	CHECK_EQ(over_errors, overs);

	/* A sample's length too large: the samples before it are kept. */
	dgram_a(&b, 1);
	{
		/* The third sample's length word is the last "begin" at top level:
		 * find it as the length word whose value reaches the end. */
		for (int k = 0; k < b.nlens; k++) {
			size_t at = b.lens[k];
			__u32 v = (__u32)b.d[at] << 24 | (__u32)b.d[at + 1] << 16 | (__u32)b.d[at + 2] << 8 | b.d[at + 3];

			if (at + 4 + v == b.n && k > 0) {
				bad = b;
				bad.d[at + 3] = (__u8)(bad.d[at + 3] + 8);
				if (bad.d[at + 3] < 8)
					bad.d[at + 2]++;
				CHECK_EQ(decode(bad.d, bad.n, &d, &g), RT_SF_E_SAMPLE);
				CHECK_EQ(g.nf, 1);
				CHECK_EQ(g.nc, 1);
				break;
			}
		}
	}
	printf("  %d cuts, %d oversized lengths: each an error\n", cuts, overs);
	TEST_END("sflow_decode_bad_input");
}

static struct sockaddr_in from4(const char *a)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static const struct rt_swport *find_port(const struct rt_snapshot *s, const char *agent, __u32 port, __u8 dir)
{
	for (size_t i = 0; i < s->nswports; i++)
		if (!strcmp(s->swports[i].agent, agent) && s->swports[i].port == port && s->swports[i].dir == dir)
			return &s->swports[i];
	return NULL;
}

static const struct rt_sfagent *find_agent(const struct rt_snapshot *s, const char *agent)
{
	for (size_t i = 0; i < s->nsfagents; i++)
		if (!strcmp(s->sfagents[i].agent, agent))
			return &s->sfagents[i];
	return NULL;
}

static void test_collector(void)
{
	static const char *const allow[] = { "192.0.2.0/24", "2001:db8::/32" };
	static const char *const bad_allow[] = { "10.0.0.0/33" };
	struct rt_sflow_cfg c = { .fd = -1, .have_fd = 1, .allow = allow, .nallow = 2,
				  .max_flows = 16384, .flow_timeout = 60 };
	struct rt_sflow *sf;
	struct rt_snapshot s;
	struct sockaddr_in src = from4("192.0.2.1"), other = from4("198.51.100.7");
	const struct rt_swport *p;
	const struct rt_sfagent *a;
	struct b b;
	int found = 0;

	sf = rt_sflow_new(&c);
	CHECK(sf != NULL, "collector");
	if (!sf)
		return;
	rt_snapshot_init(&s);
	/* Sequence 10, 11, then 15: 3 datagrams lost. */
	dgram_a(&b, 10);
	rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&src, 1000);
	dgram_a(&b, 11);
	rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&src, 2000);
	dgram_a(&b, 15);
	rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&src, 3000);
	/* Cut short: an error against the agent. */
	rt_sflow_datagram(sf, b.d, b.n - 9, (struct sockaddr *)&src, 3000);
	/* Not allowed: counted against the sender, not decoded. */
	rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&other, 3000);
	/* Not sFlow. */
	rt_sflow_datagram(sf, "hello", 5, (struct sockaddr *)&src, 3000);
	dgram_b(&b, 1);
	rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&src, 3000);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);

	a = find_agent(&s, "192.0.2.1");
	CHECK(a != NULL, "agent 192.0.2.1");
	if (a) {
		CHECK_EQ(a->datagrams, 4);
		CHECK_EQ(a->lost, 3);
		CHECK_EQ(a->errors, 1);
		CHECK_EQ(a->rejected, 0);	/* "hello" came from its address: not its datagram */
		/* 3 whole datagrams of 2 flow samples; the cut one keeps its first sample */
		CHECK_EQ(a->samples, 7);
		CHECK_EQ(a->ctr_samples, 4);
	}
	/* The sender outside --sflow-allow and "hello": counted, not stored. */
	CHECK(find_agent(&s, "198.51.100.7") == NULL, "no row for a refused sender");
	a = find_agent(&s, "(rejected)");
	CHECK(a && a->rejected == 2 && a->datagrams == 0, "2 rejected");
	a = find_agent(&s, "2001:db8::9/2");
	CHECK(a && a->drop_samples == 1 && a->ctr_samples == 1, "IPv6 agent, sub-agent 2");

	/* Port 5 egress: 4 samples of rate 1000, each a CE-marked RDMA WRITE of 1102 bytes. */
	p = find_port(&s, "192.0.2.1", 5, RT_DIR_EGRESS);
	CHECK(p != NULL, "192.0.2.1 port 5 egress");
	if (p) {
		CHECK_EQ(p->c.samples, 4);
		CHECK_EQ(p->c.est_pkts, 4000);
		CHECK_EQ(p->c.est_bytes, 4000ULL * FRAME_LEN);
		CHECK_EQ(p->c.est_ce, 4000);
		CHECK_EQ(p->c.est_cnp, 0);
		CHECK_EQ(p->max_depth, 65000);
		CHECK_EQ(p->c.depth_sum, 4 * 65000);
		CHECK_EQ(p->max_transit, 42000);
		CHECK_EQ(p->queue, 3);
		CHECK_EQ(p->speed_bps, 100000000000ULL);
		CHECK_EQ(p->out_discards, 24);
		CHECK_EQ(p->agent_lost, 3);
		CHECK(!strcmp(p->name, "192.0.2.1:5"), "name %s", p->name);
		CHECK(!strcmp(rt_snapshot_ifname(&s, p->ifindex), "192.0.2.1:5"), "ifname");
	}
	/* Port 7 ingress: 3 samples of rate 512, CNPs (ECT(1)). */
	p = find_port(&s, "192.0.2.1", 7, RT_DIR_INGRESS);
	CHECK(p && p->c.samples == 3 && p->c.est_pkts == 1536 && p->c.est_cnp == 1536 && p->c.est_ce == 0,
	      "port 7 ingress");
	/* The flows: estimates, ifname AGENT:PORT. */
	for (size_t i = 0; i < s.nflows; i++) {
		const struct rt_flow *f = &s.flows[i];

		CHECK_EQ(f->estimate, 1);
		if (f->sw_drops)	/* the drop notification's flow: below */
			continue;
		if (f->k.dir == RT_DIR_EGRESS && f->k.dqpn == 0x123) {
			found++;
			CHECK_EQ(f->samples, 4);
			CHECK_EQ(f->v.pkts, 4000);
			CHECK_EQ(f->v.bytes, 4000ULL * FRAME_LEN);
			CHECK_EQ(f->v.ecn[RT_ECN_CE], 4000);
			CHECK_EQ(f->v.dscp, 26);
			CHECK_EQ(f->v.pcp, 3);
			CHECK(!strcmp(rt_snapshot_ifname(&s, f->k.ifindex), "192.0.2.1:5"), "flow ifname");
		} else if (f->k.dir == RT_DIR_INGRESS) {
			found++;
			CHECK_EQ(f->v.cnp, 1536);
			CHECK_EQ(f->samples, 3);
		}
	}
	CHECK_EQ(found, 2);
	CHECK_EQ(s.nswdrops, 1);
	if (s.nswdrops) {
		CHECK_EQ(s.swdrops[0].reason, 259);
		CHECK_EQ(s.swdrops[0].drops, 1);
		CHECK_EQ(s.swdrops[0].port, 5);
		CHECK(!strcmp(s.swdrops[0].agent, "2001:db8::9/2"), "drop agent %s", s.swdrops[0].agent);
	}
	p = find_port(&s, "2001:db8::9/2", 5, RT_DIR_EGRESS);
	CHECK(p && !strcmp(p->name, "[2001:db8::9/2]:5") && p->c.drops == 1, "IPv6 port name and drops");
	/* The dropped frame's flow carries the notification (and no packets). */
	found = 0;
	for (size_t i = 0; p && i < s.nflows; i++)
		if (s.flows[i].k.ifindex == p->ifindex) {
			found++;
			CHECK_EQ(s.flows[i].sw_drops, 1);
			CHECK_EQ(s.flows[i].k.dqpn, 0x123);
			CHECK_EQ(s.flows[i].v.pkts, 0);
		}
	CHECK_EQ(found, 1);

	/* Prometheus: the switch-port table, the drops by reason, the agents;
	 * estimated flows stay out of the exact flow families. */
	{
		struct rt_prom_render *pr = rt_prom_render_new(10, 0);
		struct rt_delta dl = { 0 };
		char *t = NULL, *om = NULL;
		size_t tl, ol;

		CHECK_EQ(rt_delta_compute(&dl, NULL, &s), 0);
		CHECK(pr && !rt_prom_render(pr, &s, &dl, &t, &tl, &om, &ol), "render");
		if (t) {
			static const char *const want[] = {
				"rocetop_sflow_port_est_packets_total{agent=\"192.0.2.1\",port=\"5\",direction=\"egress\"} 4000\n",
				"rocetop_sflow_port_est_ce_packets_total{agent=\"192.0.2.1\",port=\"5\",direction=\"egress\"} 4000\n",
				"rocetop_sflow_port_est_cnp_packets_total{agent=\"192.0.2.1\",port=\"7\",direction=\"ingress\"} 1536\n",
				"rocetop_sflow_port_samples_total{agent=\"192.0.2.1\",port=\"5\",direction=\"egress\"} 4\n",
				"rocetop_sflow_port_queue_max_bytes{agent=\"192.0.2.1\",port=\"5\",direction=\"egress\"} 65000\n",
				"rocetop_sflow_port_transit_delay_max_seconds{agent=\"192.0.2.1\",port=\"5\",direction=\"egress\"} 4.2e-05\n",
				"rocetop_sflow_drops_total{agent=\"2001:db8::9/2\",port=\"5\",reason=\"no_buffer_space\",reason_code=\"259\"} 1\n",
				"rocetop_sflow_datagrams_total{agent=\"192.0.2.1\",outcome=\"lost\"} 3\n",
				"rocetop_sflow_datagrams_total{agent=\"(rejected)\",outcome=\"rejected\"} 2\n",
				"rocetop_sflow_bad_samples_total{agent=\"192.0.2.1\"} 0\n",
				"rocetop_sflow_port_speed_bytes_per_second{agent=\"192.0.2.1\",port=\"5\"} 12500000000\n",
				"rocetop_sflow_port_interface_discards_total{agent=\"192.0.2.1\",port=\"5\",side=\"in\"} 14\n",
				"rocetop_sflow_port_interface_discards_total{agent=\"192.0.2.1\",port=\"5\",side=\"out\"} 24\n",
				"rocetop_sflow_port_interface_errors_total{agent=\"192.0.2.1\",port=\"5\",side=\"out\"} 25\n",
			};
			const char *dir = getenv("PROM_DUMP_DIR");

			for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
				CHECK(strstr(t, want[k]) != NULL, "missing %s", want[k]);
			CHECK(!strstr(t, "192.0.2.1:5"), "an estimated flow in the exact flow families");
			if (dir) {
				char path[4096];
				FILE *fp;

				snprintf(path, sizeof(path), "%s/sflow.prom", dir);
				if ((fp = fopen(path, "w"))) {
					fputs(t, fp);
					fclose(fp);
				}
			}
		}
		free(t);
		free(om);
		rt_delta_free(&dl);
		rt_prom_render_free(pr);
	}

	/* The next interval: the largest depth starts again. */
	rt_snapshot_clear(&s);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	p = find_port(&s, "192.0.2.1", 5, RT_DIR_EGRESS);
	CHECK(p && p->max_depth == 0 && p->c.samples == 4, "max depth per interval, totals kept");
	rt_snapshot_free(&s);
	rt_sflow_free(sf);

	/* A bad --sflow-allow is refused. */
	c.allow = bad_allow;
	c.nallow = 1;
	sf = rt_sflow_new(&c);
	CHECK(sf == NULL, "10.0.0.0/33 refused");
	rt_sflow_free(sf);
	TEST_END("sflow_collector");
}

/* Many flows, ports and agents: the tables grow and still find every key. */
static void test_collector_many(void)
{
	struct sockaddr_in src = from4("192.0.2.1");
	struct rt_snapshot s;
	struct rt_sflow *sf;
	struct rt_sflow_cfg c = { .fd = -1, .have_fd = 1, .max_flows = 100000, .flow_timeout = 60 };
	struct b b;
	int bad = 0;

	sf = rt_sflow_new(&c);
	rt_snapshot_init(&s);
	for (int round = 0; round < 2; round++)
		for (__u32 q = 0; q < 3000; q++) {
			frame_qp = 0x1000 + q;
			dgram_a(&b, 2 + q);
			rt_sflow_datagram(sf, b.d, b.n, (struct sockaddr *)&src, 1);
		}
	frame_qp = 0x123;
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	/* Each datagram: one egress sample (rate 1000) and one ingress (512) of its QP. */
	CHECK_EQ(s.nflows, 6000);
	for (size_t i = 0; i < s.nflows; i++)
		if (s.flows[i].samples != 2 ||
		    s.flows[i].v.pkts != (s.flows[i].k.dir == RT_DIR_EGRESS ? 2000u : 1024u))
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(s.nsfagents, 1);
	CHECK_EQ(s.sfagents[0].lost, 0);
	rt_snapshot_free(&s);
	rt_sflow_free(sf);
	TEST_END("sflow_collector_many_flows");
}

/* ---- forgetting, rejected senders, loss, bounds ---- */

static struct rt_sflow *collector(__u32 max_flows, double timeout, const char *allow)
{
	struct rt_sflow_cfg c = { .fd = -1, .have_fd = 1, .allow = &allow, .nallow = allow != NULL,
				  .max_flows = max_flows, .flow_timeout = timeout };

	return rt_sflow_new(&c);
}

static void send_at(struct rt_sflow *sf, const struct b *b, const char *src, double t)
{
	struct sockaddr_in s = from4(src);

	rt_sflow_datagram(sf, b->d, b->n, (struct sockaddr *)&s, (__u64)(t * 1e9));
}

/* A datagram of header only (no sample) from agent, with its sequence number and uptime. */
static void dgram_hdr(struct b *b, const char *agent, __u32 seq, __u32 uptime_ms)
{
	struct in_addr a;

	memset(b, 0, sizeof(*b));
	inet_pton(AF_INET, agent, &a);
	w32(b, 5), w32(b, 1);
	memcpy(b->d + b->n, &a, 4);
	b->n += 4;
	w32(b, 0), w32(b, seq), w32(b, uptime_ms), w32(b, 0);
}

/* One compact flow sample of frame_qp's RDMA WRITE, on port 5 egress, with
 * the rate, pool and frame length given (the FCS, 4 bytes, stripped). */
static void dgram_sample(struct b *b, const char *agent, __u32 seq, __u32 rate, __u32 pool, __u32 frame_len)
{
	__u8 f[FRAME_LEN];

	memset(b, 0, sizeof(*b));
	header_v4(b, agent, 0, seq, 1);
	begin(b, 1);
	w32(b, seq), w32(b, 5), w32(b, rate), w32(b, pool), w32(b, 0), w32(b, 3), w32(b, 5);
	wcount(b, 1);
	begin(b, 1);
	roce_frame(f, 0x0a, 2);
	w32(b, 1), w32(b, frame_len), w32(b, 4);
	wcount(b, HDR_LEN);
	wbytes(b, f, HDR_LEN);
	end(b);
	end(b);
}

static __u64 agent_lost(struct rt_sflow *sf, const char *agent)
{
	struct rt_snapshot s;
	const struct rt_sfagent *a;
	__u64 lost = ~0ULL;

	rt_snapshot_init(&s);
	if (!rt_sflow_collect(sf, &s) && (a = find_agent(&s, agent)))
		lost = a->lost;
	rt_snapshot_free(&s);
	return lost;
}

/* --flow-timeout forgets sFlow flows, ports and agents: a collector that has
 * seen --max-flows flows keeps taking new ones once the old ones are idle. */
static void test_timeout(void)
{
	struct rt_sflow *sf = collector(4, 60, NULL);
	struct rt_snapshot s;
	struct b b;
	int old = 0, fresh = 0;

	rt_snapshot_init(&s);
	/* t = 1 s: QPs 0x500 and 0x501 from agent 192.0.2.1, 2 flows each (port 5
	 * egress, port 7 ingress): the 4 flows --max-flows allows. Agent
	 * 192.0.2.2 sends once too. */
	for (__u32 q = 0; q < 2; q++) {
		frame_qp = 0x500 + q;
		dgram_a(&b, 1 + q);
		send_at(sf, &b, "192.0.2.1", 1);
	}
	dgram_a(&b, 1);
	b.d[11] = 2;		/* the agent address's last byte: 192.0.2.2 */
	send_at(sf, &b, "192.0.2.2", 1);
	/* t = 30 s: a third QP does not fit (4 flows, none idle for 60 s). */
	frame_qp = 0x502;
	dgram_a(&b, 3);
	send_at(sf, &b, "192.0.2.1", 30);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	CHECK_EQ(s.nflows, 4);
	CHECK_EQ(s.nsfagents, 2);
	rt_snapshot_clear(&s);
	/* t = 50 s: agent 192.0.2.4 (a datagram without samples), the third slot */
	memset(&b, 0, sizeof(b));
	header_v4(&b, "192.0.2.4", 0, 1, 0);
	send_at(sf, &b, "192.0.2.4", 50);
	rt_snapshot_clear(&s);
	/* t = 100 s: the first four are idle for 99 s, 192.0.2.2 too. */
	frame_qp = 0x503;
	dgram_a(&b, 4);
	send_at(sf, &b, "192.0.2.1", 100);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	for (size_t i = 0; i < s.nflows; i++) {
		if (s.flows[i].k.dqpn == 0x503 && s.flows[i].samples == 1)
			fresh++;
		else
			old++;
	}
	CHECK_EQ(fresh, 2);
	CHECK_EQ(old, 0);
	CHECK(find_agent(&s, "192.0.2.1") != NULL, "the active agent is kept");
	CHECK(find_agent(&s, "192.0.2.2") == NULL, "the idle agent is forgotten");
	CHECK(find_port(&s, "192.0.2.2", 5, RT_DIR_EGRESS) == NULL, "the idle agent's ports are forgotten");
	CHECK(find_port(&s, "192.0.2.1", 5, RT_DIR_EGRESS) != NULL, "the active agent's port is kept");
	CHECK(find_agent(&s, "192.0.2.4") != NULL, "the agent idle for 50 s is kept");
	rt_snapshot_clear(&s);
	/* t = 101 s: 192.0.2.3 takes 192.0.2.2's slot, and none of its ports */
	frame_qp = 0x504;
	dgram_a(&b, 1);
	b.d[11] = 3;
	send_at(sf, &b, "192.0.2.3", 101);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	CHECK_EQ(s.nsfagents, 3);
	{
		const struct rt_swport *p3 = find_port(&s, "192.0.2.3", 5, RT_DIR_EGRESS);

		CHECK(p3 && p3->c.samples == 1 && p3->c.est_pkts == 1000, "a new agent in a forgotten slot starts from 0");
	}
	rt_snapshot_free(&s);
	rt_sflow_free(sf);
	/* --flow-timeout 0: never forget. */
	sf = collector(4, 0, NULL);
	rt_snapshot_init(&s);
	frame_qp = 0x500;
	dgram_a(&b, 1);
	send_at(sf, &b, "192.0.2.1", 1);
	send_at(sf, &b, "192.0.2.1", 1e6);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	CHECK_EQ(s.nflows, 2);
	rt_snapshot_free(&s);
	rt_sflow_free(sf);
	frame_qp = 0x123;
	TEST_END("sflow_flow_timeout");
}

static int merge(void *arg, struct rt_snapshot *snap)
{
	return rt_sflow_collect(arg, snap) ? -1 : 1;
}

/* The same through the loop's stream (--sflow alone: the clock source, the
 * collector merged into the persistent table): a forgotten flow's row leaves
 * the table too, so the view and the files show only what is alive. */
static void test_timeout_stream(void)
{
	struct rt_sflow_cfg c = { .spec = "6343", .max_flows = 16384, .flow_timeout = 60 };
	struct rt_sflow *sf = collector(4, 60, NULL);
	struct rt_stream st = { 0 };
	struct rt_source *src;
	struct b b;
	int ok = 0;

	src = rt_sflow_clock_source_new(&c);
	CHECK(sf && src && !rt_stream_init(&st, src, NULL), "stream");
	if (!sf || !src)
		return;
	st.merge = merge;
	st.merge_arg = sf;
	frame_qp = 0x500;
	dgram_a(&b, 1);
	send_at(sf, &b, "192.0.2.1", 1);
	CHECK_EQ(rt_stream_step(&st), 1);
	CHECK_EQ(st.cur.nflows, 2);
	frame_qp = 0x501;
	dgram_a(&b, 2);
	send_at(sf, &b, "192.0.2.1", 100);
	CHECK_EQ(rt_stream_step(&st), 1);
	for (size_t i = 0; i < st.cur.nflows; i++)
		ok += st.cur.flows[i].k.dqpn == 0x501;
	CHECK_EQ(st.cur.nflows, 2);
	CHECK_EQ(ok, 2);
	frame_qp = 0x123;
	src->close(src);
	rt_stream_free(&st);
	rt_sflow_free(sf);
	TEST_END("sflow_flow_timeout_stream");
}

/* Refused and non-sFlow senders are counted, never given an agent slot: 9,000
 * of them, from as many addresses, leave the real agent its own row. */
static void test_rejected(void)
{
	struct rt_sflow *sf = collector(16384, 60, "192.0.2.0/24");
	struct rt_snapshot s;
	const struct rt_sfagent *a;
	char src[32];
	struct b b, cut;

	rt_snapshot_init(&s);
	dgram_a(&b, 10);
	for (int i = 0; i < 3000; i++) {
		/* refused by --sflow-allow */
		snprintf(src, sizeof(src), "198.51.%d.%d", i / 250, i % 250 + 1);
		send_at(sf, &b, src, 1);
		/* not sFlow, from allowed addresses */
		snprintf(src, sizeof(src), "192.0.2.%d", i % 250 + 1);
		rt_sflow_datagram(sf, "hello", 5, (struct sockaddr *)&(struct sockaddr_in){
			.sin_family = AF_INET, .sin_addr.s_addr = htonl(0xc0000200u | (__u32)(i % 250 + 1)) }, 1e9);
		/* sFlow v5 headers of 3,000 unknown agents, cut short */
		cut = b;
		cut.d[10] = (__u8)(i >> 8), cut.d[11] = (__u8)i;
		cut.d[8] = 10;
		cut.n = 60;
		send_at(sf, &cut, "192.0.2.9", 1);
	}
	dgram_a(&b, 10);
	send_at(sf, &b, "192.0.2.1", 2);
	dgram_a(&b, 11);
	send_at(sf, &b, "192.0.2.1", 2);
	dgram_a(&b, 12);
	send_at(sf, &b, "192.0.2.1", 2);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	a = find_agent(&s, "192.0.2.1");
	CHECK(a != NULL, "the real agent has its own row");
	if (a) {
		CHECK_EQ(a->datagrams, 3);
		CHECK_EQ(a->lost, 0);
		CHECK_EQ(a->samples, 6);
	}
	CHECK(find_agent(&s, "other") == NULL, "no agent pushed into \"other\"");
	a = find_agent(&s, "(rejected)");
	CHECK(a && a->rejected == 9000 && a->datagrams == 0, "9000 rejected, counted in one row");
	CHECK_EQ(s.nsfagents, 2);
	rt_snapshot_clear(&s);
	/* 4,094 more agents fill the table; two beyond it share "other", whose
	 * mixed sequence numbers (10, 500, 11, 501) are no loss. */
	for (__u32 i = 0; i < 4094; i++) {
		dgram_hdr(&cut, "192.0.2.1", 1, 1000);
		cut.d[8] = 10, cut.d[9] = (__u8)(i >> 16), cut.d[10] = (__u8)(i >> 8), cut.d[11] = (__u8)i;
		send_at(sf, &cut, "192.0.2.1", 3);
	}
	for (int k = 0; k < 4; k++) {
		dgram_hdr(&cut, k % 2 ? "192.0.2.200" : "192.0.2.201", (k % 2 ? 500 : 10) + (__u32)k / 2, 1000);
		send_at(sf, &cut, "192.0.2.1", 3);
	}
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	a = find_agent(&s, "other");
	CHECK(a && a->datagrams == 4 && a->lost == 0, "\"other\": 4 datagrams, none lost");
	CHECK_EQ(s.nsfagents, 4096 + 1);
	rt_snapshot_free(&s);
	rt_sflow_free(sf);
	TEST_END("sflow_rejected_senders");
}

/* Datagram loss: 32-bit serial arithmetic, late datagrams are not loss, a
 * restart (the uptime reset, or a lower number sent later) starts again. */
static void test_loss(void)
{
	struct rt_sflow *sf = collector(16384, 0, NULL);
	struct b b;
	double t = 1;
	static const struct { const char *agent; __u32 seq, up; __u64 lost; } steps[] = {
		/* reordered: 10, 11, 9, 12 (9 sent before 10): none lost */
		{ "192.0.2.1", 10, 10000, 0 }, { "192.0.2.1", 11, 11000, 0 },
		{ "192.0.2.1", 9, 9000, 0 }, { "192.0.2.1", 12, 12000, 0 },
		/* 10, 12 (11 counted lost), then 11 comes late: none lost; 11 again: a copy */
		{ "192.0.2.2", 10, 10000, 0 }, { "192.0.2.2", 12, 12000, 1 },
		{ "192.0.2.2", 11, 11000, 0 }, { "192.0.2.2", 11, 11000, 0 }, { "192.0.2.2", 15, 15000, 2 },
		/* a restart: up 34 days (past 2^31 ms), then the uptime back to 1.5 s
		 * and the sequence to 1 (the audit's "1,879,048,191 lost") */
		{ "192.0.2.3", 2415919104u, 3000000000u, 0 },
		{ "192.0.2.3", 2415919105u, 3000001000u, 0 },
		{ "192.0.2.3", 1, 1500, 0 }, { "192.0.2.3", 2, 2500, 0 }, { "192.0.2.3", 4, 4500, 1 },
		/* the sequence wraps: 0xfffffffe, 0xffffffff, 0, 1 none lost; then 4: 2 lost */
		{ "192.0.2.4", 0xfffffffeu, 1000, 0 }, { "192.0.2.4", 0xffffffffu, 2000, 0 },
		{ "192.0.2.4", 0, 3000, 0 }, { "192.0.2.4", 1, 4000, 0 }, { "192.0.2.4", 4, 5000, 2 },
		/* the sub-agent restarts, the device's uptime goes on: 500, 501, then 1, 2 */
		{ "192.0.2.5", 500, 100000, 0 }, { "192.0.2.5", 501, 101000, 0 },
		{ "192.0.2.5", 1, 102000, 0 }, { "192.0.2.5", 2, 103000, 0 },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++, t += 1) {
		__u64 lost;

		dgram_hdr(&b, steps[i].agent, steps[i].seq, steps[i].up);
		send_at(sf, &b, steps[i].agent, t);
		lost = agent_lost(sf, steps[i].agent);
		CHECK(lost == steps[i].lost, "step %zu: %s seq %u uptime %u: %llu lost, expected %llu", i,
		      steps[i].agent, steps[i].seq, steps[i].up, (unsigned long long)lost,
		      (unsigned long long)steps[i].lost);
	}
	rt_sflow_free(sf);
	TEST_END("sflow_datagram_loss");
}

/* A frame over 64 KiB and a sampling rate above the sample pool are lies:
 * bounded (64 KiB, the pool) and counted (a rate once the port had an honest
 * sample: a fresh source may sample before its pool reaches the rate); sums
 * saturate, never wrap. */
static void test_bounds(void)
{
	struct rt_sflow *sf = collector(16384, 0, NULL);
	struct rt_snapshot s;
	const struct rt_swport *p;
	struct b b;
	__u64 pkts = 0;

	rt_snapshot_init(&s);
	/* rate and frame length 2^32-1, pool 70,000: the sample stands for 70,000
	 * frames of 65,536 - 4 bytes. */
	dgram_sample(&b, "192.0.2.1", 1, 0xffffffffu, 70000, 0xffffffffu);
	send_at(sf, &b, "192.0.2.1", 1);
	/* honest: rate 1000, pool 70,000, 1106 bytes (1102 without the FCS) */
	dgram_sample(&b, "192.0.2.1", 2, 1000, 70000, FRAME_LEN + 4);
	send_at(sf, &b, "192.0.2.1", 1);
	/* then a rate of 1,000,000 with a pool of 70,100: stands for 70,100 */
	dgram_sample(&b, "192.0.2.1", 3, 1000000, 70100, FRAME_LEN + 4);
	send_at(sf, &b, "192.0.2.1", 1);
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	p = find_port(&s, "192.0.2.1", 5, RT_DIR_EGRESS);
	CHECK(p != NULL, "port 5 egress");
	if (p) {
		CHECK_EQ(p->c.samples, 3);
		CHECK_EQ(p->c.est_pkts, 70000 + 1000 + 70100);
		CHECK_EQ(p->c.est_bytes, 70000ULL * 65532 + 71100ULL * FRAME_LEN);
	}
	for (size_t i = 0; i < s.nflows; i++)
		if (s.flows[i].k.dqpn == frame_qp) {
			pkts = s.flows[i].v.pkts;
			CHECK_EQ(s.flows[i].v.bytes, 70000ULL * 65532 + 71100ULL * FRAME_LEN);
		}
	CHECK_EQ(pkts, 141100);
	/* the frame of the first, the rate of the third */
	CHECK(find_agent(&s, "192.0.2.1") && find_agent(&s, "192.0.2.1")->bad_samples == 2,
	      "two lies counted");
	rt_snapshot_free(&s);
	rt_sflow_free(sf);

	/* A consistent lie (rate = pool = 2^32-1, 64 KiB frames) 70,000 times:
	 * 2^48 bytes each would wrap 64 bits; the sums stop at 2^64-1 instead. */
	sf = collector(16384, 0, NULL);
	rt_snapshot_init(&s);
	for (__u32 i = 0; i < 70000; i++) {
		dgram_sample(&b, "192.0.2.1", 1 + i, 0xffffffffu, 0xffffffffu, 65536);
		send_at(sf, &b, "192.0.2.1", 1);
	}
	CHECK_EQ(rt_sflow_collect(sf, &s), 0);
	p = find_port(&s, "192.0.2.1", 5, RT_DIR_EGRESS);
	CHECK(p && p->c.est_bytes == ~0ULL, "est_bytes saturates: %llu",
	      p ? (unsigned long long)p->c.est_bytes : 0ULL);
	CHECK(p && p->c.est_pkts == 70000ULL * 0xffffffffu, "est_pkts %llu",
	      p ? (unsigned long long)p->c.est_pkts : 0ULL);
	for (size_t i = 0; i < s.nflows; i++)
		CHECK(s.flows[i].v.bytes == ~0ULL, "flow bytes saturate: %llu", (unsigned long long)s.flows[i].v.bytes);
	CHECK(find_agent(&s, "192.0.2.1") && find_agent(&s, "192.0.2.1")->bad_samples == 0,
	      "a consistent lie is not seen");
	rt_snapshot_free(&s);
	rt_sflow_free(sf);
	TEST_END("sflow_sample_bounds");
}

/* For tests/sflow/test_sflow_tshark.sh: the datagrams as UDP to port 6343 in
 * a pcap, and what the decoder read of them. */
static int write_pcap(const char *pcap, const char *dump)
{
	FILE *fp = fopen(pcap, "wb"), *dp = fopen(dump, "w");
	struct got g = { 0 };
	struct rt_sf_dgram d;
	struct b b;

	if (!fp || !dp)
		return 1;
	static const __u32 gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	fwrite(gh, 4, 6, fp);	/* little-endian host: the usual pcap header */
	g.dump = dp;
	for_tshark = 1;
	for (int k = 0; k < 2; k++) {
		__u8 pkt[4200];
		__u32 rec[4];
		size_t n;

		if (k)
			dgram_b(&b, 5);
		else
			dgram_a(&b, 1000);
		memset(pkt, 0, 42);
		pkt[12] = 0x08;
		pkt[14] = 0x45;
		pkt[16] = (__u8)((20 + 8 + b.n) >> 8), pkt[17] = (__u8)(20 + 8 + b.n);
		pkt[22] = 64, pkt[23] = 17;
		pkt[26] = 192, pkt[27] = 0, pkt[28] = 2, pkt[29] = 1;
		pkt[30] = 127, pkt[33] = 1;
		pkt[34] = 0x18, pkt[35] = 0xc7;		/* 6343 */
		pkt[36] = 0x18, pkt[37] = 0xc7;
		pkt[38] = (__u8)((8 + b.n) >> 8), pkt[39] = (__u8)(8 + b.n);
		memcpy(pkt + 42, b.d, b.n);
		n = 42 + b.n;
		rec[0] = (__u32)k + 1, rec[1] = 0, rec[2] = rec[3] = (__u32)n;
		fwrite(rec, 4, 4, fp);
		fwrite(pkt, 1, n, fp);
		if (decode(b.d, b.n, &d, &g) != RT_SF_OK)
			return 1;
		{
			char a[RT_ADDR_STRLEN];

			fprintf(dp, "datagram agent=%s seq=%u samples=%u\n",
				rt_fmt_addr(d.agent_family, d.agent, a, sizeof(a)), d.seq, d.nsamples);
		}
	}
	fclose(fp);
	fclose(dp);
	return 0;
}

/* For make fuzz: the datagrams as seed files. */
static int write_seeds(const char *dir)
{
	char path[4200];
	struct b b;

	for (int k = 0; k < 4; k++) {
		FILE *fp;

		snprintf(path, sizeof(path), "%s/dgram%d", dir, k);
		fp = fopen(path, "wb");
		if (!fp)
			return 1;
		if (k == 3)	/* the bounds' lies */
			dgram_sample(&b, "192.0.2.1", 7, 0xffffffffu, 70000, 0xffffffffu);
		else if (k == 2)	/* a header alone */
			dgram_hdr(&b, "192.0.2.3", 2415919104u, 3000000000u);
		else if (k)
			dgram_b(&b, 1);
		else
			dgram_a(&b, 1);
		fwrite(b.d, 1, b.n, fp);
		fclose(fp);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return write_seeds(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "--pcap") && !strcmp(argv[3], "--dump"))
		return write_pcap(argv[2], argv[4]);
	test_fields();
	test_bad();
	test_collector();
	test_collector_many();
	test_timeout();
	test_timeout_stream();
	test_rejected();
	test_loss();
	test_bounds();
	return TEST_EXIT();
}
