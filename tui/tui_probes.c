// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's probes view, its pure part: the heading and the line of a
 * row of the probe table (user/core/probe_row.h), in the columns and formats
 * of --batch's PROBES table and `rocetop probe` (whole microseconds, "-"
 * with no sample), and how loud a row is drawn. tui_views.c draws them.
 */
#include <stdio.h>
#include "fmt.h"
#include "tui_model.h"

void tui_probe_head(int totals, char *line, size_t len)
{
	snprintf(line, len, "%-16s %4s %7s %6s %5s %7s %6s %8s %8s %8s %8s %-6s %s", "PEER", "PATH", "LABEL",
		 "SPORT", "SIZE", totals ? "SENT" : "SENT/iv", totals ? "LOST" : "LOST/iv", "RTT50us", "RTT99us",
		 "NET50us", "RESP50us", "CLOCK", "FINDING");
}

static const char *us(double v, char buf[16])
{
	if (v < 0)
		snprintf(buf, 16, "-");
	else
		snprintf(buf, 16, "%.0f", v);
	return buf;
}

void tui_probe_line(const struct rt_probe_row *r, int totals, char *line, size_t len)
{
	char peer[sizeof(r->peer)], t[4][16];

	snprintf(line, len, "%-16.16s %4u %7u %6u %5u %7llu %6llu %8s %8s %8s %8s %-6s %s",
		 rt_fmt_safe(r->peer, peer, sizeof(peer)), r->path, r->flow_label, r->udp_sport, r->size,
		 (unsigned long long)(totals ? r->sent_total : r->sent),
		 (unsigned long long)(totals ? r->lost_total : r->lost), us(r->rtt_p50_us, t[0]),
		 us(r->rtt_p99_us, t[1]), us(r->net_p50_us, t[2]), us(r->resp_p50_us, t[3]),
		 rt_probe_clock_name(r->clock), r->finding ? rt_probe_finding_name(r->finding) : "");
}

int tui_probe_sev(const struct rt_probe_row *r)
{
	return r->finding == RT_PF_PATH_DOWN ? 2 : r->finding ? 1 : 0;
}
