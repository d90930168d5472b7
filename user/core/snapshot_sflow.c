// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's sFlow tables (switch ports, drops, agents): their rows, looked
 * up by ifindex, and their deltas. */
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
		FOR_EACH_U64(struct rt_swport_ctr, k)
			((__u64 *)&o->d)[k] = rt_ctr_delta(((const __u64 *)&p->c)[k], ((const __u64 *)&c->c)[k], 64);
		o->in_octets = rt_ctr_delta(p->in_octets, c->in_octets, 64);
		o->out_octets = rt_ctr_delta(p->out_octets, c->out_octets, 64);
		o->in_discards = rt_ctr_delta(p->in_discards, c->in_discards, 64);
		o->out_discards = rt_ctr_delta(p->out_discards, c->out_discards, 64);
		o->in_errors = rt_ctr_delta(p->in_errors, c->in_errors, 64);
		o->out_errors = rt_ctr_delta(p->out_errors, c->out_errors, 64);
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
		/* same shape as the switch ports' deltas above: each counter of its own struct, each a 64-bit counter's delta */
		o->datagrams = rt_ctr_delta(p->datagrams, c->datagrams, 64);
		o->lost = rt_ctr_delta(p->lost, c->lost, 64);
		o->errors = rt_ctr_delta(p->errors, c->errors, 64);
		o->rejected = rt_ctr_delta(p->rejected, c->rejected, 64);
		o->samples = rt_ctr_delta(p->samples, c->samples, 64);
		o->drop_samples = rt_ctr_delta(p->drop_samples, c->drop_samples, 64);
		o->ctr_samples = rt_ctr_delta(p->ctr_samples, c->ctr_samples, 64);
		o->bad_samples = rt_ctr_delta(p->bad_samples, c->bad_samples, 64);
	}
	d->nsfagents = cur->nsfagents;
}
