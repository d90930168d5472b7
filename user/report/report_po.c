// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report: where the pause storms started, printed (report_po.h).
 * The decision is user/report/report_origin.c's; here each priority's tree
 * is written with the intervals and frames it rests on, and a sentence that
 * says how the origin was decided or why it cannot be.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "report_po.h"

static const char *const role_name[] = {
	[RT_PO_ORIGIN] = "origin", [RT_PO_SPREAD] = "spread", [RT_PO_PAUSED] = "paused",
	[RT_PO_UNSURE] = "unsure", [RT_PO_UNPLACED] = "unplaced",
};

/* t less t0 in seconds, "+1.234" or "-0.200" */
static const char *rel(__u64 t, __u64 t0, char *buf, size_t len)
{
	__u64 d = t >= t0 ? t - t0 : t0 - t;

	snprintf(buf, len, "%c%llu.%03llu", t >= t0 || d < 1000000 ? '+' : '-', d / 1000000000ULL, d % 1000000000ULL / 1000000);
	return buf;
}

static __u64 time_zero(const struct rt_po_prio *P)
{
	__u64 t = ~0ULL;
	int i;

	for (i = 0; i < P->n; i++) {
		const struct rt_po_node *n = &P->node[i];

		if (n->role == RT_PO_ORIGIN && n->tx->start_ns < t)
			t = n->tx->start_ns;
	}
	for (i = 0; t == ~0ULL && i < P->n; i++)
		if (P->node[i].role != RT_PO_UNPLACED)
			t = P->node[i].rx ? P->node[i].rx->start_ns : P->node[i].tx->start_ns;
	return t == ~0ULL ? 0 : t;
}

/* One side of a node: "sent on IF in T1-T2 (+S s), N frames". */
static void side(struct rt_printer *p, const char *what, const struct rt_rep_pep *e, __u64 frames, __u64 t0,
		 int unplaced)
{
	char k[32], a[16], b[16], r[32];

	snprintf(k, sizeof(k), "%s_if", what);
	rt_pr_text(p, " %s", !strcmp(what, "tx") ? "sent on" : "received on");
	rt_pr_str(p, RT_PR_ANY, k, " %s", e->name);
	snprintf(k, sizeof(k), "%s_nic", what);
	rt_pr_bool(p, RT_PR_ANY, k, " (NIC counters)", e->nic);
	snprintf(k, sizeof(k), "%s_from_ns", what);
	rt_pr_u64(p, RT_PR_JSON, k, NULL, e->start_ns);
	snprintf(k, sizeof(k), "%s_to_ns", what);
	rt_pr_u64(p, RT_PR_JSON, k, NULL, e->first_ns);
	rt_pr_str(p, RT_PR_TEXT, NULL, " in %s", rt_fmt_hms_utc(e->start_ns, a, sizeof(a)));
	rt_pr_str(p, RT_PR_TEXT, NULL, "-%s", rt_fmt_hms_utc(e->first_ns, b, sizeof(b)));
	if (!unplaced)
		rt_pr_str(p, RT_PR_TEXT, NULL, " (%s s)", rel(e->start_ns, t0, r, sizeof(r)));
	snprintf(k, sizeof(k), "%s_frames", what);
	rt_pr_u64(p, RT_PR_ANY, k, ", %llu frames", frames);
}

static void node_out(struct rt_printer *p, const struct rt_po_host *h, const struct rt_po_prio *P, int i, int depth,
		     __u64 t0)
{
	const struct rt_po_node *n = &P->node[i];
	const struct rt_po_node *par = n->parent >= 0 ? &P->node[n->parent] : NULL;

	rt_pr_open_obj(p, NULL);
	rt_pr_text(p, "    %*s", 2 * depth, "");
	rt_pr_str(p, RT_PR_ANY, "host", "[%s]", h[n->host].label);
	rt_pr_str(p, RT_PR_ANY, "role", " %s:", role_name[n->role]);
	rt_pr_u64(p, RT_PR_JSON, "depth", NULL, (unsigned long long)depth);
	if (n->tx)
		side(p, "tx", n->tx, n->tx_frames, t0, n->role == RT_PO_UNPLACED);
	else
		rt_pr_text(p, " sent none");
	rt_pr_text(p, ";");
	if (n->rx)
		side(p, "rx", n->rx, n->rx_frames, t0, n->role == RT_PO_UNPLACED);
	else
		rt_pr_text(p, " received none");
	if (par) {
		rt_pr_str(p, RT_PR_ANY, "from", ", from [%s]", h[par->host].label);
		rt_pr_str(p, RT_PR_ANY, "from_if", " %s", n->from_if);
		rt_pr_bool(p, RT_PR_JSON, "linked", NULL, n->linked);
		rt_pr_text(p, n->linked ? " (as many frames, begun in the same interval)" :
					  " (by time only: the last to begin sending before)");
	} else if (n->rx && n->role != RT_PO_ORIGIN && n->role != RT_PO_UNPLACED) {
		rt_pr_text(p, ", from outside the recordings");
	}
	rt_pr_text(p, "\n");
	rt_pr_close_obj(p);
}

/* The tree: each root (no parent) in time order, its children under it. */
static void tree_out(struct rt_printer *p, const struct rt_po_host *h, const struct rt_po_prio *P, int i, int depth,
		     __u64 t0)
{
	int c;

	node_out(p, h, P, i, depth, t0);
	for (c = 0; c < P->n; c++)
		if (P->node[c].parent == i)
			tree_out(p, h, P, c, depth + 1, t0);
}

/* How it was decided, or why it was not. */
static void why_out(struct rt_printer *p, const struct rt_po_host *h, const struct rt_po_prio *P)
{
	char why[600], a[16], b[16];
	size_t k = 0;
	int i;

	for (i = 0; i < P->n && k < sizeof(why) - 200; i++) {
		const struct rt_po_node *n = &P->node[i];

		if (n->role == RT_PO_UNPLACED)
			k += (size_t)snprintf(why + k, sizeof(why) - k, "%s[%s]'s clock is not aligned with [%s]'s (no flow shared with the other hosts), so its pauses cannot be put in order",
					      k ? "; " : "cannot decide: ", h[n->host].label, h[0].label);
		else if (n->role == RT_PO_UNSURE)
			k += (size_t)snprintf(why + k, sizeof(why) - k, "%s[%s] first sent and first received pauses within the interval %s-%s: which came first is below the recording's interval",
					      k ? "; " : "cannot decide: ", h[n->host].label,
					      rt_fmt_hms_utc(n->tx->start_ns, a, sizeof(a)),
					      rt_fmt_hms_utc(n->tx->first_ns, b, sizeof(b)));
	}
	if (!k && P->norigins == 1)
		snprintf(why, sizeof(why), "one origin: the only host that sent pauses on this priority before it received any; every other host received pauses before it sent any, or sent none");
	else if (!k && P->norigins > 1)
		snprintf(why, sizeof(why), "not one origin: %d hosts each sent pauses before they received any, so the storms began independently", P->norigins);
	else if (!k)
		snprintf(why, sizeof(why), "no origin among the recordings: every host that sent pauses had received some first; the storm came from a host not recorded");
	rt_pr_str(p, RT_PR_ANY, "why", "    how: %s.\n", why);
}

static void prio_out(struct rt_printer *p, const struct rt_po_host *h, const struct rt_po_prio *P)
{
	char pn[8];
	__u64 t0 = time_zero(P);
	int i, o = 0;

	rt_prio_name(P->prio, pn, sizeof(pn));
	rt_pr_open_obj(p, NULL);
	rt_pr_str(p, RT_PR_ANY, "prio", "  priority %s:", pn);
	rt_pr_bool(p, RT_PR_JSON, "decided", NULL, P->decided);
	rt_pr_u64(p, RT_PR_JSON, "t0_ns", NULL, t0);
	rt_pr_open_arr(p, "origins");
	for (i = 0; i < P->n; i++) {
		const struct rt_po_node *n = &P->node[i];

		if (n->role != RT_PO_ORIGIN)
			continue;
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "host", o++ ? " and [%s]" : " origin [%s]", h[n->host].label);
		rt_pr_str(p, RT_PR_ANY, "ifname", " %s", n->tx->name);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_text(p, "%s\n", !o ? " no origin named" : P->decided ? "" : " (not decided)");
	rt_pr_open_arr(p, "hosts");
	for (i = 0; i < P->n; i++)
		if (P->node[i].parent < 0)
			tree_out(p, h, P, i, 0, t0);
	rt_pr_close_arr(p);
	why_out(p, h, P);
	rt_pr_close_obj(p);
}

int rt_report_po(struct rt_printer *p, const struct rt_po_host *h, int nh)
{
	struct rt_po_prio *P = calloc(RT_NPRIO, sizeof(*P));
	int i, n;

	if (!P)
		return -ENOMEM;
	n = rt_po_build(h, nh, P);
	if (n) {
		rt_pr_text(p, "\nWhere the pause storms started (PFC pauses with a non-zero time, per priority;\n"
			      "each time is the interval the first pauses were counted in, on [%s]'s clock):\n",
			   h[0].label);
		rt_pr_open_arr(p, "pause_origin");
		for (i = 0; i < n; i++)
			prio_out(p, h, &P[i]);
		rt_pr_close_arr(p);
		for (i = 0; i < nh; i++)
			if (h[i].left) {
				rt_pr_str(p, RT_PR_TEXT, NULL, "  [%s]", h[i].label);
				rt_pr_u64(p, RT_PR_TEXT, NULL, ": %llu later pause episodes were not kept (", h[i].left);
				rt_pr_u64(p, RT_PR_TEXT, NULL, "%llu per file).\n", RT_REP_PEPS_MAX);
			}
	}
	free(P);
	return 0;
}
