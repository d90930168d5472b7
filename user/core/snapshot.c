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
	rt_snapshot_init(s);
}

void rt_snapshot_clear(struct rt_snapshot *s)
{
	s->nflows = s->nifs = s->nports = s->nifaces = s->nnotes = 0;
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
		*dst = *src;
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

int rt_delta_compute(struct rt_delta *d, const struct rt_snapshot *prev,
		     const struct rt_snapshot *cur)
{
	static const struct rt_flow_val zf;
	static const struct rt_if_val zi;
	size_t i, j;

	if (rt_grow_to((void **)&d->flows, &d->flows_cap, cur->nflows, sizeof(*d->flows)) ||
	    rt_grow_to((void **)&d->ifs, &d->ifs_cap, cur->nifs, sizeof(*d->ifs)) ||
	    rt_grow_to((void **)&d->ports, &d->ports_cap, cur->nports, sizeof(*d->ports)))
		return -ENOMEM;
	d->secs = prev && cur->time_ns > prev->time_ns ? (cur->time_ns - prev->time_ns) / 1e9 : 0;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));
	memset(&d->if_tot, 0, sizeof(d->if_tot));
	d->evicted = prev ? rt_ctr_delta(prev->evicted, cur->evicted, 64) : cur->evicted;

	/* Merge-join on the sorted keys; a flow new in cur counts from zero. */
	for (i = 0, j = 0; i < cur->nflows; i++) {
		const struct rt_flow *f = &cur->flows[i];
		const struct rt_flow_val *pv = &zf;
		int r = 1;

		while (prev && j < prev->nflows &&
		       (r = rt_flow_key_cmp(&prev->flows[j].k, &f->k)) < 0)
			j++;
		if (prev && j < prev->nflows && r == 0)
			pv = &prev->flows[j].v;
		d->flows[i].f = f;
		rt_flow_val_delta(&d->flows[i].d, pv, &f->v);
		rt_flow_val_add(&d->flow_tot, &d->flows[i].d);
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
	return 0;
}

void rt_delta_free(struct rt_delta *d)
{
	free(d->flows);
	free(d->ifs);
	free(d->ports);
	memset(d, 0, sizeof(*d));
}
