// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop doctor: DCB netlink answers parsed from bytes written out here by
 * hand, the RoCE MTU rule, and the checks on the hwhost fixture trees
 * (tests/fixtures/hwhost, written by make-fixtures.py: a healthy host and one
 * tree per misconfiguration), each expected finding named by hand.
 * Numbers from <linux/dcbnl.h> and <linux/rtnetlink.h>: RTM_GETDCB 78,
 * DCB_CMD_IEEE_GET 21, DCB_ATTR_IFNAME 1, DCB_ATTR_IEEE 13, DCB_ATTR_IEEE_ETS 1
 * (struct ieee_ets, 59 bytes), DCB_ATTR_IEEE_PFC 2 (struct ieee_pfc, 136
 * bytes), DCB_ATTR_IEEE_APP_TABLE 3 { DCB_ATTR_IEEE_APP 1 (struct dcb_app:
 * selector, priority, protocol u16) }; selector 5 is DSCP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "nic_doctor.h"

#define LE16(v)	((v) & 0xff), (((v) >> 8) & 0xff)
#define LE32(v)	LE16((v) & 0xffff), LE16(((v) >> 16) & 0xffff)
#define Z8	0, 0, 0, 0, 0, 0, 0, 0

/*
 * eth2: PFC on priorities 3 and 4 (pfc_en 0x18), ETS prio 3 -> TC 3, APP DSCP
 * 26 -> 3, DSCP 46 -> 4, and an ethertype entry (0x8906 -> 4).
 * IEEE nest: ETS 4 + 59 = 63 (+1 pad) = 64; PFC 4 + 136 = 140;
 * APP_TABLE 4 + 3 * 8 = 28: IEEE 4 + 64 + 140 + 28 = 236.
 * message: 16 + dcbmsg 4 + IFNAME (4 + 5 = 9, +3 pad) 12 + 236 = 268
 */
static const unsigned char dcb_msg[] = {
	LE32(268), LE16(78), LE16(0), LE32(1), LE32(0),
	0, 21, 0, 0,					/* dcbmsg: AF_UNSPEC, IEEE_GET */
	LE16(9), LE16(1), 'e', 't', 'h', '2', 0, 0, 0, 0,
	LE16(236), LE16(13),
	/* ETS: willing 0, ets_cap 8, cbs 0, tx_bw[8], rx_bw[8], tsa[8] (2 ETS),
	 * prio_tc 0 0 0 3 0 0 0 0, reco_bw, reco_tsa, reco_prio_tc */
	LE16(63), LE16(1), 0, 8, 0, Z8, Z8, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 3, 0, 0, 0, 0, Z8, Z8, Z8, 0,
	/* PFC: cap 8, en 0x18, mbc 0, pad, delay 0, pad 2; requests 1..8, indications 0 */
	LE16(140), LE16(2), 8, 0x18, 0, 0, 0, 0, 0, 0,
	1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0,
	5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0,
	Z8, Z8, Z8, Z8, Z8, Z8, Z8, Z8,
	/* APP table */
	LE16(28), LE16(3),
	LE16(8), LE16(1), 5, 3, LE16(26),
	LE16(8), LE16(1), 5, 4, LE16(46),
	LE16(8), LE16(1), 1, 4, LE16(0x8906),
};

/* A netdev without DCB: NLMSG_ERROR -95 (EOPNOTSUPP). */
static const unsigned char dcb_err[] = {
	LE32(36), LE16(2), LE16(0), LE32(1), LE32(0), LE32(0xffffffa1u),
	LE32(24), LE16(78), LE16(1), LE32(1), LE32(0),
};

static void test_dcb(void)
{
	struct rt_dcb *d = calloc(1, sizeof(*d));
	unsigned char req[64];

	CHECK_EQ(sizeof(dcb_msg), 268);
	CHECK_EQ(rt_dcb_parse(dcb_msg, sizeof(dcb_msg), d), 1);
	CHECK(d->ok && d->has_pfc && d->has_ets && d->has_app, "all three parts");
	CHECK(!strcmp(d->ifname, "eth2"), "ifname %s", d->ifname);
	CHECK_EQ(d->pfc_en, 0x18);
	CHECK_EQ(d->pfc_cap, 8);
	CHECK_EQ(d->pfc_requests[7], 8);
	CHECK_EQ(d->prio_tc[3], 3);
	CHECK_EQ(d->tc_tsa[0], 2);
	CHECK_EQ(d->napp, 3);
	CHECK_EQ(rt_dcb_app_prio(d, 26), 3);
	CHECK_EQ(rt_dcb_app_prio(d, 46), 4);
	CHECK_EQ(rt_dcb_app_prio(d, 0), -1);
	CHECK_EQ(rt_dcb_trust_dscp(d), 1);
	/* cut short: the message claims 268 bytes */
	CHECK_EQ(rt_dcb_parse(dcb_msg, 200, d), -EBADMSG);
	CHECK_EQ(d->ok, 0);
	CHECK_EQ(rt_dcb_parse(dcb_err, sizeof(dcb_err), d), -EOPNOTSUPP);
	/* the request: 16 + dcbmsg 4 + IFNAME "eth2\0" (9, padded 12) = 32 */
	{
		static const unsigned char want[] = {
			LE32(32), LE16(78), LE16(1), LE32(7), LE32(0), 0, 21, 0, 0,
			LE16(9), LE16(1), 'e', 't', 'h', '2', 0, 0, 0, 0,
		};
		size_t n = rt_dcb_req(req, sizeof(req), "eth2", 7);

		CHECK_EQ(n, sizeof(want));
		CHECK(n == sizeof(want) && !memcmp(req, want, n), "request bytes");
	}
	free(d);
	TEST_END("doctor_dcb_parse");
}

static void test_mtu(void)
{
	/* netdev MTU - 96 bytes of RoCE headers, rounded down to an IB MTU */
	CHECK_EQ(rt_roce_mtu_for(9000), 4096);
	CHECK_EQ(rt_roce_mtu_for(4192), 4096);	/* 4192 - 96 = 4096 */
	CHECK_EQ(rt_roce_mtu_for(4191), 2048);
	CHECK_EQ(rt_roce_mtu_for(1500), 1024);	/* 1404 */
	CHECK_EQ(rt_roce_mtu_for(1120), 1024);
	CHECK_EQ(rt_roce_mtu_for(1119), 512);
	CHECK_EQ(rt_roce_mtu_for(300), -1);
	TEST_END("doctor_roce_mtu");
}

static struct rt_doc_host *read_tree(const char *name)
{
	char root[512];
	struct rt_doc_host *h = calloc(1, sizeof(*h));

	snprintf(root, sizeof(root), "tests/fixtures/hwhost/%s", name);
	rt_doctor_read(root, NULL, h);
	return h;
}

/* One tree (and optionally a later one): the one finding expected, or none. */
static void expect(const char *tree, const char *later, const char *id, int sev, const char *words)
{
	struct rt_doc_host *a = read_tree(tree), *b = later ? read_tree(later) : NULL;
	struct rt_doc_findings *o = calloc(1, sizeof(*o));

	rt_doctor_check(b ? a : NULL, b ? b : a, 0, o);
	if (!id) {
		CHECK(o->n == 0, "%s: %zu findings, first %s", tree, o->n, o->n ? o->f[0].id : "");
	} else {
		CHECK(o->n == 1, "%s: %zu findings, want 1 (%s)", tree, o->n, id);
		if (o->n >= 1) {
			CHECK(!strcmp(o->f[0].id, id), "%s: finding %s, want %s", tree, o->f[0].id, id);
			CHECK(o->f[0].severity == sev, "%s: severity %d", tree, o->f[0].severity);
			CHECK(strstr(o->f[0].sentence, words) || strstr(o->f[0].evidence, words),
			      "%s: \"%s\" not in: %s / %s", tree, words, o->f[0].sentence, o->f[0].evidence);
		}
		CHECK_EQ(o->failed, sev == RT_DOC_FAIL);
	}
	free(a);
	free(b);
	free(o);
}

static void test_fixtures(void)
{
	struct rt_doc_host *h = read_tree("healthy");

	CHECK_EQ(h->n, 1);
	if (h->n) {
		const struct rt_doc_netdev *d = &h->nd[0];

		CHECK(!strcmp(d->netdev, "eth2") && !strcmp(d->dev, "mlx5_0") && d->port == 1, "eth2");
		CHECK(!strcmp(d->driver, "mlx5_core"), "driver %s", d->driver);
		CHECK(!strcmp(d->pci, "0000:03:00.0"), "pci %s", d->pci);
		CHECK_EQ(d->mtu, 9000);
		CHECK_EQ(d->active_mtu, 4096);
		CHECK_EQ(d->dcb.pfc_en, 0x08);
		CHECK_EQ(rt_dcb_app_prio(&d->dcb, 26), 3);
		CHECK_EQ(d->np_en[3], 1);
		CHECK_EQ(d->rp_en[7], 1);
		CHECK(!strcmp(d->roce_mode, "RoCE v2"), "mode %s", d->roce_mode);
		CHECK_EQ(d->roce_tos, 106);
		CHECK_EQ(d->ncc, 7);
		CHECK(d->ncc && !strcmp(d->cc[0].name, "np_cnp_dscp") && d->cc[0].v == 48, "cc sorted");
		CHECK_EQ(d->rx_pause[3], 120);
		CHECK_EQ(d->np_cnp_sent, 500);
		/* STAT_GET_STATUS: three optional counters, the first two on */
		CHECK_EQ(d->nopt, 3);
		CHECK(d->nopt == 3 && !strcmp(d->opt[2].name, "cc_tx_cnp_pkts") && !d->opt[2].enabled &&
		      d->opt[0].enabled && d->opt[1].enabled, "optional counters");
	}
	free(h);
	/* the rdma_cm ToS 106 = DSCP 26 -> priority 3 (APP), PFC on 3: nothing */
	expect("healthy", NULL, NULL, 0, NULL);
	expect("healthy", "healthy-t1", NULL, 0, NULL);
	/* ToS 0 = DSCP 0, not in the APP table: priority 0 >> 3 = 0, no PFC */
	expect("bad-roce-prio", NULL, "roce-prio-no-pfc", RT_DOC_FAIL, "goes on priority 0");
	expect("bad-ecn", NULL, "pfc-ecn-off", RT_DOC_FAIL, "ecn/roce_rp/enable/3 = 0");
	expect("bad-pause", NULL, "pause-prio-no-pfc", RT_DOC_FAIL, "rx_prio0_pause 55");
	/* one reading: a warning; 25 -> 40 between two: a failure, +15 */
	expect("bad-cnp-ignored", NULL, "cnp-ignored", RT_DOC_WARN, "rp_cnp_ignored 25");
	expect("bad-cnp-ignored", "bad-cnp-ignored-t1", "cnp-ignored", RT_DOC_FAIL, "+15");
	expect("bad-roce-v1", NULL, "roce-v1", RT_DOC_FAIL, "\"IB/RoCE v1\"");
	expect("bad-mtu", NULL, "rdma-mtu", RT_DOC_FAIL, "MTU 9000 allows 4096");
	expect("bad-cnp-unhandled", NULL, "cnp-unhandled", RT_DOC_WARN, "sent 500 CNPs");
	expect("bad-trust-pcp", NULL, "trust-pcp", RT_DOC_WARN, "trusts PCP");
	TEST_END("doctor_fixtures");

	/* priorities seen on the wire (the live view passes them): 5 has no PFC */
	{
		struct rt_doc_host *a = read_tree("healthy");
		struct rt_doc_findings *o = calloc(1, sizeof(*o));

		rt_doctor_check(NULL, a, 1u << 5 | 1u << 3, o);
		/* 3 has PFC: only 5 is named */
		CHECK(o->n == 1 && !strcmp(o->f[0].id, "seen-prio-no-pfc") &&
		      strstr(o->f[0].sentence, "seen on priority 5, which has no PFC"),
		      "seen: %s", o->n ? o->f[0].sentence : "none");
		free(a);
		free(o);
	}
	/* no RDMA device: a note, no finding */
	{
		struct rt_doc_host *a = calloc(1, sizeof(*a));
		struct rt_doc_findings *o = calloc(1, sizeof(*o));

		rt_doctor_read("tests/fixtures/hwhost/no-such-tree", NULL, a);
		rt_doctor_check(NULL, a, 0, o);
		CHECK(a->n == 0 && strstr(a->note, "no RDMA device on this host"), "note: %s", a->note);
		CHECK_EQ(o->n, 0);
		free(a);
		free(o);
	}
	TEST_END("doctor_seen_and_none");
}

int main(void)
{
	test_dcb();
	test_mtu();
	test_fixtures();
	return TEST_EXIT();
}
