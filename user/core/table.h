/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How tables grow, in one place: rt_grow_to() for arrays, rt_append() for
 * rows added one at a time, and the one open-addressed hash table (linear
 * probing, at most half full) behind the pcap source's flow table, the
 * report's aggregates and the exporter's host pairs.
 */
#ifndef RT_TABLE_H
#define RT_TABLE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/*
 * Zero n bytes at p (n a multiple of 8, any alignment) with 16-byte stores:
 * gcc makes a memset of a few hundred bytes a rep stos, whose start-up cost
 * showed in the per-packet and per-row paths of bench/pcap.sh (a fifth of
 * rt_snapshot_flow_h's samples, a seventh of the pcap reader's).
 */
typedef __u64 rt_zero16 __attribute__((vector_size(16), may_alias, aligned(1)));

static inline __attribute__((always_inline)) void rt_zero_words(void *p, size_t n)
{
	rt_zero16 *v = (rt_zero16 *)p;
	const rt_zero16 z = { 0, 0 };

#pragma GCC unroll 16
	for (size_t i = 0; i < n / 16; i++)
		v[i] = z;
	if (n % 16)
		__builtin_memcpy((char *)p + n - 8, &(__u64){ 0 }, 8);
}

/* Grow *arr (of elements of size sz, *cap of them) to hold exactly n; 0 or -ENOMEM. */
int rt_grow_to(void **arr, size_t *cap, size_t n, size_t sz);
/* Make room for n elements in *arr (*cap of them allocated), growing
 * geometrically (at least doubling): rows added one at a time cost O(n)
 * copies in all, not O(n^2). 0 or -ENOMEM (*arr then unchanged). */
int rt_grow_for(void **arr, size_t *cap, size_t n, size_t sz);
/* Append one zeroed element to *arr (*n used, *cap allocated), doubling the
 * room when it is full; the new element, or NULL without memory. */
void *rt_append(void **arr, size_t *n, size_t *cap, size_t sz);

/*
 * An open-addressed table of fixed-size entries whose key is the first ksz
 * bytes of the entry. The caller hashes the key (so a hot path keeps its hash
 * inline); the table keeps each slot's hash, so growing never calls back.
 * Entries move when the table grows: pointers into it last until the next
 * rt_htab_get() that inserts.
 */
struct rt_htab {
	unsigned char *slots;	/* cap entries of esz bytes */
	__u32 *hash;		/* per slot: the key's hash */
	__u8 *used;		/* per slot: 1 when it holds an entry */
	size_t cap, n;		/* cap is 0 or a power of two */
	size_t esz, ksz;
	size_t max;		/* entries at most; 0: no limit */
};

/* A hash of n bytes for table keys that have no hash of their own. */
__u32 rt_hash_bytes(const void *p, size_t n);

void rt_htab_init(struct rt_htab *t, size_t esz, size_t ksz, size_t max);
void rt_htab_free(struct rt_htab *t);
/* Forget every entry, keep the memory. */
void rt_htab_clear(struct rt_htab *t);
/* Make room for more entries (the table's slow path); 0 or -ENOMEM. */
int rt_htab_grow(struct rt_htab *t);

static inline void *rt_htab_at(const struct rt_htab *t, size_t slot)
{
	return t->slots + slot * t->esz;
}

/* The entry of key (hash h), or NULL when absent. */
static inline void *rt_htab_find(const struct rt_htab *t, const void *key, __u32 h)
{
	size_t j;

	if (!t->cap)
		return NULL;
	for (j = h & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->hash[j] == h && !memcmp(rt_htab_at(t, j), key, t->ksz))
			return rt_htab_at(t, j);
	return NULL;
}

/*
 * The entry of key (hash h), inserted zeroed with the key copied in when it
 * was absent (*fresh says which; fresh may be NULL). NULL when the table
 * holds max entries already (errno ENOSPC) or memory ran out (errno ENOMEM).
 */
static inline void *rt_htab_get(struct rt_htab *t, const void *key, __u32 h, int *fresh)
{
	void *e = rt_htab_find(t, key, h);
	size_t j;

	if (fresh)
		*fresh = !e;
	if (e)
		return e;
	if (t->max && t->n >= t->max) {
		errno = ENOSPC;
		return NULL;
	}
	if ((t->n + 1) * 2 > t->cap && rt_htab_grow(t))
		return NULL;
	for (j = h & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1))
		;
	t->used[j] = 1;
	t->hash[j] = h;
	t->n++;
	e = rt_htab_at(t, j);
	memset(e, 0, t->esz);
	memcpy(e, key, t->ksz);
	return e;
}

#endif
