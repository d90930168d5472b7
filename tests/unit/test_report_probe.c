// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's probe aggregation (user/report/report_probe.c) over a long
 * run: 10,000 intervals of one row whose network p50 is the interval's
 * number and which loses i % 7 probes. Sums stay exact; the p50s kept are
 * thinned evenly (every 4th of 0..9999 once past 2 x 4096: their median
 * 4998, worked out by hand); the peer's timeline keeps 2500 points whose
 * lost probes add up to the run's (sum of i % 7 over 0..9999: 1428 cycles of 21 and 0+1+2+3 = 29994).
 */
#include <string.h>
#include "check.h"
#include "report_probe.h"

int main(void)
{
	struct rt_rep_probes P = { 0 };
	struct rt_snapshot s;
	__u64 lost = 0;

	rt_snapshot_init(&s);
	for (int i = 0; i < 10000; i++) {
		struct rt_probe_row *r;

		rt_snapshot_clear(&s);
		s.time_ns = 1700000000000000000ULL + (__u64)i * 1000000000ULL;
		r = rt_snapshot_add_probe(&s);
		snprintf(r->peer, sizeof(r->peer), "b");
		snprintf(r->addr, sizeof(r->addr), "10.0.0.2");
		r->size = 64;
		r->sent = 10;
		r->lost = (__u64)(i % 7);
		r->answered = r->sent - r->lost;
		r->net_p50_us = i;
		r->rtt_p50_us = i % 2 ? -1 : 100;	/* no sample every other interval */
		r->resp_p50_us = 5;
		if (rt_rep_probes_take(&P, &s))
			break;
	}
	CHECK_EQ(P.n, 1);
	CHECK_EQ(P.npeers, 1);
	if (P.n == 1 && P.npeers == 1) {
		CHECK_EQ(P.rows[0].sent, 100000);
		CHECK_EQ(P.rows[0].lost, 29994);
		CHECK_EQ(P.rows[0].intervals, 10000);
		CHECK_EQ(P.rows[0].nkept, 2500);
		CHECK(rt_rep_probe_p50(&P.rows[0], 1) == 4998, "network p50 %g", rt_rep_probe_p50(&P.rows[0], 1));
		CHECK(rt_rep_probe_p50(&P.rows[0], 0) == 100, "rtt p50 %g", rt_rep_probe_p50(&P.rows[0], 0));
		CHECK(rt_rep_probe_p50(&P.rows[0], 2) == 5, "resp p50 %g", rt_rep_probe_p50(&P.rows[0], 2));
		CHECK_EQ(P.peers[0].n, 2500);
		for (size_t j = 0; j < P.peers[0].n; j++)
			lost += P.peers[0].pts[j].lost;
		CHECK_EQ(lost, 29994);
		CHECK_EQ(P.peers[0].pts[P.peers[0].n - 1].time_ns, 1700000000000000000ULL + 9999ULL * 1000000000ULL);
		CHECK(P.peers[0].pts[P.peers[0].n - 1].net_p50_us == 9999, "last point's network p50 %g",
		      P.peers[0].pts[P.peers[0].n - 1].net_p50_us);
	}
	TEST_END("report_probe: 10,000 intervals: sums exact, p50s and timeline evenly thinned to 2500");
	rt_snapshot_free(&s);
	rt_rep_probes_free(&P);
	return TEST_EXIT();
}
