/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live source's BPF maps seen from user space: the kernel flow table
 * (bpf/rocetop.h, "The kernel flow table") sized before load and read through
 * mmap after, and the interface slots. The live source, the BPF unit tests
 * and the benchmarks share it.
 */
#ifndef RT_LIVE_MAPS_H
#define RT_LIVE_MAPS_H

#include <stddef.h>
#include "rocetop.h"

struct rocetop_bpf;

/*
 * When user space saw a slot change (the kernel writes no time): stamped by
 * rt_ftab_stamp from the dirty bits, on the snapshot's CLOCK_MONOTONIC, so a
 * live flow's first_ns and last_ns are to the interval. 0: never stamped.
 * Kept per slot for callers that read whole tables (16 bytes a slot); a
 * caller that keeps a row per flow from one read to the next (the live
 * source's incremental read) keeps the times in its rows instead and drops
 * these (rt_ftab_row_stamps).
 */
struct rt_ft_seen {
	__u64 first, last;
};

struct rt_ftab {
	struct rt_flow_slot *slots;	/* nregions x rslots, mmapped */
	__u64 *dirty;			/* a bit per slot, mmapped, then the tags */
	__u8 *tags;			/* a tag byte per slot (bpf/rocetop.h), in dirty */
	struct rt_ft_seen *seen;	/* per slot, user space's own; NULL: the
					 * caller keeps the times per flow */
	__u64 *taken;			/* the dirty words the last rt_ftab_stamp took (and,
					 * without slot stamps, those the one before took) */
	__u64 *took;			/* the words the last rt_ftab_stamp took itself */
	__u64 now;			/* the last rt_ftab_stamp's time */
	__u32 *epoch;			/* the program's rt_ft_epoch (mmapped .data) */
	size_t sweep;			/* the next slot whose old mark is cleared */
	__u32 nregions;
	__u32 nbuckets;			/* a region's buckets of RT_FT_BUCKET slots */
	__u32 rslots;			/* a region's slots: nbuckets * RT_FT_BUCKET */
	__u32 flows;			/* the flows a region is sized for (--max-flows) */
	size_t nslots, nwords;
	size_t slots_len, dirty_len;	/* the mappings' lengths */
};

/* A slot's counters as a flow's value, with its frames (the sum of its
 * ECN counters, rt_ft_pkts) and the times user space keeps. */
static inline void rt_ft_val_to_flow(struct rt_flow_val *o, const struct rt_ft_val *v,
				     __u64 first_ns, __u64 last_ns)
{
	o->pkts = rt_ft_pkts(v);
	__builtin_memcpy(&o->bytes, v, offsetof(struct rt_ft_val, sport));
	o->first_ns = first_ns;
	o->last_ns = last_ns;
	__builtin_memcpy(&o->sport, &v->sport, sizeof(*v) - offsetof(struct rt_ft_val, sport));
}

/* ... and back, pkts and the times dropped (bench/collect_cpu.c writes slots
 * as XDP does; its pkts must be the sum of its ECN counters). */
static inline void rt_ft_val_from_flow(struct rt_ft_val *o, const struct rt_flow_val *v)
{
	__builtin_memcpy(o, &v->bytes, offsetof(struct rt_ft_val, sport));
	__builtin_memcpy(&o->sport, &v->sport, sizeof(*o) - offsetof(struct rt_ft_val, sport));
}

/*
 * Before load: regions for every possible CPU, each sized to hold max_flows
 * flows (bpf/rocetop.h: max_flows * 5/4 slots rounded up to whole buckets of
 * RT_FT_BUCKET, the headroom the two-bucket placement needs). 0 or a negative
 * errno. max_flows <= 16: one bucket, every slot a candidate of every key: it
 * holds exactly 16 flows.
 */
int rt_ftab_size(struct rocetop_bpf *skel, __u32 max_flows, int ncpus);
/* After load: map the table and its bitmap. 0 or a negative errno. */
int rt_ftab_map(struct rt_ftab *t, const struct rocetop_bpf *skel);
void rt_ftab_unmap(struct rt_ftab *t);
/*
 * Who keeps first and last seen. rt_ftab_map leaves them to the caller's
 * rows: no stamps per slot (16 bytes a slot), rt_ftab_stamp only takes the
 * dirty bits, and a slot read gives first_ns = last_ns = the last
 * rt_ftab_stamp's time (the caller keeps its row's first_ns; last_ns is now
 * for a flow that changed). A caller that reads whole tables, with no rows
 * kept from one read to the next, asks for stamps per slot first
 * (rt_ftab_slot_stamps: 0 or -ENOMEM); rt_ftab_row_stamps drops them again.
 * (Allocated only when asked for: a large block allocated and freed raises
 * glibc's mmap threshold, and the table's arrays then grow on the heap.)
 */
int rt_ftab_slot_stamps(struct rt_ftab *t);
void rt_ftab_row_stamps(struct rt_ftab *t);
/* One region's slots. */
static inline __u32 rt_ftab_region_slots(const struct rt_ftab *t)
{
	return t->rslots;
}

/* The flows one region is sized for: --max-flows as given (at least 16). */
static inline __u32 rt_ftab_region_flows(const struct rt_ftab *t)
{
	return t->flows;
}

/* The live slot of k in region r, or NULL. h: rt_ft_hash(k). */
struct rt_flow_slot *rt_ftab_find(const struct rt_ftab *t, __u32 r, const struct rt_flow_key *k,
				  __u64 h);
/*
 * Take every dirty word (into t->taken) and stamp its live slots seen at now:
 * first seen now if never before, last seen now. A slot no longer live
 * forgets its times (the owning CPU may claim it for a new flow). Returns the
 * number of slots taken. After rt_ftab_row_stamps: the taking alone, and
 * t->taken holds the words the stamp before took too (read once more: see
 * next_epoch in live_maps.c).
 */
size_t rt_ftab_stamp(struct rt_ftab *t, __u64 now);
/*
 * The counters of k summed over every region, first_ns and last_ns from the
 * slots' stamps (a slot that changed since the last stamp counts as seen at
 * it), the last packet's sport, dscp, pcp and opcode from the region seen
 * latest; out->slot 0.
 * Returns the number of regions holding k. first_region: regions below it
 * are known not to hold k (0: look in all).
 */
int rt_ftab_sum(const struct rt_ftab *t, const struct rt_flow_key *k, __u32 first_region,
		struct rt_flow_val *out);
/* The same over the regions whose bit is set in mask (bit r: region r); with
 * more than 32 regions, over every region. */
int rt_ftab_sum_regions(const struct rt_ftab *t, const struct rt_flow_key *k, __u32 mask,
			struct rt_flow_val *out);
/* The same for one live slot alone (a key of one region): 1, or 0 when it
 * has counted nothing yet. */
int rt_ftab_slot_val(const struct rt_ftab *t, const struct rt_flow_slot *s, struct rt_flow_val *out);
/* Mark k's slots dead in every region (eviction), forgetting their stamps;
 * returns how many. */
int rt_ftab_kill(struct rt_ftab *t, const struct rt_flow_key *k);
/* Take the dirty bits of word w (an atomic exchange with 0). */
static inline __u64 rt_ftab_take(const struct rt_ftab *t, size_t w)
{
	return __atomic_exchange_n(&t->dirty[w], 0, __ATOMIC_ACQ_REL);
}

/*
 * Count frames of ifindex in ifstats slot `slot` (and forget old_ifindex, 0
 * for none): the ifdirect array or the slots hash, as the program looks them
 * up. 0 or a negative errno.
 */
int rt_ifslot_set(const struct rocetop_bpf *skel, __u32 old_ifindex, __u32 ifindex, __u32 slot);

/*
 * The programs run on one interface, ifindex, counted in ifstats slot `slot`
 * (bpf/rocetop.bpf.c, rt_one_ifindex and rt_one_slot: no lookup per frame);
 * ifindex 0: on several, each frame's ifindex looked up. Before the programs
 * run on ifindex.
 */
void rt_one_if_set(struct rocetop_bpf *skel, __u32 ifindex, __u32 slot);

/* Whether the kernel takes XDP programs that see frames in fragments (Linux
 * 5.18 and later): a program of two instructions loaded with the flag. */
int rt_kernel_xdp_frags(void);

/*
 * Whether to try the inlined programs (bpf/rocetop.bpf.c) on this kernel:
 * Linux 6.12 and later verify them (tests/vm boots Debian's 6.12); 6.1 stops
 * them at its limit of a million instructions walked, after seconds of work
 * at every start, so kernels before 6.12 get the split programs directly.
 * They also need XDP fragments: frags, rt_kernel_xdp_frags()'s answer.
 */
int rt_kernel_inlined(int frags);

/*
 * For test runs (tests/unit, bench/): rocetop's programs opened with
 * rt_collector set to collector, the flow table sized for 16384 flows a CPU
 * (the live source's default), loaded, mapped into ft (unless NULL) and
 * ifindex counted in ifstats slot 0, and XDP's frames taken as ifindex's (as
 * the live source on one interface: rt_one_if_set). NULL with errno set when
 * a step fails. Both the inlined programs (rt_xdp, rt_tc) and the split ones
 * (rt_xdp_split, rt_tc_split, with XDP fragments where the kernel has them);
 * the split ones alone where rt_kernel_inlined() says no or the environment
 * sets ROCETOP_BPF_SPLIT. A program not loaded has fd -1.
 */
struct rocetop_bpf *rt_skel_load_test(int collector, __u32 ifindex, struct rt_ftab *ft);

/*
 * The same with the object's ELF bytes (size of them) in place of the one
 * built into the skeleton (NULL: that one): another build of
 * bpf/rocetop.bpf.c, whose maps, programs and globals have the same names,
 * types and layout (bench/xdp_ab compares two builds): NULL with errno
 * EINVAL when its globals take other room than this build's. elf must stay
 * valid until the skeleton is destroyed.
 */
struct rocetop_bpf *rt_skel_load_test_elf(const void *elf, size_t size, int collector,
					  __u32 ifindex, struct rt_ftab *ft);

#endif
