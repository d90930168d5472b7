/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tuning from a recording (`rocetop report --tune`): a tally of what the
 * recording shows per priority (RoCE data, CE marks, CNPs, pause frames, the
 * NIC's DCQCN counters), taken interval by interval beside the report's
 * aggregation, and the rules that read it against the host's congestion
 * settings the recording carries (user/core/hostcfg.h) into recommendations,
 * each with the setting, its scope, the current and recommended values, the
 * evidence from the recording and the command for this host. Pure: no I/O.
 * rocetop(8) TUNING lists the rules.
 */
#ifndef RT_TUNE_H
#define RT_TUNE_H

#include "snapshot.h"

/* sFlow queue depths (bytes) at the starts of episodes: how many, the least, the greatest. */
struct rt_tune_depth {
	__u64 n;
	__u32 lo, hi;
};

struct rt_tune_prio {
	__u64 pkts, ce, cnp, pause;	/* RoCE data, CE-marked, CNPs, PFC frames */
	__u64 ce_in;			/* CE-marked data this host received itself (ingress, no mirror) */
	__u64 episodes, pause_first;	/* congestion episodes, those PFC began */
	int open, quiet;		/* an episode is open; intervals quiet since */
	int marked, paused;		/* the open episode has had CE marks; PFC frames */
	/* The switch queue's depth (sFlow, the ports whose egress queue is
	 * this priority) in the interval marking, and pausing, began in an episode. */
	struct rt_tune_depth mark_depth, pause_depth;
	/* The busiest interval of the data on an interface and direction whose
	 * link speed is known (not assumed): its share of the link. */
	int rated;			/* such an interval was seen */
	double peak_share, peak_bps;
	__u64 peak_mbps;		/* that link's speed */
	char peak_if[16];
	int nic_ran;			/* the NIC's counters moved for RoCE of this priority */
};

struct rt_tune {
	struct rt_tune_prio p[8];
	struct rt_hostcfg cfg[RT_MAX_CFGS];	/* the last settings recorded */
	size_t ncfg;
	__u64 np_marked, np_cnp_sent, rp_handled, rp_ignored;	/* NIC counters' increase */
	__u64 cnp_out;		/* CNPs this host sent itself (egress, no mirror) */
	char root[256];		/* the tree the settings were read below: the commands' files
				 * are there ("": the host's own /sys) */
	int nic;		/* the tally is the NIC's counters' (rt_tune_take_nic), no packets */
	double nic_secs;	/* between their two readings */
};

/* One RDMA netdev's NIC counters' increase between two readings. */
struct rt_tune_nic {
	__u64 np_marked, np_cnp_sent, rp_handled, rp_ignored;	/* hw_counters */
	__u64 pause[8];		/* PFC frames per priority, received and sent (ethtool) */
};

/*
 * The tally of `rocetop doctor --tune` (a hardware NIC handles RoCE in
 * silicon: its counters are what the host sees of it): c's settings and its
 * counters' increase over secs. The counters are the port's, not a
 * priority's: the RoCE they count is put on the priority rdma_cm's default
 * ToS takes (c->roce_prio), when one of them moved.
 */
void rt_tune_take_nic(struct rt_tune *t, const struct rt_hostcfg *c, const struct rt_tune_nic *n, double secs);

/* One interval of the recording. */
void rt_tune_take(struct rt_tune *t, const struct rt_snapshot *cur, const struct rt_delta *d);

struct rt_tune_rec {
	char kind[12];		/* "change", or "observation": no command, recommended names what to look at */
	char setting[64], scope[48], current[96], recommended[320];
	char evidence[320], command[320], confidence[8];
};

#define RT_TUNE_MAX 32
/* The recommendations the tally supports (none on a healthy recording); their number. */
size_t rt_tune_rules(const struct rt_tune *t, struct rt_tune_rec *out, size_t max);

/* The recommendations as a "tuning" array in JSON, in text a paragraph
 * each (user/sinks/tune_print.c). */
struct rt_printer;
void rt_tune_print(struct rt_printer *p, const struct rt_tune_rec *r, size_t n);

#endif
