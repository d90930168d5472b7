// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live source: load the BPF programs (the inlined or the split ones,
 * bpf/rocetop.bpf.c), size and map the kernel flow table, and read it and the
 * interface counters into snapshots, in place from its dirty bits or whole,
 * evicting idle flows. Attaching the programs to the interfaces, and again
 * when one returns, is live_attach.c's; the state both share is live_int.h.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rocetop.skel.h"
#include "linkspeed.h"
#include "live_int.h"
/* pause.h unrolls a loop for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "pause_map.h"
#pragma GCC diagnostic pop
#include "log.h"
#include "nic.h"
#include "source.h"

static __u64 now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && rt_verbosity < RT_LOG_DEBUG)
		return 0;
	if (rt_verbosity < RT_LOG_DEBUG)	/* libbpf's own chatter only under -v */
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Whether a seccomp filter guards this process (/proc/self/status): a
 * container engine's default one refuses bpf() without CAP_SYS_ADMIN. */
static int seccomp_filtered(void)
{
	char line[256];
	int mode = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (f)
		fclose(f);
	return mode == 2;
}

static void live_close(struct rt_source *s)
{
	struct live *l = s->priv;
	int i;

	if (!l)
		return;
	for (i = l->nifs - 1; i >= 0; i--) {
		if (l->ifs[i].tc_link >= 0)
			close(l->ifs[i].tc_link);
		if (!l->ifs[i].gone)
			rt_live_detach_tc_filter(&l->ifs[i]);
		if (l->ifs[i].xdp_link >= 0)
			close(l->ifs[i].xdp_link);
	}
	if (l->nl_fd >= 0)
		close(l->nl_fd);
	rt_ftab_unmap(&l->ft);
	rocetop_bpf__destroy(l->skel);
	free(l->ifvals);
	free(l->gone);
	free(l);
	free(s);
}

static void sum_if(const struct live *l, const void *vals, struct rt_if_val *out)
{
	const struct rt_if_val *v = vals;
	int c;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < l->ncpus; c++)
		rt_if_val_add(out, &v[c]);
}

/*
 * Every flow of the kernel table into a cleared snapshot (sources with a NIC,
 * whose join works on whole snapshots): each live slot of each region, a key
 * taken once, in the first region that holds it, summed over the regions.
 * O(table size), no system call.
 */
static int read_flows(struct live *l, struct rt_snapshot *s)
{
	const struct rt_ftab *t = &l->ft;

	for (__u32 r = 0; r < t->nregions; r++) {
		const struct rt_flow_slot *base = t->slots + (size_t)r * t->rslots;

		for (__u32 i = 0; i < t->rslots; i++) {
			struct rt_flow_key k;
			struct rt_flow *f;
			__u64 h;
			__u32 q;

			if (__atomic_load_n(&base[i].v.slot, __ATOMIC_ACQUIRE) != RT_FT_LIVE ||
			    !rt_ft_pkts(&base[i].v))
				continue;
			k = base[i].k;
			h = rt_ft_hash(&k);
			for (q = 0; q < r; q++) {
				const struct rt_flow_slot *o = rt_ftab_find(t, q, &k, h);

				if (o && rt_ft_pkts(&o->v))
					break;
			}
			if (q < r)	/* taken with an earlier region */
				continue;
			f = rt_snapshot_add_flow(s);
			if (!f)
				return -ENOMEM;
			f->k = k;
			if (!rt_ftab_sum(t, &k, r, &f->v))
				s->nflows--;	/* evicted meanwhile */
		}
	}
	return 0;
}

/*
 * Incremental (no NIC): only the slots whose dirty bit is set, into the
 * persistent table. A flow dirty in several regions is summed once; a row
 * whose sum did not move (a bit set again by a racing packet already read)
 * stays unchanged. O(changed + table size / 64).
 *
 * Each row remembers the regions its key was seen dirty in (st.regions):
 * a slot is claimed with its dirty bit set, so every region holding the key
 * shows up here. A flow of one region (a NIC's RSS keeps a flow on one
 * queue, one CPU) is read from the dirty slot itself, with no lookup in the
 * other regions; a flow of several is summed over those it was seen in, and
 * a region seen for the first time adds itself and sums again. More regions
 * than bits in the mask: every region is looked up, as before.
 * (tests/live/test_regions.sh counts one flow on two CPUs.)
 */
/* Ask for the slots whose dirty bits rt_ftab_stamp took in word w: all
 * their lines (key, counters, state), which read_changed reads. */
RT_PREFETCH_FN void prefetch_word(const struct rt_ftab *t, size_t w)
{
	for (__u64 b = t->taken[w]; b; b &= b - 1) {
		const char *p = (const char *)&t->slots[w * 64 + (size_t)__builtin_ctzll(b)];

		__builtin_prefetch(p);
		__builtin_prefetch(p + 64);
		__builtin_prefetch(p + sizeof(struct rt_flow_slot) - 1);
	}
}

static int read_changed(struct live *l, struct rt_snapshot *s)
{
	const struct rt_ftab *t = &l->ft;
	struct rt_flow_table *tab = s->tab;
	int masked = t->nregions <= RT_ROW_REGIONS;
	struct {
		const struct rt_flow_slot *sl;
		struct rt_flow_key k;
		__u32 h, rbit;
	} q[64];

	if (t->nwords)
		prefetch_word(t, 0);
	for (size_t w = 0; w < t->nwords; w++) {
		__u64 bits = t->taken[w];	/* taken and stamped by rt_ftab_stamp */
		size_t nq = 0;

		if (w + 1 < t->nwords)	/* the next word's slots come while these are read */
			prefetch_word(t, w + 1);

		/* The keys of the word's dirty slots first, their lookups in
		 * flight together (rt_snapshot_prefetch_slot/row), then the rows. */
		while (bits) {
			size_t at = w * 64 + (size_t)__builtin_ctzll(bits);
			const struct rt_flow_slot *sl = &t->slots[at];

			bits &= bits - 1;
			if (__atomic_load_n(&sl->v.slot, __ATOMIC_ACQUIRE) != RT_FT_LIVE)
				continue;
			q[nq].k = sl->k;
			if (__atomic_load_n(&sl->v.slot, __ATOMIC_ACQUIRE) != RT_FT_LIVE)
				continue;	/* claimed again while read: its bit comes again */
			q[nq].sl = sl;
			q[nq].rbit = masked ? 1U << (at / t->rslots) : 0;
			q[nq].h = rt_flow_key_hash(&q[nq].k);
			rt_snapshot_prefetch_slot(s, q[nq].h);
			nq++;
		}
		for (size_t i = 0; i < nq; i++)
			rt_snapshot_prefetch_row(s, q[i].h);
		for (size_t i = 0; i < nq; i++) {
			__u32 rbit = q[i].rbit, seen;
			struct rt_flow_state *fs;
			struct rt_flow_val v;
			struct rt_flow *f;
			int fresh, n;

			f = rt_snapshot_flow_h(s, &q[i].k, q[i].h, &fresh);
			if (!f)
				return -ENOMEM;
			fs = &tab->st[f - s->flows];
			seen = fresh ? 0 : fs->regions;
			if (!fresh && tab->hot[f - s->flows].gen == tab->gen && (seen & rbit) == rbit)
				continue;	/* summed already, from another region */
			seen |= rbit;
			fs->regions = seen & ((1U << RT_ROW_REGIONS) - 1);
			if (seen == rbit && rbit)	/* one region: this slot */
				n = rt_ftab_slot_val(t, q[i].sl, &v);
			else if (rbit)
				n = rt_ftab_sum_regions(t, &q[i].k, seen, &v);
			else
				n = rt_ftab_sum(t, &q[i].k, 0, &v);
			if (!n) {
				if (fresh)
					rt_snapshot_remove(s, (size_t)(f - s->flows));
				continue;
			}
			/* The times are the row's (no per-slot stamps here): the read
			 * gave first = last = now; a known flow keeps its first. */
			if (!fresh)
				v.first_ns = f->v.first_ns;
			/* counts that moved; the stamps alone (a bit set by a packet
			 * read already) change nothing */
			if (fresh || memcmp(&f->v, &v, offsetof(struct rt_flow_val, first_ns))) {
				rt_snapshot_touch(s, f);	/* first: it keeps the old counters */
				f->v = v;
			}
		}
	}
	return 0;
}

/*
 * The paused time of ifstats entry idx (slot * 2 + dir) up to now, from the
 * pause map (bpf/pause.h): read under its lock, the part of the pause in
 * progress added as of now. A frame stamped before now but counted after
 * this read may end that part earlier than now: the totals given never go
 * back (a counter that went back would read as a reset). 0 or -1 (errno).
 */
static int read_paused(struct live *l, __u32 idx, __u64 out[RT_NPRIO])
{
	__u64 *last = l->paused_ns[idx / 2][idx % 2], now;
	struct rt_pause_val v;
	int p;

	if (bpf_map_lookup_elem_flags(bpf_map__fd(l->skel->maps.pausestate), &idx, &v, BPF_F_LOCK))
		return -1;
	now = now_ns(CLOCK_MONOTONIC);	/* the programs' clock, bpf_ktime_get_ns */
	for (p = 0; p < RT_NPRIO; p++) {
		__u64 t = rt_pause_total(&v.prio[p], now);

		if (t > last[p])
			last[p] = t;
		out[p] = last[p];
	}
	return 0;
}

/* ifstats is a per-CPU array: slot * 2 + dir, slots as set before load. */
static int read_ifstats(struct live *l, struct rt_snapshot *s)
{
	int fd = bpf_map__fd(l->skel->maps.ifstats);
	__u32 slot, dir;

	for (slot = 0; slot < RT_IF_SLOTS; slot++) {
		if (slot < RT_SLOT_OTHER && slot >= (__u32)l->nifs)
			continue;
		for (dir = 0; dir < 2; dir++) {
			__u32 idx = slot * 2 + dir;
			struct rt_if_val sum;
			struct rt_ifdir *d;

			if (bpf_map_lookup_elem(fd, &idx, l->ifvals))
				return -errno;
			sum_if(l, l->ifvals, &sum);
			/* Frames of unwatched interfaces only appear in tests. */
			if (slot == RT_SLOT_OTHER && !sum.pkts)
				continue;
			if (sum.mac_ctrl && read_paused(l, idx, sum.pfc_paused_ns))
				return -errno;
			d = rt_snapshot_add_ifdir(s);
			if (!d)
				return -ENOMEM;
			d->k.ifindex = slot == RT_SLOT_OTHER ? 0 : l->ifs[slot].ifindex;
			d->k.dir = (__u8)dir;
			d->v = sum;
		}
	}
	return 0;
}


static void count_evicted(struct live *l, const struct rt_flow_key *k)
{
	l->evicted++;
	for (int i = 0; i < l->nifs; i++)
		if (l->ifs[i].ifindex == k->ifindex)
			l->evicted_by[i][k->dir & 1]++;
}

/*
 * Flows idle for longer than the timeout: their slots marked dead in the
 * kernel table (the owning CPU reuses them). Their last counts are in s; the
 * rows go at the next snapshot (missing from it).
 */
static void evict(struct live *l, struct rt_snapshot *s)
{
	__u64 limit = (__u64)(l->flow_timeout * 1e9);
	size_t i;

	for (i = 0; i < s->nflows; i++) {
		__u64 last = s->flows[i].v.last_ns;

		/* A flow seen changed at this read was stamped mono_ns. */
		if (last < s->mono_ns && s->mono_ns - last > limit &&
		    rt_ftab_kill(&l->ft, &s->flows[i].k))
			count_evicted(l, &s->flows[i].k);
	}
}

/*
 * The same for the persistent table, without looking at every row: least
 * recently changed rows first, up to the first interval of rows holding one
 * too recent (rt_snapshot_expire's walk; rows change in time order). The
 * rows are removed at the start of the next interval (forget_evicted), as
 * they go from a whole snapshot.
 */
static int evict_rows(struct live *l, struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	__u64 limit = (__u64)(l->flow_timeout * 1e9);
	__u32 id = t->lru_head, stop = 0;
	int have_stop = 0;

	for (; id; id = t->hot[id - 1].lru_next) {
		const struct rt_flow *f = &s->flows[id - 1];
		__u64 last = f->v.last_ns;

		if (t->hot[id - 1].gen == t->gen || (have_stop && t->hot[id - 1].gen != stop))
			break;
		if (last < s->mono_ns && s->mono_ns - last > limit) {
			if (!rt_ftab_kill(&l->ft, &f->k))
				continue;
			count_evicted(l, &f->k);
			{
				struct rt_flow_key *g = rt_append((void **)&l->gone, &l->ngone,
								  &l->gone_cap, sizeof(*g));

				if (!g)
					return -ENOMEM;
				*g = f->k;
			}
		} else if (!have_stop) {
			have_stop = 1;
			stop = t->hot[id - 1].gen;
		}
	}
	return 0;
}

/* The rows evicted in the last interval leave the table. */
static void forget_evicted(struct live *l, struct rt_snapshot *s)
{
	for (size_t i = 0; i < l->ngone; i++) {
		int fresh;
		struct rt_flow *f = rt_snapshot_flow(s, &l->gone[i], &fresh);

		if (f)
			rt_snapshot_remove(s, (size_t)(f - s->flows));
	}
	l->ngone = 0;
}

/*
 * The kernel flow table full: said once on stderr when table_full first
 * moves, and in every snapshot's notes from then on (the view's header), with
 * a --max-flows that fits every flow (each frame without a row may have been
 * a new flow: an upper bound).
 */
static void table_full(struct live *l, struct rt_snapshot *s)
{
	__u32 max = rt_ftab_region_flows(&l->ft);
	__u64 full = 0, want;
	char when[16];

	for (size_t j = 0; j < s->nifs; j++)
		full += s->ifs[j].v.flow_full;
	if (full > l->full_seen) {
		l->full_seen = full;
		want = (__u64)max + full;
		if (want > 1U << 24)
			want = 1U << 24;
		if (!l->full_since) {
			l->full_since = s->time_ns;
			pr_warn("the kernel flow table is full (--max-flows %u): RoCE frames of new flows are counted per interface only, as table_full; --max-flows %llu fits every flow seen so far.\n",
				max, (unsigned long long)want);
		}
	}
	if (l->full_since) {
		time_t t = (time_t)(l->full_since / 1000000000ULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		want = (__u64)max + l->full_seen;
		rt_snapshot_note(s, "flow table full since %s (--max-flows %u): %llu RoCE frames without a flow row; --max-flows %llu fits them",
				 when, max, (unsigned long long)l->full_seen,
				 (unsigned long long)(want > 1U << 24 ? 1U << 24 : want));
	}
}

/*
 * What paused time needs to know of an interface, read once at the start:
 * --link-speed when given (so a recording keeps it), else the interface's own
 * speed through ethtool. A --collector port's speed is not the mirrored
 * hosts': there the speed is said unknown unless given. MTU through the
 * ioctl, PFC-enabled priorities through DCB netlink where the driver has DCB.
 */
static void iface_facts(struct live_if *f, const struct rt_live_cfg *c)
{
	struct ifreq ifr = { 0 };
	struct rt_dcb dcb;
	int fd;

	if (c->speed_mbps) {
		f->speed_mbps = c->speed_mbps;
		f->speed_from = RT_SPEED_FROM_GIVEN;
	} else if (c->collector) {
		f->speed_mbps = 0;
		f->speed_from = RT_SPEED_FROM_MIRROR;
	} else {
		f->speed_mbps = rt_link_speed_mbps(f->name);
		f->speed_from = f->speed_mbps ? RT_SPEED_FROM_ETHTOOL : "";
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->name);
	if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
		f->mtu = (__u32)ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	memset(&dcb, 0, sizeof(dcb));
	if (!rt_dcb_query(f->name, &dcb) && dcb.ok && dcb.has_pfc) {
		f->pfc_known = 1;
		f->pfc_en = dcb.pfc_en;
	}
}

static void add_iface(struct rt_snapshot *s, const struct live_if *f)
{
	struct rt_iface *i;

	if (rt_snapshot_add_iface(s, f->ifindex, f->name, f->mode))
		return;
	i = &s->ifaces[s->nifaces - 1];
	i->speed_mbps = f->speed_mbps;
	snprintf(i->speed_from, sizeof(i->speed_from), "%s", f->speed_from ? f->speed_from : "");
	i->mtu = f->mtu;
	i->pfc_known = f->pfc_known;
	i->pfc_en = f->pfc_en;
}

static int live_collect(struct rt_source *src, struct rt_snapshot *s)
{
	struct live *l = src->priv;
	int i, err;

	rt_live_watch_links(l);
	s->time_ns = now_ns(CLOCK_REALTIME);
	s->mono_ns = now_ns(CLOCK_MONOTONIC);
	snprintf(s->source, sizeof(s->source), "%s", l->source);
	for (i = 0; i < l->nifs; i++) {
		add_iface(s, &l->ifs[i]);
		if (l->ifs[i].gone)
			rt_snapshot_note(s, "%s is gone (deleted): not counted until it returns",
					 l->ifs[i].name);
	}

	if (src->incremental) {
		s->tab->no_lru = !(l->flow_timeout > 0);	/* only eviction walks it */
		forget_evicted(l, s);
	}
	/* The incremental read keeps first and last seen in the table's rows
	 * (read_changed): no stamps per kernel slot (16 bytes each); the
	 * whole-table read keeps them per slot (live_maps.h). */
	if (src->incremental && l->ft.seen)
		rt_ftab_row_stamps(&l->ft);
	if (!src->incremental && rt_ftab_slot_stamps(&l->ft)) {
		pr_warn("reading the BPF maps failed: %s.\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	rt_ftab_stamp(&l->ft, s->mono_ns);	/* the slots that changed: seen now */
	err = src->incremental ? read_changed(l, s) : read_flows(l, s);
	if (!err)
		err = read_ifstats(l, s);
	if (err) {
		pr_warn("reading the BPF maps failed: %s.\n", strerror(-err));
		return err;
	}
	if (l->flow_timeout > 0 && !src->incremental)
		evict(l, s);
	if (l->flow_timeout > 0 && src->incremental && evict_rows(l, s))
		return -ENOMEM;
	s->evicted = l->evicted;
	for (size_t j = 0; j < s->nifs; j++)
		for (int k = 0; k < l->nifs; k++)
			if (l->ifs[k].ifindex == s->ifs[j].k.ifindex)
				s->ifs[j].evicted = l->evicted_by[k][s->ifs[j].k.dir & 1];
	table_full(l, s);
	return 1;
}

/* Open and load the object with the inlined programs (rt_xdp, rt_tc) or the
 * split ones (rt_xdp_split, rt_tc_split), only those asked for. */
static int open_load(struct live *l, const struct rt_live_cfg *c, int split, int frags)
{
	struct bpf_program *all[4];
	int err, k;

	l->skel = rocetop_bpf__open();
	if (!l->skel) {
		pr_warn("cannot open the BPF object: %s.\n", strerror(errno));
		return -errno;
	}
	err = rt_ftab_size(l->skel, c->max_flows, l->ncpus);
	if (err) {
		pr_warn("cannot size the kernel flow table for --max-flows %u on %d CPUs: %s.\n",
			c->max_flows, l->ncpus, strerror(-err));
		return err;
	}
	l->skel->rodata->rt_collector = c->collector ? 1 : 0;
	l->skel->rodata->rt_frags = split && frags;
	all[0] = l->skel->progs.rt_xdp;
	all[1] = l->skel->progs.rt_tc;
	all[2] = l->skel->progs.rt_xdp_split;
	all[3] = l->skel->progs.rt_tc_split;
	l->xdp_prog = all[split ? 2 : 0];
	l->tc_prog = all[split ? 3 : 1];
	for (k = 0; k < 4; k++)
		bpf_program__set_autoload(all[k], (all[k] == l->xdp_prog && !c->no_ingress) ||
						  (all[k] == l->tc_prog && !c->no_egress));
	if (split && frags)
		bpf_program__set_flags(l->xdp_prog,
				       bpf_program__flags(l->xdp_prog) | BPF_F_XDP_HAS_FRAGS);
	l->split = split;
	return rocetop_bpf__load(l->skel);
}

/*
 * The inlined programs where the kernel verifies them (they cost a frame the
 * least), else the split ones (bpf/rocetop.bpf.c tells why there are two):
 * directly before Linux 6.12 (rt_kernel_inlined) and with --bpf-split, and
 * when the verifier refuses the inlined ones.
 */
static int load_programs(struct live *l, const struct rt_live_cfg *c)
{
	int frags = rt_kernel_xdp_frags(), split = c->bpf_split || !rt_kernel_inlined(frags), err;
	char buf[128];

	if (split && !c->bpf_split)
		pr_debug("Linux before 6.12: loading the split BPF programs.\n");
	err = open_load(l, c, split, frags);
	if (err && err != -EPERM && !split && l->skel) {
		libbpf_strerror(err, buf, sizeof(buf));
		pr_info("this kernel's verifier refused rocetop's inlined BPF programs (%s): loading the split ones, which cost a frame a little more.\n",
			buf);
		rocetop_bpf__destroy(l->skel);
		err = open_load(l, c, 1, frags);
	}
	if ((err == -EPERM || err == -EACCES) && l->skel && seccomp_filtered()) {
		pr_warn("the kernel refused bpf(), which loads the programs, though the capabilities are there, and a seccomp filter guards this process (a container engine's default one refuses bpf() without CAP_SYS_ADMIN): run the container with dist/kubernetes/rocetop-seccomp.json (podman run --security-opt seccomp=FILE, or the DaemonSet's seccompProfile).\n");
	} else if (err && l->skel) {
		libbpf_strerror(err, buf, sizeof(buf));
		pr_warn("the kernel refused rocetop's BPF programs (%s); run with -v for the verifier's log.\n",
			buf);
	}
	return err;
}

/* The interfaces named (-i): their ifindex and facts, and the source's name
 * ("eth0,eth1"). 0, or -ENODEV after saying which one is missing. */
static int find_ifaces(struct live *l, const struct rt_live_cfg *c)
{
	size_t off = 0;
	int i;

	if (c->nifaces > RT_LIVE_MAX_IFACES) {
		pr_warn("at most %d interfaces can be watched at once.\n", RT_LIVE_MAX_IFACES);
		return -EINVAL;
	}
	for (i = 0; i < c->nifaces; i++) {
		struct live_if *f = &l->ifs[l->nifs];

		f->xdp_link = f->tc_link = -1;
		snprintf(f->name, sizeof(f->name), "%s", c->ifaces[i]);
		if (strlen(c->ifaces[i]) >= IF_NAMESIZE || !(f->ifindex = if_nametoindex(c->ifaces[i]))) {
			pr_warn("no such interface: %s (ip link lists the interfaces).\n", c->ifaces[i]);
			return -ENODEV;
		}
		iface_facts(f, c);
		l->nifs++;
		off += snprintf(l->source + off, off < sizeof(l->source) ? sizeof(l->source) - off : 0,
				"%s%s", i ? "," : "", c->ifaces[i]);
		if (off >= sizeof(l->source))
			off = sizeof(l->source) - 1;
	}
	return 0;
}

/* Each watched interface's link speed into its entries of the pause map
 * (bpf/pause.h; iface_facts decided it, 0: the assumed speed). 0 or -errno. */
static int pause_speeds(struct live *l)
{
	int fd = bpf_map__fd(l->skel->maps.pausestate);

	for (int i = 0; i < l->nifs; i++)
		for (__u32 dir = 0; dir < 2; dir++) {
			struct rt_pause_val v = { 0 };
			__u32 idx = (__u32)i * 2 + dir;

			v.mbps = l->ifs[i].speed_mbps > 0xffffffffULL ? 0xffffffffU : (__u32)l->ifs[i].speed_mbps;
			if (bpf_map_update_elem(fd, &idx, &v, BPF_ANY))
				return -errno;
		}
	return 0;
}

/* The BPF side, loaded and mapped: the programs, the kernel flow table in
 * memory, each interface's slot. 0 or -errno after saying why. */
static int load_bpf(struct live *l, const struct rt_live_cfg *c)
{
	int i, err;

	libbpf_set_print(libbpf_print);
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		pr_warn("cannot count the possible CPUs: %s.\n", strerror(-l->ncpus));
		return l->ncpus ? l->ncpus : -EINVAL;
	}
	l->ifvals = calloc((size_t)l->ncpus, sizeof(*l->ifvals));
	if (!l->ifvals) {
		pr_warn("out of memory.\n");
		return -ENOMEM;
	}
	err = load_programs(l, c);
	if (err)
		return err;
	err = rt_ftab_map(&l->ft, l->skel);
	if (err) {
		pr_warn("cannot map the kernel flow table into memory: %s.\n", strerror(-err));
		return err;
	}
	for (i = 0; i < l->nifs; i++) {
		err = rt_ifslot_set(l->skel, 0, l->ifs[i].ifindex, (__u32)i);
		if (err) {
			pr_warn("cannot fill the BPF slot map: %s.\n", strerror(-err));
			return err;
		}
	}
	err = pause_speeds(l);
	if (err) {
		pr_warn("cannot fill the BPF pause map: %s.\n", strerror(-err));
		return err;
	}
	/* one interface: the program takes its ifindex from here, not the frame's
	 * context (bpf/rocetop.bpf.c, rt_one_ifindex and rt_one_slot) */
	rt_one_if_set(l->skel, l->nifs == 1 ? l->ifs[0].ifindex : 0, 0);
	return 0;
}

struct rt_source *rt_live_source_new(const struct rt_live_cfg *c)
{
	struct rt_source *src = calloc(1, sizeof(*src));
	struct live *l = calloc(1, sizeof(*l));

	if (!src || !l) {
		pr_warn("out of memory.\n");
		goto fail;
	}
	src->name = "live";
	src->live = 1;
	src->collect = live_collect;
	src->close = live_close;
	src->priv = l;
	/* The table is updated in place from the kernel table's dirty bits. With
	 * the NIC's counters or sFlow merged in, rt_stream_step (stream.c) sets
	 * this too, as the NIC and sFlow update their own rows in place; the
	 * whole-table read (read_flows) is left for a caller that collects on
	 * its own (tests/unit/test_flowtab.c holds the two paths to the same
	 * deltas). */
	src->incremental = c->incremental;
	l->flow_timeout = c->flow_timeout;
	l->xdp_mode = c->xdp_mode;
	l->no_ingress = c->no_ingress;
	l->no_egress = c->no_egress;
	l->no_tcx = c->tc_filter;
	l->nl_fd = -1;
	if (find_ifaces(l, c))
		goto fail;
	if (!rt_live_privileged())
		goto fail;
	if (load_bpf(l, c))
		goto fail;
	/* Counting begins with the first program attached: the first
	 * snapshot is rated from here (user/core/loop.c). */
	src->start_mono_ns = now_ns(CLOCK_MONOTONIC);
	if (rt_live_attach_all(l, c))
		goto fail;
	rt_live_watch_link_events(l);
	return src;
fail:
	if (l && l->skel)
		live_close(src);
	else {
		free(l);
		free(src);
	}
	return NULL;
}

int rt_live_xdp_fd(struct rt_source *src)
{
	struct live *l = src->priv;

	return bpf_program__fd(l->xdp_prog);
}

const struct rt_ftab *rt_live_flowtab(struct rt_source *src)
{
	struct live *l = src->priv;

	return &l->ft;
}
