// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's sFlow tables (switch ports, drops, agents): their rows, looked
 * up by ifindex, and their deltas. */
#include <stddef.h>
#include <string.h>
#include "snapshot.h"
#include "snapshot_int.h"

struct rt_swport *rt_snapshot_add_swport(struct rt_snapshot *s)
{
	return rt_append((void **)&s->swports, &s->nswports, &s->swports_cap, sizeof(struct rt_swport));
}

struct rt_swdrop *rt_snapshot_add_swdrop(struct rt_snapshot *s)
{
	return rt_append((void **)&s->swdrops, &s->nswdrops, &s->swdrops_cap, sizeof(struct rt_swdrop));
}

struct rt_sfagent *rt_snapshot_add_sfagent(struct rt_snapshot *s)
{
	return rt_append((void **)&s->sfagents, &s->nsfagents, &s->sfagents_cap, sizeof(struct rt_sfagent));
}

const struct rt_swport *rt_snapshot_swport(const struct rt_snapshot *s, __u32 ifindex)
{
	size_t lo = 0, hi = s->nswports;

	/* Sorted by ifindex: the first row of it. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->swports[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nswports && s->swports[lo].ifindex == ifindex ? &s->swports[lo] : NULL;
}

static int swport_cmp(const struct rt_swport *a, const struct rt_swport *b)
{
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	return (int)a->dir - (int)b->dir;
}

static int swdrop_cmp(const struct rt_swdrop *a, const struct rt_swdrop *b)
{
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	return a->reason < b->reason ? -1 : a->reason > b->reason;
}

/* n 64-bit counters in a row, since start, at p and c: their deltas into d. */
static void u64_deltas(__u64 *d, const void *p, const void *c, size_t n)
{
	const __u64 *pv = p, *cv = c;

	for (size_t k = 0; k < n; k++)
		d[k] = rt_ctr_delta(pv[k], cv[k], 64);
}

/* The counters u64_deltas reads in a row: in_octets to out_errors of a
 * switch port (and of its delta), datagrams to bad_samples of an agent. */
#define U64_SPAN(T, first, last) ((offsetof(T, last) - offsetof(T, first)) / 8 + 1)
#define SWPORT_IFCTRS U64_SPAN(struct rt_swport, in_octets, out_errors)
#define SFAGENT_CTRS U64_SPAN(struct rt_sfagent, datagrams, bad_samples)
_Static_assert(SWPORT_IFCTRS == 6 && U64_SPAN(struct rt_swport_delta, in_octets, out_errors) == 6,
	       "a port's six interface counters in a row, their deltas in the same order");
_Static_assert(SFAGENT_CTRS == 8, "an agent's eight counters in a row");

/* The sFlow tables: merge-joins on their sort orders, as the flows. */
void sf_delta(struct rt_delta *d, const struct rt_snapshot *prev, const struct rt_snapshot *cur)
{
	static const struct rt_swport zp;
	static const struct rt_swdrop zd;
	static const struct rt_sfagent za;
	size_t i, j;

	for (i = 0, j = 0; i < cur->nswports; i++) {
		const struct rt_swport *c = &cur->swports[i], *p = &zp;
		struct rt_swport_delta *o = &d->swports[i];
		int r = 1;

		while (prev && j < prev->nswports && (r = swport_cmp(&prev->swports[j], c)) < 0)
			j++;
		if (prev && j < prev->nswports && r == 0)
			p = &prev->swports[j];
		o->p = c;
		u64_deltas((__u64 *)&o->d, &p->c, &c->c, sizeof(c->c) / 8);
		u64_deltas((__u64 *)((char *)o + offsetof(struct rt_swport_delta, in_octets)),
			   (const char *)p + offsetof(struct rt_swport, in_octets),
			   (const char *)c + offsetof(struct rt_swport, in_octets), SWPORT_IFCTRS);
		o->lost = rt_ctr_delta(p->agent_lost, c->agent_lost, 64);
		o->ctr_samples = rt_ctr_delta(p->ctr_samples, c->ctr_samples, 64);
	}
	d->nswports = cur->nswports;

	for (i = 0, j = 0; i < cur->nswdrops; i++) {
		const struct rt_swdrop *c = &cur->swdrops[i], *p = &zd;
		int r = 1;

		while (prev && j < prev->nswdrops && (r = swdrop_cmp(&prev->swdrops[j], c)) < 0)
			j++;
		if (prev && j < prev->nswdrops && r == 0)
			p = &prev->swdrops[j];
		d->swdrops[i].p = c;
		d->swdrops[i].drops = rt_ctr_delta(p->drops, c->drops, 64);
	}
	d->nswdrops = cur->nswdrops;

	for (i = 0, j = 0; i < cur->nsfagents; i++) {
		const struct rt_sfagent *c = &cur->sfagents[i], *p = &za;
		struct rt_sfagent *o = &d->sfagents[i].d;
		int r = 1;

		while (prev && j < prev->nsfagents && (r = strcmp(prev->sfagents[j].agent, c->agent)) < 0)
			j++;
		if (prev && j < prev->nsfagents && r == 0)
			p = &prev->sfagents[j];
		d->sfagents[i].a = c;
		memset(o, 0, sizeof(*o));
		u64_deltas((__u64 *)((char *)o + offsetof(struct rt_sfagent, datagrams)),
			   (const char *)p + offsetof(struct rt_sfagent, datagrams),
			   (const char *)c + offsetof(struct rt_sfagent, datagrams), SFAGENT_CTRS);
	}
	d->nsfagents = cur->nsfagents;
}
