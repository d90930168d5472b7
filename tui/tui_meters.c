// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's header: a column of meters, as htop's Meter classes, a
 * table of them (name and draw function) walked top to bottom. Each meter
 * puts its line at row y, or none, and says how many rows it took: the
 * time, source and state; the findings; the wire's totals and rates; the
 * flow table and parser; PFC per priority; the NIC's congestion counters;
 * what `rocetop doctor` finds wrong. The arithmetic is the model's
 * (tui_panels.c); this file only lays it out.
 */
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "tui_view.h"

/* 1: time, source, interval, state */
static int meter_title(struct tui *t, int y)
{
	const struct rt_snapshot *s = &t->data.snap;
	char line[512], a[32];
	int off;

	off = snprintf(line, sizeof(line), "rocetop %s  every %s",
		       t->have_snap ? rt_fmt_clock(s->time_ns, a, sizeof(a)) : "--:--:--", RT_DUR(t->seen.interval));
	if (t->seen.is_file && t->have_snap)
		off += snprintf(line + off, sizeof(line) - off, "  pos %s x%g%s",
				RT_DUR((s->time_ns - t->data.first_time_ns) / 1e9), t->seen.speed,
				t->seen.at_end ? " [END]" : "");
	if (t->seen.paused)
		off += snprintf(line + off, sizeof(line) - off, "  [PAUSED]");
	if (t->totals)
		off += snprintf(line + off, sizeof(line) - off, "  [TOTALS]");
	/* the source last: a long path is what the width cuts */
	snprintf(line + off, sizeof(line) - off, "  view %s  %s", tui_view_names[t->view],
		 t->have_snap ? s->source : "(waiting for the first snapshot)");
	tui_put_attr(y, 0, line, A_BOLD);
	return 1;
}

/* findings: open ones by severity, and the most severe, newest one */
static int meter_findings(struct tui *t, int y)
{
	const struct rt_finding *nf;
	size_t cnt[3];
	char line[512], a[32], subj[256];
	int off;

	if (!t->fnd)
		return 0;
	nf = rt_findings_newest(t->fnd);
	rt_findings_count(t->fnd, cnt);
	off = snprintf(line, sizeof(line), "findings  %zu critical  %zu warning  %zu info",
		       cnt[RT_SEV_CRITICAL], cnt[RT_SEV_WARNING], cnt[RT_SEV_INFO]);
	if (nf)
		snprintf(line + off, sizeof(line) - off, "   newest: %s %s since %s  %s  (F: all)",
			 rt_sev_name(nf->sev), nf->rule, rt_fmt_clock(nf->start_ns, a, sizeof(a)),
			 rt_subject_text(&nf->subj, subj, sizeof(subj)));
	tui_put_attr(y, 0, line, !nf ? 0 : nf->sev == RT_SEV_CRITICAL ? tui_sev_attr(t, 2) :
			     nf->sev == RT_SEV_WARNING ? tui_sev_attr(t, 1) : 0);
	return 1;
}

/* 2: wire totals and rates */
static int meter_wire(struct tui *t, int y)
{
	const struct rt_delta *D = tui_cur_delta(t);
	const struct rt_flow_val *ft = &D->flow_tot;
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32], e[32], g[32];

	if (secs > 0)
		snprintf(line, sizeof(line),
			 "wire  RoCE %s pkt/s %.3f Gb/s  CE %.2f%% (%s/s)  CNP %s/s  NAK %s/s  RNR %s/s",
			 tui_num(ft->pkts, secs, a, sizeof(a)), ft->bytes * 8 / 1e9 / secs,
			 rt_ce_pct(ft),
			 tui_num(ft->ecn[RT_ECN_CE], secs, b, sizeof(b)), tui_num(ft->cnp, secs, c, sizeof(c)),
			 tui_num(rt_nak(ft), secs, e, sizeof(e)), tui_num(ft->rnr_nak, secs, g, sizeof(g)));
	else
		snprintf(line, sizeof(line),
			 "wire  RoCE %llu pkts %sB  CE %.2f%% (%llu)  CNP %llu  NAK %llu  RNR %llu",
			 (unsigned long long)ft->pkts, rt_fmt_si(ft->bytes, a, sizeof(a)),
			 rt_ce_pct(ft),
			 (unsigned long long)ft->ecn[RT_ECN_CE], (unsigned long long)ft->cnp,
			 (unsigned long long)rt_nak(ft), (unsigned long long)ft->rnr_nak);
	if (D->est_tot.pkts) {	/* sFlow: estimates, apart from the exact totals */
		size_t n = strlen(line);
		const struct rt_flow_val *et = &D->est_tot;

		if (secs > 0)
			snprintf(line + n, sizeof(line) - n, "   sFlow ~%s pkt/s CE ~%.2f%%",
				 tui_num(et->pkts, secs, a, sizeof(a)), rt_ce_pct(et));
		else
			snprintf(line + n, sizeof(line) - n, "   sFlow ~%llu pkts CE ~%.2f%%",
				 (unsigned long long)et->pkts, rt_ce_pct(et));
	}
	tui_put(y, 0, line);
	return 1;
}

/* 3: table and parser */
static int meter_table(struct tui *t, int y)
{
	const struct rt_delta *D = tui_cur_delta(t);
	const struct rt_if_val *it = &D->if_tot;
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32], e[32], g[32], h[32];

	snprintf(line, sizeof(line),
		 "flows %zu  evicted %s  frames %s%s  errors: trunc %s malformed %s full %s v6ext %s",
		 t->data.snap.nflows, tui_num(D->evicted, 0, a, sizeof(a)), tui_num(it->pkts, secs, b, sizeof(b)),
		 secs > 0 ? "/s" : "",
		 tui_num(it->truncated, 0, c, sizeof(c)), tui_num(it->malformed, 0, e, sizeof(e)),
		 tui_num(it->flow_full, 0, g, sizeof(g)), tui_num(it->v6_unparsed, 0, h, sizeof(h)));
	tui_put(y, 0, line);
	return 1;
}

/* 4: PFC per priority, with the paused share of time where the speed is known */
static int meter_pfc(struct tui *t, int y)
{
	struct tui_pfc_prio pf[RT_NPRIO];
	double secs = tui_cur_secs(t);
	char line[512], a[32], b[32], c[32];
	int off = snprintf(line, sizeof(line), "PFC  "), any = 0;

	tui_pfc_prios(&t->data.snap, tui_cur_delta(t), secs, t->speed_given, pf);
	for (unsigned int p = 0; p < RT_NPRIO; p++) {
		if (!pf[p].frames)
			continue;
		any = 1;
		off = tui_appendf(line, sizeof(line), off, "p%s %s%s xon %s ",
			      rt_prio_name(p, a, sizeof(a)), tui_num(pf[p].frames, secs, b, sizeof(b)),
			      secs > 0 ? "/s" : "", tui_num(pf[p].xon, secs, c, sizeof(c)));
		if (pf[p].share < 0)
			off = tui_appendf(line, sizeof(line), off, "paused ? (speed unknown)  ");
		else if (secs > 0)
			off = tui_appendf(line, sizeof(line), off, "paused ~%.1f%%  ", pf[p].share);
		else
			off = tui_appendf(line, sizeof(line), off, "paused ~%.3fs  ", pf[p].paused);
	}
	if (!any)
		tui_appendf(line, sizeof(line), off, "no pause frames");
	tui_put(y, 0, line);
	return 1;
}

/* 5: the NIC's congestion counters, beside the wire's: summed over ports,
 * the DCQCN ones first, then the others that moved */
static int meter_nic(struct tui *t, int y)
{
	struct tui_nic_sum ns[64];
	size_t n = tui_nic_sums(tui_cur_delta(t), t->totals, ns, sizeof(ns) / sizeof(ns[0]));
	double secs = tui_cur_secs(t);
	char line[512], a[32];
	int off;

	if (!n)
		return 0;
	off = snprintf(line, sizeof(line), "nic   ");
	for (size_t i = 0; i < n; i++)
		off = tui_appendf(line, sizeof(line), off, "%s %s%s  ", ns[i].name,
			      tui_num(ns[i].v, secs, a, sizeof(a)), secs > 0 ? "/s" : "");
	tui_put(y, 0, line);
	return 1;
}

/* 6: what `rocetop doctor` finds wrong with the host's configuration
 * (user/nic/nic_doctor.c): its first failing check, when there is one */
static int meter_doctor(struct tui *t, int y)
{
	for (size_t i = 0; i < t->data.snap.nnotes; i++)
		if (!strncmp(t->data.snap.notes[i], "doctor: ", 8)) {
			tui_put_attr(y, 0, t->data.snap.notes[i], tui_sev_attr(t, 1));
			return 1;
		}
	return 0;
}

/* The meters, top to bottom (htop's Meter classes: a name and how it draws). */
static const struct tui_meter {
	const char *name;
	int (*draw)(struct tui *t, int y);
} tui_meters[] = {
	{ "title", meter_title },
	{ "findings", meter_findings },
	{ "wire", meter_wire },
	{ "table", meter_table },
	{ "pfc", meter_pfc },
	{ "nic", meter_nic },
	{ "doctor", meter_doctor },
};

void tui_draw_header(struct tui *t, int *yp)
{
	for (size_t i = 0; i < sizeof(tui_meters) / sizeof(tui_meters[0]); i++)
		*yp += tui_meters[i].draw(t, *yp);
}
