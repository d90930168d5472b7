/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Map keys and values shared by the BPF programs (bpf/rocetop.bpf.c) and user
 * space. Fixed-width types and explicit padding only; sizes are checked on both
 * sides with _Static_assert.
 */
#ifndef ROCETOP_H
#define ROCETOP_H

#include <linux/types.h>

#define RT_DIR_INGRESS	0
#define RT_DIR_EGRESS	1

#define RT_NPRIO	9	/* PFC classes 0-7, then 8 = 802.3x global pause */
#define RT_PRIO_GLOBAL	8

#define RT_PCP_NONE	0xff	/* untagged frame */

#define ROCEV2_UDP_PORT	4791

/*
 * Who mirrored a frame that arrived inside a mirror copy (bpf/parse.h
 * decapsulates them); RT_MIRROR_NONE for a frame seen directly.
 */
#define RT_MIRROR_NONE		0
#define RT_MIRROR_ERSPAN2	1	/* GRE + ERSPAN type II: session ID */
#define RT_MIRROR_ERSPAN3	2	/* GRE + ERSPAN type III: session ID, direction */
#define RT_MIRROR_GRE		3	/* GRE, transparent Ethernet bridging */
#define RT_MIRROR_VXLAN		4	/* VXLAN: VNI */
#define RT_MIRROR_ERSPAN1	5	/* GRE + ERSPAN type I: no header, no session */
#define RT_MIRROR_MAX		RT_MIRROR_ERSPAN1
#define RT_MIRROR_ID_MASK	0x00ffffffu	/* rt_flow_key.mirror_id: session or VNI */
#define RT_MIRROR_EGRESS	0x01000000u	/* ... ERSPAN III: egress of the mirrored port */

/*
 * One direction of one queue pair as seen on one interface, and inside which
 * mirror session when it arrived as a mirror copy.
 */
struct rt_flow_key {
	__u32 ifindex;
	__u8  dir;		/* RT_DIR_* */
	__u8  family;		/* 4 or 6 */
	__u8  origin;		/* 0 here and in the parser; user space sources of other
				 * origins (enum rt_origin) set it, so their flows never
				 * share a key with the wire's */
	__u8  mirror;		/* RT_MIRROR_*: the mirror copy it arrived in */
	__u8  src[16];		/* IPv4: first 4 bytes, the rest zero */
	__u8  dst[16];
	__u32 dqpn;		/* BTH destination QP, 24 bits */
	__u32 mirror_id;	/* ERSPAN session ID (10 bits) or VXLAN VNI (24 bits), with
				 * RT_MIRROR_EGRESS for an ERSPAN III copy of the mirrored
				 * port's egress; 0 seen directly */
};

/* ECN codepoints index ecn[]: the value of the two low bits of the TOS. */
#define RT_ECN_NOT_ECT	0
#define RT_ECN_ECT1	1
#define RT_ECN_ECT0	2
#define RT_ECN_CE	3

struct rt_flow_val {
	__u64 pkts;
	__u64 bytes;		/* frame length, Ethernet header included, no FCS */
	__u64 ecn[4];		/* by RT_ECN_* */
	__u64 cnp;		/* BTH opcode 0x81 */
	__u64 ack;		/* ACKNOWLEDGE / ATOMIC ACKNOWLEDGE with an ACK syndrome */
	__u64 nak_seq;		/* NAK, PSN sequence error */
	__u64 nak_other;	/* NAK, any other reason */
	__u64 rnr_nak;		/* RNR NAK */
	__u64 first_ns;		/* CLOCK_MONOTONIC_COARSE (live) or capture time (pcap) */
	__u64 last_ns;
	__u16 sport;		/* UDP source port (entropy) of the last packet */
	__u8  dscp;		/* of the last packet */
	__u8  pcp;		/* outer 802.1Q PCP of the last packet, RT_PCP_NONE untagged */
	__u8  opcode;		/* BTH opcode of the last packet */
	__u8  slot;		/* the kernel flow table's RT_FT_* state (below); 0 elsewhere */
	__u8  pad[2];
	/* Every packet's, not the last one's: a flow's ACKs and NAKs may ride the
	 * data's priority and its CNPs another (DSCP 26 and 48) under one key. */
	__u64 dscps;		/* bit d: a packet with DSCP d came */
	__u8  prios;		/* bit p: a packet of priority p (its PCP when tagged, else DSCP / 8) */
	__u8  pad2[7];
};

/*
 * The kernel flow table (ARCHITECTURE.md, "The kernel flow table"): one
 * mmapable BPF array of slots, split into one region per possible CPU. Only
 * the CPU owning a region counts into it (XDP runs in softirq, egress tc with
 * bottom halves off), so the counters are plain stores; user space reads the
 * regions through mmap and sums a flow's slots over the regions. A region is
 * any number of buckets of RT_FT_BUCKET slots (not a power of two: a bucket is
 * chosen by multiply-shift range reduction, rt_ft_bucket()). A key has two
 * candidate buckets, from the low and the high half of rt_ft_hash(); it lives
 * in one of them or nowhere (the frame then counts as flow_full). A new key
 * goes to the one of its two buckets with fewer live slots (the first on a
 * tie), in that bucket's first slot that is not live. Only the owning CPU
 * inserts into a region, so this needs no lock; a bucket's keys therefore
 * all sit before its first empty slot, where a search stops.
 *
 * Sized with RT_FT_HEADROOM: a region for N flows has ceil(N * 5/4) slots
 * rounded up to whole buckets (one bucket, exactly 16 flows, for N <= 16);
 * with two choices of buckets of 16 that holds N random keys with a loss
 * probability too small to see in simulation (no loss in 2000 fills at any
 * size from 17 to 200,000 flows).
 *
 * Beside it a bitmap (a second mmapable array of __u64 words, bit i for slot
 * i; small regions share words) says which slots changed since user space last took the word: the
 * program sets a slot's bit (an atomic or, only when it is clear) after its
 * counters; user space takes whole words with an atomic exchange. So that a
 * frame need not read the bitmap, user space then advances an epoch
 * (rt_ft_epoch, a program global: user/sources/live_maps.c, rt_ftab_stamp),
 * before it reads the slots, and the program sets a slot's bit only when the
 * slot's mark is not the epoch's low 16 bits, then writes them there: once a
 * slot and epoch. The epoch's low 16 bits are never 0, the mark of a slot
 * just claimed, and user space clears old marks before they come round.
 *
 * v.slot: RT_FT_EMPTY, RT_FT_LIVE, or RT_FT_DEAD: evicted by user space,
 * which writes nothing else; the owning CPU may claim a dead slot again for
 * any key, counting from zero.
 *
 * Tags: so that a search reads one cache line a bucket, not a slot's key and
 * state (two lines of a 152-byte slot) for every slot it passes, each slot
 * has a tag byte, and a bucket's 16 tags sit together in two __u64 words of
 * the dirty map, after its bitmap words (rt_ft_tag_word): byte i of them is
 * slot i's. RT_FT_TAG_EMPTY (never claimed), RT_FT_TAG_DEAD, or a live slot's
 * rt_ft_tag(): RT_FT_TAG_LIVE and 7 bits of its key's hash. The program
 * reads only the tags to find a key's candidates (a live slot whose tag is
 * the key's; its key is then compared) and a bucket's live and first free
 * slots; it writes a claimed slot's tag after the slot. User space reads
 * v.slot, and when it evicts a slot writes v.slot then the tag.
 */
#define RT_FT_EMPTY	0
#define RT_FT_LIVE	1
#define RT_FT_DEAD	2
#define RT_FT_TAG_EMPTY	0
#define RT_FT_TAG_DEAD	1
#define RT_FT_TAG_LIVE	0x80
#define RT_FT_BUCKET	16
#define RT_FT_PROBES	(2 * RT_FT_BUCKET)	/* the slots a key can be in */
#define RT_FT_MIN_SLOTS	RT_FT_BUCKET		/* a region: whole buckets, at least one */
#define RT_FT_HEADROOM_NUM 5			/* slots = flows * 5 / 4 ... */
#define RT_FT_HEADROOM_DEN 4

/*
 * A slot's counters: struct rt_flow_val without pkts, first_ns and last_ns.
 * Every RoCE frame adds one to exactly one ECN counter, so the frames are
 * their sum (rt_ft_pkts): one read-modify-write a frame and 8 bytes a slot
 * less. The kernel writes no time; user space keeps when it saw each slot
 * change (user/sources/live_maps.c) and puts the times back when it sums a
 * flow.
 */
struct rt_ft_val {
	__u64 bytes;
	__u64 ecn[4];
	__u64 cnp;
	__u64 ack;
	__u64 nak_seq;
	__u64 nak_other;
	__u64 rnr_nak;
	__u16 sport;
	__u8  dscp;
	__u8  pcp;
	__u8  opcode;
	__u8  slot;		/* RT_FT_EMPTY, RT_FT_LIVE, RT_FT_DEAD */
	__u16 mark;		/* the program's: rt_ft_epoch's low 16 bits when it last
				 * set the slot's dirty bit (never 0 then) */
	__u64 dscps;		/* as struct rt_flow_val's */
	__u8  prios;
	__u8  pad2[7];
};

struct rt_flow_slot {
	struct rt_flow_key k;
	struct rt_ft_val v;
};

/* The frames a slot counted: one ECN codepoint each. */
static __inline __u64 rt_ft_pkts(const struct rt_ft_val *v)
{
	return v->ecn[0] + v->ecn[1] + v->ecn[2] + v->ecn[3];
}

/* The hash of a key for the kernel flow table, the same on both sides: low
 * half the first bucket's place, high half the second's. */
static __inline __u64 rt_ft_hash_words(__u64 w0, __u64 w1, __u64 w2, __u64 w3, __u64 w4,
					__u64 w5)
{
	__u64 h = w0 * 0x9e3779b97f4a7c15ULL + w1 * 0xc2b2ae3d27d4eb4fULL +
		  w2 * 0x165667b19e3779f9ULL + w3 * 0xd6e8feb86659fd93ULL +
		  w4 * 0xff51afd7ed558ccdULL + (w5 + 1ULL) * 0xc4ceb9fe1a85ec53ULL;

	return h ^ (h >> 29);
}

/* ... of the key's six 8-byte words, in memory order (the XDP program hashes
 * the words where they are: bpf/rocetop.bpf.c, flow_slot). */
static __inline __u64 rt_ft_hash(const struct rt_flow_key *k)
{
	__u64 w[6];

	__builtin_memcpy(w, k, sizeof(w));
	return rt_ft_hash_words(w[0], w[1], w[2], w[3], w[4], w[5]);
}

/* Candidate bucket `which` (0 or 1) of hash h in a region of nbuckets
 * buckets: a 32-bit half of h times nbuckets, the high 32 bits of that
 * (multiply-shift, uniform without a power of two). */
static __inline __u32 rt_ft_bucket(__u64 h, int which, __u32 nbuckets)
{
	return (__u32)(((which ? h >> 32 : h & 0xffffffffULL) * nbuckets) >> 32);
}

/* A live slot's tag for a key of hash h: 7 bits that choose neither bucket
 * (rt_ft_bucket reads the top bits of each half). */
static __inline __u8 rt_ft_tag(__u64 h)
{
	return (__u8)(RT_FT_TAG_LIVE | ((h >> 20) & 0x7f));
}

/* The dirty map's words for a table of nslots slots: the bitmap's, from
 * word 0; the tags', 8 slots a word, from the first whole cache line after
 * it (rt_ft_tag_word: the map's data starts on a page), so that a bucket's
 * two words of tags are in one line. */
static __inline __u64 rt_ft_bit_words(__u64 nslots)
{
	return (nslots + 63) / 64;
}

static __inline __u64 rt_ft_tag_word(__u64 nslots)
{
	return (rt_ft_bit_words(nslots) + 7) & ~7ULL;
}

static __inline __u64 rt_ft_dirty_words(__u64 nslots)
{
	return rt_ft_tag_word(nslots) + nslots / 8;
}

/*
 * Interfaces are counted in slots of a per-CPU array: the loader writes the
 * slot of each watched interface into the program's ifdirect array
 * (ifindex -> slot + 1, for ifindexes below RT_IF_DIRECT: no hash lookup per
 * frame) or else its slots hash (ifindex -> slot) after load; frames of any
 * other ifindex count in the last slot, RT_SLOT_OTHER. ifstats[slot * 2 + dir].
 */
#define RT_IF_SLOTS	17
#define RT_SLOT_OTHER	(RT_IF_SLOTS - 1)
#define RT_IF_DIRECT	4096	/* ifindexes below: ifdirect[ifindex] = slot + 1 */

struct rt_if_key {
	__u32 ifindex;
	__u8  dir;
	__u8  pad[3];
};

/* Outcome of the parser for every frame, and PFC per priority. */
struct rt_if_val {
	__u64 pkts;		/* every frame seen */
	__u64 bytes;
	__u64 roce;		/* RoCEv2 frames counted in a flow */
	__u64 not_roce;		/* well-formed frames that are not RoCEv2 (nor PFC) */
	__u64 truncated;	/* the frame ends before a header it announces */
	__u64 malformed;	/* a header with impossible values */
	__u64 v6_unparsed;	/* IPv6 with an extension header the parser does not walk */
	__u64 mac_ctrl;		/* PFC and 802.3x pause frames */
	__u64 flow_full;	/* RoCE frames whose flow did not fit in the flow table */
	__u64 mirrored;		/* mirror copies decapsulated (the outcomes are the inner frame's) */
	__u64 pfc_frames[RT_NPRIO];	/* frames with that class enabled (XON included) */
	__u64 pfc_xon[RT_NPRIO];	/* ... of which the time was 0 */
	__u64 pfc_quanta[RT_NPRIO];	/* sum of the pause times, in quanta of 512 bit times */
	/* ns paused: the union of the pause intervals (bpf/pause.h), up to the
	 * snapshot's time. Live, user space fills it from the pause map; the
	 * programs leave ifstats' copy 0. */
	__u64 pfc_paused_ns[RT_NPRIO];
};

#define RT_FLOW_KEY_SIZE 48
#define RT_FLOW_VAL_SIZE 128
#define RT_FT_VAL_SIZE	 104
#define RT_IF_VAL_SIZE	 (10 * 8 + 4 * 8 * RT_NPRIO)

_Static_assert(sizeof(struct rt_flow_key) == RT_FLOW_KEY_SIZE, "rt_flow_key layout");
_Static_assert(sizeof(struct rt_flow_val) == RT_FLOW_VAL_SIZE, "rt_flow_val layout");
_Static_assert(sizeof(struct rt_if_key) == 8, "rt_if_key layout");
_Static_assert(sizeof(struct rt_if_val) == RT_IF_VAL_SIZE, "rt_if_val layout");
_Static_assert(sizeof(struct rt_ft_val) == RT_FT_VAL_SIZE, "rt_ft_val layout");
_Static_assert(sizeof(struct rt_flow_slot) == RT_FLOW_KEY_SIZE + RT_FT_VAL_SIZE, "rt_flow_slot layout");
/* rt_ft_val is rt_flow_val's counters after pkts, then its last-packet fields */
_Static_assert(__builtin_offsetof(struct rt_flow_val, bytes) == 8 &&
	       __builtin_offsetof(struct rt_ft_val, sport) + 8 ==
	       __builtin_offsetof(struct rt_flow_val, first_ns), "rt_ft_val counters");
_Static_assert(sizeof(struct rt_flow_val) - __builtin_offsetof(struct rt_flow_val, sport) ==
	       sizeof(struct rt_ft_val) - __builtin_offsetof(struct rt_ft_val, sport), "rt_ft_val tail");

#endif /* ROCETOP_H */
