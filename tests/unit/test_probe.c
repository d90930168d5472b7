// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh's pure parts (user/probe/probe_wire.c, probe_stats.c):
 * - the UDP source port of a path: Soft-RoCE's for QPs 17 and 18 are the
 *   ports tshark read off the VM test's capture (57236, 63494); the flow
 *   label's, the IB rule worked by hand (0x2b1d3: 0x31d3 ^ 0xa | 0xc000);
 * - what the answerer refuses: short, not ours, the wrong type, a size that
 *   is not what arrived or over the largest;
 * - the quantiles (nearest rank) and the split of a round trip, the
 *   responder's time never taken as more than the round trip;
 * - the findings at their edges;
 * - the table's peers (probe_table.c): an address met twice is one peer with
 *   both origins; of the QP table, only connected QPs (RC, UC) with an IPv4
 *   remote address (or a v4-mapped one) name a peer, a UD QP, a QP without
 *   rdma_cm's addresses and one gone do not; a bad address or size list is
 *   one sentence.
 */
#include <string.h>
#include <arpa/inet.h>
#include "check.h"
#include "log.h"
#include "probe.h"
#include "probe_table.h"
#include "qp.h"

static void test_sport(void)
{
	CHECK_EQ(rt_probe_sport_rxe(17), 57236);
	CHECK_EQ(rt_probe_sport_rxe(18), 63494);
	CHECK_EQ(rt_probe_sport_flow_label(0x2b1d3), 0xf1d9);
	CHECK_EQ(rt_probe_sport_flow_label(0), 0xc000);
	CHECK_EQ(rt_probe_sport_flow_label(0xfffff), 0xc000 | (0x3fff ^ 0x3f));
	TEST_END("probe_sport");
}

static void test_decode(void)
{
	unsigned char b[RT_PROBE_MAX + 8];
	struct rt_probe_msg m = { .type = RT_PROBE_REQ, .path = 3, .size = 64, .seq = 0x0102030405060708ull,
				  .t_tx_ns = 99 }, got;

	memset(b, 0xee, sizeof(b));
	rt_probe_encode(&m, b, 64);
	CHECK(!memcmp(b, "RTPB\x01\x01\x00\x03", 8), "the header begins RTPB, version 1, a request, path 3");
	CHECK_EQ(b[RT_PROBE_HDR], 0xee);	/* the padding is not touched */
	CHECK_EQ(rt_probe_decode(b, 64, RT_PROBE_REQ, &got), RT_PROBE_OK);
	CHECK_EQ(got.seq, 0x0102030405060708ull);
	CHECK_EQ(got.t_tx_ns, 99);
	CHECK_EQ(got.path, 3);
	CHECK_EQ(rt_probe_decode(b, RT_PROBE_HDR - 1, RT_PROBE_REQ, &got), RT_PROBE_SHORT);
	CHECK_EQ(rt_probe_decode(b, 65, RT_PROBE_REQ, &got), RT_PROBE_BAD_SIZE);	/* 64 said, 65 came */
	CHECK_EQ(rt_probe_decode(b, 64, RT_PROBE_ANS, &got), RT_PROBE_BAD_TYPE);
	m.size = RT_PROBE_MAX + 8;
	rt_probe_encode(&m, b, sizeof(b));
	CHECK_EQ(rt_probe_decode(b, sizeof(b), RT_PROBE_REQ, &got), RT_PROBE_BAD_SIZE);	/* over the largest */
	b[0] = 'X';
	CHECK_EQ(rt_probe_decode(b, 64, RT_PROBE_REQ, &got), RT_PROBE_NOT_OURS);
	b[0] = 'R';
	b[4] = 2;
	CHECK_EQ(rt_probe_decode(b, 64, RT_PROBE_REQ, &got), RT_PROBE_NOT_OURS);
	TEST_END("probe_decode");
}

static void test_quantile(void)
{
	uint32_t v[10] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };

	CHECK_EQ(rt_probe_quantile(v, 10, 0.5), 5);	/* rank 5 of 10 */
	CHECK_EQ(rt_probe_quantile(v, 10, 0.99), 10);	/* rank 10 */
	CHECK_EQ(rt_probe_quantile(v, 1, 0.5), 1);
	CHECK(rt_probe_quantile(v, 0, 0.5) < 0, "no sample");
	TEST_END("probe_quantile");
}

static void test_split(void)
{
	struct rt_probe_cell c = { 0 };
	struct rt_probe_stats st;

	/* 3 ms round trip, the responder 1 ms of it, the prober held 1 ms (all
	 * of it the prober's): 1 ms network */
	rt_probe_cell_answer(&c, 3000000, 1000000, 1000000);
	/* the responder says 5 ms (0.2 ms of work after a 4.8 ms stall) in a 2 ms
	 * round trip: the whole round trip is the responder's, the network none */
	rt_probe_cell_answer(&c, 2000000, 5000000, 0);
	rt_probe_cell_answer(&c, 4000000, 1000000, 0);	/* 3 ms network, 1 ms responder */
	c.i_sent = 4;
	c.i_lost = 1;
	rt_probe_cell_stats(&c, &st);
	CHECK_EQ(st.answered, 3);
	CHECK_EQ(st.lost, 1);
	CHECK(st.loss == 0.25, "loss %g", st.loss);
	CHECK_EQ((long)st.net_p50, 1000);	/* of 0, 1000, 3000 */
	CHECK_EQ((long)st.resp_p50, 1000);	/* of 1000, 2000, 1000 */
	CHECK_EQ((long)st.rtt_p50, 3000);
	CHECK_EQ((long)st.rtt_p99, 4000);
	/* a wake on time (the tick, the timer's slack) is no stall; one later is, less the tick */
	CHECK_EQ(rt_probe_stall_of(RT_PROBE_TICK_NS), 0);
	CHECK_EQ(rt_probe_stall_of(RT_PROBE_TICK_NS + RT_PROBE_SLACK_NS), 0);
	CHECK_EQ(rt_probe_stall_of(RT_PROBE_TICK_NS + RT_PROBE_SLACK_NS + 1), RT_PROBE_SLACK_NS + 1);
	CHECK_EQ(rt_probe_stall_of(50000000), 45000000);
	TEST_END("probe_split");
}

/* Intervals of n answers each (network net_us, responder resp_us) and lost losses, judged and rolled. */
static enum rt_probe_finding interval(struct rt_probe_cell *c, const struct rt_probe_thresholds *t, int n, int lost,
				      uint64_t net_us, uint64_t resp_us)
{
	struct rt_probe_stats st;
	enum rt_probe_finding f;
	char why[256];

	for (int i = 0; i < n; i++)
		rt_probe_cell_answer(c, (net_us + resp_us) * 1000, resp_us * 1000, 0);
	c->i_sent += (uint64_t)(n + lost);
	c->i_lost += (uint64_t)lost;
	rt_probe_cell_stats(c, &st);
	f = rt_probe_judge(c, &st, t, why, sizeof(why));
	rt_probe_cell_roll(c, &st, f, t->window);
	return f;
}

static void test_judge(void)
{
	struct rt_probe_thresholds t = RT_PROBE_THRESHOLDS_DEFAULT;
	struct rt_probe_cell c = { 0 };
	enum rt_probe_finding f = RT_PF_NONE;

	/* healthy: 100 us network, 20 us responder, nothing lost */
	for (int i = 0; i < 10; i++)
		CHECK_EQ(interval(&c, &t, 10, 0, 100, 20), RT_PF_NONE);
	/* one probe lost of 100 in the window: under loss_min (2) */
	CHECK_EQ(interval(&c, &t, 9, 1, 100, 20), RT_PF_NONE);
	/* a second: 2 of 100 is 2%, over 0.5% */
	CHECK_EQ(interval(&c, &t, 9, 1, 100, 20), RT_PF_PATH_LOSS);
	/* the losses leave the window after 10 intervals */
	for (int i = 0; i < 10; i++)
		f = interval(&c, &t, 10, 0, 100, 20);
	CHECK_EQ(f, RT_PF_NONE);
	/* network 4x its baseline (100 us) and 300 us over it: not enough (500 us over needed) */
	CHECK_EQ(interval(&c, &t, 10, 0, 400, 20), RT_PF_NONE);
	/* 3x and 500 us over: 700 us is 7x and 600 over */
	CHECK_EQ(interval(&c, &t, 10, 0, 700, 20), RT_PF_PATH_LATENCY);
	/* over the absolute 2 ms */
	CHECK_EQ(interval(&c, &t, 10, 0, 2100, 20), RT_PF_PATH_LATENCY);
	/* the responder slow, the network as usual: host-stall */
	CHECK_EQ(interval(&c, &t, 10, 0, 100, 1500), RT_PF_HOST_STALL);
	/* both slow: the network's finding wins (the responder's time is subtracted already) */
	CHECK_EQ(interval(&c, &t, 10, 0, 2500, 1500), RT_PF_PATH_LATENCY);
	/* all lost: path-loss at once, path-down once the window holds no answer */
	CHECK_EQ(interval(&c, &t, 0, 10, 0, 0), RT_PF_PATH_LOSS);
	for (int i = 0; i < 9; i++)
		f = interval(&c, &t, 0, 10, 0, 0);
	CHECK_EQ(f, RT_PF_PATH_DOWN);
	TEST_END("probe_judge");
}

static void qp(struct rt_qp *q, __u8 type, __u8 family, const char *dst, int mapped, int gone)
{
	memset(q, 0, sizeof(*q));
	q->type = type;
	q->family = family;
	q->gone = (__u8)gone;
	if (mapped) {
		q->dst[10] = q->dst[11] = 0xff;
		inet_pton(AF_INET, dst, q->dst + 12);
	} else {
		inet_pton(AF_INET, dst, q->dst);
	}
}

static void test_table_peers(void)
{
	struct rt_probe_cfg cfg = { .npaths = 1, .rate = 10, .nsizes = 1 };
	struct rt_probe_thresholds th = RT_PROBE_THRESHOLDS_DEFAULT;
	struct rt_probe_table *t = rt_probe_table_new(&cfg, &th, 4);
	struct rt_qp q[6];
	struct rt_qp_table qt = { .q = q, .n = 6 };

	CHECK(t != NULL, "a table");
	CHECK_EQ(rt_probe_table_add(t, "10.0.0.2", "b", RT_PROBE_FROM_LIST, ""), 0);
	rt_log_hold(1);
	CHECK_EQ(rt_probe_table_add(t, "10.0.0.300", NULL, RT_PROBE_FROM_LIST, ""), -EINVAL);
	CHECK_EQ(rt_probe_parse_sizes("64,47", &cfg), -EINVAL);
	CHECK_EQ(rt_probe_parse_sizes("", &cfg), -EINVAL);
	rt_log_hold(0);
	CHECK_EQ(rt_probe_parse_sizes("64,mtu,4096", &cfg), 0);
	CHECK_EQ(cfg.nsizes, 3);
	CHECK_EQ(cfg.sizes[1], 0);
	qp(&q[0], 2, 4, "10.0.0.2", 0, 0);	/* RC to the listed peer: one peer, both origins */
	qp(&q[1], 3, 4, "10.0.0.3", 1, 0);	/* UC, v4-mapped */
	qp(&q[2], 4, 4, "10.0.0.4", 0, 0);	/* UD: names no peer */
	qp(&q[3], 2, 0, "10.0.0.5", 0, 0);	/* no rdma_cm addresses */
	qp(&q[4], 2, 4, "10.0.0.6", 0, 1);	/* gone */
	qp(&q[5], 2, 4, "10.0.0.3", 0, 0);	/* again */
	rt_probe_table_from_qps(t, &qt);
	CHECK_EQ(rt_probe_table_npeers(t), 2);
	rt_probe_table_from_qps(t, NULL);
	CHECK_EQ(rt_probe_table_npeers(t), 2);
	rt_probe_table_free(t);
	TEST_END("probe_table_peers");
}

int main(void)
{
	test_sport();
	test_decode();
	test_quantile();
	test_split();
	test_judge();
	test_table_peers();
	return TEST_EXIT();
}
