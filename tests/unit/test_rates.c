// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Rate maths (user/core/snapshot_delta.c): rt_ctr_delta and rt_delta_compute on
 * hand-written snapshots. Every expected number is worked out by hand in the
 * comments beside it.
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "derive.h"
#include "snapshot.h"
#include "fixture.h"

static void test_ctr_delta(void)
{
	CHECK_EQ(rt_ctr_delta(100, 150, 64), 50);
	CHECK_EQ(rt_ctr_delta(7, 7, 64), 0);
	CHECK_EQ(rt_ctr_delta(7, 7, 32), 0);
	/* went down: a reset, counts from zero */
	CHECK_EQ(rt_ctr_delta(150, 100, 64), 100);
	CHECK_EQ(rt_ctr_delta(150, 0, 64), 0);
	CHECK_EQ(rt_ctr_delta(~0ULL, 0, 64), 0);
	CHECK_EQ(rt_ctr_delta(~0ULL, 3, 64), 3);
	/* a 64-bit counter never wraps in practice: 0xfffffff0 -> 0x10 is a reset */
	CHECK_EQ(rt_ctr_delta(0xfffffff0ULL, 0x10, 64), 0x10);
	/* RT_BITS_32, a counter the driver keeps in 32 bits: every decrease from
	 * at most 2^32 - 1 is a wrap. 0x10 to go up to 2^32, then 0x10 more: */
	CHECK_EQ(rt_ctr_delta(0xfffffff0ULL, 0x10, RT_BITS_32), 0x20);
	CHECK_EQ(rt_ctr_delta(0xffffffffULL, 0, RT_BITS_32), 1);
	/* 0x80000001 -> 0: 2^32 - 0x80000001 = 0x7fffffff */
	CHECK_EQ(rt_ctr_delta(0x80000001ULL, 0, RT_BITS_32), 0x7fffffffULL);
	/* 0x90000000 -> 0x10000000: 0x70000000 up to 2^32, 0x10000000 after */
	CHECK_EQ(rt_ctr_delta(0x90000000ULL, 0x10000000ULL, RT_BITS_32), 0x80000000ULL);
	/* 1000 -> 10: 2^32 - 1000 + 10 = 4294966306 */
	CHECK_EQ(rt_ctr_delta(1000, 10, RT_BITS_32), 4294966306ULL);
	/* a "32-bit" counter above 2^32 cannot have wrapped at 32 bits: a reset */
	CHECK_EQ(rt_ctr_delta(0x100000005ULL, 2, RT_BITS_32), 2);
	/* RT_BITS_NIC, width unknown: a wrap only when prev >= 2^31 and the
	 * wrapped increase is at most 2^31. */
	CHECK_EQ(rt_ctr_delta(0xfffffff0ULL, 0x10, RT_BITS_NIC), 0x20);
	/* prev exactly 2^31, cur 0: wrapped increase exactly 2^31, plausible */
	CHECK_EQ(rt_ctr_delta(0x80000000ULL, 0, RT_BITS_NIC), 0x80000000ULL);
	/* prev 2^31, cur 1: wrapped increase 2^31 + 1, too large: a reset to 1 */
	CHECK_EQ(rt_ctr_delta(0x80000000ULL, 1, RT_BITS_NIC), 1);
	/* prev 2^31 - 1 is below the upper half: a reset, whatever cur */
	CHECK_EQ(rt_ctr_delta(0x7fffffffULL, 0, RT_BITS_NIC), 0);
	/* 0xc0000000 -> 0x40000000: wrapped 0x40000000 + 0x40000000 = 2^31, a wrap */
	CHECK_EQ(rt_ctr_delta(0xc0000000ULL, 0x40000000ULL, RT_BITS_NIC), 0x80000000ULL);
	/* 0xc0000000 -> 0x40000001: one more than 2^31, a reset */
	CHECK_EQ(rt_ctr_delta(0xc0000000ULL, 0x40000001ULL, RT_BITS_NIC), 0x40000001ULL);
	CHECK_EQ(rt_ctr_delta(1000, 10, RT_BITS_NIC), 10);
	CHECK_EQ(rt_ctr_delta(0x100000005ULL, 2, RT_BITS_NIC), 2);
	/* and a 64-bit counter never wraps at 32 bits */
	CHECK_EQ(rt_ctr_delta(0xfffffff0ULL, 0x10, RT_BITS_64), 0x10);
	/* never negative, whatever the order: the delta is at most cur when cur < prev */
	for (unsigned long long p = 0; p < 70000; p += 997)
		for (unsigned long long c = 0; c < 70000; c += 1009) {
			unsigned long long d = rt_ctr_delta(p, c, 64);

			CHECK(d == (c >= p ? c - p : c), "64: %llu -> %llu gave %llu", p, c, d);
		}
	TEST_END("rates_ctr_delta");
}

static struct rt_flow *add_flow(struct rt_snapshot *s, __u32 dqpn, __u64 pkts, __u64 bytes,
				__u64 ce, __u64 cnp)
{
	struct rt_flow *f = rt_snapshot_add_flow(s);

	f->k.ifindex = 2;
	f->k.dir = RT_DIR_INGRESS;
	f->k.family = 4;
	f->k.src[0] = 10;
	f->k.dst[0] = 11;
	f->k.dqpn = dqpn;
	f->v.pkts = pkts;
	f->v.bytes = bytes;
	f->v.ecn[RT_ECN_CE] = ce;
	f->v.ecn[RT_ECN_ECT0] = pkts - ce;
	f->v.cnp = cnp;
	f->v.first_ns = 1000 + dqpn;
	f->v.last_ns = 5000 + dqpn;
	f->v.sport = (__u16)(dqpn + 100);
	f->v.dscp = 26;
	f->v.opcode = 0x0a;
	return f;
}

static struct rt_port_ctr *add_port(struct rt_snapshot *s, const char *name, __u64 v, int bits)
{
	return add_port_ctr(s, "mlx5_0", "eth0", name, v, bits);
}

static const struct rt_flow_delta *find_flow(const struct rt_delta *d, __u32 dqpn)
{
	for (size_t i = 0; i < d->nflows; i++)
		if (d->flows[i].f->k.dqpn == dqpn)
			return &d->flows[i];
	return NULL;
}

static const struct rt_port_delta *find_port(const struct rt_delta *d, const char *name)
{
	for (size_t i = 0; i < d->nports; i++)
		if (!strcmp(d->ports[i].c->name, name))
			return &d->ports[i];
	return NULL;
}

static const struct rt_ifdir_delta *find_if(const struct rt_delta *d, __u32 ifindex, __u8 dir)
{
	for (size_t i = 0; i < d->nifs; i++)
		if (d->ifs[i].s->k.ifindex == ifindex && d->ifs[i].s->k.dir == dir)
			return &d->ifs[i];
	return NULL;
}

/*
 * prev (t = 10 s)                       cur (t = 12.5 s)
 *   flow 0x300  10 pkts 1000 B 2 CE       flow 0x300  15 pkts 1600 B 5 CE 1 CNP
 *   flow 0x100   5 pkts  500 B            flow 0x100   3 pkts  300 B   (reset)
 *   flow 0x200   9 pkts  (vanishes)       flow 0x050   7 pkts  700 B 7 CE (new)
 *   if 2/in  100 pkts, prio 3: 4 frames   if 2/in  130 pkts, prio 3: 6 frames, 1000 quanta
 *                                         if 5/out  40 pkts (new)
 *   np_cnp_sent (32-bit) 0xfffffff0       np_cnp_sent 0x10          (wrapped)
 *   out_of_sequence (64-bit) 100          out_of_sequence 50        (reset)
 *   rp_cnp_handled (vanishes)             packet_seq_err 9          (new)
 *   evicted 3                             evicted 5
 */
static void build(struct rt_snapshot *prev, struct rt_snapshot *cur)
{
	struct rt_ifdir *i;

	rt_snapshot_init(prev);
	rt_snapshot_init(cur);
	prev->time_ns = 10000000000ULL;
	cur->time_ns = 12500000000ULL;
	prev->evicted = 3;
	cur->evicted = 5;

	add_flow(prev, 0x300, 10, 1000, 2, 0);
	add_flow(prev, 0x100, 5, 500, 0, 0);
	add_flow(prev, 0x200, 9, 900, 0, 0);
	add_flow(cur, 0x050, 7, 700, 7, 0);
	add_flow(cur, 0x300, 15, 1600, 5, 1);
	add_flow(cur, 0x100, 3, 300, 0, 0);

	i = rt_snapshot_ifdir(prev, 2, RT_DIR_INGRESS);
	i->v.pkts = 100;
	i->v.pfc_frames[3] = 4;
	i->evicted = 3;
	i = rt_snapshot_ifdir(cur, 5, RT_DIR_EGRESS);
	i->v.pkts = 40;
	i->evicted = 2;
	i = rt_snapshot_ifdir(cur, 2, RT_DIR_INGRESS);
	i->v.pkts = 130;
	i->evicted = 4;
	i->v.pfc_frames[3] = 6;
	i->v.pfc_quanta[3] = 1000;

	add_port(prev, "np_cnp_sent", 0xfffffff0ULL, 32);
	add_port(prev, "out_of_sequence", 100, 64);
	add_port(prev, "rp_cnp_handled", 77, 64);
	add_port(cur, "packet_seq_err", 9, 64);
	add_port(cur, "out_of_sequence", 50, 64);
	add_port(cur, "np_cnp_sent", 0x10, 32);

	rt_snapshot_sort(prev);
	rt_snapshot_sort(cur);
}

static void test_delta(void)
{
	struct rt_snapshot prev, cur;
	struct rt_delta d;
	const struct rt_flow_delta *f;
	const struct rt_ifdir_delta *i;
	const struct rt_port_delta *p;

	build(&prev, &cur);
	memset(&d, 0, sizeof(d));
	CHECK_EQ(rt_delta_compute(&d, &prev, &cur), 0);
	CHECK(d.secs > 2.4999 && d.secs < 2.5001, "secs = %f, expected 2.5", d.secs);
	CHECK_EQ(d.nflows, 3);		/* the vanished flow 0x200 has no row */
	CHECK(!find_flow(&d, 0x200), "vanished flow reported");

	f = find_flow(&d, 0x300);
	CHECK(f != NULL, "flow 0x300 missing");
	if (f) {
		CHECK_EQ(f->d.pkts, 5);
		CHECK_EQ(f->d.bytes, 600);
		CHECK_EQ(f->d.ecn[RT_ECN_CE], 3);
		CHECK_EQ(f->d.ecn[RT_ECN_ECT0], 2);	/* 10 - 8 */
		CHECK_EQ(f->d.cnp, 1);
		/* attributes come from cur */
		CHECK_EQ(f->d.sport, 0x300 + 100);
		CHECK_EQ(f->d.last_ns, 5000 + 0x300);
		CHECK_EQ(f->d.first_ns, 1000 + 0x300);
	}
	f = find_flow(&d, 0x100);	/* 5 -> 3: reset, counts from 0 */
	CHECK(f != NULL, "flow 0x100 missing");
	if (f) {
		CHECK_EQ(f->d.pkts, 3);
		CHECK_EQ(f->d.bytes, 300);
		CHECK_EQ(f->d.ecn[RT_ECN_ECT0], 3);
	}
	f = find_flow(&d, 0x050);	/* new: everything since it appeared */
	CHECK(f != NULL, "flow 0x050 missing");
	if (f) {
		CHECK_EQ(f->d.pkts, 7);
		CHECK_EQ(f->d.bytes, 700);
		CHECK_EQ(f->d.ecn[RT_ECN_CE], 7);
	}
	/* totals: 5 + 3 + 7 packets, 600 + 300 + 700 bytes, 3 + 0 + 7 CE */
	CHECK_EQ(d.flow_tot.pkts, 15);
	CHECK_EQ(d.flow_tot.bytes, 1600);
	CHECK_EQ(d.flow_tot.ecn[RT_ECN_CE], 10);
	CHECK_EQ(d.flow_tot.cnp, 1);
	CHECK_EQ(rt_congestion(&d.flow_tot), 11);

	CHECK_EQ(d.nifs, 2);
	i = find_if(&d, 2, RT_DIR_INGRESS);
	CHECK(i != NULL, "if 2/in missing");
	if (i) {
		CHECK_EQ(i->d.pkts, 30);
		CHECK_EQ(i->d.pfc_frames[3], 2);
		CHECK_EQ(i->d.pfc_quanta[3], 1000);
		CHECK_EQ(i->evicted, 1);	/* 3 -> 4 */
	}
	i = find_if(&d, 5, RT_DIR_EGRESS);
	CHECK(i != NULL, "if 5/out missing");
	if (i) {
		CHECK_EQ(i->d.pkts, 40);
		CHECK_EQ(i->evicted, 2);	/* new row: all since the start */
	}
	CHECK_EQ(d.if_tot.pkts, 70);
	CHECK_EQ(d.if_tot.pfc_frames[3], 2);

	CHECK_EQ(d.nports, 3);
	p = find_port(&d, "np_cnp_sent");	/* 32-bit wrap: 0x10 + 0x10 */
	CHECK(p && p->d == 0x20, "np_cnp_sent delta %llu, expected 32",
	      p ? (unsigned long long)p->d : 0ULL);
	p = find_port(&d, "out_of_sequence");	/* reset: 50 since the reset */
	CHECK(p && p->d == 50, "out_of_sequence delta %llu, expected 50",
	      p ? (unsigned long long)p->d : 0ULL);
	p = find_port(&d, "packet_seq_err");	/* first seen: no interval */
	CHECK(p && p->d == 0, "packet_seq_err delta %llu, expected 0",
	      p ? (unsigned long long)p->d : 0ULL);
	CHECK(!find_port(&d, "rp_cnp_handled"), "vanished counter reported");
	CHECK_EQ(d.evicted, 2);
	TEST_END("rates_delta_compute");

	/* the first snapshot: prev = NULL, everything since the start */
	CHECK_EQ(rt_delta_compute(&d, NULL, &cur), 0);
	CHECK(d.secs == 0, "secs = %f, expected 0", d.secs);
	CHECK_EQ(d.nflows, 3);
	f = find_flow(&d, 0x300);
	CHECK(f && f->d.pkts == 15 && f->d.bytes == 1600 && f->d.ecn[RT_ECN_CE] == 5,
	      "first snapshot: flow 0x300 not its totals");
	CHECK_EQ(d.flow_tot.pkts, 25);	/* 7 + 15 + 3 */
	CHECK_EQ(d.if_tot.pkts, 170);	/* 130 + 40 */
	p = find_port(&d, "np_cnp_sent");
	CHECK(p && p->d == 0, "first snapshot: port counter delta should be 0");
	CHECK_EQ(d.evicted, 5);
	TEST_END("rates_first_snapshot");

	/* the same snapshot twice: nothing changed */
	CHECK_EQ(rt_delta_compute(&d, &cur, &cur), 0);
	CHECK_EQ(d.flow_tot.pkts, 0);
	CHECK_EQ(d.if_tot.pkts, 0);
	for (size_t k = 0; k < d.nports; k++)
		CHECK_EQ(d.ports[k].d, 0);
	CHECK_EQ(d.evicted, 0);
	TEST_END("rates_no_change");

	/* a whole flow table flushed (driver reload): every counter from zero, never negative */
	for (size_t k = 0; k < cur.nflows; k++)
		memset(&cur.flows[k].v.pkts, 0, offsetof(struct rt_flow_val, first_ns));
	cur.flows[0].v.pkts = 1;
	CHECK_EQ(rt_delta_compute(&d, &prev, &cur), 0);
	CHECK_EQ(d.flow_tot.pkts, 1);
	CHECK_EQ(d.flow_tot.bytes, 0);
	TEST_END("rates_table_reset");

	rt_delta_free(&d);
	rt_snapshot_free(&prev);
	rt_snapshot_free(&cur);
}

int main(void)
{
	test_ctr_delta();
	test_delta();
	return TEST_EXIT();
}
