// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a pause storm started (user/report/report_origin.c): a file's pause
 * episodes from hand-built intervals, and the origin, roles and tree over
 * hand-built hosts, each expected value worked out in the comments.
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "report_agg.h"

#define S(x) ((__u64)((x) * 1e9))

/* One interval ending at t: interface 7 (eth0) egress with frames and xon
 * on priority 3, and the NIC counter tx_prio3_pause of eth1 rising by nic. */
static int take(struct rt_rep *r, double t, __u64 frames, __u64 xon, __u64 nic)
{
	static struct rt_snapshot s;
	struct rt_ifdir ifd = { .k = { .ifindex = 7, .dir = RT_DIR_EGRESS } };
	struct rt_ifdir_delta id = { .s = &ifd };
	struct rt_port_ctr pc = { .netdev = "eth1", .name = "tx_prio3_pause" };
	struct rt_port_delta pd = { .c = &pc, .d = nic };
	struct rt_delta d = { .secs = 1, .ifs = &id, .nifs = 1, .ports = &pd, .nports = 1 };

	memset(&s, 0, sizeof(s));
	s.time_ns = S(t);
	s.nifaces = 1;
	s.ifaces[0].ifindex = 7;
	strcpy(s.ifaces[0].name, "eth0");
	id.d.pfc_frames[3] = frames;
	id.d.pfc_xon[3] = xon;
	return rt_rep_take(r, &s, &d);
}

static void test_episodes(void)
{
	struct rt_rep r;
	const struct rt_rep_pep *e;

	CHECK_EQ(rt_rep_init(&r, 10), 0);
	/* t=10: 4 frames, 1 XON (the first interval: its start is 10 - 1 s);
	 * 11: 3, XON only (no pause: the episode ends); 12, 13: 5 and 6;
	 * 14: none; 15: 2. The NIC: 4 at 13, 1 at 14. */
	CHECK_EQ(take(&r, 10, 4, 1, 0), 0);
	CHECK_EQ(take(&r, 11, 3, 3, 0), 0);
	CHECK_EQ(take(&r, 12, 5, 0, 0), 0);
	CHECK_EQ(take(&r, 13, 6, 0, 4), 0);
	CHECK_EQ(take(&r, 14, 0, 0, 1), 0);
	CHECK_EQ(take(&r, 15, 2, 0, 0), 0);
	CHECK_EQ(rt_rep_finish(&r, 0), 0);
	CHECK_EQ(r.npeps, 4);
	e = &r.peps[0];		/* (9, 10], 3 frames */
	CHECK(!strcmp(e->name, "eth0") && e->dir == RT_DIR_EGRESS && e->prio == 3 && !e->nic, "eth0 egress 3");
	CHECK_EQ(e->start_ns, S(9));
	CHECK_EQ(e->first_ns, S(10));
	CHECK_EQ(e->end_ns, S(10));
	CHECK_EQ(e->frames, 3);
	e = &r.peps[1];		/* (11, 12] to 13: 11 frames */
	CHECK_EQ(e->start_ns, S(11));
	CHECK_EQ(e->first_ns, S(12));
	CHECK_EQ(e->end_ns, S(13));
	CHECK_EQ(e->frames, 11);
	e = &r.peps[2];		/* the NIC's: (12, 13] to 14, 5 */
	CHECK(!strcmp(e->name, "eth1") && e->nic && e->dir == RT_DIR_EGRESS && e->prio == 3, "the NIC's");
	CHECK_EQ(e->start_ns, S(12));
	CHECK_EQ(e->end_ns, S(14));
	CHECK_EQ(e->frames, 5);
	e = &r.peps[3];		/* (14, 15], 2 */
	CHECK_EQ(e->start_ns, S(14));
	CHECK_EQ(e->frames, 2);
	rt_rep_free(&r);
	TEST_END("report_origin_episodes");
}

/* Episodes beyond RT_REP_PEPS_MAX are counted, not kept: a pause every
 * other interval, RT_REP_PEPS_MAX + 3 times. */
static void test_episodes_bound(void)
{
	struct rt_rep r;
	int i;

	CHECK_EQ(rt_rep_init(&r, 10), 0);
	for (i = 0; i < 2 * (RT_REP_PEPS_MAX + 3); i++)
		CHECK_EQ(take(&r, 10 + i, i % 2 ? 0 : 1, 0, 0), 0);
	CHECK_EQ(rt_rep_finish(&r, 0), 0);
	CHECK_EQ(r.npeps, RT_REP_PEPS_MAX);
	CHECK_EQ(r.peps_left, 3);
	CHECK_EQ(r.peps[RT_REP_PEPS_MAX - 1].first_ns, S(10 + 2 * (RT_REP_PEPS_MAX - 1)));
	rt_rep_free(&r);
	TEST_END("report_origin_episodes_bound");
}

/* ---- the origin over hand-built hosts ---- */

static struct rt_rep_pep pep(const char *name, __u8 dir, double start, __u64 frames)
{
	struct rt_rep_pep e = { .dir = dir, .prio = 3, .frames = frames };

	snprintf(e.name, sizeof(e.name), "%s", name);
	e.start_ns = S(start);
	e.first_ns = e.end_ns = S(start + 1);
	return e;
}

#define TX RT_DIR_EGRESS
#define RX RT_DIR_INGRESS

/* R sends on r0 in (100, 101]; S receives it on swr and, two intervals
 * later, sends on swa and swb; A and B receive on a0 and b0. */
struct fab {
	struct rt_rep_pep r[2], s[3], a[2], b[1];
	struct rt_po_host h[4];
};

static void fab_init(struct fab *f)
{
	memset(f, 0, sizeof(*f));
	f->r[0] = pep("r0", TX, 100, 50);
	f->s[0] = pep("swr", RX, 100, 50);
	f->s[1] = pep("swa", TX, 102, 30);
	f->s[2] = pep("swb", TX, 102, 30);
	f->a[0] = pep("a0", RX, 102, 30);
	f->b[0] = pep("b0", RX, 102, 30);
	f->h[0] = (struct rt_po_host){ .label = "R", .peps = f->r, .npeps = 1, .clock_known = 1 };
	f->h[1] = (struct rt_po_host){ .label = "S", .peps = f->s, .npeps = 3, .clock_known = 1 };
	f->h[2] = (struct rt_po_host){ .label = "A", .peps = f->a, .npeps = 1, .clock_known = 1 };
	f->h[3] = (struct rt_po_host){ .label = "B", .peps = f->b, .npeps = 1, .clock_known = 1 };
}

/* The node of host h. */
static const struct rt_po_node *node(const struct rt_po_prio *P, int h)
{
	for (int i = 0; i < P->n; i++)
		if (P->node[i].host == h)
			return &P->node[i];
	return NULL;
}

static void test_one_origin(void)
{
	struct rt_po_prio P[RT_NPRIO];
	struct fab f;

	fab_init(&f);
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK_EQ(P[0].prio, 3);
	CHECK_EQ(P[0].n, 4);
	CHECK_EQ(P[0].norigins, 1);
	CHECK_EQ(P[0].decided, 1);
	/* in time order: R and S both from 100 (host order), then A, B */
	CHECK(P[0].node[0].host == 0 && P[0].node[1].host == 1 && P[0].node[2].host == 2, "time order");
	CHECK_EQ(node(&P[0], 0)->role, RT_PO_ORIGIN);
	CHECK_EQ(node(&P[0], 0)->parent, -1);
	CHECK_EQ(node(&P[0], 1)->role, RT_PO_SPREAD);
	CHECK_EQ(P[0].node[node(&P[0], 1)->parent].host, 0);
	CHECK(node(&P[0], 1)->linked && !strcmp(node(&P[0], 1)->from_if, "r0"), "S from R's r0");
	CHECK_EQ(node(&P[0], 2)->role, RT_PO_PAUSED);
	CHECK_EQ(P[0].node[node(&P[0], 2)->parent].host, 1);
	/* swa and swb sent 30 each from (102, 103]: either is A's other end */
	CHECK(node(&P[0], 2)->linked && !strcmp(node(&P[0], 2)->from_if, "swa|swb"), "A from S's swa|swb");
	CHECK_EQ(node(&P[0], 2)->tx_frames, 0);
	CHECK_EQ(node(&P[0], 2)->rx_frames, 30);
	/* swb sent 40: only swa matches B's 30 */
	f.s[2].frames = 40;
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK(!strcmp(node(&P[0], 3)->from_if, "swa"), "B from swa alone");
	/* nothing S sent matches B (swa 20, swb 40): the last sender before, by time */
	f.s[1].frames = 20;
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK(!node(&P[0], 3)->linked && P[0].node[node(&P[0], 3)->parent].host == 1, "B from S by time");
	CHECK_EQ(P[0].decided, 1);
	TEST_END("report_origin_one");
}

static void test_undecided(void)
{
	struct rt_po_prio P[RT_NPRIO];
	struct fab f;

	/* A sends on a0 in (101, 102], before it receives in (102, 103]: two origins */
	fab_init(&f);
	f.a[1] = pep("a0", TX, 101, 10);
	f.h[2].npeps = 2;
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK_EQ(P[0].norigins, 2);
	CHECK_EQ(P[0].decided, 0);
	CHECK_EQ(node(&P[0], 2)->role, RT_PO_ORIGIN);
	CHECK_EQ(node(&P[0], 2)->parent, -1);
	/* ... in the interval it receives, (102, 103]: which came first is unknown */
	f.a[1] = pep("a0", TX, 102, 10);
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK_EQ(node(&P[0], 2)->role, RT_PO_UNSURE);
	CHECK_EQ(P[0].norigins, 1);
	CHECK_EQ(P[0].nunsure, 1);
	CHECK_EQ(P[0].decided, 0);
	/* B's clock unknown: unplaced, no parent, not decided */
	fab_init(&f);
	f.h[3].clock_known = 0;
	CHECK_EQ(rt_po_build(f.h, 4, P), 1);
	CHECK_EQ(node(&P[0], 3)->role, RT_PO_UNPLACED);
	CHECK_EQ(node(&P[0], 3)->parent, -1);
	CHECK_EQ(P[0].nunplaced, 1);
	CHECK_EQ(P[0].decided, 0);
	/* R not recorded: S received first from no one; no origin */
	fab_init(&f);
	CHECK_EQ(rt_po_build(f.h + 1, 3, P), 1);
	CHECK_EQ(P[0].norigins, 0);
	CHECK_EQ(node(&P[0], 0)->role, RT_PO_SPREAD);
	CHECK_EQ(node(&P[0], 0)->parent, -1);
	CHECK_EQ(P[0].decided, 0);
	/* another priority apart: priority 5 paused at B only */
	fab_init(&f);
	f.b[0].prio = 5;
	CHECK_EQ(rt_po_build(f.h, 4, P), 2);
	CHECK(P[0].prio == 3 && P[1].prio == 5 && P[1].n == 1, "priorities apart");
	CHECK_EQ(P[1].node[0].role, RT_PO_PAUSED);
	CHECK_EQ(P[1].node[0].parent, -1);
	TEST_END("report_origin_undecided");
}

int main(void)
{
	test_episodes();
	test_episodes_bound();
	test_one_origin();
	test_undecided();
	return TEST_EXIT();
}
