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

static void table_free(struct rt_flow_table *t)
{
	if (!t)
		return;
	free(t->slot);
	free(t->hot);
	free(t->st);
	free(t->ap);
	free(t->changed);
	free(t->cd);
	free(t->cnp);
	free(t->pslot);
	free(t->jq);
	free(t->sk);
	free(t->korder);
	free(t->knew);
	free(t->kpos);
	free(t->gend);
	free(t->pos);
	free(t);
}

void rt_snapshot_free(struct rt_snapshot *s)
{
	free(s->flows);
	free(s->ifs);
	free(s->ports);
	free(s->swports);
	free(s->swdrops);
	free(s->sfagents);
	table_free(s->tab);
	rt_snapshot_init(s);
}

static void table_empty(struct rt_flow_table *t)
{
	if (t->slot)
		memset(t->slot, 0, t->nslot * sizeof(*t->slot));
	if (t->pslot)
		memset(t->pslot, 0, t->npslot * sizeof(*t->pslot));
	t->npairs = 0;
	t->njq = 0;
	t->nchanged = t->ncnp = 0;
	t->delta_taken = 0;
	t->lru_head = t->lru_tail = 0;
	t->gen++;
	t->ko_valid = 0;
	t->nkorder = t->nknew = t->ndead = 0;
	t->marked = 0;
}

void rt_snapshot_clear(struct rt_snapshot *s)
{
	s->nflows = s->nifs = s->nports = s->nifaces = s->nnotes = 0;
	s->nswports = s->nswdrops = s->nsfagents = 0;
	s->time_ns = s->mono_ns = s->evicted = 0;
	s->source[0] = '\0';
	if (s->tab)
		table_empty(s->tab);
}

int rt_snapshot_make_table(struct rt_snapshot *s)
{
	if (!s->tab) {
		s->tab = calloc(1, sizeof(*s->tab));
		if (!s->tab)
			return -ENOMEM;
		s->tab->gen = 1;
	}
	rt_snapshot_clear(s);
	return 0;
}

/* The bounds of last_ns over the rows touched in this interval (all on the
 * changed list), for rt_snapshot_expire (struct rt_gend). */
static void gen_close(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	__u64 lo = ~0ULL, hi = 0;

	for (size_t i = 0; i < t->nchanged; i++) {
		/* after rt_delta_changes the changed list holds its permutation:
		 * the rows are then the delta's */
		__u64 x = t->delta_taken ? t->cd[i].f->v.last_ns : s->flows[t->changed[i]].v.last_ns;

		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	t->gend[t->gen & (RT_GEND - 1)] = (struct rt_gend){ .tag = t->gen, .lo = lo, .hi = hi };
}

void rt_snapshot_next_interval(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t n = s->nflows;

	/* Everything rt_snapshot_clear() empties, but the flows. */
	s->tab = NULL;
	rt_snapshot_clear(s);
	s->tab = t;
	s->nflows = n;
	if (t) {
		if (t->gend)
			gen_close(s);
		t->nchanged = 0;
		t->delta_taken = 0;
		if (!++t->gen)	/* 0 would match rows never touched */
			t->gen = 1;
	}
}

int rt_snapshot_copy_small(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	struct rt_snapshot tmp = *src;
	struct rt_flow_table *t = dst->tab;
	struct rt_flow *flows = dst->flows;
	size_t n = dst->nflows, cap = dst->flows_cap;
	int err;

	tmp.nflows = 0;
	tmp.tab = NULL;
	dst->tab = NULL;
	err = rt_snapshot_copy(dst, &tmp);
	dst->tab = t;
	dst->flows = flows;
	dst->nflows = n;
	dst->flows_cap = cap;
	return err;
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

	if (dst->tab) {	/* a table is only ever filled through its own calls */
		rt_snapshot_clear(dst);
		return rt_snapshot_apply(dst, src, 1);
	}
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
	dst->tab = NULL;
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
	if (s->nflows > 1 && !s->tab)
		qsort(s->flows, s->nflows, sizeof(*s->flows), flow_cmp);
	if (s->nifs > 1)
		qsort(s->ifs, s->nifs, sizeof(*s->ifs), ifdir_cmp);
	if (s->nports > 1)
		qsort(s->ports, s->nports, sizeof(*s->ports), port_qcmp);
}

/* ---- the persistent flow table ---- */

static inline int key_eq(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	__u64 x[6], y[6];

	__builtin_memcpy(x, a, sizeof(x));
	__builtin_memcpy(y, b, sizeof(y));
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) |
		 (x[5] ^ y[5]));
}

static inline __u64 slot_make(__u32 h, size_t r)
{
	return (__u64)h << 32 | ((__u32)r + 1);
}

/* Rebuild the index at nslot slots (a power of two). */
static int index_rebuild(struct rt_snapshot *s, size_t nslot)
{
	struct rt_flow_table *t = s->tab;
	__u64 *ns = calloc(nslot, sizeof(*ns));
	size_t i, j;

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < t->nslot; i++) {
		__u64 x = t->slot[i];

		if (!x)
			continue;
		for (j = RT_SLOT_TAG(x) & (nslot - 1); ns[j]; j = (j + 1) & (nslot - 1))
			;
		ns[j] = x;
		if (t->pos)
			t->pos[RT_SLOT_ROW(x) - 1].slot = (__u32)j;
	}
	free(t->slot);
	t->slot = ns;
	t->nslot = nslot;
	return 0;
}

/* The slot that holds row r (which must be indexed). */
static size_t slot_of_row(const struct rt_snapshot *s, size_t r)
{
	const struct rt_flow_table *t = s->tab;
	__u64 want;
	size_t j;

	if (t->pos)
		return t->pos[r].slot;
	want = slot_make(rt_flow_key_hash(&s->flows[r].k), r);
	j = RT_SLOT_TAG(want) & (t->nslot - 1);

	while (t->slot[j] != want)
		j = (j + 1) & (t->nslot - 1);
	return j;
}

/* Empty slot i of an index of n slots, shifting back the entries that probed
 * past it (their homes come from the hashes the slots keep). pos (NULL: not
 * kept): the rows' places, told where a moved entry went (pair: the host-pair
 * index's, else the flow index's). */
static void index_delete(__u64 *slot, size_t n, size_t i, struct rt_flow_pos *pos, int pair)
{
	size_t mask = n - 1, j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!slot[j])
			break;
		h = RT_SLOT_TAG(slot[j]) & mask;
		/* the entry at j may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		slot[i] = slot[j];
		if (pos && pair)
			pos[RT_SLOT_ROW(slot[i]) - 1].pslot = (__u32)i;
		else if (pos)
			pos[RT_SLOT_ROW(slot[i]) - 1].slot = (__u32)i;
		i = j;
	}
	slot[i] = 0;
}

/* Room for one more row in every per-row array. */
static int table_room(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t n = s->nflows + 1, hc = t->st_cap;

	/* the common case: room in every array since the last growth (flows_cap
	 * unchanged since they all followed it), the index not too full */
	if (n <= s->flows_cap && t->room == s->flows_cap && n * 2 <= t->nslot &&
	    (!t->ko_valid || t->nknew < t->knew_cap))
		return 0;
	if (n > s->flows_cap &&
	    rt_grow_to((void **)&s->flows, &s->flows_cap, s->flows_cap ? s->flows_cap * 2 : 1024,
		       sizeof(*s->flows)))
		return -ENOMEM;
	if (rt_grow_to((void **)&t->hot, &hc, s->flows_cap, sizeof(*t->hot)) ||
	    rt_grow_to((void **)&t->st, &t->st_cap, hc, sizeof(*t->st)) ||
	    rt_grow_to((void **)&t->changed, &t->changed_cap, s->flows_cap, sizeof(*t->changed)) ||
	    rt_grow_to((void **)&t->cd, &t->cd_cap, s->flows_cap, sizeof(*t->cd)) ||
	    rt_grow_to((void **)&t->kpos, &t->kpos_cap, s->flows_cap, sizeof(*t->kpos)) ||
	    (t->pos && rt_grow_to((void **)&t->pos, &t->pos_cap, s->flows_cap, sizeof(*t->pos))) ||
	    (t->ko_valid && t->nknew == t->knew_cap &&
	     rt_grow_to((void **)&t->knew, &t->knew_cap, t->knew_cap ? t->knew_cap * 2 : 1024,
			sizeof(*t->knew))))
		return -ENOMEM;
	t->room = s->flows_cap;
	if (n * 2 > t->nslot)
		return index_rebuild(s, t->nslot ? t->nslot * 2 : 2048);
	return 0;
}


/* ---- host pairs: the join's index ---- */

static __u32 pair_hash(__u8 family, const __u8 *src, const __u8 *dst)
{
	__u64 w[4], h;

	__builtin_memcpy(w, src, 16);
	__builtin_memcpy(w + 2, dst, 16);
	h = w[0] * 0x9e3779b97f4a7c15ULL + w[1] * 0xc2b2ae3d27d4eb4fULL +
	    w[2] * 0x165667b19e3779f9ULL + w[3] * 0xd6e8feb86659fd93ULL + family;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebULL;
	return (__u32)(h ^ (h >> 29));
}

static int same_pair(const struct rt_flow_key *k, __u8 family, const __u8 *src, const __u8 *dst)
{
	return k->family == family && !memcmp(k->src, src, 16) && !memcmp(k->dst, dst, 16);
}

/* The slot of the pair (its head's), or the empty slot where it would go.
 * cnp_only: stop at the empty slot unless the pair is marked RT_PSLOT_CNP
 * (a slot whose hash matches without the mark cannot be a marked pair). */
static size_t pair_slot_h(const struct rt_snapshot *s, __u32 h, __u8 family, const __u8 *src,
			  const __u8 *dst, int cnp_only)
{
	const struct rt_flow_table *t = s->tab;
	size_t j = h & (t->npslot - 1);
	__u64 x;

	while ((x = t->pslot[j])) {
		if (RT_SLOT_TAG(x) == h && (!cnp_only || ((__u32)x & RT_PSLOT_CNP)) &&
		    same_pair(&s->flows[RT_SLOT_ROW(x) - 1].k, family, src, dst))
			break;
		j = (j + 1) & (t->npslot - 1);
	}
	return j;
}

static size_t pair_slot(const struct rt_snapshot *s, __u8 family, const __u8 *src, const __u8 *dst)
{
	return pair_slot_h(s, pair_hash(family, src, dst), family, src, dst, 0);
}

static size_t pair_slot_of(const struct rt_snapshot *s, const struct rt_flow_key *k)
{
	return pair_slot(s, k->family, k->src, k->dst);
}

/* The pair slot of row r, the head of its pair's chain: kept (tab->pos),
 * else found from its key. */
static size_t head_pslot(const struct rt_snapshot *s, size_t r)
{
	return s->tab->pos ? s->tab->pos[r].pslot : pair_slot_of(s, &s->flows[r].k);
}

/* Point pair slot j at row r (+ 1), keeping its hash and mark. */
static void pslot_set_row(struct rt_flow_table *t, size_t j, __u32 id)
{
	t->pslot[j] = (t->pslot[j] & ~(__u64)0x7fffffffu) | id;
}

__u32 rt_snapshot_pair_head(const struct rt_snapshot *s, __u8 family, const __u8 *src,
			    const __u8 *dst)
{
	if (!s->tab || !s->tab->npslot)
		return 0;
	return RT_SLOT_ROW(s->tab->pslot[pair_slot(s, family, src, dst)]);
}

__u32 rt_snapshot_pair_head_cnp(const struct rt_snapshot *s, __u8 family, const __u8 *src,
				const __u8 *dst)
{
	if (!s->tab || !s->tab->npslot)
		return 0;
	return RT_SLOT_ROW(s->tab->pslot[pair_slot_h(s, pair_hash(family, src, dst), family, src,
						     dst, 1)]);
}

void rt_snapshot_prefetch_pair(const struct rt_snapshot *s, __u8 family, const __u8 *src,
			       const __u8 *dst)
{
	if (s->tab && s->tab->npslot)
		__builtin_prefetch(&s->tab->pslot[pair_hash(family, src, dst) &
						  (s->tab->npslot - 1)]);
}

/* Index the pairs of rows [0, nrows) in n slots. */
static int pair_rebuild(struct rt_snapshot *s, size_t n, size_t nrows)
{
	struct rt_flow_table *t = s->tab;
	__u64 *ns = calloc(n, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	free(t->pslot);
	t->pslot = ns;
	t->npslot = n;
	for (size_t r = 0; r < nrows; r++)
		if (!t->st[r].pprev) {	/* a pair's head */
			const struct rt_flow_key *k = &s->flows[r].k;
			__u32 h = pair_hash(k->family, k->src, k->dst), mark = 0;

			for (__u32 id = (__u32)r + 1; id; id = t->st[id - 1].pnext)
				if (t->st[id - 1].cnp_pos)
					mark = RT_PSLOT_CNP;
			size_t j = pair_slot_h(s, h, k->family, k->src, k->dst, 0);

			t->pslot[j] = slot_make(h, r) | mark;
			if (t->pos)
				t->pos[r].pslot = (__u32)j;
		}
	return 0;
}

/* Chain new row r into its pair. */
static int pair_link(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;
	const struct rt_flow_key *k = &s->flows[r].k;
	__u32 h;
	size_t j;

	if ((t->npairs + 1) * 2 > t->npslot &&
	    pair_rebuild(s, t->npslot ? t->npslot * 2 : 2048, r))
		return -ENOMEM;
	h = pair_hash(k->family, k->src, k->dst);
	j = pair_slot_h(s, h, k->family, k->src, k->dst, 0);
	t->st[r].pprev = 0;
	t->st[r].pnext = RT_SLOT_ROW(t->pslot[j]);
	if (t->pslot[j]) {
		t->st[RT_SLOT_ROW(t->pslot[j]) - 1].pprev = (__u32)r + 1;
		pslot_set_row(t, j, (__u32)r + 1);
		if ((__u32)t->pslot[j] & RT_PSLOT_CNP)
			t->st[r].cnp_near |= RT_NEAR_PAIR;
	} else {
		t->npairs++;
		t->pslot[j] = slot_make(h, r);
	}
	if (t->pos)	/* the new row is the pair's head */
		t->pos[r].pslot = (__u32)j;
	if (t->marked && rt_snapshot_pair_head_cnp(s, k->family, k->dst, k->src))
		t->st[r].cnp_near |= RT_NEAR_REV;
	return 0;
}

/* Mark the pair of row r as carrying CNPs, and tell its rows and the reverse
 * pair's. */
static void pair_mark_cnp(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;
	const struct rt_flow_key *k = &s->flows[r].k;
	size_t j = pair_slot_of(s, k);
	__u32 id;

	if ((__u32)t->pslot[j] & RT_PSLOT_CNP)
		return;
	t->pslot[j] |= RT_PSLOT_CNP;
	t->marked = 1;
	for (id = RT_SLOT_ROW(t->pslot[j]); id; id = t->st[id - 1].pnext)
		t->st[id - 1].cnp_near |= RT_NEAR_PAIR;
	for (id = rt_snapshot_pair_head(s, k->family, k->dst, k->src); id; id = t->st[id - 1].pnext)
		t->st[id - 1].cnp_near |= RT_NEAR_REV;
}

static void pair_unlink(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;
	struct rt_flow_state *st = &t->st[r];

	if (st->pprev) {
		t->st[st->pprev - 1].pnext = st->pnext;
	} else {
		size_t j = head_pslot(s, r);

		if (st->pnext) {
			pslot_set_row(t, j, st->pnext);
			if (t->pos)
				t->pos[st->pnext - 1].pslot = (__u32)j;
		} else {
			index_delete(t->pslot, t->npslot, j, t->pos, 1);
			t->npairs--;
		}
	}
	if (st->pnext)
		t->st[st->pnext - 1].pprev = st->pprev;
	st->pnext = st->pprev = 0;
}

/* Row `from` is about to become row `to`: its pair's links follow. */
static void pair_move(struct rt_snapshot *s, size_t from, size_t to)
{
	struct rt_flow_table *t = s->tab;
	struct rt_flow_state *st = &t->st[from];

	if (st->pprev)
		t->st[st->pprev - 1].pnext = (__u32)to + 1;
	else
		pslot_set_row(t, head_pslot(s, from), (__u32)to + 1);
	if (st->pnext)
		t->st[st->pnext - 1].pprev = (__u32)to + 1;
}

/* The rows that carried a CNP on the pair src -> dst: touched (the join looks
 * at them again), and their throttles moved from `from` to `to` (-1: gone). */
static void pair_cnp_fix(struct rt_snapshot *s, __u8 family, const __u8 *src, const __u8 *dst,
			 __s32 from, __s32 to)
{
	struct rt_flow_table *t = s->tab;

	for (__u32 id = rt_snapshot_pair_head_cnp(s, family, src, dst); id;
	     id = t->st[id - 1].pnext) {
		struct rt_flow *c = &s->flows[id - 1];

		if (!t->st[id - 1].cnp_pos)
			continue;
		if (from >= 0 && c->throttles == from)
			c->throttles = to;
		rt_snapshot_join_queue(s, id - 1);
	}
}

int rt_snapshot_join_queue(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;

	if (t->st[r].jmark == t->jgen + 1)
		return 0;
	if (t->njq == t->jq_cap &&
	    rt_grow_to((void **)&t->jq, &t->jq_cap, t->jq_cap ? t->jq_cap * 2 : 64, sizeof(*t->jq)))
		return -ENOMEM;
	t->st[r].jmark = t->jgen + 1;
	t->jq[t->njq++] = (__u32)r;
	return 0;
}

/* The slot of key k (hash h), or the empty slot where it would go. */
static inline size_t table_probe(const struct rt_snapshot *s, const struct rt_flow_key *k, __u32 h)
{
	const struct rt_flow_table *t = s->tab;
	size_t mask = t->nslot - 1, j = h & mask;
	__u64 x;

	while ((x = t->slot[j])) {
		if (RT_SLOT_TAG(x) == h && key_eq(&s->flows[RT_SLOT_ROW(x) - 1].k, k))
			break;
		j = (j + 1) & mask;
	}
	return j;
}

/* Ask for the row of the first slot whose hash is h (no key compared): its
 * key, the counters a packet adds to, its hot state. 0 when no slot has h. */
static int prefetch_tagged_row(const struct rt_snapshot *s, __u32 h)
{
	const struct rt_flow_table *t = s->tab;
	size_t mask, j;
	__u64 x;

	if (!t || !t->nslot)
		return 0;
	mask = t->nslot - 1;
	for (j = h & mask; (x = t->slot[j]); j = (j + 1) & mask)
		if (RT_SLOT_TAG(x) == h) {
			const char *f = (const char *)&s->flows[RT_SLOT_ROW(x) - 1];

			__builtin_prefetch(f, 1);
			__builtin_prefetch(f + 64, 1);
			__builtin_prefetch(f + 128, 1);
			__builtin_prefetch(&t->hot[RT_SLOT_ROW(x) - 1], 1);
			return 1;
		}
	return 0;
}

void rt_snapshot_prefetch_row(const struct rt_snapshot *s, __u32 h)
{
	prefetch_tagged_row(s, h);
}

struct rt_flow *rt_snapshot_flow(struct rt_snapshot *s, const struct rt_flow_key *k, int *fresh)
{
	return rt_snapshot_flow_h(s, k, rt_flow_key_hash(k), fresh);
}

struct rt_flow *rt_snapshot_flow_h(struct rt_snapshot *s, const struct rt_flow_key *k, __u32 h,
				   int *fresh)
{
	struct rt_flow_table *t = s->tab;
	struct rt_flow *f;
	size_t j = 0, r, nslot = t->nslot;

	*fresh = 0;
	if (nslot) {
		j = table_probe(s, k, h);
		if (t->slot[j])
			return &s->flows[RT_SLOT_ROW(t->slot[j]) - 1];
	}
	if (t->max_flows && s->nflows >= t->max_flows)
		return NULL;
	if (table_room(s))
		return NULL;
	if (t->nslot != nslot)	/* the index was rebuilt: the empty slot moved */
		j = table_probe(s, k, h);
	r = s->nflows;
	t->slot[j] = slot_make(h, r);
	if (t->pos)
		t->pos[r].slot = (__u32)j;
	f = &s->flows[r];
	_Static_assert(sizeof(*f) % 8 == 0, "rows are whole words");
	rt_zero_words(f, sizeof(*f));	/* not a memset: rt_zero_words() says why */
	f->k = *k;
	f->throttles = -1;
	memset(&t->st[r], 0, sizeof(t->st[0]));
	memset(&t->hot[r], 0, sizeof(t->hot[0]));
	s->nflows++;
	if (pair_link(s, r)) {
		index_delete(t->slot, t->nslot, slot_of_row(s, r), t->pos, 0);
		s->nflows--;
		return NULL;
	}
	if (t->ko_valid) {	/* room made by table_room() */
		t->kpos[r] = RT_KPOS_NEW | (__u32)t->nknew;
		t->knew[t->nknew++] = (__u32)r;
	}
	*fresh = 1;
	rt_snapshot_touch(s, f);
	return f;
}

static int cnp_add(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;

	if (t->st[r].cnp_pos)
		return 0;
	if (t->ncnp == t->cnp_cap &&
	    rt_grow_to((void **)&t->cnp, &t->cnp_cap, t->cnp_cap ? t->cnp_cap * 2 : 64, sizeof(*t->cnp)))
		return -ENOMEM;
	t->cnp[t->ncnp++] = (__u32)r;
	t->st[r].cnp_pos = (__u32)t->ncnp;
	pair_mark_cnp(s, r);
	return 0;
}

int rt_snapshot_note_cnp(struct rt_snapshot *s, const struct rt_flow *f)
{
	return s->tab ? cnp_add(s, (size_t)(f - s->flows)) : 0;
}

/* Take row r off the recency list. */
static void lru_unlink(struct rt_flow_table *t, size_t r)
{
	struct rt_flow_hot *h = &t->hot[r];

	if (h->lru_prev)
		t->hot[h->lru_prev - 1].lru_next = h->lru_next;
	else if (t->lru_head == r + 1)
		t->lru_head = h->lru_next;
	if (h->lru_next)
		t->hot[h->lru_next - 1].lru_prev = h->lru_prev;
	else if (t->lru_tail == r + 1)
		t->lru_tail = h->lru_prev;
	h->lru_prev = h->lru_next = 0;
}

void rt_snapshot_remove(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;
	size_t last = s->nflows - 1;
	struct rt_flow_state *st = &t->st[r];
	struct rt_flow_hot *hr = &t->hot[r];
	struct rt_flow_key k = s->flows[r].k;

	index_delete(t->slot, t->nslot, slot_of_row(s, r), t->pos, 0);
	pair_unlink(s, r);
	lru_unlink(t, r);
	if (t->ko_valid) {	/* its place in the key order is empty now */
		__u32 p = t->kpos[r];

		if (p & RT_KPOS_NEW)
			t->knew[p & ~RT_KPOS_NEW] = RT_KO_DEAD;
		else
			t->korder[p] = RT_KO_DEAD;
		t->ndead++;
		if (r != last) {	/* the last row moves into r */
			__u32 q = t->kpos[last];

			if (q & RT_KPOS_NEW)
				t->knew[q & ~RT_KPOS_NEW] = (__u32)r;
			else
				t->korder[q] = (__u32)r;
			t->kpos[r] = q;
		}
	}
	if (hr->gen == t->gen) {	/* off the changed list: the last entry takes its place */
		__u32 m = t->changed[--t->nchanged];

		t->changed[hr->cpos] = m;
		t->cd[hr->cpos] = t->cd[t->nchanged];
		t->hot[m].cpos = hr->cpos;
		hr->gen = t->gen - 1;
	}
	if (st->cnp_pos) {
		__u32 m = t->cnp[--t->ncnp];

		t->cnp[st->cnp_pos - 1] = m;
		t->st[m].cnp_pos = st->cnp_pos;
		st->cnp_pos = 0;
	}
	if (st->jmark == t->jgen + 1) {	/* queued for the join: not any more */
		for (size_t i = 0; i < t->njq; i++)
			if (t->jq[i] == r) {
				t->jq[i] = t->jq[--t->njq];
				break;
			}
		st->jmark = 0;
	}
	/* CNP rows of its pair and the reverse one may see their attribution
	 * change (join.c); those that throttled it lose it. */
	if (st->cnp_near & RT_NEAR_PAIR)	/* else its pair never had a CNP row */
		pair_cnp_fix(s, k.family, k.src, k.dst, -1, -1);
	if (st->cnp_near & RT_NEAR_REV)
		pair_cnp_fix(s, k.family, k.dst, k.src, (__s32)r, -1);
	if (r != last) {
		struct rt_flow_state *ls = &t->st[last];
		struct rt_flow_hot *lh = &t->hot[last];
		const struct rt_flow_key *lk = &s->flows[last].k;
		size_t ls_slot = slot_of_row(s, last);

		t->slot[ls_slot] = slot_make(RT_SLOT_TAG(t->slot[ls_slot]), r);
		pair_move(s, last, r);
		if (lh->lru_prev)
			t->hot[lh->lru_prev - 1].lru_next = (__u32)r + 1;
		else if (t->lru_head == last + 1)
			t->lru_head = (__u32)r + 1;
		if (lh->lru_next)
			t->hot[lh->lru_next - 1].lru_prev = (__u32)r + 1;
		else if (t->lru_tail == last + 1)
			t->lru_tail = (__u32)r + 1;
		if (lh->gen == t->gen)
			t->changed[lh->cpos] = (__u32)r;
		if (ls->cnp_pos)
			t->cnp[ls->cnp_pos - 1] = (__u32)r;
		if (ls->jmark == t->jgen + 1)
			for (size_t i = 0; i < t->njq; i++)
				if (t->jq[i] == last)
					t->jq[i] = (__u32)r;
		/* rows that throttle it are CNP rows of the reverse pair */
		for (__u32 id = ls->cnp_near & RT_NEAR_REV ?
				rt_snapshot_pair_head_cnp(s, lk->family, lk->dst, lk->src) : 0;
		     id; id = t->st[id - 1].pnext)
			if (s->flows[id - 1].throttles == (__s32)last)
				s->flows[id - 1].throttles = (__s32)r;
		s->flows[r] = s->flows[last];
		*st = *ls;
		*hr = *lh;
		if (last < t->ap_cap)
			t->ap[r] = t->ap[last];
		if (t->pos)
			t->pos[r] = t->pos[last];
	}
	s->nflows--;
}

/*
 * Ask for what removing row r, and moving row m into a removed place, will
 * read (rt_snapshot_remove): their rows, states and recency entries.
 */
RT_PREFETCH_FN void expire_prefetch_rows(const struct rt_snapshot *s, size_t r, size_t m)
{
	const struct rt_flow_table *t = s->tab;
	const char *fr = (const char *)&s->flows[r], *fm = (const char *)&s->flows[m];

	__builtin_prefetch(fr, 1);
	__builtin_prefetch(fr + 64, 1);
	__builtin_prefetch(fr + 128, 1);
	__builtin_prefetch(fr + sizeof(struct rt_flow) - 1, 1);
	__builtin_prefetch(&t->st[r], 1);
	__builtin_prefetch(&t->st[r].pnext, 1);	/* a state spans cache lines */
	__builtin_prefetch(&t->hot[r], 1);
	__builtin_prefetch(fm);
	__builtin_prefetch(fm + 64);
	__builtin_prefetch(fm + 128);
	__builtin_prefetch(fm + sizeof(struct rt_flow) - 1);
	__builtin_prefetch(&t->st[m], 1);
	__builtin_prefetch(&t->st[m].pnext, 1);
	__builtin_prefetch((const char *)&t->st[m] + sizeof(t->st[0]) - 1, 1);
	__builtin_prefetch(&t->hot[m], 1);
	if (t->pos) {
		__builtin_prefetch(&t->pos[r], 1);
		__builtin_prefetch(&t->pos[m], 1);
	}
}

/* Then, their keys and states in cache: the index and pair slots they sit in,
 * and the rows they are chained to. */
RT_PREFETCH_FN void expire_prefetch_slots(const struct rt_snapshot *s, size_t r)
{
	const struct rt_flow_table *t = s->tab;
	const struct rt_flow_key *k = &s->flows[r].k;
	const struct rt_flow_state *st = &t->st[r];
	const struct rt_flow_hot *h = &t->hot[r];

	if (t->pos) {	/* where they are, not where a probe starts */
		__builtin_prefetch(&t->slot[t->pos[r].slot], 1);
		if (!st->pprev)
			__builtin_prefetch(&t->pslot[t->pos[r].pslot], 1);
	} else {
		__builtin_prefetch(&t->slot[rt_flow_key_hash(k) & (t->nslot - 1)], 1);
		if (t->npslot)
			__builtin_prefetch(&t->pslot[pair_hash(k->family, k->src, k->dst) &
						     (t->npslot - 1)], 1);
	}
	if (st->pprev)
		__builtin_prefetch(&t->st[st->pprev - 1], 1);
	if (st->pnext)
		__builtin_prefetch(&t->st[st->pnext - 1], 1);
	if (h->lru_prev)
		__builtin_prefetch(&t->hot[h->lru_prev - 1], 1);
	if (h->lru_next)
		__builtin_prefetch(&t->hot[h->lru_next - 1], 1);
}

/* From now on, keep where each row sits in the indexes (tab->pos): found
 * once from the slots; without memory, it is not kept (removals probe). */
static void track_pos(struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t j, cap = 0;

	if (rt_grow_to((void **)&t->pos, &cap, s->flows_cap ? s->flows_cap : 1024, sizeof(*t->pos)))
		return;
	t->pos_cap = cap;
	t->room = 0;	/* table_room() grows it from now on */
	for (j = 0; j < t->nslot; j++)
		if (t->slot[j])
			t->pos[RT_SLOT_ROW(t->slot[j]) - 1].slot = (__u32)j;
	for (j = 0; j < t->npslot; j++)
		if (t->pslot[j])
			t->pos[RT_SLOT_ROW(t->pslot[j]) - 1].pslot = (__u32)j;
}

/* How far ahead of a removal its rows are asked for, and their slots. */
#define RT_EXPIRE_AHEAD	16
#define RT_EXPIRE_SLOTS	8

size_t rt_snapshot_expire(struct rt_snapshot *s, __u64 before, __u64 evicted[2])
{
	struct rt_flow_table *t = s->tab;
	__u32 id = t ? t->lru_head : 0, limit = 0, *go = NULL;
	const struct rt_gend *ge;
	size_t n = 0, cap = 0, i;
	int have_limit = 0;

	if (t && !t->gend)	/* from this interval on, bounds are kept (else rows are read) */
		t->gend = calloc(RT_GEND, sizeof(*t->gend));
	if (t && !t->pos)
		track_pos(s);

	/*
	 * First the rows that go, in the order of the list (the order they are
	 * removed in, as one at a time would): the list runs by the interval of
	 * each row's last touch (gen), so once a row is too recent, only the
	 * rest of its interval may still be older. Each row's place in go[]
	 * is kept in its cpos (unused: the row did not change in this interval)
	 * so that go[] follows a row the removals move.
	 */
	while (id) {
		size_t r = id - 1;
		struct rt_flow_hot *h = &t->hot[r];

		if (h->gen == t->gen || (have_limit && h->gen != limit))
			break;
		/* an interval whose rows all go, or none: decided unread */
		ge = t->gend ? &t->gend[h->gen & (RT_GEND - 1)] : NULL;
		if (ge && ge->tag != h->gen)
			ge = NULL;
		if (ge && ge->lo >= before)
			break;	/* none of its rows goes, nor any after them */
		if ((ge && ge->hi < before) || s->flows[r].v.last_ns < before) {
			if (n == cap) {
				__u32 *g = realloc(go, (cap = cap ? cap * 2 : 1024) * sizeof(*go));

				if (!g)
					break;	/* the rest goes at a later interval */
				go = g;
			}
			h->cpos = (__u32)n;
			go[n++] = (__u32)r;
		} else if (!have_limit) {
			have_limit = 1;
			limit = h->gen;
		}
		id = h->lru_next;
	}
	/*
	 * Then remove them, asking ahead for what each removal reads: a row
	 * of a table this size is seldom in cache, and one at a time the misses
	 * came one after the other (about ten a row). The row moved into a
	 * removed place is the last one then: k removals on, about nflows - 1 - k.
	 */
	for (i = 0; i < n && i < RT_EXPIRE_AHEAD; i++)
		expire_prefetch_rows(s, go[i], s->nflows - 1 - i);
	for (i = 0; i < n; i++) {
		size_t r = go[i], last = s->nflows - 1;

		if (i + RT_EXPIRE_AHEAD < n && s->nflows > RT_EXPIRE_AHEAD)
			expire_prefetch_rows(s, go[i + RT_EXPIRE_AHEAD], last - RT_EXPIRE_AHEAD);
		if (i + RT_EXPIRE_SLOTS < n && s->nflows > RT_EXPIRE_SLOTS) {
			expire_prefetch_slots(s, go[i + RT_EXPIRE_SLOTS]);
			expire_prefetch_slots(s, last - RT_EXPIRE_SLOTS);
		}
		/* the last row, if it goes too, is found in go[] at its new place */
		if (r != last && t->hot[last].cpos < n && go[t->hot[last].cpos] == last)
			go[t->hot[last].cpos] = (__u32)r;
		if (evicted)
			evicted[s->flows[r].k.dir & 1]++;
		rt_snapshot_remove(s, r);
	}
	free(go);
	return n;
}

/*
 * rt_snapshot_prefetch_row() for a source that also makes rows (files): when
 * the index holds no row of hash h, the key is new, and what making its row
 * reads is asked for instead: the host-pair slots (its pair's and, once any
 * pair carried a CNP, the reverse pair's) and the row and state it will fill,
 * nnew rows after the last (the new keys before it in line). 1: a new key.
 */
int rt_snapshot_prefetch_key(const struct rt_snapshot *s, const struct rt_flow_key *k, __u32 h,
			     size_t nnew)
{
	const struct rt_flow_table *t = s->tab;
	size_t r = s->nflows + nnew;

	if (!t || !t->nslot || prefetch_tagged_row(s, h))
		return 0;
	if (t->npslot) {
		__builtin_prefetch(&t->pslot[pair_hash(k->family, k->src, k->dst) & (t->npslot - 1)]);
		if (t->marked)
			__builtin_prefetch(&t->pslot[pair_hash(k->family, k->dst, k->src) &
						     (t->npslot - 1)]);
	}
	if (r < s->flows_cap) {
		const char *f = (const char *)&s->flows[r];

		__builtin_prefetch(f, 1);
		__builtin_prefetch(f + 64, 1);
		__builtin_prefetch(f + 128, 1);
		__builtin_prefetch(f + sizeof(struct rt_flow) - 1, 1);
		__builtin_prefetch(&t->st[r], 1);
		__builtin_prefetch(&t->st[r].pnext, 1);
		__builtin_prefetch(&t->hot[r], 1);
	}
	return 1;
}

static int join_differs(const struct rt_flow *a, const struct rt_flow *b)
{
	return a->lqpn != b->lqpn || a->rqpn != b->rqpn || a->pid != b->pid || a->attr != b->attr ||
	       memcmp(a->comm, b->comm, sizeof(a->comm));
}

static struct rt_flow *table_find(const struct rt_snapshot *s, const struct rt_flow_key *k)
{
	const struct rt_flow_table *t = s->tab;
	__u64 x;

	if (!t->nslot)
		return NULL;
	x = t->slot[table_probe(s, k, rt_flow_key_hash(k))];
	return x ? &s->flows[RT_SLOT_ROW(x) - 1] : NULL;
}

int rt_snapshot_apply(struct rt_snapshot *s, const struct rt_snapshot *src, int joined)
{
	struct rt_flow_table *t = s->tab;
	size_t i, r;
	int fresh;

	if (++t->seen_gen == 0)
		t->seen_gen = 1;
	for (i = 0; i < src->nflows; i++) {
		const struct rt_flow *sf = &src->flows[i];
		struct rt_flow *f = rt_snapshot_flow(s, &sf->k, &fresh);

		if (!f)
			return -ENOMEM;
		r = (size_t)(f - s->flows);
		if (r >= t->ap_cap) {	/* new places start unseen (0) */
			size_t was = t->ap_cap;

			if (rt_grow_to((void **)&t->ap, &t->ap_cap, s->flows_cap, sizeof(*t->ap)))
				return -ENOMEM;
			memset(t->ap + was, 0, (t->ap_cap - was) * sizeof(*t->ap));
		}
		t->ap[r].seen = t->seen_gen;
		t->ap[r].aux = (__u32)i;
		if (fresh || memcmp(&f->v, &sf->v, sizeof(f->v)) || (joined && join_differs(f, sf)) ||
		    f->samples != sf->samples || f->estimate != sf->estimate) {
			struct rt_flow keep = *f;

			rt_snapshot_touch(s, f);	/* before: it keeps the old counters */
			*f = *sf;
			f->throttles = keep.throttles;	/* set below, once rows stay put */
			if (!joined) {	/* the table's own join keeps them */
				f->lqpn = keep.lqpn;
				f->rqpn = keep.rqpn;
				f->pid = keep.pid;
				f->attr = keep.attr;
				memcpy(f->comm, keep.comm, sizeof(f->comm));
			}
		}
		if (joined && (f->v.cnp || sf->throttles >= 0) && cnp_add(s, r))
			return -ENOMEM;
	}
	/* Rows missing from src go (downwards: the row moving in was looked at). */
	for (r = s->nflows; r-- > 0;)
		if (r >= t->ap_cap || t->ap[r].seen != t->seen_gen)
			rt_snapshot_remove(s, r);
	/* throttles: src's index, turned into the table's row (rows with a
	 * throttles or a CNP are all on the cnp list). */
	for (i = 0; joined && i < t->ncnp; i++) {
		struct rt_flow *f = &s->flows[t->cnp[i]], *tg;
		const struct rt_flow *sf = &src->flows[t->ap[t->cnp[i]].aux];
		__s32 want = -1;

		if (sf->throttles >= 0 && (size_t)sf->throttles < src->nflows &&
		    (tg = table_find(s, &src->flows[sf->throttles].k)))
			want = (__s32)(tg - s->flows);
		if (f->throttles != want) {
			f->throttles = want;
			rt_snapshot_touch(s, f);
		}
	}
	return rt_snapshot_copy_small(s, src);
}

static int row_key_cmp(const struct rt_snapshot *s, __u32 a, __u32 b)
{
	return rt_flow_key_cmp(&s->flows[a].k, &s->flows[b].k);
}

static int perm_cmp(const void *a, const void *b, void *arg)
{
	const struct rt_flow *f = arg;

	return rt_flow_key_cmp(&f[*(const __u32 *)a].k, &f[*(const __u32 *)b].k);
}

const __u32 *rt_snapshot_key_order(const struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t i, j, o, n = s->nflows, nn = 0;

	if (rt_grow_to((void **)&t->korder, &t->korder_cap, n, sizeof(*t->korder)) ||
	    (t->ko_valid && rt_grow_to((void **)&t->sk, &t->sk_cap, t->nknew, sizeof(*t->sk))))
		return NULL;
	if (!t->ko_valid) {	/* the first time: sort them all, as row numbers (4 bytes
				 * a row to sort, not a sort key's 56 and a copy of them) */
		for (i = 0; i < n; i++)
			t->korder[i] = (__u32)i;
		if (n > 1)
			qsort_r(t->korder, n, sizeof(*t->korder), perm_cmp, (void *)s->flows);
		for (i = 0; i < n; i++)
			t->kpos[t->korder[i]] = (__u32)i;
		t->nkorder = n;
		t->nknew = t->ndead = 0;
		t->ko_valid = 1;
		return t->korder;
	}
	if (!t->nknew && !t->ndead)
		return t->korder;
	/* the rows added since, sorted; then merged with the kept order */
	for (i = 0; i < t->nknew; i++)
		if (t->knew[i] != RT_KO_DEAD)
			rt_sortkey_make(&t->sk[nn++], &s->flows[t->knew[i]].k, t->knew[i]);
	rt_sortkeys_sort(t->sk, nn);
	/* In place (no second order array, 4 bytes a row): the places of the
	 * rows gone closed up front to back, then the new rows merged in from
	 * the back (o + nn <= n: korder holds them). */
	for (i = o = 0; i < t->nkorder; i++)
		if (t->korder[i] != RT_KO_DEAD)
			t->korder[o++] = t->korder[i];
	for (i = o, j = nn, o += nn; j > 0;) {
		__u32 r;

		if (i > 0 && row_key_cmp(s, t->korder[i - 1], (__u32)t->sk[j - 1].row) > 0)
			r = t->korder[--i];
		else
			r = (__u32)t->sk[--j].row;
		t->korder[i + j] = r;
	}
	for (i = 0; i < o; i++)
		t->kpos[t->korder[i]] = (__u32)i;
	t->nkorder = o;
	t->nknew = t->ndead = 0;
	return t->korder;
}

int rt_snapshot_copy_sorted(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	const __u32 *order = NULL, *pos = NULL;
	__u32 *perm = NULL, *inv;
	size_t i, n = src->nflows;
	int err;

	err = rt_snapshot_copy(dst, src);
	if (err || n < 2)
		return err;
	if (src->tab) {	/* the table's kept key order: no sort of N */
		order = rt_snapshot_key_order(src);
		if (!order)
			return -ENOMEM;
		pos = src->tab->kpos;
	} else {
		perm = malloc(n * 2 * sizeof(*perm));
		if (!perm)
			return -ENOMEM;
		inv = perm + n;
		for (i = 0; i < n; i++)
			perm[i] = (__u32)i;
		qsort_r(perm, n, sizeof(*perm), perm_cmp, (void *)src->flows);
		for (i = 0; i < n; i++)
			inv[perm[i]] = (__u32)i;
		order = perm;
		pos = inv;
	}
	for (i = 0; i < n; i++) {
		struct rt_flow *f = &dst->flows[i];

		*f = src->flows[order[i]];
		if (f->throttles >= 0 && (size_t)f->throttles < n)
			f->throttles = (__s32)pos[f->throttles];
	}
	free(perm);
	return 0;
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

/* rt_ctr_delta(prev, cur, RT_BITS_64), inline: going down is a reset. */
static inline __u64 ctr_delta64(__u64 prev, __u64 cur)
{
	return cur >= prev ? cur - prev : cur;
}

/* rt_flow_val_delta, inline for the per-row loops of rt_delta_changes. */
static inline void flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
				  const struct rt_flow_val *cur)
{
	/* Counters first, then the last-seen attributes copied from cur. */
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;
	size_t ncnt = offsetof(struct rt_flow_val, first_ns) / 8;

	*d = *cur;
	for (size_t i = 0; i < ncnt; i++)
		o[i] = ctr_delta64(p[i], c[i]);
}

void rt_flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
		       const struct rt_flow_val *cur)
{
	flow_val_delta(d, prev, cur);
}

void rt_if_val_delta(struct rt_if_val *d, const struct rt_if_val *prev, const struct rt_if_val *cur)
{
	const __u64 *p = (const __u64 *)prev, *c = (const __u64 *)cur;
	__u64 *o = (__u64 *)d;

	FOR_EACH_U64(struct rt_if_val, i)
		o[i] = rt_ctr_delta(p[i], c[i], 64);
}

static inline void flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v)
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

void rt_flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v)
{
	flow_val_add(sum, v);
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
		o->bad_samples = rt_ctr_delta(p->bad_samples, c->bad_samples, 64);
	}
	d->nsfagents = cur->nsfagents;
}

/* ifdirs and ports of cur against prev (NULL: everything since the start). */
static int small_delta(struct rt_delta *d, const struct rt_snapshot *prev,
		       const struct rt_snapshot *cur)
{
	static const struct rt_if_val zi;
	size_t i, j;

	if (rt_grow_to((void **)&d->ifs, &d->ifs_cap, cur->nifs, sizeof(*d->ifs)) ||
	    rt_grow_to((void **)&d->ports, &d->ports_cap, cur->nports, sizeof(*d->ports)) ||
	    rt_grow_to((void **)&d->swports, &d->swports_cap, cur->nswports, sizeof(*d->swports)) ||
	    rt_grow_to((void **)&d->swdrops, &d->swdrops_cap, cur->nswdrops, sizeof(*d->swdrops)) ||
	    rt_grow_to((void **)&d->sfagents, &d->sfagents_cap, cur->nsfagents, sizeof(*d->sfagents)))
		return -ENOMEM;
	d->secs = prev && cur->time_ns > prev->time_ns ? (cur->time_ns - prev->time_ns) / 1e9 : 0;
	memset(&d->if_tot, 0, sizeof(d->if_tot));
	memset(&d->est_tot, 0, sizeof(d->est_tot));
	d->evicted = prev ? rt_ctr_delta(prev->evicted, cur->evicted, 64) : cur->evicted;

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

int rt_delta_compute(struct rt_delta *d, const struct rt_snapshot *prev,
		     const struct rt_snapshot *cur)
{
	static const struct rt_flow_val zf;
	size_t i, j;

	if (!d->flows_cap)	/* a table's (rt_delta_changes): not ours to grow */
		d->flows = NULL;
	if (rt_grow_to((void **)&d->flows, &d->flows_cap, cur->nflows, sizeof(*d->flows)) ||
	    small_delta(d, prev, cur))
		return -ENOMEM;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));

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
	return 0;
}

void rt_sortkey_make(struct rt_sortkey *o, const struct rt_flow_key *k, size_t row)
{
	__u64 w[6];

	__builtin_memcpy(w, k, sizeof(w));
	for (int i = 0; i < 6; i++)
		o->w[i] = __builtin_bswap64(w[i]);	/* memcmp order on a little-endian host */
	o->row = row;
}

static int sortkey_cmp(const void *a, const void *b)
{
	const __u64 *x = ((const struct rt_sortkey *)a)->w, *y = ((const struct rt_sortkey *)b)->w;

	for (int i = 0; i < 6; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* a < b, inline (no call per comparison as qsort makes). */
static inline int sortkey_less(const struct rt_sortkey *a, const struct rt_sortkey *b)
{
	for (int i = 0; i < 5; i++)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i];
	return a->w[5] < b->w[5];
}

static inline void sortkey_swap(struct rt_sortkey *a, struct rt_sortkey *b)
{
	struct rt_sortkey t = *a;

	*a = *b;
	*b = t;
}

/*
 * Quicksort (median of three, insertion sort below 16 keys) with the
 * comparison inline: glibc's qsort sorts keys this large through pointers
 * and a compare call each (msort and sortkey_cmp were 5-10% of bench/pcap.sh's
 * 100k-flow profiles). A part that recurses deeper than 2 log2 n (a shape
 * that defeats the median) is left to qsort, so the worst case stays
 * O(n log n).
 */
static void sortkeys_qs(struct rt_sortkey *k, size_t n, int depth)
{
	while (n > 16) {
		struct rt_sortkey *m = &k[n / 2], *e = &k[n - 1], piv;
		size_t i, j;

		if (!depth--) {
			qsort(k, n, sizeof(*k), sortkey_cmp);
			return;
		}
		if (sortkey_less(m, k))
			sortkey_swap(m, k);
		if (sortkey_less(e, m)) {
			sortkey_swap(e, m);
			if (sortkey_less(m, k))
				sortkey_swap(m, k);
		}
		/* k[0] <= pivot <= k[n - 1]: both ends stop the scans below */
		piv = *m;
		i = 0;
		j = n - 1;
		for (;;) {
			do
				i++;
			while (sortkey_less(&k[i], &piv));
			do
				j--;
			while (sortkey_less(&piv, &k[j]));
			if (i >= j)
				break;
			sortkey_swap(&k[i], &k[j]);
		}
		/* [0, j] <= pivot <= [j + 1, n): the smaller part recursed into */
		if (j + 1 < n - j - 1) {
			sortkeys_qs(k, j + 1, depth);
			k += j + 1;
			n -= j + 1;
		} else {
			sortkeys_qs(k + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct rt_sortkey x = k[i];
		size_t j = i;

		for (; j > 0 && sortkey_less(&x, &k[j - 1]); j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

void rt_sortkeys_sort(struct rt_sortkey *k, size_t n)
{
	int depth = 0;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (n > 1)
		sortkeys_qs(k, n, depth);
}

/* At least this many changed rows, and a quarter of the table or more: the
 * table's kept key order, walked whole, is cheaper than sorting them. */
#define RT_KEY_ORDER_WALK	1024

/*
 * Put a[] in the order perm[] gives (a[j] becomes what a[perm[j]] was), in
 * place, one cycle of the permutation at a time; perm is used up.
 */
static void permute(struct rt_flow_delta *a, __u32 *perm, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rt_flow_delta tmp;
		size_t j = i;

		if (perm[i] == i)
			continue;
		tmp = a[i];
		for (;;) {
			size_t k = perm[j];

			perm[j] = (__u32)j;
			if (k == i) {
				a[j] = tmp;
				break;
			}
			a[j] = a[k];
			j = k;
		}
	}
}

int rt_delta_changes(struct rt_delta *d, const struct rt_snapshot *prev, struct rt_snapshot *cur)
{
	struct rt_flow_table *t = cur->tab;
	const __u32 *order = NULL;
	__u32 *perm;
	size_t i, n = t->nchanged;

	if (small_delta(d, prev, cur))
		return -ENOMEM;
	memset(&d->flow_tot, 0, sizeof(d->flow_tot));
	/* Each changed row's delta, where its first touch left the old counters. */
	for (i = 0; i < n; i++) {
		struct rt_flow_delta *e = &t->cd[i];
		const struct rt_flow *f = &cur->flows[t->changed[i]];
		struct rt_flow_val old = e->d;

		e->f = f;
		flow_val_delta(&e->d, &old, &f->v);
		e->samples = ctr_delta64(e->samples, f->samples);
		flow_val_add(f->estimate ? &d->est_tot : &d->flow_tot, &e->d);
	}
	/* Their places in key order, kept where the changed rows were (each
	 * is cd[i].f now: delta_taken says so to whatever reads the list
	 * before the next interval). */
	perm = t->changed;
	t->delta_taken = 1;
	if (n >= RT_KEY_ORDER_WALK && n * 4 >= cur->nflows)
		order = rt_snapshot_key_order(cur);
	if (order) {	/* the changed rows, met in key order */
		size_t j = 0;

		for (i = 0; i < cur->nflows && j < n; i++) {
			if (i + 16 < cur->nflows)
				__builtin_prefetch(&t->hot[order[i + 16]]);
			if (t->hot[order[i]].gen == t->gen)
				perm[j++] = t->hot[order[i]].cpos;
		}
		if (j != n)	/* cannot be: every changed row is in the order */
			order = NULL;
	}
	if (!order) {
		if (rt_grow_to((void **)&t->sk, &t->sk_cap, n, sizeof(*t->sk)))
			return -ENOMEM;
		/* Key order from the keys copied out as words: no row read per comparison. */
		for (i = 0; i < n; i++)
			rt_sortkey_make(&t->sk[i], &t->cd[i].f->k, i);
		rt_sortkeys_sort(t->sk, n);
		for (i = 0; i < n; i++)
			perm[i] = (__u32)t->sk[i].row;
	}
	permute(t->cd, perm, n);
	if (d->flows_cap)
		free(d->flows);
	d->flows = t->cd;
	d->flows_cap = 0;
	d->nflows = n;
	return 0;
}

int rt_delta_expand(struct rt_delta *full, const struct rt_delta *d, const struct rt_snapshot *all)
{
	size_t i, j = 0;

	if (rt_grow_to((void **)&full->flows, &full->flows_cap, all->nflows, sizeof(*full->flows)))
		return -ENOMEM;
	memset(&full->flow_tot, 0, sizeof(full->flow_tot));
	memset(&full->est_tot, 0, sizeof(full->est_tot));
	for (i = 0; i < all->nflows; i++) {
		const struct rt_flow *f = &all->flows[i];

		while (j < d->nflows && rt_flow_key_cmp(&d->flows[j].f->k, &f->k) < 0)
			j++;
		full->flows[i].f = f;
		if (j < d->nflows && !rt_flow_key_cmp(&d->flows[j].f->k, &f->k)) {
			full->flows[i].d = d->flows[j].d;
			full->flows[i].samples = d->flows[j].samples;
		} else {
			rt_flow_val_delta(&full->flows[i].d, &f->v, &f->v);
			full->flows[i].samples = 0;
		}
		rt_flow_val_add(f->estimate ? &full->est_tot : &full->flow_tot, &full->flows[i].d);
	}
	full->nflows = all->nflows;
	return 0;
}

void rt_delta_free(struct rt_delta *d)
{
	if (d->flows_cap)
		free(d->flows);
	free(d->ifs);
	free(d->ports);
	free(d->swports);
	free(d->swdrops);
	free(d->sfagents);
	memset(d, 0, sizeof(*d));
}
