// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The --tune rules (user/sinks/tune.c) on hand-built intervals: a host whose
 * settings are healthy gives no recommendation for CE, CNPs and pauses; each
 * rule the live test (tests/nic/test_tune.sh) does not plant gives exactly
 * its recommendation at its edge: the reaction point off with CNPs, PFC on a
 * priority no RoCE took, the RDMA MTU below the netdev's, and PFC before ECN
 * in 2 of 3 episodes (1 of 3: none), and the reaction point observation
 * (many CNPs, the data under half its link, no pause) at each of its edges:
 * 100 CNPs, one per 20 data packets, a share just under 50%; one CNP, one
 * data packet or one pause frame across an edge, a share of exactly 50%, or a
 * link speed not known gives none. From the NIC's counters (doctor --tune):
 * CE marks on rdma_cm's priority 3 with NP off there give the NP rule with
 * the counters as evidence, NP off on another priority or rdma_cm's
 * priority unknown give none, PFC on a priority without RoCE is not said.
 * A device with no notification point (Soft-RoCE) that received CE marks
 * and sent no CNP gives the observation on the marks' priority; a CNP sent,
 * marks seen only in a mirror copy, or an ecn/roce_np file give none.
 * Expected values are worked out here.
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "tune.h"

/* A host like the hwhost fixture's healthy one: eth2, PFC and data on 3, CNPs DSCP 48 -> 6. */
static void healthy(struct rt_hostcfg *c)
{
	rt_hostcfg_init(c);
	snprintf(c->netdev, sizeof(c->netdev), "eth2");
	snprintf(c->dev, sizeof(c->dev), "mlx5_0");
	snprintf(c->pci, sizeof(c->pci), "0000:03:00.0");
	c->port = 1;
	c->mtu = 9000;
	c->active_mtu = 4096;
	c->pfc_known = c->app_known = c->trusts_dscp = 1;
	c->pfc_en = 1u << 3;
	c->dscp_prio[26] = 3;
	c->dscp_prio[48] = 6;
	memset(c->np_en, 1, sizeof(c->np_en));
	memset(c->rp_en, 1, sizeof(c->rp_en));
	c->pfc_tout = 0xffff;
	c->cc[RT_CC_NP_CNP_DSCP] = 48;
	c->cc[RT_CC_NP_CNP_PRIO] = 6;
}

/* One interval on eth2 (ifindex 2): data of DSCP dscp, ce of them CE-marked,
 * cnp CNPs on DSCP 48, pause PFC frames on priority 3. */
static void interval_at(struct rt_tune *t, const struct rt_hostcfg *c, unsigned dscp, __u64 pkts, __u64 ce,
			__u64 cnp, __u64 pause, __u64 bytes, double secs, __u64 mbps)
{
	static struct rt_snapshot s;
	struct rt_flow fl[2] = { 0 };
	struct rt_flow_delta fd[2] = { 0 };
	struct rt_ifdir ifd = { 0 };
	struct rt_ifdir_delta id = { 0 };
	struct rt_delta d = { 0 };

	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 2, "eth2", "native");
	if (mbps) {
		s.ifaces[0].speed_mbps = mbps;
		snprintf(s.ifaces[0].speed_from, sizeof(s.ifaces[0].speed_from), "ethtool");
	}
	s.cfgs[0] = *c;
	s.ncfgs = 1;
	fl[0].k.ifindex = fl[1].k.ifindex = 2;
	fl[0].v.dscp = (__u8)dscp;
	fl[1].v.dscp = 48;
	fd[0] = (struct rt_flow_delta){ .f = &fl[0] };
	fd[0].d.pkts = pkts;
	fd[0].d.bytes = bytes;
	fd[0].d.ecn[RT_ECN_CE] = ce;
	fd[1] = (struct rt_flow_delta){ .f = &fl[1] };
	fd[1].d.pkts = fd[1].d.cnp = cnp;
	id.s = &ifd;
	id.d.pfc_frames[3] = pause;
	d.flows = fd;
	d.nflows = 2;
	d.ifs = &id;
	d.nifs = 1;
	d.secs = secs;
	rt_tune_take(t, &s, &d);
}

static size_t rules(const struct rt_tune *t, struct rt_tune_rec *r)
{
	return rt_tune_rules(t, r, RT_TUNE_MAX);
}

/* An interval of no known length: no data rate. */
static void interval(struct rt_tune *t, const struct rt_hostcfg *c, unsigned dscp, __u64 pkts, __u64 ce,
		     __u64 cnp, __u64 pause)
{
	interval_at(t, c, dscp, pkts, ce, cnp, pause, 0, 0, 0);
}

/* The observation's case on the healthy host: two 1-s intervals of data on
 * priority 3 at 10 Gb/s, the busier of bytes1; cnp CNPs and pause frames in
 * the first. The tally's number of recommendations. */
static size_t rp_case(struct rt_tune_rec *r, __u64 pkts, __u64 cnp, __u64 pause, __u64 bytes1, __u64 mbps)
{
	struct rt_hostcfg c;
	struct rt_tune t;

	healthy(&c);
	c.cc[RT_CC_RP_GD] = 11;
	c.cc[RT_CC_RP_MIN_DEC_FAC] = 50;
	c.cc[RT_CC_RP_AI_RATE] = 5;
	memset(&t, 0, sizeof(t));
	interval_at(&t, &c, 26, pkts / 2, 0, cnp, pause, bytes1, 1, mbps);
	interval_at(&t, &c, 26, pkts - pkts / 2, 0, 0, 0, 1000000, 1, mbps);
	return rules(&t, r);
}

/* A Soft-RoCE host: rxe0 on eth2 (ifindex 2), no DCB, no ecn/roce_np file. */
static void rxe_host(struct rt_hostcfg *c)
{
	rt_hostcfg_init(c);
	snprintf(c->netdev, sizeof(c->netdev), "eth2");
	snprintf(c->dev, sizeof(c->dev), "rxe0");
	c->port = 1;
	c->mtu = 1500;
	c->active_mtu = 1024;
}

/* One interval on it: pkts data packets received with VLAN PCP pcp, ce of
 * them CE-marked (in a mirror copy if mirror), and cnp CNPs sent. */
static size_t rxe_case(struct rt_tune_rec *r, const struct rt_hostcfg *c, unsigned pcp, __u64 pkts, __u64 ce,
		       __u64 cnp, int mirror)
{
	static struct rt_snapshot s;
	struct rt_flow fl[2] = { 0 };
	struct rt_flow_delta fd[2] = { 0 };
	struct rt_delta d = { 0 };
	struct rt_tune t;

	memset(&t, 0, sizeof(t));
	rt_snapshot_init(&s);
	rt_snapshot_add_iface(&s, 2, "eth2", "native");
	s.cfgs[0] = *c;
	s.ncfgs = 1;
	fl[0].k.ifindex = fl[1].k.ifindex = 2;
	fl[0].k.dir = RT_DIR_INGRESS;
	fl[0].k.mirror = (__u8)mirror;
	fl[0].v.pcp = (__u8)pcp;
	fl[0].v.dscp = 26;
	fl[1].k.dir = RT_DIR_EGRESS;
	fl[1].v.pcp = (__u8)pcp;
	fd[0] = (struct rt_flow_delta){ .f = &fl[0] };
	fd[0].d.pkts = pkts;
	fd[0].d.ecn[RT_ECN_CE] = ce;
	fd[1] = (struct rt_flow_delta){ .f = &fl[1] };
	fd[1].d.pkts = fd[1].d.cnp = cnp;
	d.flows = fd;
	d.nflows = 2;
	d.secs = 1;
	rt_tune_take(&t, &s, &d);
	return rules(&t, r);
}

int main(void)
{
	struct rt_tune_rec r[RT_TUNE_MAX];
	struct rt_hostcfg c;
	struct rt_tune t;

	/* Healthy: CE, CNPs on their own priority, pauses that follow CE. */
	healthy(&c);
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 50, 20, 0);
	interval(&t, &c, 26, 1000, 50, 20, 4);
	CHECK_EQ(rules(&t, r), (size_t)0);
	TEST_END("tune_healthy_none");

	/* The reaction point off on 3, CNPs arriving: enable it. */
	healthy(&c);
	c.rp_en[3] = 0;
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 20, 0);
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].setting, "ecn/roce_rp/enable") && !strcmp(r[0].scope, "eth2 priority 3") &&
	      !strcmp(r[0].current, "0") && !strcmp(r[0].recommended, "1") &&
	      !strcmp(r[0].command, "echo 1 > /sys/class/net/eth2/ecn/roce_rp/enable/3"), "%s %s %s", r[0].setting,
	      r[0].scope, r[0].command);
	CHECK(!strcmp(r[0].evidence, "1000 RoCE packets sent on priority 3; 20 CNPs seen, rp_cnp_ignored +0"),
	      "%s", r[0].evidence);
	/* Below a tree (doctor --sysfs-root), the command names the tree's file;
	 * a netdev named as markup with a quote is one shell word. */
	snprintf(t.root, sizeof(t.root), "/tmp/tree");
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].command, "echo 1 > /tmp/tree/sys/class/net/eth2/ecn/roce_rp/enable/3"), "%s", r[0].command);
	t.root[0] = 0;
	snprintf(t.cfg[0].netdev, sizeof(t.cfg[0].netdev), "<s>e'2");
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].command, "echo 1 > '/sys/class/net/<s>e'\\''2/ecn/roce_rp/enable/3'"), "%s", r[0].command);
	/* No CNP: nothing says the reaction point matters. */
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 0);
	CHECK_EQ(rules(&t, r), (size_t)0);
	TEST_END("tune_rp_off_with_cnps");

	/* PFC on 3 and 5, RoCE only on 3: PFC off on 5. */
	healthy(&c);
	c.pfc_en |= 1u << 5;
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 0);
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].setting, "pfc") && !strcmp(r[0].scope, "eth2 priority 5") &&
	      !strcmp(r[0].current, "on") && !strcmp(r[0].recommended, "off") &&
	      !strcmp(r[0].command, "dcb pfc set dev eth2 prio-pfc 5:off") &&
	      !strcmp(r[0].evidence, "no RoCE packet on priority 5; 1000 on priority 3"), "%s %s", r[0].scope,
	      r[0].evidence);
	TEST_END("tune_pfc_without_roce");

	/* RDMA MTU 1024 under a netdev MTU of 9000 (4096 fits); 4096 under 4200 fits (4200 - 96). */
	healthy(&c);
	c.active_mtu = 1024;
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 0);
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].setting, "rdma-mtu") && !strcmp(r[0].current, "1024") &&
	      !strcmp(r[0].recommended, "4096"), "%s %s -> %s", r[0].setting, r[0].current, r[0].recommended);
	healthy(&c);
	c.mtu = 4200;
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 0);
	CHECK_EQ(rules(&t, r), (size_t)0);
	TEST_END("tune_rdma_mtu");

	/* Three episodes on 3: two begin with PFC alone, one with CE: PFC before ECN. */
	healthy(&c);
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 10);
	interval(&t, &c, 26, 1000, 5, 0, 10);
	interval(&t, &c, 26, 1000, 0, 0, 0);
	interval(&t, &c, 26, 1000, 0, 0, 7);
	interval(&t, &c, 26, 1000, 0, 0, 0);
	interval(&t, &c, 26, 1000, 3, 0, 2);
	CHECK_EQ(rules(&t, r), (size_t)1);
	CHECK(!strcmp(r[0].setting, "switch ECN thresholds") && !strcmp(r[0].scope, "switch, priority 3") &&
	      !strcmp(r[0].evidence, "2 of 3 congestion episodes on priority 3 began with PFC frames and no CE mark"),
	      "%s: %s", r[0].setting, r[0].evidence);
	/* One of three began with PFC: none. */
	memset(&t, 0, sizeof(t));
	interval(&t, &c, 26, 1000, 0, 0, 10);
	interval(&t, &c, 26, 1000, 0, 0, 0);
	interval(&t, &c, 26, 1000, 1, 0, 0);
	interval(&t, &c, 26, 1000, 0, 0, 0);
	interval(&t, &c, 26, 1000, 1, 0, 3);
	CHECK_EQ(rules(&t, r), (size_t)0);
	TEST_END("tune_pfc_before_ecn");

	/* 100 CNPs for 2000 data packets (one per 20), no pause, the busier
	 * second 624999999 bytes on a 10000 Mb/s link: 4999999992 b/s, just
	 * under half. An observation with no command. */
	CHECK_EQ(rp_case(r, 2000, 100, 0, 624999999, 10000), (size_t)1);
	CHECK(!strcmp(r[0].kind, "observation") && !strcmp(r[0].setting, "DCQCN reaction point rate cuts") &&
	      !strcmp(r[0].scope, "eth2 priority 3") && !strcmp(r[0].confidence, "low") && !r[0].command[0] &&
	      !strcmp(r[0].current, "rp_gd 11, rp_min_dec_fac 50, rp_ai_rate 5"), "%s|%s|%s|%s|%s", r[0].kind,
	      r[0].setting, r[0].scope, r[0].current, r[0].command);
	CHECK(!strcmp(r[0].evidence, "100 CNPs for 2000 RoCE data packets on priority 3, no PFC frame on it; its "
		      "busiest interval on eth2 was 5.000 Gb/s, 50.0% of the 10000 Mb/s link"), "%s", r[0].evidence);
	CHECK(strstr(r[0].recommended, "rp_gd, rp_min_dec_fac, rp_rate_reduce_monitor_period") &&
	      strstr(r[0].recommended, "rp_ai_rate, rp_hai_rate, rp_time_reset, rp_byte_reset") &&
	      strstr(r[0].recommended, "/sys/kernel/debug/mlx5/0000:03:00.0/cc_params"), "%s", r[0].recommended);
	/* each edge crossed by one: none */
	CHECK_EQ(rp_case(r, 2000, 99, 0, 624999999, 10000), (size_t)0);	/* 99 CNPs */
	CHECK_EQ(rp_case(r, 2002, 100, 0, 624999999, 10000), (size_t)0);	/* under one per 20 */
	CHECK_EQ(rp_case(r, 2000, 100, 1, 624999999, 10000), (size_t)0);	/* a pause frame */
	CHECK_EQ(rp_case(r, 2000, 100, 0, 625000000, 10000), (size_t)0);	/* exactly half */
	CHECK_EQ(rp_case(r, 2000, 100, 0, 624999999, 0), (size_t)0);	/* the link speed not known */
	/* a healthy tally: CNPs on a link the data fills */
	CHECK_EQ(rp_case(r, 2000, 100, 0, 1200000000, 10000), (size_t)0);
	TEST_END("tune_rp_observation");

	/* The NIC's counters: RoCE on rdma_cm's priority 3, NP off there. */
	healthy(&c);
	c.roce_prio = 3;
	c.np_en[3] = 0;
	c.pfc_en |= 1u << 5;	/* PFC on 5 too: the port's counters cannot say 5 had no RoCE */
	{
		struct rt_tune_nic n = { .np_marked = 100, .np_cnp_sent = 7 };

		memset(&t, 0, sizeof(t));
		rt_tune_take_nic(&t, &c, &n, 3);
		CHECK_EQ(rules(&t, r), (size_t)1);
		CHECK(!strcmp(r[0].setting, "ecn/roce_np/enable") && !strcmp(r[0].scope, "eth2 priority 3") &&
		      !strcmp(r[0].evidence, "np_ecn_marked_roce_packets +100, np_cnp_sent +7 in 3.0 s; RoCE takes "
			      "priority 3 (rdma_cm's default ToS)"), "%s: %s", r[0].setting, r[0].evidence);
		c.np_en[3] = 1;
		c.np_en[4] = 0;	/* off where RoCE is not */
		memset(&t, 0, sizeof(t));
		rt_tune_take_nic(&t, &c, &n, 3);
		CHECK_EQ(rules(&t, r), (size_t)0);
		c.np_en[3] = 0;
		c.roce_prio = -1;	/* rdma_cm's priority not known */
		memset(&t, 0, sizeof(t));
		rt_tune_take_nic(&t, &c, &n, 3);
		CHECK_EQ(rules(&t, r), (size_t)0);
	}
	TEST_END("tune_nic_counters");

	/* Soft-RoCE: 40 of 500 packets received on PCP 5 CE-marked, no CNP
	 * sent, no notification point to enable: the observation on 5. */
	rxe_host(&c);
	CHECK_EQ(rxe_case(r, &c, 5, 500, 40, 0, 0), (size_t)1);
	CHECK(!strcmp(r[0].kind, "observation") && !strcmp(r[0].setting, "ecn/roce_np/enable") &&
	      !strcmp(r[0].scope, "eth2 priority 5") && !strcmp(r[0].current, "absent (rxe0 has no notification point)") &&
	      !r[0].command[0] && !strncmp(r[0].recommended, "a notification point on priority 5: ", 36),
	      "%s|%s|%s|%s|%s", r[0].kind, r[0].setting, r[0].scope, r[0].current, r[0].recommended);
	CHECK(!strcmp(r[0].evidence, "40 CE-marked RoCE packets arrived on priority 5, 0 CNPs left (sent on the wire, "
		      "np_cnp_sent +0); eth2 has no ecn/roce_np/enable"), "%s", r[0].evidence);
	/* Untagged (rxe's, with DSCP 26 and no DCB): DSCP / 8, priority 3,
	 * never the PCP field's "none" (0xff) read as 7. */
	CHECK_EQ(rxe_case(r, &c, RT_PCP_NONE, 500, 40, 0, 0), (size_t)1);
	CHECK(!strcmp(r[0].scope, "eth2 priority 3"), "%s", r[0].scope);
	/* one CNP sent, the marks in a mirror copy, no mark, or the file there: none */
	CHECK_EQ(rxe_case(r, &c, 5, 500, 40, 1, 0), (size_t)0);
	CHECK_EQ(rxe_case(r, &c, 5, 500, 40, 0, 1), (size_t)0);
	CHECK_EQ(rxe_case(r, &c, 5, 500, 0, 0, 0), (size_t)0);
	c.np_en[0] = 1;
	CHECK_EQ(rxe_case(r, &c, 5, 500, 40, 0, 0), (size_t)0);
	TEST_END("tune_no_notification_point");
	return TEST_EXIT();
}
