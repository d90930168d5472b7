// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The arithmetic of the live view's header and detail, in the model
 * (tui/tui_panels.c): PFC per priority with the paused share, the NIC's
 * congestion counters summed over ports, and the detail's rates over the
 * interval and the averaging windows. Expected values are worked out by
 * hand in the comments.
 */
#include <math.h>
#include <string.h>
#include "check.h"
#include "../../tui/tui_model.h"

static int NEAR(double x, double want)
{
	return fabs(x - want) < 1e-9 * (fabs(want) + 1);
}

static void test_pfc(void)
{
	struct rt_snapshot s;
	struct rt_ifdir rows[2];
	struct rt_ifdir_delta dd[2];
	struct rt_delta D;
	struct tui_pfc_prio pf[RT_NPRIO];

	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 1, "a", "native");
	rt_snapshot_add_iface(&s, 2, "b", "native");
	s.ifaces[0].speed_mbps = 10000;	/* a: 10 Gb/s as recorded; b: not known, 100G assumed */
	memset(rows, 0, sizeof(rows));
	memset(dd, 0, sizeof(dd));
	memset(&D, 0, sizeof(D));
	rows[0].k.ifindex = 1;
	rows[1].k.ifindex = 2;
	dd[0].s = &rows[0];
	dd[1].s = &rows[1];
	/* rows of a recording without measured paused time: estimated from the quanta */
	rows[0].paused_est = rows[1].paused_est = 1;
	/* priority 3: a 4 frames (1 XON) of 100000 quanta, b 2 frames of 50000 */
	dd[0].d.pfc_frames[3] = 4;
	dd[0].d.pfc_xon[3] = 1;
	dd[0].d.pfc_quanta[3] = 100000;
	dd[1].d.pfc_frames[3] = 2;
	dd[1].d.pfc_quanta[3] = 50000;
	/* priority 5: only on b, whose speed is unknown */
	dd[1].d.pfc_frames[5] = 7;
	D.ifs = dd;
	D.nifs = 2;

	tui_pfc_prios(&s, &D, 1.0, 0, pf);
	CHECK_EQ(pf[3].frames, 6);
	CHECK_EQ(pf[3].xon, 1);
	/* a: 100000 * 512 bits at 10 Gb/s = 0.00512 s, 0.512 % of 1 s; b: 50000 * 512 bits
	 * at 100 Gb/s (assumed) = 0.000256 s */
	CHECK(NEAR(pf[3].paused, 0.005376), "paused %g", pf[3].paused);
	CHECK(NEAR(pf[3].share, 0.512), "share %g", pf[3].share);
	CHECK(pf[5].frames == 7 && pf[5].share == 0, "prio 5: no quanta, share %g", pf[5].share);
	CHECK(pf[0].frames == 0 && pf[0].share == -1, "prio 0: nothing");
	/* totals (secs 0): seconds, and a share of 0 */
	tui_pfc_prios(&s, &D, 0, 0, pf);
	CHECK(NEAR(pf[3].paused, 0.005376) && pf[3].share == 0, "totals: share %g", pf[3].share);
	/* --link-speed 25G for every interface */
	tui_pfc_prios(&s, &D, 1.0, 25000, pf);
	CHECK(NEAR(pf[3].paused, 150000 * 512 / 25e9), "given: paused %g", pf[3].paused);
	/* estimated, the quanta's time is capped at the interval: 300,000,000
	 * quanta at 10 Gb/s (15.36 s) stand for 1 s; b adds its 0.000256 s */
	dd[0].d.pfc_quanta[3] = 300000000ULL;
	tui_pfc_prios(&s, &D, 1.0, 0, pf);
	CHECK(NEAR(pf[3].paused, 1.000256), "capped: paused %g", pf[3].paused);
	/* measured (rows of a live source or a capture): the union the source
	 * gave, whatever the quanta: a 3 ms, b 1 ms, a 0.3 % of 1 s */
	rows[0].paused_est = rows[1].paused_est = 0;
	dd[0].d.pfc_paused_ns[3] = 3000000;
	dd[1].d.pfc_paused_ns[3] = 1000000;
	tui_pfc_prios(&s, &D, 1.0, 0, pf);
	CHECK(NEAR(pf[3].paused, 0.004), "measured: paused %g", pf[3].paused);
	CHECK(NEAR(pf[3].share, 0.3), "measured: share %g", pf[3].share);
	rt_snapshot_free(&s);
	TEST_END("tui_header_pfc");
}

/* The jobs view's paused time: per interface and priority the longest of the
 * directions' quanta and the NIC's duration counters; per job the longest
 * on its flows' way; counts folded by rt_jobagg. */
static void test_jobs_paused(void)
{
	struct rt_snapshot s;
	struct rt_ifdir rows[2];
	struct rt_ifdir_delta dd[2];
	struct rt_port_ctr pc[2];
	struct rt_port_delta pd[2];
	struct rt_delta D;
	struct tui_row r[3];
	struct rt_jobagg a;
	const char *names[] = { "tx_prio3_pause_duration", "rx_prio5_pause_duration" };

	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 1, "a", "native");
	rt_snapshot_add_iface(&s, 2, "b", "native");
	s.ifaces[0].speed_mbps = 10000;
	memset(rows, 0, sizeof(rows));
	memset(dd, 0, sizeof(dd));
	memset(pc, 0, sizeof(pc));
	memset(pd, 0, sizeof(pd));
	memset(&D, 0, sizeof(D));
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		rows[i].k.ifindex = 1;
		rows[i].k.dir = i ? RT_DIR_EGRESS : RT_DIR_INGRESS;
		rows[i].paused_est = 1;	/* from the quanta (a recording without measured time) */
		dd[i].s = &rows[i];
		dd[i].d.pfc_frames[3] = 1;
		snprintf(pc[i].netdev, sizeof(pc[i].netdev), "a");
		snprintf(pc[i].name, sizeof(pc[i].name), "%s", names[i]);
		pc[i].scope = RT_SCOPE_ETHTOOL;
		pc[i].value = 50000 + 1000000 * (__u64)i;
		pd[i].c = &pc[i];
		pd[i].d = 20000 + 1000000 * (__u64)i;
	}
	/* priority 3 on a (10 Gb/s): in 100000 quanta (5.12 ms), out 300000 (15.36 ms) */
	dd[0].d.pfc_quanta[3] = 100000;
	dd[1].d.pfc_quanta[3] = 300000;
	D.ifs = dd, D.nifs = 2, D.ports = pd, D.nports = 2;
	CHECK(NEAR(tui_paused_secs(&s, &D, 0, 0, "a", 3), 0.02), "the NIC's 20 ms");
	CHECK(NEAR(tui_paused_secs(&s, &D, 1, 0, "a", 3), 0.05), "totals: the NIC's value, 50 ms");
	pd[0].d = 0;
	CHECK(NEAR(tui_paused_secs(&s, &D, 0, 0, "a", 3), 0.01536), "the longer direction, 15.36 ms");
	CHECK(tui_paused_secs(&s, &D, 0, 0, "b", 3) == 0, "b: none");
	CHECK(NEAR(tui_paused_secs(&s, &D, 0, 0, "a", 5), 1.02), "priority 5: the NIC's 1.02 s");
	/* flows: two ranks of slurm:1 on a priority 3, one of slurm:2 on b */
	for (int i = 0; i < 3; i++) {
		struct rt_flow *f = rt_snapshot_add_flow(&s);
		struct rt_job *j = rt_snapshot_add_job(&s);

		f->k.ifindex = i < 2 ? 1 : 2;
		f->k.dqpn = 10 + (__u32)i;
		f->v.dscp = 26;
		f->v.pcp = RT_PCP_NONE;
		j->kind = RT_JOB_SLURM;
		j->rank = i;
		snprintf(j->job, sizeof(j->job), "%d", i < 2 ? 1 : 2);
		f->job = (__u32)s.njobs;
	}
	for (int i = 0; i < 3; i++) {
		r[i].f = &s.flows[i];
		r[i].d.pkts = 10 * (__u64)(i + 1);
		r[i].d.ecn[RT_ECN_CE] = i == 2 ? 7 : 1;
	}
	rt_jobagg_init(&a, RT_GROUP_JOB);
	CHECK(!tui_jobs_fold(&s, &D, 0, 0, r, 3, &a), "fold");
	CHECK_EQ(rt_jobagg_sorted(&a), 2);
	if (a.t.n == 2) {
		CHECK(!strcmp(a.order[0]->key, "slurm:2") && a.order[0]->flows == 1 && a.order[0]->pkts == 30 &&
		      a.order[0]->paused == 0, "slurm:2 first (7 CE), on b: not paused");
		CHECK(!strcmp(a.order[1]->key, "slurm:1") && a.order[1]->flows == 2 && a.order[1]->pkts == 30 &&
		      a.order[1]->ce == 2 && a.order[1]->nranks == 2 && NEAR(a.order[1]->paused, 0.01536),
		      "slurm:1: 2 flows, ranks 0 and 1, 15.36 ms paused (%g)", a.order[1]->paused);
	}
	rt_jobagg_free(&a);
	rt_snapshot_free(&s);
	TEST_END("tui_jobs_paused");
}

static void test_nic(void)
{
	static const struct { const char *name; __u32 port; int cong; __u64 value, d; } in[] = {
		{ "np_cnp_sent", 1, 1, 100, 5 },
		{ "np_cnp_sent", 2, 1, 200, 7 },
		{ "rp_cnp_handled", 1, 1, 9, 0 },
		{ "roce_adp_retrans", 1, 1, 30, 3 },
		{ "roce_slow_restart", 1, 1, 4, 0 },
		{ "port_xmit_data", 1, 0, 1000, 100 },
	};
	struct rt_port_ctr c[6];
	struct rt_port_delta pd[6];
	struct rt_delta D;
	struct tui_nic_sum ns[8];
	size_t n;

	memset(&D, 0, sizeof(D));
	for (size_t i = 0; i < 6; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		strcpy(c[i].name, in[i].name);
		strcpy(c[i].dev, "mlx5_0");
		c[i].port = in[i].port;
		c[i].congestion = (__u8)in[i].cong;
		c[i].value = in[i].value;
		pd[i].c = &c[i];
		pd[i].d = in[i].d;
	}
	D.ports = pd;
	D.nports = 6;
	/* the interval: the DCQCN ones first under short names (cnp_sent 5 + 7,
	 * cnp_handled 0), then the others that moved; port_xmit_data is no
	 * congestion counter */
	n = tui_nic_sums(&D, 0, ns, 8);
	CHECK_EQ(n, 3);
	CHECK(n == 3 && !strcmp(ns[0].name, "cnp_sent") && ns[0].v == 12, "cnp_sent");
	CHECK(n == 3 && !strcmp(ns[1].name, "cnp_handled") && ns[1].v == 0, "cnp_handled");
	CHECK(n == 3 && !strcmp(ns[2].name, "roce_adp_retrans") && ns[2].v == 3, "roce_adp_retrans");
	/* totals: values, and the one that did not move too */
	n = tui_nic_sums(&D, 1, ns, 8);
	CHECK_EQ(n, 4);
	CHECK(n == 4 && ns[0].v == 300 && ns[1].v == 9 && ns[2].v == 30 &&
	      !strcmp(ns[3].name, "roce_slow_restart") && ns[3].v == 4, "totals");
	/* no more than asked for */
	CHECK_EQ(tui_nic_sums(&D, 1, ns, 2), 2);
	TEST_END("tui_header_nic");
}

static void snap1(struct rt_snapshot *s, double t, __u64 pkts, __u64 ce, __u64 cnp, __u64 nak)
{
	struct rt_flow *f;

	rt_snapshot_clear(s);
	s->time_ns = (__u64)(t * 1e9);
	s->mono_ns = s->time_ns;
	rt_snapshot_add_iface(s, 7, "veth0", "native");
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 7;
	f->k.family = 4;
	f->k.dqpn = 0x10;
	f->v.pkts = pkts;
	f->v.bytes = 100 * pkts;
	f->v.ecn[RT_ECN_CE] = ce;
	f->v.cnp = cnp;
	f->v.nak_seq = nak;
}

static void test_detail(void)
{
	struct rt_snapshot a, b;
	struct rt_delta d = { 0 };
	struct tui_data t;
	struct tui_detail dt;
	double v[TUI_HIST], max;
	int n;

	rt_snapshot_init(&a);
	rt_snapshot_init(&b);
	tui_data_init(&t);
	/* t = 100: 10 pkts, 2 CE (the first interval, 2 s); t = 102: 50 pkts,
	 * 6 CE, 4 CNPs, 2 NAKs: the interval adds 40 pkts, 4 CE, 4 CNPs, 2 NAKs */
	snap1(&a, 100, 10, 2, 0, 0);
	snap1(&b, 102, 50, 6, 4, 2);
	CHECK_EQ(rt_delta_compute(&d, NULL, &a), 0);
	d.secs = 2;
	CHECK_EQ(tui_data_take(&t, &a, &d), 0);
	CHECK_EQ(rt_delta_compute(&d, &a, &b), 0);
	CHECK_EQ(tui_data_take(&t, &b, &d), 0);

	tui_detail_rates(&t, 0, &dt);
	/* now: 40 pkts in 2 s; 4000 bytes = 32000 bits in 2 s; 4 CE of 40 */
	CHECK(NEAR(dt.v[TUI_DM_PKTS][0], 20), "pkts/s %g", dt.v[TUI_DM_PKTS][0]);
	CHECK(NEAR(dt.v[TUI_DM_GBPS][0], 1.6e-5), "Gb/s %g", dt.v[TUI_DM_GBPS][0]);
	CHECK(NEAR(dt.v[TUI_DM_CE][0], 10), "CE %% %g", dt.v[TUI_DM_CE][0]);
	CHECK(NEAR(dt.v[TUI_DM_CNP][0], 2) && NEAR(dt.v[TUI_DM_NAK][0], 1), "CNP and NAK rates");
	/* 2 s window: the newest interval only; 10 s: both, 50 pkts and 6 CE in 4 s */
	CHECK(NEAR(dt.v[TUI_DM_PKTS][1], 20), "2 s pkts/s %g", dt.v[TUI_DM_PKTS][1]);
	CHECK(NEAR(dt.v[TUI_DM_PKTS][2], 12.5), "10 s pkts/s %g", dt.v[TUI_DM_PKTS][2]);
	CHECK(NEAR(dt.v[TUI_DM_CE][2], 12), "10 s CE %% %g", dt.v[TUI_DM_CE][2]);
	CHECK(NEAR(dt.v[TUI_DM_CNP][3], 1), "40 s CNP/s %g", dt.v[TUI_DM_CNP][3]);
	CHECK_EQ(dt.total[TUI_DM_PKTS], 50);
	CHECK_EQ(dt.total[TUI_DM_GBPS], 5000);	/* bytes */
	CHECK_EQ(dt.total[TUI_DM_CE], 6);
	CHECK_EQ(dt.total[TUI_DM_CNP], 4);
	CHECK_EQ(dt.total[TUI_DM_NAK], 2);

	/* sparklines, oldest first: CE % 2/10 = 20 then 4/40 = 10; CNP/s 0 then 2 */
	n = tui_detail_series(tui_hists_get(&t.hists, 0), 0, TUI_HIST, v, &max);
	CHECK(n == 2 && NEAR(v[0], 20) && NEAR(v[1], 10) && NEAR(max, 20), "CE series");
	n = tui_detail_series(tui_hists_get(&t.hists, 0), 1, TUI_HIST, v, &max);
	CHECK(n == 2 && NEAR(v[0], 0) && NEAR(v[1], 2) && NEAR(max, 2), "CNP series");
	/* fewer cells than samples: the newest */
	n = tui_detail_series(tui_hists_get(&t.hists, 0), 0, 1, v, &max);
	CHECK(n == 1 && NEAR(v[0], 10), "one cell: the newest");
	/* no history, no time: no rates */
	n = tui_detail_series(NULL, 0, TUI_HIST, v, &max);
	CHECK(n == 0 && max == 0, "no history");

	tui_data_free(&t);
	rt_delta_free(&d);
	rt_snapshot_free(&a);
	rt_snapshot_free(&b);
	TEST_END("tui_detail_rates");
}

int main(void)
{
	test_pfc();
	test_nic();
	test_jobs_paused();
	test_detail();
	return TEST_EXIT();
}
