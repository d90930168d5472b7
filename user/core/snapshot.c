// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"

void rt_snapshot_init(struct rt_snapshot *s)
{
	memset(s, 0, sizeof(*s));
}

void rt_snapshot_free(struct rt_snapshot *s)
{
	free(s->flows);
	free(s->ifs);
	free(s->ports);
	free(s->swports);
	free(s->swdrops);
	free(s->sfagents);
	rt_snapshot_init(s);
}

void rt_snapshot_clear(struct rt_snapshot *s)
{
	s->nflows = s->nifs = s->nports = s->nifaces = s->nnotes = 0;
	s->nswports = s->nswdrops = s->nsfagents = 0;
	s->time_ns = s->mono_ns = s->evicted = 0;
	s->source[0] = '\0';
}

struct rt_flow *rt_snapshot_add_flow(struct rt_snapshot *s)
{
	struct rt_flow *f = rt_append((void **)&s->flows, &s->nflows, &s->flows_cap, sizeof(*f));

	if (f)
		f->throttles = -1;
	return f;
}

struct rt_ifdir *rt_snapshot_add_ifdir(struct rt_snapshot *s)
{
	return rt_append((void **)&s->ifs, &s->nifs, &s->ifs_cap, sizeof(struct rt_ifdir));
}

struct rt_port_ctr *rt_snapshot_add_port(struct rt_snapshot *s)
{
	return rt_append((void **)&s->ports, &s->nports, &s->ports_cap, sizeof(struct rt_port_ctr));
}

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

struct rt_ifdir *rt_snapshot_ifdir(struct rt_snapshot *s, __u32 ifindex, __u8 dir)
{
	struct rt_ifdir *r;
	size_t i;

	for (i = 0; i < s->nifs; i++)
		if (s->ifs[i].k.ifindex == ifindex && s->ifs[i].k.dir == dir)
			return &s->ifs[i];
	r = rt_snapshot_add_ifdir(s);
	if (r) {
		r->k.ifindex = ifindex;
		r->k.dir = dir;
	}
	return r;
}

static void copy_str(char *dst, size_t sz, const char *src)
{
	snprintf(dst, sz, "%s", src ? src : "");
}

int rt_snapshot_add_iface(struct rt_snapshot *s, __u32 ifindex, const char *name, const char *mode)
{
	struct rt_iface *i;

	if (s->nifaces == RT_MAX_IFACES)
		return -ENOSPC;
	i = &s->ifaces[s->nifaces++];
	i->ifindex = ifindex;
	copy_str(i->name, sizeof(i->name), name);
	copy_str(i->mode, sizeof(i->mode), mode);
	return 0;
}

const char *rt_snapshot_ifname(const struct rt_snapshot *s, __u32 ifindex)
{
	size_t i;

	if (ifindex >= RT_SFLOW_IFBASE) {
		const struct rt_swport *p = rt_snapshot_swport(s, ifindex);

		return p ? p->name : "?";
	}
	for (i = 0; i < s->nifaces; i++)
		if (s->ifaces[i].ifindex == ifindex)
			return s->ifaces[i].name;
	return "?";
}

void rt_snapshot_note(struct rt_snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nnotes == RT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
}

int rt_snapshot_copy(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	struct rt_snapshot mem = *dst;	/* dst's arrays, grown to fit src */
	int err;

	err = rt_grow_to((void **)&mem.flows, &mem.flows_cap, src->nflows, sizeof(*mem.flows));
	if (!err)
		err = rt_grow_to((void **)&mem.ifs, &mem.ifs_cap, src->nifs, sizeof(*mem.ifs));
	if (!err)
		err = rt_grow_to((void **)&mem.ports, &mem.ports_cap, src->nports, sizeof(*mem.ports));
	if (!err)
		err = rt_grow_to((void **)&mem.swports, &mem.swports_cap, src->nswports, sizeof(*mem.swports));
	if (!err)
		err = rt_grow_to((void **)&mem.swdrops, &mem.swdrops_cap, src->nswdrops, sizeof(*mem.swdrops));
	if (!err)
		err = rt_grow_to((void **)&mem.sfagents, &mem.sfagents_cap, src->nsfagents,
				 sizeof(*mem.sfagents));
	if (!err)
		*dst = *src;
	dst->swports = mem.swports;
	dst->swports_cap = mem.swports_cap;
	dst->swdrops = mem.swdrops;
	dst->swdrops_cap = mem.swdrops_cap;
	dst->sfagents = mem.sfagents;
	dst->sfagents_cap = mem.sfagents_cap;
	dst->flows = mem.flows;
	dst->flows_cap = mem.flows_cap;
	dst->ifs = mem.ifs;
	dst->ifs_cap = mem.ifs_cap;
	dst->ports = mem.ports;
	dst->ports_cap = mem.ports_cap;
	if (err)
		return err;
	if (src->nflows)
		memcpy(dst->flows, src->flows, src->nflows * sizeof(*dst->flows));
	if (src->nifs)
		memcpy(dst->ifs, src->ifs, src->nifs * sizeof(*dst->ifs));
	if (src->nports)
		memcpy(dst->ports, src->ports, src->nports * sizeof(*dst->ports));
	if (src->nswports)
		memcpy(dst->swports, src->swports, src->nswports * sizeof(*dst->swports));
	if (src->nswdrops)
		memcpy(dst->swdrops, src->swdrops, src->nswdrops * sizeof(*dst->swdrops));
	if (src->nsfagents)
		memcpy(dst->sfagents, src->sfagents, src->nsfagents * sizeof(*dst->sfagents));
	return 0;
}

int rt_flow_key_cmp(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	return memcmp(a, b, sizeof(*a));
}

static int flow_cmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(&((const struct rt_flow *)a)->k, &((const struct rt_flow *)b)->k);
}

static int ifdir_cmp(const void *a, const void *b)
{
	const struct rt_if_key *x = &((const struct rt_ifdir *)a)->k;
	const struct rt_if_key *y = &((const struct rt_ifdir *)b)->k;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return (int)x->dir - (int)y->dir;
}

int rt_port_ctr_cmp(const struct rt_port_ctr *a, const struct rt_port_ctr *b)
{
	int r = strcmp(a->dev, b->dev);

	if (r)
		return r;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	r = strcmp(a->netdev, b->netdev);
	if (r)
		return r;
	if (a->scope != b->scope)
		return (int)a->scope - (int)b->scope;
	if (a->qpn != b->qpn)
		return a->qpn < b->qpn ? -1 : 1;
	return strcmp(a->name, b->name);
}

void *rt_port_table_get(void **tab, size_t *n, size_t *cap, size_t sz,
			const struct rt_port_ctr *c, int *fresh)
{
	size_t lo = 0, hi = *n;
	char *base = *tab;

	*fresh = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = rt_port_ctr_cmp((const struct rt_port_ctr *)(base + mid * sz), c);

		if (!cmp)
			return base + mid * sz;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (*n == *cap && rt_grow_to(tab, cap, *cap ? *cap * 2 : 256, sz))
		return NULL;
	base = *tab;
	memmove(base + (lo + 1) * sz, base + lo * sz, (*n - lo) * sz);
	memset(base + lo * sz, 0, sz);
	memcpy(base + lo * sz, c, sizeof(*c));
	(*n)++;
	*fresh = 1;
	return base + lo * sz;
}

static int port_qcmp(const void *a, const void *b)
{
	return rt_port_ctr_cmp(a, b);
}

void rt_snapshot_sort(struct rt_snapshot *s)
{
	if (s->nflows > 1)
		qsort(s->flows, s->nflows, sizeof(*s->flows), flow_cmp);
	if (s->nifs > 1)
		qsort(s->ifs, s->nifs, sizeof(*s->ifs), ifdir_cmp);
	if (s->nports > 1)
		qsort(s->ports, s->nports, sizeof(*s->ports), port_qcmp);
}

__u64 rt_ctr_delta(__u64 prev, __u64 cur, unsigned int bits)
{
	__u64 wrapped;

	if (cur >= prev)
		return cur - prev;
	/* Went down: a wrap of a 32-bit counter or a reset (driver reload, table
	 * flush), by the rule man/rocetop.8 states under NIC COUNTERS. A value
	 * above 32 bits cannot have wrapped at 32 bits. */
	if (bits == 64 || prev > 0xffffffffULL)
		return cur;
	wrapped = (0x100000000ULL - prev) + cur;
	if (bits == RT_BITS_32)
		return wrapped;
	/* Width unknown: a wrap when it was in the upper half and the wrapped
	 * increase is plausible (at most 2^31); a reset otherwise. */
	if (prev >= 0x80000000ULL && wrapped <= 0x80000000ULL)
		return wrapped;
	return cur;
}

#define FOR_EACH_U64(type, n) for (size_t n = 0; n < sizeof(type) / 8; n++)

void rt_flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
		       const struct rt_flow_val *cur)
{
	/* Counters first, then the last-seen attributes copied from cur. */
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;
	size_t ncnt = offsetof(struct rt_flow_val, first_ns) / 8;

	*d = *cur;
	for (size_t i = 0; i < ncnt; i++)
		o[i] = rt_ctr_delta(p[i], c[i], 64);
}

void rt_if_val_delta(struct rt_if_val *d, const struct rt_if_val *prev, const struct rt_if_val *cur)
{
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;

	FOR_EACH_U64(struct rt_if_val, i)
		o[i] = rt_ctr_delta(p[i], c[i], 64);
}

void rt_flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;
	size_t ncnt = offsetof(struct rt_flow_val, first_ns) / 8;

	for (size_t i = 0; i < ncnt; i++)
		o[i] += a[i];
	if (v->pkts && (!sum->first_ns || v->first_ns < sum->first_ns))
		sum->first_ns = v->first_ns;
	if (v->last_ns > sum->last_ns)
		sum->last_ns = v->last_ns;
}

void rt_if_val_add(struct rt_if_val *sum, const struct rt_if_val *v)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;

	FOR_EACH_U64(struct rt_if_val, i)
		o[i] += a[i];
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
static void sf_delta(struct rt_delta *d, const struct rt_snapshot *prev, const struct rt_snapshot *cur)
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
		o->datagrams = rt_ctr_delta(p->datagrams, c->datagrams, 64);
		o->lost = rt_ctr_delta(p->lost, c->lost, 64);
		o->errors = rt_ctr_delta(p->errors, c->errors, 64);
		o->rejected = rt_ctr_delta(p->rejected, c->rejected, 64);
		o->samples = rt_ctr_delta(p->samples, c->samples, 64);
		o->drop_samples = rt_ctr_delta(p->drop_samples, c->drop_samples, 64);
		o->ctr_samples = rt_ctr_delta(p->ctr_samples, c->ctr_samples, 64);
	}
	d->nsfagents = cur->nsfagents;
}

int rt_delta_compute(struct rt_delta *d, const struct rt_snapshot *prev,
		     const struct rt_snapshot *cur)
{
	static const struct rt_flow_val zf;
	static const struct rt_if_val zi;
	size_t i, j;

	if (rt_grow_to((void **)&d->flows, &d->flows_cap, cur->nflows, sizeof(*d->flows)) ||
	    rt_grow_to((void **)&d->ifs, &d->ifs_cap, cur->nifs, sizeof(*d->ifs)) ||
	    rt_grow_to((void **)&d->ports, &d->ports_cap, cur->nports, sizeof(*d->ports)) ||
	    rt_grow_to((void **)&d->swports, &d->swports_cap, cur->nswports, sizeof(*d->swports)) ||
	    rt_grow_to((void **)&d->swdrops, &d->swdrops_cap, cur->nswdrops, sizeof(*d->swdrops)) ||
	    rt_grow_to((void **)&d->sfagents, &d->sfagents_cap, cur->nsfagents, sizeof(*d->sfagents)))
		return -ENOMEM;
	d->secs = prev && cur->time_ns > prev->time_ns ? (cur->time_ns - prev->time_ns) / 1e9 : 0;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));
	memset(&d->if_tot, 0, sizeof(d->if_tot));
	memset(&d->est_tot, 0, sizeof(d->est_tot));
	d->evicted = prev ? rt_ctr_delta(prev->evicted, cur->evicted, 64) : cur->evicted;

	/* Merge-join on the sorted keys; a flow new in cur counts from zero. */
	for (i = 0, j = 0; i < cur->nflows; i++) {
		const struct rt_flow *f = &cur->flows[i];
		const struct rt_flow_val *pv = &zf;
		__u64 psamples = 0;
		int r = 1;

		while (prev && j < prev->nflows &&
		       (r = rt_flow_key_cmp(&prev->flows[j].k, &f->k)) < 0)
			j++;
		if (prev && j < prev->nflows && r == 0) {
			pv = &prev->flows[j].v;
			psamples = prev->flows[j].samples;
		}
		d->flows[i].f = f;
		rt_flow_val_delta(&d->flows[i].d, pv, &f->v);
		d->flows[i].samples = rt_ctr_delta(psamples, f->samples, 64);
		rt_flow_val_add(f->estimate ? &d->est_tot : &d->flow_tot, &d->flows[i].d);
	}
	d->nflows = cur->nflows;

	for (i = 0; i < cur->nifs; i++) {
		const struct rt_if_val *pv = &zi;
		__u64 pev = 0;

		for (j = 0; prev && j < prev->nifs; j++)
			if (prev->ifs[j].k.ifindex == cur->ifs[i].k.ifindex &&
			    prev->ifs[j].k.dir == cur->ifs[i].k.dir) {
				pv = &prev->ifs[j].v;
				pev = prev->ifs[j].evicted;
				break;
			}
		d->ifs[i].s = &cur->ifs[i];
		rt_if_val_delta(&d->ifs[i].d, pv, &cur->ifs[i].v);
		d->ifs[i].evicted = rt_ctr_delta(pev, cur->ifs[i].evicted, 64);
		rt_if_val_add(&d->if_tot, &d->ifs[i].d);
	}
	d->nifs = cur->nifs;

	for (i = 0, j = 0; i < cur->nports; i++) {
		const struct rt_port_ctr *c = &cur->ports[i];
		int r = 1;

		while (prev && j < prev->nports && (r = rt_port_ctr_cmp(&prev->ports[j], c)) < 0)
			j++;
		d->ports[i].c = c;
		/* A counter seen for the first time has no interval to speak of. */
		d->ports[i].d = prev && j < prev->nports && r == 0 ?
			rt_ctr_delta(prev->ports[j].value, c->value, c->bits) : 0;
	}
	d->nports = cur->nports;
	sf_delta(d, prev, cur);
	return 0;
}

void rt_delta_free(struct rt_delta *d)
{
	free(d->flows);
	free(d->ifs);
	free(d->ports);
	free(d->swports);
	free(d->swdrops);
	free(d->sfagents);
	memset(d, 0, sizeof(*d));
}
