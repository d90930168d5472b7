// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The frames `make bench` times (bench/frames.h: RoCE WRITE ECT(0) and CE, a
 * CNP, PFC, TCP, and the WRITE inside ERSPAN III and VXLAN) through both BPF
 * programs, the way the benches run them: BPF_PROG_TEST_RUN with a repeat
 * count, XDP with an xdp_md context (ingress), tc with an __sk_buff context
 * (the skb a tcx egress program sees). Each run must return pass and leave the
 * frame as it was; then ifstats and every flow, per direction, must hold
 * exactly what the frames make, worked out by hand below from the bytes the
 * builders write (lengths, ECN bits, opcodes, mirror sessions), times the
 * repeat count. So a cheaper program that the benches would time is also one
 * that counts what it must. Needs root and BPF: SKIP otherwise.
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
#include "parse.h"
#pragma GCC diagnostic pop
#include "../../bench/frames.h"

#define LO_IFINDEX 1
#define REPEAT 1000

static int ncpus;

/* One test run of f, repeated REPEAT times; the return value in *ret. */
static int run(int fd, int tc, const struct frame *f, __u32 *ret)
{
	static __u8 out[512];
	struct xdp_md x = { .data_end = f->len, .ingress_ifindex = LO_IFINDEX };
	struct __sk_buff s = { .ifindex = LO_IFINDEX };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = f->b, .data_size_in = f->len,
		.data_out = out, .data_size_out = sizeof(out),
		.ctx_in = tc ? (void *)&s : (void *)&x,
		.ctx_size_in = tc ? sizeof(s) : sizeof(x), .repeat = REPEAT);

	memset(out, 0xa5, sizeof(out));
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	*ret = o.retval;
	CHECK(o.data_size_out == f->len && !memcmp(out, f->b, f->len),
	      "%s (%s): frame changed (%u bytes out of %u)", f->name, tc ? "tc" : "xdp",
	      o.data_size_out, f->len);
	return 0;
}

static void check_if(int fd, __u8 dir, const struct rt_if_val *exp, const char *what)
{
	struct rt_if_val *v = calloc((size_t)ncpus, sizeof(*v)), sum;
	__u32 idx = 0 * 2 + dir;	/* lo is in slot 0 */

	memset(&sum, 0, sizeof(sum));
	if (!v || bpf_map_lookup_elem(fd, &idx, v)) {
		CHECK(0, "%s: no ifstats row", what);
		free(v);
		return;
	}
	for (int c = 0; c < ncpus; c++)
		for (size_t j = 0; j < sizeof(sum) / 8; j++)
			((__u64 *)&sum)[j] += ((__u64 *)&v[c])[j];
	free(v);
	for (size_t j = 0; j < sizeof(sum) / 8; j++)
		CHECK(((__u64 *)&sum)[j] == ((const __u64 *)exp)[j],
		      "%s: ifstats word %zu = %llu, expected %llu", what, j,
		      (unsigned long long)((__u64 *)&sum)[j],
		      (unsigned long long)((const __u64 *)exp)[j]);
}

/* The flow of dqpn in mirror (session id) on lo in direction dir. */
static void check_flow(const struct rt_ftab *ft, __u8 dir, __u32 dqpn, __u8 mirror, __u32 mirror_id,
		       const struct rt_flow_val *exp, const char *what)
{
	struct rt_flow_key k;
	struct rt_flow_val sum;
	char gs[256], es[256];

	memset(&k, 0, sizeof(k));
	k.ifindex = LO_IFINDEX;
	k.dir = dir;
	k.family = 4;
	k.mirror = mirror;
	k.mirror_id = mirror_id;
	k.src[0] = 10, k.src[3] = 1;	/* 10.0.0.1 -> 10.0.0.2 */
	k.dst[0] = 10, k.dst[3] = 2;
	k.dqpn = dqpn;
	/* summed over the table's regions, as the live source reads it */
	if (!rt_ftab_sum(ft, &k, 0, &sum)) {
		CHECK(0, "%s: flow not in the map", what);
		return;
	}
	CHECK(!memcmp(&sum, exp, offsetof(struct rt_flow_val, first_ns)), "%s:\n    got  %s\n    want %s", what,
	      flow_val_str(&sum, gs, sizeof(gs)), flow_val_str(exp, es, sizeof(es)));
	CHECK(sum.sport == exp->sport && sum.dscp == exp->dscp && sum.pcp == exp->pcp &&
	      sum.opcode == exp->opcode, "%s: sport %u/%u dscp %u/%u pcp %u/%u opcode 0x%x/0x%x",
	      what, sum.sport, exp->sport, sum.dscp, exp->dscp, sum.pcp, exp->pcp, sum.opcode,
	      exp->opcode);
}

/* The WRITE flow of QP 0x123 on lo/ingress, summed; 0 when not in the table. */
static int write_flow(const struct rt_ftab *ft, struct rt_flow_val *v)
{
	struct rt_flow_key k;

	memset(&k, 0, sizeof(k));
	k.ifindex = LO_IFINDEX;
	k.dir = RT_DIR_INGRESS;
	k.family = 4;
	k.src[0] = 10, k.src[3] = 1;
	k.dst[0] = 10, k.dst[3] = 2;
	k.dqpn = 0x123;
	return rt_ftab_sum(ft, &k, 0, v);
}

/*
 * First and last seen: the kernel writes no time into a slot; user space
 * stamps the slots whose dirty bit it takes (rt_ftab_stamp), at times this
 * test picks. A flow that does not change keeps its times; one that does gets
 * the new last; an evicted flow that comes back starts again. f is the
 * ECT(0) WRITE of QP 0x123, exp its flow's counts so far.
 */
static void test_stamps(struct rt_ftab *ft, int xdp_fd, const struct frame *f,
			const struct rt_flow_val *exp)
{
	struct rt_flow_val v;
	__u32 ret = 0;
	size_t live = 0;

	CHECK(rt_ftab_stamp(ft, 1000) == 8, "8 slots changed since load");
	for (size_t i = 0; i < ft->nslots; i++)
		live += ft->slots[i].v.slot == RT_FT_LIVE;
	CHECK_EQ(live, 8);
	CHECK(write_flow(ft, &v) == 1, "the WRITE flow is in one region");
	CHECK(v.first_ns == 1000 && v.last_ns == 1000 && v.pkts == exp->pkts,
	      "stamped at 1000: first %llu last %llu pkts %llu", (unsigned long long)v.first_ns,
	      (unsigned long long)v.last_ns, (unsigned long long)v.pkts);

	CHECK(rt_ftab_stamp(ft, 2000) == 0, "nothing changed");
	write_flow(ft, &v);
	CHECK(v.first_ns == 1000 && v.last_ns == 1000, "idle: first %llu last %llu",
	      (unsigned long long)v.first_ns, (unsigned long long)v.last_ns);

	CHECK(!run(xdp_fd, 0, f, &ret), "test run");
	CHECK(rt_ftab_stamp(ft, 3000) == 1, "one slot changed");
	write_flow(ft, &v);
	CHECK(v.first_ns == 1000 && v.last_ns == 3000 && v.pkts == exp->pkts + REPEAT,
	      "counted again: first %llu last %llu pkts %llu", (unsigned long long)v.first_ns,
	      (unsigned long long)v.last_ns, (unsigned long long)v.pkts);

	CHECK(rt_ftab_kill(ft, &(struct rt_flow_key){ 0 }) == 0, "no such flow");
	{
		struct rt_flow_key k;

		memset(&k, 0, sizeof(k));
		k.ifindex = LO_IFINDEX;
		k.family = 4;
		k.src[0] = 10, k.src[3] = 1;
		k.dst[0] = 10, k.dst[3] = 2;
		k.dqpn = 0x123;
		CHECK(rt_ftab_kill(ft, &k) == 1, "evicted from one region");
	}
	CHECK(write_flow(ft, &v) == 0, "gone after eviction");
	CHECK(!run(xdp_fd, 0, f, &ret), "test run");
	/* counted since the last stamp: seen at it, until the next one */
	CHECK(write_flow(ft, &v) == 1 && v.first_ns == 3000 && v.last_ns == 3000 &&
	      v.pkts == REPEAT, "back, not yet stamped: first %llu last %llu pkts %llu",
	      (unsigned long long)v.first_ns, (unsigned long long)v.last_ns,
	      (unsigned long long)v.pkts);
	CHECK(rt_ftab_stamp(ft, 4000) == 1, "one slot changed");
	write_flow(ft, &v);
	CHECK(v.first_ns == 4000 && v.last_ns == 4000 && v.pkts == REPEAT,
	      "back: first %llu last %llu pkts %llu", (unsigned long long)v.first_ns,
	      (unsigned long long)v.last_ns, (unsigned long long)v.pkts);
	TEST_END("bpf_ftab_stamps_first_last_seen");
}

/*
 * The dirty bits' epoch comes round: a slot's mark is the epoch's low 16
 * bits, which repeat after 65535 stamps (0 is skipped). The WRITE flow
 * (REPEAT frames so far, test_stamps), counted, stamped, then idle for
 * exactly that many epochs, is counted again in the epoch whose low bits are
 * its mark: the next stamp must still see it. user/sources/live_maps.c
 * clears old marks as it stamps; without that the frames set no bit, and
 * the flow would keep its last seen of 5000.
 */
static void test_epoch_wrap(struct rt_ftab *ft, int xdp_fd, const struct frame *f)
{
	struct rt_flow_val v;
	__u32 ret = 0, mark;
	unsigned int k;

	CHECK(!run(xdp_fd, 0, f, &ret), "test run");
	mark = *ft->epoch & 0xffff;	/* what the frames wrote into the slot's mark */
	CHECK(rt_ftab_stamp(ft, 5000) == 1, "one slot changed");
	for (k = 0; (*ft->epoch & 0xffff) != mark && k < 70000; k++)
		CHECK(rt_ftab_stamp(ft, 5000) == 0, "idle: nothing changed");
	CHECK(k == 65534, "the epoch's low bits came back to the mark after %u more stamps", k);
	CHECK(!run(xdp_fd, 0, f, &ret), "test run");
	CHECK(rt_ftab_stamp(ft, 6000) == 1, "counted in the epoch of its mark: one slot changed");
	CHECK(write_flow(ft, &v) == 1 && v.pkts == 3 * REPEAT && v.first_ns == 4000 &&
	      v.last_ns == 6000, "after the wrap: first %llu last %llu pkts %llu",
	      (unsigned long long)v.first_ns, (unsigned long long)v.last_ns,
	      (unsigned long long)v.pkts);
	TEST_END("bpf_ftab_epoch_wraps");
}

/* lo/ingress's ifstats row summed over the CPUs (zeros when unreadable). */
static struct rt_if_val if_sum(int fd)
{
	struct rt_if_val *v = calloc((size_t)ncpus, sizeof(*v)), sum;
	__u32 idx = 0 * 2 + RT_DIR_INGRESS;

	memset(&sum, 0, sizeof(sum));
	if (v && !bpf_map_lookup_elem(fd, &idx, v))
		for (int c = 0; c < ncpus; c++)
			for (size_t j = 0; j < sizeof(sum) / 8; j++)
				((__u64 *)&sum)[j] += ((__u64 *)&v[c])[j];
	free(v);
	return sum;
}

/*
 * Frames longer than an XDP test run's first buffer (about 3.5 KB) arrive
 * with fragments (xdp.frags). rt_xdp takes data_end - data as a frame's
 * length unless the parse says truncated or the frame is not IP: both cases
 * must still count the whole length. A 6000-byte frame of an ethertype
 * nobody parses (0x88b5, local experimental) and a 6000-byte IPv4 TCP segment
 * (its IP header says 5986 bytes): each 6000 bytes, not RoCE.
 */
static void test_jumbo_len(int xdp_fd, int ifs_fd)
{
	static __u8 b[6000], out[6100];
	struct rt_if_val before, after;

	for (int t = 0; t < 2; t++) {
		struct xdp_md ctx = { .data_end = sizeof(b), .ingress_ifindex = LO_IFINDEX };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b, .data_size_in = sizeof(b),
			    .data_out = out, .data_size_out = sizeof(out),
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

		memset(b, 0x5a, sizeof(b));
		memset(b, 0, 14);
		b[0] = 2, b[5] = 2, b[6] = 2, b[11] = 1;
		if (t == 0) {
			b[12] = 0x88, b[13] = 0xb5;
		} else {
			b[12] = 0x08, b[13] = 0x00;
			memset(b + 14, 0, 40);
			b[14] = 0x45;
			b[16] = (sizeof(b) - 14) >> 8, b[17] = (sizeof(b) - 14) & 0xff;
			b[22] = 64, b[23] = 6;
			b[26] = 10, b[29] = 1, b[30] = 10, b[33] = 2;
			b[46] = 0x50;
		}
		before = if_sum(ifs_fd);
		CHECK(!bpf_prog_test_run_opts(xdp_fd, &o), "%s: test run: %s", t ? "tcp" : "0x88b5",
		      strerror(errno));
		after = if_sum(ifs_fd);
		CHECK_EQ(o.retval, XDP_PASS);
		CHECK(o.data_size_out == sizeof(b) && !memcmp(out, b, sizeof(b)), "frame changed");
		CHECK_EQ(after.pkts - before.pkts, 1);
		CHECK_EQ(after.bytes - before.bytes, sizeof(b));
		CHECK_EQ(after.not_roce - before.not_roce, 1);
		CHECK_EQ(after.truncated - before.truncated, 0);
	}
	TEST_END("bpf_xdp_frags_length_not_ip_and_ip");
}

/*
 * rt_skel_load_test_elf(), which bench/xdp_ab uses to load another build's
 * object: a copy of this build's ELF bytes loads into maps of its own (the
 * WRITE frame REPEAT times there: its ifstats row holds those frames, the
 * first skeleton's not one more), and bytes that are not an object fail.
 */
static void test_load_elf(const struct rocetop_bpf *first, const struct frame *write)
{
	struct rt_if_val before = if_sum(bpf_map__fd(first->maps.ifstats)), mine;
	struct rocetop_bpf *other;
	size_t sz = 0;
	const void *bytes = rocetop_bpf__elf_bytes(&sz);
	void *copy = malloc(sz);
	__u32 ret = 0;

	CHECK(copy != NULL, "no memory for %zu bytes", sz);
	if (!copy)
		return;
	memcpy(copy, bytes, sz);
	other = rt_skel_load_test_elf(copy, sz, 0, LO_IFINDEX, NULL);
	CHECK(other != NULL, "a copy of the object did not load: %s", strerror(errno));
	if (other) {
		CHECK(run(bpf_program__fd(other->progs.rt_xdp), 0, write, &ret) == 0 &&
		      ret == XDP_PASS, "test run in the copy failed");
		mine = if_sum(bpf_map__fd(other->maps.ifstats));
		CHECK(mine.pkts == REPEAT && mine.roce == REPEAT && mine.bytes == 122 * REPEAT,
		      "the copy's ifstats: pkts %llu roce %llu bytes %llu", (unsigned long long)mine.pkts,
		      (unsigned long long)mine.roce, (unsigned long long)mine.bytes);
		CHECK_EQ(if_sum(bpf_map__fd(first->maps.ifstats)).pkts, before.pkts);
		rocetop_bpf__destroy(other);
	}
	memset(copy, 0x5a, sz);
	other = rt_skel_load_test_elf(copy, sz, 0, LO_IFINDEX, NULL);
	CHECK(other == NULL, "bytes that are not an ELF object loaded");
	rocetop_bpf__destroy(other);
	free(copy);
	TEST_END("bpf_load_elf_bytes");
}

/* Live slots in the kernel flow table (the test runs on one CPU: one region). */
static size_t count_keys(const struct rt_ftab *ft)
{
	size_t n = 0;

	for (size_t i = 0; i < ft->nslots; i++)
		n += ft->slots[i].v.slot == RT_FT_LIVE;
	return n;
}

int main(void)
{
	struct rocetop_bpf *skel;
	struct rt_ftab ft;
	struct frame fr[NFRAMES];
	struct rt_if_val eif;
	struct rt_flow_val write, cnp, inner;
	int fds[2];
	const __u64 R = REPEAT;

	if (geteuid() != 0) {
		printf("SKIP bpf_bench_frames: needs root for BPF_PROG_TEST_RUN\n");
		return 0;
	}
	libbpf_set_print(silent);
	/* as the loader does: the flow table sized, mapped, lo in slot 0 */
	skel = rt_skel_load_test(0, LO_IFINDEX, &ft);
	if (!skel) {
		printf("SKIP bpf_bench_frames: cannot load rocetop.bpf.o: %s\n", strerror(errno));
		return 0;
	}
	ncpus = libbpf_num_possible_cpus();
	pin_cpu();
	bench_frames(fr);
	fds[0] = bpf_program__fd(skel->progs.rt_xdp);
	fds[1] = bpf_program__fd(skel->progs.rt_tc);

	/* The lengths, from the builders' layout: Ethernet 14, IPv4 20, UDP 8,
	 * BTH 12, payload, ICRC 4; TCP 20 + 64 bytes; PFC padded to 60; ERSPAN
	 * III wraps in Ethernet 14 + IPv4 20 + GRE with a sequence number 8 +
	 * ERSPAN 12; VXLAN in Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8. */
	CHECK_EQ(fr[0].len, 14 + 20 + 8 + 12 + 64 + 4);
	CHECK_EQ(fr[1].len, 122);
	CHECK_EQ(fr[2].len, 14 + 20 + 8 + 12 + 16 + 4);
	CHECK_EQ(fr[3].len, 60);
	CHECK_EQ(fr[4].len, 14 + 20 + 20 + 64);
	CHECK_EQ(fr[5].len, 14 + 20 + 8 + 12 + 122);
	CHECK_EQ(fr[6].len, 14 + 20 + 8 + 8 + 122);
	TEST_END("bpf_bench_frames_built");

	for (int t = 0; t < 2; t++)
		for (int p = 0; p < NFRAMES; p++) {
			__u32 ret = 0;
			int err = run(fds[t], t, &fr[p], &ret);

			CHECK(err == 0, "%s (%s): test run failed: %s", fr[p].name,
			      t ? "tc" : "xdp", strerror(-err));
			CHECK(ret == (t ? (__u32)TC_ACT_UNSPEC : (__u32)XDP_PASS),
			      "%s (%s): returned %d", fr[p].name, t ? "tc" : "xdp", (int)ret);
		}
	TEST_END("bpf_bench_frames_pass_unchanged");

	/* Per direction, each frame REPEAT times: 7 frames, 5 of them RoCE (the
	 * two WRITEs, the CNP, both mirror copies), one PFC frame enabling
	 * classes 3 (pause 0xffff) and 4 (time 0: XON), one TCP segment; the
	 * two mirror copies count their outer length in bytes. */
	memset(&eif, 0, sizeof(eif));
	eif.pkts = 7 * R;
	eif.bytes = (122 + 122 + 74 + 60 + 118 + 176 + 172) * R;
	eif.roce = 5 * R;
	eif.not_roce = R;
	eif.mac_ctrl = R;
	eif.mirrored = 2 * R;
	eif.pfc_frames[3] = R;
	eif.pfc_quanta[3] = 0xffff * R;
	eif.pfc_frames[4] = R;
	eif.pfc_xon[4] = R;
	check_if(bpf_map__fd(skel->maps.ifstats), RT_DIR_INGRESS, &eif, "xdp ingress");
	check_if(bpf_map__fd(skel->maps.ifstats), RT_DIR_EGRESS, &eif, "tc egress");
	TEST_END("bpf_bench_frames_ifstats");

	/* QP 0x123: the WRITE with TOS 0x6a (DSCP 26, ECT(0)) then 0x6b (CE),
	 * UDP source port 49152, opcode 0x0a; QP 0x456: the CNP, TOS 0xc0
	 * (DSCP 48, Not-ECT); the mirror copies: the ECT(0) WRITE, its own
	 * 122 bytes, in ERSPAN III session 300 (egress) and VXLAN VNI 4660. */
	memset(&write, 0, sizeof(write));
	write.pkts = 2 * R;
	write.bytes = 2 * 122 * R;
	write.ecn[RT_ECN_ECT0] = R;
	write.ecn[RT_ECN_CE] = R;
	write.sport = 49152;
	write.dscp = 26;
	write.pcp = RT_PCP_NONE;
	write.opcode = 0x0a;
	write.dscps = 1ULL << 26;
	write.prios = 1 << 3;		/* untagged: DSCP 26 / 8 */
	memset(&cnp, 0, sizeof(cnp));
	cnp.pkts = R;
	cnp.bytes = 74 * R;
	cnp.ecn[RT_ECN_NOT_ECT] = R;
	cnp.cnp = R;
	cnp.sport = 49152;
	cnp.dscp = 48;
	cnp.pcp = RT_PCP_NONE;
	cnp.opcode = 0x81;
	cnp.dscps = 1ULL << 48;
	cnp.prios = 1 << 6;
	inner = write;
	inner.pkts = R;
	inner.bytes = 122 * R;
	inner.ecn[RT_ECN_CE] = 0;
	for (__u8 dir = 0; dir < 2; dir++) {
		const struct rt_ftab *fd = &ft;
		const char *d = dir == RT_DIR_INGRESS ? "xdp" : "tc";
		char w[64];

		snprintf(w, sizeof(w), "%s: WRITE QP 0x123", d);
		check_flow(fd, dir, 0x123, RT_MIRROR_NONE, 0, &write, w);
		snprintf(w, sizeof(w), "%s: CNP QP 0x456", d);
		check_flow(fd, dir, 0x456, RT_MIRROR_NONE, 0, &cnp, w);
		snprintf(w, sizeof(w), "%s: ERSPAN III 300 egress", d);
		check_flow(fd, dir, 0x123, RT_MIRROR_ERSPAN3, 300 | RT_MIRROR_EGRESS, &inner, w);
		snprintf(w, sizeof(w), "%s: VXLAN 4660", d);
		check_flow(fd, dir, 0x123, RT_MIRROR_VXLAN, 4660, &inner, w);
	}
	CHECK_EQ(count_keys(&ft), 8);
	TEST_END("bpf_bench_frames_flows");

	test_stamps(&ft, fds[0], &fr[0], &write);
	test_epoch_wrap(&ft, fds[0], &fr[0]);
	test_jumbo_len(fds[0], bpf_map__fd(skel->maps.ifstats));
	test_load_elf(skel, &fr[0]);

	rt_ftab_unmap(&ft);
	rocetop_bpf__destroy(skel);
	return TEST_EXIT();
}
