// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the live view's cells hold (a column's number, tui_row_num, and its
 * text), where the columns go on a line, and sparklines. */
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "tui_model.h"

/* ---------------------------------------------------------------- cells */

static double per(__u64 n, double secs)
{
	return secs > 0 ? n / secs : (double)n;
}

double tui_row_num(const struct tui_row *r, enum tui_colid c)
{
	const struct rt_flow_val *d = &r->d;

	switch (c) {
	case C_DQPN: return r->f->k.dqpn;
	case C_PRIO: return rt_flow_dscp(r->f) * 256.0 + r->f->v.pcp;
	case C_FLOWS: return r->nflows;
	case C_PKTS: return per(d->pkts, r->secs);
	case C_GBPS: return per(d->bytes, r->secs);
	case C_CE: return d->pkts ? (double)d->ecn[RT_ECN_CE] / d->pkts : 0;
	case C_CNP: return per(d->cnp, r->secs);
	case C_NAK: return per(rt_nak(d), r->secs);
	case C_RNR: return per(d->rnr_nak, r->secs);
	case C_GB2: case C_GB10: case C_GB40: return r->avg[c - C_GB2][1];
	case C_CE2: case C_CE10: case C_CE40: return r->avg[c - C_CE2][2];
	case C_CNP2: case C_CNP10: case C_CNP40: return r->avg[c - C_CNP2][3];
	case C_IDLE: return (double)r->idle_ns;
	case C_AGE: return (double)r->age_ns;
	case C_CONG: return (double)rt_congestion(d);
	default: return 0;
	}
}

static void fmt_rate(double v, char *buf, size_t len)
{
	rt_fmt_si(v, buf, len);
}

static void fmt_gb(double bytes_per, double secs, char *buf, size_t len)
{
	if (secs > 0)
		rt_fmt_gbps(bytes_per * 8 / 1e9, tui_cols[C_GBPS].maxw, buf, len);
	else	/* counts: bytes */
		rt_fmt_si(bytes_per, buf, len);
}

static void fmt_age(__u64 ns, char *buf, size_t len)
{
	double s = ns / 1e9;

	if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, "%.0fh", s / 3600);
}

static void cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len);

/* Estimates (sFlow samples, each standing for its sampling rate) say so: ~. */
void tui_row_cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len)
{
	cell(r, c, buf, len);
	if (r->f && r->f->estimate && len > 1 &&
	    (c == C_PKTS || c == C_GBPS || c == C_CE || c == C_CNP || c == C_NAK || c == C_RNR)) {
		size_t n = strlen(buf);

		if (n + 2 > len)
			n = len - 2;
		memmove(buf + 1, buf, n);
		buf[0] = '~';
		buf[n + 1] = '\0';
	}
}

static void cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len)
{
	const struct rt_flow *f = r->f;
	const struct rt_flow_val *d = &r->d;

	switch (c) {
	case C_IFACE:
		/* the NIC's per-QP flows say so where every view shows it */
		snprintf(buf, len, "%s%s", f->k.origin == RT_ORIGIN_NIC ? "nic:" : "",
			 r->ifname ? r->ifname : "?");
		break;
	case C_DIR: snprintf(buf, len, "%s", f->k.dir == RT_DIR_EGRESS ? "out" : "in"); break;
	case C_SRC: rt_fmt_addr(f->k.family, f->k.src, buf, len); break;
	case C_DST: rt_fmt_addr(f->k.family, f->k.dst, buf, len); break;
	case C_DQPN: snprintf(buf, len, "%u", f->k.dqpn); break;
	case C_PRIO: {	/* every DSCP the flow carried (user/core/derive.h) */
		char b[RT_BITS_STRLEN];

		rt_fmt_bits(rt_flow_dscps(f), b, sizeof(b));
		if (f->v.pcp == RT_PCP_NONE)
			snprintf(buf, len, "%s/-", b);
		else
			snprintf(buf, len, "%s/%u", b, f->v.pcp);
		break;
	}
	case C_FLOWS: snprintf(buf, len, "%u", r->nflows); break;
	case C_PKTS: case C_CNP: case C_NAK: case C_RNR:
		if (r->secs > 0)
			fmt_rate(tui_row_num(r, c), buf, len);
		else	/* exact counts since the start */
			snprintf(buf, len, "%llu", (unsigned long long)tui_row_num(r, c));
		break;
	case C_GBPS: fmt_gb((double)d->bytes / (r->secs > 0 ? r->secs : 1), r->secs, buf, len); break;
	case C_CE:
		if (r->secs > 0 || !d->pkts)
			snprintf(buf, len, "%.2f", rt_ce_pct(d));
		else
			snprintf(buf, len, "%llu", (unsigned long long)d->ecn[RT_ECN_CE]);
		break;
	case C_GB2: case C_GB10: case C_GB40:
		if (r->avg_ok)
			snprintf(buf, len, "%.3f", tui_row_num(r, c) / 1e9);
		else
			snprintf(buf, len, "-");
		break;
	case C_CE2: case C_CE10: case C_CE40:
		if (r->avg_ok)
			snprintf(buf, len, "%.2f", tui_row_num(r, c));
		else
			snprintf(buf, len, "-");
		break;
	case C_CNP2: case C_CNP10: case C_CNP40:
		if (r->avg_ok)
			fmt_rate(tui_row_num(r, c), buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case C_MIRROR:
		if (f->k.mirror)
			rt_fmt_mirror(&f->k, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case C_IDLE:
		if (f->k.origin == RT_ORIGIN_NIC)	/* counters, not packets: no last one */
			snprintf(buf, len, "-");
		else
			fmt_age(r->idle_ns, buf, len);
		break;
	case C_AGE:
		if (!r->age_ns && !f->v.first_ns)	/* never told when it was first seen */
			snprintf(buf, len, "-");
		else
			fmt_age(r->age_ns, buf, len);
		break;
	case C_JOB: {
		char lab[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16];

		if (!r->job)
			snprintf(buf, len, "-");
		else if (r->job->rank >= 0)
			snprintf(buf, len, "%s r%d", rt_job_label(r->job, lab, sizeof(lab)), r->job->rank);
		else
			snprintf(buf, len, "%s", rt_job_label(r->job, lab, sizeof(lab)));
		break;
	}
	case C_PROC:
		/* Flows from the NIC's per-QP counters say so, as the NIC view does. */
		if (f->comm[0])
			snprintf(buf, len, "%s%s/%u", f->k.origin == RT_ORIGIN_NIC ? "nic:" : "", f->comm,
				 f->pid);
		else
			snprintf(buf, len, "%s", f->k.origin == RT_ORIGIN_NIC ? "nic" : "-");
		break;
	default: snprintf(buf, len, "%s", ""); break;
	}
}

/* ---------------------------------------------------------------- layout */

int tui_layout(const short *minw, const short *want, const unsigned char *prio, int n, int width,
	       int *x, int *w)
{
	int i, used = 0, shown = 0, pos = 0;

	for (i = 0; i < n; i++) {
		w[i] = minw[i] > 0 ? minw[i] : 0;
		if (w[i]) {
			used += w[i] + (shown ? 1 : 0);
			shown++;
		}
	}
	while (used > width && shown > 0) {
		int drop = -1;

		for (i = 0; i < n; i++)		/* highest prio, rightmost on ties */
			if (w[i] && (drop < 0 || prio[i] >= prio[drop]))
				drop = i;
		used -= w[drop] + (shown > 1 ? 1 : 0);
		w[drop] = 0;
		shown--;
	}
	for (i = 0; i < n && used < width; i++) {
		int more;

		if (!w[i] || want[i] <= w[i])
			continue;
		more = want[i] - w[i];
		if (more > width - used)
			more = width - used;
		w[i] += more;
		used += more;
	}
	for (i = 0; i < n; i++) {
		x[i] = pos;
		if (w[i])
			pos += w[i] + 1;
	}
	return shown;
}

/* ---------------------------------------------------------------- sparklines */

void tui_sparkline(const double *v, int n, int utf8, char *buf, size_t len)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = "_.-:=+*#";
	double max = 0;
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int lvl = max > 0 ? (int)(v[i] / max * 7.0 + 0.5) : 0;
		const char *s;
		char one[2] = { 0, 0 };

		if (lvl < 0)
			lvl = 0;
		if (lvl > 7)
			lvl = 7;
		if (utf8) {
			s = blocks[lvl];
		} else {
			one[0] = v[i] > 0 ? ascii[lvl] : '_';
			s = one;
		}
		if (off + strlen(s) + 1 > len)
			break;
		memcpy(buf + off, s, strlen(s) + 1);
		off += strlen(s);
	}
}
