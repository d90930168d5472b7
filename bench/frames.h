/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The frames the BPF cost benchmarks measure (bench/xdp_bench.c, the XDP
 * program; bench/tc_bench.c, the tcx program beside it) and
 * tests/unit/test_bench_frames.c counts exactly: one builder each, byte by
 * byte, so every bench and the test see the same bytes. Also the small
 * helpers of a BPF_PROG_TEST_RUN bench: median, pinning to one CPU.
 * Needs parse.h (the RT_K_* kinds) included before it.
 */
#ifndef ROCETOP_BENCH_FRAMES_H
#define ROCETOP_BENCH_FRAMES_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "median.h"

struct frame {
	const char *name;
	int kind;		/* what the parser must make of it */
	__u8 b[256];
	__u32 len;
};

static inline void put16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static inline void put24(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 16);
	p[1] = (__u8)(v >> 8);
	p[2] = (__u8)v;
}

static inline __u32 eth(__u8 *p, const __u8 dst[6], unsigned int type)
{
	static const __u8 src[6] = { 2, 0, 0, 0, 0, 1 };

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	put16(p + 12, type);
	return 14;
}

/* An IPv4 header at p, 10.0.0.1 -> 10.0.0.DST, TTL 64, no checksum: its length. */
static inline __u32 ipv4(__u8 *p, __u8 tos, __u32 len, int df, __u8 proto, __u8 dst)
{
	p[0] = 0x45;
	p[1] = tos;
	put16(p + 2, len);
	if (df)
		p[6] = 0x40;
	p[8] = 64;
	p[9] = proto;
	p[12] = 10, p[15] = 1;
	p[16] = 10, p[19] = dst;
	return 20;
}

/* Ethernet / IPv4 (tos) / UDP 4791 / BTH (opcode, dqpn) / payload / ICRC. */
static inline void roce(struct frame *f, const char *name, __u8 tos, __u8 opcode, __u32 dqpn,
		 __u32 payload)
{
	static const __u8 dst[6] = { 2, 0, 0, 0, 0, 2 };
	__u8 *p = f->b;
	__u32 o, ulen = 8 + 12 + payload + 4;

	memset(f->b, 0, sizeof(f->b));
	o = eth(p, dst, 0x0800);
	f->name = name;
	f->kind = RT_K_ROCE;
	o += ipv4(p + o, tos, 20 + ulen, 1, 17, 2);	/* DF, UDP */
	put16(p + o, 49152);
	put16(p + o + 2, 4791);
	put16(p + o + 4, ulen);
	o += 8;
	p[o] = opcode;
	put16(p + o + 2, 0xffff);
	if (opcode == 0x81)
		p[o + 4] = 0x40;	/* BECN */
	put24(p + o + 5, dqpn);
	put24(p + o + 9, 0x000100);
	o += 12 + payload + 4;
	f->len = o;
}

static inline void pfc(struct frame *f)
{
	static const __u8 dst[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };
	__u8 *p = f->b;
	__u32 o;

	memset(f->b, 0, sizeof(f->b));
	f->name = "PFC (prio 3 pause, 4 XON)";
	f->kind = RT_K_PFC;
	o = eth(p, dst, 0x8808);
	put16(p + o, 0x0101);
	put16(p + o + 2, 0x0018);
	put16(p + o + 4 + 2 * 3, 0xffff);
	f->len = 60;
}

static inline void tcp(struct frame *f)
{
	static const __u8 dst[6] = { 2, 0, 0, 0, 0, 2 };
	__u8 *p = f->b;
	__u32 o;

	memset(f->b, 0, sizeof(f->b));
	o = eth(p, dst, 0x0800);
	f->name = "TCP (not RoCE)";
	f->kind = RT_K_OTHER;
	o += ipv4(p + o, 0, 20 + 20 + 64, 0, 6, 3);	/* TCP */
	put16(p + o, 40000);
	put16(p + o + 2, 22);
	p[o + 12] = 0x50;
	f->len = o + 20 + 64;
}

/*
 * f as a switch's mirror copy of the frame in: Ethernet / IPv4 172.16.0.1 ->
 * 172.16.0.2 / GRE (sequence number) / ERSPAN III (session 300, egress) when
 * vxlan is 0, else UDP 4789 / VXLAN (VNI 4660).
 */
static inline void wrap(struct frame *f, const char *name, const struct frame *in, int vxlan)
{
	static const __u8 dst[6] = { 2, 0, 0, 0, 0, 3 };
	__u8 *p = f->b;
	__u32 o, hl = vxlan ? 16 : 20;

	memset(f->b, 0, sizeof(f->b));
	f->name = name;
	f->kind = in->kind;
	o = eth(p, dst, 0x0800);
	p[o] = 0x45;
	put16(p + o + 2, 20 + hl + in->len);
	p[o + 8] = 64;
	p[o + 9] = vxlan ? 17 : 47;
	p[o + 12] = 172, p[o + 13] = 16, p[o + 15] = 1;
	p[o + 16] = 172, p[o + 17] = 16, p[o + 19] = 2;
	o += 20;
	if (vxlan) {
		put16(p + o, 50000);
		put16(p + o + 2, 4789);
		put16(p + o + 4, 16 + in->len);
		p[o + 8] = 0x08;		/* I */
		put24(p + o + 12, 4660);
	} else {
		put16(p + o, 0x1000);		/* S */
		put16(p + o + 2, 0x22eb);
		put16(p + o + 8, 0x2000);	/* ERSPAN version 2 (type III) */
		put16(p + o + 10, 300);		/* session */
		p[o + 19] = 0x08;		/* D: egress */
	}
	o += hl;
	memcpy(p + o, in->b, in->len);
	f->len = o + in->len;
}

/* libbpf's print callback that says nothing (the benches report their own errors). */
static inline int silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* Mean ns per repetition of one XDP test run of f on ifindex 1, or -errno
 * (-EPROTO when the program did not pass the frame). */
static inline long run_xdp(int fd, const struct frame *f, __u32 repeat)
{
	struct xdp_md ctx = { .data_end = f->len, .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = f->b, .data_size_in = f->len,
		.ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if (o.retval != XDP_PASS)
		return -EPROTO;
	return (long)o.duration;
}

/* median(v, n) of longs; sorts v. */
BENCH_MEDIAN(long)

/* The quartiles of v[0..n) (sorts v): the median and the interquartile
 * range, q3 - q1, each the value at its rank (rounded down). */
static inline long quartiles(long *v, int n, long *iqr)
{
	long m = median(v, n);	/* v sorted now */

	*iqr = v[(3 * (n - 1)) / 4] - v[(n - 1) / 4];
	return m;
}

static inline void pin_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set)) {
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			sched_setaffinity(0, sizeof(set), &set);
			return;
		}
}

/* The frames, in the order the benches print them. */
#define NFRAMES 7

static inline void bench_frames(struct frame fr[NFRAMES])
{
	roce(&fr[0], "RoCE RDMA WRITE, ECT(0)", 0x6a, 0x0a, 0x000123, 64);
	roce(&fr[1], "RoCE RDMA WRITE, CE", 0x6b, 0x0a, 0x000123, 64);
	roce(&fr[2], "CNP", 0xc0, 0x81, 0x000456, 16);
	pfc(&fr[3]);
	tcp(&fr[4]);
	wrap(&fr[5], "ERSPAN III + RDMA WRITE", &fr[0], 0);
	wrap(&fr[6], "VXLAN + RDMA WRITE", &fr[0], 1);
}

#ifdef ROCETOP_PARSE_H
/* Each frame parses as the kind it was built for (bpf/parse.h's rt_parse),
 * or a bench on it measures nothing: 0, or -1 after saying which (WHO: the
 * program's name). */
static inline int bench_frames_check(const char *who, const struct frame fr[NFRAMES])
{
	for (int p = 0; p < NFRAMES; p++) {
		struct rt_pkt pk = { 0 };

		if (rt_parse(fr[p].b, fr[p].b + fr[p].len, fr[p].len, &pk) != fr[p].kind) {
			fprintf(stderr, "%s: the %s frame parses as kind %d, not %d\n", who,
				fr[p].name, pk.kind, fr[p].kind);
			return -1;
		}
	}
	return 0;
}
#endif

#endif
