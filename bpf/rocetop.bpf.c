// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop's kernel side: count RoCEv2 congestion signals per flow and PFC per
 * priority. XDP sees ingress, a tcx program sees egress. Both only observe:
 * they never redirect or rewrite a packet, and never drop one, with one
 * exception asked for by name: on a dedicated mirror port (rocetop
 * --collector, rt_collector set) XDP drops the mirror copies it has counted.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include "count.h"
#include "pause_map.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The flow table (bpf/rocetop.h, "The kernel flow table"): one region of
 * rt_ft_nbuckets buckets of RT_FT_BUCKET slots per possible CPU,
 * rt_ft_nregions of them, and a bit and a tag byte per slot in dirty. The
 * loader sizes both maps and sets these before load
 * (user/sources/live_maps.c, rt_ftab_size).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RT_FT_MIN_SLOTS);
	__type(key, __u32);
	__type(value, struct rt_flow_slot);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 10);	/* rt_ft_dirty_words(RT_FT_MIN_SLOTS) */
	__type(key, __u32);
	__type(value, __u64);
} dirty SEC(".maps");

const volatile __u32 rt_ft_nbuckets = 1;	/* a region's buckets */
const volatile __u32 rt_ft_nregions = 1;
const volatile __u32 rt_ft_flows = RT_FT_MIN_SLOTS;	/* --max-flows: for user space only */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_IF_SLOTS * 2);
	__type(key, __u32);
	__type(value, struct rt_if_val);
} ifstats SEC(".maps");

/*
 * Paused time per interface slot and direction (slot * 2 + dir, as
 * ifstats), by bpf/pause.h's rule. Not per CPU: the frames of one priority
 * can reach several CPUs and each restarts the one timer, so an entry is
 * changed under its lock. User space writes each slot's link speed before
 * attach and reads the totals (user/sources/live.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_IF_SLOTS * 2);
	__type(key, __u32);
	__type(value, struct rt_pause_val);
} pausestate SEC(".maps");

/*
 * Which ifstats slot counts a frame of an ifindex: watched interfaces whose
 * ifindex is below RT_IF_DIRECT have it in ifdirect[ifindex] (slot + 1, 0 for
 * none), an array lookup the verifier inlines; the others in the slots hash.
 * The loader fills both after load, and changes them while running when a
 * watched interface is deleted and comes back with a new ifindex
 * (user/sources/live_attach.c's link watcher).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_IF_DIRECT);
	__type(key, __u32);
	__type(value, __u32);
} ifdirect SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RT_SLOT_OTHER);
	__type(key, __u32);
	__type(value, __u32);
} slots SEC(".maps");

/*
 * rt_parse() is inlined (bpf/parse.h): a BPF subprogram call and its return
 * cost more than the parse of a short frame on CPUs whose return mitigations
 * make every kernel return expensive. Its struct rt_pkt must stay one object
 * in memory, written through the pointer as before, not be split into dozens
 * of scalars spilled to the stack (which goes past the 512-byte BPF stack):
 * an empty asm that takes its address keeps it there.
 */
#define RT_PKT_IN_MEMORY(ptr) asm volatile("" : : "r"(ptr) : "memory")

/*
 * One pass of the parser over p kept in memory (above). Each program calls it
 * from one place, a loop of at most two passes. Of p only the words the
 * parser may leave unwritten and the programs read are zeroed (3 stores, not
 * 11): the first 16 bytes (nvlan, family, has_aeth, v6_unparsed: kind and pcp
 * are always written), and who mirrored it. The rest is written wherever it
 * is read: tos, opcode, sport, dqpn, src and dst (all 16 bytes) on every
 * path that ends in a RoCE frame, pause and pfc_cev for PFC and pause
 * frames, syndrome with has_aeth, inner_off and inner_len with mirror.
 */
static __always_inline void parse_pass(const void *data, const void *data_end, __u64 len,
				       struct rt_pkt *p)
{
	__builtin_memset(p, 0, 16);
	__builtin_memset(&p->mirror, 0, 8);	/* mirror, mirror_dir, mirror_id */
	_Static_assert(__builtin_offsetof(struct rt_pkt, v6_unparsed) < 16 &&
		       __builtin_offsetof(struct rt_pkt, mirror) % 8 == 0 &&
		       __builtin_offsetof(struct rt_pkt, mirror_id) + 4 ==
		       __builtin_offsetof(struct rt_pkt, mirror) + 8, "parse_pass's zeroed words");
	RT_PKT_IN_MEMORY(p);
	rt_parse(data, data_end, len, p);
}

/* Set by the loader before load (--collector): XDP drops counted mirror copies. */
const volatile __u8 rt_collector = 0;

/*
 * The ifindex of the one interface the programs are attached to, 0 when
 * they are attached to several (or none yet). Written by user space, after
 * load too (user/sources/live.c after load; live_attach.c when a watched
 * interface comes back with a new ifindex), before the programs run on that interface:
 * then a frame reads its ifindex here in one load instead of XDP's
 * ctx->ingress_ifindex, three dependent loads (rxq, its device, the device's
 * ifindex), or tc's skb->ifindex, two; and its ifstats slot in rt_one_slot,
 * without if_slot()'s lookup. User space writes the slot first
 * (user/sources/live_maps.c, rt_one_if_set).
 */
volatile __u32 rt_one_ifindex = 0;
volatile __u32 rt_one_slot = 0;

static __always_inline __u32 if_slot(__u32 ifindex)
{
	__u32 *slot;

	if (ifindex < RT_IF_DIRECT) {
		slot = bpf_map_lookup_elem(&ifdirect, &ifindex);
		return slot && *slot && *slot <= RT_SLOT_OTHER ? *slot - 1 : RT_SLOT_OTHER;
	}
	slot = bpf_map_lookup_elem(&slots, &ifindex);
	return slot && *slot < RT_SLOT_OTHER ? *slot : RT_SLOT_OTHER;
}

/* A PFC or pause frame at the clock's time into its slot's paused time
 * (idx: slot * 2 + dir). Only these frames read the clock and take a lock:
 * RoCE frames pay nothing for it. */
static __always_inline void count_pause(const struct rt_pkt *p, __u32 idx)
{
	struct rt_pause_val *v = bpf_map_lookup_elem(&pausestate, &idx);
	__u64 t;

	if (!v)
		return;
	t = bpf_ktime_get_ns();	/* before the lock: no call while it is held */
	bpf_spin_lock(&v->lock);
	rt_pause_count(v->prio, p, t, v->mbps);
	bpf_spin_unlock(&v->lock);
}

/* A value the compiler must compute with the arithmetic written, not turn
 * back into a branch (the verifier then walks one path through the choice
 * of a new key's bucket instead of one for every count of live slots), or a
 * pointer it must read through again. */
#define RT_OPAQUE(x) asm volatile("" : "+r"(x))

/* The 8-byte word at b + 8 * i (b 8-byte aligned). */
static __always_inline __u64 word_at(const void *b, int i)
{
	__u64 w;

	__builtin_memcpy(&w, (const __u8 *)__builtin_assume_aligned(b, 8) + 8 * i, 8);
	return w;
}

/*
 * A flow key as the XDP program holds it: its first and last words (ifindex
 * to mirror; dqpn and mirror_id) in registers, and the four of the addresses
 * where the parser left them, in p->src and p->dst (struct rt_pkt keeps them
 * one after the other, 8-byte aligned, as struct rt_flow_key does). Hashing
 * and comparing them there spares copying them into a key on the stack.
 */
struct key_words {
	__u64 w0, w5;
	const __u8 *addr;	/* p->src: 32 bytes, src then dst */
};

_Static_assert(__builtin_offsetof(struct rt_pkt, dst) == __builtin_offsetof(struct rt_pkt, src) + 16 &&
	       __builtin_offsetof(struct rt_pkt, src) % 8 == 0 &&
	       __builtin_offsetof(struct rt_flow_key, src) == 8 &&
	       __builtin_offsetof(struct rt_flow_key, dst) == 24 &&
	       __builtin_offsetof(struct rt_flow_key, dqpn) == 40, "key words");

static __always_inline int key_eq(const struct rt_flow_key *a, const struct key_words *kw)
{
	const __u8 *ad = kw->addr;

	RT_OPAQUE(ad);	/* read again where they are, not kept in registers */
	return !((word_at(a, 0) ^ kw->w0) | (word_at(a, 1) ^ word_at(ad, 0)) |
		 (word_at(a, 2) ^ word_at(ad, 1)) | (word_at(a, 3) ^ word_at(ad, 2)) |
		 (word_at(a, 4) ^ word_at(ad, 3)) | (word_at(a, 5) ^ kw->w5));
}

#define RT_BYTES_01	0x0101010101010101ULL
#define RT_BYTES_7F	0x7f7f7f7f7f7f7f7fULL
#define RT_BYTES_80	0x8080808080808080ULL

/* Bit 8j+7 set for each byte j of w equal to the byte of t (t: one byte
 * repeated), exactly (no borrow from one byte into the next). */
static __always_inline __u64 tag_match(__u64 w, __u64 t)
{
	__u64 x = w ^ t;

	return ~(((x & RT_BYTES_7F) + RT_BYTES_7F) | x) & RT_BYTES_80;
}

/* The byte of the lowest bit of m (m: bits 8j+7 only, not 0): 2^8j times
 * bytes 7, 6, ... 0 leaves j in the top byte. */
static __always_inline __u32 low_byte(__u64 m)
{
	return (__u32)((((m & -m) >> 7) * 0x0001020304050607ULL) >> 56);
}

/* The live slots of a tag word (tags with RT_FT_TAG_LIVE): a byte sum. */
static __always_inline __u64 live_count(__u64 w)
{
	return (((w & RT_BYTES_80) >> 7) * RT_BYTES_01) >> 56;
}

/* 1 if m is 0, else 0. */
static __always_inline __u64 is_zero(__u64 m)
{
	return ((m - 1) & ~m) >> 63;
}

/* The tags of the bucket whose first slot is base (tagw: the dirty map's
 * first tag word), into w[0] and w[1]; 0, or -1 when out of the map. */
static __always_inline int bucket_tags(__u32 tagw, __u32 base, __u64 *w0, __u64 *w1)
{
	__u32 tw = tagw + base / 8;
	__u64 *d = bpf_map_lookup_elem(&dirty, &tw);

	if (!d)
		return -1;
	*w0 = *d;
	tw++;
	d = bpf_map_lookup_elem(&dirty, &tw);
	if (!d)
		return -1;
	*w1 = *d;
	return 0;
}

/*
 * The live slot of key k (tag t repeated in each byte) in the bucket whose
 * first slot is base, NULL when there is none; *idx: its index. Only the
 * slots whose tag is k's are read, lowest first: nearly always one, k's.
 */
static __always_inline struct rt_flow_slot *bucket_find(const struct key_words *k, __u32 tagw,
							__u32 base, __u64 t, __u32 *idx)
{
	struct rt_flow_slot *s;
	__u64 m0, m1, m, z;
	__u32 j, at;

	if (bucket_tags(tagw, base, &m0, &m1))
		return NULL;
	m0 = tag_match(m0, t);	/* bit 8j + 7: slot j's tag is k's */
	m1 = tag_match(m1, t);	/* ... slot 8 + j's */
	for (j = 0; j < RT_FT_BUCKET; j++) {
		z = is_zero(m0);	/* the lowest left: word 0's, else word 1's */
		m = m0 | (m1 & -z);
		if (!m)
			break;
		at = base + low_byte(m) + 8 * (__u32)z;
		m0 &= m0 - 1;
		m1 &= m1 - z;
		RT_OPAQUE(m0);
		RT_OPAQUE(m1);
		s = bpf_map_lookup_elem(&flows, &at);
		if (!s)
			return NULL;
		if (key_eq(&s->k, k)) {
			*idx = at;
			return s;
		}
	}
	return NULL;
}

/* Of the bucket whose first slot is base: its live slots into *live, and
 * 1 + its first slot that is not live, 0 when all are (branch-free: the
 * verifier walks one path). */
static __always_inline __u64 bucket_free(__u32 tagw, __u32 base, __u64 *live)
{
	__u64 w0, w1, f0, f1, f, z;

	if (bucket_tags(tagw, base, &w0, &w1))
		return 0;
	*live = live_count(w0) + live_count(w1);
	f0 = ~w0 & RT_BYTES_80;
	f1 = ~w1 & RT_BYTES_80;
	z = is_zero(f0);
	f = f0 | (f1 & -z);
	return (base + 1 + low_byte(f) + 8 * z) & -(1 - is_zero(f));
}

/*
 * The slot of key k in this CPU's region, claimed (k written, counters
 * zeroed, then its tag) if k is new; NULL when neither of k's buckets has a
 * slot that is not live. *idx: the slot's index in the whole table. A
 * bucket is searched by its tags (bpf/rocetop.h), one cache line. A new key
 * goes to the bucket with fewer live slots, the first on a tie, in its
 * first slot that is not live, so a bucket's keys stay before its first
 * empty slot (user space searches so: user/sources/live_maps.c).
 */
static __always_inline struct rt_flow_slot *flow_slot(const struct key_words *k, __u32 *idx)
{
	__u32 cpu = bpf_get_smp_processor_id(), at, base0, base1, tagw;
	__u64 live0 = 0, live1 = 0, free0, free1 = 0, use1, t, *d;
	struct rt_flow_slot *s;
	__u64 h = rt_ft_hash_words(k->w0, word_at(k->addr, 0), word_at(k->addr, 1),
				   word_at(k->addr, 2), word_at(k->addr, 3), k->w5);

	if (cpu >= rt_ft_nregions)
		return NULL;
	tagw = (__u32)rt_ft_tag_word((__u64)rt_ft_nregions * rt_ft_nbuckets * RT_FT_BUCKET);
	t = rt_ft_tag(h) * RT_BYTES_01;
	cpu *= rt_ft_nbuckets;
	base0 = (cpu + rt_ft_bucket(h, 0, rt_ft_nbuckets)) * RT_FT_BUCKET;
	base1 = (cpu + rt_ft_bucket(h, 1, rt_ft_nbuckets)) * RT_FT_BUCKET;
	s = bucket_find(k, tagw, base0, t, idx);
	if (s)
		return s;
	if (base1 != base0) {	/* the second bucket only when the first has not k */
		s = bucket_find(k, tagw, base1, t, idx);
		if (s)
			return s;
		free1 = bucket_free(tagw, base1, &live1);
	}
	free0 = bucket_free(tagw, base0, &live0);
	/* bucket 1 when it has a free slot and bucket 0 has none or more live
	 * ones: (x - 1) >> 63 is 1 for x == 0; live1 - live0 is negative
	 * (its top bit set) when live1 < live0 */
	use1 = (1 - ((free1 - 1) >> 63)) & (((free0 - 1) >> 63) | ((live1 - live0) >> 63));
	RT_OPAQUE(use1);
	at = (__u32)(free0 ^ ((free0 ^ free1) & -use1));
	if (!at--)
		return NULL;
	s = bpf_map_lookup_elem(&flows, &at);
	if (!s)
		return NULL;
	/* A dead slot may hold counts of a packet that raced its eviction:
	 * they were the evicted flow's. Key first, then the state, then the
	 * tag that lets a search find it. */
	{
		__u64 *kd = (__u64 *)&s->k;

		kd[0] = k->w0;
		kd[1] = word_at(k->addr, 0);
		kd[2] = word_at(k->addr, 1);
		kd[3] = word_at(k->addr, 2);
		kd[4] = word_at(k->addr, 3);
		kd[5] = k->w5;
	}
	__builtin_memset(&s->v, 0, sizeof(s->v));
	s->v.slot = RT_FT_LIVE;
	tagw += at / 8;
	d = bpf_map_lookup_elem(&dirty, &tagw);
	if (d)
		((__u8 *)d)[at & 7] = (__u8)t;
	*idx = at;
	return s;
}

/*
 * The epoch of the dirty bits (bpf/rocetop.h, "The kernel flow table"):
 * user space advances it after it takes the bits and before it reads the
 * slots (user/sources/live_maps.c, rt_ftab_stamp), skipping values whose low
 * 16 bits are 0, and clears old marks as it goes. Starts at 1.
 */
volatile __u32 rt_ft_epoch = 1;

/* Slot s (index idx) changed: its bit in dirty, after the counters (an
 * atomic or, a full barrier), once an epoch (the slot's mark: a load from
 * the slot, not a lookup in dirty, for every frame but the epoch's first of
 * the slot) and only when user space has taken it since. xadd: an atomic add
 * instead of the or, for the split programs: Linux before 5.12 has no atomic
 * or in BPF, only add. Adding a bit found clear is setting it: only the
 * slot's own CPU sets that bit and user space only clears bits (it takes
 * whole words), so the bit is still clear when the add lands and nothing
 * carries into the next. */
static __always_inline void mark_dirty(struct rt_flow_slot *s, __u32 idx, int xadd)
{
	__u16 e = (__u16)rt_ft_epoch;
	__u32 w = idx >> 6;
	__u64 bit, *d;

	if (s->v.mark == e)
		return;
	s->v.mark = e;
	bit = 1ULL << (idx & 63);
	d = bpf_map_lookup_elem(&dirty, &w);
	if (d && !(*d & bit)) {
		if (xadd)
			__sync_fetch_and_add(d, bit);
		else
			__sync_fetch_and_or(d, bit);
	}
}

/*
 * vlan_tci: an 802.1Q tag the kernel keeps beside the packet rather than in it
 * (VLAN offload: a tag inserted by the 8021q driver on egress), with
 * RT_VLAN_OFFLOADED set; 0 when there is none. Such a tag is the outer one on
 * the wire: its PCP is the frame's priority and its 4 bytes are in the frame.
 */
#define RT_VLAN_OFFLOADED 0x10000

/*
 * Count a parsed frame of len bytes. Returns 1 when it was a mirror copy
 * (counted in mirrored), else 0. No clock: the kernel writes no time into a
 * flow's slot; user space stamps the slots whose dirty bit it takes
 * (user/sources/live_maps.c, rt_ftab_stamp), so a live flow's first and last
 * seen times are to the interval. slot: the interface's ifstats slot.
 */
static __always_inline int handle(struct rt_pkt *p, __u64 len, __u32 ifindex, __u32 slot,
				  __u8 dir, __u32 vlan_tci, int xadd)
{
	struct rt_if_val *iv;
	struct rt_flow_key fk __attribute__((aligned(8)));
	struct key_words kw;
	struct rt_flow_slot *fs = NULL;
	__u32 idx = 0;

	if (vlan_tci & RT_VLAN_OFFLOADED) {
		if (!p->mirror) {	/* a mirror copy's priority is its inner frame's */
			p->pcp = (vlan_tci >> 13) & 7;
			p->nvlan++;
		}
		len += 4;
	}

	if (p->kind == RT_K_ROCE) {
		rt_flow_key_init(&fk, p, ifindex, dir);	/* words 0 and 5 of it */
		kw.w0 = word_at(&fk, 0);
		kw.w5 = word_at(&fk, 5);
		kw.addr = p->src;
		fs = flow_slot(&kw, &idx);
		if (fs) {
			rt_count_ft(&fs->v, p, len);
			mark_dirty(fs, idx, xadd);
		}
	}

	slot = slot * 2 + dir;
	iv = bpf_map_lookup_elem(&ifstats, &slot);
	if (!iv)
		return 0;
	rt_count_if(iv, p, len);
	if (p->kind == RT_K_ROCE && !fs)
		iv->flow_full++;
	if (p->kind == RT_K_PFC || p->kind == RT_K_PAUSE)
		count_pause(p, slot);
	return p->mirror != RT_MIRROR_NONE;
}

/*
 * The length of an XDP frame is data_end - data unless it has fragments
 * (xdp.frags: a frame longer than its first buffer), and only
 * bpf_xdp_get_buff_len() knows; a helper call on every frame is a large part
 * of the program's cost, so the frame is parsed against its linear length
 * first. Every length check that passes then passes against the whole frame
 * too, so the parse is the same unless it says truncated. The whole length is
 * asked for when it can differ in a way that matters: a frame that seems
 * truncated (its headers announce more than the linear part holds: parsed
 * again with the whole length), and a frame that is not IP (no header gives
 * its length, and its bytes are counted). An IP frame whose IP packet ends
 * inside the linear part has nothing after it but the Ethernet padding of a
 * short frame, which is never in a fragment.
 */
SEC("xdp.frags")
int rt_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 lin = (__u64)((long)data_end - (long)data), len = lin, whole = 0;
	__u32 ifindex, slot;
	struct rt_pkt p;
	int pass;

#pragma clang loop unroll(disable)
	for (pass = 0; pass < 2; pass++) {
		parse_pass(data, data_end, len, &p);
		if (whole || (p.kind != RT_K_TRUNC && p.family))
			break;
		whole = 1;
		len = bpf_xdp_get_buff_len(ctx);
		if (p.kind != RT_K_TRUNC || len <= lin)
			break;
	}
	ifindex = rt_one_ifindex;
	slot = rt_one_slot;
	if (!ifindex) {
		ifindex = ctx->ingress_ifindex;
		slot = if_slot(ifindex);
	}
	if (handle(&p, len, ifindex, slot, RT_DIR_INGRESS, 0, 0) && rt_collector)
		return XDP_DROP;	/* a counted mirror copy on a collector port */
	return XDP_PASS;
}

/*
 * How much of an skb the egress program makes linear when its headers are not
 * all there: the deepest headers the parser reads, a mirror copy over IPv6
 * (outer Ethernet, 2 tags, IPv6, GRE with every field, ERSPAN III with its
 * platform sub-header, inner Ethernet, 2 tags, IPv6, UDP, BTH, AETH: 184
 * bytes), rounded up.
 */
#define RT_TC_PULL 192

SEC("tc")
int rt_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u32 len = skb->len, ifindex, slot;
	struct rt_pkt p;
	int pass;

	/*
	 * The headers of an egress skb are nearly always in its linear part, and
	 * the parser reads them there. When the linear part is shorter than the
	 * frame and than any header chain, parse it first: only when the parser
	 * runs out of bytes there (a frame whose headers continue in a fragment)
	 * is the skb made linear, which moves no byte of the packet's content,
	 * and parsed again. A TCP segment from the stack (headers linear, payload
	 * in page fragments, the skb a clone) is never pulled: pulling would copy
	 * its head on every segment (bench/lab.sh measures that case). One call
	 * site of the parser (a loop), as in rt_xdp.
	 */
#pragma clang loop unroll(disable)
	for (pass = 0; pass < 2; pass++) {
		parse_pass(data, data_end, len, &p);
		if (pass || p.kind != RT_K_TRUNC || (long)data_end - (long)data >= (long)len ||
		    (long)data_end - (long)data >= RT_TC_PULL)
			break;
		bpf_skb_pull_data(skb, len < RT_TC_PULL ? len : RT_TC_PULL);
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
	}
	ifindex = rt_one_ifindex;
	slot = rt_one_slot;
	if (!ifindex) {
		ifindex = skb->ifindex;
		slot = if_slot(ifindex);
	}
	handle(&p, len, ifindex, slot, RT_DIR_EGRESS,
	       skb->vlan_present ? RT_VLAN_OFFLOADED | skb->vlan_tci : 0, 0);
	return TC_ACT_UNSPEC;	/* tcx: go on to the next program, then the default */
}

/*
 * The split programs: the same parse and count as rt_xdp and rt_tc, for the
 * kernels whose verifier refuses those (Linux 6.1 stops at its limit of a
 * million instructions walked, 5.10 sooner) and for those without XDP
 * fragments (before 5.18). Inlined into one program, the parser leaves a
 * struct rt_pkt on the stack whose bytes the verifier knows path by path, so
 * it walks the counting code again for nearly every path through the parser
 * (about 500,000 instructions on 6.18 for rt_xdp, 12 s). Here the parser is a
 * global function, which the verifier checks once, on its own, and which
 * leaves the frame in a per-CPU map value, whose bytes the verifier does not
 * track: the counting code is walked for a handful of states (about 96,000
 * instructions for both together). A frame costs the call and the map
 * lookups more (bench/xdp_ab -p rt_xdp_split measures it). The loader
 * (user/sources/live.c) chooses: these where the others cannot load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_pkt);
} parsed SEC(".maps");

/* Set by the loader before load: the kernel has XDP fragments (5.18+), so
 * rt_xdp_split is loaded with BPF_F_XDP_HAS_FRAGS and may ask a frame's whole
 * length; before that a frame is only ever its linear part. */
const volatile __u8 rt_frags = 0;

/* Parse the frame, as len bytes long, into parsed: 0, -1 when there is no
 * room for it. A global function: the verifier checks it once, and both
 * calls of rt_xdp_split. */
__attribute__((noinline)) int rt_parse_xdp(struct xdp_md *ctx, __u32 len)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 zero = 0;
	struct rt_pkt *p = bpf_map_lookup_elem(&parsed, &zero);

	if (!p)
		return -1;
	parse_pass(data, data_end, len, p);
	return 0;
}

/*
 * As rt_xdp, with the second pass (the whole length of a frame in fragments)
 * decided here rather than in a loop around the parser: the verifier of
 * Linux 6.1 and before refuses a loop whose way back is the instruction
 * after a call ("back-edge"; 6.12 takes it).
 */
SEC("xdp")
int rt_xdp_split(struct xdp_md *ctx)
{
	__u32 zero = 0, ifindex, slot;
	__u32 lin = ctx->data_end - ctx->data, len = lin, whole;
	struct rt_pkt *p;

	if (rt_parse_xdp(ctx, len))
		return XDP_PASS;
	p = bpf_map_lookup_elem(&parsed, &zero);
	if (!p)
		return XDP_PASS;
	if (rt_frags && (p->kind == RT_K_TRUNC || !p->family)) {
		whole = (__u32)bpf_xdp_get_buff_len(ctx);
		if (whole > lin) {
			len = whole;
			if (p->kind == RT_K_TRUNC && rt_parse_xdp(ctx, len))
				return XDP_PASS;
		}
	}
	ifindex = rt_one_ifindex;
	slot = rt_one_slot;
	if (!ifindex) {
		ifindex = ctx->ingress_ifindex;
		slot = if_slot(ifindex);
	}
	if (handle(p, len, ifindex, slot, RT_DIR_INGRESS, 0, 1) && rt_collector)
		return XDP_DROP;
	return XDP_PASS;
}

/* Parse the skb into parsed: 0, -1 when there is no room for it. */
__attribute__((noinline)) int rt_parse_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u32 zero = 0;
	struct rt_pkt *p = bpf_map_lookup_elem(&parsed, &zero);

	if (!p)
		return -1;
	parse_pass(data, data_end, skb->len, p);
	return 0;
}

/* As rt_tc, the pull and the second parse written out (as in rt_xdp_split). */
SEC("tc")
int rt_tc_split(struct __sk_buff *skb)
{
	__u32 zero = 0, ifindex, slot, len = skb->len;
	long lin = (long)skb->data_end - (long)skb->data;
	struct rt_pkt *p;

	if (rt_parse_tc(skb))
		return TC_ACT_UNSPEC;
	p = bpf_map_lookup_elem(&parsed, &zero);
	if (!p)
		return TC_ACT_UNSPEC;
	if (p->kind == RT_K_TRUNC && lin < (long)len && lin < RT_TC_PULL) {
		bpf_skb_pull_data(skb, len < RT_TC_PULL ? len : RT_TC_PULL);
		if (rt_parse_tc(skb))
			return TC_ACT_UNSPEC;
	}
	ifindex = rt_one_ifindex;
	slot = rt_one_slot;
	if (!ifindex) {
		ifindex = skb->ifindex;
		slot = if_slot(ifindex);
	}
	handle(p, len, ifindex, slot, RT_DIR_EGRESS,
	       skb->vlan_present ? RT_VLAN_OFFLOADED | skb->vlan_tci : 0, 1);
	return TC_ACT_UNSPEC;
}
