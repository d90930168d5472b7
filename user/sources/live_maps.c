// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rocetop.skel.h"
#include "live_maps.h"
#include "snapshot.h"

int rt_ftab_size(struct rocetop_bpf *skel, __u32 max_flows, int ncpus)
{
	__u64 nbuckets, nslots;

	if (ncpus <= 0)
		return -EINVAL;
	if (max_flows < RT_FT_MIN_SLOTS)
		max_flows = RT_FT_MIN_SLOTS;
	nbuckets = max_flows <= RT_FT_BUCKET ? 1 :
		   ((__u64)max_flows * RT_FT_HEADROOM_NUM + RT_FT_HEADROOM_DEN * RT_FT_BUCKET - 1) /
		   (RT_FT_HEADROOM_DEN * RT_FT_BUCKET);
	nslots = (__u64)ncpus * nbuckets * RT_FT_BUCKET;
	if (nslots > 1U << 31)
		return -E2BIG;
	if (bpf_map__set_max_entries(skel->maps.flows, (__u32)nslots) ||
	    bpf_map__set_max_entries(skel->maps.dirty, (__u32)rt_ft_dirty_words(nslots)))
		return -EINVAL;
	skel->rodata->rt_ft_nbuckets = (__u32)nbuckets;
	skel->rodata->rt_ft_nregions = (__u32)ncpus;
	skel->rodata->rt_ft_flows = max_flows;
	return 0;
}

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

int rt_ftab_map(struct rt_ftab *t, const struct rocetop_bpf *skel)
{
	void *p;

	memset(t, 0, sizeof(*t));
	t->nbuckets = skel->rodata->rt_ft_nbuckets;
	t->rslots = t->nbuckets * RT_FT_BUCKET;
	t->flows = skel->rodata->rt_ft_flows;
	t->nregions = skel->rodata->rt_ft_nregions;
	t->nslots = (size_t)t->nregions * t->rslots;
	t->nwords = rt_ft_bit_words(t->nslots);
	t->epoch = (__u32 *)&skel->data->rt_ft_epoch;
	if (bpf_map__max_entries(skel->maps.flows) != t->nslots ||
	    bpf_map__value_size(skel->maps.flows) != sizeof(struct rt_flow_slot))
		return -EINVAL;
	t->slots_len = page_round(t->nslots * sizeof(struct rt_flow_slot));
	t->dirty_len = page_round(rt_ft_dirty_words(t->nslots) * sizeof(__u64));
	p = mmap(NULL, t->slots_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(skel->maps.flows), 0);
	if (p == MAP_FAILED)
		return -errno;
	t->slots = p;
	p = mmap(NULL, t->dirty_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(skel->maps.dirty), 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		rt_ftab_unmap(t);
		return err;
	}
	t->dirty = p;
	t->tags = (__u8 *)(t->dirty + rt_ft_tag_word(t->nslots));
	t->taken = calloc(t->nwords, sizeof(*t->taken));
	t->took = calloc(t->nwords, sizeof(*t->took));
	if (!t->taken || !t->took) {
		rt_ftab_unmap(t);
		return -ENOMEM;
	}
	return 0;
}

int rt_ftab_slot_stamps(struct rt_ftab *t)
{
	if (!t->seen)
		t->seen = calloc(t->nslots, sizeof(*t->seen));
	return t->seen ? 0 : -ENOMEM;
}

void rt_ftab_row_stamps(struct rt_ftab *t)
{
	free(t->seen);
	t->seen = NULL;
}

void rt_ftab_unmap(struct rt_ftab *t)
{
	if (t->slots)
		munmap(t->slots, t->slots_len);
	if (t->dirty)
		munmap(t->dirty, t->dirty_len);
	/* same shape as table.c's swap of its arrays: each frees and resets its own */
	free(t->seen);
	free(t->taken);
	free(t->took);
	t->slots = NULL;
	t->dirty = NULL;
	t->tags = NULL;
	t->seen = NULL;
	t->taken = NULL;
	t->took = NULL;
}

/* The program writes a slot's key before marking it live; read the state
 * first (acquire), so a live slot's key is whole. */
static __u8 slot_state(const struct rt_flow_slot *s)
{
	return __atomic_load_n(&s->v.slot, __ATOMIC_ACQUIRE);
}

struct rt_flow_slot *rt_ftab_find(const struct rt_ftab *t, __u32 r, const struct rt_flow_key *k,
				  __u64 h)
{
	struct rt_flow_slot *region = t->slots + (size_t)r * t->rslots;
	__u32 b0 = rt_ft_bucket(h, 0, t->nbuckets), b1 = rt_ft_bucket(h, 1, t->nbuckets);

	/* as the program searches (bpf/rocetop.bpf.c, flow_slot): each of the
	 * two buckets up to its first empty slot */
	for (int b = 0; b < 2; b++) {
		struct rt_flow_slot *s = region + (size_t)(b ? b1 : b0) * RT_FT_BUCKET;

		if (b && b1 == b0)
			break;
		for (__u32 i = 0; i < RT_FT_BUCKET; i++, s++) {
			__u8 st = slot_state(s);

			if (st == RT_FT_EMPTY)
				break;
			if (st == RT_FT_LIVE && !memcmp(&s->k, k, sizeof(*k)))
				return s;
		}
	}
	return NULL;
}

/* Word w's dirty bits, taken (0, and no atomic exchange, when none is set). */
static __u64 take_word(struct rt_ftab *t, size_t w)
{
	return __atomic_load_n(&t->dirty[w], __ATOMIC_RELAXED) ? rt_ftab_take(t, w) : 0;
}

/* take_word(), asking for the states of their slots: a miss each, in flight
 * together. */
static __u64 take_prefetch(struct rt_ftab *t, size_t w)
{
	__u64 bits = take_word(t, w);

	for (__u64 b = bits; b; b &= b - 1)
		__builtin_prefetch(&t->slots[w * 64 + (size_t)__builtin_ctzll(b)].v.slot);
	return bits;
}

/*
 * A slot's mark is the epoch's low 16 bits, and they come round again after
 * 65535 epochs (0 skipped): a slot idle that long whose next frame fell in
 * the epoch that repeats its mark would set no bit, and no read would see
 * that frame. So each new epoch clears the old marks of a few slots, every
 * slot once in RT_FT_SWEEP epochs (fewer than 65535): a mark that is not the
 * new epoch's goes back to 0, a claimed slot's, and the slot's next frame
 * sets its bit again. Racing a frame that marks the slot costs at most a bit
 * set twice. tests/unit/test_bpf_frames.c, bpf_ftab_epoch_wraps, counts a
 * frame in the epoch of its slot's mark.
 */
#define RT_FT_SWEEP	16384

/*
 * A new epoch of the dirty bits (bpf/rocetop.h): a slot the program marked
 * in the last one is marked again at its next frame. After the words are
 * taken and before the slots are read (a sequentially consistent store):
 * a frame counted between the two is read now, its slot's bit not set again
 * when its mark is the old epoch; a frame counted after it sets the bit
 * again. Advanced before the words were taken, a frame in between would
 * mark its slot in the new epoch with the bit the exchange then took, and
 * the slot's later frames in that epoch would be seen by no read
 * (flowtab_read_while_counting in tests/unit/test_flowtab.c caught it).
 * A frame stores its counters and then loads the epoch (bpf/rocetop.bpf.c,
 * mark_dirty), and the load may go first (x86 holds a store in its buffer
 * while later loads go ahead). Such a frame can load the old epoch, find its
 * slot marked and set no bit, while its counters reach memory after this
 * read of the slot: a slot the next frame never marks again (a flow gone
 * quiet) would keep them from every incremental read. Its slot was marked
 * in the old epoch, so its bit was taken now or is taken at the next stamp:
 * the incremental read reads each slot taken at one stamp again at the next
 * (rt_ftab_stamp: t->took), an interval later, when the store has long left
 * the buffer; a slot read again whose counters did not move changes nothing
 * (read_changed in live.c). The other ways to close it were a barrier in
 * the program (an atomic every frame) or a grace period of RCU here before
 * each read (membarrier, 4 to 16 ms a call, bench/RESULTS.md).
 * tests/unit/test_flowtab.c, flowtab_late_counters, writes such a frame's
 * counters behind the read. The low 16 bits, a slot's mark, are never 0, a
 * claimed slot's mark. Then the sweep of old marks (above).
 */
static void next_epoch(struct rt_ftab *t)
{
	__u32 e = __atomic_load_n(t->epoch, __ATOMIC_RELAXED) + 1;

	if (!(e & 0xffff))
		e++;
	__atomic_store_n(t->epoch, e, __ATOMIC_SEQ_CST);
	for (size_t n = (t->nslots + RT_FT_SWEEP - 1) / RT_FT_SWEEP; n; n--) {
		__u16 *m = &t->slots[t->sweep].v.mark;
		__u16 v = __atomic_load_n(m, __ATOMIC_RELAXED);

		if (v && v != (__u16)e)
			__atomic_store_n(m, 0, __ATOMIC_RELAXED);
		if (++t->sweep >= t->nslots)
			t->sweep = 0;
	}
}

size_t rt_ftab_stamp(struct rt_ftab *t, __u64 now)
{
	size_t n = 0;
	__u64 next;

	t->now = now;
	if (!t->seen) {	/* the caller keeps the times per flow: the bits alone */
		for (size_t w = 0; w < t->nwords; w++) {
			__u64 bits = take_word(t, w);

			/* and the slots taken last time, read once more (next_epoch) */
			t->taken[w] = bits | t->took[w];
			t->took[w] = bits;
			n += (size_t)__builtin_popcountll(bits);
		}
		next_epoch(t);
		return n;
	}
	next = t->nwords ? take_prefetch(t, 0) : 0;
	for (size_t w = 0; w < t->nwords; w++) {
		__u64 bits = next;

		t->taken[w] = bits;
		/* the next word taken now, its slots coming while these are stamped */
		next = w + 1 < t->nwords ? take_prefetch(t, w + 1) : 0;
		while (bits) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			struct rt_ft_seen *sn = &t->seen[i];

			bits &= bits - 1;
			n++;
			if (slot_state(&t->slots[i]) != RT_FT_LIVE) {
				sn->first = sn->last = 0;
				continue;
			}
			if (!sn->first)
				sn->first = now;
			sn->last = now;
		}
	}
	next_epoch(t);
	return n;
}

/* Slot s's counters as a flow's value (s live, read once: each counter
 * whole, aligned 8-byte loads), with the times it was stamped; 0 when it has
 * counted nothing yet. */
static int slot_val(const struct rt_ftab *t, const struct rt_flow_slot *s, struct rt_flow_val *v)
{
	static const struct rt_ft_seen none;
	const struct rt_ft_seen *sn = t->seen ? &t->seen[s - t->slots] : &none;
	struct rt_ft_val c = s->v;

	if (!rt_ft_pkts(&c))
		return 0;
	/* counted since the last stamp (its bit comes next time): seen then */
	rt_ft_val_to_flow(v, &c, sn->first ? sn->first : t->now, sn->first ? sn->last : t->now);
	return 1;
}

int rt_ftab_slot_val(const struct rt_ftab *t, const struct rt_flow_slot *s, struct rt_flow_val *out)
{
	if (!slot_val(t, s, out))
		return 0;
	out->slot = 0;	/* as rt_ftab_sum() leaves them */
	out->pad[0] = out->pad[1] = 0;
	return 1;
}

/* rt_ftab_sum() over the regions r >= first_region with bit r in mask
 * (all of them when nregions > 32). */
static int sum_regions(const struct rt_ftab *t, const struct rt_flow_key *k, __u32 first_region,
		       __u32 mask, struct rt_flow_val *out)
{
	__u64 h = rt_ft_hash(k);
	int n = 0;

	memset(out, 0, sizeof(*out));
	for (__u32 r = first_region; r < t->nregions; r++) {
		const struct rt_flow_slot *s;
		struct rt_flow_val v;

		if (t->nregions <= 32 && !(mask >> r & 1))
			continue;
		s = rt_ftab_find(t, r, k, h);
		if (!s || !slot_val(t, s, &v))
			continue;
		n++;
		rt_flow_val_add(out, &v);
		out->dscps |= v.dscps;
		out->prios |= v.prios;
		if (v.last_ns >= out->last_ns) {
			out->sport = v.sport;
			out->dscp = v.dscp;
			out->pcp = v.pcp;
			out->opcode = v.opcode;
		}
	}
	out->slot = 0;
	return n;
}

int rt_ftab_sum(const struct rt_ftab *t, const struct rt_flow_key *k, __u32 first_region,
		struct rt_flow_val *out)
{
	return sum_regions(t, k, first_region, ~0U, out);
}

int rt_ftab_sum_regions(const struct rt_ftab *t, const struct rt_flow_key *k, __u32 mask,
			struct rt_flow_val *out)
{
	return sum_regions(t, k, 0, mask, out);
}

int rt_ftab_kill(struct rt_ftab *t, const struct rt_flow_key *k)
{
	__u64 h = rt_ft_hash(k);
	int n = 0;

	for (__u32 r = 0; r < t->nregions; r++) {
		struct rt_flow_slot *s = rt_ftab_find(t, r, k, h);

		if (s) {
			/* the state, then the tag (bpf/rocetop.h): a claim of the
			 * slot, which the tag lets in, then writes both again */
			__atomic_store_n(&s->v.slot, RT_FT_DEAD, __ATOMIC_RELEASE);
			__atomic_store_n(&t->tags[s - t->slots], RT_FT_TAG_DEAD, __ATOMIC_RELEASE);
			if (t->seen)
				t->seen[s - t->slots] = (struct rt_ft_seen){ 0, 0 };
			n++;
		}
	}
	return n;
}

int rt_ifslot_set(const struct rocetop_bpf *skel, __u32 old_ifindex, __u32 ifindex, __u32 slot)
{
	int dfd = bpf_map__fd(skel->maps.ifdirect), hfd = bpf_map__fd(skel->maps.slots);
	__u32 none = 0, val = slot + 1;

	if (old_ifindex && old_ifindex < RT_IF_DIRECT)
		bpf_map_update_elem(dfd, &old_ifindex, &none, BPF_ANY);
	else if (old_ifindex)
		bpf_map_delete_elem(hfd, &old_ifindex);
	if (ifindex < RT_IF_DIRECT ? bpf_map_update_elem(dfd, &ifindex, &val, BPF_ANY) :
	    bpf_map_update_elem(hfd, &ifindex, &slot, BPF_ANY))
		return -errno;
	return 0;
}

void rt_one_if_set(struct rocetop_bpf *skel, __u32 ifindex, __u32 slot)
{
	/* the slot before the ifindex that makes the programs read it */
	__atomic_store_n(&skel->bss->rt_one_slot, slot, __ATOMIC_RELEASE);
	__atomic_store_n(&skel->bss->rt_one_ifindex, ifindex, __ATOMIC_RELEASE);
}

int rt_kernel_xdp_frags(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = BPF_F_XDP_HAS_FRAGS);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "rt_probe", "GPL", insns, 2, &opts);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int rt_kernel_inlined(int frags)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return (major > 6 || (major == 6 && minor >= 12)) && frags;
}

struct rocetop_bpf *rt_skel_load_test(int collector, __u32 ifindex, struct rt_ftab *ft)
{
	return rt_skel_load_test_elf(NULL, 0, collector, ifindex, ft);
}

/* Whether the globals of skel, opened from another build's object, take the
 * room they take in the object built in: the skeleton writes them through
 * its own structs (no write may land past the end of the other's). */
static int same_globals(const struct rocetop_bpf *skel)
{
	struct rocetop_bpf *own = rocetop_bpf__open();
	int same = own &&
		   bpf_map__value_size(own->maps.rodata) == bpf_map__value_size(skel->maps.rodata) &&
		   bpf_map__value_size(own->maps.data) == bpf_map__value_size(skel->maps.data) &&
		   bpf_map__value_size(own->maps.bss) == bpf_map__value_size(skel->maps.bss);

	rocetop_bpf__destroy(own);
	return same;
}

struct rocetop_bpf *rt_skel_load_test_elf(const void *elf, size_t size, int collector,
					  __u32 ifindex, struct rt_ftab *ft)
{
	struct rocetop_bpf *skel = calloc(1, sizeof(*skel));
	int err, mapped = 0, frags;

	if (!skel)
		return NULL;
	err = rocetop_bpf__create_skeleton(skel);
	if (!err && elf) {	/* another build's object in place of the one built in */
		skel->skeleton->data = (void *)elf;
		skel->skeleton->data_sz = size;
	}
	if (!err)
		err = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (!err && elf && !same_globals(skel))
		err = -EINVAL;
	if (err) {
		rocetop_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	skel->rodata->rt_collector = (__u8)collector;
	frags = rt_kernel_xdp_frags();
	skel->rodata->rt_frags = (__u8)frags;
	if (frags)
		bpf_program__set_flags(skel->progs.rt_xdp_split,
				       bpf_program__flags(skel->progs.rt_xdp_split) |
				       BPF_F_XDP_HAS_FRAGS);
	if (!rt_kernel_inlined(frags) || getenv("ROCETOP_BPF_SPLIT")) {
		bpf_program__set_autoload(skel->progs.rt_xdp, false);
		bpf_program__set_autoload(skel->progs.rt_tc, false);
	}
	err = rt_ftab_size(skel, 16384, libbpf_num_possible_cpus());
	if (!err)
		err = rocetop_bpf__load(skel) ? -errno : 0;
	if (!err && ft) {
		err = rt_ftab_map(ft, skel);
		mapped = !err;
		if (!err)	/* the tests read whole tables: stamps per slot */
			err = rt_ftab_slot_stamps(ft);
	}
	if (!err)
		err = rt_ifslot_set(skel, 0, ifindex, 0);
	if (!err)	/* as the live source on one interface */
		rt_one_if_set(skel, ifindex, 0);
	if (err) {
		if (mapped)
			rt_ftab_unmap(ft);
		rocetop_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}
