// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The persistent flow table's host pairs: the join's index of the rows of
 * each (family, src, dst), and their CNP marks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"
#include "snapshot_int.h"

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
	__u64 *ns = index_alloc(n);

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
int pair_link(struct rt_snapshot *s, size_t r)
{
	struct rt_flow_table *t = s->tab;
	const struct rt_flow_key *k = &s->flows[r].k;
	__u32 h;
	size_t j;

	if ((t->npairs + 1) * t->spread > t->npslot &&
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
void pair_mark_cnp(struct rt_snapshot *s, size_t r)
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

void pair_unlink(struct rt_snapshot *s, size_t r)
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
void pair_move(struct rt_snapshot *s, size_t from, size_t to)
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
void pair_cnp_fix(struct rt_snapshot *s, __u8 family, const __u8 *src, const __u8 *dst,
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
