// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a pause storm started (report_agg.h), with no I/O
 * (tests/unit/test_report_origin.c).
 *
 * Each file keeps its pause episodes: per interface, direction and
 * priority, the runs of intervals in which pause frames with a non-zero
 * time went out (egress: the host paused its peer) or came in (ingress: its
 * peer paused it). On several hosts' files, on one clock (report_clock.c),
 * a host that sent pauses on a priority before it received any there (or
 * never received any) is an origin: nothing it was told made it pause. A
 * host that received first and sent later spread the storm; one that only
 * received was paused. Each host that received is hung under the host whose
 * sending matches its receiving: as many frames (within 5%, plus 2) on an
 * interface that began sending in the interval it began receiving (the two
 * ends of one link), else the last host that began sending before it.
 * Intervals are the resolution: a host whose first sending and first
 * receiving fall in one interval cannot be ordered, and is said so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "derive.h"
#include "fmt.h"
#include "report_agg.h"
#include "table.h"

/* ---- the episodes of one file ---- */

/* "rx_prio3_pause" -> ingress, priority 3; the NIC counters' names (mlx5, and
 * the drivers that follow its names). 0: not a pause counter. */
static int nic_pause(const char *name, __u8 *dir, __u8 *prio)
{
	unsigned int p;
	int n = 0;

	if (!strncmp(name, "rx_prio", 7))
		*dir = RT_DIR_INGRESS;
	else if (!strncmp(name, "tx_prio", 7))
		*dir = RT_DIR_EGRESS;
	else
		return 0;
	if (sscanf(name + 7, "%1u_pause%n", &p, &n) != 1 || !n || p > 7 || name[7 + n])
		return 0;
	*prio = (__u8)p;
	return 1;
}

/* Add frames to the episode of (name, dir, prio, nic) the last interval
 * left open, else begin one. 0 or -ENOMEM. */
static int pep_add(struct rt_rep *r, const struct rt_snapshot *s, const char *name, __u8 dir, __u8 prio,
		   __u8 nic, __u64 frames)
{
	struct rt_rep_pep *e = NULL;
	char safe[IF_NAMESIZE];
	size_t i;

	rt_fmt_safe(name, safe, sizeof(safe));
	for (i = r->npeps; i-- > 0;) {
		struct rt_rep_pep *x = &r->peps[i];

		if (x->dir == dir && x->prio == prio && x->nic == nic && !strcmp(x->name, safe)) {
			e = x->last_iv + 1 >= r->intervals ? x : NULL;
			break;
		}
	}
	if (!e) {
		if (r->npeps == RT_REP_PEPS_MAX) {
			r->peps_left++;
			return 0;
		}
		if (rt_grow_for((void **)&r->peps, &r->peps_cap, r->npeps + 1, sizeof(*r->peps)))
			return -ENOMEM;
		e = &r->peps[r->npeps++];
		memset(e, 0, sizeof(*e));
		memcpy(e->name, safe, sizeof(e->name));
		e->dir = dir, e->prio = prio, e->nic = nic;
		e->start_ns = r->prev_ns;	/* 0 in the first interval: rt_rep_peps_finish */
		e->first_ns = s->time_ns;
	}
	e->frames += frames;
	e->end_ns = s->time_ns;
	e->last_iv = r->intervals;
	return 0;
}

int rt_rep_peps_take(struct rt_rep *r, const struct rt_snapshot *s, const struct rt_delta *d)
{
	size_t i;
	int p, err = 0;

	for (i = 0; !err && i < d->nifs; i++) {
		const struct rt_ifdir *x = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;

		for (p = 0; !err && p < RT_NPRIO; p++) {
			__u64 xoff = v->pfc_frames[p] - (v->pfc_xon[p] < v->pfc_frames[p] ? v->pfc_xon[p] : v->pfc_frames[p]);

			if (xoff)
				err = pep_add(r, s, rt_snapshot_ifname(s, x->k.ifindex), x->k.dir, (__u8)p, 0, xoff);
		}
	}
	for (i = 0; !err && i < d->nports; i++) {
		const struct rt_port_ctr *c = d->ports[i].c;
		__u8 dir, prio;

		if (d->ports[i].d && c->netdev[0] && nic_pause(c->name, &dir, &prio))
			err = pep_add(r, s, c->netdev, dir, prio, 1, d->ports[i].d);
	}
	r->prev_ns = s->time_ns;
	return err;
}

void rt_rep_peps_finish(struct rt_rep *r)
{
	size_t i;

	for (i = 0; i < r->npeps; i++)
		if (!r->peps[i].start_ns)
			r->peps[i].start_ns = r->peps[i].first_ns > r->step_ns ? r->peps[i].first_ns - r->step_ns : 0;
}

/* ---- the origin over several hosts ---- */

/* A host's first episode of a priority in a direction, and the frames of
 * that interface, direction and priority over the file. */
static const struct rt_rep_pep *first_pep(const struct rt_po_host *h, __u8 prio, __u8 dir, __u64 *frames)
{
	const struct rt_rep_pep *best = NULL;
	size_t i;

	for (i = 0; i < h->npeps; i++) {
		const struct rt_rep_pep *e = &h->peps[i];

		if (e->prio == prio && e->dir == dir && (!best || e->start_ns < best->start_ns))
			best = e;
	}
	*frames = 0;
	for (i = 0; best && i < h->npeps; i++) {
		const struct rt_rep_pep *e = &h->peps[i];

		if (e->prio == prio && e->dir == dir && e->nic == best->nic && !strcmp(e->name, best->name))
			*frames += e->frames;
	}
	return best;
}

static __u64 first_of(const struct rt_po_node *n)
{
	if (n->tx && n->rx)
		return n->tx->start_ns < n->rx->start_ns ? n->tx->start_ns : n->rx->start_ns;
	return n->tx ? n->tx->start_ns : n->rx->start_ns;
}

static int node_cmp(const void *x, const void *y)
{
	const struct rt_po_node *a = x, *b = y;
	__u64 ta = first_of(a), tb = first_of(b);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (a->host > b->host) - (a->host < b->host);
}

/* The role from one host's own episodes (one clock, one interval grid). */
static enum rt_po_role role_of(const struct rt_po_host *h, const struct rt_po_node *n)
{
	if (!h->clock_known)
		return RT_PO_UNPLACED;
	if (!n->tx)
		return RT_PO_PAUSED;
	if (!n->rx || n->tx->first_ns <= n->rx->start_ns)
		return RT_PO_ORIGIN;
	if (n->rx->first_ns <= n->tx->start_ns)
		return RT_PO_SPREAD;
	return RT_PO_UNSURE;
}

static int frames_match(__u64 a, __u64 b)
{
	__u64 d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= m / 20 + 2;
}

/* Intervals (s1, e1] and (s2, e2] overlap, each end widened by margin. */
static int overlap(const struct rt_rep_pep *a, const struct rt_rep_pep *b, __u64 margin)
{
	return a->start_ns < b->first_ns + margin && b->start_ns < a->first_ns + margin;
}

/* x's sending on an interface that matches y's first receiving: as many
 * frames, begun in the same interval (give or take margin); the names of
 * those interfaces into names ("" when none). */
static void link_ports(const struct rt_po_host *hx, const struct rt_po_node *y, __u8 prio, __u64 margin,
		       char *names, size_t len)
{
	size_t i, j, k = 0;

	names[0] = '\0';
	for (i = 0; i < hx->npeps; i++) {
		const struct rt_rep_pep *e = &hx->peps[i];
		__u64 frames = 0;

		if (e->prio != prio || e->dir != RT_DIR_EGRESS)
			continue;
		for (j = 0; j < hx->npeps; j++) {
			const struct rt_rep_pep *o = &hx->peps[j];

			if (o->prio == prio && o->dir == RT_DIR_EGRESS && o->nic == e->nic && !strcmp(o->name, e->name)) {
				if (j < i)
					break;	/* not e's interface's first episode */
				frames += o->frames;
			}
		}
		if (j < hx->npeps || !frames_match(frames, y->rx_frames) || !overlap(e, y->rx, margin))
			continue;
		if (k < len)
			k += (size_t)snprintf(names + k, len - k, "%s%s", k ? "|" : "", e->name);
	}
}

/* The node that sent the pauses node c first received: a sender with an
 * interface that matches (linked), else the last sender that began before
 * c received; -1: none. */
static int parent_of(const struct rt_po_host *h, struct rt_po_prio *P, int c)
{
	struct rt_po_node *y = &P->node[c];
	__u64 my = h[y->host].margin_ns;
	char names[sizeof(y->from_if)];
	int i, best = -1;

	y->linked = 0;
	for (i = 0; i < P->n; i++) {
		const struct rt_po_node *x = &P->node[i];
		__u64 m = my + h[x->host].margin_ns;

		if (i == c || !x->tx || x->role == RT_PO_UNPLACED || x->host == y->host)
			continue;
		link_ports(&h[x->host], y, P->prio, m, names, sizeof(names));
		if (names[0]) {
			if (!y->linked || x->tx->start_ns > P->node[best].tx->start_ns) {
				best = i;
				memcpy(y->from_if, names, sizeof(names));
			}
			y->linked = 1;
		} else if (!y->linked && x->tx->start_ns < y->rx->first_ns + m &&
			   (best < 0 || x->tx->start_ns > P->node[best].tx->start_ns)) {
			best = i;
			snprintf(y->from_if, sizeof(y->from_if), "%s", x->tx->name);
		}
	}
	return best;
}

/* Parents that would close a loop (possible within the clocks' margins) are cut. */
static void cut_loops(struct rt_po_prio *P)
{
	int i, j, k;

	for (i = 0; i < P->n; i++)
		for (j = P->node[i].parent, k = 0; j >= 0; j = P->node[j].parent)
			if (j == i || ++k > P->n) {
				P->node[i].parent = -1;
				P->node[i].linked = 0;
				P->node[i].from_if[0] = '\0';
				break;
			}
}

static void build_prio(const struct rt_po_host *h, int nh, __u8 prio, struct rt_po_prio *P)
{
	int i;

	memset(P, 0, sizeof(*P));
	P->prio = prio;
	for (i = 0; i < nh && P->n < RT_PO_MAX_NODES; i++) {
		struct rt_po_node *n = &P->node[P->n];

		n->host = i;
		n->tx = first_pep(&h[i], prio, RT_DIR_EGRESS, &n->tx_frames);
		n->rx = first_pep(&h[i], prio, RT_DIR_INGRESS, &n->rx_frames);
		if (!n->tx && !n->rx)
			continue;
		n->role = role_of(&h[i], n);
		P->n++;
	}
	qsort(P->node, (size_t)P->n, sizeof(P->node[0]), node_cmp);
	for (i = 0; i < P->n; i++) {
		struct rt_po_node *n = &P->node[i];

		n->parent = -1;
		if (n->rx && n->role != RT_PO_UNPLACED && n->role != RT_PO_ORIGIN)
			n->parent = parent_of(h, P, i);
		P->norigins += n->role == RT_PO_ORIGIN;
		P->nunsure += n->role == RT_PO_UNSURE;
		P->nunplaced += n->role == RT_PO_UNPLACED;
	}
	cut_loops(P);
	P->decided = P->norigins == 1 && !P->nunsure && !P->nunplaced;
}

int rt_po_build(const struct rt_po_host *h, int nh, struct rt_po_prio *out)
{
	unsigned int seen = 0;
	int i, n = 0;
	size_t j;

	for (i = 0; i < nh; i++)
		for (j = 0; j < h[i].npeps; j++)
			seen |= 1u << h[i].peps[j].prio;
	for (i = 0; i < RT_NPRIO; i++)
		if (seen & (1u << i))
			build_prio(h, nh, (__u8)i, &out[n++]);
	return n;
}
