/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the rules (rules.c, rules_health.c and rules_probe.c, one module): the interval's
 * state every rule of the table reads, struct rt_rule_ctx, which rules.c's
 * begin makes, and the NIC health rules of rules_health.c that rules.c's
 * table lists beside its own. Each rule is a function of the state calling
 * rt_findings_match() (findings.h); 0 or -ENOMEM.
 */
#ifndef RT_RULES_INT_H
#define RT_RULES_INT_H

#include <net/if.h>
#include "findings.h"

/* Pauses on one interface, direction and priority over the interval. */
struct pause {
	char  ifname[IF_NAMESIZE];
	__u8  dir;
	__u8  prio;
	__u64 xoff;		/* pause frames with a non-zero time */
	__u64 frames, quanta;
	double secs;		/* paused time: the frames' (rt_paused_secs), or the NIC's duration counter */
	int   nic;		/* counted by the NIC (ethtool), not on the wire */
	int   est;		/* the frames' time estimated from quanta (an old recording) */
};

#define MAX_PAUSE (2 * RT_MAX_IFACES * RT_NPRIO)

/* The interval's state the rules share (findings.h: the rule table's begin). */
struct rt_rule_ctx {
	struct rt_findings *F;
	const struct rt_snapshot *cur;
	const struct rt_delta *d;
	const struct rt_flow_val **dv;	/* per flow of cur: its delta, or NULL (only while c->np) */
	struct pause p[MAX_PAUSE];
	size_t np;
	int err;		/* -ENOMEM from begin's own steps, returned by end */
};

int rt_rule_link_flap(struct rt_rule_ctx *c);
int rt_rule_fec_degrading(struct rt_rule_ctx *c);
int rt_rule_link_errors(struct rt_rule_ctx *c);
int rt_rule_buffer_discard(struct rt_rule_ctx *c);
int rt_rule_slow_receiver(struct rt_rule_ctx *c);
int rt_rule_pcie(struct rt_rule_ctx *c);

#endif
