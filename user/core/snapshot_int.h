/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Between the files of the snapshot (snapshot.c and snapshot_*.c), not for
 * their users: the helpers more than one of them calls. Each file holds one
 * concept: snapshot.c a snapshot's life, _ports.c interfaces and port
 * counters, _sflow.c the sFlow tables, _flows.c the persistent flow table,
 * _pairs.c its host pairs, _expire.c its expiry, _order.c key order,
 * _delta.c deltas.
 */
#ifndef RT_SNAPSHOT_INT_H
#define RT_SNAPSHOT_INT_H
#include "snapshot.h"

#define FOR_EACH_U64(type, n) for (size_t n = 0; n < sizeof(type) / 8; n++)

/* An index slot of hash h and row r (RT_SLOT_*). */
static inline __u64 slot_make(__u32 h, size_t r)
{
	return (__u64)h << 32 | ((__u32)r + 1);
}

/* A 64-bit mix of one address (a host pair's side). */
static inline __u64 addr_mix(const __u8 *a)
{
	__u64 w[2];

	__builtin_memcpy(w, a, 16);
	return w[0] * 0x9e3779b97f4a7c15ULL + w[1] * 0xc2b2ae3d27d4eb4fULL;
}

#define RT_PAIR_HOME_SLOTS	(1u << 24)	/* pair indexes up to this size: pair_hash */

/*
 * The host pair's hash, that of its slot in the pair index. Its low 24 bits,
 * the home slot in an index of up to 2^24 slots, are the same for src -> dst
 * and dst -> src, so that a pair and its reverse, which pair_link() looks up
 * both, are probed from one home, one cache line; the high 8 bits tell the
 * two directions apart (a tag that matches still compares the keys).
 */
static inline __u32 pair_hash(__u8 family, const __u8 *src, const __u8 *dst)
{
	__u64 a = addr_mix(src), b = addr_mix(dst), h = a + b + family, d;

	h ^= h >> 31;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 29;
	d = (a ^ (b >> 7)) * 0xd6e8feb86659fd93ULL;
	return ((__u32)h & 0xffffffu) | (__u32)(d >> 56) << 24;
}

/* snapshot_flows.c */
__u64 *index_alloc(size_t nslot);
void index_delete(__u64 *slot, size_t n, size_t i, struct rt_flow_pos *pos, int pair);

/* snapshot_pairs.c: a row's place in its host pair (the table's rows call
 * them as they come, go and move) */
int pair_link(struct rt_snapshot *s, size_t r);
void pair_mark_cnp(struct rt_snapshot *s, size_t r);
void pair_unlink(struct rt_snapshot *s, size_t r);
void pair_move(struct rt_snapshot *s, size_t from, size_t to);
void pair_cnp_fix(struct rt_snapshot *s, __u8 family, const __u8 *src, const __u8 *dst,
		  __s32 from, __s32 to);

/* snapshot_sflow.c: the sFlow tables' part of a delta */
void sf_delta(struct rt_delta *d, const struct rt_snapshot *prev, const struct rt_snapshot *cur);
#endif
