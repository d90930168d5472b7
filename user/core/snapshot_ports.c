// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's interfaces and the NIC's port counters: their rows, looked up
 * and kept sorted. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "snapshot.h"

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
	memset(i, 0, sizeof(*i));
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
