/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one snapshot type. Every source (live BPF maps, a pcap file, a recording)
 * produces snapshots; every sink (batch text, CSV, TUI, Prometheus, recorder,
 * report) consumes them. Counters in a snapshot are totals since the source
 * started.
 *
 * The contract of the flow table (ARCHITECTURE.md, "Cost per interval"):
 *
 *  - The snapshot the main loop hands to sinks is a persistent table
 *    (s->tab != NULL): flows[] keeps its rows from one interval to the next,
 *    indexed by key. A row keeps its place while its flow lives; a new flow is
 *    appended; a flow that goes (evicted, gone from the kernel map) gives its
 *    place to the last row (which moves). flows[] is therefore NOT sorted:
 *    a sink that wants key order sorts what it outputs, or takes a sorted copy
 *    with rt_snapshot_copy_sorted() (the recorder, the TUI do).
 *  - The delta (rt_delta_changes) holds one entry per flow that changed in the
 *    interval (counters moved, new, or its join fields changed), in key order
 *    (rt_flow_key_cmp); flows that did not change have no entry and a delta of
 *    zero. An interval where k of N flows changed costs O(k log k) there.
 *    Its flows array is the table's (valid until the next interval's first
 *    touch): a row's first rt_snapshot_touch() in an interval keeps its old
 *    counters there, so a source touches a row BEFORE its counters move.
 *  - throttles indexes flows[] of the same snapshot (it follows moves).
 *  - Sources either fill a cleared snapshot from scratch, as before (live, a
 *    recording: rt_snapshot_apply() then folds it into the table in O(N)), or
 *    set rt_source.incremental and update the table in place (pcap: per packet
 *    rt_snapshot_flow() + rt_snapshot_touch(), no copy).
 *  - A snapshot without a table (tests, copies) is a plain array of rows;
 *    rt_snapshot_sort() sorts it, and rt_delta_compute() compares two of them
 *    in full, the old way.
 */
#ifndef RT_SNAPSHOT_H
#define RT_SNAPSHOT_H

#include <stddef.h>
#include <net/if.h>
#include "rocetop.h"
#include "table.h"
#include "job.h"
#include "hostcfg.h"
#include "probe_row.h"

#define RT_MAX_IFACES	64
#define RT_MAX_NOTES	8

/* How a CNP flow was tied to the data flow it throttles (ARCHITECTURE.md's order). */
enum rt_attr {
	RT_ATTR_NONE = 0,	/* not a CNP flow, or nothing known */
	RT_ATTR_NETLINK,	/* the local QP table from rdma netlink */
	RT_ATTR_ACK,		/* QPs learnt from ACKs on the same host pair */
	RT_ATTR_HOSTPAIR,	/* kept per host pair: unattributed */
};

/* Where a flow's counts come from (k.origin; the views mark every origin but the wire). */
enum rt_origin {
	RT_ORIGIN_WIRE = 0,	/* packets parsed: BPF programs, captures */
	RT_ORIGIN_NIC,		/* the NIC's per-QP counters (rdma netlink statistics) */
};

/*
 * A row. Laid out so that what a sink writing every changed flow reads of the
 * row itself (the key, estimate, lqpn and pid: the counters come from the
 * delta) is its first 64 bytes, at most two cache lines (rows are 232 bytes
 * apart), not the three or four of the key and the owner fields 160 bytes
 * further; rows are met in key order, at random places, so each line is a
 * miss. Recordings name fields, not offsets (user/core/record.c), so the
 * order is free.
 */
struct rt_flow {
	struct rt_flow_key k;
	__u8  estimate;		/* counters are estimates (sFlow: each sample stands for its rate) */
	__u8  attr;		/* enum rt_attr, for flows carrying CNPs */
	__u8  pad[2];
	/* Filled by the NIC join where known (0 / "" when not). */
	__u32 lqpn;		/* the local QP this flow belongs to */
	__u32 rqpn;
	__u32 pid;
	char  comm[16];
	__s32 throttles;	/* for a CNP flow: index in flows[] of the data flow it slows, or -1 */
	__u32 job;		/* its owner's row in the snapshot's jobs[] + 1, 0: none (job.h) */
	struct rt_flow_val v;
	__u64 samples;		/* sFlow samples behind the counters (0 for exact sources) */
	__u64 sw_drops;		/* sFlow dropped-packet notifications of this flow, since start */
};
_Static_assert(sizeof(struct rt_flow) == 232, "a row's size (bench/collect_cpu.c counts it)");
_Static_assert(offsetof(struct rt_flow, pid) + 4 <= 64, "what csv.c reads of every row: one line");

/*
 * sFlow (ARCHITECTURE.md, "sFlow"). A flow sampled by a switch is keyed like any
 * other, its ifindex taken from a space of rocetop's own at and above
 * RT_SFLOW_IFBASE: one per (agent, port), named "AGENT:PORT" by the swports
 * table, its dir ingress or egress as the sample says.
 */
#define RT_SFLOW_IFBASE	0x40000000u
/* The ifindex of NIC flows whose netdev is not on this host (fixtures): from here. */
#define RT_NIC_IFBASE	0x20000000u
#define RT_SF_AGENT_LEN	48

/* Counters of a switch port that only go up: totals since the collector started. */
struct rt_swport_ctr {
	__u64 samples;		/* flow samples taken on the port in this direction */
	__u64 est_pkts;		/* sum of the samples' sampling rates */
	__u64 est_bytes;	/* sum of rate x frame length */
	__u64 est_ce, est_cnp;	/* rates of the samples that were CE-marked / CNPs */
	__u64 roce_samples;	/* samples whose header was RoCEv2 */
	__u64 depth_sum, depth_n;	/* queue depths (1040) reported, bytes */
	__u64 transit_sum, transit_n;	/* transit delays (1039) reported, ns */
	__u64 drops;		/* dropped-packet notifications for the port */
};

struct rt_swport {
	__u32 ifindex;		/* the flows' ifindex: RT_SFLOW_IFBASE + n */
	__u8  dir;		/* RT_DIR_* */
	__u8  has_queue;	/* an egress queue index (1036) was seen */
	__u8  has_ifctr;	/* counter samples (generic interface counters) were seen */
	__u8  pad;
	__u32 port;		/* the agent's ifIndex */
	__u32 queue;		/* the last egress queue index seen */
	char  agent[RT_SF_AGENT_LEN];
	char  name[64];		/* "AGENT:PORT", the flows' ifname */
	struct rt_swport_ctr c;
	/* Largest values in the interval that ended with this snapshot. */
	__u32 max_depth;	/* bytes */
	__u32 max_transit;	/* ns */
	/* The port's latest counter sample (both directions share them). */
	__u64 speed_bps;
	__u64 in_octets, out_octets;
	__u64 in_discards, out_discards, in_errors, out_errors;
	__u64 agent_lost;	/* datagrams the port's agent lost (sequence gaps), since start */
	__u64 ctr_samples;	/* counter samples of the port, since start: a port that
				 * sends only those still shows, its discards and errors */
};

/* Dropped-packet notifications of one port and reason, since start. */
struct rt_swdrop {
	__u32 ifindex;		/* the port's (RT_SFLOW_IFBASE + n) */
	__u32 port;
	__u32 reason;		/* the sFlow reason code */
	__u32 pad;
	char  agent[RT_SF_AGENT_LEN];
	__u64 drops;
};

/* What the collector received from one agent (or one source address), since start. */
struct rt_sfagent {
	char  agent[RT_SF_AGENT_LEN];
	__u64 datagrams;	/* accepted and decoded, errors included */
	__u64 lost;		/* sequence numbers skipped */
	__u64 errors;		/* datagrams with a decoding error (the rest of each skipped) */
	__u64 rejected;		/* not in --sflow-allow, or not sFlow v5: dropped unread */
	__u64 samples;		/* flow samples */
	__u64 drop_samples;	/* dropped-packet notifications */
	__u64 ctr_samples;	/* counter samples */
	__u64 bad_samples;	/* flow samples bounded: a frame over 64 KiB, a rate above the pool */
};

/* One interface and direction: parser outcomes and PFC. */
struct rt_ifdir {
	struct rt_if_key k;
	struct rt_if_val v;
	__u64 evicted;		/* its flows removed from the table for idleness, since start */
	/* v.pfc_paused_ns was not measured (a recording from before it):
	 * rt_paused_secs (derive.h) estimates paused time from the quanta */
	__u8 paused_est;
};

struct rt_iface {
	__u32 ifindex;
	char  name[IF_NAMESIZE];
	char  mode[12];		/* "native", "generic", "file", ... */
	/* What paused time needs, decided by the source and kept in recordings
	 * (user/core/linkspeed.h); 0 / "" where not known. */
	__u64 speed_mbps;	/* link speed */
	char  speed_from[12];	/* RT_SPEED_FROM_* */
	__u32 mtu;
	__u8  pfc_known;	/* pfc_en was read */
	__u8  pfc_en;		/* PFC-enabled priorities, one bit each */
};

/* Where a NIC counter came from. */
enum rt_port_scope {
	RT_SCOPE_HW_PORT = 0,	/* ports/<p>/hw_counters */
	RT_SCOPE_PORT,		/* ports/<p>/counters */
	RT_SCOPE_HW_DEV,	/* device-level hw_counters */
	RT_SCOPE_ETHTOOL,	/* ethtool statistics of the netdev */
	RT_SCOPE_QP,		/* a counter bound to QPs (rdma netlink statistics), qpn */
	RT_SCOPE_NETDEV,	/* the netdev's own sysfs counters: /sys/class/net/IF/carrier_changes */
};

struct rt_port_ctr {
	char  dev[32];		/* RDMA device, or "" for an ethtool-only netdev */
	__u32 port;
	char  netdev[IF_NAMESIZE];
	char  name[64];
	__u64 value;
	__u8  bits;		/* RT_BITS_*: how the counter wraps */
	__u8  scope;		/* enum rt_port_scope */
	__u8  congestion;	/* one of the congestion counters ARCHITECTURE.md names */
	__u8  nqps;		/* RT_SCOPE_QP: QPs sharing the counter (255: 255 or more) */
	__u32 qpn;		/* RT_SCOPE_QP: the lowest of them, else 0 */
};

/*
 * The index and per-row state of a persistent flow table. Rows are
 * flows[0..nflows); row r's state is hot[r] (what a packet touches: kept small
 * so the rows' recency links stay in cache) and st[r] (the rest).
 */
struct rt_flow_hot {
	__u32 gen;			/* == tab->gen: changed in this interval */
	__u32 cpos;			/* its place in tab->changed, while gen == tab->gen */
	__u32 lru_prev, lru_next;	/* recency list (row + 1, 0 = none), for expiry */
};

#define RT_ROW_REGIONS	30	/* regions a row remembers (struct rt_flow_state) */

struct rt_flow_state {
	__u32 cnp_pos;			/* its place in tab->cnp + 1, 0 when not there */
	__u32 jmark;			/* the join's mark: == tab->jgen when queued */
	__u32 pnext, pprev;		/* rows of the same host pair (row + 1, 0 = none) */
	__u32 cnp_near : 2;		/* RT_NEAR_*: its pair / the reverse pair is marked
					 * RT_PSLOT_CNP (set when they are, never cleared) */
	__u32 regions : RT_ROW_REGIONS;	/* the live source: the kernel table's regions the
					 * key was seen dirty in (bit r), so a flow counted
					 * by one CPU is read from its one slot, not looked
					 * up in every region (user/sources/live.c); with
					 * more regions, every region is looked up */
};

/* What rt_snapshot_apply() alone keeps per row (tab->ap, allocated by its
 * first call: the sources that update the table in place never pay for it). */
struct rt_flow_apply {
	__u32 seen;			/* == tab->seen_gen: in the last rt_snapshot_apply() */
	__u32 aux;			/* the row's index in the snapshot applied */
};

#define RT_NEAR_PAIR	1u
#define RT_NEAR_REV	2u

/*
 * Index slots: the key's 32-bit hash above, row + 1 below (0: empty), so a
 * probe compares hashes in the index and reads a row only when they match.
 * Host-pair slots keep RT_PSLOT_CNP beside the head's row + 1: set when a row
 * of the pair carried a CNP (it may stay set after that row went; it is only
 * a hint that lets the join skip pairs without CNP rows).
 */
#define RT_SLOT_ROW(x)	((__u32)(x) & 0x7fffffffu)
#define RT_SLOT_TAG(x)	((__u32)((x) >> 32))
#define RT_PSLOT_CNP	0x80000000u

struct rt_flow_table {
	__u64 *slot;			/* open addressing, linear probing (RT_SLOT_*) */
	size_t nslot;			/* a power of two, at least spread * rows */
	/* Index slots (flow and host-pair) per row, at least: 2, or 4 once
	 * rows expire (rt_snapshot_expire). Rows made and forgotten in the
	 * order they came lengthen linear probing's runs (at half full, some
	 * 2.1 entries follow a deleted one against 1.5 for deletions at
	 * random): index_delete's scan and moves, and the probes, grow with
	 * them (bench/RESULTS.md, "Captures with many flows: the indexes'
	 * load"). */
	unsigned spread;
	struct rt_flow_hot *hot;
	struct rt_flow_state *st;
	size_t st_cap;
	struct rt_flow_apply *ap;	/* rt_snapshot_apply's, NULL until it runs */
	size_t ap_cap;
	__u32 *changed;			/* rows changed in this interval, each once, until
					 * rt_delta_changes, which then keeps there the
					 * order it puts cd[] in (the rows are cd[i].f;
					 * delta_taken set until the next interval) */
	int delta_taken;
	size_t nchanged, changed_cap;
	/* Beside changed[i]: the row's counters (d) and samples as they were
	 * at its first touch in the interval (rt_snapshot_touch_row), which
	 * rt_delta_changes() turns into the interval's delta in place, in key
	 * order; the delta's flows are then this array (no second copy of
	 * every row's counters). */
	struct rt_flow_delta *cd;
	size_t cd_cap;
	__u32 gen, seen_gen;
	__u32 lru_head, lru_tail;	/* least / most recently touched row + 1 */
	__u32 *cnp;			/* rows that carried a CNP (the join's candidates) */
	size_t ncnp, cnp_cap;
	__u64 max_flows;		/* 0: grows as flows appear */
	int no_lru;			/* nobody expires rows: keep no recency list */
	/* Expiry's bounds: for each of the last RT_GEND intervals (by gen;
	 * tag 0: none), the least and the greatest last_ns of the rows
	 * touched in it, taken as it closes (rt_snapshot_next_interval) once
	 * rt_snapshot_expire() has been called; rows still of that gen have
	 * not changed since, so expiry decides a whole interval's rows
	 * without reading them when the bounds allow. */
	struct rt_gend { __u32 tag, pad; __u64 lo, hi; } *gend;
	/* Where each row sits in the indexes (index slot; pair slot, for a
	 * pair's head), kept from the first rt_snapshot_expire() on (NULL
	 * before: the tables that never expire, the live one among them, pay
	 * nothing), so a removal and the move of the last row into its place
	 * find their slots without hashing the key and probing. */
	struct rt_flow_pos { __u32 slot, pslot; } *pos;
	size_t pos_cap;
	size_t room;			/* table_room(): flows_cap when every per-row
					 * array was last grown to it */
	int marked;			/* some host pair has been marked RT_PSLOT_CNP */
	/* host pairs (family, src, dst): open addressing over each pair's first
	 * row + 1 (RT_SLOT_*, RT_PSLOT_CNP), its rows chained through pnext/pprev;
	 * the join's index */
	__u64 *pslot;
	size_t npslot, npairs;
	__u32 jgen;
	__u32 *jq;			/* CNP rows the join must look at again */
	size_t njq, jq_cap;
	struct rt_sortkey *sk;		/* rt_delta_changes: the changed rows' keys, to sort */
	size_t sk_cap;
	/* Key order kept from one call of rt_snapshot_key_order() to the next:
	 * korder (rows in key order then; RT_KO_DEAD where a row went since),
	 * the rows added since in knew, and each row's place in one of them
	 * (kpos; RT_KPOS_NEW: in knew). Valid once asked for, until a clear. */
	__u32 *korder, *knew, *kpos;
	size_t nkorder, korder_cap, nknew, knew_cap, kpos_cap, ndead;
	int ko_valid;
};

#define RT_KO_DEAD	0xffffffffu
#define RT_KPOS_NEW	0x80000000u

/* A flow key as words that compare as rt_flow_key_cmp does (big-endian), and its row. */
struct rt_sortkey {
	__u64 w[6];
	__u64 row;
};

struct rt_snapshot {
	__u64 time_ns;		/* wall clock (live) or capture time (files), ns since the epoch */
	__u64 mono_ns;		/* "now" on the clock of the flows' first_ns/last_ns */
	char  source[128];	/* interfaces or file, for headers */
	__u64 evicted;		/* flows removed from the table for idleness, since start */
	__u64 interval_ns;	/* the length the run rated this interval over (the loop
				 * sets it before the sinks; a recording carries it, so
				 * that a replay rates its first interval as the run
				 * did); 0: not known (files before it, a source's own) */

	struct rt_flow *flows;
	size_t nflows, flows_cap;
	struct rt_ifdir *ifs;
	size_t nifs, ifs_cap;
	struct rt_port_ctr *ports;
	size_t nports, ports_cap;
	/* sFlow: sorted by (ifindex, dir), (ifindex, reason) and agent. */
	struct rt_swport *swports;
	size_t nswports, swports_cap;
	struct rt_swdrop *swdrops;
	size_t nswdrops, swdrops_cap;
	struct rt_sfagent *sfagents;
	size_t nsfagents, sfagents_cap;
	/* The owners' jobs of this interval, one row per process (job.h): rows
	 * name theirs by rt_flow.job; filled by the NIC's join, or a recording. */
	struct rt_job *jobs;
	size_t njobs, jobs_cap;
	/* The probe mesh's rows of this interval (probe_row.h), one per peer,
	 * path and size: filled by the mesh (--probe) or a recording. */
	struct rt_probe_row *probes;
	size_t nprobes, probes_cap;

	struct rt_iface ifaces[RT_MAX_IFACES];
	size_t nifaces;

	char notes[RT_MAX_NOTES][160];	/* degradations worth a line on screen */
	size_t nnotes;

	/* The host's congestion settings (hostcfg.h), one row per RDMA netdev:
	 * filled by the NIC's doctor reading (live) or a recording; none before. */
	struct rt_hostcfg cfgs[RT_MAX_CFGS];
	size_t ncfgs;

	struct rt_flow_table *tab;	/* NULL: a plain array of rows (see above) */
};

void rt_snapshot_init(struct rt_snapshot *s);
void rt_snapshot_free(struct rt_snapshot *s);
/* Empty the tables (a persistent flow table too), keep their memory. */
void rt_snapshot_clear(struct rt_snapshot *s);
/* Make s a persistent flow table (empty); 0 or -ENOMEM. */
int rt_snapshot_make_table(struct rt_snapshot *s);
/*
 * Start the next interval of a persistent table: clear everything but the
 * flows (ifs, ports, ifaces, notes, times), and the changed list.
 */
void rt_snapshot_next_interval(struct rt_snapshot *s);
/* Deep copy (never of the table's index: dst stays what it was, normally a
 * plain array); returns 0 or -ENOMEM (dst then keeps its old contents' memory). */
int rt_snapshot_copy(struct rt_snapshot *dst, const struct rt_snapshot *src);
/* Everything but the flows (dst's flows, table or not, stay as they are). */
int rt_snapshot_copy_small(struct rt_snapshot *dst, const struct rt_snapshot *src);
/* The same, flows in key order and throttles re-pointed to that order. From a
 * persistent table in O(N + k log k) (k: rows added since the last call, see
 * rt_snapshot_key_order), not a sort of N. */
int rt_snapshot_copy_sorted(struct rt_snapshot *dst, const struct rt_snapshot *src);
/*
 * The rows of persistent table s in key order (s->nflows of them), kept from
 * one call to the next: the rows added since are sorted and merged in, the
 * rows gone since dropped, so a call costs O(N + k log k) for k new rows
 * (O(N log N) the first time). NULL without memory.
 */
const __u32 *rt_snapshot_key_order(const struct rt_snapshot *s);

/* ---- the persistent table (s->tab set) ---- */

/*
 * The row of key k, added (zeroed, throttles -1) if it is new: *fresh says
 * which. NULL without memory, or when the table holds tab->max_flows rows.
 * A new row counts as changed. O(1).
 */
struct rt_flow *rt_snapshot_flow(struct rt_snapshot *s, const struct rt_flow_key *k, int *fresh);
/* The same with the key's hash (rt_flow_key_hash) already known. */
struct rt_flow *rt_snapshot_flow_h(struct rt_snapshot *s, const struct rt_flow_key *k, __u32 h,
				   int *fresh);
/*
 * Lookups in flight: a source that has several keys at hand asks for the index
 * slot of each (hash h) first, then for the rows (which reads the slots), then
 * looks them up, so the cache misses of many lookups overlap. Hints only.
 */
/*
 * Helpers that only prefetch are always_inline: GCC (12) counts a prefetch as
 * no side effect, finds a helper that does nothing else pure, and deletes a
 * call to it that it did not inline early (this one's prefetch was missing
 * from the pcap and live read loops until it was marked so).
 */
#define RT_PREFETCH_FN	static inline __attribute__((always_inline))

RT_PREFETCH_FN void rt_snapshot_prefetch_slot(const struct rt_snapshot *s, __u32 h)
{
	if (s->tab && s->tab->nslot)
		__builtin_prefetch(&s->tab->slot[h & (s->tab->nslot - 1)]);
}
void rt_snapshot_prefetch_row(const struct rt_snapshot *s, __u32 h);
/* Say row f changed in this interval (its counters or join fields). O(1).
 * Call it BEFORE changing the row's counters: the first touch in an interval
 * keeps what they were, which the interval's delta is taken from. */
static inline void rt_snapshot_touch_row(struct rt_snapshot *s, size_t row);
static inline void rt_snapshot_touch(struct rt_snapshot *s, const struct rt_flow *f)
{
	rt_snapshot_touch_row(s, (size_t)(f - s->flows));
}
/* The first row (+ 1, 0 for none) of the host pair src -> dst; the next one
 * is tab->st[row].pnext. */
__u32 rt_snapshot_pair_head(const struct rt_snapshot *s, __u8 family, const __u8 *src,
			    const __u8 *dst);
/* The same for a pair marked as having carried a CNP (RT_PSLOT_CNP), else 0:
 * one probe of the index, no row read, for the pairs that never had one. */
__u32 rt_snapshot_pair_head_cnp(const struct rt_snapshot *s, __u8 family, const __u8 *src,
				const __u8 *dst);
/* The first row (+ 1) of row r's own host pair: its chain walked back, no
 * probe of the index. */
static inline __u32 rt_snapshot_pair_first(const struct rt_snapshot *s, size_t r)
{
	const struct rt_flow_state *st = s->tab->st;
	__u32 id = (__u32)r + 1;

	while (st[id - 1].pprev)
		id = st[id - 1].pprev;
	return id;
}
/* Ask for the host-pair slot of src -> dst to be brought in cache (the join
 * looks it up a few rows later). */
void rt_snapshot_prefetch_pair(const struct rt_snapshot *s, __u8 family, const __u8 *src,
			       const __u8 *dst);
/* Queue row r (a CNP row) for the join; 0 or -ENOMEM. */
int rt_snapshot_join_queue(struct rt_snapshot *s, size_t r);
/* Put row f on the join's list of candidates (rows that carried a CNP). */
int rt_snapshot_note_cnp(struct rt_snapshot *s, const struct rt_flow *f);
/* Remove row r: the last row takes its place. */
void rt_snapshot_remove(struct rt_snapshot *s, size_t r);
/*
 * Remove the rows not touched since `before` (their last_ns, on the flows'
 * clock), least recently touched first, and none touched in this interval.
 * Only for tables whose rows are touched in time order (files). Returns how
 * many went; evicted[dir] counts them per direction (may be NULL).
 */
size_t rt_snapshot_expire(struct rt_snapshot *s, __u64 before, __u64 evicted[2]);
#define RT_GEND	1024
/* rt_snapshot_prefetch_row(), or, for a key not in the table, what making its
 * row will read (the host-pair slots, the row and state it fills, nnew rows
 * past the last: the new keys ahead of it); 1 for a new key, else 0. */
int rt_snapshot_prefetch_key(const struct rt_snapshot *s, const struct rt_flow_key *k, __u32 h,
			     size_t nnew);
/*
 * Fold a whole snapshot (as a source filled it, in any order) into the table
 * s: rows whose values differ count as changed, rows missing from src go, and
 * the small tables (ifs, ports, ifaces, notes, times) are copied. joined: src
 * carries the join's results (a recording, the NIC's join), which then count
 * too; 0: they are left to rt_join() on the table. O(N). 0 or -ENOMEM.
 */
int rt_snapshot_apply(struct rt_snapshot *s, const struct rt_snapshot *src, int joined);

/* Append a zeroed row and return it, or NULL without memory. */
struct rt_flow *rt_snapshot_add_flow(struct rt_snapshot *s);
struct rt_ifdir *rt_snapshot_add_ifdir(struct rt_snapshot *s);
struct rt_port_ctr *rt_snapshot_add_port(struct rt_snapshot *s);
struct rt_swport *rt_snapshot_add_swport(struct rt_snapshot *s);
struct rt_swdrop *rt_snapshot_add_swdrop(struct rt_snapshot *s);
struct rt_sfagent *rt_snapshot_add_sfagent(struct rt_snapshot *s);
/* A row of jobs[], zeroed (ranks -1); NULL without memory. */
struct rt_job *rt_snapshot_add_job(struct rt_snapshot *s);
/* A row of probes[], zeroed (its times -1: no sample); NULL without memory. */
struct rt_probe_row *rt_snapshot_add_probe(struct rt_snapshot *s);
/* The job of flow f in s, or NULL (none, or an index out of range). */
static inline const struct rt_job *rt_snapshot_job(const struct rt_snapshot *s, const struct rt_flow *f)
{
	return f->job && f->job <= s->njobs ? &s->jobs[f->job - 1] : NULL;
}
/* The switch port of an sFlow ifindex (either direction's row), or NULL. */
const struct rt_swport *rt_snapshot_swport(const struct rt_snapshot *s, __u32 ifindex);
/* Find or add the per-direction row of an interface. */
struct rt_ifdir *rt_snapshot_ifdir(struct rt_snapshot *s, __u32 ifindex, __u8 dir);
/* Remember an interface's name; returns 0 or -ENOSPC. */
int rt_snapshot_add_iface(struct rt_snapshot *s, __u32 ifindex, const char *name, const char *mode);
const char *rt_snapshot_ifname(const struct rt_snapshot *s, __u32 ifindex);
void rt_snapshot_note(struct rt_snapshot *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sort flows, ifdirs and ports by key. A persistent table's flows stay in place
 * (their order is the table's, see above); only ifdirs and ports are sorted. */
void rt_snapshot_sort(struct rt_snapshot *s);
int rt_flow_key_cmp(const struct rt_flow_key *a, const struct rt_flow_key *b);
/*
 * A hash of a flow key for open-addressed tables (pcap sources, the report):
 * the kernel flow table's hash (rt_ft_hash, bpf/rocetop.h), mixed once more so
 * that its low 32 bits are as good as its whole. Inline: a capture calls it
 * once per RoCE packet.
 */
static inline __u32 rt_flow_key_hash(const struct rt_flow_key *k)
{
	__u64 h = rt_ft_hash(k);

	h *= 0x94d049bb133111ebULL;
	return (__u32)(h ^ (h >> 29));
}
/* The order of the ports table: device, port, netdev, scope, QP, counter name. */
int rt_port_ctr_cmp(const struct rt_port_ctr *a, const struct rt_port_ctr *b);
/*
 * A table of *n elements of size sz, each starting with a struct rt_port_ctr,
 * kept in rt_port_ctr_cmp order: the element for c, inserted zeroed (with c
 * copied in) where it belongs if it was not there, *fresh telling which.
 * NULL without memory.
 */
void *rt_port_table_get(void **tab, size_t *n, size_t *cap, size_t sz,
			const struct rt_port_ctr *c, int *fresh);

/* ---- what changed between two snapshots: the one place rates come from ---- */

struct rt_findings;

struct rt_flow_delta {
	const struct rt_flow *f;	/* the row in the current snapshot */
	struct rt_flow_val d;		/* counters: the increase over the interval */
	__u64 samples;			/* sFlow samples behind d */
};

struct rt_swport_delta {
	const struct rt_swport *p;
	struct rt_swport_ctr d;
	__u64 in_octets, out_octets, in_discards, out_discards, in_errors, out_errors, lost;
	__u64 ctr_samples;		/* counter samples of the interval */
};

struct rt_swdrop_delta {
	const struct rt_swdrop *p;
	__u64 drops;
};

struct rt_sfagent_delta {
	const struct rt_sfagent *a;
	struct rt_sfagent d;		/* counters only; d.agent is empty */
};

struct rt_ifdir_delta {
	const struct rt_ifdir *s;
	struct rt_if_val d;
	__u64 evicted;
};

struct rt_port_delta {
	const struct rt_port_ctr *c;
	__u64 d;
};

struct rt_delta {
	double secs;			/* length of the interval */
	/* rt_delta_changes: one per flow that changed, in key order;
	 * rt_delta_compute: one per flow of the current snapshot, in its order. */
	struct rt_flow_delta *flows;
	size_t nflows, flows_cap;	/* flows_cap 0: flows is the table's (rt_delta_changes) */
	struct rt_ifdir_delta *ifs;
	size_t nifs, ifs_cap;
	struct rt_port_delta *ports;
	size_t nports, ports_cap;
	struct rt_swport_delta *swports;
	size_t nswports, swports_cap;
	struct rt_swdrop_delta *swdrops;
	size_t nswdrops, swdrops_cap;
	struct rt_sfagent_delta *sfagents;
	size_t nsfagents, sfagents_cap;
	struct rt_flow_val flow_tot;	/* sum of the exact flows' deltas */
	struct rt_flow_val est_tot;	/* sum of the estimated (sFlow) flows' deltas */
	struct rt_if_val if_tot;	/* sum of the interface deltas */
	__u64 evicted;
	/* The findings after this interval, and its events (user/core/findings.h);
	 * set by the loop, NULL where no engine runs. */
	const struct rt_findings *findings;
	/* The loop's own figures (user/core/loop.c), 0 elsewhere: the time the
	 * source took to give this snapshot, and the intervals missed since the
	 * start (timer expirations that found the loop still busy). */
	double collect_secs;
	__u64 missed;
};

/*
 * Counter widths for rt_ctr_delta() (and struct rt_port_ctr's bits):
 *  RT_BITS_64   a 64-bit counter: going down is a reset, counting from 0;
 *  RT_BITS_32   kept in 32 bits by the driver: going down from at most
 *               2^32 - 1 is a wrap at 2^32;
 *  RT_BITS_NIC  a NIC counter of unknown width: going down is a wrap when the
 *               previous value was at or above 2^31 and the wrapped increase
 *               is at most 2^31, a reset otherwise.
 */
#define RT_BITS_64	64
#define RT_BITS_32	32
#define RT_BITS_NIC	0

/* Increase of a counter of the given width (RT_BITS_*). Never negative. */
__u64 rt_ctr_delta(__u64 prev, __u64 cur, unsigned int bits);
void rt_flow_val_delta(struct rt_flow_val *d, const struct rt_flow_val *prev,
		       const struct rt_flow_val *cur);
void rt_if_val_delta(struct rt_if_val *d, const struct rt_if_val *prev, const struct rt_if_val *cur);
void rt_flow_val_add(struct rt_flow_val *sum, const struct rt_flow_val *v);
void rt_if_val_add(struct rt_if_val *sum, const struct rt_if_val *v);

/* Room in d's small tables (interfaces, NIC counters, switch ports, switch
 * drops, sFlow agents) for that many rows each: 0 or -ENOMEM. */
int rt_delta_reserve(struct rt_delta *d, size_t nifs, size_t nports, size_t nswports, size_t nswdrops,
		     size_t nsfagents);

/*
 * Fill d with what changed from prev to cur (prev may be NULL: everything since
 * the start). Both snapshots must be sorted. Returns 0 or -ENOMEM.
 */
int rt_delta_compute(struct rt_delta *d, const struct rt_snapshot *prev,
		     const struct rt_snapshot *cur);
/*
 * The main loop's delta over a persistent table cur: flows from cur's changed
 * list (each row's counters since its base, which then moves on), sorted by
 * key; ifdirs and ports against prev as rt_delta_compute does (prev may be
 * NULL; its flows are not looked at). Returns 0 or -ENOMEM.
 */
int rt_delta_changes(struct rt_delta *d, const struct rt_snapshot *prev, struct rt_snapshot *cur);
/* Sorting flow keys without reading rows: fill o from key k of row `row`;
 * sort n of them in rt_flow_key_cmp order. */
void rt_sortkey_make(struct rt_sortkey *o, const struct rt_flow_key *k, size_t row);
void rt_sortkeys_sort(struct rt_sortkey *k, size_t n);
/*
 * One entry per row of the sorted copy `all` (rt_snapshot_copy_sorted of the
 * loop's snapshot) from the changed-only delta d: zero counters for the rows d
 * does not name. For views that show every flow (the TUI). 0 or -ENOMEM.
 */
int rt_delta_expand(struct rt_delta *full, const struct rt_delta *d, const struct rt_snapshot *all);
void rt_delta_free(struct rt_delta *d);

/*
 * The first touch of a row in an interval puts it on the changed list and at
 * the tail of the recency list, so the list runs in order of the interval of
 * each row's last touch (rt_snapshot_expire relies on it).
 */
static inline void rt_snapshot_touch_row(struct rt_snapshot *s, size_t row)
{
	struct rt_flow_table *t = s->tab;
	struct rt_flow_hot *h, *hot;
	__u32 id = (__u32)row + 1;

	if (!t || t->hot[row].gen == t->gen)
		return;
	hot = t->hot;
	h = &hot[row];
	h->gen = t->gen;
	h->cpos = (__u32)t->nchanged;
	t->cd[t->nchanged].d = s->flows[row].v;	/* the counters before this interval's */
	t->cd[t->nchanged].samples = s->flows[row].samples;
	t->changed[t->nchanged++] = (__u32)row;	/* both sized to hold every row */
	if (t->no_lru || t->lru_tail == id)
		return;
	/* unlink (a fresh row is on no list: both links 0 and not the head) */
	if (h->lru_prev)
		hot[h->lru_prev - 1].lru_next = h->lru_next;
	else if (t->lru_head == id)
		t->lru_head = h->lru_next;
	if (h->lru_next)
		hot[h->lru_next - 1].lru_prev = h->lru_prev;
	h->lru_prev = t->lru_tail;
	h->lru_next = 0;
	if (t->lru_tail)
		hot[t->lru_tail - 1].lru_next = id;
	else
		t->lru_head = id;
	t->lru_tail = id;
}

/* Whether row r changed in this interval (it is in the delta). */
static inline int rt_snapshot_changed(const struct rt_snapshot *s, size_t row)
{
	return s->tab && s->tab->hot[row].gen == s->tab->gen;
}

#endif
