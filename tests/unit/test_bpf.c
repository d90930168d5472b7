// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF programs themselves on the scapy corpus of tests/parser/packets.py,
 * through BPF_PROG_TEST_RUN (the pattern of the kernel's
 * selftests/bpf/prog_tests/xdp.c): every frame through the XDP program
 * (ingress, ingress_ifindex 1 = lo) and the tc program (egress, skb ifindex 1),
 * each must return pass and leave the frame byte-identical; then the flows and
 * ifstats maps, summed over the possible CPUs, must hold exactly the counts
 * worked out from scapy's fields. The flow table is read as the live source
 * reads it (user/sources/live_maps.c: mmapped regions, summed per key). Needs
 * root and BPF: SKIP otherwise.
 *
 * Then the same corpus through a second load with rt_collector set (rocetop
 * --collector): XDP drops exactly the mirror copies (the lines scapy built as
 * ERSPAN, GRE or VXLAN) and passes everything else, counts unchanged; the tc
 * program still passes everything.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include "check.h"
#include "flowval.h"
#include "live_maps.h"
#include "rocetop.skel.h"
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../../bpf/pause_map.h"
#include "../parser/corpus.h"
#pragma GCC diagnostic pop

#define LO_IFINDEX 1
/* BPF_PROG_TEST_RUN takes no frame shorter than an Ethernet header, and a tc
 * (skb) frame must fit in one page with head- and tailroom. */
#define MIN_FRAME 14
#define TC_MAX_FRAME 3000

static int ncpus;

/*
 * Which programs the tests run: the inlined ones (rt_xdp, rt_tc) or the split
 * ones (rt_xdp_split, rt_tc_split) that kernels refusing those load
 * (bpf/rocetop.bpf.c). Every test runs for each that is loaded, and a test's
 * name says which (" (split)").
 */
static int split;

static int xdp_fd(const struct rocetop_bpf *skel)
{
	return bpf_program__fd(split ? skel->progs.rt_xdp_split : skel->progs.rt_xdp);
}

static int tc_fd(const struct rocetop_bpf *skel)
{
	return bpf_program__fd(split ? skel->progs.rt_tc_split : skel->progs.rt_tc);
}

/* A test's name with the programs it ran (a few names at a time). */
static const char *tn(const char *name)
{
	static char buf[4][96];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s%s", name, split ? " (split)" : "");
	return b;
}

static int silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* Pin to one CPU: the last-seen attributes of a per-CPU flow come from it. */
static void pin_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			sched_setaffinity(0, sizeof(set), &set);
			return;
		}
}

/*
 * A test run of an XDP program. The context names lo as the receiving
 * interface; Linux before 5.15 takes no XDP context (EINVAL) and runs the
 * program as received on lo's first queue: the same frame, so from the first
 * refusal on, no context is given.
 */
static int xdp_test_run(int fd, struct bpf_test_run_opts *o)
{
	static int no_ctx;
	int err;

	if (no_ctx) {
		o->ctx_in = NULL;
		o->ctx_size_in = 0;
	}
	err = bpf_prog_test_run_opts(fd, o);
	if (err && errno == EINVAL && !no_ctx && o->ctx_in) {
		no_ctx = 1;
		o->ctx_in = NULL;
		o->ctx_size_in = 0;
		err = bpf_prog_test_run_opts(fd, o);
	}
	return err;
}

/* One run of the program on the frame, with the context of its hook (XDP:
 * xdp_test_run, which falls back without a context on old kernels). */
static int run_prog(int fd, const struct pcase *pc, __u8 *out, size_t outsz, __u32 *ret,
		    __u32 *out_len, void *ctx, size_t ctx_size, int xdp)
{
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = pc->data, .data_size_in = (__u32)pc->len,
		.data_out = out, .data_size_out = (__u32)outsz,
		.ctx_in = ctx, .ctx_size_in = (__u32)ctx_size, .repeat = 1);
	int err = xdp ? xdp_test_run(fd, &o) : bpf_prog_test_run_opts(fd, &o);

	*ret = o.retval;
	*out_len = o.data_size_out;
	return err ? -errno : 0;
}

static int run_xdp(int fd, const struct pcase *pc, __u8 *out, size_t outsz, __u32 *ret,
		   __u32 *out_len)
{
	struct xdp_md ctx = { .data_end = (__u32)pc->len, .ingress_ifindex = LO_IFINDEX };

	return run_prog(fd, pc, out, outsz, ret, out_len, &ctx, sizeof(ctx), 1);
}

static int run_tc(int fd, const struct pcase *pc, __u8 *out, size_t outsz, __u32 *ret,
		  __u32 *out_len)
{
	struct __sk_buff ctx = { .ifindex = LO_IFINDEX };

	return run_prog(fd, pc, out, outsz, ret, out_len, &ctx, sizeof(ctx), 0);
}

/* Sum a per-CPU rt_if_val. */
/* The loader's slot table, as the test sets it: lo in slot 0. */
static __u32 slot_of(__u32 ifindex)
{
	return ifindex == LO_IFINDEX ? 0 : RT_SLOT_OTHER;
}

static int read_slot(int fd, __u32 idx, struct rt_if_val *sum)
{
	struct rt_if_val *v = calloc((size_t)ncpus, sizeof(*v));

	memset(sum, 0, sizeof(*sum));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &idx, v)) {
		free(v);
		return -errno;
	}
	for (int c = 0; c < ncpus; c++)
		for (size_t j = 0; j < sizeof(*sum) / 8; j++)
			((__u64 *)sum)[j] += ((__u64 *)&v[c])[j];
	free(v);
	return 0;
}

static int read_if(int fd, __u32 ifindex, __u8 dir, struct rt_if_val *sum)
{
	return read_slot(fd, slot_of(ifindex) * 2 + dir, sum);
}

/* Frames counted in any slot other than lo's two. */
static __u64 frames_elsewhere(int fd)
{
	struct rt_if_val v;
	__u64 n = 0;

	for (__u32 i = 2; i < RT_IF_SLOTS * 2; i++)
		if (!read_slot(fd, i, &v))
			n += v.pkts;
	return n;
}

/* Distinct keys in the kernel flow table: live slots of each region not
 * already seen in an earlier one. */
static size_t count_flows(const struct rt_ftab *t)
{
	size_t n = 0;

	for (__u32 r = 0; r < t->nregions; r++)
		for (__u32 i = 0; i < t->rslots; i++) {
			const struct rt_flow_slot *sl = &t->slots[(size_t)r * t->rslots + i];
			__u32 q;

			if (sl->v.slot != RT_FT_LIVE)
				continue;
			for (q = 0; q < r && !rt_ftab_find(t, q, &sl->k, rt_ft_hash(&sl->k)); q++)
				;
			n += q == r;
		}
	return n;
}

static void compare_if(const char *what, const struct rt_if_val *got, const struct rt_if_val *exp)
{
	for (size_t j = 0; j < sizeof(*got) / 8; j++)
		CHECK(((const __u64 *)got)[j] == ((const __u64 *)exp)[j], "%s %s = %llu, expected %llu",
		      what, corpus_if_field(j), (unsigned long long)((const __u64 *)got)[j],
		      (unsigned long long)((const __u64 *)exp)[j]);
}

/* When the slots are taken and stamped (rt_ftab_stamp): every flow seen then. */
#define STAMP_NS 1234567890123ULL

static void compare_flows(struct rt_ftab *ft, const struct corpus_flows *exp, const char *what)
{
	struct rt_flow_val got;
	char gs[256], es[256];

	rt_ftab_stamp(ft, STAMP_NS);
	for (size_t i = 0; i < exp->n; i++) {
		const struct rt_flow_val *e = &exp->v[i];

		if (!rt_ftab_sum(ft, &exp->k[i], 0, &got)) {
			CHECK(0, "%s: flow dqpn 0x%x family %u not in the map", what, exp->k[i].dqpn,
			      exp->k[i].family);
			continue;
		}
		CHECK(got.first_ns == STAMP_NS && got.last_ns == STAMP_NS,
		      "%s: dqpn 0x%x first %llu last %llu",
		      what, exp->k[i].dqpn, (unsigned long long)got.first_ns,
		      (unsigned long long)got.last_ns);
		got.first_ns = got.last_ns = 0;
		CHECK(!memcmp(&got, e, sizeof(got)), "%s: flow dqpn 0x%x family %u:\n    got  %s\n    want %s",
		      what, exp->k[i].dqpn, exp->k[i].family, flow_val_str(&got, gs, sizeof(gs)),
		      flow_val_str(e, es, sizeof(es)));
	}
}

/* The kernel's skb test run refuses (EINVAL) an IPv4 or IPv6 frame too short
 * for its IP header; the XDP test run takes it. */
static int tc_takes(const struct pcase *pc)
{
	__u16 proto;

	if (pc->len < MIN_FRAME || pc->len > TC_MAX_FRAME)
		return 0;
	proto = rt_be16(pc->data + 12);
	if (proto == ETH_P_IP_)
		return pc->len >= 14 + 20;
	if (proto == ETH_P_IPV6_)
		return pc->len >= 14 + 40;
	return 1;
}

/* XDP takes the jumbo frames (and their mirror copies, 7 frames) only where
 * the kernel has XDP fragments (5.18): before, no frame is longer than a
 * page there, and the test run refuses them (EMSGSIZE). */
static int xdp_jumbo;

static int xdp_takes(const struct pcase *pc)
{
	return pc->len >= MIN_FRAME && (xdp_jumbo || pc->len <= TC_MAX_FRAME);
}

typedef int (*runner)(int, const struct pcase *, __u8 *, size_t, __u32 *, __u32 *);

/* Every frame through one program: return value and bytes out. want_mirror is
 * what a mirror copy must return (want_ret too, unless --collector's XDP). */
static size_t run_corpus(const char *name, runner run, int fd, __u32 want_ret, __u32 want_mirror,
			 int (*takes)(const struct pcase *),
			 const struct corpus *co, struct rt_if_val *exp_if,
			 struct corpus_flows *exp_fl, __u8 dir)
{
	static __u8 out[16384];
	size_t fed = 0;

	FOR_EACH_CASE(pc, co) {
		__u32 ret = 0, olen = 0;
		int err;

		if (!takes(pc))
			continue;
		memset(out, 0xa5, pc->len + 64);
		err = run(fd, pc, out, sizeof(out), &ret, &olen);
		CHECK(err == 0, "%s: test run failed: %s", pc->name, strerror(-err));
		if (err)
			continue;
		fed++;
		CHECK(ret == (pc->e.mirror ? want_mirror : want_ret), "%s: returned %d, expected %d",
		      pc->name, (int)ret, (int)(pc->e.mirror ? want_mirror : want_ret));
		CHECK(olen == pc->len && !memcmp(out, pc->data, pc->len),
		      "%s: frame changed (%u bytes out of %zu)", pc->name, olen, pc->len);
		CHECK(!corpus_expect_if(exp_if, pc, pc->len), "%s: bad line", pc->name);
		CHECK(!corpus_expect_flow(exp_fl, pc, pc->len, LO_IFINDEX, dir), "%s: bad line",
		      pc->name);
	}
	TEST_END(tn(name));
	return fed;
}

/*
 * A jumbo frame whose linear part ends inside the UDP header (ctx data_end <
 * data_size_in: kernels that can set the linear size of a test frame). The
 * parser must see the frame length (bpf_xdp_get_buff_len) and say truncated,
 * since it reads headers from the linear part only.
 */
static void test_xdp_split(int fd, int ifs_fd, const struct corpus *co)
{
	const struct pcase *pc = NULL;
	struct rt_if_val before, after;
	static __u8 out[16384];

	for (size_t i = 0; i < co->n; i++)
		if (!strcmp(co->c[i].name, "write_v4_jumbo"))
			pc = &co->c[i];
	if (!pc) {
		CHECK(0, "write_v4_jumbo not in the corpus");
		TEST_END(tn("bpf_xdp_frags_split_headers"));
		return;
	}
	struct xdp_md ctx = { .data_end = 40, .ingress_ifindex = LO_IFINDEX };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = pc->data, .data_size_in = (__u32)pc->len,
		.data_out = out, .data_size_out = sizeof(out),
		.ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	read_if(ifs_fd, LO_IFINDEX, RT_DIR_INGRESS, &before);
	if (bpf_prog_test_run_opts(fd, &o)) {
		printf("SKIP bpf_xdp_frags_split_headers: this kernel cannot set the linear size "
		       "of a test frame (%s)\n", strerror(errno));
		return;
	}
	read_if(ifs_fd, LO_IFINDEX, RT_DIR_INGRESS, &after);
	CHECK_EQ(o.retval, XDP_PASS);
	CHECK(o.data_size_out == pc->len && !memcmp(out, pc->data, pc->len), "frame changed");
	CHECK_EQ(after.pkts - before.pkts, 1);
	CHECK_EQ(after.bytes - before.bytes, pc->len);
	CHECK_EQ(after.truncated - before.truncated, 1);
	CHECK_EQ(after.roce - before.roce, 0);
	TEST_END(tn("bpf_xdp_frags_split_headers"));
}

/*
 * Which interface a frame counts for: on one interface the program takes the
 * ifindex and slot the loader set (rt_one_if_set, as the live source does for one
 * -i), on several (0) the frame's own. A PFC frame (no flow) is run on lo
 * (the context's ifindex 1, slot 0); ifindex 7 is given ifstats slot 1 here
 * and set as the one interface: its frames count there, whatever the context;
 * both programs.
 */
static void test_xdp_ifindex(struct rocetop_bpf *skel, int ifs_fd, const struct corpus *co)
{
	const struct pcase *pc = NULL;
	struct rt_if_val lo0, lo1, o0, o1;
	int fd = xdp_fd(skel);

	for (size_t i = 0; i < co->n && !pc; i++)
		if (co->c[i].len >= 60 && co->c[i].len <= 1500 && co->c[i].data[12] == 0x88 &&
		    co->c[i].data[13] == 0x08)
			pc = &co->c[i];
	CHECK(pc != NULL, "no MAC control frame in the corpus");
	CHECK(!rt_ifslot_set(skel, 0, 7, 1), "ifindex 7 into slot 1");
	for (int one = 0; one < 2 && pc; one++) {
		struct xdp_md ctx = { .data_end = (__u32)pc->len, .ingress_ifindex = LO_IFINDEX };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pc->data, .data_size_in = (__u32)pc->len,
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 5);

		/* one interface (7): the loader's ifindex; several: the frame's (lo) */
		rt_one_if_set(skel, one ? 7 : 0, one ? 1 : 0);
		read_slot(ifs_fd, 0 * 2 + RT_DIR_INGRESS, &lo0);
		read_slot(ifs_fd, 1 * 2 + RT_DIR_INGRESS, &o0);
		CHECK(!xdp_test_run(fd, &o), "test run");
		read_slot(ifs_fd, 0 * 2 + RT_DIR_INGRESS, &lo1);
		read_slot(ifs_fd, 1 * 2 + RT_DIR_INGRESS, &o1);
		CHECK(lo1.pkts - lo0.pkts == (one ? 0U : 5U), "%s: lo counted %llu of 5",
		      one ? "one interface" : "several", (unsigned long long)(lo1.pkts - lo0.pkts));
		CHECK(o1.pkts - o0.pkts == (one ? 5U : 0U), "%s: ifindex 7 counted %llu of 5",
		      one ? "one interface" : "several", (unsigned long long)(o1.pkts - o0.pkts));

		/* the same for the tc program (egress; the skb says lo) */
		{
			__u8 out[1600];
			__u32 ret = 0, olen = 0;

			read_slot(ifs_fd, 0 * 2 + RT_DIR_EGRESS, &lo0);
			read_slot(ifs_fd, 1 * 2 + RT_DIR_EGRESS, &o0);
			CHECK(!run_tc(tc_fd(skel), pc, out, sizeof(out), &ret,
				      &olen), "tc test run");
			read_slot(ifs_fd, 0 * 2 + RT_DIR_EGRESS, &lo1);
			read_slot(ifs_fd, 1 * 2 + RT_DIR_EGRESS, &o1);
			CHECK(lo1.pkts - lo0.pkts == (one ? 0U : 1U), "tc, %s: lo counted %llu of 1",
			      one ? "one interface" : "several",
			      (unsigned long long)(lo1.pkts - lo0.pkts));
			CHECK(o1.pkts - o0.pkts == (one ? 1U : 0U), "tc, %s: ifindex 7 counted %llu of 1",
			      one ? "one interface" : "several",
			      (unsigned long long)(o1.pkts - o0.pkts));
		}
	}
	rt_one_if_set(skel, LO_IFINDEX, 0);
	rt_ifslot_set(skel, 7, 0, 0);	/* 7 forgotten (ifindex 0: nothing) */
	TEST_END(tn("bpf_ifindex_one_or_several"));
}

/* --collector: the same corpus, mirror copies dropped by XDP, counts the same. */
static void test_collector(const struct corpus *co)
{
	static struct corpus_flows fl_in, fl_out;
	struct rt_if_val exp_in = { 0 }, exp_out = { 0 }, got;
	struct rt_ftab ft;
	struct rocetop_bpf *skel = rt_skel_load_test(1, LO_IFINDEX, &ft);
	size_t nmirror = 0;

	if (!skel) {
		CHECK(0, "cannot load rocetop.bpf.o with rt_collector: %s", strerror(errno));
		return;
	}
	memset(&fl_in, 0, sizeof(fl_in));
	memset(&fl_out, 0, sizeof(fl_out));
	run_corpus("bpf_collector_xdp_drops_mirror_only", run_xdp,
		   xdp_fd(skel), XDP_PASS, XDP_DROP, xdp_takes, co, &exp_in,
		   &fl_in, RT_DIR_INGRESS);
	run_corpus("bpf_collector_tc_passes", run_tc, tc_fd(skel),
		   (__u32)TC_ACT_UNSPEC, (__u32)TC_ACT_UNSPEC, tc_takes, co, &exp_out, &fl_out,
		   RT_DIR_EGRESS);
	for (size_t i = 0; i < co->n; i++)
		nmirror += co->c[i].e.mirror != 0 && xdp_takes(&co->c[i]);
	CHECK(!read_if(bpf_map__fd(skel->maps.ifstats), LO_IFINDEX, RT_DIR_INGRESS, &got),
	      "no ifstats for lo/ingress");
	compare_if("collector ingress", &got, &exp_in);
	CHECK_EQ(got.mirrored, nmirror);
	CHECK_EQ(got.mirrored, 6 * 56 + 3 + 2 * 62 + 34 - (xdp_jumbo ? 0 : 6));
	compare_flows(&ft, &fl_in, "collector ingress");
	TEST_END(tn("bpf_collector_counts"));
	rt_ftab_unmap(&ft);
	rocetop_bpf__destroy(skel);
}

/* The whole corpus through one kind of programs (split), on a fresh load.
 * Returns 0 when that kind is not loaded here. */
/* A PFC frame of 60 bytes: class-enable vector cev, the eight pause times q. */
static void pfc_frame(__u8 f[60], __u8 cev, const __u16 q[8])
{
	static const __u8 head[16] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0x01,
				       0x88, 0x08, 0x01, 0x01 };

	memset(f, 0, 60);
	memcpy(f, head, sizeof(head));
	f[17] = cev;
	for (int i = 0; i < 8; i++) {
		f[18 + 2 * i] = (__u8)(q[i] >> 8);
		f[19 + 2 * i] = (__u8)q[i];
	}
}

/* One frame through a program of lo's; its pause map entry read after it. */
static int pause_run(int fd, int xdp, const __u8 f[60], int pm_fd, __u32 idx, struct rt_pause_val *v)
{
	struct pcase pc = { .data = (__u8 *)f, .len = 60 };
	__u8 out[128];
	__u32 ret = 0, olen = 0;
	int err = xdp ? run_xdp(fd, &pc, out, sizeof(out), &ret, &olen) :
			run_tc(fd, &pc, out, sizeof(out), &ret, &olen);

	return err ? err : bpf_map_lookup_elem_flags(pm_fd, &idx, v, BPF_F_LOCK) ? -errno : 0;
}

/*
 * Paused time in the programs (bpf/pause.h in the pause map), on lo's entry
 * of each direction with a link speed of 10G written as the loader does:
 * an XOFF of 0xffff quanta on priority 3 and 100 on priority 5 in one frame
 * starts both pauses at the one time the program stamped, 3,355,392 ns and
 * 5,120 ns long; an XON on 3 alone ends it, its paused time the time between
 * the two frames (capped at the pause), 5 untouched; ifstats' own copy of
 * the paused time stays 0 (user space fills it).
 */
static void test_pause_map(struct rocetop_bpf *skel, int ifs_fd)
{
	int pm_fd = bpf_map__fd(skel->maps.pausestate);
	__u16 q[8] = { 0 };
	__u8 f[60];

	for (int dir = 0; dir < 2; dir++) {
		struct rt_pause_val z = { .mbps = 10000 }, a, b;
		__u32 idx = 0 * 2 + (__u32)dir;
		int fd = dir == RT_DIR_INGRESS ? xdp_fd(skel) : tc_fd(skel);
		struct rt_if_val iv;
		__u64 gap;

		CHECK(!bpf_map_update_elem(pm_fd, &idx, &z, BPF_ANY), "speed into the pause map");
		q[3] = 0xffff;
		q[5] = 100;
		pfc_frame(f, (1 << 3) | (1 << 5), q);
		CHECK(!pause_run(fd, dir == RT_DIR_INGRESS, f, pm_fd, idx, &a), "XOFF run");
		CHECK(a.prio[3].from > 0 && a.prio[5].from == a.prio[3].from, "one time for the frame");
		CHECK_EQ(a.prio[3].until - a.prio[3].from, 3355392);
		CHECK_EQ(a.prio[5].until - a.prio[5].from, 5120);
		CHECK_EQ(a.prio[3].paused + a.prio[5].paused + a.prio[0].until, 0);
		q[3] = 0;
		pfc_frame(f, 1 << 3, q);
		CHECK(!pause_run(fd, dir == RT_DIR_INGRESS, f, pm_fd, idx, &b), "XON run");
		gap = b.prio[3].from - a.prio[3].from;
		CHECK(b.prio[3].from >= a.prio[3].from, "the XON after the XOFF");
		CHECK_EQ(b.prio[3].until, b.prio[3].from);
		CHECK_EQ(b.prio[3].paused, gap < 3355392 ? gap : 3355392);
		CHECK(!memcmp(&b.prio[5], &a.prio[5], sizeof(a.prio[5])), "priority 5 untouched");
		CHECK_EQ(b.mbps, 10000);
		CHECK(!read_slot(ifs_fd, idx, &iv), "ifstats");
		for (int p = 0; p < RT_NPRIO; p++)
			CHECK_EQ(iv.pfc_paused_ns[p], 0);
	}
	TEST_END(tn("bpf_pause_map_union"));
}

static int run_programs(const struct corpus *co_)
{
	static struct corpus_flows fl_in, fl_out;
	struct rt_if_val exp_in = { 0 }, exp_out = { 0 }, got;
	const struct corpus co = *co_;
	struct rocetop_bpf *skel;
	struct rt_ftab ft;
	size_t fed_xdp, fed_tc, nflows;
	int ifs_fd, jumbo = 0;

	memset(&fl_in, 0, sizeof(fl_in));
	memset(&fl_out, 0, sizeof(fl_out));
	/* As the loader does: the watched interface's ifindex in its slot. */
	skel = rt_skel_load_test(0, LO_IFINDEX, &ft);
	if (!skel) {
		CHECK(0, "cannot load rocetop.bpf.o: %s", strerror(errno));
		TEST_END(tn("bpf_load"));
		return 1;
	}
	if (xdp_fd(skel) < 0 || tc_fd(skel) < 0) {
		rt_ftab_unmap(&ft);
		rocetop_bpf__destroy(skel);
		return 0;
	}
	ifs_fd = bpf_map__fd(skel->maps.ifstats);
	for (size_t i = 0; i < co.n; i++)
		jumbo += co.c[i].len > TC_MAX_FRAME;

	fed_xdp = run_corpus("bpf_xdp_pass_unchanged", run_xdp, xdp_fd(skel),
			     XDP_PASS, XDP_PASS, xdp_takes, &co, &exp_in, &fl_in, RT_DIR_INGRESS);
	fed_tc = run_corpus("bpf_tc_pass_unchanged", run_tc, tc_fd(skel),
			    (__u32)TC_ACT_UNSPEC, (__u32)TC_ACT_UNSPEC, tc_takes, &co, &exp_out,
			    &fl_out, RT_DIR_EGRESS);
	/* 14 of the cut ACK and 14 of the cut PFC frames are shorter than 14 bytes */
	CHECK_EQ(fed_xdp, co.n - 28 - (xdp_jumbo ? 0 : (size_t)jumbo));
	/* ... and 20 more of the ACK's cuts end inside its IPv4 header */
	CHECK_EQ(fed_tc, co.n - 28 - 20 - (size_t)jumbo);
	CHECK(jumbo == 7, "%d frames above %d bytes, expected the jumbo frame and its 6 mirror "
	      "copies", jumbo, TC_MAX_FRAME);

	CHECK(!read_if(ifs_fd, LO_IFINDEX, RT_DIR_INGRESS, &got), "no ifstats for lo/ingress");
	compare_if("ingress", &got, &exp_in);
	/* numbers worked out by hand from packets.py, beside the tally above: each
	 * well-formed direct frame is also there in 6 mirror copies, and 3 nested,
	 * 2 x 62 cut ACKs and 34 cut PFC frames arrive as mirror copies; the
	 * jumbo frame and its 6 copies only with XDP fragments */
	CHECK_EQ(got.roce, 7 * 34 - (xdp_jumbo ? 0 : 7));
	CHECK_EQ(got.truncated, (62 - 14) + (34 - 14) + 3 + 2 * 62 + 34);
	CHECK_EQ(got.malformed, 7 * 6);
	CHECK_EQ(got.mac_ctrl, 7 * 6);
	CHECK_EQ(got.v6_unparsed, 7 * 2);
	CHECK_EQ(got.pfc_frames[3], 7 * 3);
	CHECK_EQ(got.pfc_xon[3], 7 * 1);
	CHECK_EQ(got.pfc_quanta[3], 7 * (0xffff + 3));
	CHECK_EQ(got.pfc_frames[RT_PRIO_GLOBAL], 7 * 2);
	CHECK_EQ(got.pfc_quanta[RT_PRIO_GLOBAL], 7 * 0x1234);
	CHECK_EQ(got.mirrored, 6 * 56 + 3 + 2 * 62 + 34 - (xdp_jumbo ? 0 : 6));
	CHECK_EQ(got.flow_full, 0);
	CHECK(!read_if(ifs_fd, LO_IFINDEX, RT_DIR_EGRESS, &got), "no ifstats for lo/egress");
	compare_if("egress", &got, &exp_out);
	CHECK_EQ(got.roce, 7 * 33);
	CHECK_EQ(frames_elsewhere(ifs_fd), 0);
	TEST_END(tn("bpf_ifstats"));

	nflows = count_flows(&ft);
	CHECK_EQ(nflows, fl_in.n + fl_out.n);
	/* the jumbo frame's flow, direct and in its 6 mirror sessions, is ingress only */
	CHECK_EQ(fl_in.n, fl_out.n + (xdp_jumbo ? 7 : 0));
	compare_flows(&ft, &fl_in, "ingress");
	compare_flows(&ft, &fl_out, "egress");
	TEST_END(tn("bpf_flows"));

	if (xdp_jumbo)		/* else no frame is longer than its buffer */
		test_xdp_split(xdp_fd(skel), ifs_fd, &co);
	test_xdp_ifindex(skel, ifs_fd, &co);
	test_pause_map(skel, ifs_fd);
	rt_ftab_unmap(&ft);
	rocetop_bpf__destroy(skel);

	test_collector(&co);
	return 1;
}

int main(void)
{
	struct corpus co;
	char why[160];
	int ran = 0;

	if (geteuid() != 0) {
		printf("SKIP bpf_programs: needs root for BPF_PROG_TEST_RUN\n");
		return 0;
	}
	if (corpus_load(&co, why, sizeof(why))) {
		printf("SKIP bpf_programs: %s\n", why);
		return 0;
	}
	libbpf_set_print(silent);
	ncpus = libbpf_num_possible_cpus();
	xdp_jumbo = rt_kernel_xdp_frags();
	pin_cpu();
	for (split = 0; split < 2; split++)
		ran += run_programs(&co);
	/* both kinds, unless this kernel (or ROCETOP_BPF_SPLIT) takes the split
	 * ones alone: rt_skel_load_test says when */
	CHECK(ran == (rt_kernel_inlined(xdp_jumbo) && !getenv("ROCETOP_BPF_SPLIT") ? 2 : 1),
	      "%d kinds of programs ran", ran);
	TEST_END("bpf_programs_ran");
	corpus_free(&co);
	return TEST_EXIT();
}
