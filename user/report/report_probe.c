// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report's probes (report_probe.h): the probe mesh's rows of every
 * interval added up per peer, path and size (sent, answered, lost, the
 * intervals each finding was judged, the median of the intervals' p50s),
 * each peer's timeline (network p50 and lost probes per interval) for the
 * HTML page and the Perfetto trace, and the report's probes section, text
 * and JSON from the same calls (user/core/print.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "fmt.h"
#include "print.h"
#include "report_probe.h"
#include "table.h"

static int same_row(const struct rt_rep_probe *a, const struct rt_probe_row *r)
{
	return a->path == r->path && a->flow_label == r->flow_label && a->size == r->size &&
	       !strcmp(a->addr, r->addr) && !strcmp(a->peer, r->peer);
}

/*
 * The row of r: the mesh gives its rows in the same order each interval, so
 * the row after the last one found (*hint) is tried first, and a run costs
 * one comparison a row; a walk of the rows otherwise.
 */
static struct rt_rep_probe *row_of(struct rt_rep_probes *P, const struct rt_probe_row *r, size_t *hint)
{
	struct rt_rep_probe *a;

	if (*hint < P->n && same_row(&P->rows[*hint], r))
		return &P->rows[(*hint)++];
	for (size_t i = 0; i < P->n; i++)
		if (same_row(&P->rows[i], r)) {
			*hint = i + 1;
			return &P->rows[i];
		}
	if (P->n >= RT_REP_PROBE_ROWS)
		return NULL;
	if (rt_grow_for((void **)&P->rows, &P->cap, P->n + 1, sizeof(*P->rows)))
		return NULL;
	a = &P->rows[P->n++];
	memset(a, 0, sizeof(*a));
	snprintf(a->peer, sizeof(a->peer), "%s", r->peer);
	snprintf(a->addr, sizeof(a->addr), "%s", r->addr);
	a->path = r->path;
	a->flow_label = r->flow_label;
	a->size = r->size;
	a->stride = 1;
	*hint = P->n;
	return a;
}

static int same_peer(const struct rt_rep_probe_peer *q, const struct rt_probe_row *r)
{
	return !strcmp(q->addr, r->addr) && !strcmp(q->peer, r->peer);
}

/* The peer of r: its rows come together, so the last one found (*hint) first. */
static struct rt_rep_probe_peer *peer_of(struct rt_rep_probes *P, const struct rt_probe_row *r, size_t *hint)
{
	struct rt_rep_probe_peer *a;

	for (size_t k = 0; k < 2; k++)
		if (*hint + k < P->npeers && same_peer(&P->peers[*hint + k], r))
			return &P->peers[*hint += k];
	for (size_t i = 0; i < P->npeers; i++)
		if (same_peer(&P->peers[i], r)) {
			*hint = i;
			return &P->peers[i];
		}
	if (P->npeers >= RT_REP_PROBE_PEERS ||
	    rt_grow_for((void **)&P->peers, &P->peers_cap, P->npeers + 1, sizeof(*P->peers)))
		return NULL;
	a = &P->peers[P->npeers++];
	memset(a, 0, sizeof(*a));
	snprintf(a->peer, sizeof(a->peer), "%s", r->peer);
	snprintf(a->addr, sizeof(a->addr), "%s", r->addr);
	a->stride = 1;
	*hint = P->npeers - 1;
	return a;
}

/* A row's p50s of this interval, kept one in stride (thinned when full). */
static int keep_p50(struct rt_rep_probe *a, const struct rt_probe_row *r)
{
	if (a->seen++ % a->stride)
		return 0;
	if (a->nkept == RT_REP_PROBE_KEEP) {
		for (size_t i = 0; i < RT_REP_PROBE_KEEP / 2; i++)
			memcpy(a->p50 + 3 * i, a->p50 + 6 * i, 3 * sizeof(double));
		a->nkept = RT_REP_PROBE_KEEP / 2;
		a->stride *= 2;
	}
	if (rt_grow_for((void **)&a->p50, &a->p50_cap, 3 * (a->nkept + 1), sizeof(double)))
		return -ENOMEM;
	a->p50[3 * a->nkept] = r->rtt_p50_us;
	a->p50[3 * a->nkept + 1] = r->net_p50_us;
	a->p50[3 * a->nkept + 2] = r->resp_p50_us;
	a->nkept++;
	return 0;
}

/* This interval's point of a peer, made once per interval. */
static struct rt_rep_probe_pt *point(struct rt_rep_probe_peer *q, __u64 t)
{
	if (q->n && q->pts[q->n - 1].time_ns == t)
		return &q->pts[q->n - 1];
	if (q->seen++ % q->stride && q->n)
		return &q->pts[q->n - 1];	/* thinned: folded into the last point */
	if (q->n == RT_REP_PROBE_KEEP) {
		for (size_t i = 0; i < RT_REP_PROBE_KEEP / 2; i++) {
			struct rt_rep_probe_pt x = q->pts[2 * i], y = q->pts[2 * i + 1];

			q->pts[i] = (struct rt_rep_probe_pt){ y.time_ns, x.net_p50_us > y.net_p50_us ? x.net_p50_us : y.net_p50_us,
							      x.sent + y.sent, x.lost + y.lost };
		}
		q->n = RT_REP_PROBE_KEEP / 2;
		q->stride *= 2;
	}
	if (rt_grow_for((void **)&q->pts, &q->cap, q->n + 1, sizeof(*q->pts)))
		return NULL;
	q->pts[q->n] = (struct rt_rep_probe_pt){ t, -1, 0, 0 };
	return &q->pts[q->n++];
}

int rt_rep_probes_take(struct rt_rep_probes *P, const struct rt_snapshot *s)
{
	size_t hrow = 0, hpeer = 0;

	for (size_t i = 0; i < s->nprobes; i++) {
		const struct rt_probe_row *r = &s->probes[i];
		struct rt_rep_probe *a = row_of(P, r, &hrow);
		struct rt_rep_probe_peer *q = peer_of(P, r, &hpeer);
		struct rt_rep_probe_pt *pt;

		if (!a || !q) {
			P->rows_left++;
			continue;
		}
		a->udp_sport = r->udp_sport ? r->udp_sport : a->udp_sport;
		a->clock = r->clock;
		a->sent += r->sent;
		a->answered += r->answered;
		a->lost += r->lost;
		a->intervals++;
		a->nfinding[r->finding < RT_PF__N ? r->finding : 0]++;
		if (keep_p50(a, r) || !(pt = point(q, s->time_ns)))
			return -ENOMEM;
		pt->sent += r->sent;
		pt->lost += r->lost;
		if (r->net_p50_us > pt->net_p50_us)
			pt->net_p50_us = r->net_p50_us;
		pt->time_ns = s->time_ns;
	}
	return 0;
}

void rt_rep_probes_free(struct rt_rep_probes *P)
{
	for (size_t i = 0; i < P->n; i++)
		free(P->rows[i].p50);
	for (size_t i = 0; i < P->npeers; i++)
		free(P->peers[i].pts);
	free(P->rows);
	free(P->peers);
	memset(P, 0, sizeof(*P));
}

void rt_rep_probes_shift(struct rt_rep_probes *P, __s64 ns)
{
	for (size_t i = 0; i < P->npeers; i++)
		for (size_t j = 0; j < P->peers[i].n; j++)
			if (P->peers[i].pts[j].time_ns) {	/* as report_clock.c's shift() */
				__u64 *t = &P->peers[i].pts[j].time_ns;

				*t = ns < 0 && (__u64)-ns > *t ? 0 : (__u64)((__s64)*t + ns);
			}
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double rt_rep_probe_p50(const struct rt_rep_probe *r, int which)
{
	double v[RT_REP_PROBE_KEEP], m;
	size_t n = 0;

	for (size_t i = 0; i < r->nkept; i++)
		if (r->p50[3 * i + which] >= 0)
			v[n++] = r->p50[3 * i + which];
	if (!n)
		return -1;
	qsort(v, n, sizeof(v[0]), dbl_cmp);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return m;
}

static int probe_rule(const char *rule)
{
	return !strcmp(rule, "path-down") || !strcmp(rule, "path-loss") || !strcmp(rule, "path-latency") ||
	       !strcmp(rule, "host-stall");
}

/* A time in microseconds, text "38.0 us" or "-" (JSON: -1 for none). */
static void us_out(struct rt_printer *p, const char *key, double us)
{
	rt_pr_dbl(p, RT_PR_JSON, key, NULL, us);
	rt_pr_str(p, RT_PR_TEXT, NULL, " %9s", us >= 0 ? RT_DUR(us / 1e6) : "-");
}

static void row_out(struct rt_printer *p, const struct rt_rep_probe *a)
{
	__u64 done = a->answered + a->lost;

	rt_pr_open_obj(p, NULL);
	rt_pr_str(p, RT_PR_ANY, "peer", "  %-16s", a->peer);
	rt_pr_str(p, RT_PR_ANY, "addr", " %-15s", a->addr);
	rt_pr_u64(p, RT_PR_ANY, "path", " %4llu", a->path);
	rt_pr_u64(p, RT_PR_JSON, "flow_label", NULL, a->flow_label);
	rt_pr_text(p, " 0x%05x", a->flow_label);
	rt_pr_u64(p, RT_PR_ANY, "udp_sport", " %5llu", a->udp_sport);
	rt_pr_u64(p, RT_PR_ANY, "size", " %5llu", a->size);
	rt_pr_u64(p, RT_PR_ANY, "sent", " %8llu", a->sent);
	rt_pr_u64(p, RT_PR_JSON, "answered", NULL, a->answered);
	rt_pr_u64(p, RT_PR_ANY, "lost", " %7llu", a->lost);
	rt_pr_dbl(p, RT_PR_ANY, "loss_pct", " %6.2f%%", done ? 100.0 * (double)a->lost / (double)done : 0);
	us_out(p, "rtt_p50_us", rt_rep_probe_p50(a, 0));
	us_out(p, "net_p50_us", rt_rep_probe_p50(a, 1));
	us_out(p, "resp_p50_us", rt_rep_probe_p50(a, 2));
	rt_pr_str(p, RT_PR_ANY, "clock", " %-6s", rt_probe_clock_name(a->clock));
	rt_pr_u64(p, RT_PR_JSON, "intervals", NULL, a->intervals);
	rt_pr_open_obj(p, "intervals_judged");
	for (int f = 1; f < RT_PF__N; f++)
		if (a->nfinding[f]) {
			rt_pr_u64(p, RT_PR_JSON, rt_probe_finding_name((enum rt_probe_finding)f), NULL, a->nfinding[f]);
			rt_pr_str(p, RT_PR_TEXT, NULL, " %s", rt_probe_finding_name((enum rt_probe_finding)f));
			rt_pr_u64(p, RT_PR_TEXT, NULL, " x%llu", a->nfinding[f]);
		}
	rt_pr_close_obj(p);
	rt_pr_text(p, "\n");
	rt_pr_close_obj(p);
}

void rt_rep_probes_print(struct rt_printer *p, const struct rt_rep_probes *P, const struct rt_flog *L)
{
	char t[64], subj[600];
	size_t shown = 0;

	if (!P->n)
		return;
	rt_pr_open_obj(p, "probes");
	rt_pr_text(p, "\nProbes (per peer, path and size over the run; p50s: the median of the intervals')\n");
	rt_pr_text(p, "  %-16s %-15s %4s %7s %5s %5s %8s %7s %7s %9s %9s %9s %s\n", "peer", "address", "path",
		   "flowlbl", "sport", "size", "sent", "lost", "loss", "rtt p50", "net p50", "resp p50", "clock");
	rt_pr_open_arr(p, "rows");
	for (size_t i = 0; i < P->n; i++)
		row_out(p, &P->rows[i]);
	rt_pr_close_arr(p);
	rt_pr_u64(p, RT_PR_JSON, "rows_left", NULL, P->rows_left);
	if (P->rows_left)
		rt_pr_u64(p, RT_PR_TEXT, NULL, "  and %llu rows of peers, paths or sizes past the report's bounds\n",
			  P->rows_left);
	rt_pr_open_arr(p, "episodes");
	rt_pr_text(p, "  episodes:\n");
	for (size_t i = 0; L && i < L->n; i++) {
		const struct rt_finding *f = &L->f[i];

		if (!probe_rule(f->rule))
			continue;
		shown++;
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "rule", "    %-13s", f->rule);
		rt_pr_str(p, RT_PR_JSON, "severity", NULL, rt_sev_name(f->sev));
		rt_pr_dbl(p, RT_PR_JSON, "start", NULL, f->start_ns / 1e9);
		rt_pr_dbl(p, RT_PR_JSON, "end", NULL, f->end_ns / 1e9);
		rt_pr_str(p, RT_PR_TEXT, NULL, " %s", rt_fmt_hms_utc(f->start_ns, t, sizeof(t)));
		rt_pr_str(p, RT_PR_TEXT, NULL, " .. %s", rt_fmt_hms_utc(f->end_ns, t, sizeof(t)));
		rt_pr_json_raw(p, "subject", rt_subject_json(&f->subj, subj, sizeof(subj)));
		rt_pr_str(p, RT_PR_TEXT, NULL, "  %s\n", rt_subject_short(&f->subj, subj, sizeof(subj)));
		rt_pr_str(p, RT_PR_ANY, "evidence", "      %s\n", f->evidence);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	if (!shown)
		rt_pr_text(p, "    (none: no path lost, slowed or stalled)\n");
	rt_pr_close_obj(p);
}
