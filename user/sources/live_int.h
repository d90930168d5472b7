/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live source's state, shared by its two files: live.c (load the BPF
 * programs, read their maps into snapshots) and live_attach.c (attach them
 * to the interfaces, and again when an interface returns). Private to them.
 */
#ifndef RT_LIVE_INT_H
#define RT_LIVE_INT_H

#include <net/if.h>
#include "live_maps.h"
#include "sources.h"

struct bpf_program;

_Static_assert(RT_LIVE_MAX_IFACES <= RT_SLOT_OTHER, "one ifstats slot per watched interface");

struct live_if {
	__u32 ifindex;
	char name[IF_NAMESIZE];
	int xdp_link;
	int tc_link;
	int tc_filter;		/* egress through rocetop's TC filter (no tcx) */
	const char *mode;
	int gone;		/* deleted (or renamed, or moved away): waiting for its name */
	__u64 speed_mbps;	/* the facts each snapshot carries (struct rt_iface) */
	const char *speed_from;
	__u32 mtu;
	__u8 pfc_known, pfc_en;
};

struct live {
	struct rocetop_bpf *skel;
	struct live_if ifs[RT_LIVE_MAX_IFACES];
	int nifs;
	int ncpus;
	double flow_timeout;
	__u64 evicted;
	__u64 evicted_by[RT_SLOT_OTHER][2];	/* per watched interface and direction */
	__u64 full_seen;	/* RoCE frames the kernel table had no room for, so far */
	__u64 full_since;	/* when that first moved (time_ns), 0: never */
	char source[128];
	struct rt_ftab ft;	/* the kernel flow table, mmapped */
	struct rt_flow_key *gone;	/* incremental: evicted, their rows go next interval */
	size_t ngone, gone_cap;
	struct rt_if_val *ifvals;	/* one ifstats entry, per CPU */
	__u64 paused_ns[RT_IF_SLOTS][2][RT_NPRIO];	/* the last totals given: they never go back */
	/* link watcher: rtnetlink link events say when to look again */
	int nl_fd;
	int xdp_mode, no_ingress, no_egress;
	int split;		/* the split programs are loaded (bpf/rocetop.bpf.c) */
	int no_tcx;		/* tcx refused once: TC filters from then on */
	struct bpf_program *xdp_prog, *tc_prog;
};

/* Whether this process holds what attaching needs; if not, say which
 * capabilities it lacks (user/core/caps.h). */
int rt_live_privileged(void);
/* XDP on ingress and TC on egress of every interface, as c asks. 0 or -1
 * (said). */
int rt_live_attach_all(struct live *l, const struct rt_live_cfg *c);
/* rocetop's own TC filter off i's egress hook, if it put one there. */
void rt_live_detach_tc_filter(struct live_if *i);
/* Open the socket of link events (RTMGRP_LINK) rt_live_watch_links reads. */
void rt_live_watch_link_events(struct live *l);
/* At each interval: interfaces gone are marked, those back attached again. */
void rt_live_watch_links(struct live *l);

#endif
