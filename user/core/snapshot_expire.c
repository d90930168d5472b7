// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The persistent flow table's expiry: the rows idle since a time, found down
 * the recency list and removed with what they read asked for ahead. */
#include <stdlib.h>
#include "snapshot.h"
#include "snapshot_int.h"

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
	if (t)	/* rows now come and go: sparser indexes (struct rt_flow_table) */
		t->spread = 4;

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
