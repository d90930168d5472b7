// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's probes view, its lines (tui/tui_probes.c): the heading,
 * a row in the interval's counts and since the start, a row without a
 * sample, a peer's name with terminal escapes made safe and cut at 16
 * columns, and how loud each row is drawn. Expected lines written by hand.
 */
#include <string.h>
#include "check.h"
#include "tui_model.h"

static struct rt_probe_row mk(const char *peer, int finding)
{
	struct rt_probe_row r = { 0 };

	snprintf(r.peer, sizeof(r.peer), "%s", peer);
	snprintf(r.addr, sizeof(r.addr), "10.0.0.2");
	r.path = 1, r.flow_label = 100, r.udp_sport = 49153, r.size = 4096, r.clock = RT_PROBE_CLOCK_SYSTEM;
	r.sent = 10, r.answered = 7, r.lost = 3, r.sent_total = 120, r.answered_total = 110, r.lost_total = 10;
	r.rtt_p50_us = 41.4, r.rtt_p99_us = 97.6, r.net_p50_us = 38.2, r.resp_p50_us = 3.4;
	r.finding = (__u8)finding;
	return r;
}

int main(void)
{
	struct rt_probe_row a = mk("b-host", RT_PF_PATH_LOSS), b = mk("\x1b[2Jvery-long-peer-name-here", 0),
			    c = mk("dead", RT_PF_PATH_DOWN);
	char line[512];

	tui_probe_head(0, line, sizeof(line));
	CHECK(!strcmp(line, "PEER             PATH   LABEL  SPORT  SIZE SENT/iv LOST/iv  RTT50us  RTT99us  NET50us "
			    "RESP50us CLOCK  FINDING"), "head: '%s'", line);
	tui_probe_head(1, line, sizeof(line));
	CHECK(!strcmp(line, "PEER             PATH   LABEL  SPORT  SIZE    SENT   LOST  RTT50us  RTT99us  NET50us "
			    "RESP50us CLOCK  FINDING"), "head, totals: '%s'", line);
	tui_probe_line(&a, 0, line, sizeof(line));
	CHECK(!strcmp(line, "b-host              1     100  49153  4096      10      3       41       98       38 "
			    "       3 system path-loss"), "row: '%s'", line);
	tui_probe_line(&a, 1, line, sizeof(line));
	CHECK(!strcmp(line, "b-host              1     100  49153  4096     120     10       41       98       38 "
			    "       3 system path-loss"), "row, totals: '%s'", line);
	/* the escape byte a '?', the name cut at 16 columns, no finding: nothing after the clock */
	tui_probe_line(&b, 0, line, sizeof(line));
	CHECK(!strcmp(line, "?[2Jvery-long-pe    1     100  49153  4096      10      3       41       98       38 "
			    "       3 system "), "row, hostile name: '%s'", line);
	c.rtt_p50_us = c.rtt_p99_us = c.net_p50_us = c.resp_p50_us = -1;
	c.clock = RT_PROBE_CLOCK_DEVICE;
	tui_probe_line(&c, 0, line, sizeof(line));
	CHECK(!strcmp(line, "dead                1     100  49153  4096      10      3        -        -        - "
			    "       - device path-down"), "row, no sample: '%s'", line);
	CHECK_EQ(tui_probe_sev(&a), 1);
	CHECK_EQ(tui_probe_sev(&b), 0);
	CHECK_EQ(tui_probe_sev(&c), 2);
	TEST_END("tui_probes: the probes view's heading and lines");
	return TEST_EXIT();
}
