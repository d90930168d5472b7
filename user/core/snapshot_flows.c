// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The persistent flow table (snapshot.h): the index of keys to rows, making,
 * finding and removing rows, and applying a whole snapshot to it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "snapshot.h"
#include "snapshot_int.h"

static inline int key_eq(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	__u64 x[6], y[6];

	__builtin_memcpy(x, a, sizeof(x));
	__builtin_memcpy(y, b, sizeof(y));
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) |
		 (x[5] ^ y[5]));
}

/* An index of nslot empty slots: from 2 MB on, in 2 MB pages where the
 * kernel has them (its lines are read at random). */
__u64 *index_alloc(size_t nslot)
{
	size_t len = nslot * sizeof(__u64), huge = (size_t)2 << 20;
	__u64 *ns;

	if (len < huge)
		return calloc(nslot, sizeof(__u64));
	ns = aligned_alloc(huge, len);
	if (!ns)
		return NULL;
	madvise(ns, len, MADV_HUGEPAGE);
	memset(ns, 0, len);
	return ns;
}

/* Rebuild the index at nslot slots (a power of two). */
static int index_rebuild(struct rt_snapshot *s, size_t nslot)
{
	struct rt_flow_table *t = s->tab;
	__u64 *ns = index_alloc(nslot);
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
void index_delete(__u64 *slot, size_t n, size_t i, struct rt_flow_pos *pos, int pair)
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
	if (n <= s->flows_cap && t->room == s->flows_cap && n * t->spread <= t->nslot &&
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
	if (n * t->spread > t->nslot)
		return index_rebuild(s, t->nslot ? t->nslot * 2 : 2048);
	return 0;
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
	if (t->npslot) {	/* the reverse pair's home is the same (pair_hash) */
		__builtin_prefetch(&t->pslot[pair_hash(k->family, k->src, k->dst) & (t->npslot - 1)]);
		if (t->marked && t->npslot > RT_PAIR_HOME_SLOTS)
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
	       a->job != b->job || memcmp(a->comm, b->comm, sizeof(a->comm));
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
				f->job = keep.job;
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
