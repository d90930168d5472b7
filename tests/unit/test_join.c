// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The join on hand-built snapshots: flows get their QP and process from the
 * QP table, and CNP flows are tied to the data flow they throttle by the
 * netlink table, by ACKs on the host pair, or left with the host pair.
 * Addresses are 10.0.0.N; the expected owners and targets are written by
 * hand from the DCQCN roles (a CNP's dqpn is the data sender's QP).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "join.h"
#include "nic.h"

static void add(struct rt_snapshot *s, __u32 ifindex, __u8 dir, __u8 src, __u8 dst, __u32 dqpn,
		__u64 pkts, __u64 cnp, __u64 ack)
{
	struct rt_flow *f = rt_snapshot_add_flow(s);

	f->k.ifindex = ifindex;
	f->k.dir = dir;
	f->k.family = 4;
	f->k.src[0] = 10, f->k.src[3] = src;
	f->k.dst[0] = 10, f->k.dst[3] = dst;
	f->k.dqpn = dqpn;
	f->v.pkts = pkts;
	f->v.cnp = cnp;
	f->v.ack = ack;
}

/* Index of a flow in the sorted snapshot, by its key, or -2. */
static int idx(const struct rt_snapshot *s, __u32 ifindex, __u8 dir, __u8 src, __u8 dst, __u32 dqpn)
{
	for (size_t i = 0; i < s->nflows; i++) {
		const struct rt_flow_key *k = &s->flows[i].k;

		if (k->ifindex == ifindex && k->dir == dir && k->src[3] == src && k->dst[3] == dst &&
		    k->dqpn == dqpn)
			return (int)i;
	}
	return -2;
}

static void qp(struct rt_qp_table *t, __u32 lqpn, __u32 rqpn, __u32 pid, const char *comm)
{
	struct rt_qp *q = &t->q[t->n++];

	memset(q, 0, sizeof(*q));
	snprintf(q->dev, sizeof(q->dev), "mlx5_0");
	q->port = 1;
	q->lqpn = lqpn;
	q->rqpn = rqpn;
	q->has_rqpn = 1;
	q->type = 2;
	q->state = 3;
	q->pid = pid;
	snprintf(q->comm, sizeof(q->comm), "%s", comm);
}

#define IN RT_DIR_INGRESS
#define OUT RT_DIR_EGRESS

/* The RP host 10.0.0.1 sends to 10.0.0.2 from QP 256 (to remote QP 512) and
 * from QP 257 (to 768); CNPs come back to QP 256. */
/* A CNP flow joined through netlink: it throttles data flow d, of the local
 * QP lqpn owned by pid. */
static void check_cnp_flow(const struct rt_flow *f, int d, __u32 lqpn, int pid)
{
	CHECK_EQ(f->attr, RT_ATTR_NETLINK);
	CHECK_EQ(f->throttles, d);
	CHECK_EQ(f->lqpn, lqpn);
	CHECK_EQ(f->pid, pid);
}

static void test_rp_host_netlink(void)
{
	struct rt_qp_table t = { 0 };
	struct rt_qp qs[4];
	struct rt_snapshot s;
	int c, d, o;

	t.q = qs;
	t.cap = 4;
	qp(&t, 256, 512, 4242, "ib_write_bw");
	qp(&t, 257, 768, 5151, "nccl");
	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 3, "eth0", "native");
	add(&s, 3, OUT, 1, 2, 512, 1000, 0, 0);		/* data, QP 256's */
	add(&s, 3, OUT, 1, 2, 768, 500, 0, 0);		/* data, QP 257's */
	add(&s, 3, IN, 2, 1, 256, 50, 30, 20);		/* CNPs and ACKs to QP 256 */
	rt_snapshot_sort(&s);
	rt_join(&s, &t);

	c = idx(&s, 3, IN, 2, 1, 256);
	d = idx(&s, 3, OUT, 1, 2, 512);
	o = idx(&s, 3, OUT, 1, 2, 768);
	CHECK(c >= 0 && d >= 0 && o >= 0, "flows present");
	if (c < 0 || d < 0 || o < 0)
		return;
	check_cnp_flow(&s.flows[c], d, 256, 4242);
	CHECK_EQ(s.flows[c].rqpn, 512);
	CHECK(!strcmp(s.flows[c].comm, "ib_write_bw"), "comm %s", s.flows[c].comm);
	/* data flows: their local QP and owner; not CNP flows */
	CHECK_EQ(s.flows[d].lqpn, 256);
	CHECK_EQ(s.flows[d].pid, 4242);
	CHECK_EQ(s.flows[d].attr, RT_ATTR_NONE);
	CHECK_EQ((__u32)s.flows[d].throttles, (__u32)-1);
	CHECK_EQ(s.flows[o].lqpn, 257);
	CHECK_EQ(s.flows[o].pid, 5151);
	CHECK(!strcmp(s.flows[o].comm, "nccl"), "comm %s", s.flows[o].comm);
	rt_snapshot_free(&s);
	TEST_END("join_rp_host_netlink");
}

/* The NP host 10.0.0.2 receives into its QP 1280 from remote QP 256 on
 * 10.0.0.1 and sends the CNPs out to QP 256. */
static void test_np_host_netlink(void)
{
	struct rt_qp_table t = { 0 };
	struct rt_qp qs[2];
	struct rt_snapshot s;
	int c, d;

	t.q = qs;
	t.cap = 2;
	qp(&t, 1280, 256, 777, "server");
	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 5, "eth1", "native");
	add(&s, 5, IN, 1, 2, 1280, 2000, 0, 0);		/* data into QP 1280 */
	add(&s, 5, OUT, 2, 1, 256, 40, 40, 0);		/* CNPs out to QP 256 */
	add(&s, 5, IN, 3, 2, 99, 10, 0, 0);		/* another host, unknown QP */
	rt_snapshot_sort(&s);
	rt_join(&s, &t);
	c = idx(&s, 5, OUT, 2, 1, 256);
	d = idx(&s, 5, IN, 1, 2, 1280);
	CHECK(c >= 0 && d >= 0, "flows present");
	if (c < 0 || d < 0)
		return;
	check_cnp_flow(&s.flows[c], d, 1280, 777);
	CHECK_EQ(s.flows[d].lqpn, 1280);
	CHECK_EQ(s.flows[d].rqpn, 256);
	CHECK(!strcmp(s.flows[d].comm, "server"), "comm %s", s.flows[d].comm);
	d = idx(&s, 5, IN, 3, 2, 99);
	CHECK_EQ(s.flows[d].pid, 0);
	CHECK_EQ(s.flows[d].lqpn, 0);
	rt_snapshot_free(&s);
	TEST_END("join_np_host_netlink");
}

/*
 * No QP table (a capture, a mirror port): on interface 1, ingress,
 *  pair .1/.2: data .1->.2 to QP 512, and .2->.1 to QP 256 with CNPs and
 *              ACKs: the ACKs show 256 is the requester of the only data QP
 *              on the pair -> RT_ATTR_ACK, the data flow on interface 1 (the
 *              same QP is also seen on interface 2);
 *  pair .3/.4: data .3->.4, CNPs .4->.3 but no ACK -> host pair;
 *  pair .5/.6: two data QPs .5->.6, CNPs + ACKs .6->.5 -> ambiguous, host pair.
 */
static void test_ack_and_hostpair(const struct rt_qp_table *t, const char *name)
{
	struct rt_snapshot s;
	int c1, d1, c2, c3;

	rt_snapshot_init(&s);
	add(&s, 2, IN, 1, 2, 512, 700, 0, 0);		/* same QP seen elsewhere */
	add(&s, 1, IN, 1, 2, 512, 1000, 0, 0);
	add(&s, 1, IN, 2, 1, 256, 60, 10, 50);
	add(&s, 1, IN, 3, 4, 1024, 300, 0, 0);
	add(&s, 1, IN, 4, 3, 1536, 5, 5, 0);
	add(&s, 1, IN, 5, 6, 1792, 100, 0, 0);
	add(&s, 1, IN, 5, 6, 1793, 100, 0, 0);
	add(&s, 1, IN, 6, 5, 2048, 30, 10, 20);
	for (size_t i = 0; i < s.nflows; i++)
		s.flows[i].throttles = 0;	/* what a zeroed row says: rt_join must set -1 */
	rt_snapshot_sort(&s);
	rt_join(&s, t);
	c1 = idx(&s, 1, IN, 2, 1, 256);
	d1 = idx(&s, 1, IN, 1, 2, 512);
	c2 = idx(&s, 1, IN, 4, 3, 1536);
	c3 = idx(&s, 1, IN, 6, 5, 2048);
	CHECK(c1 >= 0 && d1 >= 0 && c2 >= 0 && c3 >= 0, "flows present");
	if (c1 < 0 || d1 < 0 || c2 < 0 || c3 < 0)
		return;
	CHECK_EQ(s.flows[c1].attr, RT_ATTR_ACK);
	CHECK_EQ(s.flows[c1].throttles, d1);
	CHECK_EQ(s.flows[c2].attr, RT_ATTR_HOSTPAIR);
	CHECK_EQ((__u32)s.flows[c2].throttles, (__u32)-1);
	CHECK_EQ(s.flows[c3].attr, RT_ATTR_HOSTPAIR);
	CHECK_EQ((__u32)s.flows[c3].throttles, (__u32)-1);
	for (size_t i = 0; i < s.nflows; i++) {
		if (!s.flows[i].v.cnp) {
			CHECK_EQ(s.flows[i].attr, RT_ATTR_NONE);
			CHECK_EQ((__u32)s.flows[i].throttles, (__u32)-1);
		}
		CHECK_EQ(s.flows[i].pid, 0);
	}
	rt_snapshot_free(&s);
	TEST_END(name);
}

/* Two local QPs talk to the same remote QP number on two hosts: only the CM
 * ID addresses tell which one an egress flow belongs to. */
static void test_owner_by_address(void)
{
	struct rt_qp_table t = { 0 };
	struct rt_qp qs[2];
	struct rt_snapshot s;
	int f;

	t.q = qs;
	t.cap = 2;
	qp(&t, 256, 512, 1, "a");
	qp(&t, 300, 512, 2, "b");
	rt_snapshot_init(&s);
	add(&s, 1, OUT, 1, 9, 512, 10, 0, 0);
	rt_snapshot_sort(&s);
	rt_join(&s, &t);
	CHECK_EQ(s.flows[0].pid, 0);	/* ambiguous without addresses */
	for (int i = 0; i < 2; i++) {
		qs[i].family = 4;
		qs[i].src[0] = 10, qs[i].src[3] = 1;
		qs[i].dst[0] = 10, qs[i].dst[3] = i ? 9 : 2;
	}
	rt_join(&s, &t);
	f = idx(&s, 1, OUT, 1, 9, 512);
	CHECK_EQ(s.flows[f].pid, 2);
	CHECK_EQ(s.flows[f].lqpn, 300);
	rt_snapshot_free(&s);
	TEST_END("join_owner_by_address");
}

/*
 * rdma_cm's handshake: MADs to QP1 (the kernel's GSI QP, owned by ib_core).
 * Host 10.0.0.1: rping's QP 300 to 10.0.0.2 (pid 777), ib_send_bw's QPs 310
 * and 311 to 10.0.0.3 (pid 888), CM IDs giving their addresses. Flows to QP1:
 * from and to .2: connection management of QP 300, pid 777; from .3: of
 * ib_send_bw (two QPs: QP1 named, pid 888); from .4 (no CM ID): QP1, no
 * process. Each "rdma_cm", none pid 0 / ib_core as the GSI QP's own row says.
 */
static void test_cm_flows(void)
{
	struct rt_qp_table t = { 0 };
	struct rt_qp qs[4];
	struct rt_snapshot s;
	static const struct { __u8 dir, src, dst; __u32 lqpn, pid; } want[] = {
		{ IN, 2, 1, 300, 777 }, { OUT, 1, 2, 300, 777 }, { IN, 3, 1, 1, 888 }, { IN, 4, 1, 1, 0 },
	};

	t.q = qs;
	t.cap = 4;
	qp(&t, 1, 0, 0, "ib_core");	/* the GSI QP: UD, no peer */
	qs[0].has_rqpn = 0;
	qs[0].type = 1;
	qp(&t, 300, 400, 777, "rping");
	qp(&t, 310, 410, 888, "ib_send_bw");
	qp(&t, 311, 411, 888, "ib_send_bw");
	for (int i = 1; i < 4; i++) {
		qs[i].family = 4;
		qs[i].src[0] = 10, qs[i].src[3] = 1;
		qs[i].dst[0] = 10, qs[i].dst[3] = i == 1 ? 2 : 3;
	}
	rt_snapshot_init(&s);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		add(&s, 1, want[i].dir, want[i].src, want[i].dst, 1, 4, 0, 0);
	rt_snapshot_sort(&s);
	rt_join(&s, &t);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int f = idx(&s, 1, want[i].dir, want[i].src, want[i].dst, 1);

		CHECK(f >= 0, "flow %zu", i);
		if (f < 0)
			continue;
		CHECK(s.flows[f].lqpn == want[i].lqpn && s.flows[f].pid == want[i].pid &&
		      !strcmp(s.flows[f].comm, "rdma_cm"),
		      "CM flow from .%u to .%u: lqpn %u pid %u comm %s, want %u %u rdma_cm", want[i].src,
		      want[i].dst, s.flows[f].lqpn, s.flows[f].pid, s.flows[f].comm, want[i].lqpn, want[i].pid);
	}
	rt_snapshot_free(&s);
	TEST_END("join_rdma_cm_flows_labelled");
}

/*
 * A process exits during an interval: the QP dump at its end no longer has
 * its QP 256 (pid 4242, ib_write_bw), though its flow 10.0.0.2 -> .1 to QP
 * 256 moved in that interval. Over the loop's table: interval 1 (QP there)
 * and interval 2 (QP gone from the dump, the flow moved) show pid 4242;
 * interval 3 (still gone, the flow idle) shows no owner.
 */
static void test_owner_of_exited_process(void)
{
	struct rt_qp q1[1], q2[2], q3[1];
	struct rt_qp_table t1 = { .q = q1, .cap = 1 };
	struct rt_qp_table t2 = { .q = q2, .cap = 2 };
	struct rt_qp_table t3 = { .q = q3, .cap = 1 };
	struct rt_qp dump1[1];
	struct rt_flow_key k;
	struct rt_snapshot s;
	struct rt_flow *f;
	int fresh;
	__u32 pid[3];

	memset(&k, 0, sizeof(k));
	k.ifindex = 1;
	k.dir = IN;
	k.family = 4;
	k.src[0] = 10, k.src[3] = 2;
	k.dst[0] = 10, k.dst[3] = 1;
	k.dqpn = 256;
	rt_snapshot_init(&s);
	CHECK(rt_snapshot_make_table(&s) == 0, "a table");
	for (int iv = 0; iv < 3; iv++) {
		struct rt_qp_table *t = iv == 0 ? &t1 : iv == 1 ? &t2 : &t3;

		rt_snapshot_next_interval(&s);
		rt_snapshot_add_iface(&s, 1, "eth0", "native");
		if (iv < 2) {	/* the flow moves in intervals 1 and 2 */
			f = rt_snapshot_flow(&s, &k, &fresh);
			CHECK(f != NULL, "row");
			if (!f)
				break;
			rt_snapshot_touch(&s, f);
			f->v.pkts += 100;
		}
		t->n = 0;
		if (iv == 0) {
			qp(t, 256, 512, 4242, "ib_write_bw");
			memcpy(dump1, t->q, sizeof(dump1));
			CHECK_EQ(rt_qp_table_keep_gone(t, NULL, 0), 0);
		} else if (iv == 1) {
			CHECK_EQ(rt_qp_table_keep_gone(t, dump1, 1), 1);	/* the dump is empty */
		} else {
			CHECK_EQ(rt_qp_table_keep_gone(t, NULL, 0), 0);		/* the dump before: empty */
		}
		rt_join_changed(&s, t, 1);
		pid[iv] = s.flows[0].pid;
	}
	CHECK_EQ(pid[0], 4242);
	CHECK_EQ(pid[1], 4242);
	CHECK(s.nflows && !strcmp(s.flows[0].comm, "") && s.flows[0].lqpn == 0, "interval 3: owner gone");
	CHECK_EQ(pid[2], 0);
	rt_snapshot_free(&s);
	TEST_END("join_owner_kept_in_the_interval_its_process_exits");
}

/*
 * The QP table's index (join.c looks QPs up by number): 400 QPs on two
 * devices whose QP numbers repeat (mlx5_0 on eth0, mlx5_1 on eth1, the same
 * lqpn/rqpn on both), and on each interface an egress data flow to each QP's
 * peer and an ingress flow to each QP. By construction QP i of device d has
 * lqpn 1000 + i, rqpn 5000 + i, pid 10000 * (d + 1) + i: the owner of every
 * flow is known without the code. Both a plain snapshot and the persistent
 * table (which joins every row when a QP table is given).
 */
static void test_qp_index(void)
{
	enum { NQ = 200 };
	static struct rt_qp qs[2 * NQ];
	struct rt_qp_table t = { 0 };
	int bad[2] = { 0, 0 };

	t.q = qs;
	t.cap = 2 * NQ;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < NQ; i++) {
			/* interleaved: the index, not the table's order, must find them */
			struct rt_qp *q = &qs[t.n];

			qp(&t, 1000 + (__u32)((i * 37) % NQ), 5000 + (__u32)((i * 37) % NQ),
			   10000 * (__u32)(d + 1) + (__u32)((i * 37) % NQ), d ? "dev1" : "dev0");
			snprintf(q->dev, sizeof(q->dev), "mlx5_%d", d);
			snprintf(q->netdev, sizeof(q->netdev), "eth%d", d);
		}
	for (int mode = 0; mode < 2; mode++) {
		struct rt_snapshot s;

		rt_snapshot_init(&s);
		if (mode)
			CHECK(rt_snapshot_make_table(&s) == 0, "a table");
		rt_snapshot_add_iface(&s, 3, "eth0", "native");
		rt_snapshot_add_iface(&s, 4, "eth1", "native");
		for (int d = 0; d < 2; d++)
			for (int i = 0; i < NQ; i++)
				for (int dir = 0; dir < 2; dir++) {
					struct rt_flow_key k = { 0 };
					struct rt_flow *f;
					int fresh;

					k.ifindex = 3 + (__u32)d;
					k.dir = dir ? OUT : IN;
					k.family = 4;
					k.src[0] = 10, k.src[3] = (__u8)(dir ? 1 : 2);
					k.dst[0] = 10, k.dst[3] = (__u8)(dir ? 2 : 1);
					k.dqpn = (dir ? 5000 : 1000) + (__u32)i;
					f = mode ? rt_snapshot_flow(&s, &k, &fresh) : rt_snapshot_add_flow(&s);
					if (!f)
						continue;
					if (mode)	/* before the counters move */
						rt_snapshot_touch(&s, f);
					f->k = k;
					f->v.pkts = 10;
				}
		if (!mode)
			rt_snapshot_sort(&s);
		rt_join(&s, &t);
		CHECK_EQ(s.nflows, 4 * NQ);
		for (size_t r = 0; r < s.nflows; r++) {
			const struct rt_flow *f = &s.flows[r];
			__u32 i = f->k.dqpn - (f->k.dir == OUT ? 5000 : 1000), d = f->k.ifindex - 3;

			if (f->lqpn != 1000 + i || f->rqpn != 5000 + i || f->pid != 10000 * (d + 1) + i ||
			    strcmp(f->comm, d ? "dev1" : "dev0"))
				bad[mode]++;
		}
		rt_snapshot_free(&s);
	}
	CHECK(!bad[0], "plain snapshot: %d of %d flows with the wrong owner", bad[0], 4 * NQ);
	CHECK(!bad[1], "persistent table: %d of %d flows with the wrong owner", bad[1], 4 * NQ);
	TEST_END("join_qp_index");
}

/*
 * The join over the loop's persistent table, incremental (rt_join_changed:
 * only the changed rows' owners, only the CNP rows near them, while the QP
 * table stays the same) against the whole-snapshot join (rt_join on a plain
 * snapshot of the same flows, which the tests above check by hand), through
 * 80 intervals of churn: flows moving, appearing, going; QPs appearing and
 * going (the owners must go too); CNPs, ACKs and data on six hosts.
 */
#define CH_NF 160

struct ch_flow {
	int live;
	struct rt_flow_key k;
	struct rt_flow_val v;
};

static void ch_key(struct rt_flow_key *k, int i)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = 3 + (__u32)(i % 2);
	k->dir = (i / 2) % 2 ? OUT : IN;
	k->family = 4;
	k->src[0] = 10, k->src[3] = (__u8)(1 + (i / 4) % 3);
	k->dst[0] = 10, k->dst[3] = (__u8)(4 + (i / 12) % 3);
	if ((i / 36) % 2) {	/* the other way round */
		__u8 t = k->src[3];

		k->src[3] = k->dst[3];
		k->dst[3] = t;
	}
	k->dqpn = 256 + (__u32)(i % 5) * 256 + (__u32)(i / 72);
}

static void test_join_changed_churn(void)
{
	static struct ch_flow F[CH_NF];
	static struct rt_qp qs[64];
	struct rt_qp_table t = { .q = qs, .cap = 64 };
	struct rt_snapshot s;
	int bad_owner = 0, bad_attr = 0, rows = 0;

	rt_snapshot_init(&s);
	CHECK(rt_snapshot_make_table(&s) == 0, "a table");
	srand(5);
	for (int iv = 0; iv < 80; iv++) {
		struct rt_snapshot p;
		int qchanged = iv == 0;

		rt_snapshot_next_interval(&s);
		rt_snapshot_add_iface(&s, 3, "eth0", "native");
		rt_snapshot_add_iface(&s, 4, "eth1", "native");
		/* the QP table: now and then a QP comes or goes */
		if (iv == 0 || rand() % 6 == 0) {
			t.n = 0;
			for (int q = 0; q < 12; q++) {
				if (rand() % 3 == 0)
					continue;
				qp(&t, 256 + (__u32)(q % 5) * 256 + (__u32)(q / 5), 256 + (__u32)((q + 2) % 5) * 256,
				   100 + (__u32)q, q % 2 ? "ib_write_bw" : "nccl");
			}
			qchanged = 1;
		}
		for (int i = 0; i < CH_NF; i++) {
			struct ch_flow *c = &F[i];
			struct rt_flow *f;
			int r = rand() % 100, fresh;

			if (c->live && r < 3) {		/* goes */
				for (size_t row = 0; row < s.nflows; row++)
					if (!rt_flow_key_cmp(&s.flows[row].k, &c->k)) {
						rt_snapshot_remove(&s, row);
						break;
					}
				memset(c, 0, sizeof(*c));
				continue;
			}
			if (!c->live && r >= 40)
				continue;
			if (c->live && r >= 25)		/* most do not move */
				continue;
			ch_key(&c->k, i);
			c->live = 1;
			switch (rand() % 4) {
			case 0: c->v.pkts += 10; break;				/* data */
			case 1: c->v.pkts += 2; c->v.cnp += 2; break;		/* CNPs */
			case 2: c->v.pkts += 3; c->v.ack += 3; break;		/* ACKs */
			default: c->v.pkts += 5; c->v.cnp += 1; break;		/* some of each */
			}
			f = rt_snapshot_flow(&s, &c->k, &fresh);
			if (!f)
				continue;
			rt_snapshot_touch(&s, f);	/* before the counters move */
			f->v = c->v;
		}
		rt_join_changed(&s, &t, qchanged);

		/* the whole snapshot of the same flows, joined whole */
		rt_snapshot_init(&p);
		rt_snapshot_add_iface(&p, 3, "eth0", "native");
		rt_snapshot_add_iface(&p, 4, "eth1", "native");
		for (int i = 0; i < CH_NF; i++)
			if (F[i].live) {
				struct rt_flow *f = rt_snapshot_add_flow(&p);

				f->k = F[i].k;
				f->v = F[i].v;
			}
		rt_snapshot_sort(&p);
		rt_join(&p, &t);
		CHECK_EQ(s.nflows, p.nflows);
		for (size_t row = 0; row < s.nflows; row++) {
			const struct rt_flow *a = &s.flows[row], *b = NULL;

			for (size_t j = 0; j < p.nflows && !b; j++)
				if (!rt_flow_key_cmp(&p.flows[j].k, &a->k))
					b = &p.flows[j];
			rows++;
			if (!b) {
				bad_owner++;
				continue;
			}
			if (a->lqpn != b->lqpn || a->rqpn != b->rqpn || a->pid != b->pid ||
			    strcmp(a->comm, b->comm))
				bad_owner++;
			if (a->attr != b->attr || (a->throttles < 0) != (b->throttles < 0) ||
			    (a->throttles >= 0 &&
			     rt_flow_key_cmp(&s.flows[a->throttles].k, &p.flows[b->throttles].k)))
				bad_attr++;
		}
		rt_snapshot_free(&p);
	}
	CHECK(rows > 80 * 30, "rows compared: %d", rows);
	CHECK_EQ(bad_owner, 0);
	CHECK_EQ(bad_attr, 0);
	rt_snapshot_free(&s);
	TEST_END("join_changed_against_whole_join_churn");
}

/*
 * A QP on its way down is dumped without its peer's number (rdma_cm's
 * disconnect puts it in the error state): it keeps the number of the dump
 * before, for the same QP of the same process, and not for another's.
 */
static void test_rqpn_kept_while_going_down(void)
{
	struct rt_qp q1[1], q2[3];
	struct rt_qp_table t = { .q = q2, .cap = 3 };
	struct rt_qp_table before = { .q = q1, .cap = 1 };

	qp(&before, 24, 24, 999, "ib_write_bw");
	qp(&t, 24, 0, 999, "ib_write_bw");
	t.q[0].has_rqpn = 0;
	qp(&t, 25, 0, 1000, "other");		/* no number before: stays without */
	t.q[1].has_rqpn = 0;
	CHECK_EQ(rt_qp_table_keep_gone(&t, before.q, before.n), 0);
	CHECK(t.q[0].has_rqpn && t.q[0].rqpn == 24, "QP 24 keeps its peer's number 24 (has %d, %u)",
	      t.q[0].has_rqpn, t.q[0].rqpn);
	CHECK(!t.q[1].has_rqpn, "QP 25 has no number of its own to keep");
	before.q[0].pid = 4242;			/* another process's QP 24 before */
	t.q[0].has_rqpn = 0;
	rt_qp_table_keep_gone(&t, before.q, before.n);
	CHECK(!t.q[0].has_rqpn, "another process's QP 24 lends it nothing");
	TEST_END("join_rqpn_kept_while_going_down");
}

int main(void)
{
	struct rt_qp_table other = { 0 };
	struct rt_qp q[1];

	test_rp_host_netlink();
	test_np_host_netlink();
	test_ack_and_hostpair(NULL, "join_ack_and_hostpair_without_table");
	/* a table that knows none of these QPs changes nothing */
	other.q = q;
	other.cap = 1;
	qp(&other, 9999, 8888, 1, "x");
	test_ack_and_hostpair(&other, "join_ack_and_hostpair_unknown_qps");
	test_owner_by_address();
	test_cm_flows();
	test_owner_of_exited_process();
	test_rqpn_kept_while_going_down();
	test_qp_index();
	test_join_changed_churn();
	return TEST_EXIT();
}
