// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A live source with the NIC's counters, stepped the new way (stream.c: the
 * flows read into the table in place, the NIC's per-QP flows put there, the
 * join on what changed) against the whole-snapshot path it replaced (every
 * flow into a plain snapshot, the NIC's flows and join on all of it, folded
 * into the table), on the same counts: after every interval both tables hold
 * the same rows (every field, the CNP's target by key) and both deltas name
 * the same flows with the same increases.
 *
 * The NIC is the hwhost fixtures (tests/fixtures/hwhost: sysfs, ethtool, the
 * rdma netlink QP table and per-QP counters), its root switched between
 * intervals so that the per-QP counters move (healthy -> healthy-t1) and go
 * (a sysfs tree without rdma netlink dumps) and come back. The wire's flows
 * are built from the fixture's QP table (data and CNPs to and from its QPs,
 * ACKs, flows no QP owns), k of them moving per interval, some appearing
 * late and some going.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "nic.h"
#include "snapshot.h"
#include "source.h"
#include "stream.h"

#define HW "tests/fixtures/hwhost/"
#define NW 96

struct wire {
	struct rt_flow_key k[NW];
	struct rt_flow_val v[NW];
	int live[NW], moved[NW];
	/* same shape as bench/nic_bench.c's wire source: the bench measures, this test checks; neither links the other */
	__u64 now;
};

static int wire_collect(struct rt_source *src, struct rt_snapshot *s)
{
	struct wire *w = src->priv;

	s->time_ns = s->mono_ns = w->now;
	snprintf(s->source, sizeof(s->source), "test");
	rt_snapshot_add_iface(s, 1, "eth2", "native");
	for (int i = 0; i < NW; i++) {
		struct rt_flow *f;
		int fresh;

		if (src->incremental) {
			if (w->live[i] && w->moved[i]) {
				if (!(f = rt_snapshot_flow(s, &w->k[i], &fresh)))
					return -1;
				rt_snapshot_touch(s, f);	/* before the counters move */
				f->v = w->v[i];
			} else if (!w->live[i]) {	/* gone from the kernel's table */
				if ((f = rt_snapshot_flow(s, &w->k[i], &fresh)))
					rt_snapshot_remove(s, (size_t)(f - s->flows));
			}
		} else if (w->live[i]) {
			if (!(f = rt_snapshot_add_flow(s)))
				return -1;
			f->k = w->k[i];
			f->v = w->v[i];
		}
	}
	return 1;
}

/* Flows on the fixture's QPs, keyed as the NIC keys its own per-QP flows
 * (addresses from the CM IDs, our QP in, the peer's out), seen on the wire:
 * data and CNPs to our QP and to the peer's, ACKs, the same QPs on a second
 * interface, and flows no QP owns. */
static int make_wire(struct wire *w)
{
	struct rt_nic_cfg c = { .sysfs_root = HW "healthy" };
	struct rt_nic *nic;
	struct rt_snapshot s;
	struct rt_flow_key base[16];
	int nb = 0, n = 0;

	rt_snapshot_init(&s);
	if (!(nic = rt_nic_new(&c)))
		return 0;
	rt_nic_collect(nic, &s);
	for (size_t i = 0; i < s.nflows && nb < 16; i++)
		if (s.flows[i].k.origin == RT_ORIGIN_NIC)
			base[nb++] = s.flows[i].k;
	rt_nic_free(nic);
	rt_snapshot_free(&s);
	for (int q = 0; nb && n < NW; q++) {
		struct rt_flow_key *k = &w->k[n];

		*k = base[q % nb];
		k->origin = RT_ORIGIN_WIRE;
		k->ifindex = 1 + (__u32)(q / nb) % 2;	/* eth2, and an interface without a name */
		if ((q / (2 * nb)) % 3 == 2)		/* no QP of the table */
			k->dqpn = 0x7000 + (__u32)q;
		k->mirror_id = (__u32)(q / (2 * nb));	/* keys must differ */
		n++;
	}
	return n;
}

static void count(struct wire *w, int iv)
{
	w->now = (__u64)(iv + 1) * 1000000000ULL;
	for (int i = 0; i < NW; i++) {
		struct rt_flow_val *v = &w->v[i];
		int r = rand() % 100;

		w->moved[i] = 0;
		if (w->live[i] && r < 4) {		/* goes */
			w->live[i] = 0;
			memset(v, 0, sizeof(*v));
			continue;
		}
		if (!w->live[i] && (iv == 0 ? i % 5 == 0 : r >= 30))
			continue;			/* comes later */
		if (w->live[i] && r >= 30)
			continue;			/* most do not move */
		w->live[i] = 1;
		w->moved[i] = 1;
		switch ((i + rand()) % 4) {
		case 0: v->pkts += 50; v->bytes += 50000; v->ecn[RT_ECN_CE] += 5; break;
		case 1: v->pkts += 3; v->cnp += 3; break;
		case 2: v->pkts += 4; v->ack += 4; break;
		default: v->pkts += 20; v->cnp += 1; v->bytes += 9000; break;
		}
		if (!v->first_ns)
			v->first_ns = w->now;
		v->last_ns = w->now;
	}
}

static int same_row(const struct rt_snapshot *a, const struct rt_flow *x, const struct rt_snapshot *b,
		    const struct rt_flow *y)
{
	if (memcmp(&x->k, &y->k, sizeof(x->k)) || memcmp(&x->v, &y->v, sizeof(x->v)) ||
	    x->lqpn != y->lqpn || x->rqpn != y->rqpn || x->pid != y->pid ||
	    memcmp(x->comm, y->comm, sizeof(x->comm)) || x->attr != y->attr ||
	    x->estimate != y->estimate || x->samples != y->samples || x->sw_drops != y->sw_drops)
		return 0;
	if ((x->throttles < 0) != (y->throttles < 0))
		return 0;
	return x->throttles < 0 ||
	       !rt_flow_key_cmp(&a->flows[x->throttles].k, &b->flows[y->throttles].k);
}

int main(void)
{
	static const char *const roots[] = { HW "healthy", HW "healthy-t1", "tests/fixtures/sysfs/mlx5-host/t0",
					     HW "healthy", HW "healthy-t1", HW "healthy" };
	static struct wire w;
	struct rt_source src[2];
	struct rt_stream st[2];
	struct rt_nic *nic[2] = { NULL, NULL };
	struct rt_snapshot sa, sb;
	struct rt_nic_cfg c = { .sysfs_root = roots[0] };
	int bad_rows = 0, bad_delta = 0, rows = 0, nic_rows = 0, attributed = 0, owned = 0, nw;

	nw = make_wire(&w);
	CHECK_EQ(nw, NW);
	memset(st, 0, sizeof(st));
	rt_snapshot_init(&sa);
	rt_snapshot_init(&sb);
	for (int p = 0; p < 2; p++) {
		struct rt_nic_view view;

		memset(&src[p], 0, sizeof(src[p]));
		src[p].name = "test-live";
		src[p].collect = wire_collect;
		src[p].priv = &w;
		/* 0: live, stepped in place (stream.c); 1: the whole-snapshot path */
		src[p].live = p == 0;
		nic[p] = rt_nic_new(&c);
		view = rt_nic_view(nic[p]);
		CHECK(nic[p] && !rt_stream_init(&st[p], &src[p], &view), "stream %d", p);
	}
	srand(3);
	for (int iv = 0; iv < 60 && nic[0] && nic[1]; iv++) {
		const char *root = roots[(iv / 5) % (sizeof(roots) / sizeof(roots[0]))];

		count(&w, iv);
		for (int p = 0; p < 2; p++) {
			rt_nic_set_root(nic[p], root);
			CHECK_EQ(rt_stream_step(&st[p]), 1);
		}
		CHECK_EQ(src[0].incremental, 1);
		CHECK_EQ(src[1].incremental, 0);
		/* the tables, in key order */
		CHECK_EQ(rt_snapshot_copy_sorted(&sa, &st[0].cur), 0);
		CHECK_EQ(rt_snapshot_copy_sorted(&sb, &st[1].cur), 0);
		CHECK_EQ(sa.nflows, sb.nflows);
		for (size_t i = 0; i < sa.nflows && i < sb.nflows; i++) {
			rows++;
			nic_rows += sa.flows[i].k.origin == RT_ORIGIN_NIC;
			attributed += sa.flows[i].attr == RT_ATTR_NETLINK;
			owned += sa.flows[i].k.origin == RT_ORIGIN_WIRE && sa.flows[i].pid;
			bad_rows += !same_row(&sa, &sa.flows[i], &sb, &sb.flows[i]);
		}
		/* the deltas: the same flows, the same increases */
		CHECK_EQ(st[0].delta.nflows, st[1].delta.nflows);
		for (size_t i = 0; i < st[0].delta.nflows && i < st[1].delta.nflows; i++) {
			const struct rt_flow_delta *x = &st[0].delta.flows[i], *y = &st[1].delta.flows[i];

			bad_delta += rt_flow_key_cmp(&x->f->k, &y->f->k) || memcmp(&x->d, &y->d, sizeof(x->d));
		}
		CHECK_EQ(st[0].cur.nports, st[1].cur.nports);
	}
	CHECK_EQ(bad_rows, 0);
	CHECK_EQ(bad_delta, 0);
	/* the comparison had something to compare */
	CHECK(rows > 60 * 40, "rows compared: %d", rows);
	CHECK(nic_rows > 0, "NIC flows: %d", nic_rows);
	CHECK(owned > 0, "wire flows with an owner from the QP table: %d", owned);
	CHECK(attributed > 0, "CNP flows attributed through the QP table: %d", attributed);
	for (int p = 0; p < 2; p++) {
		rt_stream_free(&st[p]);
		rt_nic_free(nic[p]);
	}
	rt_snapshot_free(&sa);
	rt_snapshot_free(&sb);
	TEST_END("nic_stream_in_place_against_whole_snapshot");
	return TEST_EXIT();
}
